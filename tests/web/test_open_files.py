"""``serve`` short of open files (explore52 F10): it refuses to start below what it needs, with
one line; the compiled modules the pages import are loaded before it serves (a first import
under EMFILE left NumPy half loaded, and /leaderboards and /compare answered 500 until a
restart); a request that meets EMFILE is a 503 with ``Retry-After``, not Flask's 500."""

from __future__ import annotations

import errno
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.web.conftest import Server, free_port

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GERBIL_QA_")}
    env["GERBIL_QA_SPARQL_WORKERS"] = "1"
    return env


def _limited(files: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    return apply


def test_serve_with_too_few_open_files_says_so_in_one_line(tmp_path: Path) -> None:
    """RLIMIT_NOFILE 64 (soft and hard, as `ulimit -n 64`): was a traceback out of RocksDB."""
    store = tmp_path / "store"
    done = subprocess.run(
        [sys.executable, "-m", "service", "serve", "--store", str(store), "--no-demo"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limited(64),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "open files are limited to 64" in lines[0] and "at least 128" in lines[0]
    assert "ulimit -n" in lines[0]
    assert not store.exists()  # refused before anything was made


def test_serve_loads_numpy_before_it_serves(tmp_path: Path) -> None:
    """Its first request finds NumPy's compiled core loaded already (read from the process's
    memory map), so no request's import can be cut short by EMFILE."""
    port = free_port()
    command = [sys.executable, "-m", "service", "serve", "--store", str(tmp_path / "store")]
    process = subprocess.Popen(
        [*command, "--no-demo", "--port", str(port)],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        maps = Path(f"/proc/{process.pid}/maps")
        while "serving" not in (process.stdout.readline() if process.stdout else ""):
            assert process.poll() is None and time.monotonic() < deadline
        assert "_multiarray_umath" in maps.read_text()  # before any request
        answer = requests.get(f"http://127.0.0.1:{port}/leaderboards", timeout=30)
        assert answer.status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)


@pytest.mark.parametrize("number", [errno.EMFILE, errno.ENFILE])
def test_a_request_out_of_open_files_is_a_503_to_retry(
    server: Server, monkeypatch: pytest.MonkeyPatch, number: int
) -> None:
    """The page's work patched to fail as an open() at the limit does (a mock: the limit cannot
    be reached in this process without starving the test's own server)."""
    from service.web import ui

    def short(*args: object, **kwargs: object) -> None:
        raise OSError(number, os.strerror(number))

    monkeypatch.setattr(ui, "leaderboard_model", short)
    for accept, kind in (("text/html", "text/html"), ("*/*", "text/plain")):
        server.app.extensions["gerbil_qa"].cache.clear()  # rendered anew, not a cached page
        answer = server.get("leaderboards", headers={"Accept": accept})
        assert answer.status_code == 503, answer.text
        assert answer.headers["Retry-After"] == "5"
        assert answer.headers["Content-Type"].startswith(kind)
        assert "too many files open" in answer.text and "overloaded" not in answer.text
    monkeypatch.undo()
    assert server.get("leaderboards").status_code == 200  # nothing was left broken


def test_a_sparql_query_out_of_open_files_is_a_503_to_retry(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program's GET query goes through the endpoint's fast path, which let an OSError out as
    waitress's 500; it hands the request to Flask, whose handler says which shortage it is
    (the query's work patched to fail so: a mock, as above; a full disk takes the same way, not
    tried on this shared server, whose /health would then report it)."""
    from service.web import sparql_endpoint

    def short(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))

    monkeypatch.setattr(sparql_endpoint, "answer_query", short)
    answer = server.get(
        "sparql",
        params={"query": "ASK { ?s ?p ?o }"},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5", answer.text
    assert "too many files open" in answer.text
    monkeypatch.undo()
    assert server.get("sparql", params={"query": "ASK {}"}).status_code == 200
