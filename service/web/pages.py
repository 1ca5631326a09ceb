"""What the HTML pages and CSV tables show, read from the same quads as the RDF.

Each function turns the quads of a document (``describe.document_quads``) into frozen rows for
a template; numbers keep their full precision here and are rounded only in the template.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from service.evaluation.measures import MEASURES, require
from service.evaluation.measures import QUESTION_MEASURES as QUESTION_MEASURE_INFO
from service.graph.reader import (
    QUESTION_MEASURES,
    Node,
    TaskResult,
    index,
    local,
    number,
    task_result,
)
from service.graph.terms import DCT, PROV, QB, RDFS
from service.graph.uris import GQA, Uris

MEASURE_ORDER = require(
    "macroF1",
    "macroPrecision",
    "macroRecall",
    "microF1",
    "microPrecision",
    "microRecall",
    "macroF1QALD",
    "accuracy",
)
__all__ = ["QUESTION_MEASURES", "local"]  # pages.local is what templates and resources call
# Counts shown after the scores.
_NOT_SCORES = frozenset({"questions", "errorCount"})


def measure_order() -> list[str]:
    """Canonical measure names in display order: the headline ones, then the registry's."""
    out = list(MEASURE_ORDER)
    out += [name for name in MEASURES if name not in out]
    return out


def measure_label(name: str) -> str:
    info = MEASURES.get(name)
    return info.label if info else name


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
    profiles: tuple[str, ...]
    software: str | None
    papers: tuple[str, ...]
    tasks: tuple[TaskRow, ...]
    uploads: tuple[tuple[str, str, str], ...]  # (title, role, sha256)

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
                )
            )
    return ExperimentPage(
        id=experiment_id,
        uri=uri,
        label=exp.text(RDFS + "label") or f"Experiment {experiment_id}",
        started=exp.text(PROV + "startedAtTime"),
        ended=exp.text(PROV + "endedAtTime"),
        issued=exp.text(DCT + "issued"),
        dataset=dataset,
        dataset_label=local(dataset) if dataset else None,
        profiles=tuple(local(p.value).removeprefix("profile-") for p in exp.all(GQA + "profile")),
        software=labels.get(exp.text(PROV + "wasAssociatedWith") or ""),
        papers=tuple(sorted(p.value for p in exp.all(DCT + "isReferencedBy"))),
        tasks=tuple(tasks),
        uploads=tuple(uploads),
    )


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


@dataclass(frozen=True, slots=True)
class TaskPage:
    task: TaskRow
    experiment_id: str
    rows: tuple[QuestionRow, ...]


def _display(term: Any) -> str:
    import pyoxigraph as ox

    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.Literal):
        if term.language:
            return f"{term.value} @{term.language}"
        return term.value
    return str(term)


def task_page(
    experiment_id: str,
    task_uri: str,
    quads: Iterable[Any],
    questions: dict[str, Node],
    language: str,
    *,
    uris: Uris,
) -> TaskPage:
    nodes = index(quads)
    task_node = nodes.get(task_uri) or Node(task_uri)
    task = _task_row(task_node, nodes, uris)
    rows: list[QuestionRow] = []
    for uri, node in nodes.items():
        if node.text(GQA + "resultOf") != task_uri:
            continue
        question_uri = node.text(GQA + "question") or ""
        q = questions.get(question_uri)
        texts = q.all(GQA + "questionText") if q else []
        text = next((t.value for t in texts if getattr(t, "language", None) == language), None)
        if text is None and texts:
            text = texts[0].value
        measures = {m: number(node.one(q.iri)) for m, q in QUESTION_MEASURE_INFO.items()}
        rows.append(
            QuestionRow(
                uri=uri,
                question=question_uri,
                question_id=(q.text(DCT + "identifier") if q else None) or local(question_uri),
                text=text,
                status=local(node.text(GQA + "questionStatus")).removeprefix("status-"),
                measures=measures,
                given=tuple(sorted(_display(v) for v in node.all(GQA + "givenAnswer"))),
                gold=tuple(sorted(_display(v) for v in q.all(GQA + "goldAnswer"))) if q else (),
                note=node.text(GQA + "note"),
                answer_type=local(q.text(GQA + "answerType")).removeprefix("answerType-")
                if q and q.text(GQA + "answerType")
                else None,
            )
        )
    rows.sort(key=lambda r: _natural(r.question_id))
    return TaskPage(task=task, experiment_id=experiment_id, rows=tuple(rows))


def _natural(text: str) -> tuple[int, int | str]:
    return (0, int(text)) if text.isdigit() else (1, text)


def csv_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else v for v in row])
    return out.getvalue().encode("utf-8")


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
        ]
        for t in page.tasks
    ]
    return csv_table(header, rows)


def task_csv(page: TaskPage) -> bytes:
    header = ["result", "question", "id", "status", *QUESTION_MEASURES, "given", "gold"]
    rows = [
        [
            r.uri,
            r.question,
            r.question_id,
            r.status,
            *(r.measures.get(m) for m in QUESTION_MEASURES),
            " | ".join(r.given),
            " | ".join(r.gold),
        ]
        for r in page.rows
    ]
    return csv_table(header, rows)


def qb_dataset_of(nodes: dict[str, Node], uri: str) -> str | None:
    node = nodes.get(uri)
    return node.text(QB + "dataSet") if node else None
