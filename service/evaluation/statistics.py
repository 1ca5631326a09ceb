"""Uncertainty of per-question averages: bootstrap confidence intervals and paired significance
tests between two systems on the same questions, each with a recorded seed (sacrebleu style).

The inputs are per-question values (e.g. the ``f1`` of every scored question of a task, in
dataset order, two systems aligned by question); macro measures are their means.

>>> ci = bootstrap_ci([1.0, 0.0, 1.0, 1.0], seed=1)
>>> ci.low <= ci.estimate <= ci.high, ci.seed
(True, 1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_SEED = 12345


@dataclass(frozen=True, slots=True)
class Interval:
    """A percentile bootstrap interval of the mean, with what it took to reproduce it."""

    estimate: float
    low: float
    high: float
    confidence: float
    samples: int
    seed: int


@dataclass(frozen=True, slots=True)
class Comparison:
    """A paired test of ``mean(a) - mean(b)``: the observed difference and its p-value."""

    difference: float
    p_value: float
    method: str  # "paired-bootstrap" or "approximate-randomisation"
    samples: int
    seed: int


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _check(values: Sequence[float]) -> None:
    if not values:
        raise ValueError("no values: nothing to resample")


def bootstrap_ci(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    samples: int = 1000,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Percentile bootstrap interval of the mean of ``values`` (Efron & Tibshirani 1993)."""
    _check(values)
    rng = random.Random(seed)
    n = len(values)
    means = sorted(_mean([values[rng.randrange(n)] for _ in range(n)]) for _ in range(samples))
    tail = (1 - confidence) / 2
    low = means[int(tail * (samples - 1))]
    high = means[round((1 - tail) * (samples - 1))]
    return Interval(_mean(values), low, high, confidence, samples, seed)


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, samples: int = 1000, seed: int = DEFAULT_SEED
) -> Comparison:
    """Paired bootstrap test (Koehn 2004): the share of resamples of the questions in which the
    difference of the means does not keep the observed sign (two-sided: doubled, at most 1)."""
    _pair(a, b)
    rng = random.Random(seed)
    n = len(a)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    observed = _mean(diffs)
    if observed == 0:
        return Comparison(0.0, 1.0, "paired-bootstrap", samples, seed)
    against = 0
    for _ in range(samples):
        d = _mean([diffs[rng.randrange(n)] for _ in range(n)])
        if (d <= 0) if observed > 0 else (d >= 0):
            against += 1
    return Comparison(observed, min(1.0, 2 * against / samples), "paired-bootstrap", samples, seed)


def approximate_randomisation(
    a: Sequence[float], b: Sequence[float], *, samples: int = 10000, seed: int = DEFAULT_SEED
) -> Comparison:
    """Paired approximate randomisation (Noreen 1989; Riezler & Maxwell 2005): swap each
    question's two values with probability 1/2; p = (r + 1) / (samples + 1) where r counts the
    shuffles whose |difference of means| is at least the observed one."""
    _pair(a, b)
    rng = random.Random(seed)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    observed = abs(_mean(diffs))
    n = len(diffs)
    at_least = 0
    for _ in range(samples):
        total = sum(d if rng.random() < 0.5 else -d for d in diffs)
        if abs(total / n) >= observed - 1e-12:
            at_least += 1
    p = (at_least + 1) / (samples + 1)
    return Comparison(_mean(diffs), p, "approximate-randomisation", samples, seed)


def _pair(a: Sequence[float], b: Sequence[float]) -> None:
    _check(a)
    if len(a) != len(b):
        raise ValueError(f"paired tests need the same questions: {len(a)} values vs {len(b)}")
