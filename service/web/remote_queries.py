"""The public endpoint and documents over a remote store (:mod:`service.graph.remote`).

With the embedded store, queries run in worker processes over snapshots of the public store
(``query_pool.py``, ``public_view.py``). With a remote store, the store is the engine: the
endpoint checks a query by the same rules (``sparql_guard``: no ``SERVICE``, size and depth
limits) and forwards it to the **public** dataset only, asking for the format it negotiated, and
passes the store's bytes on, cut at the result-size limit and the time limit. The private
dataset is another store that this path never names, so no query can reach it. Documents of
resources are written here from the public dataset.

:class:`RemoteQueries` and :class:`RemoteView` stand where :class:`~service.web.query_pool.
QueryPool` and :class:`~service.web.public_view.PublicView` stand for the embedded store (the
same few methods), so the endpoint has one code path.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

from service.errors import Busy, ServiceError
from service.graph.remote import RemoteDataset, StoreUnavailable
from service.web.query_pool import (
    LONG_SHAPES_KEPT,
    DocumentJob,
    QueryJob,
    QueryOutcome,
    QueryTimeout,
)

STORE_PING = 2.0  # seconds a store that did not answer a query in time has to answer ASK {}
# A query given up at the time limit goes on in the store: Oxigraph's server neither stops it
# when the connection closes nor (an ORDER BY or COUNT over a join) at its own --timeout-s
# (measured, 0.5.13: still computing 30 s after the connection closed). Its shape is not sent
# again for this long, so a client retrying it does not pile copies of it on the store's cores.
GIVEN_UP_HOLD = 300.0

log = logging.getLogger(__name__)


class RemoteQueries:
    """Runs endpoint queries and resource documents against the public remote dataset."""

    def __init__(self, public: RemoteDataset, *, timeout: float) -> None:
        self.public = public
        self.timeout = timeout
        self.snapshot: str | None = public.url  # the pool's "ready" marker
        self.queries = 0  # queries answered (/metrics, as the pool's)
        self.abandoned = 0  # queries given up at the time limit (/metrics)
        self._given_up: OrderedDict[int, float] = OrderedDict()  # shape: when
        self._lock = threading.Lock()

    def run(
        self, job: QueryJob | DocumentJob, *, wait: float | None = None, shape: int | None = None
    ) -> QueryOutcome:
        if isinstance(job, DocumentJob):
            from service.web.query_pool import _run_document

            return _run_document(self.public, job)
        self._refuse_given_up(shape)
        answered = self._query(job, shape)
        self.queries += 1
        return answered

    def _refuse_given_up(self, shape: int | None) -> None:
        with self._lock:
            when = None if shape is None else self._given_up.get(shape)
        left = 0.0 if when is None else GIVEN_UP_HOLD - (time.monotonic() - when)
        if left > 0:
            raise Busy(
                f"a query of this shape ran past the limit of {self.timeout:g} s "
                f"{GIVEN_UP_HOLD - left:.0f} s ago and the store may still be computing it: "
                f"it is not sent again for {GIVEN_UP_HOLD:g} s (simplify it, or ask "
                f"the operator for a dump)",
                retry_after=int(left) + 1,
            )

    def _give_up(self, shape: int | None) -> None:
        with self._lock:
            self.abandoned += 1
            if shape is not None:
                self._given_up[shape] = time.monotonic()
                self._given_up.move_to_end(shape)
                while len(self._given_up) > LONG_SHAPES_KEPT:
                    self._given_up.popitem(last=False)

    def _query(self, job: QueryJob, shape: int | None) -> QueryOutcome:
        import urllib3

        accept, by_media = _accepted(job)
        if not accept:
            raise ServiceError("no acceptable media type for this result", status=406)
        text = f"BASE <{job.base_iri}>\n{job.query}" if job.base_iri else job.query
        params: list[tuple[str, str]] = []
        if job.default_graphs is not None or job.named_graphs is not None:
            params += [("default-graph-uri", g) for g in job.default_graphs or ()]
            params += [("named-graph-uri", g) for g in job.named_graphs or ()]
            if not job.default_graphs:  # SPARQL 1.1 Protocol: an absent one means empty
                params.append(("default-graph-uri", "urn:gerbil-qa:empty"))
        try:
            status, media, body = self.public.forward(
                text, params, ", ".join(accept), limit=job.max_bytes, timeout=self.timeout
            )
        except urllib3.exceptions.ReadTimeoutError:
            # the query, or the store itself (stopped, overloaded): one quick question tells
            # which (StoreUnavailable names the store), so the user is not told to ask less
            self.public.ping(STORE_PING)
            self._give_up(shape)
            raise QueryTimeout(
                f"the query ran longer than the limit of {self.timeout:g} s and was given up"
            ) from None
        if status >= 400:
            raise _refused(status, body)
        found = by_media.get(media)
        if found is None:
            raise StoreUnavailable(f"the store answered {media or 'no media type'}")
        kind, member = found
        if kind == "solutions" and _is_boolean(body, member):
            kind = "boolean"
        return QueryOutcome(kind=kind, body=body, format=member)

    # what the pool offers besides run() (the endpoint and the tests ask)
    def set_snapshot(self, path: str) -> None:
        pass

    def snapshots_in_use(self) -> set[str]:
        return set()

    def pids(self) -> set[int]:
        return set()

    def busy_pids(self) -> set[int]:
        return set()

    def close(self) -> None:
        pass


def _accepted(job: QueryJob) -> tuple[list[str], dict[str, tuple[str, str]]]:
    """The media types to ask for and, per media type, (kind, pyoxigraph member name)."""
    from service import mediatypes

    accept: list[str] = []
    by_media: dict[str, tuple[str, str]] = {}
    if job.results_format is not None:
        results = next(s for s in mediatypes.RESULTS_SYNTAXES if s.oxigraph == job.results_format)
        accept.append(results.media_type)
        by_media[results.media_type] = ("solutions", job.results_format)
    if job.rdf_format is not None:
        rdf = next(s for s in mediatypes.RDF_SYNTAXES if s.oxigraph == job.rdf_format)
        accept.append(rdf.media_type)
        by_media[rdf.media_type] = ("triples", job.rdf_format)
    return accept, by_media


def _is_boolean(body: bytes, member: str) -> bool:
    head = body[:512]
    if member == "JSON":
        return b'"boolean"' in head
    if member == "XML":
        return b"<boolean" in head
    return False


def _refused(status: int, body: bytes) -> ServiceError:
    """The store's 4xx is the client's (a syntax or evaluation error); 5xx is ours."""
    text = body.decode("utf-8", "replace").strip().splitlines()
    detail = (text[0] if text else str(status))[:500]
    if 400 <= status < 500:
        return ServiceError(f"query failed: {detail}", status=400)
    return StoreUnavailable(f"the store answered {status}: {detail}")


class RemoteView:
    """The public graphs' names for the endpoint's service description, read when first asked
    after a change; nothing to snapshot: the remote store serves each query from its current
    state."""

    def __init__(self, public: RemoteDataset) -> None:
        self._public = public
        self.path: str | None = public.url
        self._graphs: frozenset[str] | None = None

    @property
    def graphs(self) -> frozenset[str]:
        import pyoxigraph as ox

        if self._graphs is None:
            self._graphs = frozenset(
                g.value for g in self._public.named_graphs() if isinstance(g, ox.NamedNode)
            )
        return self._graphs

    def refresh(self) -> str:
        self._graphs = None
        return self._public.url

    def close(self) -> None:
        pass
