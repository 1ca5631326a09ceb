"""A small QA benchmark of our own, as a dataset author writes one: 30 QALD-JSON questions
(English and German) with gold SPARQL and answers over a bird KB in Turtle, in two versions
(v1 has a wrong gold answer for question 2, v2 fixes it), and systems' answer files."""

from __future__ import annotations

import json
from typing import Any

EX = "http://example.org/birds/"


def bird_kb() -> str:
    lines = [f"@prefix ex: <{EX}> .", "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."]
    for i in range(30):
        lines.append(
            f'ex:bird{i} rdfs:label "Bird {i}"@en ; ex:wingspan {10 + i} ; ex:eats ex:food{i % 5} .'
        )
    lines += [f'ex:food{f} rdfs:label "Food {f}"@en .' for f in range(5)]
    return "\n".join(lines) + "\n"


def bird_questions(*, fixed: bool) -> dict[str, Any]:
    """30 questions in QALD-JSON over :func:`bird_kb` (English and German); v1 (``fixed`` False)
    has a wrong gold answer for question 2 (Bird 1 eats Food 1, not Food 3)."""
    questions = []
    for i in range(30):
        bird = f"<{EX}bird{i}>"
        if i % 3 == 0:
            text, sparql, kind = (
                f"What is the wingspan of Bird {i}?",
                f"SELECT ?w WHERE {{ {bird} <{EX}wingspan> ?w }}",
                "number",
            )
            value = {
                "type": "literal",
                "datatype": "http://www.w3.org/2001/XMLSchema#integer",
                "value": str(10 + i),
            }
            answer: dict[str, Any] = {
                "head": {"vars": ["w"]},
                "results": {"bindings": [{"w": value}]},
            }
        elif i % 3 == 1:
            food = i % 5 if fixed or i != 1 else 3
            text, sparql, kind = (
                f"What does Bird {i} eat?",
                f"SELECT ?f WHERE {{ {bird} <{EX}eats> ?f }}",
                "resource",
            )
            value = {"type": "uri", "value": f"{EX}food{food}"}
            answer = {"head": {"vars": ["f"]}, "results": {"bindings": [{"f": value}]}}
        else:
            text, sparql, kind = (
                f"Does Bird {i} eat Food 0?",
                f"ASK {{ {bird} <{EX}eats> <{EX}food0> }}",
                "boolean",
            )
            answer = {"head": {}, "boolean": i % 5 == 0}
        questions.append(
            {
                "id": str(i + 1),
                "answertype": kind,
                "question": [
                    {"language": "en", "string": text},
                    {"language": "de", "string": text.replace("What", "Was")},
                ],
                "query": {"sparql": sparql},
                "answers": [answer],
            }
        )
    return {"dataset": {"id": "birds-qa"}, "questions": questions}


V1 = json.dumps(bird_questions(fixed=False), indent=1).encode()
V2 = json.dumps(bird_questions(fixed=True), indent=1).encode()


def bird_answers(every: int) -> bytes:
    """A system's answers: the v2 gold for every ``every``-th question, nothing for the rest."""
    data = bird_questions(fixed=True)
    for k, q in enumerate(data["questions"]):
        if k % every:
            q["answers"] = [{"head": {"vars": ["x"]}, "results": {"bindings": []}}]
    return json.dumps(data).encode()
