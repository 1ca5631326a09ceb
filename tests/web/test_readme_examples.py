"""The READMEs' examples for readers of results, taken from the READMEs as they are written (so
they cannot drift): the "Citing a result from a paper" walk (evaluate, publish, serve, curl,
SPARQLWrapper) with the numbers its text promises, every SPARQL block in every results format,
every URI pattern in every RDF syntax (parsed strictly), and one experiment's numbers alike in
its page, its CSV, the JSON API, the leaderboard and the endpoint."""

from __future__ import annotations

import contextlib
import csv
import io
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import rdflib
import requests

from service.cli import main
from service.evaluation.results import COUNT_MEASURES
from service.systems.localnet import free_port
from tests.web.conftest import Server, start_server, stop_server

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
WEB_README = (ROOT / "service" / "web" / "README.md").read_text(encoding="utf-8")
EXAMPLE_BASE = "http://localhost:8080/"  # the base the README's examples are written for


def _section(text: str, heading: str) -> str:
    return re.split(r"\n#{2,3} ", text.split(heading, 1)[1], maxsplit=1)[0]


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def _commands(block: str) -> list[list[str]]:
    """A shell block's commands as argument lists: continuation lines joined, comments,
    output lines (``#   …``) and a trailing ``&`` dropped."""
    joined = block.replace("\\\n", " ")
    return [
        [a for a in shlex.split(line, comments=True) if a != "&"]
        for line in joined.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


CITING = _section(README, "### Citing a result from a paper")


@pytest.fixture(scope="module")
def cited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The citing section's shell block run as written (``var/store`` in a temporary folder,
    the server on a free port instead of 8080): evaluate, publish, serve."""
    store = tmp_path_factory.mktemp("readme") / "store"
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    commands = _commands(_blocks(CITING, "sh")[0])
    assert [c[:2] for c in commands[:3]] == [
        ["gerbil-qa", "evaluate"],
        ["gerbil-qa", "publish"],
        ["gerbil-qa", "serve"],
    ], commands

    def local(args: list[str]) -> list[str]:
        return [
            str(store) if a == "var/store" else str(ROOT / a) if a.startswith("datasets/") else a
            for a in args[1:]
        ]

    capture = io.StringIO()
    with contextlib.redirect_stderr(capture), contextlib.redirect_stdout(io.StringIO()):
        assert main([*local(commands[0]), "--base", url]) == 0
    said = capture.getvalue()
    recorded = re.search(
        r"recorded experiment (\d{12}) at (\S+) \(private; owner token: (\S+)\)", said
    )
    assert recorded, said
    experiment, uri, token = recorded.groups()
    assert uri == f"{url}experiment/{experiment}"
    publish = [experiment if a == "ID" else a for a in local(commands[1])]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(publish) == 0
    server = start_server(store, port=port, demo=False)
    try:
        yield {
            "server": server,
            "id": experiment,
            "token": token,
            "curls": commands[3:],
        }
    finally:
        stop_server(server)


def _as_written(text: str, server: Server, experiment: str) -> str:
    """An example with this server's base for 8080's and the experiment's id for ``ID``."""
    text = text.replace(EXAMPLE_BASE, server.url)
    return re.sub(r"\b(experiments?)/ID\b", rf"\1/{experiment}", text)


def _curl(args: list[str], cited: dict[str, Any]) -> requests.Response:
    """``curl [-H HEADER]… [-d DATA] URL`` as requests does it (POST when there is data)."""
    headers: dict[str, str] = {}
    data = None
    url = ""
    rest = iter(args[1:])
    for arg in rest:
        if arg == "-H":
            name, _, value = next(rest).partition(":")
            headers[name.strip()] = value.strip().replace("TOKEN", cited["token"])
        elif arg == "-d":
            data = next(rest)
        else:
            url = _as_written(arg, cited["server"], cited["id"])
    method = "POST" if data is not None else "GET"
    return requests.request(method, url, headers=headers, data=data, timeout=30)


