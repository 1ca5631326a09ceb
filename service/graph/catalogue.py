"""The catalogue repository: vocabulary and catalogue graphs, dataset questions, dataset versions.

All of it is public data: the vocabulary (``graph/vocab``, rebuilt from ``ontology/`` when the
files change), the DCAT/DataID catalogue of built-in datasets (``graph/catalog``, from
``datasets/*.ttl``), the questions and check findings of catalogue datasets
(``graph/dataset/{name}``; a published uploaded dataset's findings alone) and registered
dataset versions such as gold refreshes (``graph/dataset/{name}/version/{v}``, each with its
PROV activity). Every change of a graph is one transaction, and its share of the materialised
public default graph changes with it.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service import release
from service.dataset_about import UPLOADED_NAME, named_version
from service.errors import Conflict, NotFound
from service.graph import dcat, prov
from service.graph import nodes as n
from service.graph.adapter import Side, StoreAdapter, add_public
from service.graph.nodes import Literal, NamedNode, Quad, node
from service.graph.questions import (
    Finding,
    check_dataset,
    check_set,
    finding_quads,
    question_quads,
    topic_pairs,
)
from service.graph.results import dataset_content_hash
from service.graph.terms import DATAID, DCAT, DCT, GQA, RDF, RDFS, SPDX, XSD, literal
from service.graph.uris import GERBIL, Uris
from service.graph.vocabulary import vocabulary_bytes, vocabulary_triples
from service.model import Dataset
from service.release import Source

log = logging.getLogger(__name__)


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


@dataclass(frozen=True, slots=True)
class UploadVersion:
    """A published uploaded dataset that is a newer version of another (its author's
    corrected file, ``about.previousVersion``)."""

    name: str
    uri: str
    title: str
    version: str | None  # its author's label (``dcat:version``), if said
    issued: str | None  # its first publication

    @property
    def label(self) -> str:
        return named_version(self.title, self.version, self.name)


DCT_PUBLISHER = DCT + "publisher"


def _p(local: str) -> str:
    return f"<{GQA}{local}>"


def _q(local: str) -> NamedNode:
    return node(GQA + local)


def _lines(items: Iterable) -> list[str]:
    """pyoxigraph triples/quads as N-Triples lines (their str() is N-Triples syntax)."""
    return [f"{t.subject} {t.predicate} {t.object} ." for t in items]


def _version_description(name: str, label: str, count: int, kb: str) -> Literal:
    return n.literal(
        f"Version {label} of the dataset {name}: its {count} questions with the gold answers "
        f"the knowledge base {kb} gave.",
        lang="en",
    )


def _version_languages(version: NamedNode, dataset: Dataset) -> list[dcat.Triple]:
    """The version's languages as the catalogue names them (EU authority IRIs, which DCAT-AP
    requires) and what DCAT-AP asks to see of them and of its theme (type, scheme, label)."""
    codes = sorted({lang for q in dataset.questions for lang in q.languages})
    iris = [iri for code in codes if (iri := dcat.language_iri(code))]
    language = node(DCT + "language")
    described = [*iris, *(o.value for _, o in topic_pairs() if isinstance(o, NamedNode))]
    return [(version, language, node(iri)) for iri in iris] + dcat.linked_descriptions(described)


class CatalogueRepository:
    """The public, non-experiment graphs of a store (module docstring)."""

    def __init__(self, store: StoreAdapter, uris: Uris) -> None:
        self.store = store
        self.uris = uris
        # the graphs this process loaded (vocabulary, catalogue) and their content hash: on a
        # shared store a replica of another release puts its own back when it starts
        self._ensured: dict[str, str] = {}
        # the release that last opened the store to write before this process (the store's
        # marker, read by open_storage before it marks the store as this release's)
        self.previous_writer: str | None = None

    # -- vocabulary and catalogue ------------------------------------------------------------
    def ensure_vocabulary(self) -> bool:
        """(Re)load the vocabulary when its files changed; True when it did."""
        digest = hashlib.sha256(vocabulary_bytes()).hexdigest()
        return self._ensure(self.uris.vocab_graph, digest, vocabulary_triples)

    def foreign_graphs(self) -> list[str]:
        """The graphs this process loaded (the vocabulary, the catalogue) that another
        release has replaced with its own since, each said with that release (the store
        marker's: the last to open the store to write; replicas of two releases on one
        store, explore50 F2). Empty on a store no other process writes."""
        if not self.store.shared:
            return []
        changed = [g for g, digest in self._ensured.items() if self._content_hash(g) != digest]
        if not changed:
            return []
        from service.graph.store import last_writer

        ours = release.source().version
        writer = last_writer(self.store)
        by = f"gerbil-qa {writer}" if writer and writer != ours else "another release"
        return [f"{self._graph_name(g)} is {by}'s, not this release's ({ours})" for g in changed]

    def _graph_name(self, graph: str) -> str:
        names = {self.uris.vocab_graph: "the vocabulary", self.uris.catalog_graph: "the catalogue"}
        return f"{names.get(graph, graph)} (<{graph}>)"

    def ensure_catalog(self) -> bool:
        """(Re)load the built-in catalogue (``datasets/*.ttl``) when its files changed."""
        from service.catalog import catalog_bytes, catalog_quads

        digest = hashlib.sha256(catalog_bytes()).hexdigest()
        graph = self.uris.catalog_graph
        return self._ensure(graph, digest, lambda: catalog_quads(self.uris, graph))

    def _ensure(self, graph: str, digest: str, quads: object) -> bool:
        self._ensured[graph] = digest
        found = self._content_hash(graph)
        if found == digest and self.store.public.contains_named_graph(node(graph)):
            return False
        with self.store.lock:
            self._replace_public_graph(graph, quads())  # type: ignore[operator]
            self._set_content_hash(graph, digest)
        ours, before = release.source().version, self.previous_writer
        if found is not None and self.store.shared and before and before != ours:
            # a rolling upgrade: the replicas still running the other release serve this
            # one's now, and put theirs back when they start (explore50 F2)
            log.warning(
                "%s on this shared store was gerbil-qa %s's; this release (%s) replaced it "
                "with its own. Replicas still running %s (if any) serve this one's until they "
                "restart, then put theirs back: upgrade every replica together (README: "
                "Rolling upgrades)",
                self._graph_name(graph),
                before,
                ours,
                before,
            )
        return True

    def _content_hash(self, graph: str) -> str | None:
        rows = self.store.private.query(
            f"SELECT ?h WHERE {{ GRAPH <{self.uris.admin_graph}> {{ "
            f"<{graph}> {_p('contentHash')} ?h }} }}"
        )
        return next((row["h"].value for row in rows), None)

    def _set_content_hash(self, graph: str, value: str) -> None:
        admin = self.uris.admin_graph
        self.store.update(
            Side.PRIVATE,
            f"DELETE WHERE {{ GRAPH <{admin}> {{ <{graph}> {_p('contentHash')} ?h }} }} ;\n"
            f"INSERT DATA {{ GRAPH <{admin}> {{ <{graph}> {_p('contentHash')} "
            f"{literal(value)} . }} }}",
        )

    def _replace_public_graph(self, graph: str, quads: Iterable) -> None:
        """Replace a public named graph and its share of the default graph, in one update."""
        body = "\n".join(_lines(quads))
        self.store.update(
            Side.PUBLIC,
            f"DELETE {{ ?s ?p ?o }} WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} "
            f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?s ?p ?o }} FILTER(?h != <{graph}>) }} }} ;\n"
            f"DROP SILENT GRAPH <{graph}> ;\n"
            # one INSERT DATA: a blank node label means the same node in both copies
            f"INSERT DATA {{ GRAPH <{graph}> {{\n{body}\n}}\n{body}\n}}",
        )

    def name_for_sha256(self, sha256: str) -> str | None:
        """The catalogue dataset one of whose distributions has this SHA-256 (an upload
        byte-identical to it), when exactly one has."""
        rows = self.store.public.query(
            f"SELECT DISTINCT ?id WHERE {{ GRAPH <{self.uris.catalog_graph}> {{ "
            f"?d <{DCAT}distribution> ?x ; <{DCT}identifier> ?id . "
            f"?x <{SPDX}checksum>/<{SPDX}checksumValue> ?v "
            f'FILTER(LCASE(STR(?v)) = "{sha256.lower()}") }} }}'
        )
        names = [row["id"].value for row in rows]
        return names[0] if len(names) == 1 else None

    def upload_for_sha256(self, sha256: str) -> tuple[str, str] | None:
        """The name and title of a published uploaded dataset whose file has this SHA-256
        (a new upload of the same bytes is that dataset; only public descriptions are read, so
        no private experiment's title reaches another one)."""
        # described in an experiment's graph: a registered version's file has a SHA-256 too,
        # but its results are a dataset of their own (``run.registered_version``); a withdrawn
        # run's graph offers it no more (as published_upload and GET /api/datasets)
        # the first published where a store holds several (published before one file was
        # one dataset: ``uploads.join_published``)
        rows = self.store.public.query(
            f"SELECT ?id ?title WHERE {{ GRAPH ?g {{ ?d {_p('sha256')} ?v ; "
            f"<{DCT}identifier> ?id ; <{DCT}title> ?title }} "
            f'FILTER(LCASE(STR(?v)) = "{sha256.lower()}" '
            f'&& STRSTARTS(STR(?d), "{self.uris.dataset("")}")) '
            f"{self.uris.listed_experiment_graph()} OPTIONAL {{ ?d <{DCT}issued> ?issued }} }} "
            "ORDER BY (!BOUND(?issued)) STR(?issued) STR(?id) STR(?title) LIMIT 1"
        )
        return next(((row["id"].value, row["title"].value) for row in rows), None)

    def upload_name_taken(self, name: str, sha256: str) -> bool:
        """Whether uploaded dataset ``name`` already describes a file other than ``sha256``'s,
        published or private (two contents under one name would share its page and
        leaderboard); read here only, never shown."""
        query = (
            f"ASK {{ GRAPH ?g {{ <{self.uris.dataset(name)}> {_p('sha256')} ?v }} "
            f'FILTER(LCASE(STR(?v)) != "{sha256.lower()}") }}'
        )
        return any(bool(side.query(query)) for side in (self.store.public, self.store.private))

    def upload_statements(self, name: str) -> dict[str, str]:
        """What the published descriptions of uploaded dataset ``name`` say with each of
        ``predicates`` and ``dct:publisher`` (one value each: a later upload of the same bytes
        restates none of them, and is distributed under its licence)."""
        from service.dataset_about import ABOUT_FIELDS

        wanted = " ".join(f"<{p}>" for p in {f.predicate for f in ABOUT_FIELDS} | {DCT_PUBLISHER})
        ds = f"<{self.uris.dataset(name)}>"
        rows = self.store.public.query(  # a generated description is nobody's statement
            f"SELECT ?p (MIN(STR(?o)) AS ?v) WHERE {{ VALUES ?p {{ {wanted} }} {ds} ?p ?o "
            f"FILTER NOT EXISTS {{ {ds} {_p('generatedDescription')} ?o }} }} GROUP BY ?p"
        )
        return {row["p"].value: row["v"].value for row in rows}

    def gold_revealed(self, name: str) -> bool:
        """Whether the withheld gold of uploaded dataset ``name`` was revealed (its graph,
        ``graph/dataset/{name}``, holds the gold and when: ``reveal_gold``)."""
        return self.revealed_at(name) is not None

    def revealed_at(self, name: str) -> str | None:
        """When the withheld gold of uploaded dataset ``name`` was revealed (xsd:dateTime),
        None while withheld or never withheld."""
        graph, ds = self.uris.dataset_graph(name), self.uris.dataset(name)
        rows = self.store.public.query(
            f"SELECT ?when WHERE {{ GRAPH <{graph}> {{ <{ds}> {_p('goldRevealed')} ?when }} }}"
        )
        return next((row["when"].value for row in rows), None)

    def gold_withheld(self, name: str, statements: dict[str, str] | None = None) -> bool:
        """Whether published uploaded dataset ``name`` withholds its gold (``about.gold``; its
        ``statements`` if read already) and it is not revealed yet: no gold, no question's
        result, no file of its runs is served."""
        from service.dataset_about import ABOUT

        said = self.upload_statements(name) if statements is None else statements
        return said.get(ABOUT["gold"].predicate) == "true" and not self.gold_revealed(name)

    def withheld_of_experiment(self, store: Any, experiment_id: str) -> str | None:
        """The name of the uploaded dataset experiment ``experiment_id`` was scored on when its
        gold is withheld now (its graph in ``store``, public or private, says so and it was
        not revealed since), else None."""
        name = self.withholding_dataset(store, experiment_id)
        return name if name is not None and not self.gold_revealed(name) else None

    def withheld_test_set(self, sha256: str) -> str | None:
        """The name of the published test set of this file (``sha256``) whose gold is
        withheld now, else None: what no run serves, scores on another gold or prints."""
        published = self.upload_for_sha256(sha256)
        return published[0] if published and self.gold_withheld(published[0]) else None

    def public_gold_of(self, sha256: str) -> str | None:
        """The name of an uploaded dataset of this file (``sha256``) whose gold some public
        graph says, withdrawn runs' included (their pages keep it as published), i.e. that
        never withheld it; None if none."""
        rows = self.store.public.query(
            f"SELECT ?id WHERE {{ GRAPH ?g {{ ?d {_p('sha256')} ?v ; <{DCT}identifier> ?id }} "
            f'FILTER(LCASE(STR(?v)) = "{sha256.lower()}" '
            f'&& STRSTARTS(STR(?d), "{self.uris.dataset("")}") '
            f'&& STRSTARTS(STR(?g), "{self.uris.base}graph/experiment/")) '
            f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?d {_p('goldWithheld')} true }} }} }} LIMIT 1"
        )
        return next((row["id"].value for row in rows), None)

    def ever_withheld(self, name: str) -> bool:
        """Whether uploaded dataset ``name``'s author withheld its gold (any public graph
        says so, a withdrawn run's included)."""
        return bool(
            self.store.public.query(
                f"ASK {{ GRAPH ?g {{ <{self.uris.dataset(name)}> {_p('goldWithheld')} true }} }}"
            )
        )

    def scored_withheld_on(self, store: Any, experiment_id: str) -> str | None:
        """The name of the uploaded dataset experiment ``experiment_id`` was scored on with
        its gold withheld (its graph in ``store`` has tasks without per-question results; a
        private run by the dataset's name restates no description of it), else None."""
        graph = self.uris.experiment_graph(experiment_id)
        rows = store.query(
            f"SELECT ?id WHERE {{ GRAPH <{graph}> {{ ?t {_p('questionResultsWithheld')} true . "
            f"?d {_p('sha256')} ?sha ; <{DCT}identifier> ?id }} }} LIMIT 1"
        )
        return next((row["id"].value for row in rows), None)

    def withholding_dataset(self, store: Any, experiment_id: str) -> str | None:
        """The name of the uploaded dataset withholding its gold (revealed since or not) that
        experiment ``experiment_id`` was scored on (its graph in ``store``), else None."""
        graph = self.uris.experiment_graph(experiment_id)
        rows = store.query(
            f"SELECT ?id WHERE {{ GRAPH <{graph}> {{ ?d {_p('goldWithheld')} true ; "
            f"<{DCT}identifier> ?id }} }} LIMIT 1"
        )
        return next((row["id"].value for row in rows), None)

    def published_upload(self, name: str) -> tuple[str, str] | None:
        """The file SHA-256 and title of the published uploaded dataset ``name`` (its runs
        are public, so is its file)."""
        if not UPLOADED_NAME.fullmatch(name):
            return None
        rows = self.store.public.query(  # a withdrawn run's graph offers its dataset no more
            f"SELECT ?sha ?title WHERE {{ GRAPH ?g {{ <{self.uris.dataset(name)}> "
            f"{_p('sha256')} ?sha ; <{DCT}title> ?title }} "
            f"{self.uris.listed_experiment_graph()} }} ORDER BY STR(?title) LIMIT 1"
        )
        return next(((row["sha"].value, row["title"].value) for row in rows), None)

    def published_languages(self, name: str) -> tuple[str, ...]:
        """The languages (``en``, ``pl``) of the published uploaded dataset ``name``, sorted;
        none for another name."""
        from service.graph.dcat import language_code

        if not UPLOADED_NAME.fullmatch(name):
            return ()
        rows = self.store.public.query(
            f"SELECT DISTINCT ?lang WHERE {{ GRAPH ?g {{ <{self.uris.dataset(name)}> "
            f"{_p('sha256')} ?sha ; <{DCT}language> ?lang }} "
            f"{self.uris.listed_experiment_graph()} }}"
        )
        return tuple(sorted({language_code(row["lang"].value) for row in rows}))

    def published_profile(self, name: str) -> str | None:
        """The profile (its name: ``fair``) the first listed run on the published uploaded
        dataset ``name`` was scored with (its first publisher's: the lowest experiment id);
        None for another name."""
        if not UPLOADED_NAME.fullmatch(name):
            return None
        rows = self.store.public.query(
            f"SELECT ?p WHERE {{ GRAPH ?g {{ ?task <{GERBIL}dataset> "
            f"<{self.uris.dataset(name)}> ; {_p('profile')} ?p }} "
            f"{self.uris.listed_experiment_graph()} }} ORDER BY STR(?g) LIMIT 1"
        )
        found = next((row["p"].value for row in rows), None)  # …vocab#profile-fair
        return found.rsplit("#", 1)[-1].removeprefix("profile-") if found else None

    def published_tsv(self, name: str) -> tuple[bool, str | None]:
        """Whether the file of uploaded dataset ``name`` is a TSV expected.tsv (its
        distribution's media type: it is told by its name's extension alone, which a run by
        name has not), and the SHA-256 of the in.tsv published with it (its question texts:
        the distribution of role ``questions``, the first run's that gave one), if any."""
        if not UPLOADED_NAME.fullmatch(name):
            return False, None
        from service.formats.tsv import FORMAT

        tsv = f"http://www.iana.org/assignments/media-types/{FORMAT.media_types[0]}"
        rows = self.store.public.query(
            f"SELECT ?role ?sha WHERE {{ GRAPH ?g {{ <{self.uris.dataset(name)}> "
            f"<{DCAT}distribution> ?f . ?f {_p('fileRole')} ?role ; {_p('sha256')} ?sha ; "
            f"<{DCAT}mediaType> <{tsv}> }} {self.uris.listed_experiment_graph()} }} "
            "ORDER BY STR(?g)"
        )
        found = [(row["role"].value, row["sha"].value) for row in rows]
        questions = next((sha for role, sha in found if role == "questions"), None)
        return any(role == "dataset" for role, _ in found), questions

    def withdrawn_upload(self, name: str) -> bool:
        """Whether uploaded dataset ``name`` was published by runs since withdrawn (their
        graphs stay public, with the withdrawal note)."""
        if not UPLOADED_NAME.fullmatch(name):
            return False
        return bool(
            self.store.public.query(
                f"ASK {{ GRAPH ?g {{ <{self.uris.dataset(name)}> {_p('sha256')} ?sha . "
                f"?e {_p('withdrawnAt')} ?when }} }}"
            )
        )

    def published_upload_names(self) -> list[str]:
        """The names of the published uploaded datasets (a run on each listed), by name: a
        mistyped one is refused naming the nearest (8 hex digits are the hard part to type)."""
        rows = self.store.public.query(
            f"SELECT DISTINCT ?id WHERE {{ GRAPH ?g {{ ?d {_p('sha256')} ?v ; "
            f'<{DCT}identifier> ?id }} FILTER(STRSTARTS(STR(?d), "{self.uris.dataset("")}")) '
            f"{self.uris.listed_experiment_graph()} }} ORDER BY ?id"
        )
        return [row["id"].value for row in rows]

    def newer_upload(self, name: str, older_sha256: str) -> tuple[str, str] | None:
        """The file SHA-256 and title of published uploaded dataset ``name`` when it is a
        newer version (``dcat:previousVersion``, one or more steps) of the uploaded dataset
        whose file has ``older_sha256``."""
        if not re.fullmatch(r"[0-9a-fA-F]{64}", older_sha256) or not UPLOADED_NAME.fullmatch(name):
            return None
        # the older one's file in any public graph: once its runs are all withdrawn it is
        # described in their graphs only, and a withdrawn run is re-scored onto the newer
        # version as any other (its page offers it; before, that was refused)
        rows = self.store.public.query(
            f"SELECT ?sha ?title WHERE {{ <{self.uris.dataset(name)}> {_p('sha256')} ?sha ; "
            f"<{DCT}title> ?title ; <{DCAT}previousVersion>+ ?old . "
            f"GRAPH ?h {{ ?old {_p('sha256')} ?v }} "
            f'FILTER(LCASE(STR(?v)) = "{older_sha256.lower()}") }} ORDER BY STR(?title) LIMIT 1'
        )
        return next(((row["sha"].value, row["title"].value) for row in rows), None)

    def newer_uploads(self, name: str) -> list[UploadVersion]:
        """The published uploaded datasets that are newer versions of uploaded dataset
        ``name`` (their ``dcat:previousVersion``, one or more steps, leads to it), oldest
        first: a run on it is re-scored onto each by its name."""
        if not UPLOADED_NAME.fullmatch(name):
            return []
        return self._upload_versions(f"?new <{DCAT}previousVersion>+ <{self.uris.dataset(name)}>")

    def older_uploads(self, name: str) -> list[UploadVersion]:
        """The published uploaded datasets that uploaded dataset ``name`` is a newer version
        of (its ``dcat:previousVersion``, one or more steps), oldest first: while one of them
        withholds its gold, ``name``'s is not revealed (explore32 11)."""
        if not UPLOADED_NAME.fullmatch(name):
            return []
        return self._upload_versions(f"<{self.uris.dataset(name)}> <{DCAT}previousVersion>+ ?new")

    def _upload_versions(self, pattern: str) -> list[UploadVersion]:
        """The published uploaded datasets ``?new`` that ``pattern`` finds, oldest first."""
        rows = self.store.public.query(
            f"SELECT ?new ?id ?title ?label ?issued WHERE {{ {pattern} . ?new "
            f"<{DCT}identifier> ?id ; {_p('sha256')} ?sha ; <{DCT}title> ?title "
            f"FILTER NOT EXISTS {{ ?new a {_p('DatasetVersion')} }} "
            f"OPTIONAL {{ ?new <{DCAT}version> ?label }} "
            f"OPTIONAL {{ ?new <{DCT}issued> ?issued }} }}"
        )
        found: dict[str, UploadVersion] = {}
        for r in rows:  # described in several graphs: one each
            label, issued = r["label"], r["issued"]
            found.setdefault(
                r["new"].value,
                UploadVersion(
                    r["id"].value,
                    r["new"].value,
                    r["title"].value,
                    label.value if label is not None else None,
                    issued.value if issued is not None else None,
                ),
            )
        return sorted(found.values(), key=lambda v: (v.issued or "", v.name))

    def newest_upload_versions(self) -> dict[str, str]:
        """Each uploaded dataset that has a newer published version (as :meth:`newer_uploads`
        finds them), by name, with the newest one's name: one query for the lists that mark
        every old version (the run page's and the leaderboards' dataset menus)."""
        prefix = self.uris.dataset("")
        rows = self.store.public.query(
            f"SELECT ?old ?id ?issued WHERE {{ "
            f"?new <{DCAT}previousVersion>+ ?old ; <{DCT}identifier> ?id ; {_p('sha256')} ?sha "
            f"FILTER NOT EXISTS {{ ?new a {_p('DatasetVersion')} }} "
            f'FILTER(STRSTARTS(STR(?old), "{prefix}")) '
            f"OPTIONAL {{ ?new <{DCT}issued> ?issued }} }}"
        )
        newest: dict[str, tuple[str, str]] = {}
        for r in rows:
            old, issued = r["old"].value.removeprefix(prefix), r["issued"]
            found = (issued.value if issued is not None else "", r["id"].value)
            newest[old] = max(newest.get(old, found), found)
        return {old: name for old, (_, name) in newest.items()}

    # -- dataset questions -------------------------------------------------------------------
    def has_questions(self, name: str) -> bool:
        """Whether catalogue dataset ``name``'s questions and findings are stored, checked by
        this release's set of checks: a release that adds a finding kind stores them again at
        the next run on it (not at serve start, which would read every file of the data
        mirror, or download it)."""
        graph, ds = self.uris.dataset_graph(name), self.uris.dataset(name)
        current = literal(check_set())
        return bool(
            self.store.public.query(
                f"ASK {{ GRAPH <{graph}> {{ <{ds}> {_p('checkSet')} {current} }} }}"
            )
        )

    def store_questions(
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
        quads += finding_quads(ds, found, prov.timestamp(now), node(graph))
        with self.store.lock:
            self._replace_public_graph(graph, quads)
        return found

    def store_findings(
        self, name: str, findings: Sequence[Finding], *, now: datetime | None = None
    ) -> None:
        """Store the check findings of a published *uploaded* dataset (public graph
        ``graph/dataset/{name}``, those there before replaced in one transaction; its
        questions are in the graphs of the experiments that used it:
        ``service.experiments.dataset_checks``)."""
        graph, ds = self.uris.dataset_graph(name), self.uris.dataset(name)
        quads = finding_quads(ds, findings, prov.timestamp(now), node(graph))
        # only the findings are replaced: the graph also holds the dataset's date of first
        # issue (``service.graph.uploads``), which a check made again must not take away
        said = (
            f"GRAPH <{graph}> {{ ?s ?p ?o FILTER((?s = <{ds}> && ?p IN ({_p('checkedAt')}, "
            f'{_p("finding")}, {_p("checkSet")})) || STRSTARTS(STR(?s), "{ds}#finding-")) }}'
        )
        body = "\n".join(_lines(quads))
        with self.store.lock:
            self.store.update(
                Side.PUBLIC,
                f"DELETE {{ ?s ?p ?o }} WHERE {{ {said} "
                f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?s ?p ?o }} FILTER(?h != <{graph}>) }} }} ;\n"
                f"DELETE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }} WHERE {{ {said} }} ;\n"
                f"INSERT DATA {{ GRAPH <{graph}> {{\n{body}\n}}\n{body}\n}}",
            )

    def add_public(self, graph: str, quads: Sequence[Quad]) -> None:
        """Add ``quads`` to public named graph ``graph`` and their triples to the default
        graph (the union the endpoint and pages read), in one update."""
        body = "\n".join(_lines(quads))
        with self.store.lock:
            self.store.update(
                Side.PUBLIC, f"INSERT DATA {{ GRAPH <{graph}> {{\n{body}\n}}\n{body}\n}}"
            )

    def drop_findings(self, name: str) -> None:
        """Remove what :meth:`store_findings` stored (its dataset withdrawn), in one update."""
        with self.store.lock:
            self._replace_public_graph(self.uris.dataset_graph(name), [])

    # -- versions ----------------------------------------------------------------------------
    def register_version(
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
        software: Source | None = None,
        file_sha256: str | None = None,
        file_size: int | None = None,
        file_media_type: str = "application/json",
    ) -> DatasetVersion:
        """Register a new version of dataset ``name`` (e.g. a gold refresh on a newer KB).

        It gets ``dataset/{name}/version/{version}`` (``version`` defaults to ``sha256-`` and 12
        hex digits of its questions' content), a public graph of its own with its description,
        provenance, questions and check findings, written in one transaction; an existing version
        is never overwritten (Conflict). ``previous`` is the version label it was derived from
        (default: the newest registered version, else the catalogue's dataset itself). The
        description: ``dcat:previousVersion`` and ``prov:wasDerivedFrom`` the previous version,
        the dataset ``dcat:hasVersion`` it, ``prov:wasGeneratedBy`` a ``gqa:GoldRefresh``
        activity that used the previous version and the KB (``kb``: its identity, an IRI when it
        is one; ``kb_version``), run by this software between ``started`` and ``ended``.
        """
        found = check_dataset(dataset)
        label = version or "sha256-" + dataset_content_hash(dataset)[:12]
        uris = self.uris
        uri = uris.dataset_version(name, label)
        graph_iri = uris.dataset_version_graph(name, label)
        ended = prov.timestamp(ended)
        started = prov.timestamp(started or ended)
        with self.store.lock:
            if self.store.public.contains_named_graph(node(graph_iri)):
                raise Conflict(f"{uri} exists; a dataset version is never overwritten")
            if previous is not None:
                before = uris.dataset_version(name, previous)
                if not self.store.public.contains_named_graph(
                    node(uris.dataset_version_graph(name, previous))
                ):
                    raise NotFound(f"no version {previous!r} of dataset {name!r} to derive from")
            else:
                known = self.versions(name)
                before = known[-1].uri if known else uris.dataset(name)
            g = node(graph_iri)
            v, ds = node(uri), node(uris.dataset(name))
            activity = node(uris.version_activity(name, label))
            kb_node = node(uris.version_kb(name, label))
            source = software or release.source()
            agent = node(uris.software(source.version))
            issued = n.date_time(ended)
            typ = node(RDF + "type")
            count = len(dataset.by_id())
            title, credits, licences = self._derived_credits(uris.dataset(name))
            pairs: list[tuple[object, NamedNode, object]] = [
                (v, typ, _q("DatasetVersion")),
                (v, typ, node(DCAT + "Dataset")),
                (v, typ, node(DATAID + "Dataset")),
                *prov.entity(v, generated_by=activity, derived_from=[node(before)]),
                (v, node(DCT + "identifier"), n.literal(f"{name}/version/{label}")),
                (v, node(DCT + "title"), _version_title(title, name, label)),
                # who made it and under which licence: its dataset's, whose questions it keeps
                # (its BibTeX named them, its RDF nothing: explore38 1)
                *((v, p, o) for p, o in credits),
                *((v, node(DCT + "license"), lic) for lic in licences),
                (v, node(DCT + "description"), _version_description(name, label, count, kb)),
                # the version's file, kept beside the store: experiments run it by name
                *(
                    [(v, _q("sha256"), n.literal(file_sha256, datatype=XSD + "hexBinary"))]
                    if file_sha256
                    else []
                ),
                (v, node(DCAT + "version"), n.literal(label)),
                (v, node(DCT + "isVersionOf"), ds),
                (ds, node(DCAT + "hasVersion"), v),
                (v, node(DCAT + "previousVersion"), node(before)),
                (v, node(DCT + "issued"), issued),
                (v, _q("questionCount"), n.integer(count)),
                *prov.activity(
                    activity,
                    started=started,
                    ended=ended,
                    used=[node(before), kb_node],
                    agent=agent,
                    kinds=[_q("GoldRefresh")],
                    label=f"Gold refresh of {name}",
                    description=summary,
                ),
                *prov.software(agent, source),
                *prov.entity(kb_node),
                *prov.entity(node(before)),  # typed here too: no inference needed to see it
                (kb_node, node(RDFS + "label"), n.literal(kb)),
                (kb_node, node(DCT + "identifier"), n.literal(kb)),
            ]
            if (kb_iri := n.checked_iri(kb)) is not None and kb.startswith(("http://", "https://")):
                pairs.append((v, _q("knowledgeBase"), kb_iri))
                pairs.append((kb_node, prov.DERIVED_FROM, kb_iri))
                pairs.append((kb_iri, typ, prov.ENTITY))
            if kb_version:
                pairs.append((v, _q("knowledgeBaseVersion"), n.literal(kb_version)))
                pairs.append((kb_node, _q("knowledgeBaseVersion"), n.literal(kb_version)))
            pairs += [(v, p, o) for p, o in topic_pairs()]
            pairs += _version_languages(v, dataset)
            if file_sha256 and file_size is not None:  # its file, downloadable (``…/file``)
                text = f"The file of version {label} of {name}, with its refreshed gold answers."
                pairs += dcat.file_distribution(
                    uri, uris.version_download(name, label), file_sha256, file_size,
                    file_media_type, text,
                )  # fmt: skip
                distribution = node(uri + "#distribution")
                pairs += [(distribution, node(DCT + "license"), lic) for lic in licences]
            quads = [Quad(s, p, o, g) for s, p, o in pairs]  # type: ignore[arg-type]
            quads += question_quads(uri, dataset, g)
            quads += finding_quads(uri, found, ended, g)
            add_public(self.store, quads)
        return DatasetVersion(name, label, uri, graph_iri, before, issued.value, count)

    def _derived_credits(
        self, dataset: str
    ) -> tuple[Literal | None, list[tuple[NamedNode, Any]], list[Any]]:
        """What a registered version of ``dataset`` restates of it: its title, its creators
        and publishers (``(predicate, agent)``) and its licences, as the public store
        describes it (the catalogue's graph); nothing for a name the catalogue has not."""
        rows = self.store.public.query(
            f"SELECT ?p ?o WHERE {{ <{dataset}> ?p ?o . "
            f"VALUES ?p {{ <{DCT}title> <{DCT}creator> <{DCT}publisher> <{DCT}license> }} }}"
        )
        title: Literal | None = None
        credits: list[tuple[NamedNode, Any]] = []
        licences: list[Any] = []
        for row in rows:
            predicate, value = row["p"].value, row["o"]
            if predicate == DCT + "title":
                if isinstance(value, Literal) and (title is None or value.language == "en"):
                    title = value
            elif predicate == DCT + "license":
                licences.append(value)
            else:
                credits.append((node(predicate), value))
        key = lambda pair: (pair[0].value, str(pair[1]))  # noqa: E731 (one order, always)
        return title, sorted(credits, key=key), sorted(licences, key=str)

    def version_about(self, name: str, version: str) -> dict[str, tuple[str, ...]]:
        """What a registered version says of itself that a run on its kept file restates of
        the dataset it records (``about`` keys): its licences, its creators' (else its
        publishers') names and ADMS type; the run's dataset was a third name for the same
        file, credited to this service, with no licence (explore38 1). Its version label is
        in the title the run gives it (as the version's own title has it)."""
        v = self.uris.dataset_version(name, version)
        rows = self.store.public.query(
            f"""SELECT ?p ?o ?name ?type WHERE {{
              <{v}> ?p ?o . VALUES ?p {{ <{DCT}license> <{DCT}creator> <{DCT}publisher> }}
              OPTIONAL {{ ?o <http://xmlns.com/foaf/0.1/name> ?name }}
              OPTIONAL {{ ?o <{DCT}type> ?type }} }}"""
        )
        licences: set[str] = set()
        agents: dict[str, dict[str, tuple[str, str]]] = {"creator": {}, "publisher": {}}
        for row in rows:
            predicate, value = row["p"].value, row["o"].value
            if predicate == DCT + "license":
                licences.add(value)
            elif row["name"] is not None:
                typ = row["type"].value if row["type"] is not None else ""
                agents[predicate[len(DCT) :]][value] = (row["name"].value, typ)
        about: dict[str, tuple[str, ...]] = {}
        if licences:
            about["license"] = tuple(sorted(licences))
        credited = agents["creator"] or agents["publisher"]
        if credited:
            about["creators"] = tuple(sorted(name for name, _ in credited.values()))
            types = {t[len(dcat.PUBLISHER_TYPES) :] for _, t in credited.values() if t}
            if len(types) == 1 and (code := types.pop()) in dcat.ADMS_PUBLISHER_TYPES:
                about["creatorType"] = (code,)
        return about

    def version_kb(self, name: str, version: str) -> str | None:
        """The KB a registered version's gold was refreshed on, as the refresh named it
        (``file:sha256:H (version)`` or an endpoint URL)."""
        kb = self.uris.version_kb(name, version)
        rows = self.store.public.query(f"SELECT ?id WHERE {{ <{kb}> <{DCT}identifier> ?id }}")
        return next((row["id"].value for row in rows), None)

    def version_file(self, name: str, version: str) -> str | None:
        """The SHA-256 of a registered version's file (kept beside the store), if it has one."""
        v = self.uris.dataset_version(name, version)
        rows = self.store.public.query(f"SELECT ?s WHERE {{ <{v}> {_p('sha256')} ?s }}")
        return next((row["s"].value for row in rows), None)

    def versions(self, name: str) -> list[DatasetVersion]:
        """The registered versions of dataset ``name``, oldest first."""
        ds = self.uris.dataset(name)
        rows = self.store.public.query(
            f"""SELECT ?v ?label ?prev ?issued ?count WHERE {{
              <{ds}> <{DCAT}hasVersion> ?v . ?v a {_p("DatasetVersion")} .
              ?v <{DCAT}version> ?label ; <{DCAT}previousVersion> ?prev ;
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


def _version_title(title: Literal | None, name: str, label: str) -> Literal:
    """A registered version's ``dct:title``: its dataset's (the title its BibTeX cites), with
    the version; a name the catalogue has not: the name."""
    if title is None:
        return n.literal(f"{name}, version {label}")
    return Literal(f"{title.value}, version {label}", language=title.language)
