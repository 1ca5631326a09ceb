"""A harvester's walk, over HTTP: a DCAT-AP 3.0.1 harvester (data.europa.eu's, a FAIR checker)
starts at the ``catalog`` document alone and follows its links.

Before: a published uploaded dataset was not in the catalogue (found only through
``api/datasets`` and its page), and had no ``dct:publisher`` nor ``dct:issued``; a version
made by ``gerbil-qa dataset refresh`` offered no distribution to download its refreshed file;
an author's creators had no ADMS type; and an author who stated a description after a team
had published the same bytes without one left two ``dct:description`` on the dataset (since,
the first publisher's description is the dataset's, whoever states one later).

The walk: the author of a file (``birds``) publishes a run saying description, creators (and
their ADMS type) and licence; team A then publishes a run on the same bytes without a word. On
a second file (``owls``) the author's run and team A's are both recorded before either is
published, team A's first; on a third (``wrens``) the author's is published first. A fourth
(``secret``) is never published. The store also holds a version of ``birds`` registered by
``gerbil-qa dataset refresh --store`` (the real command, before the server starts).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import rdflib
import requests

from tests.bird_benchmark import V1, bird_answers, bird_kb
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_dcat_ap import REMAINING, dcat_ap_findings

DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
DCT = rdflib.Namespace("http://purl.org/dc/terms/")
FOAF = rdflib.Namespace("http://xmlns.com/foaf/0.1/")
GQA = rdflib.Namespace("http://w3id.org/gerbil/qa/vocab#")
SPDX = rdflib.Namespace("http://spdx.org/rdf/terms#")
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
ACADEMIA = rdflib.URIRef("http://purl.org/adms/publishertype/Academia-ScientificOrganisation")
LICENSE = "https://creativecommons.org/licenses/by/4.0/"
ABOUT = {
    "description": "Thirty questions about the wingspans and diets of thirty birds.",
    "license": LICENSE,
    "creators": ["Ann Author", "Bo Coauthor"],
    "creatorType": "Academia-ScientificOrganisation",
    "contact": "birds-qa@example.org",
}
# every RDF syntax the catalogue is served in, as rdflib parses it
SYNTAXES = {
    "text/turtle": "turtle",
    "application/ld+json": "json-ld",
    "application/n-triples": "nt",
    "application/rdf+xml": "xml",
    "application/n-quads": "nquads",
}


def _file(name: str) -> bytes:
    """The bird benchmark under another dataset id: other bytes, another uploaded dataset."""
    return V1.replace(b'"birds-qa"', f'"{name}"'.encode())


def _submit(
    site: Server, content: bytes, about: dict[str, Any] | None = None, *, title: str | None = None
) -> dict[str, str]:
    body: dict[str, Any] = {
        "dataset": {"filename": "birds.json", "content": content.decode()},
        "kb": "birds",
        "profile": "exact",
        "systems": [{"name": "team", "answers": bird_answers(1).decode()}],
    }
    if about:
        body |= {"about": about, "title": "Birds QA"}
    if title:  # a team that names it as its author does (recorded while both are private, the
        # same bytes are one dataset only under one title: the name is its title's)
        body["title"] = title
    made = site.post("api/experiments", json=body)
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    return {"id": ticket["id"], "token": ticket["token"], "dataset": state["dataset"]}


def _publish(site: Server, run: dict[str, str]) -> None:
    auth = {"Authorization": f"Bearer {run['token']}"}
    got = site.post(f"api/experiments/{run['id']}/publish", headers=auth)
    assert got.status_code == 200, got.text


@pytest.fixture(scope="module")
def refreshed_store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A store made for a port of its own, then given a version of ``birds`` by the
    real ``gerbil-qa dataset refresh FILE --kb KB --store DIR`` (a store keeps its base)."""
    from service.cli import main
    from service.graph.store import open_storage
    from service.systems.localnet import free_port

    folder = tmp_path_factory.mktemp("harvest")
    (folder / "birds.json").write_bytes(_file("birds"))
    (folder / "birds-kb.ttl").write_text(bird_kb(), encoding="utf-8")
    store = folder / "store"
    port = free_port()
    open_storage(store, base=f"http://127.0.0.1:{port}/").close()  # the base it is served at
    argv = ["dataset", "refresh", str(folder / "birds.json"), "--kb", str(folder / "birds-kb.ttl")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, "--store", str(store)]) == 0
    said = out.getvalue()
    version = said.split("registered version: ", 1)[1].split()[0].rsplit("/", 1)[1]
    (written,) = (store / "datasets").glob("*.json")
    return {
        "folder": folder,
        "store": store,
        "port": port,
        "file": written.read_bytes(),
        "version": version,
    }


