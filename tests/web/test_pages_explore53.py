"""explore53: answers and texts in other characters on the result pages — a false answer that
differs from the gold only in what no reader sees says so (F9)."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from typing import Any

import pytest

ZWSP_TEHRAN = "Teh\u200bran"
FAMILY_ZWJ = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
FAMILY = "\U0001f468\U0001f469\U0001f467"


XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


def _question(qid: str, texts: list[tuple[str, str]], value: str) -> dict[str, Any]:
    row = {"x": {"type": "literal", "value": value}}
    return {
        "id": qid,
        "question": [{"language": lang, "string": text} for lang, text in texts],
        "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [row]}}],
    }


@pytest.fixture(scope="module")
def run(server) -> tuple[str, dict[str, str]]:
    """A private run: gold Tehran answered with a zero-width space inside, the family emoji
    answered as three emoji, a Persian question answered right."""
    gold = {
        "questions": [
            _question("1", [("en", "What is the capital of Iran?")], "Tehran"),
            _question("2", [("en", "Which emoji is a family?")], FAMILY_ZWJ),
            _question(
                "3", [("en", "Capital of Iran, in Persian?"), ("fa", "پایتخت ایران؟")], "تهران"
            ),
        ]
    }
    answers = {
        "questions": [
            _question("1", [], ZWSP_TEHRAN),
            _question("2", [], FAMILY),
            _question("3", [], "تهران"),
        ]
    }
    made = server.post(
        "api/experiments",
        json={
            "dataset": {"content": json.dumps(gold, ensure_ascii=False)},
            "systems": [{"name": "sys", "answers": json.dumps(answers, ensure_ascii=False)}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    server.wait_finished(ticket["id"], ticket["token"])
    return ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}


def _false_items(page: str) -> list[str]:
    return [
        html.unescape(re.sub(r"<[^>]+>", "", item))
        for item in re.findall(r'<li class="fp">(.*?)</li>', page, re.S)
    ]


def test_a_false_answer_differing_only_in_invisible_characters_says_so(server, run) -> None:
    experiment, owner = run
    page = server.get(f"experiment/{experiment}/task/1", headers=owner)
    assert page.status_code == 200
    items = _false_items(page.text)
    assert (
        f"✗false: {ZWSP_TEHRAN} (differs from the gold Tehran only in invisible characters "
        "(U+200B))" in items
    ), items
    assert (
        f"✗false: {FAMILY} (differs from the gold {FAMILY_ZWJ} only in invisible characters "
        "(U+200D))" in items
    ), items
    # the question's own page says it too
    one = server.get(f"experiment/{experiment}/task/1/question/1", headers=owner)
    assert "only in invisible characters (U+200B)" in one.text
    # and the task's table, in a column of its own (it gave two strings that look equal)
    table = server.get(f"experiment/{experiment}/task/1.csv", headers=owner)
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(table.content.decode("utf-8")))}
    assert rows["1"]["lookAlike"] == (
        f"{ZWSP_TEHRAN}: differs from the gold Tehran only in invisible characters (U+200B)"
    ), rows["1"]
    assert rows["3"]["lookAlike"] == ""  # right in Persian: nothing to say


def test_a_plainly_wrong_answer_gets_no_such_note(server, run) -> None:
    from service.web.pages import look_alike

    assert look_alike("Teheran", ["Tehran"]) is None
    assert look_alike("Tehran ", ["Tehran"]) is None  # a space is seen (fair ignores it anyway)
    assert look_alike("\u0643", ["\u06a9"]) is None  # Arabic and Persian kaf: letters apart


def _run_in_persian(
    server, gold: dict[str, Any], answers: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """A private run of ``answers`` on ``gold`` in fa, finished: its ticket and owner header."""
    made = server.post(
        "api/experiments",
        json={
            "dataset": {"content": json.dumps(gold, ensure_ascii=False)},
            "language": "fa",
            "systems": [{"name": "sys", "answers": json.dumps(answers, ensure_ascii=False)}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    server.wait_finished(ticket["id"], ticket["token"])
    return ticket, {"Authorization": f"Bearer {ticket['token']}"}


def test_texts_and_answers_in_any_script_are_set_in_their_own_direction(server, run) -> None:
    """F11: a Persian text and answer had ``lang="fa"`` but no direction, so a trailing ``؟``
    could land on the wrong side of an LTR cell."""
    from tests.web.test_site_crawl import read_page

    gold = {"questions": [_question("3", [("fa", "پایتخت ایران؟")], "تهران")]}
    answers = {"questions": [_question("3", [], "تهران")]}
    ticket, owner = _run_in_persian(server, gold, answers)
    task = server.get(f"experiment/{ticket['id']}/task/1", headers=owner).text
    one = server.get(f"experiment/{ticket['id']}/task/1/question/3", headers=owner).text
    for page in (task, one):
        assert re.search(r'<a href="[^"]*/question/3" lang="fa" dir="auto">پایتخت ایران؟</a>', page)
        assert '<span lang="fa" dir="auto">تهران</span>' in page  # the answer, matched
        assert not read_page(page).problems  # still well formed
    # an answer in words of no language the page knows, isolated in its own direction
    experiment, owner = run
    task = server.get(f"experiment/{experiment}/task/1", headers=owner).text
    assert f"<bdi>{ZWSP_TEHRAN}</bdi>" in task and f"<bdi>{FAMILY}</bdi>" in task
    assert re.search(r'<a href="[^"]*/question/1" lang="en" dir="auto">What is the', task)


def test_an_answer_in_no_language_is_not_marked_with_the_questions(server) -> None:
    """Every answer was marked with the question's language: a number and a boolean
    ``lang="fa"`` (explore56 F2). A tagged literal is marked with its own tag, a plain one in
    words with the question's (most answers in words are in it), a number with none."""
    row = [
        {"x": {"type": "literal", "value": "Damavand"}},
        {"x": {"type": "literal", "value": "5610", "datatype": XSD_INTEGER}},
        {"x": {"type": "literal", "value": "دماوند", "xml:lang": "fa"}},
        {"x": {"type": "literal", "value": "Demavend", "xml:lang": "de"}},
    ]
    gold = {"questions": [_question("4", [("fa", "بلندترین کوه ایران؟")], "x")]}
    gold["questions"][0]["answers"][0]["results"]["bindings"] = row
    answers = {"questions": [_question("4", [], "Damavand")]}
    answers["questions"][0]["answers"][0]["results"]["bindings"] = [row[0], row[1]]
    ticket, owner = _run_in_persian(server, gold, answers)
    page = server.get(f"experiment/{ticket['id']}/task/1/question/4", headers=owner).text
    assert re.search(r'<a href="[^"]*/question/4" lang="fa" dir="auto">', page)  # the text
    assert "Damavand" in page and "5610" in page
    assert not re.search(r'lang="[^"]*"[^>]*>5610', page), page  # a number: no language
    # in words of the question's script the question's language; a Latin name is not Persian
    assert "Damavand" in page and not re.search(r'lang="fa"[^>]*>Damavand', page)
    assert '<span lang="fa" dir="auto">دماوند @fa</span>' in page
    assert '<span lang="de" dir="auto">Demavend @de</span>' in page


