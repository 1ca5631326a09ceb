"""The experiment repository: ids, the status lifecycle, recording, publication, papers,
withdrawal and deletion.

An experiment's results are one named graph (``graph/experiment/{id}``, written by
:mod:`service.graph.results`), private until published. What only the service knows about it
lives in the private admin graph (``graph/admin``): its status, message and progress line, the
SHA-256 of its owner token, when it was created and published, and a one-line summary of what
was asked (``gqa:job``).

**Status lifecycle** (:class:`Status`)::

    reserved -> queued -> running -> finished | error | cancelled | interrupted
    interrupted | cancelled | error -> queued (resumed)

An id is *reserved* when a submission has passed its checks; it becomes *queued* once its job
is saved, and a submission that fails in between ends as *error* (and the background runner's
recovery ends any id a crash left reserved without a job). *finished* is reached only
by :meth:`ExperimentRepository.record`, in the transaction that writes the results. Records
written before the lifecycle had a name for it say ``failed``; they read as *error*.

**Transactions.** A new experiment's admin record is insert-only (the day's counter keeps
every value given out and the next id follows the largest); recording adds status
``finished``, which outranks the old status until :meth:`_settle_status` (or the next open)
removes it, so the results and their status are one ``add``. Publishing copies the graph and its
share of the public default graph into the public dataset in one ``add`` (the moment it becomes
public), then updates the admin record and drops the private copy in one update; a crash in
between is completed by :meth:`ExperimentRepository.recover`. Withdrawing a published experiment
is one update of the public dataset: its share of the default graph out, its note in
(:meth:`ExperimentRepository.withdraw`).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from service import release
from service.errors import BadRequest, Conflict, NotFound, ServiceError
from service.evaluation.results import Evaluation
from service.graph import nodes as n
from service.graph import terms as t
from service.graph.adapter import Side, StoreAdapter, add_public, handed_over
from service.graph.claims import Claims, Hold
from service.graph.nodes import NamedNode, Quad, node
from service.graph.prov import timestamp
from service.graph.results import (
    DatasetRef,
    ExperimentRecord,
    SystemInfo,
    UploadedFile,
    experiment_quads,
)
from service.graph.terms import DCT, GQA, PROV, RDF, XSD, iri, literal
from service.graph.uploads import join_published, own_graph, publish_graph
from service.graph.uris import Uris, check_experiment_id
from service.release import Source

# A DOI as written in papers and links: 10.<registrant>/<suffix>, optionally as doi: or a doi.org
# URL (DOI Handbook §2.2: the prefix is "10." and a registrant code, the suffix any characters).
_DOI = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_URL = re.compile(r"^https?://[^/\s?#]+", re.IGNORECASE)

# what an operator reads in serve's log: each experiment's changes (serve logs INFO)
log = logging.getLogger(__name__)


ID_ATTEMPTS = 50  # ids tried when other processes on a shared store take them meanwhile
PUBLISH_ATTEMPTS = 20  # claims of a publication another process holds (0.3 s each)
# held by every publication that must be checked against the others (a revision: see
# ExperimentRepository.publish), so that no two of them are checked at once
CHECKED_PUBLICATIONS = "urn:gerbil-qa:checked-publication"
MAX_REASON = 2000  # characters of a withdrawal's reason


class Status(StrEnum):
    """Where an experiment is in its lifecycle (module docstring)."""

    RESERVED = "reserved"
    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    ERROR = "error"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"

    @classmethod
    def read(cls, text: str) -> Status:
        """A stored status; ``failed`` (the name before the lifecycle) is :attr:`ERROR`."""
        if text == "failed":
            return cls.ERROR
        try:
            return cls(text)
        except ValueError:
            raise ServiceError(f"unknown experiment status {text!r} in the store") from None

    @property
    def active(self) -> bool:
        """Someone is (or should be) working on it."""
        return self in (Status.RESERVED, Status.QUEUED, Status.RUNNING)

    @property
    def resumable(self) -> bool:
        return self in RESUMABLE

    @property
    def said(self) -> str:
        """The status in a sentence, "experiment 202611270008 ended in error" (it read "is
        error, not finished")."""
        return _SAID[self]


RESUMABLE = (Status.INTERRUPTED, Status.CANCELLED, Status.ERROR)
_SAID = {
    Status.RESERVED: "is reserved, not queued yet",
    Status.QUEUED: "is queued, not run yet",
    Status.RUNNING: "is still running",
    Status.FINISHED: "is finished",
    Status.ERROR: "ended in error",
    Status.CANCELLED: "was cancelled",
    Status.INTERRUPTED: "was interrupted",
}
TRANSITIONS: dict[Status, frozenset[Status]] = {
    Status.RESERVED: frozenset(
        {Status.QUEUED, Status.RUNNING, Status.ERROR, Status.CANCELLED, Status.INTERRUPTED}
    ),
    Status.QUEUED: frozenset(
        {Status.QUEUED, Status.RUNNING, Status.ERROR, Status.CANCELLED, Status.INTERRUPTED}
    ),
    Status.RUNNING: frozenset({Status.RUNNING, Status.ERROR, Status.CANCELLED, Status.INTERRUPTED}),
    Status.INTERRUPTED: frozenset({Status.QUEUED, Status.CANCELLED, Status.ERROR}),
    Status.CANCELLED: frozenset({Status.QUEUED, Status.CANCELLED}),
    Status.ERROR: frozenset({Status.QUEUED, Status.ERROR}),
    Status.FINISHED: frozenset(),
}
"""The changes :meth:`ExperimentRepository.set_status` allows (finished comes from ``record``)."""


@dataclass(frozen=True, slots=True)
class Ticket:
    """A new experiment: its id, URI and the owner token (shown once; only its hash is kept)."""

    id: str
    uri: str
    token: str = field(repr=False)  # never in a traceback or a log line (explore52 F3)


@dataclass(frozen=True, slots=True)
class ExperimentStatus:
    """What the admin graph knows about an experiment."""

    id: str
    uri: str
    status: Status
    public: bool
    created: str | None = None
    published_at: str | None = None
    message: str | None = None
    progress: str | None = None
    job: str | None = None
    withdrawn_at: str | None = None  # read from the public dataset, where the note is
    withdrawal_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The keys the API's status and ``gerbil-qa experiments`` share."""
        out = {
            "id": self.id,
            "uri": self.uri,
            "status": self.status.value,
            "public": self.public,
            "created": self.created,
            "publishedAt": self.published_at,
        }
        if self.withdrawn_at is not None:
            out |= {"withdrawnAt": self.withdrawn_at, "withdrawalReason": self.withdrawal_reason}
        return out


def secret_bytes(secret: str) -> bytes:
    """A token as the bytes compared and hashed: UTF-8, a lone surrogate (JSON's ``"\\ud800"``)
    kept as its code unit rather than refused with an error."""
    return secret.encode("utf-8", "surrogatepass")


def same_secret(given: str, expected: str) -> bool:
    """Whether a token (or form check) given is the one expected, in constant time, compared as
    bytes: ``hmac.compare_digest`` on ``str`` raises for a non-ASCII one, which answered 500
    for any non-ASCII bearer token, ``?token=``, compare ``tokens`` value or form ``check``
    once an admin token was set (explore34 5). Every token comparison goes through here."""
    return hmac.compare_digest(secret_bytes(given), secret_bytes(expected))


def token_hash(token: str) -> str:
    return hashlib.sha256(secret_bytes(token)).hexdigest()


def _p(local: str) -> str:
    return f"<{GQA}{local}>"


def _q(local: str) -> NamedNode:
    return node(GQA + local)


class ClaimLapsed(Conflict):
    """A run's claim on its experiment lapsed (its runner was paused or cut off past the
    lease): another runner took the experiment over, and this one must write nothing more."""


def _insert_data(graphs: dict[str, list[str]]) -> str:
    parts = [f"GRAPH <{g}> {{\n" + "\n".join(lines) + "\n}" for g, lines in graphs.items() if lines]
    return "INSERT DATA {\n" + "\n".join(parts) + "\n}"


def _refuse_invalid_terms(experiment_id: str, quads: Sequence[Quad]) -> None:
    """Publishing is for strict clients too: a graph holding a term a strict RDF parser refuses
    (written behind the writers' back, or by an older version) stays private (issue 9.1)."""
    from service.graph.checks import term_violations

    bad = term_violations(quads)
    if bad:
        shown = "; ".join(v.message for v in bad[:3])
        more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
        raise Conflict(
            f"experiment {experiment_id} is not published: it holds terms a strict RDF parser "
            f"refuses: {shown}{more}; `gerbil-qa check` lists them"
        )


ANSWER_PREDICATES = (
    *("givenAnswer", "exactAnswer", "falseAnswer", "missedAnswer", "answerMatch"),
    "rankedAnswers",  # the given answers in the system's order (confidence and rank measures)
)
"""The per-answer properties of a question result (``service.graph.results``); an answer
match's own triples are on its ``…#match-k`` node."""


class ExperimentRepository:
    """Experiments in a store (module docstring)."""

    def __init__(self, store: StoreAdapter, uris: Uris) -> None:
        self.store = store
        self.uris = uris
        self._claims_of: Claims | None = None  # ids given out on a shared store

    # -- reading -----------------------------------------------------------------------------
    def _admin_select(self, body: str) -> list[dict[str, str]]:
        rows = self.store.private.query(
            f"SELECT * WHERE {{ GRAPH <{self.uris.admin_graph}> {{ {body} }} }}"
        )
        return [
            {v.value: row[v].value for v in rows.variables if row[v] is not None} for row in rows
        ]

    def status(self, experiment_id: str) -> ExperimentStatus:
        """The admin record of an experiment (one indexed lookup); NotFound when there is none.

        A published experiment's status is also its public copy's: with the private store of
        a remote deployment away, it is read from there (finished, published, withdrawn or
        not), so the citable page of a published result answers while the listings do."""
        from service.graph.remote import StoreUnavailable  # it imports this module

        check_experiment_id(experiment_id)
        try:
            found = self._statuses(experiment_id)
        except StoreUnavailable:
            published = self._published_status(experiment_id)
            if published is None:
                raise
            return published
        if not found:
            raise NotFound(f"no experiment {experiment_id}")
        return found[0]

    def _published_status(self, experiment_id: str) -> ExperimentStatus | None:
        """The status of a published experiment as its public copy says it (a copy in the
        public dataset is a publication: :meth:`recover` completes the admin record from it);
        None when it has no public copy. Its creation time is the admin record's alone."""
        uri = self.uris.experiment(experiment_id)
        graph = node(self.uris.experiment_graph(experiment_id))
        if not self.store.public.contains_named_graph(graph):
            return None
        issued = self.store.public.quads_for_pattern(node(uri), node(DCT + "issued"), None, graph)
        withdrawn = self._withdrawals(experiment_id).get(experiment_id)
        return ExperimentStatus(
            id=experiment_id,
            uri=uri,
            status=Status.FINISHED,
            public=True,
            published_at=next((q.object.value for q in issued), None),
            withdrawn_at=withdrawn[0] if withdrawn else None,
            withdrawal_reason=withdrawn[1] if withdrawn else None,
        )

    def _statuses(self, experiment_id: str | None = None) -> list[ExperimentStatus]:
        subject = iri(self.uris.experiment(experiment_id)) if experiment_id else "?e"
        rows = self._admin_select(
            f"{subject} {_p('status')} ?status ; {_p('published')} ?pub . "
            f"OPTIONAL {{ {subject} {_p('createdAt')} ?created }} "
            f"OPTIONAL {{ {subject} {_p('publishedAt')} ?pubAt }} "
            f"OPTIONAL {{ {subject} {_p('message')} ?message }} "
            f"OPTIONAL {{ {subject} {_p('progress')} ?progress }} "
            f"OPTIONAL {{ {subject} {_p('job')} ?job }} "
        )
        out: dict[str, ExperimentStatus] = {}
        for row in rows:
            uri = row.get("e") or self.uris.experiment(experiment_id or "")
            eid = uri.rsplit("/", 1)[1]
            if eid in out and out[eid].status is Status.FINISHED:
                continue  # an insert-only record not yet settled: finished outranks the old status
            status = Status.read(row["status"])
            # a finished one has neither (``_settle_status``): until it is settled, its run's
            # last phase read as its progress ("finished", progress "recording")
            settled = status is Status.FINISHED
            out[eid] = ExperimentStatus(
                id=eid,
                uri=uri,
                status=status,
                public=row["pub"] == "true",
                created=row.get("created"),
                published_at=row.get("pubAt"),
                message=None if settled else row.get("message"),
                progress=None if settled else row.get("progress"),
                job=row.get("job"),
            )
        if any(st.public for st in out.values()):
            for eid, (at, reason) in self._withdrawals(experiment_id).items():
                if eid in out:
                    out[eid] = replace(out[eid], withdrawn_at=at, withdrawal_reason=reason)
        return sorted(out.values(), key=lambda s: s.id)

    def _withdrawals(self, experiment_id: str | None = None) -> dict[str, tuple[str, str]]:
        """Withdrawn experiments (all, or the one given): id -> (when, why), from the notes in
        the public default graph."""
        subject = iri(self.uris.experiment(experiment_id)) if experiment_id else "?e"
        rows = self.store.public.query(
            f"SELECT * WHERE {{ {subject} {_p('withdrawnAt')} ?at ; "
            f"{_p('withdrawalReason')} ?why }}"
        )
        found: dict[str, tuple[str, str]] = {}
        for row in rows:
            uri = row["e"].value if experiment_id is None else self.uris.experiment(experiment_id)
            found[uri.rsplit("/", 1)[1]] = (row["at"].value, row["why"].value)
        return found

    def listing(self, *, include_private: bool = False) -> list[ExperimentStatus]:
        """Experiments in id order: only published ones, or all of them (the operator's view)."""
        return [s for s in self._statuses() if include_private or s.public]

    def is_public(self, experiment_id: str) -> bool:
        graph = node(self.uris.experiment_graph(experiment_id))
        return bool(self.store.public.contains_named_graph(graph))

    def check_token(self, experiment_id: str, token: str | None) -> bool:
        """True when ``token`` is the owner token of the experiment (constant-time compare)."""
        if not token:
            return False
        exp = iri(self.uris.experiment(check_experiment_id(experiment_id)))
        rows = self._admin_select(f"{exp} {_p('ownerTokenHash')} ?h")
        return any(same_secret(r["h"], token_hash(token)) for r in rows)

    def spec_of(self, experiment_id: str) -> str | None:
        """The spec an experiment ran (JSON, kept when it was recorded), if it was kept."""
        exp = iri(self.uris.experiment(check_experiment_id(experiment_id)))
        rows = self._admin_select(f"{exp} {_p('spec')} ?s")
        return rows[0]["s"] if rows else None

    def specs(self) -> dict[str, str]:
        """Every kept spec by experiment id, in one query (the operator's listing)."""
        rows = self._admin_select(f"?e {_p('spec')} ?s")
        return {r["e"].rsplit("/", 1)[1]: r["s"] for r in rows}

    def recorded_datasets(self) -> dict[str, str]:
        """The dataset each recorded experiment's results are under, by experiment id, in one
        query (the operator's listing: an upload is named by its content, not by the file
        name its submitter gave it)."""
        query = (
            f"SELECT ?e ?d WHERE {{ GRAPH ?g {{ ?e a <{GQA}Experiment> ; <{PROV}used> ?d }} "
            f'FILTER(STRSTARTS(STR(?d), "{self.uris.dataset("")}")) }}'
        )
        found: dict[str, str] = {}
        for store in (self.store.private, self.store.public):  # a published graph moved
            found.update((e.value.rsplit("/", 1)[1], d.value) for e, d in store.query(query))
        return found

    def recorded_systems(self) -> dict[str, list[str]]:
        """The systems each recorded experiment's graph names, by experiment id, in one query
        a dataset (the operator's listing of runs that kept no spec: older versions')."""
        query = (
            f"SELECT ?e ?name WHERE {{ GRAPH ?g {{ ?e a <{GQA}Experiment> ; <{PROV}used> ?s . "
            f"?s a <{GQA}System> ; <{DCT}identifier> ?name }} }} ORDER BY ?e ?name"
        )
        found: dict[str, list[str]] = {}
        for store in (self.store.private, self.store.public):
            for e, name in store.query(query):
                found.setdefault(e.value.rsplit("/", 1)[1], []).append(name.value)
        return found

    def revisions(
        self, experiment_id: str, *, include_private: bool = False
    ) -> tuple[list[str], list[str]]:
        """(the experiments this one re-scores, the experiments that re-score it), as ids:
        public ones, and with ``include_private`` (its owner's view) private ones too; never
        a deleted one (its revision's graph still says ``prov:wasRevisionOf`` it)."""
        uri = self.uris.experiment(check_experiment_id(experiment_id))
        older: list[str] = []
        newer: list[str] = []
        prop = node(PROV + "wasRevisionOf")
        stores = (
            (self.store.public, self.store.private) if include_private else (self.store.public,)
        )
        for store in stores:
            for q in store.quads_for_pattern(node(uri), prop, None, None):
                older.append(q.object.value.rsplit("/", 1)[-1])
            for q in store.quads_for_pattern(None, prop, node(uri), None):
                newer.append(q.subject.value.rsplit("/", 1)[-1])
        if not include_private:  # a published revision of a private run names it: not shown
            older = [old for old in older if self.is_public(old)]
        else:  # a deleted run its revision still names: nothing to link, nor to resubmit
            older = [old for old in set(older) if self._exists(old)]
        return sorted(set(older)), sorted(set(newer))

    def answers_of(self, experiment_id: str) -> list[str]:
        """The experiments whose answers re-scoring ``experiment_id`` scored where it revises
        another (``prov:wasDerivedFrom`` an experiment), public or private."""
        return self._derived(experiment_id, (self.store.public, self.store.private))[0]

    def rescored_by(self, experiment_id: str) -> list[str]:
        """The public experiments that score ``experiment_id``'s answers as a revision of
        another (:meth:`answers_of` the other way)."""
        return self._derived(experiment_id, (self.store.public,))[1]

    def _derived(self, experiment_id: str, stores: Iterable[Any]) -> tuple[list[str], list[str]]:
        """(the experiments ``experiment_id`` says ``prov:wasDerivedFrom``, those that say it of
        it), as ids, in ``stores``."""
        prop, me = node(PROV + "wasDerivedFrom"), node(self.uris.experiment(experiment_id))
        prefix = self.uris.base + "experiment/"
        older: set[str] = set()
        newer: set[str] = set()
        for store in stores:
            older.update(q.object.value for q in store.quads_for_pattern(me, prop, None, None))
            newer.update(q.subject.value for q in store.quads_for_pattern(None, prop, me, None))

        def ids(found: set[str]) -> list[str]:
            return sorted(u.removeprefix(prefix) for u in found if u.startswith(prefix))

        return ids(older), ids(newer)

    def quads(self, experiment_id: str, *, answers: bool = True) -> list[Quad]:
        """The quads of an experiment's graph, wherever it is (for its owner or the operator).

        ``answers=False`` leaves out the per-answer triples of its question results (given,
        exact, false and missed answers and the answer matches: up to
        :data:`~service.graph.results.RECORDED_GIVEN_PER_TASK` and more per task), which the
        measures, the tasks and the JSON results never read: the API's status of a finished
        experiment read them all, about 2 s for one 52 MB answer file."""
        graph = node(self.uris.experiment_graph(experiment_id))
        public = self.store.public.contains_named_graph(graph)
        source = self.store.public if public else self.store.private
        if answers:
            return list(source.quads_for_pattern(None, None, None, graph))
        left_out = ", ".join(f"<{GQA}{name}>" for name in ANSWER_PREDICATES)
        solutions = source.query(
            f"SELECT ?s ?p ?o WHERE {{ GRAPH <{graph.value}> {{ ?s ?p ?o "
            f"FILTER(?p NOT IN ({left_out}) && "
            f"(isBlank(?s) || !CONTAINS(STR(?s), '#match-'))) }} }}"
        )
        return [Quad(row[0], row[1], row[2], graph) for row in solutions]

    # -- the lifecycle -----------------------------------------------------------------------
    def reserve(self, *, summary: str | None = None, now: datetime | None = None) -> Ticket:
        """Reserve an id (``yyyyMMdd`` + daily counter, kept in the admin graph so it continues
        after restarts) and an owner token for an experiment whose job is saved next."""
        with self.store.lock:
            for _ in range(ID_ATTEMPTS):
                ticket, admin = self._allocate(timestamp(now), status=Status.RESERVED, job=summary)
                if self._add_new(ticket, admin):
                    log.info("experiment %s: reserved (%s)", ticket.id, summary or "no summary")
                    return ticket
        raise ServiceError(f"no free experiment id after {ID_ATTEMPTS} attempts; try again")

    def _add_new(self, ticket: Ticket, quads: list[Quad]) -> bool:
        """Add a new experiment's quads in one transaction, emptying the list as they are
        written (:func:`handed_over`), unless its id is taken; False when it is. On a shared
        store the id is claimed first (:mod:`service.graph.claims`: a conditional insert alone
        is not exclusive there); this process's lock does the rest."""
        claims = self._claims()
        if not claims.claim(ticket.uri):
            return False
        try:
            if self._exists(ticket.id):
                return False
            self.store.add(Side.PRIVATE, handed_over(quads))
            return True
        finally:
            claims.release(ticket.uri)

    @property
    def claims(self) -> Claims:
        """This store's claims (:mod:`service.graph.claims`), for what else only one process
        may do on a shared store (a frozen leaderboard's one write)."""
        return self._claims()

    def _claims(self) -> Claims:
        if self._claims_of is None:
            self._claims_of = Claims(self.store, self.uris)
        return self._claims_of

    def _allocate(
        self, now: datetime, *, status: Status, job: str | None
    ) -> tuple[Ticket, list[Quad]]:
        """A new id and owner token, and the admin quads recording them (insert-only: the
        counter keeps every value given out and the next id follows the largest)."""
        day = now.strftime("%Y%m%d")
        counter = f"{self.uris.admin_graph}#counter-{day}"
        rows = self._admin_select(f"<{counter}> {_p('counterValue')} ?v")
        value = max((int(r["v"]) for r in rows), default=0) + 1
        while self._exists(f"{day}{value:04d}") or self._claims().claimed(
            self.uris.experiment(f"{day}{value:04d}")
        ):
            value += 1
        if value > 9999:
            raise ServiceError(f"more than 9999 experiments on {day}")
        eid = f"{day}{value:04d}"
        token = secrets.token_urlsafe(24)
        exp = node(self.uris.experiment(eid))
        c = node(counter)
        pairs: list[tuple[Any, NamedNode, Any]] = [
            (c, _q("counterDay"), n.literal(day)),
            (c, _q("counterValue"), n.integer(value)),
            (exp, node(RDF + "type"), _q("Experiment")),
            (exp, _q("status"), n.literal(status.value)),
            (exp, _q("ownerTokenHash"), n.literal(token_hash(token))),
            (exp, _q("createdAt"), n.date_time(now)),
            (exp, _q("published"), n.boolean(False)),
        ]
        if job is not None:
            pairs.append((exp, _q("job"), n.literal(job)))
        admin = node(self.uris.admin_graph)
        quads = [Quad(s, p, o, admin) for s, p, o in pairs]
        return Ticket(eid, self.uris.experiment(eid), token), quads

    def _exists(self, experiment_id: str) -> bool:
        exp = self.uris.experiment(experiment_id)
        return bool(
            self.store.private.query(
                f"ASK {{ GRAPH <{self.uris.admin_graph}> {{ <{exp}> {_p('status')} ?s }} }}"
            )
        )

    def set_status(
        self,
        experiment_id: str,
        status: Status | str,
        *,
        message: str | None = None,
        progress: str | None = None,
    ) -> None:
        """Move an experiment along its lifecycle (:data:`TRANSITIONS`; Conflict otherwise),
        with an optional message and progress line; one update of the private admin graph."""
        try:
            new = Status(status)
        except ValueError:
            known = ", ".join(s.value for s in Status)
            raise BadRequest(f"unknown status {status!r}; expected one of {known}") from None
        if new is Status.FINISHED:
            raise BadRequest("an experiment becomes finished by recording its results")
        with self.store.lock:
            old = self.status(experiment_id).status  # NotFound
            if new not in TRANSITIONS[old]:
                raise Conflict(f"experiment {experiment_id} is {old}; it cannot become {new}")
            exp = iri(self.uris.experiment(experiment_id))
            admin = self.uris.admin_graph
            props = ["status"] + (["message"] if message is not None else [])
            props += ["progress"] if progress is not None else []
            text = "".join(
                f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p(p)} ?o }} }} ;\n" for p in props
            )
            lines = [f"{exp} {_p('status')} {literal(new.value)} ."]
            if message is not None:
                lines.append(f"{exp} {_p('message')} {literal(message)} .")
            if progress is not None:
                lines.append(f"{exp} {_p('progress')} {literal(progress)} .")
            self.store.update(Side.PRIVATE, text + _insert_data({admin: lines}))
        if new is not old:  # progress lines alone are not news
            said = f": {message}" if message else ""
            log.info("experiment %s: %s -> %s%s", experiment_id, old.value, new.value, said)

    def record(
        self,
        evaluations: Sequence[Evaluation],
        *,
        dataset: DatasetRef,
        systems: Iterable[SystemInfo] = (),
        uploads: Iterable[UploadedFile] = (),
        started: datetime | None = None,
        ended: datetime | None = None,
        ticket: Ticket | None = None,
        software: Source | None = None,
        spec: str | None = None,
        revision_of: str | None = None,
        answers_of: str | None = None,
        hold: Hold | None = None,
        notes: tuple[str, ...] = (),
        call_settings: tuple[tuple[str, str, float], ...] = (),
        check: Callable[[], None] | None = None,
    ) -> Ticket:
        """Write one finished experiment as a private graph, in one transaction.

        ``dataset`` names it as the graph does (:class:`DatasetRef`: a catalogue dataset keeps
        its public URI; an upload is described, with its questions, inside the experiment's
        graph). With a ``ticket`` (from :meth:`reserve`) that experiment is completed; else a
        new id is allocated. Returns the id, URI and owner token. ``hold``: the run's claim on
        the experiment (a shared store): the write lands only while it is live, else
        :class:`ClaimLapsed` and nothing is written. ``check`` is called while the quads are
        built and once more before the write; what it raises (a cancel) stops the record
        with nothing written.
        """
        evals = tuple(evaluations)
        if not evals:
            raise BadRequest("an experiment needs at least one evaluation")
        now = timestamp()
        record = ExperimentRecord(
            experiment_id="",  # set below, once the id is known
            evaluations=evals,
            dataset=dataset,
            started=started or now,
            ended=ended or now,
            software=software or release.source(),
            systems=tuple(systems),
            uploads=tuple(uploads),
            notes=notes,
            call_settings=call_settings,
        )
        if ticket is not None:
            # built before the lock is taken: the quads of 50,000 questions take seconds, and
            # every other write of the store (the runs' progress, a cancel) waits on the lock
            # insert-only; the old status goes in _settle_status (finished outranks it)
            admin = [
                Quad(
                    node(ticket.uri),
                    _q("status"),
                    n.literal(Status.FINISHED.value),
                    node(self.uris.admin_graph),
                )
            ]
            quads = self._graph_quads(record, ticket, admin, spec, (revision_of, answers_of), check)
        with self.store.lock:
            if ticket is None:  # a new id, written with the experiment in one transaction
                for _ in range(ID_ATTEMPTS):
                    ticket, admin = self._allocate(now, status=Status.FINISHED, job=None)
                    quads = self._graph_quads(
                        record, ticket, admin, spec, (revision_of, answers_of), check
                    )
                    if check is not None:
                        check()
                    quads += admin
                    if self._add_new(ticket, quads):
                        log.info("experiment %s: recorded, finished", ticket.id)
                        return ticket
                raise ServiceError(f"no free experiment id after {ID_ATTEMPTS} attempts")
            st = self.status(ticket.id)
            if st.status is Status.FINISHED:
                raise Conflict(f"experiment {ticket.id} is already recorded")
            if check is not None:  # the last moment a cancel stops it: the write is one
                check()
            # one transaction: the experiment and its admin record
            claim = hold.pattern() if hold is not None else None
            if hold is None or claim is None:
                quads += admin
                self.store.add(Side.PRIVATE, handed_over(quads))
            else:  # ... if the claim is live and no one recorded it meanwhile
                exp, by = iri(ticket.uri), node(hold.runner[1:-1])
                admin.append(
                    Quad(node(ticket.uri), _q("recordedBy"), by, node(self.uris.admin_graph))
                )
                done = f"GRAPH <{self.uris.admin_graph}> {{ {exp} {_p('status')} 'finished' }}"
                where = f"{claim} FILTER NOT EXISTS {{ {done} }}"
                self.store.update(Side.PRIVATE, t.insert_quads([*quads, *admin], where=where))
                landed = (
                    f"GRAPH <{self.uris.admin_graph}> {{ {exp} {_p('recordedBy')} {hold.runner} }}"
                )
                if not self.store.private.query(f"ASK {{ {landed} }}"):
                    raise ClaimLapsed(
                        f"experiment {ticket.id}: this runner's claim lapsed before its results "
                        "were written; the runner that took it over records them"
                    )
            self._settle_status(ticket.id)
        log.info("experiment %s: recorded, finished", ticket.id)
        return ticket

    def _graph_quads(
        self,
        record: ExperimentRecord,
        ticket: Ticket,
        admin: list[Quad],
        spec: str | None,
        revises: tuple[str | None, str | None],
        check: Callable[[], None] | None = None,
    ) -> list[Quad]:
        """The experiment graph of ``record`` under ``ticket``'s id (``admin`` gets the spec);
        ``revises``: the experiment it revises, and the one whose answers it scores when that
        is another (``RunOptions.answers_of``)."""
        revision_of, answers_of = revises
        graph = self.uris.experiment_graph(ticket.id)
        if answers_of is not None:  # said on its page and in the API's notes
            check_experiment_id(answers_of)
            note = (
                f"it scores the answers of experiment {answers_of}, a newer run of its line, "
                f"as a revision of experiment {revision_of}, which stands on this dataset with "
                "older answers and which it replaces once published"
            )
            record = replace(record, notes=(*record.notes, note))
        quads = experiment_quads(
            replace(record, experiment_id=ticket.id), self.uris, graph, check=check
        )
        if answers_of is not None:
            quads.append(
                Quad(
                    node(ticket.uri),
                    node(PROV + "wasDerivedFrom"),
                    node(self.uris.experiment(answers_of)),
                    node(graph),
                )
            )
        if revision_of is not None:  # a re-scoring: a new revision, the old one stays
            check_experiment_id(revision_of)
            quads.append(
                Quad(
                    node(ticket.uri),
                    node(PROV + "wasRevisionOf"),
                    node(self.uris.experiment(revision_of)),
                    node(graph),
                )
            )
        if spec is not None:  # what ran, so that it can be run again (gerbil-qa rescore)
            admin.append(
                Quad(node(ticket.uri), _q("spec"), n.literal(spec), node(self.uris.admin_graph))
            )
        return quads

    def _settle_status(self, experiment_id: str) -> None:
        """Drop the statuses a finished experiment had before (left by an insert-only record),
        the phase its run was in (it showed a finished one as still "recording") and the
        message of its way there (a resumed run said "resumed" once finished, for good)."""
        exp = iri(self.uris.experiment(experiment_id))
        admin = self.uris.admin_graph
        self.store.update(
            Side.PRIVATE,
            f"DELETE {{ GRAPH <{admin}> {{ {exp} {_p('status')} ?s }} }} WHERE {{ "
            f"GRAPH <{admin}> {{ {exp} {_p('status')} ?s }} FILTER(STR(?s) != 'finished') }} ;\n"
            f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p('progress')} ?phase }} }} ;\n"
            f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p('message')} ?said }} }}",
        )

    def publish(
        self,
        experiment_id: str,
        *,
        now: datetime | None = None,
        check: Callable[[], None] | None = None,
    ) -> ExperimentStatus:
        """Make a finished experiment public: its graph (with ``dct:issued``) and its share of
        the public default graph are added to the public dataset in one transaction, the moment
        it becomes public; then the admin record and the private copy follow in one update. A
        crash between the two is completed by :meth:`recover`. On a shared store the
        publication is claimed: two replicas publishing at once wrote two ``dct:issued``.

        ``check`` (it raises to refuse) runs once the publication is held, with every other
        ``check``-ed publication held off, in this process (the store's lock) and on a shared
        store (:data:`CHECKED_PUBLICATIONS`, claimed): two revisions of one line published at
        the same moment each passed a check made before either was public, and both ranked.
        The uploaded datasets it is on are claimed last, by their file's content (every
        publication claims in that order): the first publication of one writes its
        ``dct:issued`` and fixes its name, and two replicas that both read it had none wrote
        two."""
        subject = self.uris.experiment(check_experiment_id(experiment_id)) + "/publication"
        subjects = [subject] if check is None else [subject, CHECKED_PUBLICATIONS]
        subjects += self._upload_contents(experiment_id)
        claims = self._claims()
        with self.store.lock:
            held: list[str] = []
            try:
                for one in subjects:
                    if not any(claims.claim(one) for _ in range(PUBLISH_ATTEMPTS)):
                        raise Conflict(f"experiment {experiment_id} is being published; try again")
                    held.append(one)
                if check is not None:
                    check()
                published = self._publish(experiment_id, now)
                log.info("experiment %s: published", experiment_id)
                return published
            finally:
                for one in reversed(held):
                    claims.release(one)

    def _upload_contents(self, experiment_id: str) -> list[str]:
        """The claims on the contents of the uploaded datasets ``experiment_id``'s graph
        describes (a shared store only: in one process the store's lock orders publications).
        By content, not by name: two runs on the same bytes under two titles published at once
        on two replicas each saw none public and kept their own name
        (``uploads.join_published``)."""
        if not self.store.shared:
            return []
        graph = node(self.uris.experiment_graph(experiment_id))
        found = self.store.private.quads_for_pattern(None, node(GQA + "sha256"), None, graph)
        return sorted(
            f"{self.uris.base}upload/{q.object.value.lower()}/publication"
            for q in found
            if own_graph(self.uris, q.subject) is not None
        )

    def _publish(self, experiment_id: str, now: datetime | None) -> ExperimentStatus:
        """:meth:`publish` once its claim is held."""
        st = self.status(experiment_id)
        if st.public:
            return st
        if st.status is not Status.FINISHED:
            raise Conflict(
                f"experiment {experiment_id} {st.status.said}; only a finished experiment can "
                "be published"
            )
        if self._complete_publication(experiment_id):
            # a publication whose second write failed (the private store went away): its
            # public copy stays as written, a second one would add a second dct:issued
            return self.status(experiment_id)
        when = timestamp(now)
        graph = node(self.uris.experiment_graph(experiment_id))
        quads = list(self.store.private.quads_for_pattern(None, None, None, graph))
        # the same bytes published first under another name: that dataset, in this transaction
        quads = join_published(self.store, self.uris, quads)
        _refuse_invalid_terms(experiment_id, quads)
        issued = Quad(node(st.uri), node(DCT + "issued"), n.date_time(when), graph)
        publish_graph(self.store, self.uris, [*quads, issued], n.date_time(when), graph)
        self._finish_publication(experiment_id, n.date_time(when).value)
        return self.status(experiment_id)

    def refuse_withdrawn(self, experiment_id: str) -> None:
        """Conflict when the experiment was withdrawn: publishing it again would not list it,
        and a success told a pipeline (the API's, ``gerbil-qa publish``) it was."""
        withdrawn = self.status(experiment_id).withdrawn_at
        if withdrawn is not None:
            raise Conflict(
                f"experiment {experiment_id} was withdrawn on {withdrawn[:10]} and stays "
                "withdrawn; "
                "publish a new run or a re-scored revision instead"
            )

    def withdraw(
        self, experiment_id: str, reason: str, *, now: datetime | None = None
    ) -> ExperimentStatus:
        """Withdraw a published experiment: its results leave the public default graph (every
        leaderboard, listing and comparison reads that) in one update that also notes when and
        why (``gqa:withdrawnAt``, ``gqa:withdrawalReason``) in its graph and in the default
        graph. Its URI stays citable and its graph whole: a paper citing it still finds what
        it cited, and the note. Withdrawing is for good (Conflict the second time); an
        unpublished experiment is deleted instead. Holds the publication's claim."""
        why = " ".join(reason.split())
        if not why:
            raise BadRequest("a withdrawal needs a reason (shown with the experiment)")
        if len(why) > MAX_REASON:
            raise BadRequest(f"the reason is {len(why)} characters; at most {MAX_REASON}")
        n.refuse_non_text(why, "the reason")
        subject = self.uris.experiment(check_experiment_id(experiment_id)) + "/publication"
        claims = self._claims()
        with self.store.lock:
            if not any(claims.claim(subject) for _ in range(PUBLISH_ATTEMPTS)):
                raise Conflict(f"experiment {experiment_id} is being published; try again")
            try:
                withdrawn = self._withdraw(experiment_id, why, now)
                log.info("experiment %s: withdrawn: %s", experiment_id, why)
                return withdrawn
            finally:
                claims.release(subject)

    def _withdraw(self, experiment_id: str, reason: str, now: datetime | None) -> ExperimentStatus:
        st = self.status(experiment_id)
        if not st.public:
            raise Conflict(
                f"experiment {experiment_id} is not published: delete it instead (only a "
                "published experiment, whose URI may be cited, is withdrawn)"
            )
        if st.withdrawn_at is not None:
            raise Conflict(
                f"experiment {experiment_id} was withdrawn on {st.withdrawn_at[:10]} "
                f"({st.withdrawal_reason or 'no reason given'}); it stays withdrawn"
            )
        graph = self.uris.experiment_graph(experiment_id)
        when = n.date_time(timestamp(now)).value
        note = (
            f'{iri(st.uri)} {_p("withdrawnAt")} "{when}"^^<{XSD}dateTime> ; '
            f"{_p('withdrawalReason')} {literal(reason)} ."
        )
        # the graph's share of the default graph goes (what no other listed graph also holds:
        # an earlier withdrawn one is no holder), the note comes: one update, so no reader
        # sees it half withdrawn
        self.store.update(
            Side.PUBLIC,
            f"{_unlist(graph)} ;\nINSERT DATA {{ GRAPH <{graph}> {{ {note} }}\n{note} }}",
        )
        return self.status(experiment_id)

    def discard(self, experiment_id: str) -> None:
        """Remove an experiment whole, published or not: its graph in either dataset (a public
        one's share of the default graph with it) and its admin record. Not for what may be
        cited (:meth:`delete` refuses a published experiment): only for the demo experiment
        ``serve`` computed in a store that a backup then restores (:func:`dumps.import_dump`).
        Public first: a crash between the two leaves the record, and the next import
        discards it again."""
        graph = self.uris.experiment_graph(check_experiment_id(experiment_id))
        exp, admin = iri(self.uris.experiment(experiment_id)), self.uris.admin_graph
        with self.store.lock:
            self.store.update(Side.PUBLIC, f"{_unlist(graph)} ;\nDROP SILENT GRAPH <{graph}>")
            self.store.update(
                Side.PRIVATE,
                f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p('claim')} ?c . ?c ?cp ?co }} }} ;\n"
                f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} ?p ?o }} }} ;\n"
                f"DROP SILENT GRAPH <{graph}>",
            )
        log.info("experiment %s: discarded", experiment_id)

    def delete(self, experiment_id: str) -> list[str]:
        """Delete an unpublished experiment that no one is running: its graph and its admin
        record (owner token, spec, status) go in one update. A published one is Conflict: its
        URI is cited, and a correction is a new revision (rescore). Returns the SHA-256s of the
        files its graph named, for the caller to forget those no one else uses. Holds the
        publication's and the run's claims, so no replica publishes or takes it over meanwhile."""
        uri = self.uris.experiment(check_experiment_id(experiment_id))
        subjects = (uri + "/publication", uri)
        claims = self._claims()
        with self.store.lock:
            held = [s for s in subjects if claims.claim(s)]
            try:
                if len(held) < len(subjects):
                    raise Conflict(f"experiment {experiment_id} is being run or published")
                files = self._delete(experiment_id)
                log.info("experiment %s: deleted", experiment_id)
                return files
            finally:
                for subject in held:
                    claims.release(subject)

    def _delete(self, experiment_id: str) -> list[str]:
        """:meth:`delete` once its claims are held."""
        st = self.status(experiment_id)
        graph = self.uris.experiment_graph(experiment_id)
        if st.public or self.store.public.contains_named_graph(node(graph)):
            raise Conflict(
                f"experiment {experiment_id} is published: its URI stays citable; "
                "publish a corrected revision instead (rescore)"
            )
        if st.status.active:
            raise Conflict(f"experiment {experiment_id} is {st.status}: cancel it first")
        checksum = iri(t.SPDX + "checksumValue")
        files = self.store.private.query(
            f"SELECT DISTINCT ?v WHERE {{ GRAPH <{graph}> {{ ?x {checksum} ?v }} }}"
        )
        shas = sorted({str(row["v"].value).lower() for row in files})
        exp, admin = iri(st.uri), self.uris.admin_graph
        # what is left to clean (its files) is noted in the same update: a crash before the
        # cleanup ends is finished by the next delete of the id or the next serve start
        pending = [f"{exp} {_p('deletedAt')} ?now ."]
        pending += [f"{exp} {_p('keptFile')} {t.literal(sha)} ." for sha in shas]
        self.store.update(
            Side.PRIVATE,
            f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p('claim')} ?c . ?c ?cp ?co }} }} ;\n"
            f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} ?p ?o }} }} ;\n"
            f"DROP SILENT GRAPH <{graph}> ;\n"
            f"INSERT {{ GRAPH <{admin}> {{ {' '.join(pending)} }} }} "
            "WHERE { BIND(NOW() AS ?now) }",
        )
        return shas

    def pending_deletions(self) -> dict[str, list[str]]:
        """Deleted experiments whose files are not all cleaned up yet: id -> kept files."""
        rows = self._admin_select(
            f"?e {_p('deletedAt')} ?at OPTIONAL {{ ?e {_p('keptFile')} ?sha }}"
        )
        found: dict[str, list[str]] = {}
        for row in rows:
            shas = found.setdefault(row["e"].rsplit("/", 1)[1], [])
            if row.get("sha"):
                shas.append(row["sha"])
        return found

    def forget_deletion(self, experiment_id: str) -> None:
        """The cleanup of a deleted experiment is done: drop its note."""
        exp = iri(self.uris.experiment(check_experiment_id(experiment_id)))
        admin = self.uris.admin_graph
        self.store.update(
            Side.PRIVATE,
            f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p('deletedAt')} ?at }} }} ;\n"
            f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p('keptFile')} ?sha }} }}",
        )

    def attach_paper(self, experiment_id: str, reference: str) -> str:
        """Link a finished experiment to a paper that cites it: ``<experiment> dct:isReferencedBy
        <paper>`` in its graph, in one transaction. ``reference`` is a DOI (``10.3233/SW-180312``,
        ``doi:…``, ``https://doi.org/…``; the link is ``https://doi.org/…``) or an http(s) URL.
        A published experiment gets the link in its public graph and in the public default
        graph together; an unpublished one in its private graph (publishing copies it). Attaching
        the same paper twice changes nothing. Returns the paper's IRI."""
        paper = paper_iri(reference)
        with self.store.lock:  # not between a publication's two steps
            st = self.status(experiment_id)
            if st.status is not Status.FINISHED:
                raise Conflict(
                    f"experiment {experiment_id} {st.status.said}; only a finished experiment "
                    "can have a paper attached"
                )
            graph = node(self.uris.experiment_graph(experiment_id))
            link = Quad(node(st.uri), node(DCT + "isReferencedBy"), node(paper), graph)
            if self.store.public.contains_named_graph(graph):
                withdrawn = frozenset([graph.value] if st.withdrawn_at else [])
                add_public(self.store, [link], withdrawn=withdrawn)
            else:
                self.store.add(Side.PRIVATE, [link])
        log.info("experiment %s: paper %s attached", experiment_id, paper)
        return paper

    def _finish_publication(self, experiment_id: str, when: str) -> None:
        exp = iri(self.uris.experiment(experiment_id))
        admin = self.uris.admin_graph
        graph = self.uris.experiment_graph(experiment_id)
        self.store.update(
            Side.PRIVATE,
            f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p('published')} ?p }} }} ;\n"
            f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p('publishedAt')} ?t }} }} ;\n"
            + _insert_data(
                {
                    admin: [
                        f"{exp} {_p('published')} {t.boolean(True)} .",
                        f'{exp} {_p("publishedAt")} "{when}"^^<{XSD}dateTime> .',
                    ]
                }
            )
            + f" ;\nDROP SILENT GRAPH <{graph}>",
        )

    def _complete_publication(self, experiment_id: str) -> bool:
        """Finish a publication whose public copy is written and whose admin record is not,
        with the copy's ``dct:issued``; False when there is no public copy."""
        graph = node(self.uris.experiment_graph(experiment_id))
        if not self.store.public.contains_named_graph(graph):
            return False
        uri = node(self.uris.experiment(experiment_id))
        issued = [
            q.object.value
            for q in self.store.public.quads_for_pattern(uri, node(DCT + "issued"), None, graph)
        ]
        self._finish_publication(
            experiment_id, issued[0] if issued else n.date_time(timestamp()).value
        )
        return True

    def recover(self) -> None:
        """Complete what a crash interrupted: a publication whose public copy is written but
        whose admin record is not, and a recorded experiment's old status."""
        admin = self.uris.admin_graph
        unpublished = self.store.private.query(
            f"SELECT ?e WHERE {{ GRAPH <{admin}> {{ ?e {_p('published')} false }} }}"
        )
        for row in list(unpublished):
            self._complete_publication(row["e"].value.rsplit("/", 1)[1])
        unsettled = self.store.private.query(
            f"SELECT DISTINCT ?e WHERE {{ GRAPH <{admin}> {{ ?e {_p('status')} 'finished', ?s "
            "FILTER(STR(?s) != 'finished') } }"
        )
        for row in list(unsettled):
            self._settle_status(row["e"].value.rsplit("/", 1)[1])


