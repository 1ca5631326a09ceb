"""Experiments in the background, durably: a small thread pool, the job state of
:mod:`service.experiments.jobs`, and :func:`~service.experiments.run.run_experiment`.

* :meth:`ExperimentRunner.submit` reserves the experiment's id, saves its job (spec and
  uploaded files) and queues it; if saving fails, the experiment ends as ``error`` at once, so
  no id is left reserved or queued without a job;
* while it runs, each answer a service gives is appended to the job's log and the newest
  structured progress is kept beside the job (what :meth:`progress` reads, in constant time);
* at start, experiments a dead process left active are marked ``interrupted`` when their job
  is saved (else ``error``) (:meth:`recover`), and the service queues the interrupted ones again
  (:meth:`resume_interrupted`), so a deploy or a reboot stops no one's run for good; a job its
  process died in more than ``MAX_RESTARTS`` times is left to a person (it may be the cause);
* :meth:`resume` queues an interrupted, cancelled or failed (``error``) job again: the answers
  already logged are reused, only the missing questions are asked, so the result is the one an
  uninterrupted run gives;
* a run that an error of the host stops (an :class:`OSError`: a full disk, too many open
  files) is left ``interrupted``, its message naming the cause and what was being written
  (:mod:`service.shortages`), to be resumed once that is fixed; an end the store cannot take
  (its own disk full) is kept here and written again every :data:`UNENDED_RETRY` seconds, a
  cancel or a resume acting on it meanwhile (it stayed ``running`` for good: explore52 F4);
* :meth:`cancel` also leaves a marker file, so ``gerbil-qa cancel`` can stop a job that a
  server process runs.

On a shared (remote) store several replicas run jobs: each job is claimed before it runs
(:mod:`service.graph.claims`), so it runs once; a replica renews its claims and takes over
(:meth:`take_over`) the jobs whose runner stopped renewing, instead of marking them interrupted;
a job whose runner died in it (its claim left behind, not released) more than ``MAX_RESTARTS``
times ends as ``error``, so one run that kills its process does not take the replicas down in turn.

Only public writes (a publication, a catalogue dataset's questions stored) call
``on_public_change``: progress and results of a private experiment touch no public cache.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from service.errors import Conflict, NotFound, ServiceError
from service.experiments.deletion import finish_deletions
from service.experiments.inputs import Files
from service.experiments.jobs import JobFiles, JobStore, UnreadableJob
from service.experiments.progress import RunProgress
from service.experiments.run import Outcome, run_experiment
from service.experiments.spec import ExperimentSpec
from service.experiments.systems import Aborted, Cancelled, OutOfTime
from service.graph.claims import HOLD, Claims, Hold
from service.graph.experiments import (
    RESUMABLE,
    ClaimLapsed,
    ExperimentStatus,
    Status,
    Ticket,
)
from service.graph.remote import StoreUnavailable
from service.memory import give_back_memory
from service.shortages import WriteFailures, cause, no_space

if TYPE_CHECKING:
    from service.formats.base import Limits
    from service.graph.store import Storage
    from service.systems.safety import NetworkPolicy

log = logging.getLogger(__name__)

PROGRESS_EVERY = 0.5  # seconds between progress writes beside a job
NO_JOB = (
    "its job is not here: the submission did not complete, or the store was restored by "
    "gerbil-qa import from a dump made while it ran (a dump holds no runs in progress)"
)
NOT_KEPT = (
    "its job is not kept in this store (a store restored from a dump holds "
    "no jobs; a backup made by gerbil-qa export --files holds those of cancelled and failed runs)"
)
UNENDED_RETRY = 2.0  # seconds between tries to record the end of a run the store did not take
HANDOVER_WAIT = 20.0  # seconds a shutdown waits for running experiments to stop asking
MAX_RESTARTS = 2  # deaths of the process during a run that a start still resumes by itself


class _RunStop(threading.Event):
    """A run's cancel event, also seen as set once the runner's claim on the run lapsed
    (:mod:`service.graph.claims`): a runner that wakes from a pause past its lease asks, writes
    and records nothing more, whatever step it was at."""

    hold: Hold | None = None
    handed_over = False  # the service is stopping: the run is left to a restart or a replica

    def is_set(self) -> bool:
        return super().is_set() or self.lapsed()

    def wait(self, timeout: float | None = None) -> bool:
        return super().wait(timeout) or self.lapsed()

    def lapsed(self) -> bool:
        return self.hold is not None and not self.hold.holding()


@dataclass(slots=True)
class _Running:
    future: Future[None]
    cancel: _RunStop = field(default_factory=_RunStop)


class QueueFull(Exception):
    """No place in the queue (:meth:`ExperimentRunner.place`): ``waiting`` runs queued,
    running or being submitted."""

    def __init__(self, waiting: int) -> None:
        super().__init__(waiting)
        self.waiting = waiting


class _Place(contextlib.AbstractContextManager[None]):
    """A place taken in a runner's queue (:meth:`ExperimentRunner.place`), given back once."""

    def __init__(self, runner: ExperimentRunner) -> None:
        self._runner: ExperimentRunner | None = runner

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            runner._give_back()


