"""What users type or upload, read by the strictest clients (explore29 10, 11, 4).

A control character (U+0000, U+0001, \\b…) in an uploaded question text or in a system's answer
was stored and published, and then every RDF/XML document, SPARQL XML result and HTML page
holding it was not well-formed (XML 1.0 §2.2 Char). Now a dataset file holding one is refused
naming the file, the question and the character; a system's answer keeps its score, is stored
with U+FFFD in the character's place and a warning names the question; a title is refused.
The task CSV's answer cells read back as exactly the answers given (``|`` and ``\\`` escaped
inside an item). The API records and echoes the canonical lower-case profile and file format,
refuses an empty language and says the timeout it was given.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import xml.dom.minidom
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import rdflib

from service.csv_table import split_items
from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

QUESTIONS = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
STRONG = json.loads((DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8"))
XML_ACCEPT = {"Accept": "application/rdf+xml"}
ODD = ["Jupiter | Saturn", 'line1\nline2, "quoted"', "C:\\temp\\", "a\x00b\x01c\x08d"]
# the items as the task page and CSV display them: the control characters stored as U+FFFD
SHOWN = {*ODD[:3], "a\ufffdb\ufffdc\ufffdd"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("strict-input"))
    yield running
    stop_server(running)


def _post(site: Server, body: dict[str, Any]) -> Any:
    return site.post("api/experiments", json=body)


def _file(data: Any, name: str) -> dict[str, str]:
    return {"filename": name, "content": json.dumps(data)}


def _odd_answers() -> dict[str, Any]:
    answers = copy.deepcopy(STRONG)
    bindings = [{"x": {"type": "literal", "value": v}} for v in ODD]
    answers["questions"][0]["answers"] = [
        {"head": {"vars": ["x"]}, "results": {"bindings": bindings}}
    ]
    return answers


def _strict_xml(body: bytes) -> None:
    xml.dom.minidom.parseString(body)  # expat: a control character is "not well-formed"


@pytest.fixture(scope="module")
def published(site: Server) -> dict[str, Any]:
    made = _post(
        site,
        {
            "dataset": "demo",
            "profile": "exact",
            "systems": [{"name": "odd", "answers": _file(_odd_answers(), "odd.json")}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    return {**state, "id": ticket["id"]}


def _strong_on(dataset: Any, filename: str, title: str) -> dict[str, Any]:
    """A submission of the demo's strong answers on ``dataset`` (as ``filename``), titled."""
    return {
        "dataset": _file(dataset, filename),
        "title": title,
        "systems": [{"name": "strong", "answers": _file(STRONG, "strong.json")}],
    }


def test_a_dataset_file_with_a_control_character_is_refused_naming_where(site: Server) -> None:
    dataset = copy.deepcopy(QUESTIONS)
    dataset["questions"][1]["question"][0]["string"] = "Which planet\u0000 is largest \u0001\b?"
    body = _strong_on(dataset, "nul-qa.json", "NUL QA")
    refused = _post(site, body)
    assert refused.status_code == 400, refused.text
    said = refused.json()
    text = json.dumps(said)
    assert "nul-qa.json" in text and "question 2" in text, said
    assert "U+0000 at character 13" in text and "(and 2 more)" in text, said
    assert "tab, LF and CR" in text, said
    # a tab, a newline and a carriage return are text
    dataset["questions"][1]["question"][0]["string"] = "Which planet\t is\r\nlargest?"
    assert _post(site, {**body, "dataset": _file(dataset, "tab-qa.json")}).status_code == 202


def test_a_title_with_a_control_character_is_refused(site: Server) -> None:
    refused = _post(site, _strong_on(QUESTIONS, "titled.json", "NUL\u0000 QA"))
    assert refused.status_code == 400, refused.text
    assert "$.title" in refused.text and "U+0000" in refused.text


def test_an_answer_with_a_control_character_is_stored_replaced_and_warned_of(
    site: Server, published: dict[str, Any]
) -> None:
    warnings = json.dumps(published)
    assert "U+0000" in warnings and "with U+FFFD in its place" in warnings, warnings[:3000]
    task = f"experiment/{published['id']}/task/1"
    for path in (task, f"{task}/question/1"):
        got = site.get(path, headers=XML_ACCEPT)
        assert got.status_code == 200, path
        _strict_xml(got.content)  # was: ExpatError not well-formed (invalid token)
        graph = rdflib.Graph().parse(data=got.content, format="xml")
        texts = {str(o) for o in graph.objects() if isinstance(o, rdflib.Literal)}
        if path.endswith("question/1"):
            assert {"a\ufffdb\ufffdc\ufffdd", "Jupiter | Saturn"} <= texts
        page = site.get(path, headers={"Accept": "text/html"})
        assert (
            page.status_code == 200 and b"\x00" not in page.content and b"\x08" not in page.content
        )
    query = f"""SELECT ?a WHERE {{ <{site.url}{task}/question/1>
        <http://w3id.org/gerbil/qa/vocab#givenAnswer> ?a }}"""
    got = site.get(
        "sparql", params={"query": query}, headers={"Accept": "application/sparql-results+xml"}
    )
    assert got.status_code == 200
    _strict_xml(got.content)
    assert "a\ufffdb\ufffdc\ufffdd" in got.content.decode()


