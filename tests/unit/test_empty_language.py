"""An empty language tag (``"language": ""``, ``lang=""``) was read silently as no language,
and ``--lang all`` then listed ``en`` twice (explore44 F9): a warning at its place, read as
``--lang`` (else unknown), and each language listed once."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from service import formats
from service.cli import main


def _answer(value: str) -> list[dict]:  # type: ignore[type-arg]
    binding = {"x": {"type": "literal", "value": value}}
    return [{"head": {"vars": ["x"]}, "results": {"bindings": [binding]}}]


def _qald(empty_first: bool) -> dict:  # type: ignore[type-arg]
    questions = []
    for i in (1, 2, 3):
        texts = [{"language": "en", "string": f"Q{i}?"}, {"language": "de", "string": f"F{i}?"}]
        if i == 1 and empty_first:
            texts = [{"language": "", "string": "Q1?"}, {"language": "de", "string": "F1?"}]
        questions.append({"id": str(i), "question": texts, "answers": _answer(f"a{i}")})
    return {"questions": questions}


def test_an_empty_language_is_warned_at_its_place_in_each_format(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text(json.dumps(_qald(True), indent=1), encoding="utf-8")
    dataset = formats.read(path)
    (problem,) = [p for p in dataset.problems if "empty language" in p.message]
    assert (problem.line, problem.path, problem.question_id) == (
        7,
        "$.questions[0].question[0].language",
        "1",
    )
    assert "taken as 'unknown'" in problem.message
    tagged = formats.read(path, language="pl")
    assert tagged.questions[0].texts[0].language == "pl"  # read as --lang, as an untagged text
    xml = formats.write(dataset, "qald-xml")
    again = formats.read(xml, name="q.xml", format="qald-xml")
    said = [p for p in again.problems if "empty lang" in p.message]
    assert said and said[0].path == "/dataset/question[1]/string[1]", said
    nlq = [{"id": "1", "lang": "", "question": "Q1?", "answer": "a", "sparql": "ASK {}"}]
    read = formats.read(json.dumps(nlq).encode(), name="n.json", format="nlq-json")
    assert [p.path for p in read.problems if "empty lang" in p.message] == ["$[0].lang"]


def test_all_languages_list_each_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "q.json"
    path.write_text(json.dumps(_qald(True), indent=1), encoding="utf-8")
    argv = ["evaluate", "--dataset", str(path), "--answers", str(path), "--lang", "all"]
    assert main([*argv, "--output", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {row["language"] for row in rows} == {"en,de"}  # was "en,de,en": "" read as en
