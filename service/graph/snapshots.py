"""A consistent read of a store that another process holds open (``gerbil-qa serve``).

RocksDB lets one process open a store directory; pyoxigraph 0.5 has no secondary instance, and
opening it read-only while another process writes is undefined behaviour (Oxigraph's words).
So the process that holds the store takes a checkpoint on request (``Store.backup``: hard links,
milliseconds), of both datasets under its write lock, and the asking process opens that
checkpoint read-only: what ``gerbil-qa export`` and ``check`` read while the service runs is
the store as it was at one moment.

The protocol is files in ``STORE/.snapshots/``: the asker writes ``{nonce}.request``; the holder
(:class:`SnapshotService`, started by the web service) answers with the checkpoint
``{nonce}/`` and ``{nonce}.ready`` (or ``{nonce}.failed`` with the reason); the asker removes
the checkpoint when done. A request, answer or answered checkpoint no asker took within
:data:`ORPHAN_SECONDS` is removed (at start and while serving); a checkpoint an asker took and
never released, after an hour.
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from service.errors import ServiceError, no_room, store_has_no_room
from service.graph.embedded import EmbeddedStore, StoreBusy

if TYPE_CHECKING:
    from service.graph.store import Storage

log = logging.getLogger(__name__)

DIRECTORY = ".snapshots"
STALE_SECONDS = 3600.0
ASK_SECONDS = 30.0  # how long an asker waits for its checkpoint (request_checkpoint)
# A request, an answer (``.ready``, ``.failed``) or an answered checkpoint nobody took this long
# after it was made has no asker left: it gave up after ASK_SECONDS, or died. Such a
# checkpoint pinned ~40 MB of hard links on a full disk through restarts (explore52 F8).
ORPHAN_SECONDS = 2 * ASK_SECONDS
# how often the service looks for orphans, and flushes the store if it was written, while it runs
SWEEP_SECONDS = 10.0
ERROR_LOG_SECONDS = 60.0  # a failure of the loop itself is logged at most this often


class SnapshotService:
    """Answers checkpoint requests for ``store`` (the process that holds it runs this)."""

    def __init__(self, store: EmbeddedStore, *, poll: float = 0.1) -> None:
        if store.path is None:
            raise ServiceError("only a store on disk can answer snapshot requests")
        self.store = store
        self.directory = store.path / DIRECTORY
        self.poll = poll
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gqa-snapshots", daemon=True)
        self._logged_at = -math.inf

    def start(self) -> SnapshotService:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._remove_stale()
        self.remove_orphans()  # an earlier run's: no asker waits for them any more
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        # empty, the folder goes too: it stayed in the store after serve stopped (explore57
        # F5), where it says a process takes requests. A request or checkpoint in it keeps it.
        with contextlib.suppress(OSError):
            self.directory.rmdir()

    def _run(self) -> None:
        """Answer requests until closed. Nothing a request or the folder raises ends the
        thread: it died of a full disk or EMFILE, and every later export, check or progress
        waited 30 s and failed until a restart (explore52 F7)."""
        swept = time.monotonic()
        while not self._stop.wait(self.poll):
            try:
                requests = sorted(self.directory.glob("*.request"))
            except Exception as err:  # EMFILE: no descriptor to list the folder with
                self._log_error("cannot list snapshot requests", err)
                continue
            for request in requests:
                try:
                    self.answer(request)
                except Exception as err:  # answered if at all possible, the thread lives on
                    self._log_error(f"snapshot request {request.name} failed", err)
            if time.monotonic() - swept >= SWEEP_SECONDS:
                swept = time.monotonic()
                try:
                    self.remove_orphans()
                except Exception as err:
                    self._log_error("cannot remove orphaned snapshots", err)
                try:  # the write-ahead logs grew until the store was reopened (explore57 F1)
                    self.store.flush_written()
                except Exception as err:  # a full disk: the writes are in the log meanwhile
                    self._log_error("cannot flush the store", err)

    def answer(self, request: Path) -> None:
        """Take the checkpoint ``request`` asks for, or tell its asker why not: the reason in
        ``{nonce}.failed``, or that file empty where even the reason cannot be written (a
        full disk has room for an empty file more often than for its text)."""
        nonce = request.name.removesuffix(".request")
        target = self.directory / nonce
        try:
            try:
                self.store.backup(target)
            except Exception as err:  # the asker is told why, and it is logged here
                log.warning("snapshot %s failed: %s", nonce, err)
                _remove(target)  # a checkpoint cut short pins what it linked
                failed = self.directory / f"{nonce}.failed"
                try:
                    failed.write_text(str(err), encoding="utf-8")
                except OSError:
                    failed.unlink(missing_ok=True)
                    failed.touch()
            else:
                (self.directory / f"{nonce}.ready").touch()
        finally:
            request.unlink(missing_ok=True)  # never asked again, answered or not

    def remove_orphans(self, now: float | None = None) -> None:
        """Remove the requests, answers and answered checkpoints no asker waits for any more
        (older than :data:`ORPHAN_SECONDS`); a checkpoint whose ``.ready`` its asker took is
        being read, and stays until it is released (or :data:`STALE_SECONDS`)."""
        now = time.time() if now is None else now
        for path in self.directory.glob("*.*"):
            try:
                if now - path.stat().st_mtime <= ORPHAN_SECONDS:
                    continue
            except FileNotFoundError:
                continue  # its asker took it meanwhile
            nonce, _, kind = path.name.partition(".")
            if kind == "ready":  # answered, never taken: the checkpoint is no one's
                _remove(self.directory / nonce)
                log.info("snapshot %s: removed, its asker did not take it", nonce)
            if kind in ("request", "ready", "failed"):
                path.unlink(missing_ok=True)

    def _log_error(self, what: str, err: BaseException) -> None:
        now = time.monotonic()
        if now - self._logged_at >= ERROR_LOG_SECONDS:
            self._logged_at = now
            log.error("%s: %s (the snapshot service goes on)", what, err)

    def _remove_stale(self) -> None:
        now = time.time()
        for path in self.directory.iterdir():
            if now - path.stat().st_mtime > STALE_SECONDS:
                _remove(path)


def request_checkpoint(store_dir: Path, *, timeout: float = ASK_SECONDS) -> Path:
    """Ask the process holding ``store_dir`` for a checkpoint; its directory (the caller
    removes it with :func:`release`). StoreBusy when no one answers within ``timeout``."""
    directory = store_dir / DIRECTORY
    if not directory.is_dir():
        raise StoreBusy(
            f"the store at {store_dir} is in use by another process that takes no snapshot "
            "requests (a running `gerbil-qa evaluate --store`?); try again when it is done"
        )
    nonce = secrets.token_hex(8)
    request = directory / f"{nonce}.request"
    try:
        request.write_bytes(b"")
    except FileNotFoundError:  # the folder went with the service: it stopped just now
        raise StoreBusy(
            f"the process that held the store at {store_dir} stopped while asked for a "
            "snapshot: try again"
        ) from None
    ready, failed = directory / f"{nonce}.ready", directory / f"{nonce}.failed"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready.exists():
            ready.unlink()
            return directory / nonce
        if failed.exists():
            reason = failed.read_text(encoding="utf-8")
            failed.unlink()
            raise _not_taken(store_dir, reason)
        time.sleep(0.05)
    request.unlink(missing_ok=True)
    raise StoreBusy(
        f"the store at {store_dir} is in use by another process, which did not answer a "
        f"snapshot request within {timeout:g} s"
    )


def _not_taken(store_dir: Path, reason: str) -> ServiceError:
    """The service's answer that it could not take the checkpoint, in words: a full disk as
    one (it was RocksDB's text), an empty reason as what it likely means."""
    if not reason.strip():
        reason = (
            "it could not write why either, which a full disk does: see that the device "
            f"holding {store_dir} has free space, and retry"
        )
    elif no_room(OSError(reason)):
        reason = str(store_has_no_room(OSError(reason), store_dir))
    return ServiceError(f"the server holding {store_dir} could not make a snapshot: {reason}")


def release(checkpoint: Path) -> None:
    _remove(checkpoint)


@contextmanager
def consistent_storage(location: str | Path, *, base: str | None = None) -> Iterator[Storage]:
    """The store at ``location`` for reading: opened as usual, or, when a running service
    holds it, a checkpoint the service takes now (read-only, as it was at that moment)."""
    from service.graph.remote import is_remote
    from service.graph.store import open_checkpoint, open_storage

    # it only reads: a location without a store is refused, not made one (explore-12 #3), and
    # nothing is written to it (explore20 #12)
    if is_remote(str(location)):  # no directory lock: every process reads the store itself
        with open_storage(str(location), base=base, read_only=True) as remote:
            yield remote
        return
    try:
        storage: Storage | None = open_storage(Path(location), base=base, read_only=True)
    except StoreBusy:
        storage = None
    if storage is not None:
        with storage:
            yield storage
        return
    checkpoint = request_checkpoint(Path(location))
    try:
        with open_checkpoint(checkpoint) as snapshot:
            yield snapshot
    finally:
        release(checkpoint)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
