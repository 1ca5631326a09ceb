"""The suite's rules (tests/layers.py), each shown on a real pytest run in a subprocess: with the
shared folder hidden the suite stops with one clear message; a layer is skipped only on request
and the last lines say so; with CI=true a skipped test fails the run; `pytest` alone collects."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import layers

ROOT = Path(__file__).resolve().parent.parent
OURS = ("CI", "GERBIL_QA_SKIP", "GERBIL_QA_SHARED", "GERBIL_QA_DATA", "GERBIL_QA_STANDARDS")

TINY = """
import pytest

def test_runs():
    pass

def test_skips():
    pytest.skip("nothing to do here")

@pytest.mark.browser
def test_in_a_browser():
    pass
"""


def _pytest(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in OURS and k != "PYTEST_ADDOPTS"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _tiny(
    tmp_path: Path, *args: str, body: str = TINY, **env: str
) -> subprocess.CompletedProcess[str]:
    """A generated test file, run with the suite's rules as its only plugin (and ``args``)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers = browser: drives a browser\n")
    (tmp_path / "test_tiny.py").write_text(body)
    return _pytest(
        "-q", "-p", "no:cacheprovider", "-p", "tests.layers", *args, "test_tiny.py",
        cwd=tmp_path, PYTHONPATH=str(ROOT), **env,
    )  # fmt: skip


def test_the_suite_stops_with_one_message_when_the_shared_folder_is_hidden(
    tmp_path: Path,
) -> None:
    hidden = tmp_path / "no-shared-here"
    done = _pytest(GERBIL_QA_SHARED=str(hidden))  # the whole suite, as `make test` runs it
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    message = done.stderr
    assert message.count("ERROR:") == 1, message
    assert f"missing the benchmark data ({hidden / 'data'})" in message
    assert f"the standards ({hidden / 'standards'})" in message
    assert "point GERBIL_QA_SHARED at it" in message
    assert "To run without them: GERBIL_QA_SKIP=shared" in message
    assert "no tests ran" in done.stdout  # stopped before the first test, not after


def test_skipping_the_shared_layer_is_explicit_and_named_in_the_last_lines(
    tmp_path: Path,
) -> None:
    needs = "tests/unit/test_formats_fast.py"  # its module holds paths into the data
    free = "tests/unit/test_profile_registry.py"  # needs nothing shared
    done = _pytest(needs, free, GERBIL_QA_SHARED=str(tmp_path), GERBIL_QA_SKIP="shared")
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.strip().splitlines()[-3:]
    ran = re.fullmatch(r"gerbil-qa test layers run: unit (\d+); (\d+) skipped", last[0])
    assert ran, last
    named = re.fullmatch(
        r"gerbil-qa test layers skipped by GERBIL_QA_SKIP: shared \((\d+) tests\)", last[1]
    )
    assert named, last
    assert last[2].startswith(f"{ran[1]} passed, {ran[2]} skipped in "), last
    assert int(ran[1]) > 0 and named[1] == ran[2] != "0"


def test_a_skip_passes_outside_ci_and_fails_the_run_with_ci_true(tmp_path: Path) -> None:
    local = _tiny(tmp_path, GERBIL_QA_SKIP="browser")
    assert local.returncode == 0, local.stdout + local.stderr
    assert "1 passed, 2 skipped" in local.stdout
    assert "skipped by GERBIL_QA_SKIP: browser (1 tests)" in local.stdout

    ci = _tiny(tmp_path, GERBIL_QA_SKIP="browser", CI="true")
    assert ci.returncode == pytest.ExitCode.TESTS_FAILED, ci.stdout + ci.stderr
    assert "skipped with CI=true (Skipped: nothing to do here)" in ci.stdout
    assert "skipped with CI=true (Skipped: GERBIL_QA_SKIP=browser)" in ci.stdout
    assert "CI=true: 2 skipped tests failed the run" in ci.stdout
    assert "1 failed, 1 passed, 1 error in" in ci.stdout  # skipped in the test, at its setup


def test_two_workers_give_the_last_lines_one_process_gives(tmp_path: Path) -> None:
    """Under pytest-xdist the workers collect and run; the controller prints the last lines
    from what they hand it: the browser layer, the skips asked for, the CI failures."""
    body = TINY + "\n@pytest.mark.browser\ndef test_also_in_a_browser():\n    pass\n"
    one = _tiny(tmp_path, "-n", "0", body=body, CI="true")
    two = _tiny(tmp_path, "-n", "2", "--dist", "loadscope", body=body, CI="true")
    assert "[gw1]" in two.stdout or "bringing up nodes" in two.stdout, two.stdout  # in workers
    for done in (one, two):
        assert done.returncode == 1, done.stdout + done.stderr
        assert "gerbil-qa test layers run: browser 2, top-level 2; 0 skipped" in done.stdout
        assert "CI=true: 1 skipped tests failed the run" in done.stdout
    asked = _tiny(tmp_path, "-n", "2", body=body, CI="true", GERBIL_QA_SKIP="browser")
    assert "skipped by GERBIL_QA_SKIP: browser (2 tests)" in asked.stdout, asked.stdout
    assert "CI=true: 3 skipped tests failed the run" in asked.stdout


def test_two_workers_fall_back_to_one_process_to_stop_with_one_message(tmp_path: Path) -> None:
    hidden = tmp_path / "no-shared-here"
    needs = "tests/unit/test_formats_fast.py"  # its module holds paths into the data
    done = _pytest("-n", "2", needs, GERBIL_QA_SHARED=str(hidden))
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert done.stderr.count("ERROR:") == 1 and "INTERNALERROR" not in done.stderr
    assert "To run without them: GERBIL_QA_SKIP=shared" in done.stderr


def test_ci_true_passes_when_nothing_skips(tmp_path: Path) -> None:
    done = _tiny(tmp_path, body="def test_runs():\n    pass\n", CI="true")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "gerbil-qa test layers run: top-level 1; 0 skipped" in done.stdout


def test_an_unknown_layer_name_is_refused(tmp_path: Path) -> None:
    done = _tiny(tmp_path, GERBIL_QA_SKIP="browser,brwoser")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR
    assert "GERBIL_QA_SKIP: unknown layer brwoser" in done.stderr


def test_plain_pytest_from_the_root_collects_every_unit_test() -> None:
    """`pytest tests/unit`, not `python -m pytest`: the root is on sys.path by configuration."""
    pytest_script = Path(sys.executable).with_name("pytest")
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    done = subprocess.run(
        [str(pytest_script), "--collect-only", "tests/unit"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.fullmatch(r"\d+ tests collected in [\d.]+s", done.stdout.strip().splitlines()[-1])
    modules = {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}
    assert modules == {f"tests/unit/{p.name}" for p in (ROOT / "tests/unit").glob("test_*.py")}


def test_a_missing_browser_is_named_with_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layers, "CHROMIUM", sys.executable)  # a file that is there
    monkeypatch.setattr(layers, "CHROMEDRIVER", "/nonexistent/chromedriver")
    missing = layers.missing_browser()
    assert "Debian chromium-driver (/nonexistent/chromedriver)" in missing
    assert not any("Debian chromium (" in m for m in missing)


def test_the_ci_allow_list_says_why_for_each_entry() -> None:
    assert all(why.strip() for why in layers.CI_ALLOWED_SKIPS.values())
