"""The SPARQL executor on a real local KB (worker processes) and a real remote endpoint
(`oxigraph serve-read-only`, and small HTTP servers for slow and huge answers): answers, every
failure reason, limits that stop the engine, positions in the query as written."""

from __future__ import annotations

import http.server
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.errors import FormatError
from service.kb.executor import (
    LOCAL_FROM,
    ExecutionLimits,
    FailureReason,
    QueryResult,
    SparqlExecutor,
    prepare,
)
from service.kb.remote import RemoteKBError
from service.model import AnswerSet, Term
from service.sparql.standard import StandardQuery
from service.systems.localnet import OxigraphServer, free_port

NS = "http://ld.company.org/prod-vocab/"
INST = "http://ld.company.org/prod-instances/"


@pytest.fixture(scope="module")
def kb_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines = [f"@prefix pv: <{NS}> .", f"@prefix i: <{INST}> ."]
    for n in range(3):
        lines.append(f'i:dept-{n} a pv:Department ; pv:name "Dept {n}" .')
    for n in range(600):  # enough for a cross product no engine finishes in a second
        lines.append(
            f"i:empl-{n} a pv:Employee ; pv:memberOf i:dept-{n % 3} ; pv:age {20 + n % 40} ."
        )
    path = tmp_path_factory.mktemp("kb") / "kb.ttl"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def executor(kb_file: Path) -> Iterator[SparqlExecutor]:
    limits = ExecutionLimits(timeout=1.5, max_results=50)
    with SparqlExecutor([kb_file], prefixes={"": NS}, limits=limits, workers=2) as ex:
        yield ex


def reason(result: QueryResult) -> FailureReason | None:
    return result.failure.reason if result.failure else None


def test_a_lenient_query_runs_in_the_datasets_prefix_environment(executor: SparqlExecutor) -> None:
    # LLM style: undeclared default namespace, Virtuoso's COUNT(…) AS ?c
    result = executor.run("SELECT COUNT(?d) AS ?c WHERE { ?d a :Department }")
    assert result.ok, result.failure
    assert result.answers.values()[0].value == "3"
    assert result.executed == f"SELECT (COUNT(?d) AS ?c) WHERE {{ ?d a <{NS}Department> }}"
    assert any("undeclared prefix ':'" in note for note in result.rewrites)
    ask = executor.run("ASK { <http://ld.company.org/prod-instances/dept-1> a :Department }")
    assert ask.answers == AnswerSet(boolean=True)
    rows = executor.run("SELECT ?n WHERE { ?d :name ?n } ORDER BY ?n").answers
    assert rows.values() == tuple(Term.literal(f"Dept {n}") for n in range(3))


def test_a_from_clause_on_a_local_kb_is_said_not_applied(executor: SparqlExecutor) -> None:
    # the files are one graph: FROM <g> reads it whole (nothing fetched), and now says so
    result = executor.run("SELECT ?d FROM <http://127.0.0.1:9/evil.ttl> WHERE { ?d a :Department }")
    assert result.ok and len(result.answers.values()) == 3, result.failure
    assert LOCAL_FROM in result.rewrites
    assert LOCAL_FROM not in executor.run("SELECT ?d WHERE { ?d a :Department }").rewrites


@pytest.mark.parametrize(
    ("query", "expected", "message", "where"),
    [
        ("", FailureReason.EMPTY, "no query", None),
        ("  # nothing here\n", FailureReason.EMPTY, "no query", None),
        ("?\n\nselect ?d where { ?d a :Department }", FailureReason.PROSE,
         "text before the query: '?'", None),
        ("Here it is:\nSELECT ?d WHERE { ?d a :Department }", FailureReason.PROSE,
         "text before the query: 'Here it is:'", None),
        ("```sparql\nSELECT ?d WHERE { ?d a :Department }\n```", FailureReason.PROSE,
         "Markdown code block", None),
        ("SELECT ?d WHERE { ?d a :Department }\nThis lists every department.",
         FailureReason.PROSE, "text after the query", (2, 1)),
        ("I cannot answer that.", FailureReason.PROSE, "no SPARQL query in the text", None),
        ("SELECT ?d WHERE {\n  ?d :x <http://ld/{unique_identifier}> }", FailureReason.PARSE_ERROR,
         "expected an RDF term", (2, 9)),
        ("SELECT ?d WHERE { ?d a ex:Thing }", FailureReason.PARSE_ERROR,
         "undeclared prefix 'ex:'", (1, 24)),
        ("CONSTRUCT WHERE { ?s ?p ?o }", FailureReason.NOT_SELECT_OR_ASK, "gives triples", None),
        # updates (an LLM asked to "remove" something): said as such, never "no SPARQL query"
        ("DELETE WHERE { ?s ?p ?o }", FailureReason.NOT_SELECT_OR_ASK,
         "an update (DELETE) changes data", None),
        ("# drop it\nPREFIX x: <http://x/>\ninsert data { x:a x:b x:c }",
         FailureReason.NOT_SELECT_OR_ASK, "an update (INSERT) changes data", None),
        ("CLEAR ALL", FailureReason.NOT_SELECT_OR_ASK, "an update (CLEAR) changes data", None),
        ("Create a list of departments.", FailureReason.PROSE, "no SPARQL query in the text", None),
    ],
)  # fmt: skip
def test_what_never_reaches_the_engine_fails_with_its_reason(
    executor: SparqlExecutor,
    query: str,
    expected: FailureReason,
    message: str,
    where: tuple[int, int] | None,
) -> None:
    result = executor.run(query)
    assert reason(result) is expected
    assert result.failure is not None and message in result.failure.message
    if where is not None:
        assert (result.failure.line, result.failure.column) == where
    assert result.answers == AnswerSet() and result.executed is None


