"""The ``qald6`` (QALD-5/6 evaluation.rb) and ``qald-legacy`` (QALD-1..4 Evaluation.py) rules."""

from __future__ import annotations

import json

import pytest

from service.evaluation import evaluate
from service.evaluation.matchers.qald import qald6_normalise
from service.evaluation.results import ExperimentType, QuestionStatus
from service.evaluation.scoring import round5
from service.formats import read, write
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
from tests.conftest import QALD
from tests.helpers import lits

QA = ExperimentType.QA
QALD9_TEST = QALD / "9/data/qald-9-test-multilingual.json"


def rows(*tuples: tuple[str, ...]) -> AnswerSet:
    names = ("a", "b", "c")
    return AnswerSet(
        vars=names[: max(len(t) for t in tuples)],
        rows=tuple({names[i]: Term.literal(v) for i, v in enumerate(t)} for t in tuples),
    )


def run_all(gold: list[AnswerSet], system: dict[str, AnswerSet], profile: str):
    qs = tuple(
        Question(str(i + 1), (QuestionText("en", f"q{i}?"),), answers=g) for i, g in enumerate(gold)
    )
    run = SystemRun("s", {k: SystemAnswer(k, answers=v) for k, v in system.items()})
    ev = evaluate(Dataset("d", qs), run, profile=profile)
    return ev.tasks[ExperimentType.QA]


# -- qald6 ---------------------------------------------------------------------------------------


def test_qald6_digits_get_point_zero() -> None:
    assert qald6_normalise("42") == "42.0"
    assert qald6_normalise("42.0") == "42.0"
    task = run_all([lits("42")], {"1": lits("42.0")}, "qald6")
    assert task.questions[0].f1 == 1.0


def test_qald6_digit_test_is_on_the_raw_value() -> None:
    # Ruby's /\A\d+\z/ is tested before strip: " 42" is stripped but gets no ".0".
    assert qald6_normalise(" 42") == "42"
    assert qald6_normalise("-42") == "-42"


def test_qald6_percent_decoding_after_strip() -> None:
    gold = AnswerSet.of([Term.iri("http://dbpedia.org/resource/G%C3%B6del")])
    system = AnswerSet.of([Term.iri(" http://dbpedia.org/resource/Gödel ")])
    task = run_all([gold], {"1": system}, "qald6")
    assert task.questions[0].f1 == 1.0
    assert qald6_normalise("a+b%20c") == "a+b c"  # URI.unescape keeps '+'


def test_qald6_a_row_is_one_answer_and_rows_are_deduplicated() -> None:
    gold = rows(("x", "1"), ("y", "2"))
    system = rows(("1", "x"), ("1", "x"), ("y", "3"))  # a multiset: order inside a row is free
    q = run_all([gold], {"1": system}, "qald6").questions[0]
    assert (q.tp, q.fp, q.fn) == (1, 1, 1)  # 2 distinct user rows, 1 correct
    assert (q.precision, q.recall) == (0.5, 0.5)


def test_qald6_boolean_is_not_a_string_row() -> None:
    q = run_all([AnswerSet(boolean=True)], {"1": lits("true")}, "qald6").questions[0]
    assert q.f1 == 0.0
    q = run_all([AnswerSet(boolean=True)], {"1": AnswerSet(boolean=True)}, "qald6").questions[0]
    assert q.f1 == 1.0


def test_qald6_reads_an_empty_bindings_array_before_the_boolean() -> None:
    """QALD-9 test question 6 (a yes/no question, gold true) answered as real QALD-9 system
    output writes it: ``{"results": {"bindings": []}, "boolean": true}``. evaluation.rb reads
    the bindings whenever there is a ``results.bindings`` array: an empty answer. Other
    profiles read the boolean, as they do for question 79's plain ``{"boolean": true}``."""
    gold = read(QALD9_TEST)
    assert gold.by_id()["6"].answers == AnswerSet(boolean=True)  # "results": {} has no array
    answers = {
        "questions": [
            {"id": "6", "answers": [{"head": {}, "results": {"bindings": []}, "boolean": True}]},
            {"id": "79", "answers": [{"head": {}, "boolean": True}]},
        ]
    }
    system = read(json.dumps(answers).encode(), name="system.json")
    assert system.by_id()["6"].answers == AnswerSet(boolean=True, empty_bindings=True)
    assert read(write(system, "qald-json")).questions == system.questions
    run = system_run(system, system="s")
    per_question = {
        name: {q.question_id: q for q in evaluate(gold, run, profile=name).tasks[QA].questions}
        for name in ("qald6", "exact", "fair")
    }
    six = per_question["qald6"]["6"]
    assert (six.precision, six.recall, six.f1) == (1.0, 0.0, 0.0)  # an empty answer
    assert per_question["qald6"]["79"].f1 == 1.0
    assert per_question["exact"]["6"].f1 == 1.0 and per_question["fair"]["6"].f1 == 1.0


