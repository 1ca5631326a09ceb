"""eQALD-JSON: QALD-JSON extended with annotations, answer item types and confidence.

Two shapes exist. The GERBIL QA wiki / SWJ paper shape::

    {"dataset": {"id", "metadata"}, "questions": [{"id",
      "metadata": {"answertype", "hybrid", "aggregation", "answeritemtype": [...]},
      "question": [{"language", "string", "keywords",
                    "annotations": [{"char_begin", "char_end", "URI", "type"}]}],
      "query": {"SPARQL", "schemaless "},
      "answers": [{"bindings": [...], "confidence": "0.9"}]}]}

(the published example spells the key ``"schemaless "`` with a trailing space; both spellings
are read, ``schemaless`` is written), and QALD-7's ``*-extended-json.json`` files::

    {"questions": [{"question": {"id", "answertype",
      "language": [{"language", "question", "keywords", "SPARQL"}],
      "answers": {"head", "results"}, "metadata": {"aggregation", "onlydbo", "hybrid"}}}]}

A file of the second shape is written back in it (``Dataset.metadata`` ``variant``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from service.formats.base import Format, Report, Source, Step
from service.formats.fields import (
    FLAGS,
    OUT_OF_SCOPE,
    extra_json,
    extra_value,
    qald_question,
    read_answertype,
    read_flags,
    read_question_id,
    read_string,
    read_text_entries,
    text2sparql_losses,
)
from service.formats.qald_json import (
    VARIANT_KEY,
    looks_eqald,
    merge,
    query_object,
    questions_list,
    read_document,
    text_object,
    write_document,
)
from service.formats.sparql_json import kind_of, read_results, write_results
from service.model import Annotation, AnswerSet, Dataset, Question, QuestionText

NAME = "eqald-json"
EXTENDED_VARIANT = "qald7-extended"
_METADATA_KEYS = ("answertype", *FLAGS, "answeritemtype")
_QUESTION_KEYS = (
    "id",
    "metadata",
    "question",
    "query",
    "answers",
    "confidence",
    "answertype",
    *FLAGS,
)


def sniff(src: Source) -> bool:
    items = questions_list(src)
    return items is not None and bool(items) and looks_eqald(items)


def read(src: Source) -> Dataset:
    return read_document(
        src, name=NAME, what="an eQALD-JSON document", read_item=_read_item, variant=_variant
    )


def _variant(items: list[Any]) -> str | None:
    return EXTENDED_VARIANT if any(_is_extended(item) for item in items) else None


def _read_item(item: dict[str, Any], report: Report, at: tuple[Step, ...]) -> Question | None:
    if not _is_extended(item):
        return _read_question(item, report, at=at)
    q = _read_extended(item["question"], report, at=(*at, "question"))
    if len(item) > 1:
        others = [k for k in item if k != "question"]
        report.warn(f"keys {others} beside question are not kept", at=at)
    return q


def _is_extended(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("question"), dict)


def _read_question(
    item: dict[str, Any], report: Report, *, at: tuple[Step, ...]
) -> Question | None:
    """The wiki/paper shape (question-level fields are accepted beside ``metadata`` too)."""
    qid = read_question_id(item, report, at=at)
    meta, meta_at = _metadata(item, report, at=at, qid=qid)
    fields = {**{k: item[k] for k in ("answertype", *FLAGS) if k in item}, **meta}
    answertype = read_answertype(
        fields.get("answertype"), report, at=(*meta_at, "answertype"), qid=qid
    )
    flags, extra = read_flags(fields, FLAGS, report, at=meta_at, qid=qid)
    item_types = _item_types(
        meta.get("answeritemtype"), report, at=(*meta_at, "answeritemtype"), qid=qid
    )
    extra += [(f"metadata.{k}", extra_value(v)) for k, v in meta.items() if k not in _METADATA_KEYS]
    texts = _texts(item.get("question"), report, at=(*at, "question"), qid=qid)
    query = _query(item.get("query"), report, at=(*at, "query"), qid=qid)
    answers, confidence = _answers(item, report, at=at, qid=qid)
    extra += query.pop("extra")
    extra += [(k, extra_value(v)) for k, v in item.items() if k not in _QUESTION_KEYS]
    if qid is None:
        return None
    return qald_question(
        qid,
        flags,
        texts=tuple(texts),
        answertype=answertype,
        answers=answers,
        answer_item_types=item_types,
        confidence=confidence,
        extra=tuple(extra),
        **query,
    )


def _read_extended(
    item: dict[str, Any], report: Report, *, at: tuple[Step, ...]
) -> Question | None:
    """QALD-7 ``*-extended-json.json``: everything inside ``question``, SPARQL per language."""
    qid = read_question_id(item, report, at=at)
    meta, meta_at = _metadata(item, report, at=at, qid=qid)
    answertype = read_answertype(item.get("answertype"), report, at=(*at, "answertype"), qid=qid)
    flags, extra = read_flags(meta, FLAGS, report, at=meta_at, qid=qid)
    item_types = _item_types(
        meta.get("answeritemtype"), report, at=(*meta_at, "answeritemtype"), qid=qid
    )
    extra += [(f"metadata.{k}", extra_value(v)) for k, v in meta.items() if k not in _METADATA_KEYS]
    entries = read_text_entries(
        item.get("language"),
        report,
        at=(*at, "language"),
        qid=qid,
        string_key="question",
        known=("SPARQL",),
    )
    texts = [t for _, _, t in entries]
    # One query per language in these files, in practice the same; differing ones are kept.
    queries: list[tuple[str, str]] = []
    for i, entry, text in entries:
        sparql = read_string(
            entry.get("SPARQL"), report, at=(*at, "language", i, "SPARQL"), qid=qid, what="SPARQL"
        )
        if sparql is not None:
            queries.append((text.language, sparql))
    sparql = queries[0][1] if queries else None
    extra += [(f"sparql@{lang}", s) for lang, s in queries[1:] if s != sparql]
    answers, confidence = _answers(item, report, at=at, qid=qid)
    known = ("id", "answertype", "language", "answers", "metadata", "confidence")
    extra += [(k, extra_value(v)) for k, v in item.items() if k not in known]
    if qid is None:
        return None
    return qald_question(
        qid,
        flags,
        texts=tuple(texts),
        answertype=answertype,
        sparql=sparql,
        answers=answers,
        answer_item_types=item_types,
        confidence=confidence,
        extra=tuple(extra),
    )


def _metadata(
    item: dict[str, Any], report: Report, *, at: tuple[Step, ...], qid: str | None
) -> tuple[dict[str, Any], tuple[Step, ...]]:
    meta = item.get("metadata")
    if meta is None:
        return {}, at
    if not isinstance(meta, dict):
        report.error(
            f"metadata is {kind_of(meta)}",
            at=(*at, "metadata"),
            question_id=qid,
            expected='an object {"answertype", "hybrid", "aggregation", "answeritemtype"}',
        )
        return {}, at
    return meta, (*at, "metadata")


def _item_types(
    value: Any, report: Report, *, at: tuple[Step, ...], qid: str | None
) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    report.error(
        f"answeritemtype is {kind_of(value)}",
        at=at,
        question_id=qid,
        expected="a list of type IRIs",
    )
    return ()


def _texts(
    value: Any, report: Report, *, at: tuple[Step, ...], qid: str | None
) -> list[QuestionText]:
    out = []
    for i, entry, text in read_text_entries(value, report, at=at, qid=qid, known=("annotations",)):
        notes = _annotations(entry.get("annotations"), report, at=(*at, i, "annotations"), qid=qid)
        out.append(replace(text, annotations=notes))
    return out


def _annotations(
    value: Any, report: Report, *, at: tuple[Step, ...], qid: str | None
) -> tuple[Annotation, ...]:
    if value is None:
        return ()
    expected = '{"char_begin", "char_end", "URI", "type": "CLASS"|"PROPERTY"|"ENTITY"}'
    if not isinstance(value, list):
        report.error(f"annotations is {kind_of(value)}", at=at, question_id=qid, expected="a list")
        return ()
    out = []
    for i, note in enumerate(value):
        where = (*at, i)
        if not isinstance(note, dict):
            report.error(
                f"annotation is {kind_of(note)}", at=where, question_id=qid, expected=expected
            )
            continue
        iri = note.get("URI")
        if not isinstance(iri, str):
            report.error(
                "annotation has no URI" if iri is None else f"annotation URI is {kind_of(iri)}",
                at=(*where, "URI") if "URI" in note else where,
                question_id=qid,
                expected=expected,
            )
            continue
        kind = read_string(note.get("type"), report, at=(*where, "type"), qid=qid, what="type")
        begin = _offset(note.get("char_begin"), report, at=(*where, "char_begin"), qid=qid)
        end = _offset(note.get("char_end"), report, at=(*where, "char_end"), qid=qid)
        unknown = [k for k in note if k not in ("URI", "type", "char_begin", "char_end")]
        if unknown:
            report.warn(f"annotation keys {unknown} are not kept", at=where, question_id=qid)
        out.append(Annotation(iri, kind, begin, end))
    return tuple(out)


def _offset(value: Any, report: Report, *, at: tuple[Step, ...], qid: str | None) -> int | None:
    """Character offsets are integers; the wiki example writes them as strings."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    report.error(
        f"character offset is {kind_of(value)} {str(value)[:20]!r}",
        at=at,
        question_id=qid,
        expected="a non-negative integer",
    )
    return None


