"""The graph commands end to end: ``evaluate --store`` for every profile, then ``check --store``
reports no Data Cube or SHACL violation over what was written; ``export``/``import`` by CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import build_parser
from service.evaluation.profiles import PROFILES
from service.graph.store import open_storage
from tests.conftest import DATA, QALD

ROOT = Path(__file__).resolve().parents[2]
QALD8_TEST = QALD / "8" / "data" / "qald-8-test-multilingual.json"
POLEVAL_DEV = DATA / "poleval2021" / "dev-0"


def _evaluate_with_store(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    """``gerbil-qa evaluate … --store`` through the full parser (every area's options)."""
    args = build_parser().parse_args(["evaluate", *argv, "--output", "json"])
    assert args.handler(args) == 0
    return json.loads(capsys.readouterr().out.splitlines()[0])


@pytest.fixture(scope="module")
def poleval_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 40 PolEval dev-0 questions (expected.tsv with its in.tsv beside it)."""
    folder = tmp_path_factory.mktemp("poleval")
    for name in ("in.tsv", "expected.tsv"):
        lines = (POLEVAL_DEV / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (folder / name).write_text("".join(lines[:40]), encoding="utf-8")
    return folder / "expected.tsv"


def test_evaluate_store_then_check_finds_nothing_for_every_profile(
    data_dir: Path,
    standards_dir: Path,
    tmp_path: Path,
    poleval_files: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "store"
    recorded = []
    for name in PROFILES:
        # the gold file as a (perfect) system's answers; PolEval scores its own TSV data
        data = poleval_files if name == "poleval" else QALD8_TEST
        out = _evaluate_with_store(
            [
                "--dataset",
                str(data),
                "--answers",
                str(data),
                "--profile",
                name,
                "--store",
                str(store),
            ],
            capsys,
        )
        assert out["profile"] == name and out["experiment"]["uri"].endswith(out["experiment"]["id"])
        recorded.append(out["experiment"]["id"])
    assert len(set(recorded)) == len(PROFILES)
    with open_storage(store) as graph:
        assert {s.id for s in graph.experiments.listing(include_private=True)} == set(recorded)
    done = subprocess.run(
        [sys.executable, "-m", "service", "check", "--store", str(store)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.strip().endswith("0 violation(s)")


def test_check_reports_a_violation_in_the_store(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A violation is printed and counted; while it works, ``check`` says how far it got (a
    loaded store took minutes with nothing said: explore63), here after each graph."""
    from service.cli import graph as graph_cli
    from service.cli import main

    store = tmp_path / "store"
    out = _evaluate_with_store(
        ["--dataset", str(QALD8_TEST), "--answers", str(QALD8_TEST), "--store", str(store)], capsys
    )
    with open_storage(store) as graph:  # a task loses its system dimension: IC-11
        task = graph.uris.task(out["experiment"]["id"], 1)
        annotator = "http://w3id.org/gerbil/vocab#annotator"
        graph.private.update(f"DELETE WHERE {{ GRAPH ?g {{ <{task}> <{annotator}> ?s }} }}")
    monkeypatch.setattr(graph_cli._Progress, "EVERY", 0.0)
    assert main(["check", "--store", str(store), "--no-shapes"]) == 1
    said = capsys.readouterr()
    assert "IC-11" in said.out and said.err.strip().endswith("1 violation(s)")
    assert "checked 1 of " in said.err and "violation(s) so far" in said.err, said.err


def test_evaluate_store_through_the_dispatcher(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "service", "evaluate"),
            *("--dataset", str(QALD8_TEST), "--answers", str(QALD8_TEST)),
            *("--store", str(tmp_path / "store")),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
