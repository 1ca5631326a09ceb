"""Which triples make up the document of a URI (its RDF representation).

A resource's document is its concise bounded description (the triples with it as subject,
following blank nodes) plus its hash resources and those of the resources followed
(``experiment/{id}#structure`` dereferences with ``experiment/{id}``, see
``service/graph/uris.py``), plus what a kind of resource adds:
an experiment summary brings its task observations (``gqa:task``), a task brings its
per-question results (the subjects of ``gqa:resultOf`` it) and their answer matches, a dataset
the descriptions of what DCAT-AP checks it links to, the catalogue its datasets. Every
representation (HTML, Turtle, JSON-LD, RDF/XML, N-Triples, N-Quads, CSV) is built from the same
quads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.graph.uris import GQA

PROV = "http://www.w3.org/ns/prov#"
DCT = "http://purl.org/dc/terms/"
DCAT = "http://www.w3.org/ns/dcat#"
FOLLOW_EXPERIMENT = (GQA + "task", PROV + "used", PROV + "wasAssociatedWith")
# A re-scoring says what it revises in its own graph: the revised experiment's document names
# its revisions too, so a client that follows a cited URI learns that newer numbers exist.
ELSEWHERE_EXPERIMENT = (PROV + "wasRevisionOf",)
REVERSE_TASK = (GQA + "resultOf",)
# A dataset's document describes what DCAT-AP checks of the resources it links to (publisher,
# licence and their types, languages, media types, formats, landing page, themes, checksum
# algorithm, the schemes of concepts).
FOLLOW_DATASET = (
    DCAT + "distribution",  # an upload's: the experiment's file entity (a catalogue's: a hash)
    PROV + "wasAssociatedWith",  # a registered version's refresh: the evaluator (a gqa:Evaluator)
    DCT + "publisher",
    # a registered version's creators are its dataset's (``dataset/NAME#creator-N``): their
    # names, which its citation gives (it named only the one who was also its publisher)
    DCT + "creator",
    DCT + "license",
    DCT + "language",
    DCT + "format",
    DCT + "type",
    DCAT + "mediaType",
    DCAT + "landingPage",
    DCAT + "contactPoint",
    DCAT + "theme",
    "http://data.europa.eu/r5r/availability",
    "http://spdx.org/rdf/terms#algorithm",
    "http://www.w3.org/2004/02/skos/core#inScheme",
)
# A dataset (or a version) names its questions: what links them to it, not their descriptions.
LINKS_DATASET = (DCT + "isPartOf",)
# The catalogue's document holds its datasets' documents: a DCAT-AP catalogue, whole.
FOLLOW_CATALOG = (
    *FOLLOW_DATASET,
    DCAT + "dataset",
    DCAT + "themeTaxonomy",
    "http://xmlns.com/foaf/0.1/homepage",
)
# An upload in the catalogue's document: its description, not its check findings (its page's).
SKIP_UPLOAD = (GQA + "finding", GQA + "checkedAt")
# A task's per-question results bring the explanation of their counts (``…/question/q#match-k``),
# and its system's description (shapes/: a task's gerbil:annotator is a gqa:System, described).
FOLLOW_TASK = (GQA + "answerMatch", "http://w3id.org/gerbil/vocab#annotator")
QB = "http://purl.org/linked-data/cube#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
# The classes shapes/ asks (sh:class) of what a document links to without describing it: each
# document says those types of the nodes it links to (when the store says them), so it passes
# our shapes alone (SHACL reads a node's types in the data graph): a task's experiment, a
# question result's task and result set. Only these types: a gqa:Experiment or gqa:Task type
# would make the linked node a target of its shape, which only its own document satisfies.
TYPED_LINKS: dict[str, tuple[str, ...]] = {
    QB + "dataSet": (QB + "DataSet",),
    PROV + "wasGeneratedBy": (PROV + "Activity",),
    GQA + "resultOf": (QB + "Observation",),
}
# What the experiment's HTML page (and its CSV, its citation) leaves out of the document: the
# warnings about the answer files (often half of an experiment's quads) and the cube structures.
PAGE_SKIP_EXPERIMENT = (GQA + "warning", "http://purl.org/linked-data/cube#structure")


def document_quads(
    store: Any,
    uri: str,
    *,
    graph: str | None = None,
    follow: Sequence[str] = (),
    reverse: Sequence[str] = (),
    union: bool = False,
    skip: Sequence[str] = (),
    links: Sequence[str] = (),
    elsewhere: Sequence[str] = (),
) -> list[Any]:
    """The quads of ``uri``'s document in ``store``: in ``graph`` only, when given; else, with
    ``union``, in the default graph (the public store's materialised union of its named graphs,
    where each triple is once); else in every named graph (each triple reported in the graph
    that holds it; the default graph, a derived copy, left out). ``skip``: predicates whose
    triples are left out, and what they link to not followed (a page that shows no warnings
    needs not read them). ``links``: predicates whose triples pointing at ``uri`` are
    included, their subjects not described (a dataset names its questions, which have
    documents of their own); ``elsewhere``: likewise, from any named graph of ``store``.

    Most of the time goes into Oxigraph decoding the terms of each quad it returns (string
    lookups in RocksDB, 3-5 µs a quad here, measured, also in Rust), so the loop below touches
    each quad's terms once and leaves the rest to Oxigraph."""
    import pyoxigraph as ox

    named, blank, default_graph = ox.NamedNode, ox.BlankNode, ox.DefaultGraph
    if graph is not None:
        graph_node: Any = named(graph)
    elif union:
        graph_node = default_graph()
    else:
        graph_node = None
    follow_set, skip_set = frozenset(follow), frozenset(skip)
    start = named(uri)
    # Across named graphs, a withdrawn experiment's graph holds none of the union's triples
    # (ExperimentRepository.withdraw): left out, so the quad syntaxes say what Turtle says.
    hidden = withdrawn_graphs(store) if graph_node is None else frozenset()

    def kept(q: Any) -> bool:
        return graph_node is not None or (
            type(q.graph_name) is not default_graph and q.graph_name not in hidden
        )

    level: list[Any] = [start]
    for predicate in reverse:
        level.extend(
            q.subject
            for q in store.quads_for_pattern(None, named(predicate), start, graph_node)
            if kept(q)
        )
    seen: set[Any] = set()
    copies: set[tuple[Any, Any, Any]] = set()
    out: list[Any] = [
        q
        for predicate in links
        for q in store.quads_for_pattern(None, named(predicate), start, graph_node)
        if kept(q)
    ]
    out += [
        q
        for predicate in elsewhere
        for q in store.quads_for_pattern(None, named(predicate), start, None)
        if type(q.graph_name) is not default_graph and q.graph_name != graph_node
    ]
    # level by level: a remote store answers each level in one request (subject_quads)
    while level:
        fresh = [node for node in dict.fromkeys(level) if node not in seen]
        seen.update(fresh)
        level = []
        found = subject_quads(store, fresh, graph_node)
        if graph_node is None:
            found = [q for q in found if kept(q) and _first_copy(q, start, copies)]
        if skip_set:
            found = [q for q in found if q.predicate.value not in skip_set]
        out += found
        for quad in found:
            subject, obj = quad.subject, quad.object
            # the hash resources of the resource being described (or of a followed one)
            prefix = subject.value.split("#", 1)[0] + "#" if type(subject) is named else uri + "#"
            kind = type(obj)
            # Blank nodes, hash resources and the followed links belong to this document.
            if kind is blank or (
                kind is named
                and (
                    obj.value.startswith(prefix)
                    or (follow_set and quad.predicate.value in follow_set)
                )
            ):
                level.append(obj)
    return out + linked_types(store, out, seen, graph_node, kept)