def _unlist(graph: str) -> str:
    """The update removing a public graph's share of the default graph: what no other listed
    graph also holds (an earlier withdrawn one is no holder)."""
    return (
        f"DELETE {{ ?s ?p ?o }} WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} "
        f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?s ?p ?o }} FILTER(?h != <{graph}>) "
        f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?w {_p('withdrawnAt')} ?t }} }} }} }}"
    )


def paper_iri(reference: str) -> str:
    """The IRI of a paper given as a DOI (-> ``https://doi.org/10.…``) or an http(s) URL;
    BadRequest naming what was expected otherwise."""
    text = reference.strip() if isinstance(reference, str) else ""
    if not text:
        raise BadRequest("give the paper as a DOI (10.…) or an http(s) URL")
    doi = _DOI.match(text)
    if doi:
        from urllib.parse import quote, unquote

        suffix = unquote(doi.group(1)) if "doi.org/" in text.lower() else doi.group(1)
        # DOI Handbook §3.8 (DOIs in URLs): "#", "?", "%" and the like are percent-encoded
        paper = "https://doi.org/" + quote(suffix, safe="/:@!$&'()*+,;=-._~")
    elif _URL.match(text):
        paper = text
    else:
        raise BadRequest(
            f"not a DOI or an http(s) URL: {reference!r} "
            "(expected e.g. 10.3233/SW-180312 or https://example.org/paper)"
        )
    if not t.is_valid_iri(paper) or any(c in paper for c in '<>"{}|\\^`'):
        raise BadRequest(f"cannot use {paper!r} as an IRI")
    return paper
