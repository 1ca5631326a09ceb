"""Lists that grow with the number of experiments, on the running server: the home page (one
dataset's leaderboard, the newest experiments), paged experiment lists (HTML and API), paged
dataset leaderboards and system histories, the SPARQL page's leaderboard example (the published
query), and dataset versions dereferencing like every other minted URI."""

from __future__ import annotations

import html
import re
from datetime import datetime

import pytest
import rdflib
from rdflib.compare import isomorphic

from service.graph.queries import leaderboard_counts_query, leaderboard_query
from tests.web.conftest import demo_dataset

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # inside rdflib


@pytest.fixture(scope="module")
def published(server) -> list[str]:
    """Two more published experiments on the demo dataset (three public ones at least)."""
    ids = []
    for systems in (("strong",), ("strong", "partial")):
        ticket = server.submit_demo(systems=systems)
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        response = server.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
        assert response.status_code == 200, response.text
        ids.append(ticket["id"])
    return ids


def leaderboard_tasks(page_html: str) -> list[str]:
    table = page_html.split('<table class="leaderboard">', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<td><a href="([^"]+/task/\d+)"[ >]', table)  # (then its aria-label)


def most_used_dataset(server) -> str:
    """The dataset with the most QA leaderboard rows (ties: the first IRI)."""
    query = leaderboard_counts_query(by=("dataset",)) + "\nORDER BY DESC(?n) ?dataset LIMIT 1"
    answer = server.get(
        "sparql", params={"query": query}, headers={"Accept": "application/sparql-results+json"}
    ).json()
    return answer["results"]["bindings"][0]["dataset"]["value"]


def test_home_shows_one_dataset_and_the_newest_experiments(server, published) -> None:
    dataset = most_used_dataset(server)
    name = dataset.rsplit("/", 1)[1]
    page = server.get("", headers={"Accept": "text/html"})
    assert page.status_code == 200
    text = page.text
    assert f"Leaderboard: {name} (QA, macro F1)" in text  # the most used dataset
    assert f'href="{dataset}#leaderboard">Full leaderboard of {name}</a>' in text
    assert 0 < len(leaderboard_tasks(text)) <= 15
    recent = text.split("<h2>Recent experiments</h2>", 1)[1]
    assert published[-1] in recent  # the newest (other tests publish more: the demo may scroll off)
    rows = recent.split("</table>", 1)[0].split("<tbody>", 1)[1].count("<tr")
    assert 0 < rows <= 10  # the 10 newest at most
    # choosing the dataset by name; an unknown one says so
    chosen = server.get("", params={"dataset": name}).text
    assert leaderboard_tasks(chosen) == leaderboard_tasks(text)
    # a catalogue dataset without public QA results says so; a name no dataset has (a
    # mistyped link) is a 400 naming the nearest, as the leaderboards answer it (was 200)
    quiet = server.get("", params={"dataset": "qald-9-test-multilingual"})
    assert quiet.status_code == 200
    assert "No public QA results on a dataset named “qald-9-test-multilingual”" in quiet.text
    assert '<table class="leaderboard">' not in quiet.text
    unknown = server.get("", params={"dataset": name[:-1]})
    assert unknown.status_code == 400
    assert f"did you mean {name!r}?" in html.unescape(unknown.text)


def test_experiment_lists_are_paged(server, published) -> None:
    from service import formats
    from service.paths import DEMO_DIR
    from service.web.state import EXTENSION

    # a gold refresh is an activity with an end time too: it must not take an experiment's place
    server.storage.catalogue.register_version(
        "paged-demo", formats.read(DEMO_DIR / "questions.json"), kb="demo", version="1"
    )
    server.app.extensions[EXTENSION].changed()
    first = server.get("api/experiments", params={"size": 1}).json()
    assert (first["page"], first["size"], len(first["experiments"])) == (1, 1, 1)
    assert first["next"] == f"{server.url}api/experiments?page=2&size=1"
    second = server.get(first["next"].replace(server.url, "")).json()
    assert len(second["experiments"]) == 1
    newest, older = first["experiments"][0], second["experiments"][0]
    # as times, not text: Oxigraph writes a whole second without its ".000" ("…42Z" sorted
    # before "…42.251Z" as text, and the test failed once in CI on two runs in one second)
    when = datetime.fromisoformat
    assert when(newest["ended"]) >= when(older["ended"]) and newest["id"] != older["id"]
    newest, older = newest["id"], older["id"]
    everything = server.get("api/experiments").json()
    ids = [e["id"] for e in everything["experiments"]]
    ended = [when(e["ended"]) for e in everything["experiments"]]
    assert ended == sorted(ended, reverse=True) and everything["next"] is None
    assert len(set(ids)) == len(ids) and set(published) | {server.demo_id} <= set(ids)
    assert ids[:2] == [newest, older]
    # page by page, every experiment once and in order (a page may be short: other activities
    # with an end time, a dataset version's, take a place in the slice, listings.experiments)
    paged, at = [], "api/experiments?size=1"
    while at:
        page = server.get(at.replace(server.url, "")).json()
        paged += [e["id"] for e in page["experiments"]]
        at = page["next"]
    assert paged == ids
    # the HTML list: a page of rows and the links to its neighbours
    page = server.get("experiments", params={"size": 1, "page": 2}).text
    assert f">{older}</a>" in page and f">{newest}</a>" not in page
    assert 'rel="prev" href="/experiments?page=1&amp;size=1"' in page  # the size is kept
    assert 'rel="next" href="/experiments?page=3&amp;size=1"' in page
    for bad in ({"page": "0"}, {"page": "x"}, {"size": "501"}):
        response = server.get("api/experiments", params=bad)
        assert response.status_code == 400 and "expected a whole number" in response.text


