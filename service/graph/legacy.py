"""Experiment graphs an older version wrote, in terms this one no longer writes, and their
upgrade in place.

Until 2026-11-24 a task named its experiment type in our namespace (``gqa:QA`` …), its system
was typed ``gqa:System`` only, and it carried no ``gerbil:statusCode``/``gerbil:timestamp`` nor
a sub-experiment's ``gerbil:subExperimentOf``. Such graphs still render, but the leaderboards
and GERBIL-era queries (``gerbil:QA``) leave them out and ``check`` fails them.
:func:`upgrade` rewrites each in the terms written now — one update request a graph, so a
graph is upgraded whole or not at all, and running it again changes nothing —; ``serve`` runs
it at start, ``gerbil-qa upgrade`` on demand. Results, ids, owners and publication dates are
untouched: only how the graph names what it already says.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from service.evaluation.results import ExperimentType
from service.graph.adapter import WITHDRAWAL, Side
from service.graph.terms import PROV, QB, XSD
from service.graph.uris import GERBIL, GQA

if TYPE_CHECKING:
    from service.graph.store import Storage

WRITTEN_BEFORE = "2026-11-24"
EXPERIMENT_TYPE = GERBIL + "experimentType"

ADVICE = (
    f"written by a version before {WRITTEN_BEFORE}: its tasks name experiment types gqa:QA … "
    "(gerbil:QA … since), its systems are not typed prov:SoftwareAgent, prov:Agent and "
    "prov:Entity, and its tasks carry no gerbil:statusCode or gerbil:timestamp; so the "
    "leaderboards and GERBIL-era queries leave it out and the shapes and IC-19A fail on it. "
    "`gerbil-qa upgrade --store …` (or starting `gerbil-qa serve` on the store) rewrites it in "
    "today's terms, its results untouched"
)


def old_types() -> frozenset[str]:
    """The experiment-type IRIs older versions wrote (from the registry of types)."""
    return frozenset(GQA + t.value for t in ExperimentType)


def is_legacy_graph(quads: Iterable[Any]) -> bool:
    """Whether an experiment graph's quads (pyoxigraph) name an old experiment type."""
    old = old_types()
    return any(q.predicate.value == EXPERIMENT_TYPE and q.object.value in old for q in quads)


def legacy_experiment_graphs(reader: Any) -> list[str]:
    """The graphs of ``reader`` (a store's SPARQL reader) that name an old experiment type."""
    values = " ".join(f"<{iri}>" for iri in sorted(old_types()))
    rows = reader.query(
        f"SELECT DISTINCT ?g WHERE {{ VALUES ?type {{ {values} }} "
        f"GRAPH ?g {{ ?task <{EXPERIMENT_TYPE}> ?type }} }}"
    )
    return sorted(row["g"].value for row in rows)


def upgrade(storage: Storage) -> list[str]:
    """Rewrite every experiment graph an older version wrote, in either dataset (a published
    one is in the public dataset, whose default graph — the union the endpoint reads — gets
    the same triples, unless it was withdrawn); the graphs upgraded, each once."""
    done: list[str] = []
    for side, reader in ((Side.PRIVATE, storage.private), (Side.PUBLIC, storage.public)):
        for graph in legacy_experiment_graphs(reader):
            copied = side is Side.PUBLIC and not _withdrawn(reader, graph)
            storage.store.update(side, _upgrade_request(graph, public=copied))
            done.append(graph)
    return sorted(set(done))


def remove_withheld_intervals(storage: Storage) -> list[str]:
    """Remove the intervals of runs on a test set whose gold is withheld, which 2026-11-28's
    version recorded (with their published seed they tell a small set's outcomes: explore21
    9, 20); the graphs changed, one update each. Said apart from :func:`upgrade`'s (explore23
    6: it counted them as written before 2026-11-24)."""
    done: list[str] = []
    for side, reader in ((Side.PRIVATE, storage.private), (Side.PUBLIC, storage.public)):
        for graph in _withheld_with_intervals(reader):
            storage.store.update(side, _without_intervals(graph, public=side is Side.PUBLIC))
            done.append(graph)
    return sorted(set(done))


