"""The measures: one small object per measure, with the canonical name used everywhere.

A :class:`Measure` is a parameterised value (base quantity, averaging, scope, cut-off ``k``) with
one canonical camelCase name (``microF1``, ``processedMacroRecall``, ``hitsAt5``) that
:func:`parse_measure` reads back into an equal object. The names are the keys of the JSON
contract (``results[type]``), the local names of the vocabulary terms (GRAPH builds
``gqa:<name>`` from :data:`MEASURES`) and the column headers of the pages.

>>> parse_measure("processedMacroF1") == Measure("f1", average="macro", scope="processed")
True
>>> Measure("hits", k=5).name
'hitsAt5'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

XSD = "http://www.w3.org/2001/XMLSchema#"

_BASE_LABELS = {
    "precision": "precision",
    "recall": "recall",
    "f1": "F1",
}
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

    @property
    def definition(self) -> MeasureInfo:
        return MEASURES[self.name]


@dataclass(frozen=True, slots=True)
class MeasureInfo:
    """What the registry says about a measure: label, description and XSD datatype."""

    measure: Measure
    label: str
    description: str
    datatype: str
    optional: bool = False  # only reported when it applies (confidences, ranks, qald6)

    @property
    def name(self) -> str:
        return self.measure.name


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
            f"{_BASE_LABELS[base]} (for F1 under the qald6 and qald-legacy profiles: the F1 of the "
            "mean precision and mean recall, as their reference tools compute it)."
        )
    label = f"{'processed ' if scope == 'processed' else ''}{average} {_BASE_LABELS[base]}"
    return MeasureInfo(m, label, how, XSD + "double", optional=scope == "processed")


def _prfs(scope: str) -> list[MeasureInfo]:
    """Micro and macro precision, recall and F1 over ``scope``."""
    return [_prf(a, b, scope) for a in ("micro", "macro") for b in ("precision", "recall", "f1")]


def _build() -> dict[str, MeasureInfo]:
    infos = _prfs("all")
    infos += [
        MeasureInfo(
            Measure("macroF1QALD"),
            "macro F1 QALD",
            "QALD's macro F1: per question, an empty system answer to a question with gold "
            "answers counts as precision 1 and recall 0 (otherwise the profile's per-question "
            "values); the F1 of the mean precision and the mean recall. Undefined (null) when "
            "both means are 0.",
            XSD + "double",
        ),
        MeasureInfo(
            Measure("accuracy"),
            "accuracy",
            "Share of scored questions answered exactly right (per-question precision and recall "
            "both 1, i.e. the system's set equals the gold set under the profile's matching); "
            "under poleval the mean credit per line, PolEval's official measure.",
            XSD + "double",
        ),
        MeasureInfo(
            Measure("errorCount"),
            "errors",
            "Number of scored questions whose system call failed (scored as empty answers).",
            XSD + "integer",
        ),
        MeasureInfo(
            Measure("meanRuntime"),
            "mean runtime (ms)",
            "Mean wall time in milliseconds of the successful system calls that report one; "
            "undefined (null) when no call reports a time (answer files).",
            XSD + "double",
        ),
        MeasureInfo(
            Measure("questions"),
            "questions",
            "Number of gold questions scored in this experiment type.",
            XSD + "integer",
        ),
        MeasureInfo(
            Measure("skippedQuestions"),
            "skipped questions",
            "Number of gold questions left out of this experiment type: no question text in the "
            "chosen language, or (sub-experiments) no gold data for the type (no parsable gold "
            "query or annotations, no gold answer type). Each is listed with its reason.",
            XSD + "integer",
        ),
    ]
    infos += _prfs("processed")
    infos += [
        MeasureInfo(
            Measure("cws"),
            "confidence-weighted score",
            "TREC 2002 CWS: questions ordered by the system's confidence (highest first, ties in "
            "dataset order); the mean over i of (number of correct questions among the first i) "
            "/ i. A question is correct when its top-ranked answer is correct (an empty answer is "
            "the NIL answer, correct when the gold set is empty).",
            XSD + "double",
            optional=True,
        ),
        MeasureInfo(
            Measure("k1"),
            "K1",
            "CLEF 2004 K1: the mean over questions of score(r)·eval(r) for the system's "
            "top-ranked answer r (eval 1 if correct, -1 otherwise; an empty answer is the NIL "
            "answer); score is the question's confidence (0 when missing). In [-1, 1].",
            XSD + "double",
            optional=True,
        ),
        MeasureInfo(
            Measure("k"),
            "K",
            "CLEF 2004 K: the mean over questions of Σ score(r)·eval(r) / max(R(i), answered(i)) "
            "over every answer r (eval 1 correct, 0 repeated, -1 incorrect); R(i) is the number "
            "of distinct gold answers (1 for an empty gold set: the NIL answer), answered(i) the "
            "number of answers given (1 for an empty answer: NIL). In [-1, 1].",
            XSD + "double",
            optional=True,
        ),
        MeasureInfo(
            Measure("r"),
            "confidence/correctness correlation r",
            "Pearson correlation between the confidence of every given answer and its "
            "correctness (1 correct, 0 otherwise), CLEF 2004. Undefined (null) with fewer than "
            "two answers or when either variable has zero variance.",
            XSD + "double",
            optional=True,
        ),
        MeasureInfo(
            Measure("mrr"),
            "mean reciprocal rank",
            "Mean over questions of 1/rank of the first correct answer in the system's order (0 "
            "when none is correct; an empty answer is the NIL answer at rank 1).",
            XSD + "double",
            optional=True,
        ),
    ]
    for k in (1, 5, 10):
        infos.append(
            MeasureInfo(
                Measure("hits", k=k),
                f"Hits@{k}",
                f"Share of questions with a correct answer among the system's first {k} "
                "answers (an empty answer is the NIL answer at rank 1).",
                XSD + "double",
                optional=True,
            )
        )
    return {info.name: info for info in infos}


MEASURES: dict[str, MeasureInfo] = _build()
"""Every measure by canonical name, in display order."""

CORE_MEASURES: tuple[str, ...] = tuple(n for n, i in MEASURES.items() if not i.optional)
PROCESSED_MEASURES: tuple[str, ...] = tuple(n for n in MEASURES if n.startswith("processed"))
CONFIDENCE_MEASURES: tuple[str, ...] = ("cws", "k1", "k", "r")
RANK_MEASURES: tuple[str, ...] = ("mrr", "hitsAt1", "hitsAt5", "hitsAt10")

_PRF = re.compile(r"^(processed)?(micro|macro|Micro|Macro)(Precision|Recall|F1)$")
_HITS = re.compile(r"^hitsAt([1-9][0-9]*)$")


def parse_measure(name: str) -> Measure:
    """The measure a canonical name denotes; ``ValueError`` for an unknown name."""
    m = _PRF.match(name)
    if m:
        processed, average, base = m.groups()
        if bool(processed) != average[0].isupper():
            raise ValueError(f"unknown measure {name!r}")
        return Measure(
            base.lower() if base != "F1" else "f1",
            average=average.lower(),
            scope="processed" if processed else "all",
        )
    m = _HITS.match(name)
    if m:
        return Measure("hits", k=int(m.group(1)))
    if name in MEASURES:
        return MEASURES[name].measure
    raise ValueError(f"unknown measure {name!r}; known: {', '.join(MEASURES)}")
