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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from service.evaluation.results import Evaluation, QuestionScore
from service.graph import terms as t
from service.graph.terms import DCAT, DCT, PROV, QB, RDF, RDFS, SPDX, XSD, iri, literal
from service.graph.uris import GERBIL, GQA, Uris
from service.graph.vocabulary import measure_ranges
from service.model import Dataset

TASK_DIMENSIONS = ("system", "dataset", "experimentType", "language", "profile")
# A question observation's task fixes system, dataset, type, language and profile: its
# dimensions are the task and the question (joins reach the rest through gqa:resultOf).
QUESTION_DIMENSIONS = ("resultOf", "question")
QUESTION_MEASURES = ("tp", "fp", "fn", "precision", "recall", "f1")
TYPE = iri(RDF + "type")


@dataclass(frozen=True, slots=True)
class UploadedFile:
    """A file given to an experiment: its name as uploaded, SHA-256, size and role."""

    name: str
    sha256: str
    size: int
    role: str = "answers"  # "dataset" | "answers"
    system: str | None = None  # whose answers (role "answers")
    media_type: str | None = None


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """What is known about a system besides its name (web-service address, description)."""

    name: str
    label: str | None = None
    endpoint: str | None = None
    description: str | None = None


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


@dataclass(frozen=True, slots=True)
class ExperimentRecord:
    """Everything :func:`experiment_triples` writes for one finished experiment."""

    experiment_id: str
    evaluations: tuple[Evaluation, ...]
    dataset: DatasetRef
    started: datetime
    ended: datetime
    software_version: str
    systems: tuple[SystemInfo, ...] = ()
    uploads: tuple[UploadedFile, ...] = ()
    extra: Mapping[str, str] = field(default_factory=dict)


def uploaded_dataset_name(label: str, content_sha256: str) -> str:
    """The URI name of an uploaded dataset: readable label + content hash, so names never clash."""
    slug = "".join(c if c.isalnum() or c in "-_." else "-" for c in label.lower()).strip("-.")
    return f"{slug[:60] or 'dataset'}-{content_sha256[:8]}"


def dataset_content_hash(dataset: Dataset) -> str:
    """A stable hash of a dataset's questions, when no file checksum is at hand."""
    h = hashlib.sha256()
    for q in dataset.questions:
        h.update(repr(q).encode())
    return h.hexdigest()


