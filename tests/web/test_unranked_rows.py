"""A leaderboard sorted by a measure only some of its rows have (CWS: only a run with
confidences has it) ranked the rows without it too, tied at the first such row's place — a
"rank 2" beside "–" that a reader takes for second place. Such rows are listed last, unranked
("–" in HTML, an empty cell in CSV, null in JSON), and a frozen leaderboard keeps the ranked
rows only."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

import pytest

from tests.web.conftest import Server, demo_dataset, start_server, stop_server


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own (publishing here would change the shared server's leaderboards)
    with the demo published and one more run, with confidences, published beside it."""
    running = start_server(tmp_path_factory.mktemp("unranked-store"))
    try:
        ticket, _ = running.submit_confident()
        published = running.post(
            f"api/experiments/{ticket['id']}/publish",
            headers={"Authorization": f"Bearer {ticket['token']}"},
        )
        assert published.status_code == 200, published.text
        yield running
    finally:
        stop_server(running)


def _board(site: Server, **extra: str) -> dict:
    dataset = demo_dataset(site).rsplit("/", 1)[1]
    params = {"dataset": dataset, "sort": "cws", "profile": "fair", "language": "en", **extra}
    response = site.get("leaderboards", params=params)
    assert response.status_code == 200, response.text
    return response


def test_rows_without_the_measure_are_not_ranked(site) -> None:
    rows = _board(site, format="json").json()["rows"]
    scored = [r for r in rows if r["measures"]["cws"] is not None]
    unscored = [r for r in rows if r["measures"]["cws"] is None]
    assert len(scored) == 1 and scored[0]["system"] == "confident", rows
    assert len(unscored) >= 2, rows  # the demo's systems: no confidences
    assert scored[0]["rank"] == 1
    assert [r["rank"] for r in unscored] == [None] * len(unscored)
    assert rows.index(scored[0]) == 0  # the unranked rows come last
    table = list(csv.DictReader(io.StringIO(_board(site, format="csv").text)))
    assert [r["rank"] for r in table] == ["1"] + [""] * len(unscored)


def test_the_page_shows_a_dash_for_an_unranked_row(site) -> None:
    html = _board(site).text
    ranks = re.findall(r'</label></td>\s*<td class="num">(.*?)</td>', html)
    assert ranks[0] == "1", ranks
    assert all("not ranked" in cell and "–" in cell for cell in ranks[1:]), ranks


def test_a_frozen_leaderboard_keeps_the_ranked_rows(site) -> None:
    dataset = demo_dataset(site).rsplit("/", 1)[1]
    body = {"dataset": dataset, "sort": "cws", "profile": "fair", "language": "en"}
    frozen = site.post("api/leaderboards", json=body)
    assert frozen.status_code == 201, frozen.text
    rows = frozen.json()["rows"]
    assert [(r["rank"], r["score"] is not None) for r in rows] == [(1, True)], rows
