"""Several systems compared honestly: every measure with a bootstrap interval, every pair of
systems tested on one measure (Holm-corrected), and tiers (issue 11).

:meth:`Comparison.to_json` is the JSON contract of ``gerbil-qa compare --output json`` (keys are
only ever added, never renamed)::

    {"dataset", "profile", "signature", "seed", "resamples", "test",
     "systems": [{"system", "results": {TYPE: {measure: value}},
                  "intervals": {TYPE: {measure: [low, high]}}, "tier",
                  "undefinedResamples": {TYPE: {measure: count}}}],
     "pairs": [{"a", "b", "measure", "difference", "pValue", "pAdjusted", "pAtFloor"}],
     "warnings": [text], "questions"}

``system`` is the name ``evaluate`` gave the run; ``results`` are the scorer's numbers exactly as
``evaluate --output json`` prints them; ``intervals`` hold every measure but the counts
(:data:`~service.evaluation.statistics.NO_INTERVAL`); ``undefinedResamples`` (only when there
are any) counts the resamples on which a measure was undefined: left out of its bounds, or too
many for bounds (``[null, null]``, :func:`~service.evaluation.statistics.max_undefined`).
``questions`` is how many questions were compared (a question pooled over languages once).
The pairs and tiers are on the experiment type compared (QA; a comparison of stored tasks,
their own type). ``signature`` is the profile's signature followed by the interval and the
test fields (:func:`~service.evaluation.statistics.interval_signature`,
:func:`~service.evaluation.statistics.test_signature`).

Imports NumPy (through :mod:`service.evaluation.statistics`): import this module only where a
comparison or an interval is computed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.errors import BadRequest
from service.evaluation import statistics as st
from service.evaluation.results import Evaluation, ExperimentType, signature_fields
from service.evaluation.results import Measure as Value

MIN_TAIL = 10  # resamples beyond each bound of a percentile interval, at the least


@dataclass(frozen=True, slots=True)
class SystemResult:
    """One system of a comparison: the scorer's numbers, their intervals, its tier."""

    system: str
    results: Mapping[ExperimentType, Mapping[str, Value]]
    intervals: Mapping[ExperimentType, Mapping[str, st.Interval]]
    tier: int | None
    reference: bool = False  # shown for scale, not tested (a reference system)
    coverage: Coverage | None = None  # only when it left questions unanswered

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "results": {t.value: dict(m) for t, m in self.results.items()},
            "intervals": {
                t.value: {name: ci.to_json() for name, ci in cis.items()}
                for t, cis in self.intervals.items()
            },
            "tier": self.tier,
            **undefined_resamples(self.intervals),
            **({"reference": True} if self.reference else {}),
            **(self.coverage.to_json() if self.coverage is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class Coverage:
    """How many of the questions compared a system answered: the others had no entry in its
    file (``missing``) or their call failed (``errors``), each scored as an empty answer, so a
    gap in coverage reads as a difference in quality (explore43 F3: compare said nothing)."""

    questions: int
    missing: tuple[str, ...]
    errors: tuple[str, ...]
    made: str = "each is scored as not answered (0)"  # what the profile makes of a missing one
    # stored tasks compared (no file given): said "no answer in its file" (explore47 F8)
    stored: bool = False

    @property
    def answered(self) -> int:
        return self.questions - len(self.missing) - len(self.errors)

    def to_json(self) -> dict[str, int]:
        return {"answered": self.answered, "missing": len(self.missing), "errors": len(self.errors)}

    def warnings(self, system: str) -> list[str]:
        """What ``evaluate`` says of the gaps, said of the system in a comparison."""
        from service.errors import first_ids

        out = []
        of = f"of {self.questions:,} question{'s' if self.questions != 1 else ''}"
        if self.missing:
            have = "has" if len(self.missing) == 1 else "have"
            where = "no answer recorded" if self.stored else "no answer in its file"
            out.append(
                f"{system}: {len(self.missing):,} {of} {have} {where} "
                f"({first_ids(self.missing)}): {self.made}; a gap in coverage reads as a "
                "difference in quality"
            )
        if self.errors:
            out.append(
                f"{system}: the call failed on {len(self.errors):,} {of} "
                f"({first_ids(self.errors)}): each is scored as an empty answer and counted "
                "as an error"
            )
        return out


def coverage_of(ev: Evaluation, etype: ExperimentType, *, stored: bool = False) -> Coverage | None:
    """The :class:`Coverage` of ``ev``'s task of ``etype``; None when it answered them all.
    ``stored``: ``ev`` is a stored task's, not scored from a file given now."""
    from service.evaluation.results import QuestionStatus

    task = ev.tasks.get(etype)
    if task is None:
        return None
    gaps = (QuestionStatus.MISSING, QuestionStatus.ERROR)
    scored = {q.question_id for q in task.questions if q.status in (QuestionStatus.SCORED, *gaps)}
    missing = [q.question_id for q in task.questions if q.status is QuestionStatus.MISSING]
    errors = [q.question_id for q in task.questions if q.status is QuestionStatus.ERROR]
    if not missing and not errors:
        return None
    # as evaluate says it (service.evaluation.runner)
    made = (
        f"each is read as an empty answer, as {ev.profile.title} does"
        if ev.scoring_of(etype).missing_as_empty
        else "each is scored as not answered (0)"
    )
    return Coverage(
        len(scored), tuple(dict.fromkeys(missing)), tuple(dict.fromkeys(errors)), made, stored
    )


@dataclass(frozen=True, slots=True)
class Comparison:
    """The result of :func:`compare`."""

    dataset: str
    profile: str
    signature: str
    seed: int
    resamples: int
    level: float
    systems: tuple[SystemResult, ...]
    ranking: st.Ranking

    def to_json(self) -> dict[str, Any]:
        """The contract (see the module docstring)."""
        return {
            "dataset": self.dataset,
            "profile": self.profile,
            "signature": self.signature,
            "seed": self.seed,
            "resamples": self.resamples,
            "test": self.ranking.test,
            "systems": [s.to_json() for s in self.systems],
            "pairs": [p.to_json() for p in self.ranking.pairs],
            "warnings": list(self.warnings),
            "questions": self.ranking.questions,
        }

    @property
    def warnings(self) -> tuple[str, ...]:
        """What makes these numbers rough: too few resamples for the interval's level, too
        few samples for any pair to be found different (``--resamples 1`` printed a "95 %
        interval" that did not hold the estimate, without a word; explore25 5)."""
        out = []
        tail = self.resamples * (1 - self.level) / 2
        if tail < MIN_TAIL:
            out.append(
                f"{self.resamples:,} bootstrap resamples leave {tail:g} in each tail of a "
                f"{self.level:.0%} interval, fewer than {MIN_TAIL}: its bounds are rough "
                f"(the default is {st.DEFAULT_RESAMPLES:,})"
            )
        r = self.ranking
        if r.samples and r.tested:
            least = 1 / (r.samples + 1)  # the smallest p a sampled test gives
            if least > r.alpha / r.tested:  # Holm's strictest threshold
                out.append(
                    f"with {r.samples:,} samples the test's smallest p-value is {least:.3g}, "
                    f"above the {r.alpha / r.tested:.3g} the first of {r.tested} "
                    "pairs needs: no pair can be found different, so the tiers say nothing"
                )
        most = r.most_differing
        if most is not None and r.tested:
            least = st.least_exact_p(most)
            threshold = r.alpha / r.tested
            if least > threshold:  # explore43 F1: 5 questions, p 0.126 at best, no word
                asked = (
                    " (the paired bootstrap can give smaller p-values on so few questions; "
                    "they do not hold)"
                    if r.test == "bootstrap"
                    else ""
                )
                out.append(
                    f"the systems differ on at most {most:,} of the {r.questions:,} "
                    f"question{'s' if r.questions != 1 else ''} compared, where a paired "
                    f"test's smallest two-sided p-value is 2/2^{most} = {least:.3g}, above "
                    f"the {threshold:.3g} the first of {r.tested} pair"
                    f"{'s' if r.tested != 1 else ''} needs: no pair can be found different, "
                    f"so the tiers say nothing{asked}"
                )
        for s in self.systems:
            if s.coverage is not None:
                out.extend(s.coverage.warnings(s.system))
        if r.questions == 1:
            out.append(
                "one question compared: every bootstrap resample is that question, so each "
                "interval has zero width and says nothing of the uncertainty"
            )
        return tuple(out)


def format_p_value(p: float | None, at_floor: bool = False, *, le: str = "≤ ") -> str:
    """A p-value as the table and the compare page print it: four decimals, or two significant
    digits below 0.0001, where four decimals would print the impossible p = 0; ``at_floor``
    (the smallest p its sampled test gives, ``pAtFloor``): a bound, ``≤ 1.0e-04`` (``le``:
    the sign, ``$\\le$ `` in LaTeX).

    >>> format_p_value(0.88994), format_p_value(1.3552788123878027e-25), format_p_value(None)
    ('0.8899', '1.4e-25', 'n/a')
    >>> format_p_value(1 / 10001, True), format_p_value(3 / 10001, True)
    ('≤ 1.0e-04', '≤ 0.0003')
    """
    if p is None:
        return "n/a"
    shown = f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}"
    return le + shown if at_floor else shown


