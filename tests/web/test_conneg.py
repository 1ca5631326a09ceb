"""Content negotiation of resource URIs on the running server: every rule of issue 4.

Format URLs, ``?format=``, Accept with q-values and specificity, defaults without Accept,
406, ``Vary``, ``Link: rel="alternate"``, HEAD, 404s, GERBIL's ``experiment?id=`` redirect,
and that Turtle, JSON-LD, RDF/XML, N-Triples and N-Quads of one resource are the same graph.
"""

from __future__ import annotations

import csv
import io
import re

import pyoxigraph
import pytest
import rdflib
from rdflib.compare import isomorphic

from tests.web.conftest import resources

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # inside rdflib

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
RDFLIB_FORMAT = {
    "text/turtle": "turtle",
    "application/ld+json": "json-ld",
    "application/n-triples": "nt",
    "application/rdf+xml": "xml",
    "application/n-quads": "nquads",
    "application/trig": "trig",
}
EXTENSIONS = {
    "ttl": "text/turtle",
    "jsonld": "application/ld+json",
    "nt": "application/n-triples",
    "rdf": "application/rdf+xml",
    "nq": "application/n-quads",
    "trig": "application/trig",
    "csv": "text/csv",
    "html": "text/html",
    "bib": "application/x-bibtex",
}


def kind(response) -> str:
    return response.headers["Content-Type"].split(";")[0].strip()


@pytest.fixture(scope="module")
def exp(server) -> str:
    return f"experiment/{server.demo_id}"


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, "text/html"),  # no Accept header: the default (not Werkzeug's silent default)
        ("*/*", "text/html"),
        (BROWSER, "text/html"),
        ("text/turtle", "text/turtle"),
        ("application/x-turtle", "text/turtle"),
        ("application/ld+json", "application/ld+json"),
        ("application/n-triples", "application/n-triples"),
        ("text/plain", "application/n-triples"),
        ("application/rdf+xml", "application/rdf+xml"),
        ("application/n-quads", "application/n-quads"),
        ("application/trig", "application/trig"),
        ("text/csv", "text/csv"),
        ("TEXT/Turtle; charset=utf-8", "text/turtle"),  # case and parameters ignored
        ("text/turtle;q=0.5, application/rdf+xml;q=0.9", "application/rdf+xml"),
        ("application/rdf+xml;q=0.4, text/turtle", "text/turtle"),
        ("text/*;q=0.3, text/turtle;q=0.8, */*;q=0.1", "text/turtle"),
        # q=0 refuses a type even when a wildcard would match it (RFC 9110 §12.5.1)
        ("text/html;q=0, text/turtle;q=0, */*", "application/ld+json"),
        ("text/turtle;q=0, text/*", "text/html"),
        # JSON asked of a resource is its JSON-LD, as a CONSTRUCT's is (explore45 11)
        ("application/json", "application/ld+json"),
        ("application/json;q=1, text/turtle;q=0.2", "application/ld+json"),
        ("application/json;q=0.2, text/turtle", "text/turtle"),
        ("text/turtle, application/ld+json", "text/turtle"),  # tie: the server's order
    ],
)
def test_accept(server, exp: str, accept: str | None, expected: str) -> None:
    headers = {} if accept is None else {"Accept": accept}
    response = server.get(exp, headers=headers)
    assert response.status_code == 200, response.text
    assert kind(response) == expected
    assert "Accept" in response.headers["Vary"]


@pytest.mark.parametrize("accept", ["image/png", "application/pdf", "text/html;q=0", "foo"])
def test_406_when_nothing_fits(server, exp: str, accept: str) -> None:
    response = server.get(exp, headers={"Accept": accept})
    assert response.status_code == 406
    assert "text/turtle" in response.text  # says what is available
    assert "Accept" in response.headers["Vary"]


def test_json_is_json_ld_on_a_resource_as_on_a_construct(server, exp: str) -> None:
    """One rule for ``Accept: application/json``: a resource answered 406 where a SPARQL
    CONSTRUCT answered JSON-LD (explore45 11); both give JSON-LD now, a SELECT its JSON
    results."""
    json_only = {"Accept": "application/json"}
    document = server.get(exp, headers=json_only)
    assert document.status_code == 200 and kind(document) == "application/ld+json"
    assert '"@context"' in document.text
    assert server.get(exp, params={"format": "application/json"}).status_code == 200
    uri = f"{server.url}{exp}"
    construct = f"CONSTRUCT {{ <{uri}> ?p ?o }} WHERE {{ <{uri}> ?p ?o }}"
    answer = server.get("sparql", params={"query": construct}, headers=json_only)
    assert answer.status_code == 200 and kind(answer) == "application/ld+json"
    select = server.get(
        "sparql", params={"query": "SELECT * { ?s ?p ?o } LIMIT 1"}, headers=json_only
    )
    assert kind(select) == "application/sparql-results+json"


