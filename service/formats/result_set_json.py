"""TEXT2SPARQL result sets: ``{"ck25:1-en": {"<value>": weight, …}, …}``.

The challenge's gold (``true_result_set.json``) and what each system's queries returned
(``*_system_result_set.json``) share this layout: per item (question × language, see
:mod:`service.formats.text2sparql`) the value strings of every binding of every variable, each
with a weight; an ASK is ``{"true": 1}`` (true) or ``{"true": 0}`` (false). So one file reads as
a gold and as a system's answers alike: one entry per key, ``Question.language`` set from the
key's suffix, answers a one-variable answer set (``value``) in the file's order.

What the format does not say is kept as well as it can be: a value that is an http(s), ftp or
urn IRI reads as an IRI, anything else as a plain literal (``Model:X200`` is a product code,
not an IRI); weights are 1 (0 only for a false ASK). A weight 0
on any other item is read as an answer with a warning (TEXT2SPARQL counts every item a *system*
returned, whatever its weight, but a *gold* item only when its weight is above 0), and other
weights are read as 1 with a warning. A one-item set ``{"true": w}`` is always an ASK answer,
so a SELECT whose only answer is the string ``true`` cannot be told from one; a weight other
than 0 or 1 there is read as true (above 0) or false, with a warning. A key with neither a
prefix nor a language (``"nocolon"``) is read as that question id for every language, with a
warning (``1-en`` and ``db25:1`` are shapes of their own, read silently).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from service.formats.base import Format, Report, Source, Step, check_question_count, dumps
from service.formats.sparql_json import kind_of, looks_like_iri
from service.formats.text2sparql import PREFIX_KEY, item_key, split_item
from service.model import AnswerSet, Dataset, Question, Term, TermKind

NAME = "result-set-json"
VAR = "value"
ASK_KEY = "true"
_SHAPE = '{"<prefix>:<id>-<language>": {"<value>": weight, …}, …}'
_EVALUATION_KEYS = frozenset({"set_P", "set_recall", "set_F", "P", "recall", "F", "ndcg"})


def sniff(src: Source) -> bool:
    if not src.head.startswith("{") or not src.is_json():
        return False
    doc = src.json()
    if not isinstance(doc, dict) or not doc or "questions" in doc:
        return False
    head = list(doc.values())[:20]
    return all(isinstance(v, dict) and all(_is_weight(w) for w in v.values()) for v in head)


def _is_weight(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def read(src: Source) -> Dataset:
    report = Report(src)
    doc = src.json()
    if not isinstance(doc, dict):
        report.error(f"the document is {kind_of(doc)}", expected=f"an object {_SHAPE}")
        report.finish()
    _refuse_evaluation(doc, report)
    questions: list[Question] = []
    prefixes: Counter[str] = Counter()
    seen: dict[tuple[str, str | None], str] = {}
    odd_keys: list[str] = []
    if check_question_count(report, len(doc), at=()):
        for key, items in doc.items():
            prefix, qid, language = split_item(key)
            if prefix:
                prefixes[prefix] += 1
            if not prefix and not language:  # "1-en" and "db25:1" are kept shapes
                odd_keys.append(key)
            if isinstance(items, dict):
                report.count_answers(len(items), at=(key,), question_id=qid)
            answers = _read_items(items, report, at=(key,), qid=qid)
            if answers is None:
                continue
            first = seen.setdefault((qid, language), key)
            if first != key:
                report.warn(
                    f"the same question and language as {first!r}; lookups use the first",
                    at=(key,),
                    question_id=qid,
                    expected="one key per question and language",
                )
            questions.append(Question(id=qid, answers=answers, language=language))
    if odd_keys:  # "nocolon" was read as question "nocolon" without a word (explore44 F8)
        first = odd_keys[0]
        more = f" (and {len(odd_keys) - 1} more)" if len(odd_keys) > 1 else ""
        report.warn(
            f"key {first!r}{more} has neither a dataset prefix nor a language "
            f"(<prefix>:<id>-<language>): read as question {first!r}, for every language",
            at=(first,),
            question_id=first,
            expected="keys such as db25:1-en",
        )
    metadata: tuple[tuple[str, str], ...] = ()
    if prefixes:
        prefix, _ = prefixes.most_common(1)[0]
        metadata = ((PREFIX_KEY, prefix),)
        if len(prefixes) > 1:
            others = ", ".join(sorted(p for p in prefixes if p != prefix))
            report.warn(
                f"keys with other prefixes than {prefix!r} ({others}); "
                "writing the file gives them all that one",
                expected="one dataset prefix",
            )
    problems = report.finish()
    return Dataset(None, tuple(questions), format=NAME, problems=problems, metadata=metadata)


def _refuse_evaluation(doc: dict[str, Any], report: Report) -> None:
    """An official ``*_eval.json`` (per-item ``set_P``…, and an ``average``) has this very
    shape; say what it is instead of reading its measures as answers."""
    head = [v for v in list(doc.values())[:20] if isinstance(v, dict) and v]
    if head and all(set(v) <= _EVALUATION_KEYS for v in head):
        report.error(
            "this is a TEXT2SPARQL evaluation (per-item scores such as set_P, set_recall, set_F),"
            " not a result set",
            at=(next(iter(doc)),),
            expected=f"a result set {_SHAPE}",
        )
        report.finish()


def _read_items(items: Any, report: Report, *, at: tuple[Step, ...], qid: str) -> AnswerSet | None:
    if not isinstance(items, dict):
        report.error(
            f"result set is {kind_of(items)}",
            at=at,
            question_id=qid,
            expected='an object {"<value>": weight}',
        )
        return None
    ok = True
    for value, weight in items.items():
        if not _is_weight(weight):
            report.error(
                f"weight is {kind_of(weight)}",
                at=(*at, value),
                question_id=qid,
                expected="a number (1; 0 for a false ASK)",
            )
            ok = False
    if not ok:
        return None
    if list(items) == [ASK_KEY]:
        weight = items[ASK_KEY]
        if weight not in (0, 1):  # {"true": 2} was read as true without a word (explore44 F8)
            report.warn(
                f"weight {weight} of an ASK answer read as {'true' if weight > 0 else 'false'}",
                at=(*at, ASK_KEY),
                question_id=qid,
                expected="1 (true) or 0 (false)",
            )
        return AnswerSet(boolean=weight > 0)
    zero = [v for v, w in items.items() if w == 0]
    other = [(v, w) for v, w in items.items() if w not in (0, 1)]
    if zero:
        report.warn(
            "weight 0 read as an answer (a gold item of weight 0 is not relevant)" + _count(zero),
            at=(*at, zero[0]),
            question_id=qid,
            expected="weight 1",
        )
    if other:
        value, weight = other[0]
        report.warn(
            f"weight {weight} read as 1" + _count(other),
            at=(*at, value),
            question_id=qid,
            expected="weight 1",
        )
    return AnswerSet.of([_term(v) for v in items], var=VAR)


_IRI_SCHEMES = ("http:", "https:", "ftp:", "urn:")


def _count(found: list[Any]) -> str:
    return f" ({len(found)} values)" if len(found) > 1 else ""


def _term(value: str) -> Term:
    if value.lower().startswith(_IRI_SCHEMES) and looks_like_iri(value):
        return Term.iri(value)
    return Term.literal(value)


def write(dataset: Dataset) -> bytes:
    out: dict[str, dict[str, int]] = {}
    for key, q in _keyed(dataset):
        out.setdefault(key, _items(q.answers))
    return dumps(out)


def _keyed(dataset: Dataset) -> Iterator[tuple[str, Question]]:
    """Each question under each key it is written as (one per language)."""
    prefix = dict(dataset.metadata).get(PREFIX_KEY)
    for q in dataset.questions:
        languages: list[str | None] = (
            [q.language] if q.language else [*dict.fromkeys(lang or None for lang in q.languages)]
        )
        for language in languages or [None]:
            yield item_key(prefix, q.id, language), q


def _items(answers: AnswerSet | None) -> dict[str, int]:
    if answers is None:
        return {}
    if answers.boolean is not None:
        return {ASK_KEY: int(answers.boolean)}
    return dict.fromkeys((t.value for t in answers.values()), 1)


def losses(dataset: Dataset) -> list[str]:
    found: Counter[str] = Counter()
    for q in dataset.questions:
        values = q.answers.values() if q.answers is not None and not q.answers.is_boolean else ()
        dropped = [
            ("question texts, queries and metadata", _has_more_than_answers(q)),
            ("answer datatypes, languages and IRI marks", any(_typed(t) for t in values)),
            ("repeated values and the grouping of values into rows", _rows_lost(q.answers)),
            ("the difference between no answers and an empty answer set", q.answers is None),
            ("answers given once for all languages (written once per language)", _spread(q)),
        ]
        found.update(what for what, lost in dropped if lost)
    keys = Counter(key for key, _ in _keyed(dataset))
    repeated = [key for key, n in keys.items() if n > 1]
    if repeated:
        # A key holds one entry: a second question of that id and language is not written.
        found[f"entries whose key repeats an earlier one, such as {repeated[0]!r}"] = sum(
            keys[key] - 1 for key in repeated
        )
    return [f"{what} ({n} questions)" for what, n in found.items()]


def _has_more_than_answers(q: Question) -> bool:
    return bool(
        any(t.string or t.keywords for t in q.texts)
        or q.sparql
        or q.pseudo_query
        or q.answertype
        or q.extra
        or q.features
        or q.classes
    )


def _typed(term: Term) -> bool:
    return term != _term(term.value) or term.kind is TermKind.BNODE


def _rows_lost(answers: AnswerSet | None) -> bool:
    if answers is None or answers.is_boolean:
        return False
    values = [t.value for t in answers.values()]
    return len(values) != len(set(values)) or any(len(row) != 1 for row in answers.rows)


def _spread(q: Question) -> bool:
    return q.language is None and len(q.languages) > 1


FORMAT = Format(
    name=NAME,
    label="TEXT2SPARQL result set JSON",
    media_types=("application/x-text2sparql-results+json",),
    extensions=("json",),
    read=read,
    write=write,
    sniff=sniff,
    losses=losses,
    description=(
        "TEXT2SPARQL'25 gold or system result sets: per question and language the returned "
        'values with weights; an ASK as {"true": 0|1}'
    ),
)
