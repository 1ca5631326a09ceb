"""Both KB implementations (local Oxigraph store, remote `oxigraph serve-read-only`) answer the
batched protocol the same way: sameAs closure, labels both ways, types, SPARQL; tricky labels
survive the trip through VALUES blocks; round trips depend on the batch size only."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from service.errors import BadRequest, FormatError
from service.evaluation.kbview import resolve
from service.evaluation.matchers.fair import FairMatcher, iri_keys
from service.kb import KnowledgeBase, describe
from service.kb.cache import LookupCache
from service.kb.local import LocalKB
from service.kb.open import open_kb
from service.kb.remote import RemoteKB, RemoteKBError
from service.model import RDFS_LABEL, AnswerSet, Term
from service.systems.localnet import OxigraphServer, free_port

DBR = "http://dbpedia.org/resource/"
TRICKY = [
    'Say "hi"',
    "back\\slash",
    "two\nlines",
    "Zürich",
    "東京",
    "it's",
    "} } DROP ALL",
    "tab\tbed",
]

KB_TTL = f"""
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix dbr: <{DBR}> .
@prefix dbo: <http://dbpedia.org/ontology/> .
@prefix void: <http://rdfs.org/ns/void#> .

<urn:kb> a void:Dataset ; owl:versionInfo "test-kb 2" .
dbr:Berlin rdfs:label "Berlin"@en, "Berlin"@de ; a dbo:City, dbo:Place ;
    owl:sameAs <http://www.wikidata.org/entity/Q64> .
