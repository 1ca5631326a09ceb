"""A leaderboard row says how many of the system's calls failed (``errorCount``, scored as
empty answers): a system whose service broke on some questions ranked as if it had answered
them wrongly, and a reader of the leaderboard could not tell (GERBIL's tables show errors)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

import pytest

from tests.web.conftest import Server, start_server, stop_server

FAILING = "Mars"  # in 3 of the demo's 14 questions


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("errors-store"), demo=False, sparql_workers=1)
    yield server
    stop_server(server)


def test_a_leaderboard_row_counts_the_systems_failed_calls(site: Server, slow_qa: str) -> None:
    body = {
        "dataset": "demo",
        "kb": "demo",
        "systems": [{"name": "flaky", "url": f"{slow_qa}fail/{FAILING}"}],
        "retries": 0,
    }
    ticket = site.post("api/experiments", json=body)
    assert ticket.status_code == 202, ticket.text
    eid, token = ticket.json()["id"], ticket.json()["token"]
    assert site.wait_finished(eid, token)["status"] == "finished"
    owner = {"Authorization": f"Bearer {token}"}
    assert site.post(f"api/experiments/{eid}/publish", headers=owner).status_code == 200

    params = {"dataset": "all", "experiment_type": "QA"}
    rows = site.get("leaderboards", params={**params, "format": "json"}).json()["rows"]
    (row,) = [r for r in rows if r["system"] == "flaky"]
    assert row["errorCount"] == 3, row
    table = site.get("leaderboards", params={**params, "format": "csv"}).text
    (line,) = [r for r in csv.DictReader(io.StringIO(table)) if r["system"] == "flaky"]
    assert line["errorCount"] == "3", line
    page = site.get("leaderboards", params=params).text
    assert '<abbr title="Number of scored questions whose system call failed' in page
    assert re.findall(r'<td class="num errors">([^<]*)</td>', page) == ["3"]


def test_a_service_whose_every_call_failed_is_not_said_to_be_a_file(
    site: Server, slow_qa: str
) -> None:
    """explore48 4: its mean runtime read "not timed: the answers were read from a file,
    which holds no runtimes" on the task and experiment pages."""
    body = {
        "dataset": "demo",
        "kb": "demo",
        "systems": [{"name": "refusing", "url": f"{slow_qa}refuse"}],
        "retries": 0,
        "maxErrorRate": 1,  # every question asked, every call failing
    }
    ticket = site.post("api/experiments", json=body)
    assert ticket.status_code == 202, ticket.text
    eid, token = ticket.json()["id"], ticket.json()["token"]
    finished = site.wait_finished(eid, token)
    assert finished["status"] == "finished", finished
    owner = {"Authorization": f"Bearer {token}", "Accept": "text/html"}
    said = "not timed: every call failed, and a failed call has no runtime"
    page = site.get(f"experiment/{eid}", headers=owner).text
    assert f'<abbr title="{said}">not timed</abbr>' in page
    assert "read from a file" not in page
    task = site.get(finished["results"][0]["task"].removeprefix(site.url), headers=owner).text
    assert f"<dd>{said}</dd>" in task, task[-3000:]
