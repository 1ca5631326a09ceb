"""A harvester pages through the DCAT catalogue, over HTTP, as ckanext-dcat and piveau do:
from ``catalog`` (a format URL: piveau sends no ``Accept``), following the Hydra ``next`` of
each page, with rdflib's strict parsers.

Before, the catalogue was one document: with 10,000 published uploads 38 MB, every request
reading and writing every upload's document, and no paging a harvester could follow.

The store: seven published uploads, one whose only run was withdrawn, one never published,
served with ``GERBIL_QA_CATALOG_PAGE_SIZE=4`` (the 42 built-in datasets fill pages 1–10 and
half of 11: the uploads are on pages 11 to 13); the same store served with the default page
size gives the whole catalogue on one page.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
import rdflib
import requests

from tests.bird_benchmark import bird_kb
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_dcat_ap import REMAINING, dcat_ap_findings
from tests.web.test_harvester_walk import _file, _publish, _submit

PAGE_SIZE = 4
DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
DCT = rdflib.Namespace("http://purl.org/dc/terms/")
HYDRA = rdflib.Namespace("http://www.w3.org/ns/hydra/core#")
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
FORMATS = {"ttl": ("text/turtle", "turtle"), "jsonld": ("application/ld+json", "json-ld")}


def publish_uploads(site: Server, label: str, count: int) -> tuple[list[str], str]:
    """``count`` uploads published on ``site`` and one more published, then withdrawn: their
    dataset URIs (the published in order, the withdrawn one)."""
    published = []
    for i in range(count):
        run = _submit(site, _file(f"{label}-{i}"))
        _publish(site, run)
        published.append(run["dataset"])
    withdrawn = _submit(site, _file(f"withdrawn-{label}"))
    _publish(site, withdrawn)
    auth = {"Authorization": f"Bearer {withdrawn['token']}"}
    done = site.post(
        f"api/experiments/{withdrawn['id']}/withdraw", json={"reason": "x"}, headers=auth
    )
    assert done.status_code == 200, done.text
    return published, withdrawn["dataset"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The store, made through a server with the default page size, then stopped."""
    from service.systems.localnet import free_port

    folder = tmp_path_factory.mktemp("catalog-pages")
    kb = folder / "birds-kb.ttl"
    kb.write_text(bird_kb(), encoding="utf-8")
    store, port = folder / "store", free_port()
    first = start_server(store, port=port, demo=False, kbs=f"birds={kb}")
    try:
        published, withdrawn = publish_uploads(first, "paged-birds", 7)
        private = _submit(first, _file("private-paged-birds"))
    finally:
        stop_server(first)
    del first
    gc.collect()  # the store's last reference goes: its directory lock with it
    return {
        "store": store,
        "port": port,
        "kbs": f"birds={kb}",
        "published": published,
        "withdrawn": withdrawn,
        "private": private["dataset"],
    }


@pytest.fixture(scope="module")
def whole(built: dict[str, Any]) -> dict[str, Any]:
    """The catalogue as the same store serves it with the default page size."""
    server = start_server(built["store"], port=built["port"], demo=False, kbs=built["kbs"])
    try:
        got = server.get("catalog.ttl")
        assert got.status_code == 200, got.text
        out = {"turtle": got.text, "link": got.headers.get("Link", "")}
    finally:
        stop_server(server)
    del server
    gc.collect()
    return out


@pytest.fixture(scope="module")
def site(built: dict[str, Any], whole: dict[str, Any]) -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as env:  # read once, when the app is made
        env.setenv("GERBIL_QA_CATALOG_PAGE_SIZE", str(PAGE_SIZE))
        server = start_server(built["store"], port=built["port"], demo=False, kbs=built["kbs"])
    yield server
    stop_server(server)


def _graph(text: bytes | str, syntax: str, url: str) -> rdflib.Graph:
    return rdflib.Graph().parse(data=text, format=syntax, publicID=url)


