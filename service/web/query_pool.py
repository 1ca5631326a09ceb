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
import math
import multiprocessing
import os
import signal
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from service.errors import Busy, ServiceError
from service.web.isolation import DEFAULT_MECHANISMS

log = logging.getLogger(__name__)

# spawn, not fork: the parent is a threaded server holding an open RocksDB; forking it would
# copy locks held by other threads.
_CONTEXT = multiprocessing.get_context("spawn")

MEMORY_CHECK = 0.02  # seconds between checks of a running query's resident memory
# The workers' address-space backstop, on top of the limit: thread stacks and malloc arenas
# reserve ~0.5-1.5 GB of address space whatever a query uses.
ADDRESS_SPACE_SLACK_MB = 2048
# Stack of the thread that runs queries in a worker. Oxigraph parses and evaluates by recursion:
# on the 8 MB main thread a chain of 10,000 `1+1+…` or `{} UNION {} …` overflowed it (SIGSEGV);
# with 256 MB, chains filling the 64 KiB query limit run (tests/reliability). Only the pages a
# query touches are resident; the address space is within the backstop's slack.
QUERY_STACK_MB = 256
LONG_SHAPES_KEPT = 4096  # shapes of queries that ran long, remembered (least recent dropped)


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
    raw: bool = False  # the quads as Oxigraph writes N-Quads, for the caller to read back
    skip: tuple[str, ...] = ()
    elsewhere: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class QueryOutcome:
    """What a worker answered: ``kind`` is ``boolean``, ``solutions`` or ``triples`` for a
    query; ``document`` for a :class:`DocumentJob` (``empty`` when the snapshot has none)."""

    kind: str
    body: bytes
    format: str  # the pyoxigraph format member name used


class QueryTimeout(ServiceError):
    status = 503
    log_level = logging.WARNING  # the client's query, not a fault of the server's


class PoolBusy(Busy):
    """No worker was free within the wait: 503 with ``Retry-After`` the time limit, within
    which a running query ends (a harvester's back-off waits for it)."""


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
    body = b"".join(sink.parts)
    if fmt_name in ("XML", "RDF_XML"):  # what XML cannot carry, never written raw
        from service.web.rdf_out import xml_safe

        body = xml_safe(body)
    if fmt_name == "RDF_XML":
        from service.web.rdf_out import refuse_ill_formed

        refuse_ill_formed(body)
    if fmt_name == "TSV":
        body = tsv_line_safe(body)
    return QueryOutcome(kind=kind, body=body, format=fmt_name)


# What a line-splitting reader (Python's str.splitlines: rdflib's TSV results parser) takes for
# a line end besides LF and CR, which the TSV writer already writes \n and \r. A TSV result's
# terms are in Turtle's syntax, so inside a literal or an IRI (the only places these can be) a
# UCHAR escape is the same term (SPARQL 1.1 Query Results CSV and TSV §3; explore31 F5).
_LINE_BREAKERS = {
    c.encode("utf-8"): f"\\u{ord(c):04X}".encode("ascii")
    for c in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
}


def tsv_line_safe(body: bytes) -> bytes:
    """A SPARQL TSV result with every character a line-splitting reader breaks a line at (other
    than the records' own LF) written as a ``\\uXXXX`` escape.

    >>> tsv_line_safe('?o\\n"a\\u2028b\\x85c"\\n'.encode())
    b'?o\\n"a\\\\u2028b\\\\u0085c"\\n'
    """
    for raw, escaped in _LINE_BREAKERS.items():
        if raw in body:
            body = body.replace(raw, escaped)
    return body


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
        skip=job.skip,
        elsewhere=job.elsewhere,
    )
    if not quads:
        return QueryOutcome(kind="empty", body=b"", format=job.syntax)
    if job.raw:
        import pyoxigraph as ox

        body = ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b""
    else:
        body = serialize(quads, syntax, context_url=job.context_url)
    if len(body) > job.max_bytes:
        raise _TooLarge(f"the document is larger than {job.max_bytes} bytes")
    return QueryOutcome(kind="document", body=body, format=job.syntax)


