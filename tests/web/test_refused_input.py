"""Input refused clearly, or kept and written safely (explore31 F2, F7, F8, F11, F14, F17).

C1 controls, DEL and noncharacters are characters XML 1.0 allows, and the built-in
qald-1-musicbrainz datasets' gold answers hold C1 controls, so they are kept; HTML pages write
U+FFFD in their place (HTML's parser calls them errors). A refused dataset character is named
with its line, column and JSON path; a PolEval pair's in.tsv is named for its texts; a language
tag is read without regard to case; an answer with a bad language tag or IRI is stored as the
plain literal the warning says; a doubled BOM is said in a user's words; an upload's file name
holding control characters or path separators is refused.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

QUESTIONS = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
STRONG = json.loads((DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8"))
# what HTML's parsing rules call an error in the input stream, in UTF-8
NOT_HTML = re.compile(
    rb"[\x00-\x08\x0b\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xef\xb7[\x90-\xaf]|\xef\xbf[\xbe\xbf]"
    rb"|[\xf0-\xf4][\x8f\x9f\xaf\xbf]\xbf[\xbe\xbf]"
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("refused-input"))
    yield running
    stop_server(running)


def _file(data: Any, name: str) -> dict[str, str]:
    return {"filename": name, "content": json.dumps(data)}


def _run_and_publish(site: Server, body: dict[str, Any]) -> dict[str, Any]:
    made = site.post("api/experiments", json=body)
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    return {**state, "id": ticket["id"]}


def test_c1_controls_and_noncharacters_reach_html_pages_as_replacement_characters(
    site: Server,
) -> None:
    dataset = copy.deepcopy(QUESTIONS)
    text = dataset["questions"][0]["question"][0]
    text["string"] = "Which planet\x85 is the largest\x7f in the Solar System\ufdd0?"
    text["keywords"] = "largest\x9f, planet\U0001fffe"
    answers = copy.deepcopy(STRONG)
    answers["questions"][0]["answers"][0]["results"]["bindings"].append(
        {"uri": {"type": "literal", "value": "Jupiter\x80\uffff"}}
    )
    done = _run_and_publish(
        site,
        {
            "dataset": _file(dataset, "c1.json"),
            "systems": [{"name": "c1", "answers": _file(answers, "c1-answers.json")}],
        },
    )
    task = f"experiment/{done['id']}/task/1"
    for path in (task, f"{task}/question/1"):
        page = site.get(path, headers={"Accept": "text/html"})
        assert page.status_code == 200, path
        # html5lib (strict) stopped here: "invalid-codepoint"
        assert NOT_HTML.search(page.content) is None, (path, NOT_HTML.search(page.content))
        shown = page.content.decode()
        assert "Jupiter\ufffd\ufffd" in shown, path
        if path.endswith("question/1"):
            assert "Which planet\ufffd is the largest\ufffd in the Solar System\ufffd?" in shown
    # a C1 control is kept in the store (XML 1.0 allows it; U+FFFF it does not)
    turtle = site.get(f"{task}/question/1", headers={"Accept": "text/turtle"})
    assert "Jupiter\x80\ufffd" in turtle.content.decode()
