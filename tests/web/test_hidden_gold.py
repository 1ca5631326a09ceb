"""A shared task's hidden test set, over HTTP (``about.gold: withheld``): its organiser
publishes the questions and a baseline, two teams run on it by name (a QA web service and an
answer file), and nothing anyone can read tells a gold answer or a question's result — every
page, RDF document, SPARQL answer, API answer and download, asked anonymously and with each
token — until the organiser reveals the gold; then it is public as any dataset's.

Before, a dataset was its gold: runs on an upload were scored on a file anyone could download,
whose gold answers were on its question pages and in SPARQL, and a team's own per-question
results told it which answers were right.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

import pytest
import requests

from tests.helpers import qa_service
from tests.web.conftest import Server, start_server, stop_server

N = 8  # questions


def _gold(i: int) -> str:
    return f"GOLDSECRET-{i}-answer"


def _test_set() -> bytes:
    """N questions whose gold answers, gold queries and answer types are marked to be found."""
    questions = [
        {
            "id": str(i),
            "answertype": "string",
            "aggregation": False,
            "question": [{"language": "en", "string": f"Which secret is number {i}?"}],
            "query": {"sparql": f'SELECT ?s WHERE {{ ?s <http://example.org/GOLDQUERY> "{i}" }}'},
            "answers": [
                {
                    "head": {"vars": ["s"]},
                    "results": {"bindings": [{"s": {"type": "literal", "value": _gold(i)}}]},
                }
            ],
        }
        for i in range(1, N + 1)
    ]
    return json.dumps({"dataset": {"id": "secret-task"}, "questions": questions}).encode()


def _answers(right: set[int]) -> bytes:
    """A team's answer file: the gold for the questions in ``right``, a wrong answer else."""
    rows = []
    for i in range(1, N + 1):
        value = _gold(i) if i in right else f"guess-{i}"
        rows.append(
            {
                "id": str(i),
                "question": [{"language": "en", "string": f"Which secret is number {i}?"}],
                "answers": [
                    {
                        "head": {"vars": ["s"]},
                        "results": {"bindings": [{"s": {"type": "literal", "value": value}}]},
                    }
                ],
            }
        )
    return json.dumps({"questions": rows}).encode()


def _team_web_answers(text: str) -> list[Any]:
    """Team Web's QA service: right on the odd questions."""
    i = int(re.sub(r"\D", "", text) or 0)
    value = _gold(i) if i % 2 else f"web-guess-{i}"
    return [
        {
            "head": {"vars": ["s"]},
            "results": {"bindings": [{"s": {"type": "literal", "value": value}}]},
        }
    ]


@pytest.fixture(scope="module")
def team_web() -> Iterator[str]:
    with qa_service(_team_web_answers) as url:
        yield url


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("hidden-gold-store"), demo=False)
    yield running
    stop_server(running)


def _submit(site: Server, body: dict[str, Any]) -> dict[str, Any]:
    made = site.post("api/experiments", json=body)
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    return ticket


def _publish(site: Server, ticket: dict[str, Any]) -> None:
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    published = site.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
    assert published.status_code == 200, published.text


@pytest.fixture(scope="module")
def task(site: Server, team_web: str) -> dict[str, Any]:
    """The organiser's test set with a baseline (published), team File's answer file and
    team Web's service on it by name (published), team Late's private run."""
    organiser = _submit(
        site,
        {
            "dataset": {"filename": "secret-task.json", "content": _test_set().decode()},
            "title": "Secret Task",
            "about": {
                "gold": "withheld",
                "license": "https://creativecommons.org/licenses/by/4.0/",
            },
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1, 2}).decode()}],
        },
    )
    _publish(site, organiser)
    name = site.get(f"api/experiments/{organiser['id']}").json()["dataset"].rsplit("/", 1)[1]
    team_file = _submit(
        site,
        {
            "dataset": name,
            "profile": "exact",
            "systems": [{"name": "team-file", "answers": _answers({1, 2, 3, 4, 5}).decode()}],
        },
    )
    _publish(site, team_file)
    team_web_run = _submit(
        site,
        {
            "dataset": name,
            "profile": "exact",
            "systems": [{"name": "team-web", "url": team_web}],
        },
    )
    _publish(site, team_web_run)
    late = _submit(
        site,
        {
            "dataset": name,
            "profile": "exact",
            "systems": [{"name": "team-late", "answers": _answers({8}).decode()}],
        },
    )
    return {
        "name": name,
        "organiser": organiser,
        "file": team_file,
        "web": team_web_run,
        "late": late,
    }


# what would tell a gold answer, a gold query or a team's answers (a strong team's are nearly
# the gold), or a question's result, wherever it is read
GOLD_MARKS = ("GOLDSECRET", "GOLDQUERY", "guess-")


def _question_results(task: dict[str, Any]) -> list[str]:
    """The URI prefixes each withheld run's per-question results would have."""
    return [f"/experiment/{task[k]['id']}/task/" for k in ("organiser", "file", "web", "late")]


def _leaks(body: str, task: dict[str, Any]) -> list[str]:
    found = [m for m in GOLD_MARKS if m in body]
    found += [
        p for p in _question_results(task) if re.search(re.escape(p) + r"\d+/question/", body)
    ]
    return found


