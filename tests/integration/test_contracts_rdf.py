"""The generated vocabulary and shapes as RDF: read by the strictest parsers, served by the store
with the registry's words, and checking what the registries say (bounds, closed lists)."""

from __future__ import annotations

from datetime import UTC, datetime

import pyoxigraph as ox
import pytest
import rdflib

from service.contracts import GENERATED
from service.evaluation import evaluate
from service.evaluation.measures import MEASURES, QUESTION_MEASURES
from service.evaluation.profiles import PROFILES
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
def written() -> list[ox.Quad]:
    ds = Dataset(
        "d",
        (
            Question("1", (QuestionText("en", "q?"),), answers=lits("a", "b"), answertype="string"),
            Question("2", (QuestionText("en", "q?"),), answers=lits("c"), answertype="string"),
        ),
    )
    run = SystemRun(
        "s",
        {
            "1": SystemAnswer("1", answers=lits("a"), confidence=0.2),
            "2": SystemAnswer("2", answers=lits("x"), confidence=0.9),
        },
    )
    ev = evaluate(ds, run, profile="exact", ranked=True)
    assert -1 <= ev.tasks[next(iter(ev.tasks))].measures["k1"] < 0  # a negative measure
    uris = Uris("http://localhost:8080/")
    record = ExperimentRecord(
        "202401010001",
        (ev,),
        DatasetRef("d", catalogued=False, dataset=ds),
        datetime(2024, 1, 1, tzinfo=UTC),
        datetime(2024, 1, 1, 0, 1, tzinfo=UTC),
        Source("0.1.0"),
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
