"""Durable state of queued and running experiments, beside the store: what to run, what is done.

A restart must not lose an experiment nor ask a QA service again what it already answered. Per
experiment the directory ``STORE/jobs/{id}/`` holds:

* ``files/{sha256}``: each uploaded file as it came (the dataset, answer files), written first;
* ``spec.json``: the experiment's :class:`~service.experiments.spec.ExperimentSpec` (a few
  hundred bytes: files are named by their SHA-256), written last, atomically (temporary file,
  fsync, rename): a job exists once its spec does;
* ``answers/{n}.jsonl``: one line per answer of the n-th system, appended and fsynced as each
  answer arrives, so a killed process loses at most the calls in flight; a torn last line (a
  kill in the middle of a write) is dropped on reading;
* ``progress.json``: the newest :class:`~service.experiments.progress.RunProgress`, replaced
  atomically (what a status poll reads: one small file, whatever the size of the uploads);
* ``cancel``: present when someone asked to cancel (the CLI can do so while a server process
  runs the job; the runner watches for it).

Answer files a run produced (a web service's answers) are kept in ``STORE/answers/{id}/`` and
outlive the job. The status (queued, running, …) lives in the store's admin graph.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.errors import NotFound, ServiceError
from service.experiments.progress import RunProgress
from service.experiments.spec import ExperimentSpec
from service.model import SystemAnswer

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
        raise ServiceError(f"unknown type {name!r} in a stored job")
    cls = known[name]
    names = {f.name for f in dataclasses.fields(cls)}
    # Fields added since the job was written take their defaults; unknown ones are an error.
    unknown = set(data) - names - {_TYPE}
    if unknown:
        raise ServiceError(f"stored {name} has fields this version does not know: {unknown}")
    return cls(**{k: decode(v, known) for k, v in data.items() if k != _TYPE})


def write_atomically(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Replace ``path`` with ``data`` in one rename (a reader sees the old or the new file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            if sync:
                os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


class JobStore:
    """The ``jobs/`` directory of a store (see the module docstring)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()

    def _dir(self, experiment_id: str) -> Path:
        if not experiment_id.isdigit():
            raise NotFound(f"no experiment {experiment_id!r}")
        return self.root / experiment_id

    # -- the job -----------------------------------------------------------------------------
    def create(
        self, experiment_id: str, spec: ExperimentSpec, files: Mapping[str, bytes] = {}
    ) -> None:
        """Save a job: its uploaded files (by SHA-256), then its spec (the job exists once it
        is written)."""
        directory = self._dir(experiment_id)
        for sha, data in files.items():
            write_atomically(directory / "files" / _sha(sha), data)
        data = json.dumps(spec.to_json(), ensure_ascii=False, sort_keys=True).encode("utf-8")
        write_atomically(directory / "spec.json", data)

    def has(self, experiment_id: str) -> bool:
        return (self._dir(experiment_id) / "spec.json").is_file()

    def spec(self, experiment_id: str) -> ExperimentSpec:
        path = self._dir(experiment_id) / "spec.json"
        if not path.is_file():
            raise NotFound(f"no saved job for experiment {experiment_id} (nothing to resume)")
        return ExperimentSpec.from_json(json.loads(path.read_text(encoding="utf-8")))

    def file(self, experiment_id: str, sha256: str) -> bytes:
        path = self._dir(experiment_id) / "files" / _sha(sha256)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise NotFound(f"job {experiment_id} has no file {sha256}") from None

    def ids(self) -> list[str]:
        """Experiments with a saved job (a spec)."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / "spec.json").is_file())

    def remove(self, experiment_id: str) -> None:
        shutil.rmtree(self._dir(experiment_id), ignore_errors=True)

    # -- answers as they arrive --------------------------------------------------------------
    def append(self, experiment_id: str, system_index: int, answer: SystemAnswer) -> None:
        path = self._dir(experiment_id) / "answers" / f"{system_index}.jsonl"
        line = json.dumps(encode(answer), ensure_ascii=False) + "\n"
        with self._lock:
            if not self.has(experiment_id):  # recorded and removed (by another replica): no log
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as out:
                out.write(line)
                out.flush()
                os.fsync(out.fileno())

    def answers(self, experiment_id: str, system_index: int) -> dict[str, SystemAnswer]:
        """The answers recorded so far for one system (a torn last line is dropped)."""
        path = self._dir(experiment_id) / "answers" / f"{system_index}.jsonl"
        if not path.is_file():
            return {}
        found: dict[str, SystemAnswer] = {}
        lines = path.read_text(encoding="utf-8").split("\n")
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                answer = decode(json.loads(line))
            except json.JSONDecodeError:
                if number >= len(lines) - 1:
                    break  # the write a kill interrupted: that call is simply asked again
                raise ServiceError(f"{path}:{number}: damaged answer record") from None
            found[answer.question_id] = answer
        return found

    def answered(self, experiment_id: str, system_index: int) -> int:
        """How many answers are logged for one system (lines counted, nothing decoded)."""
        path = self._dir(experiment_id) / "answers" / f"{system_index}.jsonl"
        if not path.is_file():
            return 0
        with path.open("rb") as handle:
            return sum(1 for line in handle if line.endswith(b"\n") and line.strip())

    # -- progress and cancellation -----------------------------------------------------------
    def write_progress(self, experiment_id: str, progress: RunProgress) -> None:
        data = json.dumps(progress.to_json(), ensure_ascii=False).encode("utf-8")
        write_atomically(self._dir(experiment_id) / "progress.json", data, sync=False)

    def progress(self, experiment_id: str) -> RunProgress | None:
        """The newest progress written (one small file), or None."""
        try:
            text = (self._dir(experiment_id) / "progress.json").read_text(encoding="utf-8")
        except (FileNotFoundError, NotFound):
            return None
        return RunProgress.from_json(json.loads(text))

    def request_cancel(self, experiment_id: str) -> None:
        write_atomically(self._dir(experiment_id) / "cancel", b"cancel\n")

    def cancel_requested(self, experiment_id: str) -> bool:
        return (self._dir(experiment_id) / "cancel").exists()

    def clear_cancel(self, experiment_id: str) -> None:
        (self._dir(experiment_id) / "cancel").unlink(missing_ok=True)

    # -- what outlives the job ---------------------------------------------------------------
    def write_archive(self, experiment_id: str, name: str, data: bytes) -> Path:
        """Keep an answer file of the experiment (``STORE/answers/{id}/{name}``)."""
        path = self.root.parent / "answers" / experiment_id / name
        write_atomically(path, data)
        return path

    def files_of(
        self, experiment_id: str, *, holding: Callable[[], bool] = lambda: True
    ) -> JobFiles:
        return JobFiles(self, experiment_id, holding)


class _Log:
    def __init__(self, files: JobFiles, index: int) -> None:
        self._files, self._index = files, index

    def done(self) -> dict[str, SystemAnswer]:
        return self._files.jobs.answers(self._files.experiment_id, self._index)

    def append(self, answer: SystemAnswer) -> None:
        if self._files.holding():  # a runner whose claim lapsed leaves the log to its successor
            self._files.jobs.append(self._files.experiment_id, self._index, answer)


@dataclass(frozen=True, slots=True)
class JobFiles:
    """One job's state, as ``run_experiment`` uses it (``JobState``)."""

    jobs: JobStore
    experiment_id: str
    holding: Callable[[], bool] = lambda: True  # whether this runner may still write it

    def log(self, system_index: int) -> _Log:
        return _Log(self, system_index)

    def archive(self, name: str, data: bytes) -> None:
        self.jobs.write_archive(self.experiment_id, name, data)

    def blob(self, sha256: str) -> bytes:
        return self.jobs.file(self.experiment_id, sha256)


def _sha(value: str) -> str:
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ServiceError(f"not a SHA-256 file name: {value!r}")
    return value