def linked_types(
    store: Any, found: Sequence[Any], described: set[Any], graph_node: Any, kept: Any
) -> list[Any]:
    """The quads typing what ``found`` links to by :data:`TYPED_LINKS` and does not describe
    (not in ``described``), with the classes shapes/ asks of it, as the store says them."""
    import pyoxigraph as ox

    wanted: dict[Any, dict[str, None]] = {}
    for quad in found:
        classes = TYPED_LINKS.get(quad.predicate.value, ())
        if classes and type(quad.object) is ox.NamedNode and quad.object not in described:
            wanted.setdefault(quad.object, {}).update(dict.fromkeys(classes))
    rdf_type = ox.NamedNode(RDF_TYPE)
    out: list[Any] = []
    for node, asked in wanted.items():
        for cls in asked:
            said = [
                q
                for q in store.quads_for_pattern(node, rdf_type, ox.NamedNode(cls), graph_node)
                if kept(q)
            ]
            out += said[:1]  # once (across named graphs: the first that says it)
    return out


def _first_copy(quad: Any, start: Any, copies: set[tuple[Any, Any, Any]]) -> bool:
    """Whether ``quad`` is the first copy of its triple among the named graphs read for the
    document of ``start``: ``start`` is said in each graph that says it (an upload, in each
    of its experiments'), what it links to once. The EU language or theme an upload links to
    is described in the graph of every experiment on an upload: each copy made an upload's
    N-Quads grow with every experiment of the store (100: 685 KB for 9 KB of Turtle)."""
    if quad.subject == start:
        return True
    triple = (quad.subject, quad.predicate, quad.object)
    if triple in copies:
        return False
    copies.add(triple)
    return True


