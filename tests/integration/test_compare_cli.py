"""``gerbil-qa compare`` (issue 11 item 2): the JSON contract, names as ``evaluate`` gives them,
tiers, byte-identical output for one seed, CSV and table, and a clear error for one system."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from service.evaluation import evaluate
from service.evaluation.comparison import compare
from service.formats import read
from service.model import system_run

SYSTEMS = ("AskNow", "GANSWER2", "QAKIS", "QANSWER", "QASystem", "TeBaQA")


def _args(data_dir: Path) -> list[str]:
    gold = data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json"
    outputs = data_dir / "system-outputs" / "qald8-train"
    answers = [str(outputs / f"{s}_QALD8_Train.json") for s in SYSTEMS]
    return ["compare", "--dataset", str(gold), "--answers", *answers, "--profile", "exact"]


def test_json_contract_and_the_library_agree(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_args(data_dir), "--output", "json", "--types", "QA"]) == 0
    first = capsys.readouterr().out
    data = json.loads(first)
    contract = ["dataset", "profile", "signature", "seed", "resamples", "test", "systems", "pairs"]
    assert list(data) == contract
    names = [s["system"] for s in data["systems"]]
    assert sorted(names) == sorted(f"{s}_QALD8_Train" for s in SYSTEMS)  # evaluate's names
    assert {s["system"]: s["tier"] for s in data["systems"]}["GANSWER2_QALD8_Train"] == 1
    assert len(data["pairs"]) == 15 and {"pValue", "pAdjusted"} <= set(data["pairs"][0])
    # the same as the library on the same evaluations
    gold = read(data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json")
    folder = data_dir / "system-outputs" / "qald8-train"
    evaluations = [
        evaluate(
            gold,
            system_run(read(folder / f"{s}_QALD8_Train.json"), system=f"{s}_QALD8_Train"),
            profile="exact",
            experiment_types=["QA"],
        )
        for s in SYSTEMS
    ]
    assert compare(evaluations).to_json() == data
    # one seed, byte-identical output
    assert main([*_args(data_dir), "--output", "json", "--types", "QA"]) == 0
    assert capsys.readouterr().out == first


def test_table_csv_and_errors(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*_args(data_dir), "--types", "QA", "--resamples", "200", "--samples", "500"]) == 0
    table = capsys.readouterr().out
    assert "tier  system" in table and "p adjusted" in table and "|n:200|" in table
    assert main([*_args(data_dir), "--types", "QA", "--output", "csv", "--seed", "7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "system,tier,macroF1,low,high" and len(lines) == 1 + len(SYSTEMS)
    one = _args(data_dir)[:5]
    assert main(one) == 1
    assert "compare needs at least two --answers files" in capsys.readouterr().err
