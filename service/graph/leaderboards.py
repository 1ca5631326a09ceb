"""Frozen leaderboards: a leaderboard as it stood, kept under a URI of its own for a paper or a
challenge to cite (the live leaderboard changes with every publication and withdrawal).

One public named graph, ``graph/leaderboard/{id}``, written in one add and copied into the
public default graph as every public graph is: the filters, the measure it ranks by, when it
was frozen, each row (rank, tier, the task it ranks, the ranked measure's value and interval as
shown) and ``prov:wasDerivedFrom`` each ranked task. The tasks keep every other number, and stay
at their URIs even when their experiment is withdrawn later. The id is a hash of the filters and
rows: freezing the same standings again gives the same URI and writes nothing. The rows use
terms of their own (``gqa:rankedTask``, ``gqa:score``), never a task's (``gerbil:annotator``, a
measure), so the live leaderboards and GERBIL-era queries over the default graph never read a
frozen row as a result.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from service.errors import Conflict
from service.graph import nodes as n
from service.graph.adapter import add_public
from service.graph.terms import XSD
from service.graph.uris import GQA

if TYPE_CHECKING:
    from service.graph.store import Storage

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
DCT = "http://purl.org/dc/terms/"
PROV = "http://www.w3.org/ns/prov#"
GERBIL_DATASET = "http://w3id.org/gerbil/vocab#dataset"
GERBIL_TYPE = "http://w3id.org/gerbil/vocab#experimentType"
GERBIL_ANNOTATOR = "http://w3id.org/gerbil/vocab#annotator"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
MAX_ROWS = 500  # rows a frozen leaderboard keeps: the live leaderboard's largest page
TITLE_LENGTH = 300
FREEZE_ATTEMPTS = 20  # claims of a leaderboard another replica is freezing (0.3 s each)


@dataclass(frozen=True, slots=True)
class Standing:
    """What a leaderboard ranks: IRIs of its filters (None: any) and the measure's IRI."""

    experiment_type: str  # gerbil:QA …
    measure: str  # the ranked measure's property, e.g. gerbil:macroF1
    dataset: str | None = None
    language: str | None = None
    profile: str | None = None


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    task: str
    score: float | None
    low: float | None = None
    high: float | None = None
    tier: int | None = None
    # another run of a system ranked above (same dataset, language and profile): the task of
    # its ranked run, whose rank this row shares without consuming one
    other_run_of: str | None = None
    # on how many of ``resamples`` bootstrap resamples the ranked measure was undefined (its
    # interval then left them out, or has no bounds): 0 where it never was
    undefined: int = 0
    resamples: int = 0
    # why a row among the tiered ones had none when frozen (the live board's reason, as text):
    # a bare "–" left the reader of a cited board guessing
    tier_note: str | None = None
    # how the row's tier and interval were computed (the live board's ``tierSignature``: the
    # profile's signature, the interval's resamples and seed, the test, its samples and seed,
    # the correction and how many pairs it corrected over): boards frozen before 2026-11-29
    # keep none
    tier_signature: str | None = None


@dataclass(frozen=True, slots=True)
class Frozen:
    uri: str
    id: str
    title: str
    frozen_at: str  # xsd:dateTime as written
    standing: Standing
    rows: list[Row]
    entries: tuple[str, ...] = ()  # each row's IRI in its graph (``#rank-N``, ``#rank-N-M``)


