"""The kinds of system an experiment can evaluate: one frozen class each, one registration.

Each kind names its system, says which files it reads, checks what can be checked before a
run (:meth:`check`: an address against the network policy, a KB it needs) and obtains the
system's answers to a dataset (:meth:`obtain`), with their files to record as PROV entities:

- :class:`AnswerFile`: an answer file (a local path or an upload), any supported format; what
  ``gerbil-qa system run`` keeps per question (``error``, ``runtimeMs``) is read back;
- :class:`WebService`: a QA web service (POST ``query`` and ``lang``), asked question by
  question; each answer is appended to the job's log as it arrives, so a resumed run asks only
  what is missing, and the answers are archived as an answer file;
- :class:`Reference`: a reference system that runs here (``gold-sparql``, ``baseline``) over the
  experiment's KB, asked in process, archived like a web service's answers.

Adding a kind (e.g. a Text2SPARQL service: GET ``question`` and ``dataset``, a SPARQL query back
that we run on the KB) is one class with ``kind``, ``to_json``/``from_json``, ``files``,
``check`` and ``obtain``, plus its entry in :data:`SYSTEM_KINDS`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from service.errors import BadRequest, ServiceError
from service.experiments.spec import FileRef, RunOptions

if TYPE_CHECKING:
    from service.experiments.inputs import Files
    from service.graph.results import SystemInfo, UploadedFile
    from service.kb import KnowledgeBase
    from service.model import Dataset, SystemAnswer, SystemRun
    from service.systems.safety import NetworkPolicy

SYSTEM_NAME = re.compile(r"^\w[\w .+()@,:'-]{0,119}$")


class Cancelled(ServiceError):
    """The run was cancelled; what was asked so far is kept for a resume."""

    status = 409


class Aborted(ServiceError):
    """A system failed too often (GERBIL's error-rate rule); the experiment ends in error."""

    status = 422


if TYPE_CHECKING:  # typing only: a Protocol class costs ~2M instructions at import (evaluate)

    class CancelSignal(Protocol):
        """Set when the run is to stop (a ``threading.Event``)."""

        def is_set(self) -> bool: ...

    class AnswerLog(Protocol):
        """Where a system's answers are kept as they arrive (the job's log), for a resume."""

        def done(self) -> dict[str, SystemAnswer]: ...

        def append(self, answer: SystemAnswer) -> None: ...

    class SystemSource(Protocol):
        kind: ClassVar[str]
        from_files: ClassVar[bool]  # its answers are read from files (nothing is asked)

        @property
        def name(self) -> str: ...

        def to_json(self) -> dict[str, Any]: ...

        def files(self) -> tuple[FileRef, ...]: ...

        def info(self) -> SystemInfo: ...

        def check(self, *, policy: NetworkPolicy | None, has_kb: bool) -> None: ...

        def obtain(self, ctx: SystemContext) -> Obtained: ...


@dataclass(frozen=True, slots=True)
class SystemContext:
    """What a system kind needs to obtain its answers (built by ``run_experiment``)."""

    index: int
    dataset: Dataset
    language: str
    options: RunOptions
    files: Files
    cancel: CancelSignal
    progress: Callable[[int, int], None]  # questions done, of the total
    answered: Callable[[SystemAnswer], None]  # each answer as it arrives (errors are counted)
    kb: KnowledgeBase | None = None
    policy: NetworkPolicy | None = None
    log: AnswerLog | None = None
    archive: Callable[[str, bytes], None] | None = None  # keeps a file beside the store


@dataclass(frozen=True, slots=True)
class FileEntity:
    """A file a system's answers came from, recorded as a ``prov:used`` entity with its
    SHA-256 (read from ``ref`` when it is recorded, if not known)."""

    name: str
    system: str
    role: str = "answers"
    media_type: str | None = None
    ref: FileRef | None = None
    sha256: str | None = None
    size: int | None = None

    def uploaded(self, files: Files) -> UploadedFile:
        from service.graph.results import UploadedFile

        sha, size = self.sha256, self.size
        if (sha is None or size is None) and self.ref is not None:
            sha, size = files.checksum(self.ref)
        return UploadedFile(
            self.name, sha or "", size or 0, self.role, self.system, self.media_type
        )


@dataclass(frozen=True, slots=True)
class Obtained:
    """A system's answers and the files to record with them."""

    run: SystemRun
    files: tuple[FileEntity, ...] = ()


def check_name(name: str, n: int) -> str:
    """A system's name as recorded (its URI is ``system/{name}``); BadRequest otherwise."""
    text = name.strip() if isinstance(name, str) else ""
    if not SYSTEM_NAME.match(text):
        raise BadRequest(
            f"system {n}: name {name!r} must be 1-120 letters, digits, spaces or _.+()@,:'- "
            "(starting with a letter, digit or _)"
        )
    return text


# -- answer files ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnswerFile:
    """A system's answer file."""

    kind: ClassVar[str] = "answers"
    from_files: ClassVar[bool] = True
    name: str
    file: FileRef
    label: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "name": self.name, "file": self.file.to_json()}
        return {**out, "label": self.label} if self.label else out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AnswerFile:
        return cls(str(data["name"]), FileRef.from_json(data["file"]), data.get("label"))

    def files(self) -> tuple[FileRef, ...]:
        return (self.file,)

    def info(self) -> SystemInfo:
        from service.graph.results import SystemInfo

        return SystemInfo(self.name, label=self.label)

    def check(self, *, policy: NetworkPolicy | None, has_kb: bool) -> None:
        pass

    def obtain(self, ctx: SystemContext) -> Obtained:
        from service.experiments.inputs import check_answer_ids, media_type_of
        from service.systems.archive import answers_from

        parsed = ctx.files.dataset(self.file, language=ctx.language)
        run = answers_from(parsed, system=self.name, language=ctx.language)
        check_answer_ids(ctx.dataset, run, force=ctx.options.force, where=self.file.name)
        ctx.progress(len(run.answers), len(run.answers))
        entity = FileEntity(
            self.file.name, self.name, media_type=media_type_of(parsed), ref=self.file
        )
        return Obtained(run, (entity,))