def _crawl(site: Server, task: dict[str, Any], headers: dict[str, str]) -> dict[str, int]:
    """Every same-site page linked from the home, the dataset's and the runs' pages (bounded),
    each also in every RDF and CSV alternate it links: URL -> status; asserts no leak."""
    from tests.web.test_site_crawl import BROWSER_ACCEPT, alternates, read_page

    starts = ["", f"dataset/{task['name']}"]
    starts += [f"experiment/{task[k]['id']}" for k in ("organiser", "file", "web", "late")]
    queue = [site.url + p for p in starts]
    seen: dict[str, int] = {}
    while queue and len(seen) < 500:
        url = queue.pop(0)
        if url in seen or not url.startswith(site.url) or "/file/" in url:
            continue
        r = requests.get(url, headers={"Accept": BROWSER_ACCEPT, **headers}, timeout=30)
        seen[url] = r.status_code
        assert not _leaks(r.text, task), (url, _leaks(r.text, task))
        for target, media_type in alternates(r):
            if target not in seen:
                alt = requests.get(target, headers={"Accept": media_type, **headers}, timeout=30)
                seen[target] = alt.status_code
                assert not _leaks(alt.text, task), (target, media_type, _leaks(alt.text, task))
        if r.headers.get("Content-Type", "").startswith("text/html"):
            for link in read_page(r.text).links:
                absolute = urljoin(url, link).split("#", 1)[0]
                # the site's other datasets and the vocabulary hold nothing of this one
                if "/vocab" not in absolute and absolute not in seen:
                    queue.append(absolute)
    return seen


def test_nothing_public_tells_a_gold_answer_or_a_question_result(
    site: Server, task: dict[str, Any]
) -> None:
    seen = _crawl(site, task, {})
    assert len(seen) > 60  # pages, their RDF and CSV, the runs' tasks, the question pages
    dataset, question = f"dataset/{task['name']}", f"dataset/{task['name']}/question/3"
    assert seen[site.url + dataset] == 200 and seen[site.url + question] == 200
    # every public quad, and the endpoint over them
    dump = site.get("dump.nq")
    assert dump.status_code == 200 and "Which secret is number 3?" in dump.text
    assert not _leaks(dump.text, task)
    q = site.url + question
    rows = site.get(
        "sparql",
        params={"query": f"SELECT DISTINCT ?p WHERE {{ <{q}> ?p ?o }}"},
        headers={"Accept": "application/sparql-results+json"},
    ).json()["results"]["bindings"]
    said = {r["p"]["value"].rsplit("#", 1)[-1].rsplit("/", 1)[-1] for r in rows}
    assert said == {"type", "identifier", "isPartOf", "questionText", "label"}
    gqa = "http://w3id.org/gerbil/qa/vocab#"
    for query in (
        "ASK { GRAPH ?g { ?s ?p ?o "
        'FILTER(CONTAINS(STR(?o), "GOLD") || CONTAINS(STR(?o), "guess-")) } }',
        f"ASK {{ ?r a <{gqa}QuestionResult> }}",  # the store holds these runs alone
        f"ASK {{ ?q <{gqa}goldAnswer>|<{gqa}goldQuery>|<{gqa}answerType> ?o }}",
    ):
        asked = site.get(
            "sparql", params={"query": query}, headers={"Accept": "application/sparql-results+json"}
        )
        assert asked.status_code == 200 and asked.json()["boolean"] is False, query
    listed = {d["name"]: d for d in site.get("api/datasets").json()["datasets"]}
    assert listed[task["name"]]["goldWithheld"] is True
    catalogue = site.get("catalog", headers={"Accept": "text/html"}).text
    assert "(a test set: gold withheld)" in catalogue
    assert "; a test set, its gold withheld)</option>" in site.get("experiments/new").text
    # each team's page still has its measures
    page = site.get(f"experiment/{task['file']['id']}").text
    shown = site.get(dataset).text
    assert "0.6250" in page and "Gold withheld" in shown
    assert "compare answer files on it" not in shown  # refused while withheld (below)


def test_each_team_reads_the_measures_of_its_runs_and_no_question_result(
    site: Server, task: dict[str, Any], team_web: str
) -> None:
    # a team's service is not named: anyone could ask it the questions (explore21 17)
    web_run = site.get(f"experiment/{task['web']['id']}", headers={"Accept": "text/turtle"})
    assert web_run.status_code == 200 and team_web.rstrip("/") not in web_run.text
    for who in ("organiser", "file", "web", "late"):
        run = task[who]
        auth = {"Authorization": f"Bearer {run['token']}"}
        _crawl(site, task, auth)
        status = site.get(f"api/experiments/{run['id']}", headers=auth).json()
        assert status["status"] == "finished" and not _leaks(json.dumps(status), task)
        (evaluation,) = status["evaluations"]
        assert evaluation["questions"] == [] and evaluation["questionsWithheld"] is True
        assert evaluation["results"]["QA"]["questions"] == N
        # nor intervals: with their seed they tell a small set's outcomes (explore21 9)
        assert not evaluation.get("intervals") and not evaluation.get("undefinedResamples")
        assert status["datasetFindings"] is None  # a finding may quote the gold
        assert any("withheld" in note for note in status["notes"])
        task_page = site.get(f"experiment/{run['id']}/task/1", headers=auth)
        assert 'id="questions-withheld"' in task_page.text
        gone = site.get(f"experiment/{run['id']}/task/1/question/3", headers=auth)
        assert gone.status_code == 404
        sliced = site.get(f"api/experiments/{run['id']}?by=answertype", headers=auth)
        assert not _leaks(sliced.text, task) and "string" not in json.dumps(
            [e.get("slices") for e in sliced.json().get("evaluations", [])]
        )
        csv = site.get(f"experiment/{run['id']}.csv", headers=auth)
        assert csv.status_code == 200 and not _leaks(csv.text, task)
    # a run's warnings about one question (here: the answers to a question id the file lacks
    # are one warning without a question) are kept back with the gold too
    web = site.get(f"api/experiments/{task['web']['id']}").json()
    assert web["results"][0]["measures"]["macroF1"] == 0.5


