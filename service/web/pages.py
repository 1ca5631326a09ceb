"""What the HTML pages and CSV tables show, read from the same quads as the RDF.

Each function turns the quads of a document (``describe.document_quads``) into frozen rows for
a template; numbers keep their full precision here and are rounded only in the template.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import unquote

from service.call_settings import CALL_SETTINGS
from service.csv_table import csv_table as csv_table
from service.csv_table import items_cell
from service.evaluation.languages import canonical_tag
from service.evaluation.measures import MEASURES, require
from service.evaluation.measures import QUESTION_MEASURES as QUESTION_MEASURE_INFO
from service.evaluation.results import COUNT_MEASURES
from service.evaluation.results import undefined_resamples_note as undefined_resamples_note
from service.graph.reader import (
    QUESTION_MEASURES,
    Node,
    TaskResult,
    index,
    local,
    number,
    task_result,
)
from service.graph.terms import DCAT, DCT, PROV, RDFS
from service.graph.uris import GERBIL, GQA, Uris
from service.web.reproduce import Reproduction, reproduction

MEASURE_ORDER = require(*COUNT_MEASURES)  # the headline measures, first on every page
__all__ = ["QUESTION_MEASURES", "local"]  # pages.local is what templates and resources call
# Counts shown after the scores.
_NOT_SCORES = frozenset({"questions", "errorCount"})


def _upload_order(upload: tuple[str, str, str, str | None]) -> tuple[bool, bool, int, str]:
    """The dataset's files first, then the others as submitted (``file-N``; the store keeps
    no order)."""
    _, role, _, fragment = upload
    number = (fragment or "").removeprefix("file-")
    return role != "dataset", role != "gold", int(number) if number.isdigit() else 0, upload[0]


def anchor(node_uri: str, page_uri: str) -> str | None:
    """The ``id`` a hash URI of ``page_uri`` has on its page (``page#distribution`` →
    ``distribution``), so a link to it lands on its description; None for other URIs.

    >>> anchor("http://x/dataset/d#distribution", "http://x/dataset/d")
    'distribution'
    >>> anchor("http://x/catalog#contact-qald", "http://x/dataset/d") is None
    True
    """
    head, sep, fragment = node_uri.partition("#")
    return fragment if sep and fragment and head == page_uri else None


def region_label(node_uri: str, page_uri: str) -> str:
    """A short name for the table of a resource's properties, captioned by its URI, when the
    table scrolls sideways and its wrapper is a named region (``static/scroll_regions.js``):
    a screen reader said "region, http://…/question/1#query-gold" (explore62 F2).

    >>> region_label("http://x/e/1/task/1/question/1#query-gold", "http://x/e/1/task/1/question/1")
    'Properties of query gold'
    >>> region_label("http://x/experiment/202611290001/task/1", "http://x/other")
    'Properties of task 1'
    >>> region_label("http://x/experiment/7/task/1#questions", "http://x/other")
    'Properties of task 1, questions'
    >>> region_label("urn:uuid:1", "http://x/other")
    'Properties'
    """
    fragment = anchor(node_uri, page_uri)
    if fragment:
        name = fragment
    elif web_link(node_uri):
        head, _, tail = node_uri.partition("#")
        path = head.split("://", 1)[1].partition("/")[2].strip("/").split("/")
        name = " ".join(path[-2:]) + (f", {tail}" if tail else "")
    else:
        name = ""
    name = unquote(name).replace("-", " ").replace("_", " ").strip(" ,")
    if len(name) > 50:
        name = name[:50].rsplit(" ", 1)[0] + "…"
    return f"Properties of {name}" if name else "Properties"


def vocab_anchor(term: str) -> str | None:
    """The ``id`` of a term of our vocabulary (``gqa:`` or the GERBIL terms we keep) on the
    served vocabulary page, None for any other IRI.

    >>> vocab_anchor(GQA + "missedAnswer"), vocab_anchor(GERBIL + "macroF1")
    ('missedAnswer', 'gerbil-macroF1')
    >>> vocab_anchor("http://www.w3.org/ns/prov#used") is None
    True
    """
    if term.startswith(GQA):
        return term[len(GQA) :] or None
    if term.startswith(GERBIL):
        return "gerbil-" + term[len(GERBIL) :] if term != GERBIL else None
    return None


def href(iri: str, vocab: str) -> str | None:
    """Where a page links an IRI: a term of our vocabulary to its definition on the served
    vocabulary page (``vocab``), since its namespace IRI resolves only through w3id.org and
    GERBIL's namespace is GERBIL's own ontology; an http(s) IRI to itself; any other (None):
    shown as text."""
    fragment = vocab_anchor(iri)
    if fragment:
        return f"{vocab}#{fragment}"
    return iri if web_link(iri) else None


def web_link(iri: str) -> bool:
    """Whether a page may make ``iri`` a link: http(s) only. An answer or a gold value is any
    IRI a system or a file gave (``javascript:alert(1)`` is a valid IRI), and only the
    Content-Security-Policy kept such a link from running script in this site's origin."""
    return iri[:8].lower().startswith(("http://", "https://"))


LABELS = (
    "http://xmlns.com/foaf/0.1/name",
    "http://www.w3.org/2006/vcard/ns#fn",
    "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://www.w3.org/2000/01/rdf-schema#label",
    "http://purl.org/dc/terms/title",
)
"""What names a linked thing in a property table, first found first."""


def labels(nodes: dict[str, Any]) -> dict[str, str]:
    """IRI -> its name, for the nodes a page's document describes: a property table shows a
    creator, a contact point, a language by name (the IRI in its link's title), where it
    showed ``…#creator-1`` and ``…/language/ENG``. English or untagged names first."""
    out: dict[str, str] = {}
    for uri, node in nodes.items():
        for predicate in LABELS:
            values = node.all(predicate)
            if values:
                ranked = sorted(
                    values, key=lambda v: getattr(v, "language", None) not in ("en", None)
                )
                out[uri] = ranked[0].value
                break
    return out


def profile_name(iri: str) -> str:
    """A profile's name from its IRI (``…vocab#profile-fair`` → ``fair``)."""
    return local(iri).removeprefix("profile-")


def hash_nodes(nodes: dict[str, Node], page_uri: str, *, skip: Iterable[str] = ()) -> list[Node]:
    """The nodes described under ``page_uri#…``, for the tables below a page's own (minus
    ``skip``)."""
    left_out = set(skip)
    return [node for key, node in nodes.items() if anchor(key, page_uri) and key not in left_out]


def measure_order() -> list[str]:
    """Canonical measure names in display order: the headline ones, then the registry's."""
    out = list(MEASURE_ORDER)
    out += [name for name in MEASURES if name not in out]
    return out


def measure_label(name: str) -> str:
    info = MEASURES.get(name)
    return info.label if info else name


def challenge_name(profile: str | None, measure: str, experiment_type: str) -> str | None:
    """What the challenge ``profile`` reproduces called ``measure``, if it names it: of the QA
    results only (TEXT2SPARQL'25 scored result sets; a C2KB macro F1 is no ``set_F``)."""
    from service.evaluation.profiles import PROFILES

    if profile is None or profile not in PROFILES or experiment_type != "QA":
        return None
    return dict(PROFILES[profile].challenge_measures).get(measure)


