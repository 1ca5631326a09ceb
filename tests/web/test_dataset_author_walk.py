"""A dataset author's walk, over HTTP: an author uploads a 30-question QALD-JSON benchmark of
their own (a small bird KB in Turtle) with what a dataset's users need to know of it — title,
description, licence, creators, contact, KB and its version — and others evaluate on it.

Before, a submission had no way to say any of it: an uploaded dataset was described as "The
dataset file … uploaded for an experiment", with no licence, creator or contact, no
distribution to download the exact file from (DCAT-AP's recommended shapes said so), and a
corrected file (v2) was an unrelated dataset.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import rdflib
import requests

from tests.bird_benchmark import V1, V2, bird_answers, bird_kb, bird_questions
from tests.conftest import STANDARDS
from tests.helpers import qa_service
from tests.web.conftest import Server, start_server, stop_server

LICENSE = "https://creativecommons.org/licenses/by/4.0/"
DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
DCT = rdflib.Namespace("http://purl.org/dc/terms/")
GQA = rdflib.Namespace("http://w3id.org/gerbil/qa/vocab#")
FOAF = rdflib.Namespace("http://xmlns.com/foaf/0.1/")
VCARD = rdflib.Namespace("http://www.w3.org/2006/vcard/ns#")
ABOUT = {
    "description": "Thirty questions about the wingspans and diets of thirty birds.",
    "license": LICENSE,
    "creators": ["Ann Author", "Bo Coauthor"],
    "contact": "birds-qa@example.org",
    "knowledgeBase": "http://example.org/birds",
    "knowledgeBaseVersion": "birds-kb 2026-11",
    "version": "1",
}


_FOOD_GOLD = {
    q["question"][0]["string"]: q["answers"] for q in bird_questions(fixed=True)["questions"]
}


def _team_b_answers(text: str) -> list[Any]:
    """Team B's QA web service: the v2 gold for questions about food, nothing else."""
    if "eat" in text and text in _FOOD_GOLD:
        return _FOOD_GOLD[text]
    return [{"head": {"vars": ["x"]}, "results": {"bindings": []}}]


@pytest.fixture(scope="module")
def team_b() -> Iterator[str]:
    with qa_service(_team_b_answers) as url:
        yield url


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    kb = tmp_path_factory.mktemp("birds") / "birds-kb.ttl"
    kb.write_text(bird_kb(), encoding="utf-8")
    running = start_server(tmp_path_factory.mktemp("author-store"), demo=False, kbs=f"birds={kb}")
    yield running
    stop_server(running)