class ExperimentRunner:
    """See the module docstring. Without a workspace (a store in memory) nothing is kept
    beside the store: jobs run, but cannot be resumed after a restart."""

    def __init__(
        self,
        storage: Storage,
        *,
        jobs: JobStore | None = None,
        workers: int = 2,
        policy: NetworkPolicy | None = None,
        on_public_change: Callable[[], object] | None = None,
        recover: bool = True,
        resuming: bool = False,
        limits: Limits | None = None,
        question_budget: int = 0,
        ask_seconds: float = 0,
    ) -> None:
        self.storage = storage
        self.ask_seconds = ask_seconds  # a run's time asking web services (0: no bound)
        self.budget = QuestionBudget(question_budget)
        self.limits = limits  # the format readers' for uploads read in a job (None: the env's)
        workspace = storage.workspace
        if jobs is None and workspace is not None:
            jobs = JobStore(workspace)
        self.jobs = jobs
        self.policy = policy
        self.on_public_change = on_public_change or (lambda: None)
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="gqa-run")
        self._running: dict[str, _Running] = {}
        self._progress: dict[str, RunProgress] = {}
        self._lock = threading.Lock()
        self._places = 0  # places taken by submissions still being prepared (:meth:`place`)
        self.claims = Claims(storage.store, storage.uris)
        self._unreleased: set[str] = set()  # claims a store away kept from being released
        # for /metrics: runs taken over from a stopped replica, left at a shutdown, stopped
        # because this runner's claim lapsed
        self.taken_over = self.handed_over = self.lapsed = 0
        self._left_to_others: set[str] = set()  # orphans whose services this one may not ask
        # the shared graphs (vocabulary, catalogue) another release has replaced since this
        # one loaded them, as said (what /health reports; explore50 F2)
        self.foreign_graphs: list[str] = []
        self._stop = threading.Event()
        self.write_failures = WriteFailures()  # full-disk errors met (for /health)
        # runs ended whose end the store could not take (a full disk): status and message,
        # written again every UNENDED_RETRY seconds (and before a resume) until it takes them
        self._unended: dict[str, tuple[Status, str]] = {}
        self._unended_retry: threading.Thread | None = None
        # the start resumes what recover() marks (resume_interrupted follows): their status
        # says so, not "resume it to continue" (explore58 F3)
        self.resuming = resuming
        if recover:
            self.recover()
        if self.claims.shared:  # replicas: keep our claims alive, take over the dead ones'
            # two threads: a take-over (claims settle, runs are resumed) must not hold up the
            # heartbeat past the time the claims are held for (HOLD of the lease)
            for task, name in (
                (self.claims.beat, "gqa-heartbeat"),
                (self.take_over, "gqa-takeover"),
                (self.check_shared_graphs, "gqa-shared-graphs"),
            ):
                threading.Thread(
                    target=self._every_beat, args=(task,), name=name, daemon=True
                ).start()

    # -- what the API and the command line call ----------------------------------------------
    def submit(
        self,
        spec: ExperimentSpec,
        *,
        uploads: Mapping[str, bytes] | None = None,
        files: Files | None = None,
        summary: str | None = None,
    ) -> Ticket:
        """Reserve an id, save the job (``uploads``: file bytes by SHA-256) and queue it.
        ``files`` may carry what a submission already parsed, so it is not parsed again."""
        experiments = self.storage.experiments
        blobs = dict(uploads or {})
        ticket = experiments.reserve(summary=summary or spec.summary())
        try:
            if self.jobs is not None:
                self.jobs.create(ticket.id, spec, blobs)
            experiments.set_status(ticket.id, Status.QUEUED)
        except OSError as err:  # a full disk: nothing is left, the submitter is told why
            self.write_failures.note(err)
            self._unreserve(ticket.id, err)
            raise
        except BaseException as err:
            experiments.set_status(
                ticket.id, Status.ERROR, message=f"the submission could not be saved: {err}"
            )
            raise
        self._queue(ticket, spec, files or self._files(ticket.id, blobs))
        return ticket

    def _unreserve(self, experiment_id: str, err: OSError) -> None:
        """Remove an experiment whose job could not be saved, and what was saved of it: it was
        left ``error`` ("could not be saved: [Errno 28] …") under an id its submitter was never
        told (explore52 F11). If the store cannot take that either, it is marked so, if it can."""
        try:
            if self.jobs is not None:
                self.jobs.remove(experiment_id)
            self.storage.experiments.discard(experiment_id)
        except Exception as again:
            log.warning("experiment %s: its reservation is not removed: %s", experiment_id, again)
            with contextlib.suppress(Exception):
                self.storage.experiments.set_status(
                    experiment_id,
                    Status.ERROR,
                    message=f"the submission could not be saved: {cause(err)}",
                )
        else:
            log.warning("experiment %s: not saved, removed: %s", experiment_id, err)

    def run_now(self, spec: ExperimentSpec, *, summary: str | None = None) -> Ticket:
        """Run ``spec`` in this thread and record it (the demo at first start)."""
        ticket = self.storage.experiments.reserve(summary=summary or spec.summary())
        self.storage.experiments.set_status(ticket.id, Status.RUNNING)
        try:
            outcome = run_experiment(spec, storage=self.storage, ticket=ticket, policy=self.policy)
        except BaseException as err:
            self.storage.experiments.set_status(ticket.id, Status.ERROR, message=str(err))
            raise
        if outcome.public_changed:
            self.on_public_change()
        return ticket

    def resume(self, experiment_id: str, *, timeout: float | None = None) -> ExperimentSpec:
        """Queue an interrupted, cancelled or failed experiment again (NotFound, Conflict);
        ``timeout`` replaces the seconds per web-service call it was submitted with."""
        experiments = self.storage.experiments
        self._record_unended(experiment_id)  # an end the store did not take yet (or OSError)
        status = experiments.status(experiment_id)
        if not status.status.resumable:
            names = ", ".join(s.value for s in RESUMABLE)
            raise Conflict(
                f"experiment {experiment_id} {status.status.said}; only {names} experiments "
                "can be resumed"
            )
        if self.jobs is not None and self.jobs.has(experiment_id):
            if newer := self.jobs.newer(experiment_id):
                if self.jobs.damaged_mark(experiment_id) is not None:  # no release takes it
                    raise Conflict(f"experiment {experiment_id} cannot be resumed: {newer}")
                raise Conflict(
                    f"experiment {experiment_id} cannot be resumed here: {newer}; resume it "
                    "on a replica of that release or a newer one"
                )
            if gone := self._headers_gone(experiment_id):
                raise Conflict(
                    f"experiment {experiment_id} cannot be resumed: {gone}; submit the "
                    "experiment again with them"
                )
            self.jobs.clear_restarts(experiment_id)  # a person's resume: starts resume it again
        return self._requeue(experiment_id, status.uri, timeout=timeout, message="resumed")

    def _requeue(
        self,
        experiment_id: str,
        uri: str,
        *,
        timeout: float | None = None,
        message: str,
        status: Status = Status.QUEUED,
    ) -> ExperimentSpec:
        """Queue a saved job here again (with ``status`` and ``message``)."""
        if self.jobs is None or not self.jobs.has(experiment_id):
            reason = self.unresumable(experiment_id) or NOT_KEPT
            raise Conflict(
                f"experiment {experiment_id} has no saved job, nothing to resume: {reason}; "
                "submit it again as a new experiment"
            )
        spec = self.jobs.spec(experiment_id)
        if timeout is not None:
            spec = replace(spec, options=replace(spec.options, timeout=timeout))
        self.jobs.clear_cancel(experiment_id)
        self.jobs.clear_stopping(experiment_id)  # it runs again: a death from now counts
        self.storage.experiments.set_status(experiment_id, status, message=message)
        self._queue(Ticket(experiment_id, uri, ""), spec, self._files(experiment_id, {}))
        return spec

    def cancel(self, experiment_id: str) -> bool:
        """Ask a queued or running job to stop; True if it was still active, here or on
        another replica of the store (which reads the request at its next question)."""
        with self._lock:
            running = self._running.get(experiment_id)
            unended = self._unended.get(experiment_id)
        if unended is not None and unended[0] is Status.CANCELLED:
            # cancelled already, its end not taken yet: nothing to stop, and the message said
            # once (a cancel each time said True and nested "cancelled after cancelled after
            # …": explore66 F7)
            return False
        if unended is not None:
            # its run stopped on an error whose end the store did not take (a full disk): the
            # cancel is its end now, recorded when the store takes it (was 200 and nothing),
            # and its marker kept for a restart before that (:meth:`recover`), if it can be.
            # Its thread may not have returned yet (its future not done): the end is taken, so
            # the run is over (asked only of done futures, a cancel in that moment was a stop
            # request to a run that had stopped, and the run stayed `interrupted`: a CI flake)
            if self.jobs is not None and self.jobs.has(experiment_id):
                with contextlib.suppress(OSError):
                    self.jobs.request_cancel(experiment_id)
            self._end(experiment_id, Status.CANCELLED, f"cancelled after {unended[1]}")
            return True
        requested = self.jobs is not None and self.jobs.has(experiment_id)
        if self.jobs is not None and requested:
            try:
                self.jobs.request_cancel(experiment_id)
            except OSError:  # a full disk: a run here stops by its event, an interrupted one
                # is ended below; one running elsewhere needs the marker
                here = running is not None and not running.future.done()
                stopped = self.storage.experiments.status(experiment_id).status
                if not here and stopped is not Status.INTERRUPTED:
                    raise
                log.warning("experiment %s: no cancel marker written", experiment_id)
        if running is None or running.future.done():
            self._cancel_interrupted(experiment_id)
            elsewhere = self.storage.experiments.status(experiment_id).status
            return requested and elsewhere in (Status.QUEUED, Status.RUNNING)
        running.cancel.set()
        if running.future.cancel():  # never started
            self.storage.experiments.set_status(
                experiment_id, Status.CANCELLED, message="cancelled before it ran"
            )
        return True

    def _cancel_interrupted(self, experiment_id: str) -> None:
        """An interrupted run runs nowhere, so no runner sees a request to stop: it is ended
        as cancelled here, else the next start resumed it (:meth:`resume_interrupted`)."""
        experiments = self.storage.experiments
        if experiments.status(experiment_id).status is Status.INTERRUPTED:
            # a store that cannot take it now (a full disk) takes it later (:meth:`_end`)
            self._end(experiment_id, Status.CANCELLED, "cancelled while interrupted")

    def wait(self, experiment_id: str, timeout: float | None = None) -> None:
        """Block until the job is done (tests, the command line)."""
        with self._lock:
            running = self._running.get(experiment_id)
        if running is not None:
            running.future.result(timeout)

    def ahead(self, experiment_id: str) -> int | None:
        """How many runs queued here wait before ``experiment_id`` (the pool takes them in
        submission order); None when it is not waiting here."""
        with self._lock:
            waiting = [
                k for k, v in self._running.items() if not (v.future.running() or v.future.done())
            ]
        return waiting.index(experiment_id) if experiment_id in waiting else None

    def active(self) -> list[str]:
        with self._lock:
            return [k for k, v in self._running.items() if not v.future.done()]

    def place(self, limit: int) -> _Place:
        """Take a place in this process's queue for one submission, held while it is
        prepared and queued (``with runner.place(limit): ...``, given back when the block
        ends: the run is counted by :meth:`active` by then, or it was refused). Runs queued or
        running here plus the places already taken are counted and this one taken under one
        lock, so submissions arriving together cannot all pass the count before any is queued
        (10 at once with a limit of 2 made 8 runs: explore58 F1); their parsing runs outside
        the lock. ``limit`` 0: no bound. Raises :class:`QueueFull` when there is no room."""
        with self._lock:
            waiting = sum(1 for v in self._running.values() if not v.future.done())
            if limit and waiting + self._places >= limit:
                raise QueueFull(waiting + self._places)
            self._places += 1
        return _Place(self)

    def _give_back(self) -> None:
        with self._lock:
            self._places -= 1

    def progress(self, experiment_id: str) -> RunProgress | None:
        """The newest structured progress: from memory while it runs here, else the small
        file beside its job; None when there is none. Never reads the job itself."""
        with self._lock:
            found = self._progress.get(experiment_id)
        if found is None and self.jobs is not None:
            found = self.jobs.progress(experiment_id)
        return found

    def recover(self) -> list[str]:
        """Mark experiments a dead process left active: ``interrupted`` when their job is
        saved (resume it), else ``error`` (the submission never completed). Jobs of recorded
        experiments are dropped. Returns the ids marked interrupted."""
        experiments = self.storage.experiments
        marked: list[str] = []
        mine = set(self.active())
        self._drop_recorded_jobs()
        finish_deletions(self.storage)  # a deletion a crash stopped before its files went
        if self.claims.shared:  # other replicas may be running them: see take_over()
            return marked
        for status in experiments.listing(include_private=True):
            eid = status.id
            if status.status.active and eid not in mine:
                if self.jobs is not None and self.jobs.has(eid):
                    # its process died while it ran, unless a shutdown was handing it over
                    # (a deploy's kill after its grace period: not the run's doing)
                    if self.jobs.cancel_requested(eid):  # a cancel the store did not take
                        # before the process stopped (a full disk): it was resumed, forgotten
                        experiments.set_status(
                            eid, Status.CANCELLED, message="cancelled while it was stopped"
                        )
                        continue
                    if status.status is Status.RUNNING and not self.jobs.stopping(eid):
                        self.jobs.count_restart(eid)
                    self.jobs.clear_stopping(eid)
                    experiments.set_status(
                        eid, Status.INTERRUPTED, message=self._restart_message(eid, status.status)
                    )
                    marked.append(eid)
                else:
                    experiments.set_status(eid, Status.ERROR, message=self._no_job(eid))
        return marked

    def _restart_message(self, experiment_id: str, was: Status) -> str:
        """What an experiment a restart stopped (``was``: queued or running) says when
        :meth:`recover` marks it: resumed by this start when it will be (``resuming``, and
        :meth:`resume_interrupted` takes it), else how its owner resumes it. Each queued run
        said "interrupted …; resume it to continue (gerbil-qa resume …)", then was resumed
        half a second later (explore58 F3)."""
        assert self.jobs is not None
        stopped = (
            "queued when the service stopped, not started"
            if was is Status.QUEUED
            else "interrupted by a restart"
        )
        resumed = (
            self.resuming
            and not self.jobs.newer(experiment_id)
            and self.jobs.restarts(experiment_id) <= MAX_RESTARTS
        )
        if resumed:
            return f"{stopped}; queued again as the service starts"
        return (
            f"{stopped}; resume it to continue "
            f"(gerbil-qa resume --store DIR {experiment_id}, or the API)"
        )

    def resume_interrupted(self) -> list[str]:
        """Queue the interrupted experiments whose job is saved again (the service's start,
        after :meth:`recover`): a shutdown or a crash interrupted them, not their owner. One
        whose process died while it ran more than ``MAX_RESTARTS`` times ends as ``error``
        instead, saying so: resuming it by hand tries again. Not on a shared store, where
        :meth:`take_over` resumes what a stopped replica ran. Returns the ids queued."""
        if self.claims.shared or self.jobs is None:
            return []
        queued: list[str] = []
        mine = set(self.active())
        for status in self.storage.experiments.listing(include_private=True):
            eid = status.id
            if status.status is not Status.INTERRUPTED or eid in mine or not self.jobs.has(eid):
                continue
            if newer := self.jobs.newer(eid):  # a rollback: left interrupted for the newer
                log.warning("experiment %s not resumed: %s", eid, newer)
                continue
            if self.jobs.cancel_requested(eid):  # its owner's cancel the store did not take
                # before the process stopped (a full disk): it was resumed, the cancel forgotten
                self._end(eid, Status.CANCELLED, "cancelled while it was stopped")
                continue
            deaths = self.jobs.restarts(eid)
            if deaths > MAX_RESTARTS:
                self._end(eid, Status.ERROR, _too_many_restarts(eid, deaths))
                continue
            try:
                self._requeue(eid, status.uri, message="resumed when the service started again")
            except (Conflict, NotFound) as err:  # ended or deleted meanwhile (the CLI)
                log.info("experiment %s not resumed: %s", eid, err)
                continue
            except Exception as err:  # its job unreadable here (a newer version's spec, cut
                # short): ended saying why, not raised, or one job kept the service from starting
                log.warning("experiment %s not resumed: %s", eid, err)
                why = err.message if isinstance(err, ServiceError) else f"its job: {err}"
                self._end(eid, Status.ERROR, f"not resumed at start: {why}")
                continue
            queued.append(eid)
            log.info("experiment %s: resumed at start", eid)
        return queued

    def unresumable(self, experiment_id: str) -> str | None:
        """Why a resume of ``experiment_id`` would be refused (no saved job, or its secret
        headers gone); None when it can resume (what its owner's page asks before it offers
        the Resume button)."""
        if self.jobs is not None and self.jobs.has(experiment_id):
            return self._headers_gone(experiment_id)
        return self._no_job(experiment_id, NOT_KEPT)

    def _headers_gone(self, experiment_id: str) -> str | None:
        """That a service of its saved job lacks the secret headers it was submitted with
        (their values end with the run that was given them), or None."""
        assert self.jobs is not None
        for system in self.jobs.spec(experiment_id).systems:
            if gone := getattr(system, "headers_gone", lambda: None)():
                return str(gone)
        return None

    def _no_job(self, experiment_id: str, usual: str = NO_JOB) -> str:
        """Why ``experiment_id`` has no job to run: ``usual``, or that an older version saved
        it (an upgrade stopped its run)."""
        legacy = self.jobs.legacy(experiment_id) if self.jobs is not None else None
        return legacy or usual

    def _drop_recorded_jobs(self) -> None:
        """Jobs of experiments already recorded: a runner killed between its record and its
        job's removal left them."""
        jobs = self.jobs
        if jobs is None:
            return
        for eid in jobs.ids():
            with contextlib.suppress(NotFound):
                if self.storage.experiments.status(eid).status is Status.FINISHED:
                    jobs.remove(eid)

    def take_over(self) -> list[str]:
        """On a shared store: resume the experiments whose runner died (their claim not renewed
        for the lease time, :mod:`service.graph.claims`). Returns the ids taken over."""
        self._release_left()
        taken = []
        mine = set(self.active())
        for eid in self.claims.orphans():
            if eid in mine or self.jobs is None:
                continue
            refused = self._cannot_reach(eid)
            if refused is None and (newer := self.jobs.newer(eid)):  # a rolling upgrade
                refused = (
                    newer
                    if self.jobs.damaged_mark(eid) is not None
                    else f"{newer}; a replica of that release or a newer one takes it over"
                )
            if refused is not None:  # another replica may (settings differ during a rollout)
                if eid not in self._left_to_others:
                    log.warning("experiment %s left to another replica: %s", eid, refused)
                    self._left_to_others.add(eid)
                continue
            # a claim left on an orphan is its dead runner's: a runner that stopped on purpose
            # (a shutdown, the store away) released it. Read before claiming it ourselves:
            # replicas that lose the claim release the dead claims with theirs.
            died = self.claims.claimed(self._uri(eid)) and not self.jobs.stopping(eid)
            if not self.claims.claim(self._uri(eid)):
                continue
            try:
                if not self.jobs.has(eid):
                    self._end(eid, Status.ERROR, self._no_job(eid))
                    continue
                status = self.storage.experiments.status(eid)
                if status.status not in (Status.RUNNING, Status.QUEUED):
                    raise Conflict(f"experiment {eid} is {status.status} now")
                if died and status.status is Status.RUNNING:  # as recover() counts at a start
                    deaths = self.jobs.count_restart(eid)
                    if deaths > MAX_RESTARTS:  # it may be what kills the replicas in turn
                        self._end(eid, Status.ERROR, _too_many_restarts(eid, deaths))
                        self.claims.release(self._uri(eid))
                        continue
                # queued here at once, its status as its runner left it (queued: its replica
                # stopped before claiming it); never shown "interrupted" on the way, which
                # pollers took for the run's end (a flaky take-over test saw it)
                message = "taken over from a runner that stopped"
                self._requeue(eid, status.uri, message=message, status=status.status)
                taken.append(eid)
                self.taken_over += 1
                log.info("experiment %s: taken over from a runner that stopped", eid)
            except (Conflict, NotFound) as err:  # it moved on meanwhile
                log.info("experiment %s not taken over: %s", eid, err)
                self.claims.release(self._uri(eid))
        return taken

    def check_shared_graphs(self) -> list[str]:
        """On a shared store: whether a replica of another release has put its own vocabulary
        or catalogue in place of this one's (it does so when it starts), said once each time it
        changes (:attr:`foreign_graphs`)."""
        found = self.storage.catalogue.foreign_graphs()
        if found and found != self.foreign_graphs:
            log.warning(
                "%s: a replica of another release started on this store and replaced it; this "
                "replica now serves that release's terms and catalogue while it scores with "
                "its own (restart it to put its own back, or upgrade every replica together: "
                "README, Rolling upgrades)",
                "; ".join(found),
            )
        self.foreign_graphs = found
        return found

    def _cannot_reach(self, experiment_id: str) -> str | None:
        """Why this replica's network policy refuses a service of the run (None: it may ask
        them all): a replica without the others' GERBIL_QA_ALLOW_NETWORKS took over a killed
        one's run and ended it ``error``, telling its submitter to change a server setting."""
        from service.systems.safety import UnsafeURL

        if self.policy is None or self.jobs is None or not self.jobs.has(experiment_id):
            return None
        try:
            spec = self.jobs.spec(experiment_id)
        except (ServiceError, ValueError, KeyError):  # unreadable: the take-over says why
            return None
        for system in spec.systems:
            url = getattr(system, "url", None)
            if url is None:
                continue
            try:
                self.policy.check_url(url)
            except UnsafeURL as err:
                return f"system {system.name!r}: {err}"
            except OSError:  # a name that does not resolve here: the run says so if it runs
                continue
        return None

    def _every_beat(self, task: Callable[[], object]) -> None:
        """``task`` at once, then every lease/3 until closed (the store may be away for a
        while: a failure is logged and the next round tries again)."""
        name, failing = threading.current_thread().name, False
        while True:
            try:
                task()
            except Exception as err:  # said once, and once when it works again: every round
                if not failing:  # was two lines a replica, ~720 an hour in an outage
                    log.warning("%s failed (said again when it works): %s", name, err)
                failing = True
            else:
                if failing:
                    log.warning("%s works again", name)
                failing = False
            if self._stop.wait(self.claims.lease / 3):
                return

    def close(self, wait: float = HANDOVER_WAIT) -> None:
        """Stop (a shutdown, e.g. a deploy): running experiments stop asking and are handed
        over, not cancelled: on a shared store another replica takes them over at once (their
        claims released), else they are marked ``interrupted`` to be resumed; queued ones stay
        queued. Waits up to ``wait`` seconds for the runs to stop (calls in flight are hung up
        after a second)."""
        self._stop.set()
        with self._lock:
            running = list(self._running.items())
        # not those ended; the queued ones apart: they stay queued (the log said all 10 were
        # "running experiment(s) handed over" when 8 had not started: explore58 F3)
        going = [eid for eid, each in running if each.future.running()]
        waiting = [
            eid for eid, each in running if not (each.future.running() or each.future.done())
        ]
        said = []  # a clean stop told from a crash, and where its runs went
        if going:
            said.append(f"{len(going)} running experiment(s) handed over ({', '.join(going)})")
        if waiting:
            # the stop does not know the next start's options (--no-resume leaves them)
            after = (
                "a replica takes them"
                if self.claims.shared
                else "a start that resumes runs takes them"
            )
            said.append(
                f"{len(waiting)} queued experiment(s) not started, {after} ({', '.join(waiting)})"
            )
        if said:
            log.info("stopping: %s", "; ".join(said))
        for eid, each in running:
            if self.jobs is not None and not each.future.done():
                with contextlib.suppress(Exception):  # a store away: a kill then counts
                    self.jobs.mark_stopping(eid)
            each.cancel.handed_over = True
            each.cancel.set()
        self._pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + wait
        for _, each in running:
            with contextlib.suppress(Exception):  # it ended as it ended; only the wait matters
                each.future.result(timeout=max(0.0, deadline - time.monotonic()))

    # -- running -----------------------------------------------------------------------------
    def _files(self, experiment_id: str, blobs: Mapping[str, bytes]) -> Files:
        if blobs or self.jobs is None:
            return Files(dict(blobs), limits=self.limits)
        return Files(self.jobs.files_of(experiment_id).blob, limits=self.limits)

    def _queue(self, ticket: Ticket, spec: ExperimentSpec, files: Files) -> None:
        with self._lock:
            running = _Running(future=Future())
            self._running.pop(ticket.id, None)  # a resumed run: at the end, in queue order
            self._running[ticket.id] = running
            running.future = self._pool.submit(self._guarded, ticket, spec, files, running.cancel)

    def _guarded(
        self, ticket: Ticket, spec: ExperimentSpec, files: Files, cancel: _RunStop
    ) -> None:
        eid, uri = ticket.id, ticket.uri or self._uri(ticket.id)
        if not self.claims.claim(uri):  # another replica runs it
            log.info("experiment %s is run by %s", eid, self.claims.holder(uri))
            return
        cancel.hold = self.claims.hold(uri)
        writer = self._progress_writer(eid, cancel.lapsed)
        try:
            if self.jobs is not None and self.jobs.has(eid):
                if newer := self.jobs.newer(eid):  # queued here before a newer one wrote it
                    raise UnreadableJob(newer)
                self.jobs.mark_schema(eid)  # what this release writes into it from now on
            outcome = self._execute(ticket, spec, files, cancel, writer)
        except ServiceError as err:
            if isinstance(err, OutOfTime) and cancel.is_set():
                # a cancel (or a shutdown) while the stopped system's calls were hung up wins:
                # the run ended as error, the cancel acknowledged (explore49 F3)
                err = Cancelled(f"cancelled; {err.message}")
            if isinstance(err, ClaimLapsed) or cancel.lapsed():
                self.lapsed += 1
                log.warning(
                    "experiment %s: this runner's claim lapsed (no heartbeat landed for %g s of "
                    "its %g s lease): it stops, and the runner that takes it over finishes it",
                    eid,
                    self.claims.lease * HOLD,
                    self.claims.lease,
                )
            elif isinstance(err, Cancelled) and cancel.handed_over:
                self._hand_over(eid, spec)
            elif isinstance(err, StoreUnavailable) and err.transient and self.claims.shared:
                # the run is fine, the store went away: left running, its claim released (now
                # or at a take-over round), so a take-over resumes it once the store answers
                log.warning("experiment %s stopped, to be taken over: %s", eid, err)
            elif isinstance(err, Cancelled):
                self._end(eid, Status.CANCELLED, err.message)
            elif isinstance(err, UnreadableJob):  # a newer release's run: resumable there
                log.warning("experiment %s left interrupted: %s", eid, err)
                self._end(eid, Status.INTERRUPTED, _left_for_newer(eid, err.message))
            else:  # Aborted (too many errors) and any error a user can act on
                failed = "aborted" if isinstance(err, Aborted) else "failed"
                log.warning("experiment %s %s: %s", eid, failed, err)
                self._end(eid, Status.ERROR, err.message)
        except OSError as err:  # the host's, not the run's: a full disk, too many open files
            log.exception("experiment %s stopped", eid)
            self.write_failures.note(err)
            if cancel.lapsed():
                pass
            elif cancel.handed_over:
                self._hand_over(eid, spec)
            elif cancel.is_set():
                self._end(eid, Status.CANCELLED, f"cancelled; its run had stopped: {cause(err)}")
            else:  # resumable with the answers it has: was `error`, or `running` for good
                self._end(eid, Status.INTERRUPTED, _stopped_by(eid, err))
        except Exception as err:  # a bug: recorded on the experiment and logged with its trace
            log.exception("experiment %s failed", eid)
            if cancel.handed_over and not cancel.lapsed():
                # failed while a shutdown stopped it (the interpreter exiting under it): left
                # to be resumed as the others are, not ended as an error (explore46 9)
                self._hand_over(eid, spec)
            elif not cancel.lapsed():
                self._end(eid, Status.ERROR, f"internal error: {type(err).__name__}: {err}")
        else:
            if self.jobs is not None:
                self.jobs.remove(eid)
            if outcome.public_changed:
                self.on_public_change()
        finally:
            self._after_run(eid, uri, writer)

    def _after_run(self, eid: str, uri: str, writer: _ProgressWriter) -> None:
        """Keep the run's last progress and release its claim, whatever the store does: a
        claim left in it, which this runner's heartbeat keeps live, would keep the run from
        every take-over (seen: a run ``running`` for good after the store was away a second)."""
        try:
            writer.flush()  # what a cancelled or failed run got to stays readable
        except (StoreUnavailable, OSError) as err:  # the store away, a full disk: it is lost
            log.warning("experiment %s: its last progress is not kept: %s", eid, err)
        with self._lock:
            self._progress.pop(eid, None)
        self.budget.release(eid)
        give_back_memory()
        try:
            self.claims.release(uri)
        except StoreUnavailable as err:
            log.warning("experiment %s: its claim is released later: %s", eid, err)
            with self._lock:
                self._unreleased.add(uri)

    def _release_left(self) -> None:
        """Release the claims a store away kept (:meth:`_after_run`)."""
        with self._lock:
            left = list(self._unreleased)
        for uri in left:
            self.claims.release(uri)
            with self._lock:
                self._unreleased.discard(uri)

    def _hand_over(self, experiment_id: str, spec: ExperimentSpec) -> None:
        """A run stopped by a shutdown: on a shared store, left running for another replica
        to take over once its claim is released (below); else marked to be resumed. One with
        secret request headers ends here: their values go with this process, so no start or
        replica can continue it (it was told "it continues when the service starts again",
        then ended as an error at the start)."""
        self.handed_over += 1
        keyed = {s.name: names for s in spec.systems if (names := getattr(s, "header_names", ()))}
        if keyed:
            said = "; ".join(
                f"{name} was to be asked with secret request headers ({', '.join(names)})"
                for name, names in keyed.items()
            )
            self._end(
                experiment_id,
                Status.ERROR,
                f"stopped by a shutdown of the service: {said}, whose values are not kept once "
                "its run stops, so it cannot continue; submit the experiment again with them",
            )
            return
        if self.claims.shared:
            log.info("experiment %s: stopped by a shutdown, left to another replica", experiment_id)
            return
        self._end(
            experiment_id,
            Status.INTERRUPTED,
            "interrupted by a shutdown of the service: it continues when the service starts "
            "again (unless started with --no-resume), or resume it "
            f"(gerbil-qa resume --store DIR {experiment_id}, or the API)",
        )

    def _uri(self, experiment_id: str) -> str:
        return self.storage.uris.experiment(experiment_id)

    def _end(self, experiment_id: str, status: Status, message: str) -> None:
        with self._lock:
            self._unended.pop(experiment_id, None)
        try:
            self.storage.experiments.set_status(experiment_id, status, message=message)
        except Conflict as err:  # someone else ended it first (a cancel from the command line)
            log.warning("experiment %s: %s", experiment_id, err)
        except StoreUnavailable as err:  # left running: a take-over runs it to its end again
            log.warning("experiment %s: not marked %s: %s", experiment_id, status, err)
        except OSError as err:  # a full disk: it stayed `running` for good (explore52 F4)
            self.write_failures.note(err)
            log.warning(
                "experiment %s: not marked %s yet (tried again every %g s): %s",
                experiment_id,
                status,
                UNENDED_RETRY,
                err,
            )
            with self._lock:
                self._unended[experiment_id] = (status, message)
                if self._unended_retry is None or not self._unended_retry.is_alive():
                    self._unended_retry = threading.Thread(
                        target=self._retry_unended, name="gqa-unended", daemon=True
                    )
                    self._unended_retry.start()

    def as_ended(self, status: ExperimentStatus) -> ExperimentStatus:
        """``status`` as the store has it, or, for a run whose end the store did not take yet
        (a full disk), that end: what the API and the pages show (it said `running`)."""
        if status.status is Status.FINISHED:
            return status
        with self._lock:
            unended = self._unended.get(status.id)
        if unended is None:
            return status
        return replace(status, status=unended[0], message=unended[1], progress=None)

    def _record_unended(self, experiment_id: str) -> None:
        """Write the end the store did not take, if any (an OSError if it still cannot)."""
        with self._lock:
            unended = self._unended.get(experiment_id)
        if unended is None:
            return
        status, message = unended
        if status is Status.CANCELLED and self.jobs is not None and self.jobs.has(experiment_id):
            # the marker first: files may take it while the store does not (RocksDB refuses
            # writes after one failed until it is opened again), and a restart then honours it
            with contextlib.suppress(OSError):
                self.jobs.request_cancel(experiment_id)
        try:
            self.storage.experiments.set_status(experiment_id, status, message=message)
        except Conflict as err:  # ended meanwhile by someone else
            log.warning("experiment %s: %s", experiment_id, err)
        with self._lock:
            if self._unended.get(experiment_id) == unended:
                del self._unended[experiment_id]
        log.info("experiment %s: marked %s", experiment_id, status)

    def _retry_unended(self) -> None:
        while not self._stop.wait(UNENDED_RETRY):
            with self._lock:
                left = list(self._unended)
            if not left:
                return
            for eid in left:
                try:
                    self._record_unended(eid)
                except Exception as err:  # still full: the next round tries again, and
                    self.write_failures.note(err)  # /health says so meanwhile

    def _execute(
        self,
        ticket: Ticket,
        spec: ExperimentSpec,
        files: Files,
        cancel: _RunStop,
        writer: _ProgressWriter,
    ) -> Outcome:
        eid = ticket.id
        self.storage.experiments.set_status(eid, Status.RUNNING, progress="started")
        stop_watching = threading.Event()
        if self.jobs is not None:
            watcher = threading.Thread(
                target=self._watch_cancel, args=(eid, cancel, stop_watching), daemon=True
            )
            watcher.start()
        try:
            with collector_paused():
                return run_experiment(
                    spec,
                    storage=self.storage,
                    ticket=ticket,
                    files=files,
                    job=self._job_files(eid, cancel),
                    progress=writer,
                    cancel=cancel,
                    policy=self.policy,
                    hold=cancel.hold,
                    started=self._first_start(eid),
                    admit=lambda size, waiting: self.budget.admit(eid, size, waiting, cancel),
                    ask_seconds=self.ask_seconds or None,
                )
        finally:
            stop_watching.set()

    def _first_start(self, experiment_id: str) -> float | None:
        """When the run first started, from the progress its job kept (a run taken over or
        resumed: it was recorded as started at the resumption, after its first answers)."""
        if self.jobs is None:
            return None
        kept = self.jobs.progress(experiment_id)
        return None if kept is None else kept.started

    def _job_files(self, experiment_id: str, cancel: _RunStop) -> JobFiles | None:
        """The job's files as its run writes them: nothing more once its claim lapsed."""
        if self.jobs is None:
            return None
        return self.jobs.files_of(experiment_id, holding=lambda: not cancel.lapsed())

    def _progress_writer(
        self, experiment_id: str, lapsed: Callable[[], bool] = lambda: False
    ) -> _ProgressWriter:
        return _ProgressWriter(self, experiment_id, lapsed)

    def _watch_cancel(self, eid: str, cancel: threading.Event, stop: threading.Event) -> None:
        while not stop.wait(0.2):
            try:
                requested = self.jobs is not None and self.jobs.cancel_requested(eid)
            except StoreUnavailable:  # the store is away for now (the heartbeat says so)
                continue  # ending here left a cancel from another replica or the CLI unseen
            if requested:
                cancel.set()
                return


