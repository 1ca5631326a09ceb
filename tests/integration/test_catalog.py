"""The built-in catalogue: descriptions true to the files, checksums enforced, checks stored."""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph
import pytest

from service import catalog
from service.errors import BadRequest, NotFound
from service.graph.checks import shacl_violations
from service.graph.store import open_storage

ROOT = Path(__file__).resolve().parents[2]
GQA_NS = "http://w3id.org/gerbil/qa/vocab#"
XSD = "http://www.w3.org/2001/XMLSchema#"
NAMES = [e.name for e in catalog.entries()]


def test_catalogue_covers_the_required_datasets() -> None:
    required = {
        "qald-1-dbpedia-train", "qald-1-dbpedia-test", "qald-1-musicbrainz-train",
        "qald-1-musicbrainz-test", "qald-2-dbpedia-train", "qald-3-dbpedia-train",
        "qald-3-dbpedia-test", "qald-3-esdbpedia-train", "qald-3-esdbpedia-test",
        "qald-4-hybrid-train", "qald-4-hybrid-test", "qald-4-multilingual-train",
        "qald-4-multilingual-test", "qald-5-hybrid-train", "qald-5-hybrid-test",
        "qald-5-multilingual-train", "qald-5-multilingual-test", "qald-6-hybrid-train",
        "qald-6-multilingual-train", "qald-7-multilingual-train", "qald-8-train-multilingual",
        "qald-8-test-multilingual", "qald-9-train-multilingual", "qald-9-test-multilingual",
        "qald-9-plus-test-dbpedia", "qald-10-test", "nlq-shared-task-1", "lc-quad-1-train",
        "lc-quad-1-test", "poleval-2021-qa-dev-0", "poleval-2021-qa-test-a",
    }  # fmt: skip
    assert required <= set(NAMES)
    assert len(NAMES) == len(set(NAMES))


@pytest.mark.parametrize("name", NAMES)
def test_distributions_match_the_mirror(data_dir: Path, name: str) -> None:
    entry = catalog.get_entry(name)
    for dist in entry.distributions:
        path = data_dir / dist.mirror_path
        assert path.stat().st_size == dist.byte_size
        assert catalog.sha256_of(path) == dist.sha256
        assert dist.download_url.startswith("https://")
        assert catalog.resolve(dist, mirror=data_dir, download=False) == path


@pytest.mark.parametrize("name", NAMES)
def test_question_count_is_what_the_reader_finds(data_dir: Path, name: str) -> None:
    entry = catalog.get_entry(name)
    dataset = catalog.load(name, mirror=data_dir, download=False)
    assert len(dataset.by_id()) == entry.question_count
    languages = {lang.split("_")[0].split("-")[0].lower() for q in dataset for lang in q.languages}
    assert languages <= set(entry.languages) | {""}


def test_catalogue_as_served_passes_the_shapes() -> None:
    store = open_storage(None)
    graph = pyoxigraph.NamedNode(store.uris.catalog_graph)
    quads = list(store.public.quads_for_pattern(None, None, None, graph))
    assert shacl_violations(quads, target=graph.value) == []
    # IRIs where IRIs belong, typed literals as the store serves them
    rows = list(
        store.public.query(
            "PREFIX dcat: <http://www.w3.org/ns/dcat#> SELECT ?u ?s WHERE { "
            "?d dcat:downloadURL ?u ; dcat:byteSize ?s }"
        )
    )
    assert rows and all(isinstance(r["u"], pyoxigraph.NamedNode) for r in rows)
    assert {r["s"].datatype.value for r in rows} == {"http://www.w3.org/2001/XMLSchema#integer"}
    assert store.public.query(
        f"ASK {{ <{store.uris.catalog}> <http://www.w3.org/ns/dcat#dataset> "
        f"<{store.uris.dataset('qald-10-test')}> }}"
    )


def test_result_set_distributions_are_described_as_value_weight_maps() -> None:
    """The TEXT2SPARQL gold files were published as "SPARQL 1.1 JSON results"; a harvester
    reading them so fails: they map each value to a weight, per question and language."""
    store = open_storage(None)
    rows = list(
        store.public.query(
            "PREFIX dct: <http://purl.org/dc/terms/> "
            "PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#> "
            f"SELECT ?d ?text FROM <{store.uris.catalog_graph}> WHERE {{ "
            '?d gqa:format "result-set-json" ; dct:description ?text }'
        )
    )
    assert len(rows) == 2, rows
    for row in rows:
        text = row["text"].value
        assert "per question and language" in text and "to its weight" in text, text
        assert "in SPARQL 1.1 JSON results" not in text, text


