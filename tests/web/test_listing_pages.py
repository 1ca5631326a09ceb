"""Pages that stay light (a dataset's findings summarised, its questions paged) and the
leaderboards filtered by dataset, language and profile and sorted by any measure, over HTTP."""

from __future__ import annotations

import html
import re

import pytest

from service.model import AnswerSet, Dataset, Question, QuestionText, Term
from service.web.state import EXTENSION

DATASET = "h9-findings"


@pytest.fixture(scope="module")
def checked(server) -> str:
    """A public dataset of 120 questions whose checks found 60 empty gold answer sets and 119
    questions without German text (only question 1 has one)."""
    questions = []
    for i in range(1, 121):
        texts: tuple[QuestionText, ...] = (QuestionText("en", f"Question {i}?"),)
        if i == 1:
            texts += (QuestionText("de", "Frage 1?"),)
        gold = AnswerSet() if i % 2 else AnswerSet.of([Term.iri(f"http://example.org/a{i}")])
        questions.append(Question(str(i), texts, answers=gold))
    found = server.storage.catalogue.store_questions(DATASET, Dataset(DATASET, tuple(questions)))
    assert len(found) > 100
    server.app.extensions[EXTENSION].changed()
    return f"dataset/{DATASET}"


def test_dataset_page_summarises_findings_and_pages_questions(server, checked) -> None:
    page = server.get(checked)
    assert page.status_code == 200
    html = page.text
    assert len(page.content) < 60_000
    # the finding IRIs are not listed: at most the few examples of each kind link to questions
    assert html.count("#finding-") == 0
    summary = re.search(r'<table id="finding-summary">.*?</table>', html, flags=re.S)
    assert summary is not None
    assert re.search(
        r"empty gold answers</th><td>\w+</td>\s*<td class=\"num\"><a [^>]*>60<", summary[0]
    )
    assert "all 60</a>" in summary[0]
    # a kind's list: each finding's row is the anchor its link names (the links named the
    # finding IRI, dataset/X#finding-N, whose page has no such anchor: a site crawl found them)
    listing = re.search(r'href="/([^"]*\?findings=[^"#]+)#findings"', summary[0])
    assert listing is not None
    listed = server.get(listing[1].replace("&amp;", "&")).text
    rows = re.findall(r'<tr id="(finding-\d+)"><th scope="row"><a href="#(finding-\d+)"', listed)
    assert rows and all(row == link for row, link in rows), rows[:3]
    # the questions a hundred at a time
    rows = re.findall(r'<tr><th scope="row"><a href="[^"]*/question/(\d+)"', html)
    assert rows == [str(i) for i in range(1, 101)]
    assert f'href="/{checked}?questions_page=2"' in html
    second = server.get(checked, params={"questions_page": 2}).text
    assert re.findall(r'<tr><th scope="row"><a href="[^"]*/question/(\d+)"', second) == [
        str(i) for i in range(101, 121)
    ]
    # the RDF still has every finding
    turtle = server.get(checked + ".nt").text
    assert turtle.count("#finding-") > 100


def test_an_uploaded_dataset_does_not_wait_for_checks_it_never_gets(server) -> None:
    # Before: "not been checked yet: it is checked when first used in an experiment", on the
    # page of a dataset uploaded for (and so used by) a published experiment; then "the
    # dataset checks are kept for catalogue datasets only": now it is checked when published
    found = re.search(
        r"dataset/([\w.-]+-[0-9a-f]{8})", server.get(f"api/experiments/{server.demo_id}").text
    )
    assert found, "the demo's uploaded dataset"
    page = server.get(found[0])
    assert page.status_code == 200
    assert "not been checked yet" not in page.text and 'id="upload-checks"' not in page.text
    assert re.search(r"The checks found nothing \(\d{4}-\d\d-\d\dT", page.text)


def test_one_kind_of_finding_is_listed_a_page_at_a_time(server, checked) -> None:
    first = server.get(checked, params={"findings": "empty-gold"}).text
    listed = re.search(r'<table id="findings-listed">.*?</table>', first, flags=re.S)
    assert listed is not None and "60 findings of the kind empty-gold" in listed[0]
    assert listed[0].count('<th scope="row"') == 50
    second = server.get(checked, params={"findings": "empty-gold", "findings_page": 2}).text
    rest = re.search(r'<table id="findings-listed">.*?</table>', second, flags=re.S)
    assert rest is not None and rest[0].count('<th scope="row"') == 10
    bad = server.get(checked, params={"findings": "nonsense"})
    assert bad.status_code == 400 and "empty-gold" in bad.text


