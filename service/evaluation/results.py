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
from service.model import Concept

if TYPE_CHECKING:
    from service.evaluation.profiles import Profile
    from service.evaluation.scoring import Scoring


class ExperimentType(StrEnum):
    """The QA experiment and GERBIL QA's sub-experiments, in their canonical order."""

    QA = "QA"
    C2KB = "C2KB"
    P2KB = "P2KB"
    RE2KB = "RE2KB"
    AT = "AT"
    AIT2KB = "AIT2KB"


EXPERIMENT_TYPES: dict[ExperimentType, Concept] = {
    ExperimentType.QA: Concept(
        "QA",
        "The answers of the system compared with the gold answers.",
        title="Question answering",
    ),
    ExperimentType.C2KB: Concept(
        "C2KB",
        "The resources (entities and classes) the system's query uses compared with those of "
        "the gold query.",
        title="Resources to knowledge base",
        close_match="http://w3id.org/gerbil/vocab#C2KB",
    ),
    ExperimentType.P2KB: Concept(
        "P2KB",
        "The properties the system's query uses compared with those of the gold query.",
        title="Properties to knowledge base",
    ),
    ExperimentType.RE2KB: Concept(
        "RE2KB",
        "The triple patterns of the system's query compared with those of the gold query "
        "(variables match by position).",
        title="Relations to knowledge base",
    ),
    ExperimentType.AT: Concept(
        "AT",
        "The answer type the system gives compared with the gold answer type.",
        title="Answer type",
    ),
    ExperimentType.AIT2KB: Concept(
        "AIT2KB",
        "The classes of the projected answers compared with the gold ones.",
        title="Answer item types to knowledge base",
    ),
}
"""The code list ``gqa:experimentTypes`` (Usbeck et al., Benchmarking Question Answering
Systems, Semantic Web 10(2), 2019): every experiment type with its label and description."""

QUERY_LEVEL_TYPES = (
    ExperimentType.C2KB,
    ExperimentType.P2KB,
    ExperimentType.RE2KB,
    ExperimentType.AIT2KB,
)
"""The sub-experiments whose gold is what the gold query (or an annotation) marks, not the gold
answers: a dataset of gold queries without answers (LC-QuAD 1.0) is scored on these."""


class QuestionStatus(StrEnum):
    """Why a question has the scores it has."""

    SCORED = "scored"
    NO_TEXT = "no-text"  # no question string in the chosen language: left out and counted
    MISSING = "missing"  # the answer file has no entry for it: scored as an empty answer
    ERROR = "error"  # the system call failed: scored as an empty answer, counted as an error
    NO_GOLD = "no-gold"  # the gold has nothing for this experiment type: left out and counted


QUESTION_STATUSES: dict[QuestionStatus, Concept] = {
    QuestionStatus.SCORED: Concept("scored", "The system's answer was scored."),
    QuestionStatus.NO_TEXT: Concept(
        "no text",
        "The question has no text in the chosen language: left out of the scores and counted.",
    ),
    QuestionStatus.MISSING: Concept(
        "missing", "The answer file has no entry for the question: scored as an empty answer."
    ),
    QuestionStatus.ERROR: Concept(
        "error",
        "The call to the system failed: scored as an empty answer and counted as an error.",
    ),
    QuestionStatus.NO_GOLD: Concept(
        "no gold",
        "The gold has nothing for this experiment type (no parsable gold query, annotations or "
        "answer type): left out and counted.",
    ),
}
"""The code list ``gqa:questionStatuses``: every question status with its label and
description."""


class Verdict(StrEnum):
    """The judgement of one answer item the system gave (CLEF 2004's eval(r))."""

    CORRECT = "correct"
    REPEATED = "repeated"  # the same answer (under the profile's identity) given earlier
    WRONG = "wrong"


ORDER_MEASURES = frozenset({"cws", "k1", "k", "r", "mrr"})
"""The measures that read each answer's items in the system's order, repeats included (with
``hitsAt…``): where a task reports one, its records keep that order (``gqa:rankedAnswers``)."""


def reads_order(measure: str) -> bool:
    """Whether ``measure`` (a canonical name) reads the system's order and repeated items."""
    return measure in ORDER_MEASURES or measure.startswith("hitsAt")


