"""Durable state of running experiments, next to the store: what to run and what is done.

A restart must not lose an experiment nor ask a QA service again what it already answered. Per
experiment the directory ``STORE/jobs/{id}/`` holds:

* ``job.json``: the whole job (dataset, systems, uploaded answers, profile…), written once,
  atomically (temporary file, fsync, rename) before the job is queued;
* ``answers/{n}.jsonl``: one line per answer of the n-th system, appended and fsynced as each
  answer arrives, so a killed process loses at most the calls in flight; a torn last line (a
  kill in the middle of a write) is dropped on reading;
* ``cancel``: present when someone asked to cancel (the CLI can do so while a server process
  runs the job; the runner watches for it).

The status (queued, running, interrupted, finished…) and progress live in the store's admin
graph, as the web layer reads them there. Jobs are JSON through a small codec of the model's
frozen dataclasses (types named in the file, decoded only from an allow-list).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service.errors import NotFound, ServiceError
from service.model import SystemAnswer

_TYPE = "__type__"
_ENUM = "__enum__"


def _registry() -> dict[str, type]:
    from service import errors, model
    from service.web import runner

    classes: list[type] = [
        model.Term,
        model.TermKind,
        model.AnswerSet,
        model.Annotation,
        model.QuestionText,
        model.Question,
        model.Dataset,
        model.SystemAnswer,
        errors.Problem,
        runner.ExperimentJob,
        runner.SystemSpec,
        runner.Upload,
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
    """The inverse of :func:`encode` (lists become tuples, as in the model)."""
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
    if name not in known:
        raise ServiceError(f"unknown type {name!r} in a stored job")
    cls = known[name]
    names = {f.name for f in dataclasses.fields(cls)}
    # Fields added since the job was written take their defaults; unknown ones are an error.
    unknown = set(data) - names - {_TYPE}
    if unknown:
        raise ServiceError(f"stored {name} has fields this version does not know: {unknown}")
    return cls(**{k: decode(v, known) for k, v in data.items() if k != _TYPE})


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
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

    def save(self, job: Any) -> None:
        data = json.dumps(encode(job), ensure_ascii=False).encode("utf-8")
        _write_atomically(self._dir(job.experiment_id) / "job.json", data)

    def has(self, experiment_id: str) -> bool:
        return (self._dir(experiment_id) / "job.json").is_file()

    def load(self, experiment_id: str) -> Any:
        path = self._dir(experiment_id) / "job.json"
        if not path.is_file():
            raise NotFound(f"no saved job for experiment {experiment_id} (nothing to resume)")
        return decode(json.loads(path.read_text(encoding="utf-8")))

    def ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / "job.json").is_file())

    def append(self, experiment_id: str, system_index: int, answer: SystemAnswer) -> None:
        path = self._dir(experiment_id) / "answers" / f"{system_index}.jsonl"
        line = json.dumps(encode(answer), ensure_ascii=False) + "\n"
        with self._lock:
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

    def progress(self, experiment_id: str, systems: int) -> list[int]:
        """Answers recorded per system (questions done per task)."""
        return [len(self.answers(experiment_id, n)) for n in range(systems)]

    def request_cancel(self, experiment_id: str) -> None:
        _write_atomically(self._dir(experiment_id) / "cancel", b"cancel\n")

    def cancel_requested(self, experiment_id: str) -> bool:
        return (self._dir(experiment_id) / "cancel").exists()

    def clear_cancel(self, experiment_id: str) -> None:
        (self._dir(experiment_id) / "cancel").unlink(missing_ok=True)

    def remove(self, experiment_id: str) -> None:
        shutil.rmtree(self._dir(experiment_id), ignore_errors=True)

    def write_archive(self, experiment_id: str, name: str, data: bytes) -> Path:
        """Keep an answer file of the experiment (``STORE/answers/{id}/{name}``)."""
        path = self.root.parent / "answers" / experiment_id / name
        _write_atomically(path, data)
        return path