@pytest.fixture(scope="module")
def site(refreshed_store: dict[str, Any]) -> Iterator[Server]:
    kb = refreshed_store["folder"] / "birds-kb.ttl"
    running = start_server(
        refreshed_store["store"], port=refreshed_store["port"], demo=False, kbs=f"birds={kb}"
    )
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def walked(site: Server) -> dict[str, Any]:
    birds, owls, wrens = _file("birds"), _file("owls"), _file("wrens")
    # birds: its author publishes first, stating everything; team A's run joins it later
    # (saying nothing: an about on published bytes is refused)
    author = _submit(site, birds, ABOUT, title="birds")
    _publish(site, author)
    team = _submit(site, birds)
    _publish(site, team)
    # owls: both recorded before either is public; team A's published first
    owls_author = _submit(site, owls, ABOUT)
    owls_team = _submit(site, owls, title="Birds QA")
    _publish(site, owls_team)
    _publish(site, owls_author)
    assert owls_team["dataset"] == owls_author["dataset"]
    # wrens: both recorded, the author's published first
    wrens_author = _submit(site, wrens, ABOUT)
    wrens_team = _submit(site, wrens, title="Birds QA")
    _publish(site, wrens_author)
    _publish(site, wrens_team)
    assert wrens_team["dataset"] == wrens_author["dataset"]
    # a team that never publishes: its dataset stays private
    secret = _submit(
        site, _file("secret-birds"), {"creators": ["Secret Author"], "license": LICENSE}
    )
    # a dataset only a team that said nothing published
    plain = _submit(site, _file("plain"))
    _publish(site, plain)
    return {
        "birds": author["dataset"],
        "first_birds_run": author["id"],
        "owls": owls_author["dataset"],
        "wrens": wrens_author["dataset"],
        "plain": plain["dataset"],
        "secret": secret["dataset"],
    }


def _get(site: Server, uri: str, media_type: str) -> requests.Response:
    got = site.get(uri.replace(site.url, ""), headers={"Accept": media_type})
    assert got.status_code == 200, (uri, media_type, got.status_code)
    assert got.headers["Content-Type"].startswith(media_type), got.headers["Content-Type"]
    return got


def _parse(site: Server, uri: str, media_type: str = "text/turtle") -> rdflib.Graph:
    got = _get(site, uri, media_type)
    if SYNTAXES[media_type] == "nquads":  # every graph's triples, merged
        graph, dataset = rdflib.Graph(), rdflib.Dataset()
        dataset.parse(data=got.content, format="nquads")  # (returns its default graph)
        for quad in dataset.quads():
            graph.add(quad[:3])
        return graph
    return rdflib.Graph().parse(data=got.content, format=SYNTAXES[media_type], publicID=uri)


def _catalog(site: Server) -> str:
    return f"{site.url}catalog"


def _uploads(walked: dict[str, Any]) -> list[str]:
    return [walked[k] for k in ("birds", "owls", "wrens", "plain")]


