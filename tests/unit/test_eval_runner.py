"""``evaluate``: statuses, experiment types, sub-experiment markings, warnings, JSON contract."""

from __future__ import annotations

import json

import pytest

import service.sparql
from service.errors import BadRequest
from service.evaluation import evaluate
from service.evaluation.results import ExperimentType, QuestionStatus
from service.evaluation.subexperiments import from_query
from service.model import (
    Annotation,
    AnswerSet,
    Dataset,
    Question,
    QuestionText,
    SystemAnswer,
    SystemRun,
)
from tests.helpers import CONTRACT_MEASURES, lits

DBR = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
EN = (QuestionText("en", "Who?"),)

GOLD_Q = f"""SELECT DISTINCT ?uri WHERE {{
  ?uri a <{DBO}Person> ; <{DBO}birthPlace> <{DBR}Berlin> .
  ?uri <{DBO}height> "1.80"^^<http://www.w3.org/2001/XMLSchema#double> .
  ?x a <{DBO}City> . }}"""


def q(qid: str, answers: AnswerSet | None = None, **kw: object) -> Question:
    kw.setdefault("texts", EN)
    return Question(qid, answers=answers if answers is not None else AnswerSet(), **kw)  # type: ignore[arg-type]


# -- question statuses ----------------------------------------------------------------------------


def test_statuses_skipped_missing_failed() -> None:
    ds = Dataset(
        "d",
        (
            q("1", lits("a")),
            q("2", lits("b"), texts=(QuestionText("de", "Wer?"),)),  # no English text
            q("3", lits("c")),  # not in the answer file
            q("4", lits("d")),  # the call failed
            q("5", lits("e"), texts=(QuestionText("en", keywords="e keywords"),)),
        ),
    )
    run = SystemRun(
        "s",
        {
            "1": SystemAnswer("1", answers=lits("a"), runtime_ms=100.0),
            "2": SystemAnswer("2", answers=lits("b"), runtime_ms=50.0),
            "4": SystemAnswer("4", error="HTTP 500", runtime_ms=999.0),
            "5": SystemAnswer("5", answers=lits("e"), runtime_ms=300.0),
        },
    )
    task = evaluate(ds, run, profile="fair").tasks[ExperimentType.QA]
    statuses = [r.status for r in task.questions]
    assert statuses == [
        QuestionStatus.SCORED,
        QuestionStatus.NO_TEXT,
        QuestionStatus.MISSING,
        QuestionStatus.ERROR,
        QuestionStatus.SCORED,  # keywords in the language count as text
    ]
    skipped = task.questions[1]
    assert skipped.precision is None and skipped.processed is False  # left out, but listed
    assert [r.f1 for r in task.questions if r.f1 is not None] == [1.0, 0.0, 0.0, 1.0]
    m = task.measures
    assert (m["questions"], m["skippedQuestions"], m["errorCount"]) == (4, 1, 1)
    assert m["meanRuntime"] == pytest.approx(200.0)  # successful calls of scored questions only
    assert m["macroF1"] == 0.5


def test_questions_without_any_text_are_not_skipped() -> None:
    ds = Dataset("d", (Question("1", answers=lits("x")),))  # a TSV expected.tsv line
    run = SystemRun("s", {"1": SystemAnswer("1", answers=lits("x"))})
    assert evaluate(ds, run, profile="exact").tasks[ExperimentType.QA].measures["questions"] == 1


def test_question_only_files_have_no_gold_and_out_of_scope_is_empty_gold() -> None:
    ds = Dataset("d", (Question("1", EN), Question("2", EN, out_of_scope=True)))
    run = SystemRun("s", {"1": SystemAnswer("1"), "2": SystemAnswer("2")})
    task = evaluate(ds, run, profile="exact").tasks[ExperimentType.QA]
    assert [r.status for r in task.questions] == [QuestionStatus.NO_GOLD, QuestionStatus.SCORED]
    assert task.questions[1].f1 == 1.0 and task.measures["skippedQuestions"] == 1


