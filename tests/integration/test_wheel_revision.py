"""What ``pip install .`` installs: a package that names its commit and carries its data.

Before, an installed package had no ``.git`` beside it, so every experiment it recorded named
its evaluator by the release alone (``0.1.0``): many different programs, and the page's
"Reproduce these numbers" could not say which commit to install. Nor had it the checkout's
``ontology/``, ``shapes/`` and ``datasets/`` beside it: ``gerbil-qa datasets`` and ``evaluate
--dataset NAME`` died on a missing ``datasets/catalog.ttl``, ``serve`` on the demo's files, and
``serve --no-demo`` served an empty vocabulary. The wheel carries them as ``service/_data/``.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from service import __version__

ROOT = Path(__file__).resolve().parents[2]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def _build_wheel(source: Path, out: Path) -> Path:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
         "-q", "-w", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = out.glob("gerbil_qa-*.whl")
    return wheel


def _installed(site: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``args`` run by the unpacked wheel, outside the checkout (no .git, no data beside it)."""
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, timeout=120,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", **env},
    )  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A clone of the checkout's HEAD, its wheel, and the wheel unpacked (site-packages)."""
    tmp = tmp_path_factory.mktemp("wheel")
    repo = tmp / "checkout"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    wheel = _build_wheel(repo, tmp / "wheels")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp / "site")
    return repo, wheel, tmp / "site"


def test_the_installed_wheel_records_its_commit(built: tuple[Path, Path, Path]) -> None:
    repo, wheel, site = built
    head = _git(repo, "rev-parse", "HEAD")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("service/REVISION").decode() == f"{head}\n"
    # the file lived only for the build, and so did the copies of the data folders
    assert _git(repo, "status", "--porcelain") == ""
    # (an ignored bytecode cache the build's imports may leave is no copy of them)
    assert not (repo / "service" / "_data").exists()
    ignored = _git(repo, "status", "--porcelain", "--ignored", "service").splitlines()
    assert all(line.endswith("__pycache__/") for line in ignored), ignored
    # installed: no .git beside the package; the dependencies are this environment's
    shown = _installed(
        site, site.parent, "-c", "from service import release; print(release.source().version)"
    )
    assert shown.stdout.strip() == f"{__version__}+g{head[:12]}", shown.stderr


def test_the_installed_wheel_carries_the_vocabulary_shapes_and_datasets(
    built: tuple[Path, Path, Path], data_dir: Path
) -> None:
    repo, wheel, site = built
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for folder in ("ontology", "shapes", "datasets"):
        files = {p.relative_to(repo).as_posix() for p in (repo / folder).rglob("*") if p.is_file()}
        assert files and {f"service/_data/{f}" for f in files} <= names, folder
    cwd = site.parent  # no checkout here, nor above
    listed = _installed(site, cwd, "-m", "service", "datasets")
    assert listed.returncode == 0, listed.stderr
    assert "qald-8-test-multilingual" in listed.stdout
    # the vocabulary and the shapes the installed package reads are the checkout's, whole
    count = (
        "from service.graph import vocabulary; from service.paths import SHAPES_DIR; "
        "print(sum(1 for _ in vocabulary.vocabulary_triples()), "
        "len(list(SHAPES_DIR.glob('*.ttl'))))"
    )
    here = subprocess.run(
        [sys.executable, "-c", count], capture_output=True, text=True, cwd=ROOT, check=True
    )
    there = _installed(site, cwd, "-c", count)
    assert there.stdout == here.stdout and int(here.stdout.split()[0]) > 1000, there.stderr
    # a built-in dataset by its name: its description comes from the package's datasets/
    gold = data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-test-multilingual.json"
    scored = _installed(
        site, cwd, "-m", "service", "evaluate", "--dataset", "qald-8-test-multilingual",
        "--answers", str(gold), "--output", "json", GERBIL_QA_DATA=str(data_dir),
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    assert '"macroF1": 1.0' in scored.stdout.replace(" ", "").replace(":", ": ")


def test_the_sdist_carries_the_data_folders_and_builds_a_wheel_that_has_them(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    repo = built[0]
    made = subprocess.run(
        [sys.executable, "-c",
         "import sys; sys.path.insert(0, 'build_support'); import revision_backend; "
         f"print(revision_backend.build_sdist({str(tmp_path)!r}))"],
        capture_output=True, text=True, cwd=repo, timeout=120,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    sdist = tmp_path / made.stdout.strip().splitlines()[-1]
    with tarfile.open(sdist) as archive:
        top = f"gerbil_qa-{__version__}"
        names = set(archive.getnames())
        for needed in ("ontology/gerbil-qa.ttl", "shapes/gerbil-qa-shapes.ttl",
                       "datasets/catalog.ttl", "datasets/demo/kb.ttl",
                       "build_support/revision_backend.py"):  # fmt: skip
            assert f"{top}/{needed}" in names, needed
        archive.extractall(tmp_path / "unpacked", filter="data")
    wheel = _build_wheel(tmp_path / "unpacked" / top, tmp_path / "wheels")
    with zipfile.ZipFile(wheel) as archive:
        assert "service/_data/datasets/catalog.ttl" in archive.namelist()
