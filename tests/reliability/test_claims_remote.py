"""Claims on a real Oxigraph server when their runner pauses past the lease (issue 14: a run is
executed once): the runner that wakes up writes nothing over the runner that took its work over.

- a record whose claim lapsed lands nothing (its write is conditional on the claim), and the
  runner that claimed after it records;
- a heartbeat renewed after the lease does not revive the lapsed claims: the runner goes on
  under a new name, and the claim stays with the runner that took it;
- a claimer idle past its hold (the id reservations' claims beat only when they claim) names
  its claim after the name it goes on under, so releasing it removes it: a claim named after
  the lapsed name stayed live for a lease and the run's own claim on the new experiment lost
  to it (every submission to a replica idle for 24 s stayed queued);
- a run a replica queued and never claimed (it died first) is taken over and finishes: the
  take-over resumed only interrupted runs, so it refused a queued one every round, for ever;
- on the embedded store no one shares, claims hold and add no condition.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from service.experiments.runner import ExperimentRunner
from service.graph.claims import ENV_LEASE, Claims
from service.graph.experiments import ClaimLapsed, Status
from service.graph.results import DatasetRef
from service.graph.store import Storage, open_storage
from tests.integration.test_graph_store import _dataset, _evaluation
from tests.reliability.runs import queued_demo_job
from tests.remote import environment

# short, so that the tests can wait it out; long enough for a record on a loaded CI machine
LEASE = 1.5


@pytest.fixture()
def storage(remote_storage: Storage) -> Storage:
    return remote_storage


def _claims(storage: Storage, owner: str) -> Claims:
    return Claims(storage.store, storage.uris, owner=owner, lease=LEASE, settle=0.05)


def _lapse() -> None:
    time.sleep(LEASE * 1.3)  # the first runner is paused: no heartbeat for longer than the lease


def test_a_record_after_the_claim_lapsed_writes_nothing(storage: Storage) -> None:
    dataset = _dataset()
    ticket = storage.experiments.reserve()
    a, b = _claims(storage, "a"), _claims(storage, "b")
    assert a.claim(ticket.uri)
    held_by_a = a.hold(ticket.uri)
    assert held_by_a.holding()
    _lapse()
    assert not held_by_a.holding()  # A knows it on waking, before asking the store
    assert b.claim(ticket.uri)  # B takes the experiment over
    record = {"dataset": DatasetRef.upload("tiny", dataset), "ticket": ticket}
    with pytest.raises(ClaimLapsed):
        storage.experiments.record([_evaluation(dataset, system="A")], **record, hold=held_by_a)
    assert storage.experiments.status(ticket.id).status is Status.RESERVED
    assert storage.experiments.quads(ticket.id) == []  # nothing of A's record landed
    b.beat()  # B is alive and beats (every lease/3): its claim outlives A's failed write
    storage.experiments.record(
        [_evaluation(dataset, system="B")], **record, hold=b.hold(ticket.uri)
    )
    assert storage.experiments.status(ticket.id).status is Status.FINISHED
    systems = {
        q.object.value
        for q in storage.experiments.quads(ticket.id)
        if q.predicate.value == "http://w3id.org/gerbil/vocab#annotator"
    }
    assert systems and all(system.endswith("/B") for system in systems), systems


def test_a_late_heartbeat_does_not_revive_lapsed_claims(storage: Storage) -> None:
    subject = storage.uris.experiment("202601010001")
    a, b = _claims(storage, "a"), _claims(storage, "b")
    assert a.claim(subject)
    held_by_a = a.hold(subject)
    _lapse()
    assert b.claim(subject)
    # A's beat sent before the lease ran out and landing after it: A's own clock says its
    # claims are live, the store's heartbeat has lapsed
    a._beat_sent = time.monotonic()
    a.beat()
    assert a.generation == 1 and a.holding()  # A goes on under a new name ...
    assert not held_by_a.holding()  # ... its old claim is not held
    assert b.holder(subject) == b.runner[1:-1]  # ... and B keeps the experiment
    assert not a.claim(subject)  # nor can A's new name take it while B beats


def test_a_claim_after_an_idle_lapse_is_released_whole(storage: Storage) -> None:
    ids, runner = _claims(storage, "ids"), _claims(storage, "runner")
    assert ids.claim(storage.uris.experiment("202601010001"))
    _lapse()  # idle: no beat between two reservations
    subject = storage.uris.experiment("202601010002")
    assert ids.claim(subject)
    assert ids.generation == 1  # it went on under a new name ...
    ids.release(subject)
    assert not ids.claimed(subject)  # ... and its claim went with the release
    assert runner.claim(subject)  # the run claims its new experiment at once


def test_a_run_queued_by_a_replica_that_died_before_claiming_it_is_taken_over(
    storage: Storage,
) -> None:
    experiments = storage.experiments
    queued, _ = queued_demo_job(storage)
    _lapse()  # the replica died: no one claims it for the lease
    with environment({ENV_LEASE: str(LEASE)}):
        runner = ExperimentRunner(storage, workers=1)  # another replica: it takes runs over
    try:
        deadline = time.monotonic() + 30
        while experiments.status(queued).status is not Status.FINISHED:
            assert time.monotonic() < deadline, experiments.status(queued)
            time.sleep(0.2)
        assert runner.taken_over == 1
    finally:
        runner.close()


def test_the_embedded_store_adds_no_condition(tmp_path: Path) -> None:
    with open_storage(tmp_path / "store", catalog=False) as embedded:
        claims = Claims(embedded.store, embedded.uris, lease=LEASE)
        subject = embedded.uris.experiment("202601010001")
        assert claims.claim(subject)
        hold = claims.hold(subject)
        _lapse()
        assert hold.holding() and hold.pattern() is None


def test_a_replica_that_may_not_reach_a_runs_service_leaves_it_to_another(
    storage: Storage,
) -> None:
    """A replica started without the others' GERBIL_QA_ALLOW_NETWORKS took a dead replica's run
    over and ended it ``error`` at once, telling its submitter to change a server setting
    (explore-12 9): it leaves the run to a replica that may ask its service."""
    from service.experiments.asked import WebService
    from service.experiments.jobs import JobStore
    from service.experiments.spec import ExperimentSpec, FileDataset, FileRef
    from service.systems.safety import NetworkPolicy
    from tests.reliability.runs import QUESTIONS

    dataset = FileRef.upload("q.json", QUESTIONS)
    spec = ExperimentSpec(FileDataset(dataset), (WebService("local", "http://127.0.0.1:9/qa"),))
    assert storage.workspace is not None
    ticket = storage.experiments.reserve()
    JobStore(storage.workspace).create(ticket.id, spec, {dataset.sha256 or "": QUESTIONS})
    storage.experiments.set_status(ticket.id, Status.QUEUED)
    _lapse()  # the replica that queued it died before claiming it
    with environment({ENV_LEASE: str(LEASE)}):
        strict = ExperimentRunner(
            storage, workers=1, policy=NetworkPolicy.from_env(), recover=False
        )
    try:
        assert strict.take_over() == []  # its policy refuses 127.0.0.1: left, not failed
        assert storage.experiments.status(ticket.id).status is Status.QUEUED
        assert not strict.claims.claimed(ticket.uri)
    finally:
        strict.close()
    with environment({ENV_LEASE: str(LEASE)}):
        allowing = NetworkPolicy.allowing("127.0.0.1/32")
        other = ExperimentRunner(storage, workers=1, policy=allowing, recover=False)
    try:
        deadline = time.monotonic() + 30  # a replica that may ask it takes it (its own
        while other.taken_over < 1:  # take-over round, or this one)
            assert time.monotonic() < deadline, storage.experiments.status(ticket.id)
            other.take_over()
            time.sleep(0.2)
    finally:
        other.close()
