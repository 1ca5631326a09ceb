"""Experiment results as RDF: Data Cube observations plus PROV-O provenance (pure, no store).

An experiment is a ``qb:DataSet`` (its observations are the tasks) and a ``prov:Activity``. Each
task (system x dataset x experiment type x language x profile) is one observation carrying every
measure; the per-question observations of a task form their own ``qb:DataSet``
(``…/task/{n}#questions``), so Data Cube IC-12 compares only questions of one task. Each data
set's structure lists exactly the measures every one of its observations has (IC-14): a measure
that is undefined for some observation (``None`` in the results, e.g. macro F1 QALD when both
means are 0) is recorded as ``gqa:undefinedMeasure`` on that observation instead of a made-up
number, and left out of the structure.
"""

from __future__ import annotations

import hashlib
import operator
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeAlias

from service.errors import Problem
from service.evaluation.languages import SEPARATOR as POOLED_SEPARATOR
from service.evaluation.measures import MEASURES
from service.evaluation.measures import QUESTION_MEASURES as _QUESTION_MEASURES
from service.evaluation.results import (
    Evaluation,
    ExperimentType,
    MatchRule,
    QuestionScore,
    TaskScores,
    ranked_text,
    reads_order,
)
from service.graph import nodes as n
from service.graph import prov
from service.graph import terms as t
from service.graph.nodes import BlankNode, Literal, NamedNode, Quad, node
from service.graph.terms import DCAT, DCT, PROV, QB, RDF, RDFS, SPDX, XSD
from service.graph.uris import GERBIL, GQA, Uris, enc
from service.model import Dataset
from service.release import Source

Subject: TypeAlias = NamedNode | BlankNode
Object: TypeAlias = NamedNode | BlankNode | Literal

TASK_DIMENSIONS = ("system", "dataset", "experimentType", "language", "profile")
# A question observation's task fixes system, dataset, type, language and profile: its
# dimensions are the task and the question (joins reach the rest through gqa:resultOf).
QUESTION_DIMENSIONS = ("resultOf", "question")
QUESTION_MEASURES = tuple(_QUESTION_MEASURES)
_question_values = operator.attrgetter(*QUESTION_MEASURES)
TYPE = node(RDF + "type")


@dataclass(frozen=True, slots=True)
class UploadedFile:
    """A file given to an experiment: its name as uploaded, SHA-256, size and role."""

    name: str
    sha256: str
    size: int
    role: str = "answers"  # one of service.model.FILE_ROLES
    system: str | None = None  # whose answers (role "answers")
    media_type: str | None = None


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """What is known about a system besides its name (web-service address, description)."""

    name: str
    label: str | None = None
    endpoint: str | None = None
    description: str | None = None
    interface: str | None = None  # how the endpoint was called (INTERFACES: qa, text2sparql)
    reference: bool = False  # runs here to give a reference (gqa:ReferenceSystem)


@dataclass(frozen=True, slots=True)
class DatasetRef:
    """The dataset of an experiment as the graph names it.

    ``catalogued`` datasets are described (and their questions stored) in public graphs; others
    (uploads) are described inside the experiment's own graph, so they stay private with it.
    """

    name: str
    catalogued: bool
    dataset: Dataset | None = None
    title: str | None = None
    sha256: str | None = None
    version_of: str | None = None  # the registered version (its URI) this is the file of
    # an upload's: what its author says of it (``service.dataset_about``)
    about: tuple[tuple[str, tuple[str, ...]], ...] = ()
    described: bool = False  # a published description says what it is: no default one
    published_by: bool = False  # a published description names its author as publisher
    # a published upload's description, which a later run's graph restates (its triples:
    # ``uploads.published_description``), so its own page and citation name its version too
    restated: tuple[tuple[Any, Any, Any], ...] = ()
    # its gold is withheld (``about.gold``) and not revealed yet: its questions are written
    # without it and its tasks without any question's result (``service.graph.questions.GIVEN``)
    gold_withheld: bool = False

    @classmethod
    def catalogue(
        cls, name: str, dataset: Dataset | None = None, *, sha256: str | None = None
    ) -> DatasetRef:
        """A dataset of the catalogue (or one of its versions), under its public URI."""
        return cls(name, True, dataset, sha256=sha256)

    @classmethod
    def upload(
        cls, label: str, dataset: Dataset | None, *, sha256: str | None = None
    ) -> DatasetRef:
        """A dataset that is not in the catalogue, named ``{label}-{hash8}`` (the file's
        SHA-256 when known, else a hash of its questions)."""
        digest = sha256 or (dataset_content_hash(dataset) if dataset else None)
        name = uploaded_dataset_name(label, digest or hashlib.sha256(label.encode()).hexdigest())
        return cls(name, False, dataset, title=label, sha256=sha256)