def undefined_said(
    measure: str, measures: Mapping[str, float | int | None] | None = None
) -> tuple[str, str]:
    """How a page shows a measure a task (its ``measures``) has no value of: a short word and
    why. A runtime read "undefined", like a bug, where answers from a file were simply not
    timed; macro F1 (QALD) of a task that scored questions, all wrong, read as if it had none
    (DESIGN.md: it is undefined when both means are 0)."""
    if measure == "meanRuntime":
        errors, questions = (measures or {}).get("errorCount"), (measures or {}).get("questions")
        if errors and questions is not None and errors >= questions:  # a web service's
            # (it said "the answers were read from a file" of one: explore48 4)
            return "not timed", "not timed: every call failed, and a failed call has no runtime"
        return "not timed", "not timed: the answers were read from a file, which holds no runtimes"
    if measure == "macroF1QALD" and (measures or {}).get("questions"):
        return "undef.", "undefined: mean precision and mean recall are both 0"
    return "undef.", "undefined: this task has nothing to compute it from"


def changed_value(value: float | int | None, places: int = 3) -> str:
    """A number of a revision's changes as the page prints it: a count as it is, a ratio to
    ``places`` (3 as the task page prints a question's P, R and F1, 4 for a measure as the
    results table does), undefined as "n/a".

    >>> changed_value(3), changed_value(0.5), changed_value(None), changed_value(1.0, 4)
    ('3', '0.500', 'n/a', '1.0000')
    """
    if value is None:
        return "n/a"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{value:.{places}f}"


def measure_description(name: str) -> str:
    info = MEASURES.get(name)
    return info.description if info else ""


TaskRow = TaskResult  # a row of the experiment page: the reader's task result


@dataclass(frozen=True, slots=True)
class ExperimentPage:
    id: str
    uri: str
    label: str
    started: str | None
    ended: str | None
    issued: str | None
    dataset: str | None
    dataset_label: str | None
    profiles: tuple[str, ...]  # the profiles' IRIs (profile_name names them)
    software: str | None
    papers: tuple[str, ...]
    tasks: tuple[TaskRow, ...]
    uploads: tuple[tuple[str, str, str, str | None], ...]  # (title, role, sha256, anchor)
    notes: tuple[str, ...] = ()  # about the run as a whole: a system left out, and why
    software_uri: str | None = None  # the evaluator (software/{version}), to follow
    withdrawn_at: str | None = None  # withdrawn by its owner: out of leaderboards, URI kept
    withdrawal_reason: str | None = None
    # how its web services were called: (setting's name, value as recorded), registry order
    calls: tuple[tuple[str, str], ...] = ()
    reproduce: Reproduction | None = None  # the files and the command that print its numbers
    # SHA-256 -> the operator's KB whose file this service does not serve (no link to it)
    unserved_kbs: Mapping[str, str] = field(default_factory=dict)
    # the registered version its dataset is the file of: (its URI, "NAME version V")
    dataset_version: tuple[str, str] | None = None
    # the dataset's title as its results name it (gqa:datasetLabel; dataset_label is its name)
    # and the version its description states (dcat:version), for the citation
    dataset_title: str | None = None
    dataset_release: str | None = None
    # how its "Dataset" row names it: an upload by title, version and name as the dataset's
    # page and menus do ("Birds QA, version 2 (birds-qa-9bcc958d)"), its name alone said
    # neither title nor version (explore32 8)
    dataset_named: str | None = None
    # the web services it asked: (system's name, URL, interface as the page names it)
    services: tuple[tuple[str, str, str], ...] = ()

    def tasks_of(self, experiment_type: str) -> list[TaskRow]:
        rows = [t for t in self.tasks if t.experiment_type == experiment_type]
        key = next(
            (m for m in MEASURE_ORDER if any(r.measures.get(m) is not None for r in rows)), None
        )
        if key:
            rows.sort(key=lambda r: -(r.measures.get(key) or -1.0))
        return rows

    @property
    def experiment_types(self) -> list[str]:
        from service.evaluation.results import ExperimentType

        present = {t.experiment_type for t in self.tasks}
        return [e.value for e in ExperimentType if e.value in present] + sorted(
            present - {e.value for e in ExperimentType}
        )

    def comparable_tasks(self) -> list[list[str]]:
        """The QA tasks that can be compared with paired tests (one language, one signature:
        what ``compare?task=…`` accepts), each group of two or more as task URIs."""
        groups: dict[tuple[str, str | None], list[str]] = {}
        for row in self.tasks_of("QA"):
            groups.setdefault((row.language_tag, row.signature), []).append(row.uri)
        return [uris for uris in groups.values() if len(uris) > 1]

    def unscored_notes(self, experiment_type: str) -> list[str]:
        """Why no question of this type's tasks was scored, when the gold has nothing for it
        (the task's ``rdfs:comment``): the table's "undef." otherwise say nothing."""
        return list(dict.fromkeys(t.note for t in self.tasks_of(experiment_type) if t.note))

    def columns(self, experiment_type: str) -> list[str]:
        rows = self.tasks_of(experiment_type)
        names = {m for r in rows for m in r.measures} | {m for r in rows for m in r.undefined}
        return [m for m in measure_order() if m in names and m not in _NOT_SCORES] + [
            m for m in ("questions", "errorCount") if m in names
        ]


def _task_row(node: Node, nodes: dict[str, Node], uris: Uris) -> TaskRow:
    """The reader's task result, its measures in display order (headline measures first)."""
    row = task_result(node, nodes, uris)
    order = {name: n for n, name in enumerate(measure_order())}
    measures = dict(
        sorted(row.measures.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))
    )
    return replace(row, measures=measures)


