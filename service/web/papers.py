"""Attaching a paper to an experiment: ``<experiment> dct:isReferencedBy <paper>``.

The graph layer has no call for this yet, so this adapter writes the one triple into the
experiment's graph, in whichever of the two stores holds it, under the store's lock (so it
cannot interleave with a publication moving the graph). Replace it with a ``GraphStore`` method
when the graph area offers one.
"""

from __future__ import annotations

import re
from typing import Any

from service.errors import BadRequest
from service.graph.terms import DCT, is_valid_iri

DOI = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)


def paper_iri(*, doi: str | None = None, url: str | None = None) -> str:
    """The IRI of a paper given as a DOI (``10.3233/SW-180312``, ``doi:…``, ``https://doi.org/…``)
    or as an http(s) URL."""
    if doi:
        match = DOI.match(doi.strip())
        if not match:
            raise BadRequest(f"not a DOI: {doi!r} (expected e.g. 10.3233/SW-180312)")
        iri = "https://doi.org/" + match.group(1)
    elif url:
        iri = url.strip()
        if not re.match(r"^https?://[^/\s]+", iri, re.IGNORECASE):
            raise BadRequest(f"not an http(s) URL: {url!r}")
    else:
        raise BadRequest("give the paper as 'doi' or 'url'")
    if not is_valid_iri(iri) or any(c in iri for c in '<>"{}|\\^`'):
        raise BadRequest(f"cannot use {iri!r} as an IRI")
    return iri


def attach_paper(graph: Any, experiment_id: str, paper: str) -> None:
    """Add the link in the experiment's graph (public or private), in one update."""
    import pyoxigraph as ox

    name = graph.uris.experiment_graph(experiment_id)
    uri = graph.uris.experiment(experiment_id)
    with graph._lock:  # the GraphStore's write lock (see the module docstring)
        node = ox.NamedNode(name)
        store = graph.public if graph.public.contains_named_graph(node) else graph.private
        store.update(
            f"INSERT DATA {{ GRAPH <{name}> {{ <{uri}> <{DCT}isReferencedBy> <{paper}> }} }}"
        )
