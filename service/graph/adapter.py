"""The store adapter: the few operations the repositories need from a triple store.

The service keeps two datasets (module :mod:`service.graph.store`): **public** (vocabulary,
catalogue, dataset questions and versions, published experiments; the SPARQL endpoint's view)
and **private** (unpublished experiments and the admin graph). A store adapter gives both, read
and written through this small interface and nothing else, so a remote store can stand in for
the embedded Oxigraph one (issue 14). Every operation maps onto a standard protocol:

=================================  =========================================================
``reader.query(q)``                SPARQL 1.1 Query (results parsed by ``pyoxigraph``)
``reader.quads_for_pattern(…)``    a ``SELECT``/``CONSTRUCT`` with the pattern, or Graph Store
                                   Protocol ``GET ?graph=`` for a whole graph
``reader.contains_named_graph``    ``ASK { GRAPH <g> { ?s ?p ?o } }``
``reader.named_graphs()``          ``SELECT DISTINCT ?g { GRAPH ?g {} }``
``add(side, quads)``               one ``INSERT DATA`` request (atomic by SPARQL 1.1 Update)
``update(side, text)``             one SPARQL 1.1 Update request (atomic)
=================================  =========================================================

``snapshot()`` is a consistent read of both datasets together (dumps and checks): the embedded
store holds its write lock meanwhile; a served store answers with a checkpoint (see
:mod:`service.graph.snapshots`).

The readers are typed structurally: pyoxigraph's ``Store`` already is a :class:`QuadReader`, so
the embedded adapter hands out its stores as they are (no wrapper on the hot read paths).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol


class Side(StrEnum):
    """Which of the two datasets: what the public sees, or what only the service sees."""

    PUBLIC = "public"
    PRIVATE = "private"


class QuadReader(Protocol):
    """Reading one dataset (the method names are pyoxigraph ``Store``'s)."""

    def query(self, query: str, **options: Any) -> Any:
        """A SPARQL query; SELECT gives ``QuerySolutions``, ASK ``QueryBoolean``, CONSTRUCT
        ``QueryTriples`` (pyoxigraph's result types, which a remote adapter parses into)."""
        ...

    def quads_for_pattern(
        self, subject: Any, predicate: Any, object: Any, graph_name: Any = None
    ) -> Iterator[Any]: ...

    def contains_named_graph(self, graph_name: Any) -> bool: ...

    def named_graphs(self) -> Iterator[Any]: ...


class StoreAdapter(Protocol):
    """The two datasets of the service and how to change them (see the module docstring)."""

    public: QuadReader
    private: QuadReader
    lock: threading.RLock  # serialises this process's multi-step writes (id allocation, …)

    @property
    def location(self) -> str:
        """Where the store is, for messages (a directory, a URL, ``memory``)."""
        ...

    @property
    def work_dir(self) -> Path | None:
        """A local directory beside the store for job state, answer archives and snapshots
        (None: in memory, nothing is kept)."""
        ...

    @property
    def read_only(self) -> bool: ...

    def add(self, side: Side, quads: Iterable[Any]) -> None:
        """Add ``quads`` to one dataset in one transaction: all of them or none (an iterator
        is read once: :func:`handed_over`)."""
        ...

    def update(self, side: Side, update: str) -> None:
        """Run one SPARQL 1.1 Update on one dataset, in one transaction."""
        ...

    @property
    def shared(self) -> bool:
        """Other processes may write the store at the same time (a remote store: replicas);
        what only one may do is then claimed (:mod:`service.graph.claims`)."""
        ...

    def snapshot(self) -> AbstractContextManager[tuple[QuadReader, QuadReader]]:
        """A consistent read of (public, private) together, for dumps and checks."""
        ...

    def ping(self, side: Side, timeout: float) -> None:
        """Raise if one dataset does not answer a trivial query within ``timeout`` seconds
        (a replica's readiness, ``/health``)."""
        ...

    def close(self) -> None: ...


WITHDRAWAL = (
    "http://w3id.org/gerbil/qa/vocab#withdrawnAt",
    "http://w3id.org/gerbil/qa/vocab#withdrawalReason",
)
"""The predicates of a withdrawal note: of a withdrawn experiment's graph, the default graph
holds only these (:meth:`ExperimentRepository.withdraw`)."""


def handed_over(quads: list[Any]) -> Iterator[Any]:
    """The items of ``quads`` in order, each dropped from the list as it is taken, which is
    emptied: a store that writes them one by one into its transaction lets each go, so a large
    experiment's quads and the transaction are not held at once (measured with 10,000
    questions: 270,000 quads, ~110 MB of Python objects beside ~400 MB of transaction)."""
    quads.reverse()
    while quads:
        yield quads.pop()


def add_public(
    store: StoreAdapter, quads: Sequence[Any], *, withdrawn: frozenset[str] = frozenset()
) -> None:
    """Add quads of public named graphs and their copies in the public default graph (the
    materialised union the endpoint reads, see :mod:`service.graph.store`), in one add. Of the
    graphs named in ``withdrawn`` (withdrawn experiments) only the withdrawal note is copied:
    their results stay at their URIs, out of every leaderboard and listing."""
    from service.graph.nodes import DefaultGraph, Quad

    default = DefaultGraph()
    copies = [
        Quad(q.subject, q.predicate, q.object, default)
        for q in quads
        if not withdrawn
        or getattr(q.graph_name, "value", None) not in withdrawn
        or q.predicate.value in WITHDRAWAL
    ]
    store.add(Side.PUBLIC, [*quads, *copies])
