"""The ``--output json`` question entries: one per question record, in dataset order."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from service.cli import main
from service.evaluation import evaluate
from service.formats import read
from service.model import AnswerSet, Dataset, Question, QuestionText, Term, system_run


def _question(qid: str, *iris: str) -> Question:
    return Question(
        id=qid,
        texts=(QuestionText("en", f"question {qid}?"),),
        answers=AnswerSet.of(Term.iri(f"http://example.org/{x}") for x in iris),
    )


def test_duplicate_ids_keep_one_entry_per_question_in_dataset_order() -> None:
    gold = Dataset("dup", (_question("1", "a"), _question("2", "b", "c"), _question("1", "d")))
    answers = Dataset("answers", (_question("1", "a"), _question("2", "b")))
    entries = evaluate(gold, system_run(answers, system="s"), profile="exact").to_json()
    questions = entries["questions"]
    assert [e["id"] for e in questions] == ["1", "2", "1"]
    # The answer file's entry for id 1 is matched against each gold question 1 in turn.
    assert questions[0]["QA"] == {
        "tp": 1,
        "fp": 0,
        "fn": 0,
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
    }
    assert questions[2]["QA"]["tp"] == 0 and questions[2]["QA"]["fn"] == 1
    assert questions[1]["QA"]["fn"] == 1


def test_without_duplicates_the_shape_is_one_entry_per_id() -> None:
    gold = Dataset("d", (_question("b", "x"), _question("a", "y")))
    out = evaluate(gold, system_run(gold, system="gold"), profile="fair").to_json()
    assert out["questions"] == [
        {"id": "b", "QA": {"tp": 1, "fp": 0, "fn": 0, "precision": 1.0, "recall": 1.0, "f1": 1.0}},
        {"id": "a", "QA": {"tp": 1, "fp": 0, "fn": 0, "precision": 1.0, "recall": 1.0, "f1": 1.0}},
    ]


def test_real_file_with_a_repeated_id(data_dir: Path) -> None:
    """QALD-8 ``wikidata-train-7.json`` has 100 questions, two of them with id 20 (Illinois's
    neighbours, six answers; Pelé's goals, one): both keep their own entry and gold."""
    path = data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "wikidata-train-7.json"
    dataset = read(path)
    assert len(dataset) == 100
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
        code = main(
            ["evaluate", "--dataset", str(path), "--answers", str(path), "--output", "json"]
        )
    assert code == 0
    out = json.loads(stdout.getvalue())
    entries = out["questions"]
    assert [e["id"] for e in entries] == [q.id for q in dataset.questions]
    twenties = [e for e in entries if e["id"] == "20"]
    assert len(twenties) == 2
    # The answer file's first question 20 (six IRIs) answers both gold questions 20.
    assert twenties[0]["QA"]["tp"] == 6 and twenties[0]["QA"]["fn"] == 0
    assert twenties[1]["QA"]["tp"] == 0 and twenties[1]["QA"]["fn"] == 1
    assert twenties[1]["QA"]["fp"] == 6
    assert out["results"]["QA"]["questions"] == 100
    assert any("duplicate question id" in w for w in out["warnings"])


@pytest.mark.parametrize("profile", ["fair", "qald6"])
def test_entries_match_the_records_of_every_task(profile: str) -> None:
    gold = Dataset("d", (_question("1", "a"), _question("1", "b"), _question("2")))
    ev = evaluate(gold, system_run(gold, system="gold"), profile=profile)
    entries = ev.to_json()["questions"]
    for etype, task in ev.tasks.items():
        assert [qs.to_json() for qs in task.questions] == [e[etype.value] for e in entries]
