"""Evaluation results: per-question records first, aggregates computed from them.

These frozen types cross every boundary (CLI output, graph writer, web pages), and
:meth:`Evaluation.to_json` is the JSON contract of ``gerbil-qa evaluate --output json``:
extend it compatibly, never rename a key. Undefined values are ``None`` (JSON ``null``),
never a silent 0 or a NaN.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from service.errors import Problem

if TYPE_CHECKING:
    from service.evaluation.matchers.base import Verdict
    from service.evaluation.profiles import Profile


class ExperimentType(StrEnum):
    """The QA experiment and GERBIL QA's sub-experiments, in their canonical order."""

    QA = "QA"
    C2KB = "C2KB"
    P2KB = "P2KB"
    RE2KB = "RE2KB"
    AT = "AT"
    AIT2KB = "AIT2KB"


class QuestionStatus(StrEnum):
    """Why a question has the scores it has."""

    SCORED = "scored"
    NO_TEXT = "no-text"  # no question string in the chosen language: left out and counted
    MISSING = "missing"  # the answer file has no entry for it: scored as an empty answer
    ERROR = "error"  # the system call failed: scored as an empty answer, counted as an error
    NO_GOLD = "no-gold"  # the gold has nothing for this experiment type: left out and counted


Measure = float | int | None


@dataclass(frozen=True, slots=True)
class QuestionScore:
    """The scores of one question in one task.

    ``tp``/``fp``/``fn`` are the counts the profile matched (``None`` where a profile has no
    counts); ``gold`` and ``given`` are the compared items as displayed (N-Triples-like), for
    per-question diagnostics. ``processed`` is False when the system gave nothing for it.
    ``n_system``/``n_gold``/``credit``/``confidence``/``verdicts`` are what the aggregates
    are computed from besides the counts (the matcher's set sizes, a graded profile's credit,
    the system's confidence, the verdict of each given item in rank order), kept so that
    :mod:`service.evaluation.statistics` can recompute every aggregate on resamples.
    """

    question_id: str
    status: QuestionStatus = QuestionStatus.SCORED
    tp: int | None = None
    fp: int | None = None
    fn: int | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    processed: bool = True
    gold: tuple[str, ...] = ()
    given: tuple[str, ...] = ()
    note: str | None = None
    n_system: int | None = None
    n_gold: int | None = None
    credit: float | None = None
    confidence: float | None = None
    verdicts: tuple[Verdict, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }
        if self.status is not QuestionStatus.SCORED:
            out["status"] = self.status.value
        return out


@dataclass(frozen=True, slots=True)
class TaskScores:
    """One experiment type's results: canonical measure name -> value, and the questions."""

    experiment_type: ExperimentType
    measures: Mapping[str, Measure]
    questions: tuple[QuestionScore, ...]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The result of scoring one system on one dataset under one profile and language."""

    dataset: str
    system: str
    profile: Profile
    language: str
    tasks: Mapping[ExperimentType, TaskScores]
    kb: str | None = None
    problems: tuple[Problem, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def signature(self) -> str:
        """The profile's signature for this result, with the KB's identity when one was used."""
        return self.profile.signature_for(self.kb)

    def to_json(self) -> dict[str, Any]:
        """The ``--output json`` contract (see the README).

        One ``questions`` entry per question record, in dataset order. A dataset may repeat an
        id (QALD-8 ``wikidata-train-7.json`` has two questions 20): the k-th record with an id
        in each task belongs to the k-th entry with that id, so no question's scores overwrite
        another's.
        """
        entries: list[dict[str, Any]] = []
        by_occurrence: dict[tuple[str, int], dict[str, Any]] = {}
        for etype, task in self.tasks.items():
            type_name = etype.value  # an enum's .value is a Python-level property: once a task
            seen: dict[str, int] = {}
            for qs in task.questions:
                qid = qs.question_id
                nth = seen[qid] = seen.get(qid, -1) + 1
                entry = by_occurrence.get((qid, nth))
                if entry is None:
                    entry = by_occurrence[(qid, nth)] = {"id": qid}
                    entries.append(entry)
                entry[type_name] = qs.to_json()
                # no-gold belongs to one experiment type (it is in that type's entry only)
                if qs.status not in (QuestionStatus.SCORED, QuestionStatus.NO_GOLD):
                    entry.setdefault("status", qs.status.value)
        out: dict[str, Any] = {
            "dataset": self.dataset,
            "system": self.system,
            "profile": self.profile.name,
            "profileVersion": self.profile.version,
            "signature": self.signature,
            "language": self.language,
            "kb": self.kb,
            "results": {etype.value: dict(task.measures) for etype, task in self.tasks.items()},
            "questions": entries,
            "warnings": [str(p) for p in self.problems],
        }
        out.update(self.extra)
        return out