def test_qald6_empty_user_answer_has_precision_one() -> None:
    q = run_all([lits("a", "b")], {"1": AnswerSet()}, "qald6").questions[0]
    assert (q.precision, q.recall, q.f1) == (1.0, 0.0, 0.0)


def test_qald6_empty_gold() -> None:
    task = run_all([AnswerSet(), AnswerSet()], {"1": AnswerSet(), "2": lits("x")}, "qald6")
    assert [q.f1 for q in task.questions] == [1.0, 0.0]


def test_qald6_aggregates_over_all_and_processed_questions() -> None:
    # q1: 1 of 2 user answers correct, gold 4 -> P .5 R .25; q2: perfect; q3 missing (unprocessed).
    gold = [lits("a", "b", "c", "d"), lits("x"), lits("z", "w")]
    task = run_all(gold, {"1": lits("a", "q"), "2": lits("x")}, "qald6")
    m = task.measures
    assert task.questions[2].status is QuestionStatus.MISSING
    assert task.questions[2].processed is False and task.questions[2].f1 == 0.0
    # micro: correct 2, user 3, gold all 7, gold processed 5
    assert m["microPrecision"] == pytest.approx(2 / 3)
    assert m["microRecall"] == pytest.approx(2 / 7)
    assert m["processedMicroRecall"] == pytest.approx(2 / 5)
    # macro: F of the means, not the mean of F
    p, r = (0.5 + 1 + 0) / 3, (0.25 + 1 + 0) / 3
    assert m["macroPrecision"] == pytest.approx(p)
    assert m["macroF1"] == pytest.approx(2 * p * r / (p + r))
    pp, pr = (0.5 + 1) / 2, (0.25 + 1) / 2
    assert m["processedMacroF1"] == pytest.approx(2 * pp * pr / (pp + pr))


def test_qald6_zero_denominators_give_zero() -> None:
    m = run_all([lits("a")], {}, "qald6").measures
    assert m["microPrecision"] == 0.0 and m["processedMacroPrecision"] == 0.0


def test_processed_measures_only_under_qald6() -> None:
    assert "processedMicroF1" in run_all([lits("a")], {"1": lits("a")}, "qald6").measures
    for profile in ("gerbil", "fair", "exact", "qald-legacy"):
        assert "processedMicroF1" not in run_all([lits("a")], {"1": lits("a")}, profile).measures


# -- qald-legacy ---------------------------------------------------------------------------------


def test_legacy_duplicates_count() -> None:
    # Lists, not sets: a repeated correct answer is counted twice (recall 2/1 as in the script).
    q = run_all([lits("a")], {"1": lits("a", "a")}, "qald-legacy").questions[0]
    assert (q.precision, q.recall) == (1.0, 2.0)


def test_legacy_rounds_to_five_places_half_up() -> None:
    # 1 correct of 64 gold: 1/64 = 0.015625 exactly, a tie Python 2 rounds up (Python 3: down).
    gold = lits(*[str(i) for i in range(64)])
    q = run_all([gold], {"1": lits("0")}, "qald-legacy").questions[0]
    assert q.recall == 0.01563
    assert q.f1 == round5(2 * 1.0 * 0.01563 / (1.0 + 0.01563))
    q = run_all([lits("a", "b", "c")], {"1": lits("a")}, "qald-legacy").questions[0]
    assert q.recall == 0.33333


def test_legacy_empty_rules() -> None:
    task = run_all(
        [AnswerSet(), lits("a"), AnswerSet()],
        {"1": AnswerSet(), "2": AnswerSet(), "3": lits("x")},
        "qald-legacy",
    )
    assert [q.f1 for q in task.questions] == [1.0, 0.0, 0.0]


def test_legacy_global_means_over_all_gold_questions_and_f_of_means() -> None:
    task = run_all(
        [lits("a", "b"), lits("c"), lits("d")], {"1": lits("a"), "2": lits("c")}, "qald-legacy"
    )
    p, r = (1.0 + 1.0 + 0) / 3, (0.5 + 1.0 + 0) / 3
    assert task.measures["macroPrecision"] == pytest.approx(p)
    assert task.measures["macroRecall"] == pytest.approx(r)
    assert task.measures["macroF1"] == pytest.approx(2 * p * r / (p + r))


def test_legacy_global_f_is_zero_when_a_mean_is_zero() -> None:
    task = run_all([lits("a")], {"1": lits("b")}, "qald-legacy")
    assert task.measures["macroF1"] == 0.0


def test_legacy_rows_are_ordered_lists() -> None:
    q = run_all([rows(("x", "1"))], {"1": rows(("1", "x"))}, "qald-legacy").questions[0]
    assert q.f1 == 0.0
    q = run_all([rows(("x", "1"))], {"1": rows(("x ", " 1"))}, "qald-legacy").questions[0]
    assert q.f1 == 1.0  # values are stripped


# -- a question missing from the answer file (explore33 F6, F7) ---------------------------------

QALD9_PLUS_TEST = QALD.parent / "KGQA_QALD_9_plus/data/qald_9_plus_test_dbpedia.json"


