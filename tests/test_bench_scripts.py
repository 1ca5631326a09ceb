"""Each benchmark script runs from its folder, beside bench/http.py (the name the issue gives
it), which would shadow the standard library's http package that urllib, requests and rdflib
import: bench/systems.py failed that way inside `make bench`. Each script must take its folder
off the front of sys.path before it imports anything that needs http."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py"))

# Run the script's top level as `python bench/X.py` would (its folder first on sys.path), but
# not its main(); then import what its functions import later.
PROBE = """
import runpy, sys
sys.path.insert(0, sys.argv[1])
runpy.run_path(sys.argv[2], run_name="bench_probe")
import http.client, urllib.request
print(http.client.__file__)
"""


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_does_not_shadow_the_http_package(script: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(BENCH), str(BENCH / script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert not done.stdout.strip().startswith(str(BENCH))
