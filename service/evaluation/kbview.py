"""Batched KB lookups for a whole experiment: collect every key first, ask once per kind.

Matching never talks to a KB directly. Each matcher says what it needs for a question
(:class:`KBRequests`); the runner merges the requests of every question and experiment type and
:func:`resolve` asks the KB in two stages, at most one call per lookup kind:

1. labels: ``resources_for_labels`` (strings to resources) and ``labels_for_resources``;
2. identity: ``same_as`` for every IRI requested *and* every resource stage 1 found.

So the number of KB calls is at most three, whatever the number of questions and answers
(a remote KB splits each call into blocks of its own batch size).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from service.kb import KnowledgeBase, LabelKey

_EMPTY: frozenset[str] = frozenset()


class KBRequests(NamedTuple):
    """What one question (or a whole experiment, merged) needs from the KB."""

    same_as: frozenset[str] = _EMPTY
    resources_for_labels: frozenset[LabelKey] = frozenset()
    labels_for_resources: frozenset[str] = _EMPTY

    def __bool__(self) -> bool:
        return bool(self.same_as or self.resources_for_labels or self.labels_for_resources)

    @staticmethod
    def merge(requests: Iterable[KBRequests]) -> KBRequests:
        same: set[str] = set()
        r4l: set[LabelKey] = set()
        l4r: set[str] = set()
        for r in requests:
            same |= r.same_as
            r4l |= r.resources_for_labels
            l4r |= r.labels_for_resources
        return KBRequests(frozenset(same), frozenset(r4l), frozenset(l4r))


NO_REQUESTS = KBRequests()


class KBView(NamedTuple):
    """The answers of the KB to the merged requests; without a KB, every IRI is only itself."""

    same_as_map: Mapping[str, frozenset[str]] = MappingProxyType({})
    resources_map: Mapping[LabelKey, frozenset[str]] = MappingProxyType({})
    labels_map: Mapping[str, frozenset[str]] = MappingProxyType({})

    def closure(self, iri: str) -> frozenset[str]:
        """The owl:sameAs closure of ``iri``, itself included."""
        found = self.same_as_map.get(iri)
        return found | {iri} if found else frozenset((iri,))

    def resources(self, label: str, language: str | None) -> frozenset[str]:
        return self.resources_map.get((label, language), _EMPTY)

    def labels(self, iri: str) -> frozenset[str]:
        return self.labels_map.get(iri, _EMPTY)


EMPTY_VIEW = KBView()


def resolve(
    kb: KnowledgeBase | None, requests: KBRequests, *, label_language: str | None = None
) -> KBView:
    """Ask ``kb`` for everything in ``requests``: one call per lookup kind, in two stages."""
    if kb is None or not requests:
        return EMPTY_VIEW
    resources: Mapping[LabelKey, frozenset[str]] = {}
    labels: Mapping[str, frozenset[str]] = {}
    if requests.resources_for_labels:
        resources = kb.resources_for_labels(sorted(requests.resources_for_labels, key=_label_order))
    if requests.labels_for_resources:
        labels = kb.labels_for_resources(
            sorted(requests.labels_for_resources), language=label_language
        )
    iris = set(requests.same_as)
    for found in resources.values():
        iris |= found
    same: Mapping[str, frozenset[str]] = kb.same_as(sorted(iris)) if iris else {}
    return KBView(
        MappingProxyType(dict(same)),
        MappingProxyType(dict(resources)),
        MappingProxyType(dict(labels)),
    )


def _label_order(key: LabelKey) -> tuple[str, str]:
    return (key[0], key[1] or "")
