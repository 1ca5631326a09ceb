"""Durable state of queued and running experiments: what to run, what is done.

A restart must not lose an experiment nor ask a QA service again what it already answered. Per
experiment the store's workspace (:mod:`service.graph.workspace`: the directory beside an
embedded store, the private dataset of a remote one) holds under ``jobs/{id}/``:

* ``files/{sha256}``: each uploaded file as it came (the dataset, answer files);
* ``spec.json``: the experiment's :class:`~service.experiments.spec.ExperimentSpec` (a few
  hundred bytes: files are named by their SHA-256), written last (in a directory) or with the
  files in one update (in a dataset): a job exists once its spec does;
* ``answers/{n}.jsonl``: one line per answer of the n-th system, appended (and fsynced) as each
  answer arrives, so a killed process loses at most the calls in flight; a torn last line (a
  kill in the middle of a write) is dropped on reading;
* ``progress.json``: the newest :class:`~service.experiments.progress.RunProgress`, replaced
  whole (what a status poll reads: one small value, whatever the size of the uploads);
* ``cancel``: present when someone asked to cancel (the CLI can do so while a server process
  runs the job; the runner watches for it);
* ``restarts``: how many times a start found the job running, i.e. its process died while it
  ran (a number in text); the runner stops resuming a job by itself past a few such deaths, as
  the job may be what kills the process;
* ``stopping``: present while a shutdown hands the job over: a process killed then (a deploy
  whose grace period ended before the calls in flight did) did not die of the job;
* ``schema``: the job schema (:data:`JOB_SCHEMA`) and the release that last wrote the job
  (``1 0.1.0+g…``; none: a release before 2026-11-29, schema 0). Replicas of different
  releases share the jobs of one store: one does not run a job a newer schema wrote (an older
  replica that took over a newer one's run ended it ``error``, "stored SystemAnswer has
  fields this version does not know", explore50 F3), and a runner raises the mark to its own.

Answer files a run produced (a web service's answers) are kept under ``answers/{id}/`` and
outlive the job. The status (queued, running, …) lives in the store's admin graph.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from service.errors import NotFound, ServiceError
from service.experiments.progress import RunProgress
from service.experiments.spec import ExperimentSpec
from service.graph.workspace import Workspace
from service.model import SystemAnswer
from service.shortages import writing

JOBS = "jobs"  # the workspace folder of the jobs
ARCHIVES = "answers"  # answer files a run produced, kept after the job
FOLDER = "the store's jobs folder"  # where a job's files are, in what is said of them
SPEC, PROGRESS, CANCEL, RESTARTS = "spec.json", "progress.json", "cancel", "restarts"
STOPPING = "stopping"
SCHEMA = "schema"
# What the jobs this release writes are made of: raise it when a change makes them unreadable
# by the releases before (a field added to a class a job stores: SystemAnswer, Term, AnswerSet,
# Annotation, Problem; a new kind in spec.json), so that those leave such jobs alone.
# ``tests/integration/test_workspace.py`` fails while those classes' fields are not the ones
# this number was set for.
JOB_SCHEMA = 1
# The one file a job of versions before the application layer (up to 2026-11-21) was saved
# as: its dataset parsed inline, its uploads only named. This version cannot resume it.
LEGACY_JOB = "job.json"
_TYPE = "__type__"
_ENUM = "__enum__"


def _registry() -> dict[str, type]:
    from service import errors, model

    classes: list[type] = [
        model.Term,
        model.TermKind,
        model.AnswerSet,
        model.Annotation,
        model.SystemAnswer,
        errors.Problem,
    ]
    return {cls.__name__: cls for cls in classes}


def encode(value: Any) -> Any:
    """A model value as JSON-ready data (dataclasses and enums tagged with their type name)."""
    if isinstance(value, enum.Enum):
        return {_ENUM: type(value).__name__, "value": value.value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {_TYPE: type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = encode(getattr(value, f.name))
        return out
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        return {"__map__": [[encode(k), encode(v)] for k, v in value.items()]}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot persist a {type(value).__name__} in a job")


def decode(data: Any, registry: Mapping[str, type] | None = None) -> Any:
    """The inverse of :func:`encode` (lists become tuples, as in the model); only the types of
    an allow-list are built."""
    known = registry if registry is not None else _registry()
    if isinstance(data, list):
        return tuple(decode(v, known) for v in data)
    if not isinstance(data, dict):
        return data
    if "__map__" in data:
        return {decode(k, known): decode(v, known) for k, v in data["__map__"]}
    if _ENUM in data:
        return known[data[_ENUM]](data["value"])
    name = data.get(_TYPE)
    if not isinstance(name, str) or name not in known:
        raise UnreadableJob(f"unknown type {name!r} in a stored job")
    cls = known[name]
    names = {f.name for f in dataclasses.fields(cls)}
    # Fields added since the job was written take their defaults; unknown ones are an error.
    unknown = set(data) - names - {_TYPE}
    if unknown:
        raise UnreadableJob(f"stored {name} has fields this version does not know: {unknown}")
    return cls(**{k: decode(v, known) for k, v in data.items() if k != _TYPE})


class UnreadableJob(ServiceError):
    """A job holds what this release cannot read: a newer release wrote it (or it is
    damaged); the runner leaves the run ``interrupted``, to be resumed where it can be read."""


def _release() -> str:
    from service import release

    return release.source().version


class JobStore:
    """The jobs of a store, in its workspace (see the module docstring)."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    @staticmethod
    def _key(experiment_id: str, name: str = "") -> str:
        if not experiment_id.isdigit():
            raise NotFound(f"no experiment {experiment_id!r}")
        return f"{JOBS}/{experiment_id}" + (f"/{name}" if name else "")

    # -- the job -----------------------------------------------------------------------------
    def create(
        self, experiment_id: str, spec: ExperimentSpec, files: Mapping[str, bytes] = {}
    ) -> None:
        """Save a job: its uploaded files (by SHA-256), then its spec (the job exists once it
        is written)."""
        key = self._key
        items = {key(experiment_id, f"files/{_sha(s)}"): data for s, data in files.items()}
        data = json.dumps(spec.to_json(), ensure_ascii=False, sort_keys=True).encode("utf-8")
        items[self._key(experiment_id, SCHEMA)] = f"{JOB_SCHEMA} {_release()}\n".encode()
        items[self._key(experiment_id, SPEC)] = data
        with writing("the job: its settings and uploaded files", where=FOLDER):
            self.workspace.write(items)

    def schema(self, experiment_id: str) -> tuple[int, str]:
        """The job schema and the release that last wrote the job (``0, ""``: a release
        before the mark, 2026-11-29; a mark this release cannot read counts as newer)."""
        data = self.workspace.read(self._key(experiment_id, SCHEMA))
        if data is None:
            return 0, ""
        number, _, writer = data.decode("utf-8", "replace").strip().partition(" ")
        return (int(number) if number.isdigit() else JOB_SCHEMA + 1), writer.strip()

    def damaged_mark(self, experiment_id: str) -> str | None:
        """What the job's schema mark says when no release wrote it so (``garbage``, empty, a
        number with no release), else None. Such a job is not run (what wrote it is unknown),
        but it is no newer schema: it was said to be one, "written by gerbil-qa (unknown) (job
        schema 2)", a schema no release has (explore54 F5)."""
        data = self.workspace.read(self._key(experiment_id, SCHEMA))
        if data is None:
            return None
        text = data.decode("utf-8", "replace").strip()
        number, _, writer = text.partition(" ")
        if number.isdigit() and writer.strip():
            return None
        return text

    def newer(self, experiment_id: str) -> str | None:
        """That a newer job schema than this release's wrote the job (what to tell), or None;
        for a damaged mark (:meth:`damaged_mark`) that it is unreadable and what to do."""
        damaged = self.damaged_mark(experiment_id)
        if damaged is not None:
            mark = self._key(experiment_id, SCHEMA)
            return (
                f"its job's schema mark ({mark} in the store) is unreadable: {damaged[:80]!r}, "
                f"where a release writes 'SCHEMA RELEASE' (this one: '{JOB_SCHEMA} "
                f"{_release()}'); if the job was written by this release or an older one, the "
                "store's owner can write that line into the mark (or remove it: a job without "
                "one is read as an older release's) and resume it"
            )
        number, writer = self.schema(experiment_id)
        if number <= JOB_SCHEMA:
            return None
        return (
            f"its job was written by gerbil-qa {writer or '(unknown)'} (job schema {number}), "
            f"which this release ({_release()}, job schema {JOB_SCHEMA}) cannot read"
        )

    def mark_schema(self, experiment_id: str) -> None:
        """Record that this release writes the job now (a run starts or resumes here), when
        the mark says an older schema or another release."""
        if self.schema(experiment_id) == (JOB_SCHEMA, _release()):
            return
        key = self._key
        self.workspace.write(
            {key(experiment_id, SCHEMA): f"{JOB_SCHEMA} {_release()}\n".encode()},
            if_exists=key(experiment_id, SPEC),
        )

    def has(self, experiment_id: str) -> bool:
        return self.workspace.exists(self._key(experiment_id, SPEC))

    def legacy(self, experiment_id: str) -> str | None:
        """Why a job an older version saved cannot be resumed; None when there is none."""
        if not self.workspace.exists(self._key(experiment_id, LEGACY_JOB)):
            return None
        return "its run was saved by an older version of gerbil-qa (a job this one cannot read)"

    def legacy_asked(self, experiment_id: str) -> dict[str, Any] | None:
        """What an older version's job asked, as far as a new submission can take it over: the
        catalogue dataset's name (or the uploaded file's name), profile, language and
        systems (``webservice``: ``name=url`` lines; ``answers``: file names); None when
        there is no such job or it cannot be read."""
        data = self.workspace.read(self._key(experiment_id, LEGACY_JOB))
        try:
            job = json.loads(data.decode("utf-8")) if data is not None else None
        except (UnicodeDecodeError, ValueError):
            return None
        if not isinstance(job, dict):
            return None
        dataset = job["dataset"] if isinstance(job.get("dataset"), dict) else {}
        source = str(dataset.get("source") or "")
        asked: dict[str, Any] = {
            "dataset": str(job.get("dataset_name") or "") if job.get("catalogued") else "",
            "dataset_file": "" if job.get("catalogued") else source.rsplit("/", 1)[-1],
            "profile": str(job.get("profile") or ""),
            "language": str(job.get("language") or ""),
            "webservice": [],
            "answers": [],
        }
        systems = job.get("systems")
        for system in systems if isinstance(systems, list) else []:
            if not isinstance(system, dict):
                continue
            name, url = str(system.get("name") or ""), system.get("url")
            if isinstance(url, str) and url:
                asked["webservice"].append(f"{name}={url}" if name else url)
            elif name:
                asked["answers"].append(name)
        return asked

    def spec(self, experiment_id: str) -> ExperimentSpec:
        data = self.workspace.read(self._key(experiment_id, SPEC))
        if data is None:
            raise NotFound(f"no saved job for experiment {experiment_id} (nothing to resume)")
        return ExperimentSpec.from_json(json.loads(data.decode("utf-8")))

    def file(self, experiment_id: str, sha256: str) -> bytes:
        data = self.workspace.read(self._key(experiment_id, f"files/{_sha(sha256)}"))
        if data is None:
            raise NotFound(f"job {experiment_id} has no file {sha256}")
        return data

    def ids(self) -> list[str]:
        """Experiments with a saved job (a spec)."""
        return [i for i in self.workspace.folders_with(JOBS, SPEC) if i.isdigit()]

    def remove(self, experiment_id: str) -> None:
        self.workspace.remove(self._key(experiment_id))

    # -- answers as they arrive --------------------------------------------------------------
    @classmethod
    def _log_key(cls, experiment_id: str, system_index: int, language: str | None) -> str:
        # a run's first language keeps the one log per system older jobs have
        name = f"{system_index}@{language}" if language else f"{system_index}"
        return cls._key(experiment_id, f"answers/{name}.jsonl")

    def append(
        self,
        experiment_id: str,
        system_index: int,
        answer: SystemAnswer,
        *,
        language: str | None = None,
    ) -> None:
        """Log one answer of a system; ``language``: a language the run asks after its first
        (each language's answers apart, or a later one would find every question answered)."""
        # a job recorded and removed (by another replica) meanwhile gets no log
        with writing("the job's answer log", where=FOLDER):
            self.workspace.append(
                self._log_key(experiment_id, system_index, language),
                json.dumps(encode(answer), ensure_ascii=False),
                if_exists=self._key(experiment_id, SPEC),
            )

    def answers(
        self, experiment_id: str, system_index: int, *, language: str | None = None
    ) -> dict[str, SystemAnswer]:
        """The answers recorded so far for one system (a torn last line is dropped), in the
        run's first language or ``language`` (as :meth:`append`)."""
        key = self._log_key(experiment_id, system_index, language)
        lines = self.workspace.lines(key)
        found: dict[str, SystemAnswer] = {}
        for number, line in enumerate(lines, start=1):
            try:
                answer = decode(json.loads(line))
            except json.JSONDecodeError:
                if number == len(lines):
                    break  # the write a kill interrupted: that call is simply asked again
                where = self.workspace.describe(key)
                raise ServiceError(f"{where}:{number}: damaged answer record") from None
            found[answer.question_id] = answer
        return found

    def answered(self, experiment_id: str, system_index: int) -> int:
        """How many answers are logged for one system (nothing decoded)."""
        return self.workspace.count_lines(self._key(experiment_id, f"answers/{system_index}.jsonl"))

    # -- progress and cancellation -----------------------------------------------------------
    def write_progress(self, experiment_id: str, progress: RunProgress) -> None:
        data = json.dumps(progress.to_json(), ensure_ascii=False).encode("utf-8")
        # not beside a finished job (its folder removed): one request on a remote store
        key = self._key
        with writing("the job's progress", where=FOLDER):
            self.workspace.write(
                {key(experiment_id, PROGRESS): data},
                sync=False,
                if_exists=key(experiment_id, SPEC),
            )

    def progress(self, experiment_id: str) -> RunProgress | None:
        """The newest progress written (one small file), or None."""
        try:
            data = self.workspace.read(self._key(experiment_id, PROGRESS))
        except NotFound:
            return None
        return None if data is None else RunProgress.from_json(json.loads(data.decode("utf-8")))

    def request_cancel(self, experiment_id: str) -> None:
        self.workspace.write({self._key(experiment_id, CANCEL): b"cancel\n"})

    def cancel_requested(self, experiment_id: str) -> bool:
        return self.workspace.exists(self._key(experiment_id, CANCEL))

    def clear_cancel(self, experiment_id: str) -> None:
        self.workspace.remove_key(self._key(experiment_id, CANCEL))

    # -- deaths of the process while the job ran ----------------------------------------------
    def restarts(self, experiment_id: str) -> int:
        """How many times a start found this job running (see the module docstring)."""
        data = self.workspace.read(self._key(experiment_id, RESTARTS))
        return int(data) if data and data.strip().isdigit() else 0

    def count_restart(self, experiment_id: str) -> int:
        """One more death of the process while this job ran; returns the count."""
        count = self.restarts(experiment_id) + 1
        key = self._key
        self.workspace.write(
            {key(experiment_id, RESTARTS): b"%d\n" % count}, if_exists=key(experiment_id, SPEC)
        )
        return count

    def clear_restarts(self, experiment_id: str) -> None:
        self.workspace.remove_key(self._key(experiment_id, RESTARTS))

    def mark_stopping(self, experiment_id: str) -> None:
        """A shutdown is handing this job over (see the module docstring)."""
        key = self._key
        self.workspace.write(
            {key(experiment_id, STOPPING): b"stopping\n"}, if_exists=key(experiment_id, SPEC)
        )

    def stopping(self, experiment_id: str) -> bool:
        return self.workspace.exists(self._key(experiment_id, STOPPING))

    def clear_stopping(self, experiment_id: str) -> None:
        self.workspace.remove_key(self._key(experiment_id, STOPPING))

    # -- what outlives the job ---------------------------------------------------------------
    def write_archive(self, experiment_id: str, name: str, data: bytes) -> None:
        """Keep an answer file of the experiment (``answers/{id}/{name}``)."""
        self._key(experiment_id)  # an experiment id, or NotFound
        with writing("the experiment's answer files"):
            self.workspace.write({f"{ARCHIVES}/{experiment_id}/{PurePosixPath(name).name}": data})

    def files_of(
        self, experiment_id: str, *, holding: Callable[[], bool] = lambda: True
    ) -> JobFiles:
        return JobFiles(self, experiment_id, holding)


