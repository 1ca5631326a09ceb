"""Frozen leaderboards: a leaderboard kept as it stood, under a URI of its own, for a paper or a
challenge to cite. Before, the only leaderboard was the live one, which every publication and
withdrawal changes: a paper could cite experiments, never the standings it reported."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

import pyoxigraph
import pytest
import rdflib
from pyld import jsonld

from service.contracts.shapes import tier_signature_pattern
from tests.helpers import demo_first_right
from tests.web.conftest import Server, start_server, stop_server

GQA = "http://w3id.org/gerbil/qa/vocab#"
HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own (the demo published): freezing writes public data."""
    running = start_server(tmp_path_factory.mktemp("frozen-store"))
    yield running
    stop_server(running)


def _live(site: Server) -> dict:
    response = site.get("leaderboards?format=json")
    assert response.status_code == 200, response.text
    return response.json()


def test_freezing_keeps_the_standings_under_a_uri_of_their_own(site: Server) -> None:
    live = _live(site)
    assert live["rows"], "the demo is published"
    made = site.post("api/leaderboards", json={"title": "Demo standings, as cited"})
    # (its BibTeX title is LaTeX-safe: test_the_bibtex_of_a_title_with_latex_specials)
    assert made.status_code == 201, made.text
    frozen = made.json()
    assert frozen["title"] == "Demo standings, as cited"
    assert made.headers["Location"] == frozen["uri"]
    assert frozen["rankedBy"] == "macroF1" and frozen["type"] == "QA"
    assert frozen["dataset"] == site.url + f"dataset/{live['dataset']}"
    assert [(r["rank"], r["task"]) for r in frozen["rows"]] == [
        (r["rank"], r["task"]) for r in live["rows"]
    ]
    for mine, shown in zip(frozen["rows"], live["rows"], strict=True):
        assert mine["score"] == shown["measures"]["macroF1"]
        assert mine["systemUri"] == shown["systemUri"] and mine["experiment"] == shown["experiment"]
    # the same standings again: the same URI, nothing written
    again = site.post("api/leaderboards", json={"title": "another title"})
    assert again.status_code == 200 and again.json()["uri"] == frozen["uri"]
    assert again.json()["title"] == "Demo standings, as cited"
    # the frozen rows are no results: the live leaderboard reads as before
    assert _live(site)["rows"] == live["rows"]
    # the experiment page of a ranked row names the frozen leaderboards it is in
    ranked = site.get(frozen["rows"][0]["experiment"].replace(site.url, ""), headers=HTML)
    assert 'id="frozen-in"' in ranked.text and frozen["uri"] in ranked.text
    listed = site.get("api/leaderboards").json()["leaderboards"]
    assert [x["uri"] for x in listed] == [frozen["uri"]]
    assert site.get(f"api/leaderboards/{frozen['id']}").json() == frozen


