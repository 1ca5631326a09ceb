"""The ``fair`` profile's rules (service/evaluation/matchers/fair.py), one test per rule."""

from __future__ import annotations

import pytest

from service.evaluation import evaluate
from service.evaluation.matchers.fair import FairMatcher
from service.evaluation.results import ExperimentType
from service.kb.local import LocalKB
from service.model import (
    XSD,
    AnswerSet,
    Dataset,
    Question,
    QuestionText,
    SystemAnswer,
    SystemRun,
    Term,
)
from tests.helpers import kb_from_rdf

DBR = "http://dbpedia.org/resource/"


def judge(gold: list[Term], system: list[Term], *, kb: LocalKB | None = None):
    ds = Dataset("d", (Question("1", (QuestionText("en", "q?"),), answers=AnswerSet.of(gold)),))
    run = SystemRun("s", {"1": SystemAnswer("1", answers=AnswerSet.of(system))})
    ev = evaluate(ds, run, profile="fair", kb=kb, experiment_types=["QA"])
    q = ev.tasks[ExperimentType.QA].questions[0]
    return q.tp, q.fp, q.fn


def lit(value: str, datatype: str | None = None, lang: str | None = None) -> Term:
    return Term.literal(value, datatype=datatype, lang=lang)


# -- literals by value ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "system"),
    [
        (lit("8"), lit("8.0")),
        (lit("8", XSD + "integer"), lit("8.0", XSD + "double")),
        (lit("1500000", XSD + "integer"), lit("1.5E6", XSD + "double")),
        (lit("0.1", XSD + "decimal"), lit("0.10")),
    ],
)
def test_numbers_compare_numerically(gold: Term, system: Term) -> None:
    assert judge([gold], [system]) == (1, 0, 0)


def test_different_numbers_do_not_match() -> None:
    assert judge([lit("8")], [lit("8.01")]) == (0, 1, 1)


@pytest.mark.parametrize(
    ("gold", "system", "match"),
    [
        (lit("1990", XSD + "gYear"), lit("1990-05-03", XSD + "date"), True),
        (lit("1990-05", XSD + "gYearMonth"), lit("1990-05-03T00:00:00Z", XSD + "dateTime"), True),
        (lit("1990-05-03", XSD + "date"), lit("1990-05-03T00:00:00", XSD + "dateTime"), True),
        (lit("1990-05-03", XSD + "date"), lit("1990", XSD + "gYear"), False),  # too coarse
        (lit("1990-05-03", XSD + "date"), lit("1990-05-04", XSD + "date"), False),
        (lit("1990", XSD + "gYear"), lit("1990", XSD + "integer"), True),  # a year as a number
        (lit("1990-05-03"), lit("1990-05-03", XSD + "date"), True),  # untyped gold date
    ],
)
def test_dates_at_the_gold_granularity(gold: Term, system: Term, match: bool) -> None:
    assert judge([gold], [system])[0] == int(match)


def test_booleans() -> None:
    assert judge([Term.boolean(True)], [lit("TRUE")]) == (1, 0, 0)
    assert judge([Term.boolean(True)], [lit("1", XSD + "boolean")]) == (1, 0, 0)
    assert judge([Term.boolean(False)], [Term.boolean(True)]) == (0, 1, 1)


def test_strings_ignore_case_whitespace_and_language() -> None:
    assert judge([lit("New  York City", lang="en")], [lit(" new york city", lang="de")]) == (
        1,
        0,
        0,
    )
    assert judge([lit("Straße")], [lit("STRASSE")]) == (1, 0, 0)  # case folding
    assert judge([lit("New York")], [lit("New York City")]) == (0, 1, 1)


def test_wrong_literals_are_false_positives() -> None:
    # Unlike gerbil (FP_s = 0), every system item left unmatched counts.
    assert judge([lit("a"), lit("b")], [lit("a"), lit("c"), lit("d")]) == (1, 2, 1)


def test_equal_values_count_once() -> None:
    assert judge([lit("8")], [lit("8"), lit("8.0"), lit("8e0")]) == (1, 0, 0)


# -- IRIs -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "system",
    [
        "https://en.wikipedia.org/wiki/Kurt_G%C3%B6del",
        "http://en.wikipedia.org/wiki/Kurt Gödel",
        "https://dbpedia.org/resource/Kurt_Gödel",
        "http://dbpedia.org/page/Kurt_G%C3%B6del",
        "<http://dbpedia.org/resource/Kurt_Gödel>",
    ],
)
def test_wikipedia_dbpedia_and_spelling_identity(system: str) -> None:
    assert judge([Term.iri(DBR + "Kurt_G%C3%B6del")], [Term.iri(system)]) == (1, 0, 0)


