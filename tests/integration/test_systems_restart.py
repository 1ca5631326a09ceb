"""Experiments survive a killed process: interrupted mid-run, marked on restart, resumed with
``gerbil-qa resume``, they end with the results of an uninterrupted run, and no question that
was answered before the kill is asked again."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from service.experiments.asked import WebService
from service.experiments.jobs import JobStore
from service.experiments.runner import ExperimentRunner
from service.experiments.spec import ExperimentSpec, FileDataset, FileRef, KBSpec, RunOptions
from service.graph.store import Storage, open_storage
from service.graph.workspace import DirWorkspace
from service.kb.local import LocalKB
from service.systems.reference import BaselineSystem
from service.systems.safety import NetworkPolicy
from service.systems.server import ServedSystem, make_app

ROOT = Path(__file__).resolve().parents[2]
GERBIL_QA = [sys.executable, "-m", "service"]
LOCAL = NetworkPolicy.allowing("127.0.0.1/32")
QUESTIONS = 24
DBR = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"


def _kb_and_dataset(directory: Path) -> tuple[Path, Path]:
    """A KB of 12 cities and the 24 questions "What is the country/mayor of City N?"."""
    lines = [
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        f'<{DBO}country> rdfs:label "country"@en .',
        f'<{DBO}mayor> rdfs:label "leader"@en .',  # "mayor" questions fail: a real baseline
    ]
    questions = []
    for i in range(QUESTIONS // 2):
        city, land, mayor = f"{DBR}City_{i}", f"{DBR}Land_{i % 3}", f"{DBR}Mayor_{i}"
        lines += [
            f'<{city}> rdfs:label "City {i}"@en ; <{DBO}country> <{land}> ;',
            f"    <{DBO}mayor> <{mayor}> .",
            f'<{land}> rdfs:label "Land {i % 3}"@en .',
        ]
        for prop, answer in (("country", land), ("mayor", mayor)):
            questions.append(
                {
                    "id": f"{prop}-{i}",
                    "question": [{"language": "en", "string": f"What is the {prop} of City {i}?"}],
                    "query": {"sparql": f"SELECT ?x WHERE {{ <{city}> <{DBO}{prop}> ?x }}"},
                    "answers": [
                        {
                            "head": {"vars": ["x"]},
                            "results": {"bindings": [{"x": {"type": "uri", "value": answer}}]},
                        }
                    ],
                }
            )
    kb = directory / "kb.ttl"
    kb.write_text("\n".join(lines), encoding="utf-8")
    dataset = directory / "cities.json"
    dataset.write_text(json.dumps({"dataset": {"id": "cities"}, "questions": questions}))
    return kb, dataset


class Counting:
    """WSGI middleware counting the questions a service is asked."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.asked: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)  # the served app reads the form again
        question = parse_qs(body.decode("ascii")).get("query", [""])[0]
        with self.lock:
            self.asked[question] += 1
        return self.app(environ, start_response)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    directory = tmp_path_factory.mktemp("restart")
    kb, dataset = _kb_and_dataset(directory)
    counting = Counting(make_app(BaselineSystem(LocalKB([kb])), delay=0.1))
    with ServedSystem(counting) as served:
        yield {
            "dir": directory,
            "kb": kb,
            "dataset": dataset,
            "url": served.url,
            "counter": counting,
        }


DRIVER = textwrap.dedent(
    """
    import sys
    from service.experiments.runner import ExperimentRunner
    from service.experiments.spec import ExperimentSpec, FileDataset, FileRef, KBSpec, RunOptions
    from service.experiments.asked import WebService
    from service.graph.store import open_storage
    from service.systems.safety import NetworkPolicy

    store, dataset, kb, url = sys.argv[1:]
    storage = open_storage(store)
    runner = ExperimentRunner(storage, workers=1, policy=NetworkPolicy.allowing("127.0.0.1/32"))
    spec = ExperimentSpec(FileDataset(FileRef.local(dataset)), (WebService("baseline", url),),
                          "gerbil", kb=KBSpec((kb,)), options=RunOptions(concurrency=2))
    ticket = runner.submit(spec)
    print(ticket.id, flush=True)
    runner.wait(ticket.id)
    print("finished", flush=True)
    """
)


