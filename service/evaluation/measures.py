"""The measures registry: one entry per measure, with its canonical name and its computation.

A :class:`Measure` is a parameterised value (base quantity, averaging, scope, cut-off ``k``) with
one canonical camelCase name (``microF1``, ``processedMacroRecall``, ``hitsAt5``); the registry
refuses a name that does not read back into an equal object. A :class:`MeasureInfo` is what the
registry knows about it: label, description, datatype, bounds, when it is reported (experiment
types, profiles, conditions) and its **computation**, a function of the task's per-question
records (:class:`TaskRecords`). :data:`MEASURES` is the registry: scoring reports exactly its
measures, in its order; the JSON contract (``results[type]``), the Data Cube writer, the pages
and every generated contract (``python -m service.contracts write``: measure properties, Data
Cube component specifications, SHACL shapes, OpenAPI schema) read it. A misspelt name fails
loudly (:func:`require`, ``MEASURES[name]``), it is never silently carried along.

Adding a measure is one :class:`MeasureInfo` in :func:`_build` (or ``MEASURES.register``) plus
its computation; then ``make contracts`` regenerates the vocabulary.

>>> MEASURES["processedMacroF1"].measure == Measure("f1", average="macro", scope="processed")
True
>>> Measure("hits", k=5).name
'hitsAt5'
>>> MEASURES["macroF1QALD"].label
'macro F1 (QALD)'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from service.evaluation.confidence import (
    Ranked,
    cws,
    hits_at,
    k1_measure,
    k_measure,
    mrr,
    r_measure,
)
from service.evaluation.results import ExperimentType, QuestionScore, QuestionStatus
from service.evaluation.results import Measure as Value
from service.evaluation.scoring import PRF, Scoring, fscore

XSD = "http://www.w3.org/2001/XMLSchema#"
GERBIL = "http://w3id.org/gerbil/vocab#"
GQA = "http://w3id.org/gerbil/qa/vocab#"

_BASE_LABELS = {"precision": "precision", "recall": "recall", "f1": "F1"}
_BASE_NAMES = {"precision": "Precision", "recall": "Recall", "f1": "F1"}


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure. ``base`` is the quantity; ``average`` and ``scope`` apply to P/R/F1.

    ``scope="processed"`` restricts an average to the questions the system answered (the
    QALD-5/6 tool's second table); ``k`` is the cut-off of Hits@k.
    """

    base: str
    average: str | None = None  # "micro" | "macro" for precision/recall/f1
    scope: str = "all"  # "all" | "processed"
    k: int | None = None

    @property
    def name(self) -> str:
        if self.base in _BASE_NAMES:
            core = f"{self.average}{_BASE_NAMES[self.base]}"
            return f"processed{core[0].upper()}{core[1:]}" if self.scope == "processed" else core
        if self.base == "hits":
            return f"hitsAt{self.k}"
        return self.base


# -- what a measure is computed from ---------------------------------------------------------


class TaskRecords:
    """Everything an aggregate measure is computed from: the per-question records of one task
    (one per gold question, in dataset order, skipped ones included) and the profile's scoring
    scheme. Resampling ``records`` and computing again gives the aggregates of the resample.

    The shared intermediate values (the scored records, the scheme's micro and macro triples)
    are computed once per instance. A plain class: a dataclass would cost a millisecond at
    import, and nothing here needs one.
    """

    __slots__ = ("_averages", "_processed", "_ranked", "_scored", "records", "scoring")

    def __init__(self, records: Sequence[QuestionScore], scoring: Scoring) -> None:
        self.records = records
        self.scoring = scoring
        self._scored: tuple[QuestionScore, ...] | None = None
        self._processed: tuple[QuestionScore, ...] | None = None
        self._averages: dict[tuple[str, str], PRF | None] = {}
        self._ranked: tuple[Ranked, ...] | None = None

    @property
    def scored(self) -> tuple[QuestionScore, ...]:
        """The records that count in the scores (the others are skipped: no text, no gold)."""
        if self._scored is None:
            self._scored = tuple(r for r in self.records if r.precision is not None)
        return self._scored

    @property
    def processed(self) -> tuple[QuestionScore, ...]:
        """The scored records of questions the system gave something for."""
        if self._processed is None:
            self._processed = tuple(r for r in self.scored if r.processed)
        return self._processed

    def averages(self, average: str, scope: str) -> PRF | None:
        """The scheme's (P, R, F1) for ``average`` (micro, macro) over ``scope`` (all,
        processed)."""
        key = (average, scope)
        if key not in self._averages:
            rows = self.processed if scope == "processed" else self.scored
            aggregate = self.scoring.micro if average == "micro" else self.scoring.macro
            self._averages[key] = aggregate(rows)
        return self._averages[key]

    @property
    def ranked(self) -> tuple[Ranked, ...]:
        """The scored questions as the confidence and rank measures see them."""
        if self._ranked is None:
            self._ranked = tuple(
                Ranked(r.confidence, r.verdicts, r.n_gold or 0) for r in self.scored
            )
        return self._ranked


