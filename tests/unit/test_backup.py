"""The backup archive (``export --files``) read back: every member checked before anything is
written; what is not a backup's, a kept file whose bytes are not its SHA-256, a cut archive are
refused naming the archive and the member."""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest

from service.errors import BadRequest
from service.experiments.backup import is_backup, read_backup, write_backup
from service.graph.workspace import DirWorkspace

DUMP = b"<urn:a> <urn:b> <urn:c> .\n"


def _archive(path: Path, members: dict[str, bytes], *, folders: bool = False) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        if folders:
            info = tarfile.TarInfo("files")
            info.type = tarfile.DIRTYPE
            tar.addfile(info)
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_a_backup_written_is_read_back_whole(tmp_path: Path) -> None:
    workspace = DirWorkspace(tmp_path / "store")
    kept = b"some answers"
    sha = hashlib.sha256(kept).hexdigest()
    workspace.write({f"files/{sha}": kept, "answers/202611260001/run.json": b"{}"})
    workspace.write({"jobs/202611260002/spec.json": b"{}"})  # a run's job: never backed up
    out = tmp_path / "b.tar.gz"
    with out.open("wb") as f:
        assert write_backup(DUMP, "nquads", workspace, f, gzip=True) == 2
    assert is_backup(out) and not is_backup(_dump(tmp_path))
    backup = read_backup(out)
    assert (backup.dump, backup.format) == (DUMP, "nquads")
    assert backup.files == {f"files/{sha}": kept, "answers/202611260001/run.json": b"{}"}


def _dump(tmp_path: Path) -> Path:
    path = tmp_path / "all.nq"
    path.write_bytes(DUMP)
    return path


def test_what_is_not_a_backup_is_refused_by_name(tmp_path: Path) -> None:
    sha = "0" * 64
    cases = {
        "foreign": ({"dump.nq": DUMP, "etc/passwd": b"x"}, "'etc/passwd': not part of a backup"),
        "climbing": ({"dump.nq": DUMP, "../x": b"x"}, "'../x': not part of a backup"),
        "checksum": ({"dump.nq": DUMP, f"files/{sha}": b"x"}, "its bytes have SHA-256"),
        "no dump": ({}, "no dump.nq or dump.trig"),
    }
    for name, (members, message) in cases.items():
        archive = _archive(tmp_path / f"{name}.tar.gz", members, folders=True)
        with pytest.raises(BadRequest, match=message.replace(".", r"\.")) as err:
            read_backup(archive)
        assert str(archive) in str(err.value)
    whole = _archive(tmp_path / "whole.tar.gz", {"dump.nq": DUMP * 2000})
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(whole.read_bytes()[:60])
    assert is_backup(cut)  # by its first bytes: said to be cut, not read as a dump
    with pytest.raises(BadRequest, match="cannot read the backup archive"):
        read_backup(cut)
