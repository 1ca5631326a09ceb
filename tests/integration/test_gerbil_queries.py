"""GERBIL-era queries keep working (issue 9 item 7).

GERBIL describes each experiment task with ``gerbil:experimentType`` (``gerbil:QA``,
``gerbil:C2KB``, …), ``gerbil:statusCode`` (an ``xsd:int``, 0 once finished),
``gerbil:timestamp`` and, for a sub-experiment, ``gerbil:subExperimentOf`` its QA task. A query
written against that vocabulary finds our published results as the public SPARQL endpoint holds
them (its default graph, the union of the public graphs), with no inference and no rewriting.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from service.cli import main
from service.graph.store import open_storage

BASE = "http://gerbil-era.gerbil-qa.test/"

# The query the README shows: finished QA tasks with their system, macro F1 and time.
QA_TASKS = """PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
PREFIX qb: <http://purl.org/linked-data/cube#>
SELECT ?task ?annotator ?macroF1 ?timestamp WHERE {
  ?task gerbil:experimentType gerbil:QA ;
        gerbil:statusCode ?status ;
        gerbil:timestamp ?timestamp ;
        gerbil:annotator ?annotator ;
        gerbil:macroF1 ?macroF1 ;
        qb:dataSet ?experiment .
  FILTER(?status = 0)
}
ORDER BY ?annotator"""

SUB_EXPERIMENTS = """PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
SELECT ?type (COUNT(?sub) AS ?tasks) WHERE {
  ?sub gerbil:subExperimentOf ?qa ; gerbil:experimentType ?type .
  ?qa gerbil:experimentType gerbil:QA .
}
GROUP BY ?type ORDER BY ?type"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    folder = tmp_path_factory.mktemp("gerbil-era") / "store"
    gold = data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json"
    outputs = data_dir / "system-outputs" / "qald8-train"
    answers = [str(outputs / f"{name}_QALD8_Train.json") for name in ("AskNow", "QAKIS")]
    argv = ["evaluate", "--dataset", str(gold), "--answers", *answers, "--store", str(folder)]
    assert main([*argv, "--base", BASE, "--output", "csv"]) == 0
    with open_storage(folder, base=BASE) as storage:
        experiment = storage.experiments.listing(include_private=True)[0].id
    assert main(["publish", "--store", str(folder), experiment]) == 0
    return folder


def test_a_gerbil_era_query_finds_the_qa_tasks(store: Path) -> None:
    with open_storage(store, base=BASE) as storage:
        rows = list(storage.public.query(QA_TASKS))
        ended = {
            str(r["e"].value)
            for r in storage.public.query(
                "SELECT ?e WHERE { ?x <http://www.w3.org/ns/prov#endedAtTime> ?e }"
            )
        }
    systems = [r["annotator"].value.rsplit("/", 1)[-1] for r in rows]
    assert systems == ["AskNow_QALD8_Train", "QAKIS_QALD8_Train"]
    assert all(0.0 <= float(r["macroF1"].value) <= 1.0 for r in rows)
    assert {r["timestamp"].value for r in rows} <= ended  # the experiment's end time


def test_sub_experiments_point_at_their_qa_task(store: Path) -> None:
    with open_storage(store, base=BASE) as storage:
        counts = {
            r["type"].value.rsplit("#", 1)[-1]: int(r["tasks"].value)
            for r in storage.public.query(SUB_EXPERIMENTS)
        }
        qa = {
            r["t"].value
            for r in storage.public.query(
                "SELECT ?t WHERE { ?t <http://w3id.org/gerbil/vocab#experimentType> "
                "<http://w3id.org/gerbil/vocab#QA> }"
            )
        }
    assert len(qa) == 2
    # every sub-experiment of each system's evaluation, pointing at that system's QA task
    assert counts and all(n == 2 for n in counts.values()) and "QA" not in counts
    assert set(counts) <= {"C2KB", "P2KB", "RE2KB", "AT", "AIT2KB"}


# A task's macro F1 from its per-question results, as a client of the graph reproduces it: the
# mean of the questions' F1, or, where the signature says macro-f:f-of-means (the README's
# profile table: qald6, qald-legacy), the F of the mean precision and the mean recall.
PER_QUESTION = """PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
SELECT ?task ?macroF1 ?signature (AVG(?p) AS ?P) (AVG(?r) AS ?R) (AVG(?f) AS ?F) WHERE {
  GRAPH ?g { ?task gerbil:experimentType gerbil:QA ; gerbil:macroF1 ?macroF1 ;
                   gqa:signature ?signature .
             ?result gqa:resultOf ?task ; gqa:precision ?p ; gqa:recall ?r ; gqa:f1 ?f } }
GROUP BY ?task ?macroF1 ?signature"""


@pytest.mark.parametrize("profile", ["exact", "qald6", "qald-legacy"])
def test_macro_f1_is_reproduced_from_the_per_question_results(
    tmp_path: Path, data_dir: Path, profile: str
) -> None:
    gold = data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json"
    answers = data_dir / "system-outputs" / "qald8-train" / "QAKIS_QALD8_Train.json"
    store = tmp_path / "store"
    argv = ["evaluate", "--dataset", str(gold), "--answers", str(answers), "--types", "QA"]
    assert main([*argv, "--profile", profile, "--store", str(store), "--output", "csv"]) == 0
    with open_storage(store, base=None) as storage:
        [row] = list(storage.private.query(PER_QUESTION))
    mean_p, mean_r, mean_f = (float(row[v].value) for v in ("P", "R", "F"))  # type: ignore[index]
    if "macro-f:f-of-means" in row["signature"].value:  # type: ignore[index]
        expected = 2 * mean_p * mean_r / (mean_p + mean_r) if mean_p + mean_r else 0.0
    else:
        expected = mean_f
    assert float(row["macroF1"].value) == pytest.approx(expected, abs=1e-12)  # type: ignore[index]
    assert ("f-of-means" in row["signature"].value) == (profile != "exact")  # type: ignore[index]
