"""What the three TEXT2SPARQL formats share: item keys and the dataset's prefix environment.

TEXT2SPARQL (text2sparql.aksw.org) scores each question once per language, and names each such
item ``<prefix>:<id>-<language>`` (``ck25:1-en``; the result sets' keys, the answers files'
``qname``). A dataset states its ``prefix`` (``ck25``) and a ``defaultNamespace``, which the
challenge's queries use as ``:`` without declaring it. Readers keep both in
``Dataset.metadata`` under the keys below, so writers and the SPARQL executor find them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from functools import cache

from service.model import Dataset, Question, QuestionText

PREFIX_KEY = "prefix"
NAMESPACE_KEY = "defaultNamespace"


@cache
def _item() -> re.Pattern[str]:
    """A language suffix: ISO 639 code, optionally a region or script (en, es, pt-BR, zh_Hans).
    Compiled when first used: every ``gerbil-qa evaluate`` imports the formats."""
    return re.compile(r"(?P<id>.+?)-(?P<lang>[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?)")


def split_item(key: str) -> tuple[str | None, str, str | None]:
    """``"ck25:1-en"`` -> ``("ck25", "1", "en")``; a part the key lacks is ``None``.

    The prefix is what comes before the first ``:``; the language is a trailing ``-xx``
    (``-xx-YY``) code. A key without such a suffix is a question id for every language.
    """
    prefix: str | None = None
    rest = key
    if ":" in key:
        head, tail = key.split(":", 1)
        if head and tail:
            prefix, rest = head, tail
    found = _item().fullmatch(rest)
    if found is None:
        return prefix, rest, None
    return prefix, found.group("id"), found.group("lang")


def item_key(prefix: str | None, question_id: str, language: str | None) -> str:
    """The inverse of :func:`split_item`."""
    key = question_id if language is None else f"{question_id}-{language}"
    return f"{prefix}:{key}" if prefix else key


def metadata_value(dataset: Dataset, key: str) -> str | None:
    return dict(dataset.metadata).get(key)


def prefix_environment(dataset: Dataset) -> Mapping[str, str]:
    """The prefixes a query for ``dataset`` may use undeclared: its ``defaultNamespace`` as
    ``:`` (the challenge's convention), nothing for a dataset that states none."""
    namespace = metadata_value(dataset, NAMESPACE_KEY)
    return {"": namespace} if namespace else {}


# The formats whose entries carry a language of their own (``Question.language``).
ENTRY_LANGUAGE_FORMATS = frozenset({"result-set-json", "text2sparql-answers"})
# The formats that keep a text's language without its string: the items' languages go there,
# and the prefix in the dataset object, as ``prefix`` (where the TEXT2SPARQL YAML has it).
TEXT_LANGUAGE_FORMATS = frozenset({"qald-json", "eqald-json"})
QALD_PREFIX_KEY = "dataset.prefix"


def per_question(dataset: Dataset) -> Dataset:
    """``dataset`` for a format of :data:`TEXT_LANGUAGE_FORMATS`: a TEXT2SPARQL item's
    language becomes a (string-less) question text, so it survives the way back, and the items
    of one id that have equal answers become one question (``db25:1-en`` and ``db25:1-es``: one
    QALD question in en and es). Items whose answers differ by language stay one question each
    (sharing the id): :func:`shared_ids` counts them for the conversion's losses."""
    dataset = _with_prefix(dataset, QALD_PREFIX_KEY, metadata_value(dataset, PREFIX_KEY))
    if all(q.language is None for q in dataset.questions):
        return dataset
    merged: dict[str, list[Question]] = {}
    for q in dataset.questions:
        merged.setdefault(q.id, []).append(q)
    questions: list[Question] = []
    for group in merged.values():
        first = group[0]
        mergeable = all(
            replace(q, language=first.language) == first and q.language is not None for q in group
        )
        if mergeable:
            languages = tuple(dict.fromkeys(q.language for q in group if q.language))
            questions.append(_as_texts(first, languages))
        else:
            questions.extend(_as_texts(q, (q.language,) if q.language else ()) for q in group)
    return replace(dataset, questions=tuple(questions))


def per_item(dataset: Dataset) -> Dataset:
    """``dataset`` for a format of :data:`ENTRY_LANGUAGE_FORMATS`: the prefix that
    :func:`per_question` kept in a QALD dataset object names the items again (``db25:1-en``)."""
    return _with_prefix(dataset, PREFIX_KEY, metadata_value(dataset, QALD_PREFIX_KEY))


def _with_prefix(dataset: Dataset, key: str, prefix: str | None) -> Dataset:
    if prefix is None or metadata_value(dataset, key) is not None:
        return dataset
    return replace(dataset, metadata=(*dataset.metadata, (key, prefix)))


def _as_texts(q: Question, languages: tuple[str, ...]) -> Question:
    known = {t.language for t in q.texts}
    added = tuple(QuestionText(lang) for lang in languages if lang not in known)
    return replace(q, language=None, texts=q.texts + added)


def shared_ids(dataset: Dataset) -> list[str]:
    """What :func:`per_question` cannot make one question per id, as a conversion loss."""
    counts: dict[str, int] = {}
    for q in dataset.questions:
        counts[q.id] = counts.get(q.id, 0) + 1
    repeated = [qid for qid, n in counts.items() if n > 1]
    if not repeated:
        return []
    return [
        f"one question per id: {len(repeated)} ids (such as {repeated[0]!r}) are written as "
        "several questions sharing the id (answers that differ by language, or a repeated id)"
    ]