DCAT_NS = "http://www.w3.org/ns/dcat#"
AVAILABILITY = "http://data.europa.eu/r5r/availability"


def _downloads(site: Server, task: dict[str, Any]) -> dict[str, Any]:
    """What the catalogue and the runs' documents say of the test set's files: its
    distribution's access URLs and availability, every download URL and how it answers."""
    import rdflib

    graph = rdflib.Graph()
    for path in ["catalog", *(f"experiment/{task[k]['id']}" for k in ("organiser", "file"))]:
        got = site.get(path, headers={"Accept": "text/turtle"})
        graph.parse(data=got.content, format="turtle")
    dataset = rdflib.URIRef(f"{site.url}dataset/{task['name']}")
    distributions = list(graph.objects(dataset, rdflib.URIRef(DCAT_NS + "distribution")))
    assert distributions

    def said(term: str) -> set[str]:
        return {str(o) for d in distributions for o in graph.objects(d, rdflib.URIRef(term))}

    download = rdflib.URIRef(DCAT_NS + "downloadURL")
    urls = sorted({str(o) for o in graph.objects(None, download) if o.startswith(site.url)})
    return {
        "access": said(DCAT_NS + "accessURL"),
        "download": said(DCAT_NS + "downloadURL"),
        "availability": said(AVAILABILITY),
        "answers": {u: site.get(u.replace(site.url, "")).status_code for u in urls},
    }


def test_a_withheld_test_set_offers_no_download_until_the_reveal(
    site: Server, task: dict[str, Any]
) -> None:
    """Its file answers 403 until the reveal: its distribution gave it as dcat:downloadURL,
    available STABLE, so a harvester's link check said the dataset was broken (explore29
    12). Now its access URL is its page, which says the gold is withheld, and no download
    URL any document gives answers 403."""
    said = _downloads(site, task)
    assert said["download"] == set() and said["availability"] == set(), said
    assert said["access"] == {f"{site.url}dataset/{task['name']}"}
    assert "gold-withheld" in site.get(f"dataset/{task['name']}").text
    assert all(status == 200 for status in said["answers"].values()), said["answers"]


def test_an_upgrade_takes_the_download_urls_an_earlier_version_wrote(
    site: Server, task: dict[str, Any]
) -> None:
    """A store written before gave a withheld test set's distribution a download URL and
    availability: ``gerbil-qa upgrade`` (``legacy.withhold_downloads``) takes them out."""
    from service.graph.legacy import withhold_downloads
    from service.graph.nodes import Quad, node
    from service.web.state import EXTENSION

    storage = site.storage
    eid = task["organiser"]["id"]
    graph = storage.uris.experiment_graph(eid)
    rows = storage.public.query(
        f"SELECT ?f ?sha WHERE {{ GRAPH <{graph}> {{ ?d <{DCAT_NS}distribution> ?f . "
        f"?f <http://w3id.org/gerbil/qa/vocab#sha256> ?sha }} }}"
    )
    (row,) = list(rows)
    url = node(storage.uris.upload_download(eid, row["sha"].value))
    stable = "http://publications.europa.eu/resource/authority/planned-availability/STABLE"
    old = [
        (row["f"], node(DCAT_NS + "downloadURL"), url),
        (row["f"], node(DCAT_NS + "accessURL"), url),
        (row["f"], node(AVAILABILITY), node(stable)),
    ]
    storage.catalogue.add_public(graph, [Quad(s, p, o, node(graph)) for s, p, o in old])
    site.app.extensions[EXTENSION].changed()
    assert _downloads(site, task)["download"] == {url.value}  # as an earlier version wrote it
    assert graph in withhold_downloads(storage)
    site.app.extensions[EXTENSION].changed()
    said = _downloads(site, task)
    assert said["download"] == set() and said["availability"] == set(), said
    assert said["access"] == {f"{site.url}dataset/{task['name']}"}
    assert withhold_downloads(storage) == []  # once