def catalogue_uploads(
    store: Any, catalog: str, uploads: Sequence[str], catalog_graph: str, *, union: bool
) -> list[Any]:
    """``uploads`` (published uploaded datasets of the catalogue: ``catalog dcat:dataset`` said
    in the graph of a published experiment on one, withdrawn ones left out) as the catalogue's
    document holds them: their links and their documents, so a harvester that reads it finds
    them all. A page of the catalogue names its own uploads (``catalog_pages.py``): what it
    reads grows with the page, not with the catalogue. Their documents come from the public
    default graph (each triple once): across named graphs, the EU concepts each one links to
    (languages, themes) are described in every experiment's graph, so read there the quad
    syntaxes took time and size quadratic in the uploads (measured with 100 uploads: 4.3 s and
    1.9 MB of N-Quads; from the default graph 0.21 s and 1.0 MB). ``union``: the links too,
    else each in the graph that says it."""
    import pyoxigraph as ox

    hidden = withdrawn_graphs(store) if uploads else frozenset()
    link = ox.NamedNode(DCAT + "dataset")
    links = [
        q
        for dataset in uploads
        for q in store.quads_for_pattern(ox.NamedNode(catalog), link, ox.NamedNode(dataset), None)
        if type(q.graph_name) is not ox.DefaultGraph
        and q.graph_name.value != catalog_graph
        and q.graph_name not in hidden
    ]
    out = [ox.Quad(q.subject, q.predicate, q.object) for q in links] if union else links
    datasets = list(dict.fromkeys(q.object.value for q in links))
    return out + union_documents(store, datasets, follow=FOLLOW_DATASET, skip=SKIP_UPLOAD)


def union_documents(
    store: Any, uris: Sequence[str], *, follow: Sequence[str], skip: Sequence[str] = ()
) -> list[Any]:
    """The documents of ``uris`` in the public default graph, walked together: what they
    share (the EU languages, themes and file types they link to, the publisher) is read once,
    not once per document, and on a remote store each level is one request for them all. The
    quads are those of :func:`document_quads` with ``union`` for each of ``uris``, joined (a
    blank node's hash resources are those of the document whose walk reached it first)."""
    import pyoxigraph as ox

    named, blank = ox.NamedNode, ox.BlankNode
    follow_set, skip_set = frozenset(follow), frozenset(skip)
    level: list[Any] = [named(u) for u in uris]
    owner: dict[Any, str] = {node: node.value + "#" for node in level}  # whose walk reached it
    seen: set[Any] = set()
    out: list[Any] = []
    while level:
        fresh = [node for node in dict.fromkeys(level) if node not in seen]
        seen.update(fresh)
        level = []
        found = subject_quads(store, fresh, ox.DefaultGraph())
        if skip_set:
            found = [q for q in found if q.predicate.value not in skip_set]
        out += found
        _inherit(owner, found)
        for quad in found:
            subject, obj = quad.subject, quad.object
            root = owner.get(subject, "\x00")  # (none: a prefix no IRI has)
            prefix = subject.value.split("#", 1)[0] + "#" if type(subject) is named else root
            kind = type(obj)
            if kind is blank or (
                kind is named
                and (
                    obj.value.startswith(prefix)
                    or (follow_set and quad.predicate.value in follow_set)
                )
            ):
                owner.setdefault(obj, root)
                level.append(obj)
    return out


