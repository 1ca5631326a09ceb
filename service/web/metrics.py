"""``GET /metrics``: one replica's counters in the Prometheus text format (blueprint ``metrics``).

Off unless ``GERBIL_QA_METRICS_TOKEN`` is set (404); then only a request bearing that token
(``Authorization: Bearer …``, as a Prometheus scrape config sends it) gets them, others a 401:
the route is public like every other, so the token, not the network, keeps it to the operator.
The figures are read when scraped from what the parts count anyway (the query workers, the
caches, the runner and its claims, the change watcher); nothing is counted per request for it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, request
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector, CollectorRegistry

from service.errors import NotFound
from service.graph.experiments import same_secret
from service.release import source
from service.web.state import Services, services

bp = Blueprint("metrics", __name__)
PREFIX = "gerbil_qa_"


@bp.get("/metrics")
def metrics() -> Response:
    state = services()
    token = state.config.metrics_token
    if not token:
        raise NotFound("metrics are off: set GERBIL_QA_METRICS_TOKEN to serve them")
    given = request.headers.get("Authorization", "")
    if not same_secret(given, f"Bearer {token}"):
        from service.web.app import error_response

        refused = error_response(401, "/metrics needs the operator's bearer token")
        refused.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return refused
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Replica(state))
    response = Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
    response.headers["Cache-Control"] = "no-store"
    return response


class _Replica(Collector):
    """What one replica knows of itself, read at scrape time."""

    def __init__(self, state: Services) -> None:
        self.state = state

    def collect(self) -> Iterator[Metric]:
        state = self.state
        yield _gauge("info", "The service's version (always 1).", 1, version=source().version)
        pool: Any = state.pool
        yield _counter(
            "sparql_queries",
            "Queries run by the engine (answers from the cache not counted).",
            pool.queries,
        )
        for name, what in (
            ("killed", "Queries stopped at the time limit (their worker killed)."),
            ("crashed", "Query workers that died on their own."),
            ("requeued", "Queries that ran past the quick time and waited for a long slot."),
            ("documents", "Resource documents written by the query workers."),
            (
                "abandoned",
                "Queries a remote store did not answer within the time limit: it may still "
                "be computing them (it cannot be told to stop).",
            ),
        ):
            if hasattr(pool, name):  # a remote store's endpoint forwards: no workers
                yield _counter(f"sparql_{name}", what, getattr(pool, name))
        if hasattr(pool, "heal"):
            yield _gauge("sparql_workers", "Query worker processes running.", pool.heal())
        for cache, kept in (("pages", state.cache), ("results", state.results)):
            entries, size = kept.size()
            yield _gauge("cache_entries", "Entries in a cache.", entries, cache=cache)
            yield _gauge("cache_bytes", "Bytes of the entries in a cache.", size, cache=cache)
            yield _counter("cache_hits", "Cache lookups answered.", kept.hits, cache=cache)
            yield _counter("cache_misses", "Cache lookups not answered.", kept.misses, cache=cache)
        runner = state.runner
        yield _gauge("runs_active", "Experiments this replica is running.", len(runner.active()))
        yield _counter(
            "runs_taken_over", "Runs taken over from a replica that stopped.", runner.taken_over
        )
        yield _counter(
            "runs_handed_over",
            "Runs left at a shutdown for a restart or a replica.",
            runner.handed_over,
        )
        yield _counter(
            "runs_lapsed", "Runs stopped because this replica's claim lapsed.", runner.lapsed
        )
        if runner.claims.shared:
            yield _gauge(
                "claims_holding",
                "1 while this replica's claims are surely live.",
                int(runner.claims.holding()),
            )
        watcher = state.watcher
        if watcher is not None:
            yield _counter(
                "public_changes", "Other processes' public writes followed.", watcher.refreshes
            )
            yield _gauge(
                "change_token_age_seconds",
                "Seconds since the change token was last read.",
                time.monotonic() - watcher.read_at,
            )


def _gauge(name: str, documentation: str, value: float, **labels: str) -> GaugeMetricFamily:
    family = GaugeMetricFamily(PREFIX + name, documentation, labels=list(labels))
    family.add_metric(list(labels.values()), value)
    return family


def _counter(name: str, documentation: str, value: float, **labels: str) -> CounterMetricFamily:
    family = CounterMetricFamily(PREFIX + name, documentation, labels=list(labels))
    family.add_metric(list(labels.values()), value)
    return family
