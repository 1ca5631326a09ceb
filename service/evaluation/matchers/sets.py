"""Matching the sets of the sub-experiments: IRIs (C2KB, P2KB, AIT2KB) and plain keys (RE2KB, AT).

IRI identity per profile:

* ``exact``: the IRI strings, character by character;
* ``gerbil``: GERBIL's meaning matching, a system IRI matches a gold IRI when the system IRI's
  owl:sameAs closure contains it, taken one-to-one and greedily in gold order;
* ``fair``: the identity rules of :mod:`service.kb.identity` and the sameAs closure of both
  sides, one-to-one and maximal.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from service.evaluation.kbview import NO_REQUESTS, KBRequests, KBView
from service.evaluation.matchers.base import Judged, MatchRule, distinct, match_sets, paired
from service.evaluation.matchers.fair import iri_keys, max_matching
from service.evaluation.matchers.gerbil import greedy_one_to_one
from service.kb.identity import canonical_iri, canonical_iris


def match_keys(gold: Sequence[Hashable], system: Sequence[Hashable]) -> Judged:
    """Exact identity of hashable items (relations, answer types), set semantics."""
    return match_sets(gold, system, show=_show, verdicts=False)


def _show(item: Hashable) -> str:
    if isinstance(item, tuple) and len(item) == 3 and all(isinstance(p, tuple) for p in item):
        return " ".join(_show_position(p) for p in item)  # a relation
    return str(item)


def _show_position(pos: tuple[str, ...]) -> str:
    if pos[0] == "var":
        return "?"
    if pos[0] == "iri":
        return f"<{pos[1]}>"
    if pos[0] == "lit":
        return f'"{pos[2]}"'
    return pos[-1]


class IriSetMatcher:
    """Matches two sets of IRIs under one identity (``exact``, ``gerbil`` or ``fair``).

    A plain class, not a dataclass: it is created per run and never compared, and a dataclass
    costs a millisecond of import time (``gerbil-qa evaluate`` is timed against ``import rdflib``).
    """

    __slots__ = ("identity",)

    def __init__(self, identity: str = "exact") -> None:
        self.identity = identity

    def requests(self, gold: Sequence[str], system: Sequence[str]) -> KBRequests:
        if self.identity == "gerbil":
            return KBRequests(same_as=frozenset(system))
        if self.identity == "fair":
            return KBRequests(
                same_as=frozenset(x for iri in (*gold, *system) for x in canonical_iris(iri))
            )
        return NO_REQUESTS

    def match(self, gold: Sequence[str], system: Sequence[str], kb: KBView) -> Judged:
        if self.identity == "gerbil":
            return self._greedy(distinct(gold), distinct(system), kb)
        if self.identity == "fair":
            return self._fair(distinct(gold), distinct(system), kb)
        return match_keys(gold, system)

    @staticmethod
    def _greedy(gold: list[str], system: list[str], kb: KBView) -> Judged:
        taken = greedy_one_to_one(gold, [kb.closure(s) for s in system])
        matches = [
            (si, gi, MatchRule.EXACT if system[si] == gold[gi] else MatchRule.SAME_AS)
            for si, gi in enumerate(taken)
            if gi >= 0
        ]
        return paired(matches, gold, system)

    @staticmethod
    def _fair(gold: list[str], system: list[str], kb: KBView) -> Judged:
        # Distinct by normal form first: two spellings of one resource are one item.
        gold = distinct(gold, key=canonical_iri)
        system = distinct(system, key=canonical_iri)
        canonical = {canonical_iri(g): gi for gi, g in enumerate(gold)}
        if not kb.same_as_map:  # identity alone: normal forms are equal or not
            matches = [
                (si, gi, _identity_rule(x, gold[gi]))
                for si, x in enumerate(system)
                if (gi := canonical.get(canonical_iri(x))) is not None
            ]
            return paired(matches, gold, system)
        index: dict[object, list[int]] = {}
        for gi, g in enumerate(gold):
            for k in iri_keys(g, kb):
                index.setdefault(k, []).append(gi)
        edges = [sorted({gi for k in iri_keys(s, kb) for gi in index.get(k, ())}) for s in system]
        matches = [
            (si, gi, _identity_rule(system[si], gold[gi]))
            for gi, si in max_matching(edges, len(gold)).items()
        ]
        return paired(matches, gold, system)


def _identity_rule(given: str, gold: str) -> MatchRule:
    """How two IRIs the fair identity matched are the same: as written, in normal form, or
    only through the KB's owl:sameAs links."""
    if given == gold:
        return MatchRule.EXACT
    return (
        MatchRule.IRI_IDENTITY if canonical_iri(given) == canonical_iri(gold) else MatchRule.SAME_AS
    )


def canonical_relation(relation: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
    """A relation key with its IRIs in normal form (fair's RE2KB)."""
    return tuple(("iri", canonical_iri(p[1])) if p[0] == "iri" else p for p in relation)
