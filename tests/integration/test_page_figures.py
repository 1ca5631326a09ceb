"""The experiment page's figures read only what they draw (issue 14 item 5): the per-question F1
of its QA tasks (``stored_f1s``), and the whole stored results only for tasks whose intervals
were not stored. The figures are the ones the whole results give."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from service.cli import main
from service.paths import DEMO_DIR


@pytest.fixture
def recorded(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    from service.graph.store import open_storage

    store = tmp_path / "store"
    answers = [str(DEMO_DIR / f"answers-{n}.json") for n in ("strong", "partial", "baseline")]
    argv = ["evaluate", "--dataset", str(DEMO_DIR / "questions.json")]
    argv += ["--kb", str(DEMO_DIR / "kb.ttl"), "--answers", *answers]
    assert main([*argv, "--store", str(store), "--output", "json"]) == 0
    eid = json.loads(capsys.readouterr().out.splitlines()[0])["experiment"]["id"]
    storage = open_storage(store)
    yield storage, eid
    storage.close()


def test_the_lean_read_is_the_whole_results_f1(recorded) -> None:
    from service.graph.reader import stored_f1s, stored_results
    from service.web.pages import experiment_page

    storage, eid = recorded
    graph = storage.uris.experiment_graph(eid)
    page = experiment_page(eid, storage.experiments.quads(eid), storage.uris)
    tasks = [t.uri for t in page.tasks]
    whole = stored_results(storage.private, graph, tasks)
    lean = stored_f1s(storage.private, graph, tasks)
    assert lean == {t: {r.question: r.f1 for r in found} for t, found in whole.items()}
    assert len(lean) == len(tasks) > 3


def test_figures_from_f1s_recompute_only_missing_intervals(recorded) -> None:
    from service.graph.reader import stored_f1s, stored_results
    from service.web import figures
    from service.web.pages import experiment_page

    storage, eid = recorded
    graph = storage.uris.experiment_graph(eid)
    page = experiment_page(eid, storage.experiments.quads(eid), storage.uris)
    qa = page.tasks_of("QA")
    f1s = stored_f1s(storage.private, graph, [t.uri for t in qa])
    questions = {q for found in f1s.values() for q in found}
    types = figures.answer_types_of(storage.private, questions)
    drawn = figures.figures(page, f1s, types)
    assert drawn.scatter is not None and drawn.answer_types is not None
    assert all(drawn.intervals[t.uri] for t in qa)  # as stored

    # a page of an experiment recorded before intervals were stored: recomputed from results
    bare = dataclasses.replace(
        page, tasks=tuple(dataclasses.replace(t, intervals={}) for t in page.tasks)
    )
    without = figures.figures(bare, f1s, types)
    assert not any(without.intervals.values())
    results = stored_results(storage.private, graph, [t.uri for t in qa])
    again = figures.figures(bare, f1s, types, results=results)
    for task in qa:
        for measure, (low, high) in drawn.intervals[task.uri].items():
            assert again.intervals[task.uri][measure] == pytest.approx((low, high), abs=1e-9)
    assert again.answer_type_rows == drawn.answer_type_rows
    assert again.scatter_counts == drawn.scatter_counts