Compute = Callable[[TaskRecords], Value]
"""A measure's computation: its value for one task (``None`` when undefined)."""


class When(StrEnum):
    """When a measure is reported, beyond its experiment types and profiles."""

    ALWAYS = "always"
    PROCESSED = "processed"  # the profile reports figures over processed questions only
    CONFIDENCE = "confidence"  # an answer has a confidence (and the profile reports them)
    RANKED = "ranked"  # the answers are declared in rank order (evaluate(..., ranked=True))


class Reporting(NamedTuple):
    """What decides which measures one task reports."""

    experiment_type: ExperimentType
    profile: str
    processed: bool = False
    confidence: bool = False
    ranked: bool = False

    def holds(self, when: When) -> bool:
        return when is When.ALWAYS or bool(getattr(self, when.value))


@dataclass(frozen=True, slots=True)
class MeasureInfo:
    """A registry entry: what the contracts say about a measure, and how it is computed.

    ``datatype`` is the XSD datatype of its values (the property's ``rdfs:range``);
    ``minimum``/``maximum`` bound them (the SHACL shapes check the bounds); ``gerbil`` is True
    for the measures GERBIL already named, whose property is ``gerbil:<name>`` (the others are
    ``gqa:<name>``). The measure is reported for the ``experiment_types`` listed, under the
    ``profiles`` listed (``None``: every profile), when ``when`` holds.
    """

    measure: Measure
    label: str
    description: str
    datatype: str
    compute: Compute = field(compare=False, repr=False)
    when: When = When.ALWAYS
    experiment_types: tuple[ExperimentType, ...] = tuple(ExperimentType)
    profiles: tuple[str, ...] | None = None
    minimum: float | None = 0
    maximum: float | None = None
    gerbil: bool = False

    @property
    def name(self) -> str:
        return self.measure.name

    @property
    def iri(self) -> str:
        return (GERBIL if self.gerbil else GQA) + self.name

    @property
    def optional(self) -> bool:
        """True when some tasks do not report it."""
        return (
            self.when is not When.ALWAYS
            or self.profiles is not None
            or self.experiment_types != tuple(ExperimentType)
        )

    def reported(self, reporting: Reporting) -> bool:
        return (
            reporting.experiment_type in self.experiment_types
            and (self.profiles is None or reporting.profile in self.profiles)
            and reporting.holds(self.when)
        )


class MeasureRegistry(Mapping[str, MeasureInfo]):
    """Every measure by canonical name, in display order (the order of the JSON contract)."""

    def __init__(self, infos: Iterable[MeasureInfo] = ()) -> None:
        self._infos: dict[str, MeasureInfo] = {}
        for info in infos:
            self.register(info)

    def register(self, info: MeasureInfo) -> MeasureInfo:
        """Add ``info`` (last in display order); ``ValueError`` for a name that is taken or not
        canonical."""
        name = info.name
        if name in self._infos:
            raise ValueError(f"measure {name!r} is already registered")
        if not _NAME.match(name):
            raise ValueError(f"measure name {name!r} is not a camelCase identifier")
        structured = _parse_structured(name)
        if structured is not None and structured != info.measure:
            raise ValueError(
                f"measure name {name!r} parses back to {structured}, not {info.measure}"
            )
        if info.minimum is not None and info.maximum is not None and info.minimum > info.maximum:
            raise ValueError(f"measure {name!r}: minimum above maximum")
        self._infos[name] = info
        return info

    def unregister(self, name: str) -> MeasureInfo:
        """Remove a measure (tests that register a measure of their own take it out again)."""
        return self._infos.pop(require(name, registry=self)[0])

    def __getitem__(self, name: str) -> MeasureInfo:
        try:
            return self._infos[name]
        except KeyError:
            raise KeyError(_unknown(name, self._infos)) from None

    def __contains__(self, name: object) -> bool:
        return name in self._infos

    def __iter__(self) -> Iterator[str]:
        return iter(self._infos)

    def __len__(self) -> int:
        return len(self._infos)

    def compute(self, task: TaskRecords, reporting: Reporting) -> dict[str, Value]:
        """Every measure ``reporting`` asks for, computed from ``task``, in registry order."""
        chosen = (info for info in self._infos.values() if info.reported(reporting))
        return {info.name: info.compute(task) for info in chosen}

    def recompute(self, names: Iterable[str], task: TaskRecords) -> dict[str, Value]:
        """The measures ``names`` (say, those a task reported) computed from ``task`` (say, a
        resample of the task's records), in registry order; unknown names fail."""
        wanted = set(require(*names, registry=self))
        return {n: i.compute(task) for n, i in self._infos.items() if n in wanted}


