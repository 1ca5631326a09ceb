"""The KB a result depends on is named by its files (hq13): ``evaluate --kb FILE … --store``
records each KB file the results' ``file:sha256:H`` stands for as a file of the experiment
(role ``kb``, its SHA-256, size and download address) and keeps its bytes beside the store, as
it keeps the answer files; the store's Data Cube ICs and shapes still hold. Before, only H was
recorded (a hash over the files' digests), and the files were neither named nor kept.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyoxigraph as ox
import pytest

from service.cli import main

CK25 = "text2sparql2025/ck25"
GQA = "http://w3id.org/gerbil/qa/vocab#"


def _quads(store: Path, tmp_path: Path) -> ox.Store:
    dump = tmp_path / "dump.nq"
    assert main(["export", "--store", str(store), "--output", str(dump)]) == 0
    graph = ox.Store()
    graph.load(path=str(dump), format=ox.RdfFormat.N_QUADS)
    return graph


def test_a_kb_given_as_files_is_named_and_kept_with_the_experiment(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graphs = [data_dir / CK25 / "graphs" / name for name in ("prod-vocab.ttl", "prod-inst.ttl")]
    store = tmp_path / "store"
    argv = ["evaluate", "--dataset", str(data_dir / CK25 / "questions.yml"),
            "--gold", str(data_dir / CK25 / "true_result_set.json"),
            "--answers", str(data_dir / "text2sparql2025/systems/FRANZ/ck25_answers.json"),
            "--profile", "text2sparql", "--kb", str(graphs[0]), "--kb", str(graphs[1]),
            "--store", str(store)]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    graph = _quads(store, tmp_path)
    rows = list(
        graph.query(
            f"""SELECT ?title ?sha ?url WHERE {{ GRAPH ?g {{ ?e a <{GQA}Experiment> ;
              <http://www.w3.org/ns/prov#used> ?f . ?f <{GQA}fileRole> "kb" ;
              <http://purl.org/dc/terms/title> ?title ; <{GQA}sha256> ?sha ;
              <http://www.w3.org/ns/dcat#downloadURL> ?url }} }}"""
        )
    )
    named = {r["title"].value: r["sha"].value for r in rows}
    wanted = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in graphs}
    assert named == wanted
    assert all(r["url"].value.endswith("/file/" + r["sha"].value) for r in rows)
    for sha in wanted.values():  # kept beside the store, so the download answers
        assert (store / "files" / sha).read_bytes() == next(
            p.read_bytes() for p in graphs if hashlib.sha256(p.read_bytes()).hexdigest() == sha
        )
    identities = {
        r["kb"].value.split(" ", 1)[0]
        for r in graph.query(
            f"""SELECT ?kb WHERE {{ GRAPH ?g {{
              ?t <{GQA}knowledgeBase> ?kb FILTER(isLiteral(?kb)) }} }}"""
        )
    }  # the tasks' (the catalogue's datasets name theirs by IRI)
    digest = hashlib.sha256(b"".join(sorted(bytes.fromhex(s) for s in wanted.values())))
    assert identities == {f"file:sha256:{digest.hexdigest()}"}
    assert main(["check", "--store", str(store)]) == 0, capsys.readouterr().out


def test_no_kb_files_are_named_when_the_results_used_no_kb(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``exact`` matches without a KB: a --kb given anyway is not what its numbers depend on."""
    store = tmp_path / "store"
    kb = data_dir / CK25 / "graphs" / "prod-vocab.ttl"
    answers = data_dir / "system-outputs/qald8-train/QAKIS_QALD8_Train.json"
    dataset = data_dir / "qald/ag-sc_QALD/8/data/qald-8-train-multilingual.json"
    argv = ["evaluate", "--dataset", str(dataset),
            "--answers", str(answers), "--profile", "exact", "--kb", str(kb),
            "--types", "QA", "--store", str(store)]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    graph = _quads(store, tmp_path)
    roles = {
        r["role"].value
        for r in graph.query(
            f"""SELECT ?role WHERE {{ GRAPH ?g {{ ?e a <{GQA}Experiment> ;
              <http://www.w3.org/ns/prov#used> ?f . ?f <{GQA}fileRole> ?role }} }}"""
        )
    }
    assert roles == {"dataset", "answers"}


def test_a_text2sparql_run_on_a_refreshed_gold_runs_its_queries_on_the_datasets_kb(
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A registered version of CK25 (its gold SPARQL run again on its graphs) is what a
    reviewer re-scores a cited run against; the team's queries must run on the same graphs.
    Before, the version was read as a plain file and the run stopped: 'the system gives SPARQL
    queries …: give the KB', though the catalogue names CK25's; and a run on a version named
    its dataset 'uploaded for an experiment', linked to no version."""
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))
    store = tmp_path / "store"
    refresh = ["dataset", "refresh", "text2sparql-2025-ck25", "--store", str(store),
               "--output", str(tmp_path / "ck25-refreshed.json")]  # fmt: skip
    assert main(refresh) == 0
    version = capsys.readouterr().out.split("registered version: ", 1)[1].split()[0]
    label = version.rsplit("/version/", 1)[1]
    argv = ["evaluate", "--dataset", "text2sparql-2025-ck25", "--dataset-version", label,
            "--answers", str(data_dir / "text2sparql2025/systems/FRANZ/ck25_answers.json"),
            "--profile", "text2sparql", "--output", "json", "--store", str(store)]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    import json

    result = json.loads(capsys.readouterr().out.splitlines()[0])
    from service import catalog
    from service.kb.local import digests_identity

    own = digests_identity(
        d.sha256 for d in catalog.get_entry("text2sparql-2025-ck25").kb_distributions
    )
    assert result["kb"].startswith(own + " ")
    graph = _quads(store, tmp_path)
    kb_files = {
        r["sha"].value
        for r in graph.query(
            f"""SELECT ?sha WHERE {{ GRAPH ?g {{ ?e a <{GQA}Experiment> ;
              <http://www.w3.org/ns/prov#used> ?f . ?f <{GQA}fileRole> "kb" ;
              <{GQA}sha256> ?sha }} }}"""
        )
    }
    assert len(kb_files) == 2
    # which version of the dataset it scored: the dataset it used is that version's file
    linked = f"""ASK {{ GRAPH ?g {{ ?e a <{GQA}Experiment> ;
        <http://www.w3.org/ns/prov#used> ?d .
        ?d <http://www.w3.org/ns/prov#wasDerivedFrom> <{version}> }} }}"""
    assert graph.query(linked), f"the experiment names no link to {version}"
    assert main(["check", "--store", str(store)]) == 0, capsys.readouterr().out