def _run(site: Server, body: Any = None, **kwargs: Any) -> dict[str, Any]:
    """Submit, wait, publish: the finished experiment's status."""
    made = (
        site.post("api/experiments", json=body, **kwargs)
        if body
        else site.post("api/experiments", **kwargs)
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    published = site.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
    assert published.status_code == 200, published.text
    return {**site.get(f"api/experiments/{ticket['id']}").json(), "token": ticket["token"]}


@pytest.fixture(scope="module")
def walked(site: Server, team_b: str) -> dict[str, Any]:
    """The author's run on v1 (JSON, with ``about``); team A's answer file and team B's web
    service on the same bytes (a form, saying nothing about the dataset); the author's v2."""
    author = _run(
        site,
        {
            "dataset": {"filename": "birds-v1.json", "content": V1.decode()},
            "title": "Birds QA",
            "about": ABOUT,
            "kb": "birds",
            "profile": "exact",
            "systems": [{"name": "gold-check", "answers": V1.decode()}],
        },
    )
    team_a = _run(
        site,
        files=[("dataset_file", ("birds.json", V1)), ("answers", ("team-a.json", bird_answers(1)))],
        data={"kb": "birds", "profile": "exact"},
    )
    team_b_run = _run(
        site,
        files=[("dataset_file", ("birds-qa.json", V1))],
        data={"kb": "birds", "profile": "exact", "webservice": f"team-b={team_b}"},
    )
    v1 = author["dataset"]
    v2 = _run(
        site,
        files=[
            ("dataset_file", ("birds-v2.json", V2)),
            ("answers", ("team-a.json", bird_answers(1))),
        ],
        data={
            "kb": "birds",
            "profile": "exact",
            "title": "Birds QA",
            "dataset_description": ABOUT["description"] + " Question 2's gold fixed.",
            "dataset_license": LICENSE,
            "dataset_creator": "Ann Author\nBo Coauthor",
            "dataset_contact": "birds-qa@example.org",
            "dataset_version_label": "2",
            "dataset_previous": v1.rsplit("/", 1)[1],
        },
        headers={"Authorization": f"Bearer {author['token']}"},  # its author's (explore34 1)
    )
    return {"author": author, "team_a": team_a, "team_b": team_b_run, "v1": v1, "v2": v2["dataset"]}


def _graph(site: Server, uri: str, media_type: str = "text/turtle") -> rdflib.Graph:
    response = site.get(uri.replace(site.url, ""), headers={"Accept": media_type})
    assert response.status_code == 200, (uri, response.status_code)
    syntax = {"text/turtle": "turtle", "application/ld+json": "json-ld"}[media_type]
    return rdflib.Graph().parse(data=response.content, format=syntax, publicID=uri)


def test_the_same_file_is_one_dataset_for_every_team(walked: dict[str, Any]) -> None:
    v1 = walked["v1"]
    assert walked["team_a"]["dataset"] == walked["team_b"]["dataset"] == v1
    assert v1.rsplit("/", 1)[1].startswith("birds-qa-")
    assert walked["v2"] != v1  # the corrected file is a dataset (and leaderboard) of its own


def test_runs_recorded_before_either_was_public_join_the_first_published(site: Server) -> None:
    # each title named its own dataset ("fish-qa-…", "sea-qa-…"): two leaderboards for one
    # file, as a run recorded while no run on the bytes was public is named by its own title
    body = V1.replace(b'"birds-qa"', b'"birds-twice"').decode()
    tickets = []
    for title, about, system in (
        ("Fish QA", {"license": LICENSE, "creators": ["Ann Author"]}, "fish"),
        ("Sea QA", {"license": "https://opensource.org/licenses/MIT", "creators": ["Sea"]}, "sea"),
    ):
        made = site.post(
            "api/experiments",
            json={
                "dataset": {"filename": f"{system}.json", "content": body},
                "title": title,
                "about": about,
                "profile": "exact",
                "systems": [{"name": system, "answers": bird_answers(2).decode()}],
            },
        )
        assert made.status_code == 202, made.text
        tickets.append(made.json())
    private = [site.wait_finished(t["id"], t["token"]) for t in tickets]
    assert private[1]["dataset"].rsplit("/", 1)[1].startswith("sea-qa-")  # its own, until then
    for ticket in tickets:
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    first, second = (site.get(f"api/experiments/{t['id']}").json() for t in tickets)
    assert first["dataset"] == second["dataset"] and "/fish-qa-" in first["dataset"]
    name = first["dataset"].rsplit("/", 1)[1]
    rows = site.get(f"leaderboards?dataset={name}&profile=exact&format=json").json()["rows"]
    assert {"fish", "sea"} <= {r["system"] for r in rows}
    listed = [r["name"] for r in site.get("api/datasets").json()["datasets"] if r["uploaded"]]
    assert name in listed and not [n for n in listed if n.startswith("sea-qa-")]
    # the published description wins: one title, one licence, its creator; the second file is
    # distributed under that licence, and nothing is left under the second name
    ds = rdflib.URIRef(first["dataset"])
    g = _graph(site, first["dataset"])
    assert [str(t) for t in g.objects(ds, DCT.title)] == ["Fish QA"]
    assert list(g.objects(ds, DCT.license)) == [rdflib.URIRef(LICENSE)]
    assert {str(g.value(c, FOAF.name)) for c in g.objects(ds, DCT.creator)} == {"Ann Author"}
    files = [d for d in g.objects(ds, DCAT.distribution) if second["id"] in str(d)]
    assert files and g.value(files[0], DCT.license) == rdflib.URIRef(LICENSE)
    assert site.get(private[1]["dataset"].replace(site.url, "")).status_code == 404
    task = site.get(f"experiment/{second['id']}/task/1", headers={"Accept": "text/turtle"})
    assert name in task.text and "sea-qa" not in task.text
    page = site.get(f"experiment/{second['id']}")
    assert page.status_code == 200 and name in page.text and "sea-qa" not in page.text


def test_the_authors_description_is_the_datasets(site: Server, walked: dict[str, Any]) -> None:
    v1 = rdflib.URIRef(walked["v1"])
    g = _graph(site, walked["v1"])
    assert str(g.value(v1, DCT.title)) == "Birds QA"
    assert str(g.value(v1, DCT.description)) == ABOUT["description"]
    assert g.value(v1, DCT.license) == rdflib.URIRef(LICENSE)
    creators = sorted(str(g.value(c, FOAF.name)) for c in g.objects(v1, DCT.creator))
    assert creators == ABOUT["creators"]
    contact = g.value(v1, DCAT.contactPoint)
    assert g.value(contact, VCARD.hasEmail) == rdflib.URIRef("mailto:birds-qa@example.org")
    assert g.value(v1, GQA.knowledgeBase) == rdflib.URIRef("http://example.org/birds")
    assert str(g.value(v1, GQA.knowledgeBaseVersion)) == "birds-kb 2026-11"
    assert str(g.value(v1, DCAT.version)) == "1"
    languages = {str(o).rsplit("/", 1)[1] for o in g.objects(v1, DCT.language)}
    assert languages == {"ENG", "DEU"}
    # the teams that said nothing about it did not add a second title or description
    assert len(set(g.objects(v1, DCT.title))) == 1
    assert [str(d) for d in g.objects(v1, DCT.description)] == [ABOUT["description"]]


def test_a_mailto_contact_is_kept_as_the_iri_it_is(site: Server) -> None:
    """``mailto:ada@example.org`` was accepted and written ``<mailto:mailto%3Aada@example.org>``
    (a second ``mailto:``, its colon encoded): a contact no mail client opens."""
    dataset = V1.replace(b'"birds-qa"', b'"birds-mailto"')
    done = _run(
        site,
        {
            "dataset": {"filename": "birds-mailto.json", "content": dataset.decode()},
            "about": {"contact": "mailto:ada@example.org"},
            "kb": "birds",
            "profile": "exact",
            "systems": [{"name": "gold-check", "answers": dataset.decode()}],
        },
    )
    uri = rdflib.URIRef(done["dataset"])
    g = _graph(site, done["dataset"])
    contact = g.value(uri, DCAT.contactPoint)
    assert g.value(contact, VCARD.hasEmail) == rdflib.URIRef("mailto:ada@example.org")
    bad = site.post(  # a mailto: that is no IRI is refused, as it is written as given
        "api/experiments",
        json={
            "dataset": {"content": dataset.decode()},
            "about": {"contact": 'mailto:ada"lovelace@example.org'},
            "systems": [{"name": "x", "answers": dataset.decode()}],
        },
    )
    assert bad.status_code == 400 and "$.about.contact" in bad.text, bad.text


def test_its_distribution_downloads_the_exact_file(site: Server, walked: dict[str, Any]) -> None:
    import hashlib

    v1 = rdflib.URIRef(walked["v1"])
    g = _graph(site, walked["v1"])
    distributions = list(g.objects(v1, DCAT.distribution))
    assert distributions, "no dcat:distribution"
    for d in distributions:
        url = g.value(d, DCAT.downloadURL)
        assert url is not None and g.value(d, DCAT.accessURL) == url
        got = site.get(str(url).replace(site.url, ""))
        assert got.status_code == 200 and got.content == V1, (url, got.status_code)
        assert (
            str(
                g.value(
                    g.value(d, rdflib.URIRef("http://spdx.org/rdf/terms#checksum")),
                    rdflib.URIRef("http://spdx.org/rdf/terms#checksumValue"),
                )
            )
            == hashlib.sha256(V1).hexdigest()
        )


@pytest.mark.parametrize("media_type", ["text/turtle", "application/ld+json"])
def test_both_versions_pass_dcat_ap_and_parse_strictly(
    site: Server, walked: dict[str, Any], media_type: str
) -> None:
    import pyshacl
    from pyld import jsonld

    shapes = rdflib.Graph().parse(STANDARDS / "dcat-ap-3.0.1" / "html_shacl_shapes.ttl")
    for uri in (walked["v1"], walked["v2"]):
        data = _graph(site, uri, media_type)
        conforms, _, text = pyshacl.validate(data, shacl_graph=shapes, advanced=True)
        assert conforms, (uri, text[:3000])
        # every IRI a strict parser accepts (no literal URLs, no spaces), pyld reads it back
        response = site.get(uri.replace(site.url, ""), headers={"Accept": "application/ld+json"})
        expanded = jsonld.expand(json.loads(response.text), {"base": uri})
        assert any(node.get("@id") == uri for node in expanded)


def test_other_shapes_report_only_what_a_catalogue_dataset_leaves_out(
    site: Server, walked: dict[str, Any]
) -> None:
    # the recommended, range and vocabulary shapes said of an upload: no licence, no contact
    # point, no distribution; now only what test_dcat_ap.py allows every dataset (no spatial
    # or temporal coverage, no EU-table publisher, SPDX's http:// algorithm IRIs)
    import pyshacl

    shapes = rdflib.Graph()
    for name in (
        "html_shacl_shapes_recommended.ttl",
        "html_shacl_range.ttl",
        "html_shacl_mdr-vocabularies.shape.ttl",
        "html_shacl_deprecateduris.ttl",
    ):
        shapes.parse(STANDARDS / "dcat-ap-3.0.1" / name, format="turtle")
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    # (and a creator's ADMS kind, dct:type: no author is asked whether they are a person,
    # a company or a university)
    allowed = {
        DCT.spatial,
        DCT.temporal,
        DCT.publisher,
        DCT.type,
        rdflib.URIRef("http://spdx.org/rdf/terms#algorithm"),
    }
    for uri in (walked["v1"], walked["v2"]):
        data = _graph(site, uri)
        _, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none", advanced=True)
        top = list(report.objects(None, sh.result))  # not their details
        found = {report.value(r, sh.resultPath) for r in top}
        details = [
            (str(report.value(r, sh.focusNode)), str(report.value(r, sh.resultPath))) for r in top
        ]
        agents = {
            str(report.value(r, sh.focusNode))
            for r in top
            if report.value(r, sh.resultPath) == DCT.type
        }
        assert all("#creator-" in a for a in agents), agents
        assert found <= allowed, (uri, details)


def test_versions_are_linked_and_ranked_apart(site: Server, walked: dict[str, Any]) -> None:
    v1, v2 = rdflib.URIRef(walked["v1"]), rdflib.URIRef(walked["v2"])
    new = _graph(site, walked["v2"])
    assert new.value(v2, DCAT.previousVersion) == v1
    assert new.value(v2, DCT.isVersionOf) == v1
    assert str(new.value(v2, DCAT.version)) == "2"
    old = _graph(site, walked["v1"])
    assert (v1, DCAT.hasVersion, v2) in old  # a reader of v1 learns that v2 exists
    boards = {}
    for uri in (walked["v1"], walked["v2"]):
        name = uri.rsplit("/", 1)[1]
        rows = site.get(f"leaderboards?dataset={name}&profile=exact&format=json").json()["rows"]
        boards[name] = sorted(r["system"] for r in rows)
    assert boards[walked["v1"].rsplit("/", 1)[1]] == ["gold-check", "team-a", "team-b"]
    assert boards[walked["v2"].rsplit("/", 1)[1]] == ["team-a"]


def test_a_live_v1_names_its_newer_version_wherever_it_is_used(
    site: Server, walked: dict[str, Any]
) -> None:
    # explore-17b 4: while v1 was live, nothing but a row "hasVersion: Birds QA" (its own
    # title) said v2 existed: its page, question pages, citation, the run page's and the
    # leaderboards' menus (names only) and a participant's API notes were silent
    v1_name, v2_name = (walked[v].rsplit("/", 1)[1] for v in ("v1", "v2"))
    newer = f"Birds QA, version 2 ({v2_name})"
    banner = (
        "<strong>A newer version of this dataset exists:</strong> "
        f'<a href="{walked["v2"]}">{newer}</a>.'
    )
    for path in (f"dataset/{v1_name}", f"dataset/{v1_name}/question/2"):
        page = site.get(path).text
        assert banner in page, path
        # near the top: before the description's property table
        assert page.index(banner) < page.index('<table class="properties">'), path
    page = site.get(f"dataset/{v1_name}").text
    assert f'title="{walked["v2"]}">{newer}</a>' in page  # the hasVersion row
    v2_page = site.get(f"dataset/{v2_name}").text
    assert f'title="{walked["v1"]}">Birds QA, version 1 ({v1_name})</a>' in v2_page
    assert 'id="newer-version"' not in v2_page  # the newest says nothing of the kind
    bib = " ".join(site.get(f"dataset/{v1_name}.bib").text.split())
    assert f"; newer version {newer}}}" in bib, bib  # after its version (explore55 F5)
    assert "newer version" not in site.get(f"dataset/{v2_name}.bib").text
    # the menus label each version by title, version and name; v1 says it has a newer one
    options = {}
    for path in ("experiments/new", f"leaderboards?dataset={v1_name}"):
        for value, text in re.findall(
            r'<option value="(birds-qa-[^"]+)"[^>]*>([^<]*)', site.get(path).text
        ):
            options.setdefault(path, {})[value] = html.unescape(text)
    run, boards = options["experiments/new"], options[f"leaderboards?dataset={v1_name}"]
    assert run[v1_name].startswith(f"Birds QA, version 1 ({v1_name}) (30 questions; de, en")
    assert run[v1_name].endswith(f"; has a newer version, {v2_name})")
    assert run[v2_name].startswith(f"{newer} (30 questions") and "newer" not in run[v2_name][5:]
    assert boards[v1_name].startswith(
        f"Birds QA, version 1 ({v1_name}); has a newer version, {v2_name} ("
    )
    assert boards[v2_name].startswith(f"{newer} (")
    # a participant's run on v1 by its name is told in its notes
    made = site.post(
        "api/experiments",
        json={
            "dataset": v1_name,
            "profile": "exact",
            "systems": [{"name": "late-team", "answers": bird_answers(3).decode()}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    notes = site.wait_finished(ticket["id"], ticket["token"])["notes"]
    assert any(f"has a newer version, {newer}" in n and f"run on {v2_name}" in n for n in notes), (
        notes
    )
    # and one on v2 is not
    made = site.post(
        "api/experiments",
        json={
            "dataset": v2_name,
            "profile": "exact",
            "systems": [{"name": "late-team", "answers": bird_answers(3).decode()}],
        },
    )
    ticket = made.json()
    assert not any(
        "newer version" in n for n in site.wait_finished(ticket["id"], ticket["token"])["notes"]
    )


def test_a_question_page_counts_its_position_from_1(site: Server, walked: dict[str, Any]) -> None:
    # explore-17b 8c: question 3 read "position 2" beside "identifier 3" (the RDF counts from
    # 0, as the vocabulary says; the page counts as its reader does)
    v1_name = walked["v1"].rsplit("/", 1)[1]
    page = site.get(f"dataset/{v1_name}/question/3").text
    row = re.search(
        r'title="http://w3id.org/gerbil/qa/vocab#position">position</a></th>\s*<td>(.*?)</td>', page
    )
    assert row, "no position row"
    assert (
        html.unescape(row[1])
        == "question 3 of 30 in the file (the RDF's gqa:position 2 counts from 0)"
    )
    turtle = _graph(site, f"{walked['v1']}/question/3")
    assert {int(o) for o in turtle.objects(None, GQA.position)} == {2}  # the data keeps its meaning


def test_a_frozen_board_on_an_upload_names_its_title_and_version(
    site: Server, walked: dict[str, Any]
) -> None:
    # explore-17b 8b: "ranks QA results by macro F1 on birds-qa-9bcc958d": which dataset and
    # version a paper reporting the standings cites was not said
    v2_name = walked["v2"].rsplit("/", 1)[1]
    made = site.post(
        "api/leaderboards",
        json={
            "title": "Birds QA shared task, final",
            "dataset": v2_name,
            "type": "QA",
            "profile": "exact",
        },
    )
    assert made.status_code in (200, 201), made.text
    frozen = made.json()["uri"].replace(site.url, "")
    newer = f"Birds QA, version 2 ({v2_name})"
    bib = " ".join(site.get(f"{frozen}.bib").text.split())
    assert f"ranks QA results by macro F1 on {newer}, profile exact" in bib, bib
    page = site.get(frozen).text
    assert f'<dt>Dataset</dt><dd><a href="{walked["v2"]}">{newer}</a></dd>' in page


def test_found_by_sparql_with_its_licence_and_versions(
    site: Server, walked: dict[str, Any]
) -> None:
    query = f"""PREFIX dcat: <{DCAT}> PREFIX dct: <{DCT}>
    SELECT DISTINCT ?d ?newer WHERE {{ ?d a dcat:Dataset ; dct:license <{LICENSE}> ;
      dct:creator/<{FOAF}name> "Ann Author" . OPTIONAL {{ ?d dcat:hasVersion ?newer }} }}"""
    got = site.get(
        "sparql", params={"query": query}, headers={"Accept": "application/sparql-results+json"}
    )
    assert got.status_code == 200, got.text
    rows = {
        (b["d"]["value"], b.get("newer", {}).get("value"))
        for b in got.json()["results"]["bindings"]
    }
    assert (walked["v1"], walked["v2"]) in rows and (walked["v2"], None) in rows


def test_what_an_author_gets_wrong_is_named(site: Server) -> None:
    base = {"dataset": {"content": V1.decode()}, "systems": [{"name": "x", "answers": V1.decode()}]}
    for about, where, expected in (
        ({"license": "CC-BY-4.0"}, "$.about.license", "http(s) IRI"),
        ({"contact": "ann at example"}, "$.about.contact", "e-mail address"),
        ({"licence": LICENSE}, "$.about.licence", "not a key of about"),
        ({"creators": "Ann"}, "$.about.creators", "a list of texts"),
        ({"previousVersion": "dataset/x y"}, "$.about.previousVersion", "dataset's name"),
        # valid IRIs that name nothing on the web were published as the licence
        ({"license": "http://"}, "$.about.license", "http(s) IRI"),
        ({"license": "https:///path"}, "$.about.license", "http(s) IRI"),
        ({"knowledgeBase": "http://:8080/kb"}, "$.about.knowledgeBase", "http(s) IRI"),
        ({"contact": "https://"}, "$.about.contact", "http(s) URL"),
    ):
        got = site.post("api/experiments", json={**base, "about": about})
        assert got.status_code == 400, (about, got.text)
        assert where in got.text and expected in got.text, (about, got.text)
    # a title is a title: 5,000 characters were accepted
    got = site.post("api/experiments", json={**base, "title": "t" * 301})
    assert got.status_code == 400 and "$.title: at most 300 characters" in got.text, got.text
    # a previous version that is no published dataset here, before anything is reserved
    got = site.post("api/experiments", json={**base, "about": {"previousVersion": "birds-qa-0"}})
    assert got.status_code == 400 and "dataset/birds-qa-0 is no published" in got.text
    # questions scored on another gold are a dataset of their own
    got = site.post(
        "api/experiments",
        json={**base, "gold": {"content": V2.decode()}, "about": {"version": "3"}},
    )
    assert got.status_code == 400 and "own gold answers" in got.text, got.text
    # a catalogue dataset is the catalogue's to describe
    got = site.post(
        "api/experiments",
        json={
            "dataset": "demo",
            "about": {"version": "2"},
            "systems": [{"name": "x", "reference": "baseline"}],
        },
    )
    assert got.status_code == 400 and "$.about" in got.text and "keeps the description" in got.text
    # a mistyped form field is refused as before, naming the nearest
    got = site.post(
        "api/experiments",
        files=[("dataset_file", ("b.json", V1))],
        data={"dataset_licence": LICENSE, "reference": "baseline"},
    )
    assert got.status_code == 400 and "dataset_license" in got.text, got.text


def test_a_malformed_file_names_file_line_column_and_what_was_expected(site: Server) -> None:
    bad = V1.decode().replace('"answertype": "resource"', '"answertype": "resource",, ', 1)
    got = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "birds-v1.json", "content": bad},
            "about": ABOUT,
            "systems": [{"name": "x", "answers": V1.decode()}],
        },
    )
    assert got.status_code == 400, got.text
    line = next(n for n, text in enumerate(bad.splitlines(), start=1) if ",, " in text)
    assert f"birds-v1.json:{line}:" in got.text and "expected" in got.text.lower(), got.text


def test_the_openapi_document_and_run_page_offer_every_field(site: Server) -> None:
    from service.dataset_about import ABOUT_FIELDS

    schemas = site.get("api/openapi.json").json()["components"]["schemas"]
    assert set(schemas["Submission"]["properties"]["about"]["properties"]) == {
        f.key for f in ABOUT_FIELDS
    }
    assert {f.form_field for f in ABOUT_FIELDS} <= set(schemas["SubmissionForm"]["properties"])
    page = site.get("experiments/new").text
    for f in ABOUT_FIELDS:
        assert f'name="{f.form_field}"' in page, f.form_field


def test_a_run_on_v1_is_rescored_on_v2_and_both_stay_citable(
    site: Server, walked: dict[str, Any]
) -> None:
    team_a = walked["team_a"]
    auth = {"Authorization": f"Bearer {team_a['token']}"}
    v2_name = walked["v2"].rsplit("/", 1)[1]
    made = site.post(
        f"api/experiments/{team_a['id']}/rescore", json={"datasetVersion": v2_name}, headers=auth
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    assert state["dataset"] == walked["v2"] and state["revisionOf"] == [team_a["id"]], state
    # team A answered v2's gold: question 2 was wrong on v1, right on v2
    (system,) = state["changes"]["systems"]
    assert system["results"]["QA"]["macroF1"] == [pytest.approx(29 / 30), 1.0]
    assert [(q["question"], q["before"]["f1"], q["after"]["f1"]) for q in system["questions"]] == [
        ("2", 0.0, 1.0)
    ]
    # why, when the signatures are alike: the dataset (before, the changes did not say)
    assert system["signatureBefore"] == system["signatureAfter"]
    changes = state["changes"]
    assert (changes["datasetBefore"], changes["datasetAfter"]) == (walked["v1"], walked["v2"])
    page = site.get(f"experiment/{ticket['id']}?token={ticket['token']}", allow_redirects=True).text
    assert 'id="changes-dataset"' in page and walked["v2"] in page
    # the v1 run is unchanged, still on v1, and still ranked on v1's leaderboard
    old = site.get(f"api/experiments/{team_a['id']}").json()
    assert old["dataset"] == walked["v1"]
    rows = site.get(
        f"leaderboards?dataset={walked['v1'].rsplit('/', 1)[1]}&profile=exact&format=json"
    ).json()["rows"]
    assert "team-a" in {r["system"] for r in rows}
    # a dataset that is no newer version of v1 is refused, naming it
    refused = site.post(
        f"api/experiments/{team_a['id']}/rescore",
        json={"datasetVersion": "birds-qa-00000000"},
        headers=auth,
    )
    assert refused.status_code == 400 and "'birds-qa-00000000' is neither" in refused.text


def _newer_version(site: Server, experiment_id: str) -> tuple[str, str]:
    """The experiment page's "Newer dataset version" (its text) and the dataset version its
    rescore command names."""
    import re

    page = site.get(f"experiment/{experiment_id}").text
    (said,) = re.findall(r'<dd class="newer-version">(.*?)</dd>', page, re.S)
    (version,) = re.findall(r"--dataset-version (\S+)</code>", said)
    return said, version


def _rescore_as_the_page_says(site: Server, said: str, token: str) -> Any:
    """The API call a "Newer … version" notice gives the owner, made with ``token``."""
    import re

    (url,) = re.findall(r"<code>POST (\S+)</code>", said)
    bodies = re.findall(r"and the body <code>(.*?)</code>", said)
    body = json.loads(html.unescape(bodies[0])) if bodies else None
    return site.post(
        url.removeprefix(site.url), json=body, headers={"Authorization": f"Bearer {token}"}
    )


def test_a_run_on_v1_names_v2_as_its_newer_version_and_the_command_works(
    site: Server, walked: dict[str, Any]
) -> None:
    # before: "birds-qa-… version 2" (the old dataset's name), "its gold answers computed
    # again" (a catalogue refresh's words) and --dataset-version 2, which rescore refused
    author = walked["author"]
    v1_name, v2_name = (walked[v].rsplit("/", 1)[1] for v in ("v1", "v2"))
    said, version = _newer_version(site, author["id"])
    assert f'<a href="{walked["v2"]}">Birds QA, version 2 ({v2_name})</a>' in said, said
    assert "computed again" not in said and v1_name not in said
    assert version == v2_name
    # the owner is told the API call, which works without the operator's store (it named only
    # `gerbil-qa rescore ID --dataset-version …`, which fails without --store: explore-15 9)
    assert "its owner re-scores these answers against it" in said, said
    assert f"gerbil-qa rescore {author['id']} --store DIR --dataset-version {v2_name}" in said
    made = _rescore_as_the_page_says(site, said, author["token"])
    assert made.status_code == 202, made.text
    ticket = made.json()
    assert site.wait_finished(ticket["id"], ticket["token"])["dataset"] == walked["v2"]


def test_a_withdrawn_v1_says_so_and_its_run_is_rescored_on_v2(site: Server) -> None:
    # before: v1's page read "not checked yet: it is checked when first used" with its name
    # for a title, and the rescore its run's page offered was refused ("no published newer
    # version") once that run was withdrawn
    v1 = _run(
        site,
        {
            "dataset": {"content": V1.replace(b'"birds-qa"', b'"fish-qa"').decode()},
            "title": "Fish QA",
            "about": {"version": "1", "creators": ["Fay Fisher"]},
            "profile": "exact",
            "systems": [{"name": "fish-1", "answers": bird_answers(1).decode()}],
        },
    )
    v1_name = v1["dataset"].rsplit("/", 1)[1]
    v2 = _run(
        site,
        {
            "dataset": {"content": V2.replace(b'"birds-qa"', b'"fish-qa"').decode()},
            "title": "Fish QA",
            "about": {"version": "1.1", "previousVersion": v1_name},
            "profile": "exact",
            "systems": [{"name": "fish-2", "answers": bird_answers(1).decode()}],
        },
        headers={"Authorization": f"Bearer {v1['token']}"},
    )
    auth = {"Authorization": f"Bearer {v1['token']}"}
    gone = site.post(
        f"api/experiments/{v1['id']}/withdraw", json={"reason": "superseded"}, headers=auth
    )
    assert gone.status_code == 200, gone.text
    page = site.get(f"dataset/{v1_name}")
    assert page.status_code == 200  # v2 still links it as its previous version
    assert "<h1>Fish QA</h1>" in page.text
    assert 'id="withdrawn-runs"' in page.text and "superseded" in page.text
    assert f'href="{v1["uri"]}">experiment {v1["id"]}</a>' in page.text
    assert "first used" not in page.text and "not checked yet" not in page.text
    assert 'id="run-on-it"' not in page.text  # it is run by its name no more
    # it points to its newer version, and its property table names that by its title
    v2_name = v2["dataset"].rsplit("/", 1)[1]
    assert f'<a href="{v2["dataset"]}">Fish QA, version 1.1 ({v2_name})</a>' in page.text
    assert f'title="{v2["dataset"]}">Fish QA, version 1.1 ({v2_name})</a>' in page.text
    # cited as it was published, saying it was withdrawn (before: by "GERBIL QA", no year)
    bib = " ".join(site.get(f"dataset/{v1_name}.bib").text.split())
    assert (
        "author = {{Fay Fisher}}" in bib and "year = {2026}" in bib and "note = {Version 1" in bib
    )
    assert f"withdrawn on {gone.json()['withdrawnAt'][:10]}: superseded; newer version" in bib
    assert f"Fish QA, version 1.1 ({v2_name})" in bib, bib
    # the withdrawn run's page names v2 and its command is accepted
    said, version = _newer_version(site, v1["id"])
    assert "Fish QA, version 1.1" in said and version == v2["dataset"].rsplit("/", 1)[1]
    made = site.post(
        f"api/experiments/{v1['id']}/rescore", json={"datasetVersion": version}, headers=auth
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    assert site.wait_finished(ticket["id"], ticket["token"])["dataset"] == v2["dataset"]


def test_a_published_upload_is_cited_as_its_author_described_it_whichever_runs_remain(
    site: Server,
) -> None:
    # explore-11 19: a joined run's graph restated only the licence, so another team's run
    # cited the dataset without its version, and once the author's run was withdrawn (the
    # team's keeping the dataset public) it was cited as "GERBIL QA", unversioned, and its
    # withdrawn older version (linked only by the withdrawn graph) answered 404
    from service.graph.checks import check_store

    def bib(path: str) -> str:
        return " ".join(site.get(path + ".bib").text.split())

    owls = V1.replace(b'"birds-qa"', b'"owls-qa"')
    first = _run(
        site,
        {
            "dataset": {"content": owls.decode()},
            "title": "Owls QA",
            "about": {"version": "v6", "creators": ["Fay Fisher"]},
            "profile": "exact",
            "systems": [{"name": "owl-0", "answers": bird_answers(1).decode()}],
        },
    )
    v1_name = first["dataset"].rsplit("/", 1)[1]
    newer = V2.replace(b'"birds-qa"', b'"owls-qa"')
    about = {**ABOUT, "version": "v7", "previousVersion": v1_name, "creatorType": "Company"}
    author = _run(
        site,
        {
            "dataset": {"content": newer.decode()},
            "title": "Owls QA",
            "about": about,
            "profile": "exact",
            "systems": [{"name": "owl-sys", "answers": bird_answers(1).decode()}],
        },
        headers={"Authorization": f"Bearer {first['token']}"},
    )
    ds, name = author["dataset"], author["dataset"].rsplit("/", 1)[1]
    by_name = _run(
        site,
        {
            "dataset": name,
            "profile": "exact",
            "systems": [{"name": "team-y", "answers": bird_answers(2).decode()}],
        },
    )
    by_file = _run(
        site,
        files=[("dataset_file", ("owls.json", newer)), ("answers", ("z.json", bird_answers(3)))],
        data={"profile": "exact"},
    )
    # a run recorded on it names its version before it is published too (its owner's page)
    made = site.post(
        "api/experiments",
        files=[("dataset_file", ("owls.json", newer)), ("answers", ("w.json", bird_answers(4)))],
        data={"profile": "exact"},
    )
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    private = site.get(
        f"experiment/{ticket['id']}.bib", headers={"Authorization": f"Bearer {ticket['token']}"}
    )
    assert private.status_code == 200, private.text
    assert f"({name}), version v7;" in " ".join(private.text.split())
    cited = "author = {{Ann Author} and {Bo Coauthor}}"
    for run in (author, by_name, by_file):
        assert f"Owls QA ({name}), version v7;" in bib(f"experiment/{run['id']}"), run["id"]
    assert cited in bib(f"dataset/{name}") and "note = {Version v7" in bib(f"dataset/{name}")
    for run in (first, author):
        auth = {"Authorization": f"Bearer {run['token']}"}
        gone = site.post(
            f"api/experiments/{run['id']}/withdraw", json={"reason": "x"}, headers=auth
        )
        assert gone.status_code == 200, gone.text
    # the teams' runs keep it public: still its authors', versioned, described as before
    entry = bib(f"dataset/{name}")
    assert cited in entry and "note = {Version v7" in entry and "GERBIL QA" not in entry, entry
    for run in (by_name, by_file):
        assert f"Owls QA ({name}), version v7;" in bib(f"experiment/{run['id']}"), run["id"]
    g = _graph(site, ds)
    node = rdflib.URIRef(ds)
    assert str(g.value(node, DCT.description)) == ABOUT["description"]
    assert str(g.value(rdflib.URIRef(f"{ds}#contact"), VCARD.fn)) == ABOUT["contact"]
    assert (node, DCAT.previousVersion, rdflib.URIRef(first["dataset"])) in g
    older = site.get(f"dataset/{v1_name}")
    assert older.status_code == 200 and "Owls QA" in older.text
    assert "author = {{Fay Fisher}}" in bib(f"dataset/{v1_name}")
    # every graph restating it says the same (one value each in the public union), and
    # passes our shapes
    union = site.storage.store.public
    for subject, predicate in (
        (ds, DCAT.version),
        (ds, DCT.license),
        (ds, DCT.description),
        (ds, DCT.publisher),
        (f"{ds}#creator-1", FOAF.name),
        (f"{ds}#creator-2", FOAF.name),
        (f"{ds}#contact", VCARD.fn),
    ):
        values = union.query(
            f"SELECT DISTINCT ?o WHERE {{ GRAPH ?g {{ <{subject}> <{predicate}> ?o }} }}"
        )
        assert len(list(values)) == 1, (subject, predicate)
    ours = [r["id"] for r in (first, author, by_name, by_file)]
    assert [str(v) for v in check_store(site.storage) if any(i in str(v) for i in ours)] == []


@pytest.mark.browser
def test_the_run_page_records_what_the_author_says(
    site: Server, browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from tests.web.test_browser import check_accessibility, severe_logs, shot, visit

    folder = tmp_path_factory.mktemp("browser-author")
    dataset = folder / "birds-browser.json"
    dataset.write_bytes(V1.replace(b'"birds-qa"', b'"birds-browser"'))
    answers = folder / "team-c.json"
    answers.write_bytes(bird_answers(3))
    browser.delete_all_cookies()
    visit(browser, site.url + "experiments/new", "author-run-page")
    browser.find_element(By.ID, "run-dataset-file").send_keys(str(dataset))
    browser.find_element(By.CSS_SELECTOR, "#run-about summary").click()
    fields = {
        "run-dataset_description": "Birds, as typed in a browser.",
        "run-dataset_license": LICENSE,
        "run-dataset_creator": "Ann Author\nBo Coauthor",
        "run-dataset_contact": "https://example.org/birds/issues",
        "run-dataset_kb_version": "birds-kb 2026-11",
    }
    for field, value in fields.items():
        browser.find_element(By.ID, field).send_keys(value)
    check_accessibility(browser)
    browser.find_element(By.ID, "run-answers").send_keys(str(answers))
    Select(browser.find_element(By.ID, "run-kb")).select_by_value("birds")
    Select(browser.find_element(By.ID, "run-profile")).select_by_value("exact")
    experiment_id, token = _submit_run(browser)
    state = site.wait_finished(experiment_id, token)
    auth = {"Authorization": f"Bearer {token}"}
    assert site.post(f"api/experiments/{experiment_id}/publish", headers=auth).status_code == 200
    visit(browser, state["dataset"], "author-dataset-page")
    text = browser.find_element(By.TAG_NAME, "main").text
    for said in ("Birds, as typed in a browser.", "Ann Author", "Bo Coauthor", "birds-kb 2026-11"):
        assert said in text, said
    assert browser.find_elements(By.CSS_SELECTOR, f'a[href="{LICENSE}"]')
    shot(browser, "author-dataset-page")
    assert severe_logs(browser) == []


@pytest.mark.browser
def test_a_browser_finds_the_published_upload_and_runs_on_it(
    site: Server, walked: dict[str, Any], browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # before: the run page listed the catalogue only (not in the list, the search box or
    # ?dataset=NAME), so a second team downloaded the author's file and uploaded it again
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from tests.web.test_browser import severe_logs, visit, wait_until

    name = walked["v1"].rsplit("/", 1)[1]
    answers = tmp_path_factory.mktemp("browser-by-name") / "team-f.json"
    answers.write_bytes(bird_answers(2))
    browser.delete_all_cookies()
    visit(browser, walked["v1"], "upload-dataset-page")
    browser.find_element(By.CSS_SELECTOR, "#run-on-it a").click()  # its page links the form
    wait_until(browser, lambda d: d.find_elements(By.ID, "run-dataset"))
    chosen = Select(browser.find_element(By.ID, "run-dataset")).first_selected_option
    assert chosen.get_attribute("value") == name
    visit(browser, site.url + "experiments/new", "run-page-uploads")
    group = browser.find_element(By.CSS_SELECTOR, 'optgroup[label="Uploaded datasets"]')
    said = f"Birds QA, version 1 ({name}) (30 questions; de, en"
    assert said in group.get_attribute("textContent")
    browser.find_element(By.ID, "dataset-search").send_keys(name)
    select = Select(browser.find_element(By.ID, "run-dataset"))
    assert select.first_selected_option.get_attribute("value") == name
    browser.find_element(By.ID, "run-answers").send_keys(str(answers))
    browser.find_element(By.ID, "run-answers-name").send_keys("team-f")
    Select(browser.find_element(By.ID, "run-kb")).select_by_value("birds")
    Select(browser.find_element(By.ID, "run-profile")).select_by_value("exact")
    experiment_id, token = _submit_run(browser)
    state = site.wait_finished(experiment_id, token)
    assert state["status"] == "finished" and state["dataset"] == walked["v1"], state
    # the shared task's title chooses its newest version, not v1 listed first (explore-20 7),
    # and v1 chosen by its name is said to be an old one
    visit(browser, site.url + "experiments/new", "run-page-uploads")
    browser.find_element(By.ID, "dataset-search").send_keys("birds qa")
    picked = Select(browser.find_element(By.ID, "run-dataset")).first_selected_option
    assert picked.get_attribute("value") != name and not picked.get_attribute("data-newer")
    visit(browser, site.url + "experiments/new", "run-page-uploads")
    browser.find_element(By.ID, "dataset-search").send_keys(name)
    status = browser.find_element(By.ID, "dataset-search-status").text
    assert f"chosen: {name}, an old version (its newer one: " in status, status
    assert severe_logs(browser) == []


def test_the_compare_page_compares_answer_files_on_a_published_upload(
    site: Server, walked: dict[str, Any]
) -> None:
    name = walked["v1"].rsplit("/", 1)[1]
    form = site.get(f"compare?dataset={name}")
    assert form.status_code == 200
    chosen = rf'<option value="{name}" selected[^>]*>Birds QA, version 1 \({name}\)'
    assert re.search(chosen, form.text), form.text
    compared = site.post(
        "compare",
        data={"dataset": name, "profile": "exact", "answers_name": "one\ntwo"},
        files=[("answers", ("a.json", bird_answers(1))), ("answers", ("b.json", bird_answers(2)))],
    )
    # before: the form's name was looked up in the built-in catalogue only (a 404)
    assert compared.status_code == 200, compared.text
    assert 'id="result"' in compared.text and "one" in compared.text


def test_an_about_on_published_bytes_is_refused_naming_the_dataset(
    site: Server, walked: dict[str, Any]
) -> None:
    # a team that uploads the author's file with another licence and description: the dataset
    # would have said two of each (and DCAT-AP allows a dataset one licence)
    made = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "copy.json", "content": V1.decode()},
            "about": {
                "license": "https://opensource.org/licenses/MIT",
                "description": "Not the author's words.",
            },
            "profile": "exact",
            "systems": [{"name": "team-d", "answers": bird_answers(2).decode()}],
        },
    )
    name = walked["v1"].rsplit("/", 1)[1]
    assert made.status_code == 400, made.text
    said = made.json()
    assert said["error"].startswith("about")
    assert f"copy.json is the published dataset {name}" in said["error"]
    assert "first publisher's" in said["error"] and f"previousVersion {name}" in said["error"]
    # without about it runs on that dataset, its own file under the published licence
    late = _run(
        site,
        {
            "dataset": {"filename": "copy.json", "content": V1.decode()},
            "profile": "exact",
            "systems": [{"name": "team-d", "answers": bird_answers(2).decode()}],
        },
    )
    # its one note: v1 has a newer version (nothing of its description or title)
    assert late["dataset"] == walked["v1"] and len(late["notes"]) == 1, late["notes"]
    assert late["notes"][0].startswith(f"the dataset {name} has a newer version, Birds QA")
    g = _graph(site, walked["v1"])
    v1 = rdflib.URIRef(walked["v1"])
    assert list(g.objects(v1, DCT.license)) == [rdflib.URIRef(LICENSE)]
    assert [str(d) for d in g.objects(v1, DCT.description)] == [ABOUT["description"]]
    mine = [d for d in g.objects(v1, DCAT.distribution) if late["id"] in str(d)]
    assert mine and g.value(mine[0], DCT.license) == rdflib.URIRef(LICENSE)


def _citation(site: Server, dataset: str) -> str:
    import html
    import re

    page = site.get(dataset.replace(site.url, "")).text
    return html.unescape(re.search(r'id="dataset-citation-text">(.*?)</p>', page, re.S)[1])


def _said_of(site: Server, dataset: str) -> dict[str, set[str]]:
    """What the public description of ``dataset`` says with each predicate (explore-7 1)."""
    g = _graph(site, dataset)
    ds = rdflib.URIRef(dataset)
    return {
        str(p): {str(o) for o in g.objects(ds, p)}
        for p in (
            DCT.title,
            DCT.creator,
            DCT.publisher,
            DCT.license,
            DCT.description,
            DCAT.version,
            DCAT.contactPoint,
        )
    }


STRANGER = {
    "description": "Demo birds",
    "license": LICENSE,
    "creators": ["Mallory", "Eve"],
    "creatorType": "Academia-ScientificOrganisation",
    "contact": "birds@example.org",
    "version": "1",
}


def test_a_stranger_cannot_describe_a_dataset_published_without_description(
    site: Server,
) -> None:
    """explore-7 1: the demo dataset (published with no ``about``) came to cite whoever
    uploaded its bytes next with one, as its creator, publisher and licensor."""
    body = V1.replace(b'"birds-qa"', b'"birds-demo-like"').decode()
    systems = [{"name": "demo", "answers": bird_answers(1).decode()}]
    first = _run(
        site,
        {
            "dataset": {"filename": "demo.json", "content": body},
            "profile": "exact",
            "systems": systems,
        },
    )
    before, cited = _said_of(site, first["dataset"]), _citation(site, first["dataset"])
    name = first["dataset"].rsplit("/", 1)[1]
    made = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "birds.json", "content": body},
            "title": "Birds QA",
            "about": STRANGER,
            "profile": "exact",
            "systems": systems,
        },
    )
    assert made.status_code == 400 and name in made.json()["error"], made.text
    # a title alone is accepted, and its owner told that the dataset keeps its own
    renamed = _run(
        site,
        {
            "dataset": {"filename": "birds.json", "content": body},
            "title": "Birds QA",
            "profile": "exact",
            "systems": systems,
        },
    )
    assert renamed["dataset"] == first["dataset"]
    assert any('"Birds QA", was not used' in n and name in n for n in renamed["notes"])
    page = site.get(f"experiment/{renamed['id']}").text
    assert "was not used" in page
    assert _said_of(site, first["dataset"]) == before
    assert _citation(site, first["dataset"]) == cited and "Mallory" not in cited


