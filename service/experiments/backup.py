"""A backup a store can be restored from whole: the RDF dump and the files kept beside it.

A dump (``gerbil-qa export``) holds the graph: experiments, admin records, the catalogue. The
files the service keeps in its workspace (:mod:`service.graph.workspace`) are not RDF: the
uploads and dataset versions experiments were scored from (``files/{sha256}``,
:mod:`service.experiments.kept`) and the answer files runs archived (``answers/{id}/{name}``).
A store restored from a dump alone serves every page, but its downloads answer 404, a run on a
dataset version and the re-scoring of an upload run are refused. ``export --files`` writes a
tar archive (gzip when the name ends in ``.gz``): ``dump.nq`` (or ``dump.trig``) and the kept
files under their keys; ``import`` of such an archive restores the graph, then writes the files
the store lacks. Jobs of runs in progress are left out, as from a dump (resume needs the
server that ran them).
"""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from service.errors import BadRequest
from service.experiments.jobs import ARCHIVES
from service.experiments.kept import FILES_DIR

if TYPE_CHECKING:
    from service.graph.workspace import Workspace

KEPT = (FILES_DIR, ARCHIVES)  # the workspace folders a backup carries
DUMPS = {"dump.nq": "nquads", "dump.trig": "trig"}
_MEMBER = re.compile(rf"^(?:{FILES_DIR}/[0-9a-f]{{64}}|{ARCHIVES}/[0-9]{{12}}/[^/]+)$")


@dataclass(frozen=True, slots=True)
class Backup:
    """What an archive holds: the dump, its syntax, and the kept files by workspace key."""

    dump: bytes
    format: str
    files: dict[str, bytes]


def write_backup(
    dump: bytes, format: str, workspace: Workspace | None, out: IO[bytes], *, gzip: bool
) -> int:
    """Write the archive of ``dump`` and the kept files of ``workspace`` to ``out`` (streamed:
    one file in memory at a time); how many files it holds besides the dump."""
    name = next(n for n, f in DUMPS.items() if f == format)
    count = 0
    with tarfile.open(fileobj=out, mode="w|gz" if gzip else "w|") as tar:
        _add(tar, name, dump)
        if workspace is not None:
            for key in (k for folder in KEPT for k in workspace.keys(folder)):
                data = workspace.read(key)
                if data is not None and _MEMBER.match(key):
                    _add(tar, key, data)
                    count += 1
    return count


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def is_backup(path: Path) -> bool:
    """An archive (gzip, or a tar's ``ustar`` header), not an N-Quads or TriG dump (text):
    told by its first bytes, so that a cut archive is still read as one and said to be cut."""
    with path.open("rb") as f:
        head = f.read(512)
    return head.startswith(b"\x1f\x8b") or head[257:262] == b"ustar"


def read_backup(path: Path) -> Backup:
    """The archive's dump and files, every member checked before anything is written: only a
    dump and kept files under their keys, each kept file's bytes matching its SHA-256 name; a
    BadRequest names the archive and the member otherwise."""
    dump: tuple[bytes, str] | None = None
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(path, mode="r:*") as tar:
            for member in tar:
                where = f"{path}: {member.name!r}"
                if member.isdir():  # a folder a repacking tar added: it carries no data
                    continue
                if not member.isfile():
                    raise BadRequest(f"{where}: expected a regular file (a dump or a kept file)")
                if member.name not in DUMPS and not _MEMBER.match(member.name):
                    raise BadRequest(
                        f"{where}: not part of a backup (expected dump.nq or dump.trig, "
                        f"{FILES_DIR}/<sha256> or {ARCHIVES}/<experiment id>/<file>)"
                    )
                handle = tar.extractfile(member)
                data = handle.read() if handle is not None else b""
                if member.name in DUMPS:
                    if dump is not None:
                        raise BadRequest(f"{where}: a second dump (expected one)")
                    dump = (data, DUMPS[member.name])
                    continue
                if member.name.startswith(FILES_DIR + "/"):
                    got = hashlib.sha256(data).hexdigest()
                    if got != member.name.rsplit("/", 1)[1]:
                        raise BadRequest(f"{where}: its bytes have SHA-256 {got}, not its name")
                files[member.name] = data
    except (tarfile.TarError, EOFError, OSError) as err:  # cut short, not gzip after all
        raise BadRequest(
            f"{path}: cannot read the backup archive (nothing imported): {err}"
        ) from err
    if dump is None:
        raise BadRequest(f"{path}: no dump.nq or dump.trig in the archive")
    return Backup(dump[0], dump[1], files)


def restore_files(workspace: Workspace | None, files: dict[str, bytes]) -> int:
    """Write the kept files the store lacks (the ones it has are the same bytes); how many."""
    if workspace is None:
        return 0
    missing = {k: v for k, v in files.items() if not workspace.exists(k)}
    for key, data in missing.items():
        workspace.write({key: data})
    return len(missing)
