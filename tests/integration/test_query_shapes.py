"""Query-level results for systems that answer with SPARQL (issue 10 item 7): the shape of
each system query and of its gold query (triple patterns, join vertices, TEXT2SPARQL'25's query
features, or why our parser refused it) per question in the JSON, summarised in the table,
kept in the graph as ``gqa:QueryShape`` nodes that the API reads back as printed; the
dataset's ``defaultNamespace`` serves as ``:`` for them and for the sub-experiments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from tests.conftest import DATA

CK25 = DATA / "text2sparql2025" / "ck25"
FRANZ = DATA / "text2sparql2025" / "systems" / "FRANZ"


@pytest.fixture(autouse=True)
def _mirror(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    """FRANZ's CK25 answers with two of its empty queries filled: one in the dataset's ':'
    namespace, one our parser refuses."""
    items = json.loads((FRANZ / "ck25_answers.json").read_text())
    items[0]["query"] = 'SELECT ?d WHERE { ?p :name "Brant" ; :department ?d } LIMIT 5'
    items[1]["query"] = "SELECT ?x WHERE { ?x :phone }"
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(items))
    return path


def _run(capsys: pytest.CaptureFixture[str], answers: Path, *extra: str) -> str:
    kb = [
        a for g in ("prod-vocab.ttl", "prod-inst.ttl") for a in ("--kb", str(CK25 / "graphs" / g))
    ]
    code = main(
        [
            "evaluate",
            *("--dataset", "text2sparql-2025-ck25", "--answers", str(answers)),
            *("--profile", "text2sparql", *kb, *extra),
        ]
    )
    assert code == 0
    return capsys.readouterr().out


def test_each_question_carries_the_shapes_of_both_queries(
    capsys: pytest.CaptureFixture[str], answers: Path
) -> None:
    [ev] = [json.loads(line) for line in _run(capsys, answers, "--output", "json").splitlines()]
    by_id = {q["id"]: q for q in ev["questions"]}
    first = by_id["1"]["queryShape"]
    assert first["system"] == {
        "triplePatterns": 2,
        "joinVertices": 1,
        "features": ["SELECT", "LIMIT"],
    }
    assert first["gold"]["features"][0] == "SELECT" and first["gold"]["triplePatterns"] >= 1
    refused = by_id["2"]["queryShape"]["system"]
    assert set(refused) == {"error"} and "line 1, column" in refused["error"]
    assert "queryShape" not in by_id["3"]  # FRANZ gave no query for it: nothing to shape
    # ':' is the dataset's namespace for the sub-experiments too: no parse warning for question 1
    assert not any("question 1:" in w and "does not parse" in w for w in ev["warnings"])
    table = _run(capsys, answers, "--output", "table")
    assert "(1 refused by the parser); mean triple patterns" in table
    assert "query features: SELECT" in table


def test_the_shapes_are_graph_data_read_back_as_printed(
    capsys: pytest.CaptureFixture[str], answers: Path, tmp_path: Path
) -> None:
    from service.graph.checks import shacl_violations
    from service.graph.reader import evaluations
    from service.graph.store import open_storage

    store = tmp_path / "store"
    [printed] = [
        json.loads(line)
        for line in _run(capsys, answers, "--output", "json", "--store", str(store)).splitlines()
    ]
    experiment = printed.pop("experiment")
    storage = open_storage(store)
    try:
        quads = storage.experiments.quads(experiment["id"])
        [read] = evaluations(quads, storage.uris, experiment["id"])
        assert read["questions"] == printed["questions"]
        assert read == printed
        assert shacl_violations(quads, target=experiment["uri"]) == []
        rows = list(
            storage.private.query(
                """PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
SELECT ?features (COUNT(*) AS ?n) WHERE { GRAPH ?g {
  ?r gqa:queryShape [ gqa:queryRole "system" ; gqa:queryFeatures ?features ] } }
GROUP BY ?features"""
            )
        )
        assert {r["features"].value for r in rows} >= {"SELECT LIMIT"}
    finally:
        storage.close()