def _publish(server, *, profile: str, systems: tuple[str, ...]) -> dict:
    from service.paths import DEMO_DIR

    files = [("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes()))]
    for name in systems:
        path = DEMO_DIR / f"answers-{name}.json"
        files.append(("answers", (f"{profile}-{name}.json", path.read_bytes())))
    response = server.post("api/experiments", files=files, data={"profile": profile, "kb": "demo"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    return ticket


@pytest.fixture(scope="module")
def mixed(server) -> dict:
    """Public results under two profiles: the demo's (fair) and one experiment under qald6
    whose paper is attached."""
    ticket = _publish(server, profile="qald6", systems=("strong", "baseline"))
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    server.post(f"api/experiments/{ticket['id']}/papers", headers=auth, json={"doi": "10.1000/h9"})
    return ticket


def leaderboard_rows(html: str) -> list[list[str]]:
    table = re.search(r'<table class="leaderboard" id="leaderboard-table">.*?</table>', html, re.S)
    if table is None:
        return []
    head, body = table[0].split("<tbody>", 1)

    def cells(row: str) -> list[str]:
        found = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
        # a cell as it shows: a profile with its signature folded away behind it; a system
        # without the ranked measure repeated under it on phones (aria-hidden, hidden wider)
        shown = [re.sub(r"</summary>.*?</details>", "", c, flags=re.S) for c in found]
        shown = [re.sub(r'<span class="narrow-score".*?</span>', "", c) for c in shown]
        return [" ".join(re.sub(r"<[^>]+>", " ", c).split()) for c in shown]

    # the columns as before the compare checkboxes and the tiers (columns of their own)
    headers = cells(head.split("<thead>", 1)[1])
    keep = [n for n, h in enumerate(headers) if h != "Compare" and h != "Tier"]
    return [[row[n] for n in keep] for row in map(cells, re.findall(r"<tr>(.*?)</tr>", body, re.S))]


def test_leaderboards_filter_by_profile(server, mixed) -> None:
    everything = server.get("leaderboards", params={"dataset": "all"}).text
    assert 'id="mixed-profiles"' in everything  # one ranking would mix qald6 and fair
    profiles = {row[4] for row in leaderboard_rows(everything)}
    assert {"fair", "qald6"} <= profiles
    for profile in ("fair", "qald6"):
        html = server.get("leaderboards", params={"profile": profile, "dataset": "all"}).text
        rows = leaderboard_rows(html)
        assert rows and {row[4] for row in rows} == {profile}
        assert 'id="mixed-profiles"' not in html
    qald6 = leaderboard_rows(
        server.get("leaderboards", params={"profile": "qald6", "dataset": "all"}).text
    )
    assert {row[1] for row in qald6} == {"qald6-strong", "qald6-baseline"}
    assert all("doi:10.1000/h9" in row[-1] for row in qald6)  # the paper, linked
    none = server.get("leaderboards", params={"profile": "poleval", "dataset": "all"}).text
    assert 'id="no-results"' in none


def test_leaderboards_sort_by_any_measure(server, mixed) -> None:
    for measure, column in (("macroF1", 5), ("microF1", 5), ("accuracy", 5)):
        html = server.get("leaderboards", params={"profile": "fair", "sort": measure}).text
        rows = leaderboard_rows(html)
        values = [float(r[column].split()[0]) for r in rows]  # "0.4993 [0.262, 0.718]"
        assert values == sorted(values, reverse=True), measure
        assert 'aria-sort="descending"' in html
    html = server.get("leaderboards", params={"profile": "fair", "sort": "microF1"}).text
    header = re.search(r"<thead>.*?</thead>", html, re.S)
    assert header is not None and 'micro F1 <span aria-hidden="true">▼</span>' in header[0]
    assert "sort=macroF1QALD" in header[0] and "profile=fair" in header[0]  # links keep filters
    # said to a keyboard's user too: "Click a measure to sort by it" (explore59 F6)
    assert "Choose a measure's heading to sort by it.</caption>" in html
    assert server.get("leaderboards", params={"sort": "questions"}).status_code == 400
    assert server.get("leaderboards", params={"language": "english"}).status_code == 400
    assert server.get("leaderboards", params={"type": "XYZ"}).status_code == 400


def test_leaderboards_filter_by_dataset_and_language_and_page(server, mixed) -> None:
    from urllib.parse import parse_qs, urlsplit

    default = leaderboard_rows(server.get("leaderboards").text)
    dataset = default[0][2]
    assert {r[2] for r in default} == {dataset}  # one dataset by default: the most used
    html = server.get("leaderboards", params={"dataset": dataset, "language": "en", "size": 2}).text
    rows = leaderboard_rows(html)
    assert len(rows) == 2 and all(r[2] == dataset and r[3] == "en" for r in rows)
    link = re.search(r'rel="next" href="([^"]*)"', html)
    assert link is not None  # the next page keeps the filters
    query = parse_qs(urlsplit(link[1].replace("&amp;", "&")).query)
    assert query == {"dataset": [dataset], "language": ["en"], "size": ["2"], "page": ["2"]}
    german = {"dataset": dataset, "language": "de"}
    assert leaderboard_rows(server.get("leaderboards", params=german).text) == []
    # without a dataset the default is one with rows under the filters (other modules may
    # have published runs in German), never rows of another language
    shown = leaderboard_rows(server.get("leaderboards", params={"language": "de"}).text)
    assert all(r[3] == "de" for r in shown), shown
    sub = leaderboard_rows(server.get("leaderboards", params={"type": "C2KB"}).text)
    assert sub  # the demo's systems give SPARQL: sub-experiments are ranked too


def test_a_leaderboard_is_served_as_json_and_csv_at_its_own_url(server, mixed) -> None:
    """A challenge links its leaderboard (one dataset, language and profile) from its own page
    and scripts: ``?format=json`` and ``?format=csv`` (or ``Accept``) used to give the HTML
    page whatever was asked. Now the rows the page shows, in its order, with each row's
    measures, the ranked measure's interval and tier, and the links to cite."""
    import csv
    import io

    dataset = leaderboard_rows(server.get("leaderboards").text)[0][2]
    args = {"dataset": dataset, "language": "en", "profile": "fair"}
    shown = leaderboard_rows(server.get("leaderboards", params=args).text)
    assert len(shown) >= 3
    response = server.get("leaderboards", params={**args, "format": "json"})
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    assert "Accept" in response.headers["Vary"]
    board = response.json()
    assert (board["dataset"], board["language"], board["profile"]) == (dataset, "en", "fair")
    assert board["type"] == "QA" and board["sort"] == "macroF1"
    rows = board["rows"]
    # competition ranks of systems: equal scores share one, and a system's other runs (the
    # demo submitted again) share its best run's rank without taking one
    best: dict[str, float] = {}
    for r in rows:
        best[r["system"]] = max(best.get(r["system"], 0.0), r["measures"]["macroF1"])
    expected = [1 + sum(b > best[r["system"]] for b in best.values()) for r in rows]
    assert [r["rank"] for r in rows] == expected
    assert len(rows) == len(shown)
    assert [(r["system"], round(r["measures"]["macroF1"], 4)) for r in rows] == [
        # a system's other run is marked so under its name on the page
        (row[1].split(" another run of ")[0], float(row[5].split()[0]))
        for row in shown
    ]
    best = rows[0]
    assert best["tier"] == 1 and best["task"].startswith(server.url + "experiment/")
    low, high = best["intervals"]["macroF1"]
    assert low <= best["measures"]["macroF1"] <= high
    assert best["signature"].startswith("gerbil-qa:fair|")
    # how the tiers were computed, so a reviewer can redo them (fewer samples than a
    # comparison's, Holm over the rows shown): there was no way to tell
    tiered = [r for r in rows if r["tier"] is not None]
    assert {r["tierSignature"] for r in tiered} == {best["tierSignature"]}
    assert best["tierSignature"].startswith(best["signature"])
    assert f"pairs:{len(tiered) * (len(tiered) - 1) // 2}" in best["tierSignature"]
    # the compare page's shuffles and its tiers for these rows: with 1,000 shuffles Holm's
    # floor over 45 pairs is 0.045, and chance decided a tier the compare page gave otherwise
    assert "test:ar|n:10000|" in best["tierSignature"]
    compared = server.post(
        "api/compare", json={"tasks": [r["task"] for r in tiered], "measure": "macroF1"}
    ).json()
    assert [s["tier"] for s in compared["systems"]] == [r["tier"] for r in tiered]
    assert best["tierSignature"].endswith(compared["signature"].split("|test:", 1)[1])
    by_accept = server.get("leaderboards", params=args, headers={"Accept": "application/json"})
    assert by_accept.json() == board
    table = server.get("leaderboards", params=args, headers={"Accept": "text/csv"})
    assert table.headers["Content-Type"].startswith("text/csv")
    read = list(csv.DictReader(io.StringIO(table.text)))
    assert [(r["rank"], r["system"], r["task"]) for r in read] == [
        (str(r["rank"]), r["system"], r["task"]) for r in rows
    ]
    assert float(read[0]["macroF1Low"]) == low and read[0]["tier"] == "1"
    assert read[0]["tierSignature"] == best["tierSignature"]
    # what a row cites and re-scores, as in the JSON (the CSV had neither: a reviewer's table
    # could not tell a revision from the run a paper cites)
    assert [(r["papers"], r["revisionOf"]) for r in read] == [
        (" ".join(r["papers"]), r["revisionOf"] or "") for r in rows
    ]
    assert server.get("leaderboards", params={**args, "format": "xml"}).status_code == 406
    html = server.get("leaderboards", params=args).text
    assert 'id="leaderboard-json"' in html and 'id="leaderboard-csv"' in html


def test_the_experiments_listing_is_served_as_csv_too(server) -> None:
    import csv
    import io

    page = server.get("experiments")
    assert 'id="experiments-csv"' in page.text
    table = server.get("experiments", params={"format": "csv"})
    assert table.status_code == 200 and table.headers["Content-Type"].startswith("text/csv")
    assert "Accept" in table.headers["Vary"]
    rows = list(csv.DictReader(io.StringIO(table.text)))
    assert list(rows[0]) == ["experiment", "id", "ended", "datasets", "systems"]
    demo = next(r for r in rows if r["id"] == server.demo_id)
    assert demo["experiment"].endswith(f"experiment/{server.demo_id}")
    assert "demo-strong" in demo["systems"].split(" | ")
    asked = server.get("experiments", headers={"Accept": "text/csv"})
    assert asked.text == table.text
    assert server.get("experiments", params={"format": "ttl"}).status_code == 406


def test_the_experiments_listing_takes_the_api_s_system_and_dataset_filters(server) -> None:
    """``/experiments?system=X`` listed every experiment, on the page and in its CSV, while its
    alternate links carried ``system`` on to the API, which filters by it (explore39 F9)."""
    import csv
    import io

    for named in ({"system": "demo-strong"}, {"system": "nobody-ran-this"},
                  {"system": "demo-strong", "dataset": "nothing-of-that-name"}):  # fmt: skip
        api = server.get("api/experiments", params={**named, "size": 500}).json()
        table = server.get("experiments", params={**named, "format": "csv"})
        ids = [r["id"] for r in csv.DictReader(io.StringIO(table.text))]
        assert ids == [e["id"] for e in api["experiments"]], named
        page = server.get("experiments", params=named)
        assert ('id="experiments-filter"' in page.text) and (
            ("No public experiment used it" in page.text) == (not ids)
        ), page.text
        assert 'rel="alternate"' in page.headers["Link"] and "system=" in page.headers["Link"]
        moved = server.get(
            "experiments", params=named, headers={"Accept": "application/json"},
            allow_redirects=False,
        )  # fmt: skip
        assert moved.status_code == 303 and "system=" in moved.headers["Location"]
    strong = server.get("experiments", params={"system": "demo-strong", "format": "csv"}).text
    assert server.demo_id in strong
    unfiltered = server.get("experiments", params={"format": "csv"}).text
    assert len(unfiltered.splitlines()) > 1  # the demo at least, where none used nobody-ran-this


def test_a_listing_page_past_the_last_is_a_404_saying_how_many_there_are(server) -> None:
    # Before: 200 and "No public experiment yet." on /experiments?page=99, as if none were
    public = len(server.get("api/experiments", params={"size": "500"}).json()["experiments"])
    assert public >= 1  # the demo at least
    assert server.get("experiments", params={"size": "1", "page": str(public)}).status_code == 200
    for args in ({"size": "1", "page": str(public + 1)}, {"page": "99"}):
        size = int(args.get("size", 50))
        said = f"there are {public} public experiments, {size} a page: the pages are 1 to "
        for extra in ({}, {"format": "csv"}):
            past = server.get("experiments", params={**args, **extra})
            assert past.status_code == 404, past.text
            assert said + str(-(-public // size)) in html.unescape(past.text)
            assert "No public experiment yet" not in past.text
    # the API documents a page past the last as an empty list (200, next null): kept
    api = server.get("api/experiments", params={"page": "99"})
    assert api.status_code == 200 and api.json()["experiments"] == [] and api.json()["next"] is None