DCAT = "http://www.w3.org/ns/dcat#"
AVAILABILITY = "http://data.europa.eu/r5r/availability"


def withhold_downloads(storage: Storage) -> list[str]:
    """Take the download URLs (403 until the reveal) out of the graphs of runs on a test set
    whose gold is withheld still, as an earlier version wrote them (explore29 12): its files
    but a texts-only in.tsv lose ``dcat:downloadURL``, its distribution its availability and
    has the dataset's page as access URL (``results._distribution_triples``). One update a
    graph; the graphs changed."""
    done: list[str] = []
    for side, reader in ((Side.PRIVATE, storage.private), (Side.PUBLIC, storage.public)):
        rows = reader.query(
            f"SELECT DISTINCT ?g ?d WHERE {{ GRAPH ?g {{ "
            f"?task <{GQA}questionResultsWithheld> true ; <{GERBIL}dataset> ?d . "
            f"?f <{GQA}sha256> ?sha ; <{DCAT}downloadURL> ?url }} }}"
        )
        for row in rows:
            graph, dataset = row["g"].value, row["d"].value
            if storage.catalogue.revealed_at(dataset.rsplit("/", 1)[-1]) is not None:
                continue
            storage.store.update(side, _without_downloads(graph, dataset, side is Side.PUBLIC))
            done.append(graph)
    return sorted(set(done))


def _without_downloads(graph: str, dataset: str, public: bool) -> str:
    g = f"<{graph}>"
    served = f'FILTER NOT EXISTS {{ ?f <{GQA}fileRole> ?role FILTER(STR(?role) = "questions") }}'
    files = f"?f <{GQA}sha256> ?sha . {served}"

    def both(pattern: str) -> str:  # in the graph, and the default graph's copy (public)
        return f"GRAPH {g} {{ {pattern} }}" + (f" {pattern}" if public else "")

    return (
        f"DELETE {{ {both('?f <' + DCAT + 'downloadURL> ?url .')} }} "
        f"WHERE {{ GRAPH {g} {{ ?f <{DCAT}downloadURL> ?url . {files} }} }} ;\n"
        f"DELETE {{ {both('?f <' + DCAT + 'accessURL> ?url . ?f <' + AVAILABILITY + '> ?a .')} }} "
        f"INSERT {{ {both('?f <' + DCAT + 'accessURL> <' + dataset + '> .')} }} "
        f"WHERE {{ GRAPH {g} {{ <{dataset}> <{DCAT}distribution> ?f . {files} "
        f"?f <{DCAT}accessURL> ?url . OPTIONAL {{ ?f <{AVAILABILITY}> ?a }} }} }}"
    )


def _withheld_with_intervals(reader: Any) -> list[str]:
    """Graphs of tasks scored with their gold withheld that hold bootstrap intervals: written
    so on 2026-11-28, and with their published seed they tell a small test set's outcomes
    (explore21 9, 20)."""
    rows = reader.query(
        f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?task <{GQA}questionResultsWithheld> true ; "
        f"<{GQA}interval> ?ci }} }}"
    )
    return sorted(row["g"].value for row in rows)


def _without_intervals(graph: str, *, public: bool) -> str:
    """The update removing those tasks' intervals from ``graph`` (and, ``public``, from the
    default graph, which holds a copy of them)."""
    where = (
        f"GRAPH <{graph}> {{ ?task <{GQA}questionResultsWithheld> true . "
        f"{{ ?task <{GQA}interval> ?ci . ?ci ?p ?o BIND(?ci AS ?s) }} UNION "
        f"{{ ?task ?p ?o VALUES ?p {{ <{GQA}interval> <{GQA}intervalSignature> }} "
        f"BIND(?task AS ?s) }} }}"
    )
    copy = " ?s ?p ?o ." if public else ""
    return f"DELETE {{ GRAPH <{graph}> {{ ?s ?p ?o }}{copy} }} WHERE {{ {where} }}"


