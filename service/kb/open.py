"""Opening a KB from what a user types: RDF files or a SPARQL endpoint URL."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from service.errors import BadRequest
from service.kb.batched import DEFAULT_BATCH_SIZE, BatchedSparqlKB
from service.kb.cache import LookupCache


def open_kb(
    specs: Sequence[str | Path],
    *,
    version: str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    cache: LookupCache | str | Path | None = None,
    default_graph: str | None = None,
) -> BatchedSparqlKB:
    """RDF files (``["kb.ttl", "more.nt.gz"]``) give a :class:`~service.kb.local.LocalKB`; one
    endpoint URL (``["http://host/sparql"]``) gives a :class:`~service.kb.remote.RemoteKB`.

    ``cache`` is a :class:`LookupCache` or the path of its sqlite file (``None``: no disk cache).
    """
    if not specs:
        raise BadRequest("no KB given: name RDF files or one SPARQL endpoint URL")
    lookup_cache = cache if isinstance(cache, LookupCache | None) else LookupCache(cache)
    texts = [str(s) for s in specs]
    urls = [t for t in texts if t.startswith(("http://", "https://"))]
    if urls:
        if len(texts) != 1:
            raise BadRequest("a KB is either RDF files or one SPARQL endpoint URL, not both")
        from service.kb.remote import RemoteKB

        return RemoteKB(
            urls[0],
            version=version,
            default_graph=default_graph,
            batch_size=batch_size,
            cache=lookup_cache,
        )
    from service.kb.local import LocalKB

    return LocalKB(texts, version=version, batch_size=batch_size, cache=lookup_cache)