# -- QA web services ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WebService:
    """A QA web service at ``url`` (GERBIL QA's interface)."""

    kind: ClassVar[str] = "webservice"
    from_files: ClassVar[bool] = False
    name: str
    url: str
    label: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "name": self.name, "url": self.url}
        return {**out, "label": self.label} if self.label else out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WebService:
        return cls(str(data["name"]), str(data["url"]), data.get("label"))

    def files(self) -> tuple[FileRef, ...]:
        return ()

    def info(self) -> SystemInfo:
        from service.graph.results import SystemInfo

        return SystemInfo(self.name, label=self.label, endpoint=self.url)

    def _client(self, options: RunOptions, policy: NetworkPolicy | None) -> Any:
        from service.systems.webservice import WebService as Client

        settings: dict[str, Any] = {"policy": policy} if policy is not None else {}
        return Client(
            self.url,
            name=self.name,
            concurrency=options.concurrency,
            timeout=options.timeout,
            retries=options.retries,
            **settings,
        )

    def check(self, *, policy: NetworkPolicy | None, has_kb: bool) -> None:
        self._client(RunOptions(), policy).check()  # UnsafeURL names the rule

    def obtain(self, ctx: SystemContext) -> Obtained:
        import threading

        from service.systems.webservice import run_web_service

        done = ctx.log.done() if ctx.log is not None else {}
        for earlier in done.values():  # a resumed run: its errors so far are in the progress
            if earlier.error is not None:
                ctx.answered(earlier)

        def keep(answer: SystemAnswer) -> None:
            if ctx.log is not None:
                ctx.log.append(answer)
            ctx.answered(answer)

        result = run_web_service(
            ctx.dataset,
            self._client(ctx.options, ctx.policy),
            language=ctx.language,
            done=done,
            on_answer=keep,
            progress=ctx.progress,
            cancel=ctx.cancel if isinstance(ctx.cancel, threading.Event) else None,
        )
        if result.cancelled:
            asked = len(result.run.answers)
            raise Cancelled(
                f"cancelled while asking {self.name} ({asked} of {asked + len(result.pending)} "
                "questions answered; resume to continue)"
            )
        if result.aborted:
            total = len(result.run.answers)
            raise Aborted(
                f"system {self.name} was aborted by the error-rate rule ({result.aborted}): "
                f"{result.calls} of {total} questions asked, {result.errors} of them failed, "
                f"{total - result.calls} never asked"
            )
        return Obtained(result.run, _archived(result.run, ctx, self.name))


