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


def test_no_two_test_modules_share_a_name() -> None:
    """pytest imports test modules by their base name (the folders are no packages): a second
    ``test_full_disk.py`` in another folder stopped the whole run at collection."""
    names: dict[str, list[str]] = {}
    for path in (ROOT / "tests").rglob("test_*.py"):
        names.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert not {name: paths for name, paths in names.items() if len(paths) > 1}
