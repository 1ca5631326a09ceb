"""The SPARQL worker pool's memory limit is on resident memory, not address space.

A query process reserves far more address space than it uses (thread stacks, malloc arenas:
~440 MB here for ~40 MB resident), and RocksDB aborts when it cannot start a thread, so an
address-space limit near what queries need made ordinary queries fail now and then (seen as
503s in bench/http.py). With a 128 MB limit a worker still answers, and a query that grows
past it is stopped with a message that says so.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from service.errors import ServiceError
from service.web.query_pool import PoolBusy, QueryJob, QueryPool, QueryTimeout

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


def test_an_idle_worker_holds_no_snapshot_in_use(pool) -> None:
    """An idle worker's last snapshot counted as in use, so a retired one stayed on disk until
    that worker's next query, a whole copy of the public store on a quiet day (explore27 F8):
    only a running job's snapshot is."""
    pool.run(QueryJob(query="ASK {}"))
    assert pool.snapshots_in_use() == set()  # the worker is idle again


def test_a_query_past_the_limit_is_stopped_and_the_pool_recovers(pool) -> None:
    (pid,) = pool.pids()
    with pytest.raises(ServiceError) as stopped:
        pool.run(QueryJob(query="SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i"))
    assert stopped.value.status == 503
    assert f"memory limit of {LIMIT_MB} MB" in stopped.value.message
    outcome = pool.run(QueryJob(query="ASK {}"), wait=30)  # a fresh worker answers
    assert b"true" in outcome.body
    assert pool.pids() != {pid}


# --- a lane kept free for quick queries -------------------------------------------------------

CARTESIAN = "SELECT (COUNT(*) AS ?n) {{ ?a ?b ?c . ?d ?e ?f . ?g ?h ?{last} }}"
QUICK = QueryJob(query="SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")


@pytest.fixture()
def lanes(pool) -> Iterator[QueryPool]:
    two = QueryPool(size=2, timeout=4, quick_seconds=0.3, long_waiting=1)
    two.set_snapshot(pool.snapshot)
    yield two
    two.close()


def _in_thread(pool: QueryPool, job: QueryJob, shape: int, out: dict) -> threading.Thread:
    def run() -> None:
        try:
            out[shape] = pool.run(job, shape=shape)
        except ServiceError as err:
            out[shape] = err

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _quick_latencies(pool: QueryPool, seconds: float) -> list[float]:
    latencies = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        assert b'"2000"' in pool.run(QUICK).body
        latencies.append(time.monotonic() - started)
    return latencies


def test_long_queries_never_take_the_last_worker(lanes) -> None:
    assert lanes.long_slots == 1
    out: dict[int, object] = {}
    first = _in_thread(lanes, QueryJob(CARTESIAN.format(last="i")), 1, out)
    time.sleep(0.6)  # past quick_seconds: it holds the long slot
    # another long query, of another shape: it starts on the free worker, passes the quick
    # time with the slot taken, and is stopped and queued for the slot (to run later)
    second = _in_thread(lanes, QueryJob(CARTESIAN.format(last="x")), 2, out)
    time.sleep(0.6)
    assert lanes.requeued == 1
    # the same shape again waits for the slot from the start: quick queries keep a worker
    third = _in_thread(lanes, QueryJob(CARTESIAN.format(last="x")), 2, out)
    latencies = _quick_latencies(lanes, 1.5)
    assert lanes.requeued == 1
    assert len(latencies) >= 10 and max(latencies) < 0.25, latencies
    # a fourth long query finds one already waiting (long_waiting=1): refused at once
    with pytest.raises(PoolBusy, match="long") as busy:
        lanes.run(QueryJob(CARTESIAN.format(last="x")), shape=2)
    assert busy.value.retry_after == 4  # the time limit: the endpoint's Retry-After
    for thread in (first, second, third):
        thread.join(30)
    # each long query ran to the time limit in turn, or waited past the queue time
    assert isinstance(out[1], QueryTimeout)
    assert isinstance(out[2], (QueryTimeout, PoolBusy))
    assert lanes.killed >= 2


def test_a_worker_reaped_by_someone_else_is_still_found_dead() -> None:
    """``Process.is_alive()`` asks ``waitpid``; once another part of the process has reaped a
    dead worker it answered "alive" for ever, and ``/health`` counted a dead pool as whole (a
    CI run's failure of tests/web/test_health.py)."""
    import os
    import signal

    two = QueryPool(size=2, timeout=5)
    try:
        pids = two.pids()
        assert len(pids) == 2
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
            # reaped here, not through the pool's Process objects; or reaped already by
            # another part of this process (any Process.start() polls every child): the same
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        assert two.heal() < 2 and two.crashed == 2  # both found dead
        deadline = time.monotonic() + 60
        while two.heal() < 2 or two.pids() & pids:  # and replaced by new processes
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        two.close()
