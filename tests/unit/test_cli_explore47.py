"""explore47's findings about ``gerbil-qa convert`` and the TSV readers (each test names its
finding)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main


def _question(qid: str, text: str) -> dict[str, object]:
    return {"id": qid, "question": [{"language": "en", "string": text}]}


@pytest.mark.parametrize("to", ["nlq-json", "qald-json"])
def test_convert_refuses_a_repeated_question_id_as_validate_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], to: str
) -> None:
    """convert passed a repeated id as "1 warnings", exit 0, and nlq-json kept one question of
    the two, the file written then validating clean (explore47 F6): refused as validate
    refuses it, nothing written."""
    questions = [_question("1", "Who?"), _question("20", "What?"), _question("20", "How many?")]
    source = tmp_path / "dup.json"
    source.write_text(json.dumps({"questions": questions}, indent=1))
    out = tmp_path / "out.json"
    assert main(["convert", "--to", to, str(source), str(out)]) == 1
    err = capsys.readouterr().err
    assert "question 20: error: duplicate question id" in err
    assert not out.exists()
    assert main(["validate", str(source)]) == 1
    assert "question 20: error: duplicate question id" in capsys.readouterr().out


def test_convert_counts_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ "1 warnings on reading" (explore47 F6)."""
    source = tmp_path / "one.json"
    # a repeated key of the same value: a warning, the file read
    source.write_bytes(
        b'{"questions": [{"id": "1", "id": "1", '
        b'"question": [{"language": "en", "string": "Who?"}]}]}'
    )
    assert main(["convert", "--to", "qald-xml", str(source), str(tmp_path / "o.xml")]) == 0
    err = capsys.readouterr().err
    assert "1 question from qald-json to qald-xml (1 warning on reading;" in err
