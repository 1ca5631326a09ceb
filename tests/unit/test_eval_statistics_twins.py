"""The resampled computations (statistics.py's twins) equal the scorer's aggregates on the
identity resample, for every profile, experiment type and reported measure, on real data: the
six QALD-8 train systems, the QALD-9 test gold turned into a flawed system with confidences and
ranks, and PolEval 2021 dev-0. If a scheme changes its aggregation, or a measure is added
without a twin, this fails."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from service.evaluation import PROFILES, evaluate
from service.evaluation.results import Evaluation
from service.evaluation.statistics import NO_INTERVAL, point_values, question_table
from service.formats import read
from service.model import (
    AnswerSet,
    Dataset,
    Question,
    QuestionText,
    SystemAnswer,
    SystemRun,
    Term,
    system_run,
)
from tests.helpers import lits

QALD8_SYSTEMS = ["AskNow", "GANSWER2", "QAKIS", "QANSWER", "QASystem", "TeBaQA"]
KB_FREE = [p for p in PROFILES if p != "poleval"]  # fair and gerbil match without a KB too
TOLERANCE = 1e-12  # numpy sums pairwise, Python's sum left to right


def assert_twins_equal_the_scorer(ev: Evaluation) -> int:
    """Every reported measure but the counts has a twin equal to the scorer's value."""
    checked = 0
    for etype, task in ev.tasks.items():
        table = question_table(task, scheme=ev.profile.scoring_of(etype).name)
        assert set(task.measures) - set(table.measures) <= set(NO_INTERVAL), etype
        ours = point_values(table)
        for name in table.measures:
            theirs = task.measures[name]
            where = f"{ev.system} {ev.profile.name} {etype.value} {name}"
            if theirs is None:
                assert ours[name] is None, where
            else:
                assert ours[name] == pytest.approx(theirs, rel=TOLERANCE, abs=TOLERANCE), where
            checked += 1
    return checked


@pytest.fixture(scope="module")
def qald8(data_dir: Path) -> Dataset:
    return read(data_dir / "qald/ag-sc_QALD/8/data/qald-8-train-multilingual.json")


@pytest.mark.parametrize("profile", KB_FREE)
def test_qald8_train_systems(data_dir: Path, qald8: Dataset, profile: str) -> None:
    folder = data_dir / "system-outputs" / "qald8-train"
    checked = 0
    for system in QALD8_SYSTEMS:
        run = system_run(read(folder / f"{system}_QALD8_Train.json"), system=system)
        checked += assert_twins_equal_the_scorer(evaluate(qald8, run, profile=profile))
    assert checked >= 6 * 8  # every system, at least the eight QA measures


def flawed_qald9_test(data_dir: Path) -> tuple[Dataset, SystemRun]:
    """QALD-9 test with the gold as answers, then every 5th question missing, every 7th
    failed, every 3rd given the next question's answers, confidences 0..0.99 for the rest."""
    gold = read(data_dir / "qald/ag-sc_QALD/9/data/qald-9-test-multilingual.json")
    perfect = system_run(gold, system="flawed-gold")
    ids = [q.id for q in gold.questions]
    answers: dict[str, SystemAnswer] = {}
    for i, qid in enumerate(ids):
        if i % 5 == 4:
            continue
        answer = perfect.answers[qid]
        if i % 7 == 6:
            answer = SystemAnswer(qid, error="HTTP 500")
        elif i % 3 == 2:
            answer = dataclasses.replace(answer, answers=perfect.answers[ids[i - 1]].answers)
        answers[qid] = dataclasses.replace(answer, confidence=(i * 37 % 100) / 100)
    return gold, SystemRun("flawed-gold", answers)


@pytest.mark.parametrize("profile", KB_FREE)
def test_qald9_test_with_missing_failed_wrong_and_ranked_answers(
    data_dir: Path, profile: str
) -> None:
    gold, run = flawed_qald9_test(data_dir)
    ev = evaluate(gold, run, profile=profile, ranked=True)
    qa = ev.tasks[next(iter(ev.tasks))].measures
    assert {"cws", "k", "k1", "r", "mrr", "hitsAt5"} <= set(qa)  # confidence and ranks present
    assert qa["errorCount"] and 0 < qa["macroF1"] < 1  # type: ignore[operator]
    assert assert_twins_equal_the_scorer(ev) >= 8 + 8


def test_poleval_dev0_graded_by_credit(data_dir: Path) -> None:
    gold = read(data_dir / "poleval2021/dev-0/expected.tsv")
    answers = {}
    for i, q in enumerate(gold.questions):
        assert q.answers is not None
        first = next(iter(q.answers.values()), Term.literal(""))
        # right on two in three lines (a first alternative), wrong on the rest
        given = first if i % 3 else Term.literal("nie wiem")
        answers[q.id] = SystemAnswer(q.id, answers=AnswerSet.of([given]))
    ev = evaluate(gold, SystemRun("half", answers), profile="poleval")
    accuracy = ev.tasks[next(iter(ev.tasks))].measures["accuracy"]
    assert accuracy is not None and 0.6 < accuracy < 0.7
    assert assert_twins_equal_the_scorer(ev) >= 8


EDGE_CASES = {
    "nothing answered": [(["a"], []), (["b", "c"], [])],
    "all empty": [([], []), ([], [])],
    "empty gold, answered": [([], ["x"]), (["a"], ["a"])],
    "no true positive": [(["a"], ["b"]), (["c"], ["d", "e"])],
    "mixed": [(["a", "b"], ["a"]), ([], []), (["c"], []), (["d"], ["d", "x", "y"])],
}


@pytest.mark.parametrize("case", list(EDGE_CASES))
@pytest.mark.parametrize("profile", ["exact", "qald6", "qald-legacy"])
def test_edge_cases_of_the_rules(case: str, profile: str) -> None:
    """Zero denominators, empty sets and no true positive: where the rules branch."""
    pairs = EDGE_CASES[case]
    qs = tuple(
        Question(str(i), (QuestionText("en", "q?"),), answers=lits(*g))
        for i, (g, _) in enumerate(pairs)
    )
    run = SystemRun(
        "s", {str(i): SystemAnswer(str(i), answers=lits(*s)) for i, (_, s) in enumerate(pairs)}
    )
    assert assert_twins_equal_the_scorer(evaluate(Dataset("d", qs), run, profile=profile)) >= 8
