"""Honest comparison: bootstrap confidence intervals and paired significance tests, vectorised.

A task's per-question records become a column table (:func:`question_table`). Every aggregate
measure of every scoring scheme (:mod:`service.evaluation.scoring`) and the confidence and rank
measures (:mod:`service.evaluation.confidence`) has a *twin* here that computes it from the
columns for many resamples at once: a resample is one row of an index matrix (which rows of the
table, in which order), and the twin maps an index matrix of shape (resamples, questions) to one
value per row, NaN where the measure is undefined. On the identity resample every twin equals
the scorer's point estimate (up to the order of floating-point summation); the tests hold the
two computations together for every profile on real data.

The counts ``questions``, ``skippedQuestions`` and ``errorCount`` describe the run rather than a
sample of questions, and ``meanRuntime`` is a property of the service's calls: none of them
gets an interval or a test.

* Intervals: percentile bootstrap over questions (Efron & Tibshirani 1993, ch. 13), default
  1,000 resamples at 95 %. Resamples on which a measure is undefined are counted; up to one
  tail's worth ((1 − level)/2 of them, 25 of 1,000) are left out of the percentiles, more and
  the measure gets no bounds: the undefined ones could lie anywhere, so a percentile bound is
  not determined (Macro F1 QALD of a run with one right answer in 150 was undefined on 37 % of
  resamples, and the bounds of the rest started at the estimate).
* Paired tests on the same questions: approximate randomisation (Noreen 1989; Yeh 2000 for
  F-type measures: whole per-question records are swapped between the systems and the measure
  recomputed), two-sided, p = (count + 1)/(R + 1), default R = 10,000; McNemar's exact binomial
  test on the discordant questions for exact-match accuracy; a paired bootstrap on request
  (the differences centred on the observed one, Efron & Tibshirani 1993 §16.4). A shuffle or
  resample on which the difference is undefined counts as at least as extreme (conservative).
* Holm's step-down correction across the pairs; tiers: the best system and every system not
  significantly worse than it (Holm-adjusted p ≥ alpha) form tier 1, then the same on the rest.

Randomness: a fresh ``numpy.random.Generator(PCG64(seed))`` for each system's intervals and for
each pair's test, so a number never depends on which other systems were compared, and the same
seed gives byte-identical output. The method, resamples and seed belong to a result's signature
(:func:`interval_signature`, :func:`test_signature`), sacrebleu style.

>>> from service.evaluation.results import ExperimentType, QuestionScore, TaskScores
>>> right = QuestionScore("1", tp=1, fp=0, fn=0, precision=1.0, recall=1.0, f1=1.0,
...                       n_system=1, n_gold=1)
>>> wrong = QuestionScore("2", tp=0, fp=1, fn=1, precision=0.0, recall=0.0, f1=0.0,
...                       n_system=1, n_gold=1)
>>> task = TaskScores(ExperimentType.QA, {"macroF1": 0.75}, (right, right, right, wrong))
>>> ci = bootstrap_intervals(question_table(task, scheme="standard"), seed=1)["macroF1"]
>>> ci.estimate, ci.low <= 0.75 <= ci.high
(0.75, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, isnan
from typing import Any

import numpy as np
import numpy.typing as npt

from service.evaluation.measures import Measure
from service.evaluation.results import Measure as Value
from service.evaluation.results import QuestionScore, TaskScores, undefined_resamples_note
from service.evaluation.scoring import SCHEMES

FloatArray = npt.NDArray[np.float64]
IndexArray = npt.NDArray[np.intp]

DEFAULT_SEED = 12345
DEFAULT_RESAMPLES = 1000  # bootstrap intervals (and the paired bootstrap)
DEFAULT_SHUFFLES = 10000  # approximate randomisation
DEFAULT_LEVEL = 0.95
DEFAULT_ALPHA = 0.05

INTERVAL_METHOD = "bootstrap-percentile"
TESTS: dict[str, str] = {
    "ar": "approximate randomisation (two-sided, p = (count + 1)/(R + 1))",
    "bootstrap": "paired bootstrap (centred, two-sided, p = (count + 1)/(B + 1))",
    "mcnemar": "McNemar's exact binomial test on the discordant questions",
}
"""The paired tests by the short name the signature and the JSON ``test`` key use."""

NO_INTERVAL: tuple[str, ...] = ("questions", "skippedQuestions", "errorCount", "meanRuntime")
"""Reported measures that get no interval: counts of the run, and the calls' mean runtime."""

# The random stream is drawn in blocks of this many resamples whatever the chunk a computation
# works on, so the numbers do not depend on memory-driven chunking. Changing it changes every
# interval and p-value for a given seed.
_RNG_BLOCK = 64
_CHUNK_ELEMENTS = 1 << 18  # index-matrix entries per chunk: bounds memory, stays in cache
_TIE = 1e-12  # a shuffled difference this close to the observed one counts as equal


# -- the column table ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class QuestionTable:
    """A task's scored questions as columns (one row per question, dataset order).

    ``measures`` are the reported measures this table can recompute (in the task's order);
    ``point`` the scorer's values for them.
    """

    scheme: str
    question_ids: tuple[str, ...]
    columns: Mapping[str, FloatArray]
    measures: tuple[str, ...]
    point: Mapping[str, Value]

    def __len__(self) -> int:
        return len(self.question_ids)


