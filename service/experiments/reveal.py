"""Revealing the withheld gold of an uploaded dataset (``about.gold: withheld``: a shared
task's test set), once its organiser says so.

While withheld, the dataset's questions are published without their gold (answers, queries,
answer types, features: ``graph.questions.GIVEN``), its runs' tasks without any question's
result, and neither its file nor its runs' answer files are served. Revealing writes what was
left out of its questions into its public graph (``graph/dataset/{name}``) with when
(``gqa:goldRevealed``), in one update; its check findings follow, as a publication's do.
Runs scored before keep their measures and get per-question results by a re-scoring.

The organiser is whoever uploaded its file saying ``gold: withheld`` (the kept spec of their
experiment says so): without accounts, their experiment's owner token is who they are.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from service.errors import Conflict, Forbidden, NotFound
from service.graph.terms import DCAT, DCT, GQA, PROV

if TYPE_CHECKING:
    from service.graph.store import Storage


_REVEALING = threading.Lock()  # two reveals at once: one writes, the other is told it is done


@dataclass(frozen=True, slots=True)
class Revealed:
    dataset: str  # its URI
    revealed_at: str  # xsd:dateTime
    questions: int  # questions whose gold is public now
    runs: tuple[str, ...]  # public experiments scored while it was withheld (to re-score)
    # private ones too (their owners re-score them as well; the organiser lists them anyway:
    # explore37 6)
    private_runs: tuple[str, ...] = ()


def reveal_gold(
    storage: Storage, name: str, *, owns: Callable[[str], bool], now: datetime | None = None
) -> Revealed:
    """Reveal the gold of published uploaded dataset ``name`` if ``owns`` (experiment id ->
    whether the request holds its owner token) one experiment that uploaded it withheld."""
    with _REVEALING:
        return _reveal(storage, name, owns, now)


def _reveal(
    storage: Storage, name: str, owns: Callable[[str], bool], now: datetime | None
) -> Revealed:
    from service.experiments.dataset_checks import publish_upload_findings, spec_dataset
    from service.graph import nodes as n
    from service.graph import prov
    from service.graph.nodes import Quad, node
    from service.graph.questions import gold_quads

    catalogue, uris = storage.catalogue, storage.uris
    refuse_unlisted(storage, name)
    if not catalogue.gold_withheld(name):
        if catalogue.gold_revealed(name):
            raise Conflict(f"the gold of dataset {name} is revealed already")
        raise Conflict(f"dataset {name} never withheld its gold (about.gold)")
    runs = _runs_on(storage, name)
    author = next((eid for eid in organiser_runs(storage, name, runs) if owns(eid)), None)
    if author is None and any(owns(eid) for eid in version_authors(storage, name)):
        # the author of an older version is the organiser of the versions after it, withheld
        # or not (v1's token published v2 and reveals it: explore37 1, explore40 1); the file
        # is v2's first organiser's
        author = next(organiser_runs(storage, name, runs), None)
    if author is None:
        raise Forbidden(
            f"revealing the gold of dataset {name} needs the owner token of the experiment "
            "that uploaded it with about.gold withheld (Authorization: Bearer <token>)"
        )
    refuse_older_withheld(storage, name)
    dataset = spec_dataset(storage, author, storage.experiments.spec_of(author))
    if dataset is None:
        raise Conflict(f"dataset {name}: its file is not kept by this store")
    graph = node(uris.dataset_graph(name))
    when = n.date_time(prov.timestamp(now))
    revealed = Quad(node(uris.dataset(name)), node(GQA + "goldRevealed"), when, graph)
    catalogue.add_public(graph.value, [*gold_quads(uris.dataset(name), dataset, graph), revealed])
    served_files(storage, runs)  # their files are served now: their download URLs said
    publish_upload_findings(storage, author)  # withheld until now (a finding may quote gold)
    # the listed runs scored without per-question results, which a re-scoring gives them (not
    # a withdrawn one, nor one scored with them: explore21 14)
    public = [
        eid
        for eid in runs
        if storage.experiments.is_public(eid)
        and storage.experiments.status(eid).withdrawn_at is None
        and catalogue.scored_withheld_on(storage.public, eid) is not None
    ]
    # as the store gives it back (Z, no trailing zero), as every other time the API says
    # (explore22 5)
    at = catalogue.revealed_at(name) or when.value
    private = tuple(private_scored_withheld(storage, name))
    return Revealed(uris.dataset(name), at, len(dataset.by_id()), tuple(public), private)


def private_scored_withheld(storage: Storage, name: str) -> list[str]:
    """The unpublished experiments scored on test set ``name`` while its gold was withheld
    (their graphs have tasks without per-question results), oldest first."""
    from service.experiments.overview import operator_rows

    uri = storage.uris.dataset(name)
    return [
        row["id"]
        for row in operator_rows(storage)
        if row.get("datasetUri") == uri
        and not row.get("public")
        and storage.catalogue.scored_withheld_on(storage.private, row["id"]) is not None
    ]


def served_files(storage: Storage, runs: list[str]) -> None:
    """Give the files of ``runs`` (published experiments on a test set being revealed) the
    ``dcat:downloadURL`` their graphs were written without while it was withheld (it answered
    403: explore29 12); an uploaded dataset's distribution its download as access URL too and
    its availability (``results.distribution_triples``), each in the experiment's graph."""
    from service.graph import dcat
    from service.graph.nodes import Quad, node

    uris = storage.uris
    stable = dcat.AUTHORITY + "planned-availability/STABLE"
    for eid in runs:
        graph = uris.experiment_graph(eid)
        rows = storage.public.query(
            f"""SELECT ?f ?sha ?dist WHERE {{ GRAPH <{graph}> {{
              <{uris.experiment(eid)}> <{PROV}used> ?f . ?f <{GQA}sha256> ?sha .
              FILTER NOT EXISTS {{ ?f <{DCAT}downloadURL> ?url }}
              FILTER NOT EXISTS {{ ?f a <{DCAT}Dataset> }}
              BIND(EXISTS {{ ?f a <{DCAT}Distribution> }} AS ?dist) }} }}"""
        )
        quads = []
        for row in rows:
            f, url = row["f"], node(uris.upload_download(eid, row["sha"].value.lower()))
            triples: list[tuple[Any, Any, Any]] = [(f, node(DCAT + "downloadURL"), url)]
            if row["dist"].value == "true":
                triples += [
                    (f, node(DCAT + "accessURL"), url),
                    (f, node("http://data.europa.eu/r5r/availability"), node(stable)),
                    *dcat.linked_descriptions([stable]),
                ]
            quads += [Quad(s, p, o, node(graph)) for s, p, o in triples]
        # the dataset's page, its access URL while withheld, is not one now: the download is
        # (DCAT-AP: an access URL gives access to the distribution; explore32 6)
        stale = storage.public.query(
            f"""SELECT ?f ?page WHERE {{ GRAPH <{graph}> {{
              <{uris.experiment(eid)}> <{PROV}used> ?f . ?f a <{DCAT}Distribution> ;
                <{DCAT}accessURL> ?page . ?d <{DCAT}distribution> ?f
              FILTER(?page = ?d) }} }}"""
        )
        gone = [Quad(row["f"], node(DCAT + "accessURL"), row["page"], node(graph)) for row in stale]
        if quads or gone:
            _replace_quads(storage, graph, gone, quads)


