"""A wheel built from a checkout names the commit it was built from (``pip install .``).

Before, an installed package had no ``.git`` beside it, so every experiment it recorded named
its evaluator by the release alone (``0.1.0``): many different programs, and the page's
"Reproduce these numbers" could not say which commit to install.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from service import __version__

ROOT = Path(__file__).resolve().parents[2]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_installed_wheel_records_its_commit(tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    head = _git(repo, "rev-parse", "HEAD")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(repo), "--no-deps", "--no-build-isolation",
         "-q", "-w", str(tmp_path / "wheels")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "wheels").glob("gerbil_qa-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("service/REVISION").decode() == f"{head}\n"
        archive.extractall(tmp_path / "site")
    assert _git(repo, "status", "--porcelain") == ""  # the file lived only for the build
    # installed: no .git beside the package; the dependencies are this environment's
    shown = subprocess.run(
        [sys.executable, "-c", "from service import release; print(release.source().version)"],
        capture_output=True, text=True, cwd=tmp_path, check=True,
        env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert shown.stdout.strip() == f"{__version__}+g{head[:12]}"