def test_a_question_left_out_keeps_what_the_call_returned_as_a_scored_one_does() -> None:
    # the per-question view shows the call of a question without gold as of any other
    ds = Dataset("d", (Question("1", EN), q("2", lits("a"))))
    call = {
        "answers": lits("a"),
        "sparql": " SELECT ?x WHERE { ?x ?p ?o } ",
        "confidence": 0.75,
        "runtime_ms": 12.5,
        "attempts": 3,
        "retry_reason": "HTTP 503",
    }
    run = SystemRun("s", {i: SystemAnswer(i, **call) for i in ("1", "2")})  # type: ignore[arg-type]
    left_out, scored = evaluate(ds, run, profile="fair").tasks[ExperimentType.QA].questions
    assert (left_out.status, scored.status) == (QuestionStatus.NO_GOLD, QuestionStatus.SCORED)

    def of_call(r: object) -> tuple[object, ...]:
        names = ("failed", "runtime_ms", "confidence", "error", "system_query", "query_shape")
        return tuple(getattr(r, n) for n in (*names, "attempts", "retry_reason"))

    assert of_call(left_out) == of_call(scored)
    # the query as given, to the byte (its spaces were stripped: explore25 12)
    assert of_call(scored)[:5] == (False, 12.5, 0.75, None, " SELECT ?x WHERE { ?x ?p ?o } ")
    blank = SystemRun("s", {"2": SystemAnswer("2", answers=lits("a"), sparql=" \n")})
    [_, only] = evaluate(ds, blank, profile="fair").tasks[ExperimentType.QA].questions
    assert only.system_query is None  # whitespace alone is no query
    assert scored.query_shape is not None and of_call(scored)[6:] == (3, "HTTP 503")


def test_unknown_answer_ids_and_reader_problems_are_warnings() -> None:
    ds = Dataset("d", (q("1", lits("a")),))
    run = SystemRun("s", {"1": SystemAnswer("1"), "99": SystemAnswer("99")}, source="answers.json")
    ev = evaluate(ds, run, profile="fair")
    assert any("question ids the dataset does not have (99)" in str(p) for p in ev.problems)
    assert all(p.severity == "warning" for p in ev.problems)


def test_answers_without_a_confidence_among_answers_with_one_are_warned() -> None:
    # explore28 F12: two right answers without a confidence silently counted as confidence 0
    # in K, K1, r and CWS (they lowered r and went last in CWS)
    ds = Dataset("d", tuple(q(str(i), lits("a")) for i in range(1, 6)))
    given = {"1": 0.9, "2": None, "3": 0.5, "4": None}  # 5: not answered (warned apart)
    answers = {i: SystemAnswer(i, answers=lits("a"), confidence=c) for i, c in given.items()}
    ev = evaluate(ds, SystemRun("s", answers, source="answers.json"), profile="fair")
    said = [p.message for p in ev.problems if "confidence" in p.message]
    assert said == [
        "2 of 4 answers give no confidence while the others do (2, 4): each counts as "
        "confidence 0 in cws, k1, k and r"
    ]
    assert ev.tasks[ExperimentType.QA].measures["k1"] is not None  # reported all the same
    for same in ({i: 0.5 for i in given}, dict.fromkeys(given)):  # all given, or none: fine
        answers = {i: SystemAnswer(i, answers=lits("a"), confidence=c) for i, c in same.items()}
        ev = evaluate(ds, SystemRun("s", answers), profile="fair")
        assert not [p for p in ev.problems if "confidence" in p.message]


