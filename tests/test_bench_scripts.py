"""Each benchmark script runs from its folder, beside bench/http.py and bench/statistics.py (the
names the issues give them), which would shadow the standard library's http package that urllib,
requests and rdflib import, and its statistics module: bench/systems.py failed that way inside
`make bench`, and bench/evaluate.py imported bench/statistics.py as `statistics`. Each script
must take its folder off the front of sys.path before it imports anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
# the scripts (bench/machine.py is a module they import, never run)
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if "__main__" in p.read_text())

# Run the script's top level as `python bench/X.py` would (its folder first on sys.path), but
# not its main(); then import what its functions import later.
PROBE = """
import runpy, sys
sys.path.insert(0, sys.argv[1])
runpy.run_path(sys.argv[2], run_name="bench_probe")
import http.client, statistics, urllib.request
print(http.client.__file__)
print(statistics.__file__)
"""


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_does_not_shadow_the_standard_library(script: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(BENCH), str(BENCH / script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()[-2:]  # where http.client and statistics came from
    assert len(lines) == 2 and not any(line.startswith(str(BENCH)) for line in lines), lines


SAME_SCORES = """
import random
from bench.pages import synthetic
from bench.store import evaluation
from service.evaluation.results import ExperimentType
paged = synthetic(5, 0, random.Random(3)).tasks[ExperimentType.QA].questions
stored = evaluation(5, system="s", dataset="d", rng=random.Random(3))
print(paged == stored.tasks[ExperimentType.QA].questions, [q.f1 for q in paged])
"""


def test_the_page_and_store_benches_score_synthetic_questions_alike() -> None:
    # bench/pages.py writes its store "as bench/store.py does": the same questions from a seed
    done = subprocess.run(
        [sys.executable, "-c", SAME_SCORES],
        cwd=BENCH.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    same, f1s = done.stdout.split(" ", 1)
    assert same == "True" and f1s.strip() == "[0.0, 1.0, 1.0, 0.0, 0.5]", done.stdout


def test_a_soak_stopped_stops_the_running_tests_servers(tmp_path: Path) -> None:
    """`make soak` stopped (past its bound, or by SIGTERM) interrupts its tests as Ctrl-C does,
    so the running test's fixtures stop its servers: it sent SIGTERM, which ended pytest at
    once and left the test's two `oxigraph serve` processes running (found by hand after a
    soak). Started as a background job is (SIGINT ignored), which the soak undoes for its
    tests; stopped once the test's servers run."""
    import os
    import signal
    import time

    basetemp = tmp_path / "soak-tests"
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    soak = subprocess.Popen(
        [sys.executable, str(BENCH / "soak.py"), "tests/reliability/test_replicas.py",
         "-k", "dead_replicas", f"--basetemp={basetemp}"],
        cwd=BENCH.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while len(_running_under(basetemp)) < 2:  # the test's public and private stores
            assert soak.poll() is None and time.monotonic() < deadline, "no servers started"
            time.sleep(0.1)
        soak.send_signal(signal.SIGTERM)
        out, _ = soak.communicate(timeout=120)
    finally:
        if soak.poll() is None:
            soak.kill()
    assert soak.returncode == 1, out
    assert "soak STOPPED by SIGTERM" in out and "KeyboardInterrupt" in out, out
    deadline = time.monotonic() + 10
    while left := _running_under(basetemp):
        assert time.monotonic() < deadline, f"still running: {left}"
        time.sleep(0.2)


def _running_under(folder: Path) -> list[str]:
    """The processes whose command line names ``folder`` (the tests' servers)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            line = (proc / "cmdline").read_bytes()
        except OSError:  # not a process, or it ended
            continue
        if str(folder).encode() in line and b"oxigraph" in line:
            found.append(line.replace(b"\0", b" ").decode(errors="replace"))
    return found
