"""Structured progress of a running experiment: per system, questions done of the total and the
errors so far with their reasons. The background runner keeps the newest one beside the job
(a small JSON file, so a status poll reads it in constant time); the run page and the API show
it; the command line prints :meth:`RunProgress.text`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

MAX_REASONS = 20  # errors kept with their reasons per system (the count has them all)
PHASES = ("reading", "asking", "scoring", "recording", "done")
SYSTEM_STATES = ("waiting", "asking", "scoring", "done", "aborted", "stopped")
# stopped: the run's time for asking web services ran out while it was asked; the run ended
ENDED_STATES = frozenset({"done", "aborted"})  # aborted: the error-rate rule stopped it


@dataclass(frozen=True, slots=True)
class QuestionError:
    question_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class SystemProgress:
    """One system: ``state`` is waiting, asking, scoring, done or aborted; ``since`` when it entered
    that state (seconds since the epoch), from which its pace is known; ``kind`` the system's
    kind (``SYSTEM_KINDS``; None in progress kept before it was); ``reused`` the questions it
    had done when it entered the state (a resumed run's logged answers, counted at once: not
    its pace; None until its first count)."""

    system: str
    done: int = 0
    total: int = 0
    errors: int = 0
    reasons: tuple[QuestionError, ...] = ()
    state: str = "waiting"
    since: float | None = None
    kind: str | None = None
    reused: int | None = None

    def left(self) -> int:
        """Questions still to be asked or scored here."""
        return max(0, self.total - self.done) if self.state not in ENDED_STATES else 0

    @property
    def reads(self) -> bool:
        """Its answers are read from files: nothing is asked (its kind's ``from_files``)."""
        from service.experiments.systems import SYSTEM_KINDS, system_kind

        if self.kind is None or self.kind not in SYSTEM_KINDS:
            return False
        return bool(system_kind(self.kind).from_files)

    def activity(self) -> str:
        """What the system is doing, in words, for its row on the run page. ``state`` stays
        the API's code ("asking" while its answers are obtained), but an answer file is read,
        not asked, and a system whose answers are all in waits to be scored (an answer file's
        row said "asking 13/13" until its turn came).

        >>> SystemProgress("file", 13, 13, state="asking", kind="answers").activity()
        'read, waiting to be scored'
        >>> SystemProgress("service", 2, 13, state="asking", kind="webservice").activity()
        'asking'
        >>> SystemProgress("service", 6, 13, state="aborted", kind="webservice").left()
        0
        """
        if self.state == "aborted":
            return "aborted: too many errors, not scored"
        if self.state == "stopped":  # it said "aborted: too many errors" (explore49 F1)
            return "stopped: the run's time for asking web services ran out; resume to go on"
        if self.state != "asking":
            return self.state
        if self.reads:
            return "read, waiting to be scored" if self.total else "reading"
        return "asked, waiting to be scored" if 0 < self.total <= self.done else "asking"

    def to_json(self, *, stopped: str | None = None, recording: bool = False) -> dict[str, Any]:
        """The API's row; ``stopped``: the status of a run that ended (cancelled,
        interrupted, error), whose ``state`` is where the system stopped, said as such;
        ``recording``: its run writes the results, a system ``done`` is not yet recorded.

        >>> SystemProgress("s", 2, 13, state="asking").to_json(stopped="cancelled")["activity"]
        'cancelled while asking'
        >>> SystemProgress("s", 13, 13, state="asking").to_json(stopped="error")["activity"]
        'asked, not scored: the run ended as error'
        """
        activity = self.activity()
        if recording and self.state == "done":
            activity = "scored, being recorded"
        if stopped is not None and self.state not in ENDED_STATES | {"stopped"}:
            # all its answers were in: it waits for nothing now ("error while asked, waiting…")
            waited = activity.removesuffix(", waiting to be scored")
            activity = (
                f"{waited}, not scored: the run ended as {stopped}"
                if waited != activity
                else f"{stopped} while {activity}"
            )
        return {
            "system": self.system,
            "kind": self.kind,
            "state": self.state,
            "activity": activity,
            "done": self.done,
            "total": self.total,
            "errors": self.errors,
            "errorReasons": [{"question": e.question_id, "reason": e.reason} for e in self.reasons],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SystemProgress:
        since = data.get("since")
        return cls(
            system=str(data["system"]),
            done=int(data.get("done", 0)),
            total=int(data.get("total", 0)),
            errors=int(data.get("errors", 0)),
            reasons=tuple(
                QuestionError(str(e["question"]), str(e["reason"]))
                for e in data.get("errorReasons", ())
            ),
            state=str(data.get("state", "waiting")),
            since=float(since) if isinstance(since, int | float) else None,
            kind=str(data["kind"]) if data.get("kind") is not None else None,
            reused=int(data["reused"]) if isinstance(data.get("reused"), int) else None,
        )

    def kept(self) -> dict[str, Any]:
        """What the runner keeps beside the job: the API's fields, ``since`` and ``reused``."""
        out = self.to_json()
        if self.since is not None:
            out["since"] = self.since
        if self.reused is not None:
            out["reused"] = self.reused
        return out


@dataclass(frozen=True, slots=True)
class Recording:
    """The recording phase: ``results`` question results (each question of each system and
    type) written in one transaction, begun at ``since`` and expected to take ``expected``
    seconds (the pace of this process's last large recording). One write cannot be counted
    as it goes, and it was most of a large run (6 of 7 s at 2,000 questions) that read as
    finished: every question counted, every system done, no time left."""

    results: int
    since: float
    expected: float


@dataclass(frozen=True, slots=True)
class RunProgress:
    """The whole run: its ``phase`` (reading, asking, scoring, recording, done), systems and
    when it started (seconds since the epoch), from which pages tell time elapsed and left;
    ``recording`` while its results are written."""

    phase: str
    systems: tuple[SystemProgress, ...] = ()
    started: float | None = None
    recording: Recording | None = None

    def system(self, index: int, now: float | None = None, **changes: Any) -> RunProgress:
        """This progress with system ``index`` changed (a new ``state`` starts ``now``)."""
        systems = list(self.systems)
        if "state" in changes and changes["state"] != systems[index].state:
            changes.setdefault("since", now)
            changes.setdefault("reused", changes.get("done"))  # else at the first count
        elif "done" in changes and systems[index].reused is None:
            changes.setdefault("reused", changes["done"])
        systems[index] = replace(systems[index], **changes)
        return replace(self, systems=tuple(systems))

    def text(self, *, phase: bool = True) -> str:
        """One line, e.g. ``asking: baseline 12/24 questions (1 error); file 13/13 answers
        read``; without the ``phase`` for a run that ended (where it stopped, not what it does).

        >>> RunProgress("scoring", (SystemProgress("b", 5, 14, errors=5),)).text(phase=False)
        'b 5/14 questions (5 errors)'

        While its results are written, what is written and the questions scored:

        >>> done = SystemProgress("b", 14, 14, state="done")
        >>> RunProgress("recording", (done,), recording=Recording(12000, 0.0, 6.0)).text()
        'recording: writing 12,000 question results; b 14/14 questions scored'
        """
        recording = self.phase == "recording" and self.recording is not None
        parts = []
        for s in self.systems:
            errors = f" ({s.errors} error{'s' if s.errors != 1 else ''})" if s.errors else ""
            what = "answers read" if s.state == "asking" and s.reads else "questions"
            if recording and s.state == "done":
                what = "questions scored"
            if s.total == 0:  # nothing counted yet (a file waiting its turn): no "0/0"
                parts.append(f"{s.system} {s.activity()}{errors}")
            else:
                parts.append(f"{s.system} {s.done}/{s.total} {what}{errors}")
        if not phase:
            return "; ".join(parts)
        if recording and self.recording is not None:
            parts.insert(0, f"writing {self.recording.results:,} question results")
        return f"{self.phase}: " + "; ".join(parts) if parts else self.phase

    def timing(self, now: float) -> tuple[float | None, float | None]:
        """Seconds elapsed and an estimate of the seconds left (None when unknown): the pace
        of the system at work (its time per question since it entered its state), over every
        question not done yet. Not the pace of the whole run: an answer file's questions are
        done at once, and counting them made a slow service's 14 questions "about 0 s left".

        >>> slow = SystemProgress("slow", done=2, total=10, state="asking", since=100.0)
        >>> file = SystemProgress("file", done=13, total=13, state="asking", since=99.0)
        >>> RunProgress("asking", (file, slow), started=99.0).timing(104.0)
        (5.0, 16.0)

        While its results are written, the time that write is expected to take, less the time
        it has taken:

        >>> RunProgress("recording", (file,), 99.0, Recording(12000, 100.0, 6.0)).timing(104.0)
        (5.0, 2.0)

        A resumed run's logged answers count at once, not at its pace (they made a resumed
        service's time left a fraction of the real one):

        >>> resumed = SystemProgress("s", done=12, total=20, state="asking", since=100.0, reused=10)
        >>> RunProgress("asking", (resumed,), started=99.0).timing(104.0)
        (5.0, 16.0)
        """
        if self.started is None:
            return None, None
        elapsed = max(0.0, now - self.started)
        if self.phase == "done":
            return elapsed, 0.0
        if self.phase == "recording" and self.recording is not None:
            # the expected length of its one write, unknown once it overran
            left = self.recording.expected - max(0.0, now - self.recording.since)
            return elapsed, left if left > 0 else None
        working = [
            s for s in self.systems if s.left() and s.since is not None and s.done > (s.reused or 0)
        ]
        if not working:
            return elapsed, None
        first = working[0]
        pace = max(0.0, now - (first.since or now)) / (first.done - (first.reused or 0))
        return elapsed, pace * sum(s.left() for s in self.systems)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"phase": self.phase, "systems": [s.kept() for s in self.systems]}
        if self.started is not None:
            out["started"] = self.started
        if self.recording is not None:
            r = self.recording
            out["recording"] = {"results": r.results, "since": r.since, "expected": r.expected}
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunProgress:
        started = data.get("started")
        rec = data.get("recording")
        return cls(
            str(data.get("phase", "")),
            tuple(SystemProgress.from_json(s) for s in data.get("systems", ())),
            float(started) if isinstance(started, int | float) else None,
            Recording(int(rec["results"]), float(rec["since"]), float(rec["expected"]))
            if isinstance(rec, Mapping)
            else None,
        )


ProgressCallback = Callable[[RunProgress], None]
