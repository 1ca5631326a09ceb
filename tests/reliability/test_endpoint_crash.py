"""No query crashes a SPARQL worker (issue 13, item 2), and a worker's death is reported as
what it was.

Oxigraph parses and evaluates queries by recursion: 3,000 nested ``{ }`` (6 KB) overflowed the
stack of the process and killed it with signal 11, which the pool then called "most likely
past the memory limit"; two clients caused 393 respawns in 45 s. The guard now refuses queries
nested deeper than ``sparql_max_depth`` or longer than ``sparql_max_query_bytes`` (400, naming
the limit), and the workers run queries on a thread with a 256 MB stack, so that the longest
flat chains the size limit allows (`1+1+…`, `{} UNION {} …`, thousands of BINDs) run, or are
stopped at the time limit, but never crash the process.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest

from service.web.query_pool import death_of
from service.web.sparql_guard import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH
from tests.reliability.figures import record
from tests.web.conftest import Server, start_server, stop_server

TIMEOUT = 3.0


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Server]:
    running = start_server(
        tmp_path_factory.mktemp("crash-store"), demo=False, sparql_timeout=TIMEOUT
    )
    yield running
    stop_server(running)


def _pool(server: Server):
    return server.app.extensions["gerbil_qa"].pool


def _fill(make, limit: int = DEFAULT_MAX_BYTES) -> str:
    """The longest query ``make(n)`` gives within ``limit`` bytes."""
    low, high = 1, 2
    while len(make(high).encode()) <= limit:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if len(make(middle).encode()) <= limit else (low, middle)
    return make(low)


NESTED = {
    "3,000 nested groups (issue 13)": "SELECT * WHERE " + "{" * 3000 + "}" * 3000,
    "1,000 nested FILTER EXISTS": "SELECT * WHERE "
    + "{ FILTER EXISTS " * 1000
    + "{}"
    + " }" * 1000,
    "300 nested brackets": "SELECT * { FILTER(" + "(" * 300 + "1" + ")" * 300 + ") }",
    "300 nested subqueries": "SELECT * WHERE " + "{ SELECT * WHERE " * 300 + "{}" + " }" * 300,
    "300 nested blank nodes": "SELECT * { ?s ?p " + "[ ?p " * 300 + "?o" + " ]" * 300 + " }",
    "300 nested collections": "SELECT * { ?s ?p " + "( " * 300 + "?o" + " )" * 300 + " }",
    "300 nested paths": "SELECT * { ?s " + "(" * 300 + "<http://e/p>" + ")" * 300 + " ?o }",
}

CHAINS = {
    "1+1+…": lambda n: "SELECT * { FILTER(" + "+".join(["1"] * n) + " = 1) }",
    "?x || ?x || …": lambda n: "SELECT * { FILTER(" + "||".join(["?x"] * n) + ") }",
    "{} UNION {} …": lambda n: "SELECT * { " + " UNION ".join(["{}"] * n) + " }",
    "BIND … BIND": lambda n: (
        "SELECT * { " + " ".join(f"BIND({i} AS ?v{i})" for i in range(n)) + " }"
    ),
    "OPTIONAL … OPTIONAL": lambda n: "SELECT * { " + " OPTIONAL {?s ?p ?o}" * n + " }",
    "{…} {…} joins": lambda n: "SELECT * { " + " {?s ?p ?o}" * n + " }",
    "p|p|… path": lambda n: "SELECT * { ?s " + "|".join(["<http://e/p>"] * n) + " ?o }",
    "p/p/… path": lambda n: "SELECT * { ?s " + "/".join(["<http://e/p>"] * n) + " ?o }",
    "VALUES rows": lambda n: "SELECT * { VALUES ?x { " + " ".join(["1"] * n) + " } }",
    "CONCAT arguments": lambda n: "SELECT * { BIND(CONCAT(" + ",".join(['"a"'] * n) + ") AS ?x) }",
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_deep_nesting_is_refused_before_the_engine(served, name) -> None:
    pool = _pool(served)
    pids, crashed = pool.pids(), pool.crashed
    response = served.post(
        "sparql", data=NESTED[name], headers={"Content-Type": "application/sparql-query"}
    )
    assert response.status_code == 400, response.text
    assert f"more than {DEFAULT_MAX_DEPTH} levels deep" in response.text
    assert "sparql_max_depth" in response.text
    assert pool.pids() == pids and pool.crashed == crashed
    record("crash-nesting", form=name, attempts=1, refused_400=1, worker_crashes=0)


def test_an_oversized_query_is_refused_naming_the_limit(served) -> None:
    query = "SELECT * { VALUES ?x { " + "1 " * DEFAULT_MAX_BYTES + "} }"
    response = served.post(
        "sparql", data=query, headers={"Content-Type": "application/sparql-query"}
    )
    assert response.status_code == 400
    assert f"limit of {DEFAULT_MAX_BYTES:,} bytes" in response.text
    assert "sparql_max_query_bytes" in response.text


def test_the_longest_chains_within_the_limits_do_not_crash_a_worker(served) -> None:
    pool = _pool(served)
    crashed = pool.crashed
    outcomes = {}
    for name, make in CHAINS.items():
        query = _fill(make)
        response = served.post(
            "sparql", data=query, headers={"Content-Type": "application/sparql-query"}
        )
        outcomes[name] = response.status_code
        # answered, stopped at the time or size limit: never the process dying (500)
        assert response.status_code in (200, 413, 503), (name, response.text)
        if response.status_code == 503:
            assert "longer than the limit" in response.text, response.text
    record(
        "crash-chains",
        attempts=len(outcomes),
        bytes_each=DEFAULT_MAX_BYTES,
        statuses=dict(sorted(Counter(outcomes.values()).items())),
        worker_crashes=pool.crashed - crashed,
    )
    assert pool.crashed == crashed


def test_a_workers_death_is_reported_as_what_it_was(served) -> None:
    pool = _pool(served)
    crashed = pool.crashed
    outcome = {}

    def long_query() -> None:
        query = "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
        outcome["response"] = served.get("sparql", params={"query": query})

    thread = threading.Thread(target=long_query)
    thread.start()
    deadline = time.monotonic() + 5
    while not pool.busy_pids() and time.monotonic() < deadline:
        time.sleep(0.02)
    (pid,) = pool.busy_pids()
    os.kill(pid, signal.SIGSEGV)
    thread.join(30)
    response = outcome["response"]
    assert response.status_code == 500
    assert "signal 11 (SIGSEGV" in response.text, response.text
    assert pool.crashed == crashed + 1
    assert pid not in pool.pids()
    assert served.get("sparql", params={"query": "ASK {}"}).status_code == 200


def test_death_in_words() -> None:
    assert death_of(-signal.SIGSEGV).startswith("signal 11 (SIGSEGV: a crash in the engine")
    assert death_of(-signal.SIGABRT).startswith("signal 6 (SIGABRT")
    assert death_of(-signal.SIGKILL).startswith("signal 9 (SIGKILL")
    assert death_of(3) == "exit code 3"
    assert death_of(None) == "its end could not be observed"
