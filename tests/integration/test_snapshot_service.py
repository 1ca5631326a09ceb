"""The service that answers snapshot requests (``export``, ``check``, ``experiments`` and
``progress`` beside ``serve``) outlives a failed request, and leaves no checkpoint behind that
no one will take (explore52 F7, F8)."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.errors import ServiceError
from service.graph.embedded import EmbeddedStore
from service.graph.snapshots import (
    DIRECTORY,
    ORPHAN_SECONDS,
    SnapshotService,
    release,
    request_checkpoint,
)

ROCKSDB_FULL = "IO error: No space left on device: While appending to file: {}: No space left"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EmbeddedStore]:
    held = EmbeddedStore(tmp_path / "store")
    yield held
    held.close()


def test_a_failed_request_is_answered_and_the_next_one_succeeds(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """explore52 F7: a checkpoint on a full disk failed, then so did writing ``NONCE.failed``,
    and the thread died: every later request waited 30 s. MOCK: the checkpoint (the store's
    ``backup``) and the one write of the reason raise ENOSPC, once each."""
    assert store.path is not None
    real_backup, real_write = store.backup, Path.write_text
    full = {"backup": 1, "write": 1}

    def backup(target: Path) -> None:
        if full["backup"]:
            full["backup"] -= 1
            target.mkdir(parents=True)  # a checkpoint cut short
            raise OSError(ROCKSDB_FULL.format(target / "public" / "000009.sst"))
        real_backup(target)

    def write_text(self: Path, *args: Any, **kwargs: Any) -> int:
        if self.name.endswith(".failed") and full["write"]:
            full["write"] -= 1
            self.touch()  # the file is made, its text has no room
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(store, "backup", backup)
    monkeypatch.setattr(Path, "write_text", write_text)
    service = SnapshotService(store, poll=0.01).start()
    try:
        with pytest.raises(ServiceError) as failed:
            request_checkpoint(store.path, timeout=10)
        assert str(failed.value) == (
            f"the server holding {store.path} could not make a snapshot: it could not write "
            f"why either, which a full disk does: see that the device holding {store.path} has "
            "free space, and retry"
        )
        assert service._thread.is_alive()
        checkpoint = request_checkpoint(store.path, timeout=10)  # the next one: answered
        assert (checkpoint / "public").is_dir()
        release(checkpoint)
        # and a failure whose reason could be written says it, a full disk as one
        full["backup"] = 1
        with pytest.raises(ServiceError) as said:
            request_checkpoint(store.path, timeout=10)
        assert str(said.value) == (
            f"the server holding {store.path} could not make a snapshot: no space left on the "
            f"device holding {store.path} (errno 28): free space and retry; the store is not "
            "damaged"
        )
        assert sorted(p.name for p in (store.path / DIRECTORY).iterdir()) == []
    finally:
        service.close()


def test_the_thread_outlives_a_folder_it_cannot_list(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """explore52 F7 with EMFILE: the thread died in its glob. MOCK: the listing of the
    requests raises EMFILE a few times."""
    assert store.path is not None
    real_glob = Path.glob
    left = [5]

    def glob(self: Path, pattern: str) -> Any:
        if pattern == "*.request" and left[0]:
            left[0] -= 1
            raise OSError(errno.EMFILE, "Too many open files")
        return real_glob(self, pattern)

    monkeypatch.setattr(Path, "glob", glob)
    service = SnapshotService(store, poll=0.01).start()
    try:
        checkpoint = request_checkpoint(store.path, timeout=10)
        assert left == [0] and service._thread.is_alive()
        release(checkpoint)
    finally:
        service.close()


def _aged(path: Path, seconds: float) -> None:
    when = time.time() - seconds
    os.utime(path, (when, when))


def test_orphaned_checkpoints_are_removed_at_start_and_while_serving(
    store: EmbeddedStore,
) -> None:
    """explore52 F8: a request whose asker timed out was answered by the next serve: a
    checkpoint of hard links and ``.ready`` nobody took, kept through restarts. Requests and
    answers no asker waits for any more are removed (at start, and while the service runs);
    a checkpoint its asker took (no ``.ready``) and a fresh answer stay."""
    assert store.path is not None
    folder = store.path / DIRECTORY
    folder.mkdir()
    store.backup(folder / "aaaa")  # answered long ago, never taken
    (folder / "aaaa.ready").touch()
    (folder / "bbbb.request").touch()  # its asker gave up long ago
    (folder / "cccc.failed").write_text("why", encoding="utf-8")
    store.backup(folder / "dddd")  # taken by its asker, being read
    store.backup(folder / "eeee")  # answered just now: its asker is about to take it
    (folder / "eeee.ready").touch()
    for name in ("aaaa.ready", "bbbb.request", "cccc.failed", "dddd"):
        _aged(folder / name, ORPHAN_SECONDS + 5)
    service = SnapshotService(store, poll=60)  # started, it answers nothing in this test
    service.start()
    try:
        assert sorted(p.name for p in folder.iterdir()) == ["dddd", "eeee", "eeee.ready"]
        service.remove_orphans(now=time.time() + ORPHAN_SECONDS + 5)  # its sweep, later on
        assert sorted(p.name for p in folder.iterdir()) == ["dddd"]
    finally:
        service.close()


def test_a_written_store_is_flushed_by_the_sweep_and_before_a_checkpoint(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """explore57 F1: while serve ran, RocksDB's write-ahead logs (``*.log``) grew with every
    write (~2.3 MB a 14-question run) until the store was reopened: the private side's one log
    was never retired (nothing flushed it), and each log a checkpoint's own flush retired was
    kept. The sweep flushes a store written since the last flush, and a checkpoint is taken
    of a flushed store: six rounds leave two or three rounds' worth of log a side."""
    import pyoxigraph as ox

    from service.graph import snapshots
    from service.graph.adapter import Side

    assert store.path is not None
    monkeypatch.setattr(snapshots, "SWEEP_SECONDS", 0.0)
    graph, p = ox.NamedNode("http://example.org/g"), ox.NamedNode("http://example.org/p")

    def written(n: int) -> list[ox.Quad]:
        s = f"http://example.org/s{n}-"
        return [
            ox.Quad(ox.NamedNode(f"{s}{i}"), p, ox.Literal("x" * 200), graph) for i in range(500)
        ]

    service = SnapshotService(store, poll=0.01).start()
    try:
        for n in range(6):
            store.add(Side.PRIVATE, written(n))
            store.add(Side.PUBLIC, written(n))
            store.backup(store.path / DIRECTORY / f"round{n}")  # as a checkpoint request does
            release(store.path / DIRECTORY / f"round{n}")
            store.add(Side.PRIVATE, written(100 + n))
            deadline = time.monotonic() + 10
            while getattr(store, "_unflushed", False) and time.monotonic() < deadline:  # swept
                time.sleep(0.01)
    finally:
        service.close()
    logs = {
        side: sum(f.stat().st_size for f in (store.path / side).glob("*.log"))
        for side in ("public", "private")
    }
    # 500 quads are ~0.4 MB of log (nine indexes and the strings); unflushed, six rounds kept
    # ~2.3 MB (public) and ~4.6 MB (private)
    assert logs["public"] < 1_500_000 and logs["private"] < 2_500_000, logs


