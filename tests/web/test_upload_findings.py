"""An uploaded dataset's checks, over HTTP: an author uploads a small QALD-JSON benchmark with a
gold query that does not parse, a question with an empty gold set and one without its German
text; once a run on it is published, its page, its RDF and the public SPARQL endpoint show
what the checks found, as a catalogue dataset's do. Before, a published upload's page said
nothing of them (the same file as a built-in dataset showed four findings); an unpublished
one shows nothing anywhere public.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph
import pytest
import rdflib

from service import formats
from service.graph.questions import check_dataset
from tests.lakes_benchmark import lakes
from tests.web.conftest import Server, start_server, stop_server

GQA = "http://w3id.org/gerbil/qa/vocab#"


def _expected(tmp: Path) -> list[Any]:
    path = tmp / "lakes.json"
    path.write_bytes(lakes())
    return check_dataset(formats.read(path))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("upload-findings")


@pytest.fixture(scope="module")
def site(store: Path) -> Iterator[Server]:
    running = start_server(store, demo=False)
    yield running
    stop_server(running)


def _submit(site: Server, data: bytes, name: str = "lakes.json") -> dict[str, Any]:
    made = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": name, "content": data.decode()},
            "title": "Lakes QA",
            "profile": "exact",
            "systems": [{"name": "gold-check", "answers": data.decode()}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    return {**state, "token": ticket["token"], "id": ticket["id"]}


def _ask(site: Server, query: str) -> bool:
    got = site.get(
        "sparql", params={"query": query}, headers={"Accept": "application/sparql-results+json"}
    )
    assert got.status_code == 200, got.text
    return bool(got.json()["boolean"])


def _findings_ask(uri: str) -> str:
    return f"ASK {{ GRAPH ?g {{ <{uri}> <{GQA}finding> ?f }} }}"


@pytest.fixture(scope="module")
def unpublished(site: Server) -> dict[str, Any]:
    return _submit(site, lakes())


def test_an_unpublished_uploads_findings_are_nowhere_public(
    site: Server, unpublished: dict[str, Any]
) -> None:
    uri = unpublished["dataset"]
    name = uri.rsplit("/", 1)[1]
    for accept in ("text/html", "text/turtle", "application/n-triples"):
        assert site.get(f"dataset/{name}", headers={"Accept": accept}).status_code == 404
    assert not _ask(site, _findings_ask(uri))
    assert not _ask(site, f"ASK {{ ?f a <{GQA}DatasetFinding> }}")
    graph = pyoxigraph.NamedNode(site.storage.uris.dataset_graph(name))
    assert not site.storage.public.contains_named_graph(graph)


@pytest.fixture(scope="module")
def published(site: Server, unpublished: dict[str, Any]) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {unpublished['token']}"}
    done = site.post(f"api/experiments/{unpublished['id']}/publish", headers=auth)
    assert done.status_code == 200, done.text
    return unpublished


def test_a_published_uploads_page_summarises_its_findings(
    site: Server, published: dict[str, Any], tmp_path: Path
) -> None:
    name = published["dataset"].rsplit("/", 1)[1]
    page = site.get(f"dataset/{name}", headers={"Accept": "text/html"})
    assert page.status_code == 200
    html = page.text
    assert 'id="finding-summary"' in html
    assert f"<caption>{len(_expected(tmp_path))} findings</caption>" in html
    for kind in ("unparsable-query", "empty-gold", "missing-text", "format"):
        assert f"findings={kind}" in html, kind
    assert "gold SPARQL does not parse" in html and "the gold answer set is empty" in html
    listed = site.get(f"dataset/{name}?findings=unparsable-query", headers={"Accept": "text/html"})
    assert listed.status_code == 200
    assert "1 finding of the kind unparsable-query" in listed.text
    assert "question 2" in listed.text
    unknown = site.get(f"dataset/{name}?findings=duplicate-id", headers={"Accept": "text/html"})
    assert unknown.status_code == 400 and "unparsable-query" in unknown.text


@pytest.mark.parametrize(
    ("media_type", "syntax"),
    [
        ("text/turtle", "turtle"),
        ("application/ld+json", "json-ld"),
        ("application/n-triples", "nt"),
        ("application/rdf+xml", "xml"),
    ],
)
def test_its_rdf_holds_every_finding(
    site: Server, published: dict[str, Any], tmp_path: Path, media_type: str, syntax: str
) -> None:
    uri = published["dataset"]
    got = site.get(f"dataset/{uri.rsplit('/', 1)[1]}", headers={"Accept": media_type})
    assert got.status_code == 200
    g = rdflib.Graph().parse(data=got.content, format=syntax, publicID=uri)
    gqa = rdflib.Namespace(GQA)
    found = sorted(
        (
            str(g.value(f, gqa.findingKind)).rsplit("finding-", 1)[1],
            str(g.value(f, gqa.severity)),
            str(g.value(f, gqa.aboutQuestion)).rsplit("/", 1)[-1],
        )
        for f in g.objects(rdflib.URIRef(uri), gqa.finding)
    )
    expected = sorted((f.kind, f.severity, f.question_id or "None") for f in _expected(tmp_path))
    assert found == expected
    assert g.value(rdflib.URIRef(uri), gqa.checkedAt) is not None


def test_its_findings_pass_our_shapes_and_the_endpoint_sees_them(
    site: Server, published: dict[str, Any]
) -> None:
    from service.graph.checks import shacl_violations

    uri = published["dataset"]
    name = uri.rsplit("/", 1)[1]
    got = site.get(f"dataset/{name}", headers={"Accept": "application/n-triples"})
    served = list(pyoxigraph.parse(got.content, format=pyoxigraph.RdfFormat.N_TRIPLES))
    assert shacl_violations(served, target=uri) == []
    graph = pyoxigraph.NamedNode(site.storage.uris.dataset_graph(name))
    stored = list(site.storage.public.quads_for_pattern(None, None, None, graph))
    assert stored and shacl_violations(stored, target=graph.value) == []
    assert _ask(site, _findings_ask(uri))
    assert _ask(
        site,
        f"ASK {{ <{uri}> <{GQA}finding> ?f . ?f <{GQA}findingKind> <{GQA}finding-empty-gold> ; "
        f"<{GQA}aboutQuestion> ?q . ?q <http://purl.org/dc/terms/identifier> '3' }}",
    )


def test_the_dataset_list_counts_its_findings(
    site: Server, published: dict[str, Any], private_run: dict[str, Any], tmp_path: Path
) -> None:
    listed = {d["uri"]: d for d in site.get("api/datasets").json()["datasets"]}
    assert listed[published["dataset"]]["findings"] == len(_expected(tmp_path))
    assert listed[published["dataset"]]["uploaded"] is True
    assert private_run["dataset"] not in listed  # an unpublished upload is not listed at all


def test_a_second_run_on_the_same_file_adds_no_second_findings(
    site: Server, published: dict[str, Any], tmp_path: Path
) -> None:
    again = _submit(site, lakes(), name="lakes-again.json")
    assert again["dataset"] == published["dataset"]
    auth = {"Authorization": f"Bearer {again['token']}"}
    assert site.post(f"api/experiments/{again['id']}/publish", headers=auth).status_code == 200
    uri = published["dataset"]
    rows = site.storage.public.query(
        f"SELECT (COUNT(DISTINCT ?f) AS ?n) (COUNT(DISTINCT ?t) AS ?t) WHERE {{ "
        f"<{uri}> <{GQA}finding> ?f ; <{GQA}checkedAt> ?t }}"
    )
    row = next(iter(rows))
    assert (int(row["n"].value), int(row["t"].value)) == (len(_expected(tmp_path)), 1)


def test_a_withdrawn_uploads_findings_leave_with_its_description(site: Server) -> None:
    # its last run withdrawn, an upload's description leaves the default graph (its URI answers
    # as first published, saying it was withdrawn): its findings with it, not a page of
    # findings alone
    data = lakes(dataset_id="lakes-withdrawn")
    runs = [_submit(site, data, name=f"lakes-withdrawn-{k}.json") for k in (1, 2)]
    auths = [{"Authorization": f"Bearer {run['token']}"} for run in runs]
    for run, auth in zip(runs, auths, strict=True):
        assert site.post(f"api/experiments/{run['id']}/publish", headers=auth).status_code == 200
    uri = runs[0]["dataset"]
    name = uri.rsplit("/", 1)[1]
    assert runs[1]["dataset"] == uri and _ask(site, _findings_ask(uri))
    for k, (run, auth) in enumerate(zip(runs, auths, strict=True)):
        gone = site.post(
            f"api/experiments/{run['id']}/withdraw", json={"reason": "gold 2 broken"}, headers=auth
        )
        assert gone.status_code == 200, gone.text
        last = k == len(runs) - 1
        page = site.get(f"dataset/{name}", headers={"Accept": "text/turtle"})
        assert page.status_code == 200
        assert ("finding" in page.text) is not last, page.text
        assert _ask(site, f"ASK {{ <{uri}> <{GQA}checkedAt> ?t }}") is not last
        assert _ask(site, _findings_ask(uri)) is not last


def test_duplicate_ids_are_refused_before_anything_is_stored(site: Server) -> None:
    # an upload whose ids repeat is never recorded (its results are named by id): the
    # duplicate-id finding is one a published upload cannot have
    made = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "lakes-dup.json", "content": lakes(duplicate=True).decode()},
            "profile": "exact",
            "systems": [{"name": "gold-check", "answers": lakes().decode()}],
        },
    )
    assert made.status_code == 400, made.text
    text = json.dumps(made.json())
    assert "lakes-dup.json" in text and "unique question ids" in text


def _published_as_before(store: Path, port: int) -> tuple[str, str]:
    """A run on the lakes published as the version before this one did (the experiment only,
    as ``ExperimentRepository.publish`` alone does): its id and its dataset's URI."""
    first = start_server(store, demo=False, port=port)
    try:
        run = _submit(first, lakes(), name="old-lakes.json")
        first.storage.experiments.publish(run["id"])
        uri = str(run["dataset"])
        page = first.get(f"dataset/{uri.rsplit('/', 1)[1]}", headers={"Accept": "text/html"})
        assert page.status_code == 200 and 'id="upload-checks"' in page.text
        assert "checks it when it next starts" in page.text
        assert not first.storage.public.query(_findings_ask(uri))
    finally:
        stop_server(first)
    return str(run["id"]), uri


