"""Every CSV we write reads back as what the API's JSON says (explore31 F9).

The formula guard's ``'`` was put before a cell's first item, so the answers ``=1+1 x`` and
``'=1+1 x`` were both written ``'=1+1 x`` and read back alike. Now an item's own leading ``'``
is written ``\\'`` (as ``|`` and ``\\`` are escaped), a text cell starting with ``'`` gets one
more, and the reader takes one leading ``'`` off a cell (``cell_text``) before splitting it
(``split_items``): the task CSV, the experiment CSV, the experiment list's CSV, the leaderboard
CSV, ``evaluate --output csv`` and ``compare --output csv|pairs-csv`` all read back exactly.
"""

from __future__ import annotations

import copy
import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import rdflib

from service.cli import main
from service.csv_table import cell_text, split_items
from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

STRONG = json.loads((DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8"))
ITEMS = ["=x", "'=x", "'x", "+1", "-", "@a", "a | b", "\\", ""]
# each item first in one system's answers (a system's name starts with a letter, digit or _)
FIRSTS = [i for i in ITEMS if i]
NAMES = [f"s{n} {'@-' if n % 2 else chr(39)}" for n in range(len(FIRSTS))]
GIVEN = rdflib.URIRef("http://w3id.org/gerbil/qa/vocab#givenAnswer")


def _answers(first: str) -> dict[str, Any]:
    """The demo's strong answers, question 1 answered with ``ITEMS`` (``first`` first)."""
    answers = copy.deepcopy(STRONG)
    order = [first, *(i for i in ITEMS if i != first)]
    bindings = [{"x": {"type": "literal", "value": v}} for v in order]
    answers["questions"][0]["answers"] = [
        {"head": {"vars": ["x"]}, "results": {"bindings": bindings}}
    ]
    return answers


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("csv-readback"))
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def run(site: Server) -> dict[str, Any]:
    systems = [
        {"name": name, "answers": {"filename": f"{n}.json", "content": json.dumps(_answers(first))}}
        for n, (name, first) in enumerate(zip(NAMES, FIRSTS, strict=True))
    ]
    made = site.post(
        "api/experiments",
        json={"dataset": "demo", "profile": "exact", "ranked": True, "systems": systems},
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    return {**state, "id": ticket["id"]}


def test_the_task_csv_reads_back_as_the_given_answers(site: Server, run: dict[str, Any]) -> None:
    experiment = site.get(f"experiment/{run['id']}.csv").text
    tasks = [r for r in _rows(experiment) if r["experimentType"] == "QA"]
    assert len(tasks) == len(NAMES)
    for task in tasks:
        path = task["task"].removeprefix(site.url)
        first = _rows(site.get(f"{path}.csv").text)[0]
        assert first["id"] == "1"
        turtle = site.get(f"{path}/question/1", headers={"Accept": "text/turtle"}).text
        stored = {
            str(o) for o in rdflib.Graph().parse(data=turtle, format="turtle").objects(None, GIVEN)
        }
        assert stored == set(ITEMS)
        assert sorted(split_items(first["given"])) == sorted(ITEMS), first["given"]
        ranked = split_items(first["rankedAnswers"])
        # the system's order, each item with its verdict (the empty one shown as "")
        assert [r.rsplit(" [", 1)[0] for r in ranked][1:] == [
            i or '""' for i in ITEMS if i != ranked[0].rsplit(" [", 1)[0]
        ]
        assert ranked[0].rsplit(" [", 1)[0] in FIRSTS


def test_system_names_read_back_from_every_web_csv(site: Server, run: dict[str, Any]) -> None:
    names = sorted(e["system"] for e in run["evaluations"])
    assert names == sorted(NAMES)
    listed = _rows(site.get("experiments", headers={"Accept": "text/csv"}).text)
    mine = next(r for r in listed if r["id"] == run["id"])
    assert sorted(split_items(mine["systems"])) == names, mine["systems"]
    board = site.get("leaderboards", params={"format": "json"}).json()
    dataset = next(r["dataset"] for r in board["rows"] if r["experiment"].endswith(run["id"]))
    dataset = dataset.rsplit("/", 1)[-1]
    params = {"dataset": dataset, "profile": "exact", "language": "en", "format": "json"}
    shown = sorted(r["system"] for r in site.get("leaderboards", params=params).json()["rows"])
    table = _rows(site.get("leaderboards", params={**params, "format": "csv"}).text)
    assert sorted(cell_text(r["system"]) for r in table) == shown
    assert set(NAMES) <= set(shown)


def test_evaluate_and_compare_csv_read_back_as_their_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = []
    for n, first in enumerate(FIRSTS):
        files.append(tmp_path / f"s{n}.json")
        files[-1].write_text(json.dumps(_answers(first)), encoding="utf-8")
    names = [a for n in NAMES for a in ("--system", n)]
    demo = ["--dataset", str(DEMO_DIR / "questions.json"), "--kb", str(DEMO_DIR / "kb.ttl")]
    common = [*demo, "--answers", *map(str, files), *names, "--types", "QA"]
    assert main(["evaluate", *common, "--output", "csv"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert sorted({cell_text(r["system"]) for r in rows}) == sorted(NAMES)
    assert main(["evaluate", *common, "--output", "json"]) == 0
    shown = [json.loads(line)["system"] for line in capsys.readouterr().out.splitlines()]
    assert shown == NAMES
    quick = ["--resamples", "50", "--samples", "50"]
    assert main(["compare", *common, *quick, "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["compare", *common, *quick, "--output", "csv"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert [cell_text(r["system"]) for r in rows] == [s["system"] for s in data["systems"]]
    assert main(["compare", *common, *quick, "--output", "pairs-csv"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert [(cell_text(r["a"]), cell_text(r["b"])) for r in rows] == [
        (p["a"], p["b"]) for p in data["pairs"]
    ]
