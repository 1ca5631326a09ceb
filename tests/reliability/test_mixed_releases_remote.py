"""Replicas of two releases on one remote store (a rolling upgrade, a rollback; explore50 F3): an
older replica took over a run a newer one had started and ended it ``error`` ("stored
SystemAnswer has fields this version does not know"). A job records the schema and release that
wrote it (``jobs/{id}/schema``); a replica leaves a run a newer schema wrote to a replica of
that release, saying why, and a run whose saved state it cannot read ends ``interrupted``
(resumable where it can be read), never ``error``. The newer release is faked by writing the
store directly, as it would have."""

from __future__ import annotations

import json
import logging
import time

import pytest

from service.errors import Conflict
from service.experiments.jobs import JOB_SCHEMA, JobStore
from service.experiments.runner import ExperimentRunner
from service.graph.claims import ENV_LEASE
from service.graph.experiments import Status
from service.graph.store import Storage
from service.systems.safety import NetworkPolicy
from tests.reliability.runs import QUESTIONS
from tests.remote import environment

LEASE = 1.5


@pytest.fixture()
def storage(remote_storage: Storage) -> Storage:
    return remote_storage


def _orphan(storage: Storage) -> tuple[str, JobStore]:
    """A web-service run queued by a replica that died before claiming it."""
    from service.experiments.asked import WebService
    from service.experiments.spec import ExperimentSpec, FileDataset, FileRef

    dataset = FileRef.upload("q.json", QUESTIONS)
    spec = ExperimentSpec(FileDataset(dataset), (WebService("local", "http://127.0.0.1:9/qa"),))
    assert storage.workspace is not None
    jobs = JobStore(storage.workspace)
    ticket = storage.experiments.reserve()
    jobs.create(ticket.id, spec, {dataset.sha256 or "": QUESTIONS})
    storage.experiments.set_status(ticket.id, Status.QUEUED)
    time.sleep(LEASE * 1.3)  # its replica is gone
    return ticket.id, jobs


def _replica(storage: Storage) -> ExperimentRunner:
    with environment({ENV_LEASE: str(LEASE)}):
        return ExperimentRunner(
            storage, workers=1, policy=NetworkPolicy.allowing("127.0.0.1/32"), recover=False
        )


def test_a_replica_leaves_a_run_a_newer_release_wrote_to_that_release(
    storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    eid, _ = _orphan(storage)
    assert storage.workspace is not None
    storage.workspace.write({f"jobs/{eid}/schema": f"{JOB_SCHEMA + 1} 9.9.9\n".encode()})
    replica = _replica(storage)
    try:
        with caplog.at_level(logging.WARNING, logger="service.experiments.runner"):
            assert replica.take_over() == []
        assert storage.experiments.status(eid).status is Status.QUEUED  # not ended, not run
        assert not replica.claims.claimed(storage.uris.experiment(eid))
        said = [r.getMessage() for r in caplog.records if eid in r.getMessage()]
        assert said and "its job was written by gerbil-qa 9.9.9" in said[0], said
        assert "a replica of that release or a newer one takes it over" in said[0]
        # interrupted (a shutdown of the newer replica), its owner's resume here says why
        storage.experiments.set_status(eid, Status.INTERRUPTED, message="a shutdown")
        with pytest.raises(Conflict, match="cannot be resumed here: its job was written by"):
            replica.resume(eid)
    finally:
        replica.close()


def test_a_run_whose_saved_answers_it_cannot_read_is_left_interrupted(storage: Storage) -> None:
    eid, jobs = _orphan(storage)
    assert storage.workspace is not None
    # what a newer release logged of an answer: a field this one does not know (as
    # ``rewrites`` was to the releases before 2026-11-28), its job not marked (older releases)
    storage.workspace.remove_key(f"jobs/{eid}/schema")
    line = {"__type__": "SystemAnswer", "question_id": "1", "hops": 2}
    key = f"jobs/{eid}/answers/0.jsonl"
    storage.workspace.append(key, json.dumps(line), if_exists=f"jobs/{eid}/spec.json")
    replica = _replica(storage)
    try:
        deadline = time.monotonic() + 30
        while (status := storage.experiments.status(eid)).status.active:
            assert time.monotonic() < deadline, status
            replica.take_over()
            time.sleep(0.2)
    finally:
        replica.close()
    assert status.status is Status.INTERRUPTED, status  # resumable, not error
    message = status.message or ""
    assert "stored SystemAnswer has fields this version does not know: {'hops'}" in message
    assert "a newer release wrote it" in message
    assert "resume it on a replica of that release or a newer one (gerbil-qa resume" in message
    assert jobs.has(eid)  # its answers kept for the release that can read them


def _as_another_release_left_it(storage: Storage, version: str) -> None:
    """What a replica of release ``version`` does when it starts on the store: its version in
    the store's marker, its own vocabulary (its content hash) in place of this one's."""
    from service.graph.adapter import Side
    from service.graph.dumps import STORE_MARKER, WRITTEN_BY
    from service.graph.terms import GQA

    admin, vocab = storage.uris.admin_graph, storage.uris.vocab_graph
    storage.store.update(
        Side.PRIVATE,
        f"DELETE WHERE {{ <{STORE_MARKER}> <{WRITTEN_BY}> ?v }} ; "
        f'INSERT DATA {{ <{STORE_MARKER}> <{WRITTEN_BY}> "{version}" }} ; '
        f"DELETE WHERE {{ GRAPH <{admin}> {{ <{vocab}> <{GQA}contentHash> ?h }} }} ; "
        f'INSERT DATA {{ GRAPH <{admin}> {{ <{vocab}> <{GQA}contentHash> "older" }} }}',
    )


def test_replicas_say_when_another_release_replaced_the_shared_vocabulary(
    storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    """A rolling upgrade: each replica puts its release's vocabulary in the shared store when it
    starts, silently (the new replica's /vocab said profile versions it does not score
    under, explore50 F2). The running replica says so, once, and in /health's checks; the
    replica that starts says whose it replaced."""
    from service import release
    from service.graph.store import open_storage
    from tests.remote import environment

    ours = release.source().version
    replica = _replica(storage)  # started when the vocabulary was its own
    try:
        assert replica.check_shared_graphs() == []
        _as_another_release_left_it(storage, "0.0.9")  # an older replica (re)started
        with caplog.at_level(logging.WARNING):
            found = replica.check_shared_graphs()
            replica.check_shared_graphs()  # said once
        vocab = f"the vocabulary (<{storage.uris.vocab_graph}>)"
        assert found == [f"{vocab} is gerbil-qa 0.0.9's, not this release's ({ours})"]
        assert replica.foreign_graphs == found
        said = [r.getMessage() for r in caplog.records if "gerbil-qa 0.0.9's" in r.getMessage()]
        assert len(said) == 1 and "upgrade every replica together" in said[0], said
    finally:
        replica.close()
    caplog.clear()
    with (
        caplog.at_level(logging.WARNING, logger="service.graph.catalogue"),
        environment({ENV_LEASE: str(LEASE)}),
        open_storage(
            str(storage.store.location), base=storage.uris.base, catalog=False
        ) as restarted,
    ):  # this release's replica restarts: its vocabulary back, whose it replaced said
        assert restarted.catalogue.foreign_graphs() == []
    said = [r.getMessage() for r in caplog.records]
    assert said and f"{vocab} on this shared store was gerbil-qa 0.0.9's" in said[0], said
    assert f"this release ({ours}) replaced it with its own" in said[0]
