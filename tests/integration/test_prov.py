"""PROV-O that holds without inference (issue 9 item 6), checked over real experiments.

A client that reads our graphs with plain SPARQL (no RDFS reasoning) must find: every activity
starting no later than it ends, every ``prov:used`` object typed ``prov:Entity``, every agent an
activity was associated with typed ``prov:Agent`` (the evaluator also ``prov:SoftwareAgent``),
everything generated typed ``prov:Entity`` and its generator ``prov:Activity``, and the systems
under test typed both ``prov:Entity`` (an experiment uses them) and ``prov:Agent``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from service import __version__, formats
from service.cli import main
from service.graph.store import open_storage

PROV = "http://www.w3.org/ns/prov#"
BASE = "http://prov.gerbil-qa.test/"

# (what must hold, a query for the counterexamples over every named graph)
RULES = {
    "an activity starts no later than it ends": f"""
        SELECT ?x WHERE {{ GRAPH ?g {{
          ?x <{PROV}startedAtTime> ?start ; <{PROV}endedAtTime> ?end FILTER(?start > ?end) }} }}""",
    "what an activity used is a prov:Entity": f"""
        SELECT ?x WHERE {{ GRAPH ?g {{
          ?a <{PROV}used> ?x FILTER NOT EXISTS {{ ?x a <{PROV}Entity> }} }} }}""",
    "what an activity was associated with is a prov:Agent": f"""
        SELECT ?x WHERE {{ GRAPH ?g {{
          ?a <{PROV}wasAssociatedWith> ?x FILTER NOT EXISTS {{ ?x a <{PROV}Agent> }} }} }}""",
    "a software agent is a prov:Agent": f"""
        SELECT ?x WHERE {{ GRAPH ?g {{
          ?x a <{PROV}SoftwareAgent> FILTER NOT EXISTS {{ ?x a <{PROV}Agent> }} }} }}""",
    "what was generated is a prov:Entity": f"""
        SELECT ?x WHERE {{ GRAPH ?g {{
          ?x <{PROV}wasGeneratedBy> ?a FILTER NOT EXISTS {{ ?x a <{PROV}Entity> }} }} }}""",
    "a generator is a prov:Activity": f"""
        SELECT ?x WHERE {{ GRAPH ?g {{
          ?e <{PROV}wasGeneratedBy> ?x FILTER NOT EXISTS {{ ?x a <{PROV}Activity> }} }} }}""",
    "what something was derived from is a prov:Entity": f"""
        SELECT ?x WHERE {{ GRAPH ?g {{
          ?e <{PROV}wasDerivedFrom> ?x FILTER NOT EXISTS {{ ?x a <{PROV}Entity> }} }} }}""",
    "a system under test is a prov:Entity and a prov:Agent": f"""
        SELECT ?x WHERE {{ GRAPH ?g {{
          ?x a <http://w3id.org/gerbil/qa/vocab#System>
          FILTER NOT EXISTS {{ ?x a <{PROV}Entity>, <{PROV}Agent> }} }} }}""",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Iterator[Path]:
    """Real experiments: QALD-8 train (catalogue) with two systems' answers, published; the
    same answers against the dataset as an uploaded file, private; a registered dataset
    version (a gold refresh's provenance)."""
    folder = tmp_path_factory.mktemp("prov") / "store"
    patch = pytest.MonkeyPatch()
    patch.setenv("GERBIL_QA_DATA", str(data_dir))  # catalogue names read the local mirror
    outputs = data_dir / "system-outputs" / "qald8-train"
    answers = [str(outputs / f"{name}_QALD8_Train.json") for name in ("AskNow", "QAKIS")]
    common = ["--store", str(folder), "--base", BASE, "--output", "json"]
    argv = ["evaluate", "--dataset", "qald-8-train-multilingual", "--answers", *answers]
    assert main([*argv, *common]) == 0
    with open_storage(folder, base=BASE) as storage:
        first = storage.experiments.listing(include_private=True)[0].id
    assert main(["publish", "--store", str(folder), first]) == 0
    gold = data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json"
    argv = ["evaluate", "--dataset", str(gold), "--answers", answers[0], "--force"]
    assert main([*argv, *common]) == 0
    with open_storage(folder, base=BASE) as storage:
        storage.catalogue.register_version(
            "qald-8-train-multilingual", formats.read(gold), kb="http://dbpedia.org/sparql"
        )
    yield folder
    patch.undo()


def test_the_store_holds_provenance_of_every_kind(store: Path) -> None:
    with open_storage(store, base=BASE) as storage:
        kinds = {
            str(r["t"].value)
            for side in (storage.public, storage.private)
            for r in side.query(
                "SELECT DISTINCT ?t WHERE { GRAPH ?g { ?x a ?t "
                f'FILTER(STRSTARTS(STR(?t), "{PROV}")) }} }}'
            )
        }
    assert {PROV + k for k in ("Activity", "Entity", "Agent", "SoftwareAgent")} <= kinds


@pytest.mark.parametrize("rule", sorted(RULES))
def test_prov_holds_without_inference(store: Path, rule: str) -> None:
    with open_storage(store, base=BASE) as storage:
        found = {
            str(r["x"])
            for side in (storage.public, storage.private)
            for r in side.query(RULES[rule])
        }
    assert not found, f"{rule}: not so for {sorted(found)[:5]}"


def test_every_evaluator_names_the_commit_it_ran_from(store: Path) -> None:
    """The evaluator of an experiment (published and private) and of a dataset version is the
    release with this checkout's commit, asked of git here, and whether its files differed."""
    checkout = Path(__file__).resolve().parents[2]
    head = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    changed = subprocess.run(
        ["git", "-C", str(checkout), "status", "--porcelain", "--", "service", "ontology"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    version = f"{__version__}+g{head[:12]}" + (".modified" if changed else "")
    gqa = "http://w3id.org/gerbil/qa/vocab#"
    query = f"""SELECT DISTINCT ?agent ?v ?rev ?mod WHERE {{ GRAPH ?g {{
        ?activity <{PROV}wasAssociatedWith> ?agent . ?agent a <{gqa}Evaluator> ;
        <{gqa}softwareVersion> ?v ; <{gqa}sourceRevision> ?rev ; <{gqa}sourceModified> ?mod }} }}"""
    with open_storage(store, base=BASE) as storage:
        rows = {
            (r["agent"].value, r["v"].value, r["rev"].value, r["mod"].value)
            for side in (storage.public, storage.private)
            for r in side.query(query)
        }
    modified = "true" if changed else "false"
    assert rows == {(f"{BASE}software/{quote(version, safe='')}", version, head, modified)}