@pytest.mark.parametrize("media_type", sorted(SYNTAXES))
def test_the_catalogue_holds_every_published_upload_and_no_private_one(
    site: Server, walked: dict[str, Any], media_type: str
) -> None:
    from service import catalog as built_in

    text = _get(site, _catalog(site), media_type).content
    g = _parse(site, _catalog(site), media_type)
    listed = {str(o) for o in g.objects(rdflib.URIRef(_catalog(site)), DCAT.dataset)}
    assert set(_uploads(walked)) <= listed, sorted(listed - {e for e in listed if "-" in e})
    # the registered versions are members too (each typed gqa:DatasetVersion)
    versions = {str(v) for v in g.subjects(rdflib.RDF.type, GQA.DatasetVersion)}
    extra = (
        listed
        - set(_uploads(walked))
        - {f"{site.url}dataset/{e.name}" for e in built_in.entries()}
        - versions
    )
    assert extra == set()
    # each with its description, not only its link: a harvester needs nothing more
    for uri in _uploads(walked):
        assert (rdflib.URIRef(uri), DCT.title, None) in g, uri
        assert (rdflib.URIRef(uri), DCAT.distribution, None) in g, uri
    private = walked["secret"].rsplit("/", 1)[1]
    assert private.encode() not in text and b"Secret Author" not in text


def test_a_private_upload_is_not_in_the_catalogue_sparql_sees(
    site: Server, walked: dict[str, Any]
) -> None:
    def rows(query: str) -> set[str]:
        got = site.get(
            "sparql",
            params={"query": query},
            headers={"Accept": "application/sparql-results+json"},
        )
        assert got.status_code == 200, got.text
        return {b["d"]["value"] for b in got.json()["results"]["bindings"]}

    linked = f"SELECT ?d WHERE {{ <{_catalog(site)}> <{DCAT}dataset> ?d }}"
    named = f"SELECT ?d WHERE {{ GRAPH ?g {{ <{_catalog(site)}> <{DCAT}dataset> ?d }} }}"
    for query in (linked, named):
        found = rows(query)
        assert set(_uploads(walked)) <= found  # the query finds uploads: the published ones
        assert walked["secret"] not in found
    said = f'SELECT ?d WHERE {{ ?d <{FOAF}name> "Secret Author" }}'
    assert rows(said) == set()


def test_each_upload_has_one_publisher_and_when_it_was_published(
    site: Server, walked: dict[str, Any]
) -> None:
    g = _parse(site, _catalog(site))
    for key in ("birds", "owls", "wrens", "plain"):
        ds = rdflib.URIRef(walked[key])
        (publisher,) = g.objects(ds, DCT.publisher)
        (issued,) = g.objects(ds, DCT.issued)
        assert issued.datatype == rdflib.XSD.dateTime, issued
        name = str(g.value(publisher, FOAF.name))
        if key in ("plain", "owls"):  # nobody named: this service, which makes it available
            assert str(publisher) == f"{site.url}catalog#gerbil-qa", publisher
            assert name == "GERBIL QA for Python"
        else:  # its first creator, typed as its author said
            assert str(publisher) == f"{walked[key]}#creator-1" and name == "Ann Author"
            assert g.value(publisher, DCT.type) == ACADEMIA
    # issued: when the first run on it was published (that experiment's dct:issued), not later
    first = _parse(site, f"{site.url}experiment/{walked['first_birds_run']}")
    published = first.value(
        rdflib.URIRef(f"{site.url}experiment/{walked['first_birds_run']}"), DCT.issued
    )
    assert g.value(rdflib.URIRef(walked["birds"]), DCT.issued) == published
    # the catalogue's listing says the same date (its CSV): said in the upload's own graph,
    # not in the experiment graphs the listing reads
    (row,) = [
        r
        for r in csv.DictReader(io.StringIO(site.get("catalog.csv").text))
        if r["dataset"] == walked["birds"]
    ]
    assert rdflib.Literal(row["issued"], datatype=rdflib.XSD.dateTime) == published, row


