"""Uploads published by an older version, brought up to today's description at serve start.

Since ``service.graph.uploads.publish_graph``, the first publication of an upload writes the
catalogue's link (``catalog dcat:dataset``), ``dct:publisher``, ``dct:issued`` and marks the
generated description. A store written before has none of them: a harvester starting at
``catalog`` did not find its uploads and DCAT-AP's shapes failed on their descriptions, until
someone published a new run on each. Serve start (and ``gerbil-qa upgrade``) completes them.

And a withdrawn first run took its upload's ``dct:issued`` with it (written in its graph,
which leaves the default graph) while later runs still listed the upload: the date of first
issue now lives in the dataset's own graph, and serve start restores one a store lost.

The stores are made with today's code over HTTP, then the new triples are removed with a
SPARQL update: what is left is what the version of 3e6151b wrote (its ``dataset_description``
wrote no publisher and no mark, its ``experiment_quads`` no catalogue link, its publication
only the experiment's own ``dct:issued``; uploads had no ``graph/dataset/{name}`` yet).
"""

from __future__ import annotations

import csv
import gc
import io
from collections.abc import Iterator
from typing import Any

import pytest
import rdflib

from tests.lakes_benchmark import lakes
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_dcat_ap import REMAINING, dcat_ap_findings

DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
DCT = rdflib.Namespace("http://purl.org/dc/terms/")
GQA = rdflib.Namespace("http://w3id.org/gerbil/qa/vocab#")
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
ABOUT = {
    "description": "Four questions about lakes, drafted by their author.",
    "creators": ["Ann Author"],
    "license": "https://creativecommons.org/licenses/by/4.0/",
}


def _submit(
    site: Server, data: bytes, about: dict[str, Any] | None = None, **kwargs: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "dataset": {"filename": "lakes.json", "content": data.decode()},
        "title": "Lakes QA",
        "profile": "exact",
        "systems": [{"name": "gold-check", "answers": data.decode()}],
    }
    if about:
        body["about"] = about
    made = site.post("api/experiments", json=body, **kwargs)
    assert made.status_code == 202, made.text
    ticket = made.json()
    return {**site.wait_finished(ticket["id"], ticket["token"]), **ticket}


def _as_3e6151b_wrote(site: Server) -> None:
    """Remove what a publication has written since 3e6151b, from the experiments' graphs,
    the uploads' own graphs and the default graph (the built-in catalogue's stay): the
    catalogue's links to uploads, their publisher, issued date and mark, and their own graphs
    (which held only the date)."""
    from service.graph.adapter import Side

    uris = site.storage.uris
    ours = f'FILTER(STRSTARTS(STR(?g), "{uris.base}graph/experiment/")) '
    upload = (
        f"GRAPH ?e {{ ?x a <{GQA.Experiment}> ; <http://www.w3.org/ns/prov#used> ?d . "
        f"?d a <{DCAT.Dataset}> ; <{GQA.sha256}> ?sha }} "
        f'FILTER(STRSTARTS(STR(?e), "{uris.base}graph/experiment/")) '
    )
    for pattern in (
        f"<{uris.catalog}> <{DCAT.dataset}> ?d",
        f"?d <{DCT.publisher}> ?o",
        f"?d <{DCT.issued}> ?o",
        f"?d <{GQA.generatedDescription}> ?o",
    ):
        site.storage.store.update(
            Side.PUBLIC,
            f"DELETE {{ {pattern} }} WHERE {{ {pattern} {upload} }} ;"
            f"DELETE {{ GRAPH ?g {{ {pattern} }} }} "
            f"WHERE {{ GRAPH ?g {{ {pattern} }} {ours} {upload} }}",
        )
    site.storage.store.update(
        Side.PUBLIC,
        f"DELETE {{ GRAPH ?g {{ ?s ?p ?o }} }} WHERE {{ GRAPH ?g {{ ?s ?p ?o }} {upload} "
        f'BIND(IRI(CONCAT("{uris.base}graph/dataset/", STRAFTER(STR(?d), "/dataset/"))) AS ?own) '
        f"FILTER(?g = ?own) }}",
    )


