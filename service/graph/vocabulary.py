"""The vocabulary files (``ontology/*.ttl``) and what the writers need to know from them."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from service.graph.terms import RDFS
from service.paths import ONTOLOGY_DIR


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


@lru_cache(maxsize=1)
def labels() -> dict[str, str]:
    """English labels of vocabulary terms (for readable observation labels)."""
    rows = _vocabulary_store().query(
        f"SELECT ?t ?l WHERE {{ ?t <{RDFS}label> ?l FILTER(LANGMATCHES(LANG(?l), 'en')) }}"
    )
    return {row["t"].value: row["l"].value for row in rows}


def vocabulary_triples():  # -> Iterator[pyoxigraph.Quad] in the default graph
    return iter(_vocabulary_store())
