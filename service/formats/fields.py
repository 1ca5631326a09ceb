"""Field readers shared by the JSON formats, and the checks every reader runs on its questions."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from service.formats.base import Report, Source, Step, check_question_count
from service.formats.sparql_json import kind_of
from service.formats.terms import BARE, ELEMENTS, element_term, unique_var
from service.model import (
    NO_TEXT,
    AnswerSet,
    Dataset,
    Question,
    QuestionText,
    Term,
    normalise_answer_type,
)
from service.valid_terms import (
    has_control,
    has_unwritable,
    is_asked_language_tag,
    unwritable_problem,
)

OUT_OF_SCOPE = "OUT OF SCOPE"
"""QALD-2..5's query for a question the KB cannot answer (with an empty answer set)."""

FLAGS = ("aggregation", "onlydbo", "hybrid")
"""The QALD question flags (the :class:`~service.model.Question` fields of the same names)."""

DUPLICATE_ID = "duplicate question id"  # the warning; check_unique_ids refuses it to stores
REPLACEMENT_CHARACTER = "\ufffd"  # what a decoder puts for bytes it could not read
EMPTY_ANSWER_SET = "empty answer set"  # the warning (no answer is an answer, but often a slip)


def sniff_list(src: Source, looks_right: Callable[[dict[str, Any]], bool]) -> bool:
    """A JSON array whose first 20 items are objects that ``looks_right`` (the list formats)."""
    if not src.is_json():
        return False
    doc = src.json()
    head = doc[:20] if isinstance(doc, list) else []
    return bool(head) and all(isinstance(e, dict) and looks_right(e) for e in head)


def list_entries(report: Report, shape: str) -> Iterator[tuple[tuple[Step, ...], dict[str, Any]]]:
    """The objects of a list format's top-level array, each with its path. A top level that is
    not an array is fatal, an item that is not an object an error (``shape``: an entry's keys)."""
    doc = report.source.json()
    if not isinstance(doc, list):
        report.error(f"the document is {kind_of(doc)}", expected=f"a list of {shape}")
        report.finish()
    if not check_question_count(report, len(doc), at=()):
        return
    for i, entry in enumerate(doc):
        if isinstance(entry, dict):
            yield (i,), entry
        else:
            report.error(f"entry is {kind_of(entry)}", at=(i,), expected=f"an object {shape}")


def read_id(
    value: Any, report: Report, *, at: tuple[Step, ...], what: str = "question"
) -> str | None:
    """Question ids may be strings or integers (QALD-6+ files); kept as strings (``"0"``).
    ``what``: whose id it is (``dataset``: ``$.dataset.id`` was called "question id")."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    report.error(
        f"{what} has no id" if value is None else f"{what} id is {kind_of(value)}",
        at=at,
        expected="a string or an integer id",
    )
    return None


def read_question_id(
    entry: dict[str, Any], report: Report, *, at: tuple[Step, ...], key: str = "id"
) -> str | None:
    """The id under ``key`` of a question object: a missing one is said at the question, a
    wrong one at its key."""
    value = entry.get(key)
    qid = read_id(value, report, at=(*at, key) if key in entry else at)
    if qid is not None and not isinstance(value, str):
        report.integer_ids.append(qid)  # written back as an integer where JSON allows
    return qid


INTEGER_IDS_KEY = "json.integer-ids"
"""``Dataset.metadata``: the question ids a JSON file gave as integers (``0``, not ``"0"``), as
a JSON list of strings: QALD-JSON and eQALD-JSON write them back as integers (they became
strings, unannounced, and tools keying by the JSON value then missed every question:
explore44 17); the other formats say they write them as strings."""


def integer_ids_metadata(report: Report) -> list[tuple[str, str]]:
    """The ``INTEGER_IDS_KEY`` entry for what ``report`` saw (none when no id was an integer)."""
    if not report.integer_ids:
        return []
    return [(INTEGER_IDS_KEY, json.dumps(report.integer_ids, ensure_ascii=False))]


def integer_ids(dataset: Dataset) -> frozenset[str]:
    """The ids ``dataset``'s file gave as integers."""
    raw = dict(dataset.metadata).get(INTEGER_IDS_KEY)
    return frozenset(json.loads(raw)) if raw else frozenset()


