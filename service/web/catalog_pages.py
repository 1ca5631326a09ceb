"""The DCAT catalogue a page at a time, as harvesters read it (Hydra paging).

``catalog`` is the first page, ``catalog?page=N`` the others (``catalog.ttl?page=N`` and every
format URL alike); each is a DCAT-AP document of its own: the catalogue's own description,
its ``dcat:dataset`` links and the documents of that page's datasets only (their registered
versions' links for built-in ones), and the Hydra terms harvesters follow. A page reads what
it shows: the uploads in order (one SPARQL query, kept until the next public write), then
the documents of its own datasets; before, every request read and wrote every published upload's
document (30 MB of Turtle and 15 s with 10,000 uploads, too large for the page cache: each
request paid again).

**Order.** The built-in datasets by name, then the published uploads by first publication
(their ``dct:issued``, written once, by that publication) and by name on a tie: a newly
published upload goes after every earlier one, so a harvester walking the pages meanwhile
sees the earlier pages unchanged. A withdrawal takes its upload out and moves the later ones
up one place (a walk at that moment may miss one: page numbers are what ckanext-dcat's older
harvester appended itself, so they stay).

**Hydra.** ckanext-dcat follows ``hydra:next``, else ``hydra:nextPage``, of a resource typed
``hydra:PagedCollection`` (``RDFParser.next_page``); piveau (data.europa.eu's importer) reads a
``hydra:PagedCollection``'s ``hydra:nextPage`` (a literal: its older importers call
``getString``) and ``hydra:totalItems`` on it, else a ``hydra:PartialCollectionView``'s
``hydra:next`` and a ``hydra:totalItems``; udata a ``hydra:PartialCollectionView``'s
``hydra:next``. So the page's view is typed both, with Hydra's terms (``first``,
``previous``, ``next``, ``last``: IRIs) and the older ones (``firstPage`` …: literals of the
same URLs; ``itemsPerPage``), and ``totalItems``. A page fetched by a format URL links pages
by that format's URL: a harvester that sends no ``Accept`` (piveau's) or ``*/*``
(ckanext-dcat's) would get the HTML page at the negotiated URL, and stays on its syntax so.
The view itself is the page's negotiated URL (``catalog?page=N``) in every syntax, and a
catalogue of one page links no other: its document is the same graph in every syntax.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.errors import NotFound
from service.graph.terms import DCAT, DCT, HYDRA, RDF, XSD
from service.web.describe import (
    FOLLOW_CATALOG,
    SKIP_UPLOAD,
    catalogue_uploads,
    dataset_versions,
    document_quads,
    registered_versions,
)
from service.web.state import services

ORDER_KEY = ("catalog", "uploads")  # the page cache's entry for the uploads in order


@dataclass(frozen=True, slots=True)
class Paging:
    """Page ``number`` of ``total`` datasets, ``size`` a page."""

    number: int
    size: int
    total: int

    @property
    def last(self) -> int:
        return max(1, -(-self.total // self.size))

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size


@dataclass(frozen=True, slots=True)
class Members:
    """The datasets of a page, in catalogue order."""

    built_in: tuple[str, ...]
    uploads: tuple[str, ...]


def paging(number: int) -> Paging:
    """Page ``number`` of the catalogue; a page past the last is a 404 saying how many there
    are."""
    found = Paging(number, services().config.catalog_page_size, total())
    if number > found.last:
        raise NotFound(
            f"page={number}: the catalogue has {found.total} datasets, {found.size} a page: "
            f"its pages are 1 to {found.last}"
        )
    return found


def total() -> int:
    """How many datasets the catalogue lists."""
    return len(_built_in()) + len(uploads_in_order())


def members(page: Paging) -> Members:
    """The datasets of ``page``: built-in ones first, then uploads (see the module's order)."""
    built_in = _built_in()
    mine = built_in[page.offset : page.offset + page.size]
    skip = max(0, page.offset - len(built_in))
    uploads = uploads_in_order()[skip : skip + page.size - len(mine)]
    return Members(tuple(mine), tuple(uploads))


def uploads_in_order() -> list[str]:
    """The published uploads in catalogue order (by first publication, then name): one query,
    kept in the page cache until the next public write, so that each page of a walk reads
    its own datasets only (10,000 uploads: 0.22 s for the query; a count and a sorted slice
    for each page took 0.33 s a page)."""
    state = services()
    kept = state.cache.get(ORDER_KEY)
    if kept is not None:
        return kept.body.decode().split("\n") if kept.body else []
    rows = state.storage.public.query(
        f"SELECT ?ds (MIN(?at) AS ?first) WHERE {{ {_listed()} "
        f"OPTIONAL {{ ?ds <{DCT}issued> ?at }} }} GROUP BY ?ds ORDER BY ?first ?ds"
    )
    found = [row["ds"].value for row in rows]
    state.cache.put(ORDER_KEY, state.cache.rendered("\n".join(found).encode(), "text/plain"))
    return found


def _listed() -> str:
    """``?ds``: a published upload of the catalogue (said in a listed experiment graph: not
    withdrawn), the rule ``describe.catalogue_uploads`` reads its links by."""
    uris = services().storage.uris
    return f"GRAPH ?g {{ <{uris.catalog}> <{DCAT}dataset> ?ds }} {uris.listed_experiment_graph()}"


def _built_in() -> list[str]:
    """The built-in datasets (``catalog dcat:dataset`` in the catalogue's graph), by name."""
    import pyoxigraph as ox

    uris = services().storage.uris
    found = services().storage.public.quads_for_pattern(
        ox.NamedNode(uris.catalog),
        ox.NamedNode(DCAT + "dataset"),
        None,
        ox.NamedNode(uris.catalog_graph),
    )
    return sorted({q.object.value for q in found})


def page_quads(page: Members, *, union: bool) -> list[Any]:
    """The quads of a page's document, the view's left out: the catalogue's own description
    (from its graph, without its ``dcat:dataset`` links), the links and documents of the
    page's built-in datasets and the links of their registered versions, the page's uploads
    (``describe.catalogue_uploads``). With every dataset on one page, this is the whole
    catalogue's document as it was served before it had pages (each triple reached from the
    catalogue is reached from one of the roots read here). ``union``: as triples (the
    default graph), else each quad in the graph that holds it."""
    import pyoxigraph as ox

    storage = services().storage
    public, uris = storage.public, storage.uris
    catalog, graph = uris.catalog, uris.catalog_graph
    link = DCAT + "dataset"
    found = document_quads(public, catalog, graph=graph, follow=FOLLOW_CATALOG, skip=(link,))
    target = ox.NamedNode(graph)
    found += [
        ox.Quad(ox.NamedNode(catalog), ox.NamedNode(link), ox.NamedNode(d), target)
        for d in page.built_in
    ]
    for dataset in page.built_in:
        found += document_quads(public, dataset, graph=graph, follow=FOLLOW_CATALOG)
    own = [ox.Quad(q.subject, q.predicate, q.object) for q in found] if union else found
    more = catalogue_uploads(public, catalog, page.uploads, graph, union=union)
    more += dataset_versions(public, page.built_in, union=union)
    said = {(q.subject, q.predicate, q.object) for q in [*own, *more]}
    # a version's graph repeats what the others describe (the EU concepts): each triple once
    more += [
        q
        for q in version_quads((*page.built_in, *page.uploads), union=union)
        if (q.subject, q.predicate, q.object) not in said
    ]
    return list(dict.fromkeys([*own, *more]))


def version_quads(datasets: tuple[str, ...], *, union: bool) -> list[Any]:
    """The registered versions of ``datasets`` (``gerbil-qa dataset refresh --store``) as
    members of the catalogue, each with its description (its questions and check findings
    left to its own document): a harvester takes only ``dcat:dataset`` members, so a version
    only ``dcat:hasVersion`` linked was never harvested (explore29 9). Each rides on its
    dataset's page; the link is said in the version's own graph."""
    import pyoxigraph as ox

    storage = services().storage
    public, catalog = storage.public, ox.NamedNode(storage.uris.catalog)
    link = ox.NamedNode(DCAT + "dataset")
    out: list[Any] = []
    for version, graph in registered_versions(public, datasets):
        target = ox.NamedNode(version)
        out.append(
            ox.Quad(catalog, link, target)
            if union
            else ox.Quad(catalog, link, target, ox.NamedNode(graph))
        )
        out += document_quads(
            public,
            version,
            graph=None if union else graph,
            union=union,
            follow=FOLLOW_CATALOG,
            skip=SKIP_UPLOAD,
        )
    return out


def registered_version_rows() -> list[tuple[str, str | None]]:
    """Every registered version of a listed dataset: (URI, when issued), for the sitemap."""
    import pyoxigraph as ox

    public = services().storage.public
    issued = ox.NamedNode(DCT + "issued")
    out = []
    for version, graph in registered_versions(public, [*_built_in(), *uploads_in_order()]):
        said = next(
            public.quads_for_pattern(ox.NamedNode(version), issued, None, ox.NamedNode(graph)), None
        )
        out.append((version, said.object.value if said is not None else None))
    return out  # each once: the publisher may be ours


def page_url(catalog: str, ext: str | None, number: int) -> str:
    """The URL of page ``number`` in the form asked (a format URL, or the negotiated one)."""
    return f"{catalog}{'.' + ext if ext else ''}?page={number}"


def neighbours(page: Paging) -> dict[str, int]:
    """The pages a page links to, by their link relation (RFC 8288 names); none when the
    catalogue is one page (its document the same graph in every syntax, as it was before)."""
    if page.last == 1:
        return {}
    out = {"first": 1, "last": page.last}
    if page.number > 1:
        out["prev"] = page.number - 1
    if page.number < page.last:
        out["next"] = page.number + 1
    return out


# Hydra's current terms (IRIs) and the older PagedCollection ones (literals), by link relation
_HYDRA_TERMS = {
    "first": ("first", "firstPage"),
    "prev": ("previous", "previousPage"),
    "next": ("next", "nextPage"),
    "last": ("last", "lastPage"),
}


def view_quads(catalog: str, ext: str | None, page: Paging) -> list[Any]:
    """The Hydra view of ``page`` (default graph): the catalogue ``hydra:view`` it, with its
    ``hydra:totalItems``; the view typed ``hydra:PartialCollectionView`` and
    ``hydra:PagedCollection`` with both generations of links (see the module). The view is
    the page's negotiated URL whatever the format asked (the same graph in every syntax);
    its links are in the form asked."""
    import pyoxigraph as ox

    def term(local: str) -> Any:
        return ox.NamedNode(HYDRA + local)

    view = ox.NamedNode(page_url(catalog, None, page.number))
    total = ox.Literal(str(page.total), datatype=ox.NamedNode(XSD + "nonNegativeInteger"))
    size = ox.Literal(str(page.size), datatype=ox.NamedNode(XSD + "nonNegativeInteger"))
    triples: list[tuple[Any, Any, Any]] = [
        (ox.NamedNode(catalog), term("view"), view),
        (ox.NamedNode(catalog), term("totalItems"), total),
        (view, ox.NamedNode(RDF + "type"), term("PartialCollectionView")),
        (view, ox.NamedNode(RDF + "type"), term("PagedCollection")),
        (view, term("totalItems"), total),
        (view, term("itemsPerPage"), size),
    ]
    for relation, number in neighbours(page).items():
        url = page_url(catalog, ext, number)
        current, older = _HYDRA_TERMS[relation]
        triples += [(view, term(current), ox.NamedNode(url)), (view, term(older), ox.Literal(url))]
    return [ox.Quad(s, p, o) for s, p, o in triples]


def link_header(catalog: str, ext: str | None, page: Paging) -> list[str]:
    """``Link`` header values to the neighbouring pages (RFC 8288: first, prev, next, last)."""
    return [
        f'<{page_url(catalog, ext, number)}>; rel="{relation}"'
        for relation, number in neighbours(page).items()
    ]


def rows_in_order(page: Members) -> list[Any]:
    """The HTML table's rows of a page (``listings.DatasetRow``), in catalogue order."""
    from service.web import listings

    found = {
        **({r.uri: r for r in listings.datasets(page.built_in)} if page.built_in else {}),
        **({r.uri: r for r in listings.uploaded_datasets(page.uploads)} if page.uploads else {}),
    }
    return [found[d] for d in (*page.built_in, *page.uploads) if d in found]


def all_rows() -> list[Any]:
    """Every dataset's row, in catalogue order (the CSV: a line a dataset, whole)."""
    from service.web import listings

    built_in = listings.datasets()
    by_uri = {r.uri: r for r in listings.uploaded_datasets()}
    uploads = [by_uri[d] for d in uploads_in_order() if d in by_uri]
    return [*built_in, *uploads]
