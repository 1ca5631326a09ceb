"""The ``gerbil`` profile's rules, pinned with small hand-made cases (DESIGN §3, GERBIL QA 0.3)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from service.evaluation import evaluate
from service.evaluation.kbview import KBView
from service.evaluation.matchers.gerbil import GerbilMatcher
from service.evaluation.results import ExperimentType
from service.kb.local import LocalKB
from service.model import AnswerSet, Dataset, Question, QuestionText, SystemAnswer, SystemRun, Term
from tests.helpers import kb_from_rdf, lits

DBR = "http://dbpedia.org/resource/"


def iris(*names: str) -> AnswerSet:
    return AnswerSet.of(Term.iri(DBR + n) for n in names)


def score(gold: AnswerSet, system: AnswerSet, *, kb: object = None, profile: str = "gerbil"):
    """Evaluate one question; returns (QA measures, the question's record)."""
    ds = Dataset("d", (Question("1", (QuestionText("en", "q?"),), answers=gold),))
    run = SystemRun("s", {"1": SystemAnswer("1", answers=system)})
    ev = evaluate(ds, run, profile=profile, kb=kb, experiment_types=["QA"])  # type: ignore[arg-type]
    task = ev.tasks[ExperimentType.QA]
    return task.measures, task.questions[0]


GOLD_21 = [f"R{i}" for i in range(21)]


def test_21_gold_10_correct_is_20_over_31() -> None:
    measures, q = score(iris(*GOLD_21), iris(*GOLD_21[:10]))
    assert (q.tp, q.fp, q.fn) == (10, 0, 11)
    assert measures["microF1"] == pytest.approx(20 / 31, abs=1e-12)
    assert measures["macroF1"] == pytest.approx(20 / 31, abs=1e-12)
    assert Fraction(q.f1).limit_denominator(100) == Fraction(20, 31)


def test_21_correct_and_2_wrong_is_42_over_44() -> None:
    measures, q = score(iris(*GOLD_21), iris(*GOLD_21, "Wrong1", "Wrong2"))
    assert (q.tp, q.fp, q.fn) == (21, 2, 0)
    assert measures["microF1"] == pytest.approx(42 / 44, abs=1e-12)
    assert measures["macroF1"] == pytest.approx(42 / 44, abs=1e-12)


def test_empty_gold_and_empty_answer_scores_one() -> None:
    measures, q = score(AnswerSet(), AnswerSet())
    assert (q.precision, q.recall, q.f1) == (1.0, 1.0, 1.0)
    assert measures["microF1"] == 1.0 and measures["accuracy"] == 1.0


def test_empty_gold_with_answers_scores_zero() -> None:
    measures, q = score(AnswerSet(), iris("Berlin"))
    assert (q.precision, q.recall, q.f1) == (0.0, 0.0, 0.0)
    assert q.fp == 1
    assert measures["macroF1"] == 0.0


def test_gold_answers_with_empty_answer_scores_zero_but_qald_macro_counts_precision_one() -> None:
    measures, q = score(iris("A", "B"), AnswerSet())
    assert (q.precision, q.recall, q.f1) == (0.0, 0.0, 0.0)
    # Macro F1 QALD: an unanswered question has P = 1, R = 0: the means are 1 and 0, F = 0.
    assert measures["macroF1QALD"] == 0.0


def test_gold_counts_as_iris_only_if_every_value_is_a_uri() -> None:
    # One gold value is no URI: the whole gold set is strings, compared exactly.
    gold = AnswerSet.of([Term.iri(DBR + "A"), Term.literal("not a uri")])
    _, q = score(gold, AnswerSet.of([Term.literal("not a uri"), Term.iri(DBR + "A")]))
    assert (q.tp, q.fp, q.fn) == (2, 0, 0)


def test_string_part_has_no_false_positives_but_leftovers_do() -> None:
    # Gold strings {"1990", "x"}; system "1990" matches as a string (TP_s = 1, FN_s = 1).
    # The leftover "1991" finds no resource, so it is a candidate of its own: FP_a = 1.
    _, q = score(lits("1990", "x"), lits("1990", "1991"))
    assert (q.tp, q.fp, q.fn) == (1, 1, 1)


def test_values_are_compared_as_strings_without_datatype_or_language() -> None:
    gold = AnswerSet.of([Term.literal("8", datatype="http://www.w3.org/2001/XMLSchema#integer")])
    _, q = score(gold, AnswerSet.of([Term.literal("8", lang="en")]))
    assert q.tp == 1
    _, q = score(gold, lits("8.0"))  # no numeric normalisation under gerbil
    assert q.tp == 0


def test_booleans_as_true_false() -> None:
    _, q = score(AnswerSet(boolean=True), AnswerSet(boolean=True))
    assert q.f1 == 1.0
    _, q = score(AnswerSet(boolean=True), lits("true"))
    assert q.f1 == 1.0
    _, q = score(AnswerSet(boolean=True), AnswerSet(boolean=False))
    assert q.f1 == 0.0


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> LocalKB:
    return kb_from_rdf(
        tmp_path_factory,
        f"""
        @prefix owl: <http://www.w3.org/2002/07/owl#> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        <{DBR}Berlin> owl:sameAs <http://www.wikidata.org/entity/Q64> .
        <http://www.wikidata.org/entity/Q64> owl:sameAs <http://de.dbpedia.org/resource/Berlin> .
        <{DBR}Berlin> rdfs:label "Berlin"@en .
        <{DBR}Obama> rdfs:label "Barack Obama"@en .
        <{DBR}Obama_Sr> rdfs:label "Barack Obama"@en .
        """,
    )


def test_system_iris_are_expanded_by_the_sameas_closure(kb: LocalKB) -> None:
    # The system's German DBpedia IRI reaches dbr:Berlin through Wikidata (transitive, symmetric).
    system = AnswerSet.of([Term.iri("http://de.dbpedia.org/resource/Berlin")])
    _, q = score(iris("Berlin"), system, kb=kb)
    assert (q.tp, q.fp, q.fn) == (1, 0, 0)
    _, q = score(iris("Berlin"), system)  # without a KB: no match
    assert (q.tp, q.fp, q.fn) == (0, 1, 1)


def test_gold_iris_are_not_expanded(kb: LocalKB) -> None:
    # GERBIL expands only the system side: a gold Wikidata IRI is matched by the system's dbr IRI
    # only because dbr:Berlin's own closure contains it; a system IRI outside every closure fails.
    gold = AnswerSet.of([Term.iri("http://www.wikidata.org/entity/Q64")])
    _, q = score(gold, iris("Berlin"), kb=kb)
    assert q.tp == 1
    _, q = score(gold, iris("Paris"), kb=kb)
    assert q.tp == 0


def test_system_strings_are_looked_up_as_labels(kb: LocalKB) -> None:
    _, q = score(iris("Berlin"), lits("Berlin"), kb=kb)
    assert (q.tp, q.fp, q.fn) == (1, 0, 0)


def test_a_label_shared_by_two_resources_costs_precision(kb: LocalKB) -> None:
    # "Barack Obama" labels two resources: both become candidates, one matches, one is an FP.
    _, q = score(iris("Obama"), lits("Barack Obama"), kb=kb)
    assert (q.tp, q.fp, q.fn) == (1, 1, 0)


def test_kb_lookups_use_the_question_language() -> None:
    req = GerbilMatcher().requests(iris("Berlin"), lits("Berlin"), language="de")
    assert req.resources_for_labels == frozenset({("Berlin", "de")})


def test_matching_is_one_to_one_and_greedy_in_gold_order() -> None:
    # Two gold IRIs that are the same resource and one system IRI: only one can be matched.
    kb = KBView(same_as_map={DBR + "A": frozenset({DBR + "A", DBR + "A2"})})
    judged = GerbilMatcher().match(iris("A", "A2"), iris("A"), kb, language="en")
    assert (judged.tp, judged.fp, judged.fn) == (1, 0, 1)


def test_invalid_url_system_values_fall_back_to_the_string_itself() -> None:
    # An angle-bracketed IRI is no valid URL: no label found, the string itself is the candidate.
    system = lits(f"<{DBR}Berlin>")
    _, q = score(iris("Berlin"), system)
    assert (q.tp, q.fp, q.fn) == (0, 1, 1)
