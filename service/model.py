"""The domain model: datasets, questions and answers, with answers as RDF terms.

Pure data, no I/O. Every format reads into these types and writes from them; evaluation,
the graph and the web only ever see these. Gold files and system answer files share one shape
(a QALD answer file *is* a dataset whose answers are the system's), so both read into
:class:`Dataset`; :func:`system_run` turns one into the answers of a system.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import NamedTuple

from service.errors import Problem

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = XSD + "string"
XSD_BOOLEAN = XSD + "boolean"
XSD_INTEGER = XSD + "integer"
XSD_DECIMAL = XSD + "decimal"
XSD_DOUBLE = XSD + "double"
XSD_DATE = XSD + "date"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDF_TYPE = RDF + "type"
RDF_LANGSTRING = RDF + "langString"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
OWL_SAMEAS = "http://www.w3.org/2002/07/owl#sameAs"


class TermKind(StrEnum):
    """The kind of an RDF term, spelled as in SPARQL 1.1 JSON results."""

    IRI = "uri"
    LITERAL = "literal"
    BNODE = "bnode"


@dataclass(frozen=True, slots=True)
class Term:
    """An RDF term as found in an answer: an IRI, a literal (datatype or language) or a blank node.

    Values are kept exactly as the file gave them (no trimming, no normalisation): matching
    profiles decide what counts as equal. ``datatype`` is ``None`` for a simple literal.
    """

    value: str
    kind: TermKind = TermKind.LITERAL
    datatype: str | None = None
    lang: str | None = None

    @classmethod
    def iri(cls, value: str) -> Term:
        return cls(value, TermKind.IRI)

    @classmethod
    def literal(cls, value: str, *, datatype: str | None = None, lang: str | None = None) -> Term:
        return cls(value, TermKind.LITERAL, datatype, lang)

    @classmethod
    def boolean(cls, value: bool) -> Term:
        return cls("true" if value else "false", TermKind.LITERAL, XSD_BOOLEAN)

    @property
    def is_iri(self) -> bool:
        return self.kind is TermKind.IRI

    @property
    def is_literal(self) -> bool:
        return self.kind is TermKind.LITERAL

    def n3(self) -> str:
        """N-Triples-like spelling, for display and diagnostics (not for parsing)."""
        if self.kind is TermKind.IRI:
            return f"<{self.value}>"
        if self.kind is TermKind.BNODE:
            return f"_:{self.value}"
        escaped = self.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        if self.lang:
            return f'"{escaped}"@{self.lang}'
        if self.datatype and self.datatype != XSD_STRING:
            return f'"{escaped}"^^<{self.datatype}>'
        return f'"{escaped}"'


Row = Mapping[str, Term]
"""One solution: variable name (without ``?``) to term. Treat as read-only."""


@dataclass(frozen=True, slots=True)
class AnswerSet:
    """The answers to one question, as SPARQL results: rows of bindings, or one boolean.

    ``vars`` is the ``head.vars`` of the results (rows may bind variables not listed there,
    a real QALD oddity; :meth:`values` takes every bound variable). An ASK answer has
    ``boolean`` set and no rows. ``empty_bindings`` marks a boolean whose file also gave an
    empty ``results.bindings`` array (``{"results": {"bindings": []}, "boolean": true}``, real
    QALD-9 system output): the QALD-6 scorer reads such an answer's bindings, so it is empty
    under the ``qald6`` profile; every other profile reads the boolean.
    """

    vars: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    boolean: bool | None = None
    empty_bindings: bool = False

    @property
    def is_boolean(self) -> bool:
        return self.boolean is not None

    @property
    def is_empty(self) -> bool:
        return self.boolean is None and not any(self.rows)

    def values(self) -> tuple[Term, ...]:
        """Every answer term in row order (the boolean as an ``xsd:boolean`` literal)."""
        if self.boolean is not None:
            return (Term.boolean(self.boolean),)
        out: list[Term] = []
        for row in self.rows:
            out.extend(self._row_terms(row))
        return tuple(out)

    def _row_terms(self, row: Row) -> Iterator[Term]:
        # Variables of the head first, in head order; then any the head forgot, in row order.
        for var in self.vars:
            if var in row:
                yield row[var]
        for var, term in row.items():
            if var not in self.vars:
                yield term

    def row_values(self) -> tuple[tuple[Term, ...], ...]:
        """Each row as the tuple of its terms (the QALD-6 tool treats a row as one answer)."""
        if self.boolean is not None:
            return ((Term.boolean(self.boolean),),)
        return tuple(tuple(self._row_terms(row)) for row in self.rows)

    @classmethod
    def of(cls, terms: Iterable[Term], *, var: str = "answer") -> AnswerSet:
        """A one-variable answer set holding ``terms`` in order."""
        return cls(vars=(var,), rows=tuple({var: t} for t in terms))


class Concept(NamedTuple):
    """What a code list says about one member of an enumeration (the vocabulary's SKOS concept
    is generated from it by ``python -m service.contracts write``). A NamedTuple: immutable,
    and a tenth of a dataclass's import cost (``gerbil-qa evaluate`` imports it)."""

    label: str  # rdfs:label, and the skos:prefLabel unless ``title`` is given
    description: str  # rdfs:comment
    title: str | None = None  # skos:prefLabel when it differs from the label
    close_match: str | None = None  # skos:closeMatch: an IRI of another vocabulary


