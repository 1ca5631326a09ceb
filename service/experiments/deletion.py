"""Deleting an unpublished experiment, and what the workspace holds for it alone.

The graph and the admin record go first, in one update
(:meth:`~service.graph.experiments.ExperimentRepository.delete`): from then on the experiment is
gone for every reader. Then its job and its archived answers, and each kept file
(:mod:`service.experiments.kept`) that no other graph, dataset version or job uses. A crash in
between leaves files no one can reach (harmless; a second delete of the id is a 404).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.experiments.jobs import ARCHIVES, JOBS
from service.experiments.kept import file_key
from service.graph.terms import SPDX, XSD

if TYPE_CHECKING:
    from service.graph.store import Storage
    from service.graph.workspace import Workspace


def delete_experiment(storage: Storage, experiment_id: str) -> None:
    """Delete ``experiment_id`` (Conflict when published or active, NotFound when unknown)."""
    shas = storage.experiments.delete(experiment_id)
    workspace = storage.workspace
    if workspace is None:
        return
    workspace.remove(f"{JOBS}/{experiment_id}")
    workspace.remove(f"{ARCHIVES}/{experiment_id}")
    for sha in shas:
        _forget_unused(storage, workspace, sha)


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
