"""Lists for the pages and the API, read from the public store only (so they cannot leak).

Leaderboards, experiments, systems, the catalogue and the vocabulary terms are SPARQL queries
over the union of the public graphs: a private experiment is not in that store at all. The
leaderboard is the graph layer's published query (``service.graph.queries``), the one the
SPARQL page shows and ``bench/store.py`` measures. Lists that grow with the number of
experiments are read a page at a time (:class:`Page`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import unquote

from service.errors import ServiceError
from service.graph.dcat import language_code
from service.graph.queries import (
    LEADERBOARD_MEASURES,
    leaderboard_counts_query,
    leaderboard_query,
    reference_system,
)
from service.graph.terms import DCT, OWL, PROV, QB, RDF, RDFS
from service.graph.uris import GERBIL, GQA
from service.web.pages import csv_table, local, vocab_anchor
from service.web.state import services

PREFIXES = f"""PREFIX gqa: <{GQA}>
PREFIX gerbil: <{GERBIL}>
PREFIX qb: <{QB}>
PREFIX prov: <{PROV}>
PREFIX dct: <{DCT}>
PREFIX rdfs: <{RDFS}>
PREFIX dcat: <http://www.w3.org/ns/dcat#>
"""


def _rows(results: Any) -> list[dict[str, Any]]:
    names = [v.value for v in results.variables]
    return [{n: row[n] for n in names} for row in results]


def _select(query: str) -> list[dict[str, Any]]:
    # The public store's default graph is the union of the public graphs (graph layer).
    return _rows(services().storage.public.query(PREFIXES + query))


def _v(term: Any) -> str | None:
    return None if term is None else term.value


def _num(term: Any) -> float | None:
    if term is None:
        return None
    try:
        return float(term.value)
    except ValueError:
        return None


def _iri(value: str) -> str:
    if any(c in value for c in '<>"{}|^`\\ \n'):
        raise ValueError(f"not an IRI: {value!r}")
    return f"<{value}>"


@dataclass(frozen=True, slots=True)
class Page:
    """Which slice of a long list to show: ``number`` from 1, ``size`` rows each."""

    number: int = 1
    size: int = 50

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size


MAX_PAGE = 100_000


def page_from(args: Any, *, size: int = 50, max_size: int = 500, name: str = "page") -> Page:
    """``?page=N[&size=M]`` of a request (a bad value is a 400 naming it); ``name`` is the
    page parameter's name, for a page with several paged lists."""
    if name != "page":  # a second list on the page: its own number, its fixed size
        return Page(number_arg(args, name, 1, MAX_PAGE), size)
    return Page(number_arg(args, "page", 1, MAX_PAGE), number_arg(args, "size", size, max_size))


def number_arg(args: Any, name: str, default: int, top: int) -> int:
    """The whole number ``args[name]`` from 1 to ``top`` (``default`` when absent or empty);
    anything else is a 400 naming the parameter and what was expected."""
    from service.errors import BadRequest

    raw = single_arg(args, name)
    if raw is None:
        return default
    # ASCII digits ("²".isdigit(), int("²") fails), not past the bound's length (int()
    # refuses more than 4,300 digits)
    digits = raw.lstrip("0") or "0"
    valid = raw.isascii() and raw.isdigit() and len(digits) <= len(str(top))
    if not valid or not 1 <= int(digits) <= top:
        raise BadRequest(f"{name}={raw[:20]!r}: expected a whole number from 1 to {top}")
    return int(digits)


def single_arg(args: Any, name: str, *, why: str = "expected it once") -> str | None:
    """The one value of the query parameter ``name`` (None: absent or empty). Two values are
    a 400 naming it (``?size=1&size=zzz`` was a page of 1 where ``?size=zzz&size=1`` was a 400:
    the first was used and the other dropped without a word; explore42 9, explore64 F6); the
    same value twice is that value."""
    from service.errors import BadRequest

    values = args.getlist(name) if hasattr(args, "getlist") else [args.get(name)]
    given = list(dict.fromkeys(v for v in values if v))
    if len(given) > 1:
        said = ", ".join(repr(v[:60]) for v in given[:5])
        raise BadRequest(f"{name} is given {len(given)} times ({said}): {why}")
    return given[0] if given else None