def read_flags(
    item: dict[str, Any],
    names: Sequence[str],
    report: Report,
    *,
    at: tuple[Step, ...],
    qid: str | None,
) -> tuple[dict[str, bool | None], list[tuple[str, str]]]:
    """Flags are booleans or the strings "true"/"false" (QALD-5/6 files write strings).

    Anything else (``"aggregation": "union"`` in QALD-7 largescale) is kept in ``extra``
    as written, with a warning.
    """
    flags: dict[str, bool | None] = {}
    extra: list[tuple[str, str]] = []
    for name in names:
        value = item.get(name)
        if value is None or isinstance(value, bool):
            flags[name] = value
        elif isinstance(value, str) and value.strip().lower() in ("true", "false"):
            flags[name] = value.strip().lower() == "true"
        else:
            flags[name] = None
            extra.append((name, extra_value(value)))
            report.warn(
                f"{name} is {json.dumps(value, ensure_ascii=False)[:40]} (kept as written)",
                at=(*at, name),
                question_id=qid,
                expected='true, false, "true" or "false"',
            )
    return flags, extra


def read_string(
    value: Any, report: Report, *, at: tuple[Step, ...], qid: str | None, what: str
) -> str | None:
    if value is None or isinstance(value, str):
        return value
    report.error(f"{what} is {kind_of(value)}", at=at, question_id=qid, expected="a string")
    return None


def read_answertype(
    value: Any, report: Report, *, at: tuple[Step, ...], qid: str | None
) -> str | None:
    raw = read_string(value, report, at=at, qid=qid, what="answertype")
    check_answertype(raw, report, at=at, question_id=qid)
    return raw


def check_answertype(raw: str | None, report: Report, **where: Any) -> None:
    """An answer type the model does not know is kept as written, with a warning (every QALD
    reader: ``where``, the question and where it is in the file, as ``Report.warn`` takes)."""
    if raw is not None and normalise_answer_type(raw) is None:
        report.warn(
            f"unknown answer type {raw!r} (kept as written)",
            **where,
            expected="resource, string, number, date or boolean",
        )


