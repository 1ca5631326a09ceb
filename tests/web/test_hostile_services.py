"""Runs through the API against a hostile QA web service on 127.0.0.1 (explore46): what one
service does to its questions never ends the run, nor costs another system its answers."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.web.conftest import Server


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
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _HostileHandler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


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
