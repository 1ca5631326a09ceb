"""Comparing a task the version of 2026-11-21 recorded with one this version recorded, on a
store upgraded in place. That version wrote no question positions (``gqa:position``) into an
experiment's graph; the old graph is made here by removing them from a recorded one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from service.graph.adapter import Side
from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

GQA = "http://w3id.org/gerbil/qa/vocab#"


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("upgraded-store"))
    yield running
    stop_server(running)


def _recorded_as_of_old(server: Server) -> str:
    """A published experiment of the demo's questions and strong answers whose graph holds
    no question positions, as the old version wrote it; its QA task's URI."""
    files = [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("answers.json", (DEMO_DIR / "answers-strong.json").read_bytes())),
    ]
    data = {"kb": "demo", "answers_name": "old-strong"}
    ticket = server.post("api/experiments", files=files, data=data).json()
    server.wait_finished(ticket["id"], ticket["token"])
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=owner).ok
    graph = server.storage.uris.experiment_graph(ticket["id"])
    for side in (Side.PRIVATE, Side.PUBLIC):
        server.storage.store.update(
            side, f"DELETE WHERE {{ GRAPH <{graph}> {{ ?q <{GQA}position> ?at }} }}"
        )
    ask = f"ASK {{ GRAPH <{graph}> {{ ?q <{GQA}position> ?at }} }}"
    assert not server.storage.public.query(ask)
    return f"{ticket['uri']}/task/1"


def _demo_task(server: Server, label: str) -> str:
    rows = server.storage.public.query(
        f"""PREFIX gqa: <{GQA}> PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?task WHERE {{ <{server.url}experiment/{server.demo_id}> gqa:task ?task .
  ?task gerbil:experimentType gerbil:QA ; gerbil:annotator ?s . ?s rdfs:label "{label}" }}"""
    )
    return next(iter(rows))["task"].value  # type: ignore[index]


def test_an_old_task_compares_with_a_new_one_on_the_same_questions(upgraded: Server) -> None:
    old = _recorded_as_of_old(upgraded)
    new = _demo_task(upgraded, "demo-partial")
    # Before: 400 "paired tests need the same questions in the same order: 14 questions vs 14
    # (the ids differ)": the old task's questions came back in URI order (1, 10, 11, …)
    both = upgraded.post("api/compare", json={"tasks": [new, old], "resamples": 200})
    assert both.status_code == 200, both.text
    body = both.json()
    assert {s["system"] for s in body["systems"]} == {"demo-partial", "old-strong"}
    # the same pairing as the demo's own strong task, whose graph keeps the positions
    same = upgraded.post(
        "api/compare",
        json={"tasks": [new, _demo_task(upgraded, "demo-strong")], "resamples": 200},
    )
    assert same.status_code == 200, same.text
    pair, expected = body["pairs"][0], same.json()["pairs"][0]
    assert pair["pValue"] == expected["pValue"]
    assert abs(pair["difference"]) == abs(expected["difference"]) > 0


def test_tasks_on_other_questions_are_still_refused(upgraded: Server, tmp_path: Path) -> None:
    old = _recorded_as_of_old(upgraded)
    other = (DEMO_DIR / "questions.json").read_text().replace('"id": "1"', '"id": "x1"')
    files = [
        ("dataset_file", ("questions.json", other.encode())),
        ("answers", ("answers.json", (DEMO_DIR / "answers-strong.json").read_bytes())),
    ]
    ticket = upgraded.post(
        "api/experiments", files=files, data={"kb": "demo", "answers_name": "x", "force": "1"}
    ).json()
    assert "id" in ticket, ticket
    upgraded.wait_finished(ticket["id"], ticket["token"])
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    refused = upgraded.post(
        "api/compare", json={"tasks": [old, f"{ticket['uri']}/task/1"]}, headers=owner
    )
    assert refused.status_code == 400
