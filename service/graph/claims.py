"""Claims: which process may do something that only one may do, on a store several share.

Several ``serve`` processes on one remote store (replicas) share the queue and the id counter.
A snapshot-isolated store such as Oxigraph's server does not make a conditional insert
exclusive (two updates that each find "no one holds it" both commit: measured, 6 duplicate ids
in 90 reservations from three processes), so exclusivity is arbitrated:

1. a process (a *runner*, named by host, pid and a nonce) keeps a heartbeat in the admin graph
   (``<urn:gerbil-qa:runner:…> gqa:heartbeatAt NOW()``, renewed every lease/3); its claims are
   live while the heartbeat is younger than the lease (:data:`LEASE_SECONDS`);
2. to claim a subject (an experiment to run, an id to give out) it adds its claim
   (``<subject> gqa:claim <subject#claim-…>``, ``gqa:claimedBy`` the runner, ``gqa:claimedAt``
   the store's ``NOW()``) unless a live claim of another runner is there;
3. it waits :data:`SETTLE_SECONDS`, longer than any claim update takes, so every claim made at
   the same time has landed, then reads the live claims: the earliest (then the smallest runner
   name) wins, the same answer for every process; a loser removes its claim.

A claim holds for as long as its runner beats: a runner that dies stops, its claims lapse
together after the lease, and another replica takes its experiments over. Times are the store's
(``NOW()`` in the updates), so replicas whose clocks differ agree.

A runner that is only paused (a stopped VM, a long GC pause, a network partition) must not go on
when it wakes up: another replica may have taken its work over meanwhile. So a runner counts its
claims as held only until :data:`HOLD` of the lease has passed since it *sent* its last heartbeat
that the store accepted (the store's time of that beat is later, so the claims are still live
then); past it, :meth:`Claims.holding` is False, a run stops asking and writing, and the next
beat takes a new runner name, so that the old claims stay lapsed for good (renewing them would
revive them next to the replica that took the work over). The final write of a run is
conditional on the claim too (:meth:`Hold.pattern`): a runner paused between its check and its
write writes nothing.

With the embedded store only one process can open the store (RocksDB's lock): there is no one
to race, nothing is written, and every claim succeeds (:attr:`Claims.shared` is False).
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import quote

from service.graph.adapter import Side
from service.graph.terms import XSD
from service.graph.uris import GQA

if TYPE_CHECKING:
    from service.graph.adapter import StoreAdapter
    from service.graph.uris import Uris

log = logging.getLogger(__name__)

LEASE_SECONDS = 30.0  # a runner whose heartbeat is older is dead, and so are its claims
SETTLE_SECONDS = 0.3  # longer than a claim update takes: then every concurrent claim is in
# A runner holds its claims for this part of the lease after sending a heartbeat that landed:
# beats go every lease/3, so a beat may fail once before its runs stop; the rest is the margin
# for the last write of a run to land while the claim is live.
HOLD = 0.8
ENV_LEASE = "GERBIL_QA_LEASE_SECONDS"


def lease_seconds(environ: Mapping[str, str] | None = None) -> float:
    """``$GERBIL_QA_LEASE_SECONDS`` (else 30): a number of seconds ≥ 1; anything else is
    refused (``abc`` was read as 30 and ``0`` as 1 without a word)."""
    from service.errors import BadRequest

    text = (os.environ if environ is None else environ).get(ENV_LEASE)
    if text is None:
        return LEASE_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value >= 1:  # said as the other settings are, the value unquoted (explore51 F7)
        raise BadRequest(f"setting lease_seconds ({ENV_LEASE}): expected a number ≥ 1, got {text}")
    return value


def runner_name() -> str:
    """This process's name in claims: host, pid and a nonce (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


_CLAIM = f"<{GQA}claim>"
_BY = f"<{GQA}claimedBy>"
_AT = f"<{GQA}claimedAt>"
_BEAT = f"<{GQA}heartbeatAt>"


