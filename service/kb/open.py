"""Opening a KB from what a user types: RDF files or a SPARQL endpoint URL."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from service.errors import BadRequest
from service.kb.batched import DEFAULT_BATCH_SIZE, BatchedSparqlKB
from service.kb.cache import LookupCache, default_cache_path

DEFAULT_CACHE = "default"  # sentinel: the default cache for endpoints, none for local files


def open_kb(
    specs: Sequence[str | Path],
    *,
    version: str | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    cache: LookupCache | str | Path | None = DEFAULT_CACHE,
    default_graph: str | None = None,
) -> BatchedSparqlKB:
    """RDF files (``["kb.ttl", "more.nt.gz"]``) give a :class:`~service.kb.local.LocalKB`; one
    endpoint URL (``["http://host/sparql"]``) gives a :class:`~service.kb.remote.RemoteKB`.

    ``cache`` is a :class:`LookupCache`, the path of its sqlite file, or ``None`` (no disk
    cache). By default a remote endpoint gets the default cache (:func:`default_cache_path`):
    its lookups are the slow ones and repeat across experiments; a local store, held in memory
    and answering in microseconds, gets none.
    """
    if not specs:
        raise BadRequest("no KB given: name RDF files or one SPARQL endpoint URL")
    texts = [str(s) for s in specs]
    urls = [t for t in texts if t.startswith(("http://", "https://"))]
    if cache is DEFAULT_CACHE:
        cache = default_cache_path() if urls else None
    lookup_cache = cache if isinstance(cache, LookupCache | None) else LookupCache(cache)
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
