"""TEXT2SPARQL answers: the queries a Text2SPARQL service returned, one entry per item.

``[{"dataset", "question", "query", "endpoint", "qname", "uri"}, …]``: the dataset's id, the
question text, the SPARQL the system returned (exactly as returned: an empty string, prose
around a query and broken SPARQL are real and kept), the system's endpoint, the item's name
(``db25:1-en``, see :mod:`service.formats.text2sparql`) and its IRI. The system's *answers* are
what ``query`` returns on the dataset's knowledge graph: the reader gives each entry's query
(``Question.sparql``) and no answers; running the queries is the SPARQL executor's job.

``endpoint`` and ``uri`` (and any other key) are kept in ``Question.extra``, so writing gives
them back. An empty list is an answers file with no entries (TEXT2SPARQL'25 published one).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from service.formats.base import Format, Report, Source, Step, dumps
from service.formats.fields import extra_json, extra_value, list_entries, read_string
from service.formats.sparql_json import kind_of
from service.formats.text2sparql import PREFIX_KEY, item_key, split_item
from service.model import NOT_ASKED, Dataset, Question, QuestionText

NAME = "text2sparql-answers"
_KNOWN = ("dataset", "question", "query", "qname")
_SHAPE = '{"dataset", "question", "query", "endpoint", "qname", "uri"}'
_ORDER = ("dataset", "question", "query", "endpoint", "qname", "uri")


def sniff(src: Source) -> bool:
    if not src.head.startswith("[") or not src.is_json():
        return False
    doc = src.json()
    if not isinstance(doc, list):
        return False
    head = doc[:20]
    return all(
        isinstance(e, dict) and ("qname" in e or ("query" in e and "dataset" in e)) for e in head
    )


def read(src: Source) -> Dataset:
    report = Report(src)
    questions: list[Question] = []
    datasets: Counter[str] = Counter()
    prefixes: Counter[str] = Counter()
    seen: dict[tuple[str, str | None], int] = {}
    named: list[tuple[str, tuple[Step, ...], str]] = []  # (prefix, where, question id)
    for at, entry in list_entries(report, _SHAPE):
        name = _item_name(entry, report, at)
        if name is None:
            continue
        prefix, qid, language = name
        if prefix:
            prefixes[prefix] += 1
            named.append((prefix, at, qid))
        values = {
            key: read_string(entry.get(key), report, at=(*at, key), qid=qid, what=key)
            for key in ("dataset", "question", "query")
        }
        if values["dataset"] is not None:
            datasets[values["dataset"]] += 1
        failed = entry.get("error")
        unasked = isinstance(failed, str) and failed.startswith(NOT_ASKED)
        if "query" not in entry and not unasked:  # never asked: one warning says it for all
            # `system run` keeps a failed call as its error, with no query: say that one
            why = f"the call failed: {failed}" if isinstance(failed, str) and failed else None
            report.warn(
                f"entry without query ({why or 'the system returned none'})",
                at=at,
                question_id=qid,
            )
        first = seen.setdefault((qid, language), at[0])  # type: ignore[arg-type]
        if first != at[0]:
            report.warn(
                f"the same question and language as entry #{first + 1}; lookups use the first",
                at=at,
                question_id=qid,
                expected="one entry per question and language",
            )
        texts = (
            (QuestionText(language or "", values["question"]),)
            if values["question"] is not None
            else ()
        )
        extra = tuple((k, extra_value(v)) for k, v in entry.items() if k not in _KNOWN)
        questions.append(
            Question(id=qid, texts=texts, sparql=values["query"], language=language, extra=extra)
        )
    dataset_id = None
    if datasets:
        dataset_id = datasets.most_common(1)[0][0]
        if len(datasets) > 1:
            report.warn(
                f"entries name {len(datasets)} datasets; the file is read as {dataset_id!r}",
                expected="one dataset per answers file",
            )
    metadata = ((PREFIX_KEY, prefixes.most_common(1)[0][0]),) if prefixes else ()
    for prefix, at, qid in named:  # another dataset's question, read by its number alone
        if metadata and prefix != metadata[0][1]:
            report.warn(
                f"qname prefix {prefix!r} is not the file's ({metadata[0][1]!r}): read as "
                f"question {qid} of {metadata[0][1]}",
                at=(*at, "qname"),
                question_id=qid,
                expected="one dataset's questions per answers file",
            )
    return Dataset(
        id=dataset_id,
        questions=tuple(questions),
        format=NAME,
        problems=report.finish(),
        metadata=metadata,
    )


def _item_name(
    entry: dict[str, Any], report: Report, at: tuple[Step, ...]
) -> tuple[str | None, str, str | None] | None:
    """The item from ``qname`` (``db25:1-en``), else from the last segment of ``uri``."""
    for key in ("qname", "uri"):
        value = entry.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            report.error(
                f"{key} is {kind_of(value) if not isinstance(value, str) else 'empty'}",
                at=(*at, key),
                expected="a name like db25:1-en",
            )
            return None
        if key == "uri":
            value = value.rstrip("/").rsplit("/", 1)[-1]
        return split_item(value)
    report.error("entry has neither qname nor uri", at=at, expected=_SHAPE)
    return None


def write(dataset: Dataset) -> bytes:
    prefix = dict(dataset.metadata).get(PREFIX_KEY)
    out: list[dict[str, str]] = []
    for q in dataset.questions:
        for language in _languages(q):
            entry: dict[str, str] = {}
            if dataset.id is not None:
                entry["dataset"] = dataset.id
            text = q.text(language) if language is not None else None
            if text is None and q.texts and q.texts[0].string is not None:
                text = q.texts[0].string
            if text is not None:
                entry["question"] = text
            if q.sparql is not None:
                entry["query"] = q.sparql
            entry["qname"] = item_key(prefix, q.id, language)
            if dataset.id is not None and dataset.id.startswith(("http://", "https://")):
                # the challenge's item IRI: the dataset's IRI and the item (…/corporate/1-en)
                entry["uri"] = dataset.id.rstrip("/") + "/" + item_key(None, q.id, language)
            entry.update((k, extra_json(k, v)) for k, v in q.extra)
            out.append({k: entry[k] for k in (*_ORDER, *entry) if k in entry})
    return dumps(out)


def _languages(q: Question) -> list[str | None]:
    """One entry per language: the entry's own, else each of its texts' ("" is unknown)."""
    if q.language is not None:
        return [q.language]
    return list(dict.fromkeys(lang or None for lang in q.languages)) or [None]


def losses(dataset: Dataset) -> list[str]:
    found: Counter[str] = Counter()
    for q in dataset.questions:
        dropped = [
            ("answers (the system's answers are what its query returns)", q.answers is not None),
            ("keywords and annotations", any(t.keywords or t.annotations for t in q.texts)),
            ("texts beyond the first per language", _repeated_languages(q)),
            ("answer types, flags and metadata", _metadata(q)),
            ("pseudo or schemaless queries", bool(q.pseudo_query or q.schemaless_query)),
        ]
        found.update(what for what, lost in dropped if lost)
    return [f"{what} ({n} questions)" for what, n in found.items()]


def _repeated_languages(q: Question) -> bool:
    languages = [t.language for t in q.texts]
    return len(languages) != len(set(languages))


def _metadata(q: Question) -> bool:
    return bool(
        q.answertype
        or (q.aggregation, q.onlydbo, q.hybrid) != (None, None, None)
        or q.features
        or q.classes
        or q.properties
        or q.answer_item_types
        or q.confidence is not None
        or q.out_of_scope
    )


FORMAT = Format(
    name=NAME,
    label="TEXT2SPARQL answers JSON",
    media_types=("application/x-text2sparql-answers+json",),
    extensions=("json",),
    read=read,
    write=write,
    sniff=sniff,
    losses=losses,
    description=(
        "TEXT2SPARQL'25 system answers: per question and language the SPARQL the system "
        "returned (its answers are what that query returns on the knowledge graph)"
    ),
)