def _replace_quads(storage: Storage, graph: str, gone: list[Any], added: list[Any]) -> None:
    """Remove ``gone`` and add ``added`` (quads of public named graph ``graph``), each with its
    triple in the default graph (the union the endpoint and pages read), in one update."""
    from service.graph.adapter import Side

    def lines(quads: list[Any]) -> str:
        return "\n".join(f"{q.subject} {q.predicate} {q.object} ." for q in quads)

    parts = []
    if gone:
        parts.append(f"DELETE DATA {{ GRAPH <{graph}> {{\n{lines(gone)}\n}}\n{lines(gone)}\n}}")
    if added:
        parts.append(f"INSERT DATA {{ GRAPH <{graph}> {{\n{lines(added)}\n}}\n{lines(added)}\n}}")
    with storage.store.lock:
        storage.store.update(Side.PUBLIC, " ;\n".join(parts))


def older_withheld(storage: Storage, name: str) -> list[tuple[str, str, str | None]]:
    """The older versions of uploaded dataset ``name`` that still withhold their gold, oldest
    first, as (name, label, the experiment whose reveal page reveals it: its first
    organiser's run)."""
    found = []
    for older in storage.catalogue.older_uploads(name):
        if storage.catalogue.gold_withheld(older.name):
            author = next(organiser_runs(storage, older.name), None)
            found.append((older.name, older.label, author))
    return found


def refuse_older_withheld(storage: Storage, name: str) -> None:
    """Conflict while an older version of uploaded dataset ``name`` withholds its gold: a
    correction shares most of it, so revealing this one published the older one's while its
    page said it was on no page (explore32 11); the upload rule says the same."""
    held = older_withheld(storage, name)
    if not held:
        return
    which = ", ".join(f"{n} ({label})" for n, label, _ in held)
    pages = ", ".join(
        storage.uris.experiment(author) + "/reveal" for _, _, author in held if author
    )
    one = len(held) == 1
    raise Conflict(
        f"dataset {name} is a newer version of {which}, which still withhold"
        f"{'s its' if one else ' their'} gold; this version shares most of it: reveal "
        f"{'that one first' if one else 'those first, the oldest first'} (its organiser, on "
        f"{pages or 'its reveal page'} or with POST /api/datasets/NAME/reveal), then this one"
    )


