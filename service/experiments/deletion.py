"""Deleting an unpublished experiment, and what the workspace holds for it alone.

The graph and the admin record go first, in one update
(:meth:`~service.graph.experiments.ExperimentRepository.delete`), which notes what is left to
clean: from then on the experiment is gone for every reader. Then its job and its archived
answers, and each kept file (:mod:`service.experiments.kept`) that no other graph, dataset
version or job uses; then the note goes. A crash in between is finished by the next delete of the
id or the next ``serve`` start (:func:`finish_deletions`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from service.errors import NotFound
from service.experiments.jobs import ARCHIVES, JOBS
from service.experiments.kept import file_key
from service.graph.terms import SPDX, XSD

if TYPE_CHECKING:
    from service.graph.store import Storage
    from service.graph.workspace import Workspace

log = logging.getLogger(__name__)


def delete_experiment(storage: Storage, experiment_id: str) -> None:
    """Delete ``experiment_id`` (Conflict when published or active, NotFound when unknown); a
    deletion a crash left unfinished is finished."""
    experiments = storage.experiments
    try:
        shas = experiments.delete(experiment_id)
    except NotFound:
        pending = experiments.pending_deletions()
        if experiment_id not in pending:
            raise
        shas = pending[experiment_id]
    _clean_up(storage, experiment_id, shas)


def finish_deletions(storage: Storage) -> int:
    """Finish the cleanups that crashed deletions left (at ``serve`` start); how many."""
    pending = storage.experiments.pending_deletions()
    for experiment_id, shas in sorted(pending.items()):
        _clean_up(storage, experiment_id, shas)
    if pending:
        log.info("finished the cleanup of %d deleted experiment(s)", len(pending))
    return len(pending)


def _clean_up(storage: Storage, experiment_id: str, shas: list[str]) -> None:
    workspace = storage.workspace
    if workspace is not None:
        workspace.remove(f"{JOBS}/{experiment_id}")
        workspace.remove(f"{ARCHIVES}/{experiment_id}")
        for sha in shas:
            _forget_unused(storage, workspace, sha)
    storage.experiments.forget_deletion(experiment_id)


def _forget_unused(storage: Storage, workspace: Workspace, sha: str) -> None:
    """Remove the kept file ``sha`` unless something still uses it. Checked again after the
    removal, and put back if an experiment recorded it meanwhile (its keep() found it there)."""
    try:
        key = file_key(sha)
    except ValueError:  # a checksum this service did not write: nothing kept under it
        return
    data = workspace.read(key)
    if data is None or _used(storage, workspace, sha):
        return
    workspace.remove_key(key)
    if _used(storage, workspace, sha):
        workspace.write({key: data})


def _used(storage: Storage, workspace: Workspace, sha: str) -> bool:
    """Some graph (an experiment, a dataset version) names ``sha``, or a job holds it."""
    # graphs write checksums as xsd:hexBinary; either case, and a plain string, all match
    forms = " ".join(f'"{v}"^^<{XSD}hexBinary>' for v in (sha.lower(), sha.upper()))
    ask = f'ASK {{ VALUES ?v {{ {forms} "{sha}" }} GRAPH ?g {{ ?x <{SPDX}checksumValue> ?v }} }}'
    store = storage.store
    return (
        bool(store.private.query(ask))
        or bool(store.public.query(ask))
        or bool(workspace.folders_with(JOBS, f"files/{sha}"))
    )