def ranked_text(ranked: tuple[str, ...], verdicts: tuple[Verdict, ...], *, limit: int) -> str:
    """A record's items in the system's order with their verdicts, as ``gqa:rankedAnswers``
    holds them: a JSON array of ``[item, verdict]`` (the item as displayed), at most ``limit``
    of them, then ``[null, "N more: C correct, W wrong, R repeated"]`` when there were more
    (what K needs of them; null, as an empty answer is an item "": explore31 F4).

    >>> ranked_text(("<a>", "<b>", "<a>"), (Verdict.CORRECT, Verdict.WRONG, Verdict.REPEATED),
    ...             limit=2)
    '[["<a>", "correct"], ["<b>", "wrong"], [null, "1 more: 0 correct, 0 wrong, 1 repeated"]]'
    """
    import json

    pairs: list[list[str | None]] = [
        [a, str(v)] for a, v in zip(ranked[:limit], verdicts, strict=False)
    ]
    if len(ranked) > limit:
        rest = verdicts[limit:]
        kinds = (Verdict.CORRECT, Verdict.WRONG, Verdict.REPEATED)
        counts = ", ".join(f"{rest.count(v)} {v}" for v in kinds)
        pairs.append([None, f"{len(ranked) - limit} more: {counts}"])
    return json.dumps(pairs, ensure_ascii=False)


def read_ranked(text: str | None) -> tuple[tuple[str | None, str], ...]:
    """:func:`ranked_text` read back (nothing when absent or not of that form); the closing
    pair's item is None."""
    import json

    if not text:
        return ()
    try:
        found = json.loads(text)
    except ValueError:
        return ()
    if not isinstance(found, list):
        return ()
    return tuple(
        (None if p[0] is None else str(p[0]), str(p[1]))
        for p in found
        if isinstance(p, list) and len(p) == 2
    )


class MatchRule(StrEnum):
    """Why a given answer was judged correct: the rule of the profile that matched it to a gold
    answer (``NONE``: nothing matched it, a false positive). Every matcher names one for each
    matched pair (:data:`ItemMatch`)."""

    EXACT = "exact"
    IRI_IDENTITY = "iri-identity"
    SAME_AS = "same-as"
    LABEL = "label"
    NUMERIC = "numeric"
    DATE_GRANULARITY = "date-granularity"
    BOOLEAN = "boolean"
    CASEFOLD_STRING = "casefold-string"
    NORMALISED_ROW = "normalised-row"
    NUMBER_EXTRACT = "number-extract"
    FUZZY = "fuzzy"
    NONE = "none"


MATCH_RULES: dict[MatchRule, Concept] = {
    MatchRule.EXACT: Concept("exact", "The same value, character for character."),
    MatchRule.IRI_IDENTITY: Concept(
        "IRI identity",
        "The same IRI once written in normal form: angle brackets and whitespace stripped, "
        "percent-escapes decoded, scheme and host case-insensitive, https = http, Wikipedia "
        "article URL = DBpedia resource.",
    ),
    MatchRule.SAME_AS: Concept(
        "owl:sameAs", "IRIs of one resource by the knowledge base's owl:sameAs links."
    ),
    MatchRule.LABEL: Concept(
        "label",
        "A literal equal to an rdfs:label of the IRI on the other side (a label looked up in "
        "the knowledge base).",
    ),
    MatchRule.NUMERIC: Concept("numeric", "Numbers equal by value (8 = 8.0 = 8e0)."),
    MatchRule.DATE_GRANULARITY: Concept(
        "date at the gold's granularity",
        "Dates equal at the gold value's granularity (gold 1990 matches 1990-05-03).",
    ),
    MatchRule.BOOLEAN: Concept("boolean", "The same truth value (true, 1)."),
    MatchRule.CASEFOLD_STRING: Concept(
        "case-folded string",
        "Strings equal once case-folded and with runs of whitespace collapsed; language tags "
        "ignored.",
    ),
    MatchRule.NORMALISED_ROW: Concept(
        "normalised row",
        "Binding rows equal once each value is normalised as QALD-6 evaluation.rb does "
        "(whole numbers get .0, percent-escapes decoded).",
    ),
    MatchRule.NUMBER_EXTRACT: Concept(
        "extracted number",
        "PolEval: the first number (or Roman numeral) of the answer equals that of a gold "
        "alternative.",
    ),
    MatchRule.FUZZY: Concept(
        "fuzzy (Levenshtein)",
        "PolEval: lower-cased, the Levenshtein distance to a gold alternative is at most half "
        "its length.",
    ),
    MatchRule.NONE: Concept(
        "no match", "No rule matched the answer to a gold answer: a false positive."
    ),
}
"""The code list ``gqa:matchRules``: every match rule with its label and description."""

ItemMatch = tuple[int, int, MatchRule]
"""``(given, gold, rule)``: given item ``given`` (an index into ``given``) matched gold item
``gold`` (an index into ``gold``) by ``rule``. Given items in no match are false; gold items in
none were missed. A question's matches come in no particular order. (A plain tuple, not a
NamedTuple: one is made for every matched answer, and a NamedTuple costs 8 times as much.)"""

Measure = float | int | None