def _next_ckan(g: rdflib.Graph) -> str | None:
    """ckanext-dcat's ``RDFParser.next_page``: a PagedCollection's hydra:next, else nextPage."""
    for node in g.subjects(rdflib.RDF.type, HYDRA.PagedCollection):
        for term in (HYDRA.next, HYDRA.nextPage):
            for o in g.objects(node, term):
                return str(o)
    return None


def _next_piveau(g: rdflib.Graph) -> tuple[str | None, int]:
    """piveau's ``HydraPaging``: a PagedCollection's nextPage (a literal in its older
    importers) and totalItems on it; else a PartialCollectionView's next, any totalItems."""
    for node in g.subjects(rdflib.RDF.type, HYDRA.PagedCollection):
        following = g.value(node, HYDRA.nextPage)
        assert following is None or isinstance(following, rdflib.Literal), following
        return (str(following) if following else None), int(g.value(node, HYDRA.totalItems))
    for node in g.subjects(rdflib.RDF.type, HYDRA.PartialCollectionView):
        following = g.value(node, HYDRA.next)
        return (str(following) if following else None), int(next(g.objects(None, HYDRA.totalItems)))
    return None, 0


def _harvest(site: Server, ext: str) -> list[dict[str, Any]]:
    """Every page from ``catalog.EXT``, following hydra:next: each page's URL, graph, body."""
    media_type, syntax = FORMATS[ext]
    url: str | None = f"{site.url}catalog.{ext}"
    pages = []
    while url is not None:
        assert len(pages) < 50, "the pages do not end"
        got = requests.get(url, timeout=30)  # no Accept: piveau's client sends none
        assert got.status_code == 200, (url, got.status_code, got.text[:300])
        assert got.headers["Content-Type"].startswith(media_type)
        g = _graph(got.content, syntax, url)
        following, total = _next_piveau(g)
        assert _next_ckan(g) == following, url  # both harvesters read the same next page
        pages.append({"url": url, "graph": g, "body": got.content, "total": total})
        url = following
    return pages


def _listed(site: Server, g: rdflib.Graph) -> list[str]:
    return sorted(str(o) for o in g.objects(rdflib.URIRef(f"{site.url}catalog"), DCAT.dataset))


def _built_in(site: Server) -> set[str]:
    from service import catalog

    return {f"{site.url}dataset/{e.name}" for e in catalog.entries()}