def test_a_file_with_another_checksum_is_refused(data_dir: Path, tmp_path: Path) -> None:
    dist = catalog.get_entry("qald-8-test-multilingual").questions_file
    copy = tmp_path / dist.mirror_path
    copy.parent.mkdir(parents=True)
    shutil.copy(data_dir / dist.mirror_path, copy)
    with copy.open("ab") as f:
        f.write(b"\n")
    with pytest.raises(BadRequest, match="SHA-256") as refused:
        catalog.resolve(dist, mirror=tmp_path, download=False)
    # said to API and run page users too: the catalogue's path, not the server's folders
    assert str(refused.value).startswith(f"{dist.mirror_path} in the data mirror")
    assert str(tmp_path) not in str(refused.value)
    with pytest.raises(NotFound) as missing:
        catalog.resolve(dist, mirror=tmp_path / "none", download=False)
    assert str(tmp_path) not in str(missing.value) and dist.mirror_path in str(missing.value)


@pytest.fixture()
def http_server(data_dir: Path) -> Iterator[str]:
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(  # noqa: E731
        *a, directory=str(data_dir), **k
    )
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_download_is_verified_and_cached(http_server: str, tmp_path: Path) -> None:
    dist = catalog.get_entry("qald-8-test-multilingual").questions_file
    local = dataclasses.replace(dist, download_url=http_server + dist.mirror_path)
    empty_mirror = tmp_path / "mirror"
    path = catalog.resolve(local, mirror=empty_mirror, cache=tmp_path / "cache")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == dist.sha256
    assert path.is_relative_to(tmp_path / "cache")
    wrong = dataclasses.replace(local, sha256="0" * 64)
    with pytest.raises(BadRequest, match="refusing"):
        catalog.resolve(wrong, mirror=empty_mirror, cache=tmp_path / "cache2")
    assert (
        not list((tmp_path / "cache2").rglob("*.json")) if (tmp_path / "cache2").exists() else True
    )


def test_the_local_copy_defaults_as_the_standards_folder_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only ``make run`` and ``make bench`` set GERBIL_QA_DATA: a built-in name on the command
    line was downloaded, offline in vain, beside ../shared/data (explore51 F1)."""
    checkout = tmp_path / "work" / "checkout"
    monkeypatch.setattr(catalog, "PROJECT_ROOT", checkout)
    monkeypatch.delenv("GERBIL_QA_DATA", raising=False)
    monkeypatch.delenv("GERBIL_QA_SHARED", raising=False)
    assert catalog.mirror_dir() is None  # no ../shared/data: downloaded
    (tmp_path / "work" / "shared" / "data").mkdir(parents=True)
    assert catalog.mirror_dir() == tmp_path / "work" / "shared" / "data"
    monkeypatch.setenv("GERBIL_QA_SHARED", str(tmp_path / "elsewhere"))
    assert catalog.mirror_dir() is None
    (tmp_path / "elsewhere" / "data").mkdir(parents=True)
    assert catalog.mirror_dir() == tmp_path / "elsewhere" / "data"
    monkeypatch.setenv("GERBIL_QA_DATA", str(tmp_path / "mine"))  # the setting still wins
    assert catalog.mirror_dir() == tmp_path / "mine"


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_failed_download_names_the_setting_of_a_local_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offline, a built-in name said ``cannot download …: NameResolutionError`` alone."""
    dist = catalog.get_entry("qald-8-test-multilingual").questions_file
    unreachable = dataclasses.replace(
        dist, download_url=f"http://127.0.0.1:{_closed_port()}/{dist.mirror_path}"
    )
    monkeypatch.setattr(catalog, "mirror_dir", lambda: None)
    with pytest.raises(catalog.DownloadFailed) as none:
        catalog.resolve(unreachable, cache=tmp_path / "cache", timeout=5)
    said = str(none.value)
    assert said.startswith(f"cannot download {unreachable.download_url}: "), said
    assert said.endswith(
        f"; offline, set GERBIL_QA_DATA to a local copy of the benchmark data (holding "
        f"{dist.mirror_path})"
    )
    # a folder that does not exist is said so: "holds no" said it of no folder (explore54 F9)
    with pytest.raises(catalog.DownloadFailed) as missing:
        catalog.resolve(unreachable, mirror=tmp_path / "copy", cache=tmp_path / "cache", timeout=5)
    said = str(missing.value)
    assert said.endswith(
        "; the folder GERBIL_QA_DATA names does not exist (a local copy of the benchmark "
        f"data, holding {dist.mirror_path})"
    ), said
    assert str(tmp_path) not in said  # the API says it too: no server folders
    (tmp_path / "copy").mkdir()
    with pytest.raises(catalog.DownloadFailed) as lacking:
        catalog.resolve(unreachable, mirror=tmp_path / "copy", cache=tmp_path / "cache", timeout=5)
    said = str(lacking.value)
    assert said.endswith(f"; the local copy GERBIL_QA_DATA names holds no {dist.mirror_path}")
    assert str(tmp_path) not in said
    (tmp_path / "copy").rmdir()
    with pytest.raises(NotFound, match="and downloads are off; the folder GERBIL_QA_DATA names"):
        catalog.resolve(dist, mirror=tmp_path / "copy", cache=tmp_path / "cache", download=False)


