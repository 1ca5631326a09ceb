"""Fair service under a flood (issue 13, item 3): while clients send cartesian products (each
stopped at its limits), a simple query keeps being answered, without 5xx.

Before: with both workers taken by cartesian products, a simple query waited for a worker
(p50 6 ms -> 4.2 s, p99 17 ms -> 9.5 s) and now and then got 503 "every SPARQL worker is busy".
Now a query running past ``sparql_quick_seconds`` needs one of ``sparql_long_queries`` slots and
the other worker stays for quick queries (``query_pool.py``). This test floods for a few
seconds and prints the simple query's p50/p99; ``bench/http.py --flood 4`` measures the target
(p99 < 500 ms) on a store of real experiments.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest
import requests

from tests.reliability.figures import percentile, record, scaled
from tests.web.conftest import Server, start_server, stop_server

CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE {{ ?a{n} ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }}"
SIMPLE = "SELECT ?t (COUNT(?s) AS ?n) WHERE { ?s a ?t } GROUP BY ?t ORDER BY ?t LIMIT 5"
FLOOD_CLIENTS = scaled(3, 4)
SECONDS = scaled(8.0, 30.0)  # make soak: 4 clients for 30 s


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Server]:
    running = start_server(
        tmp_path_factory.mktemp("flood-store"),
        demo=False,
        sparql_timeout=3.0,
        sparql_cache_entries=0,  # every simple query runs
    )
    yield running
    stop_server(running)


def test_a_simple_query_is_answered_during_a_flood(served) -> None:
    stop = threading.Event()
    flood: Counter[int] = Counter()
    retry: Counter[tuple[bool, str | None]] = Counter()

    def flooder(n: int) -> None:
        session = requests.Session()
        sent = 0
        while not stop.is_set():
            sent += 1  # fresh variable names: no cache, and a new text each time
            query = CARTESIAN.format(n=f"{n}_{sent}")
            response = session.get(served.url + "sparql", params={"query": query}, timeout=60)
            flood[response.status_code] += 1
            if response.status_code == 503:  # refused while busy: says when to come back
                busy = "try again" in response.text
                retry[busy, response.headers.get("Retry-After")] += 1

    threads = [threading.Thread(target=flooder, args=(n,)) for n in range(FLOOD_CLIENTS)]
    for thread in threads:
        thread.start()
    session = requests.Session()
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    try:
        end = time.monotonic() + SECONDS
        while time.monotonic() < end:
            started = time.monotonic()
            response = session.get(served.url + "sparql", params={"query": SIMPLE}, timeout=60)
            latencies.append(time.monotonic() - started)
            statuses[response.status_code] += 1
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
    p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
    record(
        "flood-simple-query",
        flood_clients=FLOOD_CLIENTS,
        seconds=SECONDS,
        requests=len(latencies),
        p50_ms=round(p50 * 1000),
        p99_ms=round(p99 * 1000),
        max_ms=round(max(latencies) * 1000),
        statuses=dict(statuses),
        flood_statuses=dict(flood),
        worker_crashes=served.app.extensions["gerbil_qa"].pool.crashed,
    )
    assert statuses == Counter({200: len(latencies)})  # no 5xx, nothing refused
    assert len(latencies) >= 20
    # the cartesian products were stopped at their limits (or refused while others ran)
    assert flood[200] == 0 and flood[503] > 0
    # a busy refusal has Retry-After (the time limit: a running query ends by then; before,
    # none), a query stopped at the limit none (the same query would be stopped again)
    assert {said for busy, said in retry if busy} <= {"3"}, retry
    assert {said for busy, said in retry if not busy} <= {None}, retry
    assert p99 < 1.5  # generous on a shared machine; the bench holds the 500 ms target