_EVAL_K = {"correct": 1.0, "repeated": 0.0, "wrong": -1.0}  # confidence.py's eval(r)


def _need(record: QuestionScore, name: str) -> Any:
    value = getattr(record, name)
    if value is None:
        raise ValueError(
            f"question {record.question_id}: the record has no {name}; statistics need the "
            "records service.evaluation.evaluate produces"
        )
    return value


def _rank_columns(records: Sequence[QuestionScore]) -> dict[str, list[float]]:
    """Per-question terms of the confidence and rank measures, computed as confidence.py does
    (an empty answer is one NIL item, correct iff the gold set is empty)."""
    names = (
        "score",
        "top",
        "k_term",
        "k1_term",
        "items",
        "right",
        "rr",
        "hits1",
        "hits5",
        "hits10",
    )
    out: dict[str, list[float]] = {k: [] for k in names}
    for rec in records:
        n_gold = _need(rec, "n_gold")
        if rec.verdicts:
            items = tuple(str(v) for v in rec.verdicts)  # Verdict is a StrEnum
        elif _need(rec, "n_system") > 0:
            raise ValueError(f"question {rec.question_id}: the record has no verdicts")
        else:
            items = ("correct" if n_gold == 0 else "wrong",)
        score = rec.confidence if rec.confidence is not None else 0.0
        top_right = items[0] == "correct"
        first = next((i for i, v in enumerate(items, start=1) if v == "correct"), None)
        out["score"].append(score)
        out["top"].append(1.0 if top_right else 0.0)
        denominator = max(n_gold or 1, len(items))
        out["k_term"].append(sum(score * _EVAL_K[v] for v in items) / denominator)
        out["k1_term"].append(score * (1.0 if top_right else -1.0))
        out["items"].append(float(len(items)))
        out["right"].append(float(sum(1 for v in items if v == "correct")))
        out["rr"].append(1.0 / first if first is not None else 0.0)
        for k in (1, 5, 10):
            out[f"hits{k}"].append(1.0 if first is not None and first <= k else 0.0)
    return out


def question_table(task: TaskScores, *, scheme: str) -> QuestionTable:
    """The column table of ``task``'s scored questions under the scoring scheme ``scheme``
    (``standard``, ``set``, ``qald6`` or ``qald-legacy``: the name of the task's
    ``profile.scoring_of(experiment_type)``)."""
    if scheme not in _TWINS:
        raise ValueError(f"unknown scoring scheme {scheme!r}; known: {', '.join(_TWINS)}")
    rows = [r for r in task.questions if r.precision is not None]
    cols: dict[str, list[float]] = {k: [] for k in _BASE_COLUMNS}
    graded = bool(rows) and all(r.credit is not None for r in rows)
    for r in rows:
        tp, fp, fn = _need(r, "tp"), _need(r, "fp"), _need(r, "fn")
        n_system, n_gold = _need(r, "n_system"), _need(r, "n_gold")
        p, rc, f = _need(r, "precision"), _need(r, "recall"), _need(r, "f1")
        done = 1.0 if r.processed else 0.0
        cols["tp"].append(tp)
        cols["fp"].append(fp)
        cols["fn"].append(fn)
        cols["n_gold"].append(n_gold)
        cols["precision"].append(p)
        cols["recall"].append(rc)
        cols["f1"].append(f)
        cols["processed"].append(done)
        cols["done_tp"].append(tp * done)
        cols["done_system"].append(n_system * done)
        cols["done_gold"].append(n_gold * done)
        # measures.qald_prf: an empty answer to a question with gold answers is P = 1, R = 0
        empty = n_system == 0 and n_gold > 0 and (r.processed or scheme not in _QALD_ANSWERED)
        cols["qald_p"].append(1.0 if empty else p)
        cols["qald_r"].append(0.0 if empty else rc)
        # measures.accuracy: the credit of graded profiles, else the exact-match indicator
        exact = 1.0 if p == 1 and rc == 1 else 0.0
        cols["accuracy"].append((r.credit or 0.0) if graded else exact)
    extra = _CONFIDENCE_TWINS | _RANK_TWINS
    if any(n in extra for n in task.measures):
        cols.update(_rank_columns(rows))
    known = _TWINS[scheme] | extra
    names = tuple(n for n in task.measures if n in known)
    return QuestionTable(
        scheme=scheme,
        question_ids=tuple(r.question_id for r in rows),
        columns={k: np.asarray(v, dtype=np.float64) for k, v in cols.items()},
        measures=names,
        point={n: task.measures[n] for n in names},
    )


# the schemes whose Macro F1 QALD takes a question not answered as no empty answer
# (``Scoring.qald_answered_only``)
_QALD_ANSWERED = frozenset(name for name, s in SCHEMES.items() if s.qald_answered_only)

_BASE_COLUMNS = (
    "tp",
    "fp",
    "fn",
    "n_gold",
    "precision",
    "recall",
    "f1",
    "processed",
    "done_tp",
    "done_system",
    "done_gold",
    "qald_p",
    "qald_r",
    "accuracy",
)