class _Log:
    def __init__(self, files: JobFiles, index: int, language: str | None) -> None:
        self._files, self._index, self._language = files, index, language

    def done(self) -> dict[str, SystemAnswer]:
        jobs, eid = self._files.jobs, self._files.experiment_id
        return jobs.answers(eid, self._index, language=self._language)

    def append(self, answer: SystemAnswer) -> None:
        if self._files.holding():  # a runner whose claim lapsed leaves the log to its successor
            jobs, eid = self._files.jobs, self._files.experiment_id
            jobs.append(eid, self._index, answer, language=self._language)


@dataclass(frozen=True, slots=True)
class JobFiles:
    """One job's state, as ``run_experiment`` uses it (``JobState``)."""

    jobs: JobStore
    experiment_id: str
    holding: Callable[[], bool] = lambda: True  # whether this runner may still write it

    def log(self, system_index: int, language: str | None = None) -> _Log:
        """A system's answer log; ``language``: one the run asks after its first."""
        return _Log(self, system_index, language)

    def archive(self, name: str, data: bytes) -> None:
        self.jobs.write_archive(self.experiment_id, name, data)

    def blob(self, sha256: str) -> bytes:
        return self.jobs.file(self.experiment_id, sha256)


def _sha(value: str) -> str:
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ServiceError(f"not a SHA-256 file name: {value!r}")
    return value
