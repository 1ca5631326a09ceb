"""Every measure broken down by a feature of the questions (``--by answertype``, the API's
``?by=``): answer type, aggregation, hybrid, onlydbo, out of scope, language (of a pooled task's
records), the TEXT2SPARQL query features a dataset states, and any other field a dataset carries
(``extra:KEY``, e.g. LC-QuAD's template id).

A slice's measures are recomputed by the measures registry from the records of its questions,
so a slice means what the whole task means (micro sums, macro means) on fewer questions. A
question may fall in several slices of one dimension (TEXT2SPARQL features: ``SELECT`` and
``COUNT``) or in none (no answer type given).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from service.errors import BadRequest
from service.evaluation.measures import MEASURES, TaskRecords
from service.evaluation.results import Evaluation, QuestionScore

FLAGS = {"aggregation": "aggregation", "hybrid": "hybrid", "onlydbo": "onlydbo"}
DIMENSIONS = ("answertype", "aggregation", "hybrid", "onlydbo", "outofscope", "language", "feature")
"""The dimensions every dataset may have; ``extra:KEY`` adds a dataset's own fields."""
EXTRA = "extra:"

# question id -> dimension -> the question's values in it
QuestionValues = Mapping[str, Mapping[str, tuple[str, ...]]]


def parse_dimensions(text: str) -> tuple[str, ...]:
    """``"answertype,feature"`` -> the dimensions, checked (BadRequest naming the known ones)."""
    found = tuple(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    for name in found:
        if name not in DIMENSIONS and not (name.startswith(EXTRA) and len(name) > len(EXTRA)):
            known = ", ".join(DIMENSIONS)
            raise BadRequest(
                f"by={name!r}: cannot break down by it; expected one of {known}, extra:KEY"
            )
    if not found:
        raise BadRequest("by: name a dimension such as answertype")
    return found


def offered(values: Mapping[str, Collection[str]]) -> tuple[str, ...]:
    """The dimensions worth breaking a run down by, given every value its questions have in
    each (``values``; language: the languages scored): those with two values or more. A
    dimension of one value is a one-row table repeating the totals (an English-only run's
    language, the demo's hybrid "no"); one of none found nothing (a TEXT2SPARQL dataset was
    offered the QALD flags, and ``?by=hybrid`` found no value). A query feature is a value a
    question has or not (a question has any number of them): one is a subset of the questions
    (DB25's RESULT_ORDER_MATTERS, 4 of 100), so ``feature`` is offered with one value."""
    return tuple(d for d in DIMENSIONS if len(values.get(d, ())) >= (1 if d == "feature" else 2))


def question_values(questions: Iterable[Any]) -> dict[str, dict[str, tuple[str, ...]]]:
    """Each question's values in every dimension (``questions``: ``service.model.Question``)."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for q in questions:
        values: dict[str, tuple[str, ...]] = {}
        if q.answer_type is not None:
            values["answertype"] = (q.answer_type.value,)
        for dim, attr in FLAGS.items():
            flag = getattr(q, attr)
            if flag is not None:
                values[dim] = ("yes" if flag else "no",)
        values["outofscope"] = ("yes" if q.out_of_scope else "no",)
        if q.features:
            values["feature"] = tuple(dict.fromkeys(q.features))
        for key, value in q.extra:
            values[EXTRA + key] = (value,)
        out.setdefault(q.id, values)  # a repeated id: its first question's values
    return out


def sliced(
    evaluation: Evaluation, values: QuestionValues, dimensions: Sequence[str]
) -> dict[str, dict[str, dict[str, dict[str, Any]]]]:
    """``{dimension: {value: {TYPE: measures}}}`` for ``evaluation`` (values sorted; a
    dimension no question has is an empty mapping)."""
    out: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    for dim in dimensions:
        by_value: dict[str, dict[str, dict[str, Any]]] = {}
        for etype, task in evaluation.tasks.items():
            scoring = evaluation.scoring_of(etype)
            groups: dict[str, list[QuestionScore]] = {}
            for record in task.questions:
                for value in _values(record, values, dim, evaluation.language):
                    groups.setdefault(value, []).append(record)
            for value, records in groups.items():
                measures = MEASURES.recompute(task.measures.keys(), TaskRecords(records, scoring))
                by_value.setdefault(value, {})[etype.value] = measures
        out[dim] = {value: by_value[value] for value in in_order(by_value)}
    return out


def in_order(values: Iterable[str]) -> list[str]:
    """A dimension's values in the order a table lists them: by number when every one is a
    number (LC-QuAD's template ids read 1, 101, 102, 11 … as text), else as text.

    >>> in_order(["11", "2", "101", "1"]), in_order(["10", "list", "2"])
    (['1', '2', '11', '101'], ['10', '2', 'list'])
    """
    found = sorted(values)
    try:
        return sorted(found, key=float)
    except ValueError:
        return found


def _values(
    record: QuestionScore, values: QuestionValues, dim: str, language: str
) -> tuple[str, ...]:
    if dim == "language":
        return (record.language or language,)
    return values.get(record.question_id, {}).get(dim, ())
