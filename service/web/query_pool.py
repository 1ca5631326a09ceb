"""Run public SPARQL queries in worker processes that can be killed at the time limit.

pyoxigraph cannot cancel a running query (and a result iterator must be consumed on the thread
that ran it), so a query that runs too long can only be stopped by ending the process running
it. Each worker opens a read-only snapshot of the public view (see ``public_view.py``), runs one
query at a time, serialises the result itself (so the result-size limit is checked while
writing) and sends back bytes. On timeout the parent kills the worker with SIGKILL and starts a
replacement in the background, so other queries keep being answered.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from service.errors import ServiceError

log = logging.getLogger(__name__)

# spawn, not fork: the parent is a threaded server holding an open RocksDB; forking it would
# copy locks held by other threads.
_CONTEXT = multiprocessing.get_context("spawn")

MEMORY_CHECK = 0.02  # seconds between checks of a running query's resident memory
# The workers' address-space backstop, on top of the limit: thread stacks and malloc arenas
# reserve ~0.5-1.5 GB of address space whatever a query uses.
ADDRESS_SPACE_SLACK_MB = 2048


@dataclass(frozen=True, slots=True)
class QueryJob:
    """One query as the endpoint decided to run it.

    Without protocol dataset parameters the query runs on the snapshot's own dataset: its
    default graph is the union of the public graphs (the graph layer keeps it so) unless the
    query names its dataset with ``FROM``/``FROM NAMED``. ``default_graphs``/``named_graphs``
    are the protocol's ``default-graph-uri``/``named-graph-uri``: when either is given they
    replace the whole dataset (SPARQL 1.1 Protocol §2.1.4), an absent one meaning empty.
    ``results_format``/``rdf_format`` are pyoxigraph format member names for SELECT/ASK and for
    CONSTRUCT/DESCRIBE; ``None`` means the client accepts no such format (answered with 406).
    """

    query: str
    base_iri: str | None = None
    default_graphs: tuple[str, ...] | None = None
    named_graphs: tuple[str, ...] | None = None
    results_format: str | None = "JSON"
    rdf_format: str | None = "TURTLE"
    max_bytes: int = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class DocumentJob:
    """The RDF document of a public resource (``describe.document_quads`` over the snapshot,
    written by ``rdf_out.serialize``), rendered in a worker: those calls hold the GIL for
    each quad Oxigraph decodes, so in the threaded server concurrent documents would take
    turns on one core; in the worker processes they run side by side."""

    uri: str
    syntax: str  # a name of service.mediatypes.RDF_SYNTAXES
    context_url: str
    graph: str | None = None
    follow: tuple[str, ...] = ()
    reverse: tuple[str, ...] = ()
    union: bool = False
    max_bytes: int = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class QueryOutcome:
    """What a worker answered: ``kind`` is ``boolean``, ``solutions`` or ``triples`` for a
    query; ``document`` for a :class:`DocumentJob` (``empty`` when the snapshot has none)."""

    kind: str
    body: bytes
    format: str  # the pyoxigraph format member name used


class QueryTimeout(ServiceError):
    status = 503


class PoolBusy(ServiceError):
    """No worker was free within the wait."""

    status = 503


class _TooLarge(OSError):
    pass


class _LimitedWriter:
    """A binary sink that refuses to grow past ``limit`` bytes (the result-size limit)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0

    def write(self, data: bytes) -> int:
        self.size += len(data)
        if self.size > self.limit:
            raise _TooLarge(f"the result is larger than {self.limit} bytes")
        self.parts.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass


