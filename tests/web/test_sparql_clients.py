"""SPARQL clients with their defaults against the running endpoint (issue 9, item 4).

SPARQLWrapper sends ``format``, ``output`` and ``results`` parameters with every query
(``format=xml`` by default, whatever the query form, and two values each for TSV, JSON-LD and
RDF/XML) and an ``Accept`` header for the form; rdflib's ``SPARQLStore`` sends an ``Accept`` header
for its ``returnFormat`` (``application/sparql-results+json`` for "json", on a CONSTRUCT too).
Every query form (SELECT, ASK, CONSTRUCT, DESCRIBE), over GET, POST with a form body and POST with
the query as body, in every result format each client asks for, must give the same answer.
"""

from __future__ import annotations

import csv
import io
import json
import urllib.error
import warnings
from typing import Any
from xml.dom.minidom import Document

import pytest
import rdflib
from rdflib.compare import isomorphic
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import (
    CSV,
    JSON,
    JSONLD,
    N3,
    POST,
    POSTDIRECTLY,
    RDFXML,
    TSV,
    TURTLE,
    URLENCODED,
    XML,
    SPARQLWrapper,
)

ANSWER_TYPE = "http://w3id.org/gerbil/qa/vocab#AnswerType"  # a few, in the vocabulary
TSV_MEDIA = "text/tab-separated-values"
SELECT = f"SELECT ?s WHERE {{ ?s a <{ANSWER_TYPE}> }} ORDER BY ?s"
ASK = f"ASK {{ ?s a <{ANSWER_TYPE}> }}"
CONSTRUCT = f"CONSTRUCT {{ ?s a <{ANSWER_TYPE}> }} WHERE {{ ?s a <{ANSWER_TYPE}> }}"
DESCRIBE = f"DESCRIBE ?s WHERE {{ ?s a <{ANSWER_TYPE}> }}"
METHODS = {
    "GET": None,
    "POST form": URLENCODED,
    "POST query": POSTDIRECTLY,
}


@pytest.fixture(scope="module")
def expected(server) -> dict[str, Any]:
    """The answers, read from plain requests (SPARQL JSON and N-Triples)."""
    rows = server.get("sparql", params={"query": SELECT, "format": "json"}).json()
    out: dict[str, Any] = {
        SELECT: {b["s"]["value"] for b in rows["results"]["bindings"]},
    }
    for query in (CONSTRUCT, DESCRIBE):
        text = server.get("sparql", params={"query": query, "format": "nt"}).text
        out[query] = rdflib.Graph().parse(data=text, format="nt")
    assert len(out[SELECT]) >= 3 and len(out[DESCRIBE]) > len(out[CONSTRUCT]) >= 3
    return out


def _same(graph: rdflib.Graph, expected: rdflib.Graph) -> bool:
    return isomorphic(graph, expected)


def _wrapper(server, method: str, query: str, fmt: str | None) -> SPARQLWrapper:
    sparql = SPARQLWrapper(server.url + "sparql")
    sparql.setQuery(query)
    if fmt is not None:
        sparql.setReturnFormat(fmt)
    if METHODS[method] is not None:
        sparql.setMethod(POST)
        sparql.setRequestMethod(METHODS[method])
    return sparql


def _rows(converted, fmt: str | None) -> set[str]:
    if fmt == JSON:
        return {b["s"]["value"] for b in converted["results"]["bindings"]}
    if fmt in (None, XML):
        assert isinstance(converted, Document)
        return {node.firstChild.data for node in converted.getElementsByTagName("uri")}
    delimiter = "\t" if fmt == TSV else ","
    rows = list(csv.reader(io.StringIO(converted.decode("utf-8")), delimiter=delimiter))
    return {cell.strip("<>") for row in rows[1:] for cell in row}


