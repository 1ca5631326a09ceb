"""Reading stored results back: one reader for the pages, the CSV tables and the JSON API.

:func:`experiment_tasks` turns an experiment's quads into its task results (the rows of the
experiment page, its CSV table and the API's ``results``); :func:`evaluations` into the objects
``gerbil-qa evaluate --output json`` prints, one per system, with their per-question entries
and warnings (the ``experiment`` block aside): the graph stores what that contract needs
(``gqa:datasetLabel``, ``gqa:languageTag``, the question order as ``gqa:position``, the
warnings as ``gqa:Warning`` nodes), so the API's results are the command line's, key for key.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from service.evaluation.languages import SEPARATOR as POOLED_SEPARATOR
from service.evaluation.measures import MEASURES
from service.evaluation.measures import QUESTION_MEASURES as _QUESTION_MEASURES
from service.evaluation.results import interval_resamples, undefined_resamples_note
from service.graph.terms import GERBIL, GQA, RDFS, measure_name
from service.graph.uris import Uris

if TYPE_CHECKING:
    from service.evaluation.results import Evaluation, QuestionScore

QUESTION_MEASURES = tuple(_QUESTION_MEASURES)
_QUESTION_PROPERTIES = {name: q.iri for name, q in _QUESTION_MEASURES.items()}
_INTEGER_TYPES = frozenset(
    "http://www.w3.org/2001/XMLSchema#" + t
    for t in ("integer", "nonNegativeInteger", "positiveInteger", "int", "long")
)


@dataclass(slots=True)
class Node:
    """The properties of one subject, read from quads: predicate IRI -> objects (terms)."""

    uri: str
    props: dict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))

    def all(self, predicate: str) -> list[Any]:
        return self.props.get(predicate, [])

    def one(self, predicate: str) -> Any | None:
        values = self.props.get(predicate)
        return values[0] if values else None

    def text(self, predicate: str) -> str | None:
        value = self.one(predicate)
        return None if value is None else value.value


def index(quads: Iterable[Any]) -> dict[str, Node]:
    """Subjects (IRI or ``_:id``) -> :class:`Node`."""
    import pyoxigraph as ox

    nodes: dict[str, Node] = {}
    for q in quads:
        key = q.subject.value if isinstance(q.subject, ox.NamedNode) else f"_:{q.subject.value}"
        node = nodes.get(key)
        if node is None:
            node = nodes[key] = Node(key)
        node.props[q.predicate.value].append(q.object)
    return nodes


def number(term: Any) -> float | int | None:
    """A numeric literal as int (integer datatypes) or float (anything else numeric)."""
    text = getattr(term, "value", None)
    if text is None:
        return None
    datatype = getattr(getattr(term, "datatype", None), "value", None)
    try:
        return int(text) if datatype in _INTEGER_TYPES else float(text)
    except ValueError:
        return None


def local(uri: str | None) -> str:
    """The last path segment or fragment of a URI, for display."""
    if not uri:
        return ""
    for sep in ("#", "/"):
        if sep in uri.rstrip(sep):
            uri = uri.rstrip(sep).rsplit(sep, 1)[1]
    return uri


@dataclass(frozen=True, slots=True)
class TaskResult:
    """One task observation: system x dataset x experiment type x language x profile, with
    every measure in the registry's order (``None``: undefined, also listed in ``undefined``)."""

    uri: str
    number: int
    system: str  # the system's URI
    system_name: str
    system_label: str
    dataset: str
    experiment_type: str
    language: str
    language_tag: str
    profile: str
    profile_version: str | None
    signature: str | None
    knowledge_base: str | None
    measures: dict[str, float | int | None]
    undefined: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    # the stored bootstrap interval of each measure ([low, high], None ends when undefined)
    intervals: dict[str, list[float | None]] = field(default_factory=dict)
    interval_signature: str | None = None
    # on how many resamples a measure was undefined (gqa:undefinedResamples; only those > 0)
    undefined_resamples: dict[str, int] = field(default_factory=dict)
    note: str | None = None  # why no question was scored (the gold has nothing for the type)
    # its dataset's gold was withheld when it was recorded: no question's result is stored
    questions_withheld: bool = False

    def interval_note(self, name: str) -> str | None:
        """What the pages say of ``name``'s interval when it was undefined on resamples."""
        count = self.undefined_resamples.get(name)
        resamples = interval_resamples(self.interval_signature)
        if not count or resamples is None:
            return None
        low, high = self.intervals.get(name) or (None, None)
        bounded = low is not None and high is not None
        return undefined_resamples_note(count, resamples, bounded=bounded)


