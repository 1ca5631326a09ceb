"""What a real QA web service on 127.0.0.1 says oddly is kept and said, not held against its
answer (explore28 F2, F5, F14): a confidence that is not a number in [0, 1] is dropped with a
warning and the answer scored; a response naming another question id is warned, as another
text echoed is; a service that writes one placeholder id into every response is not."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service import formats
from service.model import AnswerSet, Dataset, Question, QuestionText, Term
from tests.helpers import qa_service

# what the service gives each question (its text): the id it echoes and its confidence
ODD = {
    "q1": ("1", 0.9),
    "q2": ("2", "0,8"),  # a decimal comma: was "not a valid QA answer", the answer lost
    "q3": ("3", 7),  # out of range: was taken, K1 above 1
    "q4": ("999", 0.5),  # another question's id: was taken without a word
}


def _entry(text: str, *, odd: bool) -> dict[str, Any]:
    """The question entry the service answers ``text`` with: odd, or as GERBIL's template."""
    qid, confidence = ODD[text] if odd else ("1", 0.5)  # the template: "1" in every response
    term = {"type": "literal", "value": text}
    return {"id": qid, "answers": [{"bindings": [{"x": term}], "confidence": confidence}]}


@pytest.fixture(scope="module")
def service() -> Iterator[tuple[str, str]]:
    """The odd service at ``/odd``, the template one at ``/template`` (two real servers)."""
    with (
        qa_service(functools.partial(_entry, odd=True)) as odd,
        qa_service(functools.partial(_entry, odd=False)) as template,
    ):
        yield odd, template


def _questions(tmp_path: Path) -> Path:
    """Questions 1–4, ``q1``…``q4``, whose gold answer is their own text (what it answers)."""
    questions = tuple(
        Question(
            str(i), (QuestionText("en", f"q{i}"),), answers=AnswerSet.of([Term.literal(f"q{i}")])
        )
        for i in range(1, 5)
    )
    path = tmp_path / "questions.json"
    path.write_bytes(formats.write(Dataset("odd", questions), "qald-json"))
    return path


def _run(url: str, questions: Path, output: Path) -> int:
    from service.cli import main

    return main(
        [
            *("system", "run", url, "--dataset", str(questions), "--name", "odd"),
            *("--allow", "127.0.0.1/32", "--retries", "0", "--output", str(output)),
        ]
    )


def test_odd_answers_are_kept_scored_and_said(
    service: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from service.cli import main

    questions, output = _questions(tmp_path), tmp_path / "answers.json"
    assert _run(service[0], questions, output) == 0
    captured = capsys.readouterr()
    assert "4 questions: 4 asked, 0 failed" in captured.out  # q2 was an error
    said = captured.err
    # the problem names its question once (the value alone: alike responses group, F15)
    assert "question 2: warning: confidences that are not a number" in said
    assert 'without a confidence: "0,8"' in said and "without a confidence: 7" in said
    assert (
        "question 4: warning: the response answers another question: id '999' (asked: id '4')"
        in said
    )
    kept = {e["id"]: e for e in json.loads(output.read_text())["questions"]}
    assert "another question: id '999'" in kept["4"]["responseWarnings"]
    assert "confidence" not in kept["2"]["answers"][0] and kept["4"]["answers"][0]["confidence"]

    code = main(
        ["evaluate", "--dataset", str(questions), "--answers", str(output), "--output", "json"]
    )
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    qa = result["results"]["QA"]
    assert qa["macroF1"] == 1.0 and qa["errorCount"] == 0  # every answer kept and right
    # K1 of 0.9, 0, 0, 0.5 on four right answers: in [-1, 1] (7 made it 2.1)
    assert qa["k1"] == pytest.approx((0.9 + 0.5) / 4)
    warnings = "\n".join(result["warnings"])
    assert "2 of 4 answers give no confidence while the others do (2, 3)" in warnings
    assert "another question: id '999' (asked: id '4')" in warnings


def test_one_placeholder_id_in_every_response_is_no_warning(
    service: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the GERBIL QA template writes "id": "1" into every response: the interface sends no id
    questions, output = _questions(tmp_path), tmp_path / "answers.json"
    assert _run(service[1], questions, output) == 0
    assert "warning" not in capsys.readouterr().err
    kept = json.loads(output.read_text())["questions"]
    assert not [e for e in kept if "responseWarnings" in e]
