"""The KB protocol implemented once over "run one SPARQL query", batched and cached.

A subclass (local Oxigraph store, remote endpoint) only says how to run one query and what its
identity and version are. Every lookup here takes all its keys at once, drops those the disk
cache already knows, and asks the rest in ``VALUES`` blocks of ``batch_size`` keys: a whole
experiment costs ``ceil(distinct keys / batch_size)`` round trips per kind of lookup, however
many answers mention those keys (GERBIL asked one IRI per HTTP call).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence

from service.kb import LabelKey, describe
from service.kb.cache import LookupCache
from service.kb.terms import batches, iri_ref, literal, valid_language, values_block
from service.model import OWL_SAMEAS, RDF_TYPE, RDFS_LABEL, AnswerSet, Row

DEFAULT_BATCH_SIZE = 100

_SAME_AS = f"(<{OWL_SAMEAS}>|^<{OWL_SAMEAS}>)*"


class BatchedSparqlKB(ABC):
    """Base of the SPARQL-backed knowledge bases (see the module docstring)."""

    def __init__(self, *, batch_size: int = DEFAULT_BATCH_SIZE, cache: LookupCache | None = None):
        if batch_size < 1:
            raise ValueError(f"batch size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self.cache = cache
        self._round_trips = 0
        self._lock = threading.Lock()

    # -- what a subclass provides ------------------------------------------------------------

    @property
    @abstractmethod
    def identity(self) -> str: ...

    @property
    @abstractmethod
    def version(self) -> str | None: ...

    @abstractmethod
    def _execute(self, sparql: str) -> AnswerSet:
        """Run one SELECT or ASK query: exactly one round trip."""

    # -- the protocol ------------------------------------------------------------------------

    @property
    def round_trips(self) -> int:
        return self._round_trips

    def describe(self) -> str:
        return describe(self) or self.identity

    def select(self, sparql: str) -> AnswerSet:
        with self._lock:
            self._round_trips += 1
        return self._execute(sparql)

    def same_as(self, iris: Iterable[str]) -> Mapping[str, frozenset[str]]:
        def query(spelled: Sequence[str]) -> str:
            return (
                f"SELECT ?k ?v WHERE {{ {values_block('k', spelled)} "
                f"?k {_SAME_AS} ?v . FILTER(isIRI(?v)) }}"
            )

        found = self._lookup("sameAs", _iri_keys(iris), query, _value_of("k"), "v")
        # The closure holds the IRI itself, asked or not (an IRI no store can hold included).
        return {iri: found.get(iri, frozenset()) | {iri} for iri in dict.fromkeys(iris)}

    def resources_for_labels(self, labels: Iterable[LabelKey]) -> Mapping[LabelKey, frozenset[str]]:
        wanted = list(dict.fromkeys(labels))
        tagged: dict[str, str] = {}
        untagged: dict[str, str] = {}
        for text, lang in wanted:
            if lang is None:
                untagged[_label_key(text, None)] = literal(text)
            elif valid_language(_tag(lang)):  # QALD's pt_BR asks the labels @pt-BR
                tagged[_label_key(text, lang)] = literal(text, lang=_tag(lang))

        def query_tagged(spelled: Sequence[str]) -> str:
            # Indexed: the label literal itself is the join key.
            return (
                f"SELECT ?l ?r WHERE {{ {values_block('l', spelled)} "
                f"?r <{RDFS_LABEL}> ?l . FILTER(isIRI(?r)) }}"
            )

        def query_untagged(spelled: Sequence[str]) -> str:
            # "Any language" compares lexical forms, so it scans the labels once per batch:
            # give a language when the KB is large (DBpedia has tens of millions of labels).
            return (
                f"SELECT ?s ?r WHERE {{ ?r <{RDFS_LABEL}> ?l . FILTER(isIRI(?r)) "
                f"BIND(STR(?l) AS ?s) {values_block('s', spelled)} }}"
            )

        def key_tagged(row: Row) -> str | None:
            label = row.get("l")
            return _label_key(label.value, label.lang) if label is not None else None

        def key_untagged(row: Row) -> str | None:
            text = row.get("s")
            return _label_key(text.value, None) if text is not None else None

        found = self._lookup("label->resources", tagged, query_tagged, key_tagged, "r")
        found.update(self._lookup("label->resources", untagged, query_untagged, key_untagged, "r"))
        return {
            (text, lang): found.get(_label_key(text, lang), frozenset()) for text, lang in wanted
        }

    def labels_for_resources(
        self, iris: Iterable[str], *, language: str | None = None
    ) -> Mapping[str, frozenset[str]]:
        if language is not None:
            language = _tag(language)
            if not valid_language(language):
                raise ValueError(f"not a language tag: {language!r}")
        where = f'langMatches(LANG(?l), "{language}")' if language else "isLiteral(?l)"

        def query(spelled: Sequence[str]) -> str:
            return (
                f"SELECT ?k ?v WHERE {{ {values_block('k', spelled)} "
                f"?k <{RDFS_LABEL}> ?l . FILTER({where}) BIND(STR(?l) AS ?v) }}"
            )

        kind = f"resource->labels@{language or '*'}"
        found = self._lookup(kind, _iri_keys(iris), query, _value_of("k"), "v")
        return {iri: found.get(iri, frozenset()) for iri in dict.fromkeys(iris)}

    def types_of(self, iris: Iterable[str]) -> Mapping[str, frozenset[str]]:
        def query(spelled: Sequence[str]) -> str:
            return (
                f"SELECT ?k ?v WHERE {{ {values_block('k', spelled)} "
                f"?k <{RDF_TYPE}> ?v . FILTER(isIRI(?v)) }}"
            )

        found = self._lookup("types", _iri_keys(iris), query, _value_of("k"), "v")
        return {iri: found.get(iri, frozenset()) for iri in dict.fromkeys(iris)}

    # -- batching and caching ----------------------------------------------------------------

    def _lookup(
        self,
        kind: str,
        keys: Mapping[str, str],
        build: Callable[[Sequence[str]], str],
        key_of: Callable[[Row], str | None],
        value_var: str,
    ) -> dict[str, frozenset[str]]:
        """Answer ``keys`` (cache key -> SPARQL spelling): cache first, then batched queries.

        The query built for a batch binds ``value_var`` to one answer string; ``key_of(row)``
        gives the cache key the row answers.
        """
        kb = self.describe()
        found: dict[str, frozenset[str]] = {}
        if self.cache is not None and keys:
            found.update(self.cache.get_many(kb, kind, keys))
        missing = [k for k in keys if k not in found]
        for batch in batches(missing, self.batch_size):
            answers: dict[str, set[str]] = {k: set() for k in batch}
            result = self.select(build([keys[k] for k in batch]))
            for row in result.rows:
                key, value = key_of(row), row.get(value_var)
                if key is not None and value is not None and key in answers:
                    answers[key].add(value.value)
            if self.cache is not None:
                self.cache.put_many(kb, kind, answers)
            found.update({k: frozenset(v) for k, v in answers.items()})
        return found


def _value_of(var: str) -> Callable[[Row], str | None]:
    def key_of(row: Row) -> str | None:
        term = row.get(var)
        return term.value if term is not None else None

    return key_of


def _iri_keys(iris: Iterable[str]) -> dict[str, str]:
    """IRI -> ``<IRI>`` for every IRI a store could hold (others cannot be in any KB)."""
    out: dict[str, str] = {}
    for iri in iris:
        ref = iri_ref(iri)
        if ref is not None:
            out[iri] = ref
    return out


def _tag(lang: str) -> str:
    """A language tag as SPARQL writes it: QALD's ``pt_BR`` is ``pt-BR``."""
    return lang.strip().replace("_", "-")


def _label_key(text: str, lang: str | None) -> str:
    # NUL cannot occur in an RDF literal's language tag, so it separates text and tag safely;
    # tags compare case-insensitively (RFC 5646 §2.1.1; Oxigraph stores them lower-cased), and
    # pt_BR is pt-BR: the key a row's label (@pt-br) gives is the one asked with PT-br or pt_BR
    return f"{text}\u0000{_tag(lang or '').lower()}"
