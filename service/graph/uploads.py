"""What publishing an experiment does to the description of its uploaded dataset.

Every experiment on an uploaded file describes the dataset in its own graph, so the public
description is the union of the published ones. Two defaults the service writes give way to
what an author states, whichever is published first: the generated description
(``gqa:generatedDescription``) to the author's, this service as ``dct:publisher`` to the
author's first creator; DCAT-AP allows a dataset one of each. The first publication also says
when the dataset was published (``dct:issued``: that experiment's publication time, the same
instant as its own ``dct:issued``); later ones add none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.graph.adapter import StoreAdapter, add_public
from service.graph.nodes import DefaultGraph, Literal, NamedNode, Quad, node
from service.graph.terms import DCAT, DCT, GQA
from service.graph.uris import Uris

DESCRIPTION, GENERATED = DCT + "description", GQA + "generatedDescription"
PUBLISHER, ISSUED = DCT + "publisher", DCT + "issued"


def publish_graph(
    store: StoreAdapter, uris: Uris, quads: Sequence[Any], issued: Literal, graph: NamedNode
) -> None:
    """Make an experiment's ``quads`` (in ``graph``) public, in one transaction: with its
    uploaded dataset's ``dct:issued`` when it is the first publication of that dataset, and
    without the defaults an author's statements replace (also removed from the public graphs
    that had them)."""
    from service.graph.questions import service_agent

    public = store.public
    kept, extra, stale = list(quads), [], []
    service = service_agent(uris)
    links = [q.object for q in quads if q.predicate.value == DCAT + "dataset"]
    for ds in (o for o in links if isinstance(o, NamedNode) and o.value.startswith(uris.base)):
        mine = [q for q in kept if q.subject == ds]
        theirs = list(public.quads_for_pattern(ds, None, None, DefaultGraph()))
        said = {(q.predicate.value, q.object) for q in [*mine, *theirs]}
        generated = {o for p, o in said if p == GENERATED}
        authored = any(p == DESCRIPTION and o not in generated for p, o in said)
        by_author = any(p == PUBLISHER and o.value != service for p, o in said)
        drop = {(DESCRIPTION, o) for o in generated} | {(GENERATED, o) for o in generated}
        drop = drop if authored else set()
        if by_author:
            drop.add((PUBLISHER, node(service)))
        kept = [q for q in kept if q.subject != ds or (q.predicate.value, q.object) not in drop]
        stale += [
            (ds, p, o) for p, o in drop if (p, o) in {(q.predicate.value, q.object) for q in theirs}
        ]
        if not any(p == ISSUED for p, _ in said):
            extra.append(Quad(ds, node(ISSUED), issued, graph))
    if not stale:
        add_public(store, [*kept, *extra])
        return
    from service.graph.adapter import Side

    store.update(Side.PUBLIC, f"{_removal(stale)} ;\n{_insertion([*kept, *extra])}")


def _removal(stale: list[tuple[NamedNode, str, Any]]) -> str:
    """Remove each of ``stale`` from every public graph holding it and from the default graph."""
    rows = " ".join(f"({s} <{p}> {o})" for s, p, o in stale)
    return (
        "DELETE { GRAPH ?g { ?s ?p ?o } ?s ?p ?o } "
        f"WHERE {{ VALUES (?s ?p ?o) {{ {rows} }} GRAPH ?g {{ ?s ?p ?o }} "
        # a withdrawn experiment's graph stays as it was cited
        f"FILTER NOT EXISTS {{ GRAPH ?g {{ ?e <{GQA}withdrawnAt> ?w }} }} }}"
    )


def _insertion(quads: Sequence[Any]) -> str:
    """``quads`` and their copies in the default graph as one INSERT DATA (a blank node's
    label names the same node in both)."""
    by_graph: dict[str, list[str]] = {}
    for q in quads:
        by_graph.setdefault(str(q.graph_name), []).append(f"{q.subject} {q.predicate} {q.object} .")
    named = "\n".join(f"GRAPH {g} {{\n" + "\n".join(lines) + "\n}" for g, lines in by_graph.items())
    copies = "\n".join(line for lines in by_graph.values() for line in lines)
    return f"INSERT DATA {{\n{named}\n{copies}\n}}"