class QuestionBudget:
    """How many questions (times systems) the runs of this process evaluate at once: a run
    is admitted, in the order the runs asked, while the others' and its own fit in ``total``,
    or alone whatever its size (never starved); 0: no bound. Memory grows with the questions
    evaluated (a 20,000-question run peaked at ~4 GB recording), so two large uploads at once
    took a server past 8 GB (explore-16 4)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._used: dict[str, int] = {}
        self._order: list[str] = []  # runs waiting, first come first
        self._cond = threading.Condition()

    def admit(
        self, eid: str, size: int, waiting: Callable[[str], None], stop: threading.Event
    ) -> None:
        """Return once ``eid`` (``size`` questions) may run; ``waiting`` is told why it waits
        (once); :class:`Cancelled` if ``stop`` is set meanwhile."""
        if self.total <= 0:
            return
        said = False
        with self._cond:
            self._order.append(eid)
            try:
                while not self._fits(eid, size):
                    if not said:
                        said = True
                        used = sum(self._used.values())
                        # which runs, so its owner can look at how far they are (a web
                        # service's run holds its share for as long as the service answers)
                        holders = ", ".join(
                            f"experiment {e} ({n:,})" for e, n in self._used.items()
                        )
                        waiting(
                            f"waiting: its {size:,} questions (times systems) do not fit in "
                            f"this server's budget of {self.total:,} evaluated at once "
                            f"(GERBIL_QA_RUNNER_QUESTION_BUDGET) beside the {used:,} other "
                            f"runs hold ({holders}: each from reading its dataset to recording "
                            "its results; a run larger than the budget runs alone); it starts "
                            "when they end"
                        )
                    if stop.is_set():
                        raise Cancelled("cancelled while waiting for the question budget")
                    self._cond.wait(0.2)
                self._used[eid] = size
            finally:
                self._order.remove(eid)
                self._cond.notify_all()

    def _fits(self, eid: str, size: int) -> bool:
        used = sum(self._used.values())
        return self._order[0] == eid and (not self._used or used + size <= self.total)

    def release(self, eid: str) -> None:
        with self._cond:
            if self._used.pop(eid, None) is not None:
                self._cond.notify_all()


_paused = 0
_paused_lock = threading.Lock()
_was_enabled = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while any job runs (as ``gerbil-qa evaluate`` runs):
    reading and scoring a big answer file allocate millions of objects and make no reference
    cycles, and each full collection over them held the GIL for up to half a second, stalling
    every request (status polls) while it ran. Reference counting still frees everything; the
    collector is back on when the last job ends, and then collects what requests left."""
    global _paused, _was_enabled
    with _paused_lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _paused_lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()


