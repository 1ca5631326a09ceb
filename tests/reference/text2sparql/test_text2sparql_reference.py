"""The TEXT2SPARQL'25 teams' published scores, reproduced by the ``text2sparql`` profile.

Each team's ``*_system_result_set.json`` (what its queries returned in the official run) is scored
against the catalogue dataset (its gold: the organisers' ``true_result_set.json``) and must give
every published per-question ``set_P``, ``set_recall`` and ``set_F`` of ``*_eval.json`` and their
averages, to 1e-9. DB25 is scored once per language (en, es); the challenge's averages pool both
languages (plain means over the 200 question × language items), so the pooled average here is
the mean over the per-question records of both runs, and the per-language ones (``set_F-en``…)
are each run's macro measures.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from service import catalog
from service.evaluation import evaluate
from service.evaluation.results import ExperimentType, QuestionScore
from service.formats import read
from service.model import system_run

TOLERANCE = 1e-9
RUNS = [
    ("FRANZ", "ck25", ("en",)),
    ("FRANZ", "db25", ("en", "es")),
    ("DBPEDIA-SC", "db25", ("en", "es")),
]
MEASURES = {"set_P": "precision", "set_recall": "recall", "set_F": "f1"}
MACRO = {"set_P": "macroPrecision", "set_recall": "macroRecall", "set_F": "macroF1"}


@pytest.fixture(autouse=True)
def _mirror(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))  # the catalogue reads the local mirror


def _scored(data_dir: Path, team: str, name: str, language: str):
    folder = data_dir / "text2sparql2025" / "systems" / team
    dataset = catalog.load(f"text2sparql-2025-{name}")
    answers = read(folder / f"{name}_system_result_set.json")
    run = system_run(answers, system=team, language=language)
    ev = evaluate(dataset, run, profile="text2sparql", language=language, experiment_types=["QA"])
    return ev.tasks[ExperimentType.QA]


@pytest.mark.parametrize(("team", "name", "languages"), RUNS, ids=[f"{t}-{n}" for t, n, _ in RUNS])
def test_published_scores_are_reproduced(
    data_dir: Path, team: str, name: str, languages: tuple[str, ...]
) -> None:
    assert os.environ["GERBIL_QA_DATA"] == str(data_dir)
    published = json.loads(
        (data_dir / "text2sparql2025" / "systems" / team / f"{name}_eval.json").read_text()
    )
    pooled: list[QuestionScore] = []
    compared = 0
    for language in languages:
        task = _scored(data_dir, team, name, language)
        for record in task.questions:
            key = f"{name}:{record.question_id}-{language}"
            expected = published[key]
            for theirs, ours in MEASURES.items():
                assert getattr(record, ours) == pytest.approx(expected[theirs], abs=TOLERANCE), (
                    key,
                    theirs,
                )
            compared += 1
        pooled += task.questions
        if len(languages) > 1:
            for theirs, ours in MACRO.items():
                assert task.measures[ours] == pytest.approx(
                    published["average"][f"{theirs}-{language}"], abs=TOLERANCE
                ), (language, theirs)
        else:
            for theirs, ours in MACRO.items():
                assert task.measures[ours] == pytest.approx(
                    published["average"][theirs], abs=TOLERANCE
                ), theirs
    assert compared == len(published) - 1  # every published item but "average"
    for theirs, ours in MEASURES.items():
        mean = sum(getattr(r, ours) for r in pooled) / len(pooled)
        assert mean == pytest.approx(published["average"][theirs], abs=TOLERANCE), theirs


def test_the_ask_rules_matter(data_dir: Path) -> None:
    """A false ASK answer still retrieves ``true``: FRANZ's DB25 ASK answers (``{"true": 0}``)
    hit a true gold, which ``exact`` scores 0 and the challenge scored 1."""
    task = _scored(data_dir, "FRANZ", "db25", "en")
    by_id = {r.question_id: r for r in task.questions}
    assert by_id["8"].f1 == 1.0
    folder = data_dir / "text2sparql2025" / "systems" / "FRANZ"
    run = system_run(read(folder / "db25_system_result_set.json"), system="FRANZ", language="en")
    exact = evaluate(
        catalog.load("text2sparql-2025-db25"), run, profile="exact", experiment_types=["QA"]
    )
    assert {r.question_id: r for r in exact.tasks[ExperimentType.QA].questions}["8"].f1 == 0.0


@pytest.mark.parametrize("language", ["en", "es"])
def test_gold_given_separately(
    data_dir: Path, language: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``evaluate --gold``: the questions file without answers, the organisers' result sets as
    the gold (matched by question id and language), gives the published per-language values."""
    from service.cli import main

    folder = data_dir / "text2sparql2025"
    argv = ["evaluate", "--dataset", str(folder / "db25" / "questions.yaml")]
    argv += ["--gold", str(folder / "db25" / "true_result_set.json"), "--lang", language]
    argv += ["--answers", str(folder / "systems" / "FRANZ" / "db25_system_result_set.json")]
    assert main([*argv, "--profile", "text2sparql", "--output", "json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"]["QA"]
    published = json.loads((folder / "systems" / "FRANZ" / "db25_eval.json").read_text())
    for theirs, ours in MACRO.items():
        expected = published["average"][f"{theirs}-{language}"]
        assert result[ours] == pytest.approx(expected, abs=TOLERANCE), theirs
    # recorded as a dataset of its own: never the leaderboard of the questions' own gold
    assert main([*argv, "--store", str(tmp_path / "store")]) == 0
    assert "recorded experiment" in capsys.readouterr().err