def frozen_id(standing: Standing, rows: list[Row]) -> str:
    """What a frozen leaderboard is named by: 16 hex digits of the SHA-256 of its filters and
    rows (not its title or time: the same standings are one leaderboard)."""
    # a row's other_run_of and undefined resamples only when set: standings frozen before
    # they existed keep their id
    later = ("other_run_of", "undefined", "resamples")
    # why a row had no tier, and how tiers were computed, are said of the standings, not
    # part of them: never in the id, so standings frozen before they were kept are the same
    # leaderboard
    said = ("tier_note", "tier_signature")
    kept = [
        {k: v for k, v in asdict(r).items() if (k not in later or v) and k not in said}
        for r in rows
    ]
    text = json.dumps([asdict(standing), kept], sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def freeze(
    storage: Storage, standing: Standing, rows: list[Row], *, title: str
) -> tuple[str, bool]:
    """Keep ``rows`` (ranked as ``standing`` says) as a frozen leaderboard; its URI, and whether
    it was written now (False: the same standings were frozen before, under that URI)."""
    rows = rows[:MAX_ROWS]
    title = " ".join(title.split())[:TITLE_LENGTH]  # one line in every format it is shown in
    n.refuse_non_text(title, "the title")
    lid = frozen_id(standing, rows)
    uri = storage.uris.leaderboard(lid)
    graph = n.node(storage.uris.leaderboard_graph(lid))
    if storage.public.contains_named_graph(graph):  # frozen before: no claim to make
        return uri, False
    # one check and one write: two freezes of one state write once. The lock orders this
    # process's; on a shared store, where a check-then-write is not exclusive, the claim
    # orders the replicas' (two both finding no graph wrote two titles and two times)
    claims = storage.experiments.claims
    with storage.store.lock:
        if not any(claims.claim(uri) for _ in range(FREEZE_ATTEMPTS)):
            raise Conflict("this leaderboard is being frozen by another request; try again")
        try:
            if storage.public.contains_named_graph(graph):
                return uri, False
            add_public(storage.store, list(_quads(uri, lid, graph, standing, rows, title)))
            _forget_removal(storage, uri)  # frozen anew: a dump's copy may come back too
        finally:
            claims.release(uri)
    logging.getLogger(__name__).info("leaderboard %s frozen: %s", lid, title)
    return uri, True


def remove(storage: Storage, leaderboard_id: str) -> bool:
    """Remove a frozen leaderboard (the operator's: spam, an offensive title, a mistake), its
    graph and its share of the public default graph in one update; False when there is none.
    Anyone may freeze and the first title of a state is kept, so without this whoever froze
    first named the standings for good. Its URI answers 410 after it; freezing the same
    standings again makes it anew."""
    from service.graph.adapter import Side

    if not (len(leaderboard_id) == 16 and all(c in "0123456789abcdef" for c in leaderboard_id)):
        return False  # no id a freeze gives (frozen_id)
    uri = storage.uris.leaderboard(leaderboard_id)
    graph = storage.uris.leaderboard_graph(leaderboard_id)
    if not storage.public.contains_named_graph(n.node(graph)):
        return False
    claims = storage.experiments.claims
    with storage.store.lock:  # ordered with a freeze of the same state (same claim)
        if not any(claims.claim(uri) for _ in range(FREEZE_ATTEMPTS)):
            raise Conflict("this leaderboard is being frozen by another request; try again")
        try:
            if not storage.public.contains_named_graph(n.node(graph)):
                return False
            # noted first (the admin graph): an import of a backup made before leaves it out,
            # as it leaves a withdrawal standing (it brought the board back, unsaid)
            admin = n.node(storage.uris.admin_graph)
            now = n.date_time(datetime.now(UTC))
            note = n.Quad(n.node(uri), n.node(GQA + "removedAt"), now, admin)
            storage.store.add(Side.PRIVATE, [note])
            # its triples leave the union unless another graph holds them too (a task's
            # type is the experiment's; its entries and their links are its own)
            storage.store.update(
                Side.PUBLIC,
                f"DELETE {{ ?s ?p ?o }} WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} "
                f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?s ?p ?o }} FILTER(?h != <{graph}>) }} }} ;\n"
                f"DROP SILENT GRAPH <{graph}>",
            )
        finally:
            claims.release(uri)
    logging.getLogger(__name__).info("leaderboard %s removed", leaderboard_id)
    return True


def removed_since(storage: Storage) -> set[str]:
    """The URIs of the frozen leaderboards the operator removed (:func:`remove`'s notes)."""
    rows = storage.private.query(
        f"SELECT ?lb WHERE {{ GRAPH <{storage.uris.admin_graph}> {{ ?lb <{GQA}removedAt> ?t }} }}"
    )
    return {row["lb"].value for row in rows}


def removed_at(storage: Storage, leaderboard_id: str) -> Any | None:
    """When the operator removed the frozen leaderboard ``leaderboard_id`` (its
    ``gqa:removedAt`` literal, an ``xsd:dateTime``), or None: never frozen, or frozen anew."""
    if not (len(leaderboard_id) == 16 and all(c in "0123456789abcdef" for c in leaderboard_id)):
        return None
    uri = storage.uris.leaderboard(leaderboard_id)
    admin = storage.uris.admin_graph
    rows = storage.private.query(
        f"SELECT ?t WHERE {{ GRAPH <{admin}> {{ <{uri}> <{GQA}removedAt> ?t }} }}"
        " ORDER BY DESC(?t) LIMIT 1"
    )
    return next((row["t"] for row in rows), None)


def _forget_removal(storage: Storage, uri: str) -> None:
    from service.graph.adapter import Side

    storage.store.update(
        Side.PRIVATE,
        f"DELETE WHERE {{ GRAPH <{storage.uris.admin_graph}> {{ <{uri}> <{GQA}removedAt> ?t }} }}",
    )


