"""Evaluation speed: questions per second in-process, and whole-process ``gerbil-qa evaluate``
against the start-up time of ``python -c "import rdflib"`` measured in the same run.

    .venv/bin/python bench/evaluate.py [--runs N]

1. Compiles the bytecode of ``service`` and of rdflib (``compileall``; only stale files are
   rewritten), so both commands start from compiled modules whatever the environment says
   (``PYTHONDONTWRITEBYTECODE=1`` would otherwise make every run recompile our modules).
2. In-process, QALD-9 train (408 questions, gold as answers, every experiment type): the time
   of ``service.formats.read`` and the questions per second of ``service.evaluation.evaluate``
   under each profile (median of N runs, each with cold identity caches: the first evaluation
   of a process is what a user waits for).
3. Whole process, median of N runs interleaved with ``python -c "import rdflib"`` (the order
   alternates each round): ``gerbil-qa evaluate --output json`` with the default profile and
   experiment types on QALD-9 test with the gold file as the answers, and on QALD-8 train with
   a real system's answers (TeBaQA). Target: ratio of medians at most 1.5.
4. When valgrind is installed, the instructions each command executes (a figure other jobs on
   a shared machine cannot disturb; a companion to the times, not the target).

The machine's load average is printed before and after: on a shared machine, read the ratio
(measured in the same run) rather than the absolute times.
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where bench/http.py and
# bench/statistics.py would shadow the standard library's http package and statistics module
# (urllib, requests and rdflib import http): put the project root there before any import.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import argparse
import compileall
import importlib.util
import os
import platform
import re
import shutil
import statistics
import subprocess
import time
from types import ModuleType

from bench.machine import load_average

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("GERBIL_QA_DATA", ROOT.parent / "shared" / "data")).resolve()
QALD = DATA / "qald" / "ag-sc_QALD"
TRAIN9 = QALD / "9" / "data" / "qald-9-train-multilingual.json"
TEST9 = QALD / "9" / "data" / "qald-9-test-multilingual.json"
TRAIN8 = QALD / "8" / "data" / "qald-8-train-multilingual.json"
TEBAQA = DATA / "system-outputs" / "qald8-train" / "TeBaQA_QALD8_Train.json"
GERBIL_QA = Path(sys.executable).with_name("gerbil-qa")
ALL_TYPES = ["QA", "C2KB", "P2KB", "RE2KB", "AT", "AIT2KB"]
TARGET = 1.5


def compile_bytecode() -> None:
    """Compile ``service`` and rdflib in place (stale files only), as ``make install`` does."""
    spec = importlib.util.find_spec("rdflib")
    if spec is None or spec.origin is None:
        raise SystemExit("rdflib is not installed")
    directories = (ROOT / "service", Path(spec.origin).parent)
    for directory in directories:
        if not compileall.compile_dir(directory, quiet=1, workers=1):
            raise SystemExit(f"compileall failed for {directory}")
    print("bytecode compiled (stale files only): " + ", ".join(map(str, directories)))


def _clear_caches(modules: list[ModuleType]) -> None:
    """Empty every ``functools.lru_cache`` of ``modules`` (identity and item caches)."""
    for module in modules:
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def _median_time(fn: object, runs: int, before: object = None) -> float:
    times = []
    for _ in range(runs):
        if callable(before):
            before()
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def in_process(runs: int) -> None:
    from service.evaluation import PROFILES, evaluate
    from service.evaluation.matchers import fair, gerbil, qald
    from service.formats import read
    from service.kb import identity
    from service.model import system_run

    cached = [fair, gerbil, qald, identity]
    read_time = _median_time(lambda: read(TRAIN9), runs)
    gold = read(TRAIN9)
    run = system_run(gold, system="gold")
    print(
        f"\nin-process, QALD-9 train ({len(gold)} questions, gold as answers, all experiment "
        f"types), median of {runs} runs:"
    )
    print(f"  service.formats.read   {read_time * 1000:7.1f} ms ({len(gold) / read_time:.0f} q/s)")
    for name, profile in PROFILES.items():
        holder: list[object] = []

        def once(profile: object = profile, holder: list[object] = holder) -> None:
            holder[:] = [evaluate(gold, run, profile=profile, experiment_types=ALL_TYPES)]

        median = _median_time(once, runs, before=lambda: _clear_caches(cached))
        scored = len(holder[0].tasks)  # type: ignore[attr-defined]
        print(
            f"  evaluate {name:12} {len(gold) / median:7.0f} questions/s ({median * 1000:6.1f} ms,"
            f" {scored} experiment types scored)"
        )


def _wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.decode()[-2000:]}")
    return elapsed


def whole_process(runs: int) -> list[float]:
    rdflib = [sys.executable, "-c", "import rdflib"]
    cases = [
        ("QALD-9 test, gold as answers", TEST9, TEST9),
        ("QALD-8 train, TeBaQA's answers", TRAIN8, TEBAQA),
    ]
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE", "unset")
    print(
        f"\nwhole process, median of {runs} runs each, interleaved with the reference "
        f"(PYTHONDONTWRITEBYTECODE={flag}; bytecode compiled above):"
    )
    ratios = []
    for label, dataset, answers in cases:
        cmd = [str(GERBIL_QA), "evaluate", "--dataset", str(dataset)]
        cmd += ["--answers", str(answers), "--output", "json"]
        _wall(cmd)  # warm the OS file cache once
        _wall(rdflib)
        ours, ref = [], []
        for i in range(runs):
            if i % 2 == 0:
                ours.append(_wall(cmd))
                ref.append(_wall(rdflib))
            else:
                ref.append(_wall(rdflib))
                ours.append(_wall(cmd))
        a, b = statistics.median(ours), statistics.median(ref)
        ratios.append(a / b)
        verdict = "ok" if a / b <= TARGET else "OVER TARGET"
        print(f"  {label}")
        print(
            f"    gerbil-qa evaluate (fair, default types): {a * 1000:7.1f} ms "
            f"(min {min(ours) * 1000:.1f}, max {max(ours) * 1000:.1f})"
        )
        print(
            f"    python -c 'import rdflib':                {b * 1000:7.1f} ms "
            f"(min {min(ref) * 1000:.1f}, max {max(ref) * 1000:.1f})"
        )
        print(f"    ratio of medians: {a / b:.2f} (target <= {TARGET}: {verdict})")
    return ratios


def _instructions(cmd: list[str]) -> int | None:
    """Instructions executed by ``cmd`` (valgrind's callgrind), or None if it fails."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    found = re.search(rb"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if done.returncode == 0 and found else None


def instruction_counts() -> None:
    """The same comparison in instructions: no noise from other jobs on the machine, but not
    the target (an instruction of rdflib's import, which reads many small files, costs more
    time than one of ours)."""
    if shutil.which("valgrind") is None:
        print("\ninstructions: valgrind not found, skipped (apt-get install valgrind)")
        return
    ours = [str(GERBIL_QA), "evaluate", "--dataset", str(TEST9), "--answers", str(TEST9)]
    ours += ["--output", "json"]
    a = _instructions(ours)
    b = _instructions([sys.executable, "-c", "import rdflib"])
    if a is None or b is None:
        print("\ninstructions: valgrind failed, skipped")
        return
    print(
        f"\ninstructions (callgrind, deterministic), QALD-9 test gold as answers: "
        f"{a / 1e6:.0f} M; import rdflib: {b / 1e6:.0f} M; ratio {a / b:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per measurement (at least 7)")
    args = parser.parse_args()
    runs = max(args.runs, 7)
    for path in (TRAIN9, TEST9, TRAIN8, TEBAQA):
        if not path.is_file():
            raise SystemExit(f"benchmark data not found: {path} (set GERBIL_QA_DATA)")
    if not GERBIL_QA.is_file():
        raise SystemExit(f"{GERBIL_QA} not found: run `make install` first")
    print(f"Python {platform.python_version()} on {platform.machine()}; {load_average()}")
    compile_bytecode()
    in_process(runs)
    whole_process(runs)
    instruction_counts()
    print(load_average())


if __name__ == "__main__":
    main()
