"""Bootstrap intervals, paired tests, Holm and tiers on known cases (issue 11 "Must show")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from service.evaluation import evaluate
from service.evaluation import statistics as st
from service.evaluation.confidence import pearson
from service.evaluation.results import ExperimentType, QuestionScore, TaskScores
from service.evaluation.statistics import (
    QuestionTable,
    approximate_randomisation,
    bootstrap_intervals,
    holm,
    interval_signature,
    mcnemar,
    mcnemar_p,
    paired_bootstrap,
    paired_test,
    point_values,
    question_table,
    rank_systems,
    test_signature,
    tiers,
)
from service.model import AnswerSet, Dataset, Question, QuestionText, SystemAnswer, SystemRun
from tests.helpers import lits

ROOT = Path(__file__).resolve().parents[2]


def table_of(answers: Sequence[AnswerSet], golds: Sequence[AnswerSet]) -> QuestionTable:
    """The QA table of one system scored by ``evaluate`` under ``exact``."""
    qs = tuple(
        Question(str(i), (QuestionText("en", "q?"),), answers=g) for i, g in enumerate(golds)
    )
    run = SystemRun("s", {str(i): SystemAnswer(str(i), answers=a) for i, a in enumerate(answers)})
    ev = evaluate(Dataset("d", qs), run, profile="exact", experiment_types=["QA"])
    return question_table(ev.tasks[ExperimentType.QA], scheme="standard")


def right_wrong(pattern: Sequence[bool]) -> QuestionTable:
    """One question per entry, gold {g<i>, h<i>}: right answers it exactly, wrong gives one
    right and one wrong value (P = R = 1/2), so macro and micro F1 move with accuracy."""
    golds = [lits(f"g{i}", f"h{i}") for i in range(len(pattern))]
    answers = [
        lits(f"g{i}", f"h{i}") if ok else lits(f"g{i}", f"x{i}") for i, ok in enumerate(pattern)
    ]
    return table_of(answers, golds)


BASE = [i % 5 < 2 for i in range(150)]  # 60 of 150 right
FLIPPED = list(BASE)
for _i in [i for i, ok in enumerate(BASE) if not ok][:30]:
    FLIPPED[_i] = True  # 30 of the 90 wrong answers now right


# -- paired tests on known cases ------------------------------------------------------------------


@pytest.mark.parametrize("measure", ["macroF1", "microF1", "macroF1QALD", "accuracy"])
def test_identical_systems_give_p_at_least_0_9(measure: str) -> None:
    a, b = right_wrong(BASE), right_wrong(BASE)
    for test in ("ar", "bootstrap") + (("mcnemar",) if measure == "accuracy" else ()):
        result = paired_test(a, b, measure, test=test, samples=2000)
        assert result.difference == 0.0
        assert result.p_value is not None and result.p_value >= 0.9, (test, result)


@pytest.mark.parametrize("measure", ["macroF1", "microF1", "macroF1QALD", "accuracy"])
def test_thirty_of_150_flipped_to_right_gives_p_below_0_01(measure: str) -> None:
    worse, better = right_wrong(BASE), right_wrong(FLIPPED)
    ar = approximate_randomisation(better, worse, measure)
    assert ar.p_value is not None and ar.p_value < 0.01
    assert ar.samples == 10000 and ar.p_value >= 1 / 10001  # p = (count + 1)/(R + 1)
    assert ar.difference is not None and ar.difference > 0
    boot = paired_bootstrap(better, worse, measure)
    assert boot.p_value is not None and boot.p_value < 0.01
    if measure == "accuracy":
        exact = mcnemar(better, worse)
        assert exact.difference == pytest.approx(30 / 150)
        assert exact.p_value == 2 / 2**30  # 30 discordant questions, all one way


def test_the_default_test_is_mcnemar_for_accuracy_and_ar_otherwise() -> None:
    a, b = right_wrong(BASE), right_wrong(FLIPPED)
    assert paired_test(a, b, "accuracy").test == "mcnemar"
    assert paired_test(a, b, "macroF1", samples=100).test == "ar"
    assert paired_test(a, b, "accuracy", test="bootstrap", samples=100).test == "bootstrap"
    with pytest.raises(ValueError, match="McNemar tests accuracy only"):
        paired_test(a, b, "macroF1", test="mcnemar")


def test_mcnemar_against_a_hand_computation() -> None:
    # 7 questions only a gets right, 2 only b: p = 2 (C(9,0) + C(9,1) + C(9,2)) / 2^9 = 92/512
    assert mcnemar_p(7, 2) == 92 / 512 == mcnemar_p(2, 7)
    assert mcnemar_p(0, 0) == 1.0  # no discordant question
    assert mcnemar_p(1, 1) == 1.0  # 2 (1 + 2)/4 > 1: capped
    assert mcnemar_p(5, 0) == 2 / 32
    # the same through tables: a right on 0..6 and 9..11, b right on 7..11
    a = right_wrong([i < 7 or i >= 9 for i in range(12)])
    b = right_wrong([i >= 7 for i in range(12)])
    result = mcnemar(a, b)
    assert result.p_value == 92 / 512 and result.test == "mcnemar" and result.seed is None
    assert result.difference == pytest.approx((10 - 5) / 12)


def test_mcnemar_refuses_graded_accuracy() -> None:
    a = right_wrong(BASE)
    graded = QuestionTable(
        a.scheme, a.question_ids, {**a.columns, "accuracy": a.columns["accuracy"] * 0.5},
        a.measures, a.point,
    )  # fmt: skip
    with pytest.raises(ValueError, match="graded"):
        mcnemar(a, graded)
    assert paired_test(a, graded, "accuracy", samples=100).test == "ar"  # auto falls back


def test_paired_tests_need_the_same_questions() -> None:
    with pytest.raises(ValueError, match="same questions"):
        approximate_randomisation(right_wrong(BASE), right_wrong(BASE[:-1]), "macroF1")


# -- intervals ------------------------------------------------------------------------------------


def test_interval_coverage_on_a_simulated_binomial() -> None:
    """95 % (and 90 %) percentile intervals of a proportion cover the true value about that
    often over many simulated datasets, each with its own seed."""
    truth, n, runs = 0.3, 150, 400
    rng = np.random.Generator(np.random.PCG64(2024))
    covered = {0.95: 0, 0.9: 0}
    template = right_wrong([True] * n)
    for run in range(runs):
        right = (rng.random(n) < truth).astype(np.float64)
        table = QuestionTable(
            "standard", template.question_ids, {"accuracy": right}, ("accuracy",), {}
        )
        for level in covered:
            ci = bootstrap_intervals(table, resamples=1000, level=level, seed=run)["accuracy"]
            assert ci.low is not None and ci.high is not None
            covered[level] += ci.low <= truth <= ci.high
    # the standard error of a coverage share over 400 runs is about 0.011-0.015
    assert abs(covered[0.95] / runs - 0.95) < 0.035, covered
    assert abs(covered[0.9] / runs - 0.9) < 0.045, covered


def test_intervals_bracket_the_scorer_estimate_and_count_undefined_resamples() -> None:
    table = right_wrong(BASE)
    cis = bootstrap_intervals(table)
    assert set(cis) == set(table.measures)
    for name, ci in cis.items():
        assert ci.estimate == table.point[name]  # the scorer's own number
        assert ci.low is not None and ci.high is not None
        assert ci.low <= ci.estimate <= ci.high, name
        assert (ci.resamples, ci.seed, ci.level, ci.undefined) == (1000, 12345, 0.95, 0)
    assert cis["accuracy"].estimate == 0.4
    assert 0.3 < cis["accuracy"].low < 0.4 < cis["accuracy"].high < 0.5  # ±1.96·0.04
    assert all(ci.note is None for ci in cis.values())  # nothing to say: nothing is emitted


def right_among_wrong(right: int, n: int = 30) -> QuestionTable:
    """``right`` questions answered right, the rest wrong: Macro F1 QALD (the F1 of mean P and
    mean R) is undefined on a resample holding none of the right ones, (1 − right/n)^n of them."""
    return table_of([lits("g")] * right + [lits("x")] * (n - right), [lits("g")] * n)


def test_a_measure_undefined_on_more_than_a_tail_of_the_resamples_gets_no_bounds() -> None:
    """explore-14 1: one right answer of 150 (here 30); Macro F1 QALD is undefined on the 36 %
    of resamples without it, the system at its worst. Leaving them out gave bounds starting
    at the estimate ([0.0067, 0.0267] while macro F1 had [0, 0.02]): a percentile interval
    conditioned on the measure being defined. More undefined resamples than one tail (25 of
    1,000 at 95 %) leave the percentile undetermined: no bounds, and the count says why."""
    cis = bootstrap_intervals(right_among_wrong(1), measures=["macroF1QALD", "macroF1"])
    ci = cis["macroF1QALD"]
    assert ci.estimate is not None and ci.estimate > 0  # defined on the sample itself
    assert 300 < ci.undefined < 430  # about (29/30)^30 = 36 % of 1,000
    assert (ci.low, ci.high) == (None, None)
    assert ci.note == f"no interval: undefined on {ci.undefined} of 1,000 resamples"
    # macro F1 (0 on those resamples, not undefined) keeps its interval, reaching 0
    assert (cis["macroF1"].low, cis["macroF1"].undefined, cis["macroF1"].note) == (0.0, 0, None)


def test_a_few_undefined_resamples_are_left_out_of_the_bounds_and_counted() -> None:
    # four right of 30: (26/30)^30 = 1.4 % of resamples hold none, fewer than the 2.5 % tail
    ci = bootstrap_intervals(right_among_wrong(4), measures=["macroF1QALD"])["macroF1QALD"]
    assert 0 < ci.undefined <= st.max_undefined(1000, 0.95) == 25
    assert ci.low is not None and ci.high is not None and ci.low <= ci.estimate <= ci.high
    assert ci.note == f"{ci.undefined} of 1,000 resamples undefined, left out"
    # at 90 % one tail is 50 resamples; at 99 % it is 5, fewer than the undefined ones
    assert bootstrap_intervals(right_among_wrong(4), level=0.9)["macroF1QALD"].low is not None
    assert bootstrap_intervals(right_among_wrong(4), level=0.99)["macroF1QALD"].low is None


def test_counts_get_no_interval() -> None:
    table = right_wrong(BASE)
    assert not set(st.NO_INTERVAL) & set(table.measures)
    with pytest.raises(ValueError, match="count of the run"):
        bootstrap_intervals(table, measures=["questions"])
    with pytest.raises(ValueError, match="no resampled computation"):
        bootstrap_intervals(table, measures=["processedMacroF1"])  # not under standard


def test_no_questions_give_undefined_intervals() -> None:
    table = table_of([], [])
    ci = bootstrap_intervals(table)["macroF1"]
    assert (ci.estimate, ci.low, ci.high) == (None, None, None)
    assert point_values(table)["microF1"] is None


# -- reproducibility ------------------------------------------------------------------------------


def _everything(seed: int) -> str:
    tables = {"base": right_wrong(BASE), "flipped": right_wrong(FLIPPED)}
    tables["mixed"] = right_wrong([i % 3 == 0 for i in range(150)])
    out: dict[str, object] = {}
    for name, table in tables.items():
        out[name] = {k: v.to_json() for k, v in bootstrap_intervals(table, seed=seed).items()}
    for test in ("ar", "bootstrap"):
        ranking = rank_systems(tables, "microF1", test=test, samples=3000, seed=seed)
        out[test] = [p.to_json() for p in ranking.pairs]
        out[test + "-tiers"] = dict(ranking.tiers)
    return json.dumps(out)


def test_the_same_seed_gives_byte_identical_output() -> None:
    first = _everything(7)
    assert _everything(7) == first
    assert _everything(8) != first


def test_byte_identical_across_processes_and_hash_seeds() -> None:
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from tests.unit.test_eval_statistics import _everything; print(_everything(7))"
    )
    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", script, str(ROOT)],
            capture_output=True, text=True, env=env, timeout=120, check=True,
        )  # fmt: skip
        outputs.add(done.stdout.strip())
    assert outputs == {_everything(7)}


def test_chunking_does_not_change_the_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    table, other = right_wrong(BASE), right_wrong(FLIPPED)
    wide = bootstrap_intervals(table, resamples=700)
    ar = approximate_randomisation(table, other, "microF1", samples=700)
    monkeypatch.setattr(st, "_CHUNK_ELEMENTS", 1)  # one RNG block per chunk
    assert bootstrap_intervals(table, resamples=700) == wide
    assert approximate_randomisation(table, other, "microF1", samples=700) == ar


def test_signatures() -> None:
    assert interval_signature() == "ci:bootstrap-percentile|n:1000|seed:12345|level:0.95"
    assert interval_signature(resamples=200, seed=1, level=0.9) == (
        "ci:bootstrap-percentile|n:200|seed:1|level:0.9"
    )
    assert test_signature("ar") == "test:ar|n:10000|seed:12345|correction:holm|alpha:0.05"
    assert test_signature("mcnemar") == "test:mcnemar|correction:holm|alpha:0.05"
    with pytest.raises(ValueError, match="unknown test"):
        test_signature("t-test")


# -- Holm and tiers on hand-made cases ------------------------------------------------------------


def test_holm_by_hand() -> None:
    # sorted: .005·4 = .02, .01·3 = .03, .03·2 = .06, .04·1 = .04 -> kept monotone: .06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # capped at 1
    assert holm([None, 0.02, None]) == [None, 0.02, None]  # undefined p: no hypothesis
    assert holm([]) == []


def test_tiers_by_hand() -> None:
    values = {"A": 0.80, "B": 0.75, "C": 0.50, "D": 0.45}
    p = {("A", "B"): 0.30, ("A", "C"): 0.001, ("A", "D"): 0.001, ("B", "C"): 0.01,
         ("B", "D"): 0.02, ("C", "D"): 0.6}  # fmt: skip
    adjusted = {frozenset(k): v for k, v in p.items()}
    assert tiers(values, adjusted) == {"A": 1, "B": 1, "C": 2, "D": 2}
    # anchored on the best: C is not significantly worse than B, but it is worse than A
    values = {"A": 0.8, "B": 0.7, "C": 0.6}
    adjusted = {frozenset("AB"): 0.2, frozenset("AC"): 0.01, frozenset("BC"): 0.5}
    assert tiers(values, adjusted) == {"A": 1, "B": 1, "C": 2}
    # exactly alpha is not significant; an undefined value gets no tier
    adjusted = {frozenset("AB"): 0.05, frozenset("AC"): 0.049, frozenset("BC"): 0.049}
    assert tiers({"A": 0.8, "B": 0.7, "C": 0.6, "E": None}, adjusted) == {
        "A": 1, "B": 1, "C": 2, "E": None,
    }  # fmt: skip


def test_rank_systems_holm_corrects_and_tiers() -> None:
    tables = {
        "base": right_wrong(BASE),
        "flipped": right_wrong(FLIPPED),
        "same-as-flipped": right_wrong(FLIPPED),
    }
    ranking = rank_systems(tables, "accuracy")
    assert ranking.test == "mcnemar" and ranking.samples == 0
    assert [(p.a, p.b) for p in ranking.pairs] == [
        ("base", "flipped"), ("base", "same-as-flipped"), ("flipped", "same-as-flipped"),
    ]  # fmt: skip
    raw = [p.test.p_value for p in ranking.pairs]
    assert [p.p_adjusted for p in ranking.pairs] == holm(raw)
    assert ranking.pairs[0].p_adjusted == pytest.approx(3 * 2 / 2**30)
    assert dict(ranking.tiers) == {"base": 2, "flipped": 1, "same-as-flipped": 1}
    assert ranking.pairs[0].to_json() == {
        "a": "base", "b": "flipped", "measure": "accuracy",
        "difference": pytest.approx(-0.2), "pValue": 2 / 2**30,
        "pAdjusted": pytest.approx(6 / 2**30),
        "pAtFloor": False,  # McNemar is exact: no floor (explore43 F7)
    }  # fmt: skip
    assert ranking.signature == "test:mcnemar|correction:holm|pairs:3|alpha:0.05"
    out = json.loads(json.dumps(ranking.to_json()))  # JSON-ready
    assert out["tiers"] == {"base": 2, "flipped": 1, "same-as-flipped": 1}
    assert out["pairs"][0]["pValue"] == 2 / 2**30 and out["test"] == "mcnemar"
    assert ranking.pairs[0].test.to_json()["test"] == "mcnemar"


# -- scalar fixes found while writing the twins ---------------------------------------------------


def test_pearson_of_a_constant_confidence_is_undefined() -> None:
    # ten confidences of 0.1 average to 0.09999999999999999: the variance is not exactly zero
    assert pearson([0.1] * 10, [1.0, 0.0] * 5) is None
    assert pearson([0.7] * 7, [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0]) is None
    assert pearson([0.2, 0.4], [1.0, 1.0]) is None
    assert pearson([0.2, 0.4, 0.6], [0.0, 1.0, 1.0]) == pytest.approx(0.8660254037844387)


def test_records_without_the_resampling_fields_are_refused() -> None:
    old = QuestionScore("1", tp=1, fp=0, fn=0, precision=1.0, recall=1.0, f1=1.0)
    task = TaskScores(ExperimentType.QA, {"macroF1": 1.0}, (old,))
    with pytest.raises(ValueError, match="question 1: the record has no n_system"):
        question_table(task, scheme="standard")
    with pytest.raises(ValueError, match="unknown scoring scheme"):
        question_table(task, scheme="poleval")


def test_a_task_pooled_over_languages_resamples_whole_questions() -> None:
    """A pooled task has a row per question × language. Drawn as rows, two languages answered
    alike gave an interval ~√2 narrower than one language's (QAKiS on QALD-8 en,de: macro F1
    [0.1824, 0.2545] pooled, [0.1656, 0.2718] each), as if the copy were new evidence. Drawn as
    questions it is the one language's interval, and paired tests alike."""
    from service.evaluation.languages import pooled

    qs = tuple(
        Question(
            str(i), (QuestionText("en", "q?"), QuestionText("de", "f?")), answers=lits(f"g{i}")
        )
        for i in range(30)
    )
    answers = {
        str(i): SystemAnswer(str(i), answers=lits(f"g{i}" if i % 3 else "x")) for i in range(30)
    }
    other = {
        str(i): SystemAnswer(str(i), answers=lits(f"g{i}" if i % 4 else "x")) for i in range(30)
    }

    def tables(run: dict[str, SystemAnswer]) -> tuple[QuestionTable, QuestionTable]:
        by_language = [
            evaluate(Dataset("d", qs), SystemRun("s", run), profile="exact",
                     experiment_types=["QA"], language=lang)
            for lang in ("en", "de")
        ]  # fmt: skip
        one = question_table(by_language[0].tasks[ExperimentType.QA], scheme="standard")
        both = question_table(pooled(by_language).tasks[ExperimentType.QA], scheme="standard")
        assert len(both) == 2 * len(one)
        return one, both

    one, both = tables(answers)
    single, pooled_ci = bootstrap_intervals(one), bootstrap_intervals(both)
    for name in ("macroF1", "microF1"):
        assert pooled_ci[name].low == pytest.approx(single[name].low, abs=1e-12)
        assert pooled_ci[name].high == pytest.approx(single[name].high, abs=1e-12)
    assert single["macroF1"].high - single["macroF1"].low > 0.1  # a real interval
    one_b, both_b = tables(other)
    for test in (paired_bootstrap, approximate_randomisation):
        p_one = test(one, one_b, "macroF1", samples=2000).p_value
        p_both = test(both, both_b, "macroF1", samples=2000).p_value
        assert p_both == pytest.approx(p_one, abs=1e-12), test