def _quads(
    uri: str, lid: str, graph: Any, standing: Standing, rows: list[Row], title: str
) -> list[Any]:
    me = n.node(uri)
    out: list[tuple[Any, str, Any]] = [
        (me, RDF_TYPE, n.node(GQA + "FrozenLeaderboard")),
        (me, RDF_TYPE, n.node(PROV + "Entity")),
        (me, DCT + "identifier", n.literal(lid)),
        (me, DCT + "title", n.literal(title or "Frozen leaderboard")),
        (me, PROV + "generatedAtTime", n.date_time(datetime.now(UTC))),
        (me, GQA + "rankedBy", n.node(standing.measure)),
        (me, GERBIL_TYPE, n.node(standing.experiment_type)),
    ]
    for predicate, value in (
        (GERBIL_DATASET, standing.dataset),
        (GQA + "language", standing.language),
        (GQA + "profile", standing.profile),
    ):
        if value is not None:
            out.append((me, predicate, n.node(value)))
    tied: dict[int, int] = {}  # rows so far of each rank: tied rows share one
    for row in rows:
        tied[row.rank] = tied.get(row.rank, 0) + 1
        entry = n.node(_entry_iri(uri, row.rank, tied[row.rank]))
        out += [
            (me, GQA + "entry", entry),
            (me, PROV + "wasDerivedFrom", n.node(row.task)),
            (entry, RDF_TYPE, n.node(GQA + "LeaderboardEntry")),
            (entry, GQA + "rank", n.integer(row.rank)),
            (entry, GQA + "rankedTask", n.node(row.task)),
        ]
        for predicate, number in (
            ("score", row.score),
            ("scoreLow", row.low),
            ("scoreHigh", row.high),
        ):
            if number is not None:
                out.append((entry, GQA + predicate, n.number(float(number), XSD + "double")))
        if row.tier is not None:
            out.append((entry, GQA + "tier", n.integer(row.tier)))
        if row.tier_note:
            out.append((entry, GQA + "tierNote", n.literal(row.tier_note, lang="en")))
        if row.tier_signature:
            out.append((entry, GQA + "tierSignature", n.literal(row.tier_signature)))
        if row.other_run_of is not None:
            out.append((entry, GQA + "otherRunOf", n.node(row.other_run_of)))
        if row.undefined:
            out.append((entry, GQA + "scoreUndefinedResamples", n.integer(row.undefined)))
            out.append((entry, GQA + "scoreResamples", n.integer(row.resamples)))
    return [n.Quad(s, n.node(p), o, graph) for s, p, o in out]


def _entry_iri(uri: str, rank: int, nth: int) -> str:
    """``#rank-3`` for the first row of rank 3, ``#rank-3-2`` for the second row at it, tied or
    another run of the system ranked 3 (before ranks were shared, every row was the first of
    its rank: the same IRIs)."""
    return f"{uri}#rank-{rank}" if nth == 1 else f"{uri}#rank-{rank}-{nth}"


def _entry_order(
    uri: str, subject: str, score: float | None, task: str | None
) -> tuple[bool, float, str, int, int]:
    """Where an entry stands: best score first (as frozen; another run of a system ranked 2
    may stand below the system ranked 3), then, as the live leaderboard breaks ties, its
    task's IRI (``queries.leaderboard``'s ``ORDER BY … ?task``): rows of two profile versions
    at one score, each ranked among its own version's, were listed by rank, interleaving the
    versions, where the live board lists them as it did when frozen (explore35 5); then its
    rank and place among the rows at it, from its IRI."""
    rank, _, nth = subject.removeprefix(uri + "#rank-").partition("-")
    return score is None, -(score or 0.0), task or "", int(rank), int(nth or 1)


def read(storage: Storage, leaderboard_id: str) -> Frozen | None:
    """A frozen leaderboard as written; None when there is none of that id."""
    uris = storage.uris
    uri = uris.leaderboard(leaderboard_id)
    graph = n.node(uris.leaderboard_graph(leaderboard_id))
    public = storage.public
    if not public.contains_named_graph(graph):
        return None
    by_subject: dict[str, dict[str, Any]] = {}
    for q in public.quads_for_pattern(None, None, None, graph):
        by_subject.setdefault(q.subject.value, {}).setdefault(q.predicate.value, q.object)
    me = by_subject.get(uri, {})

    def value(props: dict[str, Any], name: str) -> Any:
        term = props.get(name)
        return None if term is None else term.value

    def number(props: dict[str, Any], name: str, kind: type) -> Any:
        found = value(props, name)
        return None if found is None else kind(float(found))

    entries = sorted(
        (subject for subject in by_subject if subject.startswith(uri + "#rank-")),
        key=lambda subject: _entry_order(
            uri,
            subject,
            number(by_subject[subject], GQA + "score", float),
            value(by_subject[subject], GQA + "rankedTask"),
        ),
    )
    rows = [
        Row(
            rank=number(props, GQA + "rank", int),
            task=value(props, GQA + "rankedTask"),
            score=number(props, GQA + "score", float),
            low=number(props, GQA + "scoreLow", float),
            high=number(props, GQA + "scoreHigh", float),
            tier=number(props, GQA + "tier", int),
            other_run_of=value(props, GQA + "otherRunOf"),
            undefined=number(props, GQA + "scoreUndefinedResamples", int) or 0,
            resamples=number(props, GQA + "scoreResamples", int) or 0,
            tier_note=value(props, GQA + "tierNote"),
            tier_signature=value(props, GQA + "tierSignature"),
        )
        for props in (by_subject[subject] for subject in entries)
    ]
    standing = Standing(
        experiment_type=value(me, GERBIL_TYPE),
        measure=value(me, GQA + "rankedBy"),
        dataset=value(me, GERBIL_DATASET),
        language=value(me, GQA + "language"),
        profile=value(me, GQA + "profile"),
    )
    return Frozen(
        uri=uri,
        id=leaderboard_id,
        title=value(me, DCT + "title"),
        frozen_at=value(me, PROV + "generatedAtTime"),
        standing=standing,
        rows=rows,
        entries=tuple(entries),
    )