@pytest.mark.parametrize("ext", sorted(FORMATS))
def test_a_harvester_collects_every_published_upload_once(
    site: Server, built: dict[str, Any], ext: str
) -> None:
    pages = _harvest(site, ext)
    expected = _built_in(site) | set(built["published"])
    assert len(pages) == -(-len(expected) // PAGE_SIZE) == 13
    # built-in datasets first, by name, then the uploads in the order they were first published
    order = [*sorted(_built_in(site)), *built["published"]]
    seen: list[str] = []
    for number, page in enumerate(pages):
        assert set(_listed(site, page["graph"])) == set(
            order[number * PAGE_SIZE : (number + 1) * PAGE_SIZE]
        )
        g, listed = page["graph"], _listed(site, page["graph"])
        assert 1 <= len(listed) <= PAGE_SIZE and page["total"] == len(expected)
        # the page describes its own datasets, and no other one
        described = {str(s) for s in g.subjects(rdflib.RDF.type, DCAT.Dataset)}
        assert described == set(listed), page["url"]
        # the catalogue says what it is on every page
        catalog = rdflib.URIRef(f"{site.url}catalog")
        assert (catalog, rdflib.RDF.type, DCAT.Catalog) in g and g.value(catalog, DCT.title)
        seen += listed
    assert len(seen) == len(set(seen)) and set(seen) == expected
    body = b"".join(page["body"] for page in pages)
    for hidden in (built["withdrawn"], built["private"]):
        assert hidden.rsplit("/", 1)[1].encode() not in body, hidden


def test_each_page_passes_dcat_ap(site: Server) -> None:
    pages = _harvest(site, "ttl")
    assert len(pages) == 13
    for page in [pages[0], *pages[10:]]:  # the first page and those holding uploads
        for ext, (_, syntax) in FORMATS.items():
            url = page["url"].replace("catalog.ttl", f"catalog.{ext}")
            g = _graph(requests.get(url, timeout=30).content, syntax, url)
            found = dcat_ap_findings(g, url)
            assert found <= REMAINING, (url, found - REMAINING)


def _without_view(g: rdflib.Graph) -> rdflib.Graph:
    """``g`` without its page's Hydra view (the triples with a Hydra term)."""
    out = rdflib.Graph()
    for s, p, o in g:
        if not (str(p).startswith(str(HYDRA)) or str(o).startswith(str(HYDRA))):
            out.add((s, p, o))
    return out


def test_the_pages_together_are_the_whole_catalogue(site: Server, whole: dict[str, Any]) -> None:
    from rdflib.compare import isomorphic

    url = f"{site.url}catalog.ttl"
    one = _graph(whole["turtle"], "turtle", url)
    # with the default page size the whole catalogue is one page: its view says so
    (view,) = one.subjects(rdflib.RDF.type, HYDRA.PartialCollectionView)
    assert str(view) == f"{site.url}catalog?page=1" and int(one.value(view, HYDRA.totalItems)) == 49
    assert {p for p in one.predicates(view, None) if p in (HYDRA.next, HYDRA.last)} == set()
    assert 'rel="next"' not in whole["link"] and 'rel="last"' not in whole["link"]
    merged = rdflib.Graph()
    for page in _harvest(site, "ttl"):
        for triple in _without_view(page["graph"]):
            merged.add(triple)
    assert isomorphic(merged, _without_view(one))


def test_a_page_links_its_neighbours(site: Server) -> None:
    got = site.get("catalog.ttl?page=2")
    assert got.status_code == 200
    link = got.headers["Link"]
    for relation, number in (("first", 1), ("prev", 1), ("next", 3), ("last", 13)):
        assert f'<{site.url}catalog.ttl?page={number}>; rel="{relation}"' in link, link
    assert f'<{site.url}catalog.jsonld?page=2>; rel="alternate"' in link
    assert got.headers["Content-Location"] == f"{site.url}catalog.ttl?page=2"
    # the view is the page's negotiated URL in every syntax; its links keep the format asked
    g = _graph(got.content, "turtle", f"{site.url}catalog.ttl?page=2")
    view = rdflib.URIRef(f"{site.url}catalog?page=2")
    assert (rdflib.URIRef(f"{site.url}catalog"), HYDRA.view, view) in g
    assert g.value(view, HYDRA.previous) == rdflib.URIRef(f"{site.url}catalog.ttl?page=1")
    # negotiated, the links stay negotiated
    got = site.get("catalog", params={"page": "2"}, headers={"Accept": "text/turtle"})
    g = _graph(got.content, "turtle", f"{site.url}catalog?page=2")
    view = rdflib.URIRef(f"{site.url}catalog?page=2")  # the view: the negotiated URL
    assert g.value(view, HYDRA.next) == rdflib.URIRef(f"{site.url}catalog?page=3")
    assert g.value(view, HYDRA.nextPage) == rdflib.Literal(f"{site.url}catalog?page=3")
    assert int(g.value(view, HYDRA.itemsPerPage)) == PAGE_SIZE
    assert f'<{site.url}catalog?page=1>; rel="prev"' in got.headers["Link"]
    # a HEAD (ckanext-dcat's first request) answers as the GET
    assert requests.head(f"{site.url}catalog.ttl?page=13", timeout=30).status_code == 200


@pytest.mark.parametrize("value", ["14", "99999"])
def test_a_page_past_the_last_is_not_found(site: Server, value: str) -> None:
    got = site.get("catalog.ttl", params={"page": value})
    assert got.status_code == 404
    assert f"page={value}" in got.text and "its pages are 1 to 13" in got.text, got.text


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5", "²", "9" * 40])
def test_a_bad_page_is_refused_naming_it(site: Server, value: str) -> None:
    got = site.get("catalog", params={"page": value}, headers={"Accept": "text/turtle"})
    assert got.status_code == 400
    assert "page=" in got.text and "expected a whole number from 1 to" in got.text, got.text


def test_the_html_pages(site: Server, built: dict[str, Any]) -> None:
    page = site.get("catalog", params={"page": "12"}, headers={"Accept": "text/html"}).text
    assert "Datasets 45–48 of 49 (page 12 of 13)" in page
    for uri in built["published"][2:6]:  # this page's uploads, and only those
        assert f'href="{uri}"' in page, uri
    for uri in (*built["published"][:2], built["published"][6]):
        assert f'href="{uri}"' not in page, uri
    assert 'rel="prev" href="/catalog?page=11"' in page
    assert 'rel="next" href="/catalog?page=13"' in page
    assert "Page 12 of 13" in page and 'href="' + f"{site.url}catalog.ttl?page=12" in page
    first = site.get("catalog", headers={"Accept": "text/html"}).text
    assert 'rel="next" href="/catalog?page=2"' in first and 'rel="prev"' not in first


@pytest.mark.browser
def test_a_page_of_the_catalogue_passes_axe(site: Server, browser: Any) -> None:
    from tests.web.test_browser_a11y import Findings, audit, scripts, visit

    findings = Findings(failures=[], notes=[])
    for javascript in (True, False):
        visit(browser, f"{site.url}catalog?page=12", javascript=javascript)
        audit(browser, f"catalog?page=12 (JavaScript {javascript})", findings)
    scripts(browser, on=True)
    assert not findings.failures, "\n".join(findings.failures)


def test_the_csv_is_whole(site: Server, built: dict[str, Any]) -> None:
    got = site.get("catalog.csv")
    lines = got.text.strip().splitlines()
    assert len(lines) == 1 + len(_built_in(site)) + len(built["published"])
    uploads = [line.split(",", 1)[0] for line in lines[-len(built["published"]) :]]
    assert uploads == built["published"]  # in catalogue order, as the pages


def test_a_new_upload_leaves_the_earlier_pages_as_they_were(
    site: Server, built: dict[str, Any]
) -> None:
    before = [set(_listed(site, p["graph"])) for p in _harvest(site, "ttl")]
    assert len(before) == 13 and len(before[-1]) == 1
    run = _submit(site, _file("late-paged-birds"))
    _publish(site, run)
    after = [set(_listed(site, p["graph"])) for p in _harvest(site, "ttl")]
    assert after == [*before[:-1], before[-1] | {run["dataset"]}]  # the last page had room


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_bad_page_size_setting_is_refused(value: str) -> None:
    from service.errors import BadRequest
    from service.web.config import load_config

    with pytest.raises(BadRequest, match="setting catalog_page_size"):
        load_config({}, environ={"GERBIL_QA_CATALOG_PAGE_SIZE": value})
    assert load_config({}, environ={}).catalog_page_size == 1000


def test_datasets_is_the_catalogue(server) -> None:
    """The navigation's "Datasets" is /catalog; /datasets, beside /experiments and /systems,
    was a 404 (explore24 6)."""
    moved = server.get("datasets", params={"page": "1"}, allow_redirects=False)
    assert moved.status_code == 301
    assert moved.headers["Location"].endswith("/catalog?page=1")
    assert server.get("datasets", allow_redirects=True).status_code == 200


def test_an_experiment_page_says_how_its_kb_checksum_is_made(server) -> None:
    """The page listed the KB file's SHA-256 and a signature naming another checksum, with no
    word of how one comes from the other (explore24 3): it says so, and the recipe it gives
    gives the signature's value."""
    import hashlib
    import re

    from service.paths import DEMO_DIR

    demo = min(server.get("api/experiments").json()["experiments"], key=lambda e: e["id"])
    page = server.get(f"experiment/{demo['id']}", headers={"Accept": "text/html"}).text
    assert 'id="kb-identity-note"' in page and "(listed above as File (kb))" in page
    found = re.search(r"kb:file:sha256:([0-9a-f]{64})", page)
    assert found is not None
    file_digest = hashlib.sha256((DEMO_DIR / "kb.ttl").read_bytes()).digest()
    assert hashlib.sha256(file_digest).hexdigest() == found.group(1)
