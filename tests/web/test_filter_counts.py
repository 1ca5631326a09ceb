"""The counts the pages print next to a choice are counts of what that choice shows: each value
of the leaderboards' filters (dataset, language, profile, and "all") counts the rows the
leaderboard lists with that value chosen and the other filters as they are; the home page's
datasets count the rows of their leaderboards; the systems list counts the experiments each
system's history lists. On a server of its own, with results that used to be miscounted: an
experiment (it carries a profile too), a run in two languages (its per-question results carry
a language), sub-experiment tasks, and an experiment a published revision re-scores."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator

import pytest

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

FILTERS = ("dataset", "language", "profile")


def _bilingual() -> bytes:
    """The demo's questions, each also in German."""
    doc = json.loads((DEMO_DIR / "questions.json").read_text())
    for q in doc["questions"]:
        q["question"].append(
            {"language": "de", "string": "Auf Deutsch: " + q["question"][0]["string"]}
        )
    return json.dumps(doc).encode()


def _run(server: Server, dataset: bytes, systems: tuple[str, ...], **form: str) -> dict:
    files = [("dataset_file", ("questions.json", dataset))]
    for name in systems:
        files.append(
            ("answers", (f"{name}.json", (DEMO_DIR / f"answers-{name}.json").read_bytes()))
        )
    response = server.post("api/experiments", files=files, data={"kb": "demo", **form})
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"])
    return ticket


def _publish(server: Server, ticket: dict) -> None:
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    response = server.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
    assert response.status_code == 200, response.text


@pytest.fixture(scope="module")
def counted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The demo (fair, English, three systems, every experiment type) and, published: a run of
    two systems in English and German, and one pooled over both (exact); a QA-only run under
    gerbil re-scored under fair, the revision published too (the old one stays, under gerbil)."""
    server = start_server(tmp_path_factory.mktemp("counts-store"), demo=True, sparql_workers=1)
    try:
        questions = (DEMO_DIR / "questions.json").read_bytes()
        _publish(
            server, _run(server, _bilingual(), ("strong", "partial"), profile="fair", language="de")
        )
        _publish(
            server, _run(server, _bilingual(), ("partial",), profile="exact", language="en,de")
        )
        old = _run(server, questions, ("baseline",), profile="gerbil", experiment_type="QA")
        _publish(server, old)
        auth = {"Authorization": f"Bearer {old['token']}"}
        response = server.post(
            f"api/experiments/{old['id']}/rescore", json={"profile": "fair"}, headers=auth
        )
        assert response.status_code == 202, response.text
        revision = response.json()
        server.wait_finished(revision["id"], revision["token"])
        _publish(server, revision)
        yield server
    finally:
        stop_server(server)


def _options(html: str, name: str) -> dict[str, int]:
    """A filter's options on the leaderboards page: value -> the count printed after it."""
    select = re.search(rf'<select id="lb-{name}" name="{name}">(.*?)</select>', html, re.S)
    assert select is not None, name
    found = re.findall(r'<option value="([^"]*)"[^>]*>[^<]*\((\d+)\)</option>', select[1])
    return {value: int(n) for value, n in found}


def _tasks(html: str) -> list[str]:
    """The rows a leaderboard lists (each row's compare box names its task)."""
    return re.findall(r'<input type="checkbox" name="task" value="([^"]+)"', html)


def _chosen(html: str, name: str) -> str:
    select = re.search(rf'<select id="lb-{name}" name="{name}">(.*?)</select>', html, re.S)
    assert select is not None
    picked = re.search(r'<option value="([^"]*)" selected>', select[1])
    return picked[1] if picked else ""


@pytest.mark.parametrize(
    "state",
    [
        {},
        {"dataset": "all"},
        {"dataset": "all", "language": "de"},
        {"dataset": "all", "profile": "exact"},
        {"language": "en", "profile": "fair"},
        {"dataset": "all", "type": "C2KB"},
        {"dataset": "all", "profile": "poleval"},
    ],
)
def test_each_filter_value_counts_the_rows_it_shows(counted: Server, state: dict) -> None:
    page = counted.get("leaderboards", params={**state, "size": 500}).text
    # the filters as the page applied them (without a dataset: the one with the most rows)
    applied = {**state, **{name: _chosen(page, name) for name in FILTERS}}
    checked = 0
    for name in FILTERS:
        for value, count in _options(page, name).items():
            shown = counted.get("leaderboards", params={**applied, name: value, "size": 500}).text
            assert count == len(_tasks(shown)), (state, name, value)
            checked += 1
    assert checked >= 10


