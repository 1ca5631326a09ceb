"""The command line on a remote store (issue 14): two real Oxigraph servers (``oxigraph serve``)
hold the public and the private dataset; ``gerbil-qa`` runs with ``--store http://…`` and
``GERBIL_QA_PRIVATE_STORE``, killed in subprocesses, otherwise in this process
(``tests.helpers.gerbil_qa_here``: the same command without an interpreter's start each).

- an experiment recorded on the remote store is the experiment the embedded store records
  (the same graph, compared canonically), and evaluate, publish, rescore, export, import and
  check all work on it, the data landing in the servers themselves;
- kill -9 of ``evaluate --store URL`` at random points leaves nothing partial (one SPARQL
  Update per experiment), as on the embedded store.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.graph.store import open_storage
from service.web.describe import FOLLOW_EXPERIMENT, FOLLOW_TASK, REVERSE_TASK, document_quads
from tests.helpers import gerbil_qa_here, register_ck25_version
from tests.reliability import test_kill9
from tests.reliability.figures import scaled
from tests.reliability.test_kill9 import (
    QUESTIONS,
    Tally,
    _evaluate_args,
    _kill_after,
    _kills,
    _timed,
    partial_experiments,
)
from tests.remote import RemotePair, environment, remote_pair

KILLS = scaled(6, 50)
files = test_kill9.files  # the same dataset and answers (a module fixture)


@pytest.fixture()
def pair(tmp_path: Path) -> Iterator[RemotePair]:
    with remote_pair(tmp_path) as running, environment(running.env):
        yield running


def _ok(*args: str) -> str:
    """``gerbil-qa ARGS`` run in this process (the killed ones are subprocesses), succeeding."""
    done = gerbil_qa_here(*args)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout + done.stderr


def _canonical(quads: list) -> set[str]:
    """The quads, blank nodes canonically named, without the times of the run (which differ
    from run to run)."""
    import pyoxigraph as ox

    timed = {"http://www.w3.org/2001/XMLSchema#dateTime", "http://www.w3.org/2001/XMLSchema#date"}
    kept = [
        q
        for q in quads
        if not (isinstance(q.object, ox.Literal) and q.object.datatype.value in timed)
    ]
    dataset = ox.Dataset(kept)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in dataset}


def test_an_experiment_on_a_remote_store_is_the_embedded_one_and_every_command_works(
    files: dict[str, Path], pair: RemotePair, tmp_path: Path
) -> None:
    embedded = tmp_path / "embedded"
    _ok(*_evaluate_args(files, embedded))
    _ok(*_evaluate_args(files, pair.url))  # type: ignore[arg-type]  # a URL
    with open_storage(embedded, base=None) as local, open_storage(pair.url, base=None) as remote:
        (here,) = local.experiments.listing(include_private=True)
        (there,) = remote.experiments.listing(include_private=True)
        assert here.id == there.id and there.status == "finished" and not there.public
        assert _canonical(local.experiments.quads(here.id)) == _canonical(
            remote.experiments.quads(there.id)
        )
        eid = there.id
        # the documents the pages and conneg serve (walked level by level on the remote store,
        # one request a level, blank nodes brought with their parents) are the embedded ones
        for uri, follow, reverse in (
            (local.uris.experiment(eid), FOLLOW_EXPERIMENT, ()),
            (local.uris.experiment(eid) + "/task/1", FOLLOW_TASK, REVERSE_TASK),
        ):
            graph = local.uris.experiment_graph(eid)
            docs = [
                _canonical(
                    document_quads(s.private, uri, graph=graph, follow=follow, reverse=reverse)
                )
                for s in (local, remote)
            ]
            assert docs[0] == docs[1] and len(docs[0]) > 20, uri
    # the private dataset's server holds it; the public one does not
    graph = f"http://localhost:8080/graph/experiment/{eid}"
    ask = f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"
    assert int(pair.private.query(ask)[0]["n"]) > 1000
    assert int(pair.public.query(ask)[0]["n"]) == 0

    _ok("publish", eid, "--store", pair.url)
    assert int(pair.public.query(ask)[0]["n"]) > 1000
    assert int(pair.private.query(ask)[0]["n"]) == 0
    rescored = _ok("rescore", eid, "--store", pair.url, "--profile", "fair")
    assert "revision" in rescored.lower() or eid in rescored
    dump = tmp_path / "backup.tar"  # the dump with the kept files (work graphs, not dumped)
    _ok("export", "--store", pair.url, "--files", "--output", str(dump))
    assert "0 violation(s)" in _ok("check", "--store", pair.url)

    # the dump restores into another remote store: the same experiments, the same graphs
    with remote_pair(tmp_path / "second") as second, environment(second.env):
        _ok("import", str(dump), "--store", second.url)
        assert "0 violation(s)" in _ok("check", "--store", second.url)
        with open_storage(pair.url, base=None) as a, open_storage(second.url, base=None) as b:
            before = {
                (s.id, s.status, s.public) for s in a.experiments.listing(include_private=True)
            }
            after = {
                (s.id, s.status, s.public) for s in b.experiments.listing(include_private=True)
            }
            assert before == after and len(before) == 2
            kept = a.workspace.keys("files") if a.workspace is not None else []
            assert kept and b.workspace is not None and b.workspace.keys("files") == kept
            assert all(a.workspace.read(k) == b.workspace.read(k) for k in kept)  # type: ignore[union-attr]
            for eid_, _, _ in before:
                assert _canonical(a.experiments.quads(eid_)) == _canonical(
                    b.experiments.quads(eid_)
                )


def test_kill9_while_recording_on_a_remote_store(files: dict[str, Path], pair: RemotePair) -> None:
    started = time.monotonic()
    tally = Tally("record-remote")
    args = _evaluate_args(files, pair.url)  # type: ignore[arg-type]  # a URL
    duration = _timed(args)
    with open_storage(pair.url, base=None) as storage:
        (whole,) = storage.experiments.listing(include_private=True)
        results = int(
            next(
                iter(
                    storage.private.query(
                        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?r "
                        "<http://w3id.org/gerbil/qa/vocab#resultOf> ?t } }"
                    )
                )
            )["n"].value
        )
        assert results >= QUESTIONS, whole
    for _, rng in _kills("record-remote", KILLS):
        if tally.kills >= KILLS:
            break
        if not _kill_after(args, rng.uniform(0.05, 0.9 * duration), tally):
            continue
        tally.partial += _settled_partial(pair.url, results)
    assert "0 violation(s)" in _ok("check", "--store", pair.url)
    tally.full_checks += 1
    tally.seconds = time.monotonic() - started
    tally.report(uninterrupted_ms=round(duration * 1000), store="oxigraph serve (remote)")
    assert tally.kills == KILLS
    assert tally.partial == [], tally.partial


def _settled_partial(url: str, results: int) -> list[str]:
    """``partial_experiments`` once the store has applied what the killed process had sent:
    the server goes on with a request whose client died (an experiment's INSERT DATA), so a
    check right after the kill can read the admin graph before that write and the experiment
    graphs after it (seen: "a graph without its admin record", gone a moment later). What
    is still partial a second later is counted."""
    with open_storage(url, base=None) as storage:
        if not partial_experiments(storage, results):
            return []
    time.sleep(1.0)
    with open_storage(url, base=None) as storage:
        return partial_experiments(storage, results)


def test_a_dataset_version_is_registered_run_and_rescored_on_a_remote_store(
    capsys: pytest.CaptureFixture[str], pair: RemotePair, tmp_path: Path, data_dir: Path
) -> None:
    """The catalogue and versions on a remote store: ``dataset refresh --store URL`` registers
    a version (its file kept in the work directory), ``evaluate --dataset-version`` and
    ``rescore --dataset-version`` read it back from the store."""
    import json

    from service.cli import main

    with environment({"GERBIL_QA_DATA": str(data_dir)}):
        out = tmp_path / "ck25-v2.json"
        uri, version, franz = register_ck25_version(pair.url, data_dir, out, capsys)
        # the version is described in the public dataset's server
        rows = pair.public.query(f"SELECT ?g WHERE {{ GRAPH ?g {{ <{uri}> ?p ?o }} }} LIMIT 1")
        assert rows, uri
        run = ["evaluate", "--dataset", "text2sparql-2025-ck25", "--answers", str(franz)]
        run += ["--profile", "text2sparql", "--types", "QA", "--output", "json"]
        assert main([*run, "--dataset-version", version, "--store", pair.url]) == 0
        assert json.loads(capsys.readouterr().out)["results"]["QA"]["questions"] == 50
        assert main([*run, "--store", pair.url]) == 0
        old = json.loads(capsys.readouterr().out)["experiment"]["id"]
        argv = ["rescore", old, "--store", pair.url, "--dataset-version", version]
        assert main([*argv, "--output", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["revisionOf"] == old


def test_an_export_during_a_publication_keeps_the_experiment(
    files: dict[str, Path], pair: RemotePair, tmp_path: Path
) -> None:
    """The two datasets are read one after the other: an experiment published between the two
    reads (the publication made to happen right after the first) is in the dump as it was
    before it, unpublished, and comes back from it; read the other way round it was in neither."""
    import pyoxigraph as ox

    from service.graph.dumps import export, import_dump

    _ok(*_evaluate_args(files, pair.url))  # type: ignore[arg-type]  # a URL
    with open_storage(pair.url, base=None) as remote:
        (recorded,) = remote.experiments.listing(include_private=True)
        graph = remote.uris.experiment_graph(recorded.id)
        reads: list[str] = []
        private_graphs = remote.store.private.named_graphs

        def listed() -> object:  # the private dataset is read graph by graph
            reads.append("private")
            return private_graphs()

        public_read = remote.store.public.quads_for_pattern

        def publish_then_read(*pattern: object) -> list:
            if pattern == (None, None, None, None) and "public" not in reads:  # the export's
                reads.append("public")  # (publishing reads so too)
                remote.experiments.publish(recorded.id)  # after the private read
            return list(public_read(*pattern))

        remote.store.private.named_graphs = listed
        remote.store.public.quads_for_pattern = publish_then_read
        dump = export(remote)
    graphs = {str(q.graph_name) for q in ox.parse(dump, format=ox.RdfFormat.N_QUADS)}
    assert f"<{graph}>" in graphs
    with open_storage(tmp_path / "restored", base=None) as restored:
        import_dump(restored, dump)
        (back,) = restored.experiments.listing(include_private=True)
        assert back.id == recorded.id and not restored.experiments.is_public(recorded.id)
    assert reads == ["private", "public"]
