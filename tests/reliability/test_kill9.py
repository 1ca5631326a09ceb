"""kill -9 at random points of the real command line's writes (issue 13, item 9): nothing is left
partial, the store checks clean, and what was interrupted completes when run again.

Six kinds of writer, each a ``gerbil-qa`` subprocess killed with SIGKILL after a random delay
(uniform over the time an uninterrupted run of the same command takes: measured first, and
the quickest run seen to end before its kill):

- ``record``: ``gerbil-qa evaluate --store`` recording an experiment of 150 questions;
- ``publish``: ``gerbil-qa publish`` of a finished private experiment, then run again;
- ``import``: ``gerbil-qa import`` of a dump (published and private experiments) into a new
  store, then run again;
- ``delete``: ``gerbil-qa delete`` of a finished private experiment, then run again;
- ``withdraw``: ``gerbil-qa withdraw`` of a published experiment, then run again if it was not
  withdrawn yet;
- ``run``: ``gerbil-qa serve`` killed while an experiment asks a QA web service on 127.0.0.1,
  then ``gerbil-qa resume`` finishes it.

After every kill the store opens, every experiment is wholly absent or wholly there (its graph
complete, in exactly one of the two stores, its admin record saying the same, the public default
graph holding exactly the published ones not withdrawn, a withdrawn one's note in its graph and the
default graph together), and the Data Cube and term checks find nothing; the
full ``gerbil-qa check`` (shapes too) runs on every store at the end of a kind. CI kills 8 times
per kind (the web-service run 2 times); ``make soak`` 50 (20).

Only the process killed is a subprocess (its start is inside the time its kill is drawn from):
what runs once it is gone (the command run again, ``check``, and the stores made to start from)
is the same ``gerbil-qa`` command run in this process, without an interpreter's start each.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

from service.experiments.runner import ExperimentRunner
from service.graph.checks import Violation
from service.graph.store import Storage, open_storage
from tests.helpers import gerbil_qa_here
from tests.reliability.figures import SEED, Served, record, scaled, start_cli

QUESTIONS = 150
GQA = "http://w3id.org/gerbil/qa/vocab#"
QB_DATASET = "http://purl.org/linked-data/cube#dataSet"
KILLS = scaled(8, 50)
RUN_KILLS = scaled(2, 20)
PER_STORE = 4  # kills per store: the full check at the end of a store stays small


def _question(i: int, right: bool) -> dict[str, Any]:
    value = f"http://example.org/Thing_{i if right else i + 100_000}"
    binding = {"x": {"type": "uri", "value": value}}
    return {
        "id": str(i),
        "question": [{"language": "en", "string": f"What is thing {i}?"}],
        "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [binding]}}],
    }


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, standards_dir: Path) -> dict[str, Path]:
    """A dataset of 150 questions and a system's answers to it (two in three right); the
    checks read the Data Cube constraints from the shared standards (``standards_dir``)."""
    directory = tmp_path_factory.mktemp("kill9")
    dataset = directory / "dataset.json"
    dataset.write_text(
        json.dumps(
            {
                "dataset": {"id": "kill9"},
                "questions": [_question(i, True) for i in range(QUESTIONS)],
            }
        )
    )
    answers = directory / "answers.json"
    answers.write_text(
        json.dumps({"questions": [_question(i, i % 3 != 0) for i in range(QUESTIONS)]})
    )
    return {"dir": directory, "dataset": dataset, "answers": answers}


def _evaluate_args(files: dict[str, Path], store: Path) -> list[str]:
    return [
        "evaluate",
        "--dataset",
        str(files["dataset"]),
        "--answers",
        str(files["answers"]),
        "--profile",
        "exact",
        "--output",
        "json",
        "--store",
        str(store),
    ]


# --- what "nothing partial" means -------------------------------------------------------------


def _count(reader: Any, query: str) -> int:
    return int(next(iter(reader.query(query)))["n"].value)


def _results(storage: Storage, experiment_id: str, where: str) -> int:
    """Question results of an experiment: in its graph in the ``public`` or ``private`` store,
    or in the public ``default`` graph (the endpoint's union)."""
    uri = storage.uris.experiment(experiment_id)
    pattern = f"?r <{GQA}resultOf> ?t . ?t <{QB_DATASET}> <{uri}>"
    if where == "default":
        return _count(storage.public, f"SELECT (COUNT(*) AS ?n) WHERE {{ {pattern} }}")
    reader = storage.public if where == "public" else storage.private
    graph = storage.uris.experiment_graph(experiment_id)
    return _count(reader, f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ {pattern} }} }}")


