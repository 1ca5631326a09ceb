"""Gold refresh: re-run a dataset's gold SPARQL on a KB and make a new dataset version.

Gold answers are the answers of the gold query on the KB version the benchmark was built on;
on a newer KB they drift and a perfect system is scored wrong. A refresh keeps every question
as it was and replaces its answers with what the gold query returns on the given KB now. It never
touches the old version: it writes a new file next to a PROV-O description (which dataset it
was derived from, which KB and version it used, when), and a diff lists what changed.

Gold queries run through the one SPARQL executor (:mod:`service.kb.executor`): the lenient
dialect rewritten to standard SPARQL, the dataset's prefix environment, a time and result-size
limit per query. Questions whose query is missing, out of scope, or fails keep their old answers
and say why in the diff (a parse error with its position in the query as written). A changed
question says what may explain the change when the query shows it (ties under ``ORDER BY …
LIMIT``, an empty old gold set).

Old and new answers are compared as RDF terms, except when the old gold states no types at all
(no datatype, no language tag: a TEXT2SPARQL result set, TSV): such a gold can only be compared
by its values, so both sides are then compared as sets of values (IRIs, and literals without
their datatype or language; booleans as ``true``/``false``), as TEXT2SPARQL scores them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from service import release
from service.errors import Conflict
from service.model import AnswerSet, Dataset, Question, Term, TermKind

if TYPE_CHECKING:
    from service.kb.executor import QueryFailure, SparqlExecutor


class Change(StrEnum):
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    FAILED = "failed"  # the gold query failed on this KB: old answers kept
    NO_QUERY = "no-query"  # no gold SPARQL (hybrid pseudo query, or none): old answers kept
    OUT_OF_SCOPE = "out-of-scope"  # QALD's OUT OF SCOPE: the gold set stays empty


@dataclass(frozen=True, slots=True)
class QuestionDiff:
    """What the refresh did to one question; ``added``/``removed`` are N-Triples-like terms."""

    question_id: str
    change: Change
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    reason: str | None = None
    failure: QueryFailure | None = None  # why the query failed (FAILED only)
    notes: tuple[str, ...] = ()  # what may explain a change, read from the query


@dataclass(frozen=True, slots=True)
class Refresh:
    """A refreshed dataset version and how it came about."""

    dataset: Dataset
    diffs: tuple[QuestionDiff, ...]
    kb: str
    started: datetime
    ended: datetime
    source: str | None
    kb_identity: str | None = None  # the KB's identity and version, apart (``kb`` joins them)
    kb_version: str | None = None

    def count(self, change: Change) -> int:
        return sum(1 for d in self.diffs if d.change is change)

    @property
    def changed(self) -> tuple[QuestionDiff, ...]:
        return tuple(d for d in self.diffs if d.change is Change.CHANGED)


def _untyped(answers: AnswerSet | None) -> bool:
    """A gold that states no datatype or language (values only: result sets, TSV)."""
    if answers is None:
        return False
    return all(
        t.kind is TermKind.IRI or (t.datatype is None and t.lang is None)
        for row in answers.rows
        for t in row.values()
    )


def _answer_keys(answers: AnswerSet | None, *, values_only: bool) -> set[str]:
    if answers is None:
        return set()
    if values_only:  # each value once, a literal without its datatype or language
        if answers.boolean is not None:
            return {"true" if answers.boolean else "false"}
        return {
            t.n3() if t.kind is not TermKind.LITERAL else Term.literal(t.value).n3()
            for t in answers.values()
        }
    return {" ".join(t.n3() for t in row) for row in answers.row_values()}


def refresh_gold(dataset: Dataset, executor: SparqlExecutor) -> Refresh:
    """Run every gold query of ``dataset`` with ``executor``; see the module docstring."""
    started = datetime.now(UTC)
    runnable = [
        q for q in dataset.questions if not q.out_of_scope and q.sparql and q.sparql.strip()
    ]
    results = dict(
        zip(map(id, runnable), executor.run_all(q.sparql for q in runnable), strict=True)
    )
    questions: list[Question] = []
    diffs: list[QuestionDiff] = []
    for question in dataset.questions:
        if question.out_of_scope:
            questions.append(question)
            diffs.append(QuestionDiff(question.id, Change.OUT_OF_SCOPE))
            continue
        result = results.get(id(question))
        if result is None:
            questions.append(question)
            reason = "only a pseudo query" if question.pseudo_query else "no gold SPARQL"
            diffs.append(QuestionDiff(question.id, Change.NO_QUERY, reason=reason))
            continue
        if result.failure is not None:
            questions.append(question)
            diffs.append(
                QuestionDiff(
                    question.id, Change.FAILED, reason=str(result.failure), failure=result.failure
                )
            )
            continue
        fresh = result.answers
        values_only = _untyped(question.answers)
        old = _answer_keys(question.answers, values_only=values_only)
        new = _answer_keys(fresh, values_only=values_only)
        same = old == new and (question.answers is not None)
        diffs.append(
            QuestionDiff(
                question.id,
                Change.UNCHANGED if same else Change.CHANGED,
                added=tuple(sorted(new - old)),
                removed=tuple(sorted(old - new)),
                notes=() if same else _possible_causes(question, fresh, executor),
            )
        )
        questions.append(question if same else replace(question, answers=fresh))
    identity, version = executor.identity, executor.version
    kb_text = f"{identity} ({version})" if version else identity
    new_dataset = replace(dataset, questions=tuple(questions))
    return Refresh(
        dataset=new_dataset,
        diffs=tuple(diffs),
        kb=kb_text,
        started=started,
        ended=datetime.now(UTC),
        source=dataset.source,
        kb_identity=identity,
        kb_version=version,
    )


def _possible_causes(
    question: Question, fresh: AnswerSet, executor: SparqlExecutor
) -> tuple[str, ...]:
    """What in the query or the old gold may explain a change (hints, not verdicts)."""
    from service.sparql import SparqlSyntaxError
    from service.sparql.complexity import analyse_query

    notes = []
    if question.answers is not None and question.answers.is_empty and not fresh.is_empty:
        notes.append("the old gold set is empty (the query gave nothing where it was made)")
    try:
        shape = analyse_query(question.sparql or "", prefixes=executor.prefixes)
    except SparqlSyntaxError:
        return tuple(notes)
    if shape.order_by and shape.limits:
        notes.append(
            "ORDER BY with LIMIT: where values tie at the cut, engines may keep different ones"
        )
    return tuple(notes)


def diff_text(refresh: Refresh, *, limit: int = 20) -> str:
    """A human-readable diff: a summary line, then each changed or failed question."""
    counts = ", ".join(f"{refresh.count(c)} {c.value}" for c in Change if refresh.count(c))
    lines = [f"refreshed {len(refresh.diffs)} questions on {refresh.kb}: {counts}"]
    for diff in refresh.diffs:
        if diff.change is Change.CHANGED:
            lines.append(f"  {diff.question_id}: changed")
            lines.extend(f"    + {t}" for t in diff.added[:limit])
            if len(diff.added) > limit:
                lines.append(f"    + … {len(diff.added) - limit} more")
            lines.extend(f"    - {t}" for t in diff.removed[:limit])
            if len(diff.removed) > limit:
                lines.append(f"    - … {len(diff.removed) - limit} more")
            lines.extend(f"    (possible cause: {note})" for note in diff.notes)
        elif diff.change is Change.FAILED:
            lines.append(f"  {diff.question_id}: query failed, old answers kept: {diff.reason}")
    return "\n".join(lines)


def summary(refresh: Refresh) -> str:
    """What a refresh did, in one line (recorded as its activity's description)."""
    counts = ", ".join(f"{refresh.count(c)} {c.value}" for c in Change)
    return f"gold SPARQL re-run on {refresh.kb}: {counts}"


def provenance_turtle(refresh: Refresh, *, new_file: Path, old_source: str | None) -> str:
    """PROV-O for the new version (the store's PROV writer, :mod:`service.graph.prov`): the
    file was derived from the old one and generated by a refresh that used the KB."""
    import pyoxigraph as ox

    from service.graph import nodes as n
    from service.graph import prov
    from service.graph.terms import DCT, RDFS, SPDX

    new = n.node(new_file.resolve().as_uri())
    data = new_file.read_bytes()
    activity = n.node(f"{new.value}#refresh")
    kb = n.node(f"{new.value}#kb")
    agent = n.node(f"{new.value}#software")
    old = None
    if old_source:
        old_path = Path(old_source)
        old = n.node(old_path.resolve().as_uri() if old_path.exists() else old_source)
    triples = [
        *prov.entity(new, generated_by=activity, derived_from=[old] if old else []),
        (new, n.node(DCT + "created"), n.date_time(refresh.ended)),
        (new, n.node(SPDX + "checksum"), n.literal(f"sha256:{hashlib.sha256(data).hexdigest()}")),
        *prov.activity(
            activity,
            started=refresh.started,
            ended=refresh.ended,
            used=[kb, *([old] if old else [])],
            agent=agent,
            label="gold refresh: gold SPARQL re-run on a KB",
            description=summary(refresh),
        ),
        *prov.software(agent, release.source()),
        *prov.entity(kb),
        (kb, n.node(RDFS + "label"), n.literal(refresh.kb)),
    ]
    quads = [ox.Quad(s, p, o) for s, p, o in triples]
    prefixes = {"prov": prov.PROV_NS, "dct": DCT, "gqa": "http://w3id.org/gerbil/qa/vocab#"}
    out = ox.serialize(quads, format=ox.RdfFormat.TURTLE, prefixes=prefixes)
    return out.decode("utf-8") if isinstance(out, bytes) else str(out)


def write_refresh(
    refresh: Refresh, output: Path, *, format: str = "qald-json"
) -> tuple[Path, Path]:
    """Write the new version to ``output`` (refusing to overwrite anything) and its PROV-O
    sidecar to ``output`` + ``.prov.ttl``; both are created exclusively."""
    from service import formats

    sidecar = output.with_name(output.name + ".prov.ttl")
    for path in (output, sidecar):
        if path.exists():
            raise Conflict(f"{path} exists; a refresh never overwrites a dataset version")
    data = formats.write(refresh.dataset, format)
    output.parent.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []  # what this call created, removed again if it cannot finish
    try:
        with output.open("xb") as handle:
            made.append(output)
            handle.write(data)
        turtle = provenance_turtle(refresh, new_file=output, old_source=refresh.source)
        with sidecar.open("x", encoding="utf-8") as handle:
            made.append(sidecar)
            handle.write(turtle)
    except BaseException:  # a full disk: no half-written version (explore52 F9)
        for path in made:
            path.unlink(missing_ok=True)
        raise
    return output, sidecar


def default_output(source: str | None, *, when: datetime, directory: Path) -> Path:
    stem = Path(source).name.split(".")[0] if source else "dataset"
    return directory / f"{stem}.refreshed-{when.strftime('%Y%m%dT%H%M%SZ')}.json"