class Claims:
    """The claims of one runner on a store (see the module docstring)."""

    def __init__(
        self,
        store: StoreAdapter,
        uris: Uris,
        *,
        owner: str | None = None,
        lease: float | None = None,
        settle: float = SETTLE_SECONDS,
    ) -> None:
        self.store = store
        self.admin = uris.admin_graph
        self.owner = owner or runner_name()
        self.runner = f"<urn:gerbil-qa:runner:{quote(self.owner, safe='')}>"
        self.lease = lease if lease is not None else lease_seconds()
        self.settle = settle
        self.shared = store.shared
        self.generation = 0  # a new runner name after a lapse (see the module docstring)
        self._beat_sent: float | None = None  # monotonic: when the last beat that landed left
        self._beating = threading.Lock()

    def holding(self) -> bool:
        """Whether this runner's claims are surely still live (always, on a store no one
        shares): a heartbeat that landed was sent less than :data:`HOLD` of the lease ago."""
        if not self.shared:
            return True
        sent = self._beat_sent
        return sent is not None and time.monotonic() - sent < self.lease * HOLD

    def hold(self, subject: str) -> Hold:
        """This runner's claim on ``subject`` (claimed already), for a run to check."""
        return Hold(self, subject, self.generation, self.runner, self._claim_node(subject))

    def _rename(self) -> None:
        """Go on under a new name; the old name's claims never become live again (its
        heartbeat is dropped, or lapses where the store cannot be reached now)."""
        # quietly: a claims object that only beats when it claims (ids) lapses between uses;
        # a run that stops for it says so (the runner)
        log.debug("runner %s: its heartbeat lapsed; going on under a new name", self.owner)
        old = self.runner
        self.owner = runner_name()
        self.runner = f"<urn:gerbil-qa:runner:{quote(self.owner, safe='')}>"
        self.generation += 1
        self._beat_sent = None
        try:
            self._update(f"DELETE WHERE {{ GRAPH <{self.admin}> {{ {old} {_BEAT} ?beat }} }}")
        except Exception as err:  # unreachable now: it lapses on its own
            log.debug("dropping the heartbeat of %s failed: %s", old, err)

    def _claim_node(self, subject: str) -> str:
        return f"<{subject}#claim-{hashlib.sha256(self.owner.encode()).hexdigest()[:16]}>"

    def _live(self, runner: str = "?r") -> str:
        return f"{runner} {_BEAT} ?beat FILTER(?beat >= NOW() - {_duration(self.lease)})"

    def _update(self, text: str) -> None:
        self.store.update(Side.PRIVATE, text)

    def beat(self) -> None:
        """Renew this runner's heartbeat: every claim it holds stays live (an update and a
        check that it landed; under a new name when the old one may have lapsed)."""
        if not self.shared:
            return
        with self._beating:  # the runs' threads claim while the claims' thread beats
            if self._beat_sent is not None and not self.holding():
                self._rename()  # never renew claims another runner may hold by now
            sent = time.monotonic()
            if self._beat_sent is not None and not self._renew():
                self._rename()  # it lapsed in the store meanwhile (a beat that took long)
                sent = time.monotonic()
            if self._beat_sent is None:  # a new name: its first heartbeat
                self._update(
                    f"INSERT {{ GRAPH <{self.admin}> {{ {self.runner} {_BEAT} ?now }} }} "
                    "WHERE { BIND(NOW() AS ?now) }"
                )
            self._beat_sent = sent

    def _renew(self) -> bool:
        """Renew the heartbeat if it is still live, in one update (a renewal that lands after
        the lease must not revive claims others may have taken since); whether it is live."""
        g, live = self.admin, self._live(self.runner)
        self._update(
            f"DELETE {{ GRAPH <{g}> {{ {self.runner} {_BEAT} ?beat }} }} "
            f"INSERT {{ GRAPH <{g}> {{ {self.runner} {_BEAT} ?now }} }} "
            f"WHERE {{ GRAPH <{g}> {{ {live} }} BIND(NOW() AS ?now) }}"
        )
        return bool(self.store.private.query(f"ASK {{ GRAPH <{g}> {{ {live} }} }}"))

    def claim(self, subject: str) -> bool:
        """Claim ``subject`` (an IRI); True when this runner holds it now (module docstring)."""
        if not self.shared:
            return True
        self.beat()  # may go on under a new name: the claim is named after the name it beats
        with self._beating:  # the name and its node together, never half renamed
            runner, mine = self.runner, self._claim_node(subject)
        g, s = self.admin, f"<{subject}>"
        self._update(
            f"INSERT {{ GRAPH <{g}> {{ {s} {_CLAIM} {mine} . {mine} {_BY} {runner} ; "
            f"{_AT} ?now }} }} WHERE {{ BIND(NOW() AS ?now) FILTER NOT EXISTS {{ GRAPH <{g}> {{ "
            f"{s} {_CLAIM} ?c . ?c {_BY} ?r . {self._live()} FILTER(?r != {runner}) }} }} }}"
        )
        time.sleep(self.settle)
        if self.holder(subject) == self.runner[1:-1]:
            return True
        self.release(subject)
        return False

    def holder(self, subject: str) -> str | None:
        """The runner (its IRI) whose live claim on ``subject`` is the earliest; None: no one."""
        if not self.shared:
            return self.runner[1:-1]
        rows = self.store.private.query(
            f"SELECT ?r WHERE {{ GRAPH <{self.admin}> {{ <{subject}> {_CLAIM} ?c . ?c {_BY} ?r ; "
            f"{_AT} ?at . {self._live()} }} }} ORDER BY ?at STR(?r) LIMIT 1"
        )
        return next((row["r"].value for row in rows), None)

    def silent_for(self, subject: str) -> float | None:
        """Seconds since the runner holding ``subject`` (its newest claim's, live or not) last
        beat, by the store's clock; None when no claim has a heartbeat (none, or it lapsed and
        was dropped) or on a store no one shares."""
        if not self.shared:
            return None
        rows = self.store.private.query(
            f"SELECT ?beat (NOW() AS ?now) WHERE {{ GRAPH <{self.admin}> {{ <{subject}> "
            f"{_CLAIM} ?c . ?c {_BY} ?r ; {_AT} ?at . ?r {_BEAT} ?beat }} }} "
            "ORDER BY DESC(?beat) LIMIT 1"
        )
        for row in rows:
            beat, now = (datetime.fromisoformat(row[k].value) for k in ("beat", "now"))
            return max(0.0, (now - beat).total_seconds())
        return None

    def release(self, subject: str) -> None:
        """Drop this runner's claim on ``subject`` (and the lapsed claims of dead runners)."""
        if not self.shared:
            return
        g, s, mine = self.admin, f"<{subject}>", self._claim_node(subject)
        self._update(
            f"DELETE WHERE {{ GRAPH <{g}> {{ {s} {_CLAIM} {mine} . {mine} ?p ?o }} }} ;\n"
            f"DELETE {{ GRAPH <{g}> {{ {s} {_CLAIM} ?c . ?c ?p ?o }} }} WHERE {{ GRAPH <{g}> {{ "
            f"{s} {_CLAIM} ?c . ?c {_BY} ?r ; ?p ?o "
            f"FILTER NOT EXISTS {{ {self._live()} }} }} }}"
        )

    def claimed(self, subject: str) -> bool:
        """Someone (live or not) claimed ``subject`` (an id being given out is taken)."""
        if not self.shared:
            return False
        return bool(
            self.store.private.query(
                f"ASK {{ GRAPH <{self.admin}> {{ <{subject}> {_CLAIM} ?c }} }}"
            )
        )

    def orphans(self) -> list[str]:
        """Experiments someone should be working on (queued or running) that no live claim
        holds: their runner died, or the replica that queued them did before claiming."""
        if not self.shared:
            return []
        lease = _duration(self.lease)
        rows = self.store.private.query(
            f"SELECT DISTINCT ?e WHERE {{ GRAPH <{self.admin}> {{ "
            f"?e <{GQA}status> ?s FILTER(STR(?s) IN ('queued', 'running')) "
            f"FILTER NOT EXISTS {{ ?e <{GQA}status> 'finished' }} "
            f"FILTER NOT EXISTS {{ ?e {_CLAIM} ?c . ?c {_BY} ?r . {self._live()} }} "
            f"OPTIONAL {{ ?e <{GQA}createdAt> ?created }} }} "
            f"FILTER(!BOUND(?created) || ?created < NOW() - {lease}) }}"
        )
        return sorted(row["e"].value.rsplit("/", 1)[-1] for row in rows)


@dataclass(frozen=True, slots=True)
class Hold:
    """A runner's claim on one subject, as a run checks it before each step and its final
    write states it as a precondition."""

    claims: Claims
    subject: str
    generation: int  # the runner's name when it claimed: a new name means the claim lapsed
    runner: str  # that name's IRI and the claim's node, as SPARQL terms
    node: str

    def holding(self) -> bool:
        return self.claims.generation == self.generation and self.claims.holding()

    def pattern(self) -> str | None:
        """A SPARQL group pattern that matches once while this claim is live in the store
        (None on a store no one shares: nothing to check)."""
        claims, node = self.claims, self.node
        if not claims.shared:
            return None
        return (
            f"GRAPH <{claims.admin}> {{ <{self.subject}> {_CLAIM} {node} . "
            f"{node} {_BY} {self.runner} . {claims._live(self.runner)} }}"
        )


def _duration(seconds: float) -> str:
    return f'"PT{seconds:.3f}S"^^<{XSD}dayTimeDuration>'