def _quads(site: Server, graph: str | None = None) -> set[str]:
    import pyoxigraph as ox

    named = ox.NamedNode(graph) if graph else None
    return {str(q) for q in site.storage.public.quads_for_pattern(None, None, None, named)}


def _issued_of(site: Server, experiment_id: str) -> rdflib.Literal:
    uri = f"{site.url}experiment/{experiment_id}"
    g = _parse(site, uri)
    value = g.value(rdflib.URIRef(uri), DCT.issued)
    assert isinstance(value, rdflib.Literal)
    return value


def _parse(site: Server, uri: str) -> rdflib.Graph:
    got = site.get(uri.replace(site.url, ""), headers={"Accept": "text/turtle"})
    assert got.status_code == 200, (uri, got.status_code)
    return rdflib.Graph().parse(data=got.content, format="turtle", publicID=uri)


@pytest.fixture(scope="module")
def old_store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A store as 3e6151b left it: ``plain`` published by a team that said nothing,
    ``authored`` by its author (description, creator, licence), ``second`` with two runs
    whose first was withdrawn, ``both`` by its author and a team (whose graph is given the
    generated description 3e6151b wrote there: two descriptions); then
    the new triples removed."""
    from service.systems.localnet import free_port

    store, port = tmp_path_factory.mktemp("old-uploads"), free_port()
    site = start_server(store, demo=False, port=port)
    try:
        plain = _submit(site, lakes(dataset_id="lakes-plain"))
        authored = _submit(site, lakes(dataset_id="lakes-authored"), ABOUT)
        first = _submit(site, lakes(dataset_id="lakes-second"))
        later = _submit(site, lakes(dataset_id="lakes-second"))
        for run in (plain, authored, first, later):
            site.storage.experiments.publish(run["id"])  # the experiment only, as before
        site.storage.experiments.withdraw(first["id"], "its system was misconfigured")
        # both recorded before either is public (an about on published bytes is refused)
        team = _submit(site, lakes(dataset_id="lakes-both"))
        author = _submit(site, lakes(dataset_id="lakes-both"), ABOUT)
        site.storage.experiments.publish(author["id"])
        site.storage.experiments.publish(team["id"])
        _as_3e6151b_wrote(site)
        _both_descriptions(site, team)
        withdrawn = _quads(site, site.storage.uris.experiment_graph(first["id"]))
    finally:
        stop_server(site)
    del site
    gc.collect()  # the store's last reference goes: its directory lock with it
    return {
        "store": store,
        "port": port,
        "plain": plain,
        "authored": authored,
        "first": first,
        "later": later,
        "team": team,
        "withdrawn_graph": withdrawn,
    }


def _both_descriptions(site: Server, team: dict[str, Any]) -> None:
    """The team's generated description back in its graph, as 3e6151b left it: its author's
    later run on the same bytes added a second description beside it."""
    from service.graph.adapter import Side
    from service.graph.questions import generated_description

    text = generated_description("Lakes QA", 4)
    graph = site.storage.uris.experiment_graph(team["id"])
    said = f"<{team['dataset']}> <{DCT.description}> {text} ."
    site.storage.store.update(Side.PUBLIC, f"INSERT DATA {{ GRAPH <{graph}> {{ {said} }} {said} }}")


@pytest.fixture(scope="module")
def site(old_store: dict[str, Any]) -> Iterator[Server]:
    running = start_server(old_store["store"], demo=False, port=old_store["port"])
    yield running
    stop_server(running)


def test_the_catalogue_lists_the_old_uploads(site: Server, old_store: dict[str, Any]) -> None:
    catalog = f"{site.url}catalog"
    g = _parse(site, catalog)
    listed = set(g.objects(rdflib.URIRef(catalog), DCAT.dataset))
    for key in ("plain", "authored", "later"):
        assert rdflib.URIRef(old_store[key]["dataset"]) in listed, key
    page = site.get("catalog", headers={"Accept": "text/html"}).text
    assert f'href="{old_store["plain"]["dataset"]}"' in page


def test_each_has_a_publisher_and_its_date_of_first_issue(
    site: Server, old_store: dict[str, Any]
) -> None:
    for key, publisher in (
        ("plain", f"{site.url}catalog#gerbil-qa"),
        ("authored", f"{old_store['authored']['dataset']}#creator-1"),
        ("later", f"{site.url}catalog#gerbil-qa"),
    ):
        uri = old_store[key]["dataset"]
        g = _parse(site, uri)
        assert [str(p) for p in g.objects(rdflib.URIRef(uri), DCT.publisher)] == [publisher], key
        (issued,) = g.objects(rdflib.URIRef(uri), DCT.issued)
        # its first run's publication; for `second`, the withdrawn first run's: it was public
        first = "first" if key == "later" else key
        assert issued == _issued_of(site, old_store[first]["id"]), key


def test_only_the_generated_description_is_marked(site: Server, old_store: dict[str, Any]) -> None:
    plain = rdflib.URIRef(old_store["plain"]["dataset"])
    g = _parse(site, plain)
    (text,) = g.objects(plain, DCT.description)
    assert "uploaded for an experiment" in text and g.value(plain, GQA.generatedDescription) == text
    authored = rdflib.URIRef(old_store["authored"]["dataset"])
    g = _parse(site, authored)
    assert [str(d) for d in g.objects(authored, DCT.description)] == [ABOUT["description"]]
    assert list(g.objects(authored, GQA.generatedDescription)) == []


def test_a_generated_description_beside_its_authors_goes(
    site: Server, old_store: dict[str, Any]
) -> None:
    # two descriptions (DCAT-AP allows one): the generated one goes, as a publication does it
    uri = rdflib.URIRef(old_store["team"]["dataset"])
    g = _parse(site, uri)
    assert [str(d) for d in g.objects(uri, DCT.description)] == [ABOUT["description"]]
    assert list(g.objects(uri, GQA.generatedDescription)) == []
    graph = site.storage.uris.experiment_graph(old_store["team"]["id"])
    assert not any("uploaded for an experiment" in q for q in _quads(site, graph))


def test_a_withdrawn_runs_graph_is_untouched(site: Server, old_store: dict[str, Any]) -> None:
    graph = site.storage.uris.experiment_graph(old_store["first"]["id"])
    assert _quads(site, graph) == old_store["withdrawn_graph"]


def test_the_completed_descriptions_pass_the_shapes(
    site: Server, old_store: dict[str, Any]
) -> None:
    from service.graph.checks import check_store

    found = dcat_ap_findings(_parse(site, f"{site.url}catalog"), "the catalogue")
    # an author's creators had no ADMS type before it was asked: the recommended shapes warn
    # of the publisher's; only its author can say which it is
    assert found <= REMAINING | {("Warning", str(DCT.type))}, found - REMAINING
    assert [str(v) for v in check_store(site.storage)] == []  # our shapes, graph by graph


def test_a_second_start_writes_nothing(site: Server, old_store: dict[str, Any]) -> None:
    from service.graph.uploads import complete_published_uploads

    before = _quads(site)
    assert complete_published_uploads(site.storage) == []
    assert _quads(site) == before


def test_gerbil_qa_upgrade_completes_them_too(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    from service.cli import main
    from service.systems.localnet import free_port

    store, port = tmp_path_factory.mktemp("old-upload-cli"), free_port()
    site = start_server(store, demo=False, port=port)
    try:
        run = _submit(site, lakes(dataset_id="lakes-cli"))
        site.storage.experiments.publish(run["id"])
        _as_3e6151b_wrote(site)
    finally:
        stop_server(site)
    del site
    gc.collect()
    assert main(["upgrade", "--store", str(store)]) == 0
    out = capsys.readouterr()
    assert f"completed {run['dataset']}" in out.out and "1 published uploaded" in out.err
    assert main(["upgrade", "--store", str(store)]) == 0
    assert "completed" not in capsys.readouterr().out  # a second time: nothing


def _path(site: Server, uri: str) -> str:
    return uri.replace(site.url, "")


def test_a_withdrawn_first_run_keeps_the_uploads_date(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # it was written in the first run's graph, which left the default graph when withdrawn:
    # the upload, still listed by the second run, had no date of first issue any more
    site = start_server(tmp_path_factory.mktemp("withdrawn-first"), demo=False)
    try:
        # its author's run first (description, creators: its publisher), then a team's
        data = lakes(dataset_id="lakes-first")
        runs = [_submit(site, data, ABOUT), _submit(site, data)]
        auths = [{"Authorization": f"Bearer {run['token']}"} for run in runs]
        for run, auth in zip(runs, auths, strict=True):
            done = site.post(f"api/experiments/{run['id']}/publish", headers=auth)
            assert done.status_code == 200, done.text
        uri, first = runs[0]["dataset"], _issued_of(site, runs[0]["id"])
        gone = site.post(
            f"api/experiments/{runs[0]['id']}/withdraw", json={"reason": "x"}, headers=auths[0]
        )
        assert gone.status_code == 200, gone.text
        g = _parse(site, uri)
        assert list(g.objects(rdflib.URIRef(uri), DCT.issued)) == [first]
        catalog = _parse(site, f"{site.url}catalog")
        assert catalog.value(rdflib.URIRef(uri), DCT.issued) == first
        # nor its description and publisher, which the team's run restates (before, it did
        # not: the generated description and this service replaced them, and the dataset was
        # cited as GERBIL QA's: explore-11 19)
        (text,) = g.objects(rdflib.URIRef(uri), DCT.description)
        assert str(text) == ABOUT["description"]
        assert g.value(rdflib.URIRef(uri), GQA.generatedDescription) is None
        publisher = [str(p) for p in g.objects(rdflib.URIRef(uri), DCT.publisher)]
        assert publisher == [f"{uri}#creator-1"]
        # withdrawing every run drops it from the catalogue, its date with it
        gone = site.post(
            f"api/experiments/{runs[1]['id']}/withdraw", json={"reason": "x"}, headers=auths[1]
        )
        assert gone.status_code == 200, gone.text
        assert uri not in site.get("catalog", headers={"Accept": "text/turtle"}).text
        withdrawn = site.get(_path(site, uri), headers={"Accept": "text/html"})  # as published
        assert withdrawn.status_code == 200 and 'id="withdrawn-runs"' in withdrawn.text
        assert not site.storage.public.query(f"ASK {{ <{uri}> <{DCT.issued}> ?t }}")
    finally:
        stop_server(site)


def test_a_run_joined_before_restating_gets_the_published_description(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # explore-11 19: a version before restated the licence alone in a later run's graph; once
    # the author's run was withdrawn the dataset was cited as GERBIL QA's, without version
    from service.graph.adapter import Side
    from service.graph.uploads import complete_published_uploads

    site = start_server(tmp_path_factory.mktemp("unrestated"), demo=False)
    try:
        data = lakes(dataset_id="lakes-restated")
        runs = [_submit(site, data, {**ABOUT, "version": "v3"}), _submit(site, data)]
        auths = [{"Authorization": f"Bearer {run['token']}"} for run in runs]
        for run, auth in zip(runs, auths, strict=True):
            done = site.post(f"api/experiments/{run['id']}/publish", headers=auth)
            assert done.status_code == 200, done.text
        uri = runs[0]["dataset"]
        team = site.storage.uris.experiment_graph(runs[1]["id"])
        # the team's graph as that version wrote it: the licence alone (the default graph
        # keeps the author's, still public)
        site.storage.store.update(
            Side.PUBLIC,
            f"DELETE {{ GRAPH <{team}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH <{team}> {{ ?s ?p ?o "
            f"FILTER((?s = <{uri}> && ?p IN (<{DCAT.version}>, <{DCT.creator}>, "
            f"<{DCT.description}>, <{DCT.publisher}>)) || STRSTARTS(STR(?s), '{uri}#')) }} }}",
        )
        assert complete_published_uploads(site.storage) == [uri]
        assert complete_published_uploads(site.storage) == []  # a second time: nothing
        gone = site.post(
            f"api/experiments/{runs[0]['id']}/withdraw", json={"reason": "x"}, headers=auths[0]
        )
        assert gone.status_code == 200, gone.text
        bib = " ".join(site.get(_path(site, uri) + ".bib").text.split())
        assert "author = {{Ann Author}}" in bib and "note = {Version v3" in bib, bib
        note = " ".join(site.get(f"experiment/{runs[1]['id']}.bib").text.split())
        assert ", version v3;" in note, note
    finally:
        stop_server(site)


def test_serve_start_restores_a_date_a_withdrawal_took(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # a store of yesterday's version: the upload's date in its first run's graph, that run
    # withdrawn, the date gone from the default graph
    from service.graph.adapter import Side
    from service.systems.localnet import free_port

    store, port = tmp_path_factory.mktemp("date-lost"), free_port()
    site = start_server(store, demo=False, port=port)
    try:
        runs = [_submit(site, lakes(dataset_id="lakes-lost")) for _ in range(2)]
        for run in runs:
            site.storage.experiments.publish(run["id"])
        uri, first = runs[0]["dataset"], _issued_of(site, runs[0]["id"])
        own = site.storage.uris.dataset_graph(uri.rsplit("/", 1)[1])
        graph = site.storage.uris.experiment_graph(runs[0]["id"])
        site.storage.store.update(  # where yesterday's publication wrote it
            Side.PUBLIC,
            f"DELETE {{ GRAPH <{own}> {{ <{uri}> <{DCT.issued}> ?t }} }} "
            f"INSERT {{ GRAPH <{graph}> {{ <{uri}> <{DCT.issued}> ?t }} }} "
            f"WHERE {{ GRAPH <{own}> {{ <{uri}> <{DCT.issued}> ?t }} }}",
        )
        site.storage.experiments.withdraw(runs[0]["id"], "its system was misconfigured")
        assert not site.storage.public.query(f"ASK {{ <{uri}> <{DCT.issued}> ?t }}")
    finally:
        stop_server(site)
    del site
    gc.collect()
    again = start_server(store, demo=False, port=port)
    try:
        g = _parse(again, uri)
        assert list(g.objects(rdflib.URIRef(uri), DCT.issued)) == [first]
    finally:
        stop_server(again)


def test_a_withdrawn_upload_named_in_a_submission_says_so_and_its_newer_version(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # before: "no dataset 'lakes-…': neither a built-in dataset nor a published uploaded
    # dataset", as if it had never been published
    site = start_server(tmp_path_factory.mktemp("withdrawn-named"), demo=False)

    def published(
        data: bytes, about: dict[str, Any] | None = None, **kwargs: Any
    ) -> tuple[str, dict]:
        run = _submit(site, data, about, **kwargs)
        auth = {"Authorization": f"Bearer {run['token']}"}
        assert site.post(f"api/experiments/{run['id']}/publish", headers=auth).status_code == 200
        return run["dataset"].rsplit("/", 1)[1], {"id": run["id"], "auth": auth}

    def withdraw(run: dict) -> None:
        done = site.post(
            f"api/experiments/{run['id']}/withdraw", json={"reason": "x"}, headers=run["auth"]
        )
        assert done.status_code == 200, done.text

    def refusal(name: str) -> str:
        again = {"dataset": name, "systems": [{"name": "g", "reference": "gold-sparql"}]}
        refused = site.post("api/experiments", json=again)
        assert refused.status_code == 404, refused.text
        said = refused.json()["problems"][0]
        assert said["path"] == "$.dataset" and f"dataset {name!r} was withdrawn" in said["message"]
        return said["message"]

    try:
        alone, run = published(lakes(dataset_id="lakes-gone"))
        withdraw(run)
        assert "newer version" not in refusal(alone)
        # a version with a newer one: the refusal names it
        old, run = published(lakes(dataset_id="lakes-v1"))
        new, _ = published(
            lakes(dataset_id="lakes-v2"), {"previousVersion": old}, headers=run["auth"]
        )
        # the versions are linked in the lists a harvester reads (before: only on the pages)
        listed = {d["name"]: d for d in site.get("api/datasets").json()["datasets"]}
        assert (listed[old]["previousVersion"], listed[old]["newestVersion"]) == (None, new)
        assert (listed[new]["previousVersion"], listed[new]["newestVersion"]) == (old, None)
        table = site.get("catalog.csv")
        rows = {r["name"]: r for r in csv.DictReader(io.StringIO(table.text))}
        assert (rows[old]["previousVersion"], rows[old]["newestVersion"]) == ("", new)
        assert (rows[new]["previousVersion"], rows[new]["newestVersion"]) == (old, "")
        withdraw(run)
        assert f"its newer version is {new!r}" in refusal(old)
    finally:
        stop_server(site)
