"""One error hierarchy for the whole service.

Every error a user can cause is a :class:`ServiceError` carrying the HTTP status the web layer
answers with; the CLI prints its message and exits non-zero. Input files that cannot be read raise
:class:`FormatError`, which names the file, the position, the question and what was expected.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import PureWindowsPath
from typing import Literal

Severity = Literal["error", "warning"]


class ServiceError(Exception):
    """An error a user or client can act on; ``status`` is the HTTP status to answer with;
    ``field``: the setting of a submission it is about, as its JSON path without the ``$.``
    (``profile``, ``systems[0].url``, ``about.license``), which the API names in its problems."""

    status: int = 500
    field: str | None = None
    # how the web layer logs it when it answers 5xx: a fault of the server's at ERROR; a 503
    # the client's query or load caused (a query past the time limit, every worker busy) at
    # WARNING, so alerting on ERROR does not fire all day (explore57 F4)
    log_level: int = logging.ERROR

    def __init__(
        self, message: str, *, status: int | None = None, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        if status is not None:
            self.status = status

    def __str__(self) -> str:
        return self.message

    @property
    def public_message(self) -> str:
        """What the web answers anyone: the message, unless it names what only the operator
        should see (a store's internal address, :class:`~service.graph.remote.StoreUnavailable`)."""
        return self.message


class BadRequest(ServiceError):
    status = 400


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


class Busy(ServiceError):
    """The service cannot take this now, but will later: 503 with ``Retry-After``. Logged at
    WARNING: the load, not a fault of the server's (every worker busy, the runs' queue full, a
    query shape held on a remote store after it ran past the limit; explore57 F4)."""

    status = 503
    log_level = logging.WARNING

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding about an input file: where it is, what was expected, how bad it is.

    ``line``/``column`` are 1-based; ``path`` is a JSON path (``$.questions[3].answers``) or an
    XML element path. ``question_id`` names the question the problem belongs to, when known.
    """

    message: str
    severity: Severity = "error"
    file: str | None = None
    line: int | None = None
    column: int | None = None
    path: str | None = None
    question_id: str | None = None
    expected: str | None = None

    def located(self, *, file: str | None) -> Problem:
        """The same problem attributed to ``file`` (readers often learn the name late)."""
        return self if self.file or file is None else replace(self, file=file)

    def without_folders(self) -> Problem:
        """The same problem naming its file without folders, for what is public (the graph,
        pages, the API): a file read from a path must not show the server's directories."""
        if self.file is None:
            return self
        name = PureWindowsPath(self.file).name  # splits at "/" and at "\\"
        return self if name == self.file else replace(self, file=name)

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        parts = [where]
        if self.path:
            parts.append(self.path)
        if self.question_id is not None:
            parts.append(f"question {self.question_id}")
        text = f"{': '.join(parts)}: {self.severity}: {self.message}"
        if self.expected:
            text += f" (expected {self.expected})"
        return text


def first_ids(ids: Sequence[str]) -> str:
    """The first five of ``ids``, then "…" when there are more: how a warning names the
    questions it concerns."""
    return ", ".join(ids[:5]) + (" …" if len(ids) > 5 else "")


def grouped_across_questions(
    problems: Sequence[Problem], *, order: Sequence[str] = ()
) -> list[Problem]:
    """``problems`` with each warning said alike of several questions said once, where the
    first was, naming the questions (:func:`first_ids`, in the dataset's ``order``: a web
    service's answers come as its calls end) and how many.

    A web service's responses are read one by one, each as its own file, so the same slip in
    every response was a warning per question (84 for 14 questions, explore31 F15); alike is
    the same message, expected text, file and path (each response's answer is at the same
    path; an answer file's questions are at different paths, so its warnings stay as they
    are). Line and column, which differ from response to response, are kept only if equal.

    >>> said = [Problem("odd", severity="warning", file="response", path="$.q", line=n,
    ...         question_id=str(n)) for n in range(1, 8)]
    >>> [str(p) for p in grouped_across_questions(said)]
    ['response: $.q: warning: odd (said of 7 questions: 1, 2, 3, 4, 5 …)']
    """
    groups: dict[tuple[str, str | None, str | None, str | None], list[Problem]] = {}
    for p in problems:
        if p.severity == "warning" and p.question_id is not None:
            groups.setdefault((p.message, p.expected, p.file, p.path), []).append(p)
    out: list[Problem] = []
    for p in problems:
        group = groups.get((p.message, p.expected, p.file, p.path))
        if p.severity != "warning" or p.question_id is None or group is None:
            out.append(p)
            continue
        ids = list(dict.fromkeys(q.question_id for q in group if q.question_id is not None))
        if order:
            place = {qid: n for n, qid in enumerate(order)}
            ids.sort(key=lambda qid: place.get(qid, len(place)))
        if len(ids) < 2:
            out.append(p)
        elif group[0] is p:
            same = all((q.line, q.column) == (p.line, p.column) for q in group)
            out.append(
                replace(
                    p,
                    message=f"{p.message} (said of {len(ids)} questions: {first_ids(ids)})",
                    question_id=None,
                    line=p.line if same else None,
                    column=p.column if same else None,
                )
            )
    return out


class FormatError(ServiceError):
    """An input file that cannot be read. ``problems`` lists every fatal finding (at least one)."""

    status = 400

    def __init__(self, problems: Problem | list[Problem] | tuple[Problem, ...]) -> None:
        items = (problems,) if isinstance(problems, Problem) else tuple(problems)
        if not items:
            raise ValueError("FormatError needs at least one problem")
        self.problems: tuple[Problem, ...] = items
        first = items[0]
        self.file, self.line, self.column = first.file, first.line, first.column
        self.path, self.question_id, self.expected = first.path, first.question_id, first.expected
        more = f" (and {len(items) - 1} more)" if len(items) > 1 else ""
        super().__init__(str(first) + more)

    def located(self, *, file: str | None) -> FormatError:
        return FormatError([p.located(file=file) for p in self.problems])


STORE_RETRY_AFTER = 10  # seconds: a store restarting answers again within about that


def retry_after(err: ServiceError) -> str | None:
    """The ``Retry-After`` of an error response, if any: a busy service's wait, or a hint while
    the store is away (a 503 whose cause may pass: pollers had none to follow)."""
    if isinstance(err, Busy):
        return str(err.retry_after)
    if err.status == 503 and getattr(err, "transient", False):
        return str(STORE_RETRY_AFTER)
    return None


# errno -> what it says: the kinds of "this device cannot take more bytes" (a full disk, a
# quota, a file-size limit such as ``ulimit -f``). Neither is damage: freeing space and
# running the command again is the remedy (explore52 F2, F9).
NO_ROOM: dict[int, str] = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EFBIG: "the file grew larger than allowed (a file-size limit such as ulimit -f)",
}


