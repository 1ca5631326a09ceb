"""Where the service keeps what is not RDF: job state, kept uploads, archived answer files.

Keys are relative paths (``jobs/12/spec.json``, ``files/{sha256}``, ``answers/12/{name}``);
:mod:`service.experiments.jobs` and :mod:`service.experiments.kept` say what lies under them.
Two places hold them:

* :class:`DirWorkspace`, the directory beside an embedded store: files, written atomically
  (temporary file, fsync, rename), answer logs appended and fsynced line by line;
* :class:`GraphWorkspace`, the **private dataset** of a remote store, so that replicas need no
  directory in common (any replica, on any machine, takes over a run, shows its progress and
  serves its files). A key is a resource in a named graph of its own per job, per archive
  folder and per kept file (``urn:gerbil-qa:work:jobs/12``), bytes as base64, each write one
  SPARQL Update (atomic). These graphs are the service's own: never public, left out of dumps
  and checks (:func:`is_work_graph`). Read files are also copied into a local cache folder for
  callers that need a path (content-addressed, so never stale).
"""

from __future__ import annotations

import base64
import contextlib
import os
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from service.graph.adapter import Side, StoreAdapter

WORK = "urn:gerbil-qa:work:"
_BYTES = "<urn:gerbil-qa:work#bytes>"  # a part of a key's content: "{part:06d} {base64}"
_LINE = "<urn:gerbil-qa:work#line>"  # a part of a line: "{ns:020d}{random} {part:06d} {text}"
# pyoxigraph's results parser takes no value over 16 MiB (measured: a 50 MB file's base64 in
# one literal failed with "Reached the buffer maximal size"): values go in parts of 4 MiB
PART = 4 * 1024 * 1024


def is_work_graph(name: str) -> bool:
    """A graph of a :class:`GraphWorkspace` (internal state, not data)."""
    return name.startswith(WORK)


class Workspace(Protocol):
    """Keyed bytes and append-only logs (see the module docstring)."""

    def read(self, key: str) -> bytes | None: ...

    def write(
        self, items: Mapping[str, bytes], *, sync: bool = True, if_exists: str | None = None
    ) -> None:
        """Write every item, the last one last: a reader that sees it sees the others; with
        ``if_exists``, only if that key exists when they are written."""
        ...

    def exists(self, key: str) -> bool: ...

    def remove_key(self, key: str) -> None: ...

    def remove(self, folder: str) -> None:
        """Remove a folder of two segments (``jobs/12``) and everything under it."""
        ...

    def folders_with(self, parent: str, name: str) -> list[str]:
        """The names of ``parent``'s folders that hold a key ``name`` (sorted)."""
        ...

    def keys(self, parent: str) -> list[str]:
        """Every key that holds bytes or lines (a log) under the top folder ``parent``
        (``files``), sorted."""
        ...

    def append(self, key: str, line: str, *, if_exists: str) -> None:
        """Append one line to the log ``key`` if ``if_exists`` exists when it is written."""
        ...

    def lines(self, key: str) -> list[str]:
        """A log's lines in order (a directory's last one may be torn by a kill)."""
        ...

    def count_lines(self, key: str) -> int: ...

    def path(self, key: str) -> Path | None:
        """A local file with the bytes of a kept file (``files/{sha256}``, for readers that
        take a path), or None."""
        ...

    def describe(self, key: str) -> str:
        """Where the key is, for messages."""
        ...


