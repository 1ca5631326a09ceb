"""A run's language is read without regard to case (BCP 47), on the command line and in the
API alike (explore31 F11: "EN" was refused as no ISO 639 code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.evaluation.languages import canonical_tag, parse_languages


@pytest.mark.parametrize(
    ("given", "recorded"),
    [
        ("EN", "en"),
        ("En-Us", "en-US"),
        ("en-us", "en-US"),
        ("pt_BR", "pt-BR"),
        ("zh-hant-tw", "zh-Hant-TW"),
        ("es-419", "es-419"),
        ("ALL", "all"),
    ],
)
def test_a_language_tag_is_recorded_as_bcp_47_writes_it(given: str, recorded: str) -> None:
    assert canonical_tag(given) == recorded


def test_the_command_lines_languages_are_read_so() -> None:
    assert parse_languages("EN, es,en") == ("en", "es")


@pytest.mark.parametrize("given", ["\uff25\uff2e", "\u0130n", "en--us", "e1", "en de"])
def test_a_refused_language_is_quoted_as_given(given: str) -> None:
    """It was quoted as :func:`canonical_tag` made it: "ＥＮ" as 'ｅｎ', "İn" as 'i̇n' (a
    dotted i and a combining dot), "en--us" as 'en--US' (explore35 8)."""
    from service.errors import BadRequest

    with pytest.raises(BadRequest) as refused:
        parse_languages(f" es , {given} ")
    assert str(refused.value) == f"language {given!r}: expected an ISO 639 code such as 'en'"


def test_every_lang_option_reads_a_tag_without_regard_to_case(tmp_path: Path) -> None:
    """validate, convert and the system commands label untagged texts with --lang too: "PL"
    is the tag pl there as in evaluate."""
    import json

    from service.cli import main

    tsv = tmp_path / "in.tsv"  # PolEval's questions: one text a line, no language
    tsv.write_text("Kto napisał Pana Tadeusza?\n", encoding="utf-8")
    out = tmp_path / "q.json"
    code = main(["convert", "--to", "qald-json", "--lang", "PL", str(tsv), str(out)])
    assert code == 0
    texts = json.loads(out.read_text(encoding="utf-8"))["questions"][0]["question"]
    assert [t["language"] for t in texts] == ["pl"]
