"""Several ``serve`` processes on one remote store: each follows the others' public writes.

Every public write through a remote store leaves a new change token in the private dataset
(:meth:`~service.graph.remote.RemoteStore._changed`): whoever wrote it (another replica, or
``gerbil-qa publish`` from a shell). :class:`ChangeWatcher` reads the token every
``interval`` seconds and, when another process wrote it, drops this replica's cached pages and
results; so a publication shows on every replica within about ``interval`` seconds. A token
read costs one small query on the private store.

A write is announced twice: a pending token before it, a new one after. A writer killed
between its write and the second token leaves the pending token for good: a replica that has
seen the same pending token for ``pending_limit`` seconds (by its own clock) drops its caches
once more, so what it cached while the write landed does not outlive the limit.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.graph.store import Storage

log = logging.getLogger(__name__)

INTERVAL = 1.0  # seconds between two reads of the change token
# Seconds after which a pending token counts as a write whose writer died (a public write
# takes well under a second; publishing a large experiment a few).
PENDING_LIMIT = 30.0


class ChangeWatcher:
    """See the module docstring."""

    def __init__(
        self,
        storage: Storage,
        *,
        on_change: Callable[[], object],
        interval: float = INTERVAL,
        pending_limit: float = PENDING_LIMIT,
    ) -> None:
        from service.graph.remote import RemoteStore

        assert isinstance(storage.store, RemoteStore)
        self.store: RemoteStore = storage.store
        self.on_change: Callable[[], object] = on_change
        self.interval: float = interval
        self.pending_limit: float = pending_limit
        self.seen: str | None = self.store.change_token()
        self.pending_since: float | None = None  # when another's pending token was first seen
        self.refreshes: int = 0  # for tests and monitoring
        self.read_at: float = time.monotonic()  # the last token read that succeeded (/health)
        self._stop: threading.Event = threading.Event()
        self._thread: threading.Thread = threading.Thread(
            target=self._run, name="gqa-replicas", daemon=True
        )

    def start(self) -> ChangeWatcher:
        self._thread.start()
        return self

    def check(self) -> bool:
        """Read the token once; True when another process changed the public data (or left
        a pending token older than the limit)."""
        from service.graph.remote import PENDING

        token = self.store.change_token()
        now = self.read_at = time.monotonic()
        if token == self.seen:
            if self.pending_since is None or now - self.pending_since < self.pending_limit:
                return False
            self.pending_since = None  # its writer died: its write landed or never will
        else:
            self.seen = token
            self.pending_since = None
            if token is not None and token == self.store.written_token:
                return False  # this process's own write: it refreshed already
            if token is not None and token.startswith(PENDING):
                self.pending_since = now
        self.refreshes += 1
        self.on_change()
        return True

    def _run(self) -> None:
        failing = False  # said once when it starts failing and once when it answers again:
        while not self._stop.wait(self.interval):  # every second was a line a second
            try:
                self.check()
            except Exception as err:  # the store may be down for a while: keep watching
                if not failing:
                    log.warning("reading the public change token failed (said again when it "
                                "answers): %s", err)  # fmt: skip
                failing = True
            else:
                if failing:
                    log.warning("reading the public change token works again")
                failing = False

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
