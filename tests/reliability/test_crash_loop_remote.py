"""A run that kills its runner does not take the replicas down one after another (issue 14,
several replicas on one remote store, a real Oxigraph server).

A replica takes over a run whose runner stopped. When that runner *died* in it (its claim is
still in the store, never released), the take-over counts a death, as a start of the embedded
service does; past ``MAX_RESTARTS`` deaths the run ends as ``error`` instead of being run again.
A run left on purpose (a shutdown hands it over, its claim released) counts none.
"""

from __future__ import annotations

import threading
import time

import pytest

from service.experiments.runner import MAX_RESTARTS, ExperimentRunner
from service.graph.claims import ENV_LEASE, Claims
from service.graph.experiments import Status
from service.graph.store import Storage
from tests.reliability.runs import queued_demo_job
from tests.remote import environment

LEASE = 1.0


@pytest.fixture()
def storage(remote_storage: Storage) -> Storage:
    return remote_storage


def _running_job(storage: Storage, *, earlier_deaths: int, died: bool) -> str:
    """A run left ``running`` by a runner that is gone: dead (its claim left behind) or shut
    down (claim released), after ``earlier_deaths`` deaths of its process in it."""
    eid, jobs = queued_demo_job(storage)
    for _ in range(earlier_deaths):
        jobs.count_restart(eid)
    gone = Claims(storage.store, storage.uris, owner="gone", lease=LEASE, settle=0.05)
    uri = storage.uris.experiment(eid)
    assert gone.claim(uri)
    storage.experiments.set_status(eid, Status.RUNNING, progress="asking")
    if not died:
        gone.release(uri)  # what a shutdown's hand-over does
    time.sleep(LEASE * 1.3)  # its heartbeat lapses: the runner is gone
    return eid


def _taken_over(storage: Storage, eid: str) -> tuple[Status, str | None, int]:
    with environment({ENV_LEASE: str(LEASE)}):
        runner = ExperimentRunner(storage, workers=1)  # another replica
    try:
        deadline = time.monotonic() + 30
        while (status := storage.experiments.status(eid)).status.active:
            assert time.monotonic() < deadline, status
            time.sleep(0.2)
        return status.status, status.message, runner.taken_over
    finally:
        runner.close()


def test_a_run_its_runners_died_in_too_often_ends_as_error(storage: Storage) -> None:
    eid = _running_job(storage, earlier_deaths=MAX_RESTARTS, died=True)
    status, message, taken = _taken_over(storage, eid)
    assert status is Status.ERROR
    assert message is not None and f"stopped {MAX_RESTARTS + 1} times" in message
    assert "resume it to try again" in message
    assert taken == 0  # not run again


@pytest.mark.parametrize(
    ("earlier_deaths", "died"),
    [(MAX_RESTARTS - 1, True), (MAX_RESTARTS, False)],
    ids=["a-death-within-the-bound", "handed-over-counts-no-death"],
)
def test_a_run_within_the_bound_is_taken_over_and_finishes(
    storage: Storage, earlier_deaths: int, died: bool
) -> None:
    eid = _running_job(storage, earlier_deaths=earlier_deaths, died=died)
    status, message, taken = _taken_over(storage, eid)
    assert (status, taken) == (Status.FINISHED, 1), message


def test_two_replicas_racing_for_a_dead_run_count_one_death(storage: Storage) -> None:
    """Both replicas see the orphan at once: one claims it and counts the death, the other
    leaves it. Counted twice, a run one death within the bound would end as error; taken
    twice, it would be run twice."""
    eid = _running_job(storage, earlier_deaths=MAX_RESTARTS - 1, died=True)
    replicas: list[ExperimentRunner] = []
    ready = threading.Barrier(2)

    def start() -> None:  # the two take-overs as close together as threads can make them
        ready.wait()
        replicas.append(ExperimentRunner(storage, workers=1))

    with environment({ENV_LEASE: str(LEASE)}):
        starting = [threading.Thread(target=start) for _ in range(2)]
        for thread in starting:
            thread.start()
        for thread in starting:
            thread.join(30)
    assert len(replicas) == 2
    try:
        deadline = time.monotonic() + 30
        while (status := storage.experiments.status(eid)).status.active:
            assert time.monotonic() < deadline, status
            time.sleep(0.2)
        assert status.status is Status.FINISHED, status.message
        assert sum(r.taken_over for r in replicas) == 1
    finally:
        for replica in replicas:
            replica.close()