def test_files_comparisons_and_tiers_say_they_are_withheld(
    site: Server, task: dict[str, Any]
) -> None:
    name = task["name"]
    for who in ("organiser", "file", "web"):
        run = task[who]
        page = site.get(f"experiment/{run['id']}").text
        # marked withheld, not linked (explore42 2): the route still refuses each
        assert not re.findall(r'href="([^"]*/file/[0-9a-f]{64})"', page), who
        marked = re.findall(r'class="muted file-withheld">.*?sha256 ([0-9a-f]{64})<', page)
        assert marked, who
        files = [f"{site.url}experiment/{run['id']}/file/{sha}" for sha in marked]
        for tokens in ({}, {"Authorization": f"Bearer {run['token']}"}):
            for url in files:
                got = site.get(url.replace(site.url, ""), headers=tokens)
                assert got.status_code == 403 and "withheld" in got.text, url
                assert not _leaks(got.text, task)
    # a question's page says its gold is withheld, and a findings list why it has none
    # (explore21 14)
    question = site.get(f"dataset/{name}/question/3").text
    assert 'id="question-gold-withheld"' in question
    findings = site.get(f"dataset/{name}?findings=gold-query-syntax")
    assert findings.status_code == 400 and "withheld with its gold" in findings.text
    # the questions alone are a file of their own: a team answering with a file had only
    # the page's table (explore21 8)
    link = re.search(r'href="([^"]*)" id="questions-file"', site.get(f"dataset/{name}").text)
    assert link, "the dataset page links no questions file"
    questions = site.get(link.group(1))
    assert questions.status_code == 200 and not _leaks(questions.text, task)
    from service import formats

    read = formats.read(questions.content, format="qald-json", name="questions.json")
    assert [q.id for q in read.questions] == [str(i) for i in range(1, N + 1)]
    assert all(q.answers is None and q.sparql is None for q in read.questions)
    assert read.questions[2].text("en") == "Which secret is number 3?"
    two = [
        {"name": "a", "answers": _answers({1}).decode()},
        {"name": "b", "answers": _answers({2}).decode()},
    ]
    refused = site.post("api/compare", json={"dataset": name, "systems": two})
    assert refused.status_code == 403 and "withheld" in refused.json()["error"]
    rows = site.get(f"leaderboards?dataset={name}&profile=exact&format=json").json()["rows"]
    assert [r["system"] for r in rows] == ["team-file", "team-web", "baseline"]
    assert all(r["tier"] is None and "withheld" in r["tierNote"] for r in rows)
    stored = site.post(
        "api/compare",
        json={
            "tasks": [rows[0]["task"], rows[1]["task"]],
        },
    )
    assert stored.status_code == 400 and "withheld" in stored.json()["error"]
    # what is written withheld is valid for the Data Cube's ICs, our shapes, strict parsers
    from service.graph.checks import check_store

    assert [str(v) for v in check_store(site.storage)] == []


@pytest.fixture(scope="module")
def revealed(site: Server, task: dict[str, Any], team_web: str) -> dict[str, Any]:
    """After the tests of the withheld gold: a stranger and a team try, the organiser reveals."""
    name = task["name"]
    for token in (None, task["file"]["token"], task["web"]["token"]):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        refused = site.post(f"api/datasets/{name}/reveal", headers=headers)
        assert refused.status_code == 403, refused.text
    # the organiser's run page links its reveal too (explore21 13); a team's does not
    organiser_page = site.get(f"experiment/{task['organiser']['id']}").text
    assert 'id="reveal-of"' in organiser_page
    assert 'id="reveal-of"' not in site.get(f"experiment/{task['file']['id']}").text
    # in a browser: the dataset page links its organiser's form, which a stranger cannot use
    dataset_page = site.get(f"dataset/{name}").text
    link = re.search(r'href="([^"]*)" id="reveal-link"', dataset_page)
    assert link and link.group(1).endswith(f"experiment/{task['organiser']['id']}/reveal")
    url = urljoin(site.url, link.group(1))
    stranger = requests.Session()
    page = stranger.get(url, timeout=30)
    assert page.status_code == 200 and 'id="reveal-who"' in page.text
    forged = {"check": "0" * 64, "confirm": "on"}
    assert stranger.post(url, data=forged, timeout=30).status_code == 403
    team = requests.Session()  # a team's owner cookie is not the organiser's
    team.get(task["file"]["ownerLink"], timeout=30)
    page = team.get(site.url + f"experiment/{task['file']['id']}/reveal", timeout=30)
    assert page.status_code == 200 and 'id="reveal-who"' in page.text
    organiser = requests.Session()
    organiser.get(task["organiser"]["ownerLink"], timeout=30)  # the browser's owner cookie
    page = organiser.get(url, timeout=30)
    assert 'id="reveal-form"' in page.text
    fields = dict(re.findall(r'name="(check)" value="([^"]*)"', page.text))
    unticked = organiser.post(url, data=fields, timeout=30, allow_redirects=False)
    assert unticked.status_code == 400 and "box" in unticked.text
    done = organiser.post(url, data={**fields, "confirm": "on"}, allow_redirects=False)
    assert done.status_code == 303 and done.headers["Location"].endswith(f"dataset/{name}")
    auth = {"Authorization": f"Bearer {task['organiser']['token']}"}
    again = site.post(f"api/datasets/{name}/reveal", headers=auth)
    assert again.status_code == 409 and "already" in again.json()["error"]
    assert organiser.get(url, timeout=30).status_code == 409
    after = _submit(
        site,
        {"dataset": name, "profile": "exact", "systems": [{"name": "team-after", "url": team_web}]},
    )
    file_auth = {"Authorization": f"Bearer {task['file']['token']}"}
    made = site.post(f"api/experiments/{task['file']['id']}/rescore", headers=file_auth, json={})
    assert made.status_code == 202, made.text
    rescored = made.json()
    site.wait_finished(rescored["id"], rescored["token"])
    _publish(site, after)
    _publish(site, rescored)
    return {"after": after, "rescored": rescored}


