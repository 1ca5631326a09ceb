"""``POST /api/compare`` on an uploaded dataset names it as its pages do.

Its answer named v1 and v2 of one uploaded dataset alike, by their shared title alone
("dataset": "Planets QA"), so two comparisons (q3's gold differs) could not be told apart or
cited (explore32 7): it says the dataset's URI, name and label ("…, version 1 (NAME)")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_hidden_gold import _answers, _publish, _submit, _test_set


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("compare-names-store"), demo=False)
    yield running
    stop_server(running)


def test_a_comparison_names_the_version_it_was_made_on(site: Server) -> None:
    content = _test_set().replace(b"secret-task", b"planets")
    first = _submit(
        site,
        {
            "dataset": {"filename": "v1.json", "content": content.decode()},
            "title": "Planets QA",
            "about": {"version": "1"},
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
        },
    )
    _publish(site, first)
    v1 = site.get(f"api/experiments/{first['id']}").json()["dataset"].rsplit("/", 1)[1]
    fixed = content.replace(b"GOLDSECRET-3", b"FIXED-3")
    # a newer version is its author's: the token of the run that uploaded v1 (explore34 1)
    made = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "v2.json", "content": fixed.decode()},
            "title": "Planets QA",
            "about": {"version": "2", "previousVersion": v1},
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
        },
        headers={"Authorization": f"Bearer {first['token']}"},
    )
    assert made.status_code == 202, made.text
    second = made.json()
    site.wait_finished(second["id"], second["token"])
    _publish(site, second)
    v2 = site.get(f"api/experiments/{second['id']}").json()["dataset"].rsplit("/", 1)[1]
    answers = [
        ("answers", (f"{n}.json", _answers(right))) for n, right in (("a", {1, 2}), ("b", {3}))
    ]
    said = {}
    for name, version in ((v1, "1"), (v2, "2")):
        compared = site.post("api/compare", data={"dataset": name}, files=answers)
        assert compared.status_code == 200, compared.text
        body = compared.json()
        assert body["dataset"] == "Planets QA"  # as before: its title
        assert body["datasetName"] == name and body["datasetUri"] == site.url + f"dataset/{name}"
        assert body["datasetLabel"] == f"Planets QA, version {version} ({name})"
        said[name] = body["datasetLabel"]
    assert said[v1] != said[v2]
    # its bytes uploaded again are that dataset too
    again = site.post(
        "api/compare",
        files=[("dataset_file", ("copy.json", content)), *answers],
    )
    assert again.status_code == 200, again.text
    assert again.json()["datasetName"] == v1
    # a file never published has none of them
    other = site.post(
        "api/compare",
        files=[("dataset_file", ("other.json", content.replace(b"planets", b"other"))), *answers],
    )
    assert other.status_code == 200, other.text
    assert "datasetUri" not in other.json()
