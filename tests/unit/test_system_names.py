"""A system's name: the rule, and no word mixing look-alike alphabets (explore-13 4: "TеBaQA"
with a Cyrillic е was a new system that showed as TeBaQA on the leaderboards)."""

from __future__ import annotations

import pytest

from service.errors import BadRequest
from service.experiments.systems import check_name


@pytest.mark.parametrize(
    "name", ["TeBaQA", "QAnswer 2", "Ελληνικά QA", "Вопрос-QA", "gAnswer 中文", "KGQAn_v1.2"]
)
def test_names_in_one_alphabet_a_word_are_taken(name: str) -> None:
    assert check_name(f" {name} ", 1) == name


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("T\u0435BaQA", "'е', U+0435 CYRILLIC SMALL LETTER IE, at character 2"),
        ("QAnsw\u03b5r", "U+03B5 GREEK SMALL LETTER EPSILON, at character 6"),
        ("Q2\u0410nswer", "U+0410 CYRILLIC CAPITAL LETTER A, at character 3"),
    ],
)
def test_a_word_mixing_look_alike_alphabets_is_refused(name: str, said: str) -> None:
    with pytest.raises(BadRequest) as refused:
        check_name(name, 2)
    assert said in refused.value.message
    assert refused.value.message.startswith(f"system 2: name {name!r} mixes ")
    assert refused.value.field == "systems[1].name"
