"""A hidden test set on the command line: ``evaluate --store`` on it printed each question's
result (and ``--by`` its slices) while the experiment it recorded withheld them (explore21
12); it prints what the API gives now."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main


def _test_set() -> str:
    questions = [
        {
            "id": str(i),
            "question": [{"language": "en", "string": f"Which secret is number {i}?"}],
            "answers": [
                {
                    "head": {"vars": ["s"]},
                    "results": {
                        "bindings": [{"s": {"type": "literal", "value": f"CLISECRET-{i}"}}]
                    },
                }
            ],
        }
        for i in range(1, 6)
    ]
    return json.dumps({"dataset": {"id": "cli-secret"}, "questions": questions})


def test_evaluate_on_a_withheld_test_set_prints_the_measures_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, data = tmp_path / "store", tmp_path / "test-set.json"
    data.write_text(_test_set())
    argv = ["evaluate", "--store", str(store), "--profile", "exact", "--output", "json"]
    code = main(
        [*argv, "--dataset", str(data), "--answers", str(data), "--dataset-gold", "withheld"]
    )
    printed = capsys.readouterr()
    organiser = json.loads(printed.out)
    assert code == 0 and organiser["questions"] == [] and organiser["questionsWithheld"] is True
    assert "CLISECRET" not in printed.out and "withheld" in printed.err
    assert main(["publish", "--store", str(store), organiser["experiment"]["id"]]) == 0
    capsys.readouterr()
    listed = main(["experiments", "--store", str(store), "--output", "json"])
    row = json.loads(capsys.readouterr().out.splitlines()[0])
    assert listed == 0
    name = row["datasetUri"].rsplit("/", 1)[1]
    answers = tmp_path / "team.json"
    answers.write_text(_test_set().replace("CLISECRET-2", "guess"))
    assert main([*argv, "--dataset", name, "--answers", str(answers)]) == 0
    printed = capsys.readouterr()
    team = json.loads(printed.out)
    assert team["questions"] == [] and "intervals" not in team
    assert "intervalSignature" not in team  # no interval given (explore23 3)
    assert team["results"]["QA"]["macroF1"] == pytest.approx(0.8)
    assert "CLISECRET" not in printed.out and "guess" not in printed.out
    capsys.readouterr()
    main(["experiments", "--store", str(store), "--output", "json"])
    before = len(capsys.readouterr().out.splitlines())
    by = main([*argv, "--dataset", name, "--answers", str(answers), "--by", "answertype"])
    assert by != 0 and "--by: the gold of dataset" in capsys.readouterr().err
    # refused before the run: nothing recorded whose id and token were never said (explore23 14)
    main(["experiments", "--store", str(store), "--output", "json"])
    assert len(capsys.readouterr().out.splitlines()) == before