<http://de.dbpedia.org/resource/Berlin> owl:sameAs <http://www.wikidata.org/entity/Q64> .
<http://www.wikidata.org/entity/Q64> owl:sameAs <http://fr.dbpedia.org/resource/Berlin> .
dbr:Caf%C3%A9 rdfs:label "Café"@en .
dbr:Bonn rdfs:label "Bonn"@en , "Bonn" .
"""


def _literal(text: str) -> str:
    escaped = (
        text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    )
    return f'"{escaped}"'


@pytest.fixture(scope="module")
def kb_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines = [KB_TTL]
    for i, text in enumerate(TRICKY):
        lines.append(f"<{DBR}Tricky{i}> rdfs:label {_literal(text)}@en .")
    # 250 filler resources for the batching tests.
    for i in range(250):
        lines.append(f'<{DBR}R{i}> rdfs:label "R {i}"@en ; a <http://dbpedia.org/ontology/Thing> .')
    path = tmp_path_factory.mktemp("kb") / "kb.ttl"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_implements_the_protocol(make_kb) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(make_kb(), KnowledgeBase)


def test_same_as_closure_is_symmetric_and_transitive(make_kb) -> None:  # type: ignore[no-untyped-def]
    kb = make_kb()
    closure = kb.same_as([DBR + "Berlin", "http://fr.dbpedia.org/resource/Berlin"])
    expected = {
        DBR + "Berlin",
        "http://www.wikidata.org/entity/Q64",
        "http://de.dbpedia.org/resource/Berlin",
        "http://fr.dbpedia.org/resource/Berlin",
    }
    assert closure[DBR + "Berlin"] == expected
    assert closure["http://fr.dbpedia.org/resource/Berlin"] == expected


def test_unknown_and_impossible_iris_are_only_themselves(make_kb) -> None:  # type: ignore[no-untyped-def]
    kb = make_kb()
    closure = kb.same_as(["http://example.org/nothing", "not an iri", "http://x/a b"])
    assert closure == {
        "http://example.org/nothing": {"http://example.org/nothing"},
        "not an iri": {"not an iri"},
        "http://x/a b": {"http://x/a b"},
    }
    assert kb.round_trips == 1  # only the one valid IRI was asked


def test_tricky_labels_round_trip(make_kb) -> None:  # type: ignore[no-untyped-def]
    kb = make_kb(batch_size=3)
    found = kb.resources_for_labels([(text, "en") for text in TRICKY])
    for i, text in enumerate(TRICKY):
        assert found[(text, "en")] == {f"{DBR}Tricky{i}"}, text
    labels = kb.labels_for_resources([f"{DBR}Tricky{i}" for i in range(len(TRICKY))])
    assert [next(iter(labels[f"{DBR}Tricky{i}"])) for i in range(len(TRICKY))] == TRICKY


def test_label_lookup_by_language(make_kb) -> None:  # type: ignore[no-untyped-def]
    kb = make_kb()
    found = kb.resources_for_labels(
        [("Berlin", "en"), ("Berlin", "EN"), ("Berlin", "fr"), ("Bonn", None), ("Café", None)]
    )
    assert found[("Berlin", "en")] == {DBR + "Berlin"}
    assert found[("Berlin", "EN")] == {DBR + "Berlin"}  # tags compare case-insensitively
    assert found[("Berlin", "fr")] == frozenset()
    assert found[("Bonn", None)] == {DBR + "Bonn"}  # plain and tagged labels alike
    assert found[("Café", None)] == {DBR + "Caf%C3%A9"}
    labels = kb.labels_for_resources([DBR + "Berlin", DBR + "Bonn"], language="de")
    assert labels == {DBR + "Berlin": {"Berlin"}, DBR + "Bonn": frozenset()}


def test_types_and_select(make_kb) -> None:  # type: ignore[no-untyped-def]
    kb = make_kb()
    types = kb.types_of([DBR + "Berlin", DBR + "Nowhere"])
    assert types[DBR + "Berlin"] == {
        "http://dbpedia.org/ontology/City",
        "http://dbpedia.org/ontology/Place",
    }
    assert types[DBR + "Nowhere"] == frozenset()
    answers = kb.select(f"SELECT ?l WHERE {{ <{DBR}Berlin> <{RDFS_LABEL}> ?l }} ORDER BY ?l")
    assert sorted((t.value, t.lang) for t in answers.values()) == [
        ("Berlin", "de"),
        ("Berlin", "en"),
    ]
    assert kb.select(f"ASK {{ <{DBR}Berlin> ?p ?o }}").boolean is True


@pytest.mark.filterwarnings("ignore:.*query type:RuntimeWarning")  # SPARQLWrapper's own guess
def test_bad_query_is_a_clear_error(make_kb) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BadRequest):
        make_kb().select("SELEC ?x WHERE {}")


@pytest.mark.parametrize("batch_size", [1, 7, 100])
def test_round_trips_depend_on_batch_size_not_on_keys(make_kb, batch_size: int) -> None:  # type: ignore[no-untyped-def]
    kb = make_kb(batch_size=batch_size)
    iris = [f"{DBR}R{i}" for i in range(250)]
    # Every IRI asked several times (as answers of many questions would): keys are deduplicated.
    kb.same_as(iris * 3)
    assert kb.round_trips == math.ceil(250 / batch_size)
    before = kb.round_trips
    types = kb.types_of(iris)
    assert kb.round_trips - before == math.ceil(250 / batch_size)
    assert all(t == {"http://dbpedia.org/ontology/Thing"} for t in types.values())


def test_disk_cache_is_keyed_by_identity_and_version(make_kb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cache = LookupCache(tmp_path / "cache.sqlite")
    iris = [f"{DBR}R{i}" for i in range(30)]
    first = make_kb(cache=cache, batch_size=10)
    answers = first.same_as(iris)
    assert first.round_trips == 3
    again = make_kb(cache=cache, batch_size=10)
    assert again.same_as(iris) == answers
    assert again.round_trips == 0  # all from the cache, empty answers included
    other = make_kb(cache=cache, batch_size=10, version="another version")
    other.same_as(iris)
    assert other.round_trips == 3  # another version of the KB never sees these entries
    assert cache.count(describe(first)) == 30 and cache.count() == 60


def test_local_kb_identity_and_declared_version(kb_file: Path, tmp_path: Path) -> None:
    kb = LocalKB([kb_file])
    assert kb.identity.startswith("file:sha256:")
    assert kb.version == "test-kb 2"
    assert describe(kb) == f"{kb.identity} (test-kb 2)"
    changed = tmp_path / "kb.ttl"
    changed.write_bytes(kb_file.read_bytes() + b"\n<urn:x> <urn:p> <urn:y> .\n")
    assert LocalKB([changed]).identity != kb.identity
    assert LocalKB([kb_file], version="pinned").version == "pinned"


def test_local_kb_reports_bad_rdf_with_position(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text('<urn:a> <urn:b> "unterminated .\n', encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        LocalKB([bad])
    assert caught.value.file == str(bad) and caught.value.line == 1
    unknown = tmp_path / "kb.csv"
    unknown.write_text("a,b\n", encoding="utf-8")
    with pytest.raises(FormatError, match="cannot tell the RDF syntax"):
        LocalKB([unknown])


def test_gzipped_files_load(kb_file: Path, tmp_path: Path) -> None:
    import gzip

    packed = tmp_path / "kb.ttl.gz"
    packed.write_bytes(gzip.compress(kb_file.read_bytes()))
    assert LocalKB([packed]).types_of([DBR + "Berlin"])[DBR + "Berlin"]


def test_open_kb_picks_the_implementation(
    kb_file: Path, kb_server: OxigraphServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GERBIL_QA_KB_CACHE", str(tmp_path / "kb.sqlite"))
    local = open_kb([kb_file])
    assert isinstance(local, LocalKB) and local.cache is None  # in memory: nothing to cache
    remote = open_kb([kb_server.url], version="v9")
    assert isinstance(remote, RemoteKB) and describe(remote) == f"{kb_server.url} (v9)"
    assert remote.cache is not None and remote.cache.path == tmp_path / "kb.sqlite"
    assert open_kb([kb_server.url], cache=None).cache is None
    with pytest.raises(BadRequest, match="not both"):
        open_kb([kb_file, kb_server.url])


def test_fair_identity_joins_wikipedia_and_sameas(make_kb) -> None:  # type: ignore[no-untyped-def]
    kb = make_kb()
    wikipedia, wikidata = (
        "https://en.wikipedia.org/wiki/Berlin",
        "https://www.wikidata.org/entity/Q64",
    )
    gold, system = AnswerSet.of([Term.iri(wikipedia)]), AnswerSet.of([Term.iri(wikidata)])
    view = resolve(kb, FairMatcher().requests(gold, system, language="en"))
    assert iri_keys(wikipedia, view) & iri_keys(wikidata, view)
    assert kb.round_trips == 1  # every spelling of both IRIs in one sameAs lookup


def test_unreachable_endpoint_fails_after_retries() -> None:
    kb = RemoteKB(f"http://127.0.0.1:{free_port()}/query", retries=1, backoff=0.01)
    with pytest.raises(RemoteKBError, match="failed after 2 attempts: cannot connect"):
        kb.types_of([DBR + "Berlin"])
