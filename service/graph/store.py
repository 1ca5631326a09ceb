"""The store: everything the service knows, as RDF in embedded Oxigraph.

Two pyoxigraph stores side by side (``DIR/public`` and ``DIR/private``, or both in memory):

- **public**: the vocabulary (``graph/vocab``), the catalogue (``graph/catalog``), the questions
  and checks of catalogue datasets (``graph/dataset/{name}``) and of registered dataset versions
  (``graph/dataset/{name}/version/{v}``), and every *published* experiment
  (``graph/experiment/{id}``). Nothing else is ever written there, so the SPARQL endpoint can
  query it and nothing private can leak, whatever the query (``GRAPH ?g``, ``FROM NAMED``…).
- **private**: unpublished experiments (same graph names) and the admin graph (``graph/admin``:
  status, owner-token hash, daily id counter, publication time), which the public never sees.

**The public default graph is the union of the public named graphs, materialised** (kept in step
by every public write, in the same transaction), and queries read it as a plain default graph:
:meth:`GraphStore.query_public` and the SPARQL endpoint pass no dataset options. The measured
alternatives (``bench/store.py``, pyoxigraph 0.5): ``use_default_graph_as_union=True`` has *bag*
semantics across graphs, not an RDF merge: a system described in every experiment graph that used
it matches ``?system rdfs:label ?l`` once per such graph, so the dataset leaderboard returned 1,046
rows (50 distinct) at 1k experiments, and (measured once) 100,433 rows in 9.6 s instead of 500
rows in 0.09 s at 10k; ``DISTINCT`` would hide the rows, not the work. ``default_graph=[…]`` would
list every public graph (100k IRIs) in each query. The copy costs one more default-graph entry per
published quad (three index entries; publishing a 400-question experiment takes ~0.35 s) and about
a third more disk for the public store. With it, the published leaderboard query
(:mod:`service.graph.queries`) costs at most 1.14x the CPU time of a raw cube of only the triples
it reads, at 1k, 10k and 100k experiments.

Every write of a finished experiment is one ``Store.extend`` on the private store, which
Oxigraph applies in one transaction: all its tasks, per-question results, provenance, uploaded
file entities, an uploaded dataset's questions, and its admin record are written together or not
at all. The quads are built as pyoxigraph terms (``nodes.py``), not SPARQL text, and the admin
record of a new experiment is insert-only (the day's counter keeps every value given out and
reads the largest; completing a ticket adds status ``finished``, which outranks the old status
until a follow-up update, or the next open, removes the old one). Publishing copies the
experiment's graph and its default-graph share into the public store in one ``extend`` (the
moment it becomes public), then updates the admin record and drops the private copy in one update;
a crash in between is completed on the next open (:meth:`GraphStore._recover`).

Remote adapter (not built): the interface below needs SPARQL 1.1 Query and Update on two
datasets (or two endpoints with access control) and the Graph Store Protocol: a write is one
``INSERT DATA`` (the quads serialised as N-Quads), a publication GETs the private graph and
POSTs it to the public dataset; reads are SELECT/ASK queries.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from service import __version__
from service.errors import BadRequest, Conflict, NotFound, ServiceError
from service.evaluation.results import Evaluation
from service.graph import nodes as n
from service.graph import terms as t
from service.graph.nodes import DefaultGraph, NamedNode, Quad, node
from service.graph.questions import Finding, check_dataset, finding_quads, question_quads
from service.graph.results import (
    DatasetRef,
    ExperimentRecord,
    SystemInfo,
    UploadedFile,
    dataset_content_hash,
    experiment_quads,
    uploaded_dataset_name,
)
from service.graph.terms import DCT, GQA, RDF, SPDX, XSD, iri, literal
from service.graph.uris import DEFAULT_BASE, Uris, check_experiment_id
from service.graph.vocabulary import vocabulary_bytes, vocabulary_triples
from service.mediatypes import RdfSyntax, rdf_by_name
from service.model import Dataset

STATUSES = ("queued", "running", "finished", "failed", "interrupted", "cancelled")
_STORE_MARKER = "urn:gerbil-qa:store"
# A DOI as written in papers and links: 10.<registrant>/<suffix>, optionally as doi: or a doi.org
# URL (DOI Handbook §2.2: the prefix is "10." and a registrant code, the suffix any characters).
_DOI = re.compile(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_URL = re.compile(r"^https?://[^/\s?#]+", re.IGNORECASE)


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


def _q(local: str) -> NamedNode:
    return node(GQA + local)


@dataclass(frozen=True, slots=True)
class DatasetVersion:
    """A registered version of a dataset (``dataset/{name}/version/{version}``)."""

    name: str
    version: str
    uri: str
    graph: str
    previous: str  # the URI of the version it was derived from
    issued: str
    question_count: int


class GraphStore:
    """The service's store. ``GraphStore(None)`` keeps everything in memory (tests).

    ``base`` is the base of minted URIs; a store keeps the base it was created with and refuses
    another. ``base=None`` takes the store's own (:data:`DEFAULT_BASE` for a new store).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        base: str | None = DEFAULT_BASE,
        catalog: bool = True,
    ) -> None:
        import pyoxigraph

        self._ox = pyoxigraph
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
        self.uris = Uris(base or self._stored_base() or DEFAULT_BASE)
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

    def _stored_base(self) -> str | None:
        marker = node(_STORE_MARKER)
        found = [q.object.value for q in self.private.quads_for_pattern(marker, _q("base"), None)]
        return found[0] if found else None

    def _check_base(self) -> None:
        marker = node(_STORE_MARKER)
        found = [q.object.value for q in self.private.quads_for_pattern(marker, _q("base"), None)]
        if not found:
            self.private.add(Quad(marker, _q("base"), n.literal(self.uris.base), DefaultGraph()))
        elif found[0] != self.uris.base:
            raise ServiceError(
                f"the store at {self.path} was created with base {found[0]}, not {self.uris.base}"
            )

    # -- graphs ------------------------------------------------------------------------------
    def public_graphs(self) -> list[str]:
        """The named graphs the SPARQL endpoint may show: vocabulary, catalogue, dataset
        questions and versions, published experiments (the public store holds nothing else)."""
        return sorted(g.value for g in self.public.named_graphs())

    def query_public(self, sparql: str, **options):  # -> pyoxigraph query results
        """Run a query over the public view. Its default graph is the union of the public
        graphs, materialised (module docstring): pass no dataset option to see everything;
        ``options`` go to ``pyoxigraph.Store.query`` (``base_iri``, ``substitutions``…)."""
        return self.public.query(sparql, **options)

    def _replace_public_graph(self, graph: str, quads: Iterable) -> None:
        """Replace a public named graph and its share of the default graph, in one update."""
        lines = _lines(quads)
        body = "\n".join(lines)
        self.public.update(
            f"DELETE {{ ?s ?p ?o }} WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} "
            f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?s ?p ?o }} FILTER(?h != <{graph}>) }} }} ;\n"
            f"DROP SILENT GRAPH <{graph}> ;\n"
            # one INSERT DATA: a blank node label means the same node in both copies
            f"INSERT DATA {{ GRAPH <{graph}> {{\n{body}\n}}\n{body}\n}}"
        )

    def _add_public(self, quads: Sequence[Quad]) -> None:
        """Add quads of public named graphs and their default-graph copies, in one transaction."""
        default = DefaultGraph()
        copies = [Quad(q.subject, q.predicate, q.object, default) for q in quads]
        self.public.extend([*quads, *copies])

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
        if self._content_hash(graph) == digest and self.public.contains_named_graph(node(graph)):
            return
        with self._lock:
            self._replace_public_graph(graph, vocabulary_triples())
            self._set_content_hash(graph, digest)

    def ensure_catalog(self) -> None:
        """(Re)load the built-in catalogue (``datasets/*.ttl``) when its files changed."""
        from service.catalog import catalog_bytes, catalog_quads

        digest = hashlib.sha256(catalog_bytes()).hexdigest()
        graph = self.uris.catalog_graph
        if self._content_hash(graph) == digest and self.public.contains_named_graph(node(graph)):
            return
        with self._lock:
            self._replace_public_graph(graph, catalog_quads(self.uris, graph))
            self._set_content_hash(graph, digest)

    # -- datasets ----------------------------------------------------------------------------
    def has_dataset_questions(self, name: str) -> bool:
        return self.public.contains_named_graph(node(self.uris.dataset_graph(name)))

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
        graph = self.uris.dataset_graph(name)
        ds = self.uris.dataset(name)
        quads = question_quads(ds, dataset, node(graph))
        quads += finding_quads(ds, found, now or _now(), node(graph))
        with self._lock:
            self._replace_public_graph(graph, quads)
        return found

    def register_dataset_version(
        self,
        name: str,
        dataset: Dataset,
        *,
        kb: str,
        kb_version: str | None = None,
        version: str | None = None,
        previous: str | None = None,
        started: datetime | None = None,
        ended: datetime | None = None,
        summary: str | None = None,
        software_version: str = __version__,
    ) -> DatasetVersion:
        """Register a new version of dataset ``name`` (e.g. a gold refresh on a newer KB).

        It gets ``dataset/{name}/version/{version}`` (``version`` defaults to ``sha256-`` and 12
        hex digits of its questions' content), a public graph of its own with its description,
        provenance, questions and check findings, written in one transaction; an existing version
        is never overwritten (Conflict). ``previous`` is the version label it was derived from
        (default: the newest registered version, else the catalogue's dataset itself). The
        description: ``dcat:previousVersion`` and ``prov:wasDerivedFrom`` the previous version,
        the dataset ``dcat:hasVersion`` it, ``prov:wasGeneratedBy`` an activity that used the
        previous version and the KB (``kb``: its identity, an IRI when it is one; ``kb_version``),
        run by this software between ``started`` and ``ended``.
        """
        from service.graph.terms import DATAID, DCAT, PROV, RDFS

        found = check_dataset(dataset)
        label = version or "sha256-" + dataset_content_hash(dataset)[:12]
        uris = self.uris
        uri = uris.dataset_version(name, label)
        graph_iri = uris.dataset_version_graph(name, label)
        ended = ended or _now()
        started = started or ended
        with self._lock:
            if self.public.contains_named_graph(node(graph_iri)):
                raise Conflict(f"{uri} exists; a dataset version is never overwritten")
            if previous is not None:
                before = uris.dataset_version(name, previous)
                if not self.public.contains_named_graph(
                    node(uris.dataset_version_graph(name, previous))
                ):
                    raise NotFound(f"no version {previous!r} of dataset {name!r} to derive from")
            else:
                known = self.dataset_versions(name)
                before = known[-1].uri if known else uris.dataset(name)
            g = node(graph_iri)
            v, ds, activity = (
                node(uri),
                node(uris.dataset(name)),
                node(uris.version_activity(name, label)),
            )
            kb_node = node(uris.version_kb(name, label))
            software = node(uris.software(software_version))
            issued = n.date_time(ended)
            typ = node(RDF + "type")
            count = len(dataset.by_id())
            pairs: list[tuple[object, NamedNode, object]] = [
                (v, typ, _q("DatasetVersion")),
                (v, typ, node(DCAT + "Dataset")),
                (v, typ, node(DATAID + "Dataset")),
                (v, typ, node(PROV + "Entity")),
                (v, node(DCT + "identifier"), n.literal(f"{name}/version/{label}")),
                (v, node(DCT + "title"), n.literal(f"{name}, version {label}")),
                (v, node(DCAT + "version"), n.literal(label)),
                (v, node(DCT + "isVersionOf"), ds),
                (ds, node(DCAT + "hasVersion"), v),
                (v, node(DCAT + "previousVersion"), node(before)),
                (v, node(PROV + "wasDerivedFrom"), node(before)),
                (v, node(PROV + "wasGeneratedBy"), activity),
                (v, node(DCT + "issued"), issued),
                (v, _q("questionCount"), n.integer(count)),
                (activity, typ, _q("GoldRefresh")),
                (activity, typ, node(PROV + "Activity")),
                (activity, node(RDFS + "label"), n.literal(f"Gold refresh of {name}", lang="en")),
                (activity, node(PROV + "used"), node(before)),
                (activity, node(PROV + "used"), kb_node),
                (activity, node(PROV + "startedAtTime"), n.date_time(started)),
                (activity, node(PROV + "endedAtTime"), n.date_time(ended)),
                (activity, node(PROV + "wasAssociatedWith"), software),
                (software, typ, _q("Evaluator")),
                (software, typ, node(PROV + "SoftwareAgent")),
                (
                    software,
                    node(RDFS + "label"),
                    n.literal(f"GERBIL QA for Python {software_version}"),
                ),
                (software, _q("softwareVersion"), n.literal(software_version)),
                (kb_node, typ, node(PROV + "Entity")),
                (kb_node, node(RDFS + "label"), n.literal(kb)),
                (kb_node, node(DCT + "identifier"), n.literal(kb)),
            ]
            if summary:
                pairs.append((activity, node(DCT + "description"), n.literal(summary)))
            if (kb_iri := n.checked_iri(kb)) is not None and kb.startswith(("http://", "https://")):
                pairs.append((v, _q("knowledgeBase"), kb_iri))
                pairs.append((kb_node, node(PROV + "wasDerivedFrom"), kb_iri))
            if kb_version:
                pairs.append((v, _q("knowledgeBaseVersion"), n.literal(kb_version)))
                pairs.append((kb_node, _q("knowledgeBaseVersion"), n.literal(kb_version)))
            langs = {lang for q in dataset.questions for lang in q.languages}
            for code in sorted(langs):
                if lang_iri := t.language_iri(code):
                    pairs.append((v, node(DCT + "language"), node(lang_iri)))
            quads = [Quad(s, p, o, g) for s, p, o in pairs]  # type: ignore[arg-type]
            quads += question_quads(uri, dataset, g)
            quads += finding_quads(uri, found, ended, g)
            self._add_public(quads)
        return DatasetVersion(name, label, uri, graph_iri, before, issued.value, count)

    def dataset_versions(self, name: str) -> list[DatasetVersion]:
        """The registered versions of dataset ``name``, oldest first."""
        ds = self.uris.dataset(name)
        rows = self.public.query(
            f"""SELECT ?v ?label ?prev ?issued ?count WHERE {{
              <{ds}> <http://www.w3.org/ns/dcat#hasVersion> ?v .
              ?v <http://www.w3.org/ns/dcat#version> ?label ;
                 <http://www.w3.org/ns/dcat#previousVersion> ?prev ;
                 <{DCT}issued> ?issued ; {_p("questionCount")} ?count }}"""
        )
        found = [
            DatasetVersion(
                name,
                r["label"].value,
                r["v"].value,
                self.uris.dataset_version_graph(name, r["label"].value),
                r["prev"].value,
                r["issued"].value,
                int(r["count"].value),
            )
            for r in rows
        ]
        return sorted(found, key=lambda d: (d.issued, d.version))

    # -- experiments -------------------------------------------------------------------------
    def create_experiment(self, *, job: str | None = None, now: datetime | None = None) -> Ticket:
        """Reserve an id (``yyyyMMdd`` + daily counter, kept in the admin graph so it continues
        after restarts) and an owner token for an experiment that will run later."""
        with self._lock:
            ticket, admin = self._allocate(now or _now(), status="queued", job=job)
            self.private.extend(admin)
            return ticket

    def _allocate(self, now: datetime, *, status: str, job: str | None) -> tuple[Ticket, list]:
        """A new id and owner token, and the admin quads recording them (insert-only: the
        counter keeps every value given out and the next id follows the largest)."""
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
        exp = node(self.uris.experiment(eid))
        c = node(counter)
        pairs = [
            (c, _q("counterDay"), n.literal(day)),
            (c, _q("counterValue"), n.integer(value)),
            (exp, node(RDF + "type"), _q("Experiment")),
            (exp, _q("status"), n.literal(status)),
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
                ticket, admin = self._allocate(now, status="finished", job=None)
            else:
                st = self.experiment_status(ticket.id)
                if st.status == "finished":
                    raise Conflict(f"experiment {ticket.id} is already recorded")
                # insert-only; the old status goes in _settle_status (finished outranks it)
                admin = [
                    Quad(
                        node(ticket.uri),
                        _q("status"),
                        n.literal("finished"),
                        node(self.uris.admin_graph),
                    )
                ]
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
            quads = experiment_quads(record, self.uris, self.uris.experiment_graph(ticket.id))
            quads += admin
            self.private.extend(quads)  # one transaction: the experiment and its admin record
            if len(admin) == 1:
                self._settle_status(ticket.id)
        return ticket

    def _settle_status(self, experiment_id: str) -> None:
        """Drop the statuses a finished experiment had before (left by an insert-only record)."""
        exp = iri(self.uris.experiment(experiment_id))
        admin = self.uris.admin_graph
        self.private.update(
            f"DELETE {{ GRAPH <{admin}> {{ {exp} {_p('status')} ?s }} }} WHERE {{ "
            f"GRAPH <{admin}> {{ {exp} {_p('status')} ?s }} FILTER(STR(?s) != 'finished') }}"
        )

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
        out: dict[str, ExperimentStatus] = {}
        for row in rows:
            uri = row.get("e") or self.uris.experiment(experiment_id or "")
            eid = uri.rsplit("/", 1)[1]
            if eid in out and out[eid].status == "finished":
                continue  # an insert-only record not yet settled: finished outranks the old status
            out[eid] = ExperimentStatus(
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
        return sorted(out.values(), key=lambda s: s.id)

    def list_experiments(self, *, include_private: bool = False) -> list[ExperimentStatus]:
        """Experiments in id order: only published ones, or all of them (the operator's view)."""
        return [s for s in self._statuses() if include_private or s.public]

    def is_public(self, experiment_id: str) -> bool:
        return self.public.contains_named_graph(node(self.uris.experiment_graph(experiment_id)))

    def check_token(self, experiment_id: str, token: str | None) -> bool:
        """True when ``token`` is the owner token of the experiment (constant-time compare)."""
        if not token:
            return False
        exp = iri(self.uris.experiment(check_experiment_id(experiment_id)))
        rows = self._admin_select(f"{exp} {_p('ownerTokenHash')} ?h")
        return any(hmac.compare_digest(r["h"], token_hash(token)) for r in rows)

    def experiment_quads(self, experiment_id: str) -> list:
        """The quads of an experiment's graph, wherever it is (for its owner or the operator)."""
        graph = node(self.uris.experiment_graph(experiment_id))
        store = self.public if self.public.contains_named_graph(graph) else self.private
        return list(store.quads_for_pattern(None, None, None, graph))

    def publish(self, experiment_id: str, *, now: datetime | None = None) -> ExperimentStatus:
        """Make a finished experiment public: its graph (with ``dct:issued``) and its share of
        the public default graph are added to the public store in one transaction, the moment
        it becomes public; then the admin record and the private copy follow in one update. A
        crash between the two is completed on the next open."""
        with self._lock:
            st = self.experiment_status(experiment_id)
            if st.public:
                return st
            if st.status != "finished":
                raise Conflict(f"experiment {experiment_id} is {st.status}, not finished")
            when = now or _now()
            graph = node(self.uris.experiment_graph(experiment_id))
            quads = list(self.private.quads_for_pattern(None, None, None, graph))
            issued = Quad(node(st.uri), node(DCT + "issued"), n.date_time(when), graph)
            self._add_public([*quads, issued])
            self._finish_publication(experiment_id, _iso(when))
            return self.experiment_status(experiment_id)

    def attach_paper(self, experiment_id: str, reference: str) -> str:
        """Link a finished experiment to a paper that cites it: ``<experiment> dct:isReferencedBy
        <paper>`` in its graph, in one transaction. ``reference`` is a DOI (``10.3233/SW-180312``,
        ``doi:…``, ``https://doi.org/…``; the link is ``https://doi.org/…``) or an http(s) URL.
        A published experiment gets the link in its public graph and in the public default
        graph together; an unpublished one in its private graph (publishing copies it). Attaching
        the same paper twice changes nothing. Returns the paper's IRI."""
        paper = paper_iri(reference)
        with self._lock:  # not between a publication's two steps
            st = self.experiment_status(experiment_id)
            if st.status != "finished":
                raise Conflict(f"experiment {experiment_id} is {st.status}, not finished")
            graph = node(self.uris.experiment_graph(experiment_id))
            link = Quad(node(st.uri), node(DCT + "isReferencedBy"), node(paper), graph)
            if self.public.contains_named_graph(graph):
                self._add_public([link])
            else:
                self.private.extend([link])
        return paper

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
        """Complete what a crash interrupted: a publication whose public copy is written but
        whose admin record is not, and a recorded experiment's old status."""
        admin = self.uris.admin_graph
        unpublished = self.private.query(
            f"SELECT ?e WHERE {{ GRAPH <{admin}> {{ ?e {_p('published')} false }} }}"
        )
        for row in list(unpublished):
            uri = row["e"].value
            eid = uri.rsplit("/", 1)[1]
            graph = node(self.uris.experiment_graph(eid))
            if self.public.contains_named_graph(graph):
                issued = [
                    q.object.value
                    for q in self.public.quads_for_pattern(
                        node(uri), node(DCT + "issued"), None, graph
                    )
                ]
                self._finish_publication(eid, issued[0] if issued else _iso(_now()))
        unsettled = self.private.query(
            f"SELECT DISTINCT ?e WHERE {{ GRAPH <{admin}> {{ ?e {_p('status')} 'finished', ?s "
            "FILTER(STR(?s) != 'finished') } }"
        )
        for row in list(unsettled):
            self._settle_status(row["e"].value.rsplit("/", 1)[1])

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
            named = (q for q in self.public if not isinstance(q.graph_name, DefaultGraph))
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
        marker = node(_STORE_MARKER)
        bases = {q.object.value for q in scratch.quads_for_pattern(marker, None, None)}
        if bases and bases != {self.uris.base}:
            raise BadRequest(
                f"the dump was made with base {', '.join(bases)}, not {self.uris.base}"
            )
        admin = node(self.uris.admin_graph)
        published = {
            q.subject.value.rsplit("/", 1)[1]
            for q in scratch.quads_for_pattern(None, _q("published"), None, admin)
            if q.object.value == "true"
        }
        public, private = [], []
        exp_prefix = self.uris.base + "graph/experiment/"
        for q in scratch:
            g = q.graph_name
            if isinstance(g, DefaultGraph):
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
        with self._lock:
            self._add_public(public)
            self.private.extend(private)
        return len(public) + len(private)


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


def open_store(path: str | Path | None, *, base: str | None = DEFAULT_BASE) -> GraphStore:
    """Open (or create) the store at ``path`` (None: in memory); ``base=None``: the store's."""
    return GraphStore(path, base=base)