def _graph(converted, fmt: str | None) -> rdflib.Graph:
    if isinstance(converted, rdflib.Graph):
        return converted
    if fmt == JSON:  # JSON-LD, which SPARQLWrapper hands over as JSON
        return rdflib.Graph().parse(data=json.dumps(converted), format="json-ld")
    return rdflib.Graph().parse(data=converted, format="turtle")


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("fmt", [None, JSON, XML, CSV, TSV])
def test_sparqlwrapper_select(server, expected, method, fmt) -> None:
    result = _wrapper(server, method, SELECT, fmt).query()
    assert _rows(result.convert(), fmt) == expected[SELECT]


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("fmt", [None, JSON, XML, CSV, TSV])
def test_sparqlwrapper_ask(server, method, fmt) -> None:
    if fmt in (CSV, TSV):  # SELECT-only formats: a 406, as for a CONSTRUCT (explore45 17)
        with pytest.raises(urllib.error.HTTPError) as refused:
            _wrapper(server, method, ASK, fmt).query()
        assert refused.value.code == 406
        said = refused.value.read().decode()
        offered = said.split("available: ", 1)[1]  # what was asked is said before it
        assert "application/sparql-results+json" in offered and "text/csv" not in offered, said
        return
    converted = _wrapper(server, method, ASK, fmt).query().convert()
    if fmt == JSON:
        assert converted["boolean"] is True
    else:
        (boolean,) = converted.getElementsByTagName("boolean")
        assert boolean.firstChild.data == "true"


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("query", [CONSTRUCT, DESCRIBE], ids=["construct", "describe"])
@pytest.mark.parametrize("fmt", [None, XML, RDFXML, TURTLE, N3, JSONLD, JSON])
def test_sparqlwrapper_graph_results(server, expected, method, query, fmt) -> None:
    with warnings.catch_warnings():
        # SPARQLWrapper warns that it sends Accept: */* for JSON on a CONSTRUCT
        warnings.simplefilter("ignore", RuntimeWarning)
        result = _wrapper(server, method, query, fmt).query()
    media_type = result.info()["content-type"].split(";")[0]
    wanted = {
        None: "application/rdf+xml",
        XML: "application/rdf+xml",
        RDFXML: "application/rdf+xml",
        TURTLE: "text/turtle",
        N3: "text/turtle",
        JSONLD: "application/ld+json",
        JSON: "application/ld+json",
    }[fmt]
    assert media_type == wanted
    assert _same(_graph(result.convert(), fmt), expected[query])


STORE_METHODS = ("GET", "POST", "POST_FORM")


def _store(server, method: str, return_format: str) -> rdflib.Graph:
    store = SPARQLStore(server.url + "sparql", returnFormat=return_format, method=method)
    return rdflib.Graph(store=store)


@pytest.mark.parametrize("method", STORE_METHODS)
@pytest.mark.parametrize("return_format", ["json", "xml", "csv", "tsv"])
def test_rdflib_sparqlstore_select_and_ask(server, expected, method, return_format) -> None:
    graph = _store(server, method, return_format)
    assert {str(row[0]) for row in graph.query(SELECT)} == expected[SELECT]
    if return_format in ("json", "xml"):  # rdflib reads booleans from these two only
        assert graph.query(ASK).askAnswer is True


@pytest.mark.parametrize("method", STORE_METHODS)
@pytest.mark.parametrize("query", [CONSTRUCT, DESCRIBE], ids=["construct", "describe"])
@pytest.mark.parametrize("return_format", ["json", "xml", "turtle", "application/ld+json"])
def test_rdflib_sparqlstore_graph_results(server, expected, method, query, return_format) -> None:
    result = _store(server, method, return_format).query(query)
    assert _same(result.graph, expected[query])


def test_format_parameters_follow_the_query_form(server) -> None:
    # format=xml: SPARQL results XML for a SELECT, RDF/XML for a CONSTRUCT (Virtuoso, Fuseki)
    for query, media_type in (
        (SELECT, "application/sparql-results+xml"),
        (CONSTRUCT, "application/rdf+xml"),
    ):
        response = server.get("sparql", params={"query": query, "format": "xml"})
        assert response.headers["Content-Type"].split(";")[0] == media_type
    json_ld = server.get("sparql", params={"query": CONSTRUCT, "format": "json"})
    assert json_ld.headers["Content-Type"].startswith("application/ld+json")
    # the first value that names a format for the form wins; unknown ones are passed over
    several = server.get(
        "sparql", params=[("query", CONSTRUCT), ("format", "csv"), ("output", "ttl")]
    )
    assert several.headers["Content-Type"].startswith("text/turtle")
    # none fits, nor does Accept: 406, saying what was asked
    refused = server.get(
        "sparql", params={"query": SELECT, "format": "turtle"}, headers={"Accept": "text/turtle"}
    )
    assert refused.status_code == 406 and "format=turtle" in refused.text
    # format in a POSTed form body counts too
    posted = server.post("sparql", data={"query": CONSTRUCT, "format": "nt"})
    assert posted.headers["Content-Type"].startswith("application/n-triples")


