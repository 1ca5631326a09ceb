"""Knowledge bases: identity (owl:sameAs), labels, types, and SPARQL, asked in batches.

Evaluation is pure and gets a KB object: it first collects every IRI and label of a whole
experiment, asks the KB once per kind of lookup, then matches. Every method therefore takes
many keys at once; an implementation splits them into blocks (SPARQL ``VALUES``) as it likes,
so the number of round trips depends on the batch size, not on the number of answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol, runtime_checkable

from service.model import AnswerSet

LabelKey = tuple[str, str | None]
"""A label lookup: the string and the language tag to ask for (``None``: any language)."""


@runtime_checkable
class KnowledgeBase(Protocol):
    """What the matching profiles and reference systems need from a knowledge base."""

    @property
    def identity(self) -> str:
        """A stable name for this KB (file checksum or endpoint URL), recorded with results."""
        ...

    @property
    def version(self) -> str | None:
        """The KB's version when known (e.g. ``DBpedia 2016-10``), recorded with results."""
        ...

    def same_as(self, iris: Iterable[str]) -> Mapping[str, frozenset[str]]:
        """The owl:sameAs closure (symmetric, transitive) of each IRI, the IRI itself included."""
        ...

    def resources_for_labels(self, labels: Iterable[LabelKey]) -> Mapping[LabelKey, frozenset[str]]:
        """Resources having ``rdfs:label`` equal to each string (in that language, if given)."""
        ...

    def labels_for_resources(
        self, iris: Iterable[str], *, language: str | None = None
    ) -> Mapping[str, frozenset[str]]:
        """The ``rdfs:label`` strings of each IRI (in ``language`` when given)."""
        ...

    def types_of(self, iris: Iterable[str]) -> Mapping[str, frozenset[str]]:
        """The ``rdf:type`` objects of each IRI."""
        ...

    def select(self, sparql: str) -> AnswerSet:
        """Run a SELECT or ASK query and return its results."""
        ...

    @property
    def round_trips(self) -> int:
        """How many requests (or store queries) this KB object has made so far."""
        ...


class Named(Protocol):
    """What names a KB in a result: a :class:`KnowledgeBase`, or the SPARQL executor that
    ran a system's queries on one."""

    @property
    def identity(self) -> str: ...

    @property
    def version(self) -> str | None: ...


def describe(kb: Named | None) -> str | None:
    """The identity and version of a KB as recorded with a result, e.g. ``file:sha256:… (v1)``."""
    if kb is None:
        return None
    return f"{kb.identity} ({kb.version})" if kb.version else kb.identity


# a local KB's rewrite of a query naming graphs (``service.kb.executor``), which the scorer
# counts: here, where reading it does not load the executor
LOCAL_FROM = (
    "FROM / FROM NAMED not applied: a local KB's files are one graph, queried whole "
    "(nothing is read from a FROM IRI)"
)