def test_the_first_publishers_description_is_the_datasets(
    site: Server, walked: dict[str, Any]
) -> None:
    # birds: the author's published first, team A's recorded after; wrens: both recorded, the
    # author's published first
    for key in ("birds", "wrens"):
        ds = rdflib.URIRef(walked[key])
        for g in (_parse(site, walked[key]), _parse(site, _catalog(site))):
            assert [str(d) for d in g.objects(ds, DCT.description)] == [ABOUT["description"]]
            assert list(g.objects(ds, GQA.generatedDescription)) == []
        # SPARQL's default graph and every named graph say the same
        query = f"SELECT ?d WHERE {{ GRAPH ?g {{ <{ds}> <{DCT}description> ?d }} }}"
        got = site.get(
            "sparql", params={"query": query}, headers={"Accept": "application/sparql-results+json"}
        ).json()["results"]["bindings"]
        assert {b["d"]["value"] for b in got} == {ABOUT["description"]}, (key, got)
    # a dataset nobody described keeps the generated one, marked as such; so does one whose
    # first publisher said nothing (owls: both recorded, team A's published first): without
    # accounts a later author cannot be told from a stranger (explore-7 1)
    for key in ("plain", "owls"):
        ds = rdflib.URIRef(walked[key])
        g = _parse(site, walked[key])
        (text,) = g.objects(ds, DCT.description)
        assert (
            "uploaded for an experiment" in text and g.value(ds, GQA.generatedDescription) == text
        )
        assert list(g.objects(ds, DCT.creator)) == [] and list(g.objects(ds, DCT.license)) == []


@pytest.mark.parametrize("media_type", ["text/turtle", "application/ld+json"])
def test_the_catalogue_as_served_passes_dcat_ap(
    site: Server, walked: dict[str, Any], media_type: str
) -> None:
    found = dcat_ap_findings(_parse(site, _catalog(site), media_type), "the catalogue")
    assert found <= REMAINING, found - REMAINING
    # the creators' ADMS type is no longer among what is reported
    assert ("Warning", str(DCT.type)) not in found and ("Violation", str(DCT.type)) not in found


def test_pyld_expands_and_compacts_the_catalogue(site: Server, walked: dict[str, Any]) -> None:
    from pyld import jsonld

    def loader(url: str, options: Any = None) -> dict[str, Any]:
        got = requests.get(url, headers={"Accept": "application/ld+json"}, timeout=30)
        got.raise_for_status()
        return {"contextUrl": None, "documentUrl": url, "document": got.json()}

    document = _get(site, _catalog(site), "application/ld+json").json()
    options = {"documentLoader": loader, "base": _catalog(site)}
    expanded = jsonld.expand(document, options)
    ids = {node.get("@id") for node in expanded}
    assert set(_uploads(walked)) <= ids
    compacted = jsonld.compact(expanded, site.url + "context.jsonld", options)
    again = {node.get("@id") for node in jsonld.expand(compacted, options)}
    assert again == ids
    # and what it links to: an upload, and its refreshed version (with its distribution)
    version = next(str(v) for v in _parse(site, walked["birds"]).objects(None, DCAT.hasVersion))
    for uri in (walked["birds"], version):
        document = _get(site, uri, "application/ld+json").json()
        expanded = jsonld.expand(document, {"documentLoader": loader, "base": uri})
        assert uri in {node.get("@id") for node in expanded}, uri
        jsonld.compact(expanded, site.url + "context.jsonld", {"documentLoader": loader})


def test_every_link_of_the_catalogue_under_this_base_resolves(
    site: Server, walked: dict[str, Any]
) -> None:
    g = _parse(site, _catalog(site))
    ours = {
        str(t).split("#", 1)[0]
        for triple in g
        for t in triple
        if isinstance(t, rdflib.URIRef) and str(t).startswith(site.url)
    }
    assert {*_uploads(walked), _catalog(site)} <= ours
    broken = {}
    for uri in sorted(ours):
        got = site.get(
            uri.replace(site.url, ""), headers={"Accept": "text/turtle"}, allow_redirects=True
        )
        if got.status_code != 200:
            broken[uri] = got.status_code
    assert broken == {}