def _noted(storage: Storage, experiment_id: str) -> bool:
    """Whether the experiment's public graph holds a withdrawal note."""
    uri = storage.uris.experiment(experiment_id)
    graph = storage.uris.experiment_graph(experiment_id)
    return bool(
        storage.public.query(f"ASK {{ GRAPH <{graph}> {{ <{uri}> <{GQA}withdrawnAt> ?t }} }}")
    )


def _experiment_graphs(storage: Storage, reader: Any) -> set[str]:
    prefix = storage.uris.base + "graph/experiment/"
    return {g.value[len(prefix) :] for g in reader.named_graphs() if g.value.startswith(prefix)}


def partial_experiments(storage: Storage, results: int) -> list[str]:
    """Every way an experiment of ``storage`` is not wholly there or wholly absent (empty: all
    well). ``results``: the question results a whole experiment has."""
    problems = []
    statuses = {s.id: s for s in storage.experiments.listing(include_private=True)}
    public = _experiment_graphs(storage, storage.public)
    private = _experiment_graphs(storage, storage.private)
    for eid in sorted(public | private | set(statuses)):
        status = statuses.get(eid)
        if status is None:
            problems.append(f"{eid}: a graph without its admin record")
            continue
        if eid in public and eid in private:
            problems.append(f"{eid}: in both stores")
        if status.status != "finished":
            if eid in public or eid in private:
                problems.append(f"{eid}: a graph, yet {status.status}")
            continue
        where = "public" if status.public else "private"
        if eid not in (public if status.public else private):
            problems.append(f"{eid}: finished and {where}, but its graph is not in that store")
            continue
        found = _results(storage, eid, where)
        if found != results:
            problems.append(f"{eid}: {found} question results, not {results}")
        # a withdrawn one: the note in its graph and the default graph, its results out of it
        withdrawn = status.withdrawn_at is not None
        noted = status.public and _noted(storage, eid)
        if noted != withdrawn:
            problems.append(f"{eid}: withdrawal noted in its graph {noted}, by default {withdrawn}")
        shown = _results(storage, eid, "default")
        if shown != (results if status.public and not withdrawn else 0):
            problems.append(f"{eid}: {shown} results in the public default graph ({where})")
        if status.public and not status.published_at:
            problems.append(f"{eid}: public without a publication date")
    return problems


def _checks(storage: Storage) -> list[Violation]:
    """The Data Cube constraints and valid terms of every graph (no shapes: the full check
    runs once per store, at its end)."""
    from service.graph.checks import check_store

    return check_store(storage, shapes=False)


def _check_quickly(storage: Storage) -> list[str]:
    return [str(v) for v in _checks(storage)]


def _full_check(store: Path) -> int:
    done = gerbil_qa_here("check", "--store", str(store))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "0 violation(s)" in done.stderr
    return 1


@dataclass
class Tally:
    """What a kind's kills did."""

    kind: str
    kills: int = 0  # SIGKILL sent to a live process
    ended_first: int = 0  # the process had ended before its delay ran out (not counted a kill)
    delays: list[float] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    full_checks: int = 0
    resumed: int = 0  # interrupted work completed by running it again
    seconds: float = 0.0
    quickest: float = float("inf")  # the shortest run seen to end before its kill

    def delay(self, rng: random.Random, duration: float) -> float:
        """A kill's delay within the command's uninterrupted time: the timing run, or a run
        seen quicker (a timing run slowed by a busy machine made most kills come too late)."""
        return rng.uniform(0.05, 0.9 * min(duration, self.quickest))

    def report(self, **more: Any) -> None:
        record(
            f"kill9-{self.kind}",
            kills=self.kills,
            ended_before_kill=self.ended_first,
            partial=len(self.partial),
            violations=len(self.violations),
            full_checks=self.full_checks,
            resumed=self.resumed,
            delay_ms=f"{min(self.delays) * 1000:.0f}-{max(self.delays) * 1000:.0f}",
            seconds=round(self.seconds, 1),
            seed=SEED,
            **more,
        )


