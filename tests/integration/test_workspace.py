"""The two workspaces keep the same things the same way (:mod:`service.graph.workspace`): the
directory beside an embedded store, and the private dataset of a real remote store (two
``oxigraph serve`` on 127.0.0.1). Jobs run on either (:class:`JobStore` over both), and a remote
store's job state stays out of its dumps and checks."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.experiments.jobs import JobStore
from service.experiments.kept import file_key, keep, kept
from service.experiments.progress import RunProgress, SystemProgress
from service.experiments.spec import ExperimentSpec, FileDataset, FileRef
from service.experiments.systems import AnswerFile
from service.graph.adapter import Side
from service.graph.store import open_storage, workspace_at
from service.graph.workspace import WORK, DirWorkspace, GraphWorkspace, Workspace
from service.model import SystemAnswer
from service.paths import DEMO_DIR
from tests.remote import RemotePair, environment, remote_pair

QUESTIONS = (DEMO_DIR / "questions.json").read_bytes()
BINARY = bytes(range(256)) * 4096  # 1 MiB, not UTF-8: kept byte for byte


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RemotePair]:
    with remote_pair(tmp_path_factory.mktemp("remote")) as running, environment(running.env):
        yield running


@pytest.fixture(params=["directory", "dataset"])
def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workspace]:
    if request.param == "directory":
        yield DirWorkspace(tmp_path / "work")
        return
    pair: RemotePair = request.getfixturevalue("pair")
    found = workspace_at(pair.url)
    assert isinstance(found, GraphWorkspace)
    found.cache = tmp_path / "cache"
    yield found
    graphs = found.store.private.query(
        f'SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{}} FILTER(STRSTARTS(STR(?g), "{WORK}")) }}'
    )
    for row in list(graphs):
        found.store.update(Side.PRIVATE, f"DROP GRAPH <{row['g'].value}>")


def test_keys_hold_bytes_written_together(workspace: Workspace) -> None:
    assert workspace.read("jobs/7/spec.json") is None and not workspace.exists("jobs/7/spec.json")
    workspace.write({"jobs/7/files/a": BINARY, "jobs/7/spec.json": b'{"x": 1}'})
    assert workspace.read("jobs/7/files/a") == BINARY
    assert workspace.exists("jobs/7/spec.json")
    workspace.write({"jobs/7/spec.json": b'{"x": 2}'})  # replaced, not added to
    assert workspace.read("jobs/7/spec.json") == b'{"x": 2}'
    workspace.write({"jobs/8/spec.json": b"{}", "answers/7/QAKIS answers é.json": b"[1]"})
    assert workspace.read("answers/7/QAKIS answers é.json") == b"[1]"
    assert workspace.folders_with("jobs", "spec.json") == ["7", "8"]
    workspace.remove_key("jobs/8/spec.json")
    assert workspace.folders_with("jobs", "spec.json") == ["7"]
    workspace.remove("jobs/7")
    assert workspace.read("jobs/7/files/a") is None and workspace.folders_with("jobs", "x") == []
    assert workspace.read("answers/7/QAKIS answers é.json") == b"[1]"  # another folder
    workspace.write({"jobs/7/progress": b"1"}, if_exists="jobs/7/spec.json")  # gone: nothing
    assert workspace.read("jobs/7/progress") is None
    workspace.write({"answers/7/spec": b"{}"})
    workspace.write({"answers/7/progress": b"2"}, if_exists="answers/7/spec")
    assert workspace.read("answers/7/progress") == b"2"
    workspace.remove("answers/7")


def test_a_folder_removed_while_its_progress_is_written_stays_removed(tmp_path: Path) -> None:
    """A conditional write checks and writes under the lock the removal takes too: without
    it, a write that saw the job recreated its folder after the removal (a progress key
    beside no job) or failed with FileNotFoundError when the folder went mid-write."""
    workspace = DirWorkspace(tmp_path / "work")
    failures: list[BaseException] = []
    left = []
    for n in range(100):
        workspace.write({f"jobs/{n}/spec.json": b"{}"})
        stop = threading.Event()

        def write_progress(n: int = n, stop: threading.Event = stop) -> None:
            while not stop.is_set():
                try:
                    workspace.write(
                        {f"jobs/{n}/progress": b"1"}, sync=False, if_exists=f"jobs/{n}/spec.json"
                    )
                except OSError as err:
                    failures.append(err)
                    return

        writer = threading.Thread(target=write_progress)
        writer.start()
        workspace.remove(f"jobs/{n}")
        stop.set()
        writer.join()
        if (tmp_path / "work" / "jobs" / str(n)).exists():
            left.append(n)
    assert left == [] and failures == []


def test_a_log_keeps_its_lines_in_order_while_its_job_exists(workspace: Workspace) -> None:
    log, spec = "jobs/9/answers/0.jsonl", "jobs/9/spec.json"
    workspace.append(log, '{"q": 1}', if_exists=spec)  # no job (yet, or any more): no line
    assert workspace.lines(log) == [] and workspace.count_lines(log) == 0
    workspace.write({spec: b"{}"})
    lines = [json.dumps({"q": i, "text": 'é\n"quoted"'}) for i in range(30)]
    for line in lines:
        workspace.append(log, line, if_exists=spec)
    assert workspace.lines(log) == lines and workspace.count_lines(log) == 30
    workspace.remove("jobs/9")
    assert workspace.lines(log) == []


def test_values_larger_than_a_results_parser_takes_are_kept_in_parts(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    big = os.urandom(17 * 1024 * 1024)  # its base64 in one literal: over pyoxigraph's 16 MiB
    workspace.write({"files/" + "e" * 64: big})
    assert workspace.read("files/" + "e" * 64) == big
    monkeypatch.setattr("service.graph.workspace.PART", 1000)  # lines in several parts too
    log, spec = "jobs/3/answers/1.jsonl", "jobs/3/spec.json"
    workspace.write({spec: b"{}"})
    lines = [json.dumps({"q": i, "answers": ["é" * 2500]}) for i in range(3)]
    for line in lines:
        workspace.append(log, line, if_exists=spec)
    assert workspace.lines(log) == lines and workspace.count_lines(log) == 3


def test_kept_files_have_a_local_path_for_readers_of_paths(workspace: Workspace) -> None:
    import hashlib

    sha = hashlib.sha256(QUESTIONS).hexdigest()
    assert workspace.path(file_key(sha)) is None
    keep(workspace, sha, QUESTIONS)
    path = workspace.path(file_key(sha))
    assert path is not None and path.read_bytes() == QUESTIONS
    assert kept(workspace, sha, experiment_id="3", name="q.json") == QUESTIONS
    # an archived answer file is found by its experiment and name, checked by its SHA-256
    workspace.write({"answers/3/run.json": BINARY})
    binary_sha = hashlib.sha256(BINARY).hexdigest()
    assert kept(workspace, binary_sha, experiment_id="3", name="../x/run.json") == BINARY
    assert kept(workspace, sha.replace("a", "b"), experiment_id="3", name="run.json") is None
    if isinstance(workspace, GraphWorkspace):  # only content-addressed keys are cached
        with pytest.raises(ValueError, match="only kept files"):
            workspace.path("jobs/1/spec.json")


def test_a_job_lives_in_either_workspace(workspace: Workspace) -> None:
    ref = FileRef.upload("questions.json", QUESTIONS)
    spec = ExperimentSpec(FileDataset(ref), (AnswerFile("gold", ref),))
    jobs = JobStore(workspace)
    jobs.create("42", spec, {ref.sha256 or "": QUESTIONS})
    assert jobs.ids() == ["42"] and jobs.has("42") and jobs.spec("42") == spec
    assert jobs.file("42", ref.sha256 or "") == QUESTIONS
    first = SystemAnswer(question_id="1", error="timed out")
    jobs.append("42", 0, first)
    jobs.append("42", 0, SystemAnswer(question_id="2"))
    jobs.append("42", 0, SystemAnswer(question_id="1"))  # asked again after a take-over
    assert jobs.answered("42", 0) == 3
    assert jobs.answers("42", 0) == {
        "1": SystemAnswer(question_id="1"),
        "2": SystemAnswer(question_id="2"),
    }
    assert jobs.progress("42") is None
    # a resumed system's logged answers (``reused``) are read back with it: another replica
    # tells its time left from this file, not from its memory
    resumed = SystemProgress("s", done=12, total=20, state="asking", since=100.0, reused=10)
    progress = RunProgress(phase="asking", systems=(resumed,), started=99.0)
    jobs.write_progress("42", progress)
    assert jobs.progress("42") == progress
    assert progress.timing(104.0) == (5.0, 16.0)  # 2 asked in 4 s, 8 left
    assert not jobs.cancel_requested("42")
    jobs.request_cancel("42")
    assert jobs.cancel_requested("42")
    jobs.clear_cancel("42")
    assert not jobs.cancel_requested("42")
    jobs.remove("42")
    assert jobs.ids() == [] and not jobs.has("42")
    jobs.append("42", 0, first)  # a runner late after the record: no log comes back
    assert jobs.answered("42", 0) == 0
    jobs.write_progress("42", progress)  # nor progress (no key left beside no job)
    assert jobs.progress("42") is None and workspace.read("jobs/42/progress.json") is None


def test_a_remote_stores_own_state_is_not_in_its_dumps_or_checks(pair: RemotePair) -> None:
    from service.graph.checks import check_store
    from service.graph.dumps import CHANGE_TOKEN, STORE_MARKER, export

    with open_storage(pair.url, catalog=False) as storage:
        workspace = storage.workspace
        assert isinstance(workspace, GraphWorkspace)
        workspace.write({"jobs/5/spec.json": b"{}", "files/" + "0" * 64: BINARY})
        read: list[object] = []
        private_read = storage.store.private.quads_for_pattern

        def reading(*pattern: object) -> object:
            read.append(pattern)
            return private_read(*pattern)

        storage.store.private.quads_for_pattern = reading  # type: ignore[method-assign]
        try:
            dump = export(storage)
            assert WORK.encode() not in dump and len(dump) > 1000
            # the kept file's bytes are not even fetched: the private data is read by graph
            assert read and all(p[3] is not None for p in read)
            assert not [p for p in read if WORK in str(p[3])]
            assert storage.store.change_token() is not None  # the replicas' signal: not dumped
            assert f"<{STORE_MARKER}> <{CHANGE_TOKEN}>".encode() not in dump
            assert not [v for v in check_store(storage, shapes=False) if WORK in str(v)]
        finally:
            workspace.remove("jobs/5")
            workspace.remove("files/" + "0" * 64)


def test_a_registered_dataset_version_runs_on_a_remote_store(
    pair: RemotePair, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version's file kept in the private dataset is read back (through the local cache,
    for the readers that take a path) when an experiment names the version."""
    import hashlib

    from service import catalog, formats
    from service.experiments.inputs import Files
    from service.experiments.run import run_experiment
    from service.experiments.spec import CatalogueDataset

    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))
    name = "text2sparql-2025-ck25"
    dataset = catalog.load(name)
    data = formats.write(dataset, "qald-json")
    data = data if isinstance(data, bytes) else data.encode("utf-8")
    sha = hashlib.sha256(data).hexdigest()
    with open_storage(pair.url) as storage:
        assert storage.workspace is not None
        keep(storage.workspace, sha, data)
        storage.catalogue.register_version(name, dataset, kb="test", version="v2", file_sha256=sha)
        answers = FileRef.upload("gold.json", data)
        spec = ExperimentSpec(CatalogueDataset(name, version="v2"), (AnswerFile("gold", answers),))
        outcome = run_experiment(spec, storage=storage, files=Files({answers.sha256 or "": data}))
        assert outcome.ticket is not None
        [evaluation] = outcome.evaluations
        assert "version v2" in evaluation.dataset
        assert evaluation.tasks["QA"].measures["macroF1"] > 0.9  # type: ignore[index]
        assert storage.work_dir is not None
        assert (storage.work_dir / "cache" / "files" / sha).read_bytes() == data


