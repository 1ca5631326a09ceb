"""The vocabulary files (``ontology/*.ttl``) and what the writers need to know from them."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from service.graph.terms import QB, RDF, RDFS
from service.paths import ONTOLOGY_DIR

VOCABULARY_IRI = "http://w3id.org/gerbil/qa/vocab"


def vocabulary_files() -> tuple[Path, ...]:
    return tuple(sorted(ONTOLOGY_DIR.glob("*.ttl")))


def vocabulary_bytes() -> bytes:
    """Every vocabulary file, concatenated as one Turtle document per file (for hashing)."""
    return b"\n".join(p.read_bytes() for p in vocabulary_files())


@lru_cache(maxsize=1)
def _vocabulary_store():  # -> pyoxigraph.Store (imported lazily: CLI start-up time)
    import pyoxigraph

    store = pyoxigraph.Store()
    for path in vocabulary_files():
        store.load(path=str(path), format=pyoxigraph.RdfFormat.TURTLE)
    return store


def load_vocabulary_into(store, graph: str) -> None:  # store: pyoxigraph.Store
    """Replace ``graph`` of ``store`` with the vocabulary (one transaction per file is fine:
    the vocabulary graph is only ever rebuilt from the files)."""
    import pyoxigraph

    target = pyoxigraph.NamedNode(graph)
    quads = [pyoxigraph.Quad(q.subject, q.predicate, q.object, target) for q in _vocabulary_store()]
    store.remove_graph(target) if store.contains_named_graph(target) else None
    store.extend(quads)


@lru_cache(maxsize=1)
def measure_ranges() -> dict[str, str]:
    """Every qb:MeasureProperty of the vocabulary -> its rdfs:range (an XSD datatype IRI)."""
    rows = _vocabulary_store().query(
        f"SELECT ?m ?r WHERE {{ ?m a <{QB}MeasureProperty> ; <{RDFS}range> ?r }}"
    )
    return {row["m"].value: row["r"].value for row in rows}


@lru_cache(maxsize=1)
def labels() -> dict[str, str]:
    """English labels of vocabulary terms (for readable observation labels)."""
    rows = _vocabulary_store().query(
        f"SELECT ?t ?l WHERE {{ ?t <{RDFS}label> ?l FILTER(LANGMATCHES(LANG(?l), 'en')) }}"
    )
    return {row["t"].value: row["l"].value for row in rows}


def vocabulary_triples():  # -> Iterator[pyoxigraph.Quad] in the default graph
    return iter(_vocabulary_store())


def is_term(iri: str) -> bool:
    return bool(_vocabulary_store().query(f"ASK {{ <{iri}> <{RDF}type> ?t }}"))