def _run_job(store: Any, job: QueryJob) -> QueryOutcome:
    import pyoxigraph as ox

    kwargs: dict[str, Any] = {"base_iri": job.base_iri}
    if job.default_graphs is not None or job.named_graphs is not None:
        kwargs["default_graph"] = [ox.NamedNode(g) for g in job.default_graphs or ()]
        kwargs["named_graphs"] = [ox.NamedNode(g) for g in job.named_graphs or ()]
    result = store.query(job.query, **kwargs)
    if isinstance(result, ox.QueryTriples):
        kind, fmt_name, fmt = "triples", job.rdf_format, None
        if fmt_name is not None:
            fmt = getattr(ox.RdfFormat, fmt_name)
    else:
        kind = "boolean" if isinstance(result, ox.QueryBoolean) else "solutions"
        fmt_name, fmt = job.results_format, None
        if fmt_name is not None:
            fmt = getattr(ox.QueryResultsFormat, fmt_name)
    if fmt is None or fmt_name is None:
        raise ServiceError(f"no acceptable media type for a {kind} result", status=406)
    sink = _LimitedWriter(job.max_bytes)
    result.serialize(sink, fmt)
    return QueryOutcome(kind=kind, body=b"".join(sink.parts), format=fmt_name)


def _run_document(store: Any, job: DocumentJob) -> QueryOutcome:
    from service.mediatypes import rdf_by_name
    from service.web.describe import document_quads
    from service.web.rdf_out import serialize

    syntax = rdf_by_name(job.syntax)
    if syntax is None:
        raise ServiceError(f"unknown RDF syntax {job.syntax}", status=406)
    quads = document_quads(
        store,
        job.uri,
        graph=job.graph,
        follow=job.follow,
        reverse=job.reverse,
        union=job.union,
    )
    if not quads:
        return QueryOutcome(kind="empty", body=b"", format=job.syntax)
    body = serialize(quads, syntax, context_url=job.context_url)
    if len(body) > job.max_bytes:
        raise _TooLarge(f"the document is larger than {job.max_bytes} bytes")
    return QueryOutcome(kind="document", body=body, format=job.syntax)


def _worker_main(conn: Connection, memory_mb: int = 0) -> None:
    """Child process: open snapshots on demand and answer one job at a time."""
    import resource

    import pyoxigraph as ox

    if memory_mb > 0:
        # A backstop only: the parent stops a worker whose resident memory passes memory_mb
        # (see QueryPool.run). Address space is far larger than what a process uses (thread
        # stacks, malloc arenas), and RocksDB aborts when it cannot start a thread, so a tight
        # address-space limit made ordinary queries fail now and then.
        limit = (memory_mb + ADDRESS_SPACE_SLACK_MB) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    store: Any = None
    opened: str | None = None
    conn.send(("ready", None))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        path, job = message
        try:
            if path != opened:
                store = None
                store = ox.Store.read_only(path)
                opened = path
            run = _run_document if isinstance(job, DocumentJob) else _run_job
            reply: tuple[str, Any] = ("ok", run(store, job))
        except ServiceError as err:
            reply = ("error", (err.status, err.message))
        except SyntaxError as err:
            reply = ("error", (400, f"query syntax error: {err}"))
        except _TooLarge as err:
            reply = ("error", (413, f"{err}; add a LIMIT or ask for less"))
        except (OSError, ValueError, TypeError, RuntimeError) as err:
            # pyoxigraph reports evaluation errors (e.g. a bad IRI in the protocol parameters,
            # a type error in an aggregate) as one of these; the client sees the message.
            reply = ("error", (400, f"query evaluation failed: {err}"))
        conn.send(reply)


class _OverMemory(Exception):
    """A worker's resident memory passed the pool's limit."""


