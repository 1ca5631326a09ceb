"""The generated vocabulary and shapes as RDF: read by the strictest parsers, served by the store
with the registry's words, and checking what the registries say (bounds, closed lists)."""

from __future__ import annotations

from datetime import UTC, datetime

import pyoxigraph as ox
import pytest
import rdflib

from service.contracts import GENERATED
from service.evaluation import evaluate
from service.evaluation.comparison import compare
from service.evaluation.measures import MEASURES, QUESTION_MEASURES
from service.evaluation.profiles import PROFILES
from service.graph import leaderboards
from service.graph.checks import shacl_violations
from service.graph.results import DatasetRef, ExperimentRecord, experiment_quads
from service.graph.store import open_storage
from service.graph.uris import Uris
from service.model import Dataset, Question, QuestionText, SystemAnswer, SystemRun
from service.paths import PROJECT_ROOT
from service.release import Source
from tests.helpers import lits

GQA = "http://w3id.org/gerbil/qa/vocab#"
GERBIL = "http://w3id.org/gerbil/vocab#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
REPOSITORY = "https://schema.org/codeRepository"
XSD = "http://www.w3.org/2001/XMLSchema#"


@pytest.mark.parametrize("path", list(GENERATED))
def test_generated_files_parse_strictly(path: str) -> None:
    triples = list(ox.parse(path=str(PROJECT_ROOT / path), format=ox.RdfFormat.TURTLE))
    graph = rdflib.Graph().parse(PROJECT_ROOT / path, format="turtle")
    assert len(triples) == len(graph) > 20  # the smallest, the call settings', has 21


def test_the_store_serves_the_registries_words() -> None:
    store = open_storage(None, catalog=False).store
    rows = store.public.query(
        f"SELECT ?m ?label ?comment ?range WHERE {{ ?m a <http://purl.org/linked-data/cube#"
        f"MeasureProperty> ; <{RDFS}label> ?label ; <{RDFS}comment> ?comment ; "
        f"<{RDFS}range> ?range }}"
    )
    served = {r["m"].value: (r["label"].value, r["comment"].value, r["range"].value) for r in rows}
    expected = {i.iri: (i.label, i.description, i.datatype) for i in MEASURES.values()}
    expected |= {q.iri: (q.label, q.description, q.datatype) for q in QUESTION_MEASURES.values()}
    assert served == expected
    versions = store.public.query(
        f"SELECT ?p ?v WHERE {{ ?p a <{GQA}Profile> ; "
        "<http://www.w3.org/2002/07/owl#versionInfo> ?v }"
    )
    assert {r["p"].value: r["v"].value for r in versions} == {
        p.iri: p.version for p in PROFILES.values()
    }


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return Dataset(
        "d",
        (
            Question("1", (QuestionText("en", "q?"),), answers=lits("a", "b"), answertype="string"),
            Question("2", (QuestionText("en", "q?"),), answers=lits("c"), answertype="string"),
        ),
    )


@pytest.fixture(scope="module")
def evaluations(dataset: Dataset) -> list:
    """Two systems' evaluations of one dataset (the first is the experiment ``written``)."""
    run = SystemRun(
        "s",
        {
            "1": SystemAnswer("1", answers=lits("a"), confidence=0.2),
            "2": SystemAnswer("2", answers=lits("x"), confidence=0.9),
        },
    )
    other = SystemRun("t", {"1": SystemAnswer("1", answers=lits("b"), confidence=0.5)})
    return [evaluate(dataset, r, profile="exact", ranked=True) for r in (run, other)]


@pytest.fixture(scope="module")
def written(dataset: Dataset, evaluations: list) -> list[ox.Quad]:
    ev = evaluations[0]
    assert -1 <= ev.tasks[next(iter(ev.tasks))].measures["k1"] < 0  # a negative measure
    uris = Uris("http://localhost:8080/")
    record = ExperimentRecord(
        "202401010001",
        (ev,),
        DatasetRef("d", catalogued=False, dataset=dataset),
        datetime(2024, 1, 1, tzinfo=UTC),
        datetime(2024, 1, 1, 0, 1, tzinfo=UTC),
        Source("0.1.0", "ab" * 20, repository="https://example.org/gerbil-qa.git"),
    )
    return experiment_quads(record, uris, uris.experiment_graph("202401010001"))