def _query(value: Any, report: Report, *, at: tuple[Step, ...], qid: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"sparql": None, "pseudo_query": None, "schemaless_query": None}
    out["extra"] = []
    if value is None:
        return out
    if isinstance(value, str):
        out["sparql"] = value
        return out
    if not isinstance(value, dict):
        report.error(
            f"query is {kind_of(value)}",
            at=at,
            question_id=qid,
            expected='an object {"SPARQL", "schemaless"}',
        )
        return out
    for key, raw in value.items():
        where = (*at, key)
        slot = {
            "sparql": "sparql",
            "pseudo": "pseudo_query",
            "schemaless": "schemaless_query",
        }.get(key.strip().lower())
        if slot is None:
            out["extra"].append((f"query.{key}", extra_value(raw)))
            continue
        text = read_string(raw, report, at=where, qid=qid, what=key.strip())
        if text is not None and out[slot] is not None and out[slot] != text:
            report.warn(f"a second {key.strip()} query is not kept", at=where, question_id=qid)
        elif text is not None:
            out[slot] = text
    return out


def _answers(
    item: dict[str, Any], report: Report, *, at: tuple[Step, ...], qid: str | None
) -> tuple[AnswerSet | None, float | None]:
    """``answers``: one results object or a list of them, each possibly with a confidence."""
    confidence = _confidence(item, "confidence", report, at=at, qid=qid)
    if "answers" not in item or item["answers"] is None:
        return None, confidence
    value = item["answers"]
    where: tuple[Step, ...] = (*at, "answers")
    if isinstance(value, dict):
        entries, places = [value], [where]
    elif isinstance(value, list):
        entries, places = value, [(*where, i) for i in range(len(value))]
    else:
        report.error(
            f"answers is {kind_of(value)}",
            at=where,
            question_id=qid,
            expected='{"bindings": [...], "confidence": …} or a list of them',
        )
        return None, confidence
    sets = []
    for entry, place in zip(entries, places, strict=True):
        found = read_results(entry, report, at=place, qid=qid, bindings_key=True)
        if found is None:
            return None, confidence  # reported as an error
        sets.append(found)
        if isinstance(entry, dict):
            unknown = [
                k
                for k in entry
                if k not in ("head", "results", "boolean", "bindings", "confidence")
            ]
            if unknown:
                report.warn(f"answers keys {unknown} are not kept", at=place, question_id=qid)
            value_conf = _confidence(entry, "confidence", report, at=place, qid=qid)
            if value_conf is not None and confidence is not None and value_conf != confidence:
                report.warn(
                    "a second confidence is not kept", at=(*place, "confidence"), question_id=qid
                )
            elif value_conf is not None:
                confidence = value_conf
    # eQALD's own list, [{"bindings": […], "confidence": …}, …], is one answer per entry: its
    # rows are the answers, no slip (explore31 F15); a list of whole SPARQL results objects is
    if len(entries) > 1 and not all(_bindings_entry(e) for e in entries):
        report.warn(
            f"{len(entries)} answers entries; their rows are concatenated",
            at=places[1],
            question_id=qid,
            expected="one answers object",
        )
    return merge(sets), confidence