def test_the_organiser_reveals_the_gold_and_it_is_public_as_any_datasets(
    site: Server, task: dict[str, Any], revealed: dict[str, Any]
) -> None:
    name = task["name"]
    question = site.get(f"dataset/{name}/question/3", headers={"Accept": "text/turtle"}).text
    assert "GOLDSECRET-3-answer" in question and "GOLDQUERY" in question
    page = site.get(f"dataset/{name}").text
    assert 'id="gold-revealed"' in page and 'id="gold-withheld"' not in page
    # its file is served now, and its questions file stays where teams fetched it (explore38 8)
    assert site.get(f"dataset/{name}/questions.json").status_code == 200
    assert "compare answer files on it" in page
    listed = {d["name"]: d for d in site.get("api/datasets").json()["datasets"]}
    assert listed[name]["goldWithheld"] is False
    files = re.findall(
        r'href="([^"]*/file/[0-9a-f]{64})"', site.get(f"experiment/{task['file']['id']}").text
    )
    assert {site.get(u.replace(site.url, "")).status_code for u in files} == {200}
    # a run made now has each question's result; one scored before gets them by re-scoring
    after = site.get(
        f"api/experiments/{revealed['after']['id']}",
        headers={"Authorization": f"Bearer {revealed['after']['token']}"},
    ).json()
    assert len(after["evaluations"][0]["questions"]) == N
    assert "questionsWithheld" not in after["evaluations"][0]
    rescored = site.get(
        f"api/experiments/{revealed['rescored']['id']}",
        headers={"Authorization": f"Bearer {revealed['rescored']['token']}"},
    ).json()
    (evaluation,) = rescored["evaluations"]
    right = {q["id"] for q in evaluation["questions"] if q["QA"]["f1"] == 1}
    assert right == {"1", "2", "3", "4", "5"}
    (system,) = rescored["changes"]["systems"]
    assert system["questions"] == [] and system["questionsWithheld"] is True
    assert rescored["datasetFindings"] is not None
    rows = site.get(f"leaderboards?dataset={name}&profile=exact&format=json").json()["rows"]
    tiered = [r for r in rows if r["tier"] is not None]
    assert {r["system"] for r in tiered} == {"team-file", "team-after"}
    # a web service's run is not re-scored (its answers were asked): the refusal names the
    # resubmission that replaces it (it said `gerbil-qa evaluate`, which replaces nothing)
    web_auth = {"Authorization": f"Bearer {task['web']['token']}"}
    asked = site.post(f"api/experiments/{task['web']['id']}/rescore", headers=web_auth, json={})
    assert asked.status_code == 400 and "revisionOf" in asked.json()["error"], asked.text
    # the rows, pages and link scored while withheld say it was revealed, not to wait for it
    # (explore21 4)
    notes = {r["system"]: r.get("tierNote") for r in rows if r["tier"] is None}
    assert notes and all("was revealed on" in (n or "") for n in notes.values()), notes
    web_task = site.get(f"experiment/{task['web']['id']}/task/1").text
    assert "revealed the gold on" in web_task and "Once its organiser reveals" not in web_task
    again = site.get(f"experiment/{task['organiser']['id']}/reveal")
    assert again.status_code == 409 and "was revealed on" in again.text
    from service.graph.checks import check_store

    assert [str(v) for v in check_store(site.storage)] == []


def test_after_the_reveal_the_test_set_offers_its_download(
    site: Server, task: dict[str, Any], revealed: dict[str, Any]
) -> None:
    said = _downloads(site, task)
    assert said["download"] and said["download"] <= said["access"], said
    # its download is its access URL now, the dataset's page (the withheld era's) no more
    # (explore32 6); the SPARQL endpoint's default graph agrees
    assert said["access"] == said["download"], said
    page = f"{site.url}dataset/{task['name']}"
    asked = site.get(
        "sparql",
        params={"query": f"ASK {{ ?f <{DCAT_NS}accessURL> <{page}> }}"},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert asked.json()["boolean"] is False, asked.text
    assert all(said["answers"][url] == 200 for url in said["download"]), said
    assert said["availability"] == {
        "http://publications.europa.eu/resource/authority/planned-availability/STABLE"
    }
    # the teams' answer files too (served since the reveal)
    assert len(said["answers"]) >= 3 and set(said["answers"].values()) == {200}, said
    # a run scored while withheld and published after the reveal: its file's address said too
    late = task["late"]
    _publish(site, late)
    import rdflib

    got = site.get(f"experiment/{late['id']}", headers={"Accept": "text/turtle"}).content
    graph = rdflib.Graph().parse(data=got, format="turtle")
    urls = [str(o) for o in graph.objects(None, rdflib.URIRef(DCAT_NS + "downloadURL"))]
    assert urls and all(site.get(u.replace(site.url, "")).status_code == 200 for u in urls)


def test_withholding_is_an_about_choice_of_the_registry(site: Server) -> None:
    from service.dataset_about import ABOUT

    field = ABOUT["gold"]
    spec = site.get("api/openapi.json").json()
    about = json.dumps(spec)
    assert '"withheld"' in about and "/api/datasets/{name}/reveal" in spec["paths"]
    form = site.get("experiments/new").text
    assert f'name="{field.form_field}"' in form
    bad = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "x.json", "content": _test_set().decode()},
            "about": {"gold": "hidden"},
            "systems": [{"name": "x", "answers": _answers(set()).decode()}],
        },
    )
    assert bad.status_code == 400 and "withheld" in bad.json()["error"]