def test_every_term_of_ours_the_catalogue_uses_is_defined(site: Server) -> None:
    g = _parse(site, _catalog(site))
    vocab = _parse(site, f"{site.url}vocab")
    used = {
        t
        for s, p, o in g
        for t in (p, o if p == rdflib.RDF.type else None)
        if isinstance(t, rdflib.URIRef) and str(t).startswith(str(GQA))
    }
    assert GQA.generatedDescription in used or GQA.sha256 in used
    assert {t for t in used if (t, rdflib.RDFS.label, None) not in vocab} == set()


def test_a_refreshed_version_offers_its_file(site: Server, refreshed_store: dict[str, Any]) -> None:
    data = refreshed_store["file"]
    name = "birds-" + hashlib.sha256(_file("birds")).hexdigest()[:8]
    version = f"{site.url}dataset/{name}/version/{refreshed_store['version']}"
    g = _parse(site, version)
    (distribution,) = g.objects(rdflib.URIRef(version), DCAT.distribution)
    assert g.value(distribution, rdflib.RDF.type) == DCAT.Distribution
    size = g.value(distribution, DCAT.byteSize)
    assert size.datatype == rdflib.XSD.nonNegativeInteger and int(size) == len(data)
    checksum = g.value(distribution, SPDX.checksum)
    assert str(g.value(checksum, SPDX.checksumValue)) == hashlib.sha256(data).hexdigest()
    media = g.value(distribution, DCAT.mediaType)
    assert str(media) == "http://www.iana.org/assignments/media-types/application/json"
    url = g.value(distribution, DCAT.downloadURL)
    got = site.get(str(url).replace(site.url, ""))
    assert got.status_code == 200 and got.content == data, (url, got.status_code)
    assert got.headers["Content-Type"].startswith("application/json")
    assert json.loads(got.content)["questions"]  # the refreshed questions, as written
    # a download, not a document: the version's document describes it (hq78)
    assert got.headers["Link"] == f'<{version}>; rel="describedby"'
    found = dcat_ap_findings(g, "the refreshed version")
    assert ("Warning", str(DCAT.distribution)) not in found  # the recommended shapes asked
    assert found <= REMAINING, found - REMAINING
    # a version without a kept file has nothing to download, said plainly
    missing = site.get(f"dataset/{name}/version/1999-01/file")
    assert missing.status_code == 404 and "no file kept" in missing.text


def test_the_creator_type_comes_from_one_registry(site: Server) -> None:
    from service.graph.dcat import ADMS_PUBLISHER_TYPES

    about = site.get("api/openapi.json").json()["components"]["schemas"]["Submission"]
    field = about["properties"]["about"]["properties"]["creatorType"]
    assert field["enum"] == list(ADMS_PUBLISHER_TYPES)
    page = site.get("experiments/new").text
    assert 'name="dataset_creator_type"' in page and 'value="PrivateIndividual(s)"' in page
    got = site.post(
        "api/experiments",
        json={
            "dataset": {"content": _file("typo").decode()},
            "about": {"creators": ["Ann"], "creatorType": "University"},
            "systems": [{"name": "x", "answers": bird_answers(1).decode()}],
        },
    )
    assert got.status_code == 400, got.text
    assert "$.about.creatorType" in got.text and "expected one of" in got.text