@dataclass(frozen=True, slots=True)
class QuestionScore:
    """The scores of one question in one task: the per-question record every aggregate measure
    is computed from (:mod:`service.evaluation.measures`), so resampling the records of a task
    and recomputing gives the aggregates of the resample.

    ``tp``/``fp``/``fn`` are the counts the profile matched and ``n_gold``/``n_system`` the sizes
    of the sets (or lists) it compared (``None`` when the question was not scored);
    ``precision``/``recall``/``f1`` the profile's per-question values, ``None`` exactly when
    the question is left out of the task's scores; ``credit`` the whole-question score of
    profiles that grade one (poleval). ``processed`` is False when the system gave nothing for
    it. ``gold`` and ``given`` are the compared items as displayed (N-Triples-like), for
    per-question diagnostics. ``failed`` is True when the system call for the question failed,
    ``runtime_ms`` the time of a successful call, ``confidence`` the system's confidence and
    ``verdicts`` the judgement of each answer item in the system's order (for the confidence and
    rank measures) and ``ranked`` those items as displayed, repeats kept (``given`` is distinct).
    Every field an aggregate reads is kept so that :mod:`service.evaluation.statistics` can
    recompute every aggregate on resamples. ``matches`` explain the counts: which given item
    matched which gold item by which rule (:data:`ItemMatch`); ``error`` is why the system's
    call failed and ``system_query`` the SPARQL it gave (for the per-question view), with
    ``query_rewrites`` what was changed in it before it ran on the KB;
    ``attempts`` how many calls the question took (a web service's retries) and
    ``retry_reason`` why the last attempt before the final one failed.
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
    ranked: tuple[str, ...] = ()
    failed: bool = False
    runtime_ms: float | None = None
    matches: tuple[ItemMatch, ...] = ()
    error: str | None = None
    system_query: str | None = None
    query_rewrites: tuple[str, ...] = ()
    attempts: int = 1
    retry_reason: str | None = None
    language: str | None = None  # set in a task pooled over several languages
    # the shapes of the system's SPARQL and of the gold query, when the system gave one:
    # {"system": {...}, "gold": {...}} (service.sparql.complexity.query_shape)
    query_shape: Mapping[str, Any] | None = None

    @property
    def scored(self) -> bool:
        """True when the question counts in the task's scores."""
        return self.precision is not None

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


def stored_score(
    question_id: str,
    *,
    status: str,
    processed: bool,
    counts: tuple[int | None, int | None, int | None],
    prf: tuple[float | None, float | None, float | None],
    graded: bool,
    language: str | None = None,
) -> QuestionScore:
    """A question's record as the store keeps it (counts and P/R/F1, no items): enough to
    recompute :data:`COUNT_MEASURES` on resamples, for intervals and comparisons of stored
    results. ``graded``: the profile grades whole questions (its credit is the TP count);
    ``language``: the record's, in a task pooled over several (slices by language)."""
    tp, fp, fn = counts
    if tp is None or fp is None or fn is None:
        return QuestionScore(question_id, status=QuestionStatus(status), language=language)
    return QuestionScore(
        question_id,
        status=QuestionStatus(status),
        language=language,
        tp=tp,
        fp=fp,
        fn=fn,
        precision=prf[0],
        recall=prf[1],
        f1=prf[2],
        processed=processed,
        n_system=tp + fp,
        n_gold=tp + fn,
        credit=float(tp) if graded else None,
    )


COUNT_MEASURES = (
    "macroF1",
    "macroPrecision",
    "macroRecall",
    "microF1",
    "microPrecision",
    "microRecall",
    "macroF1QALD",
    "accuracy",
)
"""The aggregates a stored task can recompute from its per-question counts alone (the
confidence and rank measures need the answer items, which the store does not keep)."""


@dataclass(frozen=True, slots=True)
class TaskScores:
    """One experiment type's results: canonical measure name -> value, and the questions."""

    experiment_type: ExperimentType
    measures: Mapping[str, Measure]
    questions: tuple[QuestionScore, ...]

    @property
    def unscored_note(self) -> str | None:
        """Why no question was scored, when the gold had nothing for the type in any question
        asked (a table of n/a otherwise says nothing): ``AT: no question was scored: the
        dataset gives no answer types``; None when some question was scored."""
        statuses = {q.status for q in self.questions}
        if QuestionStatus.NO_GOLD not in statuses or statuses - _LEFT_OUT:
            return None
        return no_gold_note(self.experiment_type)


_LEFT_OUT = frozenset((QuestionStatus.NO_GOLD, QuestionStatus.NO_TEXT))

NO_GOLD_REASONS: dict[ExperimentType, str] = {
    ExperimentType.QA: "the dataset gives no gold answers",
    ExperimentType.AT: "the dataset gives no answer types",
    **{t: "the dataset gives no gold queries or annotations" for t in QUERY_LEVEL_TYPES},
}
"""What the gold lacks when the scorer marks a question ``no-gold``, by experiment type."""