def test_a_run_joining_a_published_dataset_at_publication_adds_nothing_of_its_own(
    site: Server,
) -> None:
    """Two runs on one file recorded while neither was public (no refusal could be known):
    the first published without ``about``, the second (another title, a stranger's
    ``about``) joins it; under the same title too (then both had the same name)."""
    import html

    for title, suffix in (("Stranger QA", "join-renamed"), (None, "join-same-name")):
        body = V1.replace(b'"birds-qa"', f'"birds-{suffix}"'.encode()).decode()
        tickets = []
        for about in ({}, STRANGER):
            dataset: dict[str, Any] = {"filename": "demo.json", "content": body}
            made = site.post(
                "api/experiments",
                json={
                    "dataset": dataset,
                    **({"title": title} if about and title else {}),
                    **({"about": about} if about else {}),
                    "profile": "exact",
                    "systems": [{"name": "demo", "answers": bird_answers(1).decode()}],
                },
            )
            assert made.status_code == 202, made.text
            ticket = made.json()
            site.wait_finished(ticket["id"], ticket["token"])
            tickets.append(ticket)
        for n, ticket in enumerate(tickets):
            auth = {"Authorization": f"Bearer {ticket['token']}"}
            published = site.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
            assert published.status_code == 200, published.text
            if n == 0:
                first = site.get(f"api/experiments/{ticket['id']}").json()["dataset"]
                before, cited = _said_of(site, first), _citation(site, first)
        second = site.get(f"api/experiments/{tickets[1]['id']}").json()
        assert second["dataset"] == first
        assert _said_of(site, first) == before, suffix
        assert _citation(site, first) == cited and "Mallory" not in cited
        notes = " ".join(second["notes"])
        assert "description is its first publisher's" in notes and "previousVersion" in notes
        # what this run said, by its keys, not a list of what it may not have given
        assert "(about: description, license, creators, contact, version)" in notes, notes
        assert ('"Stranger QA", was not used' in notes) == bool(title)
        page = html.unescape(site.get(f"experiment/{tickets[1]['id']}").text)
        assert "description is its first publisher's" in page


