"""Systems that are asked question by question: QA web services and reference systems.

Two kinds of :mod:`service.experiments.systems` (registered in its ``SYSTEM_KINDS``), apart
from the answer-file kind so that ``gerbil-qa evaluate`` does not load them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from service.errors import BadRequest, ServiceError
from service.experiments.spec import FileRef, RunOptions
from service.experiments.systems import (
    Aborted,
    Cancelled,
    Obtained,
    OutOfTime,
    SystemContext,
    archived,
)

if TYPE_CHECKING:
    from service.graph.results import SystemInfo
    from service.model import SystemAnswer, SystemRun
    from service.systems.safety import NetworkPolicy
    from service.systems.secret_headers import Headers


# -- QA web services ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WebService:
    """A QA web service at ``url`` (GERBIL QA's interface)."""

    kind: ClassVar[str] = "webservice"
    interface: ClassVar[str] = "qa"
    from_files: ClassVar[bool] = False
    name: str
    url: str
    label: str | None = None
    # secret request headers (service.systems.secret_headers): their names are saved with the
    # job, so a resumed run knows what it lacks; their values live in this object only, for
    # as long as the run that was given them (never saved, compared or shown)
    header_names: tuple[str, ...] = ()
    headers: Headers = field(default=(), repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "name": self.name, "url": self.url}
        if self.header_names:
            out["secretHeaders"] = list(self.header_names)
        return {**out, "label": self.label} if self.label else out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WebService:
        names = tuple(str(n) for n in data.get("secretHeaders", ()))
        return cls(str(data["name"]), str(data["url"]), data.get("label"), names)

    def lacks_headers(self) -> str | None:
        """Why this service cannot be asked: the secret headers it was submitted with are
        gone (they are not kept once its run stops: a resumed run is refused)."""
        gone = self.headers_gone()
        return f"{gone}; submit the experiment again with them" if gone else None

    def headers_gone(self) -> str | None:
        """That the secret headers this service was submitted with are gone, or None."""
        if not self.header_names or self.headers:
            return None
        return (
            f"{self.name} was to be asked with secret request headers "
            f"({', '.join(self.header_names)}), whose values are not kept once its run stops"
        )

    def with_headers(self, headers: Headers) -> WebService:
        """This service asked with ``headers`` (checked by the caller)."""
        from dataclasses import replace

        return replace(self, header_names=tuple(n for n, _ in headers), headers=headers)

    def files(self) -> tuple[FileRef, ...]:
        return ()

    def info(self) -> SystemInfo:
        from service.graph.results import SystemInfo

        return SystemInfo(self.name, label=self.label, endpoint=self.url, interface=self.interface)

    def _client(
        self, options: RunOptions, policy: NetworkPolicy | None, *, dataset_id: str | None = None
    ) -> Any:
        from service.systems.webservice import WebService as Client

        settings: dict[str, Any] = {"policy": policy} if policy is not None else {}
        return Client(
            self.url,
            name=self.name,
            concurrency=options.concurrency,
            timeout=options.timeout,
            retries=options.retries,
            max_error_rate=options.max_error_rate,
            interface=self.interface,
            dataset_id=dataset_id,
            headers=self.headers,
            **settings,
        )

    def check(self, *, policy: NetworkPolicy | None, has_kb: bool) -> None:
        if self.lacks_headers():  # a resumed or taken-over run
            raise BadRequest(self.lacks_headers() or "")
        self._client(RunOptions(), policy).check()  # UnsafeURL names the rule

    def obtain(self, ctx: SystemContext) -> Obtained:
        import threading

        from service.systems.webservice import run_web_service

        done = ctx.log.done() if ctx.log is not None else {}
        for earlier in done.values():  # a resumed run: its errors so far are in the progress
            if earlier.error is not None:
                ctx.answered(earlier)

        clock = ctx.ask_clock  # the run's time for asking web services, if bounded
        if clock is not None and clock.seconds is None:
            clock = None

        def keep(answer: SystemAnswer) -> None:
            if ctx.log is not None:
                ctx.log.append(answer)
            ctx.answered(answer)

        result = run_web_service(
            ctx.dataset,
            self._client(ctx.options, ctx.policy, dataset_id=ctx.dataset.file_id),
            language=ctx.language,
            done=done,
            on_answer=keep,
            progress=ctx.progress,
            cancel=ctx.cancel if isinstance(ctx.cancel, threading.Event) else None,
            until=clock.until() if clock is not None else None,
            out_of_time=clock.reason() if clock is not None else "",
        )
        if result.cancelled:
            asked = len(result.run.answers)
            # its secret headers end with this run: no resume, a new submission
            then = "submit it again with its headers" if self.headers else "resume to continue"
            raise Cancelled(
                f"cancelled while asking {self.name} ({asked} of {asked + len(result.pending)} "
                f"questions answered; {then})"
            )
        if result.aborted:
            total = len(result.run.answers)
            if clock is not None and result.aborted == clock.reason():
                raise OutOfTime(
                    f"system {self.name} was stopped ({result.aborted}) while asked in "
                    f"{ctx.language or 'its language'}: {result.calls} of {total} questions "
                    f"asked there, {result.errors} of them failed; the answers got (this "
                    "language's and any earlier one's) are kept: resume the experiment to ask "
                    "the rest (a resume has the time again)"
                )
            how = "aborted by the error-rate rule"
            raise Aborted(
                f"system {self.name} was {how} ({result.aborted}): "
                f"in all, with the calls in flight when it stopped, {result.calls} of {total} "
                f"questions asked, {result.errors} of them failed, {total - result.calls} "
                "never asked"
            )
        return self._obtained(result.run, ctx)

    def _obtained(self, run: SystemRun, ctx: SystemContext) -> Obtained:
        return Obtained(run, archived(run, ctx, self.name))


@dataclass(frozen=True, slots=True)
class Text2SparqlService(WebService):
    """A Text2SPARQL service at ``url`` (TEXT2SPARQL'25: GET ``question`` and ``dataset``,
    answers ``{"query"}``): asked like a QA web service (same network policy, concurrency,
    time limits, retries, error reasons, resume), its queries archived as TEXT2SPARQL answers
    and run on the experiment's KB (:mod:`service.experiments.queries`)."""

    kind: ClassVar[str] = "text2sparql"
    interface: ClassVar[str] = "text2sparql"

    def _obtained(self, run: SystemRun, ctx: SystemContext) -> Obtained:
        from service.systems.archive import QUERY_FORMAT

        files = archived(run, ctx, self.name, format=QUERY_FORMAT)
        return Obtained(run, files, queries=True)


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
        from service.graph.queries import REFERENCE_NOTE
        from service.graph.results import SystemInfo

        return SystemInfo(
            self.name, description=f"{REFERENCE_NOTE}{self.reference}", reference=True
        )

    def check(self, *, policy: NetworkPolicy | None, has_kb: bool) -> None:
        from service.systems.reference import SYSTEM_NAMES

        if self.reference not in SYSTEM_NAMES:
            raise BadRequest(
                f"unknown reference system {self.reference!r}; known: {', '.join(SYSTEM_NAMES)}"
            )
        if not has_kb:
            raise BadRequest(f"the reference system {self.reference} needs a knowledge base")

    def obtain(self, ctx: SystemContext) -> Obtained:
        from service.systems.reference import build_system

        if ctx.kb is None:
            raise BadRequest(f"the reference system {self.reference} needs a knowledge base")
        if self.reference != "gold-sparql":  # its own lookups: the in-process KB
            system = build_system(self.reference, kb=ctx.kb, language=ctx.language)
            return self._obtain(ctx, system)
        from service.kb.bounded import bounded

        with bounded(ctx.kb) as kb:  # the dataset's gold queries: bounded (service.kb.bounded)
            return self._obtain(ctx, build_system(self.reference, kb=kb, dataset=ctx.dataset))

    def _obtain(self, ctx: SystemContext, system: Any) -> Obtained:
        from service.model import SystemRun

        done = ctx.log.done() if ctx.log is not None else {}
        askable = [q for q in ctx.dataset.by_id().values() if q.text(ctx.language) is not None]
        answers: dict[str, SystemAnswer] = {q.id: done[q.id] for q in askable if q.id in done}
        # the logged answers at once, as a web service's: the progress's ``reused``, not its pace
        ctx.progress(len(answers), len(askable))
        for question in askable:
            if question.id in answers:
                continue
            if ctx.cancel.is_set():
                raise Cancelled(f"cancelled while asking {self.name}; resume to continue")
            answer = _ask(system, question.id, question, ctx.language)
            if ctx.log is not None:
                ctx.log.append(answer)
            answers[question.id] = answer
            ctx.answered(answer)
            ctx.progress(len(answers), len(askable))
        answers = {q.id: answers[q.id] for q in askable}  # in the dataset's order, as asked
        from service.kb import describe

        run = SystemRun(self.name, answers, source=f"reference system {self.reference}")
        return Obtained(run, archived(run, ctx, self.name), kb=describe(ctx.kb))


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