def test_the_citing_walk_runs_as_written(cited: dict[str, Any], capsys) -> None:
    """Each curl of the block answers as its comment says, the paper it attaches is then in the
    BibTeX, and the SPARQLWrapper block prints the numbers the text says it prints."""
    server, experiment = cited["server"], cited["id"]
    bib, paper = cited["curls"]
    answer = _curl(bib, cited)
    assert answer.status_code == 200, answer.text
    assert answer.headers["Content-Type"].startswith("application/x-bibtex")
    assert f"@misc{{gerbilqa-{experiment}," in answer.text
    negotiated = server.get(
        f"experiment/{experiment}", headers={"Accept": "application/x-bibtex"}
    )  # "(or Accept: application/x-bibtex)"
    assert negotiated.status_code == 200 and negotiated.text == answer.text
    attached = _curl(paper, cited)
    assert attached.status_code in (200, 201), attached.text
    doi = re.search(r'"doi": "([^"]+)"', " ".join(paper)).group(1)  # type: ignore[union-attr]
    assert f"doi = {{{doi}}}" in server.get(f"experiment/{experiment}.bib").text
    code = _as_written(_blocks(CITING, "python")[0], server, experiment)
    exec(compile(code, "README.md (citing)", "exec"), {})
    printed = capsys.readouterr().out.split()
    promised = re.search(r"On the demo: (.*?)\. A published", " ".join(CITING.split()))
    assert promised, "the README no longer says what the block prints on the demo"
    shown = re.findall(r"`…/system/(\S+) ([\d.]+) \[([\d.]+), ([\d.]+)\]`", promised.group(1))
    assert len(shown) == 2, promised.group(1)
    rows = [printed[i : i + 4] for i in range(0, len(printed), 4)]
    assert [r[0] for r in rows] == [f"{server.url}system/{s[0]}" for s in shown]
    for row, (_, *numbers) in zip(rows, shown, strict=True):
        for value, written in zip(row[1:], numbers, strict=True):
            places = len(written.split(".")[1]) if "." in written else 0
            assert round(float(value), places) == float(written), (row, numbers)


SPARQL_BLOCKS = _blocks(README, "sparql") + _blocks(WEB_README, "sparql")


@pytest.mark.parametrize("index", range(len(SPARQL_BLOCKS)))
def test_every_sparql_block_gives_rows_in_every_results_format(
    cited: dict[str, Any], index: int
) -> None:
    """Each query as printed, sent as a GET, a form POST and a direct POST, read back as JSON,
    XML, CSV and TSV and by SPARQLWrapper: the same rows, not none."""
    from SPARQLWrapper import JSON, SPARQLWrapper

    assert len(SPARQL_BLOCKS) >= 3  # the README's interval, dump and GERBIL-era queries
    server = cited["server"]
    query = _as_written(SPARQL_BLOCKS[index], server, cited["id"])
    as_json = server.get(
        "sparql", params={"query": query}, headers={"Accept": "application/sparql-results+json"}
    )
    assert as_json.status_code == 200, as_json.text
    rows = len(as_json.json()["results"]["bindings"])
    assert rows > 0, query
    as_xml = server.post(
        "sparql", data={"query": query}, headers={"Accept": "application/sparql-results+xml"}
    )
    assert as_xml.status_code == 200, as_xml.text
    results = ET.fromstring(as_xml.content).find("{http://www.w3.org/2005/sparql-results#}results")
    assert results is not None and len(results) == rows
    direct = {"Content-Type": "application/sparql-query"}
    for media in ("text/csv", "text/tab-separated-values"):
        table = server.post("sparql", data=query.encode(), headers={**direct, "Accept": media})
        assert table.status_code == 200, table.text
        delimiter = "," if media == "text/csv" else "\t"
        assert len(list(csv.reader(io.StringIO(table.text), delimiter=delimiter))) == rows + 1
    client = SPARQLWrapper(server.url + "sparql")
    client.setQuery(query)
    client.setReturnFormat(JSON)
    assert len(client.queryAndConvert()["results"]["bindings"]) == rows  # type: ignore[index]


URI_PARAGRAPH = WEB_README.split("## URIs and content negotiation\n\n", 1)[1].split(
    " Hash URIs", 1
)[0]
URI_PATTERNS = re.findall(r"`([^`\s]+)`", URI_PARAGRAPH)
RDF_SYNTAXES = {  # media type: rdflib's parser
    "text/turtle": "turtle",
    "application/n-triples": "nt",
    "application/rdf+xml": "xml",
    "application/ld+json": "json-ld",
    "application/n-quads": "nquads",
    "application/trig": "trig",
}
SERVICE_DESCRIPTION = (
    "text/turtle",
    "application/n-triples",
    "application/rdf+xml",
    "application/ld+json",
)  # a description, not a dataset: no quads


def _fillers(cited: dict[str, Any]) -> dict[str, str]:
    server, experiment = cited["server"], cited["id"]
    dataset = server.get(f"api/experiments/{experiment}").json()["dataset"].rsplit("/", 1)[1]
    software = server.get("health").json()["version"]
    return {
        "id": experiment,
        "n": "1",
        "qid": "1",
        "name": dataset,
        "version": quote(software, safe=""),
        "system": "answers-strong",
    }