def test_the_counts_the_demo_page_showed_wrongly(counted: Server) -> None:
    """The demo's dataset: its QA rows whatever is counted (its profile said 14 where the
    dataset and language said 13: the experiment, the other types' tasks counted too)."""
    demo = counted.get(f"api/experiments/{counted.demo_id}").json()["dataset"].rsplit("/", 1)[1]
    page = counted.get("leaderboards", params={"dataset": demo}).text
    # the demo's three systems, the revision under fair and what it re-scores under gerbil (a
    # revision under another profile is another view: the gerbil row stays under gerbil)
    assert len(_tasks(page)) == 5
    assert _options(page, "profile") == {"": 5, "fair": 4, "exact": 0, "gerbil": 1}
    assert _options(page, "language") == {"": 5, "en": 5, "de": 0, "mul": 0}
    assert _options(page, "dataset")[demo] == 5
    assert "These rows mix 2 profiles" in page
    everything = counted.get("leaderboards", params={"dataset": "all"}).text
    assert len(_tasks(everything)) == 10
    # the pooled run: one task in "mul" and one per language (not its per-question results)
    assert _options(everything, "language") == {"": 10, "en": 6, "de": 3, "mul": 1}
    assert _options(everything, "profile") == {"": 10, "fair": 6, "exact": 3, "gerbil": 1}
    assert "These rows mix 3 profiles" in everything


def test_home_page_counts_what_each_dataset_leaderboard_lists(counted: Server) -> None:
    home = counted.get("", headers={"Accept": "text/html"}).text
    listed = re.findall(
        r'<a href="/\?dataset=([^"#]+)#leaderboard">[^<]*</a> <span class="muted">\((\d+)\)', home
    )
    current = re.findall(
        r'<strong aria-current="page">([^<]+)</strong> <span class="muted">\((\d+)\)', home
    )
    assert len(listed) + len(current) == 2
    for name, count in listed + current:
        dataset = counted.get(f"dataset/{name}", params={"size": 500}).text
        table = dataset.split('<h2 id="leaderboard">', 1)[1].split("</table>", 1)[0]
        assert int(count) == len(re.findall(r'<td><a href="[^"]+/task/\d+"[ >]', table)), name


def test_systems_list_counts_the_experiments_each_history_lists(counted: Server) -> None:
    page = counted.get("systems").text
    rows = re.findall(
        r'<tr><th scope="row"><a href="([^"]+)">[^<]*</a></th><td class="num">(\d+)</td>', page
    )
    assert len(rows) == 6  # the demo's three, and strong, partial, baseline
    for uri, count in rows:
        history = counted.get(uri.replace(counted.url, ""), params={"size": 500}).text
        table = history.split('id="history"', 1)[1]
        experiments = set(re.findall(r'<td><a href="[^"]+/experiment/(\d+)/task/\d+"[ >]', table))
        assert int(count) == len(experiments), uri
    api = {s["uri"]: s["experiments"] for s in counted.get("api/systems").json()["systems"]}
    assert api == {uri: int(count) for uri, count in rows}