def test_a_task_csv_answer_cell_reads_back_as_the_answers_given(
    site: Server, published: dict[str, Any]
) -> None:
    got = site.get(f"experiment/{published['id']}/task/1.csv")
    assert got.status_code == 200 and got.content.endswith(b"\r\n")
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(got.content.decode(), newline=""))}
    given = split_items(rows["1"]["given"])
    assert sorted(given) == sorted(SHOWN)  # was: "Jupiter | Saturn" read back as two
    assert split_items(rows["1"]["gold"]) == ["http://example.org/solar/Jupiter"]
    ranked = split_items(rows["1"]["rankedAnswers"])
    assert len(ranked) in (0, len(ODD))


def test_profile_and_format_are_recorded_as_their_registries_name_them(site: Server) -> None:
    made = _post(
        site,
        {
            "dataset": "demo",
            "profile": "Exact",
            "systems": [
                {"name": "caps", "answers": {**_file(STRONG, "caps.json"), "format": "QALD-JSON"}}
            ],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    assert state["asked"]["profile"] == "exact", state["asked"]  # was "Exact"
    assert "QALD-JSON" not in json.dumps(state["asked"]), state["asked"]
    # and a re-scoring under another profile, named in capitals
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    again = site.post(
        f"api/experiments/{ticket['id']}/rescore", json={"profile": "FAIR"}, headers=auth
    )
    assert again.status_code == 202, again.text
    revision = again.json()
    state = site.wait_finished(revision["id"], revision["token"])
    assert state["asked"]["profile"] == "fair", state["asked"]


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("language", "", "$.language: '' is empty"),
        ("language", "  ", "$.language: '  ' is empty"),
        ("timeout", "60", '$.timeout: "60", expected a number from 1 to 600'),
        ("timeout", 6000, "$.timeout: 6000, expected a number from 1 to 600"),
    ],
)
def test_an_empty_language_and_a_timeout_as_text_are_refused_saying_the_value(
    site: Server, field: str, value: Any, said: str
) -> None:
    body = {
        "dataset": "demo",
        field: value,
        "systems": [{"name": "s", "answers": _file(STRONG, "s.json")}],
    }
    refused = _post(site, body)
    assert refused.status_code == 400, refused.text
    assert said in refused.json()["error"], refused.json()


def test_the_command_line_refuses_such_a_dataset_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line reads a dataset the same way (``read_dataset``)."""
    from service.cli import main

    dataset = copy.deepcopy(QUESTIONS)
    dataset["questions"][0]["question"][0]["keywords"] = "planet,\x0clargest"
    path = tmp_path / "ff.json"
    path.write_text(json.dumps(dataset), encoding="utf-8")
    answers = tmp_path / "strong.json"
    answers.write_text(json.dumps(STRONG), encoding="utf-8")
    assert main(["evaluate", "--dataset", str(path), "--answers", str(answers)]) != 0
    said = capsys.readouterr().err
    assert "ff.json" in said and "question 1" in said and "U+000C" in said, said


@pytest.mark.parametrize(
    ("query", "accept"),
    [
        ('SELECT ("a\\u0000b\\u000Bc\\uFFFF" AS ?x) {}', "application/sparql-results+xml"),
        ('CONSTRUCT { <http://a/> <http://b/c> "a\\u0001b" } {}', "application/rdf+xml"),
    ],
)
def test_a_literal_a_query_makes_is_written_as_well_formed_xml(
    site: Server, query: str, accept: str
) -> None:
    """The endpoint's XML writers wrote such a character raw (JSON escapes it)."""
    got = site.get("sparql", params={"query": query}, headers={"Accept": accept})
    assert got.status_code == 200, got.text
    _strict_xml(got.content)
    assert "\ufffd" in got.content.decode()


def test_a_construct_rdf_xml_cannot_write_is_a_406_not_an_ill_formed_200(site: Server) -> None:
    """A predicate IRI ending in "/" has no XML name: Oxigraph wrote an element ``oxprefix:``
    with 200 (explore31 F16). A 406 says why and offers the other syntaxes, which write it."""
    query = 'CONSTRUCT { <http://e.org/s> <http://e.org/p/> "x" } WHERE {}'
    got = site.get("sparql", params={"query": query}, headers={"Accept": "application/rdf+xml"})
    assert got.status_code == 406, got.text
    assert "cannot be written as RDF/XML" in got.text and "Turtle" in got.text
    turtle = site.get("sparql", params={"query": query}, headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200 and "<http://e.org/p/>" in turtle.text


def test_a_web_services_answer_with_a_control_character_is_stored_replaced(site: Server) -> None:
    """The same for a QA web service's response: scored, stored with U+FFFD, warned of, and
    its published question document is well-formed RDF/XML."""
    from tests.helpers import qa_service

    def answers(text: str) -> list[dict[str, Any]]:
        bindings = [{"x": {"type": "literal", "value": "x\x00y"}}]
        return [{"head": {"vars": ["x"]}, "results": {"bindings": bindings}}]

    with qa_service(answers) as url:
        made = _post(site, {"dataset": "demo", "systems": [{"name": "nul-ws", "url": url}]})
        assert made.status_code == 202, made.text
        ticket = made.json()
        state = site.wait_finished(ticket["id"], ticket["token"])
    assert "U+0000" in json.dumps(state), json.dumps(state)[:3000]
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    got = site.get(f"experiment/{ticket['id']}/task/1/question/1", headers=XML_ACCEPT)
    assert got.status_code == 200
    _strict_xml(got.content)
    assert "x\ufffdy" in got.content.decode()