# every run on it withdrawn: no page lists it, so none would show what a reveal publishes
UNLISTED = (
    "every run on dataset {name} was withdrawn, so its gold cannot be revealed: publish a run "
    "on it again (its organiser: the same file, with gold withheld) and reveal it then"
)


def refuse_unlisted(storage: Storage, name: str) -> None:
    """Conflict when every run on uploaded dataset ``name``, a test set, was withdrawn (its
    reveal page offered a form ending in a 404 "no published uploaded dataset": explore21 10),
    NotFound when there is no such published dataset or it never withheld its gold."""
    if storage.catalogue.published_upload(name) is not None:
        return
    withdrawn = storage.catalogue.withdrawn_upload(name)
    if withdrawn and storage.catalogue.ever_withheld(name):
        raise Conflict(UNLISTED.format(name=name))
    if withdrawn:  # it never withheld its gold: nothing to reveal (explore23 4)
        raise NotFound(f"dataset {name} withholds no gold: its runs were withdrawn")
    raise NotFound(f"no published uploaded dataset {name!r}")


def questions_file(storage: Storage, name: str) -> bytes:
    """The questions of test set ``name`` without their gold (:func:`given_only`), as
    QALD-JSON: what a team answering with a file needs while its own file is withheld (its
    page offered none: explore21 8). Read from its organiser's kept file."""
    from service import formats
    from service.experiments.dataset_checks import spec_dataset
    from service.graph.questions import given_only

    author = next(organiser_runs(storage, name), None)
    dataset = spec_dataset(storage, author, storage.experiments.spec_of(author)) if author else None
    if dataset is None:
        raise Conflict(f"dataset {name}: its file is not kept by this store")
    data = formats.write(given_only(dataset), "qald-json")
    return data if isinstance(data, bytes) else data.encode("utf-8")


def organiser_runs(storage: Storage, name: str, runs: list[str] | None = None) -> Iterator[str]:
    """The published experiments that uploaded dataset ``name`` saying ``gold: withheld``,
    oldest first (``runs``: the published experiments on it, if read already): their owners
    may reveal it. Lazily: each reads a kept spec, and the first is usually the one."""
    return (
        e
        for e in (_runs_on(storage, name) if runs is None else runs)
        if uploaded_withheld(storage, e)
    )


def _runs_on(storage: Storage, name: str) -> list[str]:
    """Ids of the published experiments whose graphs describe uploaded dataset ``name``,
    oldest first."""
    uris = storage.uris
    rows = storage.public.query(
        f"SELECT DISTINCT ?e WHERE {{ GRAPH ?g {{ ?e <{PROV}used> <{uris.dataset(name)}> . "
        f"<{uris.dataset(name)}> a <{DCAT}Dataset> ; <{DCT}identifier> ?id }} "
        f'FILTER(STRSTARTS(STR(?g), "{uris.base}graph/experiment/")) }} ORDER BY STR(?e)'
    )
    return [row["e"].value.rsplit("/", 1)[1] for row in rows]


def uploaded_withheld(storage: Storage, experiment_id: str) -> bool:
    """Whether ``experiment_id`` uploaded its dataset's file saying ``gold: withheld``."""
    text = storage.experiments.spec_of(experiment_id)
    if text is None:
        return False
    about = json.loads(text).get("dataset", {}).get("about") or {}
    return about.get("gold") == "withheld"


def version_authors(storage: Storage, name: str) -> Iterator[str]:
    """The published experiments whose owners author uploaded dataset ``name`` (publish a
    newer version of it, reveal it, list its runs): for it and each older version of its line,
    newest first, those that uploaded that version withheld (a test set's organiser) or, for
    a version that never withheld its gold, its author's (:func:`author_runs`). The author of
    an older version is the author of the versions after it, withheld or not: one rule for
    the submission, the reveal and the organiser's list (explore40 1). Lazily."""
    for each in [name, *(v.name for v in storage.catalogue.older_uploads(name))]:
        organisers = organiser_runs(storage, each)
        first = next(organisers, None)
        if first is not None:
            yield first
            yield from organisers
        else:
            yield from author_runs(storage, each)


def author_runs(storage: Storage, name: str) -> list[str]:
    """The published experiments that uploaded dataset ``name`` with its description (its
    first publisher's: another's is refused), oldest first; when none described it, the
    oldest published run on it (who published the file first)."""
    runs = _runs_on(storage, name)
    described = [e for e in runs if _described(storage, e)]
    return described or runs[:1]


def _described(storage: Storage, experiment_id: str) -> bool:
    """Whether ``experiment_id`` uploaded its dataset's file with a description (``about``)."""
    text = storage.experiments.spec_of(experiment_id)
    if text is None:
        return False
    dataset = json.loads(text).get("dataset")
    return isinstance(dataset, dict) and bool(dataset.get("about"))