def test_other_language_editions_map_to_their_chapter() -> None:
    gold = [Term.iri("http://de.dbpedia.org/resource/Berlin")]
    assert judge(gold, [Term.iri("https://de.wikipedia.org/wiki/Berlin")]) == (1, 0, 0)
    assert judge(gold, [Term.iri(DBR + "Berlin")]) == (0, 1, 1)  # no KB: another resource


def test_a_uri_typed_value_that_is_no_uri_is_a_literal() -> None:
    assert judge([lit("Germany")], [Term.iri("Germany")]) == (1, 0, 0)
    assert judge([Term.boolean(False)], [Term.iri("false")]) == (1, 0, 0)


def test_a_literal_holding_a_url_is_an_iri() -> None:
    assert judge([Term.iri(DBR + "Berlin")], [lit(DBR + "Berlin")]) == (1, 0, 0)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> LocalKB:
    lines = [
        f"<{DBR}Berlin> <http://www.w3.org/2002/07/owl#sameAs> "
        "<http://www.wikidata.org/entity/Q64> .",
        "<http://de.dbpedia.org/resource/Berlin> <http://www.w3.org/2002/07/owl#sameAs> "
        "<http://www.wikidata.org/entity/Q64> .",
        f'<{DBR}Berlin> <http://www.w3.org/2000/01/rdf-schema#label> "Berlin"@en .',
        f'<{DBR}Berlin> <http://www.w3.org/2000/01/rdf-schema#label> "Berlín"@es .',
        f'<{DBR}Bonn> <http://www.w3.org/2000/01/rdf-schema#label> "Bonn"@de .',
    ]
    return kb_from_rdf(tmp_path_factory, "\n".join(lines) + "\n", name="kb.nt")


def test_sameas_on_both_sides(kb: LocalKB) -> None:
    # Gold de.dbpedia, system dbr: only connected through Wikidata, from either side.
    gold = [Term.iri("http://de.dbpedia.org/resource/Berlin")]
    assert judge(gold, [Term.iri(DBR + "Berlin")], kb=kb) == (1, 0, 0)
    assert judge([Term.iri(DBR + "Berlin")], gold, kb=kb) == (1, 0, 0)
    # A Wikipedia spelling of the system IRI reaches the same closure.
    assert judge(gold, [Term.iri("https://en.wikipedia.org/wiki/Berlin")], kb=kb) == (1, 0, 0)


def test_the_kb_is_asked_every_spelling_at_once() -> None:
    # the KB may hold the percent-encoded spelling of a Wikipedia article's resource
    gold = AnswerSet.of([Term.iri("https://en.wikipedia.org/wiki/Café")])
    system = AnswerSet.of([Term.iri("http://www.wikidata.org/entity/Q30022")])
    asked = FairMatcher().requests(gold, system, language="en").same_as
    assert {DBR + "Caf%C3%A9", DBR + "Café", "http://www.wikidata.org/entity/Q30022"} <= asked


def test_labels_in_both_directions(kb: LocalKB) -> None:
    # system string -> resource (any language, case as in the KB)
    assert judge([Term.iri(DBR + "Bonn")], [lit("Bonn")], kb=kb) == (1, 0, 0)
    # system IRI -> its labels, compared with the gold string by the string rule
    assert judge([lit("berlín", lang="es")], [Term.iri(DBR + "Berlin")], kb=kb) == (1, 0, 0)
    # without the KB neither matches
    assert judge([Term.iri(DBR + "Bonn")], [lit("Bonn")]) == (0, 1, 1)


def test_matching_is_maximal_whatever_the_order() -> None:
    # System "1990" (a number and a year) could take either gold item; "1990-01-01" only the
    # date. A greedy matcher taking the date for "1990" first would lose a pair.
    gold = [lit("1990", XSD + "gYear"), lit("1990", XSD + "integer")]
    assert judge(gold, [lit("1990"), lit("1990-01-01", XSD + "date")]) == (2, 0, 0)
    assert judge(gold, [lit("1990-01-01", XSD + "date"), lit("1990")]) == (2, 0, 0)


def test_empty_rules_are_standard() -> None:
    assert judge([], []) == (0, 0, 0)
    ds = Dataset("d", (Question("1", (QuestionText("en", "q?"),), answers=AnswerSet()),))
    run = SystemRun("s", {"1": SystemAnswer("1")})
    q = evaluate(ds, run, profile="fair").tasks[ExperimentType.QA].questions[0]
    assert (q.precision, q.recall, q.f1) == (1.0, 1.0, 1.0)
