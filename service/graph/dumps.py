"""Dumps of a store: ``gerbil-qa export`` and ``gerbil-qa import``.

An export is one experiment's graph, or (the operator's backup) every graph of both datasets,
admin graph included, read from one consistent snapshot (:meth:`StoreAdapter.snapshot`). The
public default graph is a copy of the public named graphs and is not dumped; an import puts
each graph back where it belongs (published experiments, catalogue and vocabulary in the public
dataset, the rest in the private one) and rebuilds the default-graph copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from service.errors import BadRequest, NotFound
from service.graph.adapter import Side, add_public
from service.mediatypes import RdfSyntax, rdf_by_name

if TYPE_CHECKING:
    from service.graph.store import Storage

STORE_MARKER = "urn:gerbil-qa:store"


def syntax_of(name: str) -> RdfSyntax:
    syntax = rdf_by_name(name)
    if syntax is None or syntax.name not in ("nquads", "trig", "turtle", "ntriples"):
        raise BadRequest(f"unknown export format {name!r}; expected nquads, trig or turtle")
    return syntax


def export(storage: Storage, *, format: str = "nquads", experiment_id: str | None = None) -> bytes:
    """A dump: one experiment's graph, or every graph of both datasets including the admin
    graph. Turtle carries no graph names, so it needs an experiment."""
    import pyoxigraph as ox

    syntax = syntax_of(format)
    quads: list[Any]
    if experiment_id is not None:
        quads = storage.experiments.quads(experiment_id)
        if not quads:
            raise NotFound(f"no recorded experiment {experiment_id}")
    else:
        if not syntax.quads:
            raise BadRequest(f"{syntax.label} cannot hold named graphs: export one experiment")
        with storage.store.snapshot() as (public, private):
            # the public default graph is a copy of the public named graphs: not dumped
            quads = [
                q
                for q in public.quads_for_pattern(None, None, None, None)
                if not isinstance(q.graph_name, ox.DefaultGraph)
            ]
            quads += private.quads_for_pattern(None, None, None, None)
    if not syntax.quads:
        quads = [ox.Triple(q.subject, q.predicate, q.object) for q in quads]
    from service.graph.terms import PREFIXES

    kwargs = {"prefixes": PREFIXES} if syntax.name in ("turtle", "trig") else {}
    data = ox.serialize(quads, format=syntax.oxigraph_format(), **kwargs)  # type: ignore[arg-type]
    return data or b""


def import_dump(storage: Storage, data: bytes, *, format: str = "nquads") -> int:
    """Restore a dump made by :func:`export` (whole store): each graph goes back to the
    dataset it belongs in. Returns the number of quads read."""
    import pyoxigraph as ox

    syntax = syntax_of(format)
    if not syntax.quads:
        raise BadRequest(f"a store dump must be N-Quads or TriG, not {syntax.label}")
    scratch = ox.Store()
    try:
        scratch.load(data, format=syntax.oxigraph_format())
    except SyntaxError as err:
        raise BadRequest(f"cannot read the dump: {err}") from err
    uris = storage.uris
    marker = ox.NamedNode(STORE_MARKER)
    bases = {
        str(getattr(q.object, "value", "")) for q in scratch.quads_for_pattern(marker, None, None)
    }
    if bases and bases != {uris.base}:
        raise BadRequest(f"the dump was made with base {', '.join(bases)}, not {uris.base}")
    admin = ox.NamedNode(uris.admin_graph)
    published_p = ox.NamedNode("http://w3id.org/gerbil/qa/vocab#published")
    published = {
        str(getattr(q.subject, "value", "")).rsplit("/", 1)[1]
        for q in scratch.quads_for_pattern(None, published_p, None, admin)
        if getattr(q.object, "value", None) == "true"
    }
    public: list[Any] = []
    private: list[Any] = []
    exp_prefix = uris.base + "graph/experiment/"
    for q in scratch:
        g = q.graph_name
        if isinstance(g, ox.DefaultGraph):
            continue  # the store marker
        name = str(getattr(g, "value", ""))
        if not name.startswith(uris.base + "graph/"):
            raise BadRequest(f"the dump has a graph that is not one of this store's: {name}")
        if name == uris.admin_graph:
            private.append(q)
        elif name.startswith(exp_prefix):
            (public if name[len(exp_prefix) :] in published else private).append(q)
        else:
            public.append(q)
    with storage.store.lock:
        add_public(storage.store, public)
        storage.store.add(Side.PRIVATE, private)
    return len(public) + len(private)
