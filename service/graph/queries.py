"""The published queries over the public view, in one place.

The leaderboard query below is the one the web pages (dataset, system and home leaderboards),
the SPARQL page's example and ``bench/store.py`` run, so what is benchmarked is what is served.
It reads task observations only (never per-question results): a task carries its dimensions
(``gerbil:annotator`` = system, ``gerbil:dataset``, ``gerbil:experimentType``, ``gqa:language``,
``gqa:profile``) and its measures, so one row costs a handful of index lookups whatever the
number of questions.

Run it on the public dataset, ``storage.public.query(…)`` (the public store's default
graph is the union of the public graphs, materialised; see ``store.py``).

>>> "gerbil:dataset ?dataset" in leaderboard_query(dataset="http://localhost:8080/dataset/d")
True
"""

from __future__ import annotations

from service.evaluation.measures import require
from service.graph.terms import DCT, PROV, QB, RDFS, measure_iri
from service.graph.uris import GERBIL, GQA

PREFIXES = f"""PREFIX gqa: <{GQA}>
PREFIX gerbil: <{GERBIL}>
PREFIX qb: <{QB}>
PREFIX prov: <{PROV}>
PREFIX dct: <{DCT}>
PREFIX rdfs: <{RDFS}>
"""

# The measures a leaderboard row carries (canonical names, see service.evaluation.measures).
LEADERBOARD_MEASURES = require("macroF1", "macroPrecision", "macroRecall", "microF1", "macroF1QALD")

# The variables of a leaderboard row, in order; a measure ``m`` is the variable ``m_<m>``.
LEADERBOARD_VARIABLES = (
    "task",
    "experiment",
    "system",
    "label",
    "dataset",
    "etype",
    "language",
    "profile",
    "signature",
    "ended",
    "revisionOf",  # the experiment this one re-scores, if it is a revision (its history)
)

_UNSAFE_IRI = frozenset('<>"{}|^`\\ \n\r\t')


def _iri(value: str) -> str:
    if not value or any(c in _UNSAFE_IRI for c in value):
        raise ValueError(f"not an IRI: {value!r}")
    return f"<{value}>"


def leaderboard_query(
    *,
    dataset: str | None = None,
    system: str | None = None,
    experiment_type: str | None = "QA",
    profile: str | None = None,
    language: str | None = None,
    measures: tuple[str, ...] = LEADERBOARD_MEASURES,
    limit: int | None = None,
    title: str | None = None,
) -> str:
    """Task results of public experiments, best macro F1 first (undefined last); an
    experiment re-scored into a published revision is left out (its revision stands for it).

    Each argument filters on one dimension: ``dataset``, ``system``, ``profile`` and
    ``language`` are IRIs, ``experiment_type`` the local name of a ``gerbil:`` experiment type
    (None: every type). One row per task (a system with two labels gives two rows); variables
    :data:`LEADERBOARD_VARIABLES` plus ``m_<measure>`` for each of ``measures`` (unbound when
    the task does not have it). ``title`` becomes a comment line (the SPARQL page's example).
    """
    values = []
    if dataset is not None:
        values.append(f"VALUES ?dataset {{ {_iri(dataset)} }}")
    if system is not None:
        values.append(f"VALUES ?system {{ {_iri(system)} }}")
    if experiment_type is not None:
        if not experiment_type.isidentifier():
            raise ValueError(f"not an experiment type: {experiment_type!r}")
        values.append(f"VALUES ?etype {{ gerbil:{experiment_type} }}")
    if profile is not None:
        values.append(f"VALUES ?profile {{ {_iri(profile)} }}")
    if language is not None:
        values.append(f"VALUES ?language {{ {_iri(language)} }}")
    optional = "".join(f"\n  OPTIONAL {{ ?task {_iri(measure_iri(m))} ?m_{m} }}" for m in measures)
    projection = " ".join(f"?{v}" for v in LEADERBOARD_VARIABLES)
    projection += "".join(f" ?m_{m}" for m in measures)
    first = measures[0] if measures else None
    order = f"DESC(COALESCE(?m_{first}, -1)) " if first else ""
    comment = f"# {title}\n" if title else ""
    return (
        PREFIXES
        + comment
        + f"SELECT {projection} WHERE {{"
        + "".join(f"\n  {v}" for v in values)
        + """
  ?task a gqa:Task ; qb:dataSet ?experiment ; gerbil:annotator ?system ;
        gerbil:dataset ?dataset ; gerbil:experimentType ?etype ; gqa:language ?language ;
        gqa:profile ?profile .
  OPTIONAL { ?task gqa:signature ?signature }
  OPTIONAL { ?system rdfs:label ?label }
  OPTIONAL { ?experiment prov:endedAtTime ?ended }
  OPTIONAL { ?experiment prov:wasRevisionOf ?revisionOf }
  # the newest revision only: an experiment re-scored into a published one is history
  FILTER NOT EXISTS { ?revision prov:wasRevisionOf ?experiment }"""
        + optional
        # ties by task IRI only: every IRI compared costs a string lookup in Oxigraph
        + f"\n}}\nORDER BY {order}?task"
        + (f"\nLIMIT {int(limit)}" if limit is not None else "")
    )
