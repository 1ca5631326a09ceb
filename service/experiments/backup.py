"""A backup a store can be restored from whole: the RDF dump and the files kept beside it.

A dump (``gerbil-qa export``) holds the graph: experiments, admin records, the catalogue. The
files the service keeps in its workspace (:mod:`service.graph.workspace`) are not RDF: the
uploads and dataset versions experiments were scored from (``files/{sha256}``,
:mod:`service.experiments.kept`) and the answer files runs archived (``answers/{id}/{name}``).
A store restored from a dump alone serves every page, but its downloads answer 404, a run on a
dataset version and the re-scoring of an upload run are refused. ``export --files`` writes a
tar archive (gzip when the name ends in ``.gz``): ``dump.nq`` (or ``dump.trig``) and the kept
files under their keys; ``import`` of such an archive restores the graph, then writes the files
the store lacks, and the jobs of the runs that ended without a result (cancelled, failed,
interrupted), so that they can be resumed where they stopped. Jobs of runs in progress are left
out, as from a dump (the run goes on in the store it was made from). The last member,
``SHA256SUMS`` (``sha256sum -c`` reads it), lists every other with its SHA-256: an archive cut
between two members (a tar cut at a 512-byte boundary reads as whole) is told by it.
"""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from service.errors import BadRequest
from service.experiments.jobs import ARCHIVES, JOBS, LEGACY_JOB, PROGRESS, RESTARTS, SPEC
from service.experiments.kept import FILES_DIR

if TYPE_CHECKING:
    from service.graph.workspace import Workspace

KEPT = (FILES_DIR, ARCHIVES)  # the workspace folders a backup carries
DUMPS = {"dump.nq": "nquads", "dump.trig": "trig"}
SUMS = "SHA256SUMS"  # the last member
# what a job holds that a resume needs (not its markers of a cancel or a shutdown under way)
_JOB_FILES = "|".join(re.escape(n) for n in (SPEC, PROGRESS, RESTARTS, LEGACY_JOB))
_JOB = (
    rf"{JOBS}/([0-9]{{12}})/"
    rf"(?:{_JOB_FILES}|files/[0-9a-f]{{64}}|answers/[0-9]+(?:@[A-Za-z0-9-]+)?\.jsonl)"
)
_MEMBER = re.compile(rf"^(?:{FILES_DIR}/[0-9a-f]{{64}}|{ARCHIVES}/[0-9]{{12}}/[^/]+|{_JOB})$")
_JOB_MEMBER = re.compile(rf"^{_JOB}$")
_NAMED_BY_SHA = re.compile(r"(?:^|/)files/([0-9a-f]{64})$")


@dataclass(frozen=True, slots=True)
class Backup:
    """What an archive holds: the dump, its syntax, and the kept files by workspace key."""

    dump: bytes
    format: str
    files: dict[str, bytes]
    checked: bool = True  # False: an archive of a version before SHA256SUMS, taken unchecked


def write_backup(
    dump: bytes,
    format: str,
    workspace: Workspace | None,
    out: IO[bytes],
    *,
    gzip: bool,
    jobs: Iterable[str] = (),
) -> int:
    """Write the archive of ``dump``, the kept files of ``workspace`` and the jobs of the
    experiments ``jobs`` to ``out`` (streamed: one file in memory at a time), then the list of
    them all (:data:`SUMS`); how many files it holds besides the dump."""
    name = next(n for n, f in DUMPS.items() if f == format)
    sums = [(name, dump)]
    wanted = set(jobs)
    with tarfile.open(fileobj=out, mode="w|gz" if gzip else "w|") as tar:
        _add(tar, name, dump)
        if workspace is not None:
            keys = [k for folder in KEPT for k in workspace.keys(folder)]
            keys += [k for k in workspace.keys(JOBS) if k.split("/")[1] in wanted]
            for key in keys:
                data = _read(workspace, key)
                if data is not None and _MEMBER.match(key):
                    _add(tar, key, data)
                    sums.append((key, data))
        listing = "".join(f"{hashlib.sha256(d).hexdigest()}  {k}\n" for k, d in sums)
        _add(tar, SUMS, listing.encode())
    return len(sums) - 1


def _read(workspace: Workspace, key: str) -> bytes | None:
    """A key's bytes; a job's answer log (lines in a remote store's workspace) as its file."""
    data = workspace.read(key)
    if data is None and key.endswith(".jsonl"):
        data = "".join(line + "\n" for line in workspace.lines(key)).encode("utf-8") or None
    return data


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


