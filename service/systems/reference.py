"""Reference QA systems that run here without internet, over a configured KB.

* ``gold-sparql``: finds the posted question in a dataset (by its text in the posted language)
  and runs that question's gold SPARQL on the KB. Its scores are the upper bound a perfect
  query-generating system reaches on this KB (gold answers drift as KBs change).
* ``baseline``: a deliberately simple system written here. It finds the longest entity label
  in the question, then the property whose label best covers the remaining words, and answers
  with the objects of ``entity property ?x`` (or the subjects of ``?x property entity``). It
  answers simple factoid questions and fails on everything else, which is what a baseline is for.

Both answer through :class:`Reply` (answers plus the SPARQL they ran), so the served web service,
C2KB/P2KB sub-experiments and the archive see what the system did.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from service.errors import BadRequest, NotFound, ServiceError
from service.formats.text2sparql import prefix_environment
from service.kb import KnowledgeBase
from service.kb.executor import QueryFailure, prepare
from service.kb.terms import iri_ref
from service.model import RDF_TYPE, RDFS_LABEL, AnswerSet, Dataset, Question


class Unanswerable(ServiceError):
    """The system cannot run this question (e.g. its gold SPARQL fails on the KB)."""

    status = 422


@dataclass(frozen=True, slots=True)
class Reply:
    """A reference system's answer to one question."""

    answers: AnswerSet
    sparql: str | None = None
    answertype: str | None = None


class ReferenceSystem(Protocol):
    name: str

    def answer(self, text: str, language: str) -> Reply: ...

    def query(self, text: str, language: str) -> str | None:
        """The SPARQL the system would run for the question (a Text2SPARQL service's
        answer), None when it has none."""
        ...

    def describe(self) -> str: ...


