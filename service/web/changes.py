"""What a revision (a resubmission or a re-scoring) changed against the experiment it
replaces: the API's ``changes`` and the experiment page's "What changed" section, from one
function (``rescore.changes`` over the two experiments' ``evaluate --output json`` objects).

Who sees it: whoever may see both experiments. The revision's owner may (only the old one's
owner, or the operator, could make the revision); anyone else once the old one is public.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.web.state import services

SHOWN_QUESTIONS = 100  # per system on the page; the API's `changes` lists every one


def since(
    old: str, after: list[dict[str, Any]], quads: Any = None, *, now: str | None = None
) -> dict[str, Any]:
    """The changes from experiment ``old`` (``quads``: its graph, if read already) to the
    evaluations ``after``, scored on dataset ``now`` (its URI, when known)."""
    from service.experiments.rescore import changes, dataset_of
    from service.graph.reader import evaluations

    storage = services().storage
    quads = storage.experiments.quads(old, answers=False) if quads is None else quads
    return changes(evaluations(quads, storage.uris, old), after, datasets=(dataset_of(quads), now))


@dataclass(frozen=True, slots=True)
class PageChanges:
    """One revised experiment's changes as the experiment page shows them."""

    old: str  # the id of the experiment the page's one replaces
    # rescore.changes' systems, each with `tasks` (experiment type -> this page's task URI)
    # and `compare` (the compare page's URL for the two runs' QA tasks, if both have one)
    systems: list[dict[str, Any]]
    datasets: tuple[str, str] | None = None  # scored on another dataset: (before, now)


def for_page(experiment_id: str, older: list[str], tasks: Any, *, owner: bool) -> list[PageChanges]:
    """The changes the page of ``experiment_id`` shows: against each experiment it revises
    that is public, or any of them for its ``owner``. ``tasks``: the page's task rows, to link
    each changed question to its new result and the two runs' comparison."""
    from flask import url_for

    from service.experiments.rescore import dataset_of
    from service.graph.reader import evaluations
    from service.web.pages import experiment_page

    storage = services().storage
    shown = [old for old in older if owner or storage.experiments.is_public(old)]
    if not shown:
        return []
    new_quads = storage.experiments.quads(experiment_id, answers=False)
    after = evaluations(new_quads, storage.uris, experiment_id)
    out = []
    for old in shown:
        quads = storage.experiments.quads(old, answers=False)
        before = experiment_page(old, quads, storage.uris).tasks
        systems = []
        found = since(old, after, quads, now=dataset_of(new_quads))
        for system in found["systems"]:
            uris, was = (
                {
                    t.experiment_type: t.uri
                    for t in rows
                    if t.system_name == system["system"]
                    and system["language"] in (t.language_tag, t.language)
                }
                for rows in (tasks, before)
            )
            pair = [was.get("QA"), uris.get("QA")]
            compare = (
                url_for("compare.form", task=pair) if _comparable(pair, before, tasks) else None
            )
            systems.append({**system, "tasks": uris, "tasksBefore": was, "compare": compare})
        if systems:  # none in common (a run that ended without results): nothing to say
            moved = (
                (found["datasetBefore"], found["datasetAfter"]) if "datasetAfter" in found else None
            )
            out.append(PageChanges(old, systems, moved))
    return out


def _comparable(pair: list[str | None], before: Any, after: Any) -> bool:
    """Whether the compare page takes the two QA tasks ``pair``: both there, scored alike
    (one profile, one dataset) and with their per-question results. A revision under another
    profile offered a comparison the compare page refused (explore22 1)."""
    if not all(pair):
        return False
    rows = {t.uri: t for t in (*before, *after)}
    old, new = rows.get(pair[0] or ""), rows.get(pair[1] or "")
    if old is None or new is None or old.questions_withheld or new.questions_withheld:
        return False
    from service.graph.reader import not_recomputable

    # a run scored under an older profile version is refused there too: a re-scoring across a
    # version bump linked every system to a 400 "re-score it" (explore27 F2)
    if not_recomputable(old) or not_recomputable(new):
        return False
    if old.signature and new.signature and old.signature != new.signature:
        return False  # an older version's result is compared with its own kind only
    return (old.profile, old.dataset) == (new.profile, new.dataset)