def _spec(setup: dict[str, Any], *, concurrency: int = 2) -> ExperimentSpec:
    return ExperimentSpec(
        FileDataset(FileRef.local(setup["dataset"])),
        (WebService("baseline", setup["url"]),),
        "gerbil",
        kb=KBSpec((str(setup["kb"]),)),
        options=RunOptions(concurrency=concurrency),
    )


def _results(graph: Storage, experiment_id: str) -> Counter[tuple[str, str, str]]:
    """Every numeric result of an experiment, subjects made relative to the experiment, without
    the measures that are wall-clock times (they differ from run to run by nature)."""
    exp = graph.uris.experiment(experiment_id)
    rows = graph.private.query(
        f"SELECT ?s ?p ?o WHERE {{ GRAPH <{graph.uris.experiment_graph(experiment_id)}> "
        "{ ?s ?p ?o FILTER(isLiteral(?o) && isNumeric(?o)) } }"
    )
    out: Counter[tuple[str, str, str]] = Counter()
    for row in rows:
        predicate = row["p"].value
        if "untime" in predicate or predicate.endswith("byteSize"):
            continue
        out[(row["s"].value.replace(exp, "EXP"), predicate, row["o"].value)] += 1
    return out


def test_killed_experiment_resumes_to_the_same_results(setup: dict[str, Any]) -> None:
    counter: Counting = setup["counter"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    # The reference: the same experiment, uninterrupted, in this process.
    with open_storage(setup["dir"] / "reference") as graph:
        runner = ExperimentRunner(graph, workers=1, policy=LOCAL)
        ticket = runner.submit(_spec(setup))
        runner.wait(ticket.id)
        runner.close()
        assert graph.experiments.status(ticket.id).status == "finished"
        expected = _results(graph, ticket.id)
        archive = setup["dir"] / "reference" / "answers" / ticket.id / "1-baseline.json"
    # The comparison below compares something: every call answered, half of them right.
    assert expected and '"error"' not in archive.read_text(encoding="utf-8")
    assert archive.read_text(encoding="utf-8").count(f"{DBR}Land_") == QUESTIONS // 2
    counter.asked.clear()

    # The same experiment in another process, killed (SIGKILL) in the middle of asking.
    store = setup["dir"] / "killed"
    driver = subprocess.Popen(
        [
            sys.executable,
            "-c",
            DRIVER,
            str(store),
            str(setup["dataset"]),
            str(setup["kb"]),
            setup["url"],
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert driver.stdout is not None
    eid = driver.stdout.readline().strip()
    log = store / "jobs" / eid / "answers" / "0.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if log.exists() and log.read_text(encoding="utf-8").count("\n") >= QUESTIONS // 3:
            break
        time.sleep(0.02)
    driver.send_signal(signal.SIGKILL)
    driver.wait(timeout=10)
    answered_before = len(JobStore(DirWorkspace(store)).answers(eid, 0))
    assert QUESTIONS // 3 <= answered_before < QUESTIONS

    # Progress is readable from the command line while nothing runs.
    shown = subprocess.run(
        [*GERBIL_QA, "progress", "--store", str(store), eid],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert "running" in shown.stdout  # the dead process could not say otherwise
    assert f"baseline: {answered_before}/{QUESTIONS} questions" in shown.stdout

    # A restart marks it interrupted.
    with open_storage(store) as graph:
        runner = ExperimentRunner(graph, workers=1, policy=LOCAL)
        status = graph.experiments.status(eid)
        runner.close()
    assert status.status == "interrupted"
    assert status.message is not None and "resume" in status.message

    # `gerbil-qa resume` continues it to the end.
    done = subprocess.run(
        [*GERBIL_QA, "resume", "--store", str(store), eid, "--allow", "127.0.0.1/32"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"experiment {eid}: finished" in done.stdout

    with open_storage(store) as graph:
        assert graph.experiments.status(eid).status == "finished"
        assert _results(graph, eid) == expected
    assert not (store / "jobs" / eid).exists()  # job state is dropped once recorded
    assert (store / "answers" / eid / "1-baseline.json").is_file()  # the archived answers
    # Answers logged before the kill were not asked again; only calls in flight (at most the
    # concurrency, 2) may have been asked twice.
    assert sum(counter.asked.values()) <= QUESTIONS + 2
    assert len(counter.asked) == QUESTIONS


def _cancelled_midway(runner: ExperimentRunner, setup: dict[str, Any]) -> str:
    """Submit the baseline run, cancel it once its first answer is logged; its id."""
    assert runner.jobs is not None
    eid = runner.submit(_spec(setup, concurrency=1)).id
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not runner.jobs.answers(eid, 0):
        time.sleep(0.02)
    assert runner.cancel(eid)
    runner.wait(eid)
    return eid


def test_cancel_and_resume_in_process(setup: dict[str, Any]) -> None:
    with open_storage(setup["dir"] / "cancelled") as graph:
        runner = ExperimentRunner(graph, workers=1, policy=LOCAL)
        assert runner.jobs is not None
        eid = _cancelled_midway(runner, setup)
        status = graph.experiments.status(eid)
        assert status.status == "cancelled"
        assert status.message is not None and "resume to continue" in status.message
        progress = runner.progress(eid)
        assert progress is not None
        assert progress.systems[0].system == "baseline" and 0 < progress.systems[0].done < QUESTIONS
        runner.resume(eid)
        runner.wait(eid)
        assert graph.experiments.status(eid).status == "finished"
        with pytest.raises(Exception, match="only interrupted, cancelled, error"):
            runner.resume(eid)
        runner.close()


def test_a_damaged_schema_mark_is_said_unreadable_not_a_newer_schema(
    setup: dict[str, Any],
) -> None:
    """``garbage`` in ``jobs/{id}/schema`` was said to be "written by gerbil-qa (unknown) (job
    schema 2) … resume it on a replica of that release or a newer one", a schema no release
    has (explore54 F5): the mark is unreadable, and the line the message gives makes it
    resumable."""
    from service.errors import Conflict
    from service.experiments.jobs import JOB_SCHEMA

    with open_storage(setup["dir"] / "damaged") as graph:
        runner = ExperimentRunner(graph, workers=1, policy=LOCAL)
        assert runner.jobs is not None and graph.workspace is not None
        eid = _cancelled_midway(runner, setup)
        graph.workspace.write({f"jobs/{eid}/schema": b"garbage\n"})
        with pytest.raises(Conflict) as refused:
            runner.resume(eid)
        said = refused.value.message
        assert f"jobs/{eid}/schema" in said and "is unreadable: 'garbage'" in said, said
        assert "job schema" not in said and "replica of that release" not in said, said
        line = said.split("(this one: '")[1].split("')")[0]
        assert line.startswith(f"{JOB_SCHEMA} ")
        graph.workspace.write({f"jobs/{eid}/schema": f"{line}\n".encode()})  # as it says
        runner.resume(eid)
        runner.wait(eid)
        assert graph.experiments.status(eid).status == "finished"
        runner.close()


def test_cancel_from_the_command_line_reaches_a_running_job(setup: dict[str, Any]) -> None:
    store = setup["dir"] / "cli-cancel"
    with open_storage(store) as graph:
        # The store is open here (as in a running server): the CLI leaves a marker.
        _cancel_from_the_command_line(setup, graph, str(store))


def test_cancel_from_the_command_line_on_a_remote_store_says_it_was_requested(
    setup: dict[str, Any], tmp_path: Path
) -> None:
    from tests.remote import environment, remote_pair

    # it printed "experiment …: running", as if the cancel had not been taken
    with (
        remote_pair(tmp_path) as pair,
        environment(pair.env),
        open_storage(pair.url, catalog=False) as graph,
    ):
        _cancel_from_the_command_line(setup, graph, pair.url)


def _cancel_from_the_command_line(setup: dict[str, Any], graph: Storage, store: str) -> None:
    """A job running here, cancelled by ``gerbil-qa cancel --store STORE`` in another process:
    the command says the cancellation was requested, and the job ends cancelled."""
    runner = ExperimentRunner(graph, workers=1, policy=LOCAL)
    assert runner.jobs is not None
    eid = runner.submit(_spec(setup, concurrency=1)).id
    while not runner.jobs.answers(eid, 0):
        time.sleep(0.02)
    cancelled = subprocess.run(
        [*GERBIL_QA, "cancel", "--store", store, eid],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        timeout=60,
    )
    assert cancelled.returncode == 0, cancelled.stderr
    assert "cancellation of" in cancelled.stdout and "requested" in cancelled.stdout
    runner.wait(eid, timeout=20)
    assert graph.experiments.status(eid).status == "cancelled"
    runner.close()
