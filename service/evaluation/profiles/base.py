"""The :class:`Profile` value: what a scorer profile states about its behaviour.

A profile is a frozen value. Everything the scoring core does differently per profile is one of
its fields (no ``profile.name == …`` switch anywhere): how answers are read (``items``), how
they are matched (``matcher``) and aggregated (``scoring``; :meth:`Profile.scoring_of` a task's,
which is ``subexperiment_scoring`` for a sub-experiment's), the identity of sub-experiment IRIs
(``identity``), which optional measures it reports (``processed_measures``,
``confidence_measures``), whether a run must answer every question (``answer_count_must_match``),
its default language and its experiment types. Its ``signature`` is built from the fields that
fix the numbers (name, version, reference, ``settings``, KB use), sacrebleu style.

>>> from service.evaluation.profiles import get_profile
>>> get_profile("exact").signature
'gerbil-qa:exact|v:1.2.0|ref:none|items:values|match:string|sets:distinct|empty:1/0|unanswered:0|qald-empty:given|c2kb:unprojected-classes|kb:no'
>>> get_profile("qald6").items
<AnswerItems.ROWS: 'rows'>
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

from service.evaluation.results import ExperimentType

if TYPE_CHECKING:  # the registry lists profile names without importing matchers or schemes
    from service.evaluation.matchers.base import AnswerMatcher
    from service.evaluation.scoring import Scoring

VOCAB = "http://w3id.org/gerbil/qa/vocab#"
ALL_TYPES = tuple(ExperimentType)
QA_ONLY = (ExperimentType.QA,)
IDENTITIES = ("exact", "gerbil", "fair")
GOLD_ALTERNATIVES = ("gold", "best-alternative")
"""The setting of a profile whose gold items are alternatives of one answer (the best one
counts): a question has one gold answer, however many alternatives it lists (PolEval)."""


def gold_alternatives_in(signature: str) -> bool:
    """Whether a result's signature says its gold items are alternatives of one answer."""
    return f"|{GOLD_ALTERNATIVES[0]}:{GOLD_ALTERNATIVES[1]}|" in f"|{signature}|"


class AnswerItems(StrEnum):
    """How a profile reads the answers of one question (the ``items`` setting)."""

    VALUES = "values"  # the values of every variable of every row
    ROWS = "rows"  # each binding row is one answer (the multiset of its values)
    ROW_LISTS = "row-lists"  # each row's values as a list; duplicates count
    LINE = "line"  # one answer line per question (PolEval TSV)


class OlderVersion(NamedTuple):
    """An older version of a profile whose stored per-question values this one still
    aggregates: with the scheme(s) it aggregated them with (only per-question rules moved
    since, or an aggregation rule that these schemes keep as it was)."""

    version: str
    scoring: Scoring
    subexperiment_scoring: Scoring | None = None