def test_engine_errors_are_kept_with_the_engines_message(executor: SparqlExecutor) -> None:
    result = executor.run("SELECT (<urn:x:unknown>(?a) AS ?i) WHERE { ?e :age ?a }")
    assert reason(result) is FailureReason.ENGINE_ERROR
    assert "<urn:x:unknown> is not supported" in str(result.failure)
    assert result.executed is not None and result.answers == AnswerSet()


def test_the_integer_casts_oxigraph_lacks_are_evaluated(executor: SparqlExecutor) -> None:
    """xsd:int(…) and the other types derived from xsd:integer, which Virtuoso (the TEXT2SPARQL
    engine) evaluates, cast on a local KB as XPath says; out of range, unbound."""
    result = executor.run(
        "SELECT DISTINCT ?a (xsd:int(STR(?a)) AS ?i) (xsd:byte(?a * 4) AS ?b) WHERE { ?e :age ?a }"
    )
    assert result.ok and len(result.answers.rows) == 40  # ages 20 to 59
    for row in result.answers.rows:
        age = int(row["a"].value)
        assert int(row["i"].value) == age
        assert ("b" in row) is (age * 4 <= 127)  # xsd:byte ends at 127
        if "b" in row:
            assert int(row["b"].value) == age * 4


def test_too_many_results_stop_reading(executor: SparqlExecutor) -> None:
    result = executor.run("SELECT * WHERE { ?s ?p ?o }")
    assert reason(result) is FailureReason.TOO_MANY_RESULTS
    assert "more than 50 results" in str(result.failure)
    assert executor.run("SELECT ?d WHERE { ?d a :Department }").ok


def test_a_query_past_the_time_limit_is_stopped_and_its_worker_replaced(
    executor: SparqlExecutor,
) -> None:
    before = executor.worker_pids()
    killed = executor.killed
    started = time.monotonic()
    result = executor.run("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }")
    assert time.monotonic() - started < 5
    assert reason(result) is FailureReason.TIMEOUT
    assert "longer than the limit of 1.5 s" in str(result.failure)
    assert executor.killed == killed + 1
    after = executor.worker_pids()
    assert len(after) == 2 and len(before - after) == 1  # one process killed, one new
    # the pool answers again, the fresh worker included
    results = executor.run_all(["SELECT ?d WHERE { ?d a :Department }"] * 4)
    assert all(r.ok and len(r.answers.rows) == 3 for r in results)


def test_workers_load_the_kb_once(kb_file: Path, tmp_path: Path) -> None:
    copy = tmp_path / "kb.ttl"
    copy.write_bytes(kb_file.read_bytes())
    with SparqlExecutor([copy], prefixes={"": NS}) as ex:
        pids = ex.worker_pids()
        copy.write_text(f"<{INST}x> a <{NS}Department> .", encoding="utf-8")  # not reread
        counts = [ex.run("SELECT ?d WHERE { ?d a :Department }") for _ in range(5)]
        assert {len(r.answers.rows) for r in counts} == {3}
        assert ex.worker_pids() == pids
        assert ex.identity.startswith("file:sha256:")


def test_a_kb_that_cannot_be_loaded_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text("<a> <b> .", encoding="utf-8")
    with pytest.raises(FormatError, match="cannot load the KB"):
        SparqlExecutor([bad])
    with pytest.raises(FormatError, match="KB file not found"):
        SparqlExecutor([tmp_path / "missing.ttl"])


def test_prepare_needs_no_engine() -> None:
    prepared = prepare("select count(*) as ?x where{dbr:Y dbo:author ?x }")
    assert isinstance(prepared, StandardQuery)
    assert prepared.text.startswith("select (count(*) as ?x_1) where{")


# --- a remote endpoint -----------------------------------------------------------------------


