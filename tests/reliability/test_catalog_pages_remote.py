"""The catalogue's pages on a remote store (two ``oxigraph serve``), as on the embedded one
(``tests/web/test_catalog_pages.py``): the uploads' order is a SPARQL query and a page's
uploads are read a level of their documents at a time (``describe.union_documents``: one
request a level for the whole page), so a harvester following ``hydra:next`` finds each
published upload once, described, and no withdrawn one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import rdflib
import requests

from tests.remote import environment, remote_pair
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_catalog_pages import (
    DCAT,
    DCT,
    _built_in,
    _listed,
    _next_ckan,
    publish_uploads,
)

PAGE_SIZE = 20  # the 42 built-in datasets on pages 1 to 3, the uploads with the last two


@pytest.fixture()
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    from tests.bird_benchmark import bird_kb

    kb = tmp_path / "birds-kb.ttl"
    kb.write_text(bird_kb(), encoding="utf-8")
    monkeypatch.setenv("GERBIL_QA_CATALOG_PAGE_SIZE", str(PAGE_SIZE))
    with remote_pair(tmp_path / "stores") as pair, environment(pair.env):
        running = start_server(pair.url, demo=False, kbs=f"birds={kb}")  # type: ignore[arg-type]
        try:
            yield running
        finally:
            stop_server(running)


def test_a_harvester_walks_the_pages_of_a_remote_store(site: Server) -> None:
    published, withdrawn = publish_uploads(site, "remote-paged", 3)
    url: str | None = f"{site.url}catalog.ttl"
    seen: list[str] = []
    pages = 0
    while url is not None:
        got = requests.get(url, timeout=30)
        assert got.status_code == 200, (url, got.text[:300])
        g = rdflib.Graph().parse(data=got.content, format="turtle", publicID=url)
        listed = _listed(site, g)
        assert {str(s) for s in g.subjects(rdflib.RDF.type, DCAT.Dataset)} == set(listed)
        for uri in set(listed) & set(published):  # described, not only linked
            ds = rdflib.URIRef(uri)
            assert g.value(ds, DCAT.distribution) is not None and g.value(ds, DCT.title), uri
        seen += listed
        pages += 1
        url = _next_ckan(g)
    assert pages == 3
    assert sorted(seen) == sorted(_built_in(site) | set(published))
    assert withdrawn not in seen