def _expand_jsonld(text: str, server: Server) -> list[Any]:
    """pyld's expansion, the published context fetched from this server."""
    import json

    from pyld import jsonld

    def loader(url: str, options: Any = None) -> dict[str, Any]:
        assert url.startswith(server.url), url
        return {
            "document": requests.get(url, timeout=30).json(),
            "documentUrl": url,
            "contextUrl": None,
        }

    return jsonld.expand(json.loads(text), {"documentLoader": loader})


def test_every_uri_pattern_resolves_in_every_rdf_syntax(cited: dict[str, Any]) -> None:
    """Each URI pattern the web README lists, filled in from the cited experiment: HTML, and
    each RDF syntax parsed by rdflib (JSON-LD also expanded by pyld), the same triples in all."""
    server = cited["server"]
    fill = _fillers(cited)
    versioned, _ = server.register_version("readme-versioned", kb="demo", version="2024-05")
    assert len(URI_PATTERNS) >= 12, URI_PATTERNS
    checked = []
    for pattern in URI_PATTERNS:
        if pattern == "graph/admin":  # "never served"
            assert server.get(pattern).status_code == 404
            continue
        if "#" in pattern:  # a term's anchor on the vocabulary page
            page, anchor = pattern.split("#")
            assert f'id="{anchor}"' in server.get(page, headers={"Accept": "text/html"}).text
            continue
        path = pattern.replace("graph/…", "graph/experiment/{id}")
        if "{v}" in path:
            path = path.replace("{name}", "readme-versioned").replace("{v}", "2024-05")
        elif path.startswith("system/"):
            path = path.replace("{name}", fill["system"])
        path = path.format(**fill)
        if "?" in path:  # GERBIL's experiment?id= answers 301 to the experiment
            moved = server.get(path)
            assert moved.status_code == 301, path
            assert moved.headers["Location"].endswith(f"experiment/{fill['id']}")
            continue
        if path == "context.jsonld":
            assert "@context" in server.get(path).json()
            continue
        syntaxes = SERVICE_DESCRIPTION if path == "sparql" else tuple(RDF_SYNTAXES)
        if path == "dump":
            syntaxes = ("application/n-quads", "application/trig")
        else:
            assert server.get(path, headers={"Accept": "text/html"}).status_code == 200, path
        sizes = set()
        for media in syntaxes:
            answer = server.get(path, headers={"Accept": media})
            assert answer.status_code == 200, (path, media, answer.text[:200])
            assert answer.headers["Content-Type"].startswith(media), (path, media)
            quads = media in ("application/n-quads", "application/trig")
            graph = rdflib.Dataset() if quads else rdflib.Graph()
            graph.parse(data=answer.content, format=RDF_SYNTAXES[media], publicID=server.url + path)
            # a quad syntax gives a triple once per public graph holding it: count triples
            size = len({q[:3] for q in graph.quads()}) if quads else len(graph)
            assert size > 0, (path, media)
            sizes.add(size)
            if media == "application/ld+json":
                assert _expand_jsonld(answer.text, server), path
        assert len(sizes) == 1, (path, sizes)
        checked.append(path)
    assert versioned.endswith("dataset/readme-versioned/version/2024-05")
    assert any(p.startswith("dataset/readme-versioned/version/") for p in checked)


# the count measures, in the order the page's results table shows them
MEASURES = COUNT_MEASURES


