"""Runs through the API against a hostile QA web service on 127.0.0.1 (explore46): what one
service does to its questions never ends the run, nor costs another system its answers."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.helpers import serving
from tests.web.conftest import Server, free_port

ROOT = Path(__file__).resolve().parents[2]


class _HostileHandler(BaseHTTPRequestHandler):
    """``POST /deep``: a JSON array nested 100,000 deep (Python's reader recursed past its
    limit on it); ``POST /ok``: "Earth" to every question."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/deep":
            body = b"[" * 100_000 + b"]" * 100_000
        else:
            binding = {"x": {"type": "literal", "value": "Earth"}}
            answer = {"head": {"vars": ["x"]}, "results": {"bindings": [binding]}}
            body = json.dumps({"questions": [{"id": "1", "answers": [answer]}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(body)


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    with serving(_HostileHandler) as base:
        yield base


def _finished(site: Server, ticket: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    deadline = time.monotonic() + timeout
    while True:
        state = site.get(f"api/experiments/{ticket['id']}", headers=auth).json()
        if state["status"] not in ("queued", "running") or time.monotonic() > deadline:
            return state
        time.sleep(0.1)


def test_an_answer_nested_too_deeply_fails_its_questions_not_the_run(
    server: Server, hostile: str
) -> None:
    """explore46 1: the RecursionError ended the experiment as ``error: internal error``, the
    other system's answers lost with it."""
    body = {
        "dataset": "demo",
        "profile": "fair",
        "maxErrorRate": 1,
        "systems": [
            {"name": "deep", "url": hostile + "deep"},
            {"name": "ok", "url": hostile + "ok"},
        ],
    }
    made = server.post("api/experiments", json=body)
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = _finished(server, ticket)
    assert state["status"] == "finished", state
    measures = {r["systemLabel"]: r["measures"] for r in state["results"]}
    assert measures["deep"]["errorCount"] == measures["deep"]["questions"] > 0
    assert measures["ok"]["errorCount"] == 0 and measures["ok"]["questions"] > 0
    auth = {"Authorization": f"Bearer {ticket['token']}", "Accept": "text/turtle"}
    said = server.get(f"experiment/{ticket['id']}/task/1/question/1", headers=auth)
    assert said.status_code == 200, said.text
    assert "nested too deeply to read (100000 levels of arrays and objects)" in said.text


def test_every_run_under_way_at_a_shutdown_is_interrupted_however_often_it_is_signalled(
    tmp_path: Path, slow_qa: str
) -> None:
    """explore46 9: SIGTERM sent again while ``serve`` stopped (a watchdog, systemd's repeat)
    raised in its shutdown, so the interpreter's exit flagged the runs' thread pools shut
    before the runner handed them over: one of two runs ended ``error: internal error:
    RuntimeError: cannot schedule new futures after shutdown`` and was not resumed."""
    from service.graph.store import open_storage

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GERBIL_QA_")}
    env |= {"GERBIL_QA_SPARQL_WORKERS": "1", "GERBIL_QA_ALLOW_NETWORKS": "127.0.0.1/32"}
    command = [sys.executable, "-m", "service", "serve", "--store", str(tmp_path / "store")]
    process = subprocess.Popen(
        [*command, "--port", str(port), "--no-demo"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # Ctrl-C's signal as a terminal gives it (a background job has it ignored)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(url + "api/profiles", timeout=1)
                break
            except (requests.ConnectionError, requests.Timeout):
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        body = {"dataset": "demo", "kb": "demo", "systems": [{"url": slow_qa + "delay/1"}]}
        tickets = []
        for _ in range(2):
            made = requests.post(url + "api/experiments", json=body, timeout=10)
            assert made.status_code == 202, made.text
            tickets.append(made.json())
        deadline = time.monotonic() + 30
        for ticket in tickets:  # both asking
            auth = {"Authorization": f"Bearer {ticket['token']}"}
            while True:
                state = requests.get(f"{url}api/experiments/{ticket['id']}", headers=auth).json()
                if state["status"] == "running" and state["progress"]:
                    break
                assert time.monotonic() < deadline, state
                time.sleep(0.1)
        # again while it stops, as explore46's watchdog did, and Ctrl-C after
        for stop in (signal.SIGTERM, signal.SIGTERM, signal.SIGTERM, signal.SIGINT):
            process.send_signal(stop)
            time.sleep(0.1)
        output = process.communicate(timeout=40)[0]
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=20)
    assert process.returncode == 0, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    assert output.count("already shutting down (signal SIGTERM again)") == 2, output[-3000:]
    # another signal is named as what it is, not "SIGINT again" (explore66 F11)
    assert output.count("already shutting down (signal SIGINT after SIGTERM)") == 1, output
    storage = open_storage(tmp_path / "store", base=f"http://localhost:{port}/")
    try:
        states = [storage.experiments.status(t["id"]) for t in tickets]
    finally:
        storage.close()
    assert [s.status for s in states] == ["interrupted", "interrupted"], states