def test_progress_is_reported() -> None:
    ds = Dataset("d", tuple(q(str(i), lits("a")) for i in range(3)))
    run = SystemRun("s", {})
    calls: list[tuple[int, int]] = []
    evaluate(ds, run, profile="exact", progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


# -- experiment types -----------------------------------------------------------------------------


def test_default_types_follow_the_data() -> None:
    ds = Dataset("d", (q("1", lits("a"), sparql=GOLD_Q, answertype="resource"),))
    plain = SystemRun("s", {"1": SystemAnswer("1", answers=lits("a"))})
    assert list(evaluate(ds, plain, profile="fair").tasks) == [ExperimentType.QA]
    rich = SystemRun("s", {"1": SystemAnswer("1", sparql=GOLD_Q, answertype="resource")})
    assert list(evaluate(ds, rich, profile="fair").tasks) == list(ExperimentType)
    assert list(evaluate(ds, rich, profile="qald6").tasks) == [ExperimentType.QA]


def test_requested_types_and_unsupported_ones() -> None:
    ds = Dataset("d", (q("1", lits("a")),))
    run = SystemRun("s", {"1": SystemAnswer("1")})
    ev = evaluate(ds, run, profile="qald6", experiment_types=["QA", "C2KB"])
    assert list(ev.tasks) == [ExperimentType.QA]
    assert any("C2KB is left out" in p.message for p in ev.problems)
    ev = evaluate(ds, run, profile="fair", experiment_types=["re2kb", "QA"])
    assert list(ev.tasks) == [ExperimentType.QA, ExperimentType.RE2KB]
    # no gold query: the question is listed as no-gold and left out of RE2KB
    assert ev.tasks[ExperimentType.RE2KB].questions[0].status is QuestionStatus.NO_GOLD
    with pytest.raises(BadRequest, match="unknown experiment type"):
        evaluate(ds, run, profile="fair", experiment_types=["QALD"])


# -- sub-experiment markings ----------------------------------------------------------------------


def test_markings_from_a_query() -> None:
    parsed = service.sparql.parse_query(GOLD_Q)
    m = from_query(parsed, gerbil=False)
    assert m.resources == (DBR + "Berlin",)
    assert m.properties == (DBO + "birthPlace", DBO + "height")
    assert m.item_types == (DBO + "Person",)  # ?x is not projected: City is no answer item type
    assert len(m.relations) == 4
    assert (("var",), ("iri", RDF_TYPE), ("iri", DBO + "City")) in m.relations
    assert (("var",), ("iri", DBO + "height"), ("lit", "num", "1.8")) in m.relations
    g = from_query(parsed, gerbil=True)  # GERBIL also counts properties and types in C2KB
    assert set(g.resources) == {DBR + "Berlin", DBO + "birthPlace", DBO + "height", DBO + "Person"}
    # ours since fair/exact 1.2.0: the class of ?x, which AIT2KB does not read, is C2KB's
    # (it was scored nowhere but RE2KB; explore28 F11); the projected ?uri's stays AIT2KB's
    c = from_query(parsed, gerbil=False, classes=True)
    assert c.resources == (DBR + "Berlin", DBO + "City") and c.item_types == (DBO + "Person",)


def test_select_star_projects_everything_and_ask_nothing() -> None:
    star = service.sparql.parse_query(f"SELECT * WHERE {{ ?x a <{DBO}City> }}")
    assert from_query(star, gerbil=False).item_types == (DBO + "City",)
    ask = service.sparql.parse_query(f"ASK {{ <{DBR}A> a <{DBO}City> }}")
    assert from_query(ask, gerbil=False).item_types == ()
    assert from_query(ask, gerbil=False, classes=True).resources == (DBR + "A", DBO + "City")


@pytest.mark.parametrize(("profile", "c2kb"), [("fair", 1.0), ("exact", 1.0), ("gerbil", 0.0)])
def test_a_wrong_class_of_a_variable_not_projected_is_scored_in_c2kb(
    profile: str, c2kb: float
) -> None:
    """A system query naming another class for ?y (no answer variable) scored C2KB, P2KB and
    AIT2KB 1.0 and only RE2KB saw it (explore28 F11): our profiles count that class in C2KB.
    (gerbil keeps GERBIL's markings: C2KB holds the properties and the projected classes.)"""
    gold = f"SELECT ?x WHERE {{ ?y a <{DBO}City> . ?y <{DBO}mayor> ?x }}"
    wrong = f"SELECT ?x WHERE {{ ?y a <{DBO}Village> . ?y <{DBO}mayor> ?x }}"
    ev = run_sub(gold, wrong, profile=profile)
    assert ev.tasks[ExperimentType.C2KB].measures["macroF1"] == 1.0 - c2kb
    assert ev.tasks[ExperimentType.P2KB].measures["macroF1"] == 1.0


def run_sub(gold_query: str | None, system_query: str | None, profile: str = "fair", **kw: object):
    ds = Dataset("d", (q("1", lits("a"), sparql=gold_query, **kw),))
    run = SystemRun("s", {"1": SystemAnswer("1", sparql=system_query)})
    return evaluate(ds, run, profile=profile, experiment_types=list(ExperimentType))


def test_re2kb_ignores_variable_names_not_positions_and_compares_literals_by_value() -> None:
    gold = f'SELECT ?a WHERE {{ ?a <{DBO}p> <{DBR}B> . ?a <{DBO}n> 5 . ?a <{DBO}s> "x"@en }}'
    renamed = f'SELECT ?z WHERE {{ ?z <{DBO}p> <{DBR}B> . ?z <{DBO}n> 5.0 . ?z <{DBO}s> "x" }}'
    swapped = f'SELECT ?z WHERE {{ <{DBR}B> <{DBO}p> ?z . ?z <{DBO}n> "5" . ?z <{DBO}s> "X" }}'
    assert run_sub(gold, renamed).tasks[ExperimentType.RE2KB].questions[0].tp == 3
    q2 = run_sub(gold, swapped, profile="exact").tasks[ExperimentType.RE2KB].questions[0]
    assert (q2.tp, q2.fp, q2.fn) == (0, 3, 3)  # positions swapped; "5" is a string; case


def test_a_sub_experiment_counts_the_failed_calls_of_its_own_questions() -> None:
    """C2KB counted the failed call of a question it leaves out (no gold query): errorCount 1
    of 1 question scored, 3 of 2 in a real run (explore28 F15). QA, which scores it, counts it."""
    ds = Dataset("d", (q("1", lits("a"), sparql=GOLD_Q), q("2", lits("b"))))
    run = SystemRun(
        "s",
        {
            "1": SystemAnswer("1", answers=lits("a"), sparql=GOLD_Q),
            "2": SystemAnswer("2", error="HTTP 500"),
        },
    )
    ev = evaluate(ds, run, profile="fair", experiment_types=["QA", "C2KB"])
    qa, c2kb = (ev.tasks[t].measures for t in (ExperimentType.QA, ExperimentType.C2KB))
    assert (qa["questions"], qa["errorCount"]) == (2, 1)
    assert (c2kb["questions"], c2kb["skippedQuestions"], c2kb["errorCount"]) == (1, 1, 0)


def test_sub_experiments_of_a_system_giving_no_query_say_so() -> None:
    """C2KB 0.0025 on QALD-10 for a system that gave answers only, and no word why (explore28
    F19): a warning says the numbers measure nothing; a system giving queries gets none."""
    silent = run_sub(GOLD_Q, None)
    said = [p.message for p in silent.problems if "gave no SPARQL query" in p.message]
    assert said and said[0].startswith("C2KB, P2KB, RE2KB, AIT2KB: ")  # the gold has no AT
    typed = run_sub(GOLD_Q, None, answertype="resource")  # a gold answer type: AT's 0 too
    said = [p.message for p in typed.problems if "gave no SPARQL query" in p.message]
    assert said and said[0].startswith("C2KB, P2KB, RE2KB, AIT2KB, AT: ")
    assert not [p for p in run_sub(GOLD_Q, GOLD_Q).problems if "gave no SPARQL" in p.message]
    # a query given that failed on the KB marks nothing, yet was given (explore46 8)
    ds = Dataset("d", (q("1", lits("a"), sparql=GOLD_Q),))
    insert = "INSERT DATA { <http://a> <http://b> <http://c> }"
    failed = SystemAnswer("1", sparql=insert, error="not-select-or-ask: an update (INSERT)")
    ev = evaluate(ds, SystemRun("s", {"1": failed}), profile="fair", experiment_types=["C2KB"])
    assert not [p for p in ev.problems if "gave no SPARQL" in p.message], ev.problems


def test_unparsable_sparql_is_a_warning_never_a_crash() -> None:
    ev = run_sub(GOLD_Q, "SELECT ?x WHERE { ?x ?p ")
    c2kb = ev.tasks[ExperimentType.C2KB].questions[0]
    assert (c2kb.tp, c2kb.fp, c2kb.fn) == (0, 0, 2)  # no system markings (Berlin, City)
    assert any("system SPARQL query does not parse" in p.message for p in ev.problems)
    ev = run_sub("SELEKT nonsense", GOLD_Q)
    assert ev.tasks[ExperimentType.C2KB].questions[0].status is QuestionStatus.NO_GOLD
    assert any("gold SPARQL query does not parse" in p.message for p in ev.problems)


def test_each_query_string_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.sparql.parser import Parser

    calls: list[int] = []
    real = Parser.parse

    def counting(self):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(self)

    monkeypatch.setattr(Parser, "parse", counting)
    ds = Dataset("d", tuple(q(str(i), lits("a"), sparql=GOLD_Q) for i in range(5)))
    run = SystemRun("s", {str(i): SystemAnswer(str(i), sparql=GOLD_Q) for i in range(5)})
    ev = evaluate(ds, run, profile="fair")
    assert len(ev.tasks) == 5 and len(calls) == 1  # every type but AT (no answer type)
    # the query shapes share that one parse
    shape = ev.tasks[ExperimentType.QA].questions[0].query_shape
    assert shape is not None and shape["system"] == shape["gold"]


def test_eqald_annotations_and_answer_types() -> None:
    notes = (
        Annotation("dbr:Berlin", "ENTITY"),
        Annotation("dbo:birthPlace", "PROPERTY"),
        Annotation(f"<{DBO}Person>", "CLASS"),
    )
    ds = Dataset("d", (q("1", lits("a"), texts=(QuestionText("en", "Who?", annotations=notes),),
                         answertype="resource"),))  # fmt: skip
    run = SystemRun(
        "s",
        {"1": SystemAnswer("1", annotations=notes[:1], answertype="resouce",
                           answer_item_types=("dbo:Person",))},
    )  # fmt: skip
    ev = evaluate(ds, run, profile="fair")
    assert list(ev.tasks) == [
        ExperimentType.QA,
        ExperimentType.C2KB,
        ExperimentType.AT,
        ExperimentType.AIT2KB,
    ]
    assert ev.tasks[ExperimentType.C2KB].questions[0].f1 == 1.0
    assert ev.tasks[ExperimentType.AT].questions[0].f1 == 1.0  # "resouce" typo accepted
    assert ev.tasks[ExperimentType.AIT2KB].questions[0].f1 == 1.0
    wrong = SystemRun("s", {"1": SystemAnswer("1", answertype="date")})
    assert evaluate(ds, wrong, profile="fair").tasks[ExperimentType.AT].questions[0].f1 == 0.0
    # annotations give no relations: a gold of annotations alone has none for RE2KB, which
    # leaves the question out (it scored 1.0, nothing against nothing; explore28 F18)
    every = evaluate(ds, run, profile="fair", experiment_types=list(ExperimentType))
    re2kb = every.tasks[ExperimentType.RE2KB]
    assert re2kb.questions[0].status is QuestionStatus.NO_GOLD
    assert re2kb.measures["macroF1"] is None and re2kb.measures["skippedQuestions"] == 1


def test_fair_sub_experiments_use_iri_identity_exact_does_not() -> None:
    wiki = f"SELECT ?x WHERE {{ ?x <{DBO}birthPlace> <https://en.wikipedia.org/wiki/Berlin> }}"
    gold = f"SELECT ?x WHERE {{ ?x <{DBO}birthPlace> <{DBR}Berlin> }}"
    assert run_sub(gold, wiki, "fair").tasks[ExperimentType.C2KB].questions[0].tp == 1
    assert run_sub(gold, wiki, "fair").tasks[ExperimentType.RE2KB].questions[0].tp == 1
    assert run_sub(gold, wiki, "exact").tasks[ExperimentType.C2KB].questions[0].tp == 0


# -- the JSON contract ----------------------------------------------------------------------------


def test_json_contract() -> None:
    ds = Dataset("qald-x", (q("1", lits("a"), sparql=GOLD_Q), q("2", lits("b"))))
    run = SystemRun("sys", {"1": SystemAnswer("1", answers=lits("a"), sparql=GOLD_Q)})
    out = json.loads(json.dumps(evaluate(ds, run, profile="fair").to_json()))
    for key in ("dataset", "system", "profile", "profileVersion", "signature", "language"):
        assert out[key]
    assert (out["dataset"], out["system"], out["profile"], out["language"]) == (
        "qald-x",
        "sys",
        "fair",
        "en",
    )
    assert out["signature"].startswith("gerbil-qa:fair|v:1.4.0|")
    assert set(out["results"]) == {t.value for t in ExperimentType} - {"AT"}
    for measures in out["results"].values():
        for name in CONTRACT_MEASURES:
            assert name in measures
    first, second = out["questions"]
    assert first["id"] == "1" and set(first["QA"]) == {
        "tp",
        "fp",
        "fn",
        "precision",
        "recall",
        "f1",
    }
    assert second["status"] == "missing"


def test_a_query_the_lexer_refuses_is_a_warning_too() -> None:
    """A character no SPARQL token starts with (the lexer refuses it while the parser is being
    built) is a warning and no markings, like any other parse failure, never a crash."""
    ev = run_sub(GOLD_Q, "SELECT ?x WHERE { ?x ?p ?o & }")
    c2kb = ev.tasks[ExperimentType.C2KB].questions[0]
    assert (c2kb.tp, c2kb.fp) == (0, 0)
    assert any("unexpected character '&'" in p.message for p in ev.problems)
    shape = ev.tasks[ExperimentType.QA].questions[0].query_shape
    assert shape is not None and "unexpected character" in shape["system"]["error"]


@pytest.mark.parametrize(
    "profile", ["fair", "gerbil", "exact", "qald6", "qald-legacy", "text2sparql"]
)
def test_every_profile_keeps_the_items_its_verdicts_judge_in_the_systems_order(
    profile: str,
) -> None:
    """explore28 F10: ``given`` is distinct, so the order and repeats the confidence and rank
    measures read were nowhere; ``ranked`` holds the item of each verdict."""
    from service.model import Term

    ex = "http://example.org/"
    gold = AnswerSet.of([Term.iri(ex + "Paris")])
    given = AnswerSet.of([Term.iri(ex + "Paris"), Term.iri(ex + "Berlin"), Term.iri(ex + "Paris")])
    ds = Dataset("d", (q("1", gold),))
    run = SystemRun("s", {"1": SystemAnswer("1", answers=given, confidence=0.5)})
    [record] = (
        evaluate(ds, run, profile=profile, experiment_types=["QA"])
        .tasks[ExperimentType.QA]
        .questions
    )
    assert len(record.ranked) == len(record.verdicts) == 3
    assert [ex + "Berlin" in shown for shown in record.ranked] == [False, True, False]
    assert str(record.verdicts[0]) == "correct" and str(record.verdicts[1]) == "wrong"
