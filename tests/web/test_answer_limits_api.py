"""The answer and question limits over the API, on a real server with small limits: a file past
one is a 400 naming file, position, question and limit (the CLI's words) and leaves nothing
behind; an upload too large to parse in the request ends its experiment in ``error`` with the
same message."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.graph.nodes import NamedNode
from service.paths import DEMO_DIR
from service.web.config import load_config
from tests.web.conftest import Server, start_server, stop_server

QUESTIONS = (DEMO_DIR / "questions.json").read_text()
STRONG = json.loads((DEMO_DIR / "answers-strong.json").read_text())
SYNC_BYTES = 100_000


def answers(first: int, *, pad: int = 0) -> str:
    """The demo's strong answers, the first question with ``first`` bindings; ``pad`` spaces
    at the end (JSON's whitespace) make the upload larger without changing it."""
    doc = json.loads(json.dumps(STRONG))
    bindings = doc["questions"][0]["answers"][0]["results"]["bindings"]
    var = next(iter(bindings[0]))
    doc["questions"][0]["answers"][0]["results"]["bindings"] = [
        {var: {"type": "uri", "value": f"http://example.org/answer/{i}"}} for i in range(first)
    ]
    return json.dumps(doc, indent=1) + " " * pad


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(
        tmp_path_factory.mktemp("limits-store"),
        demo=False,
        max_answers_per_question=10,
        max_answers_per_file=40,
        max_questions_per_file=20,  # the demo has 14
        sync_parse_bytes=SYNC_BYTES,
    )
    yield running
    stop_server(running)


def _count(server: Server) -> int:
    return len(server.storage.experiments.listing(include_private=True))


def _submit(server: Server, text: str, *, dataset: str = QUESTIONS) -> Any:
    return server.post(
        "api/experiments",
        files=[
            ("dataset_file", ("questions.json", dataset.encode())),
            ("answers", ("big.json", text.encode())),
        ],
        data={"profile": "exact"},
    )


def many_questions(count: int, *, pad: int = 0) -> str:
    """A QALD-JSON dataset of ``count`` questions (the demo's, repeated under new ids)."""
    doc = json.loads(QUESTIONS)
    demo = doc["questions"]
    doc["questions"] = [{**demo[i % len(demo)], "id": str(i + 1)} for i in range(count)]
    return json.dumps(doc, indent=1) + " " * pad


def _wait(server: Server, ticket: dict[str, Any]) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = server.get(f"api/experiments/{ticket['id']}", headers=auth).json()
        if state["status"] in ("finished", "error", "cancelled"):
            return state
        time.sleep(0.1)
    raise AssertionError(f"experiment {ticket['id']} did not end")


def test_under_the_limits_an_upload_is_scored(limited: Server) -> None:
    response = _submit(limited, answers(10))
    assert response.status_code == 202, response.text
    assert _wait(limited, response.json())["status"] == "finished"


def test_past_the_question_limit_a_400_naming_file_place_and_limit(limited: Server) -> None:
    before = _count(limited)
    response = _submit(limited, answers(11))
    assert response.status_code == 400, response.text
    problems = [p for p in response.json()["problems"] if p["severity"] == "error"]
    assert len(problems) == 1, problems
    problem = problems[0]
    assert problem["file"] == "big.json" and problem["line"] and problem["column"]
    assert problem["question"] == str(STRONG["questions"][0]["id"])
    assert (
        "at most 10 answers per question (GERBIL_QA_MAX_ANSWERS_PER_QUESTION)" in (problem["text"])
    )
    assert _count(limited) == before  # no experiment, no ghost


def test_past_the_file_limit_over_json_too(limited: Server) -> None:
    before = _count(limited)
    doc = json.loads(answers(10))
    for question in doc["questions"][1:6]:  # 5 more questions of 8 bindings: past 40
        results = question.get("answers", [{}])[0].get("results")
        if results is not None:
            results["bindings"] = doc["questions"][0]["answers"][0]["results"]["bindings"][:8]
    body = {
        "dataset": {"content": QUESTIONS},
        "systems": [{"name": "big", "answers": {"content": json.dumps(doc), "filename": "f.json"}}],
        "profile": "exact",
    }
    response = limited.post("api/experiments", json=body)
    assert response.status_code == 400, response.text
    assert "at most 40 answers per file (GERBIL_QA_MAX_ANSWERS_PER_FILE)" in response.text
    assert _count(limited) == before


def test_an_upload_parsed_in_its_job_ends_in_error_with_the_same_words(limited: Server) -> None:
    text = answers(11, pad=SYNC_BYTES)
    response = _submit(limited, text)
    assert response.status_code == 202, response.text
    state = _wait(limited, response.json())
    assert state["status"] == "error", state
    assert "at most 10 answers per question (GERBIL_QA_MAX_ANSWERS_PER_QUESTION)" in (
        state.get("message") or ""
    ), state
    assert "big.json" in state["message"]


def test_past_the_question_limit_a_dataset_is_a_400_naming_file_count_and_limit(
    limited: Server,
) -> None:
    before = _count(limited)
    response = _submit(limited, answers(1), dataset=many_questions(21))
    assert response.status_code == 400, response.text
    (problem,) = [p for p in response.json()["problems"] if p["severity"] == "error"]
    assert problem["file"] == "questions.json" and problem["path"] == "$.questions"
    assert "the file has 21 questions, more than the limit per file" in problem["text"]
    assert "at most 20 questions per file (GERBIL_QA_MAX_QUESTIONS_PER_FILE)" in problem["text"]
    assert _count(limited) == before  # no experiment, no ghost


def test_an_answer_file_of_too_many_questions_is_refused_in_its_job(limited: Server) -> None:
    """Past ``sync_parse_bytes`` the upload is read by the job, which ends in ``error`` naming
    the answer file before anything is scored or recorded; at the limit it is scored."""
    text = many_questions(21, pad=SYNC_BYTES)
    response = _submit(limited, text, dataset=many_questions(20))
    assert response.status_code == 202, response.text
    state = _wait(limited, response.json())
    assert state["status"] == "error", state
    message = state.get("message") or ""
    assert "big.json" in message and "the file has 21 questions" in message, state
    assert "at most 20 questions per file (GERBIL_QA_MAX_QUESTIONS_PER_FILE)" in message
    assert not limited.storage.store.private.contains_named_graph(
        NamedNode(limited.storage.uris.experiment_graph(response.json()["id"]))
    )
    at_limit = _submit(limited, many_questions(20, pad=SYNC_BYTES), dataset=many_questions(20))
    assert at_limit.status_code == 202, at_limit.text
    assert _wait(limited, at_limit.json())["status"] == "finished"


def test_the_limits_are_settings_and_environment_variables(tmp_path: Path) -> None:
    config = load_config(
        {"max_answers_per_question": "5"},
        environ={
            "GERBIL_QA_MAX_ANSWERS_PER_FILE": "70",
            "GERBIL_QA_MAX_QUESTIONS_PER_FILE": "1000",
        },
    )
    limits = config.format_limits()
    assert (limits.max_answers_per_question, limits.max_answers_per_file) == (5, 70)
    assert limits.max_questions_per_file == 1000
    defaults = load_config({}, environ={}).format_limits()
    assert (defaults.max_answers_per_file, defaults.max_questions_per_file) == (2_000_000, 20_000)
    from service.errors import BadRequest

    with pytest.raises(BadRequest, match="max_answers_per_question"):
        load_config({}, environ={"GERBIL_QA_MAX_ANSWERS_PER_QUESTION": "0"})
    with pytest.raises(BadRequest, match="max_questions_per_file"):
        load_config({}, environ={"GERBIL_QA_MAX_QUESTIONS_PER_FILE": "0"})