def read_backup(path: Path, *, legacy: bool = False) -> Backup:
    """The archive's dump and files, every member checked before anything is written: only a
    dump, kept files and jobs under their keys, each file named by a SHA-256 matching its
    bytes, and every member its :data:`SUMS` lists there with those bytes (``legacy``: an
    archive of a version before that list is taken without it); a BadRequest names the
    archive and the member otherwise."""
    dump: tuple[bytes, str] | None = None
    files: dict[str, bytes] = {}
    sums: bytes | None = None
    last = "its first member"
    try:
        with tarfile.open(path, mode="r:*") as tar:
            for member in tar:
                where = f"{path}: {member.name!r}"
                if member.isdir():  # a folder a repacking tar added: it carries no data
                    continue
                if not member.isfile():
                    raise BadRequest(f"{where}: expected a regular file (a dump or a kept file)")
                if member.name not in (*DUMPS, SUMS) and not _MEMBER.match(member.name):
                    raise BadRequest(
                        f"{where}: not part of a backup (expected dump.nq or dump.trig, "
                        f"{FILES_DIR}/<sha256>, {ARCHIVES}/<experiment id>/<file>, "
                        f"{JOBS}/<experiment id>/<job file> or {SUMS})"
                    )
                if sums is not None:
                    raise BadRequest(f"{where}: a member after {SUMS} (expected it last)")
                handle = tar.extractfile(member)
                data = handle.read() if handle is not None else b""
                last = repr(member.name)
                if member.name == SUMS:
                    sums = data
                    continue
                if member.name in DUMPS:
                    if dump is not None:
                        raise BadRequest(f"{where}: a second dump (expected one)")
                    dump = (data, DUMPS[member.name])
                    continue
                named = _NAMED_BY_SHA.search(member.name)
                if named is not None:
                    got = hashlib.sha256(data).hexdigest()
                    if got != named.group(1):
                        raise BadRequest(f"{where}: its bytes have SHA-256 {got}, not its name")
                files[member.name] = data
    except (tarfile.TarError, EOFError, OSError) as err:  # cut short, not gzip after all
        raise BadRequest(
            f"{path}: cannot read the backup archive (nothing imported): {err}"
        ) from err
    if dump is None:
        raise BadRequest(f"{path}: no dump.nq or dump.trig in the archive")
    if sums is None:
        if legacy:
            return Backup(dump[0], dump[1], files, checked=False)
        raise BadRequest(
            f"{path}: ends after {last}, expected its last member {SUMS} (the list of its "
            "members, which export --files writes last): the archive was cut short (nothing "
            "imported). An archive made before gerbil-qa wrote that list (2026-11-28) has "
            "none: import --legacy-dump takes it as it is, unchecked"
        )
    _check_sums(path, sums, {_dump_name(dump[1]): dump[0], **files})
    return Backup(dump[0], dump[1], files)


def _dump_name(format: str) -> str:
    return next(n for n, f in DUMPS.items() if f == format)


def _check_sums(path: Path, sums: bytes, members: dict[str, bytes]) -> None:
    """Every member :data:`SUMS` lists is there with those bytes, and no other."""
    listed: dict[str, str] = {}
    for number, line in enumerate(sums.decode("utf-8", "replace").splitlines(), start=1):
        sha, _, name = line.partition("  ")
        if not re.fullmatch(r"[0-9a-f]{64}", sha) or not name:
            raise BadRequest(f"{path}: {SUMS}:{number}: expected '<sha256>  <member>'")
        listed[name] = sha
    missing = sorted(listed.keys() - members.keys())
    if missing:
        shown = ", ".join(repr(n) for n in missing[:5]) + (" …" if len(missing) > 5 else "")
        raise BadRequest(
            f"{path}: {len(missing)} of the {len(listed)} members its {SUMS} lists are not in "
            f"the archive ({shown}): it was cut short or edited (nothing imported)"
        )
    for name, data in members.items():
        if name not in listed:
            raise BadRequest(f"{path}: {name!r}: a member its {SUMS} does not list")
        if hashlib.sha256(data).hexdigest() != listed[name]:
            raise BadRequest(f"{path}: {name!r}: its bytes are not those its {SUMS} lists")


def restore_files(
    workspace: Workspace | None, files: dict[str, bytes], *, skip_jobs: Iterable[str] = ()
) -> int:
    """Write the kept files and jobs the store lacks (the ones it has are the same bytes), but
    not the jobs of ``skip_jobs`` (experiments the store already had: their jobs are its own);
    how many. A job's answer log is appended line by line, after its spec (a remote store's
    workspace keeps a log as lines)."""
    if workspace is None:
        return 0
    skipped = set(skip_jobs)
    missing = {
        k: v
        for k, v in files.items()
        if not workspace.exists(k)
        and not ((job := _JOB_MEMBER.match(k)) is not None and job.group(1) in skipped)
    }
    logs = {k: v for k, v in missing.items() if k.endswith(".jsonl")}
    for key, data in missing.items():
        if key not in logs:
            workspace.write({key: data})
    for key, data in logs.items():
        spec = "/".join(key.split("/")[:2]) + "/" + SPEC
        for line in data.decode("utf-8").splitlines():
            workspace.append(key, line, if_exists=spec)
    return len(missing)
