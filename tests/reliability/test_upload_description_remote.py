"""The author's description replaces the generated one on a remote store (two ``oxigraph
serve``), as on the embedded one (``tests/web/test_harvester_walk.py``): the publication that
brings it removes the other experiment's generated description and adds its own graph in one
SPARQL Update, and the upload gets one ``dct:issued``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import rdflib

from tests.remote import RemotePair, environment, remote_pair
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_harvester_walk import ABOUT, DCT, GQA, _file, _parse, _publish, _submit


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


def test_the_authors_description_replaces_the_generated_one_on_a_remote_store(
    site: tuple[Server, RemotePair],
) -> None:
    server, _ = site
    owls = _file("owls")
    author = _submit(server, owls, ABOUT)
    team = _submit(server, owls, title="Birds QA")  # recorded while the author's is private
    assert team["dataset"] == author["dataset"]
    _publish(server, team)
    _publish(server, author)  # removes the team's generated description: a SPARQL Update
    ds = rdflib.URIRef(author["dataset"])
    g = _parse(server, author["dataset"])
    assert [str(d) for d in g.objects(ds, DCT.description)] == [ABOUT["description"]]
    assert list(g.objects(ds, GQA.generatedDescription)) == []
    assert len(list(g.objects(ds, DCT.issued))) == 1
    assert len(list(g.objects(ds, DCT.publisher))) == 1