def test_dataset_leaderboard_and_system_history_are_paged(server, published) -> None:
    path = demo_dataset(server).replace(server.url, "")
    whole = leaderboard_tasks(server.get(path, params={"size": 500}).text)
    assert len(whole) >= 3
    page_1 = server.get(path, params={"size": 2}).text
    page_2 = server.get(path, params={"size": 2, "page": 2}).text
    assert leaderboard_tasks(page_1) == whole[:2] and leaderboard_tasks(page_2) == whole[2:4]
    assert 'rel="next"' in page_1 and "Questions</h2>" in page_2
    systems = server.get("api/systems").json()["systems"]
    system = next(s["uri"] for s in systems if s["experiments"] >= 2).replace(server.url, "")
    history = leaderboard_tasks(server.get(system, params={"size": 500}).text)
    assert len(history) >= 2
    assert leaderboard_tasks(server.get(system, params={"size": 1}).text) == [history[0]]
    csv_rows = server.get(f"{system}.csv").text.strip().splitlines()[1:]
    assert len(csv_rows) == len(history)  # the CSV is the whole history
    assert server.get(path, params={"page": "-1"}).status_code == 400
    # the RDF of the dataset is one document whatever the page
    turtle = server.get(path, params={"page": "2"}, headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200 and turtle.text == server.get(path + ".ttl").text


def test_sparql_page_offers_the_published_leaderboard(server, published) -> None:
    page = server.get("sparql", headers={"Accept": "text/html"}).text
    example = leaderboard_query(limit=100, title="Leaderboard")
    body = example.split("SELECT", 1)[1]
    assert html.escape("SELECT" + body, quote=False) in page
    assert 'id="result' not in page  # nothing was asked yet (it said "Result: false")
    answer = server.get(
        "sparql",
        params={"query": example},
        headers={"Accept": "application/sparql-results+json"},
    ).json()
    tasks = [b["task"]["value"] for b in answer["results"]["bindings"]]
    dataset_path = demo_dataset(server).replace(server.url, "")
    on_dataset = leaderboard_tasks(server.get(dataset_path, params={"size": 500}).text)
    assert [t for t in tasks if t in on_dataset] == on_dataset  # the same order


@pytest.fixture(scope="module")
def version(server) -> tuple[str, str]:
    """A registered version of a dataset (as ``gerbil-qa dataset refresh --store`` makes)."""
    return server.register_version("demo-versioned", kb="demo", version="2024-05")


def test_dataset_versions_dereference(server, version) -> None:
    uri, qid = version
    path = uri.replace(server.url, "")
    assert path == "dataset/demo-versioned/version/2024-05"
    question = f"{path}/question/{qid}"
    for resource in (path, question):
        page = server.get(resource, headers={"Accept": "text/html"})
        assert page.status_code == 200 and "text/html" in page.headers["Content-Type"]
        assert page.headers["Vary"] == "Accept"
        turtle = server.get(resource, headers={"Accept": "text/turtle"})
        assert turtle.status_code == 200 and turtle.headers["Content-Type"].startswith("text/")
        graph = rdflib.Graph().parse(data=turtle.text, format="turtle")
        assert (rdflib.URIRef(server.url + resource), None, None) in graph
        for ext, fmt in (("jsonld", "json-ld"), ("rdf", "xml"), ("nt", "nt"), ("nq", "nquads")):
            response = server.get(f"{resource}.{ext}")
            assert response.status_code == 200, (resource, ext)
            if fmt == "nquads":
                quads = rdflib.Dataset()
                quads.parse(data=response.content, format=fmt)
                other = rdflib.Graph()
                for triple in quads.quads():
                    other.add(triple[:3])
            else:
                other = rdflib.Graph().parse(data=response.content, format=fmt)
            assert isomorphic(other, graph), (resource, ext)
        links = server.request("HEAD", resource).headers["Link"]
        assert f"<{server.url}{resource}.rdf>" in links
    page = server.get(path, headers={"Accept": "text/html"}).text
    assert f'href="{server.url}{question}"' in page  # the version lists its questions
    graph = rdflib.Graph().parse(data=server.get(question + ".ttl").text, format="turtle")
    parts = {str(o) for o in graph.objects(rdflib.URIRef(server.url + question), None)}
    assert uri in parts  # dct:isPartOf the version
    assert server.get(f"{path}/question/no-such-question").status_code == 404
    assert server.get("dataset/demo-versioned/version/no-such-version").status_code == 404
    # its page's BibTeX is a download too, keyed by name and version (was "…-dataset-2024-05",
    # the version alone, the same key for every dataset's version of that label)
    bib = server.get(f"{path}.bib")
    assert bib.status_code == 200 and bib.headers["Content-Type"].startswith("application/x-bibtex")
    assert bib.text.startswith("@misc{gerbilqa-dataset-demo-versioned-version-2024-05,\n")
    # titled by its dataset, the version said once (was "demo-versioned, version 2024-05"
    # as the title, and the version again)
    assert "title = {{demo-versioned}}" in bib.text and "note = {Version 2024-05" in bib.text
