"""The KB ``--kb FILE`` opens (service/kb/local.py: an in-memory Oxigraph store loaded from the
file) and the batching of KB lookups during evaluation."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.errors import BadRequest, FormatError
from service.evaluation import evaluate
from service.evaluation.results import ExperimentType
from service.kb import KnowledgeBase
from service.kb.local import LocalKB
from service.model import AnswerSet, Dataset, Question, QuestionText, SystemAnswer, SystemRun, Term
from tests.helpers import kb_from_rdf

DBR = "http://dbpedia.org/resource/"
OWL = "http://www.w3.org/2002/07/owl#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
ONE_BATCH = 100_000  # more keys than any call below asks (spellings included): a call is a trip

TTL = f"""
@prefix owl: <{OWL}> . @prefix rdfs: <{RDFS}> . @prefix dbr: <{DBR}> .
dbr:A owl:sameAs dbr:B .
dbr:C owl:sameAs dbr:B .
dbr:D owl:sameAs dbr:C .
dbr:X owl:sameAs dbr:Y .
dbr:A rdfs:label "Alpha"@en , "Alfa"@de , "Alpha"@en-GB , "alpha" .
dbr:Z rdfs:label "Alpha"@en .
dbr:A a <http://dbpedia.org/ontology/Letter> , <http://dbpedia.org/ontology/Thing> .
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> LocalKB:
    return kb_from_rdf(tmp_path_factory, TTL, version="test-1", batch_size=ONE_BATCH)


def test_it_implements_the_protocol(kb: LocalKB) -> None:
    assert isinstance(kb, KnowledgeBase)
    assert kb.identity.startswith("file:sha256:") and len(kb.identity) == 12 + 64
    assert kb.version == "test-1"


def test_sameas_closure_is_symmetric_and_transitive(kb: LocalKB) -> None:
    group = frozenset(DBR + n for n in "ABCD")
    closures = kb.same_as([DBR + "A", DBR + "D", DBR + "X", DBR + "Q"])
    assert closures[DBR + "A"] == group and closures[DBR + "D"] == group
    assert closures[DBR + "X"] == {DBR + "X", DBR + "Y"}
    assert closures[DBR + "Q"] == {DBR + "Q"}  # unknown: itself


def test_labels_both_ways(kb: LocalKB) -> None:
    found = kb.resources_for_labels([("Alpha", "en"), ("Alpha", None), ("Alfa", "en"), ("x", None)])
    assert found[("Alpha", "en")] == {DBR + "A", DBR + "Z"}  # exact tag, not en-GB's
    assert found[("Alpha", None)] == {DBR + "A", DBR + "Z"}
    assert found[("Alfa", "en")] == frozenset() and found[("x", None)] == frozenset()
    labels = kb.labels_for_resources([DBR + "A"], language="en")
    assert labels[DBR + "A"] == {"Alpha"}  # langMatches: en and en-GB, not the untagged one
    assert kb.labels_for_resources([DBR + "A"])[DBR + "A"] == {"Alpha", "Alfa", "alpha"}


def test_label_golds_scored_without_a_kb_are_warned_of(kb: LocalKB) -> None:
    """explore28 F13: NLQ's label golds answered with DBpedia IRIs scored 0 under fair with no
    KB, nothing said; with the KB the same answers match."""
    en = (QuestionText("en", "Which?"),)
    iri = AnswerSet.of([Term.iri(DBR + "A")])
    label = AnswerSet.of([Term.literal("Alpha")])
    dataset = Dataset(
        "d",
        (
            Question("1", en, answers=label),  # gold label, system IRI
            Question("2", en, answers=label),  # the same
            Question("3", en, answers=iri),  # gold IRI, system label
            Question("4", en, answers=label),  # both labels: nothing to say
            Question("5", en, answers=label),  # not answered: nothing to say
        ),
    )
    run = SystemRun(
        "s",
        {
            "1": SystemAnswer("1", answers=iri),
            "2": SystemAnswer("2", answers=AnswerSet.of([Term.literal(f" {DBR}A ")])),  # a URL
            "3": SystemAnswer("3", answers=label),
            "4": SystemAnswer("4", answers=label),
        },
        source="sys.json",
    )

    def said(profile: str, with_kb: LocalKB | None) -> list[str]:
        found = evaluate(dataset, run, profile=profile, kb=with_kb, experiment_types=["QA"])
        return [p.message for p in found.problems if "give --kb" in p.message]

    # numbers, dates and booleans are no labels: a KB changes nothing for them (explore30 F5)
    counted = Dataset("c", (Question("1", en, answers=AnswerSet.of([Term.literal("1990")])),))
    counting = SystemRun("s", {"1": SystemAnswer("1", answers=iri)})
    assert not [
        p
        for p in evaluate(counted, counting, profile="fair", experiment_types=["QA"]).problems
        if "give --kb" in p.message
    ]
    [warning] = said("fair", None)
    assert warning == (
        "2 of 5 questions have gold answers that are labels (literals) and system answers that "
        "are IRIs; 1 of 5 questions have gold answers that are IRIs and system answers that are "
        "labels (literals): the fair profile matches labels and IRIs through a KB and none was "
        "given, so each of them scores as wrong: give --kb (or the run's kb) to match labels "
        "and IRIs"
    )
    assert said("fair", kb) == []  # matched through the KB's labels instead
    scored = evaluate(dataset, run, profile="fair", kb=kb, experiment_types=["QA"])
    assert [r.tp for r in scored.tasks[ExperimentType.QA].questions[:4]] == [1, 1, 1, 1]
    # gerbil looks a system label up as a resource, never a system IRI's labels
    [gerbil] = said("gerbil", None)
    assert gerbil.startswith("1 of 5 questions have gold answers that are IRIs and system")
    assert said("exact", None) == []  # exact strings: no KB would change a score


