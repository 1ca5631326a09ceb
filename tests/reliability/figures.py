"""What the reliability tests share: their size (CI or soak), the figures they report, and the
real command line and server they drive in subprocesses.

Every test sizes its loops with :func:`scaled` (the CI size, or the soak's when
``GERBIL_QA_SOAK=1``: ``make soak``), prints its figures and appends them as one JSON line to
``var/reliability.jsonl`` (:func:`record`; ``GERBIL_QA_RELIABILITY_LOG`` names another file), so
``pytest -s`` shows them and ``bench/soak.py`` tabulates them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[2]
GERBIL_QA = [sys.executable, "-m", "service"]
SOAK = os.environ.get("GERBIL_QA_SOAK", "") == "1"
LOG = Path(os.environ.get("GERBIL_QA_RELIABILITY_LOG") or ROOT / "var" / "reliability.jsonl")
SEED = int(os.environ.get("GERBIL_QA_RELIABILITY_SEED") or 13)


def scaled(ci: int | float, soak: int | float) -> Any:
    """The CI size of a loop, or its soak size under ``GERBIL_QA_SOAK=1``."""
    return soak if SOAK else ci


def percentile(values: Sequence[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank; 0.0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def record(test: str, **figures: Any) -> None:
    """Print a test's figures and append them to the reliability log as one JSON line."""
    shown = ", ".join(f"{key} {value}" for key, value in figures.items())
    print(f"\n[reliability] {test}: {shown}")
    entry = {
        "test": test,
        "mode": "soak" if SOAK else "ci",
        "at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        **figures,
    }
    LOG.parent.mkdir(parents=True, exist_ok=True)
    with LOG.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, sort_keys=False) + "\n")


def cli_env(**extra: str) -> dict[str, str]:
    """The environment of a ``gerbil-qa`` subprocess: this checkout first on the path."""
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def cli(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``gerbil-qa ARGS`` (``python -m service``) to the end."""
    return subprocess.run(
        [*GERBIL_QA, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=cli_env(**env),
        timeout=timeout,
        check=False,
    )


def start_cli(*args: str, output: Path | None = None, **env: str) -> subprocess.Popen[bytes]:
    """Start ``gerbil-qa ARGS`` in the background (its output is dropped, or goes to the file
    ``output``)."""
    sink = subprocess.DEVNULL if output is None else output.open("wb")
    try:
        return subprocess.Popen(
            [*GERBIL_QA, *args], cwd=ROOT, env=cli_env(**env), stdout=sink, stderr=sink
        )
    finally:
        if output is not None:
            sink.close()  # type: ignore[union-attr]  # the child has its own descriptor


class Served:
    """``gerbil-qa serve`` in a subprocess on 127.0.0.1 (the real server as an operator runs
    it), stopped with SIGKILL or SIGTERM."""

    def __init__(
        self,
        store: Path | str,
        *,
        demo: bool = False,
        base: str | None = None,
        output: Path | None = None,
        options: tuple[str, ...] = (),
        port: int | None = None,
        **env: str,
    ) -> None:
        from tests.web.conftest import free_port

        self.port = port or free_port()  # a given one: the same server started again
        self.url = f"http://127.0.0.1:{self.port}/"
        self.base = base or self.url  # replicas share one base (the proxy's), not their URL
        args = ["serve", "--store", str(store), "--port", str(self.port), "--base", self.base]
        args += [*options, *([] if demo else ["--no-demo"])]
        self.process = start_cli(*args, output=output, **env)
        try:
            self._wait_started(demo)
        except BaseException:  # and interrupted while it started: never left running
            self.kill()
            raise

    def _wait_started(self, demo: bool) -> None:
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(self.url + "api/profiles", timeout=2)
                break
            except (requests.ConnectionError, requests.Timeout) as err:  # bound, still starting
                if self.process.poll() is not None or time.monotonic() > deadline:
                    code = self.process.returncode
                    raise RuntimeError(f"gerbil-qa serve did not start ({code})") from err
                time.sleep(0.05)
        if demo:  # the demo experiment is computed at the first start: wait for it
            while not requests.get(self.url + "api/experiments", timeout=30).json()["experiments"]:
                if time.monotonic() > deadline:
                    raise RuntimeError("the demo experiment was not published")
                time.sleep(0.1)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