def experiment_page(experiment_id: str, quads: Iterable[Any], uris: Uris) -> ExperimentPage:
    nodes = index(quads)
    uri = uris.experiment(experiment_id)
    exp = nodes.get(uri) or Node(uri)
    labels = {k: n.text(RDFS + "label") or "" for k, n in nodes.items()}
    tasks = [
        _task_row(nodes[t.value], nodes, uris) for t in exp.all(GQA + "task") if t.value in nodes
    ]
    tasks.sort(key=lambda r: r.number)
    dataset = next(
        (u.value for u in exp.all(PROV + "used") if u.value.startswith(uris.base + "dataset/")),
        None,
    )
    uploads = []
    for used in exp.all(PROV + "used"):
        node = nodes.get(used.value)
        if node is not None and node.one(GQA + "fileRole") is not None:
            uploads.append(
                (
                    node.text(DCT + "title") or "",
                    node.text(GQA + "fileRole") or "",
                    node.text(GQA + "sha256") or "",
                    anchor(used.value, uri),  # experiment#file-N lands here
                )
            )
    uploads.sort(key=_upload_order)
    return ExperimentPage(
        id=experiment_id,
        uri=uri,
        label=exp.text(RDFS + "label") or f"Experiment {experiment_id}",
        started=exp.text(PROV + "startedAtTime"),
        ended=exp.text(PROV + "endedAtTime"),
        issued=exp.text(DCT + "issued"),
        dataset=dataset,
        dataset_label=local(dataset) if dataset else None,
        profiles=tuple(sorted(p.value for p in exp.all(GQA + "profile"))),
        software=labels.get(exp.text(PROV + "wasAssociatedWith") or ""),
        software_uri=exp.text(PROV + "wasAssociatedWith"),
        papers=tuple(sorted(p.value for p in exp.all(DCT + "isReferencedBy"))),
        tasks=tuple(tasks),
        uploads=tuple(uploads),
        notes=tuple(sorted(c.value for c in exp.all(RDFS + "comment"))),
        withdrawn_at=exp.text(GQA + "withdrawnAt"),
        withdrawal_reason=exp.text(GQA + "withdrawalReason"),
        calls=tuple(
            (c.name, value) for c in CALL_SETTINGS if (value := exp.text(c.iri)) is not None
        ),
        reproduce=reproduction(exp, nodes, tasks),
        dataset_version=_version_of(nodes.get(dataset or ""), uris),
        dataset_title=exp.text(GQA + "datasetLabel")
        or (nodes[dataset].text(DCT + "title") if dataset in nodes else None),
        dataset_release=nodes[dataset].text(DCAT + "version") if dataset in nodes else None,
        dataset_named=_upload_named(nodes.get(dataset or ""), dataset),
        services=_services(exp, nodes),
    )


INTERFACE_LABELS = {
    "qa": "QA web service (GERBIL QA interface)",
    "text2sparql": "Text2SPARQL service (TEXT2SPARQL'25 interface)",
}


def _services(exp: Node, nodes: dict[str, Node]) -> tuple[tuple[str, str, str], ...]:
    """The web services the experiment asked: each system's name, URL and interface, as its
    graph records them (the page named neither, and a system's page lists every URL it was
    asked at: explore41 F10). A run whose gold was withheld names none (its graph has none)."""
    found = []
    for used in exp.all(PROV + "used"):
        node = nodes.get(used.value)
        url = node.text(GQA + "endpoint") if node is not None else None
        if node is None or url is None:
            continue
        interface = node.text(GQA + "interface")
        name = node.text(DCT + "identifier") or node.text(RDFS + "label") or local(used.value)
        shown = INTERFACE_LABELS.get(interface or "", interface or "web service")
        found.append((name, url, shown))
    return tuple(sorted(found))


def _upload_named(node: Node | None, dataset: str | None) -> str | None:
    """An uploaded dataset (its description has a file's SHA-256) as its page names it, by
    :func:`named_version`; another by its name."""
    from urllib.parse import unquote

    from service.dataset_about import named_version

    if dataset is None:
        return None
    name = unquote(local(dataset))
    if node is None or node.one(GQA + "sha256") is None:
        return name
    return named_version(node.text(DCT + "title"), node.text(DCAT + "version"), name)


def _version_of(dataset: Node | None, uris: Uris) -> tuple[str, str] | None:
    """The registered dataset version (``dataset/NAME/version/V``) an experiment's dataset is
    the kept file of (its results are a dataset of their own, named after the file), and its
    name for a reader."""
    prefix = uris.base + "dataset/"
    for derived in dataset.all(PROV + "wasDerivedFrom") if dataset is not None else []:
        name, sep, version = derived.value.removeprefix(prefix).partition("/version/")
        if derived.value.startswith(prefix) and sep:
            return derived.value, f"{name} version {version}"
    return None


@dataclass(frozen=True, slots=True)
class MatchRow:
    """One given answer matched to one gold answer, and the rule that matched them."""

    given: str
    gold: str
    rule: str  # the rule's code (``same-as``)
    rule_label: str


OUTCOMES = ("correct", "partly", "wrong", "error", "missing", "skipped")
"""What became of a question, for the task page's filter: every answer right (F1 = 1), some
right, none right, the call failed, the answer file has no entry, or left out (no text in the
language, nothing in the gold for this experiment type)."""


def outcome(status: str, f1: float | int | None) -> str:
    if status in ("error", "missing"):
        return status
    if f1 is None or status != "scored":
        return "skipped"
    if f1 >= 1:
        return "correct"
    return "partly" if f1 > 0 else "wrong"


@dataclass(frozen=True, slots=True)
class QuestionRow:
    uri: str
    question: str
    question_id: str
    text: str | None
    status: str
    measures: dict[str, float | int | None]
    given: tuple[str, ...]
    gold: tuple[str, ...]
    note: str | None
    answer_type: str | None
    outcome: str = "skipped"
    features: dict[str, bool] = field(default_factory=dict)  # aggregation, hybrid, onlydbo…
    query_features: tuple[str, ...] = ()  # the dataset's (TEXT2SPARQL: SELECT, COUNT…)
    explained: bool = False  # matches, false and missed answers are recorded
    matches: tuple[MatchRow, ...] = ()
    false: tuple[str, ...] = ()  # given answers no rule matched
    missed: tuple[str, ...] = ()  # gold answers nothing matched
    runtime_ms: float | None = None
    error: str | None = None
    system_query: str | None = None
    query_rewrites: tuple[str, ...] = ()  # what was changed in it before it ran on the KB
    gold_query: str | None = None  # the dataset's, shown beside the system's SPARQL
    attempts: int | None = None  # calls the question took, when it was retried
    confidence: float | None = None  # the system's, for its answer (eQALD-JSON)
    retry_reason: str | None = None
    text_language: str | None = None  # the text's language tag: the page marks it (lang)
    language: str | None = None  # the record's, in a task pooled over several languages
    why: str | None = None  # why a wrong answer matched no gold answer, where a rule can say
    gold_notes: tuple[str, ...] = ()  # why no system, or not even the gold query, scores 1
    # the given answers in the system's order, repeats kept, each with its verdict (correct,
    # wrong, repeated): what K, K1, CWS and MRR read, where the task reports one of them
    ranked: tuple[tuple[str | None, str], ...] = ()
    missing_text: str | None = None  # "no pt-BR text": a no-text row's placeholder

    @property
    def not_scored(self) -> str | None:
        """Why a skipped row was not scored, said where its given answers would be: they are
        not recorded for it, and "Given: none" was said of a system that answered
        (explore56 F7)."""
        if self.status == "no-gold":
            return "no gold"
        if self.status == "no-text":
            return self.missing_text or "no text in the task's language"
        return None

    @property
    def tags(self) -> list[str]:
        """What the row says of its question under its text: answer type, the flags it has,
        the query features the dataset states."""
        flags = [FEATURE_LABELS[f].lower() for f, v in self.features.items() if v]
        return [*filter(None, [self.answer_type]), *flags, *self.query_features]

    def totals(self) -> Totals:
        """How many answers were matched, false and missed: the lists, or the counts when the
        graph holds only the first of a long list (``EXPLAINED_PER_KIND``)."""
        from service.graph.results import EXPLAINED_PER_KIND as CAP

        tp, fp, fn = (int(self.measures.get(m) or 0) for m in ("tp", "fp", "fn"))
        false, missed = len(self.false), len(self.missed)
        return Totals(
            matched=max(len(self.matches), tp),
            false=max(false, fp) if false >= CAP else false,
            missed=max(missed, fn) if missed >= CAP else missed,
        )

    def look_alike(self, answer: str) -> str | None:
        """What the page says beside a false ``answer`` that differs from a missed gold answer
        only in what no reader sees (:func:`look_alike`)."""
        return look_alike(answer, self.missed) if self.missed else None

    @property
    def plain_id(self) -> str:
        """The question's id without the language a pooled task's row adds: ``1 (en)`` -> 1."""
        if self.language:
            return self.question_id.removesuffix(f" ({self.language})")
        return self.question_id

    @property
    def ranked_total(self) -> int:
        """How many answer items ``ranked`` stands for: its items, plus the N of its closing
        ``(None, "N more: …")`` when the graph holds only the first ones."""
        if self.ranked and self.ranked[-1][0] is None:
            more = self.ranked[-1][1].split(" ", 1)[0]
            return len(self.ranked) - 1 + (int(more) if more.isdigit() else 0)
        return len(self.ranked)

    @property
    def given_total(self) -> int:
        """How many answers were given: the list, or tp + fp when the graph holds only the
        first of a long list (``RECORDED_GIVEN``)."""
        from service.graph.results import RECORDED_GIVEN

        if len(self.given) < RECORDED_GIVEN:
            return len(self.given)
        tp, fp = (int(self.measures.get(m) or 0) for m in ("tp", "fp"))
        return max(len(self.given), tp + fp)


