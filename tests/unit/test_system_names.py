"""A system's name: the rule, and no letter that reads as a Latin one where Latin is written
(explore-13 4: "TеBaQA" with a Cyrillic е was a new system that showed as TeBaQA on the
leaderboards; explore-16 1–2: "GPT-4о", Armenian, Cherokee and fullwidth look-alikes passed, and
a decomposed é was refused)."""

from __future__ import annotations

import re

import pytest

from service.errors import BadRequest
from service.experiments.systems import check_name


@pytest.mark.parametrize(
    "name",
    [
        *("TeBaQA", "QAnswer 2", "Ελληνικά QA", "Вопрос-QA", "Вопрос", "gAnswer 中文"),
        *("KGQAn_v1.2", "μBERT-QA", "ΣQA", "GPT-4o"),
        # explore66 F2: vowel signs and viramas are marks (Mn/Mc), which \w has not
        *("हिन्दी", "नमस्ते QA", "क़ा", "தமிழ்", "สวัสดี"),
    ],
)
def test_names_in_one_alphabet_a_word_are_taken(name: str) -> None:
    assert check_name(f" {name} ", 1) == name


@pytest.mark.parametrize(
    ("name", "said"),
    [("\u093fQA", "after no letter (U+093F"), ("QA \u093f", "after no letter (U+093F"),
     ("4\u0301", "after no letter (U+0301 COMBINING ACUTE ACCENT, at character 2)"),
     ("TeBaQA\ufe0f", "shows nothing (U+FE0F"), ("Te\u034fBaQA", "shows nothing (U+034F"),
     ("Bjo\u0338rn QA", "strikes its letter through (U+0338 COMBINING LONG SOLIDUS OVERLAY"),
     ("a" * 118 + "\u093f" * 3, "is 121 characters"),
     ("a" + "\u0301" * 6, "more than 4 marks on one letter (U+0301")],
)  # fmt: skip
def test_a_mark_not_after_a_letter_or_one_that_draws_nothing_is_refused(
    name: str, said: str
) -> None:
    """Each refusal names its rule and the character (explore67 F4: an overlay was told the
    name must be "letters (with their marks)"); a stack of marks is bounded (F5)."""
    with pytest.raises(BadRequest, match=re.escape(said)):
        check_name(name, 1)
    assert check_name("Vie\u0323\u0302t", 1) == "Việt"  # two marks on one letter


def test_a_run_of_spaces_is_refused() -> None:
    # explore34 3: "alpha  beta" was another system, which every page shows as "alpha beta"
    with pytest.raises(BadRequest) as refused:
        check_name(" alpha  beta ", 1)
    assert "a run of spaces (at character 6)" in refused.value.message
    assert check_name(" alpha beta ", 1) == "alpha beta"


def test_a_decomposed_letter_is_the_precomposed_one() -> None:
    assert check_name("Te\u0301BaQA", 1) == "T\u00e9BaQA"  # NFC, as typed elsewhere


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("T\u0435BaQA", "'е' (U+0435 CYRILLIC SMALL LETTER IE, at character 2)"),
        ("QAnsw\u03bfr", "U+03BF GREEK SMALL LETTER OMICRON, at character 6"),
        ("GPT-4\u043e", "U+043E CYRILLIC SMALL LETTER O, at character 6), which is in '4о'"),
        ("T5-\u0425\u0425L", "U+0425 CYRILLIC CAPITAL LETTER HA, at character 4"),
        ("T\u0585BaQA", "U+0585 ARMENIAN SMALL LETTER OH"),
        ("\u13a2eBaQA", "U+13A2 CHEROKEE LETTER I"),
        ("T\uff45BaQA", "U+FF45 FULLWIDTH LATIN SMALL LETTER E, at character 2), which is "),
        ("\U0001d413eBaQA", "MATHEMATICAL BOLD CAPITAL T"),
        # explore34 3: a Latin IPA letter, a small capital, Coptic and Lisu
        ("demo-stron\u0261", "U+0261 LATIN SMALL LETTER SCRIPT G, at character 11), which is "
         "drawn like the Latin letter 'g'"),
        ("demo-\ua731trong", "U+A731 LATIN LETTER SMALL CAPITAL S"),
        ("demo-str\u2c9fng", "U+2C9F COPTIC SMALL LETTER O"),
        ("\ua4d3emo-strong", "U+A4D3 LISU LETTER DA"),
    ],
)  # fmt: skip
def test_a_letter_that_reads_as_a_latin_one_is_refused(name: str, said: str) -> None:
    with pytest.raises(BadRequest) as refused:
        check_name(name, 2)
    assert said in refused.value.message
    assert refused.value.message.startswith(f"system 2: name {name!r} has ")
    assert refused.value.field == "systems[1].name"
