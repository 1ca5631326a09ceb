"""Six real systems on QALD-8 train: the NLIWOD qa.ml per-question P/R, reproduced by ``exact``.

See README.md in this folder for the source and for how ``exact`` differs on empty sets.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from service.evaluation import evaluate
from service.evaluation.results import ExperimentType, QuestionScore
from service.formats import read
from service.model import AnswerSet, Dataset, Question, QuestionText, SystemAnswer, SystemRun
from service.model import system_run as make_run

SYSTEMS = ["AskNow", "GANSWER2", "QAKIS", "QANSWER", "QASystem", "TeBaQA"]
TOLERANCE = 1e-6  # the CSVs print Java floats


@pytest.fixture(scope="module")
def gold(data_dir: Path) -> Dataset:
    return read(data_dir / "qald/ag-sc_QALD/8/data/qald-8-train-multilingual.json")


def _scores(data_dir: Path, gold: Dataset, system: str):
    folder = data_dir / "system-outputs" / "qald8-train"
    run = make_run(read(folder / f"{system}_QALD8_Train.json"), system=system)
    ev = evaluate(gold, run, profile="exact", experiment_types=["QA"])
    with open(folder / f"{system}_QALD8_Train.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    assert rows[0] == ["ID", "Precision", "Recall", "F1"]
    return ev.tasks[ExperimentType.QA].questions, rows[1:]


def _sides(q: QuestionScore) -> tuple[bool, bool]:
    """(gold empty, system empty) from the matched counts."""
    assert q.tp is not None and q.fp is not None and q.fn is not None
    return q.tp + q.fn == 0, q.tp + q.fp == 0


@pytest.mark.parametrize("system", SYSTEMS)
def test_exact_reproduces_every_non_empty_row(data_dir: Path, gold: Dataset, system: str) -> None:
    records, rows = _scores(data_dir, gold, system)
    assert len(records) == len(rows) == len(gold) == 219
    compared = 0
    for record, (qid, p, r, _f) in zip(records, rows, strict=True):
        assert record.question_id == qid  # rows follow the dataset order
        gold_empty, system_empty = _sides(record)
        if gold_empty or system_empty:
            continue
        compared += 1
        assert record.precision == pytest.approx(float(p), abs=TOLERANCE), qid
        assert record.recall == pytest.approx(float(r), abs=TOLERANCE), qid
    assert compared > 60


def test_857_rows_are_compared_and_no_row_differs(data_dir: Path, gold: Dataset) -> None:
    both = system_empty = differing = 0
    for system in SYSTEMS:
        records, rows = _scores(data_dir, gold, system)
        for record, (_qid, p, r, f) in zip(records, rows, strict=True):
            g0, s0 = _sides(record)
            assert not g0  # QALD-8 train has no empty gold set ...
            both += not s0
            system_empty += s0
            ours = (record.precision, record.recall, record.f1)
            if any(abs(a - float(b)) > TOLERANCE for a, b in zip(ours, (p, r, f), strict=True)):
                differing += 1
    assert (both, system_empty) == (857, 457)
    # ... so the only case where exact and the CSVs disagree (both sides empty) never occurs:
    # an empty system answer to a non-empty gold set is 0/0/0 in both.
    assert differing == 0


def test_where_exact_differs_from_the_csvs_both_sides_empty() -> None:
    # qa.ml's CSVs write 0/0/0 for any empty side; exact (DESIGN §3) gives 1/1/1 here.
    ds = Dataset("d", (Question("1", (QuestionText("en", "q?"),), answers=AnswerSet()),))
    run = SystemRun("s", {"1": SystemAnswer("1")})
    q = evaluate(ds, run, profile="exact").tasks[ExperimentType.QA].questions[0]
    assert (q.precision, q.recall, q.f1) == (1.0, 1.0, 1.0)