def test_a_remote_endpoint_answers_and_refuses_like_a_local_kb(kb_file: Path) -> None:
    with (
        OxigraphServer([kb_file]) as server,
        SparqlExecutor(server.url, prefixes={"": NS}, limits=ExecutionLimits(max_results=50)) as ex,
    ):
        assert ex.identity == server.url and ex.worker_pids() == set()
        result = ex.run("SELECT COUNT(?d) AS ?c WHERE { ?d a :Department }")
        assert result.ok and result.answers.values()[0].value == "3"
        assert reason(ex.run("SELECT * WHERE { ?s ?p ?o }")) is FailureReason.TOO_MANY_RESULTS
        failed = ex.run("SELECT (xsd:int(?a) AS ?i) WHERE { ?e :age ?a }")
        assert reason(failed) is FailureReason.ENGINE_ERROR
        assert "the endpoint answered HTTP 500: The custom function" in str(failed.failure)
        assert reason(ex.run("")) is FailureReason.EMPTY


class _SlowOrHuge(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.end_headers()
        if self.server.mode == "slow":  # type: ignore[attr-defined]
            time.sleep(3)
        elif self.server.mode == "deep":  # type: ignore[attr-defined]  # explore46 1
            self.wfile.write(b"[" * 40_000 + b"]" * 40_000)
        else:
            self.wfile.write(b'{"head": {"vars": ["x"]}, "results": {"bindings": [')
            for _ in range(2000):
                self.wfile.write(b'{"x": {"type": "literal", "value": "' + b"y" * 500 + b'"}},')

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("slow", "timeout"), ("huge", "too-many-results"), ("deep", "engine-error")],
)
def test_a_remote_endpoint_gets_a_time_and_a_size_limit(mode: str, expected: str) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowOrHuge)
    server.mode = mode  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/sparql"
    limits = ExecutionLimits(timeout=1.0, max_bytes=100_000)
    try:
        with SparqlExecutor(url, limits=limits) as ex:
            started = time.monotonic()
            result = ex.run("SELECT ?x WHERE { ?x ?p ?o }")
            assert time.monotonic() - started < 2.5
            assert reason(result) == expected, result.failure
            if mode == "deep":  # a RecursionError ended the evaluation
                assert "results are nested too deeply to read (40000 levels" in str(result.failure)
    finally:
        server.shutdown()


def test_an_endpoint_that_cannot_be_reached_is_an_error_not_an_answer() -> None:
    with (
        SparqlExecutor(f"http://127.0.0.1:{free_port()}/sparql") as ex,
        pytest.raises(RemoteKBError, match="Connection refused"),
    ):
        ex.run("ASK { ?s ?p ?o }")


# --- SERVICE: a system's query never makes the evaluator call another endpoint ------------------


class _Recording(http.server.BaseHTTPRequestHandler):
    """A SPARQL endpoint on loopback that keeps every request it gets (none should come)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.hits.append(self.path)  # type: ignore[attr-defined]
        body = b'{"head": {"vars": ["s"]}, "results": {"bindings": []}}'
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize(
    "template",
    [
        "SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
        "select ?d {{ ?d a :Department OPTIONAL {{ service silent <{url}> {{ ?d ?p ?o }} }} }}",
        "SELECT * WHERE {{ FILTER(1<2)SERVICE#>\n<{url}> {{ ?s ?p ?o }} }}",
        "ASK {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
    ],
)
def test_a_query_calling_another_endpoint_is_refused_unrun(
    executor: SparqlExecutor, template: str
) -> None:
    """A Text2SPARQL system's query runs on the experiment's KB: a SERVICE call would make the
    evaluator (the web service too) open connections a stranger chose, past the network policy,
    and the endpoint's answer came back in the question's error."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recording)
    server.hits = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/internal"
    try:
        result = executor.run(template.format(url=url))
        assert reason(result) is FailureReason.SERVICE, result.failure
        assert "calls another endpoint (SERVICE)" in str(result.failure)
        assert result.executed is None and result.answers == AnswerSet()
        assert server.hits == []  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


def test_a_service_keyword_inside_a_string_is_no_call(executor: SparqlExecutor) -> None:
    result = executor.run('SELECT ?d WHERE { ?d :name ?n FILTER(?n != "SERVICE <x> {}") }')
    assert result.ok and len(result.answers.rows) == 3


_CTRL_C_SCRIPT = """
import sys, time
from service.kb.executor import SparqlExecutor

if __name__ == "__main__":
    executor = SparqlExecutor([sys.argv[1]])
    try:
        executor.run("ASK { ?s ?p ?o }")
        print("ready", flush=True)
        time.sleep(60)
    except KeyboardInterrupt:  # a parent's shutdown takes a moment (serve's does)
        print("interrupted", flush=True)
        time.sleep(1)
    finally:
        executor.close()
"""


def test_ctrl_c_is_left_to_the_parent_not_printed_by_each_kb_worker(
    kb_file: Path, tmp_path: Path
) -> None:
    """Ctrl-C signals the terminal's whole process group: each KB worker printed a
    KeyboardInterrupt traceback beside the command's own message. The parent handles it (the
    workers end at their pipe's EOF)."""
    script = tmp_path / "ctrl_c.py"
    script.write_text(_CTRL_C_SCRIPT, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(script), str(kb_file)],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, as a terminal's foreground job
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # CI may ignore it
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert out.strip() == "interrupted" and process.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
