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


def test_a_tsvs_texts_are_written_in_the_language_evaluate_reads_them_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PolEval TSV -> qald-json wrote ``"language": ""`` and its note suggested ``--lang en``,
    while ``evaluate`` and ``system`` read the same TSV as pl (explore54 F6): convert takes the
    same language (:func:`service.catalog.texts_language_of_file`), and says nothing of it;
    ``--lang`` still sets another."""
    expected, out = _tsv(tmp_path), tmp_path / "out.json"
    assert main(["convert", "--to", "qald-json", str(expected), str(out)]) == 0
    assert "note:" not in capsys.readouterr().err
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [t["language"] for q in written["questions"] for t in q["question"]] == ["pl", "pl"]
    assert not read(out).problems  # read back: no warning of an empty language
    assert main(["convert", "--to", "qald-json", "--lang", "en", str(expected), str(out)]) == 0
    assert "note:" not in capsys.readouterr().err
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [t["language"] for q in written["questions"] for t in q["question"]] == ["en", "en"]
    # a format that writes no text's language says nothing of it
    rows = tmp_path / "r.json"
    assert main(["convert", "--to", "result-set-json", str(expected), str(rows)]) == 0
    assert "note:" not in capsys.readouterr().err


def test_texts_of_no_known_language_are_said_and_lang_sets_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no language is known for a TSV's texts (no profile made for its format), they are
    written ``"language": ""`` and a note says so, naming ``--lang``."""
    from service import catalog

    monkeypatch.setattr(catalog, "texts_language_of_file", lambda name, format: None)
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
