"""The ``gerbil`` profile's matching: GERBIL QA's ``QAMatchingsCounter`` as DESIGN §3 states it.

1. Every answer is the string of its value (datatype and language dropped; a boolean is
   ``true``/``false``). The gold set holds IRIs only if *every* gold value is a valid absolute URI
   (``scheme:rest``); otherwise every gold value is a string.
2. String part: TP_s = |S ∩ G_s| (exact strings), FN_s = |G_s \\ S|, FP_s = 0.
3. Every system value left over (not among the gold strings) becomes one or more candidate
   resources: a valid http/https/ftp URL is itself; any other string is looked up as
   ``rdfs:label "value"@language`` and each resource found is a candidate (none found: the
   string itself). Candidates are expanded by the owl:sameAs closure; gold IRIs are not.
4. IRI part, one-to-one and greedy as GERBIL's ``MatchingsCounterImpl``: each gold IRI in gold
   order takes the first unused candidate (system order) whose closure contains it; TP_a is the
   number taken, FN_a the gold IRIs left, FP_a the candidates left.
5. TP = TP_s + TP_a, FP = FP_a, FN = FN_s + FN_a.
"""

from __future__ import annotations

from service.evaluation.kbview import KBRequests, KBView
from service.evaluation.matchers.base import Judged, MatchRule, Verdict, distinct
from service.evaluation.values import is_absolute_uri, is_url
from service.model import AnswerSet


def greedy_one_to_one(gold: list[str], closures: list[frozenset[str]]) -> list[int]:
    """GERBIL's ``MatchingsCounterImpl``: each gold IRI, in gold order, takes the first unused
    candidate (in system order) whose closure contains it. Returns, per candidate, the index of
    the gold IRI that took it (-1: none).

    Indexed by IRI so that it runs in the size of the closures, not |gold| x |candidates|.
    """
    holders: dict[str, list[int]] = {}
    for c, closure in enumerate(closures):
        for iri in closure:
            holders.setdefault(iri, []).append(c)
    taken = [-1] * len(closures)
    position: dict[str, int] = {}  # per IRI, how far its holder list has been consumed
    for gi, iri in enumerate(gold):
        found = holders.get(iri)
        if not found:
            continue
        i = position.get(iri, 0)
        while i < len(found) and taken[found[i]] >= 0:
            i += 1
        position[iri] = i
        if i < len(found):
            taken[found[i]] = gi
    return taken


def _values(answers: AnswerSet) -> list[str]:
    return [t.value for t in answers.values()]


def _split_gold(gold: list[str]) -> tuple[list[str], list[str]]:
    """(gold strings, gold IRIs): all IRIs only when every value is an absolute URI."""
    if gold and all(is_absolute_uri(v) for v in gold):
        return [], gold
    return gold, []


class GerbilMatcher:
    """GERBIL QA 0.3 answer matching (see the module docstring for every rule)."""

    __slots__ = ()  # stateless: nothing to change

    def requests(self, gold: AnswerSet, system: AnswerSet, *, language: str) -> KBRequests:
        g_strings, _ = _split_gold(distinct(_values(gold)))
        strings = set(g_strings)
        urls: set[str] = set()
        labels: set[tuple[str, str | None]] = set()
        for v in distinct(_values(system)):
            if v in strings:
                continue
            if is_url(v):
                urls.add(v)
            else:
                labels.add((v, language))
        return KBRequests(same_as=frozenset(urls), resources_for_labels=frozenset(labels))

    def match(
        self,
        gold: AnswerSet,
        system: AnswerSet,
        kb: KBView,
        *,
        language: str,
        answer_type: str | None = None,
    ) -> Judged:
        g = distinct(_values(gold))
        given = _values(system)
        s = distinct(given)
        g_strings, g_iris = _split_gold(g)
        # g_strings or g_iris is all of g, so their indices are g's
        strings = {v: gi for gi, v in enumerate(g_strings)}
        matches = [
            (si, gi, MatchRule.EXACT)
            for si, v in enumerate(s)
            if (gi := strings.get(v)) is not None
        ]
        tp_s = len(matches)
        fn_s = len(g_strings) - tp_s

        # Candidates: the system value's index, the candidate resource's sameAs closure, and the
        # rule that applies if it is taken (a URL equal to the gold IRI is EXACT, see below).
        candidates: list[tuple[int, frozenset[str], MatchRule]] = []
        for i, v in enumerate(s):
            if v in strings:
                continue
            if is_url(v):
                candidates.append((i, kb.closure(v), MatchRule.SAME_AS))
                continue
            found = kb.resources(v, language)
            if found:
                candidates.extend((i, kb.closure(r), MatchRule.LABEL) for r in sorted(found))
            else:
                candidates.append((i, frozenset((v,)), MatchRule.EXACT))

        taken = greedy_one_to_one(g_iris, [closure for _, closure, _ in candidates])
        for (i, _closure, rule), gi in zip(candidates, taken, strict=True):
            if gi >= 0:
                exact = rule is MatchRule.SAME_AS and s[i] == g_iris[gi]
                matches.append((i, gi, MatchRule.EXACT if exact else rule))
        tp_a = len(matches) - tp_s
        fn_a = len(g_iris) - tp_a
        fp_a = len(candidates) - tp_a

        correct_values = {s[given] for given, _, _ in matches}
        verdicts: list[Verdict] = []
        seen: set[str] = set()
        for v in given:
            if v in seen:
                verdicts.append(Verdict.REPEATED)
                continue
            seen.add(v)
            verdicts.append(Verdict.CORRECT if v in correct_values else Verdict.WRONG)
        return Judged(
            tp=tp_s + tp_a,
            fp=fp_a,
            fn=fn_s + fn_a,
            n_system=len(s),
            n_gold=len(g),
            verdicts=tuple(verdicts),
            gold=tuple(g),
            given=tuple(s),
            matches=tuple(matches),
            ranked=tuple(given),
        )
