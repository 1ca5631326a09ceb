"""Who runs an experiment: a claim with a lease, in the store's (private) admin graph.

Several ``serve`` processes on one remote store (replicas) share the queue: each job is run by
exactly one of them. Before running a job a runner *claims* it, one atomic SPARQL update that
succeeds only when no one holds a live claim (``gqa:claimedBy``, ``gqa:heartbeatAt``); the
runner renews the heartbeat while it works and drops the claim when done. A claim is live for
:data:`LEASE_SECONDS` after its last heartbeat, reckoned on the store's clock (``NOW()`` in the
update), so replicas on machines whose clocks differ agree. A replica that dies stops
renewing: once its lease has run out, another replica claims the job
and resumes it from the answers already logged (:mod:`service.experiments.jobs`).

With the embedded store only one process can open the store (RocksDB's lock): there is no one
to race, and claims are not written (:attr:`Claims.shared` is False; every claim succeeds).
"""

from __future__ import annotations

import os
import secrets
import socket
from typing import TYPE_CHECKING

from service.graph.terms import XSD
from service.graph.uris import GQA

if TYPE_CHECKING:
    from service.graph.store import Storage

LEASE_SECONDS = 30.0  # a claim not renewed for this long is the claim of a dead runner
ENV_LEASE = "GERBIL_QA_LEASE_SECONDS"


def lease_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get(ENV_LEASE, LEASE_SECONDS)))
    except ValueError:
        return LEASE_SECONDS


def runner_name() -> str:
    """This process's name in claims: host, pid and a nonce (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class Claims:
    """The claims of one runner (``owner``) on ``storage``'s experiments."""

    def __init__(self, storage: Storage, *, owner: str | None = None, lease: float | None = None):
        self.storage = storage
        self.owner = owner or runner_name()
        self.lease = lease if lease is not None else lease_seconds()
        self.shared = storage.store.shared

    def _update(self, text: str) -> None:
        from service.graph.adapter import Side

        self.storage.store.update(Side.PRIVATE, text)

    def _exp(self, experiment_id: str) -> str:
        return f"<{self.storage.uris.experiment(experiment_id)}>"

    def claim(self, experiment_id: str) -> bool:
        """Take the job unless a live claim of another runner holds it (one atomic update);
        True when this runner holds it now."""
        if not self.shared:
            return True
        exp, admin = self._exp(experiment_id), self.storage.uris.admin_graph
        self._update(
            f"DELETE {{ GRAPH <{admin}> {{ {exp} {_CLAIMED} ?who ; {_BEAT} ?beat }} }}\n"
            f"INSERT {{ GRAPH <{admin}> {{ {exp} {_CLAIMED} {_text(self.owner)} ; "
            f"{_BEAT} ?now }} }}\n"
            f"WHERE {{ OPTIONAL {{ GRAPH <{admin}> {{ {exp} {_CLAIMED} ?who ; {_BEAT} ?beat }} }} "
            f"BIND(NOW() AS ?now) FILTER(!BOUND(?who) || ?who = {_text(self.owner)} || "
            f"?beat < NOW() - {_duration(self.lease)}) }}"
        )
        return self.holder(experiment_id) == self.owner

    def renew(self, experiment_id: str) -> None:
        """A new heartbeat on this runner's claim (nothing when it lost the claim)."""
        if not self.shared:
            return
        exp, admin = self._exp(experiment_id), self.storage.uris.admin_graph
        self._update(
            f"DELETE {{ GRAPH <{admin}> {{ {exp} {_BEAT} ?beat }} }}\n"
            f"INSERT {{ GRAPH <{admin}> {{ {exp} {_BEAT} ?now }} }}\n"
            f"WHERE {{ GRAPH <{admin}> {{ {exp} {_CLAIMED} {_text(self.owner)} ; {_BEAT} ?beat }} "
            "BIND(NOW() AS ?now) }"
        )

    def release(self, experiment_id: str) -> None:
        if not self.shared:
            return
        exp, admin = self._exp(experiment_id), self.storage.uris.admin_graph
        self._update(
            f"DELETE {{ GRAPH <{admin}> {{ {exp} {_CLAIMED} ?who ; {_BEAT} ?beat }} }}\n"
            f"WHERE {{ GRAPH <{admin}> {{ {exp} {_CLAIMED} ?who ; {_BEAT} ?beat }} "
            f"FILTER(?who = {_text(self.owner)}) }}"
        )

    def holder(self, experiment_id: str) -> str | None:
        """Who holds a live claim on the job (None: no one)."""
        exp, admin = self._exp(experiment_id), self.storage.uris.admin_graph
        rows = self.storage.store.private.query(
            f"SELECT ?who WHERE {{ GRAPH <{admin}> {{ {exp} {_CLAIMED} ?who ; {_BEAT} ?beat }} "
            f"FILTER(?beat >= NOW() - {_duration(self.lease)}) }}"
        )
        return next((row["who"].value for row in rows), None)

    def orphans(self) -> list[str]:
        """Experiments someone should be working on (queued or running) that no live claim
        holds: their runner died, or the replica that queued them did before claiming."""
        if not self.shared:
            return []
        admin = self.storage.uris.admin_graph
        lease = _duration(self.lease)
        rows = self.storage.store.private.query(
            f"SELECT DISTINCT ?e WHERE {{ GRAPH <{admin}> {{ "
            f"?e <{GQA}status> ?s FILTER(STR(?s) IN ('queued', 'running')) "
            f"FILTER NOT EXISTS {{ ?e <{GQA}status> 'finished' }} "
            f"OPTIONAL {{ ?e <{GQA}createdAt> ?created }} "
            f"OPTIONAL {{ ?e {_BEAT} ?beat }} }} "
            f"FILTER(IF(BOUND(?beat), ?beat < NOW() - {lease}, "
            f"!BOUND(?created) || ?created < NOW() - {lease})) }}"
        )
        return sorted(row["e"].value.rsplit("/", 1)[-1] for row in rows)


_CLAIMED = f"<{GQA}claimedBy>"
_BEAT = f"<{GQA}heartbeatAt>"  # the store's NOW() when the claim was last renewed


def _text(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _duration(seconds: float) -> str:
    return f'"PT{seconds:.3f}S"^^<{XSD}dayTimeDuration>'