def test_a_withheld_expected_tsv_serves_its_in_tsv_alone(site: Server) -> None:
    """A PolEval-style test set: its questions are its in.tsv, which a team answers line by
    line; its expected.tsv is its gold."""
    dataset = {
        "filename": "expected.tsv",
        "content": "GOLDSECRET-a\nGOLDSECRET-b\n",
        "questions": {"filename": "in.tsv", "content": "Pierwsze pytanie?\nDrugie pytanie?\n"},
    }
    answers = {"filename": "out.tsv", "content": "GOLDSECRET-a\nguess-b\n"}
    made = _submit(
        site,
        {
            "dataset": dataset,
            "about": {"gold": "withheld"},
            "profile": "poleval",
            "systems": [{"name": "quiz", "answers": answers}],
        },
    )
    _publish(site, made)
    page = site.get(f"experiment/{made['id']}").text
    links = dict(
        (title, url)
        for url, title in re.findall(r'href="([^"]*/file/[0-9a-f]{64})"[^>]*>([^<]+)<', page)
    )
    # the gold and the answers are marked withheld, not linked (explore42 2)
    marked = dict(
        (title, f"{site.url}experiment/{made['id']}/file/{sha}")
        for title, sha in re.findall(
            r'<dd>([^<]+) <span class="muted file-withheld">.*?sha256 ([0-9a-f]{64})<', page
        )
    )
    assert set(links) >= {"in.tsv"} and {"expected.tsv", "out.tsv"} <= set(marked), (links, marked)
    assert not {"expected.tsv", "out.tsv"} & set(links)
    links |= marked
    got = {
        t: site.get(links[t].replace(site.url, "")) for t in ("in.tsv", "expected.tsv", "out.tsv")
    }
    assert got["in.tsv"].status_code == 200 and "Drugie pytanie?" in got["in.tsv"].text
    assert got["expected.tsv"].status_code == 403 and got["out.tsv"].status_code == 403
    # without its in.tsv it is a test set no team can read, refused (explore21 16)
    alone = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "expected.tsv", "content": "GOLDSECRET-c\nGOLDSECRET-d\n"},
            "about": {"gold": "withheld"},
            "profile": "poleval",
            "systems": [{"name": "quiz", "answers": answers}],
        },
    )
    assert alone.status_code == 400 and "needs its in.tsv" in alone.json()["error"]


def test_the_run_page_withholds_a_gold_too(site: Server) -> None:
    """The run form's choice (its field from the registry) is the API's ``about.gold``."""
    from tests.web.conftest import submitted

    data = _test_set().replace(b"secret-task", b"form-task")
    files = [("dataset_file", ("form-task.json", data)), ("answers", ("a.json", _answers({1})))]
    page = submitted(
        site.post(
            "experiments/new",
            files=files,
            data={"profile": "exact", "title": "Form Task", "dataset_gold": "withheld"},
        )
    )
    experiment_id = page.url.rstrip("/").rsplit("/", 1)[1]
    token = next(iter(page.history[0].cookies.values()))  # the owner cookie's token
    status = site.wait_finished(experiment_id, token)
    (evaluation,) = status["evaluations"]
    assert evaluation["questionsWithheld"] is True and evaluation["questions"] == []


def _published_test_set(site: Server, tag: str) -> tuple[dict[str, Any], str, bytes]:
    """A new test set of its own gold marks (``TAG-GOLD``), withheld and published by its
    organiser with a baseline: the organiser's ticket, the dataset's name, the file."""
    content = _test_set().replace(b"secret-task", tag.encode())
    content = content.replace(b"GOLDSECRET", f"{tag.upper()}-GOLD".encode())
    organiser = _submit(
        site,
        {
            "dataset": {"filename": f"{tag}.json", "content": content.decode()},
            "title": f"{tag.title()} Task",
            "about": {"gold": "withheld"},
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
        },
    )
    _publish(site, organiser)
    name = site.get(f"api/experiments/{organiser['id']}").json()["dataset"].rsplit("/", 1)[1]
    return organiser, name, content