class _ProgressWriter:
    """Keeps a job's newest progress in memory; writes it beside the job at once when its
    phase, a system's state or a total changes, else at most every :data:`PROGRESS_EVERY`
    seconds; a new phase also goes to the admin graph (one private update). Nothing once the
    runner's claim on the run ``lapsed``: the runner that took it over writes it."""

    def __init__(
        self, runner: ExperimentRunner, experiment_id: str, lapsed: Callable[[], bool]
    ) -> None:
        self.runner, self.experiment_id, self.lapsed = runner, experiment_id, lapsed
        self.written = 0.0
        self.shape: tuple[object, ...] | None = None
        self.latest: RunProgress | None = None
        self.latest_written = True

    def __call__(self, progress: RunProgress) -> None:
        runner, eid = self.runner, self.experiment_id
        if self.lapsed():
            return
        with runner._lock:
            runner._progress[eid] = progress
        self.latest, self.latest_written = progress, False
        now = time.monotonic()
        shape = (progress.phase, tuple((s.state, s.total) for s in progress.systems))
        if shape == self.shape and now - self.written < PROGRESS_EVERY:
            return
        new_phase = self.shape is None or shape[0] != self.shape[0]
        self.written, self.shape = now, shape
        self.flush()
        if new_phase and progress.phase != "done":
            runner.storage.experiments.set_status(eid, Status.RUNNING, progress=progress.phase)

    def flush(self) -> None:
        """Write the newest progress beside the job, if it is not written yet."""
        jobs = self.runner.jobs
        if self.latest is None or self.latest_written or jobs is None or self.lapsed():
            return
        jobs.write_progress(self.experiment_id, self.latest)  # none once the job is gone
        self.latest_written = True