class AnswerType(StrEnum):
    """The five QALD answer types (QALD-6 guidelines; GERBIL QA's AT experiment)."""

    RESOURCE = "resource"
    STRING = "string"
    NUMBER = "number"
    DATE = "date"
    BOOLEAN = "boolean"


ANSWER_TYPES: dict[AnswerType, Concept] = {
    AnswerType.RESOURCE: Concept("resource", "The answers are IRIs of the knowledge base."),
    AnswerType.STRING: Concept("string", "The answers are strings."),
    AnswerType.NUMBER: Concept("number", "The answer is a number (a count or a value)."),
    AnswerType.DATE: Concept("date", "The answer is a date."),
    AnswerType.BOOLEAN: Concept("boolean", "The answer is true or false (an ASK query)."),
}
"""The code list ``gqa:answerTypes``: every answer type with its label and description."""


_ANSWER_TYPE_SPELLINGS = {
    "resource": AnswerType.RESOURCE,
    "resouce": AnswerType.RESOURCE,  # typo in QALD-5 files and GERBIL's examples
    "uri": AnswerType.RESOURCE,
    "list": AnswerType.RESOURCE,
    "listofresource": AnswerType.RESOURCE,
    "string": AnswerType.STRING,
    "text": AnswerType.STRING,
    "literal": AnswerType.STRING,
    "number": AnswerType.NUMBER,
    "num": AnswerType.NUMBER,
    "date": AnswerType.DATE,
    "boolean": AnswerType.BOOLEAN,
    "bool": AnswerType.BOOLEAN,
}


def normalise_answer_type(raw: str | None) -> AnswerType | None:
    """Map the spellings found in real files (``num``, ``uri``, ``resouce``…) to an AnswerType."""
    if raw is None:
        return None
    return _ANSWER_TYPE_SPELLINGS.get(raw.strip().lower().replace(" ", ""))


@dataclass(frozen=True, slots=True)
class Annotation:
    """An eQALD annotation: a span of the question text linked to a KB IRI."""

    iri: str
    kind: str | None = None  # "ENTITY", "CLASS" or "PROPERTY" as written in the file
    begin: int | None = None
    end: int | None = None


@dataclass(frozen=True, slots=True)
class QuestionText:
    """The question in one language. A language may appear several times (QALD-9-plus)."""

    language: str
    string: str | None = None
    keywords: str | None = None
    annotations: tuple[Annotation, ...] = ()


