"""The files an experiment read, kept in the store's workspace by their SHA-256 (``files/{sha}``,
:mod:`service.graph.workspace`).

An experiment's graph names every uploaded file (dataset, answers, gold) with its SHA-256; the
bytes are kept here before the graph is written, so whoever may see the experiment can download
what it was scored from, and it can be scored again without the original upload (the job's own
copy goes with the job). Content-addressed: a file used by many experiments is kept once, and a
file left by a crash before its graph was written is harmless.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

from service.graph.workspace import Workspace

FILES_DIR = "files"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def file_key(sha256: str) -> str:
    """The workspace key of a kept file."""
    if not _SHA256.match(sha256):
        raise ValueError(f"not a SHA-256: {sha256!r}")
    return f"{FILES_DIR}/{sha256}"


def keep(workspace: Workspace, sha256: str, data: bytes) -> None:
    """Keep ``data`` under its SHA-256 (written once)."""
    key = file_key(sha256)
    if not workspace.exists(key):
        workspace.write({key: data})


def kept(
    workspace: Workspace | None, sha256: str, *, experiment_id: str, name: str
) -> bytes | None:
    """The bytes of a file an experiment used, by SHA-256: a kept upload, else the answer file
    its run archived (``answers/{id}/{name}``, checked against the SHA-256)."""
    import hashlib

    from service.experiments.jobs import ARCHIVES

    if workspace is None or not _SHA256.match(sha256) or not experiment_id.isdigit():
        return None
    data = workspace.read(file_key(sha256))
    if data is not None:
        return data
    data = workspace.read(f"{ARCHIVES}/{experiment_id}/{PurePosixPath(name).name}")
    if data is not None and hashlib.sha256(data).hexdigest() == sha256:
        return data
    return None


def kept_or_at(
    workspace: Workspace | None,
    sha256: str | None,
    *,
    experiment_id: str,
    name: str,
    path: str | None,
) -> bytes | None:
    """The bytes an experiment read from a file it names by ``sha256`` (kept at ``path`` on
    the command line): the kept copy, else the file at ``path`` if it still holds those bytes.
    A path is never read for what it holds now: a file its author edited in place after the
    run was revealed as the edited version's gold, and a relative path read against the
    server's directory (explore32 1, 5)."""
    import hashlib

    if sha256:
        data = kept(workspace, sha256.lower(), experiment_id=experiment_id, name=name)
        if data is not None:
            return data
    if path is None:
        return None
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if sha256 and hashlib.sha256(data).hexdigest() != sha256.lower():
        return None
    return data


def missing(storage: Any, workspace: Any = None) -> list[tuple[str, str, str, bool]]:
    """The uploaded or archived files experiments name (``prov:used``, with their SHA-256) that
    the store does not keep, as (experiment id, file name, SHA-256, whether it was kept when
    recorded): a store restored from a dump without ``--files`` holds the graphs only, and
    those files can then be neither downloaded nor scored again. A file recorded by a version
    that kept none (before 2026-11-24) has no download address in its graph: nothing to
    restore then. A catalogue dataset's files come from the data mirror. ``workspace``: where
    the files are, when not beside ``storage`` (a checkpoint a running server took holds its
    graphs only)."""
    from service.catalog import is_distribution
    from service.graph.terms import DCAT, DCT, PROV
    from service.graph.uris import GQA

    workspace = workspace or storage.workspace
    if workspace is None:  # no files kept at all: nothing to compare
        return []
    prefix = storage.uris.base + "graph/experiment/"
    query = f"""SELECT ?g ?title ?sha ?address WHERE {{ GRAPH ?g {{ ?e <{PROV}used> ?f .
      ?f <{GQA}sha256> ?sha ; <{DCT}title> ?title
      OPTIONAL {{ ?f <{DCAT}downloadURL> ?address }}
      FILTER NOT EXISTS {{ ?f a <{DCAT}Dataset> }} }} FILTER(STRSTARTS(STR(?g), "{prefix}")) }}"""
    found = set()
    for side in (storage.store.public, storage.store.private):
        for row in side.query(query):
            experiment_id = row["g"].value.removeprefix(prefix)
            sha, name = row["sha"].value.lower(), row["title"].value
            if is_distribution(sha) or workspace.exists(file_key(sha)):
                continue  # (asked, not read: a store's files may be gigabytes)
            if kept(workspace, sha, experiment_id=experiment_id, name=name):
                continue  # an answer file its run archived, checked against its SHA-256
            found.add((experiment_id, name, sha, row["address"] is not None))
    return sorted(found)