@dataclass(frozen=True, slots=True)
class ExperimentRecord:
    """Everything :func:`experiment_quads` writes for one finished experiment."""

    experiment_id: str
    evaluations: tuple[Evaluation, ...]
    dataset: DatasetRef
    started: datetime
    ended: datetime
    software: Source
    systems: tuple[SystemInfo, ...] = ()
    uploads: tuple[UploadedFile, ...] = ()
    notes: tuple[str, ...] = ()  # about the run as a whole (a system left out, and why)
    # how its web services were called: (property IRI, datatype, value) of each call setting
    call_settings: tuple[tuple[str, str, float], ...] = ()


DCATAP = "http://data.europa.eu/r5r/"


def _distribution_triples(
    f: NamedNode, up: UploadedFile, ref: DatasetRef, uris: Uris, eid: str
) -> list[tuple[NamedNode, NamedNode, Object]]:
    """An uploaded dataset's file as its ``dcat:Distribution`` (:func:`distribution_triples`)."""
    licence = dict(ref.about).get("license")
    download = uris.upload_download(eid, up.sha256)
    if ref.gold_withheld and up.role != "questions":
        # its download answers 403 until the reveal: the access URL is the dataset's page,
        # which says its gold is withheld, and no availability says it can be downloaded
        # (explore29 12); the reveal adds both (``reveal.served_files``)
        from service.graph import dcat

        stable = dcat.AUTHORITY + "planned-availability/STABLE"
        said = distribution_triples(
            f, up.name, uris.dataset(ref.name), up.media_type, licence[0] if licence else None
        )
        return [t for t in said if stable not in (t[0].value, t[2].value)]
    return distribution_triples(
        f, up.name, download, up.media_type, licence[0] if licence else None
    )


def distribution_triples(
    f: NamedNode, name: str, download: str, media_type: str | None, licence: str | None
) -> list[tuple[NamedNode, NamedNode, Object]]:
    """An uploaded file ``f`` (its ``name``, download address, media type) as the
    ``dcat:Distribution`` of its dataset (whose ``licence`` it carries): what DCAT-AP asks of
    one (an access URL, a description, format, licence, availability), the EU concepts
    described. Also what ``gerbil-qa upgrade`` gives an upload an older version published
    without it (``uploads.complete_published_uploads``)."""
    from service.graph import dcat

    out: list[tuple[NamedNode, NamedNode, Object]] = [
        (f, TYPE, _p(DCAT, "Distribution")),
        (f, _p(DCAT, "accessURL"), node(download)),
        (
            f,
            _p(DCT, "description"),
            n.literal(f"The file {name} as uploaded (its SHA-256 pins it).", lang="en"),
        ),
        # a published experiment's files are kept as long as it is cited
        (f, _p(DCATAP, "availability"), node(dcat.AUTHORITY + "planned-availability/STABLE")),
    ]
    if (code := dcat.FILE_TYPE_OF.get(media_type or "")) is not None:
        out.append((f, _p(DCT, "format"), node(f"{dcat.FILE_TYPES}/{code}")))
    if licence:
        out.append((f, _p(DCT, "license"), node(licence)))
    out += dcat.linked_descriptions(tuple(o.value for _, _, o in out if isinstance(o, NamedNode)))
    return out


# How many hex digits of its SHA-256 an uploaded dataset's name takes: 8, or more where another
# content has that name already (a file made to share the first 8 is 2^32 hashes away: minutes).
NAME_DIGITS = (8, 16, 64)
# Latin letters NFKD does not decompose into an ASCII letter and a mark
_LETTERS = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ı": "i", "ß": "ss"}
    | {"æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "þ": "th", "Þ": "TH"}
)


def uploaded_dataset_name(label: str, content_sha256: str, digits: int = NAME_DIGITS[0]) -> str:
    """The URI name of an uploaded dataset: readable label + content hash (see
    ``recording.upload_ref`` for the longer hash where the short one is taken)."""
    # ASCII, so that the name can be given back (``dataset_about.UPLOADED_NAME``): accents
    # dropped (NFKD, and the letters it leaves whole: "Żółw" -> "zolw"), any other character a
    # separator, a run of them one "-" (names made before kept Unicode letters and runs of "-":
    # they stay as stored)
    decomposed = unicodedata.normalize("NFKD", label.translate(_LETTERS))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    slug = re.sub(r"[^a-z0-9_.]+", "-", plain.lower()).strip("-.")
    return f"{slug[:60] or 'dataset'}-{content_sha256[:digits]}"


def dataset_content_hash(dataset: Dataset) -> str:
    """A stable hash of a dataset's questions, when no file checksum is at hand."""
    h = hashlib.sha256()
    for q in dataset.questions:
        h.update(repr(q).encode())
    return h.hexdigest()