def test_the_dataset_page_says_how_to_cite_it(site: Server, walked: dict[str, Any]) -> None:
    import html
    import re

    page = site.get(walked["v1"].replace(site.url, "")).text
    bibtex = html.unescape(re.search(r'id="dataset-citation-bibtex">(.*?)</pre>', page, re.S)[1])
    assert bibtex.startswith("@misc{gerbilqa-dataset-birds-qa-")
    assert "author = {{Ann Author} and {Bo Coauthor}}" in bibtex
    assert "title = {{Birds QA}}" in bibtex and "note = {Version 1" in bibtex
    assert f"url = {{{walked['v1']}}}" in bibtex
    # the year it was first uploaded (its first experiment's id begins with the date): an
    # upload's description has no dct:issued, so its citation had no year
    first = min(re.findall(r"/experiment/(\d{12})#file-", page))
    assert f"year = {{{first[:4]}}}" in bibtex
    text = html.unescape(re.search(r'id="dataset-citation-text">(.*?)</p>', page, re.S)[1])
    said = f"Ann Author, Bo Coauthor ({first[:4]}). Birds QA, version 1. {walked['v1']}"
    v2_name = walked["v2"].rsplit("/", 1)[1]
    assert text == f"{said}. Newer version Birds QA, version 2 ({v2_name})"  # explore-17b 4
    depth = 0  # braces balanced: LaTeX reads the entry to its end
    for char in bibtex:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0
    assert depth == 0
    # a catalogue dataset is cited by its publisher's name
    catalogue = site.get("dataset/qald-9-test-multilingual").text
    assert "author = {{Semantic Computing Group, Bielefeld University (QALD organisers)}}" in (
        html.unescape(catalogue)
    )


