"""What an experiment evaluates: :class:`ExperimentSpec`, frozen, and its JSON form.

A spec holds no parsed data, only references: a catalogue dataset by name (and version) or a
file (:class:`FileRef`: a local path, or an upload kept by its SHA-256 beside the job); the
systems as a tuple of kinds (:mod:`service.experiments.systems`); the scorer profile, the
languages, the experiment types, the knowledge base and the run options. Its JSON form
(:meth:`ExperimentSpec.to_json`) is what a job stores, a few hundred bytes whatever the size of
the uploads, and reading it back (:meth:`ExperimentSpec.from_json`) gives an equal spec:

>>> spec = ExperimentSpec(CatalogueDataset("qald-9-test-multilingual"), ())
>>> ExperimentSpec.from_json(spec.to_json()) == spec
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.call_settings import CALL_SETTINGS, CALLED, CallSetting
from service.dataset_about import About, about_from_json, about_json
from service.errors import BadRequest
from service.evaluation.profiles import DEFAULT_PROFILE

if TYPE_CHECKING:
    from service.experiments.systems import SystemSource

SPEC_VERSION = 1


@dataclass(frozen=True, slots=True)
class FileRef:
    """A file an experiment reads: a local ``path`` (the CLI), or an upload kept by its
    ``sha256`` (the API; the bytes live beside the job). ``format`` is the declared format
    (None: sniffed from the content)."""

    name: str
    sha256: str | None = None
    size: int | None = None
    path: str | None = None
    format: str | None = None

    @classmethod
    def local(cls, path: str | Path, *, format: str | None = None) -> FileRef:
        return cls(Path(path).name, path=str(path), format=format)

    @classmethod
    def upload(cls, name: str, data: bytes, *, format: str | None = None) -> FileRef:
        import hashlib

        return cls(name, hashlib.sha256(data).hexdigest(), len(data), format=format)

    def to_json(self) -> dict[str, Any]:
        return _compact(
            {
                "name": self.name,
                "sha256": self.sha256,
                "size": self.size,
                "path": self.path,
                "format": self.format,
            }
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FileRef:
        return cls(
            _text(data, "name"),
            data.get("sha256"),
            data.get("size"),
            data.get("path"),
            data.get("format"),
        )


@dataclass(frozen=True, slots=True)
class CatalogueDataset:
    """A dataset of the built-in catalogue, by name; ``version`` None is the catalogue's."""

    name: str
    version: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _compact({"kind": "catalogue", "name": self.name, "version": self.version})


@dataclass(frozen=True, slots=True)
class FileDataset:
    """A dataset file; ``questions``: a PolEval ``expected.tsv``'s ``in.tsv`` (its question
    texts), uploaded with it or found beside it, kept with it as a second file; ``title``
    names it in the results (default: its id or file name); ``version_of``: the
    registered version of a catalogue dataset it is the kept file of (the graph links that
    version; its dataset's KB is the one system queries run on)."""

    file: FileRef
    title: str | None = None
    version_of: CatalogueDataset | None = None
    about: About = ()  # what its author says of it (``service.dataset_about``)
    questions: FileRef | None = None

    def to_json(self) -> dict[str, Any]:
        about = about_json(self.about) if self.about else None
        return _compact(
            {
                "kind": "file",
                "file": self.file.to_json(),
                "questions": self.questions.to_json() if self.questions else None,
                "title": self.title,
                "versionOf": self.version_of.to_json() if self.version_of else None,
                "about": about,
            }
        )


DatasetSource = CatalogueDataset | FileDataset


def dataset_from_json(data: Mapping[str, Any]) -> DatasetSource:
    kind = data.get("kind")
    if kind == "catalogue":
        return CatalogueDataset(_text(data, "name"), data.get("version"))
    if kind == "file":
        version_of = data.get("versionOf")
        return FileDataset(
            FileRef.from_json(data["file"]),
            data.get("title"),
            CatalogueDataset(version_of["name"], version_of.get("version")) if version_of else None,
            about_from_json(data.get("about")),
            FileRef.from_json(data["questions"]) if data.get("questions") else None,
        )
    raise BadRequest(f"unknown dataset kind {kind!r} in a stored spec")