def test_questions_with_unequal_numbers_of_languages_are_still_drawn_whole() -> None:
    """QALD-8 has no Spanish text for 40 questions: with unequal numbers of rows a question the
    rows were drawn apart (en,es macro F1 interval 0.073 wide against 0.10 for en; six
    languages 0.043). Each resample now holds whole questions (the last drawn may be cut to
    keep the table's number of rows), and McNemar, which counts rows, gives way to AR."""
    from collections import Counter

    ids = [str(i) for i in range(30)] + [str(i) for i in range(20)]  # en: 30, de: 20 of them
    table = QuestionTable("standard", tuple(ids), {}, (), {})
    clusters = st.question_clusters(table)
    assert clusters is not None and clusters.shape == (30, 2)
    sizes = Counter(ids)
    idx = st._bootstrap_indices(np.random.Generator(np.random.PCG64(7)), 200, len(ids), clusters)
    assert idx.shape == (200, 50) and (idx >= 0).all()
    for row in idx:
        taken = Counter(ids[i] for i in row)
        # rows of one question come in whole copies of it, but for the one cut at the end
        cut = [q for q, k in taken.items() if k % sizes[q]]
        assert len(cut) <= 1, (taken, cut)


def test_mcnemar_gives_way_to_ar_on_a_pooled_task() -> None:
    one = right_wrong([True, False, True, True, False, True])
    rows = QuestionTable(one.scheme, one.question_ids * 2,
                         {k: np.concatenate([v, v]) for k, v in one.columns.items()},
                         one.measures, one.point)  # fmt: skip
    other = right_wrong([False, False, True, False, False, True])
    rows_b = QuestionTable(other.scheme, other.question_ids * 2,
                           {k: np.concatenate([v, v]) for k, v in other.columns.items()},
                           other.measures, other.point)  # fmt: skip
    assert paired_test(one, other, "accuracy").test == "mcnemar"
    assert paired_test(rows, rows_b, "accuracy", samples=500).test == "ar"
    with pytest.raises(ValueError, match="one row a question"):
        mcnemar(rows, rows_b)
