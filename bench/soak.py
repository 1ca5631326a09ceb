"""The reliability suite at full size (``make soak``): kill -9 50 times per kind of write, 50
clients for 60 s with and without a private run, the query flood, the leak, SSRF, upload and
crash corpora, slow clients; then one table of what each test measured.

It runs ``tests/reliability`` with ``GERBIL_QA_SOAK=1`` (each test's soak size, see
``tests/reliability/figures.py``) in one pytest process, reads the figures the tests appended
to ``var/reliability.jsonl`` during this run, and prints them. The exit status is pytest's: a
failed test fails the soak. About 25 minutes on 2 cores (2026-11-27); every loop is bounded in
count and time, and all traffic stays on 127.0.0.1.

    .venv/bin/python bench/soak.py [tests/reliability/FILE …] [pytest options, e.g. -k kill9]
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where bench/http.py and
# bench/statistics.py would shadow the standard library's modules: drop that entry.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import json
import os
import signal
import subprocess
import time
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "var" / "reliability.jsonl"
# A hung test must not hold the machine for ever; the whole soak took 24.7 min on 2026-11-27
# (GERBIL_QA_SOAK_MINUTES sets another bound).
BOUND_MINUTES = float(os.environ.get("GERBIL_QA_SOAK_MINUTES") or 40)
# every file of the suite (a list kept by hand missed the newest), the longest first
FIRST = ("test_kill9.py", "test_load.py", "test_endpoint_flood.py", "test_private_leaks.py")
TESTS = [
    str(path.relative_to(ROOT))
    for path in sorted(
        (ROOT / "tests" / "reliability").glob("test_*.py"),
        key=lambda p: (p.name not in FIRST, FIRST.index(p.name) if p.name in FIRST else 0, p.name),
    )
]


def shown(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {shown(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def table(entries: list[dict[str, Any]]) -> str:
    """One line per test (entries of one test with a ``form`` are summed into one)."""
    merged: dict[str, dict[str, Any]] = {}
    for entry in entries:
        figures = {k: v for k, v in entry.items() if k not in ("test", "mode", "at")}
        name = entry["test"]
        if "form" in figures and name in merged:  # one line per attack form: add them up
            figures.pop("form")
            for key, value in figures.items():
                if isinstance(value, int | float) and isinstance(merged[name].get(key), int):
                    merged[name][key] += value
            merged[name]["forms"] = merged[name].get("forms", 1) + 1
            continue
        figures.pop("form", None)
        merged[name] = figures
    width = max((len(name) for name in merged), default=4)
    lines = [f"{'test'.ljust(width)}  figures", f"{'-' * width}  {'-' * 60}"]
    for name, figures in merged.items():
        text = ", ".join(f"{k} {shown(v)}" for k, v in figures.items())
        lines.append(f"{name.ljust(width)}  {text}")
    return "\n".join(lines)


class _Terminated(Exception):
    pass


def _terminated(signum: int, frame: object) -> None:
    raise _Terminated


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def main(argv: list[str]) -> int:
    LOG.parent.mkdir(parents=True, exist_ok=True)
    start = LOG.stat().st_size if LOG.exists() else 0
    env = {**os.environ, "GERBIL_QA_SOAK": "1", "PYTHONPATH": str(ROOT)}
    env.pop("GERBIL_QA_RELIABILITY_LOG", None)
    began = time.monotonic()
    chosen = [a for a in argv if a.startswith("tests/")]  # some files only, else all of them
    options = [a for a in argv if a not in chosen]
    # one process: the load and flood figures measure the server under test, not it beside
    # another test (the suite's two workers, pyproject.toml)
    command = [sys.executable, "-m", "pytest", *(chosen or TESTS), "-n", "0", "-q"]
    command += options
    print("soak:", " ".join(command[2:]), flush=True)
    # SIGINT as by default in pytest: a shell's background job inherits it ignored, and the
    # bound's Ctrl-C below would not reach the tests
    child = subprocess.Popen(command, cwd=ROOT, env=env, preexec_fn=_interruptible)
    stopped = ""  # why the tests were stopped before they ended
    signal.signal(signal.SIGTERM, _terminated)  # `kill` of the soak stops its tests too
    try:
        returncode = child.wait(timeout=BOUND_MINUTES * 60)
    except subprocess.TimeoutExpired:
        stopped, returncode = f"at its bound of {BOUND_MINUTES:g} min", 1
    except _Terminated:
        stopped, returncode = "by SIGTERM", 1
    finally:
        if child.poll() is None:  # interrupted, or past the bound: stop the tests too
            # SIGINT is pytest's KeyboardInterrupt: the test's fixtures are torn down and its
            # servers stopped (SIGTERM ended pytest at once and left them running)
            child.send_signal(signal.SIGINT)
            try:
                child.wait(60)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(10)
    elapsed = time.monotonic() - began
    entries = []
    if LOG.exists():  # no test may have written a figure yet
        with LOG.open("rb") as log:
            log.seek(start)
            text = log.read().decode("utf-8")
        entries = [json.loads(line) for line in text.splitlines() if line]
    print()
    print(table(entries))
    verdict = "passed" if returncode == 0 else f"FAILED (pytest exit {returncode})"
    if stopped:
        verdict = f"STOPPED {stopped} (the figures of what ran)"
    print(f"\nsoak {verdict} in {elapsed / 60:.1f} min; figures in {LOG.relative_to(ROOT)}")
    return returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