def require(*names: str, registry: Mapping[str, object] | None = None) -> tuple[str, ...]:
    """``names`` when every one is a registered measure; ``ValueError`` naming the closest
    known names otherwise (for measure names written in code: leaderboards, page layouts)."""
    known = MEASURES if registry is None else registry
    for name in names:
        if name not in known:
            raise ValueError(_unknown(name, known))
    return names


def _unknown(name: str, known: Iterable[str]) -> str:
    import difflib  # only for an error message

    names = list(known)
    close = difflib.get_close_matches(name, names, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown measure {name!r}{hint} (known: {', '.join(names)})"


# -- computations ------------------------------------------------------------------------------


def _average(average: str, scope: str, index: int) -> Compute:
    def compute(task: TaskRecords) -> Value:
        prf = task.averages(average, scope)
        return None if prf is None else prf[index]

    compute.__name__ = f"{average}_{scope}_{index}"
    return compute


def qald_prf(row: QuestionScore, *, answered_only: bool = False) -> tuple[float, float]:
    """Macro F1 QALD's per-question values: an empty answer to a question with gold answers is
    P = 1, R = 0 (GERBIL QA, dice-group/gerbil#211); otherwise the profile's own values. With
    ``answered_only`` (the scheme's ``qald_answered_only``) a question the system did not
    answer is no empty answer: the profile's own values too."""
    if row.n_system == 0 and (row.n_gold or 0) > 0 and (row.processed or not answered_only):
        return 1.0, 0.0
    return row.precision or 0.0, row.recall or 0.0


def macro_f1_qald(task: TaskRecords) -> Value:
    """F1 of the means of :func:`qald_prf`; undefined without questions or when both are 0."""
    rows = task.scored
    if not rows:
        return None
    answered_only = task.scoring.qald_answered_only
    pr = [qald_prf(r, answered_only=answered_only) for r in rows]
    mp = sum(p for p, _ in pr) / len(pr)
    mr = sum(r for _, r in pr) / len(pr)
    return None if mp + mr == 0 else fscore(mp, mr)


def accuracy(task: TaskRecords) -> Value:
    """The mean credit when every question has one (poleval), else the share of questions with
    P = R = 1."""
    rows = task.scored
    if not rows:
        return None
    if all(r.credit is not None for r in rows):
        return sum(r.credit or 0.0 for r in rows) / len(rows)
    exact = [1.0 if r.precision == 1 and r.recall == 1 else 0.0 for r in rows]
    return sum(exact) / len(exact)


def error_count(task: TaskRecords) -> Value:
    # the task's scored questions only: a sub-experiment counted the failed calls of questions
    # it leaves out (no gold query), errorCount 3 of 2 questions (explore28 F15)
    return sum(1 for r in task.scored if r.failed)


def mean_runtime(task: TaskRecords) -> Value:
    times = [r.runtime_ms for r in task.records if r.runtime_ms is not None]
    return sum(times) / len(times) if times else None


def question_count(task: TaskRecords) -> Value:
    return len(task.scored)


def skipped_count(task: TaskRecords) -> Value:
    return len(task.records) - len(task.scored)


def has_confidence(records: Iterable[QuestionScore]) -> bool:
    """True when the system gave a confidence for some question it was asked."""
    return any(r.confidence is not None for r in records if r.status is not QuestionStatus.NO_TEXT)


def _hits(k: int) -> Compute:
    def compute(task: TaskRecords) -> Value:
        return hits_at(task.ranked, k)

    compute.__name__ = f"hits_at_{k}"
    return compute


# -- the registry --------------------------------------------------------------------------------

_QA = (ExperimentType.QA,)
_DOUBLE, _INTEGER = XSD + "double", XSD + "integer"


def _prf(average: str, base: str, scope: str) -> MeasureInfo:
    m = Measure(base, average=average, scope=scope)
    over = "the questions the system answered" if scope == "processed" else "all scored questions"
    if average == "micro":
        how = (
            f"Micro-averaged {_BASE_LABELS[base]} over {over}: computed from the true positive, "
            "false positive and false negative counts summed over the questions (the profile "
            "defines the counts and the rule for empty sets)."
        )
    else:
        how = (
            f"Macro-averaged {_BASE_LABELS[base]} over {over}: the mean of the per-question "
            f"{_BASE_LABELS[base]}"
            + (
                " (under the qald6 and qald-legacy profiles: the F1 of the mean precision and "
                "mean recall, as their reference tools compute it)."
                if base == "f1"
                else "."
            )
        )
    label = f"{average} {_BASE_LABELS[base]}" + (" (processed)" if scope == "processed" else "")
    return MeasureInfo(
        m,
        label,
        how,
        _DOUBLE,
        _average(average, scope, ("precision", "recall", "f1").index(base)),
        when=When.PROCESSED if scope == "processed" else When.ALWAYS,
        maximum=1,
        gerbil=scope == "all",
    )


def _prfs(scope: str) -> list[MeasureInfo]:
    """Micro and macro precision, recall and F1 over ``scope``."""
    return [_prf(a, b, scope) for a in ("micro", "macro") for b in ("precision", "recall", "f1")]


def _build() -> list[MeasureInfo]:
    infos = _prfs("all")
    infos += [
        MeasureInfo(
            Measure("macroF1QALD"),
            "macro F1 (QALD)",
            "QALD's macro F1: per question, an empty system answer to a question with gold "
            "answers counts as precision 1 and recall 0 (otherwise the profile's per-question "
            "values); the F1 of the mean precision and the mean recall. Undefined (null) when "
            "both means are 0.",
            _DOUBLE,
            macro_f1_qald,
            maximum=1,
        ),
        MeasureInfo(
            Measure("accuracy"),
            "accuracy",
            "Share of scored questions answered exactly right (per-question precision and recall "
            "both 1, i.e. the system's set equals the gold set under the profile's matching); "
            "under poleval the mean credit per line, PolEval's official measure.",
            _DOUBLE,
            accuracy,
            maximum=1,
        ),
        MeasureInfo(
            Measure("errorCount"),
            "error count",
            "Number of scored questions whose system call failed (scored as empty answers).",
            _INTEGER,
            error_count,
            gerbil=True,
        ),
        MeasureInfo(
            Measure("meanRuntime"),
            "mean runtime (ms)",
            "Mean wall time in milliseconds of the questions the system answered, each from "
            "its first call to its answer (a retried call's failed attempts and the waits "
            "before its retries included); undefined (null) when no call reports a time "
            "(answer files).",
            _DOUBLE,
            mean_runtime,
        ),
        MeasureInfo(
            Measure("questions"),
            "questions",
            "Number of gold questions scored in this experiment type.",
            _INTEGER,
            question_count,
        ),
        MeasureInfo(
            Measure("skippedQuestions"),
            "skipped questions",
            "Number of gold questions left out of this experiment type: no question text in the "
            "chosen language, or (sub-experiments) no gold data for the type (no parsable gold "
            "query or annotations, no gold answer type). Each is listed with its reason.",
            _INTEGER,
            skipped_count,
        ),
    ]
    infos += _prfs("processed")
    infos += [
        MeasureInfo(
            Measure("cws"),
            "confidence-weighted score",
            "TREC 2002 CWS: questions ordered by the system's confidence (highest first, ties in "
            "dataset order; 0 when missing); the mean over i of (number of correct questions "
            "among the first i) / i. A question is correct when its top-ranked answer is "
            "correct (an empty answer is the NIL answer, correct when the gold set is empty).",
            _DOUBLE,
            lambda task: cws(task.ranked),
            maximum=1,
            when=When.CONFIDENCE,
            experiment_types=_QA,
        ),
        MeasureInfo(
            Measure("k1"),
            "K1",
            "CLEF 2004 K1: the mean over questions of score(r)·eval(r) for the system's "
            "top-ranked answer r (eval 1 if correct, -1 otherwise; an empty answer is the NIL "
            "answer); score is the question's confidence (0 when missing). In [-1, 1].",
            _DOUBLE,
            lambda task: k1_measure(task.ranked),
            minimum=-1,
            maximum=1,
            when=When.CONFIDENCE,
            experiment_types=_QA,
        ),
        MeasureInfo(
            Measure("k"),
            "K",
            "CLEF 2004 K: the mean over questions of Σ score(r)·eval(r) / max(R(i), answered(i)) "
            "over every answer r (eval 1 correct, 0 repeated, -1 incorrect); R(i) is the number "
            "of distinct gold answers (1 for an empty gold set: the NIL answer), answered(i) the "
            "number of answers given (1 for an empty answer: NIL); score is the question's "
            "confidence (0 when missing). In [-1, 1].",
            _DOUBLE,
            lambda task: k_measure(task.ranked),
            minimum=-1,
            maximum=1,
            when=When.CONFIDENCE,
            experiment_types=_QA,
        ),
        MeasureInfo(
            Measure("r"),
            "confidence/correctness correlation r",
            "Pearson correlation between the confidence of every given answer (0 when missing) "
            "and its correctness (1 correct, 0 otherwise), CLEF 2004. Undefined (null) with "
            "fewer than two answers or when either variable has zero variance.",
            _DOUBLE,
            lambda task: r_measure(task.ranked),
            minimum=-1,
            maximum=1,
            when=When.CONFIDENCE,
            experiment_types=_QA,
        ),
        MeasureInfo(
            Measure("mrr"),
            "mean reciprocal rank",
            "Mean over questions of 1/rank of the first correct answer in the system's order (0 "
            "when none is correct; an empty answer is the NIL answer at rank 1).",
            _DOUBLE,
            lambda task: mrr(task.ranked),
            when=When.RANKED,
            experiment_types=_QA,
            maximum=1,
        ),
    ]
    for k in (1, 5, 10):
        infos.append(
            MeasureInfo(
                Measure("hits", k=k),
                f"Hits@{k}",
                f"Share of questions with a correct answer among the system's first {k} "
                "answers (an empty answer is the NIL answer at rank 1).",
                _DOUBLE,
                _hits(k),
                when=When.RANKED,
                experiment_types=_QA,
                maximum=1,
            )
        )
    return infos


_NAME = re.compile(r"^[a-z][A-Za-z0-9]*$")
_PRF = re.compile(r"^(processed)?(micro|macro|Micro|Macro)(Precision|Recall|F1)$")
_HITS = re.compile(r"^hitsAt([1-9][0-9]*)$")


def _parse_structured(name: str) -> Measure | None:
    """The measure a parameterised name (P/R/F1, Hits@k) denotes; ``None`` for other names."""
    m = _PRF.match(name)
    if m:
        processed, average, base = m.groups()
        if bool(processed) != average[0].isupper():
            return None
        return Measure(
            base.lower() if base != "F1" else "f1",
            average=average.lower(),
            scope="processed" if processed else "all",
        )
    m = _HITS.match(name)
    if m:
        return Measure("hits", k=int(m.group(1)))
    return None


MEASURES = MeasureRegistry(_build())
"""Every measure by canonical name, in display order."""


# -- per-question measures ---------------------------------------------------------------------


class QuestionMeasureInfo(NamedTuple):
    """A measure of one question's observation: the :class:`QuestionScore` field ``name``."""

    name: str
    label: str
    description: str
    datatype: str
    minimum: float | None = 0
    maximum: float | None = None

    @property
    def iri(self) -> str:
        return GQA + self.name

    def value(self, score: QuestionScore) -> Value:
        value: Value = getattr(score, self.name)
        return value


QUESTION_MEASURES: dict[str, QuestionMeasureInfo] = {
    q.name: q
    for q in (
        QuestionMeasureInfo(
            "tp", "true positives", "System answers the profile matched to a gold answer.", _INTEGER
        ),
        QuestionMeasureInfo(
            "fp", "false positives", "System answers that matched no gold answer.", _INTEGER
        ),
        QuestionMeasureInfo(
            "fn", "false negatives", "Gold answers no system answer matched.", _INTEGER
        ),
        QuestionMeasureInfo(
            "precision",
            "precision",
            "The precision of the system's answer to one question.",
            _DOUBLE,
            maximum=1,
        ),
        QuestionMeasureInfo(
            "recall",
            "recall",
            "The recall of the system's answer to one question.",
            _DOUBLE,
            maximum=1,
        ),
        QuestionMeasureInfo(
            "f1", "F1", "The F1 score of the system's answer to one question.", _DOUBLE, maximum=1
        ),
    )
}
"""The measures of a per-question observation, in display order (``QuestionScore.to_json``)."""