def _withdrawn_as_before(store: Path, port: int, experiment_id: str, uri: str) -> None:
    """The run withdrawn as the version before this one did (a crash before its findings
    went): its findings still public, its page theirs alone."""
    server = start_server(store, demo=False, port=port)
    try:
        server.storage.experiments.withdraw(experiment_id, "its gold query 2 is broken")
        assert server.storage.public.query(_findings_ask(uri))
    finally:
        stop_server(server)


def test_serve_start_completes_an_uploads_findings(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    # published before uploads were checked (or a crash between the publication and its
    # findings): checked at the next start; withdrawn so: its findings go at the next start
    import gc

    from service.systems.localnet import free_port

    store, port = tmp_path_factory.mktemp("old-store"), free_port()
    eid, uri = _published_as_before(store, port)
    gc.collect()  # the store's last reference goes: its directory lock with it
    again = start_server(store, demo=False, port=port)
    try:
        assert _ask(again, _findings_ask(uri))
        page = again.get(f"dataset/{uri.rsplit('/', 1)[1]}", headers={"Accept": "text/html"})
        assert f"<caption>{len(_expected(tmp_path))} findings</caption>" in page.text
        assert "when the dataset was published" in page.text
        assert 'id="upload-checks"' not in page.text
    finally:
        stop_server(again)
    del again
    gc.collect()
    _withdrawn_as_before(store, port, eid, uri)
    gc.collect()
    last = start_server(store, demo=False, port=port)
    try:
        assert not _ask(last, _findings_ask(uri))
        withdrawn = last.get(f"dataset/{uri.rsplit('/', 1)[1]}", headers={"Accept": "text/html"})
        assert withdrawn.status_code == 200 and 'id="withdrawn-runs"' in withdrawn.text
        assert "findings</caption>" not in withdrawn.text
    finally:
        stop_server(last)


@pytest.fixture(scope="module")
def private_run(site: Server) -> dict[str, Any]:
    """A run on other bytes of the lakes, never published."""
    return _submit(site, lakes(dataset_id="lakes-private"), name="lakes-private.json")


def test_its_owner_reads_the_findings_before_publishing(
    site: Server, private_run: dict[str, Any], tmp_path: Path
) -> None:
    eid, token = private_run["id"], private_run["token"]
    owned = site.get(f"api/experiments/{eid}", headers={"Authorization": f"Bearer {token}"})
    found = owned.json()["datasetFindings"]
    expected = _expected(tmp_path)
    assert [(f["kind"], f["severity"], f["question"], f["language"]) for f in found] == [
        (f.kind, f.severity, f.question_id, f.language) for f in expected
    ]
    assert "does not parse" in found[0]["message"]
    # anyone else: nothing (the experiment is not public), nor on the dataset's URI
    assert site.get(f"api/experiments/{eid}").status_code in (403, 404)
    name = private_run["dataset"].rsplit("/", 1)[1]
    assert site.get(f"dataset/{name}").status_code == 404
    assert not _ask(site, _findings_ask(private_run["dataset"]))


def test_a_clean_upload_says_so_to_its_owner(site: Server) -> None:
    # the demo's questions are an upload too: checked, nothing found (an empty list; null is
    # for a catalogue dataset, whose page lists its findings)
    made = site.post(
        "api/experiments",
        json={"dataset": "demo", "kb": "demo", "systems": [{"reference": "gold-sparql"}]},
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    assert state["datasetFindings"] == []
    page = site.get(f"experiment/{ticket['id']}?token={ticket['token']}", allow_redirects=True)
    # the built-in demo was chosen, nothing uploaded: said so (it read "in the uploaded
    # dataset", explore-15 11g)
    said = "The dataset check found nothing to report in the questions of the built-in demo"
    assert said in page.text and "uploaded dataset" not in page.text, page.text


def test_an_uploaded_expected_tsv_says_how_to_bring_its_question_texts(site: Server) -> None:
    # a web upload is one file: it said "expected in.tsv in the same directory", which an
    # author uploading expected.tsv could not do; and "found 1 things", "1 findings"
    made = site.post(
        "api/experiments",
        json={
            # not QUIZ's bytes: those are published by their own test, with their in.tsv
            "dataset": {"filename": "expected.tsv", "content": "4\tcztery\nWarszawa\tWwa\n"},
            "title": "Mini quiz PL",
            "profile": "poleval",
            "systems": [
                {"name": "quiz-bot", "answers": {"filename": "out.tsv", "content": "4\nKraków\n"}}
            ],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    owned = site.get(
        f"api/experiments/{ticket['id']}", headers={"Authorization": f"Bearer {ticket['token']}"}
    )
    (finding,) = owned.json()["datasetFindings"]
    assert "upload the dataset as QALD-JSON" in finding["message"], finding
    assert "dataset.questions" in finding["message"]  # the API's way to bring the texts
    assert "gerbil-qa convert expected.tsv dataset.json --to qald-json" in finding["message"]
    assert "same directory" not in finding["message"]
    page = site.get(f"experiment/{ticket['id']}?token={ticket['token']}", allow_redirects=True)
    assert "found</strong> 1 thing in the uploaded dataset" in page.text
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    dataset = site.get(state["dataset"].replace(site.url, ""))
    assert "<caption>1 finding</caption>" in dataset.text
    assert "same directory" not in dataset.text
    # run by its name: its file has no .tsv name then (before: "unknown format", a 400)
    named = state["dataset"].rsplit("/", 1)[1]
    again = _quiz_run(site, named)
    assert again.status_code == 202, again.text
    assert site.wait_finished(again.json()["id"], again.json()["token"])["status"] == "finished"


QUIZ_IN = "Ile to dwa plus dwa?\nStolica Polski?\n"
QUIZ = {  # not the bytes "Mini quiz PL" published without texts: those take no in.tsv
    "filename": "expected.tsv",
    "content": "4\tcztery\tIV\nWarszawa\n",
    "questions": {"filename": "in.tsv", "content": QUIZ_IN},
}


def _quiz_run(site: Server, dataset: Any) -> Any:
    return site.post(
        "api/experiments",
        json={
            "dataset": dataset,
            "title": "Mini quiz PL z pytaniami",
            "profile": "poleval",
            "systems": [
                {"name": "quiz-bot", "answers": {"filename": "out.tsv", "content": "4\nKraków\n"}}
            ],
        },
    )


def _texts(site: Server) -> set[str]:
    query = f"SELECT ?t WHERE {{ GRAPH ?g {{ ?q <{GQA}questionText> ?t }} }}"
    return {row["t"].value for row in site.storage.store.public.query(query)}


def test_an_expected_tsv_uploaded_with_its_in_tsv_has_question_texts(site: Server) -> None:
    # before, an upload was one file: the questions of an expected.tsv had no text, and its
    # check told the author to convert it to QALD-JSON
    import hashlib

    made = _quiz_run(site, QUIZ)
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    assert state["status"] == "finished", state
    assert state["datasetFindings"] == []  # no "no in.tsv beside this file"
    # "Run it again" asks for both files again (a browser fills in none)
    form = site.get(
        f"experiments/new?revisionOf={ticket['id']}",
        cookies={f"gqa_owner_{ticket['id']}": ticket["token"]},
    )
    notice = form.text.split('id="revision-notice"')[1].split("</div>")[0]
    assert "<code>expected.tsv</code>" in notice and "<code>in.tsv</code>" in notice, notice
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    assert {"Ile to dwa plus dwa?", "Stolica Polski?"} <= _texts(site)
    # once published, "Run it again" picks it by name in the list (it asked for the files)
    form = site.get(
        f"experiments/new?revisionOf={ticket['id']}",
        cookies={f"gqa_owner_{ticket['id']}": ticket["token"]},
    ).text
    name = state["dataset"].rsplit("/", 1)[-1]
    assert re.search(f'<option value="{name}"[^>]*selected>', form), form
    notice = form.split('id="revision-notice"')[1].split("</div>")[0]
    assert "dataset file again" not in notice and "in.tsv" not in notice, notice
    page = site.get(state["dataset"].replace(site.url, ""))
    assert "Stolica Polski?" in page.text
    # two distributions, each its own file: the in.tsv is downloadable as the expected.tsv is
    in_sha = hashlib.sha256(QUIZ_IN.encode()).hexdigest()
    query = f"""SELECT ?title ?sha ?url WHERE {{ GRAPH ?g {{ <{state["dataset"]}>
        <http://www.w3.org/ns/dcat#distribution> ?f . ?f <http://purl.org/dc/terms/title>
        ?title ; <{GQA}sha256> ?sha ; <http://www.w3.org/ns/dcat#downloadURL> ?url }} }}"""
    found = {r["title"].value: r for r in site.storage.store.public.query(query)}
    assert set(found) == {"expected.tsv", "in.tsv"}, found
    assert found["in.tsv"]["sha"].value == in_sha
    assert site.get(found["in.tsv"]["url"].value.replace(site.url, "")).text == QUIZ_IN
    from service.graph.checks import shacl_violations  # fileRole "questions" is in the shapes

    name = state["dataset"].rsplit("/", 1)[1]
    got = site.get(f"dataset/{name}", headers={"Accept": "application/n-triples"})
    served = list(pyoxigraph.parse(got.content, format=pyoxigraph.RdfFormat.N_TRIPLES))
    assert shacl_violations(served, target=state["dataset"]) == []
    # others run it by its name: its kept in.tsv comes with it (before, the texts were lost)
    again = _quiz_run(site, name)
    assert again.status_code == 202, again.text
    rerun = site.wait_finished(again.json()["id"], again.json()["token"])
    assert rerun["status"] == "finished" and rerun["datasetFindings"] == [], rerun


def test_the_command_line_scores_a_published_polish_upload_with_its_own_profile(
    site: Server, store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # by name in a store, with no --profile: fair and "language: en" where the API gave poleval
    import json

    from service.cli import main

    made = _quiz_run(site, QUIZ)
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    backup, copy = tmp_path / "backup.tar", tmp_path / "copy"
    assert main(["export", "--store", str(store), "--files", "--output", str(backup)]) == 0
    assert main(["import", str(backup), "--store", str(copy)]) == 0
    answers = tmp_path / "out.tsv"
    answers.write_text("4\nWarszawa\n", encoding="utf-8")
    name = state["dataset"].rsplit("/", 1)[1]
    capsys.readouterr()
    argv = ["evaluate", "--dataset", name, "--store", str(copy), "--answers", str(answers)]
    assert main([*argv, "--output", "json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["profile"] == "poleval", said
    assert main([*argv, "--profile", "fair", "--lang", "pl", "--output", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["profile"] == "fair"  # a named one wins


def test_an_in_tsv_of_other_length_or_with_another_format_is_refused(site: Server) -> None:
    import hashlib

    workspace = site.storage.workspace
    short = {  # bytes of no published dataset, whose in.tsv is refused before it is read
        **QUIZ,
        "content": "4\tIV\nWarszawa\n",
        "questions": {"filename": "in.tsv", "content": "Stolica Polski?\n"},
    }
    refused = _quiz_run(site, short)
    assert refused.status_code == 400, refused.text
    message = refused.json()["error"]
    assert "in.tsv has 1 line but expected.tsv has 2" in message, message
    key = "files/" + hashlib.sha256(b"Stolica Polski?\n").hexdigest()
    assert not workspace.exists(key)  # nothing stored
    json_dataset = {"filename": "quiz.json", "content": '{"questions": []}'}
    other = _quiz_run(site, {**json_dataset, "questions": QUIZ["questions"]})
    assert other.status_code == 400, other.text
    problem = other.json()
    assert "$.dataset.questions" in problem["error"] and "qald-json" in problem["error"], problem
    typo = _quiz_run(site, {**QUIZ, "question": QUIZ["questions"]})
    assert typo.status_code == 400 and "did you mean 'questions'" in typo.json()["error"]


def _tsv_run(site: Server, expected: str, texts: str | None) -> dict[str, Any]:
    """A run on ``expected`` (an expected.tsv) with the in.tsv ``texts``, finished: its ticket."""
    dataset: dict[str, Any] = {"filename": "expected.tsv", "content": expected}
    if texts is not None:
        dataset["questions"] = {"filename": "in.tsv", "content": texts}
    answers = {"filename": "out.tsv", "content": expected.replace("\t", " ")}
    made = site.post(
        "api/experiments", json={"dataset": dataset, "systems": [{"name": "b", "answers": answers}]}
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    assert site.wait_finished(ticket["id"], ticket["token"])["status"] == "finished"
    return dict(ticket)


def _publish(site: Server, ticket: dict[str, Any]) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    return dict(site.get(f"api/experiments/{ticket['id']}").json())


def _published_texts(site: Server, dataset: str) -> tuple[list[str], list[str]]:
    """The public texts of ``dataset``'s questions, and the titles of its distributions."""
    texts = f"""SELECT DISTINCT ?t WHERE {{ GRAPH ?g {{ ?q <http://purl.org/dc/terms/isPartOf>
        <{dataset}> ; <{GQA}questionText> ?t }} }}"""
    files = f"""SELECT DISTINCT ?f ?title WHERE {{ GRAPH ?g {{ <{dataset}>
        <http://www.w3.org/ns/dcat#distribution> ?f . ?f <http://purl.org/dc/terms/title>
        ?title }} }}"""
    public = site.storage.store.public
    return (
        sorted(r["t"].value for r in public.query(texts)),
        sorted(r["title"].value for r in public.query(files)),
    )


def test_another_in_tsv_on_a_published_expected_tsv_is_refused(site: Server) -> None:
    import html

    # explore-9 3: it was joined silently, and once published each question had two texts
    # (the pages picked one) and the dataset a second in.tsv
    expected, texts = "5\tpięć\nKraków\n", "Ile to dwa plus trzy?\nStolica Małopolski?\n"
    first_ticket = _tsv_run(site, expected, texts)
    first, first_token = _publish(site, first_ticket), first_ticket["token"]
    name = first["dataset"].rsplit("/", 1)[1]
    before = _published_texts(site, first["dataset"])
    assert before == (["Ile to dwa plus trzy?", "Stolica Małopolski?"], ["expected.tsv", "in.tsv"])
    alone = _publish(site, _tsv_run(site, "8\tosiem\nŁódź\n", None))["dataset"]
    for content, dataset, has, instead in (
        (expected, name, "other ones", "to run on the published texts"),
        ("8\tosiem\nŁódź\n", alone.rsplit("/", 1)[1], "it has none", "to run on it without texts"),
    ):
        # explore-11 21: its advice, "publish a new version with about.previousVersion", was
        # followed with the same expected.tsv and refused with the same message (a loop)
        for about in ({}, {"about": {"previousVersion": dataset, "version": "2"}}):
            refused = site.post(
                "api/experiments",
                json={
                    "dataset": {
                        "filename": "expected.tsv",
                        "content": content,
                        "questions": {
                            "filename": "in.tsv",
                            "content": "ZMIENIONE?\nZMIENIONE 2?\n",
                        },
                    },
                    "systems": [
                        {"name": "b", "answers": {"filename": "out.tsv", "content": "5\nK\n"}}
                    ],
                    **about,
                },
            )
            assert refused.status_code == 400, refused.text
            said = refused.json()["error"]
            assert said.startswith("dataset.questions"), said
            assert f"in.tsv is not the in.tsv of the published dataset {dataset}" in said
            assert f"first publisher's ({has}), which cannot be added or changed" in said, said
            assert "also not by a new version with the same expected.tsv" in said
            assert f"leave the in.tsv out (the CLI: no in.tsv beside --dataset) {instead}" in said
            assert (
                f"another expected.tsv (a corrected gold, with about.previousVersion {dataset}"
                in (said)
            )
    # what it advises instead is accepted: another expected.tsv, its texts, the previous version
    newer = site.post(
        "api/experiments",
        json={
            "dataset": {
                "filename": "expected.tsv",
                "content": "5\tpięć\tpiec\nKraków\n",
                "questions": {"filename": "in.tsv", "content": "ZMIENIONE?\nZMIENIONE 2?\n"},
            },
            "systems": [{"name": "b", "answers": {"filename": "out.tsv", "content": "5\nK\n"}}],
            "about": {"previousVersion": name, "version": "2"},
        },
        headers={"Authorization": f"Bearer {first_token}"},  # its author's (explore34 1)
    )
    assert newer.status_code == 202, newer.text
    # the run page's form too (the same check as the API's)
    form = site.post(
        "experiments/new",
        files=[
            ("dataset_file", ("expected.tsv", expected.encode())),
            ("dataset_questions", ("in.tsv", b"ZMIENIONE?\nZMIENIONE 2?\n")),
            ("answers", ("out.tsv", "5\nKraków\n".encode())),
        ],
    )
    assert form.status_code == 400, form.text[:300]
    assert f"not the in.tsv of the published dataset {name}" in html.unescape(form.text)
    # the same in.tsv, or none, runs on it and adds nothing: no second text, no second in.tsv;
    # the same texts saved with a byte-order mark, CRLF or no last newline are the same
    # (they were refused as "another in.tsv": explore-11 9)
    resaved = ("\ufeff" + texts, texts.replace("\n", "\r\n"), texts.rstrip("\n"))
    for same in (texts, None, *resaved):
        joined = _publish(site, _tsv_run(site, expected, same))
        assert joined["dataset"] == first["dataset"] and joined["notes"] == [], joined
    assert _published_texts(site, first["dataset"])[0] == before[0]
    assert _published_texts(site, first["dataset"])[1].count("in.tsv") == 1


def test_the_command_line_refuses_another_in_tsv_on_published_bytes(
    site: Server, store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # evaluate --store with the in.tsv beside expected.tsv: the check of the API's submission
    from service.cli import main

    expected = "9\tdziewięć\nOpole\n"
    name = _publish(site, _tsv_run(site, expected, "Ile?\nGdzie?\n"))["dataset"].rsplit("/")[-1]
    backup, copy = tmp_path / "backup.tar", tmp_path / "copy"
    assert main(["export", "--store", str(store), "--files", "--output", str(backup)]) == 0
    assert main(["import", str(backup), "--store", str(copy)]) == 0
    (tmp_path / "expected.tsv").write_text(expected, encoding="utf-8")
    (tmp_path / "in.tsv").write_text("Inne?\nPytanie?\n", encoding="utf-8")
    (tmp_path / "out.tsv").write_text("9\nOpole\n", encoding="utf-8")
    argv = ["evaluate", "--dataset", str(tmp_path / "expected.tsv"), "--store", str(copy)]
    capsys.readouterr()
    assert main([*argv, "--answers", str(tmp_path / "out.tsv")]) != 0
    assert f"not the in.tsv of the published dataset {name}" in capsys.readouterr().err


def test_a_run_with_another_in_tsv_recorded_before_publication_joins_without_its_texts(
    site: Server,
) -> None:
    # no refusal was possible while neither was public: the second joins at its publication
    # without its texts or its in.tsv, is told so, and its graph still passes our shapes
    from service.graph.checks import check_store

    expected = "6\tsześć\nGdańsk\n"
    first = _tsv_run(site, expected, "Ile to trzy plus trzy?\nStolica Pomorza?\n")
    second = _tsv_run(site, expected, "INTRUDER 0?\nINTRUDER 1?\n")
    third = _tsv_run(site, expected, None)  # none given: nothing to tell
    dataset = _publish(site, first)["dataset"]
    joined, alone = _publish(site, second), _publish(site, third)
    assert joined["dataset"] == alone["dataset"] == dataset
    texts, files = _published_texts(site, dataset)
    assert texts == ["Ile to trzy plus trzy?", "Stolica Pomorza?"]
    assert files.count("in.tsv") == 1 and files.count("expected.tsv") == 3
    notes = " ".join(joined["notes"])
    assert "question texts are its first publisher's: your in.tsv" in notes, notes
    assert "previousVersion" in notes and alone["notes"] == []
    page = site.get(dataset.replace(site.url, "")).text
    assert "INTRUDER" not in page and "Stolica Pomorza?" in page
    ours = [t["id"] for t in (first, second, third)]
    assert [str(v) for v in check_store(site.storage) if any(i in str(v) for i in ours)] == []


def test_an_in_tsv_of_several_columns_is_refused_naming_the_line(site: Server) -> None:
    # explore-9 10: gonito's id<TAB>question lines became the text, "0<TAB>Jak nazywa się …"
    refused = site.post(
        "api/experiments",
        json={
            "dataset": {
                "filename": "expected.tsv",
                "content": "7\tsiedem\nPoznań\n",
                "questions": {"filename": "in.tsv", "content": "Ile?\n1\tStolica?\n"},
            },
            "systems": [
                {"name": "b", "answers": {"filename": "out.tsv", "content": "7\nPoznań\n"}}
            ],
        },
    )
    assert refused.status_code == 400, refused.text
    said = refused.json()["error"]
    assert "in.tsv:2:2" in said and "line 2 holds 2 tab-separated columns" in said, said
    assert "cut -f2 in.tsv" in said and "one column, the question text" in said


def test_an_in_tsv_of_another_format_is_refused_as_what_it_is(site: Server) -> None:
    # explore44 F14: a two-line result set given as the questions became the texts "{", …
    result_set = '{"db25:1-en": {"7": 1},\n "db25:2-en": {"Opole": 1}}\n'
    json_list = '[\n"Ile?"\n]\n'
    for content, kind in ((result_set, "a result-set-json file"), (json_list, "a JSON document")):
        refused = site.post(
            "api/experiments",
            json={
                "dataset": {
                    "filename": "expected.tsv",
                    "content": "7\tsiedem\nOpole\n",
                    "questions": {"filename": "in.tsv", "content": content},
                },
                "systems": [
                    {"name": "b", "answers": {"filename": "out.tsv", "content": "7\nOpole\n"}}
                ],
            },
        )
        assert refused.status_code == 400, refused.text
        said = refused.json()["error"]
        assert f"in.tsv:1:1: error: this is {kind}" in said and "not an in.tsv" in said, said
        assert "one question's text a line" in said


@pytest.mark.browser
def test_the_owners_page_shows_the_findings_then_the_datasets_page(
    site: Server, browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    from tests.web.test_browser import check_accessibility, shot, wait_until

    run = _submit(site, lakes(dataset_id="lakes-browser"), name="lakes-browser.json")
    browser.delete_all_cookies()
    browser.get(f"{site.url}experiment/{run['id']}?token={run['token']}")
    wait_until(browser, lambda d: d.find_elements(By.ID, "private-notice"))
    shot(browser, "upload-findings-owner")
    check_accessibility(browser)
    table = browser.find_element(By.ID, "dataset-checks")
    assert table.is_displayed()
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == 4  # unparsable query, empty gold, missing text, the reader's warning
    assert "question 2" in rows[0].text and "error" in rows[0].text  # errors first
    intro = browser.find_element(By.ID, "dataset-checks-intro").text
    assert f"found {len(_expected(tmp_path))} things" in intro

    browser.find_element(By.ID, "publish-confirm").click()  # for good: said and ticked
    browser.find_element(By.ID, "publish").click()
    wait_until(browser, lambda d: not d.find_elements(By.ID, "private-notice"))
    assert not browser.find_elements(By.ID, "dataset-checks")
    browser.get(run["dataset"])
    wait_until(browser, lambda d: d.find_elements(By.ID, "finding-summary"))
    shot(browser, "upload-findings-dataset")
    check_accessibility(browser)
    summary = browser.find_element(By.ID, "finding-summary")
    assert f"{len(_expected(tmp_path))} findings" in summary.text
    summary.find_element(By.PARTIAL_LINK_TEXT, "question 2").click()
    wait_until(browser, lambda d: "/question/2" in d.current_url)


@pytest.mark.browser
def test_the_run_and_compare_pages_take_an_expected_tsv_with_its_in_tsv(
    site: Server, browser: Any, tmp_path: Path
) -> None:
    # before, the run page took one dataset file: an expected.tsv's questions had no text
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from tests.web.test_browser import check_accessibility, shot, visit, wait_until

    (tmp_path / "expected.tsv").write_text("8\tosiem\nWisła\n", encoding="utf-8")
    (tmp_path / "in.tsv").write_text("Ile nóg ma pająk?\nNajdłuższa rzeka Polski?\n")
    (tmp_path / "out.tsv").write_text("8\nOdra\n", encoding="utf-8")

    def run(*, questions: bool) -> tuple[str, str]:
        browser.delete_all_cookies()
        visit(browser, site.url + "experiments/new", "tsv-run-page")
        browser.find_element(By.ID, "run-dataset-file").send_keys(str(tmp_path / "expected.tsv"))
        if questions:
            field = browser.find_element(By.ID, "run-dataset-questions")
            field.send_keys(str(tmp_path / "in.tsv"))
            check_accessibility(browser)
        browser.find_element(By.ID, "run-answers").send_keys(str(tmp_path / "out.tsv"))
        # the profile left alone: the file's own (poleval), as the API's (the form sent fair)
        assert (
            Select(browser.find_element(By.ID, "run-profile")).first_selected_option.get_attribute(
                "value"
            )
            == ""
        )
        browser.find_element(By.ID, "run-submit").click()
        wait_until(browser, lambda d: d.find_elements(By.ID, "token-notice"))
        link = browser.find_element(By.ID, "owner-link").get_attribute("value")
        uri, token = link.split("?token=", 1)
        return uri.rsplit("/", 1)[-1], token

    experiment, token = run(questions=True)
    state = site.wait_finished(experiment, token)
    assert state["status"] == "finished" and state["datasetFindings"] == [], state
    assert state["asked"]["profile"] == "poleval", state["asked"]
    query = f"SELECT ?t WHERE {{ GRAPH ?g {{ ?q <{GQA}questionText> ?t }} }}"
    texts = {row["t"].value for row in site.storage.store.private.query(query)}
    assert {"Ile nóg ma pająk?", "Najdłuższa rzeka Polski?"} <= texts
    browser.get(f"{site.url}experiment/{experiment}?token={token}")
    wait_until(browser, lambda d: d.find_elements(By.ID, "private-notice"))
    shot(browser, "tsv-with-in-tsv-owner")
    page = browser.find_element(By.TAG_NAME, "main").text
    # no "no in.tsv" warning; an upload is called one
    assert "The dataset check found nothing to report in the uploaded dataset" in page
    assert "File (questions)\nin.tsv sha256" in page, page  # kept beside expected.tsv

    alone, alone_token = run(questions=False)  # one file: the form works as before
    state = site.wait_finished(alone, alone_token)
    assert state["status"] == "finished", state
    (finding,) = state["datasetFindings"]
    assert "its questions, in.tsv" in finding["message"], finding

    # the compare page: the in.tsv is read with expected.tsv (one line short: refused, naming
    # both), and with both right the comparison is made; a JSON dataset file does not take one
    (tmp_path / "out-b.tsv").write_text("osiem\nWisła\n", encoding="utf-8")
    (tmp_path / "short").mkdir()
    (tmp_path / "short" / "in.tsv").write_text("Ile nóg ma pająk?\n", encoding="utf-8")
    (tmp_path / "quiz.json").write_bytes(lakes(dataset_id="lakes-tsv-compare"))
    answers = "\n".join(str(tmp_path / name) for name in ("out.tsv", "out-b.tsv"))

    def compare(dataset: Path, questions: Path, wanted: str) -> str:
        visit(browser, site.url + "compare", "tsv-compare-page")
        browser.find_element(By.ID, "cmp-dataset-file").send_keys(str(dataset))
        browser.find_element(By.ID, "cmp-dataset-questions").send_keys(str(questions))
        browser.find_element(By.ID, "cmp-answers").send_keys(answers)
        browser.find_element(By.ID, "compare-submit").click()  # the profile: the file's own
        wait_until(browser, lambda d: d.find_elements(By.ID, wanted))
        return browser.find_element(By.ID, wanted).text

    error = compare(tmp_path / "expected.tsv", tmp_path / "short" / "in.tsv", "compare-error")
    assert "in.tsv has 1 line but expected.tsv has 2" in error, error
    error = compare(tmp_path / "quiz.json", tmp_path / "in.tsv", "compare-error")
    assert "dataset_questions" in error and "its questions, in.tsv" in error, error
    differ = compare(tmp_path / "expected.tsv", tmp_path / "in.tsv", "compare-differences")
    shot(browser, "tsv-compare-result")
    assert "out-b" in differ, differ
    assert "profile poleval" in browser.find_element(By.ID, "result").text
