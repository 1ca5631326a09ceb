"""The experiment page's charts and intervals, computed from the stored per-question results.

The page's numbers come from the task observations; their intervals are recomputed here from
the per-question observations of the same graph by :mod:`service.evaluation.statistics`
(percentile bootstrap, its default resamples and seed, so the page shows what ``compare`` would
print). A stored result keeps the counts, P/R/F and status of each question but not the sizes
of the compared sets; those are read back as ``n_system = tp + fp`` and ``n_gold = tp + fn``,
which is exact for set matching (exact, fair, qald6) and keeps what the aggregates use of
them otherwise (whether a side is empty: Macro F1 QALD); a graded profile's credit (poleval) is
its tp. Measures that need what is not stored (confidences, ranks) are not recomputed: only
the intervals stored with the task give theirs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.evaluation.results import COUNT_MEASURES
from service.graph.reader import StoredResult, stored_results
from service.graph.uris import GQA
from service.web.charts import BarChart, Scatter, Series
from service.web.pages import ExperimentPage, TaskRow, local, measure_label

CHART_MEASURES = COUNT_MEASURES  # what stored per-question results recompute
F1s = Mapping[str, Mapping[str, float | None]]  # task URI -> question URI -> F1 (None: none)
MAX_SCATTER_POINTS = 5000  # more questions than this: no scatter (the page would grow too much)


Bounds = dict[str, tuple[float, float]]  # measure -> its interval
Notes = dict[str, str]  # measure -> what is said of the resamples it was undefined on


def intervals(
    task: TaskRow, results: Sequence[StoredResult], *, resamples: int | None = None
) -> tuple[Bounds, Notes]:
    """Bootstrap intervals of ``task``'s measures: every one stored with it (the confidence
    and rank measures too), else (experiments recorded before intervals were) those of the
    chart measures recomputed from its stored question results (empty when they cannot be:
    an unknown profile, no scored question); and the note of each measure undefined on
    resamples (left out of its bounds, or too many for bounds)."""
    if task.intervals and resamples is None:
        bounds = {
            m: (low, high)
            for m, (low, high) in task.intervals.items()
            if low is not None and high is not None
        }
        return bounds, {m: note for m in task.intervals if (note := task.interval_note(m))}
    from service.evaluation.results import ExperimentType, TaskScores
    from service.graph.reader import scoring_of, stored_records

    known = scoring_of(task.profile, task.experiment_type, task.profile_version)
    if known is None or not results:
        return {}, {}
    scheme, graded = known
    records = stored_records(results, graded=graded)
    measures = {m: task.measures[m] for m in CHART_MEASURES if m in task.measures}
    if not measures:
        return {}, {}
    from service.evaluation import statistics

    try:
        etype = ExperimentType(task.experiment_type)
    except ValueError:
        return {}, {}
    table = statistics.question_table(TaskScores(etype, measures, tuple(records)), scheme=scheme)
    found = statistics.bootstrap_intervals(
        table,
        measures=[m for m in measures if m in table.measures],
        resamples=resamples or statistics.DEFAULT_RESAMPLES,
    )
    bounds = {
        name: (ci.low, ci.high)
        for name, ci in found.items()
        if ci.low is not None and ci.high is not None
    }
    return bounds, {name: ci.note for name, ci in found.items() if ci.note}


@dataclass(frozen=True, slots=True)
class Figures:
    """What the experiment page draws for its QA tasks."""

    measures: BarChart | None
    intervals: Mapping[str, Mapping[str, tuple[float, float]]]  # task URI -> measure -> CI
    answer_types: BarChart | None
    answer_type_rows: tuple[tuple[str, tuple[tuple[float | None, int], ...]], ...]
    scatter: Scatter | None
    scatter_systems: tuple[str, ...]  # labels of the systems one may pick for the scatter
    scatter_counts: tuple[tuple[float, float, int], ...]  # (x, y, questions), for the table
    dimensions: tuple[str, ...] = ()  # the breakdown's: those the questions have values in
    # task URI -> measure -> what is said of the resamples it was undefined on
    interval_notes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


def _qa_rows(page: ExperimentPage) -> list[TaskRow]:
    return page.tasks_of("QA")


def chart_labels(rows: Sequence[TaskRow]) -> dict[str, str]:
    """Each QA task's name in the charts (by task URI): its system, with its languages where
    the rows have several ("FRANZ (en,es)"): a run in en, es and en,es has three tasks per
    system, and named by system alone the legend repeated names and the scatter plotted a
    system against itself."""
    several = len({r.language_tag for r in rows}) > 1
    return {
        r.uri: f"{r.system_label} ({r.language_tag})" if several else r.system_label for r in rows
    }


def measures_chart(
    page: ExperimentPage, found: Mapping[str, Mapping[str, tuple[float, float]]]
) -> BarChart | None:
    rows = _qa_rows(page)
    names = [m for m in CHART_MEASURES if any(r.measures.get(m) is not None for r in rows)]
    if not rows or not names:
        return None
    with_ci = any(found.get(r.uri) for r in rows)
    labels = chart_labels(rows)
    series = tuple(
        Series(
            labels[r.uri],
            tuple(_as_float(r.measures.get(m)) for m in names),
            tuple(found.get(r.uri, {}).get(m) for m in names),
        )
        for r in rows
    )
    level = " with 95 % bootstrap intervals (1,000 resamples over questions)" if with_ci else ""
    return BarChart(
        ident="chart-measures",
        title=f"QA measures of each system{level}",
        description=(
            f"Bar chart of {', '.join(measure_label(m) for m in names)} for "
            f"{', '.join(labels.values())}{level}. The numbers are in the QA "
            "results table."
        ),
        categories=tuple(measure_label(m) for m in names),
        series=series,
        axis_label="score, 0 to 1",
    )


def _as_float(value: float | int | None) -> float | None:
    return None if value is None else float(value)


def answer_type_chart(
    page: ExperimentPage, f1s: F1s, answer_types: Mapping[str, str]
) -> tuple[BarChart | None, tuple[tuple[str, tuple[tuple[float | None, int], ...]], ...]]:
    """The experiment page's :func:`answer_type_bars` of its QA tasks' stored results."""
    rows = _qa_rows(page)
    labels = chart_labels(rows)
    systems = [(labels[r.uri], f1s.get(r.uri, {})) for r in rows]
    return answer_type_bars("chart-answer-types", systems, answer_types)


def answer_type_bars(
    ident: str,
    systems: Sequence[tuple[str, Mapping[str, float | None]]],
    answer_types: Mapping[str, str],
) -> tuple[BarChart | None, tuple[tuple[str, tuple[tuple[float | None, int], ...]], ...]]:
    """Macro F1 (mean per-question F1) of each system per answer type of the questions, and
    the same as table rows: (answer type, ((macro F1, questions) per system)). ``systems``:
    (label, per-question F1 by question key); ``answer_types``: answer type by question key."""
    types = sorted({answer_types[q] for _, f1s in systems for q in f1s if q in answer_types})
    if not systems or not types:
        return None, ()
    table: list[tuple[str, tuple[tuple[float | None, int], ...]]] = []
    per_system: list[list[float | None]] = [[] for _ in systems]
    for kind in types:
        cells = []
        for k, (_, f1s) in enumerate(systems):
            found = [f for q, f in f1s.items() if f is not None and answer_types.get(q) == kind]
            value = sum(found) / len(found) if found else None
            cells.append((value, len(found)))
            per_system[k].append(value)
        table.append((kind, tuple(cells)))
    labels = [label for label, _ in systems]
    chart = BarChart(
        ident=ident,
        title="Macro F1 per answer type of the questions",
        description=(
            f"Bar chart of the mean per-question F1 of {', '.join(labels)} on the questions of "
            f"each answer type ({', '.join(types)}). The numbers are in the table below the chart."
        ),
        categories=tuple(types),
        series=tuple(Series(label, tuple(v)) for label, v in zip(labels, per_system, strict=True)),
        axis_label="macro F1, 0 to 1",
    )
    return chart, tuple(table)


def scatter(
    a: TaskRow, b: TaskRow, f1s: F1s, labels: Mapping[str, str]
) -> tuple[Scatter | None, tuple[tuple[float, float, int], ...]]:
    """Per-question F1 of two systems on the questions both have an F1 for (``labels``: the
    tasks' names, :func:`chart_labels`)."""
    left, right = f1s.get(a.uri, {}), f1s.get(b.uri, {})
    name_a, name_b = labels[a.uri], labels[b.uri]
    points = tuple(
        (x, y)
        for q in sorted(left)
        if (x := left[q]) is not None and (y := right.get(q)) is not None
    )
    if not points or len(points) > MAX_SCATTER_POINTS:
        return None, ()
    counts: dict[tuple[float, float], int] = defaultdict(int)
    for x, y in points:
        counts[(round(x, 3), round(y, 3))] += 1
    better_a = sum(1 for x, y in points if x > y)
    better_b = sum(1 for x, y in points if y > x)
    chart = Scatter(
        ident="chart-scatter",
        title=f"Per-question F1: {name_a} against {name_b}",
        description=(
            f"One circle per distinct pair of F1 values over {len(points)} questions, larger "
            f"for more questions. {name_a} is better on {better_a} questions, "
            f"{name_b} on {better_b}, they tie on {len(points) - better_a - better_b}. "
            "The counts are in the table below the chart."
        ),
        x_label=name_a,
        y_label=name_b,
        points=points,
    )
    return chart, tuple((x, y, n) for (x, y), n in sorted(counts.items()))


def answer_types_of(store: Any, questions: Iterable[str]) -> dict[str, str]:
    """Answer type (``resource``, ``number``…) of each question URI that has one in a named
    graph of ``store``: one query (on a remote store one request, where a lookup per question
    was a few hundred)."""
    wanted = " ".join(f"<{q}>" for q in questions)
    if not wanted:
        return {}
    rows = store.query(
        f"SELECT ?q ?t WHERE {{ VALUES ?q {{ {wanted} }} GRAPH ?g {{ ?q <{GQA}answerType> ?t }} }}"
    )
    return {q.value: local(t.value).removeprefix("answerType-") for q, t in rows}


def figures(
    page: ExperimentPage,
    f1s: F1s,
    answer_types: Mapping[str, str],
    *,
    pick: tuple[str | None, str | None] = (None, None),
    results: Mapping[str, Sequence[StoredResult]] | None = None,
) -> Figures:
    """Every figure of the experiment page, from the per-question F1 of its QA tasks (task
    URI -> question URI -> F1, :func:`~service.graph.reader.stored_f1s`); ``results``: the
    whole stored results of the tasks whose intervals are not stored (recomputed from them).
    ``pick`` names the two tasks of the scatter (:func:`chart_labels`; default: the best by
    macro F1 and the best other system in its languages)."""
    rows = _qa_rows(page)
    shown = {r.uri: intervals(r, (results or {}).get(r.uri, ())) for r in rows}
    found = {uri: bounds for uri, (bounds, _) in shown.items()}
    labels = chart_labels(rows)
    by_label = {labels[r.uri]: r for r in rows}
    chosen = [by_label.get(name) if name else None for name in pick]
    a = chosen[0] or (rows[0] if rows else None)
    others = [r for r in rows if a is not None and r.system != a.system]
    alike = [r for r in others if a is not None and r.language_tag == a.language_tag]
    b = chosen[1] or next(iter(alike or others or [r for r in rows if r is not a]), None)
    plot, counts = scatter(a, b, f1s, labels) if a is not None and b is not None else (None, ())
    chart, table = answer_type_chart(page, f1s, answer_types)
    return Figures(
        measures=measures_chart(page, found),
        intervals=found,
        answer_types=chart,
        answer_type_rows=table,
        scatter=plot,
        scatter_systems=tuple(by_label),
        scatter_counts=counts,
        interval_notes={uri: notes for uri, (_, notes) in shown.items() if notes},
    )


def stored_slices(
    experiment_id: str, page: ExperimentPage, dimensions: Sequence[str]
) -> dict[tuple[str, str, str], dict[str, Any]]:
    """The QA measures of each evaluation of a stored experiment per value of ``dimensions``
    (``evaluation.slices``), from its stored per-question results and the questions' stored
    features; keyed by (system name, language, profile) as the API's evaluations are."""
    from service.evaluation.slices import sliced
    from service.graph.reader import question_values, stored_evaluation
    from service.web.state import services

    storage = services().storage
    public = storage.experiments.is_public(experiment_id)
    store = storage.public if public else storage.private
    graph = storage.uris.experiment_graph(experiment_id)
    tasks = [t for t in page.tasks if t.experiment_type == "QA"]
    results = stored_results(store, graph, [t.uri for t in tasks])
    questions = {r.question for found in results.values() for r in found}
    values = question_values(storage.public, questions, storage.uris)
    if not public:  # an uploaded dataset's questions are described in the experiment's graph
        for qid, found in question_values(store, questions, storage.uris).items():
            values.setdefault(qid, {}).update(found)
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for task in tasks:
        key = (task.system_name, task.language_tag, task.profile)
        if key not in out:
            evaluation = stored_evaluation(task, results.get(task.uri, []), storage.uris)
            out[key] = sliced(evaluation, values, dimensions)
    return out