@pytest.mark.parametrize(
    ("answer", "question", "language", "marked"),
    [
        ("تهران", "پایتخت ایران؟", "fa", True),
        ("Damavand", "بلندترین کوه ایران؟", "fa", False),
        ("Iran", "Damavand در کدام کشور است؟", "fa", False),  # one Latin word: still Persian
        ("Apple", "(iPhone) किस कंपनी का है?", "hi-IN", False),
        ("रतन टाटा", "(iPhone) किस कंपनी का है?", "hi-IN", True),
        ("Wisła", "Która rzeka przepływa przez Kraków?", "pl", True),  # PolEval stays pl
        ("テレビ", "日本の首都はどこですか", "ja", True),  # katakana in a kanji/hiragana question
        ("ｿﾆｰ", "日本の首都はどこですか", "ja", True),  # halfwidth katakana, the long-vowel mark
        ("Oʻzbekiston", "Qaysi davlat poytaxti Toshkent?", "uz", True),  # ʻ is no script
        ("1ª", "¿Cuál fue la posición?", "es", True),  # an ordinal indicator is Latin
        ("Москва", "What is the capital of Russia?", "en", False),
        # explore66 F5: Latin names outnumbered the kana; F6: Serbian has two alphabets
        ("村上春樹", "Who wrote ノルウェイの森?", "ja", True),
        ("Haruki Murakami", "Who wrote ノルウェイの森?", "ja", False),
        ("Београд", "Koji je glavni grad Srbije?", "sr", True),
        ("Podgorica", "Који је главни град Црне Горе?", "sr", True),
        ("テレビ", "北京是哪个国家的首都?", "zh-cn", False),  # kana is no Chinese
        # a language not listed: the script most of the question is in
        ("Ўзбекистон", "Ўзбекистон пойтахти?", "xx", True),
        ("Damavand", "بلندترین کوه ایران؟", None, False),
    ],
)
def test_an_answer_is_marked_with_the_questions_language_when_written_alike(
    answer: str, question: str, language: str | None, marked: bool
) -> None:
    """explore61 F9-F11: kana lost ``ja``, ``ʻ ª º`` were no script, and one Latin word in a
    Persian question brought ``lang="fa"`` on a Latin answer back. explore66 F5-F6: by the
    question's main script alone, a Japanese question with long Latin names marked the Latin
    answer ``ja`` and not the kanji one, and a Serbian answer in the other alphabet lost
    ``sr``: the scripts of the question's language decide (``pages.LANGUAGE_SCRIPTS``)."""
    from service.web.pages import Said

    assert Said(answer, words=True).written_like(question, language) is marked