def test_types_and_select(kb: LocalKB) -> None:
    types = kb.types_of([DBR + "A", DBR + "B"])
    assert types[DBR + "A"] == {
        "http://dbpedia.org/ontology/Letter",
        "http://dbpedia.org/ontology/Thing",
    }
    assert types[DBR + "B"] == frozenset()
    result = kb.select(f"SELECT ?l WHERE {{ <{DBR}A> <{RDFS}label> ?l FILTER(lang(?l) = 'de') }}")
    assert [row["l"] for row in result.rows] == [Term.literal("Alfa", lang="de")]
    assert kb.select(f"ASK {{ <{DBR}A> <{OWL}sameAs> <{DBR}B> }}").boolean is True
    with pytest.raises(BadRequest):
        kb.select("SELECT nonsense")


def test_round_trips_count_calls_not_keys(kb: LocalKB) -> None:
    before = kb.round_trips
    kb.same_as([DBR + str(i) for i in range(1000)])
    kb.types_of([DBR + "A"])
    assert kb.round_trips == before + 2


def test_bad_files_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text("<http://x> <http://y> .\n", encoding="utf-8")
    with pytest.raises(FormatError) as err:
        LocalKB([bad])
    assert err.value.file == str(bad) and err.value.line is not None
    unknown = tmp_path / "kb.unknown"
    unknown.write_text("x", encoding="utf-8")
    with pytest.raises(FormatError, match="RDF syntax"):
        LocalKB([unknown])
    with pytest.raises(FormatError, match="not found"):
        LocalKB([tmp_path / "missing.ttl"])


def _experiment(n_questions: int, n_answers: int) -> tuple[Dataset, SystemRun]:
    qs, answers = [], {}
    for q in range(n_questions):
        gold = AnswerSet.of(Term.iri(f"{DBR}G{q}_{i}") for i in range(n_answers))
        qs.append(Question(str(q), (QuestionText("en", "q?"),), answers=gold))
        given = [Term.iri(f"{DBR}S{q}_{i}") for i in range(n_answers)]
        given += [Term.literal(f"label {q} {i}") for i in range(n_answers)]
        answers[str(q)] = SystemAnswer(str(q), answers=AnswerSet.of(given))
    return Dataset("d", tuple(qs)), SystemRun("s", answers)


@pytest.mark.parametrize("profile", ["gerbil", "fair"])
def test_kb_round_trips_do_not_depend_on_the_number_of_answers(kb: LocalKB, profile: str) -> None:
    counts = []
    for n_questions, n_answers in ((1, 1), (20, 50)):
        ds, run = _experiment(n_questions, n_answers)
        before = kb.round_trips
        evaluate(ds, run, profile=profile, kb=kb)
        counts.append(kb.round_trips - before)
    assert counts[0] == counts[1]
    assert 1 <= counts[1] <= 3  # labels (one call per direction) then sameAs


def test_profiles_without_kb_never_ask_it(kb: LocalKB) -> None:
    ds, run = _experiment(3, 3)
    before = kb.round_trips
    for profile in ("exact", "qald6", "qald-legacy"):
        ev = evaluate(ds, run, profile=profile, kb=kb)
        assert ev.kb is None and ev.signature.endswith("kb:no")
    assert kb.round_trips == before
    ev = evaluate(ds, run, profile="fair", kb=kb)
    assert ev.kb == f"{kb.identity} (test-1)"
    assert ev.signature.endswith(f"|kb:{kb.identity}_(test-1)")


@pytest.mark.parametrize("profile", ["gerbil", "fair"])
def test_an_iri_no_store_can_hold_is_scored_without_failing_the_lookup(
    kb: LocalKB, profile: str
) -> None:
    # Found by the reliability suite's fuzzed uploads: a gold IRI "http://ex]ample.org/…"
    # made the KB lookup fail (Oxigraph refuses the whole VALUES query), so the experiment
    # ended in error; then the spellings of it raised ValueError ("Invalid IPv6 URL").
    odd = "http://ex]ample.org/solar/Uranus"
    gold = AnswerSet.of([Term.iri(odd), Term.iri(DBR + "A")])
    dataset = Dataset("d", (Question("1", (QuestionText("en", "q?"),), answers=gold),))
    given = AnswerSet.of([Term.iri(odd), Term.iri(DBR + "B")])
    run = SystemRun("s", {"1": SystemAnswer("1", answers=given)})
    evaluation = evaluate(dataset, run, profile=profile, kb=kb)
    assert evaluation.tasks  # scored; the odd IRI matched as itself, A and B by owl:sameAs
    assert kb.same_as([odd])[odd] == {odd}


def test_a_label_is_found_however_its_tag_is_spelt(kb: LocalKB) -> None:
    """``"Alpha"@en-GB`` is the label asked in ``en-GB``, ``EN-gb`` or QALD's ``en_GB``: tags
    compare without regard to case (BCP 47). ``en_GB`` found nothing (explore53 F12: the
    gerbil profile's label lookup depended on how the task's tag was spelt)."""
    asked = [("Alpha", "en-GB"), ("Alpha", "EN-gb"), ("Alpha", "en_GB")]
    found = kb.resources_for_labels(asked)
    assert {key: set(found[key]) for key in asked} == {key: {DBR + "A"} for key in asked}
    for spelt in ("en-GB", "en_GB", "EN-gb"):
        assert kb.labels_for_resources([DBR + "A"], language=spelt)[DBR + "A"] == {"Alpha"}
