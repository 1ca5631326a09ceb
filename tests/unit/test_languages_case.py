"""A run's language is read without regard to case (BCP 47), on the command line and in the
API alike (explore31 F11: "EN" was refused as no ISO 639 code)."""

from __future__ import annotations

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