def _timed(args: list[str]) -> float:
    """How long ``gerbil-qa ARGS`` takes uninterrupted (it must succeed)."""
    started = time.monotonic()
    process = start_cli(*args)
    assert process.wait(timeout=120) == 0, args
    return time.monotonic() - started


def _kill_after(args: list[str], delay: float, tally: Tally) -> bool:
    """Start ``gerbil-qa ARGS`` and SIGKILL it after ``delay`` s; True when it was still
    running (a kill), False when it had already ended."""
    started = time.monotonic()
    process = start_cli(*args)
    try:
        process.wait(timeout=delay)
    except subprocess.TimeoutExpired:  # still running, as wanted
        process.send_signal(signal.SIGKILL)
        code = process.wait(timeout=30)
        if code == -signal.SIGKILL:
            tally.kills += 1
            tally.delays.append(delay)
            return True
        assert code == 0, args  # it ended between the time-out and the signal
    tally.ended_first += 1
    tally.quickest = min(tally.quickest, time.monotonic() - started)
    return False


@contextmanager
def _after_kill(
    store: Path, tally: Tally, results: int, *, reported: list[str] | None = None
) -> Iterator[Storage]:
    """The store as the next process opens it, its experiments and checks counted in; the
    checks whose name ``reported`` collects are what a kill is to leave said, not violations."""
    with open_storage(store, base=None) as storage:
        tally.partial += partial_experiments(storage, results)
        found = _checks(storage)
        if reported is not None:
            reported += [v.check for v in found if v.check == "import"]
            found = [v for v in found if v.check != "import"]
        tally.violations += [str(v) for v in found]
        yield storage


def _kills(kind: str, total: int) -> Iterator[tuple[int, random.Random]]:
    """The kill loop's indices with one seeded random source per kind; bounded in count (at
    most three times ``total`` tries) and time."""
    rng = random.Random(f"{SEED}-{kind}")
    deadline = time.monotonic() + scaled(60, 400)
    for attempt in range(3 * total):
        if time.monotonic() > deadline:
            raise AssertionError(f"{kind}: out of time after {attempt} tries")
        yield attempt, rng


def _each_experiment(
    kind: str, files: dict[str, Path], source: Path, ids: list[str], tally: Tally
) -> Iterator[tuple[Path, str, random.Random, bool]]:
    """The kill loop over copies of ``source`` (a store of the experiments ``ids``): each
    experiment in turn, with the store it is in, the kill's random source and whether it is
    that store's last; a new copy once one's experiments are all done, the full check of each
    store once the caller is done with its last experiment (or the kills are all sent)."""
    stores = 0
    pending: list[str] = []
    store = files["dir"] / f"{kind}-0"
    checked = True
    for _, rng in _kills(kind, KILLS):
        if tally.kills >= KILLS:
            break
        if not pending:
            store = files["dir"] / f"{kind}-{stores}"
            stores += 1
            shutil.copytree(source, store)
            pending, checked = list(ids), False
        eid = pending.pop()
        yield store, eid, rng, not pending
        if not pending:
            tally.full_checks += _full_check(store)
            checked = True
    if not checked:
        tally.full_checks += _full_check(store)


# --- the kinds ----------------------------------------------------------------------------------


def _whole_results(files: dict[str, Path]) -> int:
    """Question results of one whole experiment (an uninterrupted run in a store of its own)."""
    store = files["dir"] / "reference"
    if not store.exists():
        done = gerbil_qa_here(*_evaluate_args(files, store))
        assert done.returncode == 0, done.stderr
    with open_storage(store, base=None) as storage:
        (only,) = storage.experiments.listing(include_private=True)
        return _results(storage, only.id, "private")


