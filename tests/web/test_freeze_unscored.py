"""A leaderboard sorted by a measure none of its rows has (CWS of runs without confidences)
shows every row as "–", each ranked 1; frozen, it was a citable standing that ranks nothing.
Freezing it is refused, naming the measure; the live page still shows it."""

from __future__ import annotations

from tests.web.conftest import demo_dataset


def test_freezing_by_a_measure_no_row_has_is_refused(server) -> None:
    dataset = demo_dataset(server).rsplit("/", 1)[1]
    live = server.get("leaderboards", params={"dataset": dataset, "sort": "cws", "format": "json"})
    assert live.status_code == 200 and live.json()["rows"]  # rows, none with a CWS
    assert all(r["measures"]["cws"] is None for r in live.json()["rows"])
    before = server.get("api/leaderboards", params={"size": 500}).json()["leaderboards"]
    refused = server.post("api/leaderboards", json={"dataset": dataset, "sort": "cws"})
    assert refused.status_code == 400, refused.text
    assert "no row of this leaderboard has" in refused.json()["error"]
    assert "(cws)" in refused.json()["error"]
    form = server.post("leaderboards/freeze", data={"dataset": dataset, "sort": "cws"})
    assert form.status_code == 400 and "(cws)" in form.text
    after = server.get("api/leaderboards", params={"size": 500}).json()["leaderboards"]
    assert after == before
    frozen = server.post("api/leaderboards", json={"dataset": dataset, "sort": "macroF1"})
    assert frozen.status_code in (200, 201), frozen.text
    assert all(r["score"] is not None for r in frozen.json()["rows"])