_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _resident_bytes(pid: int | None) -> int:
    """Resident memory of process ``pid`` from Linux's /proc (0 where it cannot be read)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return 0


class _Worker:
    def __init__(self, memory_mb: int = 0) -> None:
        parent, child = _CONTEXT.Pipe()
        self.conn = parent
        self.process = _CONTEXT.Process(
            target=_worker_main, args=(child, memory_mb), name="gerbil-qa-sparql", daemon=True
        )
        self.process.start()
        child.close()
        self.snapshot: str | None = None

    def wait_ready(self, timeout: float) -> bool:
        if not self.conn.poll(timeout):
            return False
        return self.conn.recv() == ("ready", None)

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        self.process.join(5)
        self.conn.close()


class QueryPool:
    """A fixed number of killable query processes over the current public snapshot."""

    def __init__(
        self,
        *,
        size: int = 2,
        timeout: float = 10.0,
        queue_timeout: float = 10.0,
        start_timeout: float = 60.0,
        memory_mb: int = 0,
    ) -> None:
        self.size = max(1, size)
        self.memory_mb = memory_mb
        self.timeout = timeout
        self.queue_timeout = queue_timeout
        self.start_timeout = start_timeout
        self.snapshot: str | None = None
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self.killed = 0  # queries stopped at the time limit, for tests and monitoring
        self.documents = 0  # documents written by the workers, likewise
        workers = [_Worker(memory_mb) for _ in range(self.size)]
        for worker in workers:
            self._adopt(worker)

    def _adopt(self, worker: _Worker) -> None:
        if not worker.wait_ready(self.start_timeout):
            worker.kill()
            raise RuntimeError("a SPARQL worker process did not start")
        with self._lock:
            if self._closed:
                worker.kill()
                return
            self._all.add(worker)
        self._idle.put(worker)

    def _replace(self, worker: _Worker) -> None:
        with self._lock:
            self._all.discard(worker)
            if self._closed:
                return
        worker.kill()

        def start() -> None:
            try:
                self._adopt(_Worker(self.memory_mb))
            except Exception:  # logged, and the pool runs with one worker fewer until restart
                log.exception("could not restart a SPARQL worker")

        threading.Thread(target=start, name="gerbil-qa-sparql-restart", daemon=True).start()

    def set_snapshot(self, path: str) -> None:
        self.snapshot = path

    def pids(self) -> set[int]:
        """Process ids of the live workers (for monitoring and tests)."""
        with self._lock:
            return {w.process.pid for w in self._all if w.process.pid is not None}

    def snapshots_in_use(self) -> set[str]:
        with self._lock:
            return {w.snapshot for w in self._all if w.snapshot}

    def run(self, job: QueryJob | DocumentJob, *, wait: float | None = None) -> QueryOutcome:
        """Run ``job`` in a free worker; raise :class:`QueryTimeout` past the time limit.
        ``wait``: seconds to wait for a free worker (default: the pool's queue timeout)."""
        if self.snapshot is None:
            raise ServiceError("the SPARQL endpoint is starting; try again", status=503)
        try:
            worker = self._idle.get(timeout=self.queue_timeout if wait is None else wait)
        except queue.Empty:
            raise PoolBusy("every SPARQL worker is busy; try again shortly") from None
        started = time.monotonic()
        try:
            worker.snapshot = self.snapshot
            worker.conn.send((self.snapshot, job))
            answered = self._wait(worker, started)
            if answered:
                status, payload = worker.conn.recv()
        except _OverMemory:
            self._replace(worker)
            raise ServiceError(
                f"the query used more than the memory limit of {self.memory_mb} MB and was"
                " stopped; ask for less",
                status=503,
            ) from None
        except (EOFError, OSError):  # the process died: past the address-space backstop
            self._replace(worker)
            raise ServiceError(
                f"the query process ended before answering (exit code {worker.process.exitcode}),"
                " most likely past the memory limit; ask for less",
                status=503,
            ) from None
        if not answered:
            self.killed += 1
            self._replace(worker)
            raise QueryTimeout(
                f"the query ran longer than the limit of {self.timeout:g} s and was stopped"
            )
        self._idle.put(worker)
        log.debug("query answered in %.3f s", time.monotonic() - started)
        if status == "ok":
            if payload.kind == "document":
                self.documents += 1
            return payload
        code, message = payload
        raise ServiceError(message, status=code)

    def _wait(self, worker: _Worker, started: float) -> bool:
        """Whether ``worker`` answered within the time limit; raises :class:`_OverMemory` as
        soon as its resident memory passes the limit (checked every ``MEMORY_CHECK`` s: at
        ~1 GB/s of growth it overshoots by a few tens of MB)."""
        if self.memory_mb <= 0:
            return worker.conn.poll(self.timeout)
        limit = self.memory_mb * 1024 * 1024
        while True:
            left = self.timeout - (time.monotonic() - started)
            if left <= 0:
                return False
            if worker.conn.poll(min(MEMORY_CHECK, left)):
                return True
            if _resident_bytes(worker.process.pid) > limit:
                raise _OverMemory

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            with contextlib.suppress(Exception):
                worker.conn.send(None)
            worker.kill()