def compare(
    evaluations: Sequence[Evaluation],
    *,
    measure: str = "macroF1",
    experiment_type: ExperimentType = ExperimentType.QA,
    test: str = "auto",
    seed: int = st.DEFAULT_SEED,
    resamples: int = st.DEFAULT_RESAMPLES,
    samples: int | None = None,
    level: float = st.DEFAULT_LEVEL,
    alpha: float = st.DEFAULT_ALPHA,
    references: Collection[str] = (),
    stored: bool = False,
) -> Comparison:
    """Compare the systems of ``evaluations`` (one dataset, profile and language) on
    ``measure`` of ``experiment_type`` (QA; a sub-experiment's records are scored alike).

    ``resamples`` is the number of bootstrap resamples of the intervals; ``samples`` that of the
    test (default 10,000 shuffles for ``ar``, 1,000 resamples for ``bootstrap``); ``test`` is
    ``auto`` (McNemar for accuracy, else approximate randomisation), ``ar``, ``bootstrap`` or
    ``mcnemar``. ``references``: systems shown with their intervals but neither tested nor
    tiered (reference systems, the upper bound: their pairs moved the others' Holm family), as
    long as two others are left to test. ``stored``: the evaluations are stored tasks' (their
    gaps said as answers not recorded, not as missing from a file).
    """
    _check(
        evaluations,
        measure=measure,
        experiment_type=experiment_type,
        test=test,
        resamples=resamples,
        samples=samples,
        level=level,
    )
    first = evaluations[0]
    systems: list[tuple[str, Evaluation, dict[ExperimentType, st.QuestionTable]]] = []
    for ev in evaluations:
        systems.append((ev.system, ev, question_tables(ev)))
    tested = [name for name, _, _ in systems if name not in references]
    if len(tested) < 2:  # a reference against one system: how far from it, tested
        tested = [name for name, _, _ in systems]
    try:
        ranking = st.rank_systems(
            {name: tables[experiment_type] for name, _, tables in systems if name in tested},
            measure,
            test=test,
            samples=samples,
            seed=seed,
            alpha=alpha,
        )
    except ValueError as err:  # e.g. McNemar asked for graded accuracy
        raise BadRequest(str(err)) from err
    results = tuple(
        sorted(
            (
                SystemResult(
                    system=name,
                    results={t: dict(task.measures) for t, task in ev.tasks.items()},
                    intervals=intervals_of(
                        ev, resamples=resamples, seed=seed, level=level, tables=tables
                    ),
                    tier=ranking.tiers.get(name),
                    reference=name not in tested,
                    coverage=coverage_of(ev, experiment_type, stored=stored),
                )
                for name, ev, tables in systems
            ),
            key=lambda s: _standing(s, measure, experiment_type),
        )
    )
    signature = "|".join(
        (
            first.signature,
            st.interval_signature(resamples=resamples, seed=seed, level=level),
            ranking.signature,
        )
    )
    return Comparison(
        dataset=first.dataset,
        profile=first.profile.name,
        signature=signature,
        seed=seed,
        resamples=resamples,
        level=level,
        systems=results,
        ranking=ranking,
    )