def _same_bytes_twice(site: Server, tag: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two private runs on one new file: a trial scored with its gold, then the organiser's
    withheld one (both recorded before either is published)."""
    # its own gold marks: the module's first test set is revealed by now
    content = _test_set().replace(b"secret-task", tag).replace(b"GOLDSECRET", b"HIDDEN" + tag)
    content = content.decode()
    trial = _submit(
        site,
        {
            "dataset": {"filename": "trial.json", "content": content},
            "profile": "exact",
            "systems": [{"name": "trial", "answers": _answers({1, 2, 3}).decode()}],
        },
    )
    withheld = _submit(
        site,
        {
            "dataset": {"filename": "task.json", "content": content},
            "title": tag.decode(),
            "about": {"gold": "withheld"},
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
        },
    )
    return trial, withheld


def _refused_publication(site: Server, ticket: dict[str, Any]) -> str:
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    refused = site.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
    assert refused.status_code == 409, refused.text
    status = site.get(f"api/experiments/{ticket['id']}?questions=false", headers=auth).json()
    assert status["public"] is False
    return str(refused.json()["error"])


def test_a_run_scored_with_the_gold_before_the_test_set_was_published_stays_private(
    site: Server,
) -> None:
    """Publishing a trial recorded (with the gold) before the same bytes were published as a
    withheld test set published the gold and each question's result under the test set's
    name, whose page still said "withheld" (explore21 1). Refused now, until the reveal;
    re-scored, it is recorded as the test set's runs are, and published."""
    trial, withheld = _same_bytes_twice(site, b"order-two")
    _publish(site, withheld)
    name = site.get(f"api/experiments/{withheld['id']}").json()["dataset"].rsplit("/", 1)[1]
    said = _refused_publication(site, trial)
    assert name in said and "re-score it" in said and "withholds" in said
    leaked = site.post(
        "sparql",
        data={"query": 'ASK { ?s ?p ?o FILTER(CONTAINS(STR(?o), "HIDDENorder-two")) }'},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert leaked.json()["boolean"] is False
    auth = {"Authorization": f"Bearer {trial['token']}"}
    again = site.post(f"api/experiments/{trial['id']}/rescore", headers=auth, json={})
    assert again.status_code == 202, again.text
    site.wait_finished(again.json()["id"], again.json()["token"])
    _publish(site, again.json())
    body = site.get(f"api/experiments/{again.json()['id']}").json()
    assert body["evaluations"][0]["questionsWithheld"] is True
    assert "HIDDENorder-two" not in json.dumps(body) and body["evaluations"][0]["questions"] == []
    # once revealed, the trial itself may be published
    organiser = {"Authorization": f"Bearer {withheld['token']}"}
    done = site.post(f"api/datasets/{name}/reveal", headers=organiser)
    assert done.status_code == 200, done.text
    # the time as every other the API gives (it said +00:00 where the graph says Z)
    # the runs to re-score: those scored without per-question results (explore21 14)
    listed = set(done.json()["scoredWhileWithheld"])
    assert listed == {site.url + f"experiment/{e}" for e in (withheld["id"], again.json()["id"])}
    when = done.json()["goldRevealedAt"]
    assert when.endswith("Z") and f'"{when}"' in site.get(f"dataset/{name}.ttl").text
    _publish(site, trial)


def test_a_run_scored_withheld_on_bytes_published_with_their_gold_is_refused(
    site: Server,
) -> None:
    """The other order: the trial published first makes the file a public dataset, gold and
    all; the organiser's withheld run then joined it, told its results waited for a reveal
    that could never come (explore21 2)."""
    trial, withheld = _same_bytes_twice(site, b"public-first")
    _publish(site, trial)
    # (a board of one row shows its interval, as the others do: explore22 12)
    name = site.get(f"api/experiments/{trial['id']}").json()["dataset"].rsplit("/", 1)[1]
    (row,) = site.get(f"leaderboards?dataset={name}&format=json").json()["rows"]
    assert row["tier"] is None and row["intervals"], json.dumps(row)[:1500]
    assert "the only row" in row["tierNote"]
    said = _refused_publication(site, withheld)
    assert "public already" in said and "never published" in said
    # submitted now, the same bytes withheld are refused for that reason, not for a
    # "description" nobody gave (explore21 7)
    content = _test_set().replace(b"secret-task", b"public-first")
    content = content.replace(b"GOLDSECRET", b"HIDDENpublic-first")
    again = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "again.json", "content": content.decode()},
            "about": {"gold": "withheld"},
            "systems": [{"name": "x", "answers": _answers(set()).decode()}],
        },
    )
    assert again.status_code == 400 and "whose gold is public" in again.json()["error"]
    assert again.json()["problems"][0]["path"] == "$.about.gold"


def test_only_its_organiser_versions_a_withheld_test_set_and_answers_stay_on_it(
    site: Server,
) -> None:
    """Anyone could publish a "newer version" of a test set, announced on its page and its
    runs' as "a corrected file its author published"; a team that re-scored onto it published
    its answer file and each question's result (explore21 3). Its organiser's own correction
    was published with its gold unless "withheld" was chosen again (explore21 11)."""
    organiser, name, content = _published_test_set(site, "versioned")
    team = _submit(
        site,
        {
            "dataset": name,
            "profile": "exact",
            "systems": [{"name": "t", "answers": _answers({2}).decode()}],
        },
    )
    _publish(site, team)
    newer = {
        "dataset": {
            "filename": "v2.json",
            "content": content.replace(b"VERSIONED-GOLD", b"V2GOLD").decode(),
        },
        "title": "Versioned Task",
        "about": {"version": "2", "previousVersion": name},
        "profile": "exact",
        "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
    }
    stranger = site.post("api/experiments", json=newer)
    assert stranger.status_code == 403, stranger.text
    assert stranger.json()["problems"][0]["path"] == "$.about.previousVersion"
    made = site.post(
        "api/experiments", json=newer, headers={"Authorization": f"Bearer {organiser['token']}"}
    )
    assert made.status_code == 202, made.text
    site.wait_finished(made.json()["id"], made.json()["token"])
    _publish(site, made.json())
    v2 = site.get(f"api/experiments/{made.json()['id']}").json()["dataset"].rsplit("/", 1)[1]
    # a corrected test set withholds its gold as its previous version does: unless chosen
    # again, it was published with it, most of the withheld one's (explore21 11)
    listed = {d["name"]: d for d in site.get("api/datasets").json()["datasets"]}
    assert listed[v2]["goldWithheld"] is True
    question = site.get(f"dataset/{v2}/question/1", headers={"Accept": "text/turtle"})
    assert question.status_code == 200 and "Which secret" in question.text
    assert "V2GOLD" not in question.text
    # a team re-scores its answers onto it: they stay withheld there
    auth = {"Authorization": f"Bearer {team['token']}"}
    onto = site.post(
        f"api/experiments/{team['id']}/rescore", headers=auth, json={"datasetVersion": v2}
    )
    assert onto.status_code == 202, onto.text
    site.wait_finished(onto.json()["id"], onto.json()["token"])
    mine = {"Authorization": f"Bearer {onto.json()['token']}"}
    body = site.get(f"api/experiments/{onto.json()['id']}", headers=mine).json()
    assert body["evaluations"][0]["questionsWithheld"] is True
    # revealing v1 now would publish most of v2's gold: its reveal page says so (explore21 15)
    page = site.get(f"experiment/{organiser['id']}/reveal")
    assert page.status_code == 200 and 'id="newer-withheld"' in page.text and v2 in page.text
    # v1 still withheld, v2 is not revealed: it shares most of v1's gold, which was then
    # public while v1's page said it was on no page (explore32 11); both say to reveal v1 first
    v2_owner = {"Authorization": f"Bearer {made.json()['token']}"}
    refused = site.post(f"api/datasets/{v2}/reveal", headers=v2_owner)
    assert refused.status_code == 409, refused.text
    assert name in refused.json()["error"] and "reveal that one first" in refused.json()["error"]
    assert f"experiment/{organiser['id']}/reveal" in refused.json()["error"]
    question = site.get(f"dataset/{v2}/question/1", headers={"Accept": "text/turtle"}).text
    assert "V2GOLD" not in question
    owners_page = requests.get(
        site.url + f"experiment/{made.json()['id']}/reveal",
        cookies={f"gqa_owner_{made.json()['id']}": made.json()["token"]},
        timeout=30,
    )
    assert owners_page.status_code == 200 and 'id="older-withheld"' in owners_page.text
    assert name in owners_page.text and 'id="reveal-form"' not in owners_page.text
    assert f"/experiment/{organiser['id']}/reveal" in owners_page.text
    # its organiser reveals v1, then v2 (the owner of the run that made it)
    first = site.post(
        f"api/datasets/{name}/reveal", headers={"Authorization": f"Bearer {organiser['token']}"}
    )
    assert first.status_code == 200, first.text
    reveal = site.post(f"api/datasets/{v2}/reveal", headers=v2_owner)
    assert reveal.status_code == 200, reveal.text
    page = site.get(f"experiment/{made.json()['id']}/reveal")
    assert page.status_code == 409 and "was revealed on" in page.text