def test_dataset_load_names_offline_when_a_download_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from service.cli import main

    entry = catalog.get_entry("qald-8-test-multilingual")
    port = _closed_port()
    unreachable = dataclasses.replace(
        entry,
        distributions=tuple(
            dataclasses.replace(d, download_url=f"http://127.0.0.1:{port}/{d.mirror_path}")
            for d in entry.distributions
        ),
    )
    monkeypatch.setattr(catalog, "get_entry", lambda name: unreachable)
    monkeypatch.setenv("GERBIL_QA_DATA", str(tmp_path / "copy"))
    monkeypatch.setenv("GERBIL_QA_CACHE", str(tmp_path / "cache"))
    store = str(tmp_path / "store")
    assert main(["dataset", "load", "qald-8-test-multilingual", "--store", store]) == 1
    said = capsys.readouterr().err
    assert f"cannot download http://127.0.0.1:{port}/" in said, said
    assert "the folder GERBIL_QA_DATA names does not exist" in said, said
    assert "(with --offline, dataset load reads the local copy alone, never downloading)" in said


def test_dataset_checks_are_stored_as_rdf(data_dir: Path) -> None:
    store = open_storage(None)
    findings = catalog.load_into(
        store.catalogue, "qald-9-plus-test-dbpedia", mirror=data_dir, download=False
    )
    empty = [f for f in findings if f.kind == "empty-gold"]
    assert len(empty) >= 30  # the README counts 35 empty gold sets (some are out of scope)
    gqa = "http://w3id.org/gerbil/qa/vocab#"
    rows = list(
        store.public.query(
            f"SELECT ?kind (COUNT(?f) AS ?n) WHERE {{ ?d <{gqa}finding> ?f . "
            f"?f <{gqa}findingKind> ?kind }} GROUP BY ?kind"
        )
    )
    stored = {r["kind"].value.rsplit("-", 1)[0]: int(r["n"].value) for r in rows}
    assert sum(stored.values()) == len(findings)
    # questions are joinable with their features
    assert store.public.query(
        f"ASK {{ ?q <{gqa}questionText> ?t ; <{gqa}goldAnswer> ?a ; "
        f"<http://purl.org/dc/terms/isPartOf> <{store.uris.dataset('qald-9-plus-test-dbpedia')}> "
        "FILTER(LANG(?t) = 'uk') }"
    )
    graph = pyoxigraph.NamedNode(store.uris.dataset_graph("qald-9-plus-test-dbpedia"))
    quads = list(store.public.quads_for_pattern(None, None, None, graph))
    assert shacl_violations(quads, target=graph.value) == []


