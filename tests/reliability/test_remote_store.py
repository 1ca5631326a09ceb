"""The command line on a remote store (issue 14): two real Oxigraph servers (``oxigraph serve``)
hold the public and the private dataset; ``gerbil-qa`` runs with ``--store http://…`` and
``GERBIL_QA_PRIVATE_STORE``, killed in subprocesses, otherwise in this process
(``tests.helpers.gerbil_qa_here``: the same command without an interpreter's start each).

- an experiment recorded on the remote store is the experiment the embedded store records
  (the same graph, compared canonically), and evaluate, publish, rescore, export, import and
  check all work on it, the data landing in the servers themselves;
- kill -9 of ``evaluate --store URL`` at random points leaves nothing partial (one SPARQL
  Update per experiment), as on the embedded store;
- the two URLs swapped or naming one dataset, and a read-only public store, are refused when
  opened, nothing written; a backup restores into a store whose first ``serve`` computed
  the demo.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from service.graph.store import open_storage
from service.paths import DEMO_DIR
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
from tests.remote import (
    OxigraphServer,
    RemotePair,
    environment,
    read_only_proxy,
    remote_pair,
)

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
        if not _kill_after(args, tally.delay(rng, duration), tally):
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


BASE = "https://qa.example.org/"
EVERY_QUAD = "SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }"


def _held(*servers: OxigraphServer) -> list[int]:
    """How many quads each server holds (default graph and named graphs)."""
    return [int(server.query(EVERY_QUAD)[0]["n"]) for server in servers]


def _localhost(url: str) -> str:
    """The same server under another name (what a string comparison took for another one)."""
    return url.replace("127.0.0.1", "localhost")


def test_swapped_or_aliased_store_urls_are_refused_before_anything_is_written(
    pair: RemotePair, tmp_path: Path
) -> None:
    """The public URL naming the private dataset (the two swapped; one dataset under two
    names) was served as public: its endpoint showed unpublished experiments, the admin graph
    and kept uploads (explore-12 #2); a listing command wrote a marker, the vocabulary and an
    admin graph into the live datasets (#3). Refused at open, naming both URLs and what was
    found, nothing written; a read-only command makes no store where there is none."""
    from service.errors import ServiceError

    with open_storage(pair.url, base=BASE, catalog=False) as storage:  # the deployment
        storage.experiments.reserve()  # an unpublished record in the admin graph
    before = _held(pair.public, pair.private)
    public, private = pair.public.url, pair.private.url
    for store, other in ((private, public), (private, _localhost(private))):
        with environment({"GERBIL_QA_PRIVATE_STORE": other}), pytest.raises(ServiceError) as no:
            open_storage(store, base=BASE)  # what serve opens
        refused = no
        said = str(refused.value)
        assert f"--store {store}" in said and other in said, said
        assert "store marker (base https://qa.example.org/)" in said, said
        assert "admin graph" in said and "swapped" in said, said
        for command in ("experiments", "check", "evaluate"):
            demo = str(DEMO_DIR / "questions.json")  # "demo" names no file: refused before
            args = ["--dataset", demo, "--answers", "x.json"] if command == "evaluate" else []
            done = gerbil_qa_here(command, *args, "--store", store, GERBIL_QA_PRIVATE_STORE=other)
            assert done.returncode != 0 and "swapped" in done.stderr, (command, done.stderr)
    assert _held(pair.public, pair.private) == before

    # the base refused names the dataset whose marker says it (the private one)
    with pytest.raises(ServiceError, match=f"the dataset {private} was created with base {BASE}"):
        open_storage(pair.url, base="https://other.example.org/")

    # a new dataset under two names: the marker written to one is found in the other
    with remote_pair(tmp_path / "fresh") as fresh:
        alias = {"GERBIL_QA_PRIVATE_STORE": _localhost(fresh.url)}
        with environment(alias), pytest.raises(ServiceError, match="name one dataset"):
            open_storage(fresh.url, base=BASE)
        assert _held(fresh.public) == [0]
        # a command that only reads makes no store of two empty datasets
        for command in ("experiments", "check", "export"):
            done = gerbil_qa_here(command, "--store", fresh.url, **fresh.env)
            assert done.returncode != 0 and "no store at" in done.stderr, done.stderr
        assert _held(fresh.public, fresh.private) == [0, 0]


def test_a_read_only_public_store_is_refused_at_start_saying_so(pair: RemotePair) -> None:
    """A public store that forbids updates (a proxy answering 403 to SPARQL Update) started
    healthy; every publication then failed with "try again in a moment" and a log line about
    credentials (explore-12 #4). Refused when opened (a no-op update on each dataset),
    saying 403 and what it means; the public message sends no one to try again."""
    from service.graph.remote import StoreUnavailable

    with open_storage(pair.url, base=BASE):  # the store, made through its own URL
        pass
    with read_only_proxy(pair.public.url) as proxy:
        with pytest.raises(StoreUnavailable) as refused:
            open_storage(proxy, base=BASE)
        said = str(refused.value)
        assert f"{proxy}update answered 403" in said and "read-only endpoint" in said, said
        assert "refused the credentials" not in said, said
        assert "try again" not in refused.value.public_message
        assert not refused.value.transient
        # a command that only reads still works through it
        assert "0 experiment(s)" in _ok("experiments", "--store", proxy)


def _serve_once(running: RemotePair) -> None:
    """A ``serve`` started and stopped on the store: it computes the demo if the store has none."""
    from service.web import close_app, create_app
    from service.web.config import load_config

    config = load_config({"store": running.url, "base": BASE, "demo": True, "sparql_workers": 1})
    close_app(create_app(config))


def _demos(url: str) -> dict[str, str]:
    """The store's demo experiments: id -> owner token hash (which tells two demos apart)."""
    from service.web.demo import demo_ids

    with open_storage(url, base=None) as storage:
        ids = demo_ids(storage)
        rows = storage.private.query(
            f"SELECT ?e ?h WHERE {{ GRAPH <{storage.uris.admin_graph}> "
            "{ ?e <http://w3id.org/gerbil/qa/vocab#ownerTokenHash> ?h } }"
        )
        hashes = {row["e"].value.rsplit("/", 1)[1]: row["h"].value for row in rows}
    return {eid: hashes[eid] for eid in ids}


def test_a_backup_restores_into_a_deployment_whose_first_serve_computed_the_demo(
    tmp_path: Path,
) -> None:
    """The first ``serve`` of a new deployment computes the demo experiment; a backup of the
    same day holds one under the same id, and its import was refused as "another deployment's"
    (explore-12 #1); a day later the ids differ and the store had two demos. A store that holds
    only its own demo gives it up to the dump, either day; one in use is still refused, naming
    the demo and the way out."""
    with remote_pair(tmp_path / "old") as old, environment(old.env):
        _serve_once(old)
        ((dump_id, dump_hash),) = _demos(old.url).items()
        backup = tmp_path / "backup.tar"
        _ok("export", "--store", old.url, "--files", "--output", str(backup))

    with remote_pair(tmp_path / "same-day") as new, environment(new.env):
        _serve_once(new)
        assert _demos(new.url).keys() == {dump_id} and _demos(new.url)[dump_id] != dump_hash
        with open_storage(new.url, base=None) as storage:
            other = storage.experiments.reserve()  # the store is in use
        refused = gerbil_qa_here("import", str(backup), "--store", new.url)
        assert refused.returncode == 1, refused.stderr
        assert f"the store's {dump_id} is the demo experiment" in refused.stderr
        assert "serve --no-demo" in refused.stderr
        with open_storage(new.url, base=None) as storage:
            storage.experiments.discard(other.id)
        said = _ok("import", str(backup), "--store", new.url)
        assert f"demo experiment {dump_id}" in said and "replaced by the dump" in said
        assert _demos(new.url) == {dump_id: dump_hash}

    with remote_pair(tmp_path / "later-day") as later, environment(later.env):
        with open_storage(later.url, base=BASE, catalog=False) as storage:
            # an id given out and gone: the demo gets the next one, as on a later day
            storage.experiments.discard(storage.experiments.reserve().id)
        _serve_once(later)
        (own,) = _demos(later.url)
        assert own != dump_id
        _ok("import", str(backup), "--store", later.url)
        assert _demos(later.url) == {dump_id: dump_hash}
        _serve_once(later)  # the dump's demo is the store's: no second one
        assert _demos(later.url) == {dump_id: dump_hash}
        with open_storage(later.url, base=None) as storage:
            assert not storage.store.public.contains_named_graph(
                ox.NamedNode(storage.uris.experiment_graph(own))
            )
