"""The kinds of system an experiment can evaluate: one frozen class each, one registration.

Each kind names its system, says which files it reads, checks what can be checked before a
run (:meth:`check`: an address against the network policy, a KB it needs) and obtains the
system's answers to a dataset (:meth:`obtain`), with their files to record as PROV entities:

- :class:`AnswerFile` (here): an answer file (a local path or an upload), any supported format;
  what ``gerbil-qa system run`` keeps per question (``error``, ``runtimeMs``, ``attempts``,
  ``retryReason``) is read back;
- :class:`~service.experiments.asked.WebService`: a QA web service (POST ``query`` and
  ``lang``), asked question by question; each answer is appended to the job's log as it
  arrives, so a resumed run asks only what is missing, and the answers are archived as an
  answer file;
- :class:`~service.experiments.asked.Reference`: a reference system that runs here
  (``gold-sparql``, ``baseline``) over the experiment's KB, archived like a service's answers.

- :class:`~service.experiments.asked.Text2SparqlService`: a Text2SPARQL service (GET
  ``question`` and ``dataset``, a SPARQL query back that is run on the KB), asked like a QA
  web service.

Adding a kind is one class with ``kind``, ``from_files``, ``to_json``/``from_json``,
``files``, ``info``, ``check`` and ``obtain``, plus its entry in :data:`SYSTEM_KINDS`.
"""

from __future__ import annotations

import re
import unicodedata
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

QUERY_ANSWERS_FORMAT = "text2sparql-answers"  # an answer file whose answers are queries
# A system's name: 1-120 characters, a letter, digit or _ first, then letters, digits, spaces
# and _.+()@,:'-, where a letter may carry combining marks (Unicode Mn/Mc: the vowel signs and
# viramas of हिन्दी, தமிழ், สวัสดี; explore66 F2). \w has no marks, so SYSTEM_NAME is matched
# by is_system_name over the name with the marks after letters taken out; a mark anywhere else,
# one that draws nothing (a variation selector, U+034F: TeBaQA with one is TeBaQA) or an
# overlay (Bjo + U+0338 + rn reads as Bjørn) is not taken. SYSTEM_NAME is compiled when
# first used (start-up of evaluate).
SYSTEM_NAME = r"^\w[\w .+()@,:'-]{0,119}$"
SYSTEM_NAME_LENGTH = 120
_MARKS = frozenset(("Mn", "Mc"))
# the default-ignorable marks: they show nothing, so a name with one reads as the name without
_INVISIBLE_MARKS = re.compile(
    "[\u034f\u17b4\u17b5\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef]"
)


class Cancelled(ServiceError):
    """The run was cancelled; what was asked so far is kept for a resume."""

    status = 409


class Aborted(ServiceError):
    """A system failed too often (GERBIL's error-rate rule); the experiment ends in error."""

    status = 422


class OutOfTime(Aborted):
    """The run's time for asking web services (``GERBIL_QA_RUNNER_ASK_SECONDS``) ran out while
    a system was asked: the run ends at once, as an error the owner may resume (the answers
    got so far are kept in its log; a resume has the time again). Not the system's fault: it
    is not left out of a run that goes on, as the error-rate rule leaves one (explore49 F2,
    F9)."""


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
    # a language the run asks after its first: its log and archive are kept apart by it
    later_language: str | None = None
    # the profile that needs one answer per question (poleval, as geval): an answer file of
    # another length is refused as it is read, at its line, before an experiment is reserved
    one_answer_each: str | None = None
    # the run's time for asking web services (service.experiments.run.AskClock), if bounded
    ask_clock: Any = None


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
    """A system's answers and the files to record with them; ``queries``: the answers are
    SPARQL queries to run on the KB (:mod:`service.experiments.queries`); ``kb``: the KB the
    answers came from when they were computed here (queries run, a reference system), as
    :func:`service.kb.describe` names it: recorded with the result, in its signature."""

    run: SystemRun
    files: tuple[FileEntity, ...] = ()
    queries: bool = False
    kb: str | None = None


def system_name(given: str) -> str:
    """A submitted system name as kept: stripped, in NFC. A decomposed é (e + U+0301, as macOS
    writes file names) and the precomposed one made two systems that look the same, and the
    "name in use" warning missed it (explore63 F1). The API, the run page and the CLI read
    names through this; names stored before stay as stored."""
    return unicodedata.normalize("NFC", given.strip())


MARKS_ON_A_LETTER = 4  # combining marks one letter may carry (Vietnamese and Indic use 1-3)
RULE = (
    "must be 1-120 letters (with their marks), digits, spaces or _.+()@,:'- (starting with a "
    "letter, digit or _)"
)


def is_system_name(text: str) -> bool:
    """Whether ``text`` (NFC) is a system's name by the rule at :data:`SYSTEM_NAME`."""
    return system_name_problem(text) is None