def write_atomically(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Replace ``path`` with ``data`` in one rename (a reader sees the old or the new file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            if sync:
                os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


class DirWorkspace:
    """Keys as files under ``root`` (the embedded store's directory)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()

    def read(self, key: str) -> bytes | None:
        try:
            return (self.root / key).read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            return None

    def write(
        self, items: Mapping[str, bytes], *, sync: bool = True, if_exists: str | None = None
    ) -> None:
        if if_exists is None:
            for key, data in items.items():
                write_atomically(self.root / key, data, sync=sync)
            return
        with self._lock:  # as append: removed meanwhile, nothing is written
            if self.exists(if_exists):
                self.write(items, sync=sync)

    def exists(self, key: str) -> bool:
        return (self.root / key).is_file()

    def remove_key(self, key: str) -> None:
        with self._lock:  # not between a conditional write's check and its write
            (self.root / key).unlink(missing_ok=True)

    def remove(self, folder: str) -> None:
        with self._lock:  # a conditional write that saw the folder would recreate it
            shutil.rmtree(self.root / folder, ignore_errors=True)

    def folders_with(self, parent: str, name: str) -> list[str]:
        folder = self.root / parent
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if (p / name).is_file())

    def keys(self, parent: str) -> list[str]:
        folder = self.root / parent
        if not folder.is_dir():
            return []
        return sorted(
            p.relative_to(self.root).as_posix()
            for p in folder.rglob("*")
            if p.is_file() and not p.name.startswith(".tmp-")  # a write under way
        )

    def append(self, key: str, line: str, *, if_exists: str) -> None:
        path = self.root / key
        with self._lock:
            if not self.exists(if_exists):  # removed meanwhile (recorded by another process)
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            data = (line + "\n").encode("utf-8")
            handle = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            try:
                size = os.fstat(handle).st_size
                try:
                    while data:  # unbuffered: nothing is left to be written at close
                        data = data[os.write(handle, data) :]
                    os.fsync(handle)
                except OSError:  # a full disk: no torn line, which the next one would join
                    # (the log then unreadable past it: "damaged answer record"; explore52 F11)
                    with contextlib.suppress(OSError):
                        os.ftruncate(handle, size)
                    raise
            finally:
                os.close(handle)

    def lines(self, key: str) -> list[str]:
        try:
            text = (self.root / key).read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [line for line in text.split("\n") if line.strip()]

    def count_lines(self, key: str) -> int:
        try:
            with (self.root / key).open("rb") as handle:  # whole lines only, nothing decoded
                return sum(1 for line in handle if line.endswith(b"\n") and line.strip())
        except FileNotFoundError:
            return 0

    def path(self, key: str) -> Path | None:
        path = self.root / key
        return path if path.is_file() else None

    def describe(self, key: str) -> str:
        return str(self.root / key)


def _parts(text: str) -> list[str]:
    """``text`` in parts of at most :data:`PART` characters (one part if empty)."""
    return [text[at : at + PART] for at in range(0, max(len(text), 1), PART)]


class GraphWorkspace:
    """Keys as resources in the private dataset of ``store`` (see the module docstring);
    ``cache`` is a local folder for :meth:`path`."""

    def __init__(self, store: StoreAdapter, cache: Path | None = None) -> None:
        self.store = store
        self.cache = cache

    # -- names -------------------------------------------------------------------------------
    @staticmethod
    def _node(key: str) -> str:
        return f"<{WORK}{quote(key, safe='/-_.')}>"

    @staticmethod
    def _graph(key: str) -> str:
        return GraphWorkspace._node("/".join(key.split("/")[:2]))

    def _select(self, query: str) -> list[Any]:
        return list(self.store.private.query(query))

    # -- keyed bytes -------------------------------------------------------------------------
    def read(self, key: str) -> bytes | None:
        rows = self._select(
            f"SELECT ?b WHERE {{ GRAPH {self._graph(key)} {{ {self._node(key)} {_BYTES} ?b }} }}"
        )
        if not rows:
            return None
        parts = sorted(r["b"].value for r in rows)  # "{part:06d} …" sorts in order
        return base64.b64decode("".join(p.split(" ", 1)[1] for p in parts))

    def write(
        self, items: Mapping[str, bytes], *, sync: bool = True, if_exists: str | None = None
    ) -> None:
        # one request: the items all land or none do (SPARQL 1.1 Update is atomic), and the
        # condition is read in the same request (no key written beside a removed folder)
        condition = ""
        if if_exists is not None:
            condition = (
                f"WHERE {{ GRAPH {self._graph(if_exists)} {{ {self._node(if_exists)} "
                f"{_BYTES} ?b }} }}"
            )
        operations = []
        for key, data in items.items():
            graph, node = self._graph(key), self._node(key)
            value = base64.b64encode(data).decode("ascii")
            parts = ", ".join(f'"{n:06d} {chunk}"' for n, chunk in enumerate(_parts(value)))
            quads = f"{{ GRAPH {graph} {{ {node} {_BYTES} {parts} }} }}"
            insert = f"INSERT {quads} {condition}" if condition else f"INSERT DATA {quads}"
            operations.append(
                f"DELETE WHERE {{ GRAPH {graph} {{ {node} {_BYTES} ?b }} }} ;\n{insert}"
            )
        if operations:
            self.store.update(Side.PRIVATE, " ;\n".join(operations))

    def exists(self, key: str) -> bool:
        graph, node = self._graph(key), self._node(key)
        return bool(self.store.private.query(f"ASK {{ GRAPH {graph} {{ {node} {_BYTES} ?b }} }}"))

    def remove_key(self, key: str) -> None:
        graph, node = self._graph(key), self._node(key)
        self.store.update(Side.PRIVATE, f"DELETE WHERE {{ GRAPH {graph} {{ {node} ?p ?o }} }}")

    def remove(self, folder: str) -> None:
        if folder.count("/") != 1:
            raise ValueError(f"a workspace folder has two segments, not {folder!r}")
        self.store.update(Side.PRIVATE, f"DROP SILENT GRAPH {self._node(folder)}")

    def folders_with(self, parent: str, name: str) -> list[str]:
        prefix = f"{WORK}{quote(parent, safe='/-_.')}/"
        suffix = "/" + quote(name, safe="/-_.")
        rows = self._select(
            f"SELECT DISTINCT ?k WHERE {{ GRAPH ?g {{ ?k {_BYTES} ?b }} "
            f'FILTER(STRSTARTS(STR(?g), "{prefix}") && STRENDS(STR(?k), "{suffix}")) }}'
        )
        return sorted({r["k"].value[len(prefix) : -len(suffix)] for r in rows})

    def keys(self, parent: str) -> list[str]:
        from urllib.parse import unquote

        prefix = f"{WORK}{quote(parent, safe='/-_.')}/"
        rows = self._select(
            f"SELECT DISTINCT ?k WHERE {{ GRAPH ?g {{ ?k {_BYTES}|{_LINE} ?b }} "
            f'FILTER(STRSTARTS(STR(?g), "{prefix}")) }}'
        )
        return sorted(unquote(r["k"].value[len(WORK) :]) for r in rows)

    # -- logs --------------------------------------------------------------------------------
    def append(self, key: str, line: str, *, if_exists: str) -> None:
        from pyoxigraph import Literal

        graph, node = self._graph(key), self._node(key)
        stamp = f"{time.time_ns():020d}{secrets.token_hex(4)}"  # in order, never two alike
        parts = ", ".join(str(Literal(f"{stamp} {n:06d} {p}")) for n, p in enumerate(_parts(line)))
        self.store.update(
            Side.PRIVATE,
            f"INSERT {{ GRAPH {graph} {{ {node} {_LINE} {parts} }} }}\n"
            f"WHERE {{ GRAPH {self._graph(if_exists)} {{ {self._node(if_exists)} {_BYTES} ?b }} }}",
        )

    def lines(self, key: str) -> list[str]:
        rows = self._select(
            f"SELECT ?l WHERE {{ GRAPH {self._graph(key)} {{ {self._node(key)} {_LINE} ?l }} }}"
        )
        lines: dict[str, list[str]] = {}
        for text in sorted(r["l"].value for r in rows):
            stamp, _part, chunk = text.split(" ", 2)
            lines.setdefault(stamp, []).append(chunk)
        return ["".join(chunks) for chunks in lines.values()]

    def count_lines(self, key: str) -> int:
        rows = self._select(
            f"SELECT (COUNT(DISTINCT SUBSTR(?l, 1, 28)) AS ?n) WHERE {{ GRAPH {self._graph(key)} "
            f"{{ {self._node(key)} {_LINE} ?l }} }}"
        )
        return int(rows[0]["n"].value) if rows else 0

    def path(self, key: str) -> Path | None:
        if not key.startswith("files/"):  # only content-addressed keys are safe to cache
            raise ValueError(f"only kept files have a local copy, not {key!r}")
        if self.cache is None:
            return None
        local = self.cache / key
        if not local.is_file():
            data = self.read(key)
            if data is None:
                return None
            write_atomically(local, data, sync=False)
        return local

    def describe(self, key: str) -> str:
        return f"{self._node(key)[1:-1]} in {self.store.location} (private dataset)"
