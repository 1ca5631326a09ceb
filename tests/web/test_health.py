"""``/health`` (readiness) and ``/health/live`` on a real server: what a proxy or orchestrator
in front of replicas probes (issue 14); on a remote store see tests/reliability/test_replicas.py."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from service.release import source
from tests.web.conftest import Server, start_server, stop_server


@pytest.fixture()
def own(tmp_path: Path) -> Iterator[Server]:
    running = start_server(tmp_path / "store", demo=False)
    yield running
    stop_server(running)


def _dead(pid: int) -> bool:
    """Ended: gone, or a zombie its parent has not reaped yet, with no thread left. A killed
    process's main thread shows as a zombie while its other threads (RocksDB's) still exit and
    hold its files open: until the last one goes, its end is not visible to the pool (the
    sentinel pipe is still open; a probe then saw it "alive", 3 runs in 30 under load)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            zombie = stat.read().rsplit(")", 1)[1].split()[0] == "Z"
        return zombie and len(os.listdir(f"/proc/{pid}/task")) <= 1
    except FileNotFoundError:
        return True


def _health(server: Server) -> requests.Response:
    return requests.get(server.url + "health", timeout=30)


def test_a_ready_replica_says_so_and_names_nothing_internal(own: Server, tmp_path: Path) -> None:
    response = _health(own)
    assert response.status_code == 200, response.text
    assert response.headers["Cache-Control"] == "no-store"
    body = response.json()
    assert body["status"] == "ok" and body["version"] == source().version  # release + commit
    checks = body["checks"]
    assert set(checks) == {"publicStore", "privateStore", "sparqlWorkers"}  # not shared
    assert all(check["ok"] for check in checks.values()), checks
    assert checks["sparqlWorkers"]["workers"] == checks["sparqlWorkers"]["of"] == 2
    assert str(tmp_path) not in response.text
    live = requests.get(own.url + "health/live", timeout=30)
    assert live.status_code == 200 and live.json()["status"] == "ok"
    assert requests.head(own.url + "health", timeout=30).status_code == 200


def test_workers_that_died_idle_are_replaced_when_probed(own: Server) -> None:
    pool = own.app.extensions["gerbil_qa"].pool
    before, crashed = pool.pids(), pool.crashed
    for pid in before:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while not all(_dead(pid) for pid in before):  # a probe sooner could still see them run
        assert time.monotonic() < deadline
        time.sleep(0.02)
    while True:  # the probe replaces them: a replica out of rotation gets no query that would
        body = _health(own).json()
        if body["status"] == "ok" and body["checks"]["sparqlWorkers"]["workers"] == 2:
            break
        assert time.monotonic() < deadline, body
        time.sleep(0.2)
    assert pool.crashed - crashed == len(before) == 2  # both found dead and replaced
    answer = requests.get(own.url + "sparql", params={"query": "ASK {}"}, timeout=30)
    assert answer.status_code == 200 and answer.json()["boolean"] is True
