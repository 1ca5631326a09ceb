"""What crawlers read first: ``robots.txt`` (where not to go: answers computed per request) and
the sitemap of every public page (sitemaps.org 0.9), so that search engines find the published
experiments, datasets and systems a paper links to.

The sitemap is an index of files of at most 50,000 URLs each (the protocol's limit), listed by
the published experiments' end time, newest first, after the fixed pages, datasets and systems.
Everything comes from the public default graph, as the listings do: no private or withdrawn
experiment is in it. Both answers are cached as pages are, until the next public write.

Every URL they give is under the base (``--base``, the store's), whatever host was asked
(``ui.base_url``): they are the URLs a search engine indexes and cites, the URIs the RDF and
the pages' links name. They were on the request's ``Host`` (``http://127.0.0.1:PORT/…`` for a
service reached directly, any name a client sent), explore45 6.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from itertools import islice
from urllib.parse import urlsplit

from flask import Blueprint, Response
from werkzeug.exceptions import NotFound
from werkzeug.wrappers import Response as BaseResponse

from service.graph import leaderboards
from service.web import catalog_pages, listings
from service.web.state import services
from service.web.ui import base_url, cached_page

bp = Blueprint("discovery", __name__)

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
PER_FILE = 50_000  # URLs a sitemap file may list
# computed per request (the endpoint, comparisons), for programs (the API), or a form. The
# dump is not among them: VoID names it (void:dataDump) as the way to take everything, one
# request (with an ETag: a 304 until the next public write) where a crawler following links
# fetches thousands of documents (explore45 7). /sparql stays: its URLs are queries, without
# end and each computed on the spot, and whatever they answer from is in the dump and the
# documents; robots.txt is for crawlers, a SPARQL client VoID sends there is not one.
NOT_CRAWLED = ("sparql", "api/", "compare", "experiments/new")
FIXED_PAGES = ("ui.home", "ui.leaderboards", "ui.experiments", "ui.systems", "resources.catalog")


@bp.get("/robots.txt")
def robots() -> Response:
    # the base's path, as the Sitemap's: under --base https://host/gerbil without a
    # --url-prefix (a proxy stripping /gerbil) they said /sparql, which matched nothing
    # (explore47 F7); with --url-prefix the two agree
    root = urlsplit(base_url("ui.home")).path
    root += "" if root.endswith("/") else "/"
    lines = ["User-agent: *", *(f"Disallow: {root}{path}" for path in NOT_CRAWLED)]
    lines.append(f"Sitemap: {base_url('discovery.sitemap')}")
    response = Response("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@bp.get("/sitemap.xml")
def sitemap() -> BaseResponse:
    def render() -> str:
        index = ET.Element("sitemapindex", {"xmlns": SITEMAP_NS})
        files = max(1, -(-sum(1 for _ in _pages()) // PER_FILE))
        for number in range(1, files + 1):
            where = base_url("discovery.sitemap_file", number=number)
            ET.SubElement(ET.SubElement(index, "sitemap"), "loc").text = where
        return _xml(index)

    return cached_page(("sitemap",), render, content_type="application/xml")


@bp.get("/sitemap/<int:number>.xml")
def sitemap_file(number: int) -> BaseResponse:
    if number < 1:  # before the slice: islice refuses a negative start (a 500)
        raise NotFound(f"the sitemap has no file {number}")

    def render() -> str:
        # the pages before and in this file only: the listing is read a slice at a time
        entries = list(islice(_pages(), (number - 1) * PER_FILE, number * PER_FILE))
        if number > 1 and not entries:
            raise NotFound(f"the sitemap has no file {number}")
        urlset = ET.Element("urlset", {"xmlns": SITEMAP_NS})
        for loc, lastmod in entries:
            url = ET.SubElement(urlset, "url")
            ET.SubElement(url, "loc").text = loc
            if lastmod:
                ET.SubElement(url, "lastmod").text = lastmod
        return _xml(urlset)

    return cached_page(("sitemap", number), render, content_type="application/xml")


def _pages() -> Iterator[tuple[str, str | None]]:
    """Every public page worth indexing, as (URL under the base, last change): a page's URL
    is the URI it describes (content negotiation gives a browser the page)."""
    yield from ((base_url(page), None) for page in FIXED_PAGES)
    # the catalogue's datasets, the published uploads (the demo's) too: each has a public page
    yield from ((row.uri, row.issued) for row in catalog_pages.all_rows())
    # their registered versions (``dataset refresh --store``), catalogue members too
    yield from catalog_pages.registered_version_rows()
    yield from ((row.uri, None) for row in listings.systems())
    frozen = leaderboards.listing(services().storage)
    yield from ((row["uri"], row["frozenAt"]) for row in frozen)
    offset = 0
    while True:  # the listing's own slices, newest first
        rows = listings.experiments(limit=PER_FILE, offset=offset)
        yield from ((row.uri, row.ended) for row in rows)
        if len(rows) < PER_FILE:
            return
        offset += PER_FILE


def _xml(root: ET.Element) -> str:
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")