def _citing_block(server, experiment_id: str, capsys) -> list[str]:
    """The SPARQLWrapper block of the README's "Citing a result from a paper", run against
    this server (its URL and ``experiment_id`` put in for the README's): what it printed."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Citing a result from a paper", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    code = code.replace("http://localhost:8080/", server.url)
    code = code.replace("experiment/ID>", f"experiment/{experiment_id}>")
    exec(compile(code, "README.md (citing)", "exec"), {})
    return capsys.readouterr().out.splitlines()


def test_the_readmes_citing_example_runs_as_written(server, capsys) -> None:
    """The README's citing block on the published demo experiment."""
    lines = _citing_block(server, server.demo_id, capsys)
    assert len(lines) >= 2
    for line in lines:
        system, f1, low, high = line.split(" ")
        assert system.startswith(server.url + "system/")
        assert float(low) <= float(f1) <= float(high)
    f1s = [float(line.split(" ")[1]) for line in lines]
    assert f1s == sorted(f1s, reverse=True)


def test_tsv_results_with_line_separators_read_as_json_results_do(server) -> None:
    """U+2028, U+2029, NEL and the other characters Python's ``splitlines`` breaks at were written
    raw in TSV results, legal there, but a reader splitting lines with it (rdflib's TSV reader)
    broke those rows apart (explore31 F5): they are written as ``\\uXXXX`` escapes, the same
    Turtle terms. Each line is one row, and a Turtle reader of each term (rdflib's Turtle parser,
    pyoxigraph's TSV results reader) gets what the JSON result says. rdflib's own TSV results
    reader reads neither form: its grammar has no ``\\u`` escape in a literal (7.6.0)."""
    import pyoxigraph as ox

    odd = "\\u2028|\\u2029|\\u0085|\\u000B|\\u000C|\\u001C"
    query = (
        f'SELECT ?o ?i WHERE {{ VALUES (?o ?i) {{ ("a{odd}b" <http://e.org/a\\u2028b>) '
        f'("x\\u2029"@en <http://e.org/plain>) }} }}'
    )
    got = server.get("sparql", params={"query": query}, headers={"Accept": TSV_MEDIA})
    assert got.status_code == 200 and got.headers["Content-Type"].startswith(TSV_MEDIA)
    lines = got.text.splitlines()
    assert len(lines) == 3, lines  # was 11: each row broken at every line separator
    as_json = server.get("sparql", params={"query": query, "format": "json"}).json()
    rows = [(b["o"]["value"], b["i"]["value"]) for b in as_json["results"]["bindings"]]
    assert rows[0] == ("a\u2028|\u2029|\x85|\x0b|\x0c|\x1cb", "http://e.org/a\u2028b")
    read = []
    for line in lines[1:]:
        terms = line.split("\t")
        graph = rdflib.Graph().parse(
            data=f"<http://e.org/s> <http://e.org/p> {terms[0]}, {terms[1]} .", format="turtle"
        )
        objects = sorted(graph.objects(), key=lambda t: isinstance(t, rdflib.URIRef))
        read.append((str(objects[0]), str(objects[1])))
    assert read == rows
    parsed = ox.parse_query_results(got.content, format=ox.QueryResultsFormat.TSV)
    assert [(s["o"].value, s["i"].value) for s in parsed] == rows


def test_the_readmes_citing_example_gives_a_withdrawn_experiments_numbers(server, capsys) -> None:
    """A paper cites an experiment withdrawn since: the README's citing block gives the same
    rows after the withdrawal as before (it gave none: the default graph leaves a withdrawn
    experiment's results out; explore45 8)."""
    ticket = server.submit_demo()
    eid, owner = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{eid}/publish", headers=owner).ok
    before = _citing_block(server, eid, capsys)
    assert len(before) == 2, before  # its two systems
    withdrawn = server.post(
        f"api/experiments/{eid}/withdraw", json={"reason": "cited, then withdrawn"}, headers=owner
    )
    assert withdrawn.status_code == 200, withdrawn.text
    assert _citing_block(server, eid, capsys) == before
