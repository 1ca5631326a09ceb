"""explore53: what ``validate`` and the readers say of question texts in other characters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.formats import read


def _dataset(text: str, keywords: str | None = None, value: str = "ab") -> bytes:
    entry: dict[str, str] = {"language": "en", "string": text}
    if keywords is not None:
        entry["keywords"] = keywords
    question = {
        "id": "1",
        "question": [entry],
        "answers": [
            {
                "head": {"vars": ["x"]},
                "results": {"bindings": [{"x": {"type": "literal", "value": value}}]},
            }
        ],
    }
    return json.dumps({"questions": [question]}).encode()  # ASCII: "\ud800" stays an escape


def test_a_lone_surrogate_in_a_question_text_is_warned_as_in_an_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """F10: ``validate`` said 0 warnings of it, and the task page showed U+FFFD."""
    from service.cli import main

    path = tmp_path / "gold7.json"
    path.write_bytes(_dataset("bad \ud800 here"))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 question, 0 errors, 1 warning"
    assert out[0].endswith(
        "$.questions[0]: question 1: warning: the question text (en) holds a lone UTF-16 "
        "surrogate U+D800 at character 5, which XML 1.0 cannot carry (kept as written; stored "
        "with U+FFFD in its place)"
    )
    # said as the same value in an answer is
    path.write_bytes(_dataset("ok", value="bad \ud800 here"))
    assert main(["validate", str(path)]) == 0
    said = capsys.readouterr().out.splitlines()[0]
    assert said.endswith(
        "holds a lone UTF-16 surrogate U+D800 at character 5, which XML 1.0 cannot carry "
        "(kept as written; stored with U+FFFD in its place)"
    )


def test_keywords_too_and_whole_characters_not() -> None:
    found = read(_dataset("ok \U0001f600", keywords="a, \udfff\ud800"), gold=True)
    (warning,) = [str(p) for p in found.problems]
    assert "the keywords (en) hold a lone UTF-16 surrogate U+DFFF at character 4 (and 1 more)" in (
        warning
    )
    assert not read(_dataset("ok \U0001f600 \u0627\u0644\u0639\u0631\u0628\u064a\u0629")).problems
