"""Experiment graphs an older version wrote, in terms this one no longer writes.

Until 2026-11-24 a task named its experiment type in our namespace (``gqa:QA`` …), its system
was typed ``gqa:System`` only, and it carried no ``gerbil:statusCode``/``gerbil:timestamp``.
Such graphs still render, but the leaderboards and GERBIL-era queries (``gerbil:QA``) leave
them out and ``check`` fails them: found here so that ``serve`` and ``check`` say so and what
to do, instead of the experiments vanishing from the leaderboards without a word. Nothing
migrates them in place yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.evaluation.results import ExperimentType
from service.graph.uris import GERBIL, GQA

WRITTEN_BEFORE = "2026-11-24"
EXPERIMENT_TYPE = GERBIL + "experimentType"

ADVICE = (
    f"written by a version before {WRITTEN_BEFORE}: its tasks name experiment types gqa:QA … "
    "(gerbil:QA … since), its systems are not typed prov:SoftwareAgent, prov:Agent and "
    "prov:Entity, and its tasks carry no gerbil:statusCode or gerbil:timestamp; so the "
    "leaderboards and GERBIL-era queries leave it out and the shapes and IC-19A fail on it. "
    "No command migrates it in place yet: `gerbil-qa export`, the six experiment-type IRIs "
    "replaced by GERBIL's, then `gerbil-qa import` into a new store puts it back on the "
    "leaderboards; the system types and GERBIL's fields need re-running the experiment"
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
