"""The QALD challenge tools' matching: QALD-5/6 ``evaluation.rb`` and QALD-1..4 ``Evaluation.py``.

Both compare whole binding rows, not single values, and use no KB.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from urllib.parse import unquote

from service.evaluation.kbview import NO_REQUESTS, KBRequests, KBView
from service.evaluation.matchers.base import Judged, MatchRule, Verdict, match_sets
from service.model import AnswerSet

_DIGITS = re.compile(r"[0-9]+")

Qald6Item = tuple[str, bool | tuple[tuple[str, int], ...]]


@lru_cache(maxsize=1 << 16)
def qald6_normalise(value: str) -> str:
    """QALD-6 evaluation.rb ``normalize``: all digits gets ``.0``; else strip, percent-decode.

    The digit test is on the raw value (Ruby ``\\A\\d+\\z``); decoding is Ruby's
    ``URI.unescape``: ``%XX`` escapes only, ``+`` stays a plus.
    """
    if _DIGITS.fullmatch(value):
        return value + ".0"
    return unquote(value.strip(), errors="surrogateescape")


def qald6_items(answers: AnswerSet) -> list[Qald6Item]:
    """One item per binding row, the multiset of its normalised values (every variable); an ASK
    answer is its boolean (a boolean never equals a row holding ``"true"``) unless its file also
    gave a ``results.bindings`` array: evaluation.rb reads the bindings whenever there is such an
    array, even an empty one (``AnswerSet.empty_bindings``), so that answer is empty."""
    if answers.empty_bindings:
        return []
    if answers.boolean is not None:
        return [("boolean", answers.boolean)]
    items: list[Qald6Item] = []
    for row in answers.row_values():
        if len(row) == 1:  # the common case, without building a Counter
            items.append(("row", ((qald6_normalise(row[0].value), 1),)))
        else:
            counts = Counter(qald6_normalise(t.value) for t in row)
            items.append(("row", tuple(sorted(counts.items()))))
    return items


def _show_qald6(item: Qald6Item) -> str:
    value = item[1]
    if isinstance(value, bool):
        return "true" if value else "false"
    return " ".join(v for v, n in value for _ in range(n))


class Qald6Matcher:
    """QALD-5/6 ``evaluation.rb``: rows deduplicated (``answers.uniq``) on both sides;
    ``correct`` = number of distinct user rows found among the gold rows."""

    __slots__ = ()  # stateless: nothing to change

    def requests(self, gold: AnswerSet, system: AnswerSet, *, language: str) -> KBRequests:
        return NO_REQUESTS

    def match(
        self,
        gold: AnswerSet,
        system: AnswerSet,
        kb: KBView,
        *,
        language: str,
        answer_type: str | None = None,
    ) -> Judged:
        return match_sets(
            qald6_items(gold), qald6_items(system), show=_show_qald6, rule=MatchRule.NORMALISED_ROW
        )


def legacy_items(answers: AnswerSet) -> list[tuple[str, ...]]:
    """QALD-1..4 ``Evaluation.py``: each ``<answer>`` (binding row) is the list of its stripped
    values; a boolean is the text ``true``/``false``. Duplicates are kept."""
    return [tuple(t.value.strip() for t in row) for row in answers.row_values()]


class LegacyMatcher:
    """QALD-1..4 ``Evaluation.py``: lists, not sets. ``c`` counts every user item found among the
    gold items, repeats included, so recall can exceed 1 as in the original script."""

    __slots__ = ()  # stateless: nothing to change

    def requests(self, gold: AnswerSet, system: AnswerSet, *, language: str) -> KBRequests:
        return NO_REQUESTS

    def match(
        self,
        gold: AnswerSet,
        system: AnswerSet,
        kb: KBView,
        *,
        language: str,
        answer_type: str | None = None,
    ) -> Judged:
        g = legacy_items(gold)
        u = legacy_items(system)
        first: dict[tuple[str, ...], int] = {}
        for gi, x in enumerate(g):
            first.setdefault(x, gi)
        matches = tuple(
            (ui, at, MatchRule.EXACT) for ui, x in enumerate(u) if (at := first.get(x)) is not None
        )
        c = len(matches)
        verdicts = tuple(Verdict.CORRECT if x in first else Verdict.WRONG for x in u)
        return Judged(
            tp=c,
            fp=len(u) - c,
            fn=max(0, len(g) - c),
            n_system=len(u),
            n_gold=len(g),
            verdicts=verdicts,
            gold=tuple(" ".join(x) for x in g),
            given=tuple(" ".join(x) for x in u),
            matches=matches,
            ranked=tuple(" ".join(x) for x in u),  # a list: ``given`` is already in order
        )
