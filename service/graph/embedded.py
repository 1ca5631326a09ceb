"""The embedded store adapter: two pyoxigraph stores, ``DIR/public`` and ``DIR/private``.

Oxigraph applies one ``Store.extend`` or ``Store.update`` in one transaction, which is what
:class:`~service.graph.adapter.StoreAdapter` asks for. A store directory can be opened by one
process at a time (RocksDB's lock): a second opening fails with :class:`StoreBusy`, and a
process that wants a consistent read while ``serve`` holds the lock asks the server for a
checkpoint (:mod:`service.graph.snapshots`) and opens that with :meth:`EmbeddedStore.checkpoint`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from service.errors import Conflict, ServiceError, no_room, store_has_no_room
from service.graph.adapter import QuadReader, Side
from service.memory import give_back_memory

log = logging.getLogger(__name__)

LARGE_WRITE = 100_000  # quads in one add past which its memory is given back at once
# quads in one add past which its side is flushed at once (an experiment of a few hundred
# questions (QALD-8 train: 31,152 quads) is ~22 MB of write-ahead log; its flush 0.1-0.3 s)
FLUSH_WRITE = 10_000


# the operating system's words for a directory this process may not write (EROFS, EACCES):
# such a store was said to be a damaged copy, to be restored from a dump (explore26 F5)
_NOT_WRITABLE = ("Read-only file system", "Permission denied")


def damaged(path: Path, err: BaseException) -> ServiceError:
    """A store directory RocksDB cannot read (files missing or changed), said with its likely
    cause: before, each command ended in a traceback."""
    if no_room(err):  # a full disk is not a damaged store (explore52 F2)
        return store_has_no_room(err, path)
    reason = str(err).rstrip(". ")
    if any(cause in reason for cause in _NOT_WRITABLE):  # not damaged: nothing to restore
        return ServiceError(
            f"the store at {path} cannot be opened: {reason}. Its directory is not writable, "
            "and an embedded store needs write access to it even to read (RocksDB writes its "
            "LOG and lock files there, also for `export` and the other commands that only "
            "read): give this user write access, or copy the directory to a writable disk "
            "while no process has it open"
        )
    return ServiceError(
        f"the store at {path} cannot be read: {reason}. A copy of a store's directory made "
        "while a process wrote to it is not a backup (RocksDB compacts files away under it): "
        "restore the last `gerbil-qa export` dump with `gerbil-qa import`, or copy the "
        "directory while no process has it open"
    )


class StoreBusy(ServiceError):
    """The store directory is locked by another process."""

    status = 409


class EmbeddedStore:
    """See the module docstring. ``EmbeddedStore(None)`` keeps both datasets in memory."""

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False) -> None:
        import pyoxigraph

        self.path = Path(path) if path is not None else None
        self._read_only = read_only
        self.lock = threading.RLock()
        self._unflushed = False  # written since the last flush (flush_written)
        if self.path is None:
            self.public: Any = pyoxigraph.Store()
            self.private: Any = pyoxigraph.Store()
            return
        try:
            if read_only:
                self.public = pyoxigraph.Store.read_only(str(self.path / "public"))
                self.private = pyoxigraph.Store.read_only(str(self.path / "private"))
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                self.public = pyoxigraph.Store(str(self.path / "public"))
                self.private = pyoxigraph.Store(str(self.path / "private"))
        except OSError as err:
            if "lock" in str(err).lower():
                raise StoreBusy(
                    f"the store at {self.path} is in use by another process "
                    "(a running `gerbil-qa serve` or `evaluate --store`): a store directory is "
                    "one process's at a time, so stop that process (or let it end) first"
                ) from err
            raise damaged(self.path, err) from err
        except RuntimeError as err:  # RocksDB's "Corruption: …"
            raise damaged(self.path, err) from err

    @classmethod
    def checkpoint(cls, path: Path) -> EmbeddedStore:
        """Open a checkpoint (``path/public``, ``path/private``) that no one writes: read-only."""
        return cls(path, read_only=True)

    @property
    def location(self) -> str:
        return str(self.path) if self.path is not None else "memory"

    @property
    def work_dir(self) -> Path | None:
        return self.path

    @property
    def read_only(self) -> bool:
        return self._read_only

    def reader(self, side: Side) -> QuadReader:
        store: QuadReader = self.public if side is Side.PUBLIC else self.private
        return store

    def add(self, side: Side, quads: Iterable[Any]) -> None:
        self._writable()
        counted = _Counted(quads)
        store = self.reader(side)
        store.extend(counted)  # type: ignore[attr-defined]  # one transaction
        self._unflushed = True
        if counted.n >= FLUSH_WRITE:
            # RocksDB keeps the log a flush retires for reuse at its size, and the sweep's flush
            # (flush_written) came after two or three large runs: under a QALD-8 train run every
            # 5 s the logs held 88-111 MB, flushed here 44 MB (hq95, bench/README.md's wal row)
            store.flush()  # type: ignore[attr-defined]
        if counted.n >= LARGE_WRITE:
            # RocksDB keeps what it wrote in its memtables until they are flushed, and glibc
            # keeps what they freed: a 20,000-question run (2.2 million quads) left a server
            # 2.6 GB resident after it; flushed and trimmed, ~0.1 GB (bench/memory.py)
            give_back_memory()

    def update(self, side: Side, update: str) -> None:
        self._writable()
        self.reader(side).update(update)  # type: ignore[attr-defined]  # one transaction
        self._unflushed = True

    def flush_written(self) -> bool:
        """Flush both datasets if anything was written since the last flush; whether it did.

        RocksDB keeps each write in its write-ahead log (``*.log``) until the memtables holding
        it are written out, which it does by itself only when one fills (128 MB): while
        ``serve`` ran, the logs grew ~2.3 MB a 14-question run (24 → 121 MB of store after 42
        runs, 94 MB of it ``*.log``) and shrank only when the store was opened again
        (explore57 F1). The snapshot service calls this at each sweep (``bench/wal.py``)."""
        with self.lock:  # not with a close: a closed store is not flushed
            if not self._unflushed or self.path is None or self._read_only or self.public is None:
                return False
            self._flush()
            return True

    def _flush(self) -> None:
        self._unflushed = False  # first: a write during the flush is flushed next time
        try:
            self.public.flush()
            self.private.flush()
        except BaseException:
            self._unflushed = True
            raise

    @property
    def shared(self) -> bool:
        return False

    def ping(self, side: Side, timeout: float) -> None:
        self.reader(side).query("ASK {}")  # in process: no time to wait for

    @contextmanager
    def snapshot(self) -> Iterator[tuple[QuadReader, QuadReader]]:
        # Only this process writes the store, and only under the lock: holding it, the two
        # datasets do not change while they are read.
        with self.lock:
            yield self.public, self.private

    def backup(self, target: Path) -> None:
        """A checkpoint of both datasets in ``target`` (RocksDB hard links, milliseconds),
        taken under the write lock so the two belong together."""
        with self.lock:
            if self.public is None:
                raise ServiceError(f"the store at {self.location} is closed")
            target.mkdir(parents=True, exist_ok=True)
            # flushed first: the logs a checkpoint's own flush retires stay until the store
            # is reopened (see flush_written and public_view.py)
            self._flush()
            self.public.backup(str(target / "public"))
            self.private.backup(str(target / "private"))

    def close(self) -> None:
        """Flush and release the stores (the directory lock goes with the last reference),
        under the lock: a snapshot thread left running (its join timed out) finds it closed."""
        with self.lock:
            self._close()

    def _close(self) -> None:
        if self.path is not None and not self._read_only and self.public is not None:
            try:
                self.public.flush()
                self.private.flush()
            except OSError as err:
                if not no_room(err):
                    raise
                # every transaction is in RocksDB's write-ahead log once it returned: what
                # is not flushed now is read back from it at the next opening. A full disk
                # here made a recorded experiment end in a traceback (explore52 F1).
                log.warning(
                    "the store at %s could not be flushed at close (%s): every write that "
                    "succeeded is in its write-ahead log, read back at the next opening",
                    self.path,
                    str(err).rstrip(". "),
                )
        self.public = None
        self.private = None

    def _writable(self) -> None:
        if self._read_only:
            raise Conflict(f"the store at {self.location} is open read-only")


class _Counted:
    """The items of ``items``, counted as they are taken (``n``)."""

    def __init__(self, items: Iterable[Any]) -> None:
        self._items, self.n = items, 0

    def __iter__(self) -> Iterator[Any]:
        for item in self._items:
            self.n += 1
            yield item