def extra_value(value: Any) -> str:
    """A field with no slot in the model, as a string: strings as they are, others as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# The fields a run's answer file keeps of each call that are numbers (``systems.archive``):
# written as JSON numbers, as the API and ``evaluate --output json`` give them (explore22 8)
RUNTIME_KEY, ATTEMPTS_KEY = "runtimeMs", "attempts"
NUMBER_EXTRAS = frozenset({RUNTIME_KEY, ATTEMPTS_KEY})


def extra_json(key: str, value: str) -> Any:
    """The JSON value of extra field ``key``: one of :data:`NUMBER_EXTRAS` that reads as a
    number as that number, else the string it is."""
    if key in NUMBER_EXTRAS:
        try:
            number = json.loads(value)
        except ValueError:
            return value
        # finite only: json.loads takes NaN and 1e999, which no JSON reader does (explore23 10)
        if isinstance(number, int | float) and not isinstance(number, bool):
            return number if math.isfinite(number) else value
    return value


def read_text_entries(
    entries: Any,
    report: Report,
    *,
    at: tuple[Step, ...],
    qid: str | None,
    string_key: str = "string",
    known: Sequence[str] = (),
) -> list[tuple[int, dict[str, Any], QuestionText]]:
    """``[{"language", "string", "keywords"}]`` -> texts (with each entry and its index).

    A missing language falls back to the ``language`` given to ``read`` (else ``""``, unknown).
    """
    if entries is None:
        return []
    if not isinstance(entries, list):
        report.error(
            f"question texts are {kind_of(entries)}",
            at=at,
            question_id=qid,
            expected='a list of {"language", "string", "keywords"}',
        )
        return []
    out = []
    for i, entry in enumerate(entries):
        where = (*at, i)
        if not isinstance(entry, dict):
            report.error(
                f"question text is {kind_of(entry)}",
                at=where,
                question_id=qid,
                expected='an object {"language", "string", "keywords"}',
            )
            continue
        language = read_string(
            entry.get("language"), report, at=(*where, "language"), qid=qid, what="language"
        )
        if language is None and "language" not in entry:
            language = language_read_with(
                report, "question text without language", at=where, question_id=qid
            )
        elif language is not None and not language.strip():  # "language": "" was silent
            language = language_read_with(
                report,
                f"question text with an empty language {language!r}",
                at=(*where, "language"),
                question_id=qid,
            )
        string = read_string(
            entry.get(string_key), report, at=(*where, string_key), qid=qid, what=string_key
        )
        keywords = read_string(
            entry.get("keywords"), report, at=(*where, "keywords"), qid=qid, what="keywords"
        )
        unknown = [k for k in entry if k not in ("language", string_key, "keywords", *known)]
        if unknown:
            report.warn(
                f"question text keys {unknown} are not kept",
                at=(*where, unknown[0]),
                question_id=qid,
            )
        out.append((i, entry, QuestionText(language or "", string, keywords)))
    return out


def language_read_with(report: Report, what: str, **where: Any) -> str:
    """The language of a text whose file gives none: the one ``read`` was given (``""``,
    unknown, without one), said in a warning beginning with ``what``."""
    language = report.source.language or ""
    report.warn(f"{what} (taken as {language or 'unknown'!r})", **where, expected="a language code")
    return language


def element_answers(
    rows: Iterable[Sequence[tuple[str | None, str]]],
) -> AnswerSet:
    """Rows of ``(element, text)`` (element ``None``: bare text) as an answer set.

    A repeated element within one row binds ``uri``, ``uri_2``… A single ``<boolean>``
    true/false is the answer of an ASK question, as a QALD-JSON ``boolean`` is.
    """
    built: list[dict[str, Term]] = []
    order: dict[str, None] = {}
    for cells in rows:
        row: dict[str, Term] = {}
        for element, text in cells:
            var = unique_var(row, element or BARE)
            row[var] = element_term(element, text)
            order.setdefault(var, None)
        built.append(row)
    if len(built) == 1 and len(built[0]) == 1 and "boolean" in built[0]:
        value = built[0]["boolean"].value
        if value.lower() in ("true", "false"):
            return AnswerSet(boolean=value.lower() == "true")
    return AnswerSet(vars=tuple(order), rows=tuple(built))


def is_element_entry(entry: Any) -> bool:
    """A QALD-5 JSON answers entry: ``{"string": "…"}`` (element names as keys)."""
    return (
        isinstance(entry, dict)
        and bool(entry)
        and all(k in ELEMENTS or k == BARE for k in entry)
        and all(isinstance(v, str) for v in entry.values())
    )


def eqald_losses(q: Question) -> Iterator[str]:
    """What only eQALD-JSON carries of ``q``, as the ``losses`` of a format that drops it."""
    if q.schemaless_query is not None:
        yield "schemaless queries"
    if q.answer_item_types:
        yield "answer item types"
    if q.confidence is not None:
        yield "confidences"
    if any(t.annotations for t in q.texts):
        yield "annotations"


def text2sparql_losses(q: Question) -> Iterator[str]:
    """What only the TEXT2SPARQL formats carry of ``q``, as the ``losses`` of a format that
    drops it."""
    if q.features or q.classes or q.properties:
        yield "query features, classes and properties"
    if q.language is not None:
        yield "the language an entry is for (TEXT2SPARQL items such as ck25:1-en)"


def metadata_losses(q: Question) -> list[tuple[str, bool]]:
    """Whether ``q`` loses keywords, annotations, answer types and flags (list formats)."""
    return [
        ("keywords", any(t.keywords for t in q.texts)),
        ("annotations", any(t.annotations for t in q.texts)),
        ("answer types", q.answertype is not None),
        (
            "flags (aggregation, onlydbo, hybrid)",
            (q.aggregation, q.onlydbo, q.hybrid) != (None,) * 3,
        ),
    ]


def qald_question(qid: str, flags: Mapping[str, bool | None], **fields: Any) -> Question:
    """A question of a QALD-style file (QALD-JSON, eQALD-JSON, QALD-XML): ``fields`` and the
    ``flags`` read of it (:data:`FLAGS`), marked out of scope if its query says so."""
    question = Question(
        id=qid,
        aggregation=flags.get("aggregation"),
        onlydbo=flags.get("onlydbo"),
        hybrid=flags.get("hybrid"),
        **fields,
    )
    return apply_out_of_scope(question)


def apply_out_of_scope(question: Question) -> Question:
    """QALD-2..5: an ``OUT OF SCOPE`` query with no or empty answers marks the question."""
    from dataclasses import replace

    if (
        question.sparql is not None
        and question.sparql.strip().upper() == OUT_OF_SCOPE
        and (question.answers is None or question.answers.is_empty)
    ):
        return replace(question, sparql=None, out_of_scope=True)
    return question


def check_questions(
    questions: Sequence[Question],
    report: Report,
    where: Sequence[tuple[Step, ...] | dict[str, Any]],
    *,
    texts: bool = True,
    gold: bool = True,
) -> None:
    """The dataset-level warnings every reader gives: duplicate ids, no text, empty gold.

    ``where`` gives, per question, the JSON path (``at``) or the keyword arguments
    (``line``, ``xml_path``) that locate it. ``texts=False`` skips the no-text check (a file
    that cannot hold texts, reported once by its reader). With ``Source.gold`` (``validate``),
    each question's gold too, unless ``gold=False`` (a TSV file: its gold is its lines).
    """
    seen: dict[str, int] = {}
    odd_languages: set[str] = set()
    garbled: dict[str, tuple[str, dict[str, Any], list[str]]] = {}  # language -> first, all
    for i, (q, place) in enumerate(zip(questions, where, strict=True)):
        loc: dict[str, Any] = {"at": place} if isinstance(place, tuple) else dict(place)
        if not q.id.strip():
            report.warn("empty question id (kept as written)", question_id=q.id, **loc)
        if q.id in seen:
            report.warn(
                f"{DUPLICATE_ID} (also question #{seen[q.id] + 1}); lookups by id use the first",
                question_id=q.id,
                expected="unique question ids",
                **loc,
            )
        else:
            seen[q.id] = i
        if texts and not any(t.string and t.string.strip() for t in q.texts):
            report.warn(NO_TEXT, question_id=q.id, **loc)
        for language in dict.fromkeys(t.language for t in q.texts if t.language):
            if not is_asked_language_tag(language) and language not in odd_languages:
                odd_languages.add(language)  # said once a file: its questions share it
                # it said "asked only with --lang en--US", which --lang refuses (explore53 F5)
                report.warn(
                    f"language {language!r} is not a language tag: its texts are skipped (no "
                    "run asks in it, --lang all neither)",
                    question_id=q.id,
                    expected="an ISO 639 code such as de, or a BCP 47 tag such as en-US",
                    **loc,
                )
        if q.answers is not None and q.answers.is_empty and not q.out_of_scope:
            report.warn(EMPTY_ANSWER_SET, question_id=q.id, **loc)
        for problem in _half_characters(q):
            report.warn(problem, question_id=q.id, **loc)
        for language in dict.fromkeys(t.language for t in q.texts if _garbled(t.string)):
            garbled.setdefault(language, (q.id, loc, []))[2].append(q.id)
    if report.source.gold and gold:
        _check_gold(questions, report, [_place(w) for w in where])
    for language, (qid, loc, ids) in garbled.items():
        report.warn(  # once a language: every text of it usually went through the same decoder
            f"{_texts(len(ids))} in {language or 'no language'!r} hold U+FFFD "
            "replacement characters: they were decoded with a wrong encoding before this file "
            "was written, and what they said is lost",
            question_id=qid,
            expected="question texts as their authors wrote them",
            **loc,
        )


NO_GOLD = "question has neither gold answers nor a gold query"
NO_GOLD_EXPECTED = "gold answers or a gold query (or the question marked OUT OF SCOPE)"


def _place(where: tuple[Step, ...] | dict[str, Any]) -> dict[str, Any]:
    return {"at": where} if isinstance(where, tuple) else dict(where)


def _check_gold(
    questions: Sequence[Question], report: Report, places: Sequence[dict[str, Any]]
) -> None:
    """``gerbil-qa validate``'s gold checks (explore44 F12, F15): a question with neither gold
    answers nor a gold query (a file cut in its last question loses its query silently), and a
    gold query the project's SPARQL parser refuses (lenient: Virtuoso's habits in real gold
    queries pass, as the dataset checks of a run read them), with the parser's line and
    column in the query."""
    from service.sparql import SparqlSyntaxError, parse_query

    # a file that may end anywhere and still parse (YAML; a JSON or XML document closes)
    cut = not report.source.head.startswith(("{", "[", "<")) and not report.source.data.rstrip(
        b" \t"
    ).endswith(b"\n")
    lacking = [
        i
        for i, q in enumerate(questions)
        if q.answers is None and not (q.sparql and q.sparql.strip()) and not q.out_of_scope
    ]
    if lacking and len(lacking) == len(questions) > 1:  # a file of questions only: said once
        report.warn(
            f"no question has gold answers or a gold query: the {len(questions)} questions are "
            "scored only with gold given apart (evaluate --gold)",
            expected=NO_GOLD_EXPECTED,
        )
        lacking = lacking[-1:] if cut else []
    last = len(questions) - 1
    for i in lacking:
        report.warn(
            NO_GOLD
            + (": it is scored only with gold given apart (evaluate --gold)")
            + (_CUT if cut and i == last else ""),
            question_id=questions[i].id,
            expected=NO_GOLD_EXPECTED,
            **places[i],
        )
    for i, q in enumerate(questions):
        if not q.sparql or q.out_of_scope or q.sparql.strip().upper() == OUT_OF_SCOPE:
            continue
        try:
            parse_query(q.sparql, dialect="lenient")
        except SparqlSyntaxError as err:
            report.warn(
                f"the gold query does not parse: query line {err.line}, column {err.column}: "
                f"{err.message}" + (_CUT if cut and i == last else ""),
                question_id=q.id,
                expected="a SPARQL 1.1 query",
                **places[i],
            )


_CUT = " (the file ends here without a line end: was it cut?)"


def _half_characters(question: Question) -> Iterator[str]:
    """What a question's texts and keywords holding a lone UTF-16 surrogate (half an emoji, a
    JSON ``"\\ud800"``) are said to be: stored, and shown on its pages, with U+FFFD in its
    place, as an answer value is (explore53 F10: such a text passed silently). A control
    character is refused by a run, and said as the error (``refuse_unwritable``)."""
    for text in question.texts:
        for what, value in (("question text", text.string), ("keywords", text.keywords)):
            if value is None or value.isascii() or not has_unwritable(value) or has_control(value):
                continue
            problem = unwritable_problem(value).removeprefix("the value ")
            if what == "keywords":  # they hold
                problem = "hold" + problem.removeprefix("holds")
            yield (
                f"the {what} ({text.language or 'no language'}) {problem} (kept as written; "
                "stored with U+FFFD in its place)"
            )


def _texts(n: int) -> str:
    return "1 question text" if n == 1 else f"{n} question texts"


def _garbled(text: str | None) -> bool:
    return text is not None and REPLACEMENT_CHARACTER in text