def test_cli_lists_the_catalogue() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service", "datasets"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    listed = [line.split()[0] for line in done.stdout.splitlines()[1:]]
    assert listed == NAMES


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("qald-8-train", "'qald-8-train-multilingual'"),
        ("qald-9-test", "'qald-9-test-multilingual', 'qald-9-test-multilingual-2018-10-10'"),
        # misspelt: the challenge number typed is kept (was qald-10-test, qald-7-hybrid-train)
        ("qald-9-tst", "'qald-9-test-multilingual'?"),
        ("qald-9-trian", "'qald-9-train-multilingual'?"),
        ("qald-8-tets", "'qald-8-test-multilingual'?"),
    ],
)
def test_a_mistyped_name_suggests_the_names_holding_it(
    typed: str, meant: str, tmp_path: Path
) -> None:
    """Spelling alone suggested another challenge (qald-8-train -> qald-7-hybrid-train,
    qald-9-test -> qald-10-test): the CLI and the API name the datasets that hold the name."""
    from service.web import close_app, create_app

    done = subprocess.run(
        [sys.executable, "-m", "service", "dataset", "show", typed],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert f"no built-in dataset {typed!r}; did you mean {meant}" in done.stderr, done.stderr
    # evaluate too, as the README says (it said "cannot read the file" of a mistyped name)
    answers = ROOT / "datasets" / "demo" / "answers-strong.json"
    done = subprocess.run(
        [sys.executable, "-m", "service", "evaluate", "--dataset", typed, "--answers", answers],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    said = f"{typed}: no such file, and no built-in dataset of that name; did you mean {meant}"
    assert said in done.stderr, done.stderr
    app = create_app({"store": tmp_path / "store", "sparql_workers": 1, "demo": False})
    try:
        refused = app.test_client().post(
            "/api/experiments",
            json={"dataset": typed, "systems": [{"name": "x", "answers": "{}"}]},
        )
    finally:
        close_app(app)
    assert refused.status_code == 404
    assert f"did you mean {meant}" in refused.get_json()["error"], refused.text


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        # the API's name of the demo, and the label evaluate prints (and its published name)
        ("demo", "the demo is the file {demo}/questions.json, scored on its KB: --dataset"),
        ("gerbil-qa-demo", "--kb {demo}/kb.ttl"),
        ("gerbil-qa-demo-f1a2849c", "--dataset {demo}/questions.json --kb {demo}/kb.ttl"),
        # a published upload's name without --store
        ("birds-qa-a9df37eb", "run by its name with --store DIR, the store of the service"),
        ("no-such-thing", "(see `gerbil-qa datasets`)"),
    ],
)
def test_a_name_that_is_no_dataset_says_what_it_may_have_meant(
    typed: str, hint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Every name but a near miss of the catalogue's ended in "cannot read the file: No such
    file or directory" (explore-15 4)."""
    from service.cli import main

    monkeypatch.chdir(tmp_path)
    answers = ROOT / "datasets" / "demo" / "answers-partial.json"
    assert main(["evaluate", "--dataset", typed, "--answers", str(answers)]) == 1
    said = capsys.readouterr().err
    assert f"{typed}: no such file, and no built-in dataset of that name" in said, said
    assert hint.format(demo=ROOT / "datasets" / "demo") in said, said
    assert "cannot read the file" not in said


def test_a_refreshed_dataset_is_a_new_version_beside_the_old(data_dir: Path) -> None:
    from dataclasses import replace
    from datetime import UTC, datetime

    from service.errors import Conflict
    from service.model import AnswerSet, Term

    store = open_storage(None)
    name = "qald-8-test-multilingual"
    original = catalog.load(name, mirror=data_dir, download=False)
    catalog.load_into(store.catalogue, name, mirror=data_dir, download=False)
    first = original.questions[0]
    bonn = Term.iri("http://dbpedia.org/resource/Bonn")
    refreshed = replace(
        original, questions=(replace(first, answers=AnswerSet.of([bonn])), *original.questions[1:])
    )
    started = datetime(2024, 5, 1, 12, tzinfo=UTC)
    v1 = store.catalogue.register_version(
        name,
        refreshed,
        kb="https://dbpedia.org/sparql",
        kb_version="DBpedia 2022-12",
        started=started,
        ended=started.replace(minute=5),
        summary="1 changed",
    )
    uris = store.uris
    assert (
        v1.uri
        == uris.dataset_version(name, v1.version)
        == uris.dataset(name) + (f"/version/{v1.version}")
    )
    assert v1.version.startswith("sha256-") and v1.previous == uris.dataset(name)
    assert v1.question_count == len(original.by_id())
    dcat, prov, gqa = "http://www.w3.org/ns/dcat#", "http://www.w3.org/ns/prov#", GQA_NS
    # description and provenance, as anyone sees them (the public default graph)
    assert store.public.query(
        f"""ASK {{ <{uris.dataset(name)}> <{dcat}hasVersion> <{v1.uri}> .
        <{v1.uri}> a <{gqa}DatasetVersion> ; <{dcat}previousVersion> <{uris.dataset(name)}> ;
            <{prov}wasDerivedFrom> <{uris.dataset(name)}> ; <{prov}wasGeneratedBy> ?a ;
            <{dcat}version> "{v1.version}" ; <{gqa}knowledgeBaseVersion> "DBpedia 2022-12" ;
            <http://purl.org/dc/terms/issued> "2024-05-01T12:05:00+00:00"^^<{XSD}dateTime> .
        ?a a <{prov}Activity> ; <{prov}used> <{uris.dataset(name)}>, ?kb ;
           <{prov}startedAtTime> "2024-05-01T12:00:00+00:00"^^<{XSD}dateTime> ;
           <{prov}wasAssociatedWith> ?software .
        ?kb <http://purl.org/dc/terms/identifier> "https://dbpedia.org/sparql" ;
            <{gqa}knowledgeBaseVersion> "DBpedia 2022-12" ;
            <{prov}wasDerivedFrom> <https://dbpedia.org/sparql> .
        ?software <{gqa}softwareVersion> ?sv }}"""
    )
    # its questions are stored like any dataset's, with the new gold answers; the old stay
    new_q = uris.version_question(name, v1.version, first.id)
    old_q = uris.question(name, first.id)
    answers = {
        r["q"].value: r["a"].value
        for r in store.public.query(
            f"SELECT ?q ?a WHERE {{ VALUES ?q {{ <{new_q}> <{old_q}> }} ?q <{gqa}goldAnswer> ?a }}"
        )
        if r["q"].value == new_q
    }
    assert answers == {new_q: bonn.value}
    assert not store.public.query(f"ASK {{ <{old_q}> <{gqa}goldAnswer> <{bonn.value}> }}")
    assert store.public.query(
        f"ASK {{ <{new_q}> <http://purl.org/dc/terms/isPartOf> <{v1.uri}> }}"
    ) and store.public.query(f"ASK {{ <{old_q}> <{gqa}goldAnswer> ?a }}")
    graph = pyoxigraph.NamedNode(uris.dataset_version_graph(name, v1.version))
    quads = list(store.public.quads_for_pattern(None, None, None, graph))
    assert shacl_violations(quads, target=graph.value) == []
    # never overwritten; a later version derives from the newest one
    with pytest.raises(Conflict):
        store.catalogue.register_version(name, refreshed, kb="https://dbpedia.org/sparql")
    v2 = store.catalogue.register_version(
        name, original, kb="file:sha256:abc", started=started.replace(day=2)
    )
    assert v2.previous == v1.uri
    assert [v.version for v in store.catalogue.versions(name)] == [v1.version, v2.version]
    assert uris.locate(new_q).kind == "version-question"
    assert uris.locate(graph.value).kind == "graph-dataset-version"


def test_text2sparql_datasets_bring_their_gold_and_kb(data_dir: Path) -> None:
    ck25 = catalog.load("text2sparql-2025-ck25", mirror=data_dir, download=False)
    assert (ck25.id, len(ck25), ck25.problems) == ("text2sparql-2025-ck25", 50, ())
    assert all(q.answers is not None for q in ck25)  # gold attached from the result set
    assert ck25.by_id()["33"].answers is not None and ck25.by_id()["33"].answers.boolean is False
    files = catalog.kb_files("text2sparql-2025-ck25", mirror=data_dir, download=False)
    assert [f.name for f in files] == ["prod-inst.ttl", "prod-vocab.ttl"]
    db25 = catalog.get_entry("text2sparql-2025-db25")
    assert db25.sparql_endpoint == "https://dbpedia.org/sparql" and db25.languages == ("en", "es")
    assert catalog.kb_files("text2sparql-2025-db25", mirror=data_dir, download=False) == []
    loaded = catalog.load("text2sparql-2025-db25", mirror=data_dir, download=False)
    assert loaded.problems == () and all(q.answers is not None for q in loaded)


def test_the_shapes_list_every_registered_format() -> None:
    from service.formats import FORMATS

    # generated from the registry (python -m service.contracts write)
    shapes = (ROOT / "shapes" / "generated-shapes.ttl").read_text(encoding="utf-8")
    listed = shapes.split("sh:path gqa:format", 1)[1].split("sh:in (", 1)[1].split(")", 1)[0]
    assert listed.split() == [f'"{name}"' for name in FORMATS] + ['"turtle"']


@pytest.mark.parametrize("name", ["poleval-2021-qa-dev-0", "poleval-2021-qa-test-a"])
def test_poleval_datasets_bring_their_expected_answers(data_dir: Path, name: str) -> None:
    # in.tsv holds the questions, expected.tsv (another distribution) the gold alternatives
    dataset = catalog.load(name, mirror=data_dir, download=False)
    assert dataset.problems == () and all(q.answers is not None for q in dataset)
    assert {t.language for q in dataset for t in q.texts} == {"pl"}


def test_poleval_dev_0_is_scored_by_its_name(data_dir: Path, tmp_path: Path) -> None:
    answers = tmp_path / "out.tsv"
    answers.write_text("Alfa\n" + "\n" * 8 + "cztery\n" + "\n" * 990, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "service", "evaluate", "--dataset", "poleval-2021-qa-dev-0",
         "--answers", str(answers), "--profile", "poleval", "--output", "json"],
        cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "GERBIL_QA_DATA": str(data_dir)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["dataset"], result["language"]) == ("poleval-2021-qa-dev-0", "pl")
    assert result["results"]["QA"]["accuracy"] == 2 / 1000  # alfa; czterech within half


