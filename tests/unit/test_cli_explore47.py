"""explore47's findings about ``gerbil-qa convert`` and the TSV readers (each test names its
finding)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main


def _question(qid: str, text: str) -> dict[str, object]:
    return {"id": qid, "question": [{"language": "en", "string": text}]}


def test_convert_refuses_a_repeated_question_id_where_it_would_lose_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """convert passed a repeated id as "1 warnings", exit 0, and nlq-json kept one question of
    the two, the file written then validating clean (explore47 F6): refused as validate
    refuses it, nothing written. qald-json keeps both (sharing the id, as it writes DB25's
    items whose languages differ), so that one converts, with the reader's warning."""
    questions = [_question("1", "Who?"), _question("20", "What?"), _question("20", "How many?")]
    source = tmp_path / "dup.json"
    source.write_text(json.dumps({"questions": questions}, indent=1))
    out = tmp_path / "out.json"
    assert main(["convert", "--to", "nlq-json", str(source), str(out)]) == 1
    err = capsys.readouterr().err
    assert "question 20: error: duplicate question id" in err
    assert not out.exists()
    assert main(["validate", str(source)]) == 1
    assert "question 20: error: duplicate question id" in capsys.readouterr().out
    assert main(["convert", "--to", "qald-json", str(source), str(out)]) == 0
    assert "1 warning on reading" in capsys.readouterr().err
    assert [q["id"] for q in json.loads(out.read_bytes())["questions"]] == ["1", "20", "20"]


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


@pytest.mark.parametrize(
    ("texts", "answers", "code"),
    [
        ("<b>Kto napisał Lalkę?</b>\n", "Bolesław Prus\n", 0),
        ("<q>Kto napisał\nLalkę?</q>\n", "Bolesław Prus\nPrus\n", 0),
        ("<q>Kto napisał\nLalkę?</q>\n", "Bolesław Prus\n", 1),  # 2 lines, 1 answer: XML
        ('<?xml version="1.0"?>\n<q>Kto?</q>\n', "Prus\nPrus\n", 1),
        ("<!DOCTYPE q>\n<q>Kto?</q>\n", "Prus\nPrus\n", 1),
    ],
)
def test_an_in_tsv_text_wrapped_in_markup_is_a_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], texts: str, answers: str, code: int
) -> None:
    """A one-question in.tsv ``<b>…</b>`` was refused as "an XML document" (explore47 F5): XML
    is a file that declares itself, or one element over another number of lines than the
    answers'."""
    (tmp_path / "in.tsv").write_text(texts, encoding="utf-8")
    (tmp_path / "expected.tsv").write_text(answers, encoding="utf-8")
    assert main(["validate", str(tmp_path / "expected.tsv")]) == code
    out = capsys.readouterr().out
    assert ("this is an XML document, not an in.tsv" in out) == bool(code), out


def test_an_answers_file_named_expected_tsv_needs_no_in_tsv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A system's answers named expected.tsv were told "no in.tsv beside this file … upload its
    in.tsv with it", even when the dataset's in.tsv was given (explore47 F4): answers need no
    question text. The dataset's expected.tsv alone is still told."""
    from service.formats import read
    from service.formats.tsv import NO_TEXTS

    (tmp_path / "expected.tsv").write_text("Prus\nOpole\n", encoding="utf-8")
    (tmp_path / "in.tsv").write_text("Kto napisał Lalkę?\nGdzie?\n", encoding="utf-8")
    (tmp_path / "ans").mkdir()
    answers = tmp_path / "ans" / "expected.tsv"
    answers.write_text("Prus\nWrocław\n", encoding="utf-8")
    as_answers = read(answers, answers=True)
    assert not [p for p in as_answers.problems if p.message.startswith(NO_TEXTS)]
    as_gold = read(answers)
    assert [p for p in as_gold.problems if p.message.startswith(NO_TEXTS)]
    code = main(
        [
            "evaluate",
            "--dataset",
            str(tmp_path / "expected.tsv"),
            "--answers",
            str(answers),
            "--profile",
            "poleval",
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert NO_TEXTS not in captured.err + captured.out


def test_convert_writes_into_a_named_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """convert replaced a FIFO OUT with a regular file, its reader waiting for ever (explore47
    F9): a FIFO is written as a stream, and stays one."""
    import os
    import stat
    import threading

    source = tmp_path / "q.json"
    source.write_text(json.dumps({"questions": [_question("1", "Who?")]}), encoding="utf-8")
    assert main(["convert", "--to", "qald-xml", str(source), "-"]) == 0
    expected = capsys.readouterr().out.encode()
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert main(["convert", "--to", "qald-xml", str(source), str(fifo)]) == 0
    reader.join(10)
    assert got == [expected]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f", "q.json"]  # no temporary file


def test_a_coverage_gap_is_said_in_the_singular_and_for_stored_tasks() -> None:
    """ "1 of 14 questions have no answer in its file", of stored tasks too (explore47 F8)."""
    from service.evaluation.comparison import Coverage

    (one,) = Coverage(14, ("5",), ()).warnings("s")
    assert one.startswith("s: 1 of 14 questions has no answer in its file (5): ")
    (two,) = Coverage(14, ("5", "6"), (), stored=True).warnings("s")
    assert two.startswith("s: 2 of 14 questions have no answer recorded (5, 6): ")
