"""The endpoint's safety limits on the running server: a query past the time limit is really
stopped (its process is killed) while simple queries keep answering; results past the size
limit are refused; SERVICE and updates are refused; CORS works from a browser."""

from __future__ import annotations

import os
import threading
import time

from tests.web.conftest import MAX_BYTES, SPARQL_MEMORY_MB, SPARQL_TIMEOUT

# Two patterns: Oxigraph keeps one side (a copy of the store's triples) and loops over the
# other, so the query runs into the time limit with little memory; with four, the pairs it
# kept reached the memory limit first (0.3 s) once other tests had published more data.
CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a killed child stays a zombie until reaped; /proc tells the two apart
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] != "Z"


def test_cartesian_product_is_stopped_while_simple_queries_answer(server) -> None:
    pool = server.app.extensions["gerbil_qa"].pool
    killed = pool.killed
    pids = pool.pids()
    outcome: dict[str, object] = {}

    def long_query() -> None:
        started = time.monotonic()
        response = server.get("sparql", params={"query": CARTESIAN})
        outcome.update(
            status=response.status_code, text=response.text, elapsed=time.monotonic() - started
        )

    thread = threading.Thread(target=long_query)
    thread.start()
    time.sleep(0.3)
    latencies = []
    while thread.is_alive():
        started = time.monotonic()
        response = server.get(
            "sparql",
            params={"query": "ASK { ?s a <http://w3id.org/gerbil/qa/vocab#Experiment> }"},
            headers={"Accept": "application/sparql-results+json"},
        )
        latencies.append(time.monotonic() - started)
        assert response.status_code == 200
        assert response.json()["boolean"] is True
    thread.join()
    assert outcome["status"] == 503, outcome
    assert "stopped" in str(outcome["text"])
    assert SPARQL_TIMEOUT <= float(outcome["elapsed"]) < SPARQL_TIMEOUT + 2.5  # type: ignore[arg-type]
    assert len(latencies) >= 5 and max(latencies) < 1.0, latencies
    assert pool.killed == killed + 1
    gone = pids - pool.pids()
    assert len(gone) == 1
    assert not _alive(gone.pop())
    # the pool is whole again and answers
    deadline = time.monotonic() + 20
    while len(pool.pids()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(pool.pids()) == 2
    for _ in range(4):
        assert server.get("sparql", params={"query": "ASK {}"}).status_code == 200


def test_result_size_limit(server) -> None:
    response = server.get("sparql", params={"query": "SELECT * { GRAPH ?g { ?s ?p ?o } }"})
    assert response.status_code == 413
    assert str(MAX_BYTES) in response.text and "LIMIT" in response.text
    small = server.get("sparql", params={"query": "SELECT * { GRAPH ?g { ?s ?p ?o } } LIMIT 10"})
    assert small.status_code == 200
    assert len(small.json()["results"]["bindings"]) == 10


def test_service_is_refused(server) -> None:
    for query in (
        "SELECT * { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
        "select * { service silent <http://example.org/sparql> {} }",
    ):
        response = server.get("sparql", params={"query": query})
        assert response.status_code == 403, query
        assert "SERVICE" in response.text
    # Oxigraph reads \u escapes only inside IRIs and strings, and so does the guard: a keyword
    # spelled with one is a syntax error (tests/reliability has the whole corpus of forms)
    escaped = "SELECT * { \\u0053ERVICE <http://example.org/sparql> {} }"
    response = server.get("sparql", params={"query": escaped})
    assert response.status_code == 400 and "syntax error" in response.text
    # the word inside a string or an IRI is not the keyword
    fine = server.get("sparql", params={"query": 'ASK { ?s ?p "SERVICE" }'})
    assert fine.status_code == 200


def test_updates_are_refused_in_every_form(server) -> None:
    before = len(server.storage.public)
    attempts = [
        server.get("sparql", params={"update": "CLEAR ALL"}),
        server.post("sparql", data={"update": "CLEAR ALL"}),
        server.post(
            "sparql", data=b"CLEAR ALL", headers={"Content-Type": "application/sparql-update"}
        ),
        server.post("sparql", params={"update": "CLEAR ALL"}, data={"query": "ASK {}"}),
    ]
    for response in attempts:
        assert response.status_code == 403
    # an update sent as a query is a syntax error, and the store is read-only anyway
    as_query = server.get("sparql", params={"query": "INSERT DATA { <a:b> <a:c> <a:d> }"})
    assert as_query.status_code == 400
    assert len(server.storage.public) == before


def test_results_formats(server) -> None:
    query = "SELECT ?g WHERE { GRAPH ?g {} } ORDER BY ?g LIMIT 2"
    expected = {
        "application/sparql-results+json": "application/sparql-results+json",
        "application/json": "application/sparql-results+json",
        "application/sparql-results+xml": "application/sparql-results+xml",
        "text/csv": "text/csv",
        "text/tab-separated-values": "text/tab-separated-values",
        "*/*": "application/sparql-results+json",
    }
    for accept, media_type in expected.items():
        response = server.get("sparql", params={"query": query}, headers={"Accept": accept})
        assert response.status_code == 200
        assert response.headers["Content-Type"].split(";")[0] == media_type
    assert (
        server.get("sparql", params={"query": query, "format": "tsv"})
        .headers["Content-Type"]
        .startswith("text/tab-separated-values")
    )
    refused = server.get("sparql", params={"query": query}, headers={"Accept": "text/turtle"})
    assert refused.status_code == 406
    construct = server.get(
        "sparql",
        params={"query": "CONSTRUCT { ?s a ?t } WHERE { ?s a ?t } LIMIT 3"},
        headers={"Accept": "application/n-triples"},
    )
    assert construct.headers["Content-Type"].startswith("application/n-triples")
    assert len(construct.text.strip().splitlines()) == 3


def test_cors(server) -> None:
    preflight = server.request(
        "OPTIONS",
        "sparql",
        headers={
            "Origin": "https://example.org",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Content-Type",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    assert "Content-Type" in preflight.headers["Access-Control-Allow-Headers"]
    response = server.post(
        "sparql",
        data=b"ASK {}",
        headers={"Content-Type": "application/sparql-query", "Origin": "https://example.org"},
    )
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    error = server.get("sparql", params={"query": "ASK {"}, headers={"Origin": "https://x.org"})
    assert error.status_code == 400 and error.headers["Access-Control-Allow-Origin"] == "*"


def test_browser_gets_results_as_a_table(server) -> None:
    response = server.get(
        "sparql",
        params={"query": "SELECT ?g WHERE { GRAPH ?g {} } ORDER BY ?g"},
        headers={"Accept": "text/html,*/*;q=0.8"},
    )
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    assert 'id="results"' in response.text
    assert server.storage.uris.vocab_graph in response.text


def test_result_cache_keeps_semantics(server) -> None:
    query = "SELECT ?g WHERE { GRAPH ?g {} } ORDER BY ?g"
    first = server.get("sparql", params={"query": query})
    cached = server.get("sparql", params={"query": query, "format": "json"})
    assert first.content == cached.content
    revalidated = server.get(
        "sparql", params={"query": query}, headers={"If-None-Match": first.headers["ETag"]}
    )
    assert revalidated.status_code == 304
    # another format is another answer
    assert server.get("sparql", params={"query": query, "format": "csv"}).content != first.content
    # volatile functions are evaluated anew each time (never cached)
    rand = "SELECT (RAND() AS ?r) (STRUUID() AS ?u) {}"
    answers = {server.get("sparql", params={"query": rand}).text for _ in range(3)}
    assert len(answers) == 3


def test_memory_limit_stops_a_query_and_the_pool_recovers(server) -> None:
    pool = server.app.extensions["gerbil_qa"].pool
    assert pool.memory_mb > 0
    # a sorted cartesian product materialises ~1 GB per second before the first row
    query = "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i"
    started = time.monotonic()
    response = server.get("sparql", params={"query": query})
    assert response.status_code == 503
    assert f"memory limit of {SPARQL_MEMORY_MB} MB" in response.text
    assert time.monotonic() - started < SPARQL_TIMEOUT + 2.5
    deadline = time.monotonic() + 20
    while len(pool.pids()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(pool.pids()) == 2
    assert server.get("sparql", params={"query": "ASK {}"}).status_code == 200


def test_invalid_utf8_is_refused_in_a_get_as_in_a_post(server) -> None:
    bad = "sparql?query=ASK%20%7B%20%3Fs%20%3Fp%20%22%FF%FE%22%20%7D"
    for path, headers in ((bad, {}), (bad, {"Accept": "text/html"})):  # fast path and Flask
        response = server.get(path, headers=headers)
        assert response.status_code == 400, response.text
        assert "not valid UTF-8" in response.text
    posted = server.post(
        "sparql",
        data=b'ASK { ?s ?p "\xff\xfe" }',
        headers={"Content-Type": "application/sparql-query"},
    )
    assert posted.status_code == 400 and "not valid UTF-8" in posted.text
    # U+FFFD itself, percent-encoded as UTF-8, is a character like any other
    fine = server.get("sparql?query=ASK%20%7B%20%3Fs%20%3Fp%20%22%EF%BF%BD%22%20%7D")
    assert fine.status_code == 200
