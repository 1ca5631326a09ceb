"""PROV-O, written in one place: activities (an experiment, a gold refresh), the software
that ran them, and the entities they used and generated.

Every writer of provenance (experiment graphs, registered dataset versions, the sidecar file of
a refreshed dataset) takes its triples from here, so start and end times have one precision
(:func:`~service.graph.clock.timestamp`) and the same shape wherever they are read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TypeAlias

from service.graph import nodes as n
from service.graph.clock import timestamp
from service.graph.nodes import BlankNode, Literal, NamedNode, node
from service.graph.terms import DCT, PROV, RDF, RDFS, SCHEMA
from service.graph.uris import GQA
from service.release import Source

Subject: TypeAlias = NamedNode | BlankNode
Triple: TypeAlias = tuple[Subject, NamedNode, NamedNode | BlankNode | Literal]

PROV_NS = PROV
TYPE = node(RDF + "type")
ACTIVITY = node(PROV + "Activity")
ENTITY = node(PROV + "Entity")
SOFTWARE_AGENT = node(PROV + "SoftwareAgent")
AGENT = node(PROV + "Agent")
USED = node(PROV + "used")
GENERATED_BY = node(PROV + "wasGeneratedBy")
DERIVED_FROM = node(PROV + "wasDerivedFrom")
STARTED = node(PROV + "startedAtTime")
ENDED = node(PROV + "endedAtTime")
ASSOCIATED = node(PROV + "wasAssociatedWith")


def activity(
    subject: NamedNode,
    *,
    started: datetime,
    ended: datetime,
    used: Iterable[NamedNode] = (),
    agent: NamedNode | None = None,
    kinds: Sequence[NamedNode] = (),
    label: str | None = None,
    description: str | None = None,
) -> list[Triple]:
    """A ``prov:Activity`` (also of ``kinds``) that ran from ``started`` to ``ended``; the two
    are recorded at one precision, and a start after the end is refused."""
    start, end = timestamp(started), timestamp(ended)
    if start > end:
        raise ValueError(f"an activity cannot end ({end}) before it starts ({start})")
    out: list[Triple] = [(subject, TYPE, kind) for kind in (*kinds, ACTIVITY)]
    if label:
        out.append((subject, node(RDFS + "label"), n.literal(label, lang="en")))
    out += [(subject, STARTED, n.date_time(start)), (subject, ENDED, n.date_time(end))]
    out += [(subject, USED, thing) for thing in used]
    if agent is not None:
        out.append((subject, ASSOCIATED, agent))
    if description:
        out.append((subject, node(DCT + "description"), n.literal(description)))
    return out


def software(agent: NamedNode, source: Source) -> list[Triple]:
    """This evaluator as the ``prov:SoftwareAgent`` that ran an activity (also typed
    ``prov:Agent``, so that clients without RDFS inference find it as one), with the commit it
    was built from where that is known (:mod:`service.release`), and the repository its code is
    published in where its operator names one (``schema:codeRepository``)."""
    out: list[Triple] = [
        (agent, TYPE, node(GQA + "Evaluator")),
        (agent, TYPE, SOFTWARE_AGENT),
        (agent, TYPE, AGENT),
        (agent, node(RDFS + "label"), n.literal(f"GERBIL QA for Python {source.version}")),
        (agent, node(GQA + "softwareVersion"), n.literal(source.version)),
    ]
    if source.revision is not None:
        out.append((agent, node(GQA + "sourceRevision"), n.literal(source.revision)))
        out.append((agent, node(GQA + "sourceModified"), n.boolean(source.modified)))
    if source.repository is not None:  # where its code is published, as its operator says
        out.append((agent, node(SCHEMA + "codeRepository"), node(source.repository)))
    return out


def entity(
    subject: NamedNode,
    *,
    generated_by: NamedNode | None = None,
    derived_from: Iterable[NamedNode] = (),
) -> list[Triple]:
    """A ``prov:Entity``, the activity that generated it and what it was derived from."""
    out: list[Triple] = [(subject, TYPE, ENTITY)]
    if generated_by is not None:
        out.append((subject, GENERATED_BY, generated_by))
    out += [(subject, DERIVED_FROM, source) for source in derived_from]
    return out
