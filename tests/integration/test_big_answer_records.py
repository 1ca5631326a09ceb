"""What one big answer file leaves in the store stays bounded: at most RECORDED_GIVEN given
answers per question result and RECORDED_GIVEN_PER_TASK per task (plus every answer an
explanation names), and the API's results read no per-answer triple at all."""

from __future__ import annotations

import pytest

from service.evaluation.profiles import get_profile
from service.evaluation.results import (
    Evaluation,
    ExperimentType,
    MatchRule,
    QuestionScore,
    TaskScores,
)
from service.graph import results
from service.graph.reader import evaluations
from service.graph.results import DatasetRef
from service.graph.store import open_storage
from service.model import AnswerSet, Dataset, Question, QuestionText, Term
from service.web import pages

GQA = "http://w3id.org/gerbil/qa/vocab#"
SIZES = {"q1": 50, "q2": 50, "q3": 30}


def _given(qid: str, n: int) -> tuple[str, ...]:
    return tuple(f"<http://example.org/{qid}/a{i}>" for i in range(n))


def _record(store):
    dataset = Dataset(
        "big",
        tuple(
            Question(
                qid,
                texts=(QuestionText("en", f"{qid}?"),),
                answers=AnswerSet.of([Term.iri(f"http://example.org/{qid}/a45")]),
            )
            for qid in SIZES
        ),
    )
    scores = []
    for qid, n in SIZES.items():
        given = _given(qid, n)
        # the given answer 45 (or the last) matches the gold answer exactly; the rest are false
        hit = min(45, n - 1)
        scores.append(
            QuestionScore(
                qid,
                tp=1,
                fp=n - 1,
                fn=0,
                precision=1 / n,
                recall=1.0,
                f1=2 / (n + 1),
                gold=(given[hit],),
                given=given,
                matches=((hit, 0, MatchRule.EXACT),),
            )
        )
    measures = {"microF1": 0.1, "macroF1": 0.1, "questions": 3, "errorCount": 0}
    task = TaskScores(ExperimentType.QA, measures, tuple(scores))
    evaluation = Evaluation("big", "sys", get_profile("exact"), "en", {ExperimentType.QA: task})
    return store.experiments.record([evaluation], dataset=DatasetRef.upload("big", dataset))


def _objects(quads, subject: str, prop: str) -> set[str]:
    return {
        q.object.value
        for q in quads
        if q.subject.value == subject and q.predicate.value == GQA + prop
    }


def test_given_answers_are_bounded_and_keep_what_explanations_name(monkeypatch) -> None:
    monkeypatch.setattr(results, "RECORDED_GIVEN", 10)
    monkeypatch.setattr(results, "RECORDED_GIVEN_PER_TASK", 25)
    monkeypatch.setattr(results, "EXPLAINED_PER_KIND", 5)
    store = open_storage(None, catalog=False)
    ticket = _record(store)
    quads = store.experiments.quads(ticket.id)
    recorded = {}
    for qid in SIZES:
        subject = store.uris.question_result(ticket.id, 1, qid)
        given = _objects(quads, subject, "givenAnswer")
        named = _objects(quads, subject, "exactAnswer") | _objects(quads, subject, "falseAnswer")
        assert named <= given  # every answer an explanation names is a given answer
        recorded[qid] = given - named
        first = {v.strip("<>") for v in _given(qid, SIZES[qid])}
        assert given <= first
    # q1: its first 10 (the task's budget 25 left 15); q2: 10 of the 15 left; q3: the last 5
    assert [
        len(recorded[q] - {f"http://example.org/{q}/a{i}" for i in range(5)}) for q in SIZES
    ] == [
        5,
        5,
        0,
    ]
    assert sorted(
        len(_objects(quads, store.uris.question_result(ticket.id, 1, q), "givenAnswer"))
        for q in SIZES
    ) == [6, 11, 11]


def test_the_api_results_read_no_answer_triples() -> None:
    store = open_storage(None, catalog=False)
    ticket = _record(store)
    every = store.experiments.quads(ticket.id)
    lean = store.experiments.quads(ticket.id, answers=False)
    assert len(lean) < len(every)
    names = {q.predicate.value.removeprefix(GQA) for q in lean}
    assert not names & {"givenAnswer", "exactAnswer", "falseAnswer", "missedAnswer", "answerMatch"}
    assert evaluations(lean, store.uris, ticket.id) == evaluations(every, store.uris, ticket.id)
    page, full = (pages.experiment_page(ticket.id, q, store.uris) for q in (lean, every))
    assert page == full


@pytest.mark.parametrize("n", [9, 10])
def test_a_short_list_is_written_whole(monkeypatch, n: int) -> None:
    monkeypatch.setattr(results, "RECORDED_GIVEN", 10)
    monkeypatch.setitem(SIZES, "q1", n)
    store = open_storage(None, catalog=False)
    ticket = _record(store)
    quads = store.experiments.quads(ticket.id)
    subject = store.uris.question_result(ticket.id, 1, "q1")
    assert len(_objects(quads, subject, "givenAnswer")) == n


def test_the_api_results_of_a_real_run_with_warnings_read_the_same() -> None:
    """The demo's partial answers under ``fair``: matches by several rules, false and missed
    answers, and warnings (blank nodes) that the lean read must keep."""
    from service.experiments.run import run_experiment
    from service.experiments.spec import ExperimentSpec, FileDataset, FileRef, KBSpec
    from service.experiments.systems import AnswerFile
    from service.paths import DEMO_DIR

    store = open_storage(None, catalog=False)
    spec = ExperimentSpec(
        dataset=FileDataset(FileRef.local(str(DEMO_DIR / "questions.json"))),
        systems=(AnswerFile("p", FileRef.local(str(DEMO_DIR / "answers-partial.json"))),),
        profile="fair",
        kb=KBSpec((str(DEMO_DIR / "kb.ttl"),)),
        languages=("en",),
    )
    ticket = run_experiment(spec, storage=store).ticket
    assert ticket is not None
    every = store.experiments.quads(ticket.id)
    lean = store.experiments.quads(ticket.id, answers=False)
    full = evaluations(every, store.uris, ticket.id)
    assert full[0]["warnings"]
    assert evaluations(lean, store.uris, ticket.id) == full