def test_its_uri_answers_people_and_strict_clients(site: Server) -> None:
    frozen = site.post("api/leaderboards", json={}).json()
    uri = frozen["uri"]
    path = uri[len(site.url) :]
    page = site.get(path, headers={"Accept": "text/html"})
    assert page.status_code == 200 and 'id="frozen-table"' in page.text
    assert frozen["title"] in page.text and 'id="live-leaderboard"' in page.text
    turtle = site.get(path, headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200
    graph = rdflib.Graph().parse(data=turtle.text, format="turtle", publicID=uri)
    me = rdflib.URIRef(uri)
    assert (me, rdflib.RDF.type, rdflib.URIRef(GQA + "FrozenLeaderboard")) in graph
    entries = list(graph.objects(me, rdflib.URIRef(GQA + "entry")))
    assert len(entries) == len(frozen["rows"])
    ranks = sorted(int(graph.value(e, rdflib.URIRef(GQA + "rank"))) for e in entries)
    assert ranks == list(range(1, len(entries) + 1))
    # each entry IRI is its row's, and lands on that row of the page
    assert {str(e) for e in entries} == {r["entry"] for r in frozen["rows"]}
    for e in entries:
        assert f'<tr id="{str(e).rsplit("#", 1)[1]}"' in page.text, e
    triples = site.get(path, headers={"Accept": "application/n-triples"}).content
    assert len(list(pyoxigraph.parse(triples, format=pyoxigraph.RdfFormat.N_TRIPLES))) == len(graph)
    doc = site.get(path, headers={"Accept": "application/ld+json"}).json()
    expanded = jsonld.expand(doc, {"documentLoader": _no_remote_contexts(site)})
    assert any(GQA + "entry" in node for node in expanded)
    bib = site.get(path + ".bib")
    assert bib.status_code == 200 and bib.headers["Content-Type"].startswith("application/x-bibtex")
    assert f"@misc{{gerbilqa-leaderboard-{frozen['id']}," in bib.text
    # one final newline, as every .bib has (explore55 F8: `cat` joined "}@misc{")
    assert bib.text.endswith("}\n") and not bib.text.endswith("\n\n"), repr(bib.text[-5:])
    asked = site.get(path, headers={"Accept": "application/x-bibtex"})
    assert asked.text == bib.text
    # what it ranks, beside the title its freezer typed (before: the title alone)
    assert "ranks QA results by macro F1 on " in " ".join(bib.text.split()), bib.text
    # a language filter named by its code, as the page says it (was its IRI)
    body = {"dataset": frozen["dataset"].rsplit("/", 1)[1], "language": "en", "profile": "fair"}
    english = site.post("api/leaderboards", json=body).json()
    said = " ".join(site.get(english["uri"][len(site.url) :] + ".bib").text.split())
    # the profile with the version its rows were scored under (explore35 12)
    (version,) = {r["profileVersion"] for r in english["rows"]}
    assert f"profile fair {version}, language en}}" in said and "iso639" not in said, said
    assert f"url = {{{uri}}}" in bib.text and frozen["frozenAt"][:4] in bib.text
    assert bib.text.count("{") == bib.text.count("}")
    table = site.get(path + ".csv")
    rows = list(csv.DictReader(io.StringIO(table.text)))
    assert [int(r["rank"]) for r in rows] == [r["rank"] for r in frozen["rows"]]
    assert rows[0]["task"] == frozen["rows"][0]["task"] and rows[0]["system"]
    # the endpoint has it, with its rows
    answer = site.get(
        "sparql",
        params={"query": f"SELECT (COUNT(?e) AS ?n) WHERE {{ <{uri}> <{GQA}entry> ?e }}"},
        headers={"Accept": "application/sparql-results+json"},
    ).json()
    assert int(answer["results"]["bindings"][0]["n"]["value"]) == len(frozen["rows"])
    from service.web.examples import FROZEN  # the SPARQL page's example finds its rows

    shown = site.get("sparql", params={"query": FROZEN, "format": "json"}).json()
    mine = [b for b in shown["results"]["bindings"] if b["leaderboard"]["value"] == uri]
    assert [int(b["rank"]["value"]) for b in mine] == [r["rank"] for r in frozen["rows"]]
    assert all(b.get("system") and b.get("score") for b in mine)
    assert uri.replace(site.url, "") in site.get("sitemap/1.xml").text
    assert uri in site.get("leaderboards/frozen").text


def _no_remote_contexts(site: Server):
    """pyld's document loader for our own context only (tests never reach the internet)."""
    import requests

    def load(url: str, options: dict | None = None) -> dict:
        assert url.startswith(site.url), url
        document = requests.get(url, headers={"Accept": "application/ld+json"}, timeout=30)
        return {"contextUrl": None, "documentUrl": url, "document": document.json()}

    return load


def test_the_leaderboard_page_freezes_what_it_shows(site: Server) -> None:
    page = site.get("leaderboards")
    assert 'id="freeze-leaderboard"' in page.text
    done = site.post("leaderboards/freeze", data={"sort": "microF1", "title": "From the page"})
    assert done.status_code == 303
    shown = site.get(done.headers["Location"].replace(site.url, ""))
    assert shown.status_code == 200 and "From the page" in shown.text
    assert "Micro F1" in shown.text or "micro F1" in shown.text
    # a state frozen before keeps its URI and first title, whoever freezes it again
    before = site.post("api/leaderboards", json={}).json()
    same = site.post("leaderboards/freeze", data={"title": "Another"})
    assert same.headers["Location"] == before["uri"]


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8443"])
def test_a_freezes_location_does_not_copy_a_forged_host(site: Server, host: str) -> None:
    """The Location after a freeze (the form's 303, the API's 201) was on the request's
    ``Host``: ``Host: evil.example`` sent the browser to ``http://evil.example/leaderboard/…``
    (explore56 F3). Under another host than the base's the form's is the path alone."""
    from urllib.parse import urlsplit

    made = site.post("api/leaderboards", json={}, headers={"Host": host})
    assert made.status_code in (200, 201), made.text
    path = urlsplit(made.json()["uri"]).path
    # the API's is the URI, under the store's base (a relative path was documented as a uri:
    # explore64 F8); the form's 303 the path alone
    assert made.headers["Location"] == made.json()["uri"] and host not in made.headers["Location"]
    form = site.post("leaderboards/freeze", data={}, headers={"Host": host}, allow_redirects=False)
    assert form.status_code == 303 and form.headers["Location"] == path
    asked = site.post("api/leaderboards", json={})  # the base's own host: absolute, as before
    assert asked.headers["Location"] == made.json()["uri"]


def test_what_cannot_be_frozen_is_said(site: Server) -> None:
    bad = site.post("api/leaderboards", json={"sort": "nope"})
    assert bad.status_code == 400 and "sort='nope'" in bad.json()["error"]
    typed = site.post("api/leaderboards", json={"dataset": 5})
    assert typed.status_code == 400 and "$.dataset" in typed.json()["error"]
    empty = site.post("api/leaderboards", json={"dataset": "qald-9-test-multilingual"})
    assert empty.status_code == 400 and "no rows to freeze" in empty.json()["error"]
    assert site.post("api/leaderboards", data="[]").status_code == 400
    assert site.get("leaderboard/0123456789abcdef").status_code == 404
    assert site.get("leaderboard/..%2Fexperiment").status_code == 404
    assert site.get("api/leaderboards/nope").status_code == 404
    # a title past the OpenAPI document's maxLength is refused, as documented (it was cut)
    most = site.get("api/openapi.json").json()["paths"]["/api/leaderboards"]["post"]
    schema = most["requestBody"]["content"]["application/json"]["schema"]
    limit = schema["properties"]["title"]["maxLength"]
    long = site.post("api/leaderboards", json={"sort": "microF1", "title": "t" * (limit + 1)})
    assert long.status_code == 400 and f"at most {limit} characters" in long.json()["error"]


def test_the_bibtex_of_a_title_with_latex_specials() -> None:
    """A user's title goes into LaTeX: its specials escaped (braces and backslashes too: they
    were dropped, ``\\textbf{b}`` printed "textbfb": explore55 F10), one line."""
    from service.web.citation import leaderboard_bibtex

    entry = leaderboard_bibtex(
        "0123456789abcdef",
        "http://x/leaderboard/0123456789abcdef",
        "Q&A at 50% {final}\\n #1_a",
        "2026-11-26T18:30:41.123+00:00",
        base="http://x/",
    )
    title = "title = {{Q\\&A at 50\\% \\textbraceleft{}final"
    title += "\\textbraceright{}\\textbackslash{}n \\#1\\_a}},"
    assert title in entry
    assert "month = nov," in entry and "year = {2026}," in entry


def test_a_title_with_a_control_character_is_refused(site: Server) -> None:
    """A title is stored as a literal every RDF syntax writes: a C0 control character in it made
    the frozen leaderboard's RDF/XML (and every dump of the store) not well-formed XML."""
    import xml.dom.minidom

    for bad in ("a\x01b", "NUL\x00", "bell\x07", "del\x7f"):
        refused = site.post("api/leaderboards", json={"sort": "microF1", "title": bad})
        assert refused.status_code == 400, (bad, refused.text)
        assert "$.title" in refused.json()["error"]
    assert site.post("leaderboards/freeze", data={"title": "form\x02"}).status_code == 400
    made = site.post("api/leaderboards", json={"sort": "macroPrecision", "title": "tab\tand\nline"})
    assert made.status_code in (200, 201), made.text
    path = made.json()["uri"][len(site.url) :]
    rdfxml = site.get(path, headers={"Accept": "application/rdf+xml"})
    xml.dom.minidom.parseString(rdfxml.content)  # well-formed
    assert made.json()["title"] == "tab and line"  # whitespace folded: one line everywhere


def test_the_frozen_leaderboards_are_listed_a_page_at_a_time(site: Server) -> None:
    """A challenge freezes a leaderboard per round and per track: the list is paged as the
    experiments' are (``page``, ``size``, ``next``); it used to be one answer of them all."""
    for sort in ("macroF1", "microF1", "macroRecall"):
        assert site.post("api/leaderboards", json={"sort": sort}).status_code in (200, 201)
    every = site.get("api/leaderboards", params={"size": 500}).json()
    assert len(every["leaderboards"]) >= 3 and every["next"] is None
    first = site.get("api/leaderboards", params={"size": 2}).json()
    assert (first["page"], first["size"], len(first["leaderboards"])) == (1, 2, 2)
    assert first["next"] == f"{site.url}api/leaderboards?page=2&size=2"
    rest: list[dict] = []
    url = first["next"]
    while url:  # the next links walk the whole list, each row once, newest first
        following = site.get(url[len(site.url) :]).json()
        rest += following["leaderboards"]
        url = following["next"]
    assert first["leaderboards"] + rest == every["leaderboards"]
    bad = site.get("api/leaderboards", params={"size": 0})
    assert bad.status_code == 400 and "size" in bad.json()["error"]
    page = site.get("leaderboards/frozen", params={"size": 2}, headers=HTML).text
    assert 'rel="next"' in page and page.count('<th scope="row">') == 2
    last = site.get("leaderboards/frozen", params={"size": 2, "page": 2}, headers=HTML).text
    assert 'rel="prev"' in last


ADMIN = "operator-of-the-frozen-test"


def test_the_operator_removes_a_frozen_leaderboard(tmp_path) -> None:
    """Anyone may freeze and the first title of a state is kept: whoever froze first with an
    offensive title named the standings for good (no way to remove one). Now the operator's
    admin token (API) or ``gerbil-qa leaderboard remove`` (CLI) takes it away; its URI and its
    JSON answer 410 saying when, the listings, endpoint and union forget it, and the same
    standings freeze anew."""
    site = start_server(tmp_path / "store", admin_token=ADMIN)
    try:
        spam = site.post("api/leaderboards", json={"title": "buy cheap pills"}).json()
        path = f"api/leaderboards/{spam['id']}"
        assert site.delete(path).status_code == 403
        assert site.delete(path, headers={"Authorization": "Bearer nope"}).status_code == 403
        gone = site.delete(path, headers={"Authorization": f"Bearer {ADMIN}"})
        assert gone.status_code == 200 and gone.json() == {
            "id": spam["id"],
            "uri": spam["uri"],
            "removed": True,
        }
        # its JSON says what its URI says: 410, removed when (it said 404; explore54 F3)
        api = site.get(path)
        assert api.status_code == 410 and api.json()["status"] == 410
        assert "removed by the operator" in api.json()["error"]
        # not "gone for good": the same standings frozen anew bring the URI back (F2)
        assert "for good" not in api.json()["error"] and "frozen anew" in api.json()["error"]
        # its URI was public and may be cited: 410 Gone, saying when, nothing else of it (hq78)
        board = spam["uri"][len(site.url) :]
        page = site.get(board, headers=HTML)
        assert page.status_code == 410 and "removed by the operator" in page.text
        assert "<h1>410 Gone</h1>" in page.text  # the heading says what the code means
        assert "pills" not in page.text
        when = site.storage.private.query(
            f"SELECT ?t {{ GRAPH ?g {{ <{spam['uri']}> <{GQA}removedAt> ?t }} }}"
        )
        (removed,) = [row["t"] for row in when]
        assert removed.value[:19].replace("T", " ") in page.text
        assert removed.value[:19].replace("T", " ") in api.json()["error"]
        assert "for good" not in page.text and "frozen anew" in page.text
        rdf = site.get(board, headers={"Accept": "text/turtle"})
        assert rdf.status_code == 410 and rdf.headers["Content-Type"].startswith("text/turtle")
        said = rdflib.Graph().parse(data=rdf.text, format="turtle")
        assert set(said) == {
            (
                rdflib.URIRef(spam["uri"]),
                rdflib.URIRef(GQA + "removedAt"),
                rdflib.Literal(removed.value, datatype=rdflib.XSD.dateTime),
            )
        }
        assert site.get(board + ".csv").status_code == 410
        never = site.get("leaderboard/0123456789abcdef", headers=HTML)
        assert never.status_code == 404  # never frozen: nothing was there
        assert site.get("api/leaderboards").json()["leaderboards"] == []
        me = f"<{spam['uri']}>"
        ask = f"ASK {{ {{ {me} ?p ?o }} UNION {{ GRAPH ?g {{ {me} ?p ?o }} }} }}"
        answer = site.get("sparql", params={"query": ask, "format": "json"}).json()
        assert answer["boolean"] is False  # neither its graph nor the union keeps it
        again = site.delete(path, headers={"Authorization": f"Bearer {ADMIN}"})
        assert again.status_code == 404
        fair = site.post("api/leaderboards", json={"title": "Final standings"})
        assert fair.status_code == 201 and fair.json()["id"] == spam["id"]  # the same state
        assert fair.json()["title"] == "Final standings"
        assert site.get(board, headers=HTML).status_code == 200  # frozen anew: back
    finally:
        stop_server(site)


def test_the_command_line_lists_and_removes_frozen_leaderboards(tmp_path, capsys) -> None:
    """``gerbil-qa leaderboard list|remove`` on a store no server holds (a server's store is
    its own: the API above is the way there)."""
    from service.cli import main
    from service.graph import leaderboards
    from service.graph.store import open_storage

    store = tmp_path / "store"
    with open_storage(store, base="http://gerbil-qa.test/", catalog=False) as storage:
        standing = leaderboards.Standing(
            experiment_type="http://w3id.org/gerbil/vocab#QA",
            measure="http://w3id.org/gerbil/vocab#macroF1",
        )
        row = leaderboards.Row(rank=1, task="http://gerbil-qa.test/experiment/1/task/1", score=0.5)
        uri, _ = leaderboards.freeze(storage, standing, [row], title="Final standings")
    lid = uri.rsplit("/", 1)[1]
    capsys.readouterr()
    assert main(["leaderboard", "list", "--store", str(store)]) == 0
    listed = capsys.readouterr()
    assert listed.out.split("  ")[::2] == [lid, "Final standings\n"]
    assert listed.err == "1 frozen leaderboard(s)\n"  # counted, as `experiments` counts
    backup = tmp_path / "before.nq"
    assert main(["export", "--store", str(store), "--output", str(backup)]) == 0
    assert main(["leaderboard", "remove", "--store", str(store), lid]) == 0
    assert f"removed {lid}: {uri}" in capsys.readouterr().out
    assert main(["leaderboard", "remove", "--store", str(store), lid]) == 1
    assert "no frozen leaderboard" in capsys.readouterr().out
    assert main(["leaderboard", "list", "--store", str(store)]) == 0
    # none: said on stderr, where nothing at all was printed (explore51 F7)
    assert capsys.readouterr() == ("", "no frozen leaderboards\n")
    # a backup made before, imported to restore something else, leaves the removal standing
    # and says so (it brought the board back, unsaid: explore-12 6); frozen anew, it is back
    assert main(["import", "--store", str(store), str(backup)]) == 0
    said = capsys.readouterr().err
    assert f"removed from the store since and are left out: {lid}" in said, said
    assert main(["leaderboard", "list", "--store", str(store)]) == 0
    assert capsys.readouterr().out == ""
    with open_storage(store, base="http://gerbil-qa.test/", catalog=False) as storage:
        assert leaderboards.freeze(storage, standing, [row], title="Again")[1]
    assert main(["import", "--store", str(store), str(backup)]) == 0
    assert "frozen leaderboard" not in capsys.readouterr().err
    assert main(["leaderboard", "list", "--store", str(store)]) == 0
    assert capsys.readouterr().out.split("  ")[::2] == [lid, "Again\n"]


def _publish_runs(
    site: Server,
    *runs: tuple[str, str],
    profile: str = "fair",
    kb: str | None = "demo",
    publish: bool = True,
    warned: list[str] | None = None,
) -> str:
    """One experiment on the demo questions: each (system, demo answers) as an answer file
    named after the system, matched through ``kb`` (None: no KB); published (the
    submission's and the publication's ``warnings`` added to ``warned``)."""
    from service.paths import DEMO_DIR

    files = [("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes()))]
    for system, answers in runs:
        files.append(
            ("answers", (f"{system}.json", (DEMO_DIR / f"answers-{answers}.json").read_bytes()))
        )
    data = {"profile": profile, **({"kb": kb} if kb else {})}
    made = site.post("api/experiments", files=files, data=data)
    assert made.status_code == 202, made.text
    ticket = made.json()
    if warned is not None:
        warned += ticket.get("warnings", [])
    site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    if not publish:  # left private, its owner's token its id's
        return f"{ticket['id']} {ticket['token']}"
    published = site.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
    assert published.status_code == 200, published.text
    if warned is not None:
        warned += published.json()["warnings"]
    return ticket["id"]


def test_ranks_count_systems_and_rows_are_runs(tmp_path) -> None:
    """The same answer file published in two experiments was ranked 2 and 2, and the next
    system "4th" of three (explore-7 3): a system's best run takes the rank, its other run
    shares it without taking one and names the ranked run's task, in the live and the frozen
    leaderboard alike; the frozen CSV ends with the row's languages and that task. A system
    is its name: a submission under a name another experiment published already is told so
    (its 202's ``warnings``), and so is its owner when publishing (the publication's
    ``warnings``, its page after the form's publication) (two teams under one
    name were merged into one system without a word: explore58 F2)."""
    site = start_server(tmp_path / "store", demo=False)
    try:
        warned: list[str] = []
        first = _publish_runs(site, ("alpha", "strong"), ("beta", "partial"), warned=warned)
        assert warned == []
        second = _publish_runs(site, ("beta", "partial"), ("gamma", "baseline"), warned=warned)
        submitted, published = warned  # said at once, and again to the publishing owner
        assert f"system/beta by {first}" in submitted and "once published" in submitted
        assert f"system/beta by experiment {first}" in published, published
        assert "gamma" not in " ".join(warned) and "under a name of your own" in published
        shown = site.get(f"experiment/{second}?published=1&nameInUse=1", headers=HTML).text
        assert 'id="name-in-use"' in shown and f"system/beta by experiment {first}" in shown
        # and before publishing, on the owner's page of a finished run (the run form's answer)
        third, token = _publish_runs(site, ("beta", "partial"), publish=False).split()
        own = {**HTML, "Authorization": f"Bearer {token}"}
        shown = site.get(f"experiment/{third}", headers=own).text
        assert "Before you publish:" in shown and f"by experiments {first}, {second}" in shown
        assert "delete this experiment" in shown and 'id="publish"' in shown
        live = _live(site)["rows"]
        assert [r["system"] for r in live] == ["alpha", "beta", "beta", "gamma"]
        assert [r["rank"] for r in live] == [1, 2, 2, 3]  # gamma was 4th of three systems
        assert [r["otherRunOf"] for r in live] == [None, None, live[1]["task"], None]
        table = list(csv.reader(io.StringIO(site.get("leaderboards?format=csv").text)))
        column = table[0].index("otherRunOf")
        assert table[3][column] == live[1]["task"]
        page = site.get("leaderboards", headers=HTML).text
        assert 'id="ranks-note"' in page and "another run of beta" in page
        assert '<abbr class="other-run"' in page and ">(2)</abbr>" in page
        assert 'id="ranks-mixed"' not in page  # one dataset, language and profile

        made = site.post("api/leaderboards", json={"title": "Final ranking"})
        assert made.status_code == 201, made.text
        frozen = made.json()
        assert [(r["rank"], r["system"], r["otherRunOf"]) for r in frozen["rows"]] == [
            (r["rank"], r["system"], r["otherRunOf"]) for r in live
        ]
        assert site.get(f"api/leaderboards/{frozen['id']}").json() == frozen  # read back
        path = frozen["uri"][len(site.url) :]
        rows = list(csv.reader(io.StringIO(site.get(path + ".csv").text)))
        header = rows[0]
        # new columns at the end only: the first ten are as before
        before = "rank tier system systemUri experiment task score scoreLow scoreHigh withdrawnAt"
        assert header[:10] == before.split()
        assert header[10:] == [
            "languageTag",
            "otherRunOf",
            "profile",
            "knowledgeBase",
            "undefinedResamples",
            "profileVersion",
            "tierNote",
            "tierSignature",
        ]
        assert [(r[0], r[2], r[10], r[11], r[12]) for r in rows[1:]] == [
            ("1", "alpha", "en", "", "fair"),
            ("2", "beta", "en", "", "fair"),
            ("2", "beta", "en", live[1]["task"], "fair"),
            ("3", "gamma", "en", "", "fair"),
        ]
        graph = rdflib.Graph().parse(
            data=site.get(path, headers={"Accept": "text/turtle"}).text,
            format="turtle",
            publicID=frozen["uri"],
        )
        other = rdflib.URIRef(GQA + "otherRunOf")
        assert list(graph.subject_objects(other)) == [
            (rdflib.URIRef(frozen["uri"] + "#rank-2-2"), rdflib.URIRef(live[1]["task"]))
        ]
        shown = site.get(path, headers=HTML).text
        assert 'id="ranks-note"' in shown and "another run of beta" in shown
        assert "one per run (task)" in shown
        # one KB: nothing said of KBs, and no KB column
        assert frozen["mixedKnowledgeBases"] == [] and 'id="mixed-kbs"' not in shown
        assert '<th scope="col">KB</th>' not in shown
        # a run under another profile beside them: a system has a rank in each, which is said
        _publish_runs(site, ("alpha", "strong"), profile="exact")
        mixed = site.get("leaderboards", headers=HTML).text
        assert 'id="ranks-mixed"' in mixed and 'id="mixed-profiles"' in mixed
        # frozen, its rows say their profile (page, JSON, CSV) and the page says why alpha
        # ranks twice; its note says what it ranks: all profiles (explore-11 7)
        both = site.post("api/leaderboards", json={"title": "Both profiles"}).json()
        alpha = [
            (r["rank"], r["profile"], r["otherRunOf"])
            for r in both["rows"]
            if r["system"] == "alpha"
        ]
        # a rank in each profile, counted within it: the exact row was 2nd of rows it was
        # never ranked against (explore25 13)
        assert alpha == [(1, "fair", None), (1, "exact", None)]
        path = both["uri"][len(site.url) :]
        shown = site.get(path, headers=HTML).text
        assert '<th scope="col">Profile</th>' in shown and 'id="ranks-mixed"' in shown
        assert "<td>exact</td>" in shown and '<th scope="col">Lang.</th>' not in shown
        assert "all profiles, all languages" in " ".join(site.get(path + ".bib").text.split())
    finally:
        stop_server(site)


def test_a_board_of_rows_on_two_knowledge_bases_says_so(tmp_path) -> None:
    """The live board warns that rows of one profile computed on different KBs do not compare;
    frozen, the same rows were one ranking without a word of it, nor which row was on which KB
    (explore-15 7). Said from the tasks' signatures: the board's id (a hash of its rows) is as
    it was."""
    site = start_server(tmp_path / "store", demo=False)
    try:
        _publish_runs(site, ("alpha", "strong"), ("beta", "baseline"))  # on the demo KB
        _publish_runs(site, ("gamma", "partial"), kb=None)
        assert 'id="mixed-kbs"' in site.get("leaderboards", headers=HTML).text
        made = site.post("api/leaderboards", json={"title": "Two KBs", "profile": "fair"})
        assert made.status_code == 201, made.text
        frozen = made.json()
        assert frozen["mixedKnowledgeBases"] == ["fair"]
        kb = {r["system"]: r["knowledgeBase"] for r in frozen["rows"]}
        assert kb["gamma"] == "none" and kb["alpha"] == kb["beta"], kb
        assert kb["alpha"].startswith("file:sha256:"), kb
        path = frozen["uri"][len(site.url) :]
        page = site.get(path, headers=HTML).text
        assert 'id="mixed-kbs"' in page and "Rows of profile fair were computed on" in page
        assert (  # a row computed with no KB: none known, not another KB (explore41 F6)
            '<th scope="col">KB</th>' in page
            and '<td class="kb" title="kb:none">no KB / unknown</td>' in page
            and "or name none (no KB / unknown: answers given, not computed here)" in page
        )
        rows = list(csv.DictReader(io.StringIO(site.get(path + ".csv").text)))
        assert {r["system"]: r["knowledgeBase"] for r in rows} == kb
        bib = " ".join(site.get(path + ".bib").text.split())
        assert "rows of profile fair were computed on different knowledge bases" in bib, bib
        # nothing of it is stored with the rows: the id is the hash of the rows alone
        from service.graph import leaderboards

        found = leaderboards.read(site.storage, frozen["id"])
        assert found is not None
        assert leaderboards.frozen_id(found.standing, found.rows) == frozen["id"]
    finally:
        stop_server(site)


def test_a_frozen_row_says_on_how_many_resamples_its_measure_was_undefined(tmp_path) -> None:
    """Macro F1 (QALD) is undefined on a bootstrap resample without a right answer: the live
    board says on how many (and why an interval is missing), the frozen one kept the interval
    alone, or nothing. Of the demo's 14 questions: one right (no interval), four right (a few
    left out); as ``tests/web/test_result_pages.py`` has them."""

    files = demo_first_right(1, 4)
    site = start_server(tmp_path / "store", demo=False)
    try:
        made = site.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
        ticket = made.json()
        state = site.wait_finished(ticket["id"], ticket["token"])
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).ok
        counts = {
            e["system"]: e["undefinedResamples"]["QA"]["macroF1QALD"] for e in state["evaluations"]
        }
        frozen = site.post(
            "api/leaderboards", json={"title": "QALD F1", "sort": "macroF1QALD"}
        ).json()
        rows = {r["system"]: r for r in frozen["rows"]}
        many, few = counts["right1"], counts["right4"]
        assert rows["right1"]["undefinedResamples"] == many
        assert (
            rows["right1"]["intervalNote"] == f"no interval: undefined on {many} of 1,000 resamples"
        )
        assert rows["right4"]["intervalNote"] == f"{few} of 1,000 resamples undefined, left out"
        assert rows["right4"]["scoreLow"] is not None and rows["right1"]["scoreLow"] is None
        path = frozen["uri"][len(site.url) :]
        assert site.get(f"api/leaderboards/{frozen['id']}").json() == frozen  # read back
        page = site.get(path, headers=HTML).text
        assert f"no interval: undefined on {many} of 1,000 resamples" in page
        table = list(csv.DictReader(io.StringIO(site.get(path + ".csv").text)))
        assert {r["system"]: r["undefinedResamples"] for r in table} == {
            "right1": str(many),
            "right4": str(few),
        }
        graph = rdflib.Graph().parse(
            data=site.get(path, headers={"Accept": "text/turtle"}).text, format="turtle"
        )
        kept = sorted(
            int(o) for o in graph.objects(None, rdflib.URIRef(GQA + "scoreUndefinedResamples"))
        )
        assert kept == sorted([many, few])
        # a board whose measure was never undefined keeps the id it had (no count in its rows)
        plain = site.post("api/leaderboards", json={"title": "F1"}).json()
        assert all(r["undefinedResamples"] is None for r in plain["rows"])
    finally:
        stop_server(site)


def test_a_reference_system_is_shown_for_scale_not_ranked_or_tiered(tmp_path) -> None:
    """gold-sparql (the gold queries run on the KB, the upper bound) was ranked 1st and tiered
    on a public leaderboard like a participant, and its pairs joined Holm's family, moving the
    participants' tiers (explore25 2). Its row stays, marked, without rank or tier; the
    participants are ranked from 1 and tested among themselves; a frozen board leaves it out."""
    from service.paths import DEMO_DIR

    site = start_server(tmp_path / "store", demo=False)
    try:
        files = [("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes()))]
        for system, answers in (("alpha", "strong"), ("beta", "partial")):
            body = (DEMO_DIR / f"answers-{answers}.json").read_bytes()
            files.append(("answers", (f"{system}.json", body)))
        data = {"profile": "fair", "kb": "demo", "reference": "gold=gold-sparql"}
        made = site.post("api/experiments", files=files, data=data)
        assert made.status_code == 202, made.text
        ticket = made.json()
        site.wait_finished(ticket["id"], ticket["token"])
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).ok
        live = site.get("leaderboards", params={"format": "json"}).json()["rows"]
        by_system = {r["system"]: r for r in live}
        gold = by_system["gold"]
        assert gold["measures"]["macroF1"] == 1.0  # the upper bound: ranked first before
        assert (gold["rank"], gold["tier"], gold["reference"]) == (None, None, True)
        assert gold["tierNote"].startswith("a reference system (gold-sparql")
        assert [(by_system[s]["rank"], by_system[s]["reference"]) for s in ("alpha", "beta")] == [
            (1, False),
            (2, False),
        ]
        assert "|pairs:1|" in by_system["alpha"]["tierSignature"]  # alpha and beta alone
        # a page at a time, each row as on the whole board: a later page tested another
        # family, the reference dropped from the first rows instead of read past (explore27 F13)
        for number in (1, 2, 3):
            params = {"format": "json", "size": "1", "page": str(number)}
            (one,) = site.get("leaderboards", params=params).json()["rows"]
            whole = by_system[one["system"]]
            assert (one["tier"], one["tierSignature"]) == (whole["tier"], whole["tierSignature"])
        # the board's rows ticked and compared: as on the board (explore27 F3)
        compared = site.post("api/compare", json={"tasks": [r["task"] for r in live]}).json()
        shown = {c["system"]: c for c in compared["systems"]}
        assert shown["gold"]["reference"] is True and shown["gold"]["tier"] is None
        assert (
            "reference" not in shown["alpha"]
            and shown["alpha"]["tier"] == by_system["alpha"]["tier"]
        )
        assert [(p["a"], p["b"]) for p in compared["pairs"]] in (
            [("alpha", "beta")],
            [("beta", "alpha")],
        )
        page = site.get("leaderboards", headers=HTML).text
        assert "reference system: for scale, not ranked" in page
        table = site.get("leaderboards", params={"format": "csv"}).text.splitlines()
        header = table[0].split(",")
        assert header[-2:] == ["reference", "profileVersion"]
        assert sorted(line.split(",")[-2] for line in table[1:]) == ["false", "false", "true"]
        # the graph says it: a class of our vocabulary, not a comment to parse
        ask = (
            "ASK { ?t <http://w3id.org/gerbil/vocab#annotator> ?s . "
            "?s a <http://w3id.org/gerbil/qa/vocab#ReferenceSystem> }"
        )
        assert site.get("sparql", params={"query": ask}).json()["boolean"] is True
        frozen = site.post("api/leaderboards", json={"title": "Participants"}).json()
        assert [r["system"] for r in frozen["rows"]] == ["alpha", "beta"]
        # a graph written before the class says it in the system's comment: still told
        from service.graph.adapter import Side

        typed = "?s a <http://w3id.org/gerbil/qa/vocab#ReferenceSystem>"
        for side in (Side.PUBLIC, Side.PRIVATE):
            site.storage.store.update(side, f"DELETE WHERE {{ GRAPH ?g {{ {typed} }} }}")
        site.storage.store.update(Side.PUBLIC, f"DELETE WHERE {{ {typed} }}")  # the union copy
        assert not site.storage.public.query(f"ASK {{ {typed} }}")
        again = site.get("leaderboards", params={"format": "json"}).json()["rows"]
        assert {r["system"]: r["reference"] for r in again} == {
            "alpha": False,
            "beta": False,
            "gold": True,
        }
        # under a profile that matches through no KB, its reproduction from the archived
        # values names no KB where the recorded signature names the one that computed them:
        # the page says so (explore25 3); the participants' need no word
        data = {**data, "profile": "exact"}
        made = site.post("api/experiments", files=files, data=data)
        again = made.json()
        site.wait_finished(again["id"], again["token"])
        owner = {"Authorization": f"Bearer {again['token']}"}
        page = site.get(f"experiment/{again['id']}", headers={**owner, **HTML}).text
        assert 'id="reproduce-from-values"' in page
        note = page.split('id="reproduce-from-values">', 1)[1].split("</p>", 1)[0]
        assert note.startswith("gold: a reference system's answers")
        fair = site.get(f"experiment/{ticket['id']}", headers=HTML).text
        assert 'id="reproduce-from-values"' not in fair  # fair matches through the KB given
    finally:
        stop_server(site)


@pytest.mark.parametrize("sort", ["microF1", "microPrecision", "macroF1"])
def test_each_row_has_its_own_interval_and_tier_whatever_the_sort(tmp_path, sort: str) -> None:
    """Sorted by micro F1 or micro precision, rows showed the intervals and tiers of other
    rows (the comparison's systems, best first by tier, were zipped with the board's rows by
    position), and a frozen board kept them (explore24 5). Each row's interval holds its own
    value; rows of the same answers have the same interval and tier, live and frozen."""
    site = start_server(tmp_path / "store", demo=False)
    try:
        _publish_runs(site, ("alpha", "strong"), ("beta", "partial"), ("gamma", "baseline"))
        _publish_runs(site, ("delta", "partial"), ("epsilon", "baseline"))
        live = site.get("leaderboards", params={"format": "json", "sort": sort}).json()["rows"]
        assert len(live) == 5
        for row in live:
            value = row["measures"][sort]
            low, high = row["intervals"][sort]
            assert low <= value <= high, (row["system"], value, low, high)
        by = {r["system"]: (r["tier"], r["intervals"][sort]) for r in live}
        assert by["beta"] == by["delta"] and by["gamma"] == by["epsilon"], by
        frozen = site.post("api/leaderboards", json={"sort": sort}).json()["rows"]
        kept = {r["system"]: (r["tier"], [r["scoreLow"], r["scoreHigh"]]) for r in frozen}
        assert kept == by
        # rows in an order the comparison does not list them in (worst first, as a board
        # sorted by another measure than the tiers' order has them): each its own standing
        from service.web import comparing

        worst_first = [r["task"] for r in reversed(live)]
        with site.app.app_context():
            standings = comparing.leaderboard_tiers(worst_first, sort)
        for row in live:
            assert list(standings[row["task"]].interval or ()) == row["intervals"][sort]
            assert standings[row["task"]].tier == row["tier"], row["system"]
    finally:
        stop_server(site)


def test_a_frozen_row_keeps_why_it_had_no_tier(tmp_path) -> None:
    """A frozen board showed a bare "–" where the live board said why a row had no tier (the
    only row tested, another signature, an older version): a reader of the cited board was
    left guessing. The reason is kept with the row (gqa:tierNote) and said under the table as
    on the live board; a board frozen before reasons were kept says that instead."""
    from service.graph.adapter import Side
    from service.paths import DEMO_DIR
    from service.web.state import EXTENSION

    site = start_server(tmp_path / "store", demo=False)
    try:
        files = [
            ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
            ("answers", ("alpha.json", (DEMO_DIR / "answers-strong.json").read_bytes())),
        ]
        made = site.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
        assert made.status_code == 202, made.text
        ticket = made.json()
        site.wait_finished(ticket["id"], ticket["token"])
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).ok
        (live,) = site.get("leaderboards", params={"format": "json"}).json()["rows"]
        assert live["tier"] is None and "the only row" in live["tierNote"]
        frozen = site.post("api/leaderboards", json={"title": "One row"}).json()
        (row,) = frozen["rows"]
        assert row["tier"] is None and row["tierNote"] == live["tierNote"]
        # the reason is not part of the standings: a board frozen before reasons were kept is
        # the one these standings name
        from dataclasses import replace

        from service.graph import leaderboards

        kept = leaderboards.read(site.storage, frozen["id"])
        assert kept is not None and kept.rows[0].tier_note == live["tierNote"]
        unsaid = [replace(r, tier_note=None) for r in kept.rows]
        assert leaderboards.frozen_id(kept.standing, unsaid) == frozen["id"]
        path = frozen["uri"][len(site.url) :]
        page = site.get(path, headers=HTML).text
        assert 'class="tier-why" aria-describedby="tier-reason-1"' in page
        reasons = page.split('<ul class="notes" id="tier-reasons">', 1)[1].split("</ul>", 1)[0]
        assert f"No tier: {live['tierNote']}." in reasons
        (table,) = list(csv.DictReader(io.StringIO(site.get(path + ".csv").text)))
        assert table["tierNote"] == live["tierNote"]
        graph = rdflib.Graph().parse(
            data=site.get(path, headers={"Accept": "text/turtle"}).text, format="turtle"
        )
        (note,) = graph.objects(None, rdflib.URIRef(GQA + "tierNote"))
        assert (str(note), note.language) == (live["tierNote"], "en")
        # a board of tiered rows (beta published beside alpha); a row of it without a tier
        # or a reason is one below the tiered rows, or (frozen before the reasons were kept,
        # written here as older code wrote it) a row whose reason was not kept
        files[1] = ("answers", ("beta.json", (DEMO_DIR / "answers-partial.json").read_bytes()))
        made = site.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
        second = made.json()
        site.wait_finished(second["id"], second["token"])
        auth = {"Authorization": f"Bearer {second['token']}"}
        assert site.post(f"api/experiments/{second['id']}/publish", headers=auth).ok
        shown = site.get("leaderboards", params={"format": "json"}).json()["rows"]
        tiered = site.post("api/leaderboards", json={"title": "Two rows"}).json()
        assert [r["tier"] for r in tiered["rows"]] == [1, 2] or all(
            r["tier"] == 1 for r in tiered["rows"]
        )
        assert all(r["tierNote"] is None for r in tiered["rows"])
        # how the tiers were computed is frozen with them (explore60 F3: the live rows' only):
        # in the JSON and CSV as tierSignature, in the RDF as gqa:tierSignature, on the page
        # in one line near the tiers
        signature = shown[0]["tierSignature"]
        assert signature and signature.endswith(
            "|test:ar|n:10000|seed:12345|correction:holm|pairs:1|alpha:0.05"
        )
        assert [r["tierSignature"] for r in tiered["rows"]] == [signature, signature]
        path = tiered["uri"][len(site.url) :]
        table = list(csv.DictReader(io.StringIO(site.get(path + ".csv").text)))
        assert [r["tierSignature"] for r in table] == [signature, signature]
        graph = rdflib.Graph().parse(
            data=site.get(path, headers={"Accept": "text/turtle"}).text, format="turtle"
        )
        said = {str(s) for s in graph.objects(None, rdflib.URIRef(GQA + "tierSignature"))}
        assert said == {signature}
        assert re.search(tier_signature_pattern(), signature)  # its shape's (explore65 F5)
        method = site.get(path, headers=HTML).text.split('id="tier-method">', 1)[1]
        assert method.split("</p>", 1)[0] == (
            "Tiers tested with approximate randomisation, 10,000 shuffles, seed 12345, "
            "Holm-corrected over 1 pair (alpha 0.05); intervals from 1,000 bootstrap "
            "resamples, seed 12345. "
        )
        # a row without a tier or a reason is one of a board frozen before the reasons were
        # kept (written here as older code wrote it), whatever day it was frozen on: a board
        # frozen that day by older code was told apart by its date (explore40 3)
        uri, last = tiered["uri"], tiered["rows"][-1]["entry"]
        site.storage.store.update(
            Side.PUBLIC, f"DELETE WHERE {{ GRAPH ?g {{ <{last}> <{GQA}tier> ?t }} }}"
        )
        site.storage.store.update(Side.PUBLIC, f"DELETE WHERE {{ <{last}> <{GQA}tier> ?t }}")
        # nor how tiers were computed (kept from 2026-11-29): nothing is said of it then
        for where in ("GRAPH ?g { ?e <%stierSignature> ?s }", "?e <%stierSignature> ?s"):
            site.storage.store.update(Side.PUBLIC, "DELETE WHERE { %s }" % (where % GQA))
        site.app.extensions[EXTENSION].changed()  # written behind the service's back
        older = site.get(uri[len(site.url) :], headers=HTML).text
        assert 'id="tier-method"' not in older
        assert [
            r["tierSignature"] for r in site.get(f"api/leaderboards/{tiered['id']}").json()["rows"]
        ] == [None, None]
        assert (
            '<abbr title="no tier as frozen (leaderboards frozen before 29 November 2026 keep '
            'no reason)">–</abbr>'
        ) in older
        # a row below the tiered ones keeps that as its reason; a board without tiers keeps none
        from service.web.frozen import _tier_note

        below = {"tier": None, "tierNote": None, "tierSignature": None}
        assert _tier_note(below, tiered=True) == "tiers are given to the top 10 rows only"
        assert _tier_note(below, tiered=False) is None
    finally:
        stop_server(site)
