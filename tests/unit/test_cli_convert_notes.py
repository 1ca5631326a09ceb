"""What ``convert`` says of what it wrote: a TSV's texts written without a language, and the
file a link OUT led to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from service.formats import read


def _tsv(tmp_path: Path) -> Path:
    """A PolEval-style ``expected.tsv`` with its ``in.tsv`` (the question texts, no language)."""
    (tmp_path / "in.tsv").write_text("How many moons?\nWhat is Mars?\n", encoding="utf-8")
    expected = tmp_path / "expected.tsv"
    expected.write_text("2\nhttp://dbpedia.org/resource/Mars\n", encoding="utf-8")
    return expected


def test_a_tsvs_texts_without_a_language_are_said_and_lang_sets_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """TSV -> qald-json wrote ``"language": ""`` without a word (reading it back warned of
    each text): a note says so and names ``--lang``, which sets it."""
    expected, out = _tsv(tmp_path), tmp_path / "out.json"
    assert main(["convert", "--to", "qald-json", str(expected), str(out)]) == 0
    err = capsys.readouterr().err
    assert (
        "gerbil-qa: note: the TSV carries no language: 2 question texts written with an empty "
        "language (reading the file back warns of each); give --lang LANG (e.g. --lang en) "
        "to set it\n"
    ) in err
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [t["language"] for q in written["questions"] for t in q["question"]] == ["", ""]
    assert main(["convert", "--to", "qald-json", "--lang", "en", str(expected), str(out)]) == 0
    assert "note:" not in capsys.readouterr().err
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [t["language"] for q in written["questions"] for t in q["question"]] == ["en", "en"]
    assert not read(out).problems  # read back: no warning of an empty language
    # a format that writes no text's language says nothing of it
    rows = tmp_path / "r.json"
    assert main(["convert", "--to", "result-set-json", str(expected), str(rows)]) == 0
    assert "note:" not in capsys.readouterr().err


def test_a_link_out_is_said_with_the_file_it_led_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """OUT a link: "wrote LINK" named the link only, not the file written (its target); both
    are named, and a plain OUT is said as before."""
    expected = _tsv(tmp_path)
    folder = tmp_path / "kept"
    folder.mkdir()
    target = folder / "target.json"
    target.write_text("old", encoding="utf-8")
    link, chained = tmp_path / "out.json", tmp_path / "again.json"
    link.symlink_to(Path("kept") / "target.json")  # relative, as ln -s makes them
    chained.symlink_to(link)  # a link to the link: the file at the end is named
    args = ["convert", "--to", "qald-json", "--lang", "en", str(expected)]
    for out in (link, chained):
        assert main([*args, str(out)]) == 0
        err = capsys.readouterr().err
        assert f"gerbil-qa: wrote {target.resolve()} (through the link {out})\n" in err, err
        assert out.is_symlink() and json.loads(target.read_text(encoding="utf-8"))["questions"]
    plain = tmp_path / "plain.json"
    assert main([*args, str(plain)]) == 0
    assert f"gerbil-qa: wrote {plain}\n" in capsys.readouterr().err
