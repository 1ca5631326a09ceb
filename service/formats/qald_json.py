"""QALD-JSON (QALD-6..10, and the QALD-5 ``body`` variant).

``{"dataset": {"id"}, "questions": [{"id", "answertype", "aggregation", "onlydbo", "hybrid",
"question": [{"language", "string", "keywords"}], "query": {"sparql"|"pseudo"},
"answers": [SPARQL 1.1 JSON results]}]}``. Real files vary: integer ids, flags as strings,
no ``answertype`` or ``dataset`` (QALD-10, QALD-9-plus), several ``answers`` entries. QALD-5's
JSON names the texts ``body``, writes ``query`` as a plain string and answers as
``[{"string": "…"}]``; such a file is read as such and written back in the same variant
(``Dataset.metadata`` ``variant=qald5-body``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from service.formats.base import Format, Report, Source, Step, check_question_count, dumps
from service.formats.fields import (
    FLAGS,
    OUT_OF_SCOPE,
    check_questions,
    element_answers,
    eqald_losses,
    extra_json,
    extra_value,
    integer_ids,
    integer_ids_metadata,
    is_element_entry,
    qald_question,
    read_answertype,
    read_flags,
    read_id,
    read_question_id,
    read_string,
    read_text_entries,
    text2sparql_losses,
)
from service.formats.sparql_json import (
    NotPlain,
    PlainTerms,
    count_raw_answers,
    kind_of,
    plain_results,
    read_results,
    write_results,
)
from service.formats.terms import BARE, element_for, element_term
from service.model import AnswerSet, Dataset, Question, QuestionText, normalise_answer_type
from service.valid_terms import valid_term

NAME = "qald-json"
VARIANT_KEY = "variant"
BODY_VARIANT = "qald5-body"
_QUESTION_KEYS = (
    "id",
    "answertype",
    "aggregation",
    "onlydbo",
    "hybrid",
    "question",
    "body",
    "query",
    "answers",
)


def sniff(src: Source) -> bool:
    items = questions_list(src)
    return items is not None and not looks_eqald(items)


def questions_list(src: Source) -> list[Any] | None:
    """The ``questions`` array when ``src`` is a JSON object holding one (both QALD-JSONs)."""
    if not src.is_json():
        return None
    doc = src.json()
    if isinstance(doc, dict) and isinstance(doc.get("questions"), list):
        return doc["questions"]
    return None


def looks_eqald(questions: list[Any]) -> bool:
    """eQALD puts the question in an object or adds metadata/annotations/confidence."""
    for q in questions[:20]:
        if not isinstance(q, dict):
            continue
        if isinstance(q.get("question"), dict) or isinstance(q.get("metadata"), dict):
            return True
        if isinstance(q.get("answers"), dict):
            return True
        if isinstance(q.get("query"), dict) and ("SPARQL" in q["query"] or _schemaless(q)):
            return True
        texts = q.get("question")
        if isinstance(texts, list) and any(
            isinstance(t, dict) and "annotations" in t for t in texts
        ):
            return True
        answers = q.get("answers")
        if isinstance(answers, list) and any(
            isinstance(a, dict) and ("confidence" in a or "bindings" in a) for a in answers
        ):
            return True
    return False


def _schemaless(q: dict[str, Any]) -> bool:
    return any(k.strip() == "schemaless" for k in q["query"])


def read(src: Source) -> Dataset:
    terms = PlainTerms()

    def read_item(item: dict[str, Any], report: Report, at: tuple[Step, ...]) -> Question | None:
        try:
            question = plain_question(item, terms)
            if type(item["id"]) is int:
                report.integer_ids.append(question.id)
            return question
        except NotPlain:
            return read_question(item, report, at=at)

    return read_document(src, name=NAME, what="a QALD-JSON document", read_item=read_item)


def _variant(items: list[Any]) -> str | None:
    if any(isinstance(q, dict) and "body" in q and "question" not in q for q in items):
        return BODY_VARIANT
    return None


def read_document(
    src: Source,
    *,
    name: str,
    what: str,
    read_item: Callable[[dict[str, Any], Report, tuple[Step, ...]], Question | None],
    variant: Callable[[list[Any]], str | None] = _variant,
) -> Dataset:
    """``{"dataset": {"id", …}, "questions": [...]}`` (QALD-JSON and eQALD-JSON): each item
    an object (else an error) read by ``read_item``; ``variant`` names the shape of the items
    to write back, if special."""
    report = Report(src)
    doc = src.json()
    if not isinstance(doc, dict) or not isinstance(doc.get("questions"), list):
        report.error(
            f"not {what}",
            at=("questions",) if isinstance(doc, dict) else (),
            expected='an object {"dataset": {"id"}, "questions": [...]}',
        )
        report.finish()
    dataset_id, metadata = read_dataset_object(doc, report)
    items: list[Any] = doc["questions"]
    questions: list[Question] = []
    places: list[tuple[Step, ...]] = []
    if check_question_count(report, len(items), at=("questions",)):
        shape = variant(items)
        if shape is not None:
            metadata.append((VARIANT_KEY, shape))
        for i, item in enumerate(items):
            at: tuple[Step, ...] = ("questions", i)
            _count_answers(item, report, at)
            q = read_item(item, report, at) if _is_question_object(item, report, at) else None
            items[i] = None  # the parsed JSON goes as its question is built (big answer files)
            if q is not None:
                questions.append(q)
                places.append(at)
        check_questions(questions, report, places)
    problems = report.finish()
    return Dataset(
        id=dataset_id,
        questions=tuple(questions),
        format=name,
        problems=problems,
        metadata=(*metadata, *integer_ids_metadata(report)),
    )


def _is_question_object(item: Any, report: Report, at: tuple[Step, ...]) -> bool:
    if isinstance(item, dict):
        return True
    report.error(f"question is {kind_of(item)}", at=at, expected='an object {"id", "question", …}')
    return False


def _count_answers(item: Any, report: Report, at: tuple[Step, ...]) -> None:
    """Count a question's answers against the limits before it is read: ``answers`` of the
    question object (or of its ``question`` object: QALD-7's extended eQALD)."""
    if type(item) is not dict:
        return
    holder, where = item, at
    inner = item.get("question")
    if item.get("answers") is None and type(inner) is dict:
        holder, where = inner, (*at, "question")
    if holder.get("answers") is None:
        return
    qid = holder.get("id")
    report.count_answers(
        count_raw_answers(holder["answers"]),
        at=(*where, "answers"),
        question_id=str(qid) if type(qid) in (str, int) else None,
    )


def read_dataset_object(doc: dict[str, Any], report: Report) -> tuple[str | None, list]:
    """``{"dataset": {"id", …}}`` -> id and metadata (``dataset.<key>`` for other keys)."""
    for key in doc:
        if key not in ("dataset", "questions"):
            report.warn(f"top-level key {key!r} is not kept", at=(key,))
    dataset = doc.get("dataset")
    if dataset is None:
        return None, []
    if not isinstance(dataset, dict):
        report.error(
            f"dataset is {kind_of(dataset)}", at=("dataset",), expected='an object {"id": …}'
        )
        return None, []
    raw_id = dataset.get("id")
    dataset_id = None
    if raw_id is not None:
        dataset_id = read_id(raw_id, report, at=("dataset", "id"), what="dataset")
    metadata = [(f"dataset.{k}", extra_value(v)) for k, v in dataset.items() if k != "id"]
    return dataset_id, metadata


def read_question(item: dict[str, Any], report: Report, *, at: tuple[Step, ...]) -> Question | None:
    qid = read_question_id(item, report, at=at)
    answertype = read_answertype(item.get("answertype"), report, at=(*at, "answertype"), qid=qid)
    flags, extra = read_flags(item, FLAGS, report, at=at, qid=qid)
    text_key = "question" if "question" in item or "body" not in item else "body"
    if "question" in item and "body" in item:
        report.warn("both question and body are given; body is not kept", at=(*at, "body"))
    texts = [
        t for _, _, t in read_text_entries(item.get(text_key), report, at=(*at, text_key), qid=qid)
    ]
    sparql, pseudo, query_extra = read_query(item.get("query"), report, at=(*at, "query"), qid=qid)
    extra += query_extra
    answers = read_answers(item, report, at=at, qid=qid)
    extra += [(k, extra_value(v)) for k, v in item.items() if k not in _QUESTION_KEYS]
    if qid is None:
        return None
    return qald_question(
        qid,
        flags,
        texts=tuple(texts),
        answertype=answertype,
        sparql=sparql,
        pseudo_query=pseudo,
        answers=answers,
        extra=tuple(extra),
    )


# --- the fast path ---------------------------------------------------------------------------
# Most questions of real files are well formed. ``plain_question`` builds such a question
# straight from the parsed JSON, without the careful reader's path bookkeeping and checks, and
# gives up (``NotPlain``) at the first thing the careful reader would report or read in a
# special way; that question is then read by ``read_question``. So the careful reader defines
# what a file means, and tests/unit/test_formats_fast.py checks that both agree on every
# question of the real QALD-JSON files and on generated ones.

_TEXT_KEYS = frozenset(("language", "string", "keywords"))


def plain_question(item: Any, terms: PlainTerms) -> Question:
    """A well-formed QALD-JSON question object as a Question; NotPlain if anything is odd."""
    if type(item) is not dict or "body" in item:
        raise NotPlain
    qid = item.get("id")
    if type(qid) is int:
        qid = str(qid)
    elif type(qid) is not str:
        raise NotPlain
    answertype = item.get("answertype")
    if answertype is not None and (
        type(answertype) is not str or normalise_answer_type(answertype) is None
    ):
        raise NotPlain
    flags = {name: _plain_flag(item.get(name)) for name in FLAGS}
    texts: list[QuestionText] = []
    entries = item.get("question")
    if entries is not None:
        if type(entries) is not list:
            raise NotPlain
        for entry in entries:
            if (
                type(entry) is not dict
                or "language" not in entry
                or not _TEXT_KEYS.issuperset(entry)
            ):
                raise NotPlain
            language, string, keywords = (
                entry.get("language"),
                entry.get("string"),
                entry.get("keywords"),
            )
            for value in (language, string, keywords):
                if value is not None and type(value) is not str:
                    raise NotPlain
            if language is not None and not language.strip():  # warned the careful way
                raise NotPlain
            texts.append(QuestionText(language or "", string, keywords))
    query = item.get("query")
    sparql, pseudo, extra = query, None, []
    if type(query) is dict:
        sparql, pseudo = query.get("sparql"), query.get("pseudo")
        if (sparql is not None and type(sparql) is not str) or (
            pseudo is not None and type(pseudo) is not str
        ):
            raise NotPlain
        extra = [
            (f"query.{k}", extra_value(v))
            for k, v in query.items()
            if k not in ("sparql", "pseudo")
        ]
    elif query is not None and type(query) is not str:
        raise NotPlain
    answers = None
    entries = item.get("answers")
    if entries is not None:
        if type(entries) is not list or len(entries) > 1:
            raise NotPlain
        if not entries:
            answers = AnswerSet()
        elif is_element_entry(entries[0]):
            raise NotPlain
        else:
            answers = plain_results(entries[0], terms)
    extra += [(k, extra_value(v)) for k, v in item.items() if k not in _QUESTION_KEYS]
    return qald_question(
        qid,
        flags,
        texts=tuple(texts),
        answertype=answertype,
        sparql=sparql,
        pseudo_query=pseudo,
        answers=answers,
        extra=tuple(extra),
    )


def _plain_flag(value: Any) -> bool | None:
    if value is None or type(value) is bool:
        return value
    if type(value) is str:
        word = value.strip().lower()
        if word in ("true", "false"):
            return word == "true"
    raise NotPlain


def read_query(
    query: Any, report: Report, *, at: tuple[Step, ...], qid: str | None
) -> tuple[str | None, str | None, list[tuple[str, str]]]:
    """``{"sparql": …}`` or ``{"pseudo": …}``, or QALD-5's plain string -> sparql, pseudo, extra."""
    if query is None or isinstance(query, str):
        return query, None, []
    if not isinstance(query, dict):
        report.error(
            f"query is {kind_of(query)}",
            at=at,
            question_id=qid,
            expected='an object {"sparql": …} or {"pseudo": …}',
        )
        return None, None, []
    sparql = read_string(query.get("sparql"), report, at=(*at, "sparql"), qid=qid, what="sparql")
    pseudo = read_string(query.get("pseudo"), report, at=(*at, "pseudo"), qid=qid, what="pseudo")
    extra = [
        (f"query.{k}", extra_value(v)) for k, v in query.items() if k not in ("sparql", "pseudo")
    ]
    return sparql, pseudo, extra


def read_answers(
    item: dict[str, Any], report: Report, *, at: tuple[Step, ...], qid: str | None
) -> AnswerSet | None:
    """The ``answers`` list: SPARQL JSON results (several are concatenated, with a warning)."""
    if "answers" not in item or item["answers"] is None:
        return None
    entries = item["answers"]
    where = (*at, "answers")
    if not isinstance(entries, list):
        report.error(
            f"answers is {kind_of(entries)}",
            at=where,
            question_id=qid,
            expected="a list of SPARQL JSON results",
        )
        return None
    if entries and all(is_element_entry(e) for e in entries):
        # QALD-5 JSON: one {"string": "…"} per answer, like QALD-XML's <answer> children.
        for i, entry in enumerate(entries):
            for key, text in entry.items():
                stored = valid_term(element_term(None if key == BARE else key, text))
                if stored.changed:
                    report.warn(stored.warning(), at=(*where, i, key), question_id=qid)
        return element_answers([list(e.items()) for e in entries])
    sets = []
    for i, entry in enumerate(entries):
        found = read_results(entry, report, at=(*where, i), qid=qid, bindings_key=False)
        if found is None:
            return None  # reported as an error; an empty set would add a misleading warning
        sets.append(found)
    if len(entries) > 1:
        report.warn(
            f"{len(entries)} answers entries; their rows are concatenated",
            at=(*where, 1),
            question_id=qid,
            expected="one SPARQL JSON results object",
        )
    return merge(sets)


def merge(sets: list[AnswerSet]) -> AnswerSet:
    if len(sets) == 1:
        return sets[0]
    if not sets:
        return AnswerSet()
    names: dict[str, None] = {}
    rows: list[Any] = []
    for s in sets:
        names.update(dict.fromkeys(s.vars))
        rows.extend(s.rows)
    boolean = None if rows else next((s.boolean for s in sets if s.boolean is not None), None)
    return AnswerSet(vars=tuple(names), rows=tuple(rows), boolean=boolean)


# --- writing -----------------------------------------------------------------------------


def write(dataset: Dataset) -> bytes:
    body = dict(dataset.metadata).get(VARIANT_KEY) == BODY_VARIANT
    return write_document(
        dataset, [_write_body(q) if body else write_question(q) for q in dataset.questions]
    )


def write_document(dataset: Dataset, questions: list[dict[str, Any]]) -> bytes:
    """``{"dataset": {…}, "questions": questions}`` (the dataset object only when not empty)."""
    doc: dict[str, Any] = {}
    dataset_obj = dataset_object(dataset)
    if dataset_obj:
        doc["dataset"] = dataset_obj
    ints = integer_ids(dataset)
    if ints:  # the ids the file gave as integers, written as integers again (explore44 17)
        for out in questions:
            wrapped = out.get("question")  # eQALD's extended shape: {"question": {"id", …}}
            inner: dict[str, Any] = wrapped if isinstance(wrapped, dict) else out
            if inner.get("id") in ints:
                inner["id"] = int(inner["id"])
    doc["questions"] = questions
    return dumps(doc)


def dataset_object(dataset: Dataset) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if dataset.id is not None:
        out["id"] = dataset.id
    for key, value in dataset.metadata:
        if key.startswith("dataset."):
            out[key.removeprefix("dataset.")] = value
    return out


def query_object(
    q: Question, *, sparql_key: str = "sparql", schemaless_key: str | None = None
) -> dict[str, str]:
    """The ``query`` object (``schemaless_key``: also the schemaless query, under that key)."""
    out: dict[str, str] = {}
    sparql = OUT_OF_SCOPE if q.out_of_scope else q.sparql
    if sparql is not None:
        out[sparql_key] = sparql
    if schemaless_key is not None and q.schemaless_query is not None:
        out[schemaless_key] = q.schemaless_query
    if q.pseudo_query is not None:
        out["pseudo"] = q.pseudo_query
    for key, value in q.extra:
        if key.startswith("query."):
            out[key.removeprefix("query.")] = value
    return out


def text_object(text: QuestionText, *, string_key: str = "string") -> dict[str, Any]:
    out: dict[str, Any] = {"language": text.language}
    if text.string is not None:
        out[string_key] = text.string
    if text.keywords is not None:
        out["keywords"] = text.keywords
    return out


def write_question(q: Question) -> dict[str, Any]:
    out: dict[str, Any] = {"id": q.id}
    if q.answertype is not None:
        out["answertype"] = q.answertype
    for flag in FLAGS:
        if getattr(q, flag) is not None:
            out[flag] = getattr(q, flag)
    out["question"] = [text_object(t) for t in q.texts]
    query = query_object(q)
    if query:
        out["query"] = query
    if q.answers is not None:
        out["answers"] = [write_results(q.answers)]
    for key, value in q.extra:
        if not key.startswith("query.") and key not in out:
            out[key] = extra_json(key, value)
    return out


def _write_body(q: Question) -> dict[str, Any]:
    """QALD-5's JSON: flags as strings, ``body``, ``query`` a string, ``[{"string": …}]``."""
    out: dict[str, Any] = {"id": q.id}
    for flag in ("hybrid", "answertype", "aggregation", "onlydbo"):
        value = getattr(q, flag)
        if value is not None:
            out[flag] = str(value).lower() if isinstance(value, bool) else value
    out["body"] = [text_object(t) for t in q.texts]
    if q.out_of_scope:
        out["query"] = OUT_OF_SCOPE
    elif q.sparql is not None:
        out["query"] = q.sparql
    if q.answers is not None:
        out["answers"] = _element_entries(q.answers)
    for key, value in q.extra:
        if key not in out:
            out[key] = extra_json(key, value)
    return out


def _element_entries(answers: AnswerSet) -> list[dict[str, str]]:
    if answers.boolean is not None:
        return [{"boolean": "true" if answers.boolean else "false"}]
    out = []
    for row in answers.rows:
        entry: dict[str, str] = {}
        for var, term in row.items():
            element, _ = element_for(var, term)
            entry.setdefault(element or "string", term.value)
        out.append(entry)
    return out


def losses(dataset: Dataset) -> list[str]:
    """What QALD-JSON cannot carry (eQALD annotations, schemaless queries, confidences…)."""
    found = Counter(_lost(dataset))
    return [f"{what} of {n} questions" for what, n in found.items()]


def _lost(dataset: Dataset) -> Iterator[str]:
    body = dict(dataset.metadata).get(VARIANT_KEY) == BODY_VARIANT
    for q in dataset.questions:
        yield from eqald_losses(q)
        yield from text2sparql_losses(q)
        if body and q.pseudo_query is not None:
            yield "pseudo queries"
        if body and q.answers is not None and _body_lossy(q.answers):
            yield "answer datatypes, languages or repeated variables"


def _body_lossy(answers: AnswerSet) -> bool:
    if answers.boolean is not None:
        return False
    for row in answers.rows:
        elements = []
        for var, term in row.items():
            element, exact = element_for(var, term)
            if not exact:
                return True
            elements.append(element or "string")
        if len(set(elements)) < len(elements):
            return True
    return False


FORMAT = Format(
    name=NAME,
    label="QALD-JSON",
    media_types=("application/qald+json", "application/json"),
    extensions=("json",),
    read=read,
    write=write,
    sniff=sniff,
    losses=losses,
    description="QALD-6..10 JSON (and the QALD-5 body variant); answers as SPARQL JSON results",
)