class Totals(NamedTuple):
    matched: int
    false: int
    missed: int


FEATURES = ("aggregation", "hybrid", "onlydbo", "outofscope")
# The question properties behind the boolean features (dataset graph, service.graph.questions).
_FEATURE_PROPERTIES = {
    "aggregation": GQA + "aggregation",
    "hybrid": GQA + "hybrid",
    "onlydbo": GQA + "onlyDbo",
    "outofscope": GQA + "outOfScope",
}
FEATURE_LABELS = {
    "aggregation": "Aggregation",
    "hybrid": "Hybrid",
    "onlydbo": "DBpedia ontology only",
    "outofscope": "Out of scope",
}


@dataclass(frozen=True, slots=True)
class QuestionFilter:
    """Which rows of a task page to show (``?outcome=…&answertype=…&aggregation=yes|no…
    &feature=COUNT``): a row is shown when its outcome is one of ``outcomes`` (all when empty),
    its answer type is ``answer_type`` (when given), each feature in ``features`` has the value
    asked for and its query features include ``query_feature`` (when given)."""

    outcomes: frozenset[str] = frozenset()
    answer_type: str | None = None
    features: tuple[tuple[str, bool], ...] = ()
    query_feature: str | None = None

    @classmethod
    def from_args(cls, args: Any) -> QuestionFilter:
        """The filter of a request's query (a bad value is a 400 naming it)."""
        from service.errors import BadRequest

        outcomes = frozenset(v for v in args.getlist("outcome") if v)
        unknown = sorted(outcomes - set(OUTCOMES))
        if unknown:
            raise BadRequest(f"outcome={unknown[0]!r}: expected one of {', '.join(OUTCOMES)}")
        features = []
        for name in FEATURES:
            raw = args.get(name, "")
            if raw in ("", "any"):
                continue
            if raw not in ("yes", "no"):
                raise BadRequest(f"{name}={raw!r}: expected yes, no or any")
            features.append((name, raw == "yes"))
        return cls(
            outcomes,
            args.get("answertype") or None,
            tuple(features),
            args.get("feature") or None,
        )

    @property
    def active(self) -> bool:
        return bool(self.outcomes or self.answer_type or self.features or self.query_feature)

    def keeps(self, row: QuestionRow) -> bool:
        if self.outcomes and row.outcome not in self.outcomes:
            return False
        if self.answer_type and row.answer_type != self.answer_type:
            return False
        if self.query_feature and self.query_feature not in row.query_features:
            return False
        return all(row.features.get(name) is value for name, value in self.features)

    def args(self) -> dict[str, Any]:
        """The filter as query arguments (for the pager's links)."""
        out: dict[str, Any] = {}
        if self.outcomes:
            out["outcome"] = [o for o in OUTCOMES if o in self.outcomes]
        if self.answer_type:
            out["answertype"] = self.answer_type
        for name, value in self.features:
            out[name] = "yes" if value else "no"
        if self.query_feature:
            out["feature"] = self.query_feature
        return out


@dataclass(frozen=True, slots=True)
class TaskPage:
    task: TaskRow
    experiment_id: str
    rows: tuple[QuestionRow, ...]
    warnings: tuple[str, ...] = ()  # about the system's answers, in order (gqa:warning)

    @property
    def without_kb(self) -> bool:
        """Scored under a profile that looks labels and owl:sameAs up in a KB, with none: the
        signature ends ``kb:none`` (``kb:no`` for a profile that uses none)."""
        return (self.task.signature or "").endswith("|kb:none")

    def outcome_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(OUTCOMES, 0)
        for r in self.rows:
            counts[r.outcome] += 1
        return counts

    @property
    def answer_types(self) -> list[str]:
        return sorted({r.answer_type for r in self.rows if r.answer_type})

    @property
    def features(self) -> list[str]:
        """The flags worth filtering by: those the breakdown offers (``slices.offered``: with
        both values among the questions; a filter on a flag no question has, or all have,
        shows all or nothing)."""
        from service.evaluation.slices import offered

        values: dict[str, set[str]] = {}
        for r in self.rows:
            for name, value in r.features.items():
                values.setdefault(name, set()).add("yes" if value else "no")
        shown = offered(values)
        return [f for f in FEATURES if f in shown]

    @property
    def query_features(self) -> list[str]:
        """The query features the dataset states for some question (TEXT2SPARQL's)."""
        return sorted({f for r in self.rows for f in r.query_features})


def _ranked(text: str | None) -> tuple[tuple[str | None, str], ...]:
    """``gqa:rankedAnswers`` read back, each item displayed as the given answers are (its last
    pair, after the first 100, says how many more and their verdicts: ``(None, "N more: …")``)."""
    from service.evaluation.results import read_ranked
    from service.graph.nodes import displayed_term

    # an empty answer is shown as "" (shown empty, its CSV cell read as an answer named
    # "wrong": explore31 F4)
    return tuple(
        (None if a is None else (_display(displayed_term(a)) or '""'), v)
        for a, v in read_ranked(text)
    )


def _ranked_cell(ranked: Sequence[tuple[str | None, str]]) -> str:
    """The ``rankedAnswers`` CSV cell: ``item [verdict]`` in the system's order (then the
    closing ``… N more: …``, which no item is: it has no verdict in brackets)."""
    return items_cell([f"{a} [{v}]" if a is not None else f"… {v}" for a, v in ranked])


