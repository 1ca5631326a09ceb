"""A leaderboard link with a dataset name the service knows nothing of (a typo in a paper's
link) showed "No public results with these filters", 200, as if the dataset had none; now a
400 naming the nearest name. A known dataset without results still answers 200, empty."""

from __future__ import annotations

import html

from tests.web.conftest import demo_dataset


def test_an_unknown_dataset_is_refused_naming_the_nearest(server) -> None:
    name = demo_dataset(server).rsplit("/", 1)[1]
    typo = name[:-1] + ("x" if name[-1] != "x" else "y")
    for fmt in ("html", "json", "csv"):
        refused = server.get("leaderboards", params={"dataset": typo, "format": fmt})
        assert refused.status_code == 400, (fmt, refused.text[:300])
        assert f"did you mean {name!r}?" in refused.text, refused.text[:300]
    frozen = server.post("api/leaderboards", json={"dataset": typo})
    assert frozen.status_code == 400 and f"dataset={typo!r}" in frozen.json()["error"]
    # misspelt, the challenge number typed is kept (spelling alone said qald-10-test)
    misspelt = server.get("leaderboards", params={"dataset": "qald-9-tst"})
    assert misspelt.status_code == 400
    assert "did you mean 'qald-9-test-multilingual'?" in html.unescape(misspelt.text)
    far = server.get("leaderboards", params={"dataset": "nothing-like-it-at-all"})
    assert far.status_code == 400 and "catalog" in far.text


def test_a_known_dataset_without_results_is_an_empty_leaderboard(server) -> None:
    empty = server.get(
        "leaderboards", params={"dataset": "qald-9-test-multilingual", "format": "json"}
    )
    assert empty.status_code == 200, empty.text
    assert empty.json()["rows"] == []
    every = server.get("leaderboards", params={"dataset": "all", "format": "json"})
    assert every.status_code == 200 and every.json()["rows"]


def test_the_suggestion_is_the_catalogues_not_the_nearest_spelling(server) -> None:
    """The leaderboard matched names by spelling alone and offered another challenge's dataset
    (`qald-9-test` -> `qald-10-test`); it now names those holding what was typed, as the CLI."""
    refused = server.get("leaderboards", params={"dataset": "qald-9-test", "format": "json"})
    assert refused.status_code == 400, refused.text[:300]
    assert "did you mean 'qald-9-test-multilingual'" in refused.text, refused.text[:300]
    assert "qald-10" not in refused.text, refused.text[:300]
