"""Snapshots of the public store for the SPARQL worker processes.

The graph layer keeps public graphs in a store of their own (``service/graph/store.py``): nothing
private is ever written there, so no query, however written (``GRAPH ?g``, ``FROM NAMED``,
protocol ``named-graph-uri``, ``DESCRIBE``), can reach an unpublished experiment. The worker
processes cannot open that live store, though: Oxigraph says reading a store read-only while
another process writes it is undefined behaviour. So after every write the service takes a
snapshot (an Oxigraph backup, i.e. a RocksDB checkpoint: hard links, a few milliseconds) and the
workers open the newest snapshot read-only. A publication therefore becomes visible on the
endpoint atomically, when the new snapshot replaces the old one. Old snapshots are deleted once
no worker uses them.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class PublicView:
    """Snapshots of ``store`` (a pyoxigraph ``Store`` on disk) in ``work_dir``."""

    def __init__(
        self,
        store: Any,
        *,
        work_dir: Path,
        in_use: Callable[[], set[str]] = set,
        on_refresh: Callable[[str], None] | None = None,
        grace_seconds: float = 30.0,
    ) -> None:
        self._live = store
        self.work_dir = work_dir
        self._in_use = in_use
        self._on_refresh = on_refresh
        self._grace = grace_seconds
        self._lock = threading.Lock()
        self._counter = 0
        self._retired: list[tuple[float, Path]] = []
        self._timer: threading.Timer | None = None
        self.path: Path | None = None
        self.graphs: frozenset[str] = frozenset()
        if work_dir.exists():
            shutil.rmtree(work_dir)  # leftovers of an earlier run are never reused
        work_dir.mkdir(parents=True)

    def refresh(self) -> Path:
        """Snapshot the live public store and hand the snapshot to the workers."""
        import pyoxigraph as ox

        with self._lock:
            self._counter += 1
            path = self.work_dir / f"snapshot-{self._counter:06d}"
            # flushed first: a write-ahead log the checkpoint's own flush retires is never
            # deleted or reused while the store is open (RocksDB holds file deletions during a
            # checkpoint), one log kept a publication, 94 MB in 15 min (explore57 F1)
            self._live.flush()
            self._live.backup(str(path))
            self.graphs = frozenset(
                g.value for g in self._live.named_graphs() if isinstance(g, ox.NamedNode)
            )
            old, self.path = self.path, path
            if old is not None:
                self._retired.append((time.monotonic(), old))
            if self._on_refresh is not None:
                self._on_refresh(str(path))
            self._collect()
            log.info("public snapshot %s (%d graphs)", path.name, len(self.graphs))
            return path

    def _collect(self) -> None:
        """Delete the retired snapshots past their grace that no worker holds; the others
        are looked at again later, by a timer: collected only at the next public write, a
        burst of publications then a quiet day kept them all (+80 % of the public store on
        disk, each pinning the files compacted away since; explore26 F4)."""
        now = time.monotonic()
        busy = self._in_use()
        keep: list[tuple[float, Path]] = []
        for retired_at, path in self._retired:
            if now - retired_at < self._grace or str(path) in busy:
                keep.append((retired_at, path))
            else:
                shutil.rmtree(path, ignore_errors=True)
        self._retired = keep
        if keep and self._timer is None:
            due = max(self._grace - (now - min(t for t, _ in keep)), 0.0) + 1.0
            self._timer = threading.Timer(due, self._collect_later)
            self._timer.daemon = True
            self._timer.start()

    def _collect_later(self) -> None:
        with self._lock:
            self._timer = None
            if self.work_dir.exists():
                self._collect()

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            shutil.rmtree(self.work_dir, ignore_errors=True)
