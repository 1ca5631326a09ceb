"""A whole experiment asks the KB a number of times set by the batch size, not by the answers.

The evaluation collects every IRI and label of the experiment and asks each kind of lookup once;
the KB splits each into VALUES blocks. So with B keys per block, an experiment over K distinct
keys costs at most ``kinds × ceil(K / B)`` round trips, however many answers mention them.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from service.evaluation import evaluate
from service.model import AnswerSet, Dataset, Question, QuestionText, SystemAnswer, SystemRun, Term

DBR = "http://dbpedia.org/resource/"
RESOURCES = 300
LOOKUP_KINDS = 3  # labels -> resources, resources -> labels, owl:sameAs


@pytest.fixture(scope="module")
def kb_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines = ["@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."]
    for i in range(RESOURCES):
        lines.append(
            f'<{DBR}E{i}> rdfs:label "Entity {i}"@en ; '
            f"<http://www.w3.org/2002/07/owl#sameAs> <http://www.wikidata.org/entity/Q{i}> ."
        )
    path = tmp_path_factory.mktemp("kb") / "kb.ttl"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _experiment(questions: int, answers_per_question: int) -> tuple[Dataset, SystemRun]:
    """Questions whose gold answers are DBpedia IRIs; the system answers the same resources
    through Wikidata IRIs and labels (so matching needs the KB), each mentioned many times."""
    gold, given = [], {}
    for q in range(questions):
        ids = [(q * 7 + k) % RESOURCES for k in range(answers_per_question)]
        gold.append(
            Question(
                str(q),
                (QuestionText("en", f"Question {q}?"),),
                answers=AnswerSet.of(Term.iri(f"{DBR}E{i}") for i in ids),
            )
        )
        terms = [
            Term.iri(f"http://www.wikidata.org/entity/Q{i}")
            if k % 2
            else Term.literal(f"Entity {i}")
            for k, i in enumerate(ids)
        ]
        given[str(q)] = SystemAnswer(str(q), answers=AnswerSet.of(terms))
    return Dataset("round-trips", tuple(gold)), SystemRun("system", given)


@pytest.mark.parametrize("batch_size", [50, 1000])
def test_round_trips_are_bounded_by_batch_size(make_kb, batch_size: int) -> None:  # type: ignore[no-untyped-def]
    small = _experiment(questions=40, answers_per_question=5)
    large = _experiment(questions=400, answers_per_question=20)  # 40× the answers
    trips = []
    for dataset, run in (small, large):
        kb = make_kb(batch_size=batch_size)
        result = evaluate(dataset, run, profile="gerbil", language="en", kb=kb)
        f1 = result.tasks[next(iter(result.tasks))].measures["microF1"]
        assert f1 == pytest.approx(1.0)  # every answer matched, through the KB
        answers = sum(len(a.answers.rows) for a in run.answers.values())
        # The distinct keys are at most the resources (and their spellings) of the KB.
        bound = LOOKUP_KINDS * math.ceil(3 * RESOURCES / batch_size)
        assert kb.round_trips <= bound < answers
        trips.append(kb.round_trips)
    assert trips[1] <= LOOKUP_KINDS * math.ceil(3 * RESOURCES / batch_size)
    if batch_size >= 3 * RESOURCES:
        assert trips == [trips[0], trips[0]] and trips[0] <= LOOKUP_KINDS