# The fields of the classes a job stores, as job schema 1 has them (JOB_SCHEMA): a field added
# to one makes this release's jobs unreadable by the releases before it (SystemAnswer.rewrites
# did: an older replica that took a newer one's run over ended it ``error``, explore50 F3).
# Change them together: raise JOB_SCHEMA, then this table.
STORED_FIELDS_OF_SCHEMA = {
    "Term": ("value", "kind", "datatype", "lang"),
    "AnswerSet": ("vars", "rows", "boolean", "empty_bindings"),
    "Annotation": ("iri", "kind", "begin", "end"),
    "SystemAnswer": (
        "question_id",
        "answers",
        "sparql",
        "annotations",
        "answertype",
        "answer_item_types",
        "confidence",
        "runtime_ms",
        "error",
        "attempts",
        "retry_reason",
        "rewrites",
    ),
    "Problem": (
        "message",
        "severity",
        "file",
        "line",
        "column",
        "path",
        "question_id",
        "expected",
    ),
}


def test_the_job_schema_is_raised_with_the_fields_a_job_stores() -> None:
    import dataclasses

    from service.experiments.jobs import JOB_SCHEMA, _registry

    stored = {
        name: tuple(f.name for f in dataclasses.fields(cls))
        for name, cls in _registry().items()
        if dataclasses.is_dataclass(cls)
    }
    assert (JOB_SCHEMA, stored) == (1, STORED_FIELDS_OF_SCHEMA), (
        "a class a job stores changed: raise JOB_SCHEMA (service/experiments/jobs.py) so older "
        "releases leave this one's jobs alone, and update STORED_FIELDS_OF_SCHEMA"
    )