class _Graph:
    """Collects the quads of one named graph (terms built directly, repeated ones cached).

    ``check`` is called before each subject's quads (once per question result): it raises to
    stop building (a cancelled run; 300,000 questions took minutes to build)."""

    def __init__(self, graph: NamedNode, check: Callable[[], None] | None = None) -> None:
        self.graph = graph
        self.quads: list[Quad] = []
        self.check = check

    def add(self, s: Subject, p: NamedNode, o: Object) -> None:
        self.quads.append(Quad(s, p, o, self.graph))

    def many(self, s: Subject, pairs: Iterable[tuple[NamedNode, Object]]) -> None:
        if self.check is not None:
            self.check()
        g = self.graph
        self.quads.extend(Quad(s, p, o, g) for p, o in pairs)


def _p(ns: str, local: str) -> NamedNode:
    return node(ns + local)


def _measure_property(name: str) -> tuple[NamedNode, str]:
    """A measure's property and datatype, from the measures registry (a name it does not know
    is an error: nothing unregistered is written)."""
    info = _QUESTION_MEASURES.get(name) or MEASURES.get(name)
    if info is None:
        raise ValueError(f"measure {name!r} is not in the measures registry")
    return node(info.iri), info.datatype


def _defined(measures: Mapping[str, float | int | None]) -> set[str]:
    return {name for name, value in measures.items() if value is not None}


