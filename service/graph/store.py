"""The store: everything the service knows, as RDF in embedded Oxigraph.

Two pyoxigraph stores side by side (``DIR/public`` and ``DIR/private``, or both in memory):

- **public**: the vocabulary (``graph/vocab``), the catalogue (``graph/catalog``), the questions
  and checks of catalogue datasets (``graph/dataset/{name}``) and every *published* experiment
  (``graph/experiment/{id}``). Nothing else is ever written there, so the SPARQL endpoint can
  query it and nothing private can leak, whatever the query (``GRAPH ?g``, ``FROM NAMED``…).
  Its default graph holds the union of its named graphs, kept in step by every write (the same
  transaction): queries read the default graph directly, as fast as a plain cube, instead of
  Oxigraph's union-of-graphs view, which deduplicates across graphs at every step.
- **private**: unpublished experiments (same graph names) and the admin graph (``graph/admin``:
  status, owner-token hash, daily id counter, publication time), which the public never sees.

Every write is one SPARQL Update request on one store, which Oxigraph applies in one transaction:
a finished experiment (all its tasks, per-question results, provenance, uploaded-file entities,
an uploaded dataset's questions) and its admin record are written together or not at all.
Publishing copies the experiment's graph into the public store in one transaction (the moment it
becomes public), then drops the private copy; a crash in between is completed on the next open.

Remote adapter (not built): the interface below only needs SPARQL 1.1 Query and Update on two
datasets (or two endpoints with access control), plus the Graph Store Protocol (GET the private
graph, PUT it into the public dataset) for :meth:`GraphStore.publish`. The writes are already
plain SPARQL Update text; reads are SELECT/ASK queries.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from service import __version__
from service.errors import BadRequest, Conflict, NotFound, ServiceError
from service.evaluation.results import Evaluation
from service.graph import terms as t
from service.graph.questions import Finding, check_dataset, finding_triples, question_triples
from service.graph.results import (
    DatasetRef,
    ExperimentRecord,
    SystemInfo,
    UploadedFile,
    dataset_content_hash,
    experiment_triples,
    uploaded_dataset_name,
)
from service.graph.terms import DCT, GQA, RDF, SPDX, XSD, iri, literal
from service.graph.uris import DEFAULT_BASE, Uris, check_experiment_id
from service.graph.vocabulary import vocabulary_bytes, vocabulary_triples
from service.mediatypes import RdfSyntax, rdf_by_name
from service.model import Dataset

STATUSES = ("queued", "running", "finished", "failed", "interrupted", "cancelled")
_STORE_MARKER = "urn:gerbil-qa:store"


@dataclass(frozen=True, slots=True)
class Ticket:
    """A new experiment: its id, URI and the owner token (shown once; only its hash is kept)."""

    id: str
    uri: str
    token: str


@dataclass(frozen=True, slots=True)
class ExperimentStatus:
    """What the admin graph knows about an experiment."""

    id: str
    uri: str
    status: str
    public: bool
    created: str | None = None
    published_at: str | None = None
    message: str | None = None
    progress: str | None = None
    job: str | None = None


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _p(local: str) -> str:
    return f"<{GQA}{local}>"


class GraphStore:
    """The service's store. ``GraphStore(None)`` keeps everything in memory (tests)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        base: str = DEFAULT_BASE,
        catalog: bool = True,
    ) -> None:
        import pyoxigraph

        self._ox = pyoxigraph
        self.uris = Uris(base)
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.mkdir(parents=True, exist_ok=True)
            try:
                self.public = pyoxigraph.Store(str(self.path / "public"))
                self.private = pyoxigraph.Store(str(self.path / "private"))
            except OSError as err:
                raise ServiceError(f"cannot open the store at {self.path}: {err}") from err
        else:
            self.public = pyoxigraph.Store()
            self.private = pyoxigraph.Store()
        self._lock = threading.RLock()
        self._check_base()
        self._recover()
        self._ensure_vocabulary()
        if catalog:
            self.ensure_catalog()

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Flush and release the stores (the directory lock goes with the last reference)."""
        for store in (self.public, self.private):
            if store is not None and self.path is not None:
                store.flush()
        self.public = None  # type: ignore[assignment]
        self.private = None  # type: ignore[assignment]

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_base(self) -> None:
        marker = self._ox.NamedNode(_STORE_MARKER)
        base_p = self._ox.NamedNode(GQA + "base")
        found = [q.object.value for q in self.private.quads_for_pattern(marker, base_p, None)]
        if not found:
            self.private.update(
                f"INSERT DATA {{ <{_STORE_MARKER}> {_p('base')} {literal(self.uris.base)} }}"
            )
        elif found[0] != self.uris.base:
            raise ServiceError(
                f"the store at {self.path} was created with base {found[0]}, not {self.uris.base}"
            )

    # -- graphs ------------------------------------------------------------------------------
    def public_graphs(self) -> list[str]:
        """The named graphs the SPARQL endpoint may show: vocabulary, catalogue, dataset
        questions, published experiments (the public store holds nothing else)."""
        return sorted(g.value for g in self.public.named_graphs())

    def query_public(self, sparql: str):  # -> pyoxigraph query results
        """Run a query over the public view (default graph = union of the public graphs)."""
        return self.public.query(sparql)

    def _replace_public_graph(self, graph: str, lines: list[str]) -> None:
        """Replace a public named graph and its share of the default graph, in one update."""
        self.public.update(
            f"DELETE {{ ?s ?p ?o }} WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} "
            f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?s ?p ?o }} FILTER(?h != <{graph}>) }} }} ;\n"
            f"DROP SILENT GRAPH <{graph}> ;\n"
            + _insert_data({graph: lines})
            + " ;\nINSERT DATA {\n"
            + "\n".join(lines)
            + "\n}"
        )

    def _admin_select(self, body: str) -> list[dict[str, str]]:
        rows = self.private.query(
            f"SELECT * WHERE {{ GRAPH <{self.uris.admin_graph}> {{ {body} }} }}"
        )
        return [
            {v.value: row[v].value for v in rows.variables if row[v] is not None} for row in rows
        ]

    def _content_hash(self, graph: str) -> str | None:
        rows = self._admin_select(f"<{graph}> {_p('contentHash')} ?h")
        return rows[0]["h"] if rows else None

    def _set_content_hash(self, graph: str, value: str) -> None:
        admin = self.uris.admin_graph
        self.private.update(
            f"DELETE WHERE {{ GRAPH <{admin}> {{ <{graph}> {_p('contentHash')} ?h }} }} ;\n"
            + _insert_data({admin: [f"<{graph}> {_p('contentHash')} {literal(value)} ."]})
        )

    def _ensure_vocabulary(self) -> None:
        digest = hashlib.sha256(vocabulary_bytes()).hexdigest()
        graph = self.uris.vocab_graph
        if self._content_hash(graph) == digest and self.public.contains_named_graph(
            self._ox.NamedNode(graph)
        ):
            return
        with self._lock:
            self._replace_public_graph(graph, _lines(vocabulary_triples()))
            self._set_content_hash(graph, digest)

    def ensure_catalog(self) -> None:
        """(Re)load the built-in catalogue (``datasets/*.ttl``) when its files changed."""
        from service.catalog import catalog_bytes, catalog_quads

        digest = hashlib.sha256(catalog_bytes()).hexdigest()
        graph = self.uris.catalog_graph
        node = self._ox.NamedNode(graph)
        if self._content_hash(graph) == digest and self.public.contains_named_graph(node):
            return
        with self._lock:
            self._replace_public_graph(graph, _lines(catalog_quads(self.uris, graph)))
            self._set_content_hash(graph, digest)

    # -- datasets ----------------------------------------------------------------------------
    def has_dataset_questions(self, name: str) -> bool:
        return self.public.contains_named_graph(self._ox.NamedNode(self.uris.dataset_graph(name)))

    def store_dataset(
        self,
        name: str,
        dataset: Dataset,
        *,
        findings: Sequence[Finding] | None = None,
        now: datetime | None = None,
    ) -> list[Finding]:
        """Store the questions and check findings of a *catalogue* dataset (public graph
        ``graph/dataset/{name}``, replaced in one transaction). Returns the findings."""
        found = list(findings) if findings is not None else check_dataset(dataset)
        lines = question_triples(name, dataset, self.uris)
        lines += finding_triples(name, found, self.uris, now or _now())
        graph = self.uris.dataset_graph(name)
        with self._lock:
            self._replace_public_graph(graph, lines)
        return found

    # -- experiments -------------------------------------------------------------------------
    def create_experiment(self, *, job: str | None = None, now: datetime | None = None) -> Ticket:
        """Reserve an id (``yyyyMMdd`` + daily counter, kept in the admin graph so it continues
        after restarts) and an owner token for an experiment that will run later."""
        with self._lock:
            ticket, lines, deletes = self._allocate(now or _now(), status="queued", job=job)
            self.private.update(deletes + _insert_data({self.uris.admin_graph: lines}))
            return ticket

    def _allocate(self, now: datetime, *, status: str, job: str | None):
        day = now.strftime("%Y%m%d")
        counter = f"{self.uris.admin_graph}#counter-{day}"
        rows = self._admin_select(f"<{counter}> {_p('counterValue')} ?v")
        value = max((int(r["v"]) for r in rows), default=0) + 1
        while self._exists(f"{day}{value:04d}"):
            value += 1
        if value > 9999:
            raise ServiceError(f"more than 9999 experiments on {day}")
        eid = f"{day}{value:04d}"
        token = secrets.token_urlsafe(24)
        exp = iri(self.uris.experiment(eid))
        lines = [
            f"<{counter}> {_p('counterDay')} {literal(day)} .",
            f"<{counter}> {_p('counterValue')} {t.integer(value)} .",
            f"{exp} <{RDF}type> {_p('Experiment')} .",
            f"{exp} {_p('status')} {literal(status)} .",
            f"{exp} {_p('ownerTokenHash')} {literal(token_hash(token))} .",
            f"{exp} {_p('createdAt')} {t.date_time(now)} .",
            f"{exp} {_p('published')} {t.boolean(False)} .",
        ]
        if job is not None:
            lines.append(f"{exp} {_p('job')} {literal(job)} .")
        admin = self.uris.admin_graph
        deletes = (
            f"DELETE WHERE {{ GRAPH <{admin}> {{ <{counter}> {_p('counterValue')} ?v }} }} ;\n"
        )
        return Ticket(eid, self.uris.experiment(eid), token), lines, deletes

    def _exists(self, experiment_id: str) -> bool:
        exp = self.uris.experiment(experiment_id)
        return bool(
            self.private.query(
                f"ASK {{ GRAPH <{self.uris.admin_graph}> {{ <{exp}> {_p('status')} ?s }} }}"
            )
        )

    def record_experiment(
        self,
        evaluations: Sequence[Evaluation],
        *,
        dataset: Dataset | None = None,
        dataset_name: str | None = None,
        catalogued: bool | None = None,
        dataset_sha256: str | None = None,
        systems: Iterable[SystemInfo] = (),
        uploads: Iterable[UploadedFile] = (),
        started: datetime | None = None,
        ended: datetime | None = None,
        ticket: Ticket | None = None,
        software_version: str = __version__,
    ) -> Ticket:
        """Write one finished experiment as a private graph, in one transaction.

        ``dataset_name`` defaults to the evaluations' dataset name. A catalogue dataset
        (``catalogued``, or by default: a catalogue name whose distribution checksum equals
        ``dataset_sha256`` when given) keeps its public URI and its questions go to its public
        graph if not stored yet; any other dataset is named ``{label}-{hash8}`` and described,
        with its questions, inside the private experiment graph. With a ``ticket`` (from
        :meth:`create_experiment`) that experiment is completed; else a new id is allocated.
        Returns the id, URI and owner token.
        """
        evals = tuple(evaluations)
        if not evals:
            raise BadRequest("an experiment needs at least one evaluation")
        label = dataset_name or evals[0].dataset
        if catalogued is None:
            catalogued = self._is_catalogued(label, dataset_sha256)
        if catalogued:
            ref = DatasetRef(label, True, dataset, sha256=dataset_sha256)
        else:
            digest = dataset_sha256 or (dataset_content_hash(dataset) if dataset else None)
            name = uploaded_dataset_name(
                label, digest or hashlib.sha256(label.encode()).hexdigest()
            )
            ref = DatasetRef(name, False, dataset, title=label, sha256=dataset_sha256)
        if catalogued and dataset is not None and not self.has_dataset_questions(label):
            self.store_dataset(label, dataset)  # public data: its own transaction, idempotent
        now = _now()
        with self._lock:
            if ticket is None:
                ticket, admin_lines, deletes = self._allocate(now, status="finished", job=None)
            else:
                st = self.experiment_status(ticket.id)
                if st.status == "finished":
                    raise Conflict(f"experiment {ticket.id} is already recorded")
                exp = iri(ticket.uri)
                admin = self.uris.admin_graph
                deletes = f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p('status')} ?s }} }} ;\n"
                admin_lines = [f"{exp} {_p('status')} {literal('finished')} ."]
            record = ExperimentRecord(
                experiment_id=ticket.id,
                evaluations=evals,
                dataset=ref,
                started=started or now,
                ended=ended or now,
                software_version=software_version,
                systems=tuple(systems),
                uploads=tuple(uploads),
            )
            lines = experiment_triples(record, self.uris)
            graph = self.uris.experiment_graph(ticket.id)
            self.private.update(
                deletes + _insert_data({graph: lines, self.uris.admin_graph: admin_lines})
            )
        return ticket

    def _is_catalogued(self, name: str, sha256: str | None) -> bool:
        ds = self.uris.dataset(name)
        graph = self.uris.catalog_graph
        if sha256 is None:
            q = f"ASK {{ GRAPH <{graph}> {{ <{ds}> a <http://www.w3.org/ns/dcat#Dataset> }} }}"
        else:
            q = (
                f"ASK {{ GRAPH <{graph}> {{ <{ds}> <http://www.w3.org/ns/dcat#distribution> ?d . "
                f"?d <{SPDX}checksum>/<{SPDX}checksumValue> ?v "
                f'FILTER(STR(?v) = "{sha256.lower()}") }} }}'
            )
        return bool(self.public.query(q))

    def set_status(
        self,
        experiment_id: str,
        status: str,
        *,
        message: str | None = None,
        progress: str | None = None,
    ) -> None:
        """Change a (not yet finished) experiment's status, with an optional message/progress."""
        if status not in STATUSES:
            raise BadRequest(f"unknown status {status!r}; expected one of {', '.join(STATUSES)}")
        if status == "finished":
            raise BadRequest("an experiment becomes finished by record_experiment")
        with self._lock:
            self.experiment_status(experiment_id)  # NotFound
            exp = iri(self.uris.experiment(experiment_id))
            admin = self.uris.admin_graph
            props = ["status"] + (["message"] if message is not None else [])
            props += ["progress"] if progress is not None else []
            text = "".join(
                f"DELETE WHERE {{ GRAPH <{admin}> {{ {exp} {_p(p)} ?o }} }} ;\n" for p in props
            )
            lines = [f"{exp} {_p('status')} {literal(status)} ."]
            if message is not None:
                lines.append(f"{exp} {_p('message')} {literal(message)} .")
            if progress is not None:
                lines.append(f"{exp} {_p('progress')} {literal(progress)} .")
            self.private.update(text + _insert_data({admin: lines}))

    def experiment_status(self, experiment_id: str) -> ExperimentStatus:
        """The admin record of an experiment; NotFound when there is none."""
        check_experiment_id(experiment_id)
        found = self._statuses(experiment_id)
        if not found:
            raise NotFound(f"no experiment {experiment_id}")
        return found[0]

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
        out = []
        for row in rows:
            uri = row.get("e") or self.uris.experiment(experiment_id or "")
            eid = uri.rsplit("/", 1)[1]
            out.append(
                ExperimentStatus(
                    id=eid,
                    uri=uri,
                    status=row["status"],
                    public=row["pub"] == "true",
                    created=row.get("created"),
                    published_at=row.get("pubAt"),
                    message=row.get("message"),
                    progress=row.get("progress"),
                    job=row.get("job"),
                )
            )
        return sorted(out, key=lambda s: s.id)

    def list_experiments(self, *, include_private: bool = False) -> list[ExperimentStatus]:
        """Experiments in id order: only published ones, or all of them (the operator's view)."""
        return [s for s in self._statuses() if include_private or s.public]

    def is_public(self, experiment_id: str) -> bool:
        graph = self._ox.NamedNode(self.uris.experiment_graph(experiment_id))
        return self.public.contains_named_graph(graph)

    def check_token(self, experiment_id: str, token: str | None) -> bool:
        """True when ``token`` is the owner token of the experiment (constant-time compare)."""
        if not token:
            return False
        exp = iri(self.uris.experiment(check_experiment_id(experiment_id)))
        rows = self._admin_select(f"{exp} {_p('ownerTokenHash')} ?h")
        return any(hmac.compare_digest(r["h"], token_hash(token)) for r in rows)

    def experiment_quads(self, experiment_id: str) -> list:
        """The quads of an experiment's graph, wherever it is (for its owner or the operator)."""
        graph = self._ox.NamedNode(self.uris.experiment_graph(experiment_id))
        store = self.public if self.public.contains_named_graph(graph) else self.private
        return list(store.quads_for_pattern(None, None, None, graph))

    def publish(self, experiment_id: str, *, now: datetime | None = None) -> ExperimentStatus:
        """Make a finished experiment public: its graph moves to the public store in one
        transaction (with ``dct:issued``), then the admin record and private copy follow."""
        with self._lock:
            st = self.experiment_status(experiment_id)
            if st.public:
                return st
            if st.status != "finished":
                raise Conflict(f"experiment {experiment_id} is {st.status}, not finished")
            when = now or _now()
            graph = self._ox.NamedNode(self.uris.experiment_graph(experiment_id))
            quads = list(self.private.quads_for_pattern(None, None, None, graph))
            issued = self._ox.Quad(
                self._ox.NamedNode(st.uri),
                self._ox.NamedNode(DCT + "issued"),
                self._ox.Literal(_iso(when), datatype=self._ox.NamedNode(XSD + "dateTime")),
                graph,
            )
            default = self._ox.DefaultGraph()
            copies = [self._ox.Quad(q.subject, q.predicate, q.object, default) for q in quads]
            self.public.extend(
                [
                    *quads,
                    issued,
                    *copies,
                    self._ox.Quad(issued.subject, issued.predicate, issued.object, default),
                ]
            )
            self._finish_publication(experiment_id, _iso(when))
            return self.experiment_status(experiment_id)

    def _finish_publication(self, experiment_id: str, when: str) -> None:
        exp = iri(self.uris.experiment(experiment_id))
        admin = self.uris.admin_graph
        graph = self.uris.experiment_graph(experiment_id)
        self.private.update(
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
            + f" ;\nDROP SILENT GRAPH <{graph}>"
        )

    def _recover(self) -> None:
        """Finish a publication a crash interrupted (public copy written, admin not updated)."""
        for st in self._statuses():
            graph = self._ox.NamedNode(self.uris.experiment_graph(st.id))
            if not st.public and self.public.contains_named_graph(graph):
                issued = [
                    q.object.value
                    for q in self.public.quads_for_pattern(
                        self._ox.NamedNode(st.uri), self._ox.NamedNode(DCT + "issued"), None, graph
                    )
                ]
                self._finish_publication(st.id, issued[0] if issued else _iso(_now()))

    # -- dumps -------------------------------------------------------------------------------
    def export(self, *, format: str = "nquads", experiment_id: str | None = None) -> bytes:
        """A dump: one experiment's graph, or (the operator's backup) every graph of both
        stores including the admin graph. Turtle carries no graph names, so it needs an
        experiment."""
        syntax = _syntax(format)
        if experiment_id is not None:
            quads = self.experiment_quads(experiment_id)
            if not quads:
                raise NotFound(f"no recorded experiment {experiment_id}")
        else:
            if not syntax.quads:
                raise BadRequest(f"{syntax.label} cannot hold named graphs: export one experiment")
            # the public default graph is a copy of the public named graphs: not dumped
            named = (q for q in self.public if not isinstance(q.graph_name, self._ox.DefaultGraph))
            quads = [*named, *self.private]
        if not syntax.quads:
            quads = [self._ox.Triple(q.subject, q.predicate, q.object) for q in quads]
        from service.graph.terms import PREFIXES

        kwargs = {"prefixes": PREFIXES} if syntax.name in ("turtle", "trig") else {}
        return self._ox.serialize(quads, format=syntax.oxigraph_format(), **kwargs)

    def import_dump(self, data: bytes, *, format: str = "nquads") -> int:
        """Restore a dump made by :meth:`export` (whole store): each graph goes back to the
        store it belongs in. Returns the number of quads read."""
        syntax = _syntax(format)
        if not syntax.quads:
            raise BadRequest(f"a store dump must be N-Quads or TriG, not {syntax.label}")
        scratch = self._ox.Store()
        try:
            scratch.load(data, format=syntax.oxigraph_format())
        except SyntaxError as err:
            raise BadRequest(f"cannot read the dump: {err}") from err
        marker = self._ox.NamedNode(_STORE_MARKER)
        bases = {q.object.value for q in scratch.quads_for_pattern(marker, None, None)}
        if bases and bases != {self.uris.base}:
            raise BadRequest(
                f"the dump was made with base {', '.join(bases)}, not {self.uris.base}"
            )
        admin = self._ox.NamedNode(self.uris.admin_graph)
        published = {
            q.subject.value.rsplit("/", 1)[1]
            for q in scratch.quads_for_pattern(
                None, self._ox.NamedNode(GQA + "published"), None, admin
            )
            if q.object.value == "true"
        }
        public, private = [], []
        exp_prefix = self.uris.base + "graph/experiment/"
        for q in scratch:
            g = q.graph_name
            if isinstance(g, self._ox.DefaultGraph):
                continue  # the store marker
            name = g.value
            if not name.startswith(self.uris.base + "graph/"):
                raise BadRequest(f"the dump has a graph that is not one of this store's: {name}")
            if name == self.uris.admin_graph:
                private.append(q)
            elif name.startswith(exp_prefix):
                (public if name[len(exp_prefix) :] in published else private).append(q)
            else:
                public.append(q)
        default = self._ox.DefaultGraph()
        copies = [self._ox.Quad(q.subject, q.predicate, q.object, default) for q in public]
        with self._lock:
            self.public.extend([*public, *copies])
            self.private.extend(private)
        return len(public) + len(private)


def _iso(when: datetime) -> str:
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.isoformat()


def _syntax(name: str) -> RdfSyntax:
    syntax = rdf_by_name(name)
    if syntax is None or syntax.name not in ("nquads", "trig", "turtle", "ntriples"):
        raise BadRequest(f"unknown export format {name!r}; expected nquads, trig or turtle")
    return syntax


def _lines(items: Iterable) -> list[str]:
    """pyoxigraph triples/quads as N-Triples lines (their str() is N-Triples syntax)."""
    return [f"{t.subject} {t.predicate} {t.object} ." for t in items]


def _insert_data(graphs: dict[str, list[str]]) -> str:
    parts = [f"GRAPH <{g}> {{\n" + "\n".join(lines) + "\n}" for g, lines in graphs.items() if lines]
    return "INSERT DATA {\n" + "\n".join(parts) + "\n}"


def open_store(path: str | Path | None, *, base: str = DEFAULT_BASE) -> GraphStore:
    """Open (or create) the store at ``path`` (None: in memory)."""
    return GraphStore(path, base=base)
