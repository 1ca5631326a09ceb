"""The measure registry, the aggregate rules and the confidence/rank measures (seed 004)."""

from __future__ import annotations

import json
import statistics

import pytest

from service.evaluation import evaluate
from service.evaluation.confidence import Ranked, confidence_measures, pearson
from service.evaluation.matchers.base import Verdict
from service.evaluation.measures import MEASURES, Measure, MeasureInfo, MeasureRegistry, When
from service.evaluation.results import ExperimentType
from service.model import AnswerSet, Dataset, Question, QuestionText, SystemAnswer, SystemRun
from tests.helpers import CONTRACT_MEASURES, lits

XSD = "http://www.w3.org/2001/XMLSchema#"
CONFIDENCE_MEASURES = tuple(n for n, i in MEASURES.items() if i.when is When.CONFIDENCE)
RANK_MEASURES = tuple(n for n, i in MEASURES.items() if i.when is When.RANKED)


@pytest.mark.parametrize("name", list(MEASURES))
def test_every_measure_is_described(name: str) -> None:
    info = MEASURES[name]
    assert info.measure.name == name
    assert info.label and info.description.endswith(".")
    assert info.datatype in (XSD + "double", XSD + "integer")


def test_registry_holds_the_contract_names() -> None:
    assert set(CONTRACT_MEASURES) <= set(MEASURES)
    assert CONFIDENCE_MEASURES and RANK_MEASURES
    assert Measure("hits", k=5).name == "hitsAt5"
    assert MEASURES["processedMacroF1"].measure == Measure("f1", average="macro", scope="processed")
    with pytest.raises(KeyError):
        MEASURES["macroF2"]
    with pytest.raises(KeyError):
        MEASURES["processedmacroF1"]


def test_a_name_that_reads_back_as_another_measure_is_refused() -> None:
    # macro F1 with a cut-off is named "macroF1", which reads back without one
    odd = MeasureInfo(
        Measure("f1", average="macro", k=3), "odd", "Odd.", XSD + "double", lambda _: 0.0
    )
    with pytest.raises(ValueError, match="parses back to"):
        MeasureRegistry([odd])


def evaluate_cases(cases: list[tuple[AnswerSet, AnswerSet | None, float | None]], **kw):
    """cases: (gold, system answers or None for missing, confidence)."""
    qs = tuple(
        Question(str(i), (QuestionText("en", "q?"),), answers=g)
        for i, (g, _, _) in enumerate(cases)
    )
    answers = {
        str(i): SystemAnswer(str(i), answers=s, confidence=c)
        for i, (_, s, c) in enumerate(cases)
        if s is not None
    }
    return evaluate(Dataset("d", qs), SystemRun("s", answers), **kw)


def test_macro_f1_qald_counts_an_empty_answer_as_precision_one() -> None:
    ev = evaluate_cases(
        [(lits("a"), lits("a"), None), (lits("b"), AnswerSet(), None)], profile="fair"
    )
    m = ev.tasks[ExperimentType.QA].measures
    assert m["macroPrecision"] == 0.5 and m["macroRecall"] == 0.5  # standard: (1+0)/2
    # QALD: P = (1 + 1)/2 = 1, R = (1 + 0)/2 = 0.5, F = 2*1*0.5/1.5
    assert m["macroF1QALD"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("profile", "expected"), [("fair", 0.5), ("exact", 0.5), ("gerbil", 2 / 3)]
)
def test_macro_f1_qald_takes_an_unanswered_question_as_no_empty_answer(
    profile: str, expected: float
) -> None:
    """A missing entry in the answer file (or a failed call) was an empty answer, P = 1: a
    flaky service gained QALD precision from its failures (explore28 F1). Our profiles since
    fair/exact 1.2.0 take its own P (0); gerbil keeps GERBIL's reading (an empty answer)."""
    ev = evaluate_cases([(lits("a"), lits("a"), None), (lits("b"), None, None)], profile=profile)
    # fair/exact: P = (1 + 0)/2, R = (1 + 0)/2, F = 0.5; gerbil: P = 1, R = 0.5, F = 2/3
    assert ev.tasks[ExperimentType.QA].measures["macroF1QALD"] == pytest.approx(expected)


def test_undefined_values_are_none_and_json_null() -> None:
    ev = evaluate_cases([(lits("a"), lits("b"), None)], profile="exact")
    m = ev.tasks[ExperimentType.QA].measures
    assert m["macroF1QALD"] is None  # both means are 0
    assert m["meanRuntime"] is None  # an answer file has no runtimes
    text = json.dumps(ev.to_json())
    assert '"macroF1QALD": null' in text and "NaN" not in text