@dataclass(frozen=True, slots=True)
class KBSpec:
    """A knowledge base: RDF files or one SPARQL endpoint URL (``sources``), its version for
    the record, and the configured name it was chosen by (the API), if any."""

    sources: tuple[str, ...]
    version: str | None = None
    name: str | None = None

    def to_json(self) -> dict[str, Any]:
        return _compact({"sources": list(self.sources), "version": self.version, "name": self.name})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KBSpec:
        return cls(tuple(data["sources"]), data.get("version"), data.get("name"))


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How to run: ``ranked`` answers (MRR, Hits@k); ``publish`` once recorded; ``force``
    scoring answers whose question ids barely match the dataset's; per web service
    ``concurrency`` calls in flight, ``timeout`` seconds per call and ``retries``."""

    ranked: bool = False
    publish: bool = False
    force: bool = False
    concurrency: int = int(CALLED["concurrency"].default)
    timeout: float = CALLED["timeout"].default
    retries: int = int(CALLED["retries"].default)
    max_error_rate: float = CALLED["maxErrorRate"].default
    revision_of: str | None = None  # the experiment this run revises (re-scores or replaces)
    # a re-scoring that revises another experiment than the one whose answers it scores (a
    # newer run's answers moved onto a dataset version where an older one's stand): that one
    answers_of: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ranked": self.ranked,
            "publish": self.publish,
            "force": self.force,
            "concurrency": self.concurrency,
            "timeout": self.timeout,
            "retries": self.retries,
            "maxErrorRate": self.max_error_rate,
            **({"revisionOf": self.revision_of} if self.revision_of else {}),
            **({"answersOf": self.answers_of} if self.answers_of else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunOptions:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        if data.get("revisionOf"):
            known["revision_of"] = str(data["revisionOf"])
        if data.get("answersOf"):
            known["answers_of"] = str(data["answersOf"])
        if data.get("maxErrorRate") is not None:  # a spec kept before it has none
            known["max_error_rate"] = float(data["maxErrorRate"])
        return cls(**known)


def call_settings_of(spec: ExperimentSpec) -> tuple[tuple[CallSetting, float], ...]:
    """How ``spec``'s web services were called (each setting and its value); nothing when it
    asked none (answer files, references)."""
    if all(s.from_files or s.kind == "reference" for s in spec.systems):
        return ()
    return tuple((c, float(getattr(spec.options, c.field))) for c in CALL_SETTINGS)


@dataclass(frozen=True, slots=True)
class ExperimentSpec:
    """Everything that defines one experiment (module docstring).

    ``languages`` empty means the profile's default language; ``experiment_types`` empty
    means QA plus every sub-experiment the answers have data for. ``gold``, when given, is a
    separate source of gold answers for ``dataset``'s questions (read by a later reader).
    """

    dataset: DatasetSource
    systems: tuple[SystemSource, ...]
    profile: str = DEFAULT_PROFILE
    languages: tuple[str, ...] = ()
    experiment_types: tuple[str, ...] = ()
    kb: KBSpec | None = None
    gold: DatasetSource | None = None
    options: RunOptions = field(default_factory=RunOptions)

    def files(self) -> tuple[FileRef, ...]:
        """Every file the spec reads (the dataset's, the gold's and the answer files)."""
        out = [s.file for s in (self.dataset, self.gold) if isinstance(s, FileDataset)]
        if isinstance(self.dataset, FileDataset) and self.dataset.questions is not None:
            out.append(self.dataset.questions)
        out += [f for system in self.systems for f in system.files()]
        return tuple(out)

    def summary(self) -> str:
        """One line of JSON naming what was asked (kept with the experiment's status)."""
        import json

        dataset = self.dataset
        named = (
            dataset.name if isinstance(dataset, CatalogueDataset) else dataset.title
        ) or dataset.file.name  # type: ignore[union-attr]
        return json.dumps(
            {
                "dataset": named,
                "catalogued": isinstance(dataset, CatalogueDataset),
                "systems": [{"name": s.name, "kind": s.kind} for s in self.systems],
                "profile": self.profile,
                "languages": list(self.languages),
                "experimentTypes": list(self.experiment_types),
                "kb": self.kb.name if self.kb else None,
            },
            sort_keys=True,
        )

    def to_json(self) -> dict[str, Any]:
        return _compact(
            {
                "version": SPEC_VERSION,
                "dataset": self.dataset.to_json(),
                "systems": [s.to_json() for s in self.systems],
                "profile": self.profile,
                "languages": list(self.languages),
                "experimentTypes": list(self.experiment_types),
                "kb": self.kb.to_json() if self.kb else None,
                "gold": self.gold.to_json() if self.gold else None,
                "options": self.options.to_json(),
            }
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExperimentSpec:
        from service.experiments.systems import system_from_json

        if data.get("version") != SPEC_VERSION:
            raise BadRequest(f"a stored spec of version {data.get('version')!r} cannot be read")
        return cls(
            dataset=dataset_from_json(data["dataset"]),
            systems=tuple(system_from_json(s) for s in data.get("systems", [])),
            profile=data.get("profile", "fair"),
            languages=tuple(data.get("languages", ())),
            experiment_types=tuple(data.get("experimentTypes", ())),
            kb=KBSpec.from_json(data["kb"]) if data.get("kb") else None,
            gold=dataset_from_json(data["gold"]) if data.get("gold") else None,
            options=RunOptions.from_json(data.get("options", {})),
        )


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise BadRequest(f"a stored spec has no {key!r}")
    return value
