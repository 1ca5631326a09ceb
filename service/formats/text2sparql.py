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
from functools import cache

from service.model import Dataset

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