def experiment_quads(
    record: ExperimentRecord, uris: Uris, graph: str, *, check: Callable[[], None] | None = None
) -> list[Quad]:
    """The quads of an experiment's graph (named ``graph``); ``check`` is called as they are
    built, and may raise to stop (:class:`_Graph`)."""
    g = _Graph(node(graph), check)
    eid = record.experiment_id
    exp = node(uris.experiment(eid))
    evals = record.evaluations
    if not evals:
        raise ValueError("an experiment needs at least one evaluation")
    ds_uri = node(uris.dataset(record.dataset.name))
    software = node(uris.software(record.software.version))

    # -- the experiment: data set of tasks and PROV activity --------------------------------
    structure = node(uris.experiment_structure(eid))
    activity = prov.activity(
        exp,
        started=record.started,
        ended=record.ended,
        used=[ds_uri],
        agent=software,
        kinds=[_p(GQA, "Experiment"), _p(QB, "DataSet")],
        label=f"Experiment {eid}",
    )
    g.many(exp, [(p, o) for _, p, o in activity])
    g.add(ds_uri, TYPE, _p(PROV, "Entity"))  # what the experiment used, typed without inference
    g.many(
        exp,
        [
            (_p(DCT, "identifier"), n.literal(eid)),
            (_p(QB, "structure"), structure),
            (_p(GQA, "datasetLabel"), n.literal(evals[0].dataset)),
        ],
    )
    for profile_iri in sorted({e.profile.iri for e in evals}):
        g.add(exp, _p(GQA, "profile"), node(profile_iri))
    notes = [*record.notes, *((WITHHELD_NOTE,) if record.dataset.gold_withheld else ())]
    for note in notes:
        g.add(exp, _p(RDFS, "comment"), n.literal(note, lang="en"))
    for prop, datatype, value in record.call_settings:  # how its web services were called
        g.add(exp, node(prop), n.number(value, datatype))
    g.many(software, [(p, o) for _, p, o in prov.software(software, record.software)])

    # -- systems ----------------------------------------------------------------------------
    infos = {s.name: s for s in record.systems}
    for name in sorted({e.system for e in evals} | set(infos)):
        info = infos.get(name, SystemInfo(name))
        sys_uri = node(uris.system(name))
        g.add(exp, _p(PROV, "used"), sys_uri)
        g.many(
            sys_uri,
            [
                # Used by the experiment (an entity) and a piece of software that answers (an
                # agent): both types written out, for clients that do no RDFS inference.
                (TYPE, _p(GQA, "System")),
                (TYPE, _p(PROV, "SoftwareAgent")),
                (TYPE, _p(PROV, "Agent")),
                (TYPE, _p(PROV, "Entity")),
                (_p(RDFS, "label"), n.literal(info.label or name)),
                (_p(DCT, "identifier"), n.literal(name)),
            ],
        )
        # on a test set whose gold is withheld, a team's service is not named: anyone could
        # ask it the published questions and read its answers, nearly the gold for a strong
        # team (explore21 17)
        withheld = record.dataset.gold_withheld
        if info.endpoint and not withheld and (endpoint := n.checked_iri(info.endpoint)):
            g.add(sys_uri, _p(GQA, "endpoint"), endpoint)
            if info.interface:  # a QA web service or a Text2SPARQL one (explore41 F10)
                g.add(sys_uri, _p(GQA, "interface"), n.literal(info.interface))
        if info.description:
            g.add(sys_uri, _p(RDFS, "comment"), n.literal(info.description))
        if info.reference:  # leaderboards show it for scale, rank and tier the others
            g.add(sys_uri, TYPE, _p(GQA, "ReferenceSystem"))

    # -- uploaded files ---------------------------------------------------------------------
    for k, up in enumerate(record.uploads, start=1):
        f = node(uris.upload(eid, k))
        g.add(exp, _p(PROV, "used"), f)
        checksum = n.BlankNode()  # fresh: blank node ids are store-wide in Oxigraph
        sha = n.literal(up.sha256, datatype=XSD + "hexBinary")
        g.many(
            f,
            [
                (TYPE, _p(GQA, "UploadedFile")),
                (TYPE, _p(PROV, "Entity")),
                (_p(DCT, "title"), n.literal(up.name)),
                (_p(GQA, "fileRole"), n.literal(up.role)),
                (_p(GQA, "sha256"), sha),
                (_p(SPDX, "checksum"), checksum),
                (
                    _p(DCAT, "byteSize"),
                    n.literal(str(up.size), datatype=XSD + "nonNegativeInteger"),
                ),
            ],
        )
        # the address, not only the checksum: a client of the RDF downloads the file; not
        # while its dataset withholds its gold (403 until the reveal, which adds it:
        # ``reveal.served_files``), but for a texts-only in.tsv, served all along
        if not record.dataset.gold_withheld or up.role == "questions":
            g.add(f, _p(DCAT, "downloadURL"), node(uris.upload_download(eid, up.sha256)))
        g.many(
            checksum,
            [
                (TYPE, _p(SPDX, "Checksum")),
                (_p(SPDX, "algorithm"), _p(SPDX, "checksumAlgorithm_sha256")),
                (_p(SPDX, "checksumValue"), sha),
            ],
        )
        if up.media_type:
            media = n.checked_iri(f"http://www.iana.org/assignments/media-types/{up.media_type}")
            if media is not None:
                g.add(f, _p(DCAT, "mediaType"), media)
        if up.role == "answers" and up.system:
            g.add(f, _p(GQA, "answersOf"), node(uris.system(up.system)))
        if up.role in ("dataset", "questions") and not record.dataset.catalogued:
            g.add(ds_uri, _p(PROV, "wasDerivedFrom"), f)
            # its questions' file (not a gold's mix), and the in.tsv of its texts
            if up.sha256 == record.dataset.sha256 or up.role == "questions":
                # the exact file, downloadable (once published) as the dataset's distribution
                g.add(ds_uri, _p(DCAT, "distribution"), f)
                for s, p, o in _distribution_triples(f, up, record.dataset, uris, eid):
                    g.add(s, p, o)

    # -- an uploaded dataset is described (with its questions) inside the experiment --------
    if not record.dataset.catalogued:
        from service.graph.questions import (
            author_triples,
            dataset_description,
            linked_descriptions,
            question_quads,
        )

        described = dataset_description(record.dataset, uris)
        g.many(ds_uri, described)
        if record.dataset.sha256:  # its file is kept and served: public with the experiment,
            # it is a dataset of the catalogue (what a harvester reads), as others run it by name
            g.add(node(uris.catalog), _p(DCAT, "dataset"), ds_uri)
        for s, p, o in (*author_triples(record.dataset, uris), *record.dataset.restated):
            g.add(s, p, o)
        for s, p, o in linked_descriptions(described):
            g.add(s, p, o)
        if record.dataset.dataset is not None:
            g.quads += question_quads(
                uris.dataset(record.dataset.name),
                record.dataset.dataset,
                g.graph,
                withheld=record.dataset.gold_withheld,
            )

    # -- tasks ------------------------------------------------------------------------------
    tasks: list[tuple[Evaluation, TaskScores]] = [
        (e, task) for e in evals for task in e.tasks.values()
    ]
    common = set.intersection(*(_defined(task.measures) for _, task in tasks))
    if not common:
        raise ValueError("no measure is defined on every task: the Data Cube needs at least one")
    g.add(structure, TYPE, _p(QB, "DataStructureDefinition"))
    g.add(structure, _p(RDFS, "label"), n.literal(f"Structure of experiment {eid}", lang="en"))
    for dim in TASK_DIMENSIONS:
        g.add(structure, _p(QB, "component"), _p(GQA, f"component-{dim}"))
    for name in sorted(common):
        g.add(structure, _p(QB, "component"), _p(GQA, f"component-{name}"))
    for attr in ("profileVersion", "signature"):
        g.add(structure, _p(QB, "component"), _p(GQA, f"component-{attr}"))
    if any("intervals" in e.extra for e in evals):
        for attr in ("interval", "intervalSignature"):
            g.add(structure, _p(QB, "component"), _p(GQA, f"component-{attr}"))

    questions: dict[str, NamedNode] = {}  # question URIs recur in every task
    first_tasks: set[int] = set()
    # GERBIL's gerbil:subExperimentOf: a sub-experiment's task points at the QA task of the
    # same evaluation (system, dataset, language, profile).
    qa_task = {
        id(ev): NamedNode(uris.task(eid, k))
        for k, (ev, task) in enumerate(tasks, start=1)
        if task.experiment_type is ExperimentType.QA
    }
    for k, (ev, task) in enumerate(tasks, start=1):
        parent = None if task.experiment_type is ExperimentType.QA else qa_task.get(id(ev))
        _task_quads(g, record, uris, k, ev, task, questions, parent=parent)
        if id(ev) not in first_tasks:  # the evaluation's warnings, on its first task
            first_tasks.add(id(ev))
            _warning_quads(g, NamedNode(uris.task(eid, k)), ev, record.dataset.gold_withheld)
    # The dataset's question order (the results JSON lists questions in it), once per question.
    p_position = _p(GQA, "position")
    for position, qid in enumerate(dict.fromkeys(_question_order(evals))):
        if (question := questions.get(qid)) is not None:
            g.add(question, p_position, _position(position))
    return g.quads


