"""The first publisher's description is an uploaded dataset's on a remote store (two ``oxigraph
serve``), as on the embedded one (``tests/web/test_harvester_walk.py``): a run on the same bytes
recorded while both were private joins it at its publication adding nothing of its own about,
and the upload gets one ``dct:issued``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import rdflib

from tests.remote import RemotePair, environment, remote_pair
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_harvester_walk import (
    ABOUT,
    DCAT,
    DCT,
    GQA,
    _file,
    _parse,
    _publish,
    _submit,
)


@pytest.fixture()
def site(tmp_path: Path) -> Iterator[tuple[Server, RemotePair]]:
    from tests.bird_benchmark import bird_kb

    kb = tmp_path / "birds-kb.ttl"
    kb.write_text(bird_kb(), encoding="utf-8")
    with remote_pair(tmp_path / "stores") as pair, environment(pair.env):
        running = start_server(pair.url, demo=False, kbs=f"birds={kb}")  # type: ignore[arg-type]
        try:
            yield running, pair
        finally:
            stop_server(running)


def test_a_run_joining_a_published_upload_adds_nothing_on_a_remote_store(
    site: tuple[Server, RemotePair],
) -> None:
    server, _ = site
    owls = _file("owls")
    author = _submit(server, owls, ABOUT)
    team = _submit(server, owls, title="Birds QA")  # recorded while the author's is private
    assert team["dataset"] == author["dataset"]
    _publish(server, team)
    _publish(server, author)  # published second: its about is not the dataset's (explore-7 1)
    ds = rdflib.URIRef(author["dataset"])
    g = _parse(server, author["dataset"])
    (text,) = g.objects(ds, DCT.description)
    assert g.value(ds, GQA.generatedDescription) == text != ABOUT["description"]
    assert list(g.objects(ds, DCT.creator)) == [] and list(g.objects(ds, DCT.license)) == []
    assert len(list(g.objects(ds, DCT.issued))) == 1
    assert [str(p) for p in g.objects(ds, DCT.publisher)] == [f"{server.url}catalog#gerbil-qa"]
    notes = server.get(f"api/experiments/{author['id']}").json()["notes"]
    assert any("description is its first publisher's" in n for n in notes), notes


def test_an_upload_an_older_version_published_is_completed_on_a_remote_store(
    site: tuple[Server, RemotePair],
) -> None:
    # serve start's completion (``complete_published_uploads``) over the SPARQL protocol: its
    # reads' booleans and its one update a dataset, as on the embedded store (test_old_uploads)
    from service.graph.uploads import complete_published_uploads
    from service.web.state import EXTENSION
    from tests.lakes_benchmark import lakes
    from tests.web.test_old_uploads import _as_3e6151b_wrote
    from tests.web.test_old_uploads import _submit as submit_lakes

    server, _ = site
    run = submit_lakes(server, lakes(dataset_id="lakes-remote"))
    server.storage.experiments.publish(run["id"])
    _as_3e6151b_wrote(server)
    assert complete_published_uploads(server.storage) == [run["dataset"]]
    assert complete_published_uploads(server.storage) == []  # nothing left to write
    server.app.extensions[EXTENSION].changed()  # written beside the app: its caches go
    ds = rdflib.URIRef(run["dataset"])
    g = _parse(server, run["dataset"])
    assert [str(p) for p in g.objects(ds, DCT.publisher)] == [f"{server.url}catalog#gerbil-qa"]
    assert len(list(g.objects(ds, DCT.issued))) == 1
    assert g.value(ds, GQA.generatedDescription) == g.value(ds, DCT.description)
    catalog = _parse(server, f"{server.url}catalog")
    assert ds in set(catalog.objects(rdflib.URIRef(f"{server.url}catalog"), DCAT.dataset))