def _bindings_entry(entry: Any) -> bool:
    """An entry of eQALD's answers list: ``{"bindings": […], "confidence": …}``."""
    return isinstance(entry, dict) and "bindings" in entry and "results" not in entry


def shown_number(value: Any) -> str:
    """A value as a warning shows it: JSON, a number as written in JSON by a person (``1e308``,
    not Python's ``1e+308``), cut at 30 characters.

    >>> [shown_number(v) for v in (1e308, 1e-7, 1.5, 50, "0,8", True, float("nan"))]
    ['1e308', '1e-07', '1.5', '50', '"0,8"', 'true', 'NaN']
    """
    shown = json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        shown = shown.replace("e+", "e")
    return shown if len(shown) <= 30 else shown[:29] + "…"


# Seed 004: "a confidence value … a real number ranged between 0 and 1". A confidence is
# metadata for the confidence measures only (CWS, K1, K, r): one that is not such a number
# ("0,8", "abc", 50, -0.2) is dropped and the answer kept and scored, with one warning for
# the file (or the response) naming each question and what it gave.
BAD_CONFIDENCE = (
    "confidences that are not a number in [0, 1] are dropped; their answers are kept and "
    "scored, without a confidence"
)


def _confidence(
    holder: dict[str, Any], key: str, report: Report, *, at: tuple[Step, ...], qid: str | None
) -> float | None:
    value = holder.get(key)
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not 0.0 <= number <= 1.0:  # NaN is not either
        shown = shown_number(value)
        report.warn_each(
            BAD_CONFIDENCE,
            f"question {qid}: {shown}" if qid is not None else shown,
            expected="a number from 0 to 1, such as 0.9",
        )
        return None
    return number