def named_filters(args: Any) -> dict[str, str]:
    """A listing's ``system`` and ``dataset`` names (empty: none): the experiments listed are
    those that used them. Two names for one (``?system=a&system=b``) are refused with 400
    naming the parameter: the first was used and the other dropped without a word (explore42
    9), on the page, its CSV and the API alike."""
    named: dict[str, str] = {}
    for kind in ("system", "dataset"):
        why = f"the experiments are listed by one {kind} at a time (ask once for each)"
        if (given := single_arg(args, kind, why=why)) is not None:
            named[kind] = _system_name(given) if kind == "system" else given
    return named


def _system_name(name: str) -> str:
    import unicodedata

    return stored_system_name(name) or unicodedata.normalize("NFC", name)


def stored_system_name(name: str) -> str | None:
    """A system's name as its IRI holds it: names are kept in NFC (``Cafe\u0301 Run`` is
    stored ``Café Run``), so a decomposed spelling found nothing (explore66 F9); a name
    stored before that (in NFD) is found as stored. The name as given when a public graph
    describes it, else its NFC or NFD form that one does; None when none does."""
    from service.experiments.systems import name_forms
    from service.graph.nodes import node

    storage = services().storage
    for form in name_forms(name):
        subject = node(storage.uris.system(form))
        if next(iter(storage.public.quads_for_pattern(subject, None, None)), None) is not None:
            return form
    return None


def page_args(args: Any) -> dict[str, str]:
    """What the links to other pages keep of a request's paging (an explicit ``size``)."""
    return {"size": args["size"]} if args.get("size") else {}


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    task: str
    experiment: str
    system: str
    system_label: str
    dataset: str
    experiment_type: str
    language: str
    profile: str
    signature: str | None
    ended: str | None
    measures: dict[str, float | None]
    revision_of: str | None = None  # the experiment this row's re-scores (its history)
    # what a person reads as the row's language: the languages a pooled (mul) task holds,
    # "en,es" (en,es and en,de are other rows; "mul" is a code few readers know)
    language_tag: str = ""
    # a reference system's run (gold-sparql: the gold queries on the KB, the upper bound;
    # a baseline run here): shown for scale, neither ranked nor tiered with the systems tested
    reference: bool = False

    @property
    def languages(self) -> str:
        return self.language_tag or self.language


def leaderboard(
    *,
    dataset: str | None = None,
    system: str | None = None,
    experiment_type: str | None = "QA",
    profile: str | None = None,
    language: str | None = None,
    measures: tuple[str, ...] = LEADERBOARD_MEASURES,
    limit: int | None = None,
    offset: int = 0,
) -> list[LeaderboardRow]:
    """Task results of public experiments, filtered as asked (``dataset``, ``system``,
    ``profile``, ``language`` are IRIs), best first by the first of ``measures`` (undefined
    last): the published query (``service.graph.queries.leaderboard_query``), one slice of it
    when ``limit``/``offset`` are given."""
    query = leaderboard_query(
        dataset=dataset,
        system=system,
        experiment_type=experiment_type,
        profile=profile,
        language=language,
        measures=measures,
        limit=limit,
    )
    if offset:
        query += f"\nOFFSET {int(offset)}"  # SPARQL 1.1 §19.8: LIMIT and OFFSET in any order
    seen: dict[str, LeaderboardRow] = {}
    storage = services().storage
    public: dict[str, bool] = {}

    def shown(old: str | None) -> str | None:
        """The revised experiment when it is public: a published revision of a private run
        names it in its graph, and the row linked a page that answers 403."""
        if old is None:
            return None
        if old not in public:
            try:
                public[old] = storage.experiments.is_public(old.rsplit("/", 1)[-1])
            except ServiceError:  # not one of this store's experiment URIs
                public[old] = False
        return old if public[old] else None

    for r in _rows(storage.public.query(query)):
        task = _v(r["task"]) or ""
        if task in seen:  # a system labelled twice: keep one row
            continue
        seen[task] = LeaderboardRow(
            task=task,
            experiment=_v(r["experiment"]) or "",
            system=_v(r["system"]) or "",
            system_label=_v(r["label"]) or local(_v(r["system"])),
            dataset=_v(r["dataset"]) or "",
            experiment_type=local(_v(r["etype"])),
            language=local(_v(r["language"])),
            profile=local(_v(r["profile"])).removeprefix("profile-"),
            signature=_v(r["signature"]),
            ended=_v(r["ended"]),
            measures={m: _num(r[f"m_{m}"]) for m in measures},
            revision_of=shown(_v(r["revisionOf"])),
        )
    # the pooled rows' languages, an index lookup each (the query sorts; it reads no tag)
    tags = language_tags(t for t, row in seen.items() if row.language == "mul")
    references = reference_tasks(seen)
    return [
        replace(row, language_tag=tags.get(t, ""), reference=t in references)
        for t, row in seen.items()
    ]