@dataclass(frozen=True, slots=True)
class Profile:
    """One scorer profile (see the module docstring).

    ``settings`` are the signature's rules in order, starting with ``items`` (an
    :class:`AnswerItems`) and holding ``match``. ``matcher`` judges a question's answers,
    ``scoring`` turns counts into P/R/F and aggregates them, ``subexperiment_scoring`` (default:
    ``scoring``) does so for the sub-experiments, stated by the ``subexperiments`` setting
    (TEXT2SPARQL'25 defined its rule for result sets only); ``identity`` is how sub-experiment
    IRIs are compared (``exact``, ``gerbil`` or ``fair``); ``gerbil_markings`` counts properties and
    answer item types in C2KB as GERBIL does, ``unprojected_classes_in_c2kb`` the classes of
    variables not projected (which AIT2KB does not read); ``fold_literals`` compares RE2KB
    string literals case- and space-insensitively; ``processed_measures`` adds the measures
    over processed questions only (QALD-5/6's second table); ``confidence_measures`` reports
    CWS, K1, K and r when answers carry confidences; ``answer_count_must_match`` refuses a run
    whose number of answers differs from the number of questions (geval's rule). ``title``
    names it in the vocabulary's code list (skos:prefLabel).
    """

    name: str
    version: str
    reference: str
    title: str
    description: str
    settings: tuple[tuple[str, str], ...]
    matcher: AnswerMatcher
    scoring: Scoring
    experiment_types: tuple[ExperimentType, ...] = ALL_TYPES
    subexperiment_scoring: Scoring | None = None
    uses_kb: bool = False
    identity: str = "exact"
    gerbil_markings: bool = False
    # C2KB also holds the classes of variables not projected (``?y a dbo:City`` where ?y is
    # no answer): AIT2KB reads only the projected ones', so they were scored nowhere but
    # RE2KB (explore28 F11); GERBIL puts every class in C2KB (``gerbil_markings``)
    unprojected_classes_in_c2kb: bool = False
    fold_literals: bool = False
    default_language: str = "en"
    processed_measures: bool = False
    confidence_measures: bool = True
    answer_count_must_match: bool = False
    # Question formats of the challenge this profile reproduces (TEXT2SPARQL'25's YAML): the
    # run page scores a catalogue dataset in one with it unless another is chosen by hand.
    challenge_formats: tuple[str, ...] = ()
    # What the challenge called our measures (macroF1 is TEXT2SPARQL'25's set_F average): the
    # task page says so beside them, so a team finds its official number among ours.
    challenge_measures: tuple[tuple[str, str], ...] = ()
    # Older versions whose stored per-question values this one still aggregates, each with
    # its own schemes: their results are tested and tiered among themselves, under their own
    # signature, never with this version's (an upgrade took every tier away).
    older: tuple[OlderVersion, ...] = ()

    def __post_init__(self) -> None:
        for key, value in self.settings:
            if "|" in key + value or ":" in key:
                raise ValueError(f"profile {self.name}: setting {key}:{value} breaks the signature")
        keys = [key for key, _ in self.settings]
        if keys[:1] != ["items"] or "match" not in keys:
            raise ValueError(f"profile {self.name}: settings must start with items and hold match")
        if self.settings[0][1] not in set(AnswerItems):
            known = ", ".join(AnswerItems)
            raise ValueError(f"profile {self.name}: items must be one of {known}")
        if self.identity not in IDENTITIES:
            raise ValueError(f"profile {self.name}: identity must be one of {IDENTITIES}")
        if not self.experiment_types or ExperimentType.QA not in self.experiment_types:
            raise ValueError(f"profile {self.name}: every profile scores the QA experiment")
        # the signature states how sub-experiments are scored when it differs from QA
        sub = self.scoring_of(ExperimentType.C2KB).name
        if dict(self.settings).get("subexperiments", self.scoring.name) != sub:
            raise ValueError(f"profile {self.name}: settings must hold subexperiments:{sub}")

    def scoring_of(
        self, experiment_type: ExperimentType | str, version: str | None = None
    ) -> Scoring:
        """The scheme a task of ``experiment_type`` is scored and recomputed with: ``scoring``
        for QA, ``subexperiment_scoring`` (else ``scoring``) for the sub-experiments; for a
        result stored under an older ``version`` of :attr:`aggregates_as`, that version's.
        Every caller that scores, pools, slices or resamples a task asks here."""
        qa, sub = self.scoring, self.subexperiment_scoring
        if version is not None and version != self.version:
            older = next((o for o in self.older if o.version == version), None)
            if older is not None:
                qa, sub = older.scoring, older.subexperiment_scoring
        if ExperimentType(experiment_type) is ExperimentType.QA:
            return qa
        return sub or qa

    @property
    def aggregates_as(self) -> tuple[str, ...]:
        """The older versions whose stored results this one still aggregates (:attr:`older`)."""
        return tuple(o.version for o in self.older)

    @property
    def iri(self) -> str:
        return f"{VOCAB}profile-{self.name}"

    @property
    def ranked_by(self) -> str:
        """The measure results under this profile are ranked and compared by unless another is
        chosen: its ``metric`` setting (PolEval's accuracy), else macro F1. A PolEval board
        said "by macro F1" and tested pairs as F1s where the task's metric is accuracy."""
        return dict(self.settings).get("metric") or "macroF1"

    @property
    def items(self) -> AnswerItems:
        """How the answers of a question are read (the first setting)."""
        return AnswerItems(self.settings[0][1])

    @property
    def signature(self) -> str:
        """The signature of a result computed without a KB."""
        return self.signature_for(None)

    def signature_for(self, kb: str | None) -> str:
        """The signature of a result; ``kb`` is the identity of the KB used, if any: by the
        matching, or to compute the answers (a Text2SPARQL system's queries run on it)."""
        fields = [f"gerbil-qa:{self.name}", f"v:{self.version}", f"ref:{self.reference}"]
        fields += [f"{k}:{v}" for k, v in self.settings]
        if self.uses_kb or kb:
            fields.append(f"kb:{_escape(kb) if kb else 'none'}")
        else:
            fields.append("kb:no")
        return "|".join(fields)


def _escape(text: str) -> str:
    return text.replace("|", "%7C").replace(" ", "_")
