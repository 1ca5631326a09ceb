"""The long-lived objects of one app (store, public snapshots, query workers, runner)."""

from __future__ import annotations

import math
import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
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
    # which public data this process serves: a name of its own (random, per start) and the
    # public writes it has seen since; what the dump's ETag is made of (it is streamed, never
    # held whole to be hashed), so it changes whenever the cached pages are dropped
    started: str = field(default_factory=lambda: secrets.token_hex(6))
    public_writes: int = 0
    # when the public data this process serves last changed (epoch seconds): its start, then
    # each public write it made or followed (``refresh``); the public documents' Last-Modified
    public_modified: float = field(default_factory=time.time)

    def public_version(self) -> str:
        """A name of the public data as this process serves it now (see ``started``)."""
        return f"{self.started}-{self.public_writes}"

    def last_modified(self) -> datetime | None:
        """The ``Last-Modified`` of a public document now: the second after the last public
        write (or the start), so a write later in the second a client was answered in still
        moves it past what that client holds; None within that second (RFC 9110 §8.8.2.1: never
        after the response's Date), when the ETag alone validates.

        Store-wide, not a record's own time: a published experiment's page and RDF change with
        other records (a published revision's "revised by", a frozen leaderboard naming it, a
        withdrawal, a paper attached, which records no time), so a record's time would give a
        304 to a page that changed. Pages are cached and dropped on the same writes."""
        stamp = math.floor(self.public_modified) + 1
        if stamp > time.time():
            return None
        return datetime.fromtimestamp(stamp, UTC)

    def changed(self) -> None:
        """After a *public* write (a publication, a new dataset version, a catalogue dataset's
        questions): drop cached pages and results, take a new snapshot for the endpoint (the
        other replicas of a remote store follow by its change token, ``replicas.py``). Writes
        of private experiments (status, progress, results) need none of it."""
        self.refresh()

    def refresh(self) -> None:
        """Drop cached pages and results and take a new snapshot (the public data changed)."""
        self.public_writes += 1
        self.cache.clear()
        self.view.refresh()
        # Pages or results made while the snapshot was taken may predate the write.
        self.cache.clear()
        self.results.clear()
        # after the caches are dropped: a response that read the time before is older than it
        self.public_modified = time.time()

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.close()
        # the runner first: no queued run starts once the stop began (the snapshot thread's
        # join waited 5 s while runs still started: explore63 F2)
        self.runner.close()
        if self.snapshots is not None:
            self.snapshots.close()
        self.pool.close()
        self.view.close()
        self.storage.close()


def services() -> Services:
    return current_app.extensions[EXTENSION]