@dataclass(frozen=True, slots=True)
class Question:
    """One question of a dataset, or one entry of a system's answer file.

    ``answers`` is ``None`` when the file gives no answers at all (question-only files, LC-QuAD)
    and an empty :class:`AnswerSet` when it gives an empty gold set. ``out_of_scope`` is set
    for QALD's ``OUT OF SCOPE`` queries. ``extra`` keeps format-specific fields that have no
    slot here (LC-QuAD template id, NLQ type…) as strings, so conversions keep them.

    TEXT2SPARQL scores each question once per language, and its files say so:
    ``language`` is set on an entry that holds for one language only (a result-set item
    ``ck25:1-en``, a returned query), ``None`` on one that holds for every language (QALD).
    ``features`` are the query features the dataset states (``SELECT``, ``COUNT``,
    ``RESULT_ORDER_MATTERS``…), ``classes`` and ``properties`` the KB terms the gold query
    uses, each as the file writes it (``:Department``): slices and query-level results use them.
    """

    id: str
    texts: tuple[QuestionText, ...] = ()
    answertype: str | None = None
    aggregation: bool | None = None
    onlydbo: bool | None = None
    hybrid: bool | None = None
    sparql: str | None = None
    pseudo_query: str | None = None
    schemaless_query: str | None = None
    answers: AnswerSet | None = None
    out_of_scope: bool = False
    answer_item_types: tuple[str, ...] = ()
    confidence: float | None = None
    extra: tuple[tuple[str, str], ...] = ()
    language: str | None = None
    features: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()

    @property
    def answer_type(self) -> AnswerType | None:
        return normalise_answer_type(self.answertype)

    @property
    def languages(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for t in self.texts:
            seen.setdefault(t.language, None)
        return tuple(seen)

    def texts_in(self, language: str) -> tuple[QuestionText, ...]:
        """The texts in ``language``: its tag as written or as BCP 47 writes it (QALD tags Hindi
        ``hi_IN``: ``hi-IN`` and ``hi_IN`` are one), else, for a bare language (``hi``), the
        texts of its regional tags (RFC 4647 basic filtering: ``hi`` covers ``hi_IN``)."""
        from service.valid_terms import is_asked_language_tag

        wanted = same_language(language)
        exact = tuple(t for t in self.texts if same_language(t.language) == wanted)
        if exact or "-" in wanted:
            return exact
        return tuple(  # not en--US for en: no language tag (explore53 F5)
            t
            for t in self.texts
            if same_language(t.language).startswith(wanted + "-")
            and is_asked_language_tag(t.language)
        )

    def text(self, language: str) -> str | None:
        """The first non-empty question string in ``language``, if any."""
        for t in self.texts_in(language):
            if t.string and t.string.strip():
                return t.string
        return None

    def annotations(self, language: str) -> tuple[Annotation, ...]:
        return tuple(a for t in self.texts_in(language) for a in t.annotations)


def same_language(tag: str) -> str:
    """A language tag compared as BCP 47 does: case-insensitive, ``_`` as ``-``."""
    return tag.replace("_", "-").lower()


FILE_ID_KEY = "file.id"  # Dataset.metadata: the file's own id, where the catalogue renames it


@dataclass(frozen=True, slots=True)
class Dataset:
    """A set of questions as read from one file.

    ``problems`` holds the non-fatal findings of the reader (fatal ones raise ``FormatError``),
    so ``gerbil-qa validate`` can report them and the graph can store them.
    """

    id: str | None
    questions: tuple[Question, ...]
    source: str | None = None
    format: str | None = None
    problems: tuple[Problem, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def file_id(self) -> str | None:
        """The id the dataset's own file gives it (a TEXT2SPARQL dataset's IRI, which its
        services are asked with and their answers name), where the catalogue names the dataset
        otherwise (:data:`FILE_ID_KEY`); else its id."""
        return dict(self.metadata).get(FILE_ID_KEY, self.id)

    def renamed(self, name: str) -> Dataset:
        """This dataset under another id (the catalogue's name), its file's id kept as
        :attr:`file_id`."""
        metadata = self.metadata
        if self.id is not None and self.id != name and FILE_ID_KEY not in dict(metadata):
            metadata = (*metadata, (FILE_ID_KEY, self.id))
        return replace(self, id=name, metadata=metadata)

    @property
    def label(self) -> str:
        """How results name it: its id, else its file's name."""
        from pathlib import PurePath

        return self.id or (PurePath(self.source).name if self.source else "dataset")

    def __iter__(self) -> Iterator[Question]:
        return iter(self.questions)

    def by_id(self) -> dict[str, Question]:
        """Questions by id; with duplicate ids (a real oddity) the first one wins."""
        out: dict[str, Question] = {}
        for q in self.questions:
            out.setdefault(q.id, q)
        return out


@dataclass(frozen=True, slots=True)
class SystemAnswer:
    """What a system gave for one question: answers plus anything that helps diagnose them.

    ``answers`` row order is the system's ranking (for MRR/Hits@k). ``runtime_ms`` is the wall
    time of the question (web services only): from its first call to its answer, so a retried
    call's failed attempts and the waits before each retry count too; ``error`` the reason a
    call failed, if it did. ``attempts`` is how many calls the question took (retries
    included), ``retry_reason`` why the last attempt before the final one failed.
    ``rewrites`` say what was changed in ``sparql`` before it ran on the KB (a Text2SPARQL
    system's query: the lenient dialect's readings, a FROM not applied).
    """

    question_id: str
    answers: AnswerSet = field(default_factory=AnswerSet)
    sparql: str | None = None
    annotations: tuple[Annotation, ...] = ()
    answertype: str | None = None
    answer_item_types: tuple[str, ...] = ()
    confidence: float | None = None
    runtime_ms: float | None = None
    error: str | None = None
    attempts: int = 1
    retry_reason: str | None = None
    rewrites: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SystemRun:
    """All answers of one system to one dataset, keyed by question id."""

    system: str
    answers: Mapping[str, SystemAnswer]
    source: str | None = None
    problems: tuple[Problem, ...] = ()

    def get(self, question_id: str) -> SystemAnswer | None:
        return self.answers.get(question_id)


# The error a `system run` answer file keeps for a question the error-rate rule left unasked
# (``NOT_ASKED (why)``): no call was made, so a re-scored file counts it as unanswered, not as
# a failed call (explore28 F6; service.systems.archive)
NOT_ASKED = "not asked: the run was aborted"

# A reader's warning about a dataset that is no problem in a system's answers: an answer file,
# like a service's response, need not repeat the question text (each of its questions was
# warned about, 41 warnings for QALD-8 test burying the one that said something).
NO_TEXT = "question has no text in any language"


def system_run(dataset: Dataset, *, system: str, language: str | None = None) -> SystemRun:
    """Read a system's answer file (already parsed as a Dataset) as that system's answers.

    Duplicate ids keep the first entry and are reported as a warning. ``language`` picks the
    annotations of that language (eQALD) and leaves out entries for another language
    (TEXT2SPARQL answers, ``Question.language``); without it, every entry and annotation is kept.
    """
    answers: dict[str, SystemAnswer] = {}
    problems = [p for p in dataset.problems if p.message != NO_TEXT]
    for q in dataset.questions:
        if language is not None and q.language is not None and q.language != language:
            continue
        if q.id in answers:
            problems.append(
                Problem(
                    "duplicate question id in answer file; the first entry is used",
                    severity="warning",
                    file=dataset.source,
                    question_id=q.id,
                )
            )
            continue
        notes = tuple(
            a for t in q.texts if language is None or t.language == language for a in t.annotations
        )
        answers[q.id] = SystemAnswer(
            question_id=q.id,
            answers=q.answers if q.answers is not None else AnswerSet(),
            sparql=q.sparql,
            annotations=notes,
            answertype=q.answertype,
            answer_item_types=q.answer_item_types,
            confidence=q.confidence,
        )
    return SystemRun(
        system=system, answers=answers, source=dataset.source, problems=tuple(problems)
    )


def attach_gold(dataset: Dataset, gold: Dataset) -> Dataset:
    """``dataset`` with its gold answers taken from ``gold`` (a result set or any answers file).

    Entries are matched by question id and language: an entry for one language
    (``Question.language``) answers the question in that language, an entry without one answers
    it in every language. A question holds one answer set, so when its languages' gold sets
    differ the first language's is kept, with a warning. Questions no entry answers keep what
    they had, and entries no question takes are left out; both are reported as warnings in
    ``problems``.
    """
    entries: dict[str, list[Question]] = {}
    for entry in gold.questions:
        if entry.answers is not None:
            entries.setdefault(entry.id, []).append(entry)
    problems = list(dataset.problems) + list(gold.problems)
    used: set[int] = set()
    questions: list[Question] = []
    for q in dataset.questions:
        languages = q.languages
        found = [
            e
            for e in entries.get(q.id, ())
            if e.language is None or not languages or e.language in languages
        ]
        used.update(id(e) for e in found)
        if not found:
            problems.append(_gold_problem("no gold answers for this question", gold, q.id))
            questions.append(q)
            continue
        found.sort(key=lambda e: languages.index(e.language) if e.language in languages else -1)
        answers = found[0].answers
        if any(e.answers != answers for e in found[1:]):
            problems.append(
                _gold_problem(
                    f"the gold answers differ between languages; those for "
                    f"{found[0].language or 'every language'} are used",
                    gold,
                    q.id,
                )
            )
        questions.append(replace(q, answers=answers))
    for entry in gold.questions:
        if entry.answers is not None and id(entry) not in used:
            where = f" ({entry.language})" if entry.language else ""
            problems.append(
                _gold_problem(
                    f"gold answers{where} for a question the dataset does not have", gold, entry.id
                )
            )
    return replace(dataset, questions=tuple(questions), problems=tuple(problems))


def _gold_problem(message: str, gold: Dataset, question_id: str) -> Problem:
    return Problem(message, severity="warning", file=gold.source, question_id=question_id)


# The registry of what the dataset checks look for (``service.graph.questions`` checks
# datasets by it): the code list gqa:findingKinds is generated from it (``python -m
# service.contracts write``), and so is the check set stored findings name
# (:func:`check_set`): a release that adds a kind has them checked again.
FINDING_KINDS: dict[str, Concept] = {
    "unparsable-query": Concept("unparsable gold query", "The gold SPARQL query does not parse."),
    "empty-gold": Concept("empty gold answers", "The question's gold answer set is empty."),
    "duplicate-id": Concept(
        "duplicate question id", "Several questions share one id; the first one is used."
    ),
    "missing-text": Concept(
        "missing question text", "The question has no text in a language of the dataset."
    ),
    "out-of-scope": Concept(
        "out-of-scope question",
        "The question is marked OUT OF SCOPE: the knowledge base cannot answer it.",
    ),
    "format": Concept("format problem", "A non-fatal problem the file reader reported."),
    "no-gold": Concept(
        "question without gold",
        "The question has neither gold answers nor a gold query and is not marked OUT OF "
        "SCOPE: it is scored only with gold given apart.",
    ),
}


def check_set() -> str:
    """Which set of checks made a dataset's findings (``gqa:checkSet``): a digest of the
    registry's kinds, so findings made before a kind was added are told apart."""
    import hashlib

    return "kinds-" + hashlib.sha256("\n".join(FINDING_KINDS).encode()).hexdigest()[:16]


FILE_ROLES = ("dataset", "questions", "answers", "gold", "kb")
"""What a file an experiment read was (``gqa:fileRole``): a dataset's file, an expected.tsv's
in.tsv (its question texts), a system's answers, a separate gold, a KB file."""
DISTRIBUTION_ROLES = ("dataset", "questions")
"""The roles of the files an uploaded dataset offers as its distributions."""
INTERFACES = ("qa", "text2sparql")
"""The interfaces a system is called by (``gqa:interface``; the one list the CLI, the API, the
form, the served reference systems and the shapes take): ``qa``, a GERBIL QA web service (POST
``query``, ``lang``; answers QALD-JSON), and ``text2sparql``, a TEXT2SPARQL'25 service (GET
``question``, ``dataset``; answers a SPARQL query, run on the KB when evaluated)."""