def test_kill9_while_recording_experiments(files: dict[str, Path]) -> None:
    started = time.monotonic()
    tally = Tally("record")
    results = _whole_results(files)
    assert results >= QUESTIONS
    duration = _timed(_evaluate_args(files, files["dir"] / "timing"))
    before = 0  # experiments in the store before this kill
    landed_after_commit = 0  # kills after the experiment's transaction (the process exiting)
    store = files["dir"] / "record-0"
    for _, rng in _kills("record", KILLS):
        if tally.kills >= KILLS:
            break
        if before >= PER_STORE:  # a new store now and then: the full check stays small
            tally.full_checks += _full_check(store)
            store, before = files["dir"] / f"record-{tally.kills}", 0
        if not _kill_after(_evaluate_args(files, store), tally.delay(rng, duration), tally):
            before += 1
            continue
        if store.exists():
            with _after_kill(store, tally, results) as storage:
                now = len(storage.experiments.listing(include_private=True))
            landed_after_commit += now > before
            before = max(now, before + 1)
    if store.exists():
        tally.full_checks += _full_check(store)
    tally.seconds = time.monotonic() - started
    tally.report(recorded_when_killed=landed_after_commit, uninterrupted_ms=round(duration * 1000))
    assert tally.kills == KILLS
    assert tally.partial == [] and tally.violations == []


def _private_experiments(store: Path, files: dict[str, Path], count: int) -> list[str]:
    """A store with ``count`` finished private experiments (recorded by ``gerbil-qa
    evaluate``); their ids."""
    for _ in range(count):
        done = gerbil_qa_here(*_evaluate_args(files, store))
        assert done.returncode == 0, done.stderr
    with open_storage(store, base=None) as storage:
        return [s.id for s in storage.experiments.listing(include_private=True)]


@pytest.fixture(scope="module")
def template(files: dict[str, Path]) -> tuple[Path, list[str]]:
    """A store of four finished private experiments (closed: copies of it are stores too)."""
    store = files["dir"] / "template"
    return store, _private_experiments(store, files, PER_STORE)


def test_kill9_while_publishing(files: dict[str, Path], template: tuple[Path, list[str]]) -> None:
    started = time.monotonic()
    tally = Tally("publish")
    results = _whole_results(files)
    timing = files["dir"] / "publish-timing"
    shutil.copytree(template[0], timing)
    duration = _timed(["publish", "--store", str(timing), template[1][0]])
    published = 0
    for store, eid, rng, _ in _each_experiment("publish", files, *template, tally):
        args = ["publish", "--store", str(store), eid]
        killed = _kill_after(args, tally.delay(rng, duration), tally)
        if killed:
            with _after_kill(store, tally, results) as storage:
                published += storage.experiments.status(eid).public
        # run again, it completes: the experiment is public, wholly
        again = gerbil_qa_here(*args)
        assert again.returncode == 0, again.stderr
        tally.resumed += killed
        with open_storage(store, base=None) as storage:
            assert storage.experiments.status(eid).public
            tally.partial += partial_experiments(storage, results)
    tally.seconds = time.monotonic() - started
    tally.report(public_when_killed=published, uninterrupted_ms=round(duration * 1000))
    assert tally.kills == KILLS
    assert tally.partial == [] and tally.violations == []


