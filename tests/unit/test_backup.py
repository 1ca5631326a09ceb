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
from service.experiments.backup import is_backup, read_backup, restore_files, write_backup
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
    workspace.write({"jobs/202611260002/spec.json": b"{}"})  # a run in progress: left out
    stopped = {  # a cancelled run's job: carried, so that it can be resumed (not its marker)
        "jobs/202611260003/spec.json": b"{}",
        f"jobs/202611260003/files/{sha}": kept,
        "jobs/202611260003/answers/0.jsonl": b'{"a": 1}\n',
    }
    workspace.write({**stopped, "jobs/202611260003/cancel": b"cancel\n"})
    out = tmp_path / "b.tar.gz"
    with out.open("wb") as f:
        assert write_backup(DUMP, "nquads", workspace, f, gzip=True, jobs=["202611260003"]) == 5
    assert is_backup(out) and not is_backup(_dump(tmp_path))
    backup = read_backup(out)
    assert (backup.dump, backup.format) == (DUMP, "nquads")
    whole = {f"files/{sha}": kept, "answers/202611260001/run.json": b"{}", **stopped}
    assert backup.files == whole
    restored = DirWorkspace(tmp_path / "restored")
    assert restore_files(restored, backup.files, skip_jobs=["202611260003"]) == 2
    assert not restored.exists("jobs/202611260003/spec.json")  # the store's own job stands
    assert restore_files(restored, backup.files) == 3
    assert restored.lines("jobs/202611260003/answers/0.jsonl") == ['{"a": 1}']


def test_an_archive_cut_between_members_is_refused(tmp_path: Path) -> None:
    """Before (explore-3 #4): a .tar cut at a member boundary (a 512-byte block) reads as a
    whole archive: "restored 3 of its 3 kept file(s)" while 5 of 8 were lost. Now its last
    member, SHA256SUMS, lists every other: a cut archive lacks it, an edited one lacks a member
    it lists; both refused naming what is missing. One of a version before the list is taken
    only when asked to (--legacy-dump), said unchecked."""
    workspace = DirWorkspace(tmp_path / "store")
    blobs = [b"kept file %d" % n * 200 for n in range(5)]
    workspace.write({f"files/{hashlib.sha256(b).hexdigest()}": b for b in blobs})
    out = tmp_path / "b.tar"
    with out.open("wb") as f:
        assert write_backup(DUMP, "nquads", workspace, f, gzip=False) == 5
    with tarfile.open(out) as tar:
        members = tar.getmembers()
    assert [m.name for m in members][-1] == "SHA256SUMS"
    cut = tmp_path / "cut.tar"
    cut.write_bytes(out.read_bytes()[: members[3].offset])  # after the dump and 2 files
    with pytest.raises(BadRequest, match=r"ends after 'files/[0-9a-f]+', expected its last") as err:
        read_backup(cut)
    assert str(cut) in str(err.value) and "cut short (nothing imported)" in str(err.value)
    legacy = read_backup(cut, legacy=True)
    assert not legacy.checked and len(legacy.files) == 2
    with tarfile.open(out) as tar:
        kept = {m.name: tar.extractfile(m).read() for m in tar}  # type: ignore[union-attr]
    lost = sorted(k for k in kept if k.startswith("files/"))[2]
    edited = _archive(tmp_path / "edited.tar.gz", {k: v for k, v in kept.items() if k != lost})
    with pytest.raises(
        BadRequest,
        match=f"1 of the 6 members its SHA256SUMS lists are not in the archive \\('{lost}'\\)",
    ):
        read_backup(edited)


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


def test_an_import_taken_as_it_is_says_what_it_could_not_check(tmp_path: Path) -> None:
    """``import --legacy-dump`` said "has no closing line or SHA256SUMS (made before
    2026-11-28)" of every file, also of an archive whose dump had its closing line, and of one
    whose SHA256SUMS checked it (as when rolling back, explore50 F1): now what it lacks."""
    from service.cli.graph import unchecked_note
    from service.graph.dumps import CLOSING

    lined = DUMP + (CLOSING.format("1") + "\n").encode()
    assert unchecked_note("d.nq", lined, None) is None
    assert unchecked_note("d.nq", DUMP, None) == (
        "d.nq has no closing line (a dump made before 2026-11-28, or one cut short): imported "
        "unchecked; if it was cut short, what it lost is not restored"
    )
    workspace = DirWorkspace(tmp_path / "store")
    workspace.write({f"files/{hashlib.sha256(b'x').hexdigest()}": b"x"})
    for name, dump in (("bare", DUMP), ("lined", lined)):
        whole = tmp_path / f"{name}.tar"
        with whole.open("wb") as f:
            write_backup(dump, "nquads", workspace, f, gzip=False)
        # SHA256SUMS checked every member, the dump too: nothing unchecked, nothing said
        assert unchecked_note("b.tar", dump, read_backup(whole, legacy=True)) is None
        with tarfile.open(whole) as tar:
            last = tar.getmembers()[-1]
        cut = tmp_path / f"{name}-cut.tar"
        cut.write_bytes(whole.read_bytes()[: last.offset])  # without its SHA256SUMS
        note = unchecked_note("c.tar", dump, read_backup(cut, legacy=True))
        if name == "bare":
            assert note == (
                "c.tar has no SHA256SUMS and its dump no closing line (an archive made before "
                "2026-11-28, or one cut short): imported unchecked; if it was cut short, what "
                "it lost is not restored"
            )
        else:
            assert note == (
                "c.tar has no SHA256SUMS (an archive made before 2026-11-28, or one cut short "
                "after its dump): its dump is whole (its closing line counted its quads), its "
                "kept files unchecked; a file cut off is not restored"
            )
