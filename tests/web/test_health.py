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
    # not shared; enough disk, no write failed for want of it
    assert set(checks) == {"publicStore", "privateStore", "sparqlWorkers", "diskSpace"}
    assert checks["diskSpace"]["freeBytes"] >= checks["diskSpace"]["minFreeBytes"] == 64 << 20
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


def test_too_little_disk_space_is_unavailable(tmp_path: Path) -> None:
    """``min_free_bytes`` above what the disk has: 503 naming the check (it said ok with 0
    bytes free while every write failed; explore52 F6)."""
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    running = start_server(tmp_path / "store", demo=False, min_free_bytes=free + (1 << 40))
    try:
        response = _health(running)
        assert response.status_code == 503, response.text
        body = response.json()
        assert body["status"] == "unavailable" and body["checks"]["diskSpace"]["ok"] is False
        assert {k for k, c in body["checks"].items() if not c["ok"]} == {"diskSpace"}
        assert str(tmp_path) not in response.text
    finally:
        stop_server(running)


def test_a_write_that_failed_for_want_of_space_is_unavailable_for_a_while(
    own: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mock: the store's write (``store.update``) raises pyoxigraph's full-disk OSError, as on
    a full disk the free-space check may not see (another filesystem, space used up again)."""
    import errno

    from service.web import health

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    ticket = own.submit_demo(systems=("strong",))
    monkeypatch.setattr(own.storage.store, "update", full)
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    assert own.post(f"api/experiments/{ticket['id']}/publish", headers=owner).status_code == 507
    monkeypatch.undo()
    response = _health(own)
    assert response.status_code == 503, response.text
    assert response.json()["checks"]["storeWrites"]["ok"] is False
    monkeypatch.setattr(health, "NO_SPACE_SECONDS", 0.2)  # a while later
    time.sleep(0.3)
    assert _health(own).status_code == 200