def test_a_reveal_where_the_file_is_not_kept_says_how_to_bring_it(site: Server) -> None:
    """A store restored from a dump without its files answered the reveal with a 500
    (explore21 6): a 409 saying what is missing and how to restore it."""
    import hashlib

    organiser, name, content = _published_test_set(site, "unkept")
    from service.experiments.kept import file_key

    site.storage.workspace.remove_key(file_key(hashlib.sha256(content).hexdigest()))
    auth = {"Authorization": f"Bearer {organiser['token']}"}
    refused = site.post(f"api/datasets/{name}/reveal", headers=auth)
    assert refused.status_code == 409, refused.text
    assert "export --files" in refused.json()["error"]
    assert name in {d["name"] for d in site.get("api/datasets").json()["datasets"]}


def test_a_withdrawn_test_set_says_why_it_cannot_be_revealed(site: Server) -> None:
    """Every run on it withdrawn, its page kept offering the reveal, whose form ended in a
    404 "no published uploaded dataset" (explore21 10)."""
    organiser, name, _ = _published_test_set(site, "gone")
    auth = {"Authorization": f"Bearer {organiser['token']}"}
    withdrawn = site.post(
        f"api/experiments/{organiser['id']}/withdraw", headers=auth, json={"reason": "over"}
    )
    assert withdrawn.status_code == 200, withdrawn.text
    refused = site.post(f"api/datasets/{name}/reveal", headers=auth)
    assert refused.status_code == 409 and "was withdrawn" in refused.json()["error"]
    page = site.get(f"experiment/{organiser['id']}/reveal")
    assert page.status_code == 409 and "publish a run on it again" in page.text
    shown = site.get(f"dataset/{name}").text
    assert 'id="gold-unlisted"' in shown and 'id="reveal-link"' not in shown


def test_a_run_on_a_test_set_with_a_gold_of_its_own_is_refused(site: Server) -> None:
    """A stranger ran on the test set by its name with a gold file of their own: questions and
    that gold were a dataset of their own, not withheld, and the run served the test set's
    file, its gold, to them (explore21 19)."""
    _, name, content = _published_test_set(site, "owngold")
    for body in (
        {"dataset": name},
        {"dataset": {"filename": "copy.json", "content": content.decode()}},
    ):
        refused = site.post(
            "api/experiments",
            json={
                **body,
                "gold": {"filename": "mine.json", "content": _answers(set()).decode()},
                "systems": [{"name": "x", "answers": _answers({1}).decode()}],
            },
        )
        assert refused.status_code == 403, refused.text
        assert refused.json()["problems"][0]["path"] == "$.gold"


def test_a_withdrawn_datasets_public_gold_cannot_be_withheld_again(site: Server) -> None:
    """Its runs withdrawn, an upload's gold stays on their pages (as published): the same
    bytes were accepted as a new "hidden" test set (explore23 5), and its questions file and
    reveal told to upload it withheld again (4)."""
    content = _test_set().replace(b"secret-task", b"was-public")
    content = content.replace(b"GOLDSECRET", b"WASPUBLIC")
    trial = _submit(
        site,
        {
            "dataset": {"filename": "open.json", "content": content.decode()},
            "systems": [{"name": "open", "answers": _answers({1}).decode()}],
        },
    )
    _publish(site, trial)
    name = site.get(f"api/experiments/{trial['id']}").json()["dataset"].rsplit("/", 1)[1]
    auth = {"Authorization": f"Bearer {trial['token']}"}
    gone = site.post(f"api/experiments/{trial['id']}/withdraw", headers=auth, json={"reason": "x"})
    assert gone.status_code == 200, gone.text
    assert site.get(f"dataset/{name}/questions.json").status_code == 404
    assert site.post(f"api/datasets/{name}/reveal", headers=auth).status_code == 404
    again = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "hidden.json", "content": content.decode()},
            "title": "Hidden Now",
            "about": {"gold": "withheld"},
            "systems": [{"name": "x", "answers": _answers({1}).decode()}],
        },
    )
    assert again.status_code == 400 and "whose gold is public" in again.json()["error"]