# --- writing -----------------------------------------------------------------------------


def write(dataset: Dataset) -> bytes:
    if dict(dataset.metadata).get(VARIANT_KEY) == EXTENDED_VARIANT:
        return write_document(
            dataset, [{"question": _write_extended(q)} for q in dataset.questions]
        )
    return write_document(dataset, [_write_question(q) for q in dataset.questions])


def _metadata_object(q: Question) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if q.answertype is not None:
        meta["answertype"] = q.answertype
    for flag in FLAGS:
        if getattr(q, flag) is not None:
            meta[flag] = getattr(q, flag)
    if q.answer_item_types:
        meta["answeritemtype"] = list(q.answer_item_types)
    for key, value in q.extra:
        if key.startswith("metadata."):
            meta[key.removeprefix("metadata.")] = value
        elif key in FLAGS and key not in meta:
            meta[key] = value  # a flag kept as written ("union")
    return meta


def _write_question(q: Question) -> dict[str, Any]:
    out: dict[str, Any] = {"id": q.id}
    meta = _metadata_object(q)
    if meta:
        out["metadata"] = meta
    texts: list[dict[str, Any]] = []
    for t in q.texts:
        entry = text_object(t)
        if t.annotations:
            entry["annotations"] = [_write_annotation(a) for a in t.annotations]
        texts.append(entry)
    out["question"] = texts
    query = query_object(q, sparql_key="SPARQL", schemaless_key="schemaless")
    if query:
        out["query"] = query
    if q.answers is not None:
        answers = write_results(q.answers, bindings_only=True)
        if q.confidence is not None:
            answers["confidence"] = q.confidence
        out["answers"] = [answers]
    elif q.confidence is not None:
        out["confidence"] = q.confidence
    for key, value in q.extra:
        if not key.startswith(("query.", "metadata.")) and key not in FLAGS and key not in out:
            out[key] = extra_json(key, value)
    return out


def _write_annotation(a: Annotation) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if a.begin is not None:
        out["char_begin"] = a.begin
    if a.end is not None:
        out["char_end"] = a.end
    out["URI"] = a.iri
    if a.kind is not None:
        out["type"] = a.kind
    return out


def _write_extended(q: Question) -> dict[str, Any]:
    out: dict[str, Any] = {"id": q.id}
    if q.answertype is not None:
        out["answertype"] = q.answertype
    per_language = {k.removeprefix("sparql@"): v for k, v in q.extra if k.startswith("sparql@")}
    sparql = OUT_OF_SCOPE if q.out_of_scope else q.sparql
    texts: list[dict[str, Any]] = []
    for t in q.texts:
        entry = text_object(t, string_key="question")
        query = per_language.get(t.language, sparql) if texts else sparql
        if query is not None:
            entry["SPARQL"] = query
        texts.append(entry)
    out["language"] = texts
    if q.answers is not None:
        out["answers"] = write_results(q.answers)
    meta = {k: v for k, v in _metadata_object(q).items() if k != "answertype"}
    if meta:
        out["metadata"] = meta
    for key, value in q.extra:
        if not key.startswith(("metadata.", "sparql@")) and key not in FLAGS and key not in out:
            out[key] = extra_json(key, value)
    if q.confidence is not None:
        out["confidence"] = q.confidence
    return out


def losses(dataset: Dataset) -> list[str]:
    found = Counter(_lost(dataset))
    return [f"{what} of {n} questions" for what, n in found.items()]


def _lost(dataset: Dataset) -> Iterator[str]:
    for q in dataset.questions:
        yield from text2sparql_losses(q)
    if dict(dataset.metadata).get(VARIANT_KEY) != EXTENDED_VARIANT:
        return
    for q in dataset.questions:
        if any(t.annotations for t in q.texts):
            yield "annotations"
        if q.schemaless_query is not None:
            yield "schemaless queries"
        if q.pseudo_query is not None:
            yield "pseudo queries"
        if q.sparql is not None and not q.texts:
            yield "SPARQL queries (no language entry to hold them)"


FORMAT = Format(
    name=NAME,
    label="eQALD-JSON",
    media_types=("application/eqald+json",),
    extensions=("json",),
    read=read,
    write=write,
    sniff=sniff,
    losses=losses,
    description="extended QALD-JSON (GERBIL QA): annotations, answer item types, confidence",
)