def _standing(result: SystemResult, measure: str, etype: ExperimentType) -> tuple[Any, ...]:
    """The order systems are listed in: by tier, within a tier by the measure compared (best
    first), then by name; no tier or no value last."""
    value = result.results.get(etype, {}).get(measure)
    tier = result.tier
    return (tier is None, tier or 0, value is None, -(value or 0.0), result.system)


def question_tables(ev: Evaluation) -> dict[ExperimentType, st.QuestionTable]:
    """The question table of every task of ``ev``, each under its experiment type's scheme
    (:meth:`~service.evaluation.profiles.Profile.scoring_of`)."""
    return {
        t: st.question_table(task, scheme=ev.scoring_of(t).name) for t, task in ev.tasks.items()
    }


def intervals_of(
    ev: Evaluation,
    *,
    resamples: int = st.DEFAULT_RESAMPLES,
    seed: int = st.DEFAULT_SEED,
    level: float = st.DEFAULT_LEVEL,
    tables: Mapping[ExperimentType, st.QuestionTable] | None = None,
) -> dict[ExperimentType, dict[str, st.Interval]]:
    """A bootstrap interval for every measure of every task of ``ev`` (``evaluate
    --intervals``, and each system of a comparison); ``tables``: its question tables, if made."""
    found = tables or question_tables(ev)
    return {
        t: dict(st.bootstrap_intervals(table, resamples=resamples, level=level, seed=seed))
        for t, table in found.items()
    }