def test_one_experiments_numbers_agree_in_every_representation(cited: dict[str, Any]) -> None:
    """The cited experiment's QA numbers: its CSV, the JSON API (evaluate's objects), the
    endpoint, the leaderboard's JSON and CSV and the page (4 places) say the same."""
    server, experiment = cited["server"], cited["id"]
    uri = f"{server.url}experiment/{experiment}"
    table = list(csv.DictReader(io.StringIO(server.get(f"experiment/{experiment}.csv").text)))
    qa = {row["task"]: row for row in table if row["experimentType"] == "QA"}
    assert len(qa) == 2, table
    evaluations = {
        e["system"]: e["results"]["QA"]
        for e in server.get(f"api/experiments/{experiment}").json()["evaluations"]
    }
    query = (
        f"SELECT ?task ?m ?v WHERE {{ ?task <http://purl.org/linked-data/cube#dataSet> <{uri}> ;"
        " ?m ?v . FILTER(isLiteral(?v)) }"
    )
    endpoint: dict[str, dict[str, float]] = {}
    for b in server.get("sparql", params={"query": query, "format": "json"}).json()["results"][
        "bindings"
    ]:
        name = b["m"]["value"].rsplit("#", 1)[1]
        if name in MEASURES:
            endpoint.setdefault(b["task"]["value"], {})[name] = float(b["v"]["value"])
    dataset = table[0]["dataset"].rsplit("/", 1)[1]
    board = server.get("leaderboards", params={"dataset": dataset, "format": "json"}).json()
    ranked = {r["task"]: r["measures"] for r in board["rows"]}
    board_csv = {
        r["task"]: r
        for r in csv.DictReader(
            io.StringIO(
                server.get("leaderboards", params={"dataset": dataset, "format": "csv"}).text
            )
        )
    }
    page = server.get(f"experiment/{experiment}", headers={"Accept": "text/html"}).text
    for task, row in qa.items():
        system = row["system"].rsplit("/", 1)[1]
        for measure in MEASURES:
            value = float(row[measure])
            assert evaluations[system][measure] == pytest.approx(value, abs=1e-12), measure
            assert endpoint[task][measure] == pytest.approx(value, abs=1e-12), measure
            assert ranked[task][measure] == pytest.approx(value, abs=1e-12), measure
            assert float(board_csv[task][measure]) == pytest.approx(value, abs=1e-12), measure
        # the page's QA row of this task: language, then the measures in this order
        cells = re.search(rf'href="{re.escape(task)}"[^>]*>[^<]*</a></th>(.*?)</tr>', page, re.S)
        assert cells, task
        texts = [
            re.sub(r"<[^>]+>", " ", c)
            for c in re.findall(r"<td[^>]*>(.*?)</td>", cells.group(1), re.S)
        ]
        numbers = [float(c.split()[0]) for c in texts[1 : 1 + len(MEASURES)]]
        assert numbers == [round(float(row[m]), 4) for m in MEASURES], (system, texts)


FIRST_STEPS = _section(README, "### First steps")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def test_the_sections_list_links_every_section() -> None:
    """The contents line of "First steps" names every top section in order, each link to its
    heading's anchor (explore-15 8: 35,000 words and no contents)."""
    listed = re.search(r"Sections: (.*?)\.\n", FIRST_STEPS, re.S)
    assert listed, "the First steps section has no contents line"
    anchors = re.findall(r"\]\(#([^)]+)\)", listed.group(1))
    headings = [h for h in re.findall(r"^## (.+)$", README, re.M) if h != "Quick start"]
    assert anchors == [_slug(h) for h in headings]


def test_the_first_steps_run_as_written(server: Server, capsys) -> None:
    """explore-15 1: nothing said where the command is after `make run`, and the README never
    showed one submission. The block's commands, against a test server: the evaluate prints
    the table, the submission answers an id and a token, its results come, it publishes."""
    commands = _commands(_blocks(FIRST_STEPS, "sh")[0])
    evaluate, submit, poll, results, publish = commands
    assert evaluate[0] == ".venv/bin/gerbil-qa" and evaluate[1] == "evaluate"
    args = [str(ROOT / a) if a.startswith("datasets/") else a for a in evaluate[1:]]
    assert main(args) == 0
    assert "answers-partial" in capsys.readouterr().out
    assert submit[0] == "curl" and submit[-1] == "http://127.0.0.1:8080/api/experiments"
    files, data = [], {}
    for flag, value in zip(submit[1:-1:2], submit[2:-1:2], strict=True):
        assert flag == "-F"
        name, _, given = value.partition("=")
        if given.startswith("@"):
            path = ROOT / given[1:]
            files.append((name, (path.name, path.read_bytes())))
        else:
            data[name] = given
    ticket = server.post("api/experiments", files=files, data=data).json()
    assert set(ticket) >= {"id", "token", "statusUrl", "pollUrl"}
    state = server.wait_finished(ticket["id"], ticket["token"])
    # the poll shown is the light one the submission names (its pollUrl)
    assert poll[-1].endswith("/api/experiments/ID?questions=false"), poll
    assert ticket["pollUrl"].endswith(f"/api/experiments/{ticket['id']}?questions=false")
    assert state["evaluations"][0]["system"] == "answers-partial"
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert results[-1].endswith("/api/experiments/ID") and "Authorization: Bearer TOKEN" in results
    assert publish[-1].endswith("/api/experiments/ID/publish") and "POST" in publish
    published = server.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
    assert published.status_code == 200 and published.json()["public"] is True
