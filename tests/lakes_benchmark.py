"""A small QALD-JSON benchmark that trips the dataset checks, as an author's first draft might:
four questions about lakes, question 2's gold query does not parse, question 3's gold set is
empty, question 4 has no German text although the others have; optionally a repeated id."""

from __future__ import annotations

import json
from typing import Any

LAKE = "http://example.org/"


def _bindings(*values: str) -> list[dict[str, Any]]:
    rows = [{"uri": {"type": "uri", "value": LAKE + v}} for v in values]
    return [{"head": {"vars": ["uri"]}, "results": {"bindings": rows}}]


def _question(qid: str, texts: dict[str, str], sparql: str, answers: list) -> dict[str, Any]:
    return {
        "id": qid,
        "answertype": "resource",
        "question": [{"language": lang, "string": s} for lang, s in texts.items()],
        "query": {"sparql": sparql},
        "answers": answers,
    }


def lakes(*, duplicate: bool = False, dataset_id: str = "lakes", no_gold: bool = False) -> bytes:
    """Four questions: 1 sound, 2's gold query does not parse, 3's gold set is empty, 4 has no
    German text (the dataset has German); ``duplicate``: a fifth with 1's id; ``no_gold``: a
    fifth (id 5) with neither gold answers nor a gold query."""
    lake = f"SELECT ?uri WHERE {{ ?uri a <{LAKE}Lake> }}"
    questions = [
        _question("1", {"en": "Which lake is deepest?", "de": "Welcher See ist am tiefsten?"},
                  lake, _bindings("Baikal")),
        _question("2", {"en": "Which lake is largest?", "de": "Welcher See ist am größten?"},
                  lake[:-1], _bindings("Caspian")),
        _question("3", {"en": "Which lake is on the moon?", "de": "Welcher See ist am Mond?"},
                  lake, [{"head": {"vars": ["uri"]}, "results": {"bindings": []}}]),
        _question("4", {"en": "Which lake is highest?"}, lake, _bindings("Titicaca")),
    ]  # fmt: skip
    if duplicate:
        questions.append(_question("1", {"en": "Which lake is saltiest?"}, lake, _bindings("Dead")))
    if no_gold:
        texts = {"en": "Which lake is coldest?", "de": "Welcher See ist am kältesten?"}
        questions.append(
            {"id": "5", "question": [{"language": k, "string": v} for k, v in texts.items()]}
        )
    body = {"dataset": {"id": dataset_id}, "questions": questions}
    return json.dumps(body, indent=1).encode()