def test_kill9_while_withdrawing(files: dict[str, Path], template: tuple[Path, list[str]]) -> None:
    started = time.monotonic()
    tally = Tally("withdraw")
    results = _whole_results(files)
    published = files["dir"] / "withdraw-template"  # the template's experiments, published
    if not published.exists():
        shutil.copytree(template[0], published)
        for eid in template[1]:
            done = gerbil_qa_here("publish", "--store", str(published), eid)
            assert done.returncode == 0, done.stderr
    reason = ["--reason", "withdrawn by the kill -9 test"]
    timing = files["dir"] / "withdraw-timing"
    shutil.copytree(published, timing)
    duration = _timed(["withdraw", "--store", str(timing), template[1][0], *reason])
    withdrawn = 0
    for store, eid, rng, _ in _each_experiment("withdraw", files, published, template[1], tally):
        args = ["withdraw", "--store", str(store), eid, *reason]
        if _kill_after(args, tally.delay(rng, duration), tally):
            with _after_kill(store, tally, results) as storage:
                done_before = storage.experiments.status(eid).withdrawn_at is not None
            withdrawn += done_before
            if not done_before:  # run again, it is withdrawn, wholly
                again = gerbil_qa_here(*args)
                assert again.returncode == 0, again.stderr
                tally.resumed += 1
        with open_storage(store, base=None) as storage:
            assert storage.experiments.status(eid).withdrawn_at is not None
            tally.partial += partial_experiments(storage, results)
    tally.seconds = time.monotonic() - started
    tally.report(withdrawn_when_killed=withdrawn, uninterrupted_ms=round(duration * 1000))
    assert tally.kills == KILLS
    assert tally.partial == [] and tally.violations == []


def test_kill9_while_importing(files: dict[str, Path], template: tuple[Path, list[str]]) -> None:
    started = time.monotonic()
    tally = Tally("import")
    results = _whole_results(files)
    source = files["dir"] / "import-source"
    shutil.copytree(template[0], source)
    ids = template[1]
    for eid in ids[:2]:
        assert gerbil_qa_here("publish", "--store", str(source), eid).returncode == 0
    dump = files["dir"] / "dump.nq"
    done = gerbil_qa_here("export", "--store", str(source), "--output", str(dump))
    assert done.returncode == 0, done.stderr
    expected = {eid: eid in ids[:2] for eid in ids}  # id -> public
    duration = _timed(["import", "--store", str(files["dir"] / "import-timing"), str(dump)])
    imported_when_killed = 0
    for attempt, rng in _kills("import", KILLS):
        if tally.kills >= KILLS:
            break
        store = files["dir"] / f"import-{attempt}"
        args = ["import", "--store", str(store), str(dump)]
        killed = _kill_after(args, tally.delay(rng, duration), tally)
        if killed and store.exists():
            reported: list[str] = []
            with _after_kill(store, tally, results, reported=reported) as storage:
                there = storage.experiments.listing(include_private=True)
            imported_when_killed += len(there)
            if {s.id: s.public for s in there} not in ({}, expected) and not reported:
                tally.partial.append("an import killed half-way, and `check` did not say so")
            for status in there:  # the dump's, private until the import's last step
                if status.id not in expected or (status.public and not expected[status.id]):
                    tally.partial.append(f"{status.id}: public {status.public} after import")
        again = gerbil_qa_here(*args)  # run again, the store is the dump's
        assert again.returncode == 0, again.stderr
        tally.resumed += killed
        with open_storage(store, base=None) as storage:
            got = {s.id: s.public for s in storage.experiments.listing(include_private=True)}
            assert got == expected
            tally.partial += partial_experiments(storage, results)
        if killed and tally.kills % PER_STORE == 0:
            tally.full_checks += _full_check(store)
        shutil.rmtree(store, ignore_errors=True)
    tally.seconds = time.monotonic() - started
    tally.report(
        experiments_seen_when_killed=imported_when_killed, uninterrupted_ms=round(duration * 1000)
    )
    assert tally.kills == KILLS
    assert tally.partial == [] and tally.violations == []