def _unseen(char: str) -> bool:
    """A character that shows nothing: a format character (zero-width space and joiners,
    direction marks, the soft hyphen, a BOM: category Cf) or a variation selector."""
    import unicodedata

    code = ord(char)
    return (
        unicodedata.category(char) == "Cf" or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF
    )


def look_alike(given: str, golds: Iterable[str]) -> str | None:
    """Where ``given`` differs from one of ``golds`` only in invisible characters or in Unicode
    normalisation, a short note naming that gold and the difference: a page showed ``Teh​ran``
    (U+200B) marked false beside the gold ``Tehran``, identical to a reader (explore53 F9).

    >>> look_alike("Teh\u200bran", ["Paris", "Tehran"])
    'differs from the gold Tehran only in invisible characters (U+200B)'
    >>> look_alike("Cafe\u0301", ["Caf\u00e9"])
    'differs from the gold Café only in Unicode normalisation (composed and decomposed forms)'
    >>> look_alike("Tehran", ["Teheran"]) is None
    True
    """
    import unicodedata
    from collections import Counter

    if given.isascii():
        golds = [g for g in golds if not g.isascii()]  # two ASCII strings differ visibly
    for gold in golds:
        if gold == given:
            continue
        seen = ["".join(c for c in text if not _unseen(c)) for text in (given, gold)]
        if unicodedata.normalize("NFC", seen[0]) != unicodedata.normalize("NFC", seen[1]):
            continue
        unseen = [Counter(c for c in text if _unseen(c)) for text in (given, gold)]
        hidden = sorted((unseen[0] - unseen[1]) + (unseen[1] - unseen[0])) or sorted(unseen[0])
        kinds = []
        if unicodedata.normalize("NFC", given) != unicodedata.normalize("NFC", gold):
            codes = ", ".join(f"U+{ord(c):04X}" for c in hidden)  # the ones added or left out
            kinds.append(f"invisible characters ({codes})")
        if seen[0] != seen[1]:
            kinds.append("Unicode normalisation (composed and decomposed forms)")
        return f"differs from the gold {gold} only in {' and '.join(kinds)}"
    return None


class Said(str):
    """An answer as a page shows it, with the language tag of its own literal (``language``),
    the one a page marks it with (``lang``), and whether it is a plain literal in words
    (``words``), which a page marks with the question's language: an answer in words is most
    likely in it (PolEval's Polish answers were read as English). A number, a boolean, any
    typed literal and an IRI are in no language: the question's was put on every answer,
    ``8.1741E10`` marked ``lang="fa"``, ``true (xsd:boolean)`` ``lang="de"`` (explore56 F2)."""

    language: str | None
    words: bool

    def __new__(cls, text: str, language: str | None = None, *, words: bool = False) -> Said:
        said = super().__new__(cls, text)
        said.language = language
        said.words = words
        return said

    def written_like(self, text: str | None, language: str | None = None) -> bool:
        """Whether this answer's letters are all in a script the question's ``language`` is
        written in (:data:`LANGUAGE_SCRIPTS`), or, for a language not listed there, in the
        script the question ``text`` is mostly written in: only then is it marked with the
        question's language. ``Damavand`` in a Persian question was marked ``lang="fa"`` (a
        Latin name; explore56 F2), and so was ``Iran`` when the Persian question had one Latin
        word (explore61 F11); by the main script alone, a Japanese question with long Latin
        names marked ``Haruki Murakami`` ja and left ``村上春樹`` unmarked, and a Serbian answer
        in the other Serbian alphabet lost ``sr`` (explore66 F5, F6)."""
        scripts = {s for c in self if c.isalpha() and (s := _script(c)) is not None}
        if not text:
            return False
        written = LANGUAGE_SCRIPTS.get((language or "").replace("_", "-").split("-")[0].lower())
        if written is not None:
            return scripts <= written
        main = _main_script(text)
        return all(_SAME_VOICE.get(s, s) == main for s in scripts)


# The scripts a language is written in (its primary subtag; the script names are those of
# _script): an answer in one of them is marked with the question's language. The languages
# of QALD, LC-QuAD, PolEval and TEXT2SPARQL and their neighbours; any other keeps the
# main-script rule (Said.written_like).
_WRITTEN_IN = (
    ("LATIN", "en de es fr it nl pt ro pl cs sk sl hr bs hu fi et lv lt sv da no nb nn is tr"),
    ("LATIN", "az id ms vi ca eu gl ga cy sq mt sw tl af lb eo la"),
    ("CYRILLIC", "ru uk be bg mk kk ky tg mn ba tt"),
    ("CYRILLIC LATIN", "sr uz"),
    ("ARABIC", "ar fa ur ps ug"),
    ("DEVANAGARI", "hi mr ne sa"),
    ("HEBREW", "he yi"),
    ("GREEK", "el"),
    ("HAN KANA", "ja"),
    ("HAN", "zh"),
    ("HANGUL HAN", "ko"),
    ("THAI", "th"),
    ("ARMENIAN", "hy"),
    ("GEORGIAN", "ka"),
    ("BENGALI", "bn"),
    ("TAMIL", "ta"),
    ("TELUGU", "te"),
    ("KANNADA", "kn"),
    ("MALAYALAM", "ml"),
    ("GUJARATI", "gu"),
    ("GURMUKHI", "pa"),
    ("ETHIOPIC", "am"),
)
LANGUAGE_SCRIPTS: dict[str, frozenset[str]] = {
    language: frozenset(scripts.split())
    for scripts, languages in _WRITTEN_IN
    for language in languages.split()
}

# kanji and kana, one script as far as a reader's voice goes in the main-script rule
_SAME_VOICE = {"HAN": "HAN+KANA", "KANA": "HAN+KANA"}
_SCRIPT_OF = {
    **dict.fromkeys(("CJK", "IDEOGRAPHIC"), "HAN"),
    **dict.fromkeys(("HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"), "KANA"),
    **dict.fromkeys(("FEMININE", "MASCULINE"), "LATIN"),
}


def _script(char: str) -> str | None:
    """The script of a letter, by the first word of its Unicode name (LATIN, ARABIC, CYRILLIC,
    DEVANAGARI, HANGUL …; HAN for kanji, KANA for hiragana and katakana); None: a letter of no
    one script — modifier letters (the Uzbek ``ʻ``, the long-vowel mark ``ー``) and the micro
    sign. The ordinal indicators ``ª º`` are Latin (their names start FEMININE, MASCULINE:
    explore61 F10)."""
    import unicodedata

    if unicodedata.category(char) == "Lm":
        return None
    name = unicodedata.name(char, "").removeprefix("HALFWIDTH ").removeprefix("FULLWIDTH ")
    word = name.split(" ", 1)[0]
    if word == "MICRO" or not word:
        return None
    return _SCRIPT_OF.get(word, word)