def test_the_command_line_offers_the_creator_type(capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli import main

    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "--dataset-creator-type" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exited:
        main(["evaluate", "--dataset", "x.json", "--dataset-creator-type", "University"])
    assert exited.value.code == 2 and "invalid choice: 'University'" in capsys.readouterr().err


def test_the_catalogue_page_lists_the_uploads(site: Server, walked: dict[str, Any]) -> None:
    page = site.get("catalog", headers={"Accept": "text/html"}).text
    for uri in _uploads(walked):
        assert f'href="{uri}"' in page, uri
    assert walked["secret"] not in page


def test_our_shapes_pass_on_every_graph_of_the_store(site: Server, walked: dict[str, Any]) -> None:
    # (gerbil-qa check --store): the catalogue's shapes asked every dcat:dataset of the
    # catalogue for a version, a KB version and an issued date in each graph that links it, and
    # a distribution was either an experiment's file or a mirrored catalogue file
    from service.graph.checks import check_store

    found = [str(v) for v in check_store(site.storage)]
    assert found == []


def test_the_catalogue_links_a_built_in_datasets_versions(site: Server) -> None:
    # a version registered by `dataset refresh --store` said dcat:hasVersion in its own graph,
    # which the catalogue's document (its graph only) left out: a harvester never found it
    version, _ = site.register_version(
        "qald-1-dbpedia-train", kb="http://dbpedia.org", version="h1"
    )
    for media_type in ("text/turtle", "application/ld+json", "application/n-quads"):
        g = _parse(site, _catalog(site), media_type)
        built_in = rdflib.URIRef(f"{site.url}dataset/qald-1-dbpedia-train")
        assert (built_in, DCAT.hasVersion, rdflib.URIRef(version)) in g, media_type
    described = _parse(site, version)
    assert (rdflib.URIRef(version), rdflib.RDF.type, DCAT.Dataset) in described
    # and a member, described: harvesters take only dcat:dataset members (explore29 9)
    for media_type in ("text/turtle", "application/n-quads"):
        g = _parse(site, _catalog(site), media_type)
        member = rdflib.URIRef(version)
        assert (rdflib.URIRef(_catalog(site)), DCAT.dataset, member) in g, media_type
        assert (member, rdflib.RDF.type, DCAT.Dataset) in g, media_type
        assert (member, DCT.title, None) in g and (member, DCT.description, None) in g
        assert (None, DCT.isPartOf, member) not in g  # its questions: its own document's
    found = dcat_ap_findings(_parse(site, _catalog(site)), "the catalogue with a version")
    assert found <= REMAINING, found - REMAINING
    # the refreshed version of an upload (with its file) is a member, its distribution with it
    g = _parse(site, _catalog(site))
    refreshed = [v for v in g.subjects(rdflib.RDF.type, GQA.DatasetVersion) if v != member]
    assert refreshed and all((v, DCAT.distribution, None) in g for v in refreshed)
    assert all((rdflib.URIRef(_catalog(site)), DCAT.dataset, v) in g for v in refreshed)
    sitemap = site.get("sitemap/1.xml").text
    assert f"<loc>{version}</loc>" in sitemap
    assert all(f"<loc>{v}</loc>" in sitemap for v in refreshed)

    # cited by its dataset's authors (the same questions, the gold recomputed): "GERBIL QA"
    # was credited with them (explore-11 11)
    def author(path: str) -> str:
        return site.get(path + ".bib").text.split("  author = ", 1)[1].split("\n", 1)[0]

    assert author(version.replace(site.url, "")) == author("dataset/qald-1-dbpedia-train")
    assert "GERBIL QA" not in author("dataset/qald-1-dbpedia-train")


def test_this_service_as_publisher_is_not_cited_as_an_author(
    site: Server, walked: dict[str, Any]
) -> None:
    import html
    import re

    page = site.get(walked["plain"].replace(site.url, "")).text
    text = html.unescape(re.search(r'id="dataset-citation-text">(.*?)</p>', page, re.S)[1])
    assert "GERBIL QA for Python" not in text and walked["plain"] in text, text
    page = site.get(walked["birds"].replace(site.url, "")).text
    text = html.unescape(re.search(r'id="dataset-citation-text">(.*?)</p>', page, re.S)[1])
    assert text.startswith("Ann Author, Bo Coauthor ("), text


def test_the_catalogue_in_quads_grows_with_its_uploads_not_their_square(
    site: Server, walked: dict[str, Any]
) -> None:
    # the languages an upload links to are described in the graph of every experiment on an
    # upload: read across named graphs, each upload would bring every copy (measured with 100
    # uploads: 4.3 s and 1.9 MB of N-Quads); from the default graph, each triple is once
    english = "<http://publications.europa.eu/resource/authority/language/ENG> "
    label = "<http://www.w3.org/2004/02/skos/core#prefLabel>"
    text = _get(site, _catalog(site), "application/n-quads").text
    copies = [line for line in text.splitlines() if line.startswith(english + label)]
    assert 1 <= len(copies) <= 2, copies  # the catalogue graph's, the default graph's
    # so did an upload's own document: each experiment's graph copy of what it links to
    text = _get(site, walked["birds"], "application/n-quads").text
    copies = [line for line in text.splitlines() if line.startswith(english + label)]
    assert len(copies) == 1, copies
    said = [line for line in text.splitlines() if line.startswith(f"<{walked['birds']}> ")]
    graphs = {line.rsplit(" ", 2)[1] for line in said}
    assert len(graphs) >= 2  # the dataset itself, as each graph that describes it says it


def test_an_upload_whose_only_run_was_withdrawn_leaves_the_catalogue(site: Server) -> None:
    # its run's results left every listing; the catalogue's document left it out, the API's
    # list of datasets (and the catalogue's page) still offered it to run by name
    content = _file("withdrawn-birds")
    run = _submit(site, content)
    _publish(site, run)
    assert run["dataset"] in {r["uri"] for r in site.get("api/datasets").json()["datasets"]}
    sha = hashlib.sha256(content).hexdigest()
    assert site.storage.catalogue.upload_for_sha256(sha) is not None
    auth = {"Authorization": f"Bearer {run['token']}"}
    done = site.post(
        f"api/experiments/{run['id']}/withdraw", json={"reason": "wrong file"}, headers=auth
    )
    assert done.status_code == 200, done.text
    assert run["dataset"] not in {r["uri"] for r in site.get("api/datasets").json()["datasets"]}
    for media_type in ("text/turtle", "application/n-quads", "text/html"):
        got = site.get("catalog", headers={"Accept": media_type})
        assert run["dataset"] not in got.text, media_type
    # nor is it run by its name any more
    name = run["dataset"].rsplit("/", 1)[1]
    got = site.post(
        "api/experiments",
        json={"dataset": name, "systems": [{"name": "x", "answers": bird_answers(1).decode()}]},
    )
    assert got.status_code in (400, 404) and name in got.text, got.text
    # nor do the same bytes, uploaded again, take its published description as theirs
    assert site.storage.catalogue.upload_for_sha256(sha) is None
    # the withdrawn run stays citable, naming its dataset, whose URI still answers as first
    # published, saying when and why it was withdrawn (it answered 404 "nothing is known",
    # while the run's page linked it and its citation named it: explore-11 4)
    cited = site.get(f"experiment/{run['id']}", headers={"Accept": "text/turtle"})
    assert cited.status_code == 200 and run["dataset"] in cited.text
    path = run["dataset"].replace(site.url, "")
    page = site.get(path, headers={"Accept": "text/html"})
    assert page.status_code == 200 and 'id="withdrawn-runs"' in page.text, page.text[:300]
    assert "wrong file" in page.text and 'id="run-on-it"' not in page.text
    for media_type in ("text/turtle", "application/n-quads"):
        described = _parse(site, run["dataset"], media_type)
        assert (rdflib.URIRef(run["dataset"]), rdflib.RDF.type, DCAT.Dataset) in described
    # what it links is described with it (its contact, its file as its distribution), and
    # its questions, which the run's pages link, answer as first published (explore22 9)
    ds = rdflib.URIRef(run["dataset"])
    for linked in (DCAT.contactPoint, DCAT.distribution):
        for node in described.objects(ds, linked):
            assert (node, rdflib.RDF.type, None) in described, (linked, node)
    task = site.get(f"experiment/{run['id']}/task/1").text
    question = re.search(r'href="([^"]*/dataset/[^"]*/question/[^"]+)"', task)
    assert question, "the run's task page links no question"
    answered = site.get(question.group(1).replace(site.url, ""))
    assert answered.status_code == 200, answered.text[:300]
    bib = " ".join(site.get(path + ".bib").text.split())
    assert bib.startswith("@misc{gerbilqa-dataset-") and "withdrawn on " in bib, bib
    assert site.get(f"dataset/{name}-nothing-like-it").status_code == 404
