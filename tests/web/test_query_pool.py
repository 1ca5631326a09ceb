"""The SPARQL worker pool's memory limit is on resident memory, not address space.

A query process reserves far more address space than it uses (thread stacks, malloc arenas:
~440 MB here for ~40 MB resident), and RocksDB aborts when it cannot start a thread, so an
address-space limit near what queries need made ordinary queries fail now and then (seen as
503s in bench/http.py). With a 128 MB limit a worker still answers, and a query that grows
past it is stopped with a message that says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from service.errors import ServiceError
from service.web.query_pool import QueryJob, QueryPool

LIMIT_MB = 128


@pytest.fixture(scope="module")
def pool(tmp_path_factory) -> Iterator[QueryPool]:
    path = Path(tmp_path_factory.mktemp("pool")) / "store"
    store = ox.Store(str(path))
    ex = "http://example.org/"
    store.bulk_extend(
        ox.Quad(ox.NamedNode(f"{ex}s{i}"), ox.NamedNode(f"{ex}p"), ox.Literal(str(i)))
        for i in range(2000)
    )
    store.flush()
    del store
    pool = QueryPool(size=1, timeout=20, memory_mb=LIMIT_MB)
    pool.set_snapshot(str(path))
    yield pool
    pool.close()


def test_a_worker_answers_under_a_limit_below_its_address_space(pool) -> None:
    for _ in range(3):
        outcome = pool.run(QueryJob(query="SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"))
        assert b'"2000"' in outcome.body


def test_a_query_past_the_limit_is_stopped_and_the_pool_recovers(pool) -> None:
    (pid,) = pool.pids()
    with pytest.raises(ServiceError) as stopped:
        pool.run(QueryJob(query="SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i"))
    assert stopped.value.status == 503
    assert f"memory limit of {LIMIT_MB} MB" in stopped.value.message
    outcome = pool.run(QueryJob(query="ASK {}"), wait=30)  # a fresh worker answers
    assert b"true" in outcome.body
    assert pool.pids() != {pid}
