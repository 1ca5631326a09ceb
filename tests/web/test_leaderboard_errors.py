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