def _replace(quads: list[ox.Quad], predicate: str, value: ox.Literal | ox.NamedNode) -> list:
    out = [q for q in quads if q.predicate.value != predicate]
    first = next(q for q in quads if q.predicate.value == predicate)
    return [*out, ox.Quad(first.subject, first.predicate, value, first.graph_name)]


def test_what_we_write_passes_the_generated_shapes(written: list[ox.Quad]) -> None:
    assert shacl_violations(written) == []


@pytest.mark.parametrize(
    ("predicate", "value", "shape"),
    [
        (
            GERBIL + "microPrecision",
            ox.Literal("1.5", datatype=ox.NamedNode(XSD + "double")),
            "microPrecision",
        ),
        (GQA + "k1", ox.Literal("-2.0", datatype=ox.NamedNode(XSD + "double")), "k1"),
        (GQA + "questions", ox.Literal("2.0", datatype=ox.NamedNode(XSD + "double")), "questions"),
        (GERBIL + "experimentType", ox.NamedNode(GQA + "QA2"), "experimentType"),
        (GQA + "questionStatus", ox.NamedNode(GQA + "status-lost"), "questionStatus"),
        (GQA + "answerType", ox.NamedNode(GQA + "answerType-colour"), "answerType"),
        (GQA + "recall", ox.Literal("-0.5", datatype=ox.NamedNode(XSD + "double")), "recall"),
    ],
)
def test_the_generated_shapes_catch_what_the_registries_forbid(
    written: list[ox.Quad], predicate: str, value: ox.Literal | ox.NamedNode, shape: str
) -> None:
    found = shacl_violations(_replace(written, predicate, value))
    assert found and any(shape in str(v) for v in found), found


def test_the_newest_terms_are_shaped_as_they_are_written(
    written: list[ox.Quad], evaluations: list
) -> None:
    """An evaluator's schema:codeRepository is an http(s) IRI (serve refuses any other
    GERBIL_QA_SOURCE_REPOSITORY); a frozen leaderboard entry's tierSignature has the form the
    comparison writes, and nothing but an entry has one. Each was accepted (explore65 F5)."""
    assert any(q.predicate.value == REPOSITORY for q in written)  # what we write has one
    assert shacl_violations(_replace(written, REPOSITORY, ox.NamedNode("javascript:alert(1)")))
    signature = compare(evaluations, measure="macroF1").signature  # what a live board gives
    standing = leaderboards.Standing(GERBIL + "QA", GERBIL + "macroF1")
    board = "http://localhost:8080/leaderboard/0123456789abcdef"
    rows = [
        leaderboards.Row(1, uri, 0.5, tier=1, tier_signature=signature)
        for uri in ("http://localhost:8080/experiment/202401010001/task/1",)
    ]
    frozen = leaderboards._quads(board, "0123456789abcdef", None, standing, rows, "t")
    kind = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    measure = ox.Triple(
        ox.NamedNode(GERBIL + "macroF1"),
        kind,
        ox.NamedNode("http://purl.org/linked-data/cube#MeasureProperty"),
    )
    assert shacl_violations([*frozen, measure]) == []
    tier = GQA + "tierSignature"
    found = shacl_violations([*_replace(frozen, tier, ox.Literal("nonsense")), measure])
    assert any("tierSignature" in str(v) for v in found), found
    experiment = next(q.subject for q in written if q.predicate.value == GQA + "task")
    on_experiment = ox.Quad(experiment, ox.NamedNode(tier), ox.Literal(signature))
    assert any("LeaderboardEntry" in str(v) for v in shacl_violations([*written, on_experiment]))


def test_a_negative_k1_within_its_bounds_passes(written: list[ox.Quad]) -> None:
    value = ox.Literal("-1.0", datatype=ox.NamedNode(XSD + "double"))
    assert shacl_violations(_replace(written, GQA + "k1", value)) == []


def test_a_distribution_format_must_be_a_registered_one() -> None:
    dist = ox.NamedNode("http://localhost:8080/dataset/d/distribution")
    fmt = ox.NamedNode(GQA + "format")
    kind = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    typed = ox.Triple(dist, kind, ox.NamedNode("http://www.w3.org/ns/dcat#Distribution"))

    def format_violations(name: str) -> list[str]:
        found = shacl_violations([typed, ox.Triple(dist, fmt, ox.Literal(name))])
        return [str(v) for v in found if "format" in str(v)]

    assert format_violations("qald-json") == []
    assert format_violations("qald-yaml")
