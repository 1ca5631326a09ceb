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
the checkpoint when done. Checkpoints left by an asker that died are removed after an hour.
"""

from __future__ import annotations

import logging
import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from service.errors import ServiceError
from service.graph.embedded import EmbeddedStore, StoreBusy

if TYPE_CHECKING:
    from service.graph.store import Storage

log = logging.getLogger(__name__)

DIRECTORY = ".snapshots"
STALE_SECONDS = 3600.0


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

    def start(self) -> SnapshotService:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._remove_stale()
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.poll):
            for request in sorted(self.directory.glob("*.request")):
                self.answer(request)

    def answer(self, request: Path) -> None:
        nonce = request.name.removesuffix(".request")
        target = self.directory / nonce
        try:
            self.store.backup(target)
        except Exception as err:  # the asker is told why, and it is logged here
            log.warning("snapshot %s failed: %s", nonce, err)
            (self.directory / f"{nonce}.failed").write_text(str(err), encoding="utf-8")
        else:
            (self.directory / f"{nonce}.ready").touch()
        request.unlink(missing_ok=True)

    def _remove_stale(self) -> None:
        now = time.time()
        for path in self.directory.iterdir():
            if now - path.stat().st_mtime > STALE_SECONDS:
                _remove(path)


def request_checkpoint(store_dir: Path, *, timeout: float = 30.0) -> Path:
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
    request.write_bytes(b"")
    ready, failed = directory / f"{nonce}.ready", directory / f"{nonce}.failed"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready.exists():
            ready.unlink()
            return directory / nonce
        if failed.exists():
            reason = failed.read_text(encoding="utf-8")
            failed.unlink()
            raise ServiceError(
                f"the service holding {store_dir} could not take a snapshot: {reason}"
            )
        time.sleep(0.05)
    request.unlink(missing_ok=True)
    raise StoreBusy(
        f"the store at {store_dir} is in use by another process, which did not answer a "
        f"snapshot request within {timeout:g} s"
    )


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