def _inherit(owner: dict[Any, str], found: Sequence[Any]) -> None:
    """Blank nodes among ``found``'s objects belong to their subject's document (a remote
    store gives a blank node's quads with its parent's, in any order: until nothing changes)."""
    import pyoxigraph as ox

    changed = True
    while changed:
        changed = False
        for q in found:
            if type(q.object) is ox.BlankNode and q.object not in owner and q.subject in owner:
                owner[q.object] = owner[q.subject]
                changed = True


def dataset_versions(store: Any, datasets: Sequence[str], *, union: bool) -> list[Any]:
    """``dcat:hasVersion`` of ``datasets`` said in other graphs (a version registered by
    ``dataset refresh`` says it in its own): the catalogue's document links each built-in
    dataset's versions, as their pages do, so a harvester finds them."""
    import pyoxigraph as ox

    has_version = ox.NamedNode(DCAT + "hasVersion")
    found = [
        q
        for dataset in datasets
        for q in store.quads_for_pattern(ox.NamedNode(dataset), has_version, None, None)
        if type(q.graph_name) is not ox.DefaultGraph
    ]
    return [ox.Quad(q.subject, q.predicate, q.object) for q in found] if union else found


def registered_versions(store: Any, datasets: Sequence[str]) -> list[tuple[str, str]]:
    """The versions of ``datasets`` registered by ``dataset refresh`` (a ``gqa:DatasetVersion``
    in a graph of its own, which says the dataset ``dcat:hasVersion`` it), as (version, graph),
    in the order their datasets are given, each by its URI."""
    import pyoxigraph as ox

    has_version = ox.NamedNode(DCAT + "hasVersion")
    rdf_type, kind = ox.NamedNode(RDF_TYPE), ox.NamedNode(GQA + "DatasetVersion")
    found: dict[str, str] = {}
    for dataset in datasets:
        links = store.quads_for_pattern(ox.NamedNode(dataset), has_version, None, None)
        for q in sorted(links, key=lambda q: q.object.value):
            graph = q.graph_name
            if type(graph) is ox.DefaultGraph or type(q.object) is not ox.NamedNode:
                continue
            if next(store.quads_for_pattern(q.object, rdf_type, kind, graph), None) is not None:
                found.setdefault(q.object.value, graph.value)
    return list(found.items())


def withdrawn_graphs(store: Any) -> frozenset[Any]:
    """The named graphs of withdrawn experiments in ``store`` (their withdrawal notes)."""
    import pyoxigraph as ox

    notes = store.quads_for_pattern(None, ox.NamedNode(GQA + "withdrawnAt"), None, None)
    return frozenset(q.graph_name for q in notes if type(q.graph_name) is not ox.DefaultGraph)


def subject_quads(store: Any, nodes: Sequence[Any], graph_node: Any) -> list[Any]:
    """The quads of each of ``nodes`` as subject (in ``graph_node``; None: any graph): an index
    lookup per node, or one request for them all on a remote store, which also brings the
    quads of the blank nodes they link to (a query cannot name a blank node later)."""
    if getattr(store, "remote", False):
        return store.subjects_quads(nodes, graph_node)
    return [q for node in nodes for q in store.quads_for_pattern(node, None, None, graph_node)]