def test_a_job_records_the_schema_and_release_that_wrote_it(workspace: Workspace) -> None:
    from service import release
    from service.experiments.jobs import JOB_SCHEMA

    ref = FileRef.upload("questions.json", QUESTIONS)
    jobs = JobStore(workspace)
    jobs.create("42", ExperimentSpec(FileDataset(ref), (AnswerFile("gold", ref),)), {})
    ours = release.source().version
    assert jobs.schema("42") == (JOB_SCHEMA, ours) and jobs.newer("42") is None
    workspace.write({"jobs/42/schema": b"0 0.0.1\n"})  # an older release's run, resumed here
    jobs.mark_schema("42")
    assert jobs.schema("42") == (JOB_SCHEMA, ours)
    workspace.write({"jobs/42/schema": f"{JOB_SCHEMA + 1} 9.9.9\n".encode()})
    assert jobs.newer("42") == (
        f"its job was written by gerbil-qa 9.9.9 (job schema {JOB_SCHEMA + 1}), which this "
        f"release ({ours}, job schema {JOB_SCHEMA}) cannot read"
    )
    workspace.write({"jobs/42/schema": b"garbage\n"})  # damaged: unreadable, not newer
    assert jobs.damaged_mark("42") == "garbage"
    assert "is unreadable: 'garbage'" in (jobs.newer("42") or "")
    assert "job schema" not in (jobs.newer("42") or "")
    workspace.remove_key("jobs/42/schema")  # a release before the mark: readable
    assert jobs.schema("42") == (0, "") and jobs.newer("42") is None
