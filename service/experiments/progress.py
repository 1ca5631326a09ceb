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
SYSTEM_STATES = ("waiting", "asking", "scoring", "done")


@dataclass(frozen=True, slots=True)
class QuestionError:
    question_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class SystemProgress:
    """One system: ``state`` is waiting, asking, scoring or done."""

    system: str
    done: int = 0
    total: int = 0
    errors: int = 0
    reasons: tuple[QuestionError, ...] = ()
    state: str = "waiting"

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "errors": self.errors,
            "errorReasons": [{"question": e.question_id, "reason": e.reason} for e in self.reasons],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SystemProgress:
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
        )


@dataclass(frozen=True, slots=True)
class RunProgress:
    """The whole run: its ``phase`` (reading, asking, scoring, recording, done), systems and
    when it started (seconds since the epoch), from which pages tell time elapsed and left."""

    phase: str
    systems: tuple[SystemProgress, ...] = ()
    started: float | None = None

    def system(self, index: int, **changes: Any) -> RunProgress:
        """This progress with system ``index`` changed."""
        systems = list(self.systems)
        systems[index] = replace(systems[index], **changes)
        return replace(self, systems=tuple(systems))

    def text(self) -> str:
        """One line, e.g. ``asking: baseline 12/24 questions (1 error); other 0/24 questions``."""
        parts = []
        for s in self.systems:
            errors = f" ({s.errors} error{'s' if s.errors != 1 else ''})" if s.errors else ""
            parts.append(f"{s.system} {s.done}/{s.total} questions{errors}")
        return f"{self.phase}: " + "; ".join(parts) if parts else self.phase

    def timing(self, now: float) -> tuple[float | None, float | None]:
        """Seconds elapsed and an estimate of the seconds left (None when unknown): the time
        per question so far, over the questions not done yet."""
        if self.started is None:
            return None, None
        elapsed = max(0.0, now - self.started)
        done = sum(s.done for s in self.systems)
        total = sum(s.total for s in self.systems)
        if self.phase == "done":
            return elapsed, 0.0
        if not done or not total:
            return elapsed, None
        return elapsed, elapsed * max(0, total - done) / done

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"phase": self.phase, "systems": [s.to_json() for s in self.systems]}
        if self.started is not None:
            out["started"] = self.started
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunProgress:
        started = data.get("started")
        return cls(
            str(data.get("phase", "")),
            tuple(SystemProgress.from_json(s) for s in data.get("systems", ())),
            float(started) if isinstance(started, int | float) else None,
        )


ProgressCallback = Callable[[RunProgress], None]
