"""A published revision replaces the leaderboard rows of its own lines only (system, dataset,
experiment type, language, profile). Before, it replaced its experiment as a whole under the
profile: a resubmission of one of an experiment's two systems took the other's row out of every
leaderboard, count and listing too, though nothing replaced it. On a real store: experiments
recorded through the service's writer, published, read with the published queries."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from service import formats
from service.evaluation import evaluate
from service.graph.queries import leaderboard_counts_query, leaderboard_query
from service.graph.results import DatasetRef
from service.model import system_run
from service.paths import DEMO_DIR
from tests.helpers import register_ck25_version

QUESTIONS = formats.read(DEMO_DIR / "questions.json")


@pytest.fixture
def storage(tmp_path: Path) -> Iterator:
    from service.graph.store import open_storage

    opened = open_storage(tmp_path / "store")
    yield opened
    opened.close()


def _publish(storage, answers: dict[str, str], *, on: str = "demo", **kw) -> str:
    """Record and publish a run of ``answers`` (system name -> demo answers file) on ``on``."""
    runs = [
        evaluate(
            QUESTIONS,
            system_run(formats.read(DEMO_DIR / f"answers-{file}.json"), system=name),
            profile=kw.get("profile", "fair"),
            experiment_types=("QA",),
        )
        for name, file in answers.items()
    ]
    ticket = storage.experiments.record(
        runs, dataset=DatasetRef.upload(on, QUESTIONS), revision_of=kw.get("revision_of")
    )
    storage.experiments.publish(ticket.id)
    return ticket.id


def _rows(storage) -> set[tuple[str, str]]:
    """(experiment id, system name) of every QA leaderboard row."""
    found = storage.public.query(leaderboard_query(experiment_type="QA"))
    return {
        (r["experiment"].value.rsplit("/", 1)[1], r["system"].value.rsplit("/", 1)[1])
        for r in found
    }


def _counted(storage, *by: str) -> int:
    """The rows the filters' counts say the leaderboard lists (by the page's dimensions)."""
    counts = storage.public.query(
        leaderboard_counts_query(by=by or ("dataset", "language", "profile"))
    )
    return sum(int(r["n"].value) for r in counts)


def test_a_revision_of_one_system_leaves_the_others_ranked(storage) -> None:
    old = _publish(storage, {"alpha": "strong", "beta": "partial"})
    assert _rows(storage) == {(old, "alpha"), (old, "beta")}
    new = _publish(storage, {"alpha": "partial"}, revision_of=old)
    # alpha's line is the revision's now; beta's stays the old experiment's (it was gone)
    assert _rows(storage) == {(new, "alpha"), (old, "beta")}
    for by in (("dataset", "language", "profile"), ("system",), ("profile",)):
        assert _counted(storage, *by) == 2, by  # the filters' counts: the rows listed
    systems = storage.public.query(leaderboard_counts_query(by=("system", "experiment")))
    assert {r["system"].value.rsplit("/", 1)[1]: int(r["n"].value) for r in systems} == {
        "alpha": 1,
        "beta": 1,
    }  # the systems list: the experiments each history lists

    # a revision on another dataset or under another profile is on lines
    # of its own: it replaces nothing of the old one
    _publish(storage, {"beta": "strong"}, on="other", revision_of=old)
    _publish(storage, {"beta": "strong"}, revision_of=old, profile="exact")
    rows = _rows(storage)
    assert (old, "beta") in rows and len(rows) == 4
    assert _counted(storage) == _counted(storage, "system") == 4
    # and one on beta's line does
    newest = _publish(storage, {"beta": "strong"}, revision_of=old)
    rows = _rows(storage)
    assert (old, "beta") not in rows and (newest, "beta") in rows and len(rows) == 4
    assert _counted(storage) == 4


def test_a_withdrawn_revision_gives_the_old_rows_back(storage) -> None:
    old = _publish(storage, {"alpha": "strong", "beta": "partial"})
    first = _publish(storage, {"alpha": "partial"}, revision_of=old)
    second = _publish(storage, {"beta": "strong"}, revision_of=old)
    assert _rows(storage) == {(first, "alpha"), (second, "beta")}
    storage.experiments.withdraw(first, reason="the wrong answers file")
    assert _rows(storage) == {(old, "alpha"), (second, "beta")}
    storage.experiments.withdraw(second, reason="the wrong answers file")
    assert _rows(storage) == {(old, "alpha"), (old, "beta")}
    assert _counted(storage) == 2


def test_a_rescoring_on_a_dataset_version_is_a_line_of_its_own(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data_dir: Path, monkeypatch
) -> None:
    """Re-scored against a registered version, a run ranks on that version's leaderboard: a
    revision on the catalogue dataset does not stop it (refused before: the run had a published
    revision under the profile), a second one on the same version does (both would be ranked)."""
    import json

    from service.cli import main
    from service.graph.store import open_storage

    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))
    store = tmp_path / "store"
    _, version, franz = register_ck25_version(str(store), data_dir, tmp_path / "v2.json", capsys)
    run = ["evaluate", "--dataset", "text2sparql-2025-ck25", "--answers", str(franz)]
    run += ["--profile", "text2sparql", "--types", "QA", "--output", "json", "--store", str(store)]
    assert main(run) == 0
    old = json.loads(capsys.readouterr().out)["experiment"]["id"]

    def rescore(*more: str) -> str | None:
        code = main(["rescore", old, "--store", str(store), "--output", "json", *more])
        out, err = capsys.readouterr()
        return json.loads(out)["experiment"] if code == 0 else err

    def publish(experiment: str) -> None:
        storage = open_storage(store)
        try:
            storage.experiments.publish(experiment)
        finally:
            storage.close()

    publish(old)
    same = rescore()
    assert same is not None and same.isdigit()
    publish(same)
    on_version = rescore("--dataset-version", version)
    assert on_version is not None and on_version.isdigit(), on_version
    publish(on_version)
    storage = open_storage(store)
    try:
        assert _rows(storage) == {(same, franz.stem), (on_version, franz.stem)}
    finally:
        storage.close()
    again = rescore("--dataset-version", version)
    assert again is not None and f"re-score that one instead ({on_version})" in again


def test_the_command_line_does_not_publish_a_second_revision_of_a_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Two re-scorings of one run, made while neither was public: ``publish`` publishes the
    first and refuses the second, naming the first (both were ranked)."""
    import json

    from service.cli import main

    store = tmp_path / "store"
    argv = ["evaluate", "--dataset", str(DEMO_DIR / "questions.json")]
    argv += ["--kb", str(DEMO_DIR / "kb.ttl"), "--answers", str(DEMO_DIR / "answers-strong.json")]
    assert main([*argv, "--store", str(store), "--output", "json"]) == 0
    old = json.loads(capsys.readouterr().out.splitlines()[0])["experiment"]["id"]
    assert main(["publish", "--store", str(store), old]) == 0
    capsys.readouterr()
    revisions = []
    for _ in range(2):
        assert main(["rescore", old, "--store", str(store), "--output", "json"]) == 0
        revisions.append(json.loads(capsys.readouterr().out)["experiment"])
    first, second = revisions
    assert main(["publish", "--store", str(store), first]) == 0
    capsys.readouterr()
    assert main(["publish", "--store", str(store), second]) != 0
    err = capsys.readouterr().err
    assert f"from {first}" in err and f"(revisionOf {first})" in err
