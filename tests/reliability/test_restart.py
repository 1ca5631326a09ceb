"""A restart of ``gerbil-qa serve`` on an embedded store resumes the runs it stopped: killed
(SIGKILL) or stopped for a deploy (SIGTERM) during a web-service run, the next start finishes the
run without anyone resuming it, never shows it ``interrupted`` to a poller, and asks again at
most the calls that were in flight; ``serve --no-resume`` (``GERBIL_QA_RESUME_RUNS=0``) leaves
it interrupted for its owner. Before, every such run stayed ``interrupted`` until resumed by
hand."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from tests.reliability.figures import Served, record
from tests.reliability.runs import (
    IN_FLIGHT,
    CountingQA,
    finished,
    question_count,
    run_status,
    submit,
    until,
)

ENV = {"GERBIL_QA_ALLOW_NETWORKS": "127.0.0.1/32"}  # the QA service runs on loopback
BASE = "http://gerbil-qa.test/"  # one base across the restarts (each start gets a new port)


def _stopped_mid_run(store: Path, qa: CountingQA, run: str, how: str) -> dict[str, str]:
    """Submit a run on a fresh server, then stop it (``kill`` or ``stop``) once some answers
    are in and before the last."""
    log = store.parent / f"serve-{run}.log"
    served = Served(store, base=BASE, output=log, **ENV)
    try:
        ticket = submit(served, qa, run, 0.4)
        until("some answers", lambda: sum(qa.of(run).values()) > IN_FLIGHT)
        getattr(served, how)()
    finally:
        served.stop()
    assert len(qa.of(run)) < question_count()  # stopped before the end
    said = log.read_text()
    if how == "stop":  # a clean stop is in the log, its runs named (explore26 F7)
        assert f"stopping: 1 running experiment(s) handed over ({ticket['id']})" in said, said
        assert "shutting down (signal SIGTERM)" in said and said.rstrip().endswith("stopped")
    else:
        assert "shutting down" not in said  # a kill leaves nothing: told apart
    return ticket


@pytest.mark.parametrize("how", ["kill", "stop"])
def test_a_restart_finishes_the_run_it_stopped(tmp_path: Path, qa: CountingQA, how: str) -> None:
    store = tmp_path / "store"
    ticket = _stopped_mid_run(store, qa, how, how)
    served = Served(store, base=BASE, **ENV)
    try:
        first = run_status(served, ticket)  # the first answer after the start
        assert first["status"] in ("queued", "running", "finished"), first
        until("the run to finish", lambda: finished(served, ticket), timeout=120)
    finally:
        served.stop()
    asked = qa.of(how)
    assert len(asked) == question_count()
    again = sum(asked.values()) - question_count()
    assert again <= (IN_FLIGHT if how == "kill" else 0), asked  # a kill loses the calls in flight
    record(f"restart-resumes-{how}", asked_again=again, first_status=first["status"])


def test_a_service_started_with_no_resume_leaves_the_run_to_its_owner(
    tmp_path: Path, qa: CountingQA
) -> None:
    store = tmp_path / "store"
    ticket = _stopped_mid_run(store, qa, "left", "kill")
    served = Served(store, base=BASE, options=("--no-resume",), **ENV)
    try:
        state = run_status(served, ticket)
        assert state["status"] == "interrupted", state
        assert "interrupted by a restart" in state["message"]
        resumed = requests.post(
            f"{served.url}api/experiments/{ticket['id']}/resume",
            headers={"Authorization": f"Bearer {ticket['token']}"},
            timeout=30,
        )
        assert resumed.status_code in (200, 202), resumed.text
        until("the run to finish", lambda: finished(served, ticket), timeout=120)
    finally:
        served.stop()
    assert len(qa.of("left")) == question_count()


@pytest.mark.parametrize(("how", "deaths"), [("kill", 1), ("deploy", 0)])
def test_a_kill_during_a_deploys_hand_over_is_no_death_of_the_run(
    tmp_path: Path, qa: CountingQA, how: str, deaths: int
) -> None:
    """A deploy sends SIGTERM, then SIGKILL once its grace period ends (Docker: 10 s), maybe
    while the calls in flight still run (a model may take a minute): the run was counted as
    having killed its process, and three deploys ended it ``error``. A kill alone still
    counts."""
    import time

    from service.experiments.jobs import JobStore
    from service.graph.store import open_storage

    store = tmp_path / "store"
    served = Served(store, base=BASE, **ENV)
    try:
        ticket = submit(served, qa, how, 3.0)  # each call takes 3 s: the hand-over waits
        until("some answers", lambda: sum(qa.of(how).values()) > IN_FLIGHT, timeout=60)
        if how == "deploy":
            served.process.terminate()
            time.sleep(1.0)  # the grace period ends before the calls in flight
        served.kill()
    finally:
        served.stop()
    again = Served(store, base=BASE, options=("--no-resume",), **ENV)
    try:
        assert run_status(again, ticket)["status"] == "interrupted"
    finally:
        again.stop()
    with open_storage(store, base=None, catalog=False) as storage:  # the store's own base
        assert storage.workspace is not None
        assert JobStore(storage.workspace).restarts(ticket["id"]) == deaths