def test_a_dataset_has_a_bib_download_and_its_key_stays(
    site: Server, walked: dict[str, Any]
) -> None:
    """The page showed a BibTeX block, but ``dataset/NAME.bib`` was a 404 and ``Accept:
    application/x-bibtex`` a 406, where experiments and frozen leaderboards have both
    (explore-7 2): now the page's entry is the download, and its key stays across reloads and
    a later publication on the dataset."""
    import html
    import re

    path = walked["v1"].replace(site.url, "")
    page = site.get(path).text
    shown = html.unescape(re.search(r'id="dataset-citation-bibtex">(.*?)</pre>', page, re.S)[1])
    bib = site.get(f"{path}.bib")
    assert bib.status_code == 200 and bib.headers["Content-Type"].startswith("application/x-bibtex")
    name = path.rsplit("/", 1)[1]
    assert bib.headers["Content-Disposition"] == f'attachment; filename="{name}.bib"'
    assert bib.text == shown + "\n"
    negotiated = site.get(path, headers={"Accept": "application/x-bibtex"})
    assert negotiated.status_code == 200 and negotiated.text == bib.text
    assert f'href="{walked["v1"]}.bib"' in page  # offered with the page's other formats
    key = bib.text.split(",", 1)[0]
    assert key == f"@misc{{gerbilqa-dataset-{name}"
    _run(
        site,
        files=[("dataset_file", ("birds.json", V1)), ("answers", ("team-c.json", bird_answers(2)))],
        data={"kb": "birds", "profile": "exact"},
    )
    assert site.get(f"{path}.bib").text == bib.text
    catalogue = site.get("dataset/qald-9-test-multilingual.bib")
    assert catalogue.status_code == 200
    assert catalogue.text.startswith("@misc{gerbilqa-dataset-qald-9-test-multilingual,\n")


