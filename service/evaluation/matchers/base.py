"""What every answer matcher returns: counts, sizes and a verdict per given answer."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import NamedTuple, Protocol, TypeVar

from service.evaluation.kbview import KBRequests, KBView
from service.evaluation.results import Verdict
from service.model import AnswerSet

__all__ = [
    "AnswerMatcher",
    "Judged",
    "Verdict",
    "distinct",
    "match_sets",
    "paired",
    "verdicts_by_key",
]


class Judged(NamedTuple):
    """One question matched under a profile.

    ``tp``/``fp``/``fn`` are the profile's counts; ``n_system``/``n_gold`` the sizes of the sets
    (or lists) it compared; ``verdicts`` one entry per answer item in the system's order (for
    the confidence and rank measures); ``credit`` the per-question score of profiles that grade
    a question as a whole (poleval); ``gold``/``given`` the compared items as displayed.
    """

    tp: int
    fp: int
    fn: int
    n_system: int
    n_gold: int
    verdicts: tuple[Verdict, ...] = ()
    credit: float | None = None
    gold: tuple[str, ...] = ()
    given: tuple[str, ...] = ()


class AnswerMatcher(Protocol):
    """Matches a system's answers to the gold answers of one question."""

    def requests(self, gold: AnswerSet, system: AnswerSet, *, language: str) -> KBRequests:
        """The KB lookups :meth:`match` will consult for this question (may be empty)."""
        ...

    def match(self, gold: AnswerSet, system: AnswerSet, kb: KBView, *, language: str) -> Judged:
        """Match one question, consulting only what :meth:`requests` asked for."""
        ...


def verdicts_by_key(keys: Sequence[Hashable], correct: set[H]) -> tuple[Verdict, ...]:
    """Verdicts for answer items identified by ``keys`` (repeats after the first occurrence)."""
    seen: set[Hashable] = set()
    out: list[Verdict] = []
    for key in keys:
        if key in seen:
            out.append(Verdict.REPEATED)
        else:
            seen.add(key)
            out.append(Verdict.CORRECT if key in correct else Verdict.WRONG)
    return tuple(out)


H = TypeVar("H", bound=Hashable)


def distinct(items: Iterable[H], *, key: Callable[[H], Hashable] | None = None) -> list[H]:
    """The items without repeats (by ``key`` when given), first occurrence order."""
    if key is None:
        return list(dict.fromkeys(items))
    first: dict[Hashable, H] = {}
    for item in items:
        first.setdefault(key(item), item)
    return list(first.values())


def paired(
    tp: int, gold: Sequence[str], given: Sequence[str], verdicts: tuple[Verdict, ...] = ()
) -> Judged:
    """``tp`` of the distinct ``given`` items paired one-to-one with distinct ``gold`` items
    (both as displayed): the other given items are false, the other gold items missed."""
    return Judged(
        tp=tp,
        fp=len(given) - tp,
        fn=len(gold) - tp,
        n_system=len(given),
        n_gold=len(gold),
        verdicts=verdicts,
        gold=tuple(gold),
        given=tuple(given),
    )


def match_sets(
    gold: Iterable[H],
    given: Sequence[H],
    *,
    show: Callable[[H], str] = str,
    verdicts: bool = True,
) -> Judged:
    """Set semantics on hashable items: a distinct given item is correct when it is among the
    distinct gold items (``verdicts``: also judge each given item, repeats included)."""
    g = distinct(gold)
    s = distinct(given)
    gold_set = set(g)
    tp = sum(1 for x in s if x in gold_set)
    judged = verdicts_by_key(given, gold_set) if verdicts else ()
    return paired(tp, tuple(map(show, g)), tuple(map(show, s)), judged)