def _question_order(evals: Sequence[Evaluation]) -> Iterable[str]:
    for ev in evals:
        for task in ev.tasks.values():
            for qs in task.questions:
                yield qs.question_id


@lru_cache(maxsize=4096)
def _position(value: int) -> Literal:
    return n.literal(str(value), datatype=XSD + "nonNegativeInteger")


def _warning_quads(g: _Graph, task: NamedNode, ev: Evaluation, withheld: bool = False) -> None:
    """An evaluation's warnings (as ``--output json`` lists them), in order; ``withheld``:
    its dataset's gold is, and so is what a warning says of one question (it may quote an
    answer or a gold query), counted in one warning of its own."""
    problems = list(ev.problems)
    if withheld:
        of_one = [p for p in problems if p.question_id is not None]
        problems = [p for p in problems if p.question_id is None]
        if of_one:
            problems.append(
                Problem(
                    f"{len(of_one)} warning(s) about single questions are withheld with the "
                    "dataset's gold",
                    severity="warning",
                )
            )
    for position, problem in enumerate(problems):
        warning = BlankNode()
        g.add(task, _p(GQA, "warning"), warning)
        g.many(
            warning,
            [
                (TYPE, _p(GQA, "Warning")),
                (_p(GQA, "position"), _position(position)),
                # an answer file `evaluate --store` read from a path: named without folders
                (_p(RDFS, "comment"), n.literal(str(problem.without_folders()))),
            ],
        )


WITHHELD_NOTE = (
    "the gold of its dataset was withheld when it was scored (a shared task's test set): its "
    "results are the measures of each task, with no question's result; once the gold is "
    "revealed, its owner can re-score it to get them"
)
MULTIPLE_LANGUAGES = "mul"  # ISO 639-2 for a task over several languages


def _interval_quads(g: _Graph, obs: NamedNode, task_uri: str, ev: Evaluation, etype: str) -> None:
    """The bootstrap interval of each measure of the task (``ev.extra["intervals"]``, as
    ``evaluate --intervals`` gives them), one ``gqa:Interval`` each (``…/task/k#interval-m``;
    no bounds when the measure is undefined, or on more resamples than one tail), with the
    count of resamples it was undefined on (``gqa:undefinedResamples``, when any), and its
    signature."""
    found = ev.extra.get("intervals", {}).get(etype)
    if not found:
        return
    double = XSD + "double"
    undefined = ev.extra.get("undefinedResamples", {}).get(etype, {})
    for name, (low, high) in found.items():
        prop, _ = _measure_property(name)
        ci = NamedNode(f"{task_uri}#interval-{name}")
        g.add(obs, _p(GQA, "interval"), ci)
        g.many(ci, [(TYPE, _p(GQA, "Interval")), (_p(GQA, "intervalOf"), prop)])
        if undefined.get(name):
            g.add(ci, _p(GQA, "undefinedResamples"), n.number(undefined[name], XSD + "integer"))
        if low is not None and high is not None:
            g.many(
                ci,
                [
                    (_p(GQA, "lowerBound"), n.number(low, double)),
                    (_p(GQA, "upperBound"), n.number(high, double)),
                ],
            )
    g.add(obs, _p(GQA, "intervalSignature"), n.literal(ev.extra["intervalSignature"]))