def test_others_run_the_published_dataset_by_its_name(site: Server, walked: dict[str, Any]) -> None:
    # before: "no dataset named …" (only catalogue names were known), so every team had to
    # download the file and upload it again
    name = walked["v1"].rsplit("/", 1)[1]
    by_name = _run(
        site,
        {
            "dataset": name,
            "profile": "exact",
            "systems": [{"name": "team-e", "answers": bird_answers(1).decode()}],
        },
    )
    assert by_name["dataset"] == walked["v1"]
    rows = site.get(f"leaderboards?dataset={name}&profile=exact&format=json").json()["rows"]
    assert "team-e" in {r["system"] for r in rows}
    # a name no dataset has is refused as before, naming the nearest
    got = site.post(
        "api/experiments",
        json={"dataset": "birds-qa-00000000", "systems": [{"name": "x", "answers": V1.decode()}]},
    )
    assert got.status_code in (400, 404) and "birds-qa-00000000" in got.text, got.text
    # it says where names come from now (it said "no built-in dataset" only), and a mistyped
    # catalogue name is named
    assert "nor a published uploaded dataset of this store" in got.json()["error"]
    typo = site.post(
        "api/experiments",
        json={"dataset": "qald-9-tset-multilingual", "systems": [{"name": "x", "answers": "{}"}]},
    )
    assert "did you mean 'qald-9-test-multilingual'?" in typo.json()["error"], typo.text
    # a published upload's name misspelt is named too (before: no suggestion among uploads)
    typo = site.post(
        "api/experiments",
        json={"dataset": "brids" + name[5:], "systems": [{"name": "x", "answers": "{}"}]},
    )
    assert typo.status_code == 404 and f"did you mean {name!r}?" in typo.text, typo.text