def concatenated(a: QuestionTable, b: QuestionTable) -> QuestionTable:
    """``a``'s rows then ``b``'s (for paired tests: row i of a and row n + i of b are the
    same question); both must hold the same questions in the same order."""
    if a.scheme != b.scheme:
        raise ValueError(f"paired tests need one scoring scheme: {a.scheme} vs {b.scheme}")
    if a.question_ids != b.question_ids:
        raise ValueError(
            f"paired tests need the same questions in the same order: {len(a)} questions vs "
            f"{len(b)}" + ("" if len(a) != len(b) else " (the ids differ)")
        )
    keys = [k for k in a.columns if k in b.columns]
    return QuestionTable(
        scheme=a.scheme,
        question_ids=a.question_ids + b.question_ids,
        columns={k: np.concatenate([a.columns[k], b.columns[k]]) for k in keys},
        measures=tuple(n for n in a.measures if n in b.measures),
        point={},
    )


# -- the twins: every aggregate over an index matrix ---------------------------------------------


class _Sample:
    """The table's columns gathered by an index matrix, each gather and sum done once."""

    def __init__(self, columns: Mapping[str, FloatArray], idx: IndexArray) -> None:
        self._columns = columns
        self.idx = idx
        self.n = idx.shape[1]
        self._taken: dict[str, FloatArray] = {}
        self._sums: dict[str, FloatArray] = {}

    def take(self, name: str) -> FloatArray:
        got = self._taken.get(name)
        if got is None:
            got = self._taken[name] = self._columns[name][self.idx]
        return got

    def sum(self, name: str) -> FloatArray:
        got = self._sums.get(name)
        if got is None:
            # a gathered matrix is kept only when a twin asked for it: a sum alone needs no
            # copy kept alive (freed memory is reused, fresh pages cost more than the gather)
            whole = self._taken.get(name)
            if whole is None:
                whole = self._columns[name][self.idx]
            got = self._sums[name] = whole.sum(axis=1)
        return got

    def mean(self, name: str) -> FloatArray:
        return self.sum(name) / self.n


Twin = Callable[["_Sample"], FloatArray]


def _ratio(a: FloatArray, b: FloatArray | float) -> FloatArray:
    """a / b, 0 where b is 0 (evaluation.rb: "if denominator == 0 then 0")."""
    b_arr = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
    return np.divide(a, b_arr, out=np.zeros_like(a), where=b_arr != 0)


def _fscore(p: FloatArray, r: FloatArray) -> FloatArray:
    """scoring.fscore: 2PR/(P+R), 0 when both are 0."""
    s = p + r
    return np.divide(2 * p * r, s, out=np.zeros_like(s), where=s != 0)


def _standard_micro(s: _Sample) -> tuple[FloatArray, FloatArray, FloatArray]:
    """scoring.standard_prf on the summed counts."""
    tp, fp, fn = s.sum("tp"), s.sum("fp"), s.sum("fn")
    none = tp == 0
    perfect = (none & (fp == 0) & (fn == 0)).astype(np.float64)
    p = np.where(none, perfect, _ratio(tp, tp + fp))
    r = np.where(none, perfect, _ratio(tp, tp + fn))
    return p, r, np.where(none, perfect, _fscore(p, r))


def _mean_of(column: str) -> Twin:
    """The mean of a per-question column (macro averages, accuracy, K, K1, MRR, Hits@k)."""
    return lambda s: s.mean(column)


def _macro_f1_qald(s: _Sample) -> FloatArray:
    mp, mr = s.mean("qald_p"), s.mean("qald_r")
    return np.where(mp + mr == 0, np.nan, _fscore(mp, mr))


def _legacy_macro_f1(s: _Sample) -> FloatArray:
    """LegacyScoring: 0 when either mean is 0, else 2RP/(P+R) in the script's order."""
    p, r = s.mean("precision"), s.mean("recall")
    zero = (p == 0) | (r == 0)
    return np.divide(2 * r * p, p + r, out=np.zeros_like(p), where=~zero)


def _qald6(scope: str, average: str, base: str) -> Twin:
    """Qald6Scoring: micro P = Σcorrect/Σ|user| and R = Σcorrect/Σ|gold|, macro P and R the
    means, F the F of its P and R, over all questions or (``processed``) the processed ones."""

    def twin(s: _Sample) -> FloatArray:
        n = s.sum("processed") if scope == "processed" else float(s.n)
        gold = s.sum("done_gold") if scope == "processed" else s.sum("n_gold")
        if average == "micro":
            p, r = _ratio(s.sum("done_tp"), s.sum("done_system")), _ratio(s.sum("done_tp"), gold)
        else:
            p, r = _ratio(s.sum("precision"), n), _ratio(s.sum("recall"), n)
        if base == "precision":
            return p
        return r if base == "recall" else _fscore(p, r)

    return twin


def _cws(s: _Sample) -> FloatArray:
    """TREC CWS: questions by confidence, highest first, ties in the resample's order."""
    order = np.argsort(-s.take("score"), axis=1, kind="stable")
    right = np.take_along_axis(s.take("top"), order, axis=1)
    ranks = np.arange(1, s.n + 1, dtype=np.float64)
    return (np.cumsum(right, axis=1) / ranks).sum(axis=1) / s.n


