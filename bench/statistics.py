"""Honest-comparison statistics: intervals and all pairwise tests for 10 systems × 400 questions,
vectorised, against the pure-Python scorer looped over resamples, measured in the same run.

    .venv/bin/python bench/statistics.py [--systems 10] [--questions 400] [--resamples 1000]
                                         [--shuffles 10000] [--reference 40]

1. Data: a synthetic dataset of N questions (1-5 gold answers each) and S systems of graded
   quality (each gold answer found with the system's probability, 0-3 wrong answers added),
   scored by ``evaluate`` under ``exact``: the records and numbers are the scorer's own.
2. Vectorised (``service.evaluation.statistics``): percentile bootstrap intervals of every
   aggregate measure of every system (B resamples); all S(S-1)/2 pairwise tests with Holm and
   tiers: approximate randomisation on macro F1 and on micro F1 (R shuffles), McNemar on
   accuracy, the paired bootstrap on macro F1 (B resamples).
3. Reference, in the same run: the pure-Python loop a scorer without NumPy would run — for
   each resample or shuffle, the rows rebuilt and ``StandardScoring.aggregate`` called (every
   measure at once, as the vectorised intervals compute them) — timed on ``--reference`` draws
   for one system (one pair) and extrapolated linearly to the whole job.
4. The import cost of NumPy and the statistics module (which ``gerbil-qa evaluate`` does not
   import on its default path), median of 5 fresh processes, against ``import
   service.evaluation``.

The load average is printed before and after: on a shared machine read the ratios.
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# This file is called statistics.py (as the issue names it): run as a script, its folder comes
# first on sys.path and would shadow the standard library's statistics module. Drop that entry.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import argparse
import random
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.machine import load_average


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def synthetic(systems: int, questions: int, seed: int = 2026) -> list[Any]:
    """S evaluations (exact, QA) of graded systems on one synthetic dataset."""
    from service.evaluation import evaluate
    from service.model import (
        AnswerSet,
        Dataset,
        Question,
        QuestionText,
        SystemAnswer,
        SystemRun,
        Term,
    )

    rng = random.Random(seed)
    golds = [[f"g{q}-{k}" for k in range(rng.randint(1, 5))] for q in range(questions)]
    dataset = Dataset(
        "synthetic",
        tuple(
            Question(
                str(q),
                (QuestionText("en", "q?"),),
                answers=AnswerSet.of(Term.literal(v) for v in gold),
            )
            for q, gold in enumerate(golds)
        ),
    )
    out = []
    for s in range(systems):
        quality = 0.25 + 0.5 * s / max(1, systems - 1)
        answers = {}
        for q, gold in enumerate(golds):
            found = [v for v in gold if rng.random() < quality]
            wrong = [f"x{q}-{k}" for k in range(rng.choice((0, 0, 1, 3)))]
            values = AnswerSet.of(Term.literal(v) for v in found + wrong)
            answers[str(q)] = SystemAnswer(str(q), answers=values)
        run = SystemRun(f"system-{s:02d}", answers)
        out.append(evaluate(dataset, run, profile="exact", experiment_types=["QA"]))
    return out


def vectorised(evaluations: Sequence[Any], resamples: int, shuffles: int) -> dict[str, float]:
    from service.evaluation import statistics as st
    from service.evaluation.results import ExperimentType

    tables = {
        ev.system: st.question_table(ev.tasks[ExperimentType.QA], scheme="standard")
        for ev in evaluations
    }
    for name, table in tables.items():  # the twins agree with the scorer before we time them
        for measure, value in st.point_values(table).items():
            if value is None or abs(value - float(table.point[measure])) > 1e-12:  # type: ignore[arg-type]
                raise SystemExit(f"{name} {measure}: twin {value} != scorer {table.point[measure]}")
    times: dict[str, float] = {}
    times["intervals"], cis = _timed(
        lambda: {n: st.bootstrap_intervals(t, resamples=resamples) for n, t in tables.items()}
    )
    measures = len(next(iter(cis.values())))
    times["ar macroF1"], ar = _timed(
        lambda: st.rank_systems(tables, "macroF1", test="ar", samples=shuffles)
    )
    times["ar microF1"], _ = _timed(
        lambda: st.rank_systems(tables, "microF1", test="ar", samples=shuffles)
    )
    times["mcnemar accuracy"], _ = _timed(lambda: st.rank_systems(tables, "accuracy"))
    times["bootstrap macroF1"], _ = _timed(
        lambda: st.rank_systems(tables, "macroF1", test="bootstrap", samples=resamples)
    )
    print(
        f"\nvectorised ({len(tables)} systems, {len(ar.pairs)} pairs, {measures} measures with "
        f"intervals per system):"
    )
    print(f"  intervals, {resamples} resamples, every measure:  {times['intervals']:7.2f} s")
    for key in ("ar macroF1", "ar microF1"):
        print(f"  all pairs, {key:<18} {shuffles} shuffles: {times[key]:7.2f} s")
    print(f"  all pairs, McNemar on accuracy (exact):      {times['mcnemar accuracy']:7.3f} s")
    print(
        f"  all pairs, paired bootstrap macroF1, {resamples}:   {times['bootstrap macroF1']:7.2f} s"
    )
    tiers = sorted(ar.tiers.items(), key=lambda kv: (kv[1] or 99, kv[0]))
    print("  tiers on macro F1: " + ", ".join(f"{n}:{t}" for n, t in tiers))
    return times


def reference(
    evaluations: Sequence[Any], draws: int, resamples: int, shuffles: int
) -> dict[str, float]:
    """The pure-Python scorer looped over resamples / shuffles, extrapolated."""
    from service.evaluation.measures import MEASURES, TaskRecords, require
    from service.evaluation.results import ExperimentType
    from service.evaluation.scoring import STANDARD

    # the aggregates of a standard-scheme task: micro and macro P/R/F1, macro F1 QALD, accuracy
    names = require(
        "microPrecision",
        "microRecall",
        "microF1",
        "macroPrecision",
        "macroRecall",
        "macroF1",
        "macroF1QALD",
        "accuracy",
    )

    def rows_of(ev: Any) -> list[Any]:
        return list(ev.tasks[ExperimentType.QA].questions)

    def aggregate(rows: list[Any]) -> dict[str, Any]:
        return MEASURES.recompute(names, TaskRecords(rows, STANDARD))

    a, b = rows_of(evaluations[0]), rows_of(evaluations[1])
    n = len(a)
    rng = random.Random(1)

    def bootstrap_loop() -> None:
        for _ in range(draws):
            aggregate([a[rng.randrange(n)] for _ in range(n)])

    def shuffle_loop() -> None:
        for _ in range(draws):
            swap = [rng.random() < 0.5 for _ in range(n)]
            x = [b[i] if s else a[i] for i, s in enumerate(swap)]
            y = [a[i] if s else b[i] for i, s in enumerate(swap)]
            aggregate(x)["macroF1"] - aggregate(y)["macroF1"]

    systems = len(evaluations)
    pairs = systems * (systems - 1) // 2
    per_boot, _ = _timed(bootstrap_loop)
    per_shuffle, _ = _timed(shuffle_loop)
    out = {
        "intervals": per_boot / draws * resamples * systems,
        "ar macroF1": per_shuffle / draws * shuffles * pairs,
    }
    print(
        f"\npure-Python reference (the registry's computations per draw; {draws} draws timed, "
        "extrapolated):"
    )
    print(
        f"  one resample {per_boot / draws * 1000:.2f} ms -> intervals for {systems} systems x "
        f"{resamples}: {out['intervals']:8.1f} s"
    )
    print(
        f"  one shuffle  {per_shuffle / draws * 1000:.2f} ms -> AR for {pairs} pairs x "
        f"{shuffles}: {out['ar macroF1']:8.1f} s"
    )
    return out


def import_cost(runs: int = 5) -> None:
    def median_ms(code: str) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
            times.append((time.perf_counter() - start) * 1000)
        return sorted(times)[len(times) // 2]

    bare = median_ms("pass")
    numpy = median_ms("import numpy")
    core = median_ms("from service.evaluation import evaluate")
    stats = median_ms(
        "from service.evaluation import evaluate; import service.evaluation.statistics"
    )
    print(f"\nimport cost, median of {runs} fresh processes (python -c):")
    print(f"  python itself                             {bare:6.0f} ms")
    print(f"  import numpy                              {numpy:6.0f} ms (+{numpy - bare:.0f})")
    print(f"  import evaluate (service.evaluation)      {core:6.0f} ms")
    print(f"  ... and service.evaluation.statistics     {stats:6.0f} ms (+{stats - core:.0f})")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--questions", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--shuffles", type=int, default=10000)
    parser.add_argument("--reference", type=int, default=40, help="draws timed in pure Python")
    args = parser.parse_args(argv)
    import numpy

    print(f"bench/statistics.py, numpy {numpy.__version__}; {load_average()}")
    evaluations = synthetic(args.systems, args.questions)
    ours = vectorised(evaluations, args.resamples, args.shuffles)
    theirs = reference(evaluations, args.reference, args.resamples, args.shuffles)
    print("\nspeed-up of the vectorised core over the pure-Python loop (same run):")
    for key, value in theirs.items():
        print(f"  {key:<11} {value / ours[key]:6.0f}x  ({value:.1f} s -> {ours[key]:.2f} s)")
    total = sum(ours.values())
    print(f"  everything above, vectorised: {total:.1f} s")
    import_cost()
    print(f"\n{load_average()}")


if __name__ == "__main__":
    main()