def normalise_text(text: str) -> str:
    """Case-, accent-form- and whitespace-insensitive key for matching question strings."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


class GoldSparqlSystem:
    """Answers a question of ``dataset`` by running its gold SPARQL on ``kb``."""

    name = "gold-sparql"

    def __init__(self, dataset: Dataset, kb: KnowledgeBase) -> None:
        self.dataset = dataset
        self.kb = kb
        self._index: dict[tuple[str, str], Question] = {}
        self._any_language: dict[str, Question] = {}
        for question in dataset.questions:
            for text in question.texts:
                if text.string and text.string.strip():
                    key = (text.language, normalise_text(text.string))
                    self._index.setdefault(key, question)
                    self._any_language.setdefault(key[1], question)

    def describe(self) -> str:
        name = self.dataset.id or self.dataset.source or "dataset"
        return f"gold SPARQL of {name} ({len(self.dataset)} questions)"

    def find(self, text: str, language: str) -> Question:
        """The question with this text in ``language``, else in any language (a Text2SPARQL
        service is not told the question's language)."""
        key = normalise_text(text)
        question = self._index.get((language, key)) or self._any_language.get(key)
        if question is None:
            raise NotFound(
                f"no question of {self.dataset.id or self.dataset.source or 'the dataset'} has "
                f"this text in language {language!r}: {text!r}"
            )
        return question

    def query(self, text: str, language: str) -> str | None:
        """The gold query as the dataset writes it, not run (it may fail on the KB here and
        not on the caller's)."""
        question = self.find(text, language)
        return None if question.out_of_scope else question.sparql

    def answer(self, text: str, language: str) -> Reply:
        question = self.find(text, language)
        if question.out_of_scope:
            return Reply(AnswerSet(), sparql=None, answertype=question.answertype)
        if not question.sparql:
            raise Unanswerable(f"question {question.id} has no gold SPARQL query")
        # As the SPARQL executor runs gold queries: the lenient dialect rewritten to standard
        # SPARQL, in the dataset's prefix environment.
        prepared = prepare(question.sparql, prefixes=prefix_environment(self.dataset))
        if isinstance(prepared, QueryFailure):
            raise Unanswerable(f"the gold SPARQL of question {question.id} failed: {prepared}")
        try:
            answers = self.kb.select(prepared.text)
        except ServiceError as err:
            raise Unanswerable(f"the gold SPARQL of question {question.id} failed: {err}") from err
        return Reply(answers, sparql=question.sparql, answertype=question.answertype)


# -- the baseline ----------------------------------------------------------------------------

_WORD = re.compile(r"\w+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Words that carry no content for matching a property (question words, auxiliaries, articles).
_STOPWORDS = frozenset(
    " ".join(
        (
            "a an the of in on at to by for from with is are was were be been being do does did",
            "who whom whose what which where when how many much give me list show tell name all",
            "and or has have had that this these those it its there his her their s",
        )
    ).split(" ")
)


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(normalise_text(text)))


def _stem(word: str) -> str:
    """A crude stem, enough to meet "discovered" and "discoverer", "moons" and "moon"."""
    for suffix in ("ing", "ers", "er", "ed", "es", "s", "y"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:6]


def _content(words: Iterable[str]) -> frozenset[str]:
    return frozenset(_stem(w) for w in words if w not in _STOPWORDS)


def _local_name(iri: str) -> str:
    tail = re.split(r"[/#]", iri.rstrip("/#"))[-1]
    return _CAMEL.sub(" ", tail).replace("_", " ")


@dataclass(frozen=True, slots=True)
class _Property:
    iri: str
    words: frozenset[str]


@dataclass
class _Index:
    entities: dict[tuple[str, ...], set[str]] = field(default_factory=dict)
    properties: list[_Property] = field(default_factory=list)


class BaselineSystem:
    """Label matching over a (small, local) KB; see the module docstring."""

    name = "baseline"

    def __init__(self, kb: KnowledgeBase, *, language: str = "en") -> None:
        self.kb = kb
        self.language = language
        self._index = self._build(kb)

    def describe(self) -> str:
        return (
            f"label-matching baseline over a KB ({len(self._index.entities)} entity labels, "
            f"{len(self._index.properties)} properties)"
        )

    @staticmethod
    def _build(kb: KnowledgeBase) -> _Index:
        index = _Index()
        predicates = {
            row["p"].value
            for row in kb.select("SELECT DISTINCT ?p WHERE { ?s ?p ?o }").rows
            if "p" in row
        }
        ignored = {RDFS_LABEL, RDF_TYPE, "http://www.w3.org/2002/07/owl#sameAs"}
        labels = kb.select(
            f"SELECT ?r ?l WHERE {{ ?r <{RDFS_LABEL}> ?l . FILTER(isIRI(?r) && isLiteral(?l)) }}"
        )
        property_words: dict[str, set[str]] = {p: set() for p in predicates - ignored}
        for row in labels.rows:
            iri, label = row["r"].value, row["l"].value
            if iri in property_words:
                property_words[iri].update(_tokens(label))
            elif iri not in predicates:
                entity_words = _tokens(label)
                if entity_words:
                    index.entities.setdefault(entity_words, set()).add(iri)
        for iri, words in property_words.items():
            words.update(_tokens(_local_name(iri)))
            content = _content(words)
            if content:
                index.properties.append(_Property(iri, content))
        index.properties.sort(key=lambda p: p.iri)
        return index

    def _entity(self, words: tuple[str, ...]) -> tuple[set[str], tuple[str, ...]]:
        """The longest entity label in ``words``, and the words left around it."""
        for size in range(len(words), 0, -1):
            for start in range(len(words) - size + 1):
                found = self._index.entities.get(words[start : start + size])
                if found:
                    return found, words[:start] + words[start + size :]
        return set(), words

    def _property(self, words: Iterable[str]) -> _Property | None:
        content = _content(words)
        best, best_score = None, 0.0
        for prop in self._index.properties:
            overlap = len(content & prop.words)
            if not overlap:
                continue
            # Cover as much of the question as possible, preferring shorter property labels.
            score = overlap - 0.01 * len(prop.words - content)
            if score > best_score:
                best, best_score = prop, score
        return best

    def answer(self, text: str, language: str) -> Reply:
        if not text.strip():
            raise BadRequest("the question is empty")
        entities, rest = self._entity(_tokens(text))
        prop = self._property(rest)
        if not entities or prop is None:
            return Reply(AnswerSet(vars=("answer",)))
        subjects = " ".join(ref for ref in map(iri_ref, sorted(entities)) if ref)
        head = f"SELECT DISTINCT ?answer WHERE {{ VALUES ?e {{ {subjects} }} "
        # Objects first ("capital of Germany"); subjects when there are none ("born in Hamburg").
        for pattern in (f"?e <{prop.iri}> ?answer", f"?answer <{prop.iri}> ?e"):
            sparql = f"{head}{pattern} }}"
            answers = self.kb.select(sparql)
            if not answers.is_empty:
                break
        return Reply(answers, sparql=sparql)

    def query(self, text: str, language: str) -> str | None:
        """The query that gave the answer (the baseline tries two and keeps the one that
        answers, so it runs them)."""
        return self.answer(text, language).sparql


SYSTEM_NAMES = ("gold-sparql", "baseline")


def build_system(
    name: str, *, kb: KnowledgeBase, dataset: Dataset | None = None, language: str = "en"
) -> ReferenceSystem:
    """A reference system by name (``gold-sparql`` needs ``dataset``)."""
    if name == "gold-sparql":
        if dataset is None:
            raise BadRequest("gold-sparql needs a dataset (--dataset FILE) to find gold queries")
        return GoldSparqlSystem(dataset, kb)
    if name == "baseline":
        return BaselineSystem(kb, language=language)
    raise BadRequest(f"unknown reference system {name!r}; known: {', '.join(SYSTEM_NAMES)}")
