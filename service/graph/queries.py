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

# When a task is history: a published revision of its experiment (the public default graph
# holds no withdrawn one) has a task on the same line (system, dataset, experiment type,
# language, profile). Per line, not per experiment: a resubmission of one of an experiment's
# systems leaves the others ranked (before, it took them all out), and a revision under another
# profile is another view. The replaced tasks are one subquery, evaluated once from the
# revision links and anti-joined on ``?task`` (MINUS): as a FILTER NOT EXISTS per row, Oxigraph
# took 0.4-1 s for the first 100 rows of 1,000 experiments of which 100 had a revision (75 s
# with the per-experiment rule), against 0.12 s without revisions. No ``a gqa:Task`` on the
# revision's task: Oxigraph would start from it, every task of the store (the subjects of
# ``qb:dataSet`` an experiment are its tasks: a question's result has its task's data set).
# ``{values}``: the query's own VALUES, so a filtered leaderboard looks at its revisions only.
_REPLACED = """MINUS {{ SELECT ?task WHERE {{{values}
    ?revision prov:wasRevisionOf ?old .
    ?newer qb:dataSet ?revision ; gqa:profile ?profile ; gerbil:annotator ?system ;
           gerbil:dataset ?dataset ; gerbil:experimentType ?etype ; gqa:language ?language .
    ?task qb:dataSet ?old ; gqa:profile ?profile ; gerbil:annotator ?system ;
          gerbil:dataset ?dataset ; gerbil:experimentType ?etype ; gqa:language ?language }} }}"""


def replaced(values: list[str] | tuple[str, ...] = ()) -> str:
    """The MINUS that leaves out the tasks a published revision replaced (:data:`_REPLACED`),
    its subquery narrowed by ``values`` (the VALUES clauses of the query it is in)."""
    return _REPLACED.format(values="".join(f"\n    {v}" for v in values))


_UNSAFE_IRI = frozenset('<>"{}|^`\\ \n\r\t')


# What a reference system's graph said before ``gqa:ReferenceSystem`` (2026-11-29): its
# comment, "reference system gold-sparql" (``experiments.asked.Reference.info`` writes it)
REFERENCE_NOTE = "reference system "


def reference_system(system: str) -> str:
    """A graph pattern matching when ``system`` (a variable) is a reference system's: typed
    so, or (graphs written before the class) said so in its comment. One rule for the
    leaderboards, the compare page and the reproduce script."""
    return (
        f"{{ {system} a <{GQA}ReferenceSystem> }} UNION "
        f'{{ {system} <{RDFS}comment> ?referenceNote FILTER(STRSTARTS(STR(?referenceNote), "'
        f'{REFERENCE_NOTE}")) }}'
    )


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
    """Task results of public experiments, best macro F1 first (undefined last); a task a
    published revision replaced (:func:`replaced`: the revision has a task on its line) is left
    out, the experiment's other tasks stay (a resubmission of one of its systems, a re-scoring
    under another profile: another view).

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
  OPTIONAL { ?experiment prov:wasRevisionOf ?revisionOf }"""
        + f"\n  {replaced(values)}"
        + optional
        # ties by task IRI only: every IRI compared costs a string lookup in Oxigraph
        + f"\n}}\nORDER BY {order}?task"
        + (f"\nLIMIT {int(limit)}" if limit is not None else "")
    )


# What a count may group rows by, and the predicate each is read from.
_COUNTED = {
    "dataset": "gerbil:dataset",
    "language": "gqa:language",
    "profile": "gqa:profile",
    "system": "gerbil:annotator",
}


def leaderboard_counts_query(
    *, by: tuple[str, ...] = ("dataset", "language", "profile"), experiment_type: str = "QA"
) -> str:
    """How many rows :func:`leaderboard_query` gives for ``experiment_type``, per combination
    of the ``by`` variables (``?n``); with ``"experiment"`` among them, the rows' experiments.

    The same rows, read another way: each dimension by one scan of its predicate, joined on
    the task in memory (subqueries; the leaderboard's pattern costs an index lookup per task
    and triple, ten times the time: 90 ms against 10 ms at 5,000 experiments). A ``gqa:Task``
    has exactly one experiment, system, dataset, type, language and profile (``gqash:Task``),
    so the leaderboard's other triples hold for each; the experiment is looked up per task
    only when asked (``qb:dataSet`` is also on every per-question result: a scan would read
    them all); the tasks a published revision replaced (:func:`replaced`, few) are left out.

    >>> "GROUP BY ?dataset ?language ?profile" in leaderboard_counts_query()
    True
    """
    if not experiment_type.isidentifier():
        raise ValueError(f"not an experiment type: {experiment_type!r}")
    unknown = [v for v in by if v not in _COUNTED and v != "experiment"]
    if unknown or not by:
        raise ValueError(f"not a leaderboard dimension: {unknown or by!r}")
    scans = "".join(
        f"\n  {{ SELECT ?task ?{v} WHERE {{ ?task {_COUNTED[v]} ?{v} }} }}"
        for v in by
        if v in _COUNTED
    )
    experiment = "\n  ?task qb:dataSet ?experiment ." if "experiment" in by else ""
    groups = " ".join(f"?{v}" for v in by if v != "experiment")
    counted = "?experiment" if "experiment" in by else "?task"
    return (
        PREFIXES
        + f"SELECT {groups} (COUNT(DISTINCT {counted}) AS ?n) WHERE {{"
        + f"\n  {{ SELECT ?task WHERE {{ ?task gerbil:experimentType gerbil:{experiment_type} }} }}"
        + "\n  { SELECT ?task WHERE { ?task a gqa:Task } }"
        + scans
        + experiment
        + f"\n  {replaced()}"
        + f"\n}}\nGROUP BY {groups}"
    )


def standing_query(experiments: tuple[str, ...], systems: tuple[str, ...], profile: str) -> str:
    """Which of ``experiments`` rank a task of one of ``systems`` under ``profile`` (rows of
    :func:`leaderboard_query`, any dataset, type and language): ``?experiment ?system``. The
    lineage check of a new revision (``rescore.newest_of_its_line``) asks it of the other
    experiments of the revised one's line: a row it would not replace would stay beside its own."""
    if not experiments or not systems:
        raise ValueError("no experiments or no systems to look for")
    values = [
        f"VALUES ?system {{ {' '.join(map(_iri, systems))} }}",
        f"VALUES ?profile {{ {_iri(profile)} }}",
    ]
    return (
        PREFIXES
        + "SELECT DISTINCT ?experiment ?system WHERE {"
        + f"\n  VALUES ?experiment {{ {' '.join(map(_iri, experiments))} }}"
        + "".join(f"\n  {v}" for v in values)
        + """
  ?task qb:dataSet ?experiment ; a gqa:Task ; gerbil:annotator ?system ; gqa:profile ?profile ;
        gerbil:dataset ?dataset ; gerbil:experimentType ?etype ; gqa:language ?language ."""
        + f"\n  {replaced(values)}"
        + "\n}"
    )