def _worker_main(conn: Connection, memory_mb: int, isolation: tuple[str, ...]) -> None:
    """Child process: cut itself off the network, then open snapshots on demand and answer one
    job at a time, on a thread with a large stack (see ``QUERY_STACK_MB``). Ctrl-C is the
    parent's to handle (it stops the workers): ignored here, each worker printed a
    KeyboardInterrupt traceback into the log (explore49 F4)."""
    import resource

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):  # a closed terminal's, likewise the parent's (explore57 F2)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    cut_off = "off"
    if isolation:  # first, while this process has one thread (a user namespace needs that)
        from service.web.isolation import IsolationError, cut_off_network

        try:
            cut_off = cut_off_network(mechanisms=isolation)
        except IsolationError as err:
            conn.send(("failed", str(err)))
            return
    if memory_mb > 0:
        # A backstop only: the parent stops a worker whose resident memory passes memory_mb
        # (see QueryPool.run). Address space is far larger than what a process uses (thread
        # stacks, malloc arenas), and RocksDB aborts when it cannot start a thread, so a tight
        # address-space limit made ordinary queries fail now and then.
        limit = (memory_mb + ADDRESS_SPACE_SLACK_MB) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    threading.stack_size(QUERY_STACK_MB * 1024 * 1024)
    answering = threading.Thread(target=_answer_jobs, args=(conn, cut_off), name="query")
    answering.start()
    answering.join()


def _answer_jobs(conn: Connection, cut_off: str) -> None:
    import pyoxigraph as ox

    store: Any = None
    opened: str | None = None
    conn.send(("ready", cut_off))
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


class _NoLongSlot(Exception):
    """A query ran past the quick time while every slot for long queries was taken."""


_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _resident_bytes(pid: int | None) -> int:
    """Resident memory of process ``pid`` from Linux's /proc (0 where it cannot be read)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return 0


def death_of(exitcode: int | None) -> str:
    """How a worker process ended, in words (``exitcode`` as ``multiprocessing`` gives it)."""
    if exitcode is None:
        return "its end could not be observed"
    if exitcode >= 0:
        return f"exit code {exitcode}"
    number = -exitcode
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = "unknown signal"
    why = {
        "SIGSEGV": "a crash in the engine, most likely its stack overflowing",
        "SIGABRT": "the engine aborted, most likely an allocation past the address-space limit",
        "SIGKILL": "killed from outside, e.g. by the kernel's out-of-memory killer",
    }.get(name)
    return f"signal {number} ({name}{': ' + why if why else ''})"


class _Worker:
    def __init__(self, memory_mb: int, isolation: tuple[str, ...]) -> None:
        parent, child = _CONTEXT.Pipe()
        self.conn = parent
        self.process = _CONTEXT.Process(
            target=_worker_main,
            args=(child, memory_mb, isolation),
            name="gerbil-qa-sparql",
            daemon=True,
        )
        self.process.start()
        child.close()
        self.snapshot: str | None = None
        self.long = False  # running a query that holds one of the pool's long slots
        self.isolation = ""

    def wait_ready(self, timeout: float) -> None:
        """Wait for the worker's first message; raise ``RuntimeError`` if it did not start."""
        if not self.conn.poll(timeout):
            raise RuntimeError(f"a SPARQL worker process did not start within {timeout:g} s")
        try:
            status, detail = self.conn.recv()
        except (EOFError, OSError):
            self.process.join(1)
            raise RuntimeError(
                f"a SPARQL worker process ended while starting ({death_of(self.process.exitcode)})"
            ) from None
        if status != "ready":
            raise RuntimeError(f"a SPARQL worker process could not start: {detail}")
        self.isolation = detail

    def alive(self) -> bool:
        """Whether the process still runs. Read from its sentinel, a pipe that closes when it
        ends: ``Process.is_alive()`` asks ``waitpid``, and once anything else in this process has
        reaped the child (a ``waitpid`` of its own) it says "alive" for a dead worker forever."""
        return not wait([self.process.sentinel], timeout=0)

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        self.process.join(5)
        self.conn.close()