def _gold_left_out(path, keep: int, leave_out: set[str]):
    """The first ``keep`` questions of a real file, and its gold answers as a system's answer
    file without the questions ``leave_out``."""
    gold = read(path)
    questions = tuple(q for q in gold.questions if q.answers is not None)[:keep]
    dataset = Dataset(gold.id, questions)
    run = SystemRun(
        "gold-answers",
        {
            q.id: SystemAnswer(q.id, answers=q.answers)
            for q in questions
            if q.id not in leave_out and q.answers is not None
        },
    )
    return dataset, run


def test_legacy_scores_a_missing_question_0_even_where_its_gold_is_empty() -> None:
    """QALD-9-plus test (DBpedia) q81, 31, 214 and 210 have empty gold; an answer file leaving
    them out scored 1/1/1 on each under qald-legacy, though its description says "missing ones
    count 0" and the warning said "scored as not answered" (explore33 F7). An empty answer
    given to them still scores 1 (both lists empty)."""
    gold = read(QALD9_PLUS_TEST)
    empty = ["81", "31", "214", "210"]
    answered = [q for q in gold.questions if q.answers and not q.answers.is_empty][:6]
    questions = tuple(q for q in gold.questions if q.id in empty) + tuple(answered)
    assert all(q.answers is not None and q.answers.is_empty for q in questions[:4])
    dataset = Dataset(gold.id, questions)
    run = SystemRun("s", {q.id: SystemAnswer(q.id, answers=q.answers) for q in answered})
    ev = evaluate(dataset, run, profile="qald-legacy")
    task = ev.tasks[QA]
    left_out = [q for q in task.questions if q.question_id in empty]
    assert [(q.precision, q.recall, q.f1) for q in left_out] == [(0.0, 0.0, 0.0)] * 4
    assert task.measures["macroPrecision"] == pytest.approx(0.6)
    assert task.measures["macroF1"] == pytest.approx(0.6)  # was 1.0
    said = [p.message for p in ev.problems if "have no answer" in p.message]
    assert said == [
        "4 of 10 questions have no answer (81, 31, 214, 210): each is scored as not answered (0)"
    ]
    # given as empty answers, they are both lists empty: 1 each
    given = SystemRun("s", {q.id: SystemAnswer(q.id, answers=q.answers) for q in questions})
    assert evaluate(dataset, given, profile="qald-legacy").tasks[QA].measures["macroF1"] == 1.0
    # gerbil reads a missing answer as an empty one, as GERBIL does, and its warning says so
    ev = evaluate(dataset, run, profile="gerbil")
    assert ev.tasks[QA].measures["macroF1"] == 1.0
    said = [p.message for p in ev.problems if "have no answer" in p.message]
    assert said == [
        "4 of 10 questions have no answer (81, 31, 214, 210): each is read as an empty "
        "answer, as GERBIL QA 0.3 does"
    ]


def test_qald6_macro_f1_qald_counts_a_missing_question_as_evaluation_rb_does() -> None:
    """QALD-9 test, 25 questions, five left out of the answer file (explore33 f41): qald6's
    macro F1 (F of the means, evaluation.rb: an unprocessed question scores 0) was 0.8 but its
    Macro F1 QALD 0.889, the five read as empty answers (P = 1). Both are 0.8 now; five empty
    answers given are still P = 1 in both (0.889)."""
    leave_out = {"99", "98", "86", "56", "49"}
    dataset, run = _gold_left_out(QALD9_TEST, 25, leave_out)
    assert leave_out <= {q.id for q in dataset.questions}
    m = evaluate(dataset, run, profile="qald6").tasks[QA].measures
    assert m["macroPrecision"] == pytest.approx(0.8) and m["macroRecall"] == pytest.approx(0.8)
    assert m["macroF1"] == pytest.approx(0.8)
    assert m["macroF1QALD"] == pytest.approx(0.8)  # was 0.8888…
    empty = SystemRun(
        "s", {**run.answers, **{q: SystemAnswer(q, answers=AnswerSet()) for q in leave_out}}
    )
    m = evaluate(dataset, empty, profile="qald6").tasks[QA].measures
    assert m["macroF1"] == pytest.approx(2 * 0.8 / 1.8)
    assert m["macroF1QALD"] == pytest.approx(2 * 0.8 / 1.8)


def test_qald6_and_legacy_still_aggregate_their_older_versions() -> None:
    from service.evaluation.profiles import get_profile

    qald6, legacy = get_profile("qald6"), get_profile("qald-legacy")
    assert (qald6.version, qald6.aggregates_as) == ("1.2.0", ("1.1.0",))
    assert qald6.scoring.qald_answered_only and "|qald-empty:given|" in qald6.signature
    assert not qald6.scoring_of("QA", "1.1.0").qald_answered_only
    assert (legacy.version, legacy.aggregates_as) == ("1.1.0", ("1.0.0",))
    assert "|unanswered:0|" in legacy.signature
