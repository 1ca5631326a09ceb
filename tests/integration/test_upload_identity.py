"""An upload is named and ranked by its bytes: the same benchmark saved with CRLF line ends or
a byte-order mark became another dataset without a word, and every PolEval upload was named
``expected-…`` after its file (explore44 F11). The file stays a dataset of its own (its
checksum is its file's); the run's notes name the public dataset it differs from only so, and
a gonito file is named after its folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.cli import main


def _pair(folder: Path, expected: bytes, questions: bytes) -> Path:
    folder.mkdir(parents=True)
    (folder / "in.tsv").write_bytes(questions)
    (folder / "expected.tsv").write_bytes(expected)
    return folder / "expected.tsv"


def test_a_crlf_copy_is_told_of_its_twin_and_named_by_its_folder(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    split = data_dir / "poleval2021" / "dev-0"
    expected, questions = (split / "expected.tsv").read_bytes(), (split / "in.tsv").read_bytes()
    answers = tmp_path / "out.tsv"
    answers.write_bytes(expected)
    store = str(tmp_path / "store")
    crlf = _pair(tmp_path / "quiz" / "dev-0", expected.replace(b"\n", b"\r\n"), questions)
    assert (
        main(["evaluate", "--dataset", str(crlf), "--answers", str(answers), "--store", store]) == 0
    )
    err = capsys.readouterr().err
    assert (
        "note: the dataset file expected.tsv differs from the dataset poleval-2021-qa-dev-0's "
        "only in line ends (this file CRLF, poleval-2021-qa-dev-0's LF): an upload is named by "
        "its bytes" in err  # which has which (explore48 13)
    ), err
    assert "run on poleval-2021-qa-dev-0 (or its file as it is) to rank with it" in err
    bom = _pair(tmp_path / "bom", b"\xef\xbb\xbf" + expected, questions)
    assert (
        main(["evaluate", "--dataset", str(bom), "--answers", str(answers), "--store", store]) == 0
    )
    assert "only in a byte-order mark (this file has one):" in capsys.readouterr().err
    # another content: no note; its name is its folder's, not "expected"
    lines = expected.splitlines(keepends=True)
    other = _pair(
        tmp_path / "mine", b"".join(lines[:-1]), b"".join(questions.splitlines(True)[:-1])
    )
    answers.write_bytes(b"".join(lines[:-1]))
    assert (
        main(["evaluate", "--dataset", str(other), "--answers", str(answers), "--store", store])
        == 0
    )
    assert "differs from the dataset" not in capsys.readouterr().err
    assert main(["experiments", "--store", store]) == 0
    listed = capsys.readouterr().out
    assert " quiz-dev-0-" in listed and " bom-" in listed and " mine-" in listed, listed
    assert "expected-" not in listed