def _withdrawn(reader: Any, graph: str) -> bool:
    """Whether ``graph`` holds a withdrawal note: its share of the default graph is that note
    alone (``ExperimentRepository.withdraw``), which an upgrade must not undo."""
    return bool(reader.query(f"ASK {{ GRAPH <{graph}> {{ ?e <{WITHDRAWAL[0]}> ?at }} }}"))


def _upgrade_request(graph: str, *, public: bool) -> str:
    """One SPARQL update (one transaction) upgrading ``graph``; ``public``: the public
    dataset, whose default graph holds a copy of every public graph's triples."""
    types = " ".join(f"(<{GQA}{t.value}> <{GERBIL}{t.value}>)" for t in ExperimentType)
    g = f"<{graph}>"
    qa = f"<{GERBIL}{ExperimentType.QA.value}>"
    same = " ; ".join(
        f"<{p}> ?{v}"
        for p, v in (
            (GERBIL + "annotator", "system"),
            (GERBIL + "dataset", "dataset"),
            (GQA + "language", "language"),
            (GQA + "profile", "profile"),
            (QB + "dataSet", "experiment"),
        )
    )
    operations = [
        # the experiment types by GERBIL's IRIs (the leaderboards and GERBIL-era queries)
        f"DELETE {{ GRAPH {g} {{ ?task <{EXPERIMENT_TYPE}> ?old }} }} "
        f"INSERT {{ GRAPH {g} {{ ?task <{EXPERIMENT_TYPE}> ?new }} }} "
        f"WHERE {{ VALUES (?old ?new) {{ {types} }} "
        f"GRAPH {g} {{ ?task <{EXPERIMENT_TYPE}> ?old }} }}",
        # a system is an agent and an entity, typed out for clients that do no inference
        f"INSERT {{ GRAPH {g} {{ ?system a <{PROV}SoftwareAgent>, <{PROV}Agent>, "
        f"<{PROV}Entity> }} }} "
        f"WHERE {{ GRAPH {g} {{ ?system a <{GQA}System> }} }}",
        # GERBIL's task status (0: finished; only finished tasks were recorded) and time
        f'INSERT {{ GRAPH {g} {{ ?task <{GERBIL}statusCode> "0"^^<{XSD}int> ; '
        f"<{GERBIL}timestamp> ?ended }} }} WHERE {{ GRAPH {g} {{ ?task a <{GQA}Task> ; "
        f"<{QB}dataSet> ?experiment . ?experiment <{PROV}endedAtTime> ?ended "
        f"FILTER NOT EXISTS {{ ?task <{GERBIL}statusCode> ?code }} }} }}",
        # a sub-experiment's task points at the QA task of the same evaluation
        f"INSERT {{ GRAPH {g} {{ ?sub <{GERBIL}subExperimentOf> ?qa }} }} WHERE {{ GRAPH {g} {{ "
        f"?sub a <{GQA}Task> ; <{EXPERIMENT_TYPE}> ?type ; {same} . "
        f"?qa a <{GQA}Task> ; <{EXPERIMENT_TYPE}> {qa} ; {same} . "
        f"FILTER (?type != {qa}) FILTER NOT EXISTS {{ ?sub <{GERBIL}subExperimentOf> ?any }} }} }}",
    ]
    if public:  # the default graph: the old types out, the graph's triples in (a set: once)
        operations += [
            f"DELETE {{ ?task <{EXPERIMENT_TYPE}> ?old }} WHERE {{ VALUES ?old "
            f"{{ {' '.join(f'<{iri}>' for iri in sorted(old_types()))} }} "
            f"GRAPH {g} {{ ?task a <{GQA}Task> }} ?task <{EXPERIMENT_TYPE}> ?old }}",
            f"INSERT {{ ?s ?p ?o }} WHERE {{ GRAPH {g} {{ ?s ?p ?o }} }}",
        ]
    return " ;\n".join(operations)
