"""Running submitted experiments in the background (a small in-process pool).

The API validates a submission completely (dataset and answer files read, profile and language
known, URLs allowed), reserves the experiment's id with ``GraphStore.create_experiment`` and
answers at once; an :class:`ExperimentJob` then runs here on a worker thread: each system's
answers are obtained (an uploaded answer file, or a QA web service asked question by question),
evaluated, and the finished experiment is written in one transaction by
``GraphStore.record_experiment``. Status changes (``queued`` -> ``running`` -> ``finished`` or
``failed``/``cancelled``) and progress go to the admin graph, where the API reads them.

Extension points for the systems area (worker pool, restarts, resume, cancellation): replace
:func:`answers_of` (how a system's answers are obtained) or subclass :class:`ExperimentRunner`
and override :meth:`ExperimentRunner.execute`; ``submit``/``cancel``/``wait``/``close`` are the
interface the web layer calls, and ``ExperimentJob`` is a plain frozen value that can be
serialised to resume a job after a restart.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from service.errors import ServiceError
from service.model import Dataset, SystemRun, system_run

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Upload:
    """A file given with a submission, as recorded with the experiment (PROV entity)."""

    name: str
    sha256: str
    size: int
    role: str  # "dataset" | "answers"
    system: str | None = None
    media_type: str | None = None


@dataclass(frozen=True, slots=True)
class SystemSpec:
    """One system of a submission: an uploaded answer file (read) or a web-service URL."""

    name: str
    answers: Dataset | None = None
    url: str | None = None
    label: str | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class ExperimentJob:
    """Everything needed to run one submitted experiment (validated before it is queued)."""

    experiment_id: str
    experiment_uri: str
    dataset: Dataset
    dataset_name: str
    systems: tuple[SystemSpec, ...]
    profile: str
    language: str = "en"
    experiment_types: tuple[str, ...] | None = None
    catalogued: bool | None = None
    dataset_sha256: str | None = None
    kb: tuple[str, ...] = ()  # KB spec (RDF files or one SPARQL endpoint URL), if any
    uploads: tuple[Upload, ...] = ()
    publish: bool = False  # publish as soon as it is recorded (the demo)


Progress = Callable[[str], None]


def answers_of(
    spec: SystemSpec,
    dataset: Dataset,
    *,
    language: str,
    progress: Progress,
    cancel: threading.Event,
) -> SystemRun:
    """The answers of one system: read from its file, or asked from its web service."""
    if spec.answers is not None:
        return system_run(spec.answers, system=spec.name, language=language)
    if spec.url is None:
        raise ServiceError(f"system {spec.name}: neither an answer file nor a URL")
    from service.systems.webservice import WebService, run_web_service

    def report(done: int, total: int) -> None:
        progress(f"{spec.name}: {done}/{total} questions")

    result = run_web_service(
        dataset,
        WebService(spec.url, name=spec.name),
        language=language,
        progress=report,
        cancel=cancel,
    )
    if result.cancelled:
        raise Cancelled(f"cancelled while asking {spec.name}")
    return result.run


class Cancelled(ServiceError):
    status = 409


@dataclass(slots=True)
class _Running:
    future: Future[None]
    cancel: threading.Event = field(default_factory=threading.Event)


class ExperimentRunner:
    """A thread pool running :class:`ExperimentJob` values against one ``GraphStore``."""

    def __init__(
        self,
        graph: Any,
        *,
        workers: int = 2,
        on_change: Callable[[], Any] | None = None,
        obtain: Callable[..., SystemRun] = answers_of,
    ) -> None:
        self.graph = graph
        self.on_change = on_change or (lambda: None)
        self.obtain = obtain
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="gqa-run")
        self._jobs: dict[str, _Running] = {}
        self._lock = threading.Lock()

    def submit(self, job: ExperimentJob) -> None:
        """Queue ``job`` (its experiment must exist with status ``queued``)."""
        with self._lock:
            running = _Running(future=Future())
            self._jobs[job.experiment_id] = running
            running.future = self._pool.submit(self._guarded, job, running.cancel)

    def cancel(self, experiment_id: str) -> bool:
        """Ask a queued or running job to stop; True if it was still active here."""
        with self._lock:
            running = self._jobs.get(experiment_id)
        if running is None or running.future.done():
            return False
        running.cancel.set()
        if running.future.cancel():  # never started
            self.graph.experiments.set_status(
                experiment_id, "cancelled", message="cancelled before it ran"
            )
        return True

    def wait(self, experiment_id: str, timeout: float | None = None) -> None:
        """Block until the job is done (tests, the demo at first start)."""
        with self._lock:
            running = self._jobs.get(experiment_id)
        if running is not None:
            running.future.result(timeout)

    def active(self) -> Sequence[str]:
        with self._lock:
            return [k for k, v in self._jobs.items() if not v.future.done()]

    def close(self) -> None:
        with self._lock:
            for running in self._jobs.values():
                running.cancel.set()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _guarded(self, job: ExperimentJob, cancel: threading.Event) -> None:
        try:
            self.execute(job, cancel)
            if job.publish or job.catalogued is not False:
                # public data changed (a publication, or a catalogue dataset's questions)
                self.on_change()
        except Cancelled as err:
            self.graph.experiments.set_status(job.experiment_id, "cancelled", message=err.message)
        except ServiceError as err:
            log.warning("experiment %s failed: %s", job.experiment_id, err)
            self.graph.experiments.set_status(job.experiment_id, "error", message=err.message)
        except Exception as err:  # a bug: recorded on the experiment and logged with its trace
            log.exception("experiment %s failed", job.experiment_id)
            self.graph.experiments.set_status(
                job.experiment_id, "error", message=f"internal error: {type(err).__name__}: {err}"
            )

    def _dataset_ref(self, job: ExperimentJob) -> Any:
        from service.graph.results import DatasetRef

        catalogue = self.graph.catalogue
        if job.catalogued is not False and catalogue.is_catalogued(job.dataset_name):
            if not catalogue.has_questions(job.dataset_name):
                catalogue.store_questions(job.dataset_name, job.dataset)
            return DatasetRef.catalogue(job.dataset_name, job.dataset, sha256=job.dataset_sha256)
        return DatasetRef.upload(job.dataset_name, job.dataset, sha256=job.dataset_sha256)

    def execute(self, job: ExperimentJob, cancel: threading.Event) -> None:
        """Obtain every system's answers, evaluate them and record the experiment."""
        from service.evaluation import evaluate
        from service.evaluation.profiles import get_profile
        from service.evaluation.results import ExperimentType
        from service.graph.experiments import Ticket
        from service.graph.results import SystemInfo, UploadedFile

        started = datetime.now(UTC).replace(microsecond=0)
        eid = job.experiment_id
        self.graph.experiments.set_status(eid, "running", progress=f"0/{len(job.systems)} systems")
        kb = None
        if job.kb:
            from service.kb.open import open_kb

            kb = open_kb(list(job.kb))
        profile = get_profile(job.profile)
        types = None
        if job.experiment_types:
            types = tuple(ExperimentType(t) for t in job.experiment_types)
        evaluations = []
        for n, spec in enumerate(job.systems, start=1):
            if cancel.is_set():
                raise Cancelled("cancelled")

            def progress(text: str, n: int = n) -> None:
                self.graph.experiments.set_status(
                    eid, "running", progress=f"{n - 1}/{len(job.systems)} systems; {text}"
                )

            run = self.obtain(
                spec, job.dataset, language=job.language, progress=progress, cancel=cancel
            )
            evaluations.append(
                evaluate(
                    job.dataset,
                    run,
                    profile=profile,
                    language=job.language,
                    kb=kb,
                    experiment_types=types,
                )
            )
            self.graph.experiments.set_status(
                eid, "running", progress=f"{n}/{len(job.systems)} systems"
            )
        if cancel.is_set():
            raise Cancelled("cancelled")
        self.graph.experiments.record(
            evaluations,
            dataset=self._dataset_ref(job),
            systems=[
                SystemInfo(s.name, label=s.label, endpoint=s.url, description=s.description)
                for s in job.systems
            ],
            uploads=[
                UploadedFile(
                    u.name, u.sha256, u.size, role=u.role, system=u.system, media_type=u.media_type
                )
                for u in job.uploads
            ],
            started=started,
            ended=datetime.now(UTC).replace(microsecond=0),
            ticket=Ticket(eid, job.experiment_uri, ""),
        )
        if job.publish:
            self.graph.experiments.publish(eid)
