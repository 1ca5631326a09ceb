"""What every answer matcher returns: counts, sizes, a verdict per given answer, and which rule
matched each given answer to which gold answer (the explanation pages and the graph show)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from typing import NamedTuple, Protocol, TypeVar, runtime_checkable

from service.evaluation.kbview import KBRequests, KBView
from service.evaluation.results import ItemMatch, MatchRule, Verdict
from service.model import AnswerSet, Term
from service.valid_terms import is_valid_iri

__all__ = [
    "AnswerMatcher",
    "ItemMatch",
    "Judged",
    "MatchRule",
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
    a question as a whole (poleval); ``gold``/``given`` the compared items as displayed;
    ``matches`` which given item matched which gold item by which rule (the explanation);
    ``ranked`` the item each verdict judges, as displayed, in the system's order with repeats
    (what the confidence and rank measures read, which the distinct ``given`` hides); ``note``
    what the matcher says of a wrong answer (fair: a written form of a number or date it does
    not read), recorded as the question's note.
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
    matches: tuple[ItemMatch, ...] = ()
    ranked: tuple[str, ...] = ()
    note: str | None = None


class AnswerMatcher(Protocol):
    """Matches a system's answers to the gold answers of one question."""

    def requests(self, gold: AnswerSet, system: AnswerSet, *, language: str) -> KBRequests:
        """The KB lookups :meth:`match` will consult for this question (may be empty)."""
        ...

    def match(
        self,
        gold: AnswerSet,
        system: AnswerSet,
        kb: KBView,
        *,
        language: str,
        answer_type: str | None = None,
    ) -> Judged:
        """Match one question, consulting only what :meth:`requests` asked for.

        ``answer_type``: the gold question's QALD answertype (``date``, ``number``…), where it
        gives one (fair reads a plain gold year as a year only for ``date``)."""
        ...


@runtime_checkable
class NotesAnswers(Protocol):
    """A matcher whose items are not what the system said in some case, and says so for the
    per-question view (text2sparql: an ASK answer of false is the item ``true``)."""

    def note(self, system: AnswerSet) -> str | None: ...


@runtime_checkable
class ExplainsMisses(Protocol):
    """A matcher that can say why an answer matched none of the gold answers from the strings
    alone (poleval: which edit distance, which number), for the per-question diagnostics."""

    def why_not(self, answer: str, alternatives: Sequence[str]) -> str | None: ...


def verdicts_by_key(keys: Sequence[Hashable], correct: Collection[Hashable]) -> tuple[Verdict, ...]:
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
    matches: Sequence[ItemMatch],
    gold: Sequence[str],
    given: Sequence[str],
    verdicts: tuple[Verdict, ...] = (),
    ranked: Sequence[str] = (),
) -> Judged:
    """The distinct ``given`` items paired one-to-one with distinct ``gold`` items (both as
    displayed) by ``matches``: the other given items are false, the other gold items missed;
    ``ranked``: the item of each verdict, as displayed."""
    tp = len(matches)
    return Judged(
        tp=tp,
        fp=len(given) - tp,
        fn=len(gold) - tp,
        n_system=len(given),
        n_gold=len(gold),
        verdicts=verdicts,
        gold=tuple(gold),
        given=tuple(given),
        matches=tuple(matches),
        ranked=tuple(ranked),
    )


def match_sets(
    gold: Iterable[H],
    given: Sequence[H],
    *,
    show: Callable[[H], str] = str,
    show_gold: Callable[[H], str] | None = None,
    verdicts: bool = True,
    rule: MatchRule = MatchRule.EXACT,
) -> Judged:
    """Set semantics on hashable items: a distinct given item is correct (by ``rule``) when it
    is among the distinct gold items (``verdicts``: also judge each given item, repeats
    included). ``show`` displays a given item, ``show_gold`` a gold one (default ``show``)."""
    g = distinct(gold)
    s = distinct(given)
    position = {x: i for i, x in enumerate(g)}
    matches = [(si, gi, rule) for si, x in enumerate(s) if (gi := position.get(x)) is not None]
    judged = verdicts_by_key(given, position.keys()) if verdicts else ()
    ranked = tuple(map(show, given)) if verdicts else ()
    gold_shown = tuple(map(show_gold or show, g))
    return paired(matches, gold_shown, tuple(map(show, s)), judged, ranked)


def match_value_strings(gold: Sequence[Term], given: Sequence[Term]) -> Judged:
    """Set semantics on the terms' value strings (an IRI and a literal of one spelling are one
    item), each item displayed as the first term of its spelling was given: the stored
    answers stay the RDF terms the gold and the system wrote (an IRI an IRI, a typed literal
    typed), while the comparison reads strings alone (explore33 F5)."""
    gold_shown = _first_spelling(gold)
    given_shown = _first_spelling(given)
    return match_sets(
        [t.value for t in gold],
        [t.value for t in given],
        show=given_shown.__getitem__,
        show_gold=gold_shown.__getitem__,
    )


def _first_spelling(terms: Sequence[Term]) -> dict[str, str]:
    """Each value string displayed as the first term of it; an "IRI" that is none (``<x>``
    with its brackets, spaces) as the text it is, which is why a string profile missed it."""
    first: dict[str, str] = {}
    for t in terms:
        if t.value not in first:
            bad_iri = t.is_iri and not is_valid_iri(t.value)
            first[t.value] = Term.literal(t.value).n3() if bad_iri else t.n3()
    return first