def room_errno(err: BaseException | None) -> int | None:
    """The errno of :data:`NO_ROOM` that ``err`` (or what it was raised from) is, or None.
    A store's library (RocksDB through pyoxigraph) raises an OSError with the text only."""
    seen = 0
    while err is not None and seen < 8:
        if isinstance(err, OSError) and err.errno in NO_ROOM:
            return err.errno
        text = str(err)
        for code in NO_ROOM:
            if os.strerror(code) in text:
                return code
        err = err.__cause__ or err.__context__
        seen += 1
    return None


def no_room(err: BaseException | None) -> bool:
    """Whether ``err`` is a full disk, a quota or a file-size limit (:data:`NO_ROOM`)."""
    return room_errno(err) is not None


class NoRoom(ServiceError):
    """A write the device had no room for (:data:`NO_ROOM`): nothing is damaged, and the same
    request succeeds once space is freed. 507 Insufficient Storage (RFC 4918 §11.5)."""

    status = 507


def store_has_no_room(err: BaseException, store: object) -> NoRoom:
    """A full disk (quota, file-size limit) under the store at ``store``, said as such: it was
    said to be a damaged store to restore from a dump (explore52 F2)."""
    code = room_errno(err) or errno.ENOSPC
    said = os_error_said(OSError(code, os.strerror(code)), holding=str(store))
    return NoRoom(f"{said}: {REMEDY[code]}; the store is not damaged")


REMEDY: dict[int, str] = {
    errno.ENOSPC: "free space and retry",
    errno.EDQUOT: "free space or raise the quota and retry",
    errno.EFBIG: "raise the limit and retry",
}


def os_error_said(err: OSError, *, holding: str | None = None) -> str:
    """An OS error in a few words with its number: "no space left on the device holding
    STORE (errno 28)", or its own text ("Permission denied (errno 13)")."""
    code = err.errno
    if code in NO_ROOM:
        said = NO_ROOM[code]
        if holding is not None and code == errno.ENOSPC:
            said += f" holding {holding}"
        elif holding is not None and code == errno.EDQUOT:
            said += f" on the device holding {holding}"
        elif holding is not None:
            said = said.replace("the file", f"a file of {holding}")
        return f"{said} (errno {code})"
    text = err.strerror or str(err)
    return f"{text} (errno {code})" if code is not None else text
