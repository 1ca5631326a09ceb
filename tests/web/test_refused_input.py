"""Input refused clearly, or kept and written safely (explore31 F2, F7, F8, F11, F14, F17).

C1 controls, DEL and noncharacters are characters XML 1.0 allows, and the built-in
qald-1-musicbrainz datasets' gold answers hold C1 controls, so they are kept; HTML pages write
U+FFFD in their place (HTML's parser calls them errors). A refused dataset character is named
with its line, column and JSON path; a PolEval pair's in.tsv is named for its texts; a language
tag is read without regard to case; an answer with a bad language tag or IRI is stored as the
plain literal the warning says; a doubled BOM is said in a user's words; an upload's file name
holding control characters or path separators is refused.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

QUESTIONS = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
STRONG = json.loads((DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8"))
# what HTML's parsing rules call an error in the input stream, in UTF-8
NOT_HTML = re.compile(
    rb"[\x00-\x08\x0b\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xef\xb7[\x90-\xaf]|\xef\xbf[\xbe\xbf]"
    rb"|[\xf0-\xf4][\x8f\x9f\xaf\xbf]\xbf[\xbe\xbf]"
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("refused-input"))
    yield running
    stop_server(running)


def _file(data: Any, name: str) -> dict[str, str]:
    return {"filename": name, "content": json.dumps(data)}


def _run_and_publish(site: Server, body: dict[str, Any]) -> dict[str, Any]:
    made = site.post("api/experiments", json=body)
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    return {**state, "id": ticket["id"]}


def test_c1_controls_and_noncharacters_reach_html_pages_as_replacement_characters(
    site: Server,
) -> None:
    dataset = copy.deepcopy(QUESTIONS)
    text = dataset["questions"][0]["question"][0]
    text["string"] = "Which planet\x85 is the largest\x7f in the Solar System\ufdd0?"
    text["keywords"] = "largest\x9f, planet\U0001fffe"
    answers = copy.deepcopy(STRONG)
    answers["questions"][0]["answers"][0]["results"]["bindings"].append(
        {"uri": {"type": "literal", "value": "Jupiter\x80\uffff"}}
    )
    done = _run_and_publish(
        site,
        {
            "dataset": _file(dataset, "c1.json"),
            "systems": [{"name": "c1", "answers": _file(answers, "c1-answers.json")}],
        },
    )
    task = f"experiment/{done['id']}/task/1"
    for path in (task, f"{task}/question/1"):
        page = site.get(path, headers={"Accept": "text/html"})
        assert page.status_code == 200, path
        # html5lib (strict) stopped here: "invalid-codepoint"
        assert NOT_HTML.search(page.content) is None, (path, NOT_HTML.search(page.content))
        shown = page.content.decode()
        assert "Jupiter\ufffd\ufffd" in shown, path
        if path.endswith("question/1"):
            assert "Which planet\ufffd is the largest\ufffd in the Solar System\ufffd?" in shown
    # a C1 control is kept in the store (XML 1.0 allows it; U+FFFF it does not)
    turtle = site.get(f"{task}/question/1", headers={"Accept": "text/turtle"})
    assert "Jupiter\x80\ufffd" in turtle.content.decode()


def _strong_on(dataset: Any, filename: str) -> dict[str, Any]:
    return {
        "dataset": _file(dataset, filename),
        "systems": [{"name": "strong", "answers": _file(STRONG, "strong.json")}],
    }


def test_a_refused_dataset_character_is_named_with_its_line_column_and_json_path(
    site: Server,
) -> None:
    dataset = copy.deepcopy(QUESTIONS)
    dataset["questions"][1]["id"] = "2\x1b"
    dataset["questions"][2]["question"][0]["keywords"] = "rings\ufffe"
    text = json.dumps(dataset, indent=2)
    refused = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "f.json", "content": text},
            "systems": [{"answers": _file(STRONG, "strong.json")}],
        },
    )
    assert refused.status_code == 400, refused.text
    problems = refused.json()["problems"]
    lines = text.split("\n")
    by_path = {p["path"]: p for p in problems}
    assert set(by_path) == {"$.questions[1].id", "$.questions[2].question[0].keywords"}, problems
    for path, key in (("$.questions[1].id", '"id"'), ("$.questions[2].question[0].keywords", "")):
        p = by_path[path]
        assert p["file"] == "f.json" and p["line"] is not None and p["column"] is not None, p
        line = lines[p["line"] - 1]
        assert line[p["column"] - 1] == '"' and (key in line), (line, p)  # was: all null
        assert f"f.json:{p['line']}:{p['column']}: {path}:" in p["text"], p
    # a noncharacter is no control character (was: "expected text without control characters")
    keywords = by_path["$.questions[2].question[0].keywords"]
    assert "U+FFFE" in keywords["message"] and "control" not in keywords["expected"], keywords


def test_a_control_character_in_a_poleval_in_tsv_is_named_in_in_tsv_by_line_and_column(
    site: Server,
) -> None:
    texts = ["Jak nazywa się pierwsza litera?", "Jak nazywa\x01 się odcinek?", "Trzecie?"]
    refused = site.post(
        "api/experiments",
        json={
            "dataset": {
                "filename": "expected.tsv",
                "content": "alfa\nodcinek\ntrzy\n",
                "questions": {"filename": "in.tsv", "content": "\n".join(texts) + "\n"},
            },
            "systems": [{"answers": {"filename": "out.tsv", "content": "alfa\nodcinek\ntrzy\n"}}],
            "profile": "poleval",
        },
    )
    assert refused.status_code == 400, refused.text
    said = refused.json()
    # was: "expected.tsv: question 2: error: the question text (pl): holds …"
    assert said["error"].startswith("in.tsv:2:11: question 2: error: the question text"), said
    assert said["problems"][0]["file"] == "in.tsv" and said["problems"][0]["line"] == 2


def test_a_lone_surrogate_is_said_alike_in_a_title_and_in_about(site: Server) -> None:
    said = []
    for extra in ({"title": "a\ud800b"}, {"about": {"creators": ["a\ud800b"]}}):
        body = json.dumps({**_strong_on(QUESTIONS, "q.json"), **extra})
        refused = site.post(
            "api/experiments", data=body, headers={"Content-Type": "application/json"}
        )
        assert refused.status_code == 400, refused.text
        said.append(refused.json()["error"].split(": ", 1)[1])
    # was: "not valid Unicode text (surrogates not allowed)" for the title
    assert said[0] == said[1], said
    assert said[0].startswith("holds a lone UTF-16 surrogate U+D800 at character 2"), said
    assert "control characters" not in said[0], said


def test_a_language_is_read_without_regard_to_case(site: Server) -> None:
    body = {"dataset": "demo", "systems": [{"answers": _file(STRONG, "strong.json")}]}
    made = site.post("api/experiments", json={**body, "language": "EN"})
    assert made.status_code == 202, made.text  # was: 400 "expected an ISO 639 code such as 'en'"
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    assert state["asked"]["languages"] == ["en"], state["asked"]
    # a region is read so too, and recorded as BCP 47 writes it (the demo has no en-US texts)
    refused = site.post("api/experiments", json={**body, "language": "En-Us"})
    assert refused.status_code == 400 and "'en-US'" in refused.json()["error"], refused.text
    assert "ISO 639" not in refused.json()["error"]
    # a tag that is none is quoted as sent, not as it was made: 'ｅｎ' for "ＥＮ" (explore35 8)
    for sent in ("\uff25\uff2e", "\u0130n", "en--us"):
        refused = site.post("api/experiments", json={**body, "language": sent})
        assert refused.status_code == 400, refused.text
        said = refused.json()["error"]
        assert said == f"language {sent!r}: expected an ISO 639 code such as 'en'", said


def test_the_run_forms_language_is_read_without_regard_to_case(site: Server) -> None:
    data = (DEMO_DIR / "answers-strong.json").read_bytes()
    posted = site.post(
        "experiments/new",
        files=[("answers", ("answers-strong.json", data))],
        data={"dataset": "demo", "language": "EN"},
        allow_redirects=False,
    )
    assert posted.status_code == 303, posted.text[-2000:]  # was: the form again, refused


GIVEN = "http://w3id.org/gerbil/qa/vocab#givenAnswer"
BAD_TERMS = [
    {"x": {"type": "uri", "value": "http://example.org/solar/Jupiter\x01"}},
    {"x": {"type": "literal", "value": "Jupiter", "xml:lang": "en\x01"}},
]


def _given(site: Server, experiment_id: str) -> tuple[set[str], list[str]]:
    """The given answers of task 1's question 1, as stored (every one a plain literal) and
    as the task CSV shows them."""
    import csv
    import io

    import rdflib

    from service.csv_table import split_items

    page = site.get(
        f"experiment/{experiment_id}/task/1/question/1", headers={"Accept": "text/turtle"}
    )
    graph = rdflib.Graph().parse(data=page.content, format="turtle")
    stored = set()
    for o in graph.objects(None, rdflib.URIRef(GIVEN)):
        assert isinstance(o, rdflib.Literal) and o.language is None and o.datatype is None, o
        stored.add(str(o))
    table = site.get(f"experiment/{experiment_id}/task/1.csv")
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(table.content.decode(), newline=""))}
    return stored, split_items(rows["1"]["given"])


def test_an_answer_with_a_bad_tag_or_iri_is_stored_as_the_plain_literal_its_warning_says(
    site: Server,
) -> None:
    answers = copy.deepcopy(STRONG)
    answers["questions"][0]["answers"] = [
        {"head": {"vars": ["x"]}, "results": {"bindings": BAD_TERMS}}
    ]
    done = _run_and_publish(
        site, {"dataset": "demo", "systems": [{"name": "bad", "answers": _file(answers, "a.json")}]}
    )
    warned = json.dumps(done)
    assert "stored without its language tag" in warned and "stored as a plain literal" in warned
    stored, shown = _given(site, done["id"])
    # was: '"Jupiter"@en\ufffd' and '<http://example.org/solar/Jupiter\ufffd>'
    assert stored == {"Jupiter", "http://example.org/solar/Jupiter\ufffd"}, stored
    assert sorted(shown) == sorted(stored), shown


def test_a_web_services_bad_tag_or_iri_is_stored_so_too(site: Server) -> None:
    from tests.helpers import qa_service

    def answers(text: str) -> list[dict[str, Any]]:
        return [{"head": {"vars": ["x"]}, "results": {"bindings": BAD_TERMS}}]

    with qa_service(answers) as url:
        done = _run_and_publish(
            site, {"dataset": "demo", "systems": [{"name": "bad-ws", "url": url}]}
        )
    stored, shown = _given(site, done["id"])
    assert stored == {"Jupiter", "http://example.org/solar/Jupiter\ufffd"}, stored
    assert sorted(shown) == sorted(stored), shown


def test_a_doubled_byte_order_mark_is_said_in_a_users_words(site: Server) -> None:
    refused = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "q.json", "content": "\ufeff\ufeff" + json.dumps(QUESTIONS)},
            "systems": [{"answers": _file(STRONG, "strong.json")}],
        },
    )
    assert refused.status_code == 400, refused.text
    said = refused.json()["error"]
    # was: "q.json:1:1: error: not valid JSON: unexpected UTF-8 BOM (decode using utf-8-sig)"
    assert said.startswith("q.json:1:2: error: a second byte-order mark at the start"), said
    assert "expected at most one" in said and "utf-8-sig" not in said, said
    # one is accepted
    once = {"filename": "q.json", "content": "\ufeff" + json.dumps(QUESTIONS)}
    made = site.post(
        "api/experiments",
        json={"dataset": once, "systems": [{"answers": _file(STRONG, "strong.json")}]},
    )
    assert made.status_code == 202, made.text


def test_a_doubled_byte_order_mark_in_qald_xml_is_said_so_too() -> None:
    from service import formats
    from service.errors import FormatError

    xml = (
        b'<?xml version="1.0"?><dataset id="d"><question id="1">'
        b'<string lang="en">Q?</string></question></dataset>'
    )
    assert len(formats.read(b"\xef\xbb\xbf" + xml, name="d.xml")) == 1
    with pytest.raises(FormatError) as refused:
        formats.read(b"\xef\xbb\xbf" * 2 + xml, name="d.xml")
    # was: "d.xml:1:2: error: not well-formed XML: not well-formed (invalid token)"
    assert str(refused.value.problems[0]).startswith(
        "d.xml:1:2: error: a second byte-order mark at the start"
    ), refused.value.problems


def _multipart(parts: list[tuple[str, bytes | None, bytes]]) -> tuple[bytes, dict[str, str]]:
    """A multipart body written byte by byte (``requests`` percent-encodes a control
    character in a file name, as browsers do, so the server never saw one): each part a
    field name, its raw file name (None: a plain field) and its content."""
    boundary = b"refused-input-boundary"
    body = b""
    for name, filename, content in parts:
        body += b"--" + boundary + b'\r\nContent-Disposition: form-data; name="' + name.encode()
        body += b'"; filename="' + filename + b'"' if filename is not None else b'"'
        body += b"\r\n\r\n" + content + b"\r\n"
    body += b"--" + boundary + b"--\r\n"
    return body, {"Content-Type": "multipart/form-data; boundary=" + boundary.decode()}


def test_an_uploads_file_name_with_control_characters_is_refused_naming_the_field(
    site: Server,
) -> None:
    strong = json.dumps(STRONG).encode()
    for raw, said in (
        (b"a\x01b.json", "answers: the file name 'a\\x01b.json' holds a control character U+0001"),
        (b"a\xc2\x85b.json", "answers: the file name 'a\\x85b.json' holds a control character"),
    ):
        body, headers = _multipart([("dataset", None, b"demo"), ("answers", raw, strong)])
        refused = site.post("api/experiments", data=body, headers=headers)
        # was: a system name refused, or (a dataset file) the name stored and shown as sent
        assert refused.status_code == 400 and refused.json()["error"].startswith(said), refused.text
    questions = (DEMO_DIR / "questions.json").read_bytes()
    body, headers = _multipart(
        [("dataset", b"q\x7f.json", questions), ("answers", b"s.json", strong)]
    )
    refused = site.post("api/experiments", data=body, headers=headers)
    assert refused.status_code == 400 and "dataset: the file name" in refused.text, refused.text
    # a name that is not UTF-8 made Werkzeug drop the whole form: "no dataset: give …"
    body, headers = _multipart([("dataset", None, b"demo"), ("answers", b"a\xff.json", strong)])
    refused = site.post("api/experiments", data=body, headers=headers)
    assert refused.status_code == 400 and "is not UTF-8 text" in refused.text, refused.text
    # an inline file's name so too
    inline = {"filename": "a\x85b.json", "content": json.dumps(STRONG)}
    refused = site.post(
        "api/experiments", json={"dataset": "demo", "systems": [{"answers": inline}]}
    )
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"].startswith("$.systems[0].answers.filename: the file name")


def test_an_uploads_file_name_is_kept_without_its_folders(site: Server) -> None:
    questions = (DEMO_DIR / "questions.json").read_bytes()
    strong = json.dumps(STRONG).encode()
    # a quoted string's "\\" is one backslash (RFC 7230): C:\\Users\\me\\q.json as sent
    for raw in (b"C:\\\\Users\\\\me\\\\q.json", b"../../etc/q.json"):
        body, headers = _multipart([("dataset", raw, questions), ("answers", b"s.json", strong)])
        made = site.post("api/experiments", data=body, headers=headers)
        assert made.status_code == 202, made.text
        ticket = made.json()
        state = site.wait_finished(ticket["id"], ticket["token"])
        assert state["asked"]["dataset"] == "q.json", state["asked"]  # was: the path as sent
    inline = {"filename": "../../etc/s.json", "content": json.dumps(STRONG)}
    made = site.post("api/experiments", json={"dataset": "demo", "systems": [{"answers": inline}]})
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    assert state["asked"]["systems"][0]["name"] == "s", state["asked"]


def test_the_run_form_refuses_such_a_file_name_beside_the_form(site: Server) -> None:
    import html

    strong = json.dumps(STRONG).encode()
    body, headers = _multipart([("dataset", None, b"demo"), ("answers", b"a\x1bb.json", strong)])
    refused = site.post("experiments/new", data=body, headers=headers, allow_redirects=False)
    assert refused.status_code == 400, refused.status_code
    shown = html.unescape(refused.text)
    assert "answers: the file name 'a\\x1bb.json' holds a control character U+001B" in shown
    assert "\x1b" not in refused.text