def listing(storage: Storage, *, limit: int | None = None, offset: int = 0) -> list[dict[str, str]]:
    """The frozen leaderboards, newest first (``limit`` of them from ``offset``; every one by
    default): uri, id, title, frozenAt."""
    window = (f" LIMIT {int(limit)}" if limit is not None else "") + (
        f" OFFSET {int(offset)}" if offset else ""
    )
    query = f"""
        SELECT ?lb ?id ?title ?at WHERE {{
          ?lb a <{GQA}FrozenLeaderboard> ; <{DCT}identifier> ?id ; <{DCT}title> ?title ;
              <{PROV}generatedAtTime> ?at .
        }} ORDER BY DESC(?at) ?id{window}"""
    return [
        {
            "uri": row["lb"].value,
            "id": row["id"].value,
            "title": row["title"].value,
            "frozenAt": row["at"].value,
        }
        for row in storage.public.query(query)
    ]


def tasks_about(storage: Storage, tasks: list[str]) -> dict[str, dict[str, str]]:
    """Per task IRI: its ``system`` and ``systemLabel``, ``experiment``, ``languageTag`` (the
    languages of a pooled task, ``en,es``), ``profile`` (its name: ``fair``), ``signature``
    (its ``kb:`` field tells rows of different KBs apart), and
    ``withdrawnAt`` when that experiment was
    withdrawn since, read from any public graph (a withdrawn
    experiment's results left the default graph, not its own)."""
    import pyoxigraph as ox

    if not tasks:
        return {}
    values = " ".join(f"<{t}>" for t in dict.fromkeys(tasks))
    query = f"""
        SELECT ?task ?system ?label ?experiment ?tag ?profile ?signature ?withdrawn WHERE {{
          VALUES ?task {{ {values} }}
          GRAPH ?g {{ ?experiment <{GQA}task> ?task . ?task <{GERBIL_ANNOTATOR}> ?system .
                      OPTIONAL {{ ?system <{RDFS_LABEL}> ?label }}
                      OPTIONAL {{ ?task <{GQA}languageTag> ?tag }}
                      OPTIONAL {{ ?task <{GQA}profile> ?profile }}
                      OPTIONAL {{ ?task <{GQA}signature> ?signature }}
                      OPTIONAL {{ ?experiment <{GQA}withdrawnAt> ?withdrawn }} }}
        }}"""
    found: dict[str, dict[str, str]] = {}
    for row in storage.public.query(query):
        facts = found.setdefault(row["task"].value, {})
        for key, var in (
            ("system", "system"),
            ("systemLabel", "label"),
            ("experiment", "experiment"),
            ("languageTag", "tag"),
            ("profile", "profile"),
            ("signature", "signature"),
            ("withdrawnAt", "withdrawn"),
        ):
            term = row[var]
            if isinstance(term, ox.NamedNode | ox.Literal) and key not in facts:
                facts[key] = term.value
        if "profile" in facts:  # …vocab#profile-fair: its name
            from service.graph.reader import local

            facts["profile"] = local(facts["profile"]).removeprefix("profile-")
    return found


def including(storage: Storage, experiment_uri: str, graph: str) -> list[dict[str, str]]:
    """The frozen leaderboards that rank a task of the experiment (its graph ``graph``, read
    even after a withdrawal took its results out of the default graph), newest first."""
    query = f"""
        SELECT DISTINCT ?lb ?title ?at WHERE {{
          GRAPH <{graph}> {{ <{experiment_uri}> <{GQA}task> ?task }}
          ?entry <{GQA}rankedTask> ?task . ?lb <{GQA}entry> ?entry ;
              <{DCT}title> ?title ; <{PROV}generatedAtTime> ?at .
        }} ORDER BY DESC(?at) ?lb"""
    return [
        {"uri": row["lb"].value, "title": row["title"].value, "frozenAt": row["at"].value}
        for row in storage.public.query(query)
    ]
