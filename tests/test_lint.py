"""`ruff check`, `ruff format --check` and mypy are part of the test suite, so CI enforces them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    exe = Path(sys.executable).with_name("ruff")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("ruff")
    if not found:
        pytest.fail("ruff is not installed: run `make install` (it is in the test extra)")
    return [found]


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]])
def test_ruff_is_clean(args: list[str]) -> None:
    done = subprocess.run([*_ruff(), *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_is_clean() -> None:
    """The type checker over service/ (pyproject's [tool.mypy]) reports nothing."""
    exe = Path(sys.executable).with_name("mypy")
    if not exe.exists():
        pytest.fail("mypy is not installed: run `make install` (it is in the test extra)")
    done = subprocess.run([str(exe)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