class QueryPool:
    """A fixed number of killable query processes over the current public snapshot, with a
    lane kept free for quick queries.

    A query runs in any idle worker. Once it has run ``quick_seconds`` it is *long* and must
    hold one of ``long_slots`` slots (at most ``size - 1``): the other workers stay free for
    quick queries whatever long ones arrive (issue 13: four clients sending cartesian products
    made a simple query wait 4-9 s). A query that passes ``quick_seconds`` while every long
    slot is taken is stopped and queued for a slot, to run again from the start; its *shape*
    (see ``sparql_guard.QueryFacts``) is remembered, so that the same query, or one differing
    only in variable names and numbers, waits for a long slot from the start instead of taking
    a quick worker again. At most ``long_waiting`` queries wait for a slot; more are refused at
    once (503), so waiting requests cannot take every HTTP thread.
    """

    def __init__(
        self,
        *,
        size: int = 2,
        timeout: float = 10.0,
        queue_timeout: float = 10.0,
        start_timeout: float = 60.0,
        memory_mb: int = 0,
        long_slots: int | None = None,
        quick_seconds: float = 0.5,
        long_waiting: int = 2,
        isolation: tuple[str, ...] = DEFAULT_MECHANISMS,
    ) -> None:
        self.size = max(1, size)
        # one worker: nothing can be kept free; else at least one worker stays for quick queries
        most = max(1, self.size - 1)
        self.long_slots = most if long_slots is None else max(1, min(most, long_slots))
        self.memory_mb = memory_mb
        self.timeout = timeout
        self.queue_timeout = queue_timeout
        self.start_timeout = start_timeout
        self.quick_seconds = quick_seconds
        self.long_waiting = max(0, long_waiting)
        self.mechanisms = isolation  # isolation.py's mechanisms to try; () for none
        self.snapshot: str | None = None
        self._cond = threading.Condition()
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._long = 0  # workers holding a long slot
        self._waiting_long = 0
        self._long_shapes: OrderedDict[int, None] = OrderedDict()
        self._spare: _Worker | None = None  # started, ready, not in the pool yet
        self._refilling = False
        self._closed = False
        self.isolation = ""  # how the workers are cut off the network ("off" if they are not)
        # for tests and monitoring:
        self.killed = 0  # queries stopped at the time limit
        self.crashed = 0  # workers that died on their own while running a job
        self.requeued = 0  # queries stopped at the quick time and queued for a long slot
        self.documents = 0  # documents written by the workers
        self.queries = 0  # queries answered (the endpoint's and the pages')
        if not isolation:
            log.warning(
                "sparql_network_isolation is off: SPARQL worker processes can reach the network "
                "(only the SERVICE guard stands between a query and an outgoing connection)"
            )
        workers = [_Worker(memory_mb, isolation) for _ in range(self.size)]
        try:
            for worker in workers:
                worker.wait_ready(self.start_timeout)
        except RuntimeError:  # fail closed: no endpoint rather than one without its limits
            for worker in workers:
                worker.kill()
            raise
        for worker in workers:
            self._add(worker)
        self.isolation = workers[0].isolation
        log.info("SPARQL workers: %d, cut off the network by: %s", self.size, self.isolation)
        self._refill()  # the spare

    def _add(self, worker: _Worker) -> None:
        with self._cond:
            self._all.add(worker)
            self._idle.append(worker)
            self._cond.notify_all()

    def _replace(self, worker: _Worker) -> None:
        """Take ``worker`` out (it is killed) and put the spare in its place at once; start
        a new spare in the background (a worker takes ~0.3 s to start: without a spare, every
        query stopped at a limit left the pool a worker short for that long)."""
        with self._cond:
            self._all.discard(worker)
            if worker.long:
                worker.long = False
                self._long -= 1
            spare, self._spare = self._spare, None
            if spare is not None and not self._closed:
                self._all.add(spare)
                self._idle.append(spare)
            self._cond.notify_all()
        worker.kill()
        self._refill()

    def _refill(self) -> None:
        """Start workers in the background until the pool is whole and has its spare."""
        with self._cond:
            if self._refilling or self._closed:
                return
            self._refilling = True
        threading.Thread(
            target=self._refill_loop, name="gerbil-qa-sparql-start", daemon=True
        ).start()

    def _refill_loop(self) -> None:
        while True:
            with self._cond:
                if self._closed or (len(self._all) >= self.size and self._spare is not None):
                    self._refilling = False
                    return
            worker = _Worker(self.memory_mb, self.mechanisms)
            try:
                worker.wait_ready(self.start_timeout)
            except RuntimeError:  # logged; the pool runs a worker short until the next try
                log.exception("could not start a SPARQL worker")
                worker.kill()
                with self._cond:
                    self._refilling = False
                return
            with self._cond:
                if self._closed:
                    keep = False
                elif len(self._all) < self.size:
                    self._all.add(worker)
                    self._idle.append(worker)
                    self._cond.notify_all()
                    keep = True
                elif self._spare is None:
                    self._spare, keep = worker, True
                else:
                    keep = False
            if not keep:
                worker.kill()

    def set_snapshot(self, path: str) -> None:
        self.snapshot = path

    def heal(self) -> int:
        """Replace the idle workers that died (a query would find them so; ``/health`` must
        not wait for one), and return how many workers run."""
        with self._cond:
            dead = [w for w in self._idle if not w.alive()]
            for worker in dead:
                self._idle.remove(worker)
        for worker in dead:
            self._died(worker, while_idle=True)
        with self._cond:
            return sum(1 for w in self._all if w.alive())

    def pids(self) -> set[int]:
        """Process ids of the live workers (for monitoring and tests)."""
        with self._cond:
            return {w.process.pid for w in self._all if w.process.pid is not None}

    def busy_pids(self) -> set[int]:
        """Process ids of the workers running a job now (for monitoring and tests)."""
        with self._cond:
            busy = self._all.difference(self._idle)
            return {w.process.pid for w in busy if w.process.pid is not None}

    def snapshots_in_use(self) -> set[str]:
        """The snapshots a worker is running a job on now. An idle worker's last one is not
        in use: its next job names the current snapshot, which it opens first, so a retired
        one may go (counted, an idle worker pinned it until its next query, a whole copy of
        the public store on a quiet day; explore27 F8)."""
        with self._cond:
            busy = self._all.difference(self._idle)
            return {w.snapshot for w in busy if w.snapshot}

    def _retry_after(self) -> int:
        return max(1, math.ceil(self.timeout))

    def _can_take_long_slot(self) -> bool:
        # the workers neither long nor being restarted must stay >= size - long_slots
        return self._long < self.long_slots and len(self._all) - self._long > (
            self.size - self.long_slots
        )

    def _acquire(self, *, long: bool, wait: float) -> _Worker:
        deadline = time.monotonic() + wait
        with self._cond:
            if long:
                if self._waiting_long >= self.long_waiting and not self._can_take_long_slot():
                    raise PoolBusy(
                        f"this endpoint already runs {self.long_slots} long "
                        f"quer{'y' if self.long_slots == 1 else 'ies'} with "
                        f"{self._waiting_long} more waiting; try again later",
                        retry_after=self._retry_after(),
                    )
                self._waiting_long += 1
            try:
                while True:
                    if self._closed:
                        raise ServiceError("the SPARQL endpoint is shutting down", status=503)
                    if self._idle and (not long or self._can_take_long_slot()):
                        worker = self._idle.pop()
                        if not worker.alive():  # died while idle: replace it
                            self._cond.release()
                            try:
                                self._died(worker, while_idle=True)
                            finally:
                                self._cond.acquire()
                            continue
                        if long:
                            worker.long = True
                            self._long += 1
                        return worker
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise PoolBusy(
                            "every SPARQL worker is busy; try again shortly",
                            retry_after=self._retry_after(),
                        )
                    self._cond.wait(left)
            finally:
                if long:
                    self._waiting_long -= 1

    def _release(self, worker: _Worker) -> None:
        with self._cond:
            if worker.long:
                worker.long = False
                self._long -= 1
            if worker in self._all:
                self._idle.append(worker)
            self._cond.notify_all()

    def run(
        self, job: QueryJob | DocumentJob, *, wait: float | None = None, shape: int | None = None
    ) -> QueryOutcome:
        """Run ``job`` in a worker; raise :class:`QueryTimeout` past the time limit.

        ``wait``: seconds to wait for a worker (default: the pool's queue timeout). ``shape``:
        the query's shape, to remember whether it ran long. A document that runs long while
        the long slots are taken is not run again here (:class:`PoolBusy`: its caller writes
        it itself)."""
        if self.snapshot is None:
            raise ServiceError("the SPARQL endpoint is starting; try again", status=503)
        wait = self.queue_timeout if wait is None else wait
        long = shape is not None and shape in self._long_shapes
        while True:
            worker = self._acquire(long=long, wait=wait)
            try:
                return self._run_in(worker, job, shape)
            except _NoLongSlot:
                if isinstance(job, DocumentJob):
                    raise PoolBusy(
                        "every SPARQL worker is busy; try again shortly",
                        retry_after=self._retry_after(),
                    ) from None
                long = True  # queue for a long slot, run from the start

    def _run_in(
        self, worker: _Worker, job: QueryJob | DocumentJob, shape: int | None
    ) -> QueryOutcome:
        started = time.monotonic()
        try:
            worker.snapshot = self.snapshot
            worker.conn.send((self.snapshot, job))
            answered = self._wait(worker, started, shape)
            if answered:
                status, payload = worker.conn.recv()
        except _NoLongSlot:
            self.requeued += 1
            self._replace(worker)
            raise
        except _OverMemory:
            self._replace(worker)
            raise ServiceError(
                f"the query used more than the memory limit of {self.memory_mb} MB and was"
                " stopped; ask for less",
                status=503,
            ) from None
        except (EOFError, OSError):  # the process died on its own
            death = self._died(worker)
            raise ServiceError(
                f"the query process ended before answering: {death}", status=500
            ) from None
        if not answered:
            self.killed += 1
            self._replace(worker)
            raise QueryTimeout(
                f"the query ran longer than the limit of {self.timeout:g} s and was stopped "
                "(narrow it: a LIMIT, a more selective pattern, no cross product)"
            )
        elapsed = time.monotonic() - started
        if shape is not None and elapsed < self.quick_seconds:
            with self._cond:
                self._long_shapes.pop(shape, None)  # it is quick (now)
        self._release(worker)
        log.debug("query answered in %.3f s", elapsed)
        if status == "ok":
            if payload.kind == "document":
                self.documents += 1
            else:
                self.queries += 1
            return payload
        code, message = payload
        raise ServiceError(message, status=code)

    def _died(self, worker: _Worker, *, while_idle: bool = False) -> str:
        """Record and log how ``worker`` died, start its replacement; the death in words."""
        worker.process.join(2)
        death = death_of(worker.process.exitcode)
        self.crashed += 1
        when = "while idle" if while_idle else "running a job"
        log.error("SPARQL worker %s died %s: %s", worker.process.pid, when, death)
        self._replace(worker)
        return death

    def _wait(self, worker: _Worker, started: float, shape: int | None) -> bool:
        """Whether ``worker`` answered within the time limit. Every ``MEMORY_CHECK`` s: past
        ``quick_seconds`` the query takes a long slot (or :class:`_NoLongSlot`); past the
        memory limit, :class:`_OverMemory` (at ~1 GB/s of growth it overshoots by a few tens
        of MB)."""
        limit = self.memory_mb * 1024 * 1024
        while True:
            elapsed = time.monotonic() - started
            left = self.timeout - elapsed
            if left <= 0:
                return False
            if worker.conn.poll(min(MEMORY_CHECK, left)):
                return True
            if limit and _resident_bytes(worker.process.pid) > limit:
                raise _OverMemory
            if not worker.long and elapsed >= self.quick_seconds:
                self._take_long_slot(worker, shape)

    def _take_long_slot(self, worker: _Worker, shape: int | None) -> None:
        with self._cond:
            if shape is not None:
                self._long_shapes[shape] = None
                self._long_shapes.move_to_end(shape)
                while len(self._long_shapes) > LONG_SHAPES_KEPT:
                    self._long_shapes.popitem(last=False)
            # this worker is not idle, so taking a slot leaves the others as they were
            if self._long < self.long_slots:
                worker.long = True
                self._long += 1
                return
        raise _NoLongSlot

    def close(self) -> None:
        with self._cond:
            self._closed = True
            workers = list(self._all)
            if self._spare is not None:
                workers.append(self._spare)
                self._spare = None
            self._all.clear()
            self._idle.clear()
            self._cond.notify_all()
        for worker in workers:
            with contextlib.suppress(Exception):
                worker.conn.send(None)
            worker.kill()
