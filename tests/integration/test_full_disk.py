"""A full disk said truly and losing nothing (explore52).

A test cannot fill a disk here (no mount without root), so a full disk is made two ways: a
file-size limit (``RLIMIT_FSIZE``) in a subprocess, under which a write really fails part-way
(with EFBIG, not ENOSPC); and, for ENOSPC itself, a stand-in that each test's docstring names.
"""

from __future__ import annotations

import errno
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
    import service.cli.output as output

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

    monkeypatch.setattr(output.tempfile, "NamedTemporaryFile", temporary)


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
