"""OKBQA NLQ list JSON (NLQ shared task 1, ``nlq1_vis.json``).

A list of ``{"id", "lang", "question", "answer", "type", "sparql"}``; the entries of one
question share an id, one per language. The task ran on English DBpedia 2015-04, so the English
entry's ``answer`` (a label) is the gold answer, as a plain literal, and its ``sparql`` the gold
query. Other languages' answer and query have no slot: they are kept in ``Question.extra`` as
``answer@ko``, ``sparql@ko`` (and ``type@ko`` when it differs), so writing gives them back.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from service.formats.base import Format, Report, Source, Step, dumps
from service.formats.fields import (
    check_questions,
    extra_value,
    integer_ids_metadata,
    language_read_with,
    list_entries,
    metadata_losses,
    read_question_id,
    read_string,
    sniff_list,
    text2sparql_losses,
)
from service.model import AnswerSet, Dataset, Question, QuestionText, Term

NAME = "nlq-json"
GOLD_LANGUAGE = "en"
_FIELDS = ("id", "lang", "question", "answer", "type", "sparql")
_SHAPE = '{"id", "lang", "question", "answer", "type", "sparql"}'


def sniff(src: Source) -> bool:
    return sniff_list(src, lambda e: "lang" in e and "question" in e and "id" in e)


class _Builder:
    """Collects the entries of one question id."""

    def __init__(self, qid: str, at: tuple[Step, ...]) -> None:
        self.qid = qid
        self.at = at
        self.texts: list[QuestionText] = []
        self.answers: AnswerSet | None = None
        self.sparql: str | None = None
        self.extra: list[tuple[str, str]] = []
        self.type: str | None = None
        self.languages: set[str] = set()

    def build(self) -> Question:
        extra = ([("type", self.type)] if self.type is not None else []) + self.extra
        return Question(
            id=self.qid,
            texts=tuple(self.texts),
            sparql=self.sparql,
            answers=self.answers,
            extra=tuple(extra),
        )


def read(src: Source) -> Dataset:
    report = Report(src)
    builders: dict[str, _Builder] = {}
    for at, entry in list_entries(report, _SHAPE):
        _read_entry(entry, report, builders, at=at)
    questions = [b.build() for b in builders.values()]
    check_questions(questions, report, [b.at for b in builders.values()])
    problems = report.finish()
    metadata = tuple(integer_ids_metadata(report))
    return Dataset(None, tuple(questions), format=NAME, problems=problems, metadata=metadata)


def _read_entry(
    entry: dict[str, Any], report: Report, builders: dict[str, _Builder], *, at: tuple[Step, ...]
) -> None:
    qid = read_question_id(entry, report, at=at)
    values = {
        key: read_string(entry.get(key), report, at=(*at, key), qid=qid, what=key)
        for key in _FIELDS[1:]
    }
    if qid is None:
        return
    lang = values["lang"]
    if lang is None:
        lang = language_read_with(report, "entry without lang", at=at, question_id=qid)
    elif not lang.strip():  # "lang": "" was silent
        lang = language_read_with(
            report, f"entry with an empty lang {lang!r}", at=(*at, "lang"), question_id=qid
        )
    builder = builders.setdefault(qid, _Builder(qid, at))
    if lang in builder.languages:
        report.warn(
            f"a second {lang!r} entry for this id; its answer and query are not kept",
            at=at,
            question_id=qid,
            expected="one entry per id and language",
        )
    builder.texts.append(QuestionText(lang, values["question"]))
    if lang not in builder.languages:
        kind = values["type"]
        if lang == GOLD_LANGUAGE or (builder.type is None and not builder.languages):
            builder.type = kind if kind is not None else builder.type
        elif kind is not None and kind != builder.type:
            builder.extra.append((f"type@{lang}", kind))
        if lang == GOLD_LANGUAGE:
            if values["answer"] is not None:
                builder.answers = AnswerSet.of([Term.literal(values["answer"])])
            builder.sparql = values["sparql"]
        else:
            for key in ("answer", "sparql"):
                value = values[key]
                if value is not None:
                    builder.extra.append((f"{key}@{lang}", value))
    builder.languages.add(lang)
    unknown = [k for k in entry if k not in _FIELDS]
    builder.extra += [(k, extra_value(entry[k])) for k in unknown]


def write(dataset: Dataset) -> bytes:
    out = []
    for q in dataset.questions:
        extra = dict(q.extra)
        written: set[str] = set()
        for text in q.texts or (QuestionText(GOLD_LANGUAGE),):
            entry: dict[str, Any] = {"id": q.id, "lang": text.language}
            if text.string is not None:
                entry["question"] = text.string
            first = text.language not in written
            gold = text.language == GOLD_LANGUAGE and first
            answer = _answer(q) if gold else extra.get(f"answer@{text.language}") if first else None
            if answer is not None:
                entry["answer"] = answer
            kind = extra.get(f"type@{text.language}", extra.get("type"))
            if kind is not None:
                entry["type"] = kind
            sparql = q.sparql if gold else extra.get(f"sparql@{text.language}") if first else None
            if sparql is not None:
                entry["sparql"] = sparql
            written.add(text.language)
            out.append(entry)
    return dumps(out)


def _answer(q: Question) -> str | None:
    if q.answers is None:
        return None
    values = q.answers.values()
    return values[0].value if values else None


def losses(dataset: Dataset) -> list[str]:
    found: Counter[str] = Counter()
    for q in dataset.questions:
        dropped = [
            ("answers beyond the first", q.answers is not None and len(q.answers.values()) > 1),
            ("empty gold answer sets", q.answers is not None and not q.answers.values()),
            ("answer datatypes, languages and IRIs", _typed(q)),
            *metadata_losses(q),
            *((what, True) for what in text2sparql_losses(q)),
            ("gold answers and queries of questions without English text", _no_english(q)),
            ("out-of-scope marks", q.out_of_scope),
        ]
        found.update(what for what, lost in dropped if lost)
    out = [f"{what} ({n} questions)" for what, n in found.items()]
    # fields NLQ has no place for (LC-QuAD's intermediary_question and sparql_template_id)
    # went without a word where every other lossy direction names them (explore44 19)
    other = [sorted({k for k, _ in q.extra if not _written_extra(k)}) for q in dataset.questions]
    names = sorted({k for keys in other for k in keys})
    if names:
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        out.append(f"the fields {shown} ({sum(1 for keys in other if keys)} questions)")
    return out


def _written_extra(key: str) -> bool:
    """Whether :func:`write` writes the extra field ``key`` (an NLQ field of its own)."""
    return key == "type" or key.startswith(("type@", "answer@", "sparql@"))


def _typed(q: Question) -> bool:
    if q.answers is None:
        return False
    return any(t != Term.literal(t.value) for t in q.answers.values()[:1])


def _no_english(q: Question) -> bool:
    has_gold = q.answers is not None or q.sparql is not None
    return has_gold and GOLD_LANGUAGE not in q.languages and bool(q.texts)


FORMAT = Format(
    name=NAME,
    label="OKBQA NLQ JSON",
    media_types=("application/x-nlq+json",),
    extensions=("json",),
    read=read,
    write=write,
    sniff=sniff,
    losses=losses,
    description="OKBQA NLQ shared task list JSON: one entry per question and language",
)