def _task_quads(
    g: _Graph,
    record: ExperimentRecord,
    uris: Uris,
    k: int,
    ev: Evaluation,
    task: TaskScores,
    questions: dict[str, NamedNode],
    *,
    parent: NamedNode | None = None,
) -> None:
    eid = record.experiment_id
    exp = node(uris.experiment(eid))
    task_uri = uris.task(eid, k)
    obs = NamedNode(task_uri)
    etype = task.experiment_type.value
    pooled = POOLED_SEPARATOR in ev.language  # several languages: ISO 639-2 "mul"
    lang_iri = t.language_iri(MULTIPLE_LANGUAGES if pooled else ev.language)
    if lang_iri is None:
        raise ValueError(f"language {ev.language!r} is not an ISO 639 code")
    dims = [
        (_p(GERBIL, "annotator"), node(uris.system(ev.system))),
        (_p(GERBIL, "dataset"), node(uris.dataset(record.dataset.name))),
        (_p(GERBIL, "experimentType"), _p(GERBIL, etype)),
        (_p(GQA, "language"), node(lang_iri)),
        (_p(GQA, "profile"), node(ev.profile.iri)),
    ]
    g.add(exp, _p(GQA, "task"), obs)
    label = f"{ev.system} on {record.dataset.name}: {etype} ({ev.language}, {ev.profile.name})"
    g.many(
        obs,
        [
            (TYPE, _p(GQA, "Task")),
            (TYPE, _p(QB, "Observation")),
            (TYPE, _p(PROV, "Entity")),
            (_p(QB, "dataSet"), exp),
            (_p(RDFS, "label"), n.literal(label, lang="en")),
            (_p(PROV, "wasGeneratedBy"), exp),
            *dims,
            (_p(GQA, "profileVersion"), n.literal(str(ev.profile.version))),
            (_p(GQA, "signature"), n.literal(ev.signature)),
            (_p(GQA, "languageTag"), n.literal(ev.language)),
            # GERBIL's task status (0: finished; only finished tasks are recorded) and time
            (_p(GERBIL, "statusCode"), n.literal("0", datatype=XSD + "int")),
            (_p(GERBIL, "timestamp"), n.date_time(record.ended)),
        ],
    )
    if parent is not None:
        g.add(obs, _p(GERBIL, "subExperimentOf"), parent)
    if (note := task.unscored_note) is not None:  # why its measures are all undefined
        g.add(obs, _p(RDFS, "comment"), n.literal(note, lang="en"))
    if ev.kb:
        g.add(obs, _p(GQA, "knowledgeBase"), n.checked_iri(ev.kb) or n.literal(ev.kb))
    for name, value in task.measures.items():
        prop, datatype = _measure_property(name)
        if value is None:
            g.add(obs, _p(GQA, "undefinedMeasure"), prop)
        else:
            g.add(obs, prop, n.number(value, datatype))
    if record.dataset.gold_withheld:  # each question's result would tell its gold
        g.add(obs, _p(GQA, "questionResultsWithheld"), n.boolean(True))
        # and so would the intervals: with their published seed, the few outcome vectors
        # that give a small test set's point estimates and bounds are found (explore21 9)
        return
    _interval_quads(g, obs, task_uri, ev, etype)

    # Per-question observations: their own data set, structure from the measures they all have.
    qset = NamedNode(uris.task_questions(eid, k))
    qstruct = NamedNode(uris.task_question_structure(eid, k))
    g.add(obs, _p(GQA, "questionResults"), qset)
    scores = task.questions
    per_q = [_question_measures(qs) for qs in scores]
    scored = [m for m in per_q if m]
    common = set.intersection(*(set(m) for m in scored)) if scored else set()
    computed = set().union(*(set(m) for m in scored))
    g.many(
        qset,
        [
            (TYPE, _p(GQA, "QuestionResultSet")),
            (TYPE, _p(QB, "DataSet")),
            (_p(RDFS, "label"), n.literal(f"Per-question results of {label}", lang="en")),
            (_p(QB, "structure"), qstruct),
        ],
    )
    g.add(qstruct, TYPE, _p(QB, "DataStructureDefinition"))
    for dim in (*QUESTION_DIMENSIONS, *(("language",) if pooled else ())):
        g.add(qstruct, _p(QB, "component"), _p(GQA, f"component-{dim}"))
    for name in sorted(common):
        g.add(qstruct, _p(QB, "component"), _p(GQA, f"component-{name}"))
    g.add(qstruct, _p(QB, "component"), _p(GQA, "component-questionStatus"))
    if not common:
        # IC-3: a structure needs a measure; with no scored question there are no observations.
        g.add(qstruct, _p(QB, "component"), _p(GQA, "component-f1"))

    props = {name: _measure_property(name) for name in QUESTION_MEASURES}
    constant = [
        (TYPE, _p(GQA, "QuestionResult")),
        (TYPE, _p(PROV, "Entity")),
        (_p(GQA, "resultOf"), obs),
    ]
    observation = [(TYPE, _p(QB, "Observation")), (_p(QB, "dataSet"), qset)]
    generated = (_p(PROV, "wasGeneratedBy"), exp)
    p_question, p_status, p_processed = (
        _p(GQA, "question"),
        _p(GQA, "questionStatus"),
        _p(GQA, "processed"),
    )
    p_undefined, p_given, p_note = (
        _p(GQA, "undefinedMeasure"),
        _p(GQA, "givenAnswer"),
        _p(GQA, "note"),
    )
    # the system's order and repeated items, where a measure of the task reads them (the
    # given answers are a set: K, K1, CWS and MRR could not be recomputed, explore28 F10)
    p_ranked = _p(GQA, "rankedAnswers") if any(map(reads_order, task.measures)) else None
    prefix = task_uri + "/question/"  # Uris.question_result, built here once per task
    budget = RECORDED_GIVEN_PER_TASK
    for qs, measures in zip(scores, per_q, strict=True):
        # in a pooled task a question is observed once per language: …/question/{id}@{lang}
        r = NamedNode(prefix + enc(qs.question_id) + (f"@{qs.language}" if qs.language else ""))
        question = questions.get(qs.question_id)
        if question is None:
            question = questions[qs.question_id] = NamedNode(
                uris.question(record.dataset.name, qs.question_id)
            )
        pairs: list[tuple[NamedNode, Object]] = [
            *constant,
            (p_question, question),
            (p_status, _p(GQA, f"status-{qs.status.value}")),
            (p_processed, n.boolean(qs.processed)),
            generated,
        ]
        if measures and common <= measures.keys():
            pairs += observation
        for name, value in measures.items():
            prop, datatype = props[name]
            pairs.append((prop, n.number(value, datatype)))
        for name in QUESTION_MEASURES:
            if name in computed and name not in measures:
                pairs.append((p_undefined, props[name][0]))
        given = qs.given
        recorded = min(len(given), RECORDED_GIVEN, budget)
        budget -= recorded
        if recorded == len(given):
            for item in given:
                pairs.append((p_given, n.displayed_term(item)))
        if qs.note:
            pairs.append((p_note, n.literal(qs.note)))
        if p_ranked is not None and qs.ranked:
            text = ranked_text(qs.ranked, qs.verdicts, limit=EXPLAINED_PER_KIND)
            pairs.append((p_ranked, n.literal(text)))
        pairs += _call_pairs(qs)
        if qs.language is not None:
            pairs.append((_p(GQA, "language"), node(t.language_iri(qs.language) or "")))
        g.many(r, pairs)
        if qs.query_shape:
            _shape_quads(g, r, qs.query_shape)
        named: set[int] = set()
        if qs.matches or qs.tp == 0:  # explained (a record without matches but with a tp is not)
            named = _explanation(g, r, qs)
        if recorded < len(given):  # the first ones, and every one the explanation names
            for i in sorted(named.union(range(recorded))):
                g.add(r, p_given, n.displayed_term(given[i]))


