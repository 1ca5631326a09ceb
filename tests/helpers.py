"""Small builders several test modules share (import as ``from tests.helpers import …``)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from service.kb.local import LocalKB
from service.model import AnswerSet, Term

CONTRACT_MEASURES = (
    "microPrecision",
    "microRecall",
    "microF1",
    "macroPrecision",
    "macroRecall",
    "macroF1",
    "macroF1QALD",
    "accuracy",
    "errorCount",
    "questions",
)
"""The measures every ``results[type]`` of ``--output json`` holds (issue 2's JSON contract)."""


def lits(*values: str) -> AnswerSet:
    """An answer set of plain literals, one row each."""
    return AnswerSet.of(Term.literal(v) for v in values)


def kb_from_rdf(
    tmp_path_factory: pytest.TempPathFactory, text: str, *, name: str = "kb.ttl", **options: object
) -> LocalKB:
    """A local KB loaded from ``text`` written to a fresh file called ``name``."""
    path: Path = tmp_path_factory.mktemp("kb") / name
    path.write_text(text, encoding="utf-8")
    return LocalKB([path], **options)  # type: ignore[arg-type]


ROOT = Path(__file__).resolve().parents[1]


def gerbil_qa(
    *args: str, cwd: Path = ROOT, timeout: float = 300, **env: str
) -> subprocess.CompletedProcess[str]:
    """``gerbil-qa ARGS`` in a subprocess, as a user runs it: this checkout's code, the shared
    data mirror, ``env`` added to the environment; its output captured as text."""
    from tests.conftest import DATA

    environ = {**os.environ, "PYTHONPATH": str(ROOT), "GERBIL_QA_DATA": str(DATA), **env}
    return subprocess.run(
        [sys.executable, "-m", "service", *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def gerbil_qa_here(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The same command as :func:`gerbil_qa` (``service.cli.main``, the environment likewise
    meanwhile), run in this process: without an interpreter's start (0.5-1 s of imports each).
    For what a command does to a store; the commands' own processes (exit, signals) are what
    :func:`gerbil_qa` is for."""
    from service.cli import main
    from tests.conftest import DATA
    from tests.remote import environment

    # text streams with a byte buffer under them, as a process's (``export`` writes bytes)
    raw = io.BytesIO(), io.BytesIO()
    out, err = (io.TextIOWrapper(r, "utf-8", write_through=True) for r in raw)
    environ = {"GERBIL_QA_DATA": str(DATA), **env}
    with environment(environ), redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as stop:  # argparse's usage errors, as a process would exit
            code = stop.code if isinstance(stop.code, int) else 1
    said = [r.getvalue().decode("utf-8") for r in raw]
    return subprocess.CompletedProcess(["gerbil-qa", *args], code, *said)


def recorded(
    store: str, answers: Path, *, dataset: Path | None = None, here: bool = False, **env: str
) -> str:
    """``gerbil-qa evaluate --store`` of ``answers`` on ``dataset`` (the demo questions); the
    id of the experiment it recorded. ``here``: run in this process (:func:`gerbil_qa_here`)."""
    from service.paths import DEMO_DIR

    questions = dataset or DEMO_DIR / "questions.json"
    run = gerbil_qa_here if here else gerbil_qa
    done = run(
        "evaluate", "--dataset", str(questions), "--answers", str(answers), "--store", store, **env
    )
    assert done.returncode == 0, done.stderr
    found = re.search(r"recorded experiment (\d{12})", done.stderr + done.stdout)
    assert found, done.stderr
    return found.group(1)


def register_ck25_version(
    store: str, data_dir: Path, output: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[str, str, Path]:
    """``dataset refresh text2sparql-2025-ck25 --store STORE``: a registered version of CK25
    (its file written to ``output``). Its URI, its version and FRANZ's answers to it."""
    from service.cli import main

    refresh = ["dataset", "refresh", "text2sparql-2025-ck25", "--store", store]
    assert main([*refresh, "--output", str(output)]) == 0
    [uri] = [
        line.split(": ", 1)[1]
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("registered version")
    ]
    franz = data_dir / "text2sparql2025" / "systems" / "FRANZ" / "ck25_system_result_set.json"
    return uri, uri.rsplit("/version/", 1)[1], franz


def ck25_gold_queries() -> list[dict[str, str | None]]:
    """TEXT2SPARQL answers to CK25 (the catalogue's, so ``GERBIL_QA_DATA`` must be set) whose
    every query is the question's gold query: a system that answers the gold queries."""
    from service import catalog

    dataset = catalog.load("text2sparql-2025-ck25")
    return [
        {"dataset": "https://text2sparql.aksw.org/2025/corporate/", "query": q.sparql,
         "question": q.text("en"), "qname": f"ck25:{q.id}-en"}
        for q in dataset.questions
    ]  # fmt: skip


class KeyedQA:
    """A QA web service on 127.0.0.1 behind an API key (``X-API-Key: KEY``, else a 401), with
    the demo's right answers (``datasets/demo/answers-strong.json``); ``POST /hop/PORT``
    redirects (307) to ``http://127.0.0.1:PORT/qa``, another origin when PORT is another
    server's; ``POST /quota`` refuses every fifth call with a 401 that quotes the key;
    ``GET /t2s`` is a Text2SPARQL service behind the same key. ``seen`` holds the request
    headers of every call, to show where a secret went. Use it as a context manager."""

    KEY_HEADER = "X-API-Key"

    def __init__(self, key: str) -> None:
        import json
        import threading
        import time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs

        from service.paths import DEMO_DIR

        strong = json.loads((DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8"))
        answers = {t["string"]: q["answers"] for q in strong["questions"] for t in q["question"]}
        outer = self
        self.seen: list[dict[str, str]] = []
        self.delay = 0.0  # seconds before each answer (a run slow enough to stop)

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def _reply(self, status: int, doc: object, location: str | None = None) -> None:
                body = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if location:
                    self.send_header("Location", location)
                self.end_headers()
                self.wfile.write(body)

            def _allowed(self) -> bool:
                outer.seen.append(dict(self.headers.items()))
                if self.headers.get(outer.KEY_HEADER) == key:
                    return True
                # as API gateways do, a wrong key is echoed in the refusal
                got = self.headers.get(outer.KEY_HEADER)
                said = f"wrong key {got}" if got else f"missing {outer.KEY_HEADER}"
                self._reply(401, {"error": said})
                return False

            def do_POST(self) -> None:
                time.sleep(outer.delay)
                length = int(self.headers.get("Content-Length") or 0)
                form = parse_qs(self.rfile.read(length).decode())
                if self.path.startswith("/hop/"):
                    outer.seen.append(dict(self.headers.items()))
                    port = self.path.rsplit("/", 1)[1]
                    return self._reply(307, {}, f"http://127.0.0.1:{port}/qa")
                if self.path == "/quota" and len(outer.seen) % 5 == 4:
                    # every fifth call over its quota, said as API gateways do: with the key
                    outer.seen.append(dict(self.headers.items()))
                    key = self.headers.get(outer.KEY_HEADER)
                    return self._reply(401, {"error": f"quota exceeded for key {key}"})
                if self._allowed():
                    text = form.get("query", [""])[0]
                    question = {"id": "1", "answers": answers.get(text, [])}
                    self._reply(200, {"questions": [question]})

            def do_GET(self) -> None:
                if self._allowed():
                    query = "SELECT ?x WHERE { ?x ?p ?o } LIMIT 1"
                    self._reply(200, {"dataset": "d", "question": "q", "query": query})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> KeyedQA:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def got(self, value: str) -> bool:
        """Whether any call to this server carried ``value`` in a header."""
        return any(value in v for headers in self.seen for v in headers.values())


@contextmanager
def qa_service(answers: Callable[[str], list[Any] | dict[str, Any]]) -> Iterator[str]:
    """A QA web service on 127.0.0.1 (QALD-JSON over a ``query`` form field, as GERBIL posts a
    question): each question text gets ``answers(text)``, a QALD ``answers`` list (under id
    "1", as GERBIL's template answers) or the whole question entry (``{"id": …, "answers":
    …}``). Yields its URL."""
    import json
    from http.server import BaseHTTPRequestHandler
    from urllib.parse import parse_qs

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
            found = answers(form["query"][0])
            entry = found if isinstance(found, dict) else {"id": "1", "answers": found}
            body = json.dumps({"questions": [entry]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with serving(Handler) as base:
        yield base + "qa"


def demo_first_right(*rights: int) -> list[tuple[str, tuple[str, bytes]]]:
    """A submission's files: the demo's questions, and per ``right`` an answer file
    ``right{N}.json`` with the gold for the first N questions and a wrong IRI for the rest
    (Macro F1 QALD is then undefined on the resamples without any of the N)."""
    import json

    from service.paths import DEMO_DIR

    gold = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    wrong = {"head": {"vars": ["uri"]}, "results": {"bindings": [
        {"uri": {"type": "uri", "value": "http://example.org/Wrong"}}]}}  # fmt: skip
    files = [("dataset_file", ("questions.json", json.dumps(gold).encode()))]
    for right in rights:
        answers = json.loads(json.dumps(gold))
        for question in answers["questions"][right:]:
            question["answers"] = [wrong]
        files.append(("answers", (f"right{right}.json", json.dumps(answers).encode())))
    return files


@contextmanager
def serving(handler: type) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 at a free port answering with ``handler`` (a
    ``BaseHTTPRequestHandler``), one thread a request: yields its base URL, ``http://…/``."""
    import threading
    from http.server import ThreadingHTTPServer

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


_HELD: dict[str, threading.Event] = {}
_HELD_LOCK = threading.Lock()


def held(name: str) -> threading.Event:
    """The event a test's QA service holds calls on until it is set (``held(name).set()``);
    kept here, in a module imported once (a conftest may be imported twice, by pytest and by
    a test module's import), so the service and the test share it."""
    with _HELD_LOCK:
        return _HELD.setdefault(name, threading.Event())