def reference_tasks(tasks: Iterable[str]) -> set[str]:
    """The tasks among ``tasks`` of a reference system (``gqa:ReferenceSystem`` in the task's
    graph; a graph written before that class, 2026-11-29, says it in the system's comment,
    "reference system gold-sparql"). gold-sparql was ranked first and tiered on a public
    leaderboard like a participant, and its pairs joined Holm's family (explore25 2)."""
    wanted = sorted(set(tasks))
    if not wanted:
        return set()
    rows = _select(
        f"""SELECT DISTINCT ?task WHERE {{ VALUES ?task {{ {" ".join(map(_iri, wanted))} }}
  GRAPH ?g {{ ?task gerbil:annotator ?s . {reference_system("?s")} }} }}"""
    )
    return {_v(r["task"]) or "" for r in rows}


def leaderboard_csv(rows: Sequence[LeaderboardRow]) -> bytes:
    header = [
        "task",
        "experiment",
        "system",
        "dataset",
        "experimentType",
        "language",
        "profile",
        "signature",
        "ended",
        *LEADERBOARD_MEASURES,
        "languageTag",  # a pooled row's languages (its language is mul), as the pages say
    ]
    return csv_table(
        header,
        (
            [
                r.task,
                r.experiment,
                r.system,
                r.dataset,
                r.experiment_type,
                r.language,
                r.profile,
                r.signature,
                r.ended,
                *(r.measures[m] for m in LEADERBOARD_MEASURES),
                r.language_tag,
            ]
            for r in rows
        ),
    )


def task_measures(tasks: Iterable[str], names: Sequence[str]) -> dict[str, dict[str, float]]:
    """The measures ``names`` of each task, by one index lookup per task: for the few rows a
    page shows (the leaderboard query itself sorts by one measure only)."""

    from service.graph.terms import measure_name

    public = services().storage.public
    wanted = set(names)
    out: dict[str, dict[str, float]] = {task: {} for task in tasks}
    for subject, predicate, value in _about(public, list(out), None):
        name = measure_name(predicate.value)
        if name in wanted and (number := _num(value)) is not None:
            out[subject][name] = number
    return out


def language_tags(tasks: Iterable[str]) -> dict[str, str]:
    """Each task's ``gqa:languageTag`` (``en,es`` for a task whose language is ``mul``), by
    one index lookup per task, for the few rows a page shows."""
    from service.graph.uris import GQA

    rows = _about(services().storage.public, list(dict.fromkeys(tasks)), GQA + "languageTag")
    return {subject: value.value for subject, _, value in rows}


def _about(public: Any, subjects: list[str], predicate: str | None) -> list[tuple[str, Any, Any]]:
    """(subject, predicate, object) of the public default graph for a page's few rows: an
    index lookup per subject, or, on a remote store (a round trip each), one query."""
    import pyoxigraph as ox

    if not getattr(public, "remote", False):
        pred = ox.NamedNode(predicate) if predicate is not None else None
        return [
            (s, q.predicate, q.object)
            for s in subjects
            for q in public.quads_for_pattern(ox.NamedNode(s), pred, None, ox.DefaultGraph())
        ]
    if not subjects:
        return []
    values = " ".join(_iri(s) for s in subjects)
    p = _iri(predicate) if predicate is not None else "?p"
    rows = public.query(f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {values} }} ?s {p} ?o }}")
    fixed = ox.NamedNode(predicate) if predicate is not None else None
    return [(row["s"].value, fixed or row["p"], row["o"]) for row in rows]