def _shape_quads(g: _Graph, result: NamedNode, shapes: Mapping[str, Mapping[str, Any]]) -> None:
    """The shapes of the system's query and of the gold query (``QuestionScore.query_shape``):
    ``…/question/{q}#query-system`` and ``#query-gold``, each a ``gqa:QueryShape``."""
    for role, shape in shapes.items():
        found = NamedNode(f"{result.value}#query-{role}")
        g.add(result, _p(GQA, "queryShape"), found)
        pairs: list[tuple[NamedNode, Object]] = [
            (TYPE, _p(GQA, "QueryShape")),
            (_p(GQA, "queryRole"), n.literal(role)),
        ]
        if "error" in shape:
            pairs.append((_p(GQA, "parseError"), n.literal(shape["error"])))
        else:
            integer = XSD + "integer"
            pairs += [
                (_p(GQA, "triplePatterns"), n.number(shape["triplePatterns"], integer)),
                (_p(GQA, "joinVertices"), n.number(shape["joinVertices"], integer)),
                (_p(GQA, "queryFeatures"), n.literal(" ".join(shape["features"]))),
            ]
        g.many(found, pairs)


def _call_pairs(qs: QuestionScore) -> list[tuple[NamedNode, Object]]:
    """What the system's call for this question returned: wall time, error, SPARQL, and the
    attempts it took when it was retried (with why the one before the last failed)."""
    pairs: list[tuple[NamedNode, Object]] = []
    if qs.runtime_ms is not None:
        pairs.append((_p(GQA, "runtime"), n.number(qs.runtime_ms, XSD + "double")))
    if qs.confidence is not None:
        pairs.append((_p(GQA, "confidence"), n.number(qs.confidence, XSD + "double")))
    if qs.attempts > 1:
        pairs.append((_p(GQA, "attempts"), n.number(qs.attempts, XSD + "integer")))
        if qs.retry_reason:
            pairs.append((_p(GQA, "retryReason"), n.literal(qs.retry_reason)))
    if qs.error:
        pairs.append((_p(GQA, "errorMessage"), n.literal(qs.error)))
    if qs.system_query:
        pairs.append((_p(GQA, "systemQuery"), n.literal(qs.system_query)))
    pairs += [(_p(GQA, "queryRewrite"), n.literal(w)) for w in qs.query_rewrites]
    return pairs