def _pearson(s: _Sample) -> FloatArray:
    """Pearson's r over every answer item (confidence, correct): each question contributes
    ``items`` items at its confidence, ``right`` of them correct; centred sums (two-pass).
    Undefined with fewer than two items or a constant variable."""
    score, items, right = s.take("score"), s.take("items"), s.take("right")
    n = s.sum("items")
    mx = (items * score).sum(axis=1) / n
    my = s.sum("right") / n
    dx = score - mx[:, None]
    sxx = (items * dx * dx).sum(axis=1)
    syy = (right * (1 - my[:, None]) ** 2 + (items - right) * my[:, None] ** 2).sum(axis=1)
    sxy = (dx * (right - items * my[:, None])).sum(axis=1)
    constant = (score.max(axis=1) == score.min(axis=1)) | (s.sum("right") == 0) | (my == 1)
    bad = constant | (n < 2) | (sxx == 0) | (syy == 0)
    out = np.full(n.shape, np.nan)
    np.divide(sxy, np.sqrt(sxx * syy), out=out, where=~bad)
    return out


_COMMON: dict[str, Twin] = {
    "macroF1QALD": _macro_f1_qald,
    "accuracy": _mean_of("accuracy"),
}
_STANDARD_MICRO: dict[str, Twin] = {
    "microPrecision": lambda s: _standard_micro(s)[0],
    "microRecall": lambda s: _standard_micro(s)[1],
    "microF1": lambda s: _standard_micro(s)[2],
}
_STANDARD: dict[str, Twin] = {
    **_STANDARD_MICRO,
    "macroPrecision": _mean_of("precision"),
    "macroRecall": _mean_of("recall"),
    "macroF1": _mean_of("f1"),
    **_COMMON,
}
_QALD6: dict[str, Twin] = {
    Measure(base, average=average, scope=scope).name: _qald6(scope, average, base)
    for scope in ("all", "processed")
    for average in ("micro", "macro")
    for base in ("precision", "recall", "f1")
} | _COMMON
_TWINS: dict[str, dict[str, Twin]] = {
    "standard": _STANDARD,
    "standard-answered": _STANDARD,  # another per-question rule, the standard aggregations
    "standard-answered+qald": _STANDARD,  # and Macro F1 QALD's column by _QALD_ANSWERED
    "set": _STANDARD,  # TEXT2SPARQL'25: another per-question rule, the standard aggregations
    "set+qald": _STANDARD,
    "qald6": _QALD6,
    "qald6+qald": _QALD6,  # Macro F1 QALD's column by _QALD_ANSWERED
    "qald-legacy": {
        **_STANDARD_MICRO,
        "macroPrecision": _mean_of("precision"),
        "macroRecall": _mean_of("recall"),
        "macroF1": _legacy_macro_f1,
        **_COMMON,
    },
}
_CONFIDENCE_TWINS: dict[str, Twin] = {
    "cws": _cws,
    "k1": _mean_of("k1_term"),
    "k": _mean_of("k_term"),
    "r": _pearson,
}
_RANK_TWINS: dict[str, Twin] = {
    "mrr": _mean_of("rr"),
    **{f"hitsAt{k}": _mean_of(f"hits{k}") for k in (1, 5, 10)},
}
ITEM_MEASURES: tuple[str, ...] = (*_CONFIDENCE_TWINS, *_RANK_TWINS)
"""Measures of each answer's items (verdicts, confidence, rank), which per-question counts do
not give: stored runs are compared on them from the answer files they kept."""


def _twin(table: QuestionTable, name: str) -> Twin:
    for group in (_TWINS[table.scheme], _CONFIDENCE_TWINS, _RANK_TWINS):
        if name in group:
            return group[name]
    if name in NO_INTERVAL:
        raise ValueError(f"{name} is a count of the run: it has no interval and no test")
    raise ValueError(
        f"no resampled computation of {name!r} under the {table.scheme} scheme; "
        f"this table has: {', '.join(table.measures)}"
    )


def measure_values(
    table: QuestionTable, names: Sequence[str], idx: IndexArray
) -> dict[str, FloatArray]:
    """Each measure in ``names`` on every row of the index matrix ``idx`` (NaN: undefined)."""
    twins = {name: _twin(table, name) for name in names}
    sample = _Sample(table.columns, idx)
    return {name: twin(sample) for name, twin in twins.items()}


def point_values(table: QuestionTable, names: Sequence[str] | None = None) -> dict[str, Value]:
    """The measures on the identity resample (``None``: undefined), for checking the twins."""
    chosen = list(table.measures if names is None else names)
    if not len(table):
        return dict.fromkeys(chosen)
    identity = np.arange(len(table), dtype=np.intp)[None, :]
    return {k: _scalar(v[0]) for k, v in measure_values(table, chosen, identity).items()}


def _scalar(value: np.floating[Any] | float) -> float | None:
    out = float(value)
    return None if isnan(out) else out


# -- random index matrices -----------------------------------------------------------------------