def test_the_api_lists_published_uploads_after_the_catalogue(
    site: Server, walked: dict[str, Any]
) -> None:
    rows = site.get("api/datasets").json()["datasets"]
    uploaded = {r["uri"]: r for r in rows if r["uploaded"]}
    assert {walked["v1"], walked["v2"]} <= set(uploaded)
    v1 = uploaded[walked["v1"]]
    assert (v1["name"], v1["title"], v1["questions"]) == (
        walked["v1"].rsplit("/", 1)[1],
        "Birds QA",
        30,
    )
    assert v1["languages"] == ["de", "en"]
    # the KB the author named, with its version (before: the version alone, "birds-kb 2026-11",
    # where a catalogue row names its KB); the catalogue's rows as they were (explore-15 6)
    said = "http://example.org/birds (birds-kb 2026-11)"
    assert (v1["knowledgeBase"], v1["knowledgeBaseIri"]) == (said, "http://example.org/birds")
    qald = next(r for r in rows if r["name"] == "qald-9-test-multilingual")
    assert not qald["uploaded"] and qald["knowledgeBase"] == "DBpedia 2016-10"
    assert qald["knowledgeBaseIri"] == "http://dbpedia.org"
    table = {r["dataset"]: r for r in csv.DictReader(io.StringIO(site.get("catalog.csv").text))}
    assert table[walked["v1"]]["knowledgeBase"] == said
    assert table[walked["v1"]]["knowledgeBaseIri"] == "http://example.org/birds"
    assert table[qald["uri"]]["knowledgeBase"] == "DBpedia 2016-10"
    page = html.unescape(site.get("catalog", headers={"Accept": "text/html"}).text)
    assert f"<td>{said}</td>" in page and "<td>DBpedia 2016-10</td>" in page
    # two versions of one title are told apart by their version labels (explore-15: two
    # "Birds QA" rows alike)
    v2 = uploaded[walked["v2"]]
    assert (v1["version"], v2["version"]) == ("1", "2") and qald["version"] is None
    assert "<td>Birds QA, version 1</td>" in page and "<td>Birds QA, version 2</td>" in page
    assert table[walked["v2"]]["version"] == "2"
    # a catalogue entry never comes after an upload
    kinds = [r["uploaded"] for r in rows]
    assert kinds == sorted(kinds)
    # the listing is cached until the next public write: a publication shows at once
    late = _run(
        site,
        {
            "dataset": {"content": V1.replace(b'"birds-qa"', b'"birds-late"').decode()},
            "profile": "exact",
            "systems": [{"name": "late", "answers": bird_answers(1).decode()}],
        },
    )
    again = site.get("api/datasets").json()["datasets"]
    assert late["dataset"] in {r["uri"] for r in again if r["uploaded"]}


def test_an_unpublished_upload_is_neither_listed_nor_run_by_name(site: Server) -> None:
    private = V1.replace(b'"birds-qa"', b'"birds-private"')
    made = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "p.json", "content": private.decode()},
            "about": {"license": LICENSE, "creators": ["Secret Author"]},
            "profile": "exact",
            "systems": [{"name": "p", "answers": bird_answers(1).decode()}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    name = state["dataset"].rsplit("/", 1)[1]
    assert name.startswith("birds-private-")
    listed = site.get("api/datasets").text
    assert name not in listed and "Secret Author" not in listed
    got = site.post(
        "api/experiments",
        json={"dataset": name, "systems": [{"name": "x", "answers": V1.decode()}]},
    )
    assert got.status_code in (400, 404) and "p.json" not in got.text, got.text
    page = site.get(f"dataset/{name}")
    assert page.status_code == 404 and "Secret Author" not in page.text


def test_a_title_names_the_dataset_in_ascii_and_a_blank_one_is_none(site: Server) -> None:
    # "Żółw pytań" made "żółw-pytań-…", a name neither "dataset": NAME nor previousVersion
    # took; "   " was published as the dataset's dct:title
    base = {"profile": "exact", "systems": [{"name": "p", "answers": bird_answers(1).decode()}]}
    polish = V1.replace(b'"birds-qa"', b'"birds-pl"')
    first = _run(site, {**base, "dataset": {"content": polish.decode()}, "title": "Żółw – pytań"})
    name = first["dataset"].rsplit("/", 1)[1]
    assert name.startswith("zolw-pytan-"), name
    by_name = _run(site, {**base, "dataset": name})
    assert by_name["dataset"] == first["dataset"]
    newer = V2.replace(b'"birds-qa"', b'"birds-pl"')
    v2 = _run(
        site,
        {**base, "dataset": {"content": newer.decode()}, "about": {"previousVersion": name}},
        headers={"Authorization": f"Bearer {first['token']}"},
    )
    assert (DCAT.previousVersion, rdflib.URIRef(first["dataset"])) in _graph(
        site, v2["dataset"]
    ).predicate_objects(rdflib.URIRef(v2["dataset"]))
    blank = V1.replace(b'"birds-qa"', b'"birds-blank"')
    untitled = _run(site, {**base, "dataset": {"content": blank.decode()}, "title": "   "})
    assert untitled["dataset"].rsplit("/", 1)[1].startswith("birds-blank-")
    uri = rdflib.URIRef(untitled["dataset"])
    assert [str(t) for t in _graph(site, untitled["dataset"]).objects(uri, DCT.title)] == [
        "birds-blank"
    ]


def test_an_xml_upload_says_its_file_type(site: Server) -> None:
    # QALD-XML is read as text/xml, which the file-type table lacked: no dct:format
    from service.formats import qald_json, qald_xml
    from service.formats.base import Source

    xml = qald_xml.write(qald_json.read(Source(V1.replace(b'"birds-qa"', b'"birds-xml"'))))
    done = _run(
        site,
        files=[("dataset_file", ("birds.xml", xml)), ("answers", ("a.json", bird_answers(1)))],
        data={"kb": "birds", "profile": "exact"},
    )
    g = _graph(site, done["dataset"])
    formats = {
        g.value(d, DCT["format"])
        for d in g.objects(rdflib.URIRef(done["dataset"]), DCAT.distribution)
    }
    assert formats == {
        rdflib.URIRef("http://publications.europa.eu/resource/authority/file-type/XML")
    }


def _submit_run(browser) -> tuple[str, str]:
    """The run form submitted: the experiment's id and owner token, from the page it leads to."""
    from selenium.webdriver.common.by import By

    from tests.web.test_browser import wait_until

    browser.find_element(By.ID, "run-submit").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "token-notice"))
    link = browser.find_element(By.ID, "owner-link").get_attribute("value")
    uri, token = link.split("?token=", 1)
    return uri.rsplit("/", 1)[-1], token


def test_the_dataset_page_names_its_creators_and_language(
    site: Server, walked: dict[str, Any]
) -> None:
    # the description table showed …#creator-1 and …/language/ENG where its data names them
    import html
    import re

    page = html.unescape(site.get(walked["v1"].replace(site.url, "")).text)
    table = page.split('<table class="properties">', 1)[1].split("</table>", 1)[0]
    rows = dict(re.findall(r'title="[^"]*">(\w+)</a></th>\s*<td>(.*?)</td>', table, re.S))
    for name in ABOUT["creators"]:
        assert f'title="{walked["v1"]}#creator-' in rows["creator"]
        assert f">{name}</a>" in rows["creator"], rows["creator"]
    # in the order given, as the citation names them (the table listed Bo Coauthor first)
    named = re.findall(r">([^<]+)</a>", rows["creator"])
    assert named == ABOUT["creators"], named