class _Lines:
    """Collects N-Triples lines (``s p o .``) of one graph."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, s: str, p: str, o: str) -> None:
        self.lines.append(f"{s} {p} {o} .")

    def many(self, s: str, pairs: Iterable[tuple[str, str]]) -> None:
        for p, o in pairs:
            self.lines.append(f"{s} {p} {o} .")


def _p(ns: str, local: str) -> str:
    return f"<{ns}{local}>"


def _measure_value(name: str, value: float | int, ranges: Mapping[str, str]) -> str:
    prop = t.measure_iri(name)
    if prop not in ranges:
        raise ValueError(
            f"measure {name!r} has no qb:MeasureProperty in the vocabulary (ontology/); add it"
        )
    return t.number(value, ranges[prop])


def _defined(measures: Mapping[str, float | int | None]) -> set[str]:
    return {name for name, value in measures.items() if value is not None}


def experiment_triples(record: ExperimentRecord, uris: Uris) -> list[str]:
    """The N-Triples lines of an experiment's graph (without the graph name)."""
    ranges = measure_ranges()
    g = _Lines()
    eid = record.experiment_id
    exp = iri(uris.experiment(eid))
    evals = record.evaluations
    if not evals:
        raise ValueError("an experiment needs at least one evaluation")
    ds_uri = iri(uris.dataset(record.dataset.name))
    software = iri(uris.software(record.software_version))

    # -- the experiment: data set of tasks and PROV activity --------------------------------
    structure = iri(uris.experiment_structure(eid))
    g.many(
        exp,
        [
            (TYPE, _p(GQA, "Experiment")),
            (TYPE, _p(QB, "DataSet")),
            (TYPE, _p(PROV, "Activity")),
            (_p(RDFS, "label"), literal(f"Experiment {eid}", lang="en")),
            (_p(DCT, "identifier"), literal(eid)),
            (_p(QB, "structure"), structure),
            (_p(PROV, "startedAtTime"), t.date_time(record.started)),
            (_p(PROV, "endedAtTime"), t.date_time(record.ended)),
            (_p(PROV, "used"), ds_uri),
            (_p(PROV, "wasAssociatedWith"), software),
        ],
    )
    for profile_iri in sorted({e.profile.iri for e in evals}):
        g.add(exp, _p(GQA, "profile"), iri(profile_iri))
    g.many(
        software,
        [
            (TYPE, _p(GQA, "Evaluator")),
            (TYPE, _p(PROV, "SoftwareAgent")),
            (_p(RDFS, "label"), literal(f"GERBIL QA for Python {record.software_version}")),
            (_p(GQA, "softwareVersion"), literal(record.software_version)),
        ],
    )

    # -- systems ----------------------------------------------------------------------------
    infos = {s.name: s for s in record.systems}
    for name in sorted({e.system for e in evals} | set(infos)):
        info = infos.get(name, SystemInfo(name))
        sys_uri = iri(uris.system(name))
        g.add(exp, _p(PROV, "used"), sys_uri)
        g.many(
            sys_uri,
            [
                (TYPE, _p(GQA, "System")),
                (TYPE, _p(PROV, "SoftwareAgent")),
                (_p(RDFS, "label"), literal(info.label or name)),
                (_p(DCT, "identifier"), literal(name)),
            ],
        )
        if info.endpoint and t.is_valid_iri(info.endpoint):
            g.add(sys_uri, _p(GQA, "endpoint"), iri(info.endpoint))
        if info.description:
            g.add(sys_uri, _p(RDFS, "comment"), literal(info.description))

    # -- uploaded files ---------------------------------------------------------------------
    for n, up in enumerate(record.uploads, start=1):
        f = iri(uris.upload(eid, n))
        g.add(exp, _p(PROV, "used"), f)
        checksum = f"_:sha{n}"
        g.many(
            f,
            [
                (TYPE, _p(GQA, "UploadedFile")),
                (TYPE, _p(PROV, "Entity")),
                (_p(DCT, "title"), literal(up.name)),
                (_p(GQA, "fileRole"), literal(up.role)),
                (_p(GQA, "sha256"), literal(up.sha256, datatype=XSD + "hexBinary")),
                (_p(SPDX, "checksum"), checksum),
                (_p(DCAT, "byteSize"), literal(str(up.size), datatype=XSD + "nonNegativeInteger")),
            ],
        )
        g.many(
            checksum,
            [
                (TYPE, _p(SPDX, "Checksum")),
                (_p(SPDX, "algorithm"), _p(SPDX, "checksumAlgorithm_sha256")),
                (_p(SPDX, "checksumValue"), literal(up.sha256, datatype=XSD + "hexBinary")),
            ],
        )
        if up.media_type:
            g.add(
                f,
                _p(DCAT, "mediaType"),
                iri(f"http://www.iana.org/assignments/media-types/{up.media_type}"),
            )
        if up.role == "answers" and up.system:
            g.add(f, _p(GQA, "answersOf"), iri(uris.system(up.system)))
        if up.role == "dataset" and not record.dataset.catalogued:
            g.add(ds_uri, _p(PROV, "wasDerivedFrom"), f)

    # -- an uploaded dataset is described (with its questions) inside the experiment --------
    if not record.dataset.catalogued:
        from service.graph.questions import dataset_description_triples, question_triples

        g.lines += dataset_description_triples(record.dataset, uris)
        if record.dataset.dataset is not None:
            g.lines += question_triples(record.dataset.name, record.dataset.dataset, uris)

    # -- tasks ------------------------------------------------------------------------------
    tasks: list[tuple[Evaluation, object]] = [(e, task) for e in evals for task in e.tasks.values()]
    common = set.intersection(*(_defined(task.measures) for _, task in tasks))  # type: ignore[attr-defined]
    if not common:
        raise ValueError("no measure is defined on every task: the Data Cube needs at least one")
    g.many(structure, [(TYPE, _p(QB, "DataStructureDefinition"))])
    g.add(structure, _p(RDFS, "label"), literal(f"Structure of experiment {eid}", lang="en"))
    for dim in TASK_DIMENSIONS:
        g.add(structure, _p(QB, "component"), _p(GQA, f"component-{dim}"))
    for name in sorted(common):
        g.add(structure, _p(QB, "component"), _p(GQA, f"component-{name}"))
    for attr in ("profileVersion", "signature"):
        g.add(structure, _p(QB, "component"), _p(GQA, f"component-{attr}"))

    for n, (ev, task) in enumerate(tasks, start=1):
        _task_triples(g, record, uris, n, ev, task, ranges)  # type: ignore[arg-type]
    return g.lines