def _generator(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def _chunks(total: int, width: int) -> Iterator[int]:
    """Chunk sizes (multiples of the RNG block) covering ``total`` resamples of ``width``."""
    per = max(1, _CHUNK_ELEMENTS // max(1, width * _RNG_BLOCK)) * _RNG_BLOCK
    done = 0
    while done < total:
        size = min(per, total - done)
        yield size
        done += size


def _draw(rng: np.random.Generator, rows: int, make: Callable[[int], np.ndarray]) -> np.ndarray:
    """``rows`` rows drawn as consecutive blocks of ``_RNG_BLOCK`` (the last may be short)."""
    parts = [make(min(_RNG_BLOCK, rows - start)) for start in range(0, rows, _RNG_BLOCK)]
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _bootstrap_indices(
    rng: np.random.Generator, rows: int, n: int, clusters: IndexArray | None = None
) -> IndexArray:
    """``rows`` resamples of ``n`` row indices; with ``clusters`` (:func:`question_clusters`)
    whole questions are drawn, each with all its rows, until the resample has ``n`` rows (with
    questions of unequal numbers of rows the last one drawn may be cut there)."""
    if clusters is None:
        return _draw(rng, rows, lambda k: rng.integers(0, n, size=(k, n), dtype=np.intp))
    m, widest = clusters.shape
    draws = _questions_drawn(n, clusters)
    picks = _draw(rng, rows, lambda k: rng.integers(0, m, size=(k, draws), dtype=np.intp))
    flat = clusters[picks].reshape(len(picks), draws * widest)
    if draws * widest == n:  # every question has as many rows: no padding to skip
        return flat
    order = np.argsort(flat < 0, axis=1, kind="stable")  # padding last, the rows in order
    return np.take_along_axis(flat, order[:, :n], axis=1)


def _questions_drawn(n: int, clusters: IndexArray) -> int:
    """Questions drawn a resample: enough for ``n`` rows even if each drawn is the smallest."""
    return -(-n // int((clusters >= 0).sum(axis=1).min()))


def _drawn_width(n: int, clusters: IndexArray | None) -> int:
    """The row indices :func:`_bootstrap_indices` builds per resample (for chunk sizes)."""
    return n if clusters is None else _questions_drawn(n, clusters) * clusters.shape[1]


def question_clusters(table: QuestionTable) -> IndexArray | None:
    """The rows of each question (one a row, padded with -1 to the most rows a question
    has), for a table with several rows a question (a task pooled over languages: question
    × language, as many rows as the question has languages): the questions, not their rows,
    are the sample, so resampling draws whole questions. None when each question has one row."""
    rows: dict[str, list[int]] = {}
    for index, qid in enumerate(table.question_ids):
        rows.setdefault(qid, []).append(index)
    if len(rows) == len(table.question_ids):
        return None
    widest = max(len(r) for r in rows.values())
    return np.array([r + [-1] * (widest - len(r)) for r in rows.values()], dtype=np.intp)


def _question_of_row(table: QuestionTable) -> IndexArray | None:
    """Each row's question, numbered (None when each question has one row)."""
    numbers: dict[str, int] = {}
    of = [numbers.setdefault(qid, len(numbers)) for qid in table.question_ids]
    return None if len(numbers) == len(of) else np.array(of, dtype=np.intp)


def _swaps(rng: np.random.Generator, rows: int, n: int) -> npt.NDArray[np.bool_]:
    return _draw(rng, rows, lambda k: rng.integers(0, 2, size=(k, n), dtype=np.bool_))


# -- intervals -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Interval:
    """A percentile bootstrap interval of one measure, with what it takes to reproduce it.

    ``undefined`` counts the resamples on which the measure was undefined; ``low``/``high``
    are ``None`` when the estimate itself is undefined or when more resamples than one tail
    were (:func:`max_undefined`), else the percentiles of the defined ones.
    """

    measure: str
    estimate: float | None
    low: float | None
    high: float | None
    level: float
    resamples: int
    seed: int
    undefined: int = 0

    def to_json(self) -> list[float | None]:
        """The contract's ``[low, high]``."""
        return [self.low, self.high]

    @property
    def note(self) -> str | None:
        """What is said beside the bounds of an interval with undefined resamples."""
        if not self.undefined:
            return None
        bounded = self.low is not None and self.high is not None
        return undefined_resamples_note(self.undefined, self.resamples, bounded=bounded)


def max_undefined(resamples: int, level: float) -> int:
    """The most resamples on which a measure may be undefined for its interval to have bounds:
    one tail's worth. Beyond it the undefined ones, wherever they would lie, could move a
    percentile bound anywhere (all of them below it, or all above).

    >>> max_undefined(1000, 0.95), max_undefined(1000, 0.9), max_undefined(10, 0.95)
    (25, 50, 0)
    """
    return int(round((1 - level) / 2 * resamples, 9))  # 25.000000000000018 at 95 %


def bootstrap_intervals(
    table: QuestionTable,
    *,
    measures: Sequence[str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
    seed: int = DEFAULT_SEED,
) -> dict[str, Interval]:
    """Percentile bootstrap intervals over questions for ``measures`` (default: every measure
    the table can recompute), each estimate the scorer's own value. A question with several
    rows (a pooled task's languages) is drawn whole: drawing its rows apart made the interval
    of two languages answered alike ~√2 narrower than one language's."""
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    if not 0 < level < 1:
        raise ValueError(f"the interval level must lie between 0 and 1, not {level}")
    names = list(table.measures if measures is None else measures)
    for name in names:
        _twin(table, name)  # fail before any work on a measure without a computation
    n = len(table)
    estimates = {name: _estimate(table, name) for name in names}
    if n == 0:
        return {m: Interval(m, None, None, None, level, resamples, seed) for m in names}
    rng = _generator(seed)
    clusters = question_clusters(table)
    parts: dict[str, list[FloatArray]] = {name: [] for name in names}
    for rows in _chunks(resamples, _drawn_width(n, clusters)):
        values = measure_values(table, names, _bootstrap_indices(rng, rows, n, clusters))
        for name in names:
            parts[name].append(values[name])
    tail = (1 - level) / 2
    out: dict[str, Interval] = {}
    for name in names:
        draws = np.concatenate(parts[name])
        defined = draws[~np.isnan(draws)]
        estimate = estimates[name]
        undefined = resamples - int(defined.size)
        if estimate is None or undefined > max_undefined(resamples, level):
            out[name] = Interval(name, estimate, None, None, level, resamples, seed, undefined)
            continue
        low, high = np.quantile(defined, [tail, 1 - tail])
        out[name] = Interval(
            name, estimate, float(low), float(high), level, resamples, seed, undefined
        )
    return out


def _estimate(table: QuestionTable, name: str) -> float | None:
    """The scorer's value when the table carries it, else the twin's on the identity."""
    if name in table.point:
        value = table.point[name]
        return None if value is None else float(value)
    return point_values(table, [name])[name]


def interval_signature(
    *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL
) -> str:
    """The signature fields of an interval, e.g.
    ``ci:bootstrap-percentile|n:1000|seed:12345|level:0.95``."""
    return f"ci:{INTERVAL_METHOD}|n:{resamples}|seed:{seed}|level:{level:g}"


def test_signature(
    test: str,
    *,
    samples: int = DEFAULT_SHUFFLES,
    seed: int = DEFAULT_SEED,
    alpha: float = DEFAULT_ALPHA,
    pairs: int | None = None,
) -> str:
    """The signature fields of a comparison's paired tests, e.g.
    ``test:ar|n:10000|seed:12345|correction:holm|pairs:15|alpha:0.05`` (McNemar is exact: no
    n, seed). ``pairs``: how many tests Holm corrected over, on which each adjusted p (and so
    each tier) depends; the same pair's adjusted p among 2 or 6 systems differs."""
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; known: {', '.join(TESTS)}")
    drawn = "" if test == "mcnemar" else f"|n:{samples}|seed:{seed}"
    family = "" if pairs is None else f"|pairs:{pairs}"
    return f"test:{test}{drawn}|correction:holm{family}|alpha:{alpha:g}"


test_signature.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


# -- paired tests ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PairedTest:
    """A paired test of ``measure(a) - measure(b)`` on the same questions."""

    measure: str
    difference: float | None
    p_value: float | None
    test: str  # a key of TESTS
    samples: int  # shuffles or resamples drawn (0 for McNemar)
    seed: int | None  # None for McNemar (exact)
    # the questions on which the two differ (McNemar: the discordant ones), which bound the
    # smallest p an exact paired test can give (:func:`least_exact_p`)
    differing: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "difference": self.difference,
            "pValue": self.p_value,
            "test": self.test,
            "samples": self.samples,
            "seed": self.seed,
        }


def _pair_twin(a: QuestionTable, b: QuestionTable, measure: str) -> Twin:
    twin = _twin(a, measure)
    if measure not in a.measures or measure not in b.measures:
        raise ValueError(f"{measure} is not reported for both systems; it cannot be compared")
    return twin


def _difference(a: QuestionTable, b: QuestionTable, measure: str) -> float | None:
    va, vb = _estimate(a, measure), _estimate(b, measure)
    return None if va is None or vb is None else va - vb


def differing_questions(a: QuestionTable, b: QuestionTable) -> int:
    """How many questions ``a`` and ``b`` score differently (any column of a row; a question
    with several rows, a pooled task's languages, counts once): swapping or drawing the others
    changes nothing, so they alone bound what a paired test can find."""
    keys = [k for k in a.columns if k in b.columns]
    if not keys or len(a) == 0:
        return 0
    apart = np.zeros(len(a), dtype=np.bool_)
    for k in keys:
        x, y = a.columns[k], b.columns[k]
        apart |= ~((x == y) | (np.isnan(x) & np.isnan(y)))
    question = _question_of_row(a)
    if question is None:
        return int(apart.sum())
    return len(set(question[apart].tolist()))


def least_exact_p(differing: int) -> float:
    """The smallest two-sided p an exact paired test can give when the systems differ on
    ``differing`` questions: 2/2^k (all k one way, or all the other; the sign-flip test and
    McNemar's alike), 1 when they differ on none (explore43 F1: 0.125 on 5 questions)."""
    return min(1.0, 2.0 / 2.0**differing) if differing < 1000 else 0.0  # 2.0**1024 overflows


def _p_from_null(null: list[FloatArray], observed: float, draws: int) -> float:
    """(count + 1)/(draws + 1), count = null differences at least as extreme (NaN counts)."""
    values = np.concatenate(null)
    extreme = np.isnan(values) | (np.abs(values) >= abs(observed) - _TIE)
    return (int(extreme.sum()) + 1) / (draws + 1)


def approximate_randomisation(
    a: QuestionTable,
    b: QuestionTable,
    measure: str,
    *,
    samples: int = DEFAULT_SHUFFLES,
    seed: int = DEFAULT_SEED,
) -> PairedTest:
    """Swap each question's two records with probability 1/2 (all its rows together where it has
    several: a pooled task's languages), recompute ``measure`` for both pseudo-systems, and
    count the shuffles whose |difference| is at least the observed one."""
    both = concatenated(a, b)
    twin = _pair_twin(a, b, measure)
    observed = _difference(a, b, measure)
    n = len(a)
    if observed is None or n == 0:
        return PairedTest(measure, observed, None, "ar", samples, seed)
    apart = differing_questions(a, b)
    rng = _generator(seed)
    base = np.arange(n, dtype=np.intp)
    mirror = 2 * base + n  # row i of one system + row i of the other
    question = _question_of_row(a)  # a question's rows (its languages) swap together
    null: list[FloatArray] = []
    for rows in _chunks(samples, 2 * n):
        if question is None:
            swap = _swaps(rng, rows, n)
        else:
            swap = _swaps(rng, rows, int(question.max()) + 1)[:, question]
        from_a = np.multiply(swap, n, dtype=np.intp)  # pseudo-a takes b's record where swapped
        from_a += base  # (in place: index building dominated the time)
        from_b = mirror - from_a
        va = twin(_Sample(both.columns, from_a))
        vb = twin(_Sample(both.columns, from_b))
        null.append(va - vb)
    p = _p_from_null(null, observed, samples)
    return PairedTest(measure, observed, p, "ar", samples, seed, apart)


def paired_bootstrap(
    a: QuestionTable,
    b: QuestionTable,
    measure: str,
    *,
    samples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedTest:
    """Resample the questions (the same for both systems; a question with all its rows); the
    null distribution is the resampled differences centred on the observed one."""
    concatenated(a, b)  # the same questions
    twin = _pair_twin(a, b, measure)
    observed = _difference(a, b, measure)
    n = len(a)
    if observed is None or n == 0:
        return PairedTest(measure, observed, None, "bootstrap", samples, seed)
    apart = differing_questions(a, b)
    rng = _generator(seed)
    clusters = question_clusters(a)
    null: list[FloatArray] = []
    for rows in _chunks(samples, 2 * _drawn_width(n, clusters)):
        idx = _bootstrap_indices(rng, rows, n, clusters)
        null.append(twin(_Sample(a.columns, idx)) - twin(_Sample(b.columns, idx)) - observed)
    p = _p_from_null(null, observed, samples)
    return PairedTest(measure, observed, p, "bootstrap", samples, seed, apart)


def binary_accuracy(table: QuestionTable) -> bool:
    """Whether each question's accuracy term is 0 or 1 (McNemar applies)."""
    col = table.columns["accuracy"]
    return bool(np.all((col == 0) | (col == 1)))


def mcnemar(a: QuestionTable, b: QuestionTable) -> PairedTest:
    """McNemar's exact test on accuracy: with b01 questions only ``a`` gets right and b10 only
    ``b``, p = min(1, 2 · P(X ≤ min(b01, b10))) for X ~ Binomial(b01 + b10, 1/2); 1 with no
    discordant question."""
    concatenated(a, b)
    if not (binary_accuracy(a) and binary_accuracy(b)):
        raise ValueError("McNemar needs right/wrong questions; this accuracy is graded")
    if question_clusters(a) is not None:  # its discordant rows would not be independent
        raise ValueError(
            "McNemar needs one row a question; a task pooled over languages has a row per "
            "question and language: test it with ar or bootstrap, which keep a question whole"
        )
    ra, rb = a.columns["accuracy"] == 1, b.columns["accuracy"] == 1
    only_a, only_b = int(np.sum(ra & ~rb)), int(np.sum(rb & ~ra))
    return PairedTest("accuracy", _difference(a, b, "accuracy"), mcnemar_p(only_a, only_b),
                      "mcnemar", 0, None, only_a + only_b)  # fmt: skip


def mcnemar_p(only_a: int, only_b: int) -> float:
    """The exact two-sided McNemar p-value from the two discordant counts."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(only_a, only_b) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def default_test(measure: str) -> str:
    """McNemar for exact-match accuracy, approximate randomisation for everything else."""
    return "mcnemar" if measure == "accuracy" else "ar"


def paired_test(
    a: QuestionTable,
    b: QuestionTable,
    measure: str,
    *,
    test: str = "auto",
    samples: int | None = None,
    seed: int = DEFAULT_SEED,
) -> PairedTest:
    """The paired test ``test`` (``auto``: :func:`default_test`, falling back to ``ar`` when
    accuracy is graded) of ``measure`` between ``a`` and ``b``."""
    chosen = _resolve_test(test, measure, (a, b))
    if chosen == "mcnemar":
        return mcnemar(a, b)
    if chosen == "bootstrap":
        return paired_bootstrap(a, b, measure, samples=samples or DEFAULT_RESAMPLES, seed=seed)
    return approximate_randomisation(a, b, measure, samples=samples or DEFAULT_SHUFFLES, seed=seed)


def _resolve_test(test: str, measure: str, tables: Sequence[QuestionTable]) -> str:
    if test != "auto" and test not in TESTS:
        raise ValueError(f"unknown test {test!r}; known: auto, {', '.join(TESTS)}")
    if test == "mcnemar" and measure != "accuracy":
        raise ValueError(f"McNemar tests accuracy only, not {measure}")
    if test != "auto":
        return test
    chosen = default_test(measure)
    if chosen == "mcnemar" and not all(
        binary_accuracy(t) and question_clusters(t) is None for t in tables
    ):
        return "ar"  # graded accuracy, or a question's languages as rows: AR swaps them whole
    return chosen


# -- many systems: Holm and tiers ----------------------------------------------------------------


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values, in the input order (``None`` stays ``None`` and does
    not count as a hypothesis): the i-th smallest of m becomes max over j ≤ i of
    min(1, (m - j + 1) · p_(j))."""
    known = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(known)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(known):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


@dataclass(frozen=True, slots=True)
class Pair:
    """One pair of a comparison: the test of ``a`` against ``b`` and its Holm-adjusted p."""

    a: str
    b: str
    test: PairedTest
    p_adjusted: float | None

    @property
    def at_floor(self) -> bool:
        """Whether the p-value is the smallest its sampled test gives, 1/(samples + 1): no
        shuffle or resample was as extreme, so the p is only bounded (explore43 F7: printed
        "1.0e-04" like a measured one). Never for McNemar, which is exact."""
        p, test = self.test.p_value, self.test
        if p is None or test.test == "mcnemar" or test.samples < 1:
            return False
        return p <= (1 + 1e-9) / (test.samples + 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "measure": self.test.measure,
            "difference": self.test.difference,
            "pValue": self.test.p_value,
            "pAdjusted": self.p_adjusted,
            "pAtFloor": self.at_floor,
        }


def tiers(
    values: Mapping[str, float | None],
    adjusted: Mapping[frozenset[str], float | None],
    *,
    alpha: float = DEFAULT_ALPHA,
) -> dict[str, int | None]:
    """Tier 1 is the best system (highest value; ties in the given order) and every system not
    significantly worse than it (adjusted p ≥ ``alpha``, or no p); then the same on the rest.
    A system whose value is undefined gets no tier (``None``)."""
    defined = {s: v for s, v in values.items() if v is not None}
    rest = sorted(defined, key=lambda s: -defined[s])  # stable: ties keep the given order
    out: dict[str, int | None] = dict.fromkeys(values)
    tier = 0
    while rest:
        tier += 1
        best = rest[0]
        same = [best]
        for s in rest[1:]:
            p = adjusted.get(frozenset((best, s)))
            if p is None or p >= alpha:
                same.append(s)
        for s in same:
            out[s] = tier
        rest = [s for s in rest if s not in same]
    return out


@dataclass(frozen=True, slots=True)
class Ranking:
    """All pairwise tests of one measure between systems, Holm-corrected, and their tiers."""

    measure: str
    test: str
    samples: int
    seed: int
    alpha: float
    pairs: tuple[Pair, ...]
    tiers: Mapping[str, int | None]
    questions: int = 0  # the questions the systems were tested on

    @property
    def most_differing(self) -> int | None:
        """The most questions any tested pair differs on (None: no pair was tested)."""
        found = [
            p.test.differing
            for p in self.pairs
            if p.test.p_value is not None and p.test.differing is not None
        ]
        return max(found) if found else None

    @property
    def tested(self) -> int:
        """How many pairs have a p-value: the family Holm corrected over (a pair whose
        measure is undefined for a system has no test; the signature counted it)."""
        return sum(1 for p in self.pairs if p.test.p_value is not None)

    @property
    def signature(self) -> str:
        return test_signature(
            self.test,
            samples=self.samples,
            seed=self.seed,
            alpha=self.alpha,
            pairs=self.tested,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "test": self.test,
            "signature": self.signature,
            "pairs": [p.to_json() for p in self.pairs],
            "tiers": dict(self.tiers),
        }


def rank_systems(
    tables: Mapping[str, QuestionTable],
    measure: str,
    *,
    test: str = "auto",
    samples: int | None = None,
    seed: int = DEFAULT_SEED,
    alpha: float = DEFAULT_ALPHA,
) -> Ranking:
    """Every pair of ``tables`` (in the given order, a before b) tested on ``measure`` with one
    test for all pairs, Holm's correction across them, and the tiers."""
    names = list(tables)
    chosen = _resolve_test(test, measure, list(tables.values()))
    drawn = samples or (DEFAULT_RESAMPLES if chosen == "bootstrap" else DEFAULT_SHUFFLES)
    results = [
        (x, y, paired_test(tables[x], tables[y], measure, test=chosen, samples=drawn, seed=seed))
        for i, x in enumerate(names)
        for y in names[i + 1 :]
    ]
    adjusted = holm([r.p_value for _, _, r in results])
    pairs = tuple(Pair(x, y, r, p) for (x, y, r), p in zip(results, adjusted, strict=True))
    values = {name: _estimate(t, measure) for name, t in tables.items()}
    by_pair = {frozenset((p.a, p.b)): p.p_adjusted for p in pairs}
    return Ranking(
        measure=measure,
        test=chosen,
        samples=0 if chosen == "mcnemar" else drawn,
        seed=seed,
        alpha=alpha,
        pairs=pairs,
        tiers=tiers(values, by_pair, alpha=alpha),
        questions=len(set(next(iter(tables.values())).question_ids)) if tables else 0,
    )
