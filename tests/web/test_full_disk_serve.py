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

from service.paths import DEMO_DIR
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
    shown = _state(site, eid, owner)  # the end the store could not take, shown
    assert shown["status"] == "interrupted" and "no space is left" in shown["message"], shown
    assert site.storage.experiments.status(eid).status.value == "running"  # not written yet
    cancelled = site.post(f"api/experiments/{eid}/cancel", headers=owner)
    assert cancelled.status_code == 200 and cancelled.json()["cancelling"] is True
    assert _state(site, eid, owner)["status"] == "cancelled"  # taken, to be written
    # cancelled again before the store took it: nothing to stop, said once (it answered
    # "cancelling": true each time, "cancelled after cancelled after …": explore66 F7)
    again = site.post(f"api/experiments/{eid}/cancel", headers=owner).json()
    assert (again["cancelling"], again["status"]) == (False, "cancelled"), again
    assert _state(site, eid, owner)["message"].count("cancelled after") == 1
    early = site.post(f"api/experiments/{eid}/resume", headers=owner)  # still full
    assert early.status_code == 507 and "no space is left" in early.json()["error"], early.text
    monkeypatch.undo()  # space freed: the cancel is recorded without a restart
    _until(lambda: eid not in runner._unended, "not recorded")
    assert site.storage.experiments.status(eid).status.value == "cancelled"
    state = _state(site, eid, owner)
    assert state["status"] == "cancelled", state
    assert "no space is left on the disk" in state["message"], state
    resumed = site.post(f"api/experiments/{eid}/resume", headers=owner)
    assert resumed.status_code == 202, resumed.text
    site.wait_finished(eid, owner["Authorization"].split()[1])


def _refused_for_space(answer: Any, site: Server) -> None:
    assert answer.status_code == 507, (answer.status_code, answer.text[:500])
    assert "no space is left on the disk that holds its store" in answer.text
    assert "overloaded" not in answer.text and "Retry-After" not in answer.headers
    assert str(site.storage.store) not in answer.text and "/tmp" not in answer.text


def test_a_submission_on_a_full_disk_is_a_507_and_leaves_nothing(
    site: Server, slow_qa: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mock: DirWorkspace.write (the job's files) raises ENOSPC. Was Flask's 500 "…
    overloaded …", and experiments recorded `error` under ids the submitter never got
    (explore52 F5, F11); the API, a multipart upload and the run form alike."""
    from service.graph.workspace import DirWorkspace

    before = [s.id for s in site.storage.experiments.listing(include_private=True)]
    monkeypatch.setattr(DirWorkspace, "write", _full)
    body = {"dataset": "demo", "kb": "demo", "systems": [{"name": "s", "url": slow_qa}]}
    answer = site.post("api/experiments", json=body)
    _refused_for_space(answer, site)
    assert answer.json()["status"] == 507 and answer.json()["error"].startswith("the server")
    files = [("answers", ("strong.json", (DEMO_DIR / "answers-strong.json").read_bytes()))]
    upload = site.post("api/experiments", files=files, data={"dataset": "demo", "kb": "demo"})
    _refused_for_space(upload, site)
    form = site.post(
        "experiments/new",
        data={"dataset": "demo", "kb": "demo"},
        files=files,
        headers={"Accept": "text/html"},
    )
    _refused_for_space(form, site)
    assert "<form" in form.text  # said next to the form, which is there to submit again
    after = [s.id for s in site.storage.experiments.listing(include_private=True)]
    assert after == before  # nothing recorded
    jobs = site.storage.workspace.root / "jobs"
    assert not jobs.exists() or not any(jobs.iterdir())
    monkeypatch.undo()
    again = site.post("api/experiments", files=files, data={"dataset": "demo", "kb": "demo"})
    assert again.status_code == 202, again.text


def test_publish_and_rescore_on_a_full_disk_are_a_507(
    site: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mock: the store's writes (``store.update`` and ``store.add``, RocksDB's log) raise
    pyoxigraph's full-disk OSError. Both were Flask's 500 "… overloaded …" (explore52 F5)."""
    ticket = site.submit_demo(systems=("strong",))
    eid, owner = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}

    def store_full(*args: object, **kwargs: object) -> None:
        raise OSError(STORE_FULL.format(site.storage.store))

    monkeypatch.setattr(site.storage.store, "update", store_full)
    monkeypatch.setattr(site.storage.store, "add", store_full)
    _refused_for_space(site.post(f"api/experiments/{eid}/publish", headers=owner), site)
    _refused_for_space(site.post(f"api/experiments/{eid}/rescore", headers=owner), site)
    monkeypatch.undo()
    assert site.get(f"api/experiments/{eid}", headers=owner).json()["public"] is False
    published = site.post(f"api/experiments/{eid}/publish", headers=owner)
    assert published.status_code == 200, published.text


def test_an_answer_log_line_cut_by_a_full_disk_is_taken_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mock: os.write, as the workspace calls it, writes half the line and then raises ENOSPC
    as a full disk does. The torn half stayed (explore52 F11: 0.jsonl cut mid-line), and the
    next line, once there was room, joined it: the log unreadable past it."""
    from service.graph import workspace as module
    from service.graph.workspace import DirWorkspace

    kept = DirWorkspace(tmp_path)
    kept.write({"jobs/1/spec.json": b"{}"})
    kept.append("jobs/1/answers/0.jsonl", '{"n": 1}', if_exists="jobs/1/spec.json")
    real = os.write

    def half_then_full(handle: int, data: bytes) -> int:
        real(handle, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(module.os, "write", half_then_full)
    with pytest.raises(OSError):
        kept.append("jobs/1/answers/0.jsonl", '{"n": 2, "long": "' + "x" * 50 + '"}',
                    if_exists="jobs/1/spec.json")  # fmt: skip
    monkeypatch.undo()
    kept.append("jobs/1/answers/0.jsonl", '{"n": 3}', if_exists="jobs/1/spec.json")
    assert kept.lines("jobs/1/answers/0.jsonl") == ['{"n": 1}', '{"n": 3}']


@pytest.mark.parametrize("store_full", [False, True])
def test_a_run_interrupted_by_a_full_jobs_folder_can_be_cancelled(
    site: Server, slow_qa: str, monkeypatch: pytest.MonkeyPatch, store_full: bool
) -> None:
    """Mocks: DirWorkspace.append and DirWorkspace.write (the job's files: its answer log,
    its progress, the cancel marker) raise ENOSPC; then, ``store_full``, the store's status
    write too. The cancel was a 507 for want of room for its marker (which an interrupted run,
    running nowhere, does not need), or for the status (seen on a 40 MB tmpfs)."""
    from service.graph.workspace import DirWorkspace

    runner = site.app.extensions["gerbil_qa"].runner
    eid, owner = _submit(site, slow_qa + "delay/0.2")
    _until(lambda: _answered(site, eid, owner), "no answer came")
    monkeypatch.setattr(DirWorkspace, "append", _full)
    monkeypatch.setattr(DirWorkspace, "write", _full)
    _until(lambda: _state(site, eid, owner)["status"] == "interrupted", "not interrupted")
    if store_full:
        monkeypatch.setattr(site.storage.experiments, "set_status", _full)
    cancelled = site.post(f"api/experiments/{eid}/cancel", headers=owner)
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    monkeypatch.undo()
    _until(lambda: eid not in runner._unended, "not recorded")
    assert site.storage.experiments.status(eid).status.value == "cancelled"
    if store_full:  # kept beside the job too, for a start before the store took it
        assert (site.storage.workspace.root / "jobs" / eid / "cancel").exists()
