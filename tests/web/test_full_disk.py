"""A full disk under ``serve`` (explore52 F4, F5, F6, F11): a run it stops ends resumable, saying
why; cancel and resume act on it; what could not be written is said, with no path of the
server.

A full disk cannot be had here (no mount in CI): each test patches the one low-level write the
path uses to raise ``OSError(ENOSPC)`` as a full disk does: a mock, named in each test."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import Server, start_server, stop_server

# pyoxigraph's words for it (RocksDB's), an OSError without errno: what a store write raises
STORE_FULL = "IO error: No space left on device: While appending to file: {}/private/000058.log"


def _full(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.fixture()
def site(tmp_path: Path) -> Iterator[Server]:
    running = start_server(tmp_path / "store", demo=False)
    yield running
    stop_server(running)


def _submit(site: Server, url: str) -> tuple[str, dict[str, str]]:
    body = {"dataset": "demo", "kb": "demo", "concurrency": 1}
    body["systems"] = [{"name": "slow", "url": url}]
    made = site.post("api/experiments", json=body)
    assert made.status_code == 202, made.text
    ticket = made.json()
    return ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}


def _until(check: Callable[[], Any], what: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return found


def _state(site: Server, eid: str, owner: dict[str, str]) -> dict[str, Any]:
    return site.get(f"api/experiments/{eid}?questions=false", headers=owner).json()


def _answered(site: Server, eid: str, owner: dict[str, str]) -> bool:
    state = _state(site, eid, owner)
    return bool(state["systems"]) and state["systems"][0]["done"] >= 1


def test_a_run_stopped_by_a_full_jobs_folder_is_interrupted_and_resumes(
    site: Server, slow_qa: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mock: DirWorkspace.append (the answer log's write) raises ENOSPC. The run was `error`
    "internal error: OSError: [Errno 28] …", naming neither the disk nor what was written."""
    from service.graph.workspace import DirWorkspace

    eid, owner = _submit(site, slow_qa + "delay/0.2")
    _until(lambda: _answered(site, eid, owner), "no answer came")
    monkeypatch.setattr(DirWorkspace, "append", _full)
    state = _until(
        lambda: (s := _state(site, eid, owner))["status"] != "running" and s, "still running"
    )
    assert state["status"] == "interrupted", state
    message = state["message"]
    assert "no space is left on the disk that holds the store's jobs folder" in message
    assert "writing the job's answer log" in message and "resume" in message
    assert str(site.storage.store) not in message and "/tmp" not in message
    monkeypatch.undo()  # space freed
    resumed = site.post(f"api/experiments/{eid}/resume", headers=owner)
    assert resumed.status_code == 202, resumed.text
    final = site.wait_finished(eid, owner["Authorization"].split()[1])
    assert final["results"][0]["measures"]["macroF1"] is not None


def test_a_run_on_a_full_store_ends_once_it_can_and_a_cancel_is_honoured(
    site: Server, slow_qa: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mocks: DirWorkspace.append (the answer log) raises ENOSPC, and the status write of the
    store (``experiments.set_status``, RocksDB's log) raises pyoxigraph's full-disk OSError.
    The run stayed `running` for good: cancel answered 200 and did nothing, resume 409 "still
    running", until a restart (explore52 F4)."""
    from service.graph.workspace import DirWorkspace

    runner = site.app.extensions["gerbil_qa"].runner
    eid, owner = _submit(site, slow_qa + "delay/0.2")
    _until(lambda: _answered(site, eid, owner), "no answer came")

    def store_full(*args: object, **kwargs: object) -> None:
        raise OSError(STORE_FULL.format(site.storage.store))

    monkeypatch.setattr(DirWorkspace, "append", _full)
    monkeypatch.setattr(site.storage.experiments, "set_status", store_full)
    _until(lambda: eid in runner._unended, "the run did not stop")
    assert runner._unended[eid][0].value == "interrupted"
    cancelled = site.post(f"api/experiments/{eid}/cancel", headers=owner)
    assert cancelled.status_code == 200 and cancelled.json()["cancelling"] is True
    assert runner._unended[eid][0].value == "cancelled"  # taken, to be written
    monkeypatch.undo()  # space freed: the cancel is recorded without a restart
    state = _until(
        lambda: (s := _state(site, eid, owner))["status"] != "running" and s, "not recorded"
    )
    assert state["status"] == "cancelled", state
    assert "no space is left on the disk" in state["message"], state
    resumed = site.post(f"api/experiments/{eid}/resume", headers=owner)
    assert resumed.status_code == 202, resumed.text
    site.wait_finished(eid, owner["Authorization"].split()[1])