# -- reference systems ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reference:
    """A reference system that runs here: ``gold-sparql`` (the gold queries on the KB: its
    upper bound) or ``baseline`` (label matching over the KB)."""

    kind: ClassVar[str] = "reference"
    from_files: ClassVar[bool] = False
    name: str
    reference: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "reference": self.reference}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reference:
        return cls(str(data["name"]), str(data["reference"]))

    def files(self) -> tuple[FileRef, ...]:
        return ()

    def info(self) -> SystemInfo:
        from service.graph.results import SystemInfo

        return SystemInfo(self.name, description=f"reference system {self.reference}")

    def check(self, *, policy: NetworkPolicy | None, has_kb: bool) -> None:
        from service.systems.reference import SYSTEM_NAMES

        if self.reference not in SYSTEM_NAMES:
            raise BadRequest(
                f"unknown reference system {self.reference!r}; known: {', '.join(SYSTEM_NAMES)}"
            )
        if not has_kb:
            raise BadRequest(f"the reference system {self.reference} needs a knowledge base")

    def obtain(self, ctx: SystemContext) -> Obtained:
        from service.model import SystemRun
        from service.systems.reference import build_system

        if ctx.kb is None:
            raise BadRequest(f"the reference system {self.reference} needs a knowledge base")
        system = build_system(self.reference, kb=ctx.kb, dataset=ctx.dataset, language=ctx.language)
        done = ctx.log.done() if ctx.log is not None else {}
        askable = [q for q in ctx.dataset.by_id().values() if q.text(ctx.language) is not None]
        answers: dict[str, SystemAnswer] = {}
        for n, question in enumerate(askable, start=1):
            if ctx.cancel.is_set():
                raise Cancelled(f"cancelled while asking {self.name}; resume to continue")
            answer = done.get(question.id) or _ask(system, question.id, question, ctx.language)
            if question.id not in done and ctx.log is not None:
                ctx.log.append(answer)
            answers[question.id] = answer
            if question.id not in done:
                ctx.answered(answer)
            ctx.progress(n, len(askable))
        run = SystemRun(self.name, answers, source=f"reference system {self.reference}")
        return Obtained(run, _archived(run, ctx, self.name))


def _ask(system: Any, question_id: str, question: Any, language: str) -> SystemAnswer:
    import time

    from service.model import SystemAnswer

    start = time.perf_counter()
    try:
        reply = system.answer(question.text(language) or "", language)
    except ServiceError as err:
        return SystemAnswer(question_id, error=err.message)
    runtime = (time.perf_counter() - start) * 1000
    return SystemAnswer(
        question_id,
        answers=reply.answers,
        sparql=reply.sparql,
        answertype=reply.answertype,
        runtime_ms=runtime,
    )


def _archived(run: SystemRun, ctx: SystemContext, name: str) -> tuple[FileEntity, ...]:
    """The answers a system gave, kept as an answer file beside the store (so the experiment
    can be re-scored without the system) and recorded as an entity with its SHA-256."""
    import hashlib

    from service.systems.archive import answer_file

    data = answer_file(run, ctx.dataset, language=ctx.language)
    file_name = f"{ctx.index + 1}-{_safe(name)}.json"
    if ctx.archive is not None:
        ctx.archive(file_name, data)
    return (
        FileEntity(
            file_name,
            name,
            media_type="application/json",
            sha256=hashlib.sha256(data).hexdigest(),
            size=len(data),
        ),
    )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:60] or "system"


SYSTEM_KINDS: dict[str, type[Any]] = {
    kind.kind: kind for kind in (AnswerFile, WebService, Reference)
}
"""Every kind of system by its ``kind`` (the key a stored spec names it by)."""


def system_from_json(data: Mapping[str, Any]) -> SystemSource:
    kind = SYSTEM_KINDS.get(str(data.get("kind")))
    if kind is None:
        raise BadRequest(
            f"unknown system kind {data.get('kind')!r}; known: {', '.join(SYSTEM_KINDS)}"
        )
    system: SystemSource = kind.from_json(data)
    return system