@lru_cache(maxsize=1024)
def _main_script(text: str) -> str | None:
    """The script most of ``text``'s letters are in, kanji and kana counted as one (asked once
    per answer of a question: kept per text, as a task page asks it of the same question for
    each of its answers)."""
    from collections import Counter

    counted = Counter(
        _SAME_VOICE.get(s, s) for c in text if c.isalpha() and (s := _script(c)) is not None
    )
    return counted.most_common(1)[0][0] if counted else None


def _display(term: Any) -> str:
    import pyoxigraph as ox

    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.Literal):
        if term.language:
            return Said(f"{term.value} @{term.language}", canonical_tag(term.language))
        datatype = term.datatype.value
        if datatype.startswith(_XSD) and datatype != _XSD + "string":
            return f"{term.value} (xsd:{datatype[len(_XSD) :]})"  # 2 (xsd:integer)
        return Said(term.value, words=any(c.isalpha() for c in term.value))
    return str(term)


_XSD = "http://www.w3.org/2001/XMLSchema#"


def _rule_label(code: str) -> str:
    from service.evaluation.results import MATCH_RULES, MatchRule

    try:
        return MATCH_RULES[MatchRule(code)].label
    except ValueError:  # a rule of a newer vocabulary than this code
        return code


def _matches(node: Node, nodes: dict[str, Node]) -> tuple[MatchRow, ...]:
    exact = _rule_label("exact")
    out = [
        MatchRow(given=a, gold=a, rule="exact", rule_label=exact)
        for a in map(_display, node.all(GQA + "exactAnswer"))
    ]
    for m in node.all(GQA + "answerMatch"):
        found = nodes.get(m.value)
        if found is None:
            continue
        code = local(found.text(GQA + "matchRule")).removeprefix("rule-")
        given, gold = found.one(GQA + "matchedGiven"), found.one(GQA + "matchedGold")
        out.append(
            MatchRow(
                given=_display(given) if given is not None else "",
                gold=_display(gold) if gold is not None else "",
                rule=code,
                rule_label=_rule_label(code),
            )
        )
    return tuple(sorted(out, key=lambda m: (m.given, m.gold)))


EXPLANATIONS = tuple(GQA + p for p in ("exactAnswer", "answerMatch", "falseAnswer", "missedAnswer"))
# What the task page reads of a question whose results are explained (no gold answers).
QUESTION_PROPERTIES = (
    DCT + "identifier",
    GQA + "questionText",
    GQA + "answerType",
    GQA + "goldQuery",  # shown beside a system's SPARQL
    GQA + "goldAnswerCount",  # 0: the gold is empty (a note says so where the rule scores 0)
    GQA + "queryFeature",  # TEXT2SPARQL's, filtered by
    *_FEATURE_PROPERTIES.values(),
)


def explained(nodes: dict[str, Node]) -> bool:
    """Whether the results among ``nodes`` carry their explanation (written since it exists)."""
    return any(p in node.props for node in nodes.values() for p in EXPLANATIONS)


def question_text(texts: Sequence[Any], language: str) -> Any | None:
    """The text of a question a task in ``language`` asked: the one of that tag, compared
    without regard to case (BCP 47, RDF 1.1: the store keeps ``pt_BR`` as ``@pt-br``), else for a
    bare language (``pt``) one of its regional tags, as the run took it; else the first. The
    page looked the tag up as written, so a ``pt-BR`` or ``zh-Hant-TW`` task showed the English
    text (explore53 F4). A row skipped for having no text in the task's language is not
    given this fallback (:func:`task_page`: explore56 F1)."""
    from service.model import same_language

    wanted = same_language(language)
    langs = [same_language(getattr(t, "language", None) or "") for t in texts]
    for i, lang in enumerate(langs):
        if lang == wanted:
            return texts[i]
    if "-" not in wanted:
        for i, lang in enumerate(langs):
            if lang.startswith(wanted + "-"):
                return texts[i]
    return texts[0] if texts else None


def task_page(
    experiment_id: str,
    task_uri: str,
    nodes: dict[str, Node],
    questions: dict[str, Node],
    language: str,
    *,
    uris: Uris,
) -> TaskPage:
    """The rows of a task's page from its document's nodes (``describe.index``) and its
    questions' descriptions."""
    from service.evaluation.profiles import explains_misses, why_wrong
    from service.evaluation.profiles.base import gold_alternatives_in

    task_node = nodes.get(task_uri) or Node(task_uri)
    task = _task_row(task_node, nodes, uris)
    alternatives = gold_alternatives_in(task.signature or "")
    explains = explains_misses(task.profile)  # poleval says why an answer was wrong
    rows: list[QuestionRow] = []
    for uri, node in nodes.items():
        if node.text(GQA + "resultOf") != task_uri:
            continue
        question_uri = node.text(GQA + "question") or ""
        q = questions.get(question_uri)
        texts = q.all(GQA + "questionText") if q else []
        asked_in = local(node.text(GQA + "language")) or None  # a task pooled over languages
        # a pooled task's result is …/question/{id}@{tag}: the tag, which gqa:language's ISO
        # 639 code (pt for pt-BR) drops
        tag = uri.rpartition("@")[2] if asked_in and "@" in uri.rpartition("/")[2] else None
        wanted = unquote(tag) if tag else asked_in or language
        measures = {m: number(node.one(q.iri)) for m, q in QUESTION_MEASURE_INFO.items()}
        status = local(node.text(GQA + "questionStatus")).removeprefix("status-")
        # a question with no text in the task's language: a placeholder, not another
        # language's text (the first stored, de or ro on a pt-BR page, marked so: explore56 F1)
        shown = None if status == "no-text" else question_text(texts, wanted)
        missing_text = f"no {canonical_tag(wanted)} text" if status == "no-text" else None
        features = {}
        if q is not None:
            for name, prop in _FEATURE_PROPERTIES.items():
                value = q.text(prop)
                if value is not None:
                    features[name] = value == "true"
        matches = _matches(node, nodes)
        false = tuple(sorted(_display(v) for v in node.all(GQA + "falseAnswer")))
        missed = tuple(sorted(_display(v) for v in node.all(GQA + "missedAnswer")))
        given = tuple(sorted(_display(v) for v in node.all(GQA + "givenAnswer")))
        why = (
            why_wrong(
                task.profile,
                [v.value for v in node.all(GQA + "givenAnswer")],
                sorted(v.value for v in node.all(GQA + "missedAnswer")),
            )
            if explains
            else None
        )
        if alternatives:  # one gold answer in several forms: one item, and only if missed
            missed = _one_answer(missed) if measures.get("fn") else ()
        runtime, attempts = node.one(GQA + "runtime"), number(node.one(GQA + "attempts"))
        rows.append(
            QuestionRow(
                uri=uri,
                question=question_uri,
                question_id=((q.text(DCT + "identifier") if q else None) or local(question_uri))
                + (f" ({canonical_tag(unquote(tag)) if tag else asked_in})" if asked_in else ""),
                text=shown.value if shown is not None else None,
                text_language=canonical_tag(written)
                if (written := getattr(shown, "language", None))
                else None,
                status=status,
                missing_text=missing_text,
                measures=measures,
                given=given,
                gold=tuple(sorted(_display(v) for v in q.all(GQA + "goldAnswer"))) if q else (),
                note=node.text(GQA + "note"),
                answer_type=local(q.text(GQA + "answerType")).removeprefix("answerType-")
                if q and q.text(GQA + "answerType")
                else None,
                outcome=outcome(status, measures.get("f1")),
                features=features,
                query_features=tuple(dict.fromkeys(v.value for v in q.all(GQA + "queryFeature")))
                if q
                else (),
                explained=bool(matches or false or missed),
                matches=matches,
                false=false,
                missed=missed,
                runtime_ms=number(runtime) if runtime is not None else None,
                error=node.text(GQA + "errorMessage"),
                system_query=node.text(GQA + "systemQuery"),
                query_rewrites=tuple(sorted(v.value for v in node.all(GQA + "queryRewrite"))),
                gold_query=q.text(GQA + "goldQuery") if q else None,
                attempts=int(attempts) if attempts else None,
                confidence=number(node.one(GQA + "confidence")),
                retry_reason=node.text(GQA + "retryReason"),
                language=asked_in,
                why=why,
                ranked=_ranked(node.text(GQA + "rankedAnswers")),
                gold_notes=gold_notes(
                    task.signature or "",
                    q,
                    system_query=node.text(GQA + "systemQuery"),
                    f1=measures.get("f1"),
                ),
            )
        )
    if any(r.explained for r in rows):  # results written with explanations: empty ones too
        rows = [replace(r, explained=r.measures.get("tp") is not None) for r in rows]
    # a task pooled over languages: 1 (en), 1 (es), 2 (en) …, not as strings (1, 10, 100, 11)
    rows.sort(key=lambda r: (_natural(r.plain_id), r.language or ""))
    return TaskPage(
        task=task,
        experiment_id=experiment_id,
        rows=tuple(rows),
        warnings=_warnings(task_node, nodes),
    )