def test_many_creators_are_listed_in_the_order_given(site: Server) -> None:
    """The store lists a dataset's creators in its own order (Bo Coauthor before Ann Author,
    explore-15 11e): the page's table lists them as given, #creator-10 after #creator-9."""
    import html
    import re

    names = [f"Author {chr(ord('A') + k)}" for k in range(12)]
    run = _run(
        site,
        {
            "dataset": {"content": V1.replace(b'"birds-qa"', b'"birds-crowd"').decode()},
            "about": {"creators": names},
            "profile": "exact",
            "systems": [{"name": "p", "answers": bird_answers(1).decode()}],
        },
    )
    page = html.unescape(site.get(run["dataset"].replace(site.url, "")).text)
    table = page.split('<table class="properties">', 1)[1].split("</table>", 1)[0]
    rows = dict(re.findall(r'title="[^"]*">(\w+)</a></th>\s*<td>(.*?)</td>', table, re.S))
    assert re.findall(r">([^<]+)</a>", rows["creator"]) == names, rows["creator"]
    assert ", ".join(names) + " (" in page  # the citation's order, as it was
    assert ">English</a>" in rows["language"], rows["language"]


def test_an_improved_v1_run_is_rescored_onto_v2_in_place_of_its_first_runs(site: Server) -> None:
    """explore-17b 7: a team's run on v1 was re-scored onto v2 (R), then the team improved it on
    v1 (a resubmission). Re-scoring the improved run onto v2, as its page offers, was refused
    ("re-score R instead"), and re-scoring R was refused too (it is on v2 already). Now the
    improved answers are re-scored onto v2 as a revision of R, which they replace there; older
    answers still do not displace newer ones, and that refusal names a step that works."""

    def owls(version: bytes) -> str:
        return version.replace(b'"birds-qa"', b'"owl-qa"').decode()

    def rows(dataset: str) -> set[tuple[str, str]]:
        name = dataset.rsplit("/", 1)[1]
        found = site.get(f"leaderboards?dataset={name}&profile=exact&format=json").json()["rows"]
        return {(r["experiment"].rsplit("/", 1)[1], r["system"]) for r in found}

    def published(ticket: dict[str, Any]) -> dict[str, Any]:
        state = site.wait_finished(ticket["id"], ticket["token"])
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        made = site.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
        assert made.status_code == 200, made.text
        return state

    first = _run(
        site,
        {
            "dataset": {"content": owls(V1)},
            "title": "Owl QA",
            "about": {"version": "1"},
            "profile": "exact",
            "systems": [{"name": "owls", "answers": bird_answers(3).decode()}],
        },
    )
    v1, v1_name = first["dataset"], first["dataset"].rsplit("/", 1)[1]
    v2 = _run(
        site,
        {
            "dataset": {"content": owls(V2)},
            "title": "Owl QA",
            "about": {"version": "2", "previousVersion": v1_name},
            "profile": "exact",
            "systems": [{"name": "owl-author", "answers": bird_answers(1).decode()}],
        },
        headers={"Authorization": f"Bearer {first['token']}"},
    )["dataset"]
    v2_name = v2.rsplit("/", 1)[1]
    mine = {"Authorization": f"Bearer {first['token']}"}
    moved = site.post(
        f"api/experiments/{first['id']}/rescore", json={"datasetVersion": v2_name}, headers=mine
    )
    assert moved.status_code == 202, moved.text
    r = moved.json()
    published(r)
    improved = _run(
        site,
        {
            "dataset": v1_name,
            "revisionOf": first["id"],
            "profile": "exact",
            "systems": [{"name": "owls", "answers": bird_answers(1).decode()}],
        },
        headers=mine,
    )
    assert ("owls" in {s for _, s in rows(v1)}) and (improved["id"], "owls") in rows(v1)
    assert (r["id"], "owls") in rows(v2)

    # the re-scoring the improved run's page offers is accepted, as a revision of R
    said, version = _newer_version(site, improved["id"])
    assert version == v2_name
    # and its page names R as what that re-scoring revises, as the API does (explore42 1)
    assert f'class="rescore-revises">experiment {r["id"]}</a>, not of this one' in said, said
    # its re-score page says what the API does: a revision of R, not of the improved run,
    # whose rows stay on v1 (it said "revises this one … its rows take this one's place":
    # explore42 1)
    owner = requests.Session()
    owner.cookies.set(f"gqa_owner_{improved['id']}", improved["token"])
    form = owner.get(
        f"{site.url}experiment/{improved['id']}/rescore?datasetVersion={v2_name}", timeout=30
    ).text
    assert 'id="rescore-form"' in form
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", "", form)).split())
    assert f"revises experiment {r['id']} (prov:wasRevisionOf), not this one" in words, words
    assert "its rows take this one's place" not in words
    made = _rescore_as_the_page_says(site, said, improved["token"])
    assert made.status_code == 202, made.text
    x = made.json()
    assert x["revisionOf"] == r["id"] and improved["id"] in x["note"], x
    assert x["note"] in words, (x["note"], words)  # the API's note, word for word
    state = published(x)
    assert state["dataset"] == v2 and state["revisionOf"] == [r["id"]], state
    # what changed since R: the improved answers, on the same dataset
    (system,) = state["changes"]["systems"]
    assert "datasetAfter" not in state["changes"] and system["questions"], state["changes"]
    owls_on_v2 = {e for e, s in rows(v2) if s == "owls"}
    assert owls_on_v2 == {x["id"]}, rows(v2)  # R stays, as history, off the board
    assert (improved["id"], "owls") in rows(v1)  # v1's board keeps the improved run

    # the first run's page no longer offers the re-scoring onto v2 it has (R, a 409): it names R
    page = site.get(f"experiment/{first['id']}").text
    assert f'class="rescored-on-it">experiment {r["id"]}</a>' in page
    assert f'"datasetVersion": "{v2_name}"' not in html.unescape(page)
    # R's page: the same answers on the newer version, the run on v1 standing on v1
    said_r = " ".join(site.get(f"experiment/{r['id']}").text.split())
    assert f"scores the answers of experiment {first['id']} on another version" in said_r
    assert "This experiment replaces" not in said_r
    # X's page: it does replace R
    assert (
        f"This experiment replaces experiment {r['id']}." in site.get(f"experiment/{x['id']}").text
    )
    # X names the run whose answers it scores (its notes, page, RDF), and that run's page
    # names X instead of offering the re-scoring again, which is refused naming X (explore-20 1)
    x_state = site.get(f"api/experiments/{x['id']}").json()
    assert any(f"answers of experiment {improved['id']}" in n for n in x_state["notes"])
    x_rdf = rdflib.Graph().parse(
        data=site.get(f"experiment/{x['id']}", headers={"Accept": "text/turtle"}).text,
        format="turtle",
    )
    prov = rdflib.Namespace("http://www.w3.org/ns/prov#")
    assert (
        rdflib.URIRef(x["uri"]),
        prov.wasDerivedFrom,
        rdflib.URIRef(improved["uri"]),
    ) in x_rdf
    page = site.get(f"experiment/{improved['id']}").text
    assert f'class="rescored-on-it">experiment {x["id"]}</a>' in page
    assert f'"datasetVersion": "{v2_name}"' not in html.unescape(page)
    twice = site.post(
        f"api/experiments/{improved['id']}/rescore",
        json={"datasetVersion": v2_name},
        headers={"Authorization": f"Bearer {improved['token']}"},
    )
    assert twice.status_code == 409, twice.text
    assert f"experiment {x['id']} re-scored them there" in twice.json()["error"]
    # the first run's older answers do not displace them: refused, with a step that works
    again = site.post(
        f"api/experiments/{first['id']}/rescore", json={"datasetVersion": v2_name}, headers=mine
    )
    assert again.status_code == 409, again.text
    error = again.json()["error"]
    assert f"on dataset {v2_name} already" in error and f"revisionOf {x['id']}" in error, error
    resubmitted = site.post(
        "api/experiments",
        json={
            "dataset": v2_name,
            "revisionOf": x["id"],
            "profile": "exact",
            "systems": [{"name": "owls", "answers": bird_answers(3).decode()}],
        },
        headers={"Authorization": f"Bearer {x['token']}"},
    )
    assert resubmitted.status_code == 202, resubmitted.text


def test_two_newer_versions_are_named_newest_first(site: Server) -> None:
    """v1 of a dataset with v2 and v3 said "A newer version …: v3 ; v2": both, as if one
    (explore-20 11). Now the newest, then the others."""
    from types import SimpleNamespace

    newer = [
        SimpleNamespace(uri="http://x/dataset/v2", label="Birds QA, version 2 (v2)"),
        SimpleNamespace(uri="http://x/dataset/v3", label="Birds QA, version 3 (v3)"),
    ]
    with site.app.test_request_context():
        said = site.app.jinja_env.get_template("_newer_version.html").render(newer=newer)
    text = " ".join(re.sub(r"<[^>]+>", "", said).split())
    assert text.startswith(
        "A newer version of this dataset exists: Birds QA, version 3 (v3) (the newest; also "
        "newer than this one: Birds QA, version 2 (v2))."
    ), text