def no_gold_note(experiment_type: ExperimentType | str) -> str:
    """The sentence said (CLI table, warnings, experiment page, API) for a task none of whose
    questions the gold has anything for."""
    etype = ExperimentType(experiment_type)
    return f"{etype.value}: no question was scored: {NO_GOLD_REASONS[etype]}"


def undefined_resamples_note(undefined: int, resamples: int, *, bounded: bool) -> str:
    """What an interval says (CLI table, experiment and task pages, compare page) of the
    bootstrap resamples on which its measure is undefined: left out of bounds that stay, or
    too many for any (:func:`service.evaluation.statistics.bootstrap_intervals`).

    >>> undefined_resamples_note(366, 1000, bounded=False)
    'no interval: undefined on 366 of 1,000 resamples'
    >>> undefined_resamples_note(12, 1000, bounded=True)
    '12 of 1,000 resamples undefined, left out'
    """
    if bounded:
        return f"{undefined:,} of {resamples:,} resamples undefined, left out"
    return f"no interval: undefined on {undefined:,} of {resamples:,} resamples"


def signature_fields(signature: str | None) -> dict[str, str]:
    """A result signature's fields by name: the one parse of a signature for every reader of
    one (a field's value may hold ``:``, a KB's ``file:sha256:…``; ``|`` never: escaped).

    >>> signature_fields("gerbil-qa:fair|v:1.2.0|kb:file:sha256:5bef")
    {'gerbil-qa': 'fair', 'v': '1.2.0', 'kb': 'file:sha256:5bef'}
    """
    return dict(part.partition(":")[::2] for part in signature.split("|")) if signature else {}


def interval_resamples(signature: str | None) -> int | None:
    """The number of resamples an interval signature names (``…|ci:…|n:1000|…``), where the
    stored result and the pages have it.

    >>> interval_resamples("profile:fair|ci:bootstrap-percentile|n:1000|seed:12345|level:0.95")
    1000
    """
    parts = (signature or "").split("|")
    starts = [i for i, part in enumerate(parts) if part.startswith("ci:")]
    following = parts[starts[0] + 1] if starts and starts[0] + 1 < len(parts) else ""
    return int(following[2:]) if following.startswith("n:") and following[2:].isdigit() else None


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
    # a stored result of an older version of its profile (``Profile.aggregates_as``): the
    # signature it was scored under, so it is compared with its own kind only
    recorded_signature: str | None = None

    @property
    def signature(self) -> str:
        """The profile's signature for this result, with the KB's identity when one was used."""
        return self.recorded_signature or self.profile.signature_for(self.kb)

    def scoring_of(self, experiment_type: ExperimentType) -> Scoring:
        """The scheme this result's tasks of ``experiment_type`` are recomputed with: its
        profile's, or for a result of an older version (``recorded_signature``) that
        version's (:meth:`Profile.scoring_of`)."""
        version = signature_fields(self.recorded_signature).get("v")
        return self.profile.scoring_of(experiment_type, version)

    def to_json(self) -> dict[str, Any]:
        """The ``--output json`` contract (see the README).

        One ``questions`` entry per question record, in dataset order. A dataset may repeat an
        id (QALD-8 ``wikidata-train-7.json`` has two questions 20): the k-th record with an id
        in each task belongs to the k-th entry with that id, so no question's scores overwrite
        another's.
        """
        from service.evaluation.profiles import why_wrong

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
                if qs.fn and (why := why_wrong(self.profile, qs.given, sorted(qs.gold))):
                    entry.setdefault("why", why)  # a wrong answer: what the rules found (poleval)
                if qs.error:  # why the system gave no answer (its call, its query)
                    entry.setdefault("error", qs.error)
                if qs.runtime_ms is not None:  # a call's time (web services, queries run)
                    entry.setdefault("runtimeMs", qs.runtime_ms)
                if qs.confidence is not None:  # what CWS, K1, K and r weigh the answer by
                    entry.setdefault("confidence", qs.confidence)
                if qs.attempts > 1:  # retried: what the failed count alone would hide
                    entry.setdefault("attempts", qs.attempts)
                if qs.retry_reason:
                    entry.setdefault("retryReason", qs.retry_reason)
                if qs.language is not None:  # a task pooled over languages
                    entry["language"] = qs.language
                if qs.note:  # the profile's word on the answer (text2sparql: a false ASK)
                    entry.setdefault("note", qs.note)
                if qs.system_query:  # the SPARQL it gave: beside its error and its shape
                    entry.setdefault("systemQuery", qs.system_query)
                if qs.query_rewrites:
                    entry.setdefault("queryRewrites", list(qs.query_rewrites))
                if qs.query_shape is not None:
                    entry.setdefault("queryShape", dict(qs.query_shape))
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