def _task_triples(g: _Lines, record, uris: Uris, n: int, ev: Evaluation, task, ranges) -> None:
    eid = record.experiment_id
    exp = iri(uris.experiment(eid))
    obs = iri(uris.task(eid, n))
    etype = task.experiment_type.value
    lang_iri = t.language_iri(ev.language)
    if lang_iri is None:
        raise ValueError(f"language {ev.language!r} is not an ISO 639 code")
    dims = [
        (_p(GERBIL, "annotator"), iri(uris.system(ev.system))),
        (_p(GERBIL, "dataset"), iri(uris.dataset(record.dataset.name))),
        (_p(GERBIL, "experimentType"), _p(GQA, etype)),
        (_p(GQA, "language"), iri(lang_iri)),
        (_p(GQA, "profile"), iri(ev.profile.iri)),
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
            (_p(RDFS, "label"), literal(label, lang="en")),
            (_p(PROV, "wasGeneratedBy"), exp),
            *dims,
            (_p(GQA, "profileVersion"), literal(str(ev.profile.version))),
            (_p(GQA, "signature"), literal(ev.signature)),
        ],
    )
    if ev.kb:
        kb = iri(ev.kb) if t.is_valid_iri(ev.kb) else literal(ev.kb)
        g.add(obs, _p(GQA, "knowledgeBase"), kb)
    for name, value in task.measures.items():
        if value is None:
            g.add(obs, _p(GQA, "undefinedMeasure"), iri(t.measure_iri(name)))
        else:
            g.add(obs, iri(t.measure_iri(name)), _measure_value(name, value, ranges))

    # Per-question observations: their own data set, structure from the measures they all have.
    qset = iri(uris.task_questions(eid, n))
    qstruct = iri(uris.task_question_structure(eid, n))
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
            (_p(RDFS, "label"), literal(f"Per-question results of {label}", lang="en")),
            (_p(QB, "structure"), qstruct),
        ],
    )
    g.add(qstruct, TYPE, _p(QB, "DataStructureDefinition"))
    for dim in QUESTION_DIMENSIONS:
        g.add(qstruct, _p(QB, "component"), _p(GQA, f"component-{dim}"))
    for name in sorted(common):
        g.add(qstruct, _p(QB, "component"), _p(GQA, f"component-{name}"))
    g.add(qstruct, _p(QB, "component"), _p(GQA, "component-questionStatus"))
    if not common:
        # IC-3: a structure needs a measure; with no scored question there are no observations.
        g.add(qstruct, _p(QB, "component"), _p(GQA, "component-f1"))

    for qs, measures in zip(scores, per_q, strict=True):
        r = iri(uris.question_result(eid, n, qs.question_id))
        question = iri(uris.question(record.dataset.name, qs.question_id))
        g.many(
            r,
            [
                (TYPE, _p(GQA, "QuestionResult")),
                (TYPE, _p(PROV, "Entity")),
                (_p(GQA, "resultOf"), obs),
                (_p(GQA, "question"), question),
                (_p(GQA, "questionStatus"), _p(GQA, f"status-{qs.status.value}")),
                (_p(GQA, "processed"), t.boolean(qs.processed)),
                (_p(PROV, "wasGeneratedBy"), exp),
            ],
        )
        if measures and common <= set(measures):
            g.many(r, [(TYPE, _p(QB, "Observation")), (_p(QB, "dataSet"), qset)])
        for name, value in measures.items():
            g.add(r, iri(t.measure_iri(name)), _measure_value(name, value, ranges))
        for name in QUESTION_MEASURES:
            if name in computed and name not in measures:
                g.add(r, _p(GQA, "undefinedMeasure"), iri(t.measure_iri(name)))
        for item in qs.given:
            g.add(r, _p(GQA, "givenAnswer"), t.displayed_term(item))
        if qs.note:
            g.add(r, _p(GQA, "note"), literal(qs.note))


def _question_measures(qs: QuestionScore) -> dict[str, float | int]:
    values = {
        "tp": qs.tp,
        "fp": qs.fp,
        "fn": qs.fn,
        "precision": qs.precision,
        "recall": qs.recall,
        "f1": qs.f1,
    }
    return {k: v for k, v in values.items() if v is not None}