@pytest.mark.parametrize("ext", sorted(EXTENSIONS))
def test_format_urls(server, exp: str, ext: str) -> None:
    # An extension wins over Accept.
    response = server.get(f"{exp}.{ext}", headers={"Accept": "application/rdf+xml"})
    assert response.status_code == 200
    assert kind(response) == EXTENSIONS[ext]
    # it does not vary (the extension chose): no Vary: Accept, and it names the URI it is a
    # representation of (RFC 6596), explore45 13 and 15
    assert "Accept" not in response.headers.get("Vary", "")
    assert f'<{server.url}{exp}>; rel="canonical"' in response.headers["Link"]
    assert 'rel="alternate"' in response.headers["Link"]
    # the URI itself varies, and is its own canonical URI: no rel="canonical"
    negotiated = server.get(exp, headers={"Accept": EXTENSIONS[ext]})
    assert "Accept" in negotiated.headers["Vary"]
    assert 'rel="canonical"' not in negotiated.headers["Link"]
    # a 304 at a format URL says the same
    again = server.get(f"{exp}.{ext}", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and "Accept" not in again.headers.get("Vary", "")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("turtle", "text/turtle"),
        ("ttl", "text/turtle"),
        ("text/turtle", "text/turtle"),
        ("jsonld", "application/ld+json"),
        ("nt", "application/n-triples"),
        ("rdfxml", "application/rdf+xml"),
        ("csv", "text/csv"),
        ("html", "text/html"),
    ],
)
def test_format_parameter(server, exp: str, value: str, expected: str) -> None:
    response = server.get(exp, params={"format": value}, headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert kind(response) == expected


def test_unknown_format_parameter_is_406(server, exp: str) -> None:
    assert server.get(exp, params={"format": "png"}).status_code == 406


def test_link_alternates_cover_every_format_and_resolve(server, exp: str) -> None:
    response = server.get(exp, headers={"Accept": "text/html"})
    links = re.findall(r'<([^>]+)>; rel="alternate"; type="([^"]+)"', response.headers["Link"])
    assert {t for _, t in links} == set(EXTENSIONS.values())
    for url, media_type in links:
        target = server.get(url.replace(server.url, ""))
        assert target.status_code == 200
        assert kind(target) == media_type


def test_head_has_the_headers_and_no_body(server, exp: str) -> None:
    get = server.get(exp, headers={"Accept": "text/turtle"})
    head = server.request("HEAD", exp, headers={"Accept": "text/turtle"})
    assert head.status_code == 200
    assert head.content == b""
    for name in ("Content-Type", "Vary", "Link"):
        assert head.headers[name] == get.headers[name]
    assert int(head.headers["Content-Length"]) == len(get.content)


@pytest.mark.parametrize(
    "path",
    [
        "experiment/209901019999",  # well-formed id never minted
        "experiment/not-an-id",
        "experiment/209901019999.ttl",
        "dataset/no-such-dataset",
        "system/no-such-system",
        "dataset/no-such-dataset/question/1",
    ],
)
def test_unknown_ids_are_404(server, path: str) -> None:
    assert server.get(path, headers={"Accept": "text/turtle"}).status_code == 404


def test_unknown_extension_is_404(server, exp: str) -> None:
    assert server.get(f"{exp}.png").status_code == 404
    assert server.get(f"{exp}/task/1.png").status_code == 404


def test_gerbil_experiment_form_redirects(server) -> None:
    response = server.get("experiment", params={"id": server.demo_id})
    assert response.status_code == 301
    assert response.headers["Location"] == f"{server.url}experiment/{server.demo_id}"
    assert server.get("experiment", params={"id": "nope"}).status_code == 404
    # the rest of the query is kept, as the trailing-slash redirect keeps it: the format was
    # dropped and the client got HTML (explore45 9)
    moved = server.get("experiment", params={"id": server.demo_id, "format": "ttl"})
    assert moved.status_code == 301
    assert moved.headers["Location"] == f"{server.url}experiment/{server.demo_id}?format=ttl"
    followed = server.get(
        "experiment", params={"format": "ttl", "id": server.demo_id}, allow_redirects=True
    )
    assert followed.status_code == 200 and followed.headers["Content-Type"].startswith(
        "text/turtle"
    )


def test_trailing_slash_redirects_to_the_citable_uri(server, exp: str) -> None:
    """explore38 6: ``experiment/ID/`` (a URI pasted from a PDF, typed with a slash) was a 404;
    a GET or HEAD of such a URI is a 301 to the one without it, its query kept."""
    dataset = server.get(f"{exp}.csv").text.splitlines()[1].split(",")[2]
    dataset_path = dataset.replace(server.url, "")
    for path in (
        exp,
        f"{exp}/task/1",
        dataset_path,
        f"{dataset_path}/version/v1",  # no such version: the 404 is the slash-less URI's
        "leaderboard/0123456789abcdef",
        "system/demo-strong",
    ):
        response = server.get(path + "/")
        assert response.status_code == 301, path
        assert response.headers["Location"] == server.url + path
    moved = server.get(exp + "/", params={"format": "ttl"})
    assert moved.headers["Location"] == f"{server.url}{exp}?format=ttl"
    head = server.request("HEAD", exp + "/")
    assert head.status_code == 301
    assert head.headers["Location"] == server.url + exp
    assert server.get(exp + "/", allow_redirects=True).status_code == 200
    # only GET and HEAD; a slash-ended URI whose slash-less form is no route stays a 404
    assert server.post(exp + "/").status_code in (404, 405)
    assert server.get("nothing-here/").status_code == 404


def _graph(response) -> rdflib.Graph:
    fmt = RDFLIB_FORMAT[kind(response)]
    if fmt in ("nquads", "trig"):
        dataset = rdflib.Dataset()
        dataset.parse(data=response.content, format=fmt)
        out = rdflib.Graph()
        for s, p, o, _ in dataset.quads():
            out.add((s, p, o))
        return out
    return rdflib.Graph().parse(data=response.content, format=fmt)


@pytest.mark.parametrize("index", range(8))
def test_all_rdf_syntaxes_are_the_same_graph(server, index: int) -> None:
    path = resources(server)[index]
    graphs = {}
    for media_type in RDFLIB_FORMAT:
        response = server.get(path, headers={"Accept": media_type})
        assert response.status_code == 200, (path, media_type, response.text[:300])
        assert kind(response) == media_type
        graphs[media_type] = _graph(response)
    reference = graphs["text/turtle"]
    assert len(reference) > 3
    for media_type, graph in graphs.items():
        assert isomorphic(graph, reference), f"{path}: {media_type} differs from Turtle"


def test_jsonld_uses_the_published_context(server, exp: str) -> None:
    doc = server.get(exp, headers={"Accept": "application/ld+json"}).json()
    assert doc["@context"] == server.url + "context.jsonld"
    context = server.get("context.jsonld")
    assert kind(context) == "application/ld+json"
    assert context.json()["@context"]["gqa"] == "http://w3id.org/gerbil/qa/vocab#"


def test_nquads_carry_the_experiment_graph(server, exp: str) -> None:
    body = server.get(f"{exp}.nq").text
    assert f"<{server.url}graph/experiment/{server.demo_id}> ." in body


def test_csv_tables(server, exp: str) -> None:
    rows = list(csv.DictReader(io.StringIO(server.get(f"{exp}.csv").text)))
    # the demo: three systems; two give SPARQL and answer types, so six experiment types each
    assert len(rows) == 6 + 6 + 1
    assert {r["experimentType"] for r in rows} == {"QA", "C2KB", "P2KB", "RE2KB", "AT", "AIT2KB"}
    rows = [r for r in rows if r["experimentType"] == "QA"]
    assert {r["system"].rsplit("/", 1)[1] for r in rows} == {
        "demo-strong",
        "demo-partial",
        "demo-baseline",
    }
    strong = next(r for r in rows if r["system"].endswith("demo-strong"))
    assert float(strong["macroF1"]) == 1.0
    assert strong["signature"].startswith("gerbil-qa:fair|")
    questions = list(csv.DictReader(io.StringIO(server.get(f"{exp}/task/1.csv").text)))
    assert len(questions) == 14
    assert {"tp", "fp", "fn", "precision", "recall", "f1", "given", "gold"} <= set(questions[0])


def test_the_task_csv_gives_each_questions_gold_answers(server, exp: str) -> None:
    # the "gold" column was empty on every row of every task recorded with explanations: the
    # page reads the questions without their gold answers (the explanations name the ones it
    # shows), and the CSV was written from the same reading
    rows = list(csv.DictReader(io.StringIO(server.get(f"{exp}/task/1.csv").text)))
    assert rows and all(row["gold"] for row in rows)
    for row in rows[:3]:
        question = row["question"].removeprefix(server.url)
        turtle = server.get(question, headers={"Accept": "text/turtle"}).content
        graph = pyoxigraph.Store()
        graph.load(turtle, format=pyoxigraph.RdfFormat.TURTLE)
        gold = pyoxigraph.NamedNode("http://w3id.org/gerbil/qa/vocab#goldAnswer")
        values = {q.object.value for q in graph.quads_for_pattern(None, gold, None)}
        shown = {re.sub(r" \(xsd:\w+\)$", "", v) for v in row["gold"].split(" | ")}
        assert shown == values, row["id"]  # as "given" shows them: a typed literal's datatype


def test_the_task_csv_has_each_questions_features(server, exp: str) -> None:
    # the per-question CSV joined with nothing: the answer type and QALD flags the task page
    # shows and filters by were only in the dataset's RDF, so a csv-module reader could not
    # break F1 down by answer type (the page's answertype/aggregation/… filter values)
    rows = list(csv.DictReader(io.StringIO(server.get(f"{exp}/task/1.csv").text)))
    page = server.get(f"{exp}/task/1", params={"answertype": "number"}).text
    numbers = [r["id"] for r in rows if r["answertype"] == "number"]
    assert numbers and all(f"/question/{qid}" in page for qid in numbers)
    assert {r["answertype"] for r in rows} == {"boolean", "date", "number", "resource", "string"}
    # a one-language task's rows say its language (they were empty: explore24 4)
    assert {r["language"] for r in rows} == {"en"}
    for flag in ("aggregation", "hybrid", "onlydbo", "outofscope"):
        assert {r[flag] for r in rows} <= {"yes", "no", ""}, flag
    assert {r["aggregation"] for r in rows} == {"yes", "no"}
    assert {r["outcome"] for r in rows} <= {"correct", "partly", "wrong", "error", "missing"}


def test_the_experiment_csv_has_each_measures_interval(server, exp: str) -> None:
    # a paper's table from the CSV: the RDF, the API and the page have each measure's 95 %
    # interval, the CSV had the numbers only
    rows = list(csv.DictReader(io.StringIO(server.get(f"{exp}.csv").text)))
    evaluations = server.get(f"api/experiments/{server.demo_id}").json()["evaluations"]
    qa = {e["system"]: e for e in evaluations}
    checked = 0
    for row in rows:
        if row["experimentType"] != "QA":
            continue
        evaluation = qa[row["system"].rsplit("/", 1)[1]]
        assert row["intervalSignature"] == evaluation["intervalSignature"]
        for measure, (low, high) in evaluation["intervals"]["QA"].items():
            assert row[f"{measure}Low"] == ("" if low is None else repr(low)), measure
            assert row[f"{measure}High"] == ("" if high is None else repr(high)), measure
            checked += 1
    assert checked >= 3 * 8


def test_csv_is_not_offered_where_there_is_no_table(server) -> None:
    assert server.get("vocab", headers={"Accept": "text/csv"}).status_code == 406
    assert server.get("vocab.csv").status_code == 404


def test_catalog_lists_builtin_datasets(server) -> None:
    rows = list(csv.DictReader(io.StringIO(server.get("catalog.csv").text)))
    assert len(rows) >= 20
    assert any(r["name"] == "qald-9-dbpedia-test" for r in rows) or any(
        r["name"].startswith("qald-9") for r in rows
    )


def test_vocab_terms_have_anchors(server) -> None:
    page = server.get("vocab", headers={"Accept": "text/html"}).text
    assert 'id="Experiment"' in page
    assert 'id="Task"' in page


def test_etag_revalidation(server, exp: str) -> None:
    first = server.get(exp, headers={"Accept": "text/turtle"})
    etag = first.headers["ETag"]
    again = server.get(exp, headers={"Accept": "text/turtle", "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    other = server.get(exp, headers={"Accept": "application/rdf+xml", "If-None-Match": etag})
    assert other.status_code == 200  # another representation, another tag


def test_a_304_and_a_204_keep_the_connection_open(server, exp: str) -> None:
    """Every 304 and every 204 preflight closed the connection (waitress closes an HTTP/1.1
    response without Content-Length, which a 204 must not have and a 304 needs not; explore45
    12): on one connection now, a 304 (a document, a SPARQL answer through the fast path), a
    preflight and a 200 follow each other; a client's ``Connection: close`` still closes."""
    import http.client
    from urllib.parse import urlsplit

    address = urlsplit(server.url)
    path = urlsplit(server.url).path + exp
    ask = urlsplit(server.url).path + "sparql?query=ASK%7B%7D"
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    try:

        def send(method: str, url: str, **headers: str) -> http.client.HTTPResponse:
            connection.request(method, url, headers=headers)
            response = connection.getresponse()
            response.read()
            return response

        first = send("GET", path, Accept="text/turtle")
        sock = connection.sock
        answer = send("GET", ask, Accept="application/sparql-results+json")
        preflight = {"Origin": "http://elsewhere.example", "Access-Control-Request-Method": "GET"}
        for method, url, headers, status in [
            ("GET", path, {"Accept": "text/turtle", "If-None-Match": first.headers["ETag"]}, 304),
            ("GET", ask, {"If-None-Match": answer.headers["ETag"]}, 304),
            ("OPTIONS", path, preflight, 200),  # Flask's own OPTIONS: Content-Length: 0
            ("OPTIONS", "/sparql", preflight, 204),
            ("GET", path, {"Accept": "text/turtle"}, 200),
        ]:
            response = send(method, url, **headers)
            assert response.status == status, (method, url, response.status)
            assert response.headers.get("Connection") != "close", (method, url)
            assert connection.sock is sock, (method, url)  # the same connection
        closing = send(
            "GET",
            path,
            Accept="text/turtle",
            Connection="close",
            **{"If-None-Match": first.headers["ETag"]},
        )
        assert closing.status == 304 and closing.headers["Connection"] == "close"
    finally:
        connection.close()


def test_named_graphs_dereference(server) -> None:
    demo = server.demo_id
    nq = server.get(f"graph/experiment/{demo}.nq")
    assert nq.status_code == 200
    assert f"<{server.url}graph/experiment/{demo}> ." in nq.text
    page = server.get(f"graph/experiment/{demo}", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "triples" in page.text
    vocab = server.get("graph/vocab", headers={"Accept": "text/turtle"})
    assert vocab.status_code == 200 and "gqa:Experiment" in vocab.text
    assert server.get("graph/admin").status_code == 404
    assert server.get("graph/admin.nq").status_code == 404
    assert server.get("graph/nothing/here").status_code == 404
    assert server.get("graph/experiment/209901019999.ttl").status_code == 404


def test_public_documents_are_written_by_the_query_workers(server, exp: str) -> None:
    """The worker's Turtle of a public experiment and task is what this process would write
    (the same quads, the same serialiser); a private one never goes to the workers."""
    from service.web import rdf_out
    from service.web.describe import FOLLOW_EXPERIMENT, FOLLOW_TASK, REVERSE_TASK, document_quads
    from service.web.state import EXTENSION

    state = server.app.extensions[EXTENSION]
    graph = server.storage
    demo = server.demo_id
    name = graph.uris.experiment_graph(demo)
    for path, follow, reverse in (
        (exp, FOLLOW_EXPERIMENT, ()),
        (f"{exp}/task/2", FOLLOW_TASK, REVERSE_TASK),
    ):
        state.changed()  # nothing cached
        before = state.pool.documents
        for ext, syntax in (("ttl", "turtle"), ("nq", "nquads"), ("rdf", "rdfxml")):
            response = server.get(f"{path}.{ext}")
            assert response.status_code == 200
            quads = document_quads(
                graph.public, server.url + path, graph=name, follow=follow, reverse=reverse
            )
            here = rdf_out.serialize(
                quads,
                rdf_out.mediatypes.rdf_by_name(syntax),
                context_url=server.url + "context.jsonld",
            )
            assert response.content == here, (path, ext)
        assert state.pool.documents == before + 3
    ticket = server.submit_demo(systems=("baseline",))  # private: the owner's view is made here
    before = state.pool.documents
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    private = server.get(f"experiment/{ticket['id']}.ttl", headers=owner)
    assert private.status_code == 200 and ticket["uri"] in private.text
    assert state.pool.documents == before


def test_public_pages_read_their_quads_in_the_query_workers(
    server, exp: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A public experiment's and task's HTML pages are built from quads (and per-question F1)
    that a query worker read (the reading runs on the other core): the same pages as when this
    process reads them; a private one never goes to the workers."""
    from service.web import resources
    from service.web.state import EXTENSION

    state = server.app.extensions[EXTENSION]

    def page(path: str, **headers: str) -> str:
        state.changed()  # nothing cached
        response = server.get(path, headers={"Accept": "text/html", **headers})
        assert response.status_code == 200
        return re.sub(r'nonce="[^"]*"', "", response.text)

    paths = (exp, f"{exp}/task/2")
    before = state.pool.documents
    by_workers = [page(path) for path in paths]
    assert state.pool.documents == before + len(paths)
    monkeypatch.setattr(resources, "_read_by_a_worker", lambda job: None)
    monkeypatch.setattr(resources, "_f1s_by_a_worker", lambda graph, tasks: None)
    assert [page(path) for path in paths] == by_workers
    monkeypatch.undo()
    ticket = server.submit_demo(systems=("baseline",))
    before = state.pool.documents
    owner = page(f"experiment/{ticket['id']}", Authorization=f"Bearer {ticket['token']}")
    assert ticket["id"] in owner and state.pool.documents == before


def test_the_page_reads_the_document_without_what_it_does_not_show(server, exp: str) -> None:
    """``skip`` leaves out the warnings and the cube structures (and what only they link to):
    the rest of the experiment's document is read as it is."""
    from service.web.describe import FOLLOW_EXPERIMENT, PAGE_SKIP_EXPERIMENT, document_quads

    graph = server.storage
    name = graph.uris.experiment_graph(server.demo_id)
    uri = server.url + exp
    whole = document_quads(graph.public, uri, graph=name, follow=FOLLOW_EXPERIMENT)
    page = document_quads(
        graph.public, uri, graph=name, follow=FOLLOW_EXPERIMENT, skip=PAGE_SKIP_EXPERIMENT
    )
    skipped = {q for q in whole if q.predicate.value in PAGE_SKIP_EXPERIMENT}
    assert skipped and {q.predicate.value for q in skipped} == set(PAGE_SKIP_EXPERIMENT)
    assert set(page) < set(whole) and not set(page) & skipped
    # what is left out besides: only what the skipped triples led to (warnings, structures)
    reached = {q.object for q in skipped}
    for quad in set(whole) - set(page) - skipped:
        assert quad.subject in reached or quad.subject.value.endswith("#structure"), quad


def test_every_minted_uri_dereferences(server) -> None:
    """DESIGN §4: every IRI the service minted under its base and published (experiments,
    tasks, per-question results, datasets, questions, systems, files, graphs) answers 200 with
    RDF (the home page, which the catalogue names, through a 303 to the catalogue); hash IRIs
    through their document. A file's download URL answers with the file."""
    rows = server.storage.public.query(
        "SELECT DISTINCT ?i { { ?i ?p ?o } UNION { ?s ?p ?i } UNION { GRAPH ?i {} } "
        f'FILTER(isIRI(?i) && STRSTARTS(STR(?i), "{server.url}")) }}'
    )
    documents = {str(row[0].value).split("#", 1)[0] for row in rows}
    assert len(documents) > 100  # the demo experiment's tasks and questions, at least
    # a file's dcat:downloadURL is the file itself (answers, a dataset), not a description
    downloads = {
        str(row[0].value)
        for row in server.storage.public.query(
            "SELECT ?u { ?f <http://www.w3.org/ns/dcat#downloadURL> ?u "
            f'FILTER(STRSTARTS(STR(?u), "{server.url}")) }}'
        )
    }
    assert downloads and all("/file/" in url for url in downloads)
    for url in downloads:
        got = server.get(url[len(server.url) :])
        assert got.status_code == 200 and got.content, url
    documents -= downloads
    failed = {}
    for iri in sorted(documents):
        response = server.get(
            iri[len(server.url) :],
            headers={"Accept": "application/n-triples"},
            allow_redirects=True,
        )
        if response.status_code != 200 or not response.text.strip():
            failed[iri] = response.status_code
        elif kind(response) != "application/n-triples":
            failed[iri] = kind(response)
    kinds = {iri[len(server.url) :].split("/", 1)[0] for iri in documents}
    assert kinds >= {"experiment", "dataset", "system", "graph"}, kinds
    assert failed == {}