def test_a_stop_stops_the_runner_first_and_a_late_sweep_finds_the_store_closed(
    store: EmbeddedStore,
) -> None:
    """explore63 F2: a stop joined the snapshot thread (up to 5 s) before it stopped the runner,
    and queued runs went ``queued -> running`` after "shutting down"; a thread left running
    after its join timed out then used a closed store. The runner stops first; a closed store
    is neither flushed nor checkpointed."""
    from types import SimpleNamespace

    from service.graph.adapter import Side
    from service.web.state import Services

    order: list[str] = []

    def closer(name: str) -> Any:
        return SimpleNamespace(close=lambda: order.append(name))

    services: Any = SimpleNamespace(
        watcher=None,
        **{name: closer(name) for name in ("snapshots", "runner", "pool", "view", "storage")},
    )
    Services.close(services)
    assert order.index("runner") < order.index("snapshots"), order

    assert store.path is not None
    store.update(Side.PRIVATE, "INSERT DATA { <http://e/s> <http://e/p> 1 }")
    store.close()  # what a timed-out snapshot thread may still find
    assert store.flush_written() is False
    with pytest.raises(ServiceError, match="closed"):
        store.backup(store.path / DIRECTORY / "late")


def test_a_large_write_is_flushed_at_once(store: EmbeddedStore) -> None:
    """A large run's record (QALD-8 train: 31,152 quads, ~22 MB of write-ahead log) is flushed
    as it is written: the sweep's flush came after two or three of them, and RocksDB keeps a
    retired log for reuse at its size, so steady large runs kept 88-111 MB of logs (hq95)."""
    import pyoxigraph as ox

    from service.graph.adapter import Side
    from service.graph.embedded import FLUSH_WRITE

    assert store.path is not None
    graph, p = ox.NamedNode("http://example.org/g"), ox.NamedNode("http://example.org/p")

    def largest_log() -> int:
        return max(f.stat().st_size for f in (store.path / "private").glob("*.log"))

    sizes = []
    for n in range(3):
        s = f"http://example.org/s{n}-"
        store.add(
            Side.PRIVATE,
            (ox.Quad(ox.NamedNode(f"{s}{i}"), p, ox.Literal(i), graph) for i in range(FLUSH_WRITE)),
        )
        sizes.append(largest_log())
    assert max(sizes) < 1.5 * sizes[0], sizes  # unflushed, the live log held all three