def undefined_resamples(
    found: Mapping[ExperimentType, Mapping[str, st.Interval]],
) -> dict[str, dict[str, dict[str, int]]]:
    """``{"undefinedResamples": {TYPE: {measure: count}}}`` for the intervals with undefined
    resamples, ``{}`` when none has: the JSON key beside ``intervals`` (added only then, so an
    ordinary result's JSON is what it was)."""
    counts = {
        t.value: {m: ci.undefined for m, ci in cis.items() if ci.undefined}
        for t, cis in found.items()
    }
    counts = {t: by_measure for t, by_measure in counts.items() if by_measure}
    return {"undefinedResamples": counts} if counts else {}


def with_intervals(
    ev: Evaluation, *, resamples: int | None = None, seed: int | None = None
) -> Evaluation:
    """``ev`` with the bootstrap interval of every measure of every task, as ``evaluate
    --intervals`` prints them and the graph stores them: ``extra["intervals"]`` (``{TYPE:
    {measure: [low, high]}}``), ``extra["undefinedResamples"]`` (:func:`undefined_resamples`)
    and ``extra["intervalSignature"]`` (the signature with the interval's method, resamples,
    seed and level)."""
    from dataclasses import replace

    options = {
        "resamples": st.DEFAULT_RESAMPLES if resamples is None else resamples,
        "seed": st.DEFAULT_SEED if seed is None else seed,
    }
    found = intervals_of(ev, resamples=options["resamples"], seed=options["seed"])
    return replace(
        ev,
        extra={
            **ev.extra,
            "intervals": {
                t.value: {m: ci.to_json() for m, ci in cis.items()} for t, cis in found.items()
            },
            **undefined_resamples(found),
            "intervalSignature": f"{ev.signature}|{st.interval_signature(**options)}",
        },
    )


