"""The clock of every recorded time: UTC, to the millisecond (cheap to import: the command line
takes an experiment's start time before anything else is loaded)."""

from __future__ import annotations

from datetime import UTC, datetime


def timestamp(when: datetime | None = None) -> datetime:
    """``when`` (default: now) in UTC at the precision every PROV time is recorded in
    (milliseconds), so a start and an end written for one activity compare as they happened."""
    value = when or datetime.now(UTC)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    value = value.astimezone(UTC)
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def from_posix(seconds: float) -> datetime:
    """POSIX seconds (``time.time()``) as :func:`timestamp` records them."""
    return timestamp(datetime.fromtimestamp(seconds, UTC))
