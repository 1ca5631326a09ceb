"""What the compare page says of its statistics for a careful reader (explore43 F1, F3, F4,
F6, F7), through the app's test client: the warnings of too few questions and of questions
left unanswered, the answered column, the number of questions, the slices' caveat and a
p-value at the floor of its test."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

QALD9 = ("qald", "ag-sc_QALD", "9", "data", "qald-9-test-multilingual.json")
WRONG = {"head": {"vars": ["uri"]}, "results": {"bindings": [
    {"uri": {"type": "uri", "value": "http://example.org/Wrong"}}]}}  # fmt: skip


def _gold(data_dir: Path, questions: int | None = None) -> dict[str, Any]:
    gold = json.loads(data_dir.joinpath(*QALD9).read_text(encoding="utf-8"))
    if questions is not None:
        gold["questions"] = gold["questions"][:questions]
    return gold


def _answers(gold: dict[str, Any], right: int, rest: str) -> bytes:
    """The first ``right`` questions answered with their gold, the rest ``rest``: ``wrong``,
    ``missing`` (no entry) or ``error`` (a failed call)."""
    entries = []
    for i, q in enumerate(gold["questions"]):
        entry: dict[str, Any] = {"id": q["id"], "question": q["question"][:1]}
        if i < right:
            entry["answers"] = q["answers"][:1]
        elif rest == "missing":
            continue
        elif rest == "error":
            entry.update(answers=[], error="timeout")
        else:
            entry["answers"] = [WRONG]
        entries.append(entry)
    return json.dumps({"dataset": gold["dataset"], "questions": entries}).encode()


def _compare(client: FlaskClient, gold: dict[str, Any], **systems: bytes) -> str:
    data: dict[str, Any] = {
        "dataset_file": (io.BytesIO(json.dumps(gold).encode()), "dataset.json"),
        "answers": [(io.BytesIO(body), f"{name}.json") for name, body in systems.items()],
        "profile": "exact",
    }
    response = client.post("/compare", data=data, content_type="multipart/form-data")
    assert response.status_code == 200, response.text
    return response.text


def _warnings(page: str) -> list[str]:
    box = page.split('id="compare-warnings"', 1)
    if len(box) == 1:
        return []
    found = re.findall(r"<strong>Warning:</strong> (.*?)</p>", box[1].split("</div>", 1)[0])
    return [html.unescape(w) for w in found]


def test_too_few_questions_are_said_on_the_page(client: FlaskClient, data_dir: Path) -> None:
    """explore43 F1: one question, every pair p = 1 and every interval [x, x], no word."""
    gold = _gold(data_dir, 1)
    page = _compare(client, gold, right=_answers(gold, 1, "wrong"), wrong=_answers(gold, 0, ""))
    said = _warnings(page)
    assert any(w.startswith("the systems differ on at most 1 of the 1 question") for w in said)
    assert '<span id="compare-questions">1</span> question</caption>' in page  # explore43 F4
    assert any(w.startswith("one question compared: every bootstrap resample") for w in said)


def test_questions_left_unanswered_are_said_and_counted(
    client: FlaskClient, data_dir: Path
) -> None:
    """explore43 F3: the page dropped evaluate's warning of 50 questions without an answer."""
    gold = _gold(data_dir)
    page = _compare(
        client,
        gold,
        full=_answers(gold, 150, ""),
        gappy=_answers(gold, 100, "missing"),
        failing=_answers(gold, 103, "error"),
    )
    said = _warnings(page)
    assert any(w.startswith("gappy: 50 of 150 questions have no answer in its file") for w in said)
    assert any(w.startswith("failing: the call failed on 47 of 150 questions") for w in said)
    table = page.split('id="compare-systems"', 1)[1].split("</table>", 1)[0]
    assert '<span id="compare-questions">150</span> questions</caption>' in table
    assert '<th scope="col" class="num">Answered</th>' in table
    row = r'<th scope="row">(\w+)</th>.*?<td class="num">([^<]*)</td></tr>'
    cells = dict(re.findall(row, table))
    assert cells == {"full": "all", "gappy": "100 of 150", "failing": "103 of 150 (47 failed)"}


def test_the_answer_types_table_says_it_has_no_intervals(
    client: FlaskClient, data_dir: Path
) -> None:
    """explore43 F6: 4-question slices (0.750 against 0.500) shown without uncertainty."""
    gold = _gold(data_dir, 20)
    page = _compare(client, gold, right=_answers(gold, 20, ""), half=_answers(gold, 10, "wrong"))
    table = page.split('id="compare-answer-types"', 1)[1].split("</caption>", 1)[0]
    assert "values only, with no interval and no test" in table


def test_a_p_value_at_its_floor_is_shown_as_a_bound(client: FlaskClient, data_dir: Path) -> None:
    """explore43 F7: p = 1/10,001 (no shuffle as extreme) shown "1.0e-04" as if measured."""
    gold = _gold(data_dir)
    page = _compare(client, gold, right=_answers(gold, 150, ""), wrong=_answers(gold, 0, ""))
    pairs = page.split('id="compare-pairs"', 1)[1].split("</table>", 1)[0]
    assert '<td class="num">≤ 1.0e-04</td><td class="num">≤ 1.0e-04</td>' in html.unescape(pairs)