def _versions_apart(ev: Evaluation, first: Evaluation) -> str:
    """What to do about two signatures: re-score the older run where they are one profile's
    versions (a 1.1.0 task and its 1.2.0 re-scoring were told "compare under one profile",
    which they were; explore30 F3), else compare under one profile (and KB)."""
    versions = [signature_fields(e.signature).get("v") for e in (ev, first)]
    if ev.profile.name == first.profile.name and versions[0] != versions[1]:
        return (
            f"two versions of profile {ev.profile.name} ({versions[0]} and {versions[1]}): "
            "re-score the older run under the newer version to compare them"
        )
    return "compare under one profile (and KB)"


def _kb_apart(one: Evaluation, other: Evaluation) -> str:
    """Why two signatures differing in their KB alone cannot be compared: answers computed
    on a KB (queries run, a Text2SPARQL service) depend on it; answers given as values (an
    uploaded result set) came from a KB the run does not know."""
    same = [p for p in one.signature.split("|") if not p.startswith("kb:")]
    if same != [p for p in other.signature.split("|") if not p.startswith("kb:")]:
        return ""
    kbs = [e.signature.rsplit("|kb:", 1)[-1] for e in (one, other)]
    if not {"no", "none"} & set(kbs):  # queries run on two KBs, neither a result set
        return (
            f": the two ran their queries on different knowledge bases ({kbs[0]} and "
            f"{kbs[1]}), so their answers are not compared: run both on one KB"
        )
    return (
        ": the two differ in the KB alone; answers computed here on a KB (queries run on "
        "it, a Text2SPARQL service) depend on that KB, and answers given as values (an "
        "uploaded result set) name none, so they are not compared with each other: compare "
        "queries with queries run on one KB, result sets with result sets"
    )


def _check(
    evaluations: Sequence[Evaluation],
    *,
    measure: str,
    experiment_type: ExperimentType,
    test: str,
    resamples: int,
    level: float,
    samples: int | None = None,
) -> None:
    """Refuse, naming the culprit, anything that would make the comparison unfair."""
    if not evaluations:
        raise BadRequest("nothing to compare: give at least one system's answers")
    first = evaluations[0]
    seen: set[str] = set()
    for ev in evaluations:
        where = f"system {ev.system!r}"
        if ev.dataset != first.dataset:
            raise BadRequest(f"{where} was scored on {ev.dataset}, not {first.dataset}")
        if ev.signature != first.signature:
            raise BadRequest(
                f"{where} was scored as {ev.signature}, not {first.signature}: "
                + _versions_apart(ev, first)
                + _kb_apart(ev, first)
            )
        if ev.language != first.language:
            raise BadRequest(f"{where} was scored in {ev.language!r}, not {first.language!r}")
        if ev.system in seen:
            raise BadRequest(
                f"two systems are called {ev.system!r}; give each answer file its own name"
            )
        seen.add(ev.system)
        task = ev.tasks.get(experiment_type)
        if task is None or measure not in task.measures:
            raise BadRequest(
                f"{where} has no {experiment_type.value} {measure}; compare on a measure it reports"
            )
    if measure in st.NO_INTERVAL:
        raise BadRequest(f"{measure} is a count of the run; compare on a quality measure")
    if test != "auto" and test not in st.TESTS:
        raise BadRequest(f"unknown test {test!r}; known: auto, {', '.join(st.TESTS)}")
    if resamples < 1:
        raise BadRequest(f"resamples must be at least 1, not {resamples}")
    if samples is not None and samples < 1:  # 0 ran the default without a word (explore43 F5)
        raise BadRequest(f"samples must be at least 1, not {samples}")
    if not 0 < level < 1:
        raise BadRequest(f"the interval level must lie between 0 and 1, not {level}")
