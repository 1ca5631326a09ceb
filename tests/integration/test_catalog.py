"""The built-in catalogue: descriptions true to the files, checksums enforced, checks stored."""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph
import pytest

from service import catalog
from service.errors import BadRequest
from service.graph.checks import shacl_violations
from service.graph.store import GraphStore

ROOT = Path(__file__).resolve().parents[2]
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
    store = GraphStore(None)
    graph = pyoxigraph.NamedNode(store.uris.catalog_graph)
    quads = list(store.public.quads_for_pattern(None, None, None, graph))
    assert shacl_violations(quads, target=graph.value) == []
    # IRIs where IRIs belong, typed literals as the store serves them
    rows = list(
        store.query_public(
            "PREFIX dcat: <http://www.w3.org/ns/dcat#> SELECT ?u ?s WHERE { "
            "?d dcat:downloadURL ?u ; dcat:byteSize ?s }"
        )
    )
    assert rows and all(isinstance(r["u"], pyoxigraph.NamedNode) for r in rows)
    assert {r["s"].datatype.value for r in rows} == {"http://www.w3.org/2001/XMLSchema#integer"}
    assert store.query_public(
        f"ASK {{ <{store.uris.catalog}> <http://www.w3.org/ns/dcat#dataset> "
        f"<{store.uris.dataset('qald-10-test')}> }}"
    )


def test_a_file_with_another_checksum_is_refused(data_dir: Path, tmp_path: Path) -> None:
    dist = catalog.get_entry("qald-8-test-multilingual").questions_file
    copy = tmp_path / dist.mirror_path
    copy.parent.mkdir(parents=True)
    shutil.copy(data_dir / dist.mirror_path, copy)
    with copy.open("ab") as f:
        f.write(b"\n")
    with pytest.raises(BadRequest, match="SHA-256"):
        catalog.resolve(dist, mirror=tmp_path, download=False)


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


def test_dataset_checks_are_stored_as_rdf(data_dir: Path) -> None:
    store = GraphStore(None)
    findings = catalog.load_into(store, "qald-9-plus-test-dbpedia", mirror=data_dir, download=False)
    empty = [f for f in findings if f.kind == "empty-gold"]
    assert len(empty) >= 30  # the README counts 35 empty gold sets (some are out of scope)
    gqa = "http://w3id.org/gerbil/qa/vocab#"
    rows = list(
        store.query_public(
            f"SELECT ?kind (COUNT(?f) AS ?n) WHERE {{ ?d <{gqa}finding> ?f . "
            f"?f <{gqa}findingKind> ?kind }} GROUP BY ?kind"
        )
    )
    stored = {r["kind"].value.rsplit("-", 1)[0]: int(r["n"].value) for r in rows}
    assert sum(stored.values()) == len(findings)
    # questions are joinable with their features
    assert store.query_public(
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
