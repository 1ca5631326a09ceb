"""Evaluation speed: questions per second in-process, and whole-process ``gerbil-qa evaluate``
against the start-up time of ``python -c "import rdflib"`` measured in the same run.

    .venv/bin/python bench/evaluate.py [--runs N]

Prints, for QALD-9 train (408 questions, every experiment type, each profile), the questions
per second of ``service.evaluation.evaluate`` (median of N runs, each in a fresh state of the
identity caches: the first evaluation of a process is what a user waits for); then the median
wall time of ``gerbil-qa evaluate`` on QALD-9 test with the gold file as the answers (default
profile ``fair``, default experiment types, JSON output) and on the QALD-8 train set with a real
system's answers (TeBaQA), each next to ``python -c "import rdflib"``, and their ratio (target:
at most 1.5).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("GERBIL_QA_DATA", ROOT.parent / "shared" / "data")).resolve()
QALD = DATA / "qald" / "ag-sc_QALD"
TRAIN9 = QALD / "9" / "data" / "qald-9-train-multilingual.json"
TEST9 = QALD / "9" / "data" / "qald-9-test-multilingual.json"
TRAIN8 = QALD / "8" / "data" / "qald-8-train-multilingual.json"
TEBAQA = DATA / "system-outputs" / "qald8-train" / "TeBaQA_QALD8_Train.json"
GERBIL_QA = Path(sys.executable).with_name("gerbil-qa")


def _clear_caches() -> None:
    from service.evaluation.matchers import fair
    from service.kb import identity

    fair._as_item.cache_clear()
    identity.canonical_iri.cache_clear()
    identity.canonical_iris.cache_clear()


def in_process(runs: int) -> None:
    sys.path.insert(0, str(ROOT))
    from service.evaluation import PROFILES, evaluate
    from service.formats import read
    from service.model import system_run

    gold = read(TRAIN9)
    run = system_run(gold, system="gold")
    types = ["QA", "C2KB", "P2KB", "RE2KB", "AT", "AIT2KB"]
    print(f"in-process evaluate, QALD-9 train ({len(gold)} questions, gold as answers), ")
    print(f"all experiment types, median of {runs} runs with cold caches:")
    for name, profile in PROFILES.items():
        times = []
        for _ in range(runs):
            _clear_caches()
            start = time.perf_counter()
            ev = evaluate(gold, run, profile=profile, experiment_types=types)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        scored = len(ev.tasks)
        print(
            f"  {name:12} {len(gold) / median:8.0f} questions/s  ({median * 1000:6.1f} ms, "
            f"{scored} experiment types)"
        )


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=env
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.decode()[-2000:]}")
    return elapsed


def _environments(cache_dir: str) -> list[tuple[str, dict[str, str]]]:
    """Both commands under the same bytecode policy (a cache in a scratch directory, so the
    working tree and site-packages stay untouched), and under the environment as it is (here
    PYTHONDONTWRITEBYTECODE=1 may be set: then our modules are compiled on every run while
    rdflib's installed .pyc files are used)."""
    cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cached["PYTHONPYCACHEPREFIX"] = cache_dir
    as_is = dict(os.environ)
    flag = as_is.get("PYTHONDONTWRITEBYTECODE", "unset")
    return [
        ("both with a bytecode cache", cached),
        (f"environment as it is (PYTHONDONTWRITEBYTECODE={flag})", as_is),
    ]


def whole_process(runs: int) -> None:
    rdflib = [sys.executable, "-c", "import rdflib"]
    cases = [
        ("QALD-9 test, gold as answers", TEST9, TEST9),
        ("QALD-8 train, TeBaQA's answers", TRAIN8, TEBAQA),
    ]
    print(f"\nwhole process, median of {runs} runs each, interleaved with the reference:")
    with tempfile.TemporaryDirectory(prefix="gerbil-qa-bench-") as cache_dir:
        for policy, env in _environments(cache_dir):
            print(f"  {policy}")
            for label, dataset, answers in cases:
                cmd = [str(GERBIL_QA), "evaluate", "--dataset", str(dataset)]
                cmd += ["--answers", str(answers), "--output", "json"]
                _wall(cmd, env)  # warm the OS file cache (and the bytecode cache) once
                _wall(rdflib, env)
                ours, ref = [], []
                for _ in range(runs):
                    ours.append(_wall(cmd, env))
                    ref.append(_wall(rdflib, env))
                a, b = statistics.median(ours), statistics.median(ref)
                print(f"    {label}")
                print(
                    f"      gerbil-qa evaluate (fair, default types): {a * 1000:7.1f} ms "
                    f"(min {min(ours) * 1000:.1f})"
                )
                print(
                    f"      python -c 'import rdflib':                {b * 1000:7.1f} ms "
                    f"(min {min(ref) * 1000:.1f})"
                )
                print(f"      ratio of medians: {a / b:.2f} (target <= 1.5)")


def _load() -> str:
    try:
        one, five, fifteen = os.getloadavg()
        return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"
    except OSError:
        return "load average unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per measurement (>= 5)")
    args = parser.parse_args()
    if not TRAIN9.is_file():
        raise SystemExit(f"QALD data not found under {QALD} (set GERBIL_QA_DATA)")
    print(_load())
    in_process(max(args.runs, 5))
    whole_process(max(args.runs, 5))
    print(_load())


if __name__ == "__main__":
    main()
