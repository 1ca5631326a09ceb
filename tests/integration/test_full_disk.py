"""A full disk said truly and losing nothing (explore52).

A test cannot fill a disk here (no mount without root), so a full disk is made two ways: a
file-size limit (``RLIMIT_FSIZE``) in a subprocess, under which a write really fails part-way
(with EFBIG, not ENOSPC); and, for ENOSPC itself, a stand-in that each test's docstring names.
"""

from __future__ import annotations

import errno
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from service.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "datasets" / "demo" / "questions.json"
EARLIER = b"an earlier, good dump\n" * 100


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one experiment (the demo gold as a system's answers)."""
    path = tmp_path_factory.mktemp("full-disk") / "store"
    done = subprocess.run(
        [sys.executable, "-m", "service", "evaluate", "--dataset", str(DEMO), "--answers",
         str(DEMO), "--store", str(path), "--output", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return path


def _limited(limit: int) -> None:
    """In the child: files may not grow past ``limit`` bytes (a write past it fails, EFBIG;
    Python ignores SIGXFSZ, which would otherwise end the process)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.parametrize("files", [False, True], ids=["dump", "archive"])
def test_export_past_a_file_size_limit_keeps_the_earlier_dump(
    store: Path, tmp_path: Path, files: bool
) -> None:
    """explore52 F9: ``export --output FILE`` that cannot write the whole dump leaves FILE as it
    was (it was truncated: the earlier good dump lost), no temporary file, and says so in one
    line. A real part-way failure: the child may not write past 200 kB (the dump is ~1.3 MB)."""
    out = tmp_path / ("backup.tar" if files else "backup.nq")
    out.write_bytes(EARLIER)
    argv = ["export", "--store", str(store), "--output", str(out)] + (["--files"] if files else [])
    done = subprocess.run(
        [sys.executable, "-m", "service", *argv],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: _limited(200_000),
    )  # fmt: skip
    assert done.returncode == 1
    assert out.read_bytes() == EARLIER
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
    assert "Traceback" not in done.stderr
    # (the store may say first that it could not move its log out at close: it is kept)
    assert done.stderr.strip().splitlines()[-1] == (
        f"gerbil-qa: {out}: cannot write: the file grew larger than allowed (a file-size limit "
        f"such as ulimit -f) (errno 27); the earlier {out} is kept as it was"
    )


def _full_after(monkeypatch: pytest.MonkeyPatch, room: int) -> None:
    """MOCK (what cannot run here, a full disk): the temporary file an output is written to
    takes ``room`` bytes, then its write raises ENOSPC, as a full disk's does."""
    real = tempfile.NamedTemporaryFile

    def temporary(*args: Any, **kwargs: Any) -> Any:
        handle = real(*args, **kwargs)
        write = handle.file.write
        left = [room]

        def full(data: Any) -> int:
            if len(data) > left[0]:
                write(bytes(data[: left[0]]))
                left[0] = 0
                raise OSError(errno.ENOSPC, "No space left on device")
            left[0] -= len(data)
            return write(data)

        handle.write = full
        return handle

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", temporary)


@pytest.mark.parametrize("files", [False, True], ids=["dump", "archive"])
def test_export_onto_a_full_disk_keeps_the_earlier_dump(
    store: Path,
    tmp_path: Path,
    files: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """explore52 F9 with ENOSPC (the write is the mock :func:`_full_after`): FILE is kept."""
    _full_after(monkeypatch, 10_000)
    out = tmp_path / ("backup.tar.gz" if files else "backup.nq")
    out.write_bytes(EARLIER)
    argv = ["export", "--store", str(store), "--output", str(out)] + (["--files"] if files else [])
    assert main(argv) == 1
    assert out.read_bytes() == EARLIER
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
    err = capsys.readouterr().err
    assert err.strip() == (
        f"gerbil-qa: {out}: cannot write: no space left on the device (errno 28); "
        f"the earlier {out} is kept as it was"
    )


def test_export_writes_a_new_file_whole(store: Path, tmp_path: Path) -> None:
    """With room, FILE is replaced by the whole dump, its mode kept, nothing else left."""
    out = tmp_path / "backup.nq"
    out.write_bytes(EARLIER)
    out.chmod(0o640)
    assert main(["export", "--store", str(store), "--output", str(out)]) == 0
    assert out.read_bytes().rstrip().splitlines()[-1].startswith(b"# ")  # its closing line
    assert out.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


def test_serve_failing_at_start_on_a_full_disk_prints_no_token(tmp_path: Path) -> None:
    """explore52 F3: serve on a store whose disk is nearly full (here: files may not grow past
    600 kB) stops at start in one line naming the store, and its output holds no admin token
    (an atexit traceback printed the settings with it)."""
    import os

    from service.systems.localnet import free_port

    token = "admintoken-sekrit-hq83"
    store = tmp_path / "store"
    made = subprocess.run(
        [sys.executable, "-m", "service", "evaluate", "--dataset", str(DEMO), "--answers",
         str(DEMO), "--store", str(store), "--output", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    env = {**os.environ, "GERBIL_QA_ADMIN_TOKEN": token}
    done = subprocess.run(
        [sys.executable, "-m", "service", "serve", "--store", str(store), "--port",
         str(free_port())],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env=env,
        preexec_fn=lambda: _limited(600 * 1024),
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert token not in output
    assert "admin_token='<set, not shown>'" not in output  # no settings printed at all
    said = [line for line in output.splitlines() if line.startswith("gerbil-qa: ")]
    assert said == [
        f"gerbil-qa: a file of {store} grew larger than allowed (a file-size limit such as "
        "ulimit -f) (errno 27): raise the limit and retry; the store is not damaged"
    ], output


# what pyoxigraph raised on the full disk of explore52 (serve.log), its path made ours
ROCKSDB_FULL = (
    "IO error: No space left on device: While appending to file: {}/private/000058.log: "
    "No space left on device"
)


@pytest.mark.parametrize("command", ["experiments", "check"])
def test_a_full_disk_at_open_is_not_a_damaged_store(store: Path, command: str) -> None:
    """explore52 F2: a store the disk has no room for at open (RocksDB writes its log and
    options files) was said to be damaged, to restore from a dump. A real failed write: the
    child may write no file past 1 kB (EFBIG, as a full disk's ENOSPC below)."""
    done = subprocess.run(
        [sys.executable, "-m", "service", command, "--store", str(store)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: _limited(1024),
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"gerbil-qa: a file of {store} grew larger than allowed (a file-size limit such as "
        "ulimit -f) (errno 27): raise the limit and retry; the store is not damaged"
    )
    assert "restore" not in done.stderr and "Traceback" not in done.stderr


def test_enospc_from_the_store_library_is_said_as_a_full_disk(tmp_path: Path) -> None:
    """explore52 F2 with ENOSPC: the error is the MOCK (the text RocksDB gave on the full
    disk, as pyoxigraph raises it: an OSError without an errno)."""
    from service.graph.embedded import damaged

    said = str(damaged(tmp_path, OSError(ROCKSDB_FULL.format(tmp_path))))
    assert said == (
        f"no space left on the device holding {tmp_path} (errno 28): free space and retry; "
        "the store is not damaged"
    )


def test_evaluate_store_that_cannot_record_says_so_in_one_line(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore52 F1: ``evaluate --store`` whose record meets a full disk ended in a traceback.
    MOCK: the store adapter's one write of a quad batch (``EmbeddedStore.add``) raises what
    pyoxigraph raised there. One line, and that nothing was recorded (one transaction)."""
    from service.graph.embedded import EmbeddedStore
    from service.graph.store import open_storage

    with open_storage(store) as storage:
        before = {s.id for s in storage.experiments.listing(include_private=True)}

    def full(self: EmbeddedStore, side: Any, quads: Any) -> None:
        raise OSError(ROCKSDB_FULL.format(store))

    monkeypatch.setattr(EmbeddedStore, "add", full)
    argv = ["evaluate", "--dataset", str(DEMO), "--answers", str(DEMO), "--store", str(store)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        f"gerbil-qa: cannot record the experiment in {store}: no space left on the device "
        f"holding {store} (errno 28): free space and retry; the store is not damaged; "
        "nothing recorded"
    )
    monkeypatch.undo()
    with open_storage(store) as storage:
        assert {s.id for s in storage.experiments.listing(include_private=True)} == before


class _FullAtFlush:
    """MOCK: a pyoxigraph store whose ``flush`` meets a full disk (the rest is the store's)."""

    def __init__(self, real: Any, where: Path) -> None:
        self._real, self._where = real, where

    def flush(self) -> None:
        raise OSError(ROCKSDB_FULL.format(self._where))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def test_evaluate_store_recorded_before_a_full_disk_at_close_says_it_was(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """explore52 F1: the experiment was recorded, then the store's flush at close met a full
    disk: a traceback and exit 1, no table, though ``experiments`` listed it later. The flush
    is the MOCK (:class:`_FullAtFlush`); what was written is in RocksDB's log: the store,
    opened again without the mock, holds the experiment."""
    from service.graph.embedded import EmbeddedStore
    from service.graph.store import open_storage

    store = tmp_path / "store"
    real_init = EmbeddedStore.__init__

    def init(self: EmbeddedStore, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        if self.path is not None and not self.read_only:
            self.private = _FullAtFlush(self.private, self.path)

    monkeypatch.setattr(EmbeddedStore, "__init__", init)
    argv = ["evaluate", "--dataset", str(DEMO), "--answers", str(DEMO), "--store", str(store)]
    assert main([*argv, "--output", "json"]) == 0
    out, err = capsys.readouterr()
    recorded = json.loads(out.splitlines()[0])["experiment"]["id"]
    assert f"gerbil-qa: recorded experiment {recorded} at " in err
    assert "could not be flushed at close" in caplog.text
    monkeypatch.undo()
    with open_storage(store) as storage:
        assert storage.experiments.status(recorded).status.value == "finished"


def test_system_run_output_onto_a_full_disk_keeps_the_earlier_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore52 F9, the other command that writes an output file: ``system run --output``
    (it wrote with ``write_bytes``, truncating the earlier answers first). The full disk is
    the MOCK :func:`_full_after`; the web service is a real one on 127.0.0.1."""
    from tests.helpers import qa_service

    out = tmp_path / "answers.json"
    out.write_bytes(EARLIER)
    _full_after(monkeypatch, 100)
    with qa_service(
        lambda text: [{"bindings": [{"x": {"type": "literal", "value": text}}]}]
    ) as url:
        code = main(
            [*("system", "run", url, "--dataset", str(DEMO), "--name", "echo"),
             *("--allow", "127.0.0.1/32", "--retries", "0", "--output", str(out))]
        )  # fmt: skip
    assert code == 1
    assert out.read_bytes() == EARLIER
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"gerbil-qa: {out}: cannot write: no space left on the device (errno 28); "
        f"the earlier {out} is kept as it was"
    )


def test_export_refuses_a_read_only_file_before_exporting(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Written beside FILE and renamed, a read-only FILE would be replaced (a rename needs
    only the folder writable): it is refused, as ``convert`` refuses it, and kept."""
    out = tmp_path / "backup.nq"
    out.write_bytes(EARLIER)
    out.chmod(0o444)
    assert main(["export", "--store", str(store), "--output", str(out)]) == 1
    assert out.read_bytes() == EARLIER and out.stat().st_mode & 0o777 == 0o444
    assert capsys.readouterr().err.strip() == (
        f"gerbil-qa: {out}: is read-only: not replaced (expected a file that may be written: "
        "make it writable, remove it, or write another)"
    )
