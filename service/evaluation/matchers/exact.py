"""The ``exact`` profile's matching: value strings compared exactly, set semantics, no KB."""

from __future__ import annotations

from service.evaluation.kbview import NO_REQUESTS, KBRequests, KBView
from service.evaluation.matchers.base import Judged, match_value_strings
from service.model import AnswerSet


class ExactMatcher:
    """The baseline most tools use: the set of value strings, compared character by character."""

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
        return match_value_strings(gold.values(), system.values())
