"""What publishing an experiment does to the description of its uploaded dataset.

Every experiment on an uploaded file describes the dataset in its own graph, so the public
description is the union of the published ones; but once the dataset is published, a later
run adds nothing of its own to it (:func:`join_published`): without accounts its first
publisher cannot be told from a stranger, who would otherwise become its creator, publisher
and licensor wherever the first said nothing; it restates the first publisher's instead, so the
description outlives that run's withdrawal. Where no author spoke, the service writes two
defaults, the generated description (``gqa:generatedDescription``) and this service as
``dct:publisher``; DCAT-AP allows a dataset one of each. The first publication also says
when the dataset was published (``dct:issued``: that experiment's publication time, the same
instant as its own ``dct:issued``); later ones add none. That date is the dataset's, so it is
written in the dataset's own graph (``graph/dataset/{name}``, beside its check findings), not in
the experiment's: withdrawing the first run (its graph leaves the default graph) keeps it, and
withdrawing the last one drops that graph (``dataset_checks.withdraw_upload_findings``).

Uploads published before this existed (or whose date left with a withdrawn run, before it was
kept apart) are completed at serve start and by ``gerbil-qa upgrade``
(:func:`complete_published_uploads`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from service.graph.adapter import StoreAdapter, add_public
from service.graph.nodes import DefaultGraph, Literal, NamedNode, Quad, node
from service.graph.terms import DCAT, DCT, GQA, PROV, RDF, RDFS, SPDX
from service.graph.uris import Uris

if TYPE_CHECKING:
    from service.graph.store import Storage

DESCRIPTION, GENERATED = DCT + "description", GQA + "generatedDescription"
PUBLISHER, ISSUED = DCT + "publisher", DCT + "issued"
SHA256, CONTACT = GQA + "sha256", DCAT + "contactPoint"
EXPERIMENT = node(GQA + "Experiment")
NAMED_BY = frozenset({DCT + "identifier", RDFS + "label"})  # literals that name a dataset


def publish_graph(
    store: StoreAdapter, uris: Uris, quads: Sequence[Any], issued: Literal, graph: NamedNode
) -> None:
    """Make an experiment's ``quads`` (in ``graph``) public, in one transaction: with its
    uploaded dataset's ``dct:issued`` when it is the first publication of that dataset, and
    without the defaults an author's statements replace (also removed from the public graphs
    that had them)."""
    from service.graph.questions import service_agent

    public = store.public
    kept, extra, stale = list(quads), [], []
    service = service_agent(uris)
    links = [q.object for q in quads if q.predicate.value == DCAT + "dataset"]
    for ds in (o for o in links if isinstance(o, NamedNode) and o.value.startswith(uris.base)):
        mine = [q for q in kept if q.subject == ds]
        theirs = list(public.quads_for_pattern(ds, None, None, DefaultGraph()))
        said = {(q.predicate.value, q.object) for q in [*mine, *theirs]}
        generated = {o for p, o in said if p == GENERATED}
        authored = any(p == DESCRIPTION and o not in generated for p, o in said)
        by_author = any(p == PUBLISHER and o.value != service for p, o in said)
        drop = {(DESCRIPTION, o) for o in generated} | {(GENERATED, o) for o in generated}
        drop = drop if authored else set()
        if by_author:
            drop.add((PUBLISHER, node(service)))
        kept = [q for q in kept if q.subject != ds or (q.predicate.value, q.object) not in drop]
        stale += [
            (ds, p, o) for p, o in drop if (p, o) in {(q.predicate.value, q.object) for q in theirs}
        ]
        if not any(p == ISSUED for p, _ in said):
            extra.append(Quad(ds, node(ISSUED), issued, own_graph(uris, ds) or graph))
    if not stale:
        add_public(store, [*kept, *extra])
        return
    from service.graph.adapter import Side

    store.update(Side.PUBLIC, f"{_removal(stale)} ;\n{_insertion([*kept, *extra])}")


def join_published(store: StoreAdapter, uris: Uris, quads: list[Any]) -> list[Any]:
    """An experiment's ``quads``, about to be published, on the published uploaded dataset
    whose file has the same SHA-256: one content is one dataset (one page, one leaderboard)
    whatever title each team gave it. A run recorded while no run on those bytes was public
    was named by its own title (a private upload's name is never reused at record time: it
    would tell its title); the first publication fixes the name and this one joins it: its
    dataset's IRIs (the questions' under it) and name become the published ones. Under either
    name, the published description is the dataset's (:func:`_published_description_wins`),
    and the experiment notes what of its own was not used."""
    from service.graph.catalogue import CatalogueRepository

    said = next(
        (q for q in quads if q.predicate.value == SHA256 and own_graph(uris, q.subject)), None
    )
    found = CatalogueRepository(store, uris).upload_for_sha256(said.object.value) if said else None
    if said is None or found is None:
        return quads
    _refuse_other_gold(CatalogueRepository(store, uris), quads, found[0])
    old, (name, title) = said.subject.value, found
    new = node(uris.dataset(name))
    before = unquote(old.removeprefix(uris.dataset("")))

    def moved(term: Any, predicate: str) -> Any:
        if isinstance(term, NamedNode) and (
            term.value == old or term.value.startswith((f"{old}/", f"{old}#"))
        ):
            return node(new.value + term.value[len(old) :])
        if isinstance(term, Literal) and predicate in NAMED_BY and before in term.value:
            # its identifier, the task labels ("system on NAME: QA (en, …)")
            text = term.value.replace(before, name)
            return Literal(text, language=term.language) if term.language else Literal(text)
        return term

    joined = quads
    if new.value != old:
        joined = [
            Quad(
                moved(q.subject, ""), q.predicate, moved(q.object, q.predicate.value), q.graph_name
            )
            for q in quads
        ]
    joined, texts = _published_texts_win(store, uris, joined, new, name)
    return _published_description_wins(store, uris, joined, new, name, title, texts=texts)


def _refuse_other_gold(catalogue: Any, quads: list[Any], name: str) -> None:
    """Conflict when this run's graph and the published dataset ``name`` of the same bytes
    disagree on whether its gold is withheld (explore21 1, 2): both runs were recorded before
    either was published. A run scored with the gold would publish a hidden test set's gold
    and each question's result; a run scored with the gold withheld, on bytes whose gold is
    public already, would say that a reveal that can never come shows its results."""
    from service.errors import Conflict

    runs = [
        q.subject.value
        for q in quads
        if q.predicate.value == RDF + "type" and q.object == EXPERIMENT
    ]
    run = f"experiment {runs[0].rsplit('/', 1)[-1]}" if runs else "this experiment"
    scored_withheld = any(q.predicate.value == GQA + "questionResultsWithheld" for q in quads)
    if not scored_withheld and catalogue.gold_withheld(name):
        raise Conflict(
            f"{run} is on the dataset {name}, a test set whose gold its organiser withholds "
            "until the reveal; it was scored with that gold (recorded before the test set was "
            "published), and publishing it would publish the gold and each question's result: "
            "re-score it (a re-scoring now is recorded as the test set's runs are: measures "
            "only) and publish that, or publish this one once the gold is revealed"
        )
    if scored_withheld and not catalogue.gold_revealed(name) and not catalogue.gold_withheld(name):
        raise Conflict(
            f"{run} was scored with its dataset's gold withheld, but the same file is public "
            f"already as the dataset {name}, its gold with it (a run on it was published "
            "first): there is no reveal to wait for; re-score it to publish it with each "
            "question's result, and upload a hidden test set as a file never published"
        )


TEXTS = frozenset({GQA + "questionText", GQA + "keywords", RDFS + "label"})


def _published_texts_win(
    store: StoreAdapter, uris: Uris, quads: list[Any], ds: NamedNode, name: str
) -> tuple[list[Any], bool]:
    """``quads`` without their in.tsv's question texts and distribution where it is not the
    published dataset ``ds``'s (the first publisher's, or none): a run recorded before the
    dataset was published could not be refused another in.tsv (``check_about`` refuses it
    since), and its texts would be a second text of each question. Its file stays one the
    experiment used; whether any was dropped (its owner is told)."""
    from service.graph.catalogue import CatalogueRepository

    _, published = CatalogueRepository(store, uris).published_tsv(name)
    role = {
        q.subject
        for q in quads
        if (q.predicate.value, q.object) == (GQA + "fileRole", Literal("questions"))
    }
    other = {
        q.subject
        for q in quads
        if q.subject in role and q.predicate.value == SHA256 and q.object.value != published
    }
    if not other:
        return quads, False
    questions = ds.value + "/question/"
    # what made it a distribution of the dataset (results._distribution_triples), not a file
    kept = {GQA + "fileRole", SHA256, DCT + "title", DCAT + "byteSize", DCAT + "mediaType"}
    kept |= {RDF + "type", SPDX + "checksum", DCAT + "downloadURL"}

    def dropped(q: Any) -> bool:
        if q.subject == ds:
            return q.object in other
        if q.subject in other:
            distribution = (
                q.predicate.value == RDF + "type" and q.object.value == DCAT + "Distribution"
            )
            return distribution or q.predicate.value not in kept
        return q.subject.value.startswith(questions) and q.predicate.value in TEXTS

    return [q for q in quads if not dropped(q)], True


def _published_description_wins(
    store: StoreAdapter,
    uris: Uris,
    quads: list[Any],
    ds: NamedNode,
    name: str,
    title: str,
    *,
    texts: bool = False,
) -> list[Any]:
    """``quads`` saying nothing of their own of published uploaded dataset ``ds`` (its title,
    description, creators, publisher, licence, contact, version…): without accounts a later
    publisher cannot be told from its author, so the first publisher's description stays
    (before, a later run filled what it did not say, and the service's own demo dataset came to
    cite a stranger as its author). Its own file is distributed under the published licence,
    and its graph restates the published description (:func:`published_description`), which
    thus stays public while any run on the dataset is. What this run said and lost
    (``texts``: its in.tsv) is noted on the experiment (``rdfs:comment``), for its owner."""
    from service.dataset_about import ABOUT_FIELDS

    theirs = {
        (q.predicate.value, q.object)
        for q in store.public.quads_for_pattern(ds, None, None, DefaultGraph())
    }
    mine = [q for q in quads if q.subject == ds]
    own = {f.predicate for f in ABOUT_FIELDS} | {DESCRIPTION, DCT + "isVersionOf", GENERATED}
    own |= {PUBLISHER, DCT + "title"}
    generated = {q.object for q in mine if q.predicate.value == GENERATED}
    # what its author said and is not the dataset's (not the default, not what is published)
    lost = {
        (q.predicate.value, q.object)
        for q in mine
        if q.predicate.value in own - {GENERATED, PUBLISHER, DCT + "title"}
        and q.object not in generated
        and (q.predicate.value, q.object) not in theirs
    }
    named = {o for p, o in lost if p in (DCT + "license", DCAT + "previousVersion")}
    agents = (f"{ds.value}#creator-", f"{ds.value}#contact")  # this run's, described here
    files = {q.object for q in mine if q.predicate.value == DCAT + "distribution"}
    licences = {o for p, o in theirs if p == DCT + "license"}
    own_title = next((q.object.value for q in mine if q.predicate.value == DCT + "title"), None)
    out: list[Any] = []
    for q in quads:
        p = q.predicate.value
        if (q.subject in files and p == DCT + "license") or (
            (
                (q.subject == ds and p in own)
                or q.subject.value.startswith(agents)
                or (q.subject in named and p in (RDF + "type", DCAT + "hasVersion"))
            )
            and not _public(store, q)  # restating it adds nothing, and keeps this graph whole
        ):
            continue
        if p == GQA + "datasetLabel":
            q = Quad(q.subject, q.predicate, Literal(title), q.graph_name)
        out.append(q)
    graph = mine[0].graph_name if mine else DefaultGraph()
    if own_title != title:  # an equal one was kept above, as public already
        out.append(Quad(ds, node(DCT + "title"), Literal(title), graph))
    # its own file is distributed under the published licence
    out += [Quad(f, node(DCT + "license"), lic, graph) for f in files for lic in licences]
    # and it restates the published description, so the dataset stays described (and cited)
    # as its first publisher said for as long as any run on it is public (explore-11 19)
    have = set(out)
    out += [
        q
        for q in (Quad(s, p, o, graph) for s, p, o in published_description(store, uris, ds))
        if q not in have
    ]
    runs = {q.subject for q in quads if (q.predicate.value, q.object) == (RDF + "type", EXPERIMENT)}
    said = tuple(f.key for f in ABOUT_FIELDS if any(p == f.predicate for p, _ in lost))
    notes = published_notes(name, title, own_title, about=said, texts=texts)
    out += [
        Quad(e, node(RDFS + "comment"), Literal(t, language="en"), graph)
        for e in runs
        for t in notes
    ]
    return out


def published_description(store: StoreAdapter, uris: Uris, ds: NamedNode) -> list[Any]:
    """The description of published uploaded dataset ``ds`` as its listed runs' graphs say it
    (the first publisher's: later runs restate it, word for word): its statements (title
    aside, which :func:`_published_description_wins` writes), its creators and contact
    (``#creator-N``, ``#contact``: the same IRIs say the same in every graph), its licence's
    type, its previous version's ``dcat:hasVersion`` and what DCAT-AP asks described of the
    concepts they link. Before, a later run restated its licence alone: once the author's run
    was withdrawn the dataset was cited as this service's, without version."""
    from service.dataset_about import ABOUT_FIELDS
    from service.graph import dcat

    own = {f.predicate for f in ABOUT_FIELDS} | {DESCRIPTION, DCT + "isVersionOf", GENERATED}
    own.add(PUBLISHER)
    wanted = " ".join(f"<{p}>" for p in sorted(own))
    rows = store.public.query(
        f"SELECT DISTINCT ?s ?p ?o WHERE {{ GRAPH ?g {{ "
        f"{{ {ds} ?p ?o VALUES ?p {{ {wanted} }} BIND({ds} AS ?s) }} "
        f"UNION {{ {ds} ?l ?s VALUES ?l {{ <{DCT}creator> <{CONTACT}> }} ?s ?p ?o }} "
        f"UNION {{ {ds} <{DCT}license> ?s . ?s ?p ?o VALUES (?p ?o) "
        f"{{ (<{RDF}type> <{DCT}LicenseDocument>) }} }} "
        f"UNION {{ ?s ?p {ds} VALUES ?p {{ <{DCAT}hasVersion> }} BIND({ds} AS ?o) }} }} "
        f"{uris.listed_experiment_graph()} }}"
    )
    said = [(row["s"], row["p"], row["o"]) for row in rows]
    linked = (o.value for _, _, o in said if isinstance(o, NamedNode))
    return said + [tuple(t) for t in dcat.linked_descriptions(linked)]


def _public(store: StoreAdapter, q: Any) -> bool:
    """Whether the triple of quad ``q`` is in the public default graph."""
    found = store.public.quads_for_pattern(q.subject, q.predicate, q.object, DefaultGraph())
    return any(True for _ in found)


def own_graph(uris: Uris, dataset: NamedNode) -> NamedNode | None:
    """The graph of an uploaded dataset's own statements (``graph/dataset/{name}``); None for
    another URI (a registered version, which has its own graph and date)."""
    from service.dataset_about import UPLOADED_NAME

    encoded = dataset.value.removeprefix(uris.dataset(""))
    name = unquote(encoded)  # a name made before with a letter beyond ASCII is encoded
    if encoded == dataset.value or not UPLOADED_NAME.fullmatch(name):
        return None
    return node(uris.dataset_graph(name))


def _removal(stale: list[tuple[NamedNode, str, Any]]) -> str:
    """Remove each of ``stale`` from every public graph holding it and from the default graph."""
    rows = " ".join(f"({s} <{p}> {o})" for s, p, o in stale)
    return (
        "DELETE { GRAPH ?g { ?s ?p ?o } ?s ?p ?o } "
        f"WHERE {{ VALUES (?s ?p ?o) {{ {rows} }} GRAPH ?g {{ ?s ?p ?o }} "
        # a withdrawn experiment's graph stays as it was cited
        f"FILTER NOT EXISTS {{ GRAPH ?g {{ ?e <{GQA}withdrawnAt> ?w }} }} }}"
    )


def _insertion(quads: Sequence[Any]) -> str:
    """``quads`` and their copies in the default graph as one INSERT DATA (a blank node's
    label names the same node in both)."""
    by_graph: dict[str, list[str]] = {}
    for q in quads:
        by_graph.setdefault(str(q.graph_name), []).append(f"{q.subject} {q.predicate} {q.object} .")
    named = "\n".join(f"GRAPH {g} {{\n" + "\n".join(lines) + "\n}" for g, lines in by_graph.items())
    copies = "\n".join(line for lines in by_graph.values() for line in lines)
    return f"INSERT DATA {{\n{named}\n{copies}\n}}"


def complete_published_uploads(storage: Storage) -> list[str]:
    """Published uploads (described in a listed experiment's graph) without what a publication
    writes today get it, one update (one transaction) per dataset; the URIs of those completed.
    Running it again writes nothing. Never touches a withdrawn experiment's graph:

    * ``catalog dcat:dataset`` in each listed graph that describes its file (as each run's
      graph says it since), so a harvester finds it;
    * ``dct:publisher`` (its first creator, else this service) in the earliest listed graph
      naming that creator, else the earliest listed one;
    * ``dct:issued`` in its own graph: the earliest date it was given or published with (a
      withdrawn run's too: the dataset was public from then), the date of its first issue;
    * ``gqa:generatedDescription`` on a description exactly as :func:`generated_description`
      writes it — or, where its author's description is also public, the generated one goes,
      as :func:`publish_graph` does it (an author's text is never marked);
    * with no description left (its author's run withdrawn, the later runs restating none):
      the generated one, marked, in its own graph.

    Also run after each withdrawal (``dataset_checks.after_withdrawal``): the first run's graph
    may have been the one that said the publisher or the description.

    * the published description restated in each listed run's graph that lacks some of it
      (:func:`_restate_published`: a version before this restated the licence alone), so it
      stays when the first publisher's run is withdrawn.

    When nothing is missing these are two queries (:func:`_incomplete`, :func:`_unrestated`)."""
    done = []
    for dataset, graphs in _incomplete(storage.public, storage.uris).items():
        if _complete(storage, dataset, graphs):
            done.append(dataset.value)
    done += _restate_published(storage)
    done += _distribute_kept(storage)
    return sorted(set(done))


def _distribute_kept(storage: Storage) -> list[str]:
    """Uploads published by a version that kept their file (it has a download address) but
    did not yet describe it as their distribution: described so in each listed graph, one
    update a dataset; the datasets' URIs. A file never kept has no address: nothing to
    distribute (the shapes accept that)."""
    from service.graph.adapter import Side
    from service.graph.results import distribution_triples

    media_prefix = "http://www.iana.org/assignments/media-types/"
    rows = storage.public.query(
        f"SELECT ?g ?d ?f ?title ?url ?media ?licence WHERE {{ GRAPH ?g {{ "
        f"?e a <{GQA}Experiment> ; <{PROV}used> ?d . ?d <{SHA256}> ?sha ; "
        f"<{PROV}wasDerivedFrom> ?f . ?f a <{GQA}UploadedFile> ; <{SHA256}> ?sha ; "
        f"<{DCT}title> ?title ; <{DCAT}downloadURL> ?url "
        f"OPTIONAL {{ ?f <{DCAT}mediaType> ?media }} OPTIONAL {{ ?d <{DCT}license> ?licence }} "
        f"FILTER NOT EXISTS {{ ?d <{DCAT}distribution> ?any }} }} "
        f'FILTER(STRSTARTS(STR(?d), "{storage.uris.dataset("")}")) '
        f"{storage.uris.listed_experiment_graph()} }}"
    )
    by_dataset: dict[str, list[Any]] = {}
    for row in rows:
        media = row["media"].value.removeprefix(media_prefix) if row["media"] else None
        licence = row["licence"].value if row["licence"] else None
        triples = [(row["d"], node(DCAT + "distribution"), row["f"])]
        triples += distribution_triples(
            row["f"], row["title"].value, row["url"].value, media, licence
        )
        by_dataset.setdefault(row["d"].value, []).extend(
            Quad(s, p, o, row["g"]) for s, p, o in triples
        )
    for quads in by_dataset.values():
        with storage.store.lock:
            storage.store.update(Side.PUBLIC, _insertion(quads))
    return sorted(by_dataset)


def _unrestated(public: Any, uris: Uris) -> dict[NamedNode, list[NamedNode]]:
    """The published uploads whose listed runs' graphs do not all say each of their
    description's statements another listed graph says, with those graphs."""
    from service.dataset_about import ABOUT_FIELDS

    own = {f.predicate for f in ABOUT_FIELDS} | {DESCRIPTION, DCT + "isVersionOf", PUBLISHER}
    wanted = " ".join(f"<{p}>" for p in sorted(own))
    rows = public.query(
        f"SELECT DISTINCT ?d ?g WHERE {{ GRAPH ?g {{ ?d <{SHA256}> ?sha }} "
        f"{uris.listed_experiment_graph()} "
        f"GRAPH ?h {{ ?d ?p ?o VALUES ?p {{ {wanted} }} }} "
        f"{uris.listed_experiment_graph('?h')} "
        f"FILTER NOT EXISTS {{ GRAPH ?g {{ ?d ?p ?o }} }} }}"
    )
    found: dict[NamedNode, list[NamedNode]] = {}
    for row in rows:
        if own_graph(uris, row["d"]) is not None:  # an upload's (not a registered version)
            found.setdefault(row["d"], []).append(row["g"])
    return found


def _restate_published(storage: Storage) -> list[str]:
    """Restate the published description (:func:`published_description`) in the listed runs'
    graphs that lack some of it, one update a dataset; the datasets' URIs."""
    from service.graph.adapter import Side

    done = []
    for dataset, graphs in _unrestated(storage.public, storage.uris).items():
        said = published_description(storage.store, storage.uris, dataset)
        quads = []
        for graph in graphs:
            found = storage.public.quads_for_pattern
            quads += [Quad(s, p, o, graph) for s, p, o in said if not any(found(s, p, o, graph))]
        if quads:
            with storage.store.lock:
                storage.store.update(Side.PUBLIC, _insertion(quads))
            done.append(dataset.value)
    return done


@dataclass(frozen=True, slots=True)
class _Described:
    """What one listed experiment graph says of an upload, as :func:`_incomplete` found it."""

    graph: NamedNode
    linked: bool  # links it from the catalogue, or has no file to link
    title: str
    count: int | None
    unmarked: Any  # an English description not marked generated, or None


def _incomplete(public: Any, uris: Uris) -> dict[NamedNode, list[_Described]]:
    """The uploads of listed experiment graphs missing a publication's statements (or with an
    English description to compare with the generated one), with what each graph says."""
    catalog, listed = f"<{uris.catalog}>", uris.listed_experiment_graph()
    rows = public.query(
        f"SELECT ?d ?g ?t ?title ?count ?issued ?publisher ?described ?linked WHERE {{ "
        f"GRAPH ?g {{ ?e a <{GQA}Experiment> ; <{PROV}used> ?d . ?d a <{DCAT}Dataset> ; "
        f"<{DCT}title> ?title OPTIONAL {{ ?d <{GQA}questionCount> ?count }} "
        f"OPTIONAL {{ ?d <{DESCRIPTION}> ?t FILTER(LANG(?t) = 'en' && "
        f"NOT EXISTS {{ ?d <{GENERATED}> ?t }}) }} }} "
        f'FILTER(STRSTARTS(STR(?d), "{uris.dataset("")}")) {listed} '
        f"BIND(EXISTS {{ ?d <{ISSUED}> ?i }} AS ?issued) "
        f"BIND(EXISTS {{ ?d <{PUBLISHER}> ?p }} AS ?publisher) "
        f"BIND(EXISTS {{ ?d <{DESCRIPTION}> ?x }} AS ?described) "
        f"BIND(EXISTS {{ GRAPH ?g {{ {catalog} <{DCAT}dataset> ?d }} }} || "
        f"NOT EXISTS {{ GRAPH ?g {{ ?d <{GQA}sha256> ?s }} }} AS ?linked) "
        f"FILTER(!?issued || !?publisher || !?described || !?linked || BOUND(?t)) }}"
    )
    found: dict[NamedNode, list[_Described]] = {}
    missing: set[NamedNode] = set()
    for row in rows:
        count = row["count"]
        said = _Described(
            row["g"],
            row["linked"].value == "true",
            row["title"].value,
            int(count.value) if count is not None else None,
            row["t"],
        )
        flags = (row["issued"].value, row["publisher"].value, row["described"].value)
        if not said.linked or "false" in flags:
            missing.add(row["d"])
        found.setdefault(row["d"], []).append(said)
    # a description that is not the generated one is an author's: nothing to do for it alone
    return {
        d: said for d, said in found.items() if d in missing or any(_is_generated(s) for s in said)
    }


def _is_generated(said: _Described) -> bool:
    from service.graph.questions import generated_description

    made, t = generated_description(said.title, said.count), said.unmarked
    return t is not None and (t.value, t.language) == (made.value, made.language)


def _complete(storage: Storage, dataset: NamedNode, graphs: list[_Described]) -> bool:
    """Complete one upload (:func:`complete_published_uploads`) in one update; False when
    there was nothing to write after all."""
    from service.graph.adapter import Side
    from service.graph.questions import service_agent

    uris, ds = storage.uris, f"<{dataset.value}>"
    creator = node(f"{dataset.value}#creator-1")
    rows = storage.public.query(
        f"SELECT ?g ?when ?withdrawn ?creator ?i ?said ?marked WHERE {{ "
        f"{{ GRAPH ?g {{ ?e a <{GQA}Experiment> ; <{PROV}used> {ds} "
        f"OPTIONAL {{ ?e <{ISSUED}> ?when }} "
        f"OPTIONAL {{ {ds} <{DCT}creator> ?creator FILTER(?creator = <{creator.value}>) }} }} "
        f'FILTER(STRSTARTS(STR(?g), "{uris.base}graph/experiment/")) '
        f"BIND(EXISTS {{ GRAPH ?g {{ ?w <{GQA}withdrawnAt> ?at }} }} AS ?withdrawn) }} "
        f"UNION {{ GRAPH ?h {{ {ds} <{ISSUED}> ?i }} }} "
        f"UNION {{ {ds} <{DESCRIPTION}> ?said }} UNION {{ {ds} <{GENERATED}> ?marked }} }}"
    )
    # the listed runs (never a withdrawn one's graph), first published first; a run an old
    # version published without a date of its own comes last
    runs: list[tuple[tuple[bool, str, str], NamedNode, bool]] = []
    dates, said, marked = [], set(), set()
    listed = {s.graph for s in graphs}
    for row in rows:
        if row["g"] is not None:
            when = row["when"]
            if when is not None:
                dates.append((_instant(when), when))
            if row["withdrawn"].value == "false" and row["g"] in listed:
                order = (when is None, _instant(when).isoformat() if when else "", row["g"].value)
                runs.append((order, row["g"], row["creator"] is not None))
        elif row["i"] is not None:
            dates.append((_instant(row["i"]), row["i"]))
        elif row["said"] is not None:
            said.add(row["said"])
        elif row["marked"] is not None:
            marked.add(row["marked"])
    runs.sort(key=lambda r: r[0])
    quads: list[Any] = []
    public = storage.public
    home = own_graph(uris, dataset) or (runs[0][1] if runs else None)
    if not public.query(f"ASK {{ {ds} <{ISSUED}> ?i }}") and dates and home is not None:
        first = min(dates, key=lambda d: d[0])[1]
        quads.append(Quad(dataset, node(ISSUED), first, home))
    if not public.query(f"ASK {{ {ds} <{PUBLISHER}> ?p }}") and runs:
        named = [r for r in runs if r[2]]
        graph = (named or runs)[0][1]
        quads.append(
            Quad(dataset, node(PUBLISHER), creator if named else node(service_agent(uris)), graph)
        )
    if not said and home is not None:  # its description left with a withdrawn run's graph
        from service.graph.questions import generated_description

        text = generated_description(graphs[0].title, graphs[0].count)
        quads += [Quad(dataset, node(p), text, home) for p in (DESCRIPTION, GENERATED)]
    catalog = node(uris.catalog)
    quads += [
        Quad(catalog, node(DCAT + "dataset"), dataset, s.graph) for s in graphs if not s.linked
    ]
    generated = [s for s in graphs if _is_generated(s)]
    authored = said - marked - {s.unmarked for s in generated}
    stale = [(dataset, DESCRIPTION, s.unmarked) for s in generated] if authored else []
    if not authored:
        quads += [Quad(dataset, node(GENERATED), s.unmarked, s.graph) for s in generated]
    if not quads and not stale:
        return False
    request = _insertion(quads) if quads else ""
    if stale:
        request = f"{_removal(stale)} ;\n{request}" if request else _removal(stale)
    with storage.store.lock:
        storage.store.update(Side.PUBLIC, request)
    return True


def _instant(value: Any) -> datetime:
    """An ``xsd:dateTime`` literal as an instant in UTC (stores written apart may spell it
    ``Z`` or ``+00:00``)."""
    found = datetime.fromisoformat(value.value.replace("Z", "+00:00"))
    return (found if found.tzinfo is not None else found.replace(tzinfo=UTC)).astimezone(UTC)


def published_notes(
    name: str,
    title: str,
    own_title: str | None,
    *,
    about: Sequence[str],
    texts: bool = False,
) -> tuple[str, ...]:
    """What the owner of a run on the bytes of published dataset ``name`` is told: it keeps
    its published title, and its description is its first publisher's (``about``: the keys
    of what this run said of it, not recorded: explore23 15 listed ones never given), its
    question texts too (``texts``: this run's in.tsv, another, not published)."""
    notes = []
    own = (own_title or "").strip()
    if own and own != title:
        notes.append(
            f"the dataset file is the published dataset {name} (the same bytes): it keeps its "
            f'title "{title}"; yours, "{own}", was not used'
        )
    if about:
        gold = " (its gold is public: not withheld)" if "gold" in about else ""
        notes.append(
            f"the dataset file is the published dataset {name} (the same bytes), whose "
            f"description is its first publisher's: yours (about: {', '.join(about)}) was "
            f"not recorded{gold}; {NEW_VERSION.format(name=name)}"
        )
    if texts:
        notes.append(
            f"the dataset file is the published dataset {name} (the same bytes), whose question "
            "texts are its first publisher's: your in.tsv, another one, was not published with "
            f"it (its texts nor the file as a distribution); {NEW_VERSION.format(name=name)}"
        )
    return tuple(notes)


# how an author completes or corrects a published dataset's description (README "newer version");
# a dataset is its file's SHA-256, so a new version is other bytes: the same file is refused
# again (explore-11 21: this advice was followed with the same file, in a loop)
NEW_VERSION = (
    "to complete or correct a published description, publish a new version: a corrected "
    "file (other bytes: these are {name} itself) with about.previousVersion {name} "
    "(--dataset-previous)"
)
