"""An uploaded dataset's question with neither gold answers nor a gold query is among its
findings (kind ``no-gold``, from the registry ``FINDING_KINDS``), as ``gerbil-qa validate``
warns of it: its owner reads it in the API's ``datasetFindings`` and on the experiment's page,
and once published the dataset's page, its RDF and the code list show it like the others.
Before, the upload's findings said nothing of it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import rdflib
from flask.testing import FlaskClient

from service import formats
from service.graph.questions import check_dataset
from tests.lakes_benchmark import lakes

GQA = "http://w3id.org/gerbil/qa/vocab#"


def _finished(client: FlaskClient, ticket: dict[str, str]) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    deadline = time.monotonic() + 60
    while True:
        state = client.get(f"/api/experiments/{ticket['id']}", headers=auth).get_json()
        if state["status"] in ("finished", "error", "cancelled"):
            assert state["status"] == "finished", state
            return state
        assert time.monotonic() < deadline, state
        time.sleep(0.1)


def test_a_question_without_gold_is_a_finding(client: FlaskClient, tmp_path: Path) -> None:
    data = lakes(dataset_id="lakes-no-gold", no_gold=True)
    made = client.post(
        "/api/experiments",
        json={
            "dataset": {"filename": "lakes-no-gold.json", "content": data.decode()},
            "profile": "exact",
            "systems": [{"name": "gold-check", "answers": lakes().decode()}],
        },
    )
    assert made.status_code == 202, made.get_data(as_text=True)
    ticket = made.get_json()
    state = _finished(client, ticket)
    found = state["datasetFindings"]
    [no_gold] = [f for f in found if f["kind"] == "no-gold"]
    assert no_gold == {
        "kind": "no-gold",
        "severity": "warning",
        "message": "question has neither gold answers nor a gold query: it is scored only "
        "with gold given apart",
        "question": "5",
        "language": None,
    }
    # validate's words (which add how the command line gives gold apart: evaluate --gold)
    path = tmp_path / "lakes.json"
    path.write_bytes(data)
    warned = [p for p in formats.read(path, gold=True).problems if p.question_id == "5"]
    assert [p.message for p in warned] == [no_gold["message"] + " (evaluate --gold)"]
    page = client.get(f"/experiment/{ticket['id']}?token={ticket['token']}", follow_redirects=True)
    html = page.get_data(as_text=True)
    assert "question without gold" in html  # the kind's label, from the code list
    # published: the dataset's page and its RDF list it as they list the others
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    done = client.post(f"/api/experiments/{ticket['id']}/publish", headers=auth)
    assert done.status_code == 200, done.get_data(as_text=True)
    uri = state["dataset"]
    name = uri.rsplit("/", 1)[1]
    html = client.get(f"/dataset/{name}", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert "findings=no-gold" in html
    listed = client.get(f"/dataset/{name}?findings=no-gold", headers={"Accept": "text/html"})
    assert listed.status_code == 200
    assert "1 finding of the kind no-gold" in listed.get_data(as_text=True)
    turtle = client.get(f"/dataset/{name}", headers={"Accept": "text/turtle"}).get_data()
    g = rdflib.Graph().parse(data=turtle, format="turtle", publicID=uri)
    kinds = {str(g.value(f, rdflib.URIRef(GQA + "findingKind"))) for f in g.objects(
        rdflib.URIRef(uri), rdflib.URIRef(GQA + "finding"))}  # fmt: skip
    assert GQA + "finding-no-gold" in kinds
    expected = {f"{GQA}finding-{f.kind}" for f in check_dataset(formats.read(path))}
    assert kinds == expected


def test_a_file_of_questions_only_is_one_finding() -> None:
    """As validate says it: once for the dataset, not once a question."""
    import json

    q = [{"id": str(i), "question": [{"language": "en", "string": f"Q{i}?"}]} for i in (1, 2, 3)]
    found = check_dataset(formats.read(json.dumps({"questions": q}).encode(), name="q.json"))
    assert [(f.kind, f.question_id) for f in found] == [("no-gold", None)]
    assert found[0].message.startswith("no question has gold answers or a gold query: the 3 ")