EMPTY_GOLD_NOTE = "the official result set is empty: every system scores 0 here"
FALSE_ASK_NOTE = (
    "the gold ASK is false: no relevant item (the official rule), so every system scores 0 here"
)
SAME_QUERY_NOTE = (
    "the system's query is the gold query, yet it scores below 1: the official result set was "
    "computed by another engine (ties under ORDER BY … LIMIT broken another way, casts)"
)


def gold_false(question: Node | None) -> bool:
    """Whether ``question``'s gold is one boolean, false (an ASK's)."""
    gold = question.all(GQA + "goldAnswer") if question is not None else []
    return (
        len(gold) == 1
        and getattr(getattr(gold[0], "datatype", None), "value", None) == _XSD + "boolean"
        and gold[0].value in ("false", "0")
    )


def gold_notes(
    signature: str,
    question: Node | None,
    *,
    system_query: str | None = None,
    f1: float | int | None = None,
) -> tuple[str, ...]:
    """What a question's gold means for every system under a profile whose ``signature``
    scores an empty gold 0 (``empty:0/0``) and an ASK's false gold as no relevant item
    (``ask:gold-true-relevant…``): TEXT2SPARQL'25's rules, which score even the gold query
    0 there (explore41 F1); else, where the system's query is the gold query (whitespace
    aside) but scores below 1, that the gold answers came from another engine."""
    if question is None:
        return ()
    rules = {part.partition(":")[0]: part.partition(":")[2] for part in signature.split("|")}
    if rules.get("ask", "").startswith("gold-true-relevant") and gold_false(question):
        return (FALSE_ASK_NOTE,)
    if rules.get("empty") == "0/0" and question.text(GQA + "goldAnswerCount") == "0":
        return (EMPTY_GOLD_NOTE,)
    gold_query = question.text(GQA + "goldQuery")
    if (
        system_query
        and gold_query
        and f1 is not None
        and f1 < 1
        and " ".join(system_query.split()) == " ".join(gold_query.split())
    ):
        return (SAME_QUERY_NOTE,)
    return ()


def _warnings(task: Node, nodes: dict[str, Node]) -> tuple[str, ...]:
    """The task's warnings about the answers, in the order the scorer gave them."""
    found = []
    for w in task.all(GQA + "warning"):  # blank nodes, indexed as _:id
        node = nodes.get(f"_:{w.value}") or nodes.get(w.value)
        if node is not None and (text := node.text(RDFS + "comment")):
            found.append((number(node.one(GQA + "position")) or 0, text))
    return tuple(text for _, text in sorted(found))


def _one_answer(alternatives: tuple[str, ...]) -> tuple[str, ...]:
    """Alternatives of one gold answer shown as one: ``4 (or czterech, czworo)``."""
    if len(alternatives) < 2:
        return alternatives
    return (f"{alternatives[0]} (or {', '.join(alternatives[1:])})",)


def _natural(text: str) -> tuple[int, int | str]:
    return (0, int(text)) if text.isdigit() else (1, text)


def experiment_csv(page: ExperimentPage) -> bytes:
    names = measure_order()
    used = [n for n in names if any(n in t.measures for t in page.tasks)]
    header = [
        "task",
        "system",
        "dataset",
        "experimentType",
        "language",
        "profile",
        "profileVersion",
        "signature",
        *used,
    ]
    # each stored 95 % interval after the numbers (columns only added, as in the JSON)
    bounded = [n for n in used if any(n in t.intervals for t in page.tasks)]
    if bounded:
        header += [f"{n}{end}" for n in bounded for end in ("Low", "High")]
        header.append("intervalSignature")
    # a pooled task's language is mul; which languages it pooled, as the API's "language" says
    header.append("languageTag")
    # last, on how many resamples an interval's measure was undefined, where any was (its
    # bounds are empty when more than one tail's worth: 25 of 1,000)
    counted = [n for n in bounded if any(n in t.undefined_resamples for t in page.tasks)]
    header += [f"{n}UndefinedResamples" for n in counted]
    rows = [
        [
            t.uri,
            t.system,
            t.dataset,
            t.experiment_type,
            t.language,
            t.profile,
            t.profile_version,
            t.signature,
            *(t.measures.get(n) for n in used),
            *_interval_cells(t, bounded),
            t.language_tag,
            *(t.undefined_resamples.get(n) for n in counted),
        ]
        for t in page.tasks
    ]
    return csv_table(header, rows)


def _interval_cells(task: TaskRow, bounded: Sequence[str]) -> list[Any]:
    """A task's interval bounds in the CSV's order, then its interval signature (empty where
    it has none: undefined on the resamples, or a task recorded before intervals were)."""
    if not bounded:
        return []
    cells: list[Any] = []
    for name in bounded:
        low, high = task.intervals.get(name) or (None, None)
        cells += [low, high]
    return [*cells, task.interval_signature]


