"""Reading and validating a submission before anything is queued.

A submission names a dataset (a catalogue name, or an uploaded file), its systems (uploaded
answer files, or QA web-service URLs), a scorer profile, a language, experiment types and
optionally a configured knowledge base. Every file is read here with ``service.formats.read``,
so an upload gets exactly the errors ``gerbil-qa validate`` prints (file, line/column or JSON
path, question id, what was expected); URLs are checked against the network policy. Only a
submission that passes every check gets an experiment id.

Two encodings are accepted (see ``openapi.py``): ``multipart/form-data`` (fields ``dataset`` or
file ``dataset_file``; files ``answers`` (one per system, named after the file unless
``answers_name`` gives names in the same order); fields ``webservice`` as ``name=url`` or a bare
URL; ``profile``, ``language``, ``experiment_type`` (repeatable), ``kb``) and JSON (the same, with
file contents inline as text).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from service.errors import BadRequest, FormatError, Problem
from service.model import Dataset

LANGUAGE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$")
SYSTEM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+()-]{0,79}$")


@dataclass(frozen=True, slots=True)
class FileUpload:
    """A file as it came in: its name, bytes and an optional declared format."""

    filename: str
    data: bytes
    format: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True, slots=True)
class RawSystem:
    name: str | None
    answers: FileUpload | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class RawSubmission:
    """The submission as sent, before validation."""

    dataset_name: str | None
    dataset_file: FileUpload | None
    systems: tuple[RawSystem, ...]
    profile: str | None
    language: str | None
    experiment_types: tuple[str, ...]
    kb: str | None
    title: str | None = None


def from_form(form: Any, files: Any) -> RawSubmission:
    """A ``multipart/form-data`` submission (Werkzeug ``MultiDict`` form and files)."""
    dataset_file = None
    upload = files.get("dataset_file") or files.get("dataset")
    if upload is not None and upload.filename:
        dataset_file = FileUpload(upload.filename, upload.read(), form.get("dataset_format"))
    names = form.getlist("answers_name")
    systems: list[RawSystem] = []
    for n, item in enumerate(files.getlist("answers")):
        if not item.filename:
            continue
        name = names[n] if n < len(names) and names[n].strip() else None
        systems.append(RawSystem(name, FileUpload(item.filename, item.read(), None)))
    for value in form.getlist("webservice"):
        name, sep, url = value.partition("=")
        if sep and not name.lower().startswith(("http:", "https:")):
            systems.append(RawSystem(name.strip(), url=url.strip()))
        else:
            systems.append(RawSystem(None, url=value.strip()))
    return RawSubmission(
        dataset_name=form.get("dataset") or None,
        dataset_file=dataset_file,
        systems=tuple(systems),
        profile=form.get("profile"),
        language=form.get("language"),
        experiment_types=tuple(form.getlist("experiment_type")),
        kb=form.get("kb") or None,
        title=form.get("title") or None,
    )


def _inline_file(value: Any, where: str, default_name: str) -> FileUpload:
    if isinstance(value, str):
        return FileUpload(default_name, value.encode("utf-8"))
    if not isinstance(value, dict) or not isinstance(value.get("content"), str):
        raise BadRequest(f"{where}: expected a string or an object with 'content' (text)")
    return FileUpload(
        str(value.get("filename") or default_name),
        value["content"].encode("utf-8"),
        value.get("format"),
    )


def from_json(data: Any) -> RawSubmission:
    """A JSON submission (see the OpenAPI document for the schema)."""
    if not isinstance(data, dict):
        raise BadRequest("the JSON body must be an object")
    dataset = data.get("dataset")
    dataset_name = dataset if isinstance(dataset, str) else None
    dataset_file = None
    if isinstance(dataset, dict):
        dataset_file = _inline_file(dataset, "$.dataset", "dataset.json")
    elif dataset is not None and not isinstance(dataset, str):
        raise BadRequest("$.dataset: expected a catalogue name or an object with 'content'")
    raw_systems = data.get("systems")
    if not isinstance(raw_systems, list):
        raise BadRequest("$.systems: expected a list of systems")
    systems = []
    for n, item in enumerate(raw_systems):
        where = f"$.systems[{n}]"
        if not isinstance(item, dict):
            raise BadRequest(f"{where}: expected an object with 'name' and 'answers' or 'url'")
        answers = item.get("answers")
        systems.append(
            RawSystem(
                item.get("name"),
                answers=_inline_file(answers, f"{where}.answers", f"system-{n + 1}.json")
                if answers is not None
                else None,
                url=item.get("url"),
            )
        )
    types = data.get("experimentTypes") or []
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise BadRequest('$.experimentTypes: expected a list of names such as "QA"')
    return RawSubmission(
        dataset_name=dataset_name,
        dataset_file=dataset_file,
        systems=tuple(systems),
        profile=data.get("profile"),
        language=data.get("language"),
        experiment_types=tuple(types),
        kb=data.get("kb"),
        title=data.get("title"),
    )


@dataclass(frozen=True, slots=True)
class ValidSystem:
    name: str
    answers: Dataset | None
    url: str | None
    upload: FileUpload | None


@dataclass(frozen=True, slots=True)
class ValidSubmission:
    dataset: Dataset
    dataset_name: str
    catalogued: bool
    dataset_upload: FileUpload | None
    systems: tuple[ValidSystem, ...]
    profile: str
    language: str
    experiment_types: tuple[str, ...] | None
    kb: tuple[str, ...]
    kb_name: str | None

    def summary(self) -> str:
        """A JSON line stored with the queued experiment (what was asked, no file contents)."""
        return json.dumps(
            {
                "dataset": self.dataset_name,
                "catalogued": self.catalogued,
                "systems": [
                    {"name": s.name, "url": s.url, "file": s.upload.filename if s.upload else None}
                    for s in self.systems
                ],
                "profile": self.profile,
                "language": self.language,
                "experimentTypes": list(self.experiment_types or ()),
                "kb": self.kb_name,
            },
            sort_keys=True,
        )


def _read(upload: FileUpload, *, language: str) -> Dataset:
    from service import formats

    name = PurePosixPath(upload.filename).name or "upload"
    return formats.read(upload.data, format=upload.format, name=name, language=language)


def validate(
    raw: RawSubmission,
    *,
    kbs: dict[str, tuple[str, ...]],
    policy: Any = None,
    default_profile: str = "fair",
) -> ValidSubmission:
    """Check everything (raises ``BadRequest``/``FormatError``/``UnsafeURL``); nothing is stored."""
    from service import catalog
    from service.evaluation.profiles import get_profile
    from service.evaluation.results import ExperimentType

    profile = get_profile(raw.profile or default_profile)
    language = (raw.language or profile.default_language).strip()
    if not LANGUAGE.match(language):
        raise BadRequest(f"language {language!r}: expected an ISO 639 code such as 'en'")
    types: tuple[str, ...] | None = None
    if raw.experiment_types:
        known = [e.value for e in ExperimentType]
        for value in raw.experiment_types:
            if value not in known:
                raise BadRequest(
                    f"unknown experiment type {value!r}; expected some of {', '.join(known)}"
                )
        types = tuple(dict.fromkeys(raw.experiment_types))
    kb: tuple[str, ...] = ()
    if raw.kb:
        if raw.kb not in kbs:
            known = ", ".join(sorted(kbs)) or "none configured"
            raise BadRequest(f"unknown knowledge base {raw.kb!r}; known: {known}")
        kb = kbs[raw.kb]

    if raw.dataset_file is not None and raw.dataset_name:
        raise BadRequest("give either a catalogue dataset name or a dataset file, not both")
    if raw.dataset_file is not None:
        dataset = _read(raw.dataset_file, language=language)
        name = raw.title or PurePosixPath(raw.dataset_file.filename).stem or "dataset"
        catalogued = False
    elif raw.dataset_name:
        entry = catalog.get_entry(raw.dataset_name)
        dataset = catalog.load(entry.name)
        name = entry.name
        catalogued = True
    else:
        raise BadRequest("no dataset: give a catalogue name ('dataset') or upload a file")
    if not dataset.questions:
        raise FormatError(Problem("the dataset has no questions", file=dataset.source))
    if not any(q.answers is not None for q in dataset.questions):
        raise FormatError(
            Problem(
                "the dataset has no gold answers, so nothing can be scored",
                file=dataset.source,
                expected="questions with answers",
            )
        )

    if not raw.systems:
        raise BadRequest("no systems: upload answer files ('answers') or give web-service URLs")
    systems: list[ValidSystem] = []
    seen: set[str] = set()
    for n, system in enumerate(raw.systems, start=1):
        if (system.answers is None) == (system.url is None):
            raise BadRequest(f"system {n}: give either an answer file or a web-service URL")
        if system.answers is not None:
            name_of = system.name or PurePosixPath(system.answers.filename).stem
            answers = _read(system.answers, language=language)
            url = None
        else:
            from service.systems.webservice import WebService

            url = (system.url or "").strip()
            name_of = system.name or _name_from_url(url)
            service = (
                WebService(url, name=name_of, policy=policy)
                if policy
                else WebService(url, name=name_of)
            )
            service.check()
            answers = None
        name_of = name_of.strip()
        if not SYSTEM_NAME.match(name_of):
            raise BadRequest(
                f"system {n}: name {name_of!r} must be 1-80 letters, digits, spaces or ._+()-"
            )
        if name_of in seen:
            raise BadRequest(f"two systems are called {name_of!r}; give each a distinct name")
        seen.add(name_of)
        systems.append(ValidSystem(name_of, answers, url, system.answers))
    return ValidSubmission(
        dataset=dataset,
        dataset_name=name,
        catalogued=catalogued,
        dataset_upload=raw.dataset_file,
        systems=tuple(systems),
        profile=profile.name,
        language=language,
        experiment_types=types,
        kb=kb,
        kb_name=raw.kb,
    )


def _name_from_url(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    text = (parts.hostname or "service") + (f"-{parts.port}" if parts.port else "")
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text)[:80]