def test_kill9_while_deleting(files: dict[str, Path], template: tuple[Path, list[str]]) -> None:
    """``gerbil-qa delete`` killed: the experiment is wholly there or wholly gone, and running
    the delete again finishes it, files included (once a store's four experiments are deleted,
    none of their kept files is left)."""
    started = time.monotonic()
    tally = Tally("delete")
    results = _whole_results(files)
    timing = files["dir"] / "delete-timing"
    shutil.copytree(template[0], timing)
    duration = _timed(["delete", "--store", str(timing), template[1][0]])
    gone_when_killed = 0
    for store, eid, rng, last in _each_experiment("delete", files, *template, tally):
        args = ["delete", "--store", str(store), eid]
        killed = _kill_after(args, tally.delay(rng, duration), tally)
        if killed:
            with _after_kill(store, tally, results) as storage:
                listed = storage.experiments.listing(include_private=True)
                gone_when_killed += eid not in {s.id for s in listed}
        again = gerbil_qa_here(*args)  # run again: it finishes (or finds it all done)
        assert again.returncode == 0 or f"no experiment {eid}" in again.stderr, again.stderr
        tally.resumed += killed
        with open_storage(store, base=None) as storage:
            listed = storage.experiments.listing(include_private=True)
            assert eid not in {s.id for s in listed}
            assert storage.experiments.pending_deletions() == {}
            tally.partial += partial_experiments(storage, results)
        if last:  # every experiment of this store deleted: no file of theirs is left
            assert sorted((store / "files").iterdir()) == []
    tally.seconds = time.monotonic() - started
    tally.report(gone_when_killed=gone_when_killed, uninterrupted_ms=round(duration * 1000))
    assert tally.kills == KILLS
    assert tally.partial == [] and tally.violations == []


RUN_QUESTIONS = 40
DELAY = 0.1  # seconds the QA service takes per question: 40 questions, 4 at once, ~1 s


def test_kill9_of_the_server_during_a_run_then_resume(files: dict[str, Path], slow_qa: str) -> None:
    started = time.monotonic()
    tally = Tally("run")
    port = slow_qa.rsplit(":", 1)[1].strip("/")
    allow = f"127.0.0.1:{port}"  # the QA service only: not the server itself
    questions = json.loads(files["dataset"].read_text())
    questions["questions"] = questions["questions"][:RUN_QUESTIONS]
    body = {
        "dataset": {"content": json.dumps(questions), "filename": "kill9.json"},
        "systems": [{"name": "slow", "url": f"{slow_qa}delay/{DELAY}"}],
        "profile": "exact",
    }
    finished_before_kill = 0
    results = 0
    for attempt, rng in _kills("run", RUN_KILLS):
        if tally.kills >= RUN_KILLS:
            break
        store = files["dir"] / f"run-{attempt}"
        served = Served(store, GERBIL_QA_ALLOW_NETWORKS=allow)
        try:
            response = requests.post(served.url + "api/experiments", json=body, timeout=60)
            assert response.status_code == 202, response.text
            eid = response.json()["id"]
            delay = rng.uniform(0.05, RUN_QUESTIONS * DELAY / 4 + 0.5)
            time.sleep(delay)
        finally:
            served.kill()
        tally.kills += 1
        tally.delays.append(delay)
        with open_storage(store, base=None) as storage:
            status = storage.experiments.status(eid)
            if status.status == "finished":
                finished_before_kill += 1
                results = _results(storage, eid, "private")
                # killed between the record and the job's removal: the next start drops the
                # job (the runner's recovery), as a restarted service does
                ExperimentRunner(storage, workers=1).close()
            tally.partial += partial_experiments(storage, results or -1)
            tally.violations += _check_quickly(storage)
        if status.status != "finished":
            resumed = gerbil_qa_here("resume", "--store", str(store), eid, "--allow", allow)
            assert resumed.returncode == 0, resumed.stdout + resumed.stderr
            assert f"experiment {eid}: finished" in resumed.stdout
            tally.resumed += 1
        with open_storage(store, base=None) as storage:
            assert storage.experiments.status(eid).status == "finished"
            results = results or _results(storage, eid, "private")
            tally.partial += partial_experiments(storage, results)
            assert not (store / "jobs" / eid).exists()  # the job's state went with the record
        tally.full_checks += _full_check(store)
    tally.seconds = time.monotonic() - started
    tally.report(finished_before_kill=finished_before_kill)
    assert tally.kills == RUN_KILLS
    assert tally.partial == [] and tally.violations == []
