"""Jobs run with the cyclic collector off (service/experiments/runner.py): its full collections
over the millions of objects of a big answer file held the GIL for up to half a second each,
and every status poll waited (bench/bigfile.py). Off while any job runs, back as it was after
the last one."""

from __future__ import annotations

import gc
import threading

from service.experiments.runner import collector_paused


def test_off_while_any_job_runs_and_back_after_the_last() -> None:
    assert gc.isenabled()
    seen: list[bool] = []

    def job(started: threading.Event, release: threading.Event) -> None:
        with collector_paused():
            started.set()
            release.wait(10)
            seen.append(gc.isenabled())

    started_a, release_a = threading.Event(), threading.Event()
    started_b, release_b = threading.Event(), threading.Event()
    a = threading.Thread(target=job, args=(started_a, release_a))
    b = threading.Thread(target=job, args=(started_b, release_b))
    a.start()
    started_a.wait(10)
    b.start()
    started_b.wait(10)
    assert not gc.isenabled()
    release_a.set()
    a.join(10)
    assert not gc.isenabled()  # the other job still runs
    release_b.set()
    b.join(10)
    assert gc.isenabled() and seen == [False, False]


def test_a_collector_someone_turned_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_back_on_after_a_failing_job() -> None:
    try:
        with collector_paused():
            raise RuntimeError("the job failed")
    except RuntimeError:
        pass
    assert gc.isenabled()
