"""The ``text2sparql`` profile's matching: TEXT2SPARQL'25's items, compared as exact strings.

The challenge scored result sets with pytrec_eval's ``set_P``/``set_recall``/``set_F``: the items
are the value strings of every binding of every variable. A gold item is relevant only with a
weight above 0, so an ASK whose gold is false has no relevant item; every item a system returned
is retrieved whatever its weight, so a system's ASK answer is the item ``true`` whether it said
true or false (``{"true": 0}`` in its result set).
"""

from __future__ import annotations

from collections.abc import Sequence

from service.evaluation.kbview import NO_REQUESTS, KBRequests, KBView
from service.evaluation.matchers.base import Judged, match_value_strings
from service.model import AnswerSet, Term


def relevant_items(gold: AnswerSet) -> Sequence[Term]:
    """The gold's relevant items (compared by their value strings); an ASK gives ``true``
    only when true."""
    if gold.boolean is not None:
        return [Term.boolean(True)] if gold.boolean else []
    return gold.values()


def retrieved_items(system: AnswerSet) -> Sequence[Term]:
    """What the system returned (compared by the value strings); an ASK answer is ``true``
    either way."""
    if system.boolean is not None:
        return [Term.boolean(True)]
    return system.values()


class Text2SparqlMatcher:
    """Relevant gold items against retrieved system items, set semantics, exact strings."""

    __slots__ = ()  # stateless

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
        return match_value_strings(relevant_items(gold), retrieved_items(system))

    def note(self, system: AnswerSet) -> str | None:
        """An ASK answered false is shown as the item ``true`` it retrieves: said why, as a
        team whose query said false read "true, matched" and took it for our error."""
        if system.boolean is False:
            return (
                "the query answered false; TEXT2SPARQL'25 counts an ASK answer as the item "
                "'true' whatever it says (its result set: {\"true\": 0}), so 'true' is what it "
                "retrieved"
            )
        return None
