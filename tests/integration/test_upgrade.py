"""A store the version before the application layer (up to 2026-11-21) wrote, opened by this
one: what an operator upgrading in place meets. The old state is written here as that version
wrote it (its files and triples), not produced by running it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.errors import Conflict
from service.experiments.runner import ExperimentRunner
from service.graph.experiments import Status
from service.graph.store import open_storage


def _legacy_job(store: Path, experiment_id: str) -> None:
    """The job an older version saved for a web-service run it was asking when it stopped:
    one ``job.json`` (its dataset parsed inline, uploads only named) and the answers log."""
    folder = store / "jobs" / experiment_id
    (folder / "answers").mkdir(parents=True)
    job = {"__type__": "ExperimentJob", "experiment_id": experiment_id, "profile": "fair"}
    (folder / "job.json").write_text(json.dumps(job), encoding="utf-8")
    (folder / "answers" / "0.jsonl").write_text('{"question_id": "1"}\n', encoding="utf-8")


def test_a_run_an_older_version_left_says_why_it_cannot_resume(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with open_storage(store, catalog=False) as storage:
        experiments = storage.experiments
        old = experiments.reserve()
        experiments.set_status(old.id, "queued")
        experiments.set_status(old.id, "running")  # the old server was stopped mid-run
        _legacy_job(store, old.id)
        runner = ExperimentRunner(storage, workers=1)  # the upgraded server's start
        try:
            status = experiments.status(old.id)
            assert status.status is Status.ERROR
            # not "the submission did not complete": it did, under the older version
            assert status.message is not None
            assert "older version" in status.message and "job.json" in status.message
            assert "submit it again" in status.message
            with pytest.raises(Conflict, match=r"older version .* submit it again"):
                runner.resume(old.id)
        finally:
            runner.close()