def task_result(node: Node, nodes: dict[str, Node], uris: Uris) -> TaskResult:
    """The task observation ``node`` (``nodes``: the document's other subjects)."""
    measures: dict[str, float | int | None] = {}
    for predicate, values in node.props.items():
        name = measure_name(predicate)
        if name and values and name in MEASURES and MEASURES[name].iri == predicate:
            measures[name] = number(values[0])
    undefined = tuple(
        n for n in (measure_name(u.value) for u in node.all(GQA + "undefinedMeasure")) if n
    )
    for name in undefined:
        measures.setdefault(name, None)
    order = {name: n for n, name in enumerate(MEASURES)}
    measures = dict(sorted(measures.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    system = node.text(GERBIL + "annotator") or ""
    located = uris.locate(system)
    system_name = located.keys["system"] if located and located.kind == "system" else local(system)
    label_node = nodes.get(system)
    language = local(node.text(GQA + "language"))
    warnings = sorted(
        (number(w.one(GQA + "position")) or 0, w.text(RDFS + "comment") or "")
        for w in (nodes.get(_key(t)) for t in node.all(GQA + "warning"))
        if w is not None
    )
    intervals: dict[str, list[float | None]] = {}
    undefined_resamples: dict[str, int] = {}
    for ref in node.all(GQA + "interval"):
        ci = nodes.get(_key(ref))
        name = measure_name(ci.text(GQA + "intervalOf") or "") if ci is not None else None
        if ci is not None and name:
            bounds = [number(ci.one(GQA + "lowerBound")), number(ci.one(GQA + "upperBound"))]
            intervals[name] = [None if b is None else float(b) for b in bounds]
            if count := number(ci.one(GQA + "undefinedResamples")):
                undefined_resamples[name] = int(count)
    tail = node.uri.rsplit("/", 1)[1]
    return TaskResult(
        uri=node.uri,
        number=int(tail) if tail.isdigit() else 0,
        system=system,
        system_name=system_name,
        system_label=(label_node.text(RDFS + "label") if label_node else None) or system_name,
        dataset=node.text(GERBIL + "dataset") or "",
        experiment_type=local(node.text(GERBIL + "experimentType")),
        language=language,
        language_tag=node.text(GQA + "languageTag") or language,
        profile=local(node.text(GQA + "profile")).removeprefix("profile-"),
        profile_version=node.text(GQA + "profileVersion"),
        signature=node.text(GQA + "signature"),
        knowledge_base=node.text(GQA + "knowledgeBase"),
        measures=measures,
        undefined=undefined,
        warnings=tuple(text for _, text in warnings),
        intervals=intervals,
        interval_signature=node.text(GQA + "intervalSignature"),
        undefined_resamples=undefined_resamples,
        note=node.text(RDFS + "comment"),
        questions_withheld=node.text(GQA + "questionResultsWithheld") == "true",
    )


def experiment_tasks(
    nodes: dict[str, Node], uris: Uris, experiment_id: str
) -> tuple[TaskResult, ...]:
    """The experiment's task results, in task order."""
    exp = nodes.get(uris.experiment(experiment_id))
    if exp is None:
        return ()
    found = [task_result(nodes[t.value], nodes, uris) for t in exp.all(GQA + "task")]
    return tuple(sorted(found, key=lambda r: r.number))


def evaluations(
    quads: Iterable[Any], uris: Uris, experiment_id: str, *, questions: bool = True
) -> list[dict[str, Any]]:
    """The experiment's results as ``gerbil-qa evaluate --output json`` prints them: one object
    per evaluation (system, language and profile), in the order they were run, without the
    ``experiment`` block. ``quads``: the experiment's whole graph, or without ``questions``
    its document (no ``questions`` key then: the per-question records are not in it)."""
    nodes = index(quads)
    exp = nodes.get(uris.experiment(experiment_id))
    if exp is None:
        return []
    label = exp.text(GQA + "datasetLabel")
    tasks = experiment_tasks(nodes, uris, experiment_id)
    results_of: dict[str, list[Node]] = defaultdict(list)
    position: dict[str, float | int | None] = {}
    if questions:
        for node in nodes.values():
            owner = node.text(GQA + "resultOf")
            if owner is not None:
                results_of[owner].append(node)
        position = {
            uri: number(n.one(GQA + "position"))
            for uri, n in nodes.items()
            if n.one(GQA + "position") is not None and n.one(GQA + "question") is None
        }
    groups: dict[tuple[str, str, str], list[TaskResult]] = {}
    for task in tasks:
        groups.setdefault((task.system, task.language_tag, task.profile), []).append(task)
    # a task pooled over languages ("en,es") carries its languages' tasks as byLanguage, as
    # `evaluate --lang en,es` prints it; they are not objects of their own then
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    inside: set[tuple[str, str, str]] = set()
    for key, group in groups.items():
        system, tag, profile = key
        if POOLED_SEPARATOR in tag:
            parts = [(system, lang, profile) for lang in tag.split(POOLED_SEPARATOR)]
            found = [groups[p] for p in parts if p in groups]
            if found:
                inside.update(p for p in parts if p in groups)
                out[key] = _evaluation(group, label, results_of, position, uris, nodes)
                out[key]["byLanguage"] = {
                    g[0].language_tag: {t.experiment_type: dict(t.measures) for t in g}
                    for g in found
                }
                continue
        out[key] = _evaluation(group, label, results_of, position, uris, nodes)
    listed = [value for key, value in out.items() if key not in inside]
    if not questions:  # not read, rather than none
        for value in listed:
            del value["questions"]
    return listed


def _evaluation(
    tasks: Sequence[TaskResult],
    label: str | None,
    results_of: dict[str, list[Node]],
    position: dict[str, float | int | None],
    uris: Uris,
    nodes_of: dict[str, Node],
) -> dict[str, Any]:
    from service.evaluation.profiles import explains_misses, why_wrong

    first = tasks[0]
    entries: list[dict[str, Any]] = []
    by_id: dict[tuple[str, str | None], dict[str, Any]] = {}
    languages = {lang: n for n, lang in enumerate(first.language_tag.split(POOLED_SEPARATOR))}
    for task in tasks:
        rows = results_of.get(task.uri, [])
        # a pooled task lists each language's questions in turn, as the pooling did
        rows.sort(
            key=lambda r: (
                languages.get(local(r.text(GQA + "language")), 0),
                _order(r, position, uris),
            )
        )
        explains = explains_misses(task.profile)  # poleval says why an answer was wrong
        for row in rows:
            qid = question_id_of(row.text(GQA + "question") or row.uri, uris)
            language = local(row.text(GQA + "language")) or None
            entry = by_id.get((qid, language))
            if entry is None:
                entry = by_id[(qid, language)] = {"id": qid}
                entries.append(entry)
            status = local(row.text(GQA + "questionStatus")).removeprefix("status-") or "scored"
            scores: dict[str, Any] = {
                m: number(row.one(iri)) for m, iri in _QUESTION_PROPERTIES.items()
            }
            if status != "scored":
                scores["status"] = status
            entry[task.experiment_type] = scores
            if status not in ("scored", "no-gold"):
                entry.setdefault("status", status)
            if (error := row.text(GQA + "errorMessage")) is not None:
                entry.setdefault("error", error)
            if (runtime := row.one(GQA + "runtime")) is not None:
                entry.setdefault("runtimeMs", number(runtime))
            if (confidence := row.one(GQA + "confidence")) is not None:
                entry.setdefault("confidence", number(confidence))
            if (attempts := row.one(GQA + "attempts")) is not None:
                entry.setdefault("attempts", number(attempts))
            if (reason := row.text(GQA + "retryReason")) is not None:
                entry.setdefault("retryReason", reason)
            if explains:  # as evaluate's JSON says it
                missed = sorted(v.value for v in row.all(GQA + "missedAnswer"))
                given = [v.value for v in row.all(GQA + "givenAnswer")]
                if why := why_wrong(task.profile, given, missed):
                    entry.setdefault("why", why)
            if language is not None:
                entry["language"] = language
            if (note := row.text(GQA + "note")) is not None:
                entry.setdefault("note", note)
            if (query := row.text(GQA + "systemQuery")) is not None:
                entry.setdefault("systemQuery", query)
            if rewrites := sorted(v.value for v in row.all(GQA + "queryRewrite")):
                entry.setdefault("queryRewrites", rewrites)
            shapes = _query_shapes(row, nodes_of)
            if shapes:
                entry.setdefault("queryShape", shapes)
    out: dict[str, Any] = {
        "dataset": label or local(first.dataset),
        "system": first.system_name,
        "profile": first.profile,
        "profileVersion": first.profile_version,
        "signature": first.signature,
        "language": first.language_tag,
        "kb": first.knowledge_base,
        "results": {t.experiment_type: dict(t.measures) for t in tasks},
        "questions": entries,
        "warnings": [w for t in tasks for w in t.warnings],
    }
    if any(t.questions_withheld for t in tasks):  # why "questions" is empty
        out["questionsWithheld"] = True
    if any(t.intervals for t in tasks):  # as `evaluate --intervals` prints them
        out["intervals"] = {t.experiment_type: dict(t.intervals) for t in tasks}
        counts = {t.experiment_type: t.undefined_resamples for t in tasks if t.undefined_resamples}
        if counts:
            out["undefinedResamples"] = counts
        out["intervalSignature"] = first.interval_signature
    return out


def _query_shapes(row: Node, nodes: dict[str, Node]) -> dict[str, Any]:
    """The query shapes of a per-question result (``gqa:queryShape``), as the JSON has them."""
    out: dict[str, Any] = {}
    for ref in row.all(GQA + "queryShape"):
        shape = nodes.get(_key(ref))
        role = shape.text(GQA + "queryRole") if shape is not None else None
        if shape is None or role is None:
            continue
        error = shape.text(GQA + "parseError")
        if error is not None:
            out[role] = {"error": error}
            continue
        features = shape.text(GQA + "queryFeatures") or ""
        out[role] = {
            "triplePatterns": number(shape.one(GQA + "triplePatterns")),
            "joinVertices": number(shape.one(GQA + "joinVertices")),
            "features": features.split(),
        }
    return out


def _order(row: Node, position: dict[str, float | int | None], uris: Uris) -> tuple[int, Any]:
    question = row.text(GQA + "question") or ""
    at = position.get(question)
    if at is not None:
        return (0, at)
    qid = question_id_of(question, uris)
    return (1, (0, int(qid)) if qid.isdigit() else (1, qid))


def question_id_of(uri: str, uris: Uris) -> str:
    """The dataset's own id of a question URI minted here (else its last segment)."""
    located = uris.locate(uri)
    if located is not None and "question" in located.keys:
        return located.keys["question"]
    return local(uri)


def _key(term: Any) -> str:
    import pyoxigraph as ox

    return term.value if isinstance(term, ox.NamedNode) else f"_:{term.value}"


def scoring_of(
    profile: str, experiment_type: str, version: str | None = None
) -> tuple[str, bool] | None:
    """(scoring scheme, graded) of a stored task's profile name, experiment type and profile
    version (a sub-experiment's scheme may differ from QA's: text2sparql; an older version's
    may differ from this one's); None for a profile or type this version does not have (its
    stored numbers cannot be recomputed)."""
    from service.errors import BadRequest
    from service.evaluation.profiles import get_profile

    try:
        found = get_profile(profile)
        return found.scoring_of(experiment_type, version).name, found.name == "poleval"
    except (BadRequest, ValueError):
        return None


@dataclass(frozen=True, slots=True)
class StoredResult:
    """One per-question observation as stored."""

    question: str  # the question's URI
    status: str
    processed: bool
    tp: int | None
    fp: int | None
    fn: int | None
    precision: float | None
    recall: float | None
    f1: float | None
    language: str | None = None  # its language, in a task pooled over several


def _int(term: Any) -> int | None:
    return None if term is None else int(float(term.value))


def _float(term: Any) -> float | None:
    return None if term is None else float(term.value)


def stored_results(store: Any, graph: str, tasks: Sequence[str]) -> dict[str, list[StoredResult]]:
    """The per-question observations of ``tasks`` in ``graph`` of ``store`` (a pyoxigraph
    store), by task URI, in the dataset's question order (``gqa:position``, as ``evaluate``
    has them, so a seeded resample draws the same questions; a task pooled over languages
    lists each language's questions in turn, in its ``gqa:languageTag`` order, as the
    pooling did): one query, index lookups.

    The rows are put in order here, as ``ORDER BY ?task ?at ?q`` would (a question without a
    position first, then by position, then by URI): Oxigraph's sort of the ~1,300 rows of an
    experiment took a third of the query's time."""
    if not tasks:
        return {}
    values = " ".join(f"<{t}>" for t in tasks)
    query = f"""PREFIX gqa: <{GQA}>
SELECT ?task ?q ?status ?processed ?tp ?fp ?fn ?p ?r ?f ?at ?lang ?tag WHERE {{ GRAPH <{graph}> {{
  VALUES ?task {{ {values} }}
  ?res gqa:resultOf ?task ; gqa:question ?q ; gqa:questionStatus ?status ;
       gqa:processed ?processed .
  OPTIONAL {{ ?res gqa:tp ?tp }} OPTIONAL {{ ?res gqa:fp ?fp }} OPTIONAL {{ ?res gqa:fn ?fn }}
  OPTIONAL {{ ?res gqa:precision ?p }} OPTIONAL {{ ?res gqa:recall ?r }}
  OPTIONAL {{ ?res gqa:f1 ?f }} OPTIONAL {{ ?q gqa:position ?at }}
  OPTIONAL {{ ?res gqa:language ?lang }} OPTIONAL {{ ?task gqa:languageTag ?tag }}
}} }}"""
    rows: list[tuple[str, int, tuple[int, float | str], str, StoredResult]] = []
    for row in store.query(query):
        question = row["q"].value
        language = local(row["lang"].value) if row["lang"] is not None else None
        rows.append(
            (
                row["task"].value,
                _language_order(language, row["tag"]),
                _position(row["at"]),
                question,
                StoredResult(
                    question=question,
                    status=local(row["status"].value).removeprefix("status-"),
                    processed=row["processed"].value == "true",
                    tp=_int(row["tp"]),
                    fp=_int(row["fp"]),
                    fn=_int(row["fn"]),
                    precision=_float(row["p"]),
                    recall=_float(row["r"]),
                    f1=_float(row["f"]),
                    language=language,
                ),
            )
        )
    rows.sort(key=lambda r: r[:4])
    out: dict[str, list[StoredResult]] = defaultdict(list)
    for task, _in_turn, _at, _question, result in rows:
        out[task].append(result)
    return dict(out)


def _language_order(language: str | None, tag: Any) -> int:
    """Where a pooled task's record of ``language`` comes in its languages (``en,es``: en
    first); 0 for a task of one language."""
    languages = tag.value.split(POOLED_SEPARATOR) if tag is not None else []
    return languages.index(language) if language in languages else 0


def f1s_query(graph: str, tasks: Sequence[str]) -> str:
    """The query of :func:`stored_f1s`: task, question, F1 (unbound: none) of each result."""
    values = " ".join(f"<{t}>" for t in tasks)
    return f"""PREFIX gqa: <{GQA}>
SELECT ?task ?q ?f WHERE {{ GRAPH <{graph}> {{
  VALUES ?task {{ {values} }}
  ?res gqa:resultOf ?task ; gqa:question ?q . OPTIONAL {{ ?res gqa:f1 ?f }}
}} }}"""


def stored_f1s(store: Any, graph: str, tasks: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Per-question F1 of ``tasks`` in ``graph`` of ``store``, by task URI then question URI
    (None: no F1). What the experiment page's charts draw when the intervals are stored: a
    fifth of :func:`stored_results`' time (three terms a row to decode instead of eleven, no
    sort), which was most of the page's."""
    if not tasks:
        return {}
    out: dict[str, dict[str, float | None]] = defaultdict(dict)
    for task, question, f1 in store.query(f1s_query(graph, tasks)):
        out[task.value][question.value] = None if f1 is None else float(f1.value)
    return dict(out)


def f1s_of_json(body: bytes) -> dict[str, dict[str, float | None]]:
    """:func:`stored_f1s` from the SPARQL JSON results of :func:`f1s_query` (written by a
    query worker)."""
    import json

    out: dict[str, dict[str, float | None]] = defaultdict(dict)
    for row in json.loads(body)["results"]["bindings"]:
        f1 = row.get("f")
        out[row["task"]["value"]][row["q"]["value"]] = None if f1 is None else float(f1["value"])
    return dict(out)


def _position(term: Any) -> tuple[int, float | str]:
    """A sort key for ``?at`` as SPARQL orders it: unbound first, then numbers by value (a
    value that is not a number after them, by its text)."""
    if term is None:
        return (0, 0.0)
    try:
        return (1, float(term.value))
    except ValueError:
        return (2, term.value)


def stored_records(
    results: Sequence[StoredResult], *, graded: bool, uris: Uris | None = None
) -> tuple[QuestionScore, ...]:
    """The per-question records statistics recompute aggregates from, out of stored results
    (question ids: the question URIs, or with ``uris`` the dataset's own ids)."""
    from service.evaluation.results import stored_score

    return tuple(
        stored_score(
            r.question if uris is None else question_id_of(r.question, uris),
            status=r.status,
            processed=r.processed,
            counts=(r.tp, r.fp, r.fn),
            prf=(r.precision, r.recall, r.f1),
            graded=graded,
            language=r.language,
        )
        for r in results
    )


def stored_task(store: Any, graph: str, task_uri: str, uris: Uris) -> TaskResult | None:
    """A stored task's description (measures, system and its label, profile, language,
    signature), read by index lookups in ``graph`` of ``store``; None when it is not there."""
    import pyoxigraph as ox

    where = ox.NamedNode(graph)
    quads = list(store.quads_for_pattern(ox.NamedNode(task_uri), None, None, where))
    if not quads:
        return None
    nodes = index(quads)
    system = nodes[task_uri].text(GERBIL + "annotator")
    if system:
        label = ox.NamedNode(RDFS + "label")
        nodes.update(index(store.quads_for_pattern(ox.NamedNode(system), label, None, where)))
    return task_result(nodes[task_uri], nodes, uris)


def stored_tasks(
    store: Any, graph: str, experiment_uri: str, uris: Uris, *, experiment_type: str | None = None
) -> list[TaskResult]:
    """An experiment's task descriptions (:func:`stored_task` each), in task order: its
    ``gqa:task`` links in ``graph`` of ``store``, then each task by index lookups; with
    ``experiment_type`` (``QA``), only tasks of that type, the others never decoded (a run of
    every type has six, each ~0.7 ms to read)."""
    import pyoxigraph as ox

    where = ox.NamedNode(graph)
    task = ox.NamedNode(GQA + "task")
    links = [
        q.object for q in store.quads_for_pattern(ox.NamedNode(experiment_uri), task, None, where)
    ]
    if experiment_type is not None:
        kind, wanted = (
            ox.NamedNode(GERBIL + "experimentType"),
            ox.NamedNode(GERBIL + experiment_type),
        )
        links = [t for t in links if any(store.quads_for_pattern(t, kind, wanted, where))]
    found = [stored_task(store, graph, t.value, uris) for t in links]
    return sorted((t for t in found if t is not None), key=lambda t: t.number)


# read after "this experiment was" (the page) and after a task's URI (a refusal)
QUESTIONS_WITHHELD = (
    "scored while its dataset's gold was withheld, without per-question results (a "
    "re-scoring once the gold is revealed has them)"
)


def not_recomputable(task: TaskResult) -> str | None:
    """Why ``task``'s stored results cannot be recomputed here (slices, intervals, statistics),
    or None: its profile is unknown, or this version scores it under another signature."""
    from service.evaluation.profiles import get_profile

    if task.questions_withheld:
        return QUESTIONS_WITHHELD
    if scoring_of(task.profile, task.experiment_type) is None:
        return f"scored under profile {task.profile!r}, unknown here"
    profile = get_profile(task.profile)
    now = profile.signature_for(task.knowledge_base)
    if task.signature and now != task.signature and not _aggregated_alike(task):
        return (
            f"scored under {task.profile} {task.profile_version or '?'} ({task.signature}); "
            f"this version scores as {now}"
        )
    return None


def _aggregated_alike(task: TaskResult) -> bool:
    """Whether ``task`` was scored under an older version of its profile that this one
    aggregates alike (``Profile.aggregates_as``): recomputable under its own signature."""
    from service.evaluation.profiles import get_profile

    return task.profile_version in get_profile(task.profile).aggregates_as


def stored_evaluation(
    task: TaskResult, results: Sequence[StoredResult], uris: Uris, *, experiment_type: str = "QA"
) -> Evaluation:
    """A stored task of ``experiment_type`` as an :class:`~service.evaluation.results.Evaluation`
    that statistics and comparisons accept: its :data:`~service.evaluation.results.COUNT_MEASURES`
    and the per-question records they are recomputed from (``results``: its
    :func:`stored_results`; each type's under its scheme, :meth:`Profile.scoring_of`).
    BadRequest when it is of another type, or was scored under a profile version this one
    cannot reproduce (its signature differs)."""
    from service.errors import BadRequest
    from service.evaluation.profiles import get_profile
    from service.evaluation.results import COUNT_MEASURES, Evaluation, ExperimentType, TaskScores

    if task.experiment_type != experiment_type:
        raise BadRequest(
            f"{task.uri}: a {task.experiment_type} task; compare {experiment_type} tasks"
        )
    refusal = not_recomputable(task)
    if task.questions_withheld:  # re-scoring helps only once the gold is revealed
        raise BadRequest(f"{task.uri}: {refusal}")
    known = scoring_of(task.profile, task.experiment_type, task.profile_version)
    if refusal is not None or known is None:
        raise BadRequest(f"{task.uri}: {refusal}: re-score it before comparing")
    records = stored_records(results, graded=known[1], uris=uris)
    etype = ExperimentType(experiment_type)
    # the counts too: they describe the (sliced) run, statistics leave them out
    wanted = (*COUNT_MEASURES, "questions", "skippedQuestions")
    measures = {m: task.measures[m] for m in wanted if m in task.measures}
    evaluation = Evaluation(
        dataset=local(task.dataset),
        system=task.system_label,
        profile=get_profile(task.profile),
        language=task.language_tag,
        tasks={etype: TaskScores(etype, measures, records)},
        kb=task.knowledge_base,
        # an older version's result keeps its signature: compared with its own kind only
        recorded_signature=task.signature if _aggregated_alike(task) else None,
    )
    return evaluation


# The question properties behind the slicing dimensions (``evaluation.slices``), by local name.
_DIMENSION_OF = {
    "answerType": "answertype",
    "aggregation": "aggregation",
    "hybrid": "hybrid",
    "onlyDbo": "onlydbo",
    "outOfScope": "outofscope",
    "queryFeature": "feature",
}


def _dimension_value(name: str, term: Any) -> str:
    """A question property's object as the slices name its value."""
    if name == "answerType":
        return local(term.value).removeprefix("answerType-")
    if name == "queryFeature":
        return str(term.value)
    return "yes" if term.value == "true" else "no"


def question_values(store: Any, questions: Iterable[str], uris: Uris) -> dict[str, dict[str, Any]]:
    """Each question's values in the slicing dimensions (``evaluation.slices``), read from its
    description in ``store`` (any graph), by the dataset's own question id."""
    import pyoxigraph as ox

    out: dict[str, dict[str, Any]] = {}
    for uri in dict.fromkeys(questions):
        values: dict[str, Any] = {}
        features: list[str] = []
        for quad in store.quads_for_pattern(ox.NamedNode(uri), None, None, None):
            name = local(quad.predicate.value)
            if name == "queryFeature":
                if quad.object.value not in features:
                    features.append(quad.object.value)
            elif name in _DIMENSION_OF:
                values[_DIMENSION_OF[name]] = (_dimension_value(name, quad.object),)
        if features:
            values["feature"] = tuple(features)
        out.setdefault(question_id_of(uri, uris), values)
    return out


def dimension_values(store: Any, questions: Iterable[str]) -> dict[str, set[str]]:
    """Every value the ``questions`` (URIs) have in each slicing dimension, in one query whose
    answer is the distinct values (a few rows, not one a question: the experiment page asks it
    on every render). One pattern a property, looked up by question and property: with the
    property a variable (``VALUES ?p``) the same query took 42 ms for LC-QuAD 1's 1,000
    questions (a store of their 7,000 quads), against 4 ms."""
    wanted = " ".join(f"<{q}>" for q in dict.fromkeys(questions))
    if not wanted:
        return {}
    patterns = " UNION ".join(
        f"{{ GRAPH ?g {{ ?q <{GQA}{name}> ?o }} BIND(<{GQA}{name}> AS ?p) }}"
        for name in _DIMENSION_OF
    )
    rows = store.query(
        f"SELECT DISTINCT ?p ?o WHERE {{ VALUES ?q {{ {wanted} }} {{ {patterns} }} }}"
    )
    out: dict[str, set[str]] = {}
    for p, o in rows:
        name = local(p.value)
        out.setdefault(_DIMENSION_OF[name], set()).add(_dimension_value(name, o))
    return out