RECORDED_GIVEN = 1_000
"""At most this many given answers are written per result (``gqa:givenAnswer``, in given order,
plus every one its explanation names): an answer file may give a question 100,000 answers (the
limit per question), and writing each as a triple made one 52 MB file 10^6 triples (a 3 GB
transaction, 200 MB dumps, a 36 s ``check``). The counts tp and fp give the totals, the kept
answer file has every answer, and a page shows ten."""

RECORDED_GIVEN_PER_TASK = 100_000
"""At most this many of a task's given answers are written in all (the first questions' first
:data:`RECORDED_GIVEN`; then only those explanations name), so that many questions of a few
hundred answers each do not add up to millions of triples either."""

EXPLAINED_PER_KIND = 100
"""At most this many exact answers, other matches, false and missed answers are written per
result (each kind in given or gold order): some gold answer sets hold thousands of items (one
of QALD-8 train 2,150), the counts tp/fp/fn give the totals, and a page shows ten of each."""


def _explanation(g: _Graph, result: NamedNode, qs: QuestionScore) -> set[int]:
    """Why the result has its counts: a given answer identical to the gold answer it matched
    is a ``gqa:exactAnswer`` (one triple: by far the most common case, and answer sets run to
    thousands); every other matched pair is a ``gqa:AnswerMatch`` (a hash resource of the
    result, ``…#match-k``) with its rule; the given answers no rule matched are
    ``gqa:falseAnswer`` and the gold answers nothing matched ``gqa:missedAnswer``; at most
    :data:`EXPLAINED_PER_KIND` of each. Returns the indexes of the given answers it names."""
    p_match, p_given, p_gold, p_rule = (
        _p(GQA, "answerMatch"),
        _p(GQA, "matchedGiven"),
        _p(GQA, "matchedGold"),
        _p(GQA, "matchRule"),
    )
    kind, p_exact, exact = _p(GQA, "AnswerMatch"), _p(GQA, "exactAnswer"), MatchRule.EXACT
    matched_given: set[int] = set()
    matched_gold: set[int] = set()
    k = n_exact = 0
    named: set[int] = set()
    for given, gold, rule in sorted(qs.matches):
        matched_given.add(given)
        matched_gold.add(gold)
        if rule is exact and qs.given[given] == qs.gold[gold]:
            n_exact += 1
            if n_exact <= EXPLAINED_PER_KIND:
                g.add(result, p_exact, n.displayed_term(qs.given[given]))
                named.add(given)
            continue
        k += 1
        if k > EXPLAINED_PER_KIND:
            continue
        named.add(given)
        m = NamedNode(f"{result.value}#match-{k}")
        g.add(result, p_match, m)
        g.many(
            m,
            [
                (TYPE, kind),
                (p_given, n.displayed_term(qs.given[given])),
                (p_gold, n.displayed_term(qs.gold[gold])),
                (p_rule, _p(GQA, f"rule-{rule.value}")),
            ],
        )
    p_false, p_missed = _p(GQA, "falseAnswer"), _p(GQA, "missedAnswer")
    false = [i for i in range(len(qs.given)) if i not in matched_given][:EXPLAINED_PER_KIND]
    # none when nothing was missed (fn 0): PolEval's other alternatives of a matched answer
    missed = [item for i, item in enumerate(qs.gold) if i not in matched_gold] if qs.fn else []
    for i in false:
        g.add(result, p_false, n.displayed_term(qs.given[i]))
    for item in missed[:EXPLAINED_PER_KIND]:
        g.add(result, p_missed, n.displayed_term(item))
    return named.union(false)


def _question_measures(qs: QuestionScore) -> dict[str, float | int]:
    values = _question_values(qs)
    return {k: v for k, v in zip(QUESTION_MEASURES, values, strict=True) if v is not None}
