"""Two replicas on one remote store (issue 14, the end-to-end test): two Oxigraph servers hold
the public and the private dataset; two ``gerbil-qa serve`` processes (A and B) share them (and
nothing else: each has a work directory of its own, as on two machines), with one base URI (the
proxy's) as a deployment behind a reverse proxy has.

- a web-service run submitted on A is watched on B (status and live progress with the owner's
  token), invisible on B without it (pages, API, SPARQL), asked of the QA service once per
  question (claimed once), published on A, then served by B by content negotiation and SPARQL
  (B's caches follow A's write), and the data is in the remote servers themselves;
- killed with SIGKILL during a run, A's job is taken over by B once its claim's lease runs out,
  and finishes there without asking again what A had asked;
- several runs submitted to both replicas at once each run once;
- two replicas started at once on a new store compute one demo experiment (each computed and
  published its own);
- a writer that dies between its public write and its second change token leaves a pending
  token: the other replicas drop their caches when they see it and again once it is older
  than their limit.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests

from service.graph.workspace import WORK
from tests.reliability.figures import Served, record
from tests.reliability.runs import (
    IN_FLIGHT,
    QUESTIONS,
    CountingQA,
    finished,
    question_count,
    run_status,
    submit,
    until,
)
from tests.remote import RemotePair, pause, remote_pair, resume

BASE = "http://gerbil-qa.test/"  # the public base both replicas serve under
LEASE = 2.0
METRICS_TOKEN = "replicas-metrics"


@pytest.fixture()
def deployment(tmp_path: Path) -> Iterator[tuple[RemotePair, dict[str, str]]]:
    with remote_pair(tmp_path) as pair:
        env = {
            **pair.env,
            "GERBIL_QA_LEASE_SECONDS": str(LEASE),
            "GERBIL_QA_ALLOW_NETWORKS": "127.0.0.1/32",  # the QA service runs on loopback
            "GERBIL_QA_METRICS_TOKEN": METRICS_TOKEN,
        }
        yield pair, env


@pytest.fixture()
def replicas(deployment: tuple[RemotePair, dict[str, str]]) -> Iterator[tuple[Served, Served]]:
    """Replicas A and B of the deployment: two `gerbil-qa serve` under one base, each with a
    work directory of its own (as on two machines: what they share is in the store)."""
    pair, env = deployment
    a = Served(pair.url, base=BASE, **{**env, "GERBIL_QA_WORK_DIR": str(pair.work_dir / "a")})
    try:
        b = Served(pair.url, base=BASE, **{**env, "GERBIL_QA_WORK_DIR": str(pair.work_dir / "b")})
        try:
            yield a, b
        finally:
            b.stop()
    finally:
        a.stop()


def _metrics(replica: Served) -> dict[str, float]:
    from prometheus_client.parser import text_string_to_metric_families

    response = requests.get(
        replica.url + "metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30
    )
    assert response.status_code == 200, response.text
    families = text_string_to_metric_families(response.text)
    return {s.name: s.value for family in families for s in family.samples if not s.labels}


def test_submit_on_a_watch_on_b_publish_on_a_served_by_b(
    deployment: tuple[RemotePair, dict[str, str]],
    replicas: tuple[Served, Served],
    qa: CountingQA,
) -> None:
    pair, _ = deployment
    a, b = replicas
    # B's listing and leaderboard are cached before anything is published
    assert requests.get(b.url + "api/experiments", timeout=30).json()["experiments"] == []
    # slow enough that B is asked while the run is going (at 0.15 s an answer the run was
    # over in ~0.7 s, between two of B's status answers, 2 runs in 3 after test_remote_store)
    ticket = submit(a, qa, "watched", 0.5)
    eid = ticket["id"]
    graph = f"{BASE}graph/experiment/{eid}"
    # watched on B: running, with live progress, with the owner's token
    seen = until(
        "progress on B",
        lambda: (
            (s := run_status(b, ticket))["status"] == "running"
            and sum(system["done"] for system in s["systems"]) > 0
            and s
        ),
    )
    assert seen["id"] == eid
    # invisible on B without the token: pages, API, SPARQL
    for path in (f"experiment/{eid}", f"api/experiments/{eid}", f"experiment/{eid}/task/1"):
        assert requests.get(b.url + path, timeout=30).status_code in (403, 404), path
    ask = f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"
    answer = requests.get(b.url + "sparql", params={"query": ask}, timeout=30)
    assert answer.json()["boolean"] is False
    until("the run to finish", lambda: finished(b, ticket))
    # claimed once: every question asked once
    asked = qa.of("watched")
    assert len(asked) == question_count() and set(asked.values()) == {1}, asked
    # published on A ...
    published = requests.post(
        f"{a.url}api/experiments/{eid}/publish",
        headers={"Authorization": f"Bearer {ticket['token']}"},
        timeout=30,
    )
    assert published.status_code == 200, published.text
    # ... served by B by content negotiation and SPARQL, its cached listing refreshed
    turtle = until(
        "B to serve the published experiment",
        lambda: (
            (
                r := requests.get(
                    b.url + f"experiment/{eid}", headers={"Accept": "text/turtle"}, timeout=30
                )
            ).status_code
            == 200
            and r
        ),
        timeout=10,
    )
    assert f"<{BASE}experiment/{eid}>" in turtle.text or f"experiment/{eid}" in turtle.text
    listed = until(
        "B's listing",
        lambda: [
            e
            for e in requests.get(b.url + "api/experiments", timeout=30).json()["experiments"]
            if e["id"] == eid
        ],
        timeout=10,
    )
    assert listed
    # B's cached answer to the same query follows A's write (its change watcher, ~1 s)
    until(
        "B's SPARQL answer",
        lambda: requests.get(b.url + "sparql", params={"query": ask}, timeout=30).json()["boolean"],
        timeout=10,
    )
    # the data is in the remote store itself
    count = f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"
    assert int(pair.public.query(count)[0]["n"]) > 100
    assert int(pair.private.query(count)[0]["n"]) == 0
    # the uploaded dataset, kept by A while it recorded the run, is downloaded from B: kept
    # in the private dataset, not in A's work directory
    sha = hashlib.sha256(QUESTIONS).hexdigest()
    download = requests.get(b.url + f"experiment/{eid}/file/{sha}", timeout=30)
    assert download.status_code == 200 and download.content == QUESTIONS
    assert not list((pair.work_dir / "a").rglob(sha))  # nothing of it on A's disk
    # the job's state is gone with the record: no job graph is left in the private dataset
    jobs = f'ASK {{ GRAPH ?g {{ ?s ?p ?o }} FILTER(STRSTARTS(STR(?g), "{WORK}jobs/")) }}'
    assert not pair.private.ask(jobs)


def test_a_dead_replicas_run_is_taken_over(replicas: tuple[Served, Served], qa: CountingQA) -> None:
    a, b = replicas
    ticket = submit(a, qa, "orphan", 0.3)
    until("some answers", lambda: sum(qa.of("orphan").values()) >= 8)
    a.kill()
    killed_at = time.monotonic()
    asked_by_a = sum(qa.of("orphan").values())
    state = until("B to finish A's run", lambda: finished(b, ticket), timeout=90)
    took = time.monotonic() - killed_at
    asked = qa.of("orphan")
    assert len(asked) == question_count()  # every question answered, by A or by B
    # asked twice: at most the calls A had in flight (4 per system by default), whose
    # answers it never logged
    again = sum(asked.values()) - question_count()
    assert again <= IN_FLIGHT, asked
    metrics = _metrics(b)  # what B's operator sees
    assert metrics["gerbil_qa_runs_taken_over_total"] == 1
    assert metrics["gerbil_qa_claims_holding"] == 1
    record(
        "replicas-takeover",
        asked_by_a=asked_by_a,
        asked_again=again,
        seconds_to_finish_after_kill=round(took, 1),
        lease_s=LEASE,
        status=state["status"],
    )


def test_a_replica_stopped_for_a_deploy_hands_its_run_over(
    replicas: tuple[Served, Served], qa: CountingQA
) -> None:
    """SIGTERM (a rolling deploy) during a run: A stops asking and releases the run, which B
    takes over at once (not after the lease) and finishes; nothing is cancelled or lost."""
    a, b = replicas
    ticket = submit(a, qa, "handed", 0.3)
    until("some answers", lambda: sum(qa.of("handed").values()) >= IN_FLIGHT)
    a.stop()  # SIGTERM, waits for the process to end
    assert a.process.returncode == 0
    stopped_at = time.monotonic()
    state = until("B to finish A's run", lambda: finished(b, ticket), timeout=90)
    took = time.monotonic() - stopped_at
    asked = qa.of("handed")
    assert len(asked) == question_count()
    assert sum(asked.values()) - question_count() <= IN_FLIGHT, (
        asked
    )  # A's calls in flight, at most
    record("replicas-handover", seconds_to_finish_after_stop=round(took, 1), status=state["status"])


def test_a_paused_replica_does_not_go_on_with_a_run_taken_over(
    deployment: tuple[RemotePair, dict[str, str]],
    replicas: tuple[Served, Served],
    qa: CountingQA,
) -> None:
    """A stopped for longer than the lease (a VM or GC pause, a partition) while running: B
    takes the run over and finishes it; A, resumed, must see that its claim lapsed and stop
    (no more questions asked, no second record, no status written over B's)."""
    pair, _ = deployment
    a, b = replicas
    ticket = submit(a, qa, "paused", 1.0)
    until("some answers", lambda: sum(qa.of("paused").values()) >= IN_FLIGHT)
    pause(a.process.pid)
    try:
        until("B to finish A's run", lambda: finished(b, ticket), timeout=90)
        asked_before = sum(qa.of("paused").values())
    finally:
        resume(a.process.pid)
    time.sleep(3 * LEASE)  # what A would ask, write or record after it woke up
    again = sum(qa.of("paused").values()) - asked_before
    assert again == 0, f"A asked {again} more questions after its claim lapsed"
    for replica in (a, b):  # finished, as B recorded it: no error or second record over it
        assert run_status(replica, ticket)["status"] == "finished"
    graph = f"{BASE}graph/experiment/{ticket['id']}"
    macro_f1 = "<http://w3id.org/gerbil/vocab#macroF1>"
    [row] = pair.private.query(
        f"SELECT (COUNT(?f) AS ?values) (COUNT(DISTINCT ?t) AS ?tasks) "
        f"WHERE {{ GRAPH <{graph}> {{ ?t {macro_f1} ?f }} }}"
    )
    assert int(row["tasks"]) > 0
    # one record: one macro F1 a task (two records of one experiment would give two)
    assert row["values"] == row["tasks"], row
    record("replicas-paused", asked_after_waking=again, lease_s=LEASE)


def test_health_says_when_a_replica_cannot_serve(
    deployment: tuple[RemotePair, dict[str, str]], replicas: tuple[Served, Served]
) -> None:
    """What the proxy in front of the replicas probes: ready while both datasets answer, 503
    within the probe's time limit while the private one hangs, ready again after."""
    pair, _ = deployment
    a, _ = replicas
    ready = requests.get(a.url + "health", timeout=30)
    assert ready.status_code == 200, ready.text
    checks = ready.json()["checks"]
    assert set(checks) - {"diskSpace"} == {  # the disk of its local directory, if any
        "publicStore",
        "privateStore",
        "sparqlWorkers",
        "replicaChanges",
        "claims",
        "sharedGraphs",
    }
    assert all(check["ok"] for check in checks.values()), checks
    # both replicas of this release: the shared vocabulary and catalogue are theirs
    assert checks["sharedGraphs"] == {"ok": True, "thisRelease": True, "said": []}
    assert pair.private.url not in ready.text  # no internal address on a public route
    pause(pair.private.process.pid)  # the private store hangs (every thread stopped)
    try:
        started = time.monotonic()
        hung = requests.get(a.url + "health", timeout=30)
        took = time.monotonic() - started
        assert hung.status_code == 503, hung.text
        assert hung.json()["status"] == "unavailable"
        assert hung.json()["checks"]["privateStore"]["ok"] is False
        assert hung.json()["checks"]["publicStore"]["ok"] is True
        assert took < 10, took  # the probe's own limit, not the store's 60 s
    finally:
        resume(pair.private.process.pid)
    until("ready again", lambda: requests.get(a.url + "health", timeout=30).status_code == 200)


def test_runs_submitted_to_both_replicas_each_run_once(
    replicas: tuple[Served, Served], qa: CountingQA
) -> None:
    tickets: list[tuple[str, dict[str, str]]] = []
    lock = threading.Lock()

    def submit_one(i: int) -> None:
        run = f"many{i}"
        ticket = submit(replicas[i % 2], qa, run, 0.02)
        with lock:
            tickets.append((run, ticket))

    threads = [threading.Thread(target=submit_one, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = {ticket["id"] for _, ticket in tickets}
    assert len(ids) == 6  # ids allocated by the store: never the same twice
    for run, ticket in tickets:
        until(f"{run} to finish", lambda t=ticket: finished(replicas[0], t), timeout=120)
        asked = qa.of(run)
        assert len(asked) == question_count() and set(asked.values()) == {1}, (run, asked)
    record("replicas-exactly-once", runs=6, questions=6 * question_count(), asked_twice=0)


def test_replicas_started_at_once_on_a_new_store_compute_one_demo(
    deployment: tuple[RemotePair, dict[str, str]],
) -> None:
    pair, env = deployment
    with ThreadPoolExecutor(2) as pool:  # both start, and wait for the demo, at once
        started = list(
            pool.map(
                lambda name: Served(
                    pair.url,
                    demo=True,
                    base=BASE,
                    **{**env, "GERBIL_QA_WORK_DIR": str(pair.work_dir / name)},
                ),
                ("a", "b"),
            )
        )
    try:
        for replica in started:
            listed = requests.get(replica.url + "api/experiments", timeout=30).json()
            assert len(listed["experiments"]) == 1, listed
    finally:
        for replica in started:
            replica.stop()


def _reserve(url: str, env: dict[str, str], count: int, out: Any) -> None:
    import os

    os.environ.update(env)
    from service.graph.store import open_storage

    with open_storage(url, catalog=False) as storage:
        out.put([storage.experiments.reserve().id for _ in range(count)])


def test_ids_given_out_by_three_processes_at_once_are_never_the_same(
    deployment: tuple[RemotePair, dict[str, str]],
) -> None:
    """Oxigraph's server isolates updates by snapshot: two conditional inserts of the same id
    both commit (6 duplicates in 90 before ids were claimed). Claimed, none."""
    import multiprocessing

    from service.graph.store import open_storage
    from tests.remote import environment

    pair, env = deployment
    with environment(env):
        open_storage(pair.url).close()
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    workers = [context.Process(target=_reserve, args=(pair.url, env, 15, out)) for _ in range(3)]
    for worker in workers:
        worker.start()
    ids = [eid for _ in workers for eid in out.get(timeout=120)]
    for worker in workers:
        worker.join(30)
    assert len(ids) == 45 and len(set(ids)) == 45, sorted(ids)
    doubled = pair.private.query(
        "SELECT ?e WHERE { GRAPH ?g { ?e <http://w3id.org/gerbil/qa/vocab#ownerTokenHash> ?h } }"
        " GROUP BY ?e HAVING (COUNT(?h) > 1)"
    )
    assert doubled == []
    record("replicas-unique-ids", processes=3, ids=len(ids), duplicates=45 - len(set(ids)))


def test_a_writer_dead_after_its_write_leaves_a_pending_token_the_replicas_outlive(
    deployment: tuple[RemotePair, dict[str, str]],
) -> None:
    """The writer's death between its public write and its second token, emulated by the
    write without the second token (a kill cannot be aimed between two requests), on the real
    servers; B's watcher is the one `serve` runs, with a short limit."""
    import pyoxigraph as ox

    from service.graph.adapter import Side
    from service.graph.remote import PENDING
    from service.graph.store import open_storage
    from service.web.replicas import ChangeWatcher
    from tests.remote import environment

    pair, env = deployment
    quad = ox.Quad(ox.NamedNode(BASE + "x"), ox.NamedNode(BASE + "p"), ox.Literal("1"))
    with (
        environment(env),
        open_storage(pair.url, base=BASE) as a,
        open_storage(pair.url, base=BASE) as b,
    ):
        drops: list[float] = []
        watcher = ChangeWatcher(b, on_change=lambda: drops.append(1), pending_limit=0.5)
        own = ChangeWatcher(a, on_change=lambda: drops.append(-1))
        a.store._changing(Side.PUBLIC)
        a.store.public.update(f"INSERT DATA {{ {quad} }}")  # ... and the writer is gone
        assert (a.store.change_token() or "").startswith(PENDING)
        assert watcher.check() and len(drops) == 1  # seen: dropped at once
        assert not watcher.check() and len(drops) == 1  # the same pending token: kept
        time.sleep(0.6)
        assert watcher.check() and len(drops) == 2  # older than the limit: dropped again
        assert not watcher.check() and len(drops) == 2  # and then left alone
        # a whole write: B drops its caches once; the writer's own watcher never
        a.store.add(Side.PUBLIC, [ox.Quad(quad.subject, quad.predicate, ox.Literal("2"))])
        assert not (a.store.change_token() or "").startswith(PENDING)
        assert watcher.check() and len(drops) == 3
        time.sleep(0.6)
        assert not watcher.check() and len(drops) == 3
        assert not own.check() and -1 not in drops