def test_rows_of_one_profile_on_different_kbs_are_said_so(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """fair matches through the KB: the demo's rows (on the demo KB) and a run without a KB
    are scored otherwise under one profile name; their signatures' kb fields differ, and the
    leaderboard says so (it ranked them together silently)."""
    server = start_server(tmp_path_factory.mktemp("kbs-store"), demo=True, sparql_workers=1)
    try:
        name = server.get(f"api/experiments/{server.demo_id}").json()["dataset"].rsplit("/", 1)[1]
        shown = {"dataset": name, "profile": "fair"}
        assert 'id="mixed-kbs"' not in server.get("leaderboards", params=shown).text
        strong = (DEMO_DIR / "answers-strong.json").read_bytes()
        files = [
            ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
            ("answers", ("strong.json", strong)),
        ]
        response = server.post("api/experiments", files=files, data={"profile": "fair"})
        assert response.status_code == 202, response.text
        ticket = response.json()
        server.wait_finished(ticket["id"], ticket["token"])
        _publish(server, ticket)
        page = server.get("leaderboards", params=shown).text
        assert 'id="mixed-kbs"' in page and "Rows of profile fair were computed" in page
        # the run without a KB has none, not another one (explore41 F6)
        assert "rows of profile fair whose signature ends in" in page
        assert "have no KB / an unknown one (answers given, not computed here)" in page
        # the rows of the other KB are not tiered with the first's, and say why (a bare "–")
        rows = server.get("leaderboards", params={**shown, "format": "json"}).json()["rows"]
        kb = {r["task"]: r["signature"].rsplit("|kb:", 1)[1] for r in rows}
        first = kb[rows[0]["task"]]
        assert rows[0]["tier"] == 1 and rows[0]["tierNote"] is None
        apart = [r for r in rows if kb[r["task"]] != first]
        assert apart and all(r["tier"] is None for r in apart), rows
        for row in apart:
            note = row["tierNote"]
            assert note.startswith("scored under another signature"), note
            assert f"kb {kb[row['task']]} against {first}" in note, note
            # said as text under the table, which its "–" links (a title tooltip alone was
            # no keyboard's or touch's: explore32 4)
            said = page.replace("&#39;", "'")
            assert re.search(r'<li id="tier-reason-\d+">No tier: ' + re.escape(note), said), note
    finally:
        stop_server(server)


@pytest.mark.parametrize(
    "state",
    [
        {"profile": "exact"},
        {"language": "de"},
        {"language": "mul", "profile": "exact"},
        {"profile": "gerbil"},
        {"language": "en", "profile": "fair"},
    ],
)
def test_default_dataset_is_one_with_rows_under_the_filters(counted: Server, state: dict) -> None:
    """Without a dataset, the leaderboard shows the dataset with the most rows under the other
    filters: ``?profile=exact`` showed the demo's "No public results" (it has none under
    exact) while the bilingual dataset had three."""
    page = counted.get("leaderboards", params=state).text
    options = _options(page, "dataset")
    chosen = _chosen(page, "dataset")
    assert options[chosen] == max(n for value, n in options.items() if value not in ("", "all"))
    assert _tasks(page) and "No public results" not in page
    listed = counted.get("leaderboards", params={**state, "format": "json"}).json()
    assert listed["dataset"] == chosen and len(listed["rows"]) == options[chosen]


def test_a_pooled_row_names_its_languages_on_every_page(counted: Server) -> None:
    """A task pooled over English and German reads "en,de" wherever a person reads it, as on the
    leaderboard: the system, dataset and task pages and a frozen leaderboard said "mul"."""
    shown = {"dataset": "all", "language": "mul"}
    board = counted.get("leaderboards", params=shown)
    (row,) = counted.get("leaderboards", params={**shown, "format": "json"}).json()["rows"]
    assert row["languageTag"] == "en,de" and "<td>en,de</td>" in board.text
    # the filter's choice and the title say what it is, not the code (explore22 3)
    assert '<option value="mul" selected>pooled languages (1)</option>' in board.text
    title = re.search(r"<title>([^<]*)</title>", board.text)
    assert title and "pooled languages" in title[1] and ", mul" not in title[1]
    system = counted.get(row["systemUri"].replace(counted.url, "")).text
    history = system.split('id="history"', 1)[1]
    assert "<td>en,de</td>" in history and "<td>mul</td>" not in history
    # the system's history as CSV keeps language mul and gains the languages' column
    table = counted.get(row["systemUri"].replace(counted.url, ""), params={"format": "csv"})
    (line,) = [r for r in csv.DictReader(io.StringIO(table.text)) if r["task"] == row["task"]]
    assert (line["language"], line["languageTag"]) == ("mul", "en,de"), line
    dataset = counted.get(row["dataset"].replace(counted.url, ""), params={"size": 500}).text
    assert "<td>en,de</td>" in dataset and "<td>mul</td>" not in dataset
    task = counted.get(row["task"].replace(counted.url, ""), headers={"Accept": "text/html"}).text
    assert "<dt>Language</dt><dd>en,de</dd>" in task
    name = row["dataset"].rsplit("/", 1)[1]
    made = counted.post("api/leaderboards", json={"dataset": name, "language": "mul"})
    assert made.status_code in (200, 201), made.text
    frozen = counted.get(
        made.json()["uri"].replace(counted.url, ""), headers={"Accept": "text/html"}
    )
    assert "<dt>Language</dt><dd>en,de</dd>" in frozen.text