def papers(experiments: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The papers citing each experiment (``dct:isReferencedBy``), by index lookups: for the
    few rows a page shows."""

    public = services().storage.public
    found: dict[str, list[str]] = {exp: [] for exp in experiments}
    for exp, _, paper in _about(public, list(found), DCT + "isReferencedBy"):
        found[exp].append(paper.value)
    return {exp: tuple(sorted(papers)) for exp, papers in found.items()}


@dataclass(frozen=True, slots=True)
class RowCounts:
    """How many leaderboard rows of one experiment type each (dataset, language, profile)
    has, from one grouped query: every filter's counts are sums of these, so each value's
    count is the number of rows the leaderboard shows with that value chosen and the other
    filters as they are."""

    cells: tuple[tuple[tuple[str, str, str], int], ...]  # (dataset, language, profile), rows

    def total(self, chosen: Sequence[str | None]) -> int:
        """Rows with each dimension (dataset, language, profile) as ``chosen``: an IRI each,
        None for any."""
        return sum(
            n
            for values, n in self.cells
            if all(want is None or values[d] == want for d, want in enumerate(chosen))
        )

    def count(self, dimension: int, value: str, chosen: Sequence[str | None]) -> int:
        """Rows with ``value`` in ``dimension`` (0 dataset, 1 language, 2 profile) and the
        other dimensions as ``chosen``."""
        return self.total([value if d == dimension else c for d, c in enumerate(chosen)])

    def values(self, dimension: int) -> list[str]:
        """The values ``dimension`` has in any row, most rows first (then by IRI)."""
        totals: dict[str, int] = {}
        for values, n in self.cells:
            totals[values[dimension]] = totals.get(values[dimension], 0) + n
        return sorted(totals, key=lambda v: (-totals[v], v))


def row_counts(experiment_type: str = "QA") -> RowCounts:
    """The leaderboard rows of ``experiment_type`` counted per dataset, language and profile
    (``leaderboard_counts_query``, grouped in Oxigraph)."""
    query = leaderboard_counts_query(experiment_type=experiment_type)
    found = _rows(services().storage.public.query(query))
    return RowCounts(
        tuple(
            (
                (_v(r["dataset"]) or "", _v(r["language"]) or "", _v(r["profile"]) or ""),
                int(r["n"].value),
            )
            for r in found
        )
    )


@dataclass(frozen=True, slots=True)
class DatasetUse:
    """A dataset with public results, and how many leaderboard rows (of the counted
    experiment type, with the other filters as chosen)."""

    uri: str
    name: str
    tasks: int


def datasets_with_results(
    counts: RowCounts, chosen: Sequence[str | None] = (None, None, None)
) -> list[DatasetUse]:
    """Datasets with leaderboard rows, most rows first; each with its rows under ``chosen``
    (the language and profile filters; the dataset's own is ignored)."""
    return [
        DatasetUse(uri, unquote(local(uri)), counts.count(0, uri, chosen))
        for uri in counts.values(0)
    ]


@dataclass(frozen=True, slots=True)
class ExperimentRow:
    uri: str
    id: str
    ended: str | None
    datasets: tuple[str, ...]
    systems: tuple[str, ...]


def experiments(
    *, limit: int = 50, offset: int = 0, using: Sequence[str] = ()
) -> list[ExperimentRow]:
    """Published experiments, the most recently finished first, one slice of them; ``using``:
    only those that used each of these (system and dataset URIs: ``prov:used``).

    Chosen by one scan of ``prov:endedAtTime`` (dateTimes are stored inline in Oxigraph, so
    sorting them reads no string) and described with a few index lookups each. A join with
    ``a gqa:Experiment`` would cost a RocksDB seek per experiment (~8 µs here), 10 to 20 times
    the scan; the other activities with an end time, the few gold refreshes that made dataset
    versions, are left out by name instead (they took places in the slice: a page came out
    short and ended the listing there, its ``next`` missing). Ties in time go by IRI, so pages
    of one listing never overlap.
    """
    import pyoxigraph as ox

    graph = services().storage
    public, uris = graph.public, graph.uris
    rows = _select(
        f"""SELECT ?exp ?ended WHERE {{ {_listed_experiments(using)} }}
ORDER BY DESC(?ended) DESC(?exp) LIMIT {int(limit)} OFFSET {int(offset)}"""
    )
    default = ox.DefaultGraph()
    used, label = ox.NamedNode(PROV + "used"), ox.NamedNode(RDFS + "label")
    labels: dict[str, str] = {}
    out = []
    for r in rows:
        uri = _v(r["exp"]) or ""
        found = uris.locate(uri)
        if found is None or found.kind != "experiment" or found.fragment:
            continue
        datasets, systems = [], []
        for q in public.quads_for_pattern(r["exp"], used, None, default):
            kind = uris.locate(q.object.value)
            if kind is not None and kind.kind == "dataset":
                datasets.append(q.object.value)
            elif kind is not None and kind.kind == "system":
                name = q.object.value
                if name not in labels:
                    given = next(public.quads_for_pattern(q.object, label, None, default), None)
                    labels[name] = given.object.value if given else local(name)
                systems.append(labels[name])
        ended = _v(r["ended"])
        out.append(
            ExperimentRow(
                uri,
                found.keys["experiment"],
                ended,
                tuple(sorted(datasets)),
                tuple(sorted(systems)),
            )
        )
    return out


def _listed_experiments(using: Sequence[str]) -> str:
    """The graph pattern of what :func:`experiments` lists (``?exp``, ``?ended``)."""
    refreshes = [
        _iri(_v(r["a"]) or "") for r in _select("SELECT ?a WHERE { ?a a gqa:GoldRefresh }")
    ]
    others = f"FILTER(?exp NOT IN ({', '.join(refreshes)}))" if refreshes else ""
    filters = "".join(f"?exp prov:used {_iri(uri)} . " for uri in using)
    return f"{filters}?exp prov:endedAtTime ?ended {others}"


def experiment_count(*, using: Sequence[str] = ()) -> int:
    """How many experiments :func:`experiments` lists (a page past the last says so)."""
    rows = _select(f"SELECT (COUNT(?exp) AS ?n) WHERE {{ {_listed_experiments(using)} }}")
    return int(_num(rows[0]["n"]) or 0) if rows else 0


@dataclass(frozen=True, slots=True)
class SystemRow:
    uri: str
    label: str
    experiments: int


def systems() -> list[SystemRow]:
    """Systems with public results and, for each, the public experiments its page's history
    lists (QA rows, the newest revisions only): the typed systems (a few) joined to the
    experiments' ``prov:used`` links, their rows counted (``leaderboard_counts_query``), then
    a label each."""
    import pyoxigraph as ox

    public = services().storage.public
    used = _select(
        "SELECT ?system WHERE { ?system a gqa:System . FILTER EXISTS { ?exp prov:used ?system } }"
    )
    shown = {
        _v(r["system"]): int(_v(r["n"]) or 0)
        for r in _rows(public.query(leaderboard_counts_query(by=("system", "experiment"))))
    }
    label, default = ox.NamedNode(RDFS + "label"), ox.DefaultGraph()
    out = []
    for r in used:
        given = next(public.quads_for_pattern(r["system"], label, None, default), None)
        uri = _v(r["system"]) or ""
        out.append(SystemRow(uri, given.object.value if given else local(uri), shown.get(uri, 0)))
    return sorted(out, key=lambda s: s.label.lower())


@dataclass(frozen=True, slots=True)
class DatasetRow:
    uri: str
    name: str
    title: str
    questions: int | None
    languages: tuple[str, ...]
    knowledge_base: str | None  # as a reader reads it: a label, else the IRI (version)
    issued: str | None
    knowledge_base_iri: str | None = None  # gqa:knowledgeBase
    # an upload's own version label (dcat:version): two versions of one title were two
    # rows alike ("Birds QA", "Birds QA")
    version: str | None = None
    gold_withheld: bool = False  # a shared task's test set, its gold not revealed yet
    previous_version: str | None = None  # an upload's dcat:previousVersion, by name


def described(iri: str) -> bool:
    """Whether the public graphs say anything of ``iri`` (one index lookup)."""
    return bool(_select(f"SELECT ?p WHERE {{ {_iri(iri)} ?p ?o }} LIMIT 1"))


def _only(datasets: Sequence[str] | None) -> str:
    """A VALUES block keeping ``?ds`` to ``datasets`` (None: no restriction)."""
    return "" if datasets is None else f"VALUES ?ds {{ {' '.join(map(_iri, datasets))} }}"


def datasets(only: Sequence[str] | None = None) -> list[DatasetRow]:
    """The catalogue's datasets (``only``: those of them)."""
    graph = services().storage.uris.catalog_graph
    rows = _select(
        f"""SELECT ?ds ?name ?title ?count ?lang ?kb ?kbv ?issued WHERE {{ {_only(only)}
  GRAPH {_iri(graph)} {{
  ?ds a dcat:Dataset ; dct:identifier ?name .
  OPTIONAL {{ ?ds dct:title ?title }}
  OPTIONAL {{ ?ds gqa:questionCount ?count }}
  OPTIONAL {{ ?ds dct:language ?lang }}
  OPTIONAL {{ ?ds gqa:knowledgeBase ?kb }}
  OPTIONAL {{ ?ds gqa:knowledgeBaseVersion ?kbv }}
  OPTIONAL {{ ?ds dct:issued ?issued }}
}} }}"""
    )
    return _dataset_rows(rows, version_labels=True)


def uploaded_datasets(only: Sequence[str] | None = None) -> list[DatasetRow]:
    """The published uploaded datasets (described in public experiment graphs, each with its
    file's SHA-256; a withdrawn experiment's graph lists none): a submission names them as
    it names the catalogue's. ``only``: those of them (a page of the catalogue). The date of
    first issue is said in the upload's own graph (``service.graph.uploads``): read from the
    public union."""
    uris = services().storage.uris
    rows = _select(
        # the VALUES inside the graph's pattern: outside, Oxigraph read every upload first
        # (a page of 958 of 10,000 uploads: 0.53 s, inside 0.10 s)
        f"""SELECT ?ds ?name ?title ?count ?lang ?kb ?kbv ?issued ?version ?withheld ?previous
WHERE {{
  GRAPH ?g {{
  {_only(only)}
  ?ds a dcat:Dataset ; dct:identifier ?name ; gqa:sha256 ?sha .
  OPTIONAL {{ ?ds dct:title ?title }}
  OPTIONAL {{ ?ds dcat:version ?version }}
  OPTIONAL {{ ?ds dcat:previousVersion ?previous }}
  OPTIONAL {{ ?ds gqa:questionCount ?count }}
  OPTIONAL {{ ?ds dct:language ?lang }}
  OPTIONAL {{ ?ds gqa:knowledgeBase ?kb }}
  OPTIONAL {{ ?ds gqa:knowledgeBaseVersion ?kbv }}
}} FILTER(STRSTARTS(STR(?ds), "{uris.dataset("")}")) {uris.listed_experiment_graph()}
  OPTIONAL {{ ?ds dct:issued ?issued }}
  OPTIONAL {{ ?ds gqa:goldWithheld ?withheld FILTER NOT EXISTS {{ ?ds gqa:goldRevealed ?r }} }}
}}"""
    )
    return _dataset_rows(rows)


def upload_labels(datasets: Iterable[str]) -> dict[str, str]:
    """The uploaded datasets among ``datasets`` (IRIs) by their title, version label and
    name, "Birds QA, version 2 (birds-qa-9bcc958d)": two versions share a title, and the name
    alone says neither (a catalogue dataset, without a file's SHA-256, is left out, and a
    version ``dataset refresh --store`` registered, whose title says its version: explore48 9)."""
    from service.dataset_about import named_version

    wanted = sorted(set(datasets))
    if not wanted:
        return {}
    rows = _select(
        f"""SELECT ?ds ?title ?version WHERE {{ VALUES ?ds {{ {" ".join(map(_iri, wanted))} }}
  ?ds gqa:sha256 ?sha ; dct:title ?title OPTIONAL {{ ?ds dcat:version ?version }}
  FILTER NOT EXISTS {{ ?ds a gqa:DatasetVersion }} }}"""
    )  # a registered version's title names its version: "…, version V, version V (V)" before
    return {
        _v(r["ds"]) or "": named_version(
            _v(r["title"]), _v(r["version"]), unquote(local(_v(r["ds"]) or ""))
        )
        for r in rows
    }


@dataclass(frozen=True, slots=True)
class WithdrawnRun:
    experiment: str
    withdrawn_at: str
    reason: str
    title: str | None  # the dataset's title as that run described it


def withdrawn_runs(dataset: str) -> list[WithdrawnRun]:
    """The withdrawn experiments that described uploaded dataset ``dataset`` (their graphs
    stay whole, with the withdrawal note), first withdrawn first: once its last listed run is
    withdrawn its page says so, where it said the dataset had never been used."""
    rows = _select(
        f"""SELECT ?exp ?when ?why ?title WHERE {{ GRAPH ?g {{ {_iri(dataset)} gqa:sha256 ?sha .
  ?exp gqa:withdrawnAt ?when ; gqa:withdrawalReason ?why .
  OPTIONAL {{ {_iri(dataset)} dct:title ?title }} }} }} ORDER BY ?when ?exp"""
    )
    runs: dict[str, WithdrawnRun] = {}
    for r in rows:
        exp = _v(r["exp"]) or ""
        runs.setdefault(
            exp, WithdrawnRun(exp, _v(r["when"]) or "", _v(r["why"]) or "", _v(r["title"]))
        )
    return list(runs.values())


def withdrawn_describing(uri: str) -> list[WithdrawnRun]:
    """The withdrawn experiments whose graphs describe ``uri`` (a system, the evaluator's
    release, any resource it has a triple of), first withdrawn first: what their graphs say of
    it stays public (``GRAPH ?g``), while the default graph no longer names it once no listed
    experiment does (explore45 1)."""
    rows = _select(
        f"""SELECT DISTINCT ?exp ?when ?why WHERE {{ GRAPH ?g {{
  ?exp gqa:withdrawnAt ?when ; gqa:withdrawalReason ?why .
  FILTER EXISTS {{ {_iri(uri)} ?p ?o }} }} }} ORDER BY ?when ?exp"""
    )
    runs: dict[str, WithdrawnRun] = {}
    for r in rows:
        exp = _v(r["exp"]) or ""
        runs.setdefault(exp, WithdrawnRun(exp, _v(r["when"]) or "", _v(r["why"]) or "", None))
    return list(runs.values())


def _dataset_rows(rows: list[dict[str, Any]], *, version_labels: bool = False) -> list[DatasetRow]:
    """One row per dataset of the query's (one per language), by name. ``version_labels``:
    the catalogue's KB versions name their KB ("DBpedia 2016-10"); an author's may be a bare
    date ("2026-11"), which read as if it were the KB: shown after the KB's IRI."""
    grouped: dict[str, dict[str, Any]] = {}
    for r in rows:
        uri = _v(r["ds"]) or ""
        entry = grouped.setdefault(uri, {"row": dict(r), "langs": {}})
        for key, value in r.items():  # an upload is described in several graphs: merged
            if entry["row"].get(key) is None:
                entry["row"][key] = value
        if r["lang"] is not None:
            entry["langs"][language_code(_v(r["lang"]) or "")] = None  # "en", as before
    out = []
    for uri, e in grouped.items():
        r = e["row"]
        count = _num(r["count"])
        out.append(
            DatasetRow(
                uri=uri,
                name=_v(r["name"]) or local(uri),
                title=_v(r["title"]) or local(uri),
                questions=int(count) if count is not None else None,
                languages=tuple(sorted(e["langs"])),
                knowledge_base=(
                    _v(r["kbv"]) if version_labels else _kb_said(_v(r["kb"]), _v(r["kbv"]))
                ),
                issued=_v(r["issued"]),
                knowledge_base_iri=_v(r["kb"]),
                version=_v(r.get("version")),
                gold_withheld=_v(r.get("withheld")) == "true",
                previous_version=unquote(local(_v(r.get("previous")) or "")) or None,
            )
        )
    return sorted(out, key=lambda d: d.name)


def _kb_said(iri: str | None, version: str | None) -> str | None:
    """An uploaded dataset's KB as its row says it: ``http://example.org/birds (2026-11)``.

    >>> _kb_said("http://example.org/birds", "2026-11"), _kb_said(None, "2026-11")
    ('http://example.org/birds (2026-11)', 'version 2026-11')
    """
    if iri is None:
        return None if version is None else f"version {version}"
    return iri if version is None else f"{iri} ({version})"


def datasets_csv(rows: Sequence[DatasetRow]) -> bytes:
    newest = services().storage.catalogue.newest_upload_versions()
    return csv_table(
        # new columns only at the end (the CSV's columns are a contract)
        ["dataset", "name", "title", "questions", "languages", "knowledgeBase", "issued",
         "knowledgeBaseIri", "version", "goldWithheld", "previousVersion", "newestVersion"],
        (
            [r.uri, r.name, r.title, r.questions, " ".join(r.languages), r.knowledge_base, r.issued,
             r.knowledge_base_iri, r.version, "true" if r.gold_withheld else "false",
             r.previous_version, newest.get(r.name)]
            for r in rows
        ),
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class QuestionListRow:
    uri: str
    id: str
    label: str | None
    answer_type: str | None
    label_language: str | None = None  # the label's language tag, for the page's lang=


def dataset_questions(dataset: str) -> list[QuestionListRow]:
    rows = _select(
        f"""SELECT ?q ?id ?label ?type WHERE {{
  ?q a gqa:Question ; dct:isPartOf {_iri(dataset)} ; dct:identifier ?id .
  OPTIONAL {{ ?q rdfs:label ?label }}
  OPTIONAL {{ ?q gqa:answerType ?type }}
}}"""
    )
    seen: dict[str, QuestionListRow] = {}
    for r in rows:
        uri = _v(r["q"]) or ""
        label = r["label"]
        seen.setdefault(
            uri,
            QuestionListRow(
                uri,
                _v(r["id"]) or "",
                _v(label),
                local(_v(r["type"])).removeprefix("answerType-") or None,
                getattr(label, "language", None),
            ),
        )
    return sorted(seen.values(), key=lambda q: (0, int(q.id)) if q.id.isdigit() else (1, q.id))


@dataclass(frozen=True, slots=True)
class Term:
    anchor: str
    uri: str
    kind: str
    label: str | None
    comment: str | None


def vocabulary_terms(quads: Iterable[Any]) -> list[Term]:
    from service.graph.reader import index

    kinds = {
        OWL + "Class": "class",
        RDFS + "Class": "class",
        RDF + "Property": "property",
        OWL + "ObjectProperty": "property",
        OWL + "DatatypeProperty": "property",
        QB + "MeasureProperty": "measure",
        QB + "DimensionProperty": "dimension",
        QB + "AttributeProperty": "attribute",
    }
    out = []
    for uri, node in index(quads).items():
        if not (uri.startswith(GQA) or uri.startswith(GERBIL)):
            continue
        types = [t.value for t in node.all(RDF + "type")]
        kind = next((kinds[t] for t in types if t in kinds), "individual" if types else "term")
        anchor = vocab_anchor(uri) or uri
        out.append(Term(anchor, uri, kind, node.text(RDFS + "label"), node.text(RDFS + "comment")))
    order = {"class": 0, "property": 1, "measure": 2, "dimension": 3, "attribute": 4}
    return sorted(out, key=lambda t: (order.get(t.kind, 5), t.anchor.lower()))


def finding_counts() -> dict[str, int]:
    """How many check findings each checked dataset has, by URI (one count per dataset: a
    dataset with none has only its ``gqa:checkedAt``; one not checked yet, neither)."""
    rows = _select(
        "SELECT ?ds (COUNT(?f) AS ?n) WHERE { ?ds gqa:checkedAt ?t "
        "OPTIONAL { ?ds gqa:finding ?f } } GROUP BY ?ds"
    )
    return {_v(r["ds"]) or "": int(_num(r["n"]) or 0) for r in rows}
