"""The long-lived objects of one app (store, public snapshots, query workers, runner)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import current_app

if TYPE_CHECKING:
    from service.experiments.runner import ExperimentRunner
    from service.graph.snapshots import SnapshotService
    from service.graph.store import Storage
    from service.web.cache import DocumentCache
    from service.web.config import WebConfig
    from service.web.public_view import PublicView
    from service.web.query_pool import QueryPool
    from service.web.remote_queries import RemoteQueries, RemoteView
    from service.web.replicas import ChangeWatcher

EXTENSION = "gerbil_qa"


@dataclass(slots=True)
class Services:
    """What the blueprints share. ``changed()`` must follow every write to the store."""

    config: WebConfig
    storage: Storage
    view: PublicView | RemoteView
    pool: QueryPool | RemoteQueries
    runner: ExperimentRunner
    cache: DocumentCache
    results: DocumentCache
    answers: DocumentCache  # finished experiments' whole API answers, keyed by their ETag
    snapshots: SnapshotService | None = None  # answers `gerbil-qa export/check` while serving
    watcher: ChangeWatcher | None = None  # a remote store: other replicas' public writes

    def changed(self) -> None:
        """After a *public* write (a publication, a new dataset version, a catalogue dataset's
        questions): drop cached pages and results, take a new snapshot for the endpoint (the
        other replicas of a remote store follow by its change token, ``replicas.py``). Writes
        of private experiments (status, progress, results) need none of it."""
        self.refresh()

    def refresh(self) -> None:
        """Drop cached pages and results and take a new snapshot (the public data changed)."""
        self.cache.clear()
        self.view.refresh()
        # Pages or results made while the snapshot was taken may predate the write.
        self.cache.clear()
        self.results.clear()

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.close()
        if self.snapshots is not None:
            self.snapshots.close()
        self.runner.close()
        self.pool.close()
        self.view.close()
        self.storage.close()


def services() -> Services:
    return current_app.extensions[EXTENSION]