def test_no_questions_gives_no_numbers() -> None:
    ev = evaluate_cases([], profile="fair")
    m = ev.tasks[ExperimentType.QA].measures
    assert m["questions"] == 0
    assert m["microF1"] is None and m["macroF1"] is None and m["accuracy"] is None


def test_micro_uses_the_standard_rule_on_summed_counts() -> None:
    # q1: tp 1 fp 1 fn 0; q2: tp 0 fp 0 fn 2 -> micro P 1/2, R 1/3
    ev = evaluate_cases([(lits("a"), lits("a", "x"), None), (lits("b", "c"), AnswerSet(), None)],
                        profile="exact")  # fmt: skip
    m = ev.tasks[ExperimentType.QA].measures
    assert (m["microPrecision"], m["microRecall"]) == (0.5, pytest.approx(1 / 3))
    assert m["microF1"] == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert m["accuracy"] == 0.0


# -- confidence and ranks, computed by hand from seed 004's definitions ---------------------------

CASES = [
    # Q0: gold {A, B}, answers A B C at 0.9 -> correct, correct, wrong
    (lits("A", "B"), lits("A", "B", "C"), 0.9),
    # Q1: gold {D}, answers E D D at 0.4 -> wrong, correct, repeated
    (lits("D"), lits("E", "D", "D"), 0.4),
    # Q2: gold {F}, no answer at 0.2 -> NIL, wrong
    (lits("F"), AnswerSet(), 0.2),
    # Q3: empty gold, no answer, no confidence (0) -> NIL, correct
    (AnswerSet(), AnswerSet(), None),
]


def test_confidence_and_rank_measures_by_hand() -> None:
    ev = evaluate_cases(CASES, profile="exact", ranked=True)
    m = ev.tasks[ExperimentType.QA].measures
    # K: Q0 (.9+.9-.9)/max(2,3) = .3; Q1 (-.4+.4+0)/max(1,3) = 0; Q2 -.2/1; Q3 0 -> .1/4
    assert m["k"] == pytest.approx(0.025)
    # K1, top item only: .9 - .4 - .2 + 0 -> .3/4
    assert m["k1"] == pytest.approx(0.075)
    # r over the 8 items (NIL items included)
    scores = [0.9, 0.9, 0.9, 0.4, 0.4, 0.4, 0.2, 0.0]
    correct = [1, 1, 0, 0, 1, 0, 0, 1]
    assert m["r"] == pytest.approx(statistics.correlation(scores, correct))
    # CWS: order .9 .4 .2 0 with top items right, wrong, wrong, right: (1 + 1/2 + 1/3 + 2/4)/4
    assert m["cws"] == pytest.approx((1 + 1 / 2 + 1 / 3 + 2 / 4) / 4)
    # MRR: 1, 1/2, 0, 1 (NIL right at rank 1); Hits@1: Q0, Q3; Hits@5: Q0, Q1, Q3
    assert m["mrr"] == pytest.approx(2.5 / 4)
    assert (m["hitsAt1"], m["hitsAt5"], m["hitsAt10"]) == (0.5, 0.75, 0.75)


def test_measures_appear_only_when_they_apply() -> None:
    plain = [(g, s, None) for g, s, _ in CASES]
    m = evaluate_cases(plain, profile="exact").tasks[ExperimentType.QA].measures
    assert not set(CONFIDENCE_MEASURES + RANK_MEASURES) & set(m)
    m = evaluate_cases(CASES, profile="exact").tasks[ExperimentType.QA].measures
    assert set(CONFIDENCE_MEASURES) <= set(m) and not set(RANK_MEASURES) & set(m)


def test_r_is_undefined_with_zero_variance() -> None:
    # CLEF 2004 Table 1: "N/A because 0 was given as confident score for every answer"
    questions = [Ranked(0.0, (Verdict.CORRECT,), 1), Ranked(0.0, (Verdict.WRONG,), 1)]
    assert confidence_measures(questions)["r"] is None
    assert pearson([1.0], [1.0]) is None
    assert pearson([0.1, 0.9], [0.0, 1.0]) == pytest.approx(1.0)


def test_cws_ties_keep_dataset_order() -> None:
    # Equal confidence: the first question in the dataset ranks first.
    right_first = [Ranked(0.5, (Verdict.CORRECT,), 1), Ranked(0.5, (Verdict.WRONG,), 1)]
    wrong_first = [Ranked(0.5, (Verdict.WRONG,), 1), Ranked(0.5, (Verdict.CORRECT,), 1)]
    assert confidence_measures(right_first)["cws"] == pytest.approx((1 + 1 / 2) / 2)
    assert confidence_measures(wrong_first)["cws"] == pytest.approx((0 + 1 / 2) / 2)