def test_an_experiment_pins_the_catalogue_files_it_was_scored_on(
    data_dir: Path, tmp_path: Path
) -> None:
    """By name, a dataset is the catalogue's current file: the experiment's graph names every
    file it read (questions, expected answers) with the SHA-256 the catalogue verified, so a
    reviewer can tell which content was scored after the catalogue moves on (before, only
    ``prov:used <dataset/NAME>``, whose description a refresh replaces)."""
    from service.graph.store import open_storage

    answers = tmp_path / "out.tsv"
    answers.write_text("Alfa\n" * 1000, encoding="utf-8")
    store = tmp_path / "store"
    done = subprocess.run(
        [sys.executable, "-m", "service", "evaluate", "--dataset", "poleval-2021-qa-dev-0",
         "--answers", str(answers), "--profile", "poleval", "--store", str(store)],
        cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "GERBIL_QA_DATA": str(data_dir)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    entry = catalog.get_entry("poleval-2021-qa-dev-0")
    expected = {
        (
            Path(d.mirror_path).name,
            d.sha256,
            d.byte_size,
            "dataset" if d.role == "questions" else "gold",
        )
        for d in entry.distributions
        if d.role != "kb"
    }
    assert {role for *_, role in expected} == {"dataset", "gold"}  # in.tsv and expected.tsv
    with open_storage(store, base=None, catalog=False) as storage:
        (status,) = storage.experiments.listing(include_private=True)
        graph = storage.uris.experiment_graph(status.id)
        rows = storage.private.query(
            f"""PREFIX spdx: <http://spdx.org/rdf/terms#>
            SELECT ?title ?sha ?size ?role WHERE {{ GRAPH <{graph}> {{
              <{status.uri}> <http://www.w3.org/ns/prov#used> ?f .
              ?f <http://purl.org/dc/terms/title> ?title ;
                 spdx:checksum/spdx:checksumValue ?sha ;
                 <http://www.w3.org/ns/dcat#byteSize> ?size ;
                 <http://w3id.org/gerbil/qa/vocab#fileRole> ?role
              FILTER(?role != "answers") }} }}"""
        )
        found = {
            (r["title"].value, r["sha"].value, int(r["size"].value), r["role"].value) for r in rows
        }
    assert found == expected
