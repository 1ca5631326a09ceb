"""A QA web service that counts what it is asked, and the API calls a test of runs makes
(submit, poll, wait), for the tests that stop a server during a run (replicas, restarts)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import requests

from service.paths import DEMO_DIR
from tests.reliability.figures import Served

QUESTIONS = (DEMO_DIR / "questions.json").read_bytes()
IN_FLIGHT = 4  # web-service calls in flight per system (service.systems.webservice)


class CountingQA:
    """A QA web service on 127.0.0.1 that answers after ``delay`` seconds and counts how often
    each question was asked, per run (the path names the run)."""

    def __init__(self) -> None:
        self.asked: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                _, run, delay = self.path.split("/")  # /RUN/SECONDS
                question = parse_qs(body.decode("utf-8"))["query"][0]
                with owner.lock:
                    owner.asked[(run, question)] += 1
                time.sleep(float(delay))
                answer = b'{"questions": [{"id": "1", "answers": [{"head": {"vars": ["x"]},'
                answer += (
                    b'"results": {"bindings": [{"x": {"type": "literal", "value": "7"}}]}}]}]}'
                )
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                with contextlib.suppress(OSError):  # the runner was killed meanwhile
                    self.wfile.write(answer)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def of(self, run: str) -> Counter[str]:
        with self.lock:
            return Counter({q: n for (r, q), n in self.asked.items() if r == run})

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def submit(replica: Served, qa: CountingQA, run: str, delay: float) -> dict[str, str]:
    response = requests.post(
        replica.url + "api/experiments",
        files=[("dataset_file", ("questions.json", QUESTIONS))],
        data={"kb": "demo", "webservice": f"{run}={qa.url}{run}/{delay}"},
        timeout=30,
    )
    assert response.status_code == 202, response.text
    return response.json()


def run_status(replica: Served | str, ticket: dict[str, str]) -> dict[str, Any]:
    """The run's status as its owner reads it, from a replica (or any base URL: a proxy)."""
    url = replica if isinstance(replica, str) else replica.url
    response = requests.get(
        f"{url}api/experiments/{ticket['id']}",
        headers={"Authorization": f"Bearer {ticket['token']}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return response.json()


def until(what: str, test: Any, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = test()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)  # not 0.1: a wait runs on 25 ms on average past what it waits for, not 50


def question_count() -> int:
    return len(json.loads(QUESTIONS)["questions"])


def finished(replica: Served, ticket: dict[str, str]) -> dict[str, Any] | None:
    state = run_status(replica, ticket)
    assert state["status"] not in ("error", "cancelled", "interrupted"), state
    return state if state["status"] == "finished" else None


def queued_demo_job(storage: Any) -> tuple[str, Any]:
    """A job saved as a submission leaves it, ``queued`` and not yet claimed by any runner: the
    demo questions scored with the partial answers file. Its id and its :class:`JobStore`."""
    from service.experiments.jobs import JobStore
    from service.experiments.spec import ExperimentSpec, FileDataset, FileRef
    from service.experiments.systems import AnswerFile
    from service.graph.experiments import Status

    answers = (DEMO_DIR / "answers-partial.json").read_bytes()
    dataset, partial = FileRef.upload("q.json", QUESTIONS), FileRef.upload("p.json", answers)
    spec = ExperimentSpec(FileDataset(dataset), (AnswerFile("a", partial),))
    assert storage.workspace is not None
    jobs = JobStore(storage.workspace)
    ticket = storage.experiments.reserve()  # what a submission does before its runner claims it
    jobs.create(ticket.id, spec, {dataset.sha256 or "": QUESTIONS, partial.sha256 or "": answers})
    storage.experiments.set_status(ticket.id, Status.QUEUED)
    return ticket.id, jobs
