"""LC-QuAD 1.0 JSON: a list of ``{"_id", "corrected_question", "intermediary_question",
"sparql_query", "sparql_template_id"}`` (English, DBpedia 2016-04, no gold answers).

``intermediary_question`` and ``sparql_template_id`` have no slot in the model and are kept in
``Question.extra``; the template id is written back as the integer it was.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from service.formats.base import Format, Report, Source, Step, dumps
from service.formats.fields import (
    check_questions,
    extra_value,
    integer_ids_metadata,
    list_entries,
    metadata_losses,
    read_question_id,
    read_string,
    sniff_list,
    text2sparql_losses,
)
from service.model import Dataset, Question, QuestionText

NAME = "lcquad-json"
LANGUAGE = "en"  # LC-QuAD 1.0 is English only
_KNOWN = ("_id", "corrected_question", "sparql_query")
_SHAPE = '{"_id", "corrected_question", "sparql_query", …}'


def sniff(src: Source) -> bool:
    return sniff_list(
        src, lambda e: "_id" in e and ("corrected_question" in e or "sparql_query" in e)
    )


def read(src: Source) -> Dataset:
    report = Report(src)
    questions: list[Question] = []
    places: list[tuple[Step, ...]] = []
    for at, entry in list_entries(report, _SHAPE):
        qid = read_question_id(entry, report, at=at, key="_id")
        text = read_string(
            entry.get("corrected_question"),
            report,
            at=(*at, "corrected_question"),
            qid=qid,
            what="corrected_question",
        )
        sparql = read_string(
            entry.get("sparql_query"), report, at=(*at, "sparql_query"), qid=qid, what="query"
        )
        if qid is None:
            continue
        texts = (QuestionText(LANGUAGE, text),) if text is not None else ()
        extra = tuple((k, extra_value(v)) for k, v in entry.items() if k not in _KNOWN)
        questions.append(Question(id=qid, texts=texts, sparql=sparql, extra=extra))
        places.append(at)
    check_questions(questions, report, places)
    problems = report.finish()
    metadata = tuple(integer_ids_metadata(report))
    return Dataset(None, tuple(questions), format=NAME, problems=problems, metadata=metadata)


def write(dataset: Dataset) -> bytes:
    out = []
    for q in dataset.questions:
        entry: dict[str, Any] = {"_id": q.id}
        text = _text(q)
        if text is not None:
            entry["corrected_question"] = text
        for key, value in q.extra:
            if key == "sparql_template_id" and value.lstrip("-").isdigit():
                entry[key] = int(value)
            else:
                entry[key] = value
        sparql = "OUT OF SCOPE" if q.out_of_scope else q.sparql
        if sparql is not None:
            entry["sparql_query"] = sparql
        out.append(entry)
    return dumps(out)


def _text(q: Question) -> str | None:
    """The English text (even if empty), else the first text with a string."""
    english = [t.string for t in q.texts_in(LANGUAGE) if t.string is not None]
    return english[0] if english else next((t.string for t in q.texts if t.string), None)


def losses(dataset: Dataset) -> list[str]:
    found: Counter[str] = Counter()
    for q in dataset.questions:
        kept = _text(q)
        dropped = [
            ("gold answers", q.answers is not None),
            ("texts other than the first English one", sum(1 for t in q.texts if t.string) > 1),
            ("non-English texts", kept is not None and q.text(LANGUAGE) is None),
            *metadata_losses(q),
            *((what, True) for what in text2sparql_losses(q)),
            ("pseudo or schemaless queries", bool(q.pseudo_query or q.schemaless_query)),
            ("answer item types", bool(q.answer_item_types)),
            ("confidences", q.confidence is not None),
        ]
        found.update(what for what, lost in dropped if lost)
    if dataset.id is not None:
        found["the dataset id"] = 1
    return [
        f"{what} ({n} questions)" if what != "the dataset id" else what for what, n in found.items()
    ]


FORMAT = Format(
    name=NAME,
    label="LC-QuAD 1.0 JSON",
    media_types=("application/x-lcquad+json",),
    extensions=("json",),
    read=read,
    write=write,
    sniff=sniff,
    losses=losses,
    description="LC-QuAD 1.0: questions and gold SPARQL over DBpedia, no answers",
)
