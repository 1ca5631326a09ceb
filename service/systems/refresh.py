"""Gold refresh: re-run a dataset's gold SPARQL on a KB and make a new dataset version.

Gold answers are the answers of the gold query on the KB version the benchmark was built on;
on a newer KB they drift and a perfect system is scored wrong. A refresh keeps every question
as it was and replaces its answers with what the gold query returns on the given KB now. It never
touches the old version: it writes a new file next to a PROV-O description (which dataset it
was derived from, which KB and version it used, when), and a diff lists what changed.

Questions whose query is missing, out of scope, or fails on the KB keep their old answers and
say why in the diff.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from service import __version__
from service.errors import Conflict, ServiceError
from service.kb import KnowledgeBase, describe
from service.kb.prefixes import with_default_prefixes
from service.model import AnswerSet, Dataset, Question


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


def _answer_keys(answers: AnswerSet | None) -> list[str]:
    if answers is None:
        return []
    return sorted({" ".join(t.n3() for t in row) for row in answers.row_values()})


def refresh_gold(dataset: Dataset, kb: KnowledgeBase) -> Refresh:
    """Run every gold query of ``dataset`` on ``kb``; see the module docstring."""
    started = datetime.now(UTC)
    questions: list[Question] = []
    diffs: list[QuestionDiff] = []
    for question in dataset.questions:
        if question.out_of_scope:
            questions.append(question)
            diffs.append(QuestionDiff(question.id, Change.OUT_OF_SCOPE))
            continue
        if not question.sparql or not question.sparql.strip():
            questions.append(question)
            reason = "only a pseudo query" if question.pseudo_query else "no gold SPARQL"
            diffs.append(QuestionDiff(question.id, Change.NO_QUERY, reason=reason))
            continue
        try:
            fresh = kb.select(with_default_prefixes(question.sparql))
        except ServiceError as err:
            questions.append(question)
            diffs.append(QuestionDiff(question.id, Change.FAILED, reason=str(err)))
            continue
        old, new = set(_answer_keys(question.answers)), set(_answer_keys(fresh))
        same = old == new and (question.answers is not None)
        diffs.append(
            QuestionDiff(
                question.id,
                Change.UNCHANGED if same else Change.CHANGED,
                added=tuple(sorted(new - old)),
                removed=tuple(sorted(old - new)),
            )
        )
        questions.append(question if same else replace(question, answers=fresh))
    kb_text = describe(kb) or "unknown KB"
    new_dataset = replace(dataset, questions=tuple(questions))
    return Refresh(
        dataset=new_dataset,
        diffs=tuple(diffs),
        kb=kb_text,
        started=started,
        ended=datetime.now(UTC),
        source=dataset.source,
        kb_identity=kb.identity,
        kb_version=kb.version,
    )


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
        *prov.software(agent, __version__),
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
    with output.open("xb") as handle:
        handle.write(data)
    turtle = provenance_turtle(refresh, new_file=output, old_source=refresh.source)
    with sidecar.open("x", encoding="utf-8") as handle:
        handle.write(turtle)
    return output, sidecar


def default_output(source: str | None, *, when: datetime, directory: Path) -> Path:
    stem = Path(source).name.split(".")[0] if source else "dataset"
    return directory / f"{stem}.refreshed-{when.strftime('%Y%m%dT%H%M%SZ')}.json"