def task_csv(page: TaskPage) -> bytes:
    """One row a question result; after the answers (columns only added) what the page shows
    and filters by: the record's language in a pooled task, the outcome, the answer type and
    the flags, as the filters spell them (``yes``/``no``), so a table is sliced without RDF;
    then the runtime, error, attempts, retry reason and confidence the page shows, and last
    each match with its rule (``given = gold [rule]``, ``given [exact]``): why an answer in
    another form counted, which the page said and the table did not; the system's and the gold
    SPARQL when the system gave queries; last, ``rankedAnswers``: the given answers in the
    system's order, repeats kept, each with its verdict (``<a> [correct] | <b> [wrong]``),
    which the confidence and rank measures read; then the profile's ``note`` of the question."""
    header = ["result", "question", "id", "status", *QUESTION_MEASURES, "given", "gold"]
    header += ["language", "outcome", "answertype", *FEATURES]
    # then how a service's call went, as the API's keys name it (the page showed it, the CSV
    # did not: a failed question was "error" with no reason)
    header += ["runtimeMs", "error", "attempts", "retryReason", "confidence", "matches"]
    # why a wrong answer matched nothing, for profiles whose rules can say it (poleval), as the
    # experiment CSV has the columns of the measures its tasks have
    from service.evaluation.profiles import explains_misses

    why = explains_misses(page.task.profile)
    if why:
        header.append("why")
    # a system that gave SPARQL (a Text2SPARQL service): its query and the gold one, as the
    # page shows them side by side, for a table of what failed and what it should have been
    queries = any(r.system_query for r in page.rows)
    if queries:
        # and what was changed in the system's query before it ran, as the page says it
        header += ["systemQuery", "goldQuery", "queryRewrites"]
    # a TEXT2SPARQL dataset's query features (SELECT, COUNT…), which the page filters by
    featured = any(r.query_features for r in page.rows)
    if featured:
        header.append("queryFeatures")
    # last, the given answers in the system's order with repeats, each with its verdict
    # (``given`` is sorted and distinct): what K, K1, CWS and MRR read, empty where the task
    # reports none of them (explore28 F10)
    header.append("rankedAnswers")
    # after it, what the profile noted of the question (fair: a written form it does not
    # read as a number or date; text2sparql: an ASK answered false), as the page and the
    # API's per-question ``note`` say it (explore33 F8)
    header.append("note")
    # last, every task's: a wrong answer that differs from a missed gold one only in what no
    # reader sees, as the page says beside it (``<given>: differs from the gold … only in …``);
    # the table gave two strings that look equal and a wrong verdict without a word (explore53)
    header.append("lookAlike")
    rows = [
        [
            r.uri,
            r.question,
            r.plain_id,  # the language has its column: "1", not "1 (en)"
            r.status,
            *(r.measures.get(m) for m in QUESTION_MEASURES),
            items_cell(r.given),
            items_cell(r.gold),
            # a one-language task's records name none: the task's (empty cells read as
            # unknown, explore24 4)
            r.language or (None if "," in page.task.language_tag else page.task.language_tag),
            r.outcome,
            r.answer_type,
            *(_yes_no(r.features.get(f)) for f in FEATURES),
            r.runtime_ms,  # as the API gives it (its JSON and this table agree to the digit)
            r.error,
            r.attempts,
            r.retry_reason,
            r.confidence,
            items_cell([_match_cell(m) for m in r.matches]),
            *([r.why] if why else []),
            *(
                [r.system_query, r.gold_query, items_cell(list(r.query_rewrites))]
                if queries
                else []
            ),
            *([items_cell(list(r.query_features))] if featured else []),
            _ranked_cell(r.ranked),
            r.note,
            items_cell([f"{a}: {note}" for a in r.given if (note := r.look_alike(a))]),
        ]
        for r in page.rows
    ]
    return csv_table(header, rows)


def _match_cell(match: MatchRow) -> str:
    """A match as the CSV writes it: ``given = gold [rule]``, the gold left out when it is
    the given answer itself."""
    pair = match.given if match.given == match.gold else f"{match.given} = {match.gold}"
    return f"{pair} [{match.rule}]"


def _yes_no(flag: bool | None) -> str | None:
    return None if flag is None else ("yes" if flag else "no")


# --- datasets: the check findings summarised, not inlined -----------------------------------


@dataclass(frozen=True, slots=True)
class FindingRow:
    uri: str
    message: str
    question: str | None  # the question's URI
    question_id: str | None


@dataclass(frozen=True, slots=True)
class FindingGroup:
    """The findings of one kind and severity: how many, and the first few."""

    kind: str  # its code (``empty-gold``)
    label: str
    severity: str
    count: int
    examples: tuple[FindingRow, ...]


FINDING_EXAMPLES = 3


def finding_rows(nodes: dict[str, Node], dataset_uri: str) -> list[FindingRow]:
    """Every finding of the dataset (its ``gqa:finding`` hash resources), in number order."""
    main = nodes.get(dataset_uri)
    out = []
    for f in main.all(GQA + "finding") if main else []:
        node = nodes.get(f.value)
        if node is None:
            continue
        question = node.text(GQA + "aboutQuestion")
        out.append(
            FindingRow(
                uri=f.value,
                message=node.text(RDFS + "comment") or "",
                question=question,
                question_id=local(question) if question else None,
            )
        )
    return sorted(out, key=lambda r: _natural(r.uri.rsplit("-", 1)[-1]))


def finding_kinds(nodes: dict[str, Node]) -> dict[str, tuple[str, str]]:
    """Finding URI -> (kind code, severity)."""
    out = {}
    for uri, node in nodes.items():
        kind = node.text(GQA + "findingKind")
        if kind is not None:
            out[uri] = (local(kind).removeprefix("finding-"), node.text(GQA + "severity") or "")
    return out


def grouped_findings(findings: Sequence[Any]) -> list[FindingGroup]:
    """Check findings not stored yet (``Finding``s: an unpublished upload's, for its owner),
    grouped as :func:`finding_groups` groups stored ones; no question links (not public)."""
    from service.graph.vocabulary import labels

    names = labels()
    grouped: dict[tuple[str, str], list[FindingRow]] = {}
    for f in findings:
        row = FindingRow("", f.message, None, f.question_id)
        grouped.setdefault((f.kind, f.severity), []).append(row)
    return _ordered_groups(grouped, names)


def _ordered_groups(
    grouped: dict[tuple[str, str], list[FindingRow]], names: dict[str, str]
) -> list[FindingGroup]:
    groups = [
        FindingGroup(
            kind=kind,
            label=names.get(f"{GQA}finding-{kind}", kind),
            severity=severity,
            count=len(rows),
            examples=tuple(rows[:FINDING_EXAMPLES]),
        )
        for (kind, severity), rows in grouped.items()
    ]
    return sorted(groups, key=lambda g: (g.severity != "error", -g.count, g.kind))


def finding_groups(nodes: dict[str, Node], dataset_uri: str) -> list[FindingGroup]:
    """The findings grouped by kind and severity (errors first, then the largest groups)."""
    from service.graph.vocabulary import labels

    names = labels()
    kinds = finding_kinds(nodes)
    grouped: dict[tuple[str, str], list[FindingRow]] = {}
    for row in finding_rows(nodes, dataset_uri):
        grouped.setdefault(kinds.get(row.uri, ("", "")), []).append(row)
    return _ordered_groups(grouped, names)
