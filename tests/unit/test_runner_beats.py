"""The experiment runner's rounds beside the runs (``service.experiments.runner``): heartbeats
and take-overs every lease/3 while a store may be away."""

from __future__ import annotations

import pytest


def test_a_store_outage_is_said_once_and_its_end_once(caplog: pytest.LogCaptureFixture) -> None:
    """A replica's heartbeat and take-over rounds (every lease/3) logged a warning each round
    while the private store was away, ~720 lines an hour a replica, and never that it worked
    again (explore26 F6). The loop itself, on a task that fails five rounds then works."""
    import logging
    import threading
    from types import SimpleNamespace

    from service.experiments.runner import ExperimentRunner

    rounds = iter([*[ConnectionError("the store did not answer")] * 5, None, None, None])
    beats = SimpleNamespace(_stop=threading.Event(), claims=SimpleNamespace(lease=0.03))

    def task() -> None:
        failure = next(rounds, StopIteration)
        if failure is StopIteration:
            beats._stop.set()
        elif failure is not None:
            raise failure

    with caplog.at_level(logging.WARNING, logger="service.experiments.runner"):
        ExperimentRunner._every_beat(beats, task)  # type: ignore[arg-type]
    said = [r.getMessage() for r in caplog.records]
    name = threading.current_thread().name
    assert said == [
        f"{name} failed (said again when it works): the store did not answer",
        f"{name} works again",
    ]