def system_name_problem(text: str) -> str | None:
    """Why ``text`` (NFC) is not a system's name by the rule at :data:`SYSTEM_NAME`, naming
    the character where one is at fault (an overlay was refused with "letters (with their
    marks)", which it is: explore67 F4); None when it is one."""
    if len(text) > SYSTEM_NAME_LENGTH:
        return f"is {len(text)} characters: {RULE}"
    bare: list[str] = []
    after_letter, marks = False, 0  # the last character kept is a letter; marks on it so far
    for at, char in enumerate(text, 1):
        if _INVISIBLE_MARKS.match(char):
            return f"has a mark that shows nothing ({_said(char, at)}): it reads as without"
        if unicodedata.category(char) in _MARKS:
            marks += 1
            if not after_letter:
                return f"has a combining mark after no letter ({_said(char, at)}): {RULE}"
            # an overlay (combining class 1: U+0335-U+0338) strikes through its letter:
            # o + U+0338 reads as ø, l + U+0337 as ł, which NFC leaves two names
            if unicodedata.combining(char) == 1:
                return f"has a mark that strikes its letter through ({_said(char, at)})"
            if marks > MARKS_ON_A_LETTER:  # a stack of 100 accents on one letter (explore67 F5)
                return f"has more than {MARKS_ON_A_LETTER} marks on one letter ({_said(char, at)})"
            continue
        bare.append(char)
        after_letter, marks = char.isalpha(), 0
    return None if re.match(SYSTEM_NAME, "".join(bare)) is not None else RULE


def _said(char: str, at: int) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}, at character {at}"


def name_forms(name: str) -> tuple[str, ...]:
    """``name`` as given, in NFC and in NFD, once each: the IRIs a system of that name may
    have (names are kept in NFC since 2026-11-29; older ones as they were stored)."""
    forms = (name, unicodedata.normalize("NFC", name), unicodedata.normalize("NFD", name))
    return tuple(dict.fromkeys(forms))


def check_name(name: str, n: int) -> str:
    """A system's name as recorded (its URI is ``system/{name}``); BadRequest otherwise."""
    # NFC: a decomposed é (a file name on macOS) is the precomposed one, which the rule takes
    text = unicodedata.normalize("NFC", name.strip()) if isinstance(name, str) else ""
    if (problem := system_name_problem(text)) is not None:
        raise BadRequest(
            f"system {n}: name {name!r} {problem}",
            field=f"systems[{n - 1}].name",  # the API's problems[].path
        )
    from service.experiments.lookalikes import lookalike_reason

    looks = lookalike_reason(text)
    if "  " in text:  # "alpha  beta" was a system of its own that every page showed as
        # "alpha beta" (HTML collapses white space: explore34 3)
        looks = (
            f"has a run of spaces (at character {text.index('  ') + 1}), which every page "
            "shows as one space, so it reads as another system's name: write one space"
        )
    if looks:
        raise BadRequest(f"system {n}: name {name!r} {looks}", field=f"systems[{n - 1}].name")
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
        from service.experiments.inputs import (
            check_answer_count,
            check_answer_ids,
            check_header,
            media_type_of,
        )
        from service.systems.archive import answers_from, never_asked

        parsed = ctx.files.dataset(self.file, language=ctx.language, answers=True)
        check_header(ctx.dataset, parsed, where=self.file.name)
        if ctx.one_answer_each is not None:
            check_answer_count(ctx.dataset, parsed, profile=ctx.one_answer_each)
        run = answers_from(parsed, system=self.name, language=ctx.language)
        check_answer_ids(
            ctx.dataset, run, force=ctx.options.force, where=self.file.name,
            unasked=never_asked(parsed),
        )  # fmt: skip
        ctx.progress(len(run.answers), len(run.answers))
        entity = FileEntity(
            self.file.name, self.name, media_type=media_type_of(parsed), ref=self.file
        )
        return Obtained(run, (entity,), queries=parsed.format == QUERY_ANSWERS_FORMAT)


def archived(
    run: SystemRun, ctx: SystemContext, name: str, *, format: str | None = None
) -> tuple[FileEntity, ...]:
    """The answers a system gave, kept as an answer file beside the store (so the experiment
    can be re-scored without the system) and recorded as an entity with its SHA-256."""
    import hashlib

    from service.systems.archive import answer_file

    data = answer_file(run, ctx.dataset, language=ctx.language, format=format)
    apart = f"@{_safe(ctx.later_language)}" if ctx.later_language else ""
    file_name = f"{ctx.index + 1}-{_safe(name)}{apart}.json"
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


SYSTEM_KINDS: dict[str, str] = {
    "answers": "service.experiments.systems:AnswerFile",
    "webservice": "service.experiments.asked:WebService",
    "text2sparql": "service.experiments.asked:Text2SparqlService",
    "reference": "service.experiments.asked:Reference",
}
"""Every kind of system by its ``kind`` (the key a stored spec names it by) -> where its class
is (imported when a spec names it: ``gerbil-qa evaluate`` loads only the answer-file kind)."""


def system_kind(kind: str) -> Any:
    """The class of a system kind (BadRequest naming the known ones)."""
    import importlib

    where = SYSTEM_KINDS.get(kind)
    if where is None:
        raise BadRequest(f"unknown system kind {kind!r}; known: {', '.join(SYSTEM_KINDS)}")
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def system_from_json(data: Mapping[str, Any]) -> SystemSource:
    system: SystemSource = system_kind(str(data.get("kind"))).from_json(data)
    return system
