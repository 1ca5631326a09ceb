"""Bootstrap intervals and paired significance tests (service/evaluation/statistics.py)."""

from __future__ import annotations

import pytest

from service.evaluation.statistics import (
    approximate_randomisation,
    bootstrap_ci,
    paired_bootstrap,
)


def test_bootstrap_interval_is_reproducible_and_brackets_the_mean() -> None:
    values = [1.0] * 30 + [0.0] * 70
    ci = bootstrap_ci(values, seed=7)
    assert ci == bootstrap_ci(values, seed=7)  # the seed makes it reproducible
    assert ci.estimate == pytest.approx(0.3)
    assert 0.2 < ci.low < 0.3 < ci.high < 0.4  # about ±1.96·sqrt(.3·.7/100) = ±0.09
    assert bootstrap_ci([0.5, 0.5, 0.5]).low == bootstrap_ci([0.5, 0.5, 0.5]).high == 0.5


def test_identical_systems_are_not_different() -> None:
    a = [0.0, 1.0, 0.5, 1.0]
    assert paired_bootstrap(a, a).p_value == 1.0
    assert approximate_randomisation(a, a, samples=200).p_value == 1.0


def test_a_clearly_better_system_is_significant() -> None:
    better = [1.0] * 40 + [0.0] * 10
    worse = [0.0] * 40 + [1.0] * 10
    ar = approximate_randomisation(better, worse, samples=2000, seed=3)
    assert ar.difference == pytest.approx(0.6) and ar.p_value < 0.01
    boot = paired_bootstrap(better, worse, samples=1000, seed=3)
    assert boot.p_value < 0.01 and boot.seed == 3


def test_a_small_difference_on_few_questions_is_not_significant() -> None:
    a = [1.0, 0.0, 1.0, 0.0, 1.0]
    b = [0.0, 0.0, 1.0, 0.0, 1.0]
    assert approximate_randomisation(a, b, samples=2000).p_value > 0.3


def test_inputs_must_pair_up() -> None:
    with pytest.raises(ValueError, match="same questions"):
        paired_bootstrap([1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="no values"):
        bootstrap_ci([])
