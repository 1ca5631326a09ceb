"""Serving a reference system as a real GERBIL QA web service (WSGI, served by waitress).

``POST /`` with form fields ``query`` and ``lang`` (application/x-www-form-urlencoded or
multipart/form-data, UTF-8) answers QALD-JSON holding one question: the question as received,
the SPARQL the system ran, and its answers. ``GET /`` with the same parameters in the query
string answers the same (handy in a browser); ``GET /`` without them describes the system.
Errors are JSON ``{"error": …}`` with a 4xx status (a question the system cannot take) or 500.

As a Text2SPARQL service (``interface="text2sparql"``, TEXT2SPARQL'25's interface): ``GET
/?question=…&dataset=<dataset id>`` answers ``{"dataset", "question", "query"}``, the SPARQL
the system built (gold-sparql: the gold query), which the caller runs on its own KB.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from service.errors import ServiceError
from service.model import Dataset, Question, QuestionText
from service.systems.reference import ReferenceSystem

MAX_FORM_BYTES = 64 * 1024
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def qald_answer(question: str, language: str, reply: Any) -> bytes:
    """One question with its answers as QALD-JSON (written by ``service.formats``)."""
    from service import formats

    entry = Question(
        id="1",
        texts=(QuestionText(language, question),),
        answertype=reply.answertype,
        sparql=reply.sparql,
        answers=reply.answers,
    )
    return formats.write(Dataset(id=None, questions=(entry,)), "qald-json")


def text2sparql_answer(question: str, dataset: str, query: str | None) -> bytes:
    """A TEXT2SPARQL'25 answer: the question's query (empty when the system has none)."""
    answer = {"dataset": dataset, "question": question, "query": query or ""}
    return json.dumps(answer, ensure_ascii=False).encode("utf-8")


def make_app(
    system: ReferenceSystem,
    *,
    delay: float = 0.0,
    interface: str = "qa",
    language: str = "en",
) -> WSGIApp:
    """The WSGI application serving ``system`` by ``interface`` (``qa`` or ``text2sparql``,
    :data:`~service.model.INTERFACES`);
    ``delay`` seconds are added to every answer (to imitate a remote system's latency in
    benchmarks and demos); ``language``: a Text2SPARQL question's (the interface names none)."""
    text2sparql = interface == "text2sparql"
    field, usage = (
        ("question", "GET ?question=<question>&dataset=<dataset id> (TEXT2SPARQL'25)")
        if text2sparql
        else ("query", "POST query=<question>&lang=<ISO 639-1 code> (form-encoded UTF-8)")
    )
    from werkzeug.wrappers import Request

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        request = Request(environ)
        request.max_form_memory_size = MAX_FORM_BYTES
        request.max_content_length = MAX_FORM_BYTES
        status, payload, content_type = 200, b"", "application/json; charset=utf-8"
        try:
            if request.method not in ("GET", "POST"):
                raise ServiceError("only GET and POST are supported", status=405)
            params = request.form if request.method == "POST" else request.args
            text = params.get(field)
            if text is None and request.method == "GET":
                payload = json.dumps(
                    {"system": system.name, "description": system.describe(), "usage": usage}
                ).encode()
            elif text is None:
                raise ServiceError(f"missing form field '{field}' (the question)", status=400)
            else:
                if delay:
                    time.sleep(delay)
                if text2sparql:
                    query = system.query(text, language)
                    payload = text2sparql_answer(text, params.get("dataset") or "", query)
                else:
                    lang = params.get("lang") or "en"
                    payload = qald_answer(text, lang, system.answer(text, lang))
        except ServiceError as err:
            status, payload = err.status, json.dumps({"error": err.message}).encode()
        except Exception as err:  # a bug must still answer, and say what it was
            status = 500
            payload = json.dumps({"error": f"{type(err).__name__}: {err}"}).encode()
        reason = _REASONS.get(status, "Error")
        start_response(
            f"{status} {reason}",
            [("Content-Type", content_type), ("Content-Length", str(len(payload)))],
        )
        return [payload]

    return app


_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Payload Too Large",
    422: "Unprocessable Content",
    500: "Internal Server Error",
}


class ServedSystem:
    """A WSGI app served by waitress on a background thread (tests, benchmarks, the runner)."""

    def __init__(
        self, app: WSGIApp, *, host: str = "127.0.0.1", port: int = 0, threads: int = 16
    ) -> None:
        from waitress.server import create_server

        self._server = create_server(app, host=host, port=port, threads=threads)
        self.port = int(self._server.effective_port)
        self.url = f"http://{host}:{self.port}/"
        self._thread = threading.Thread(target=self._server.run, daemon=True, name="qa-serve")

    def __enter__(self) -> ServedSystem:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._server.close()
        self._thread.join(timeout=5)


def serve(
    system: ReferenceSystem,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    threads: int = 16,
    delay: float = 0.0,
    interface: str = "qa",
    language: str = "en",
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve ``system`` until interrupted (the CLI's ``gerbil-qa system serve``)."""
    from waitress.server import create_server

    app = make_app(system, delay=delay, interface=interface, language=language)
    server = create_server(app, host=host, port=port, threads=threads)
    if ready is not None:
        ready(f"http://{host}:{server.effective_port}/")
    try:
        server.run()
    finally:
        server.close()
