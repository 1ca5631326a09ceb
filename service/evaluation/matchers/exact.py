"""The ``exact`` profile's matching: value strings compared exactly, set semantics, no KB."""

from __future__ import annotations

from service.evaluation.kbview import NO_REQUESTS, KBRequests, KBView
from service.evaluation.matchers.base import Judged, distinct, verdicts_by_key
from service.model import AnswerSet


def value_strings(answers: AnswerSet) -> list[str]:
    """Every binding value of every variable, in row order; a boolean as ``true``/``false``."""
    return [t.value for t in answers.values()]


class ExactMatcher:
    """The baseline most tools use: the set of value strings, compared character by character."""

    __slots__ = ()  # stateless: nothing to change

    def requests(self, gold: AnswerSet, system: AnswerSet, *, language: str) -> KBRequests:
        return NO_REQUESTS

    def match(self, gold: AnswerSet, system: AnswerSet, kb: KBView, *, language: str) -> Judged:
        g = distinct(value_strings(gold))
        given = value_strings(system)
        s = distinct(given)
        gold_set = set(g)
        tp = sum(1 for v in s if v in gold_set)
        return Judged(
            tp=tp,
            fp=len(s) - tp,
            fn=len(g) - tp,
            n_system=len(s),
            n_gold=len(g),
            verdicts=verdicts_by_key(given, gold_set),
            gold=tuple(map(str, g)),
            given=tuple(map(str, s)),
        )
