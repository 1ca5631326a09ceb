"""Health of one replica, for the proxy or orchestrator in front of it (blueprint ``health``).

``GET /health/live``: the process answers (a liveness probe: restart it if not).
``GET /health``: whether this replica can serve now (a readiness probe: route requests to it or
not): 200 with ``"status": "ok"``, else 503 with ``"status": "unavailable"``; each check says
whether it passed and how long it took. The checks: both datasets answer a trivial query within
:data:`TIMEOUT`; the SPARQL workers are up (embedded store); on a shared store, this replica has
read the other replicas' change token lately (else its cached pages may be stale) and holds its
claims (else it cannot run experiments); ``sharedGraphs`` says (passing) whether the shared
vocabulary and catalogue are still this release's, not those a replica of another release put
back when it started; the disk of the store's directory (and of its jobs, private, public and
answers folders, wherever they are mounted) has ``min_free_bytes`` free
(``GERBIL_QA_MIN_FREE_BYTES``), and no write failed for want of space in the last
:data:`NO_SPACE_SECONDS` (it said "ok" with 0 bytes free while every write failed: explore52
F6). Public, so it names no store address and no error text (those go to the log); never
cached.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from flask import Blueprint, Response, jsonify

from service.graph.adapter import Side
from service.release import source
from service.web.state import Services, services

bp = Blueprint("health", __name__)
log = logging.getLogger(__name__)

TIMEOUT = 2.0  # seconds a dataset has to answer; probes of proxies wait a few seconds at most
# A replica that has not read the change token for this many of its intervals may serve pages
# cached before another replica's publication.
CHANGES_STALE = 10
# A write that failed for want of disk space this many seconds ago or less: not ready (space
# may be short on a filesystem the free-space check does not see, or be used up again at once)
NO_SPACE_SECONDS = 60.0
# the folders of an embedded store (or of a remote one's local directory) whose disks count
FOLDERS = ("jobs", "private", "public", "answers")


@bp.get("/health/live")
def live() -> Response:
    return _answer({"status": "ok", "version": source().version}, 200)


@bp.get("/health")
def ready() -> Response:
    state = services()
    checks = {
        "publicStore": _store(state, Side.PUBLIC),
        "privateStore": _store(state, Side.PRIVATE),
        "sparqlWorkers": _workers(state),
    }
    if state.watcher is not None:
        age = time.monotonic() - state.watcher.read_at
        fresh = age < CHANGES_STALE * state.watcher.interval
        checks["replicaChanges"] = {"ok": fresh, "secondsSinceRead": round(age, 1)}
    claims = state.runner.claims
    if claims.shared:
        checks["claims"] = {"ok": claims.holding()}
        # another release's vocabulary or catalogue in the shared store (a rolling upgrade):
        # said, never a reason to route requests away (explore50 F2)
        foreign = state.runner.foreign_graphs
        checks["sharedGraphs"] = {"ok": True, "thisRelease": not foreign, "said": foreign}
    if state.config.min_free_bytes:
        checks["diskSpace"] = _disk_space(state)
    since = state.runner.write_failures.seconds_since()
    if since is not None and since <= NO_SPACE_SECONDS:
        checks["storeWrites"] = {"ok": False, "secondsSinceDiskFull": round(since, 1)}
    ok = all(check["ok"] for check in checks.values())
    body = {"status": "ok" if ok else "unavailable", "version": source().version, "checks": checks}
    return _answer(body, 200 if ok else 503)


def _store(state: Services, side: Side) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        state.storage.store.ping(side, TIMEOUT)
    except Exception as err:  # any failure means "not ready"; the reason is for the log only
        log.warning("health: the %s dataset did not answer: %s", side.value, err)
        return {"ok": False, "ms": _ms(started)}
    return {"ok": True, "ms": _ms(started)}


def _disk_space(state: Services) -> dict[str, Any]:
    """The least space free on the disks of the store's directory and its folders, against
    ``min_free_bytes``."""
    work = state.storage.work_dir
    if work is None:  # a store in memory
        return {"ok": True}
    least, seen = None, set()
    for folder in (work, *(work / name for name in FOLDERS)):
        try:
            device = os.stat(folder).st_dev
            if device in seen:
                continue
            seen.add(device)
            found = os.statvfs(folder)
        except OSError:  # not there (a store without jobs yet): nothing to check
            continue
        free = found.f_bavail * found.f_frsize
        least = free if least is None else min(least, free)
    if least is None:
        return {"ok": True}
    wanted = state.config.min_free_bytes
    if least < wanted:
        log.warning("health: %d bytes free on the store's disk, fewer than %d", least, wanted)
    return {"ok": least >= wanted, "freeBytes": least, "minFreeBytes": wanted}


def _workers(state: Services) -> dict[str, Any]:
    from service.web.query_pool import QueryPool

    pool = state.pool
    if not isinstance(pool, QueryPool):  # a remote store answers the endpoint's queries
        return {"ok": True}
    alive = pool.heal()
    return {"ok": pool.snapshot is not None and alive > 0, "workers": alive, "of": pool.size}


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def _answer(body: dict[str, Any], status: int) -> Response:
    response = jsonify(body)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response