def _left_for_newer(experiment_id: str, why: str) -> str:
    """The message of a run this release leaves ``interrupted``: its job is a newer
    release's (replicas of two releases on one store, or a rollback; explore50 F3)."""
    return (
        f"interrupted: this release of gerbil-qa cannot read the saved state of the run "
        f"({why}); a newer release wrote it. Nothing is lost: resume it on a replica of that "
        f"release or a newer one (gerbil-qa resume --store STORE {experiment_id}, or the API)"
    )


def _stopped_by(experiment_id: str, err: OSError) -> str:
    """The message of a run an error of the host stopped (:func:`service.shortages.cause`)."""
    resume = f"resume it (gerbil-qa resume --store DIR {experiment_id}, or the API)"
    if no_space(err):
        return (
            f"interrupted: {cause(err)}; free space there, then {resume}: the answers it got "
            "are kept and only the missing questions are asked"
        )
    return f"interrupted: {cause(err)}; {resume} once that is fixed"


def _too_many_restarts(experiment_id: str, deaths: int) -> str:
    return (
        f"the service stopped {deaths} times while this experiment ran, so it is no longer "
        "resumed by itself (the run may be what stops the service); resume it to try again "
        f"(gerbil-qa resume --store DIR {experiment_id}, or the API)"
    )
