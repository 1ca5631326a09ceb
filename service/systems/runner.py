"""Experiments that survive a restart: the web layer's runner, made durable.

:class:`DurableRunner` is the web layer's :class:`~service.web.runner.ExperimentRunner` (a worker
pool inside the service) plus the job state of :mod:`service.systems.jobs`:

* ``submit`` saves the job before queuing it; each answer a QA web service gives is appended to
  the job's log as it arrives;
* at start, experiments a dead process left ``queued`` or ``running`` are marked
  ``interrupted`` (:meth:`recover`);
* :meth:`resume` (``gerbil-qa resume``, the API) queues an interrupted, cancelled or failed job
  again: the answers already logged are reused, only the missing questions are asked, so the
  result is the one an uninterrupted run gives;
* :meth:`cancel` also leaves a marker file, so ``gerbil-qa cancel`` can stop a job that a
  server process is running; progress (questions done per system) is in the admin graph and in
  :meth:`progress`.

Each web-service run is archived as an answer file (``STORE/answers/{id}/``) and recorded with
the experiment as a ``prov:Entity`` with its SHA-256, so the experiment can be re-scored later
without the service.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from service.errors import Conflict, ServiceError
from service.model import Dataset, SystemRun, system_run
from service.systems.archive import answer_file
from service.systems.jobs import JobStore
from service.systems.safety import NetworkPolicy
from service.systems.webservice import WebService, run_web_service
from service.web.runner import Cancelled, ExperimentJob, ExperimentRunner, SystemSpec, Upload

log = logging.getLogger(__name__)

RESUMABLE = ("interrupted", "cancelled", "error")
ACTIVE = ("reserved", "queued", "running")
_PROGRESS_EVERY = 0.5  # seconds between progress writes to the admin graph


@dataclass(frozen=True, slots=True)
class SystemProgress:
    """Questions done for one system of an experiment (one task per system)."""

    system: str
    done: int
    total: int


class DurableRunner(ExperimentRunner):
    """See the module docstring. ``graph`` is a :class:`~service.graph.store.GraphStore`."""

    def __init__(
        self,
        graph: Any,
        *,
        workers: int = 2,
        on_change: Callable[[], Any] | None = None,
        jobs: JobStore | None = None,
        policy: NetworkPolicy | None = None,
        concurrency: int = 4,
        timeout: float = 60.0,
        recover: bool = True,
    ) -> None:
        super().__init__(graph, workers=workers, on_change=on_change, obtain=self._obtain)
        if jobs is None and graph.work_dir is not None:
            jobs = JobStore(Path(graph.work_dir) / "jobs")
        self.jobs = jobs
        self.policy = policy or NetworkPolicy.from_env()
        self.concurrency = concurrency
        self.timeout = timeout
        self._local = threading.local()
        if recover:
            self.recover()

    # -- the interface the web layer and the CLI call ----------------------------------------

    def submit(self, job: ExperimentJob) -> None:
        if self.jobs is not None:
            self.jobs.save(job)
        self.graph.experiments.set_status(job.experiment_id, "queued")
        super().submit(job)

    def recover(self) -> list[str]:
        """Mark experiments a dead process left queued or running as interrupted; return them."""
        if self.jobs is None:
            return []
        marked = []
        for eid in self.jobs.ids():
            try:
                status = self.graph.experiments.status(eid)
            except ServiceError:
                log.warning("job %s has no experiment in the store; its state is kept", eid)
                continue
            if status.status == "finished":
                self.jobs.remove(eid)  # recorded before a crash removed its job state
            elif status.status in ACTIVE and eid not in self.active():
                self.graph.experiments.set_status(
                    eid,
                    "interrupted",
                    message="interrupted by a restart; resume it to continue "
                    f"(gerbil-qa resume --store DIR {eid}, or the API)",
                )
                marked.append(eid)
        if marked:
            self.on_change()
        return marked

    def resume(self, experiment_id: str) -> ExperimentJob:
        """Queue an interrupted, cancelled or failed experiment again (NotFound, Conflict)."""
        status = self.graph.experiments.status(experiment_id)
        if status.status not in RESUMABLE:
            raise Conflict(
                f"experiment {experiment_id} is {status.status}; only "
                f"{', '.join(RESUMABLE)} experiments can be resumed"
            )
        if self.jobs is None:
            raise Conflict("this store keeps no job state (in memory): nothing to resume")
        job = self.jobs.load(experiment_id)
        self.jobs.clear_cancel(experiment_id)
        self.graph.experiments.set_status(experiment_id, "queued", message="resumed")
        super().submit(job)
        self.on_change()
        return job

    def cancel(self, experiment_id: str) -> bool:
        if self.jobs is not None and self.jobs.has(experiment_id):
            self.jobs.request_cancel(experiment_id)
        return super().cancel(experiment_id)

    def progress(self, experiment_id: str) -> list[SystemProgress]:
        """Questions answered so far per system, from the job state (works while it runs)."""
        if self.jobs is None or not self.jobs.has(experiment_id):
            return []
        job = self.jobs.load(experiment_id)
        total = _askable(job.dataset, job.language)
        done = self.jobs.progress(experiment_id, len(job.systems))
        return [
            SystemProgress(spec.name, total if spec.answers is not None else n, total)
            for spec, n in zip(job.systems, done, strict=True)
        ]

    # -- running -----------------------------------------------------------------------------

    def execute(self, job: ExperimentJob, cancel: threading.Event) -> None:
        """Ask every web service first (durably), then let the web layer's runner evaluate and
        record, with the archived answer files among the experiment's entities."""
        stop_watching = threading.Event()
        watcher = threading.Thread(
            target=self._watch_cancel, args=(job.experiment_id, cancel, stop_watching), daemon=True
        )
        watcher.start()
        try:
            self.graph.experiments.set_status(
                job.experiment_id, "running", progress="asking systems"
            )
            runs: dict[int, SystemRun] = {}
            archives: list[Upload] = []
            for index, spec in enumerate(job.systems):
                if spec.url is None:
                    continue
                run, upload = self._ask_durably(job, index, spec, cancel)
                runs[index] = run
                archives.append(upload)
            self._local.runs = runs
            self._local.job = job
            super().execute(replace(job, uploads=(*job.uploads, *archives)), cancel)
        finally:
            stop_watching.set()
            self._local.runs = None
            self._local.job = None
        if self.jobs is not None:
            self.jobs.remove(job.experiment_id)

    def _obtain(
        self,
        spec: SystemSpec,
        dataset: Dataset,
        *,
        language: str,
        progress: Callable[[str], None],
        cancel: threading.Event,
    ) -> SystemRun:
        job: ExperimentJob | None = getattr(self._local, "job", None)
        runs: dict[int, SystemRun] = getattr(self._local, "runs", None) or {}
        if job is not None:
            for index, candidate in enumerate(job.systems):
                if candidate is spec and index in runs:
                    return runs[index]
        if spec.answers is not None:
            return system_run(spec.answers, system=spec.name, language=language)
        raise ServiceError(f"system {spec.name}: its answers were not obtained")

    def _ask_durably(
        self, job: ExperimentJob, index: int, spec: SystemSpec, cancel: threading.Event
    ) -> tuple[SystemRun, Upload]:
        eid = job.experiment_id
        done = self.jobs.answers(eid, index) if self.jobs is not None else {}
        last = [0.0]

        def report(count: int, total: int) -> None:
            now = time.monotonic()
            if count < total and now - last[0] < _PROGRESS_EVERY:
                return
            last[0] = now
            self.graph.experiments.set_status(
                eid,
                "running",
                progress=f"system {index + 1}/{len(job.systems)} ({spec.name}): "
                f"{count}/{total} questions",
            )
            self.on_change()

        def keep(answer: Any) -> None:
            if self.jobs is not None:
                self.jobs.append(eid, index, answer)

        service = WebService(
            spec.url or "",
            name=spec.name,
            concurrency=self.concurrency,
            timeout=self.timeout,
            policy=self.policy,
        )
        result = run_web_service(
            job.dataset,
            service,
            language=job.language,
            done=done,
            on_answer=keep,
            progress=report,
            cancel=cancel,
        )
        if result.cancelled:
            raise Cancelled(
                f"cancelled while asking {spec.name} ({len(result.run.answers)} of "
                f"{len(result.run.answers) + len(result.pending)} questions answered; "
                "resume to continue)"
            )
        data = answer_file(result.run, job.dataset, language=job.language)
        name = f"{index + 1}-{_safe_name(spec.name)}.json"
        if self.jobs is not None:
            self.jobs.write_archive(eid, name, data)
        upload = Upload(
            name=name,
            sha256=hashlib.sha256(data).hexdigest(),
            size=len(data),
            role="answers",
            system=spec.name,
            media_type="application/json",
        )
        return result.run, upload

    def _watch_cancel(self, eid: str, cancel: threading.Event, stop: threading.Event) -> None:
        while not stop.wait(0.2):
            if self.jobs is not None and self.jobs.cancel_requested(eid):
                cancel.set()
                return


def _askable(dataset: Dataset, language: str) -> int:
    return sum(1 for q in dataset.questions if q.text(language) is not None)


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:60] or "system"
