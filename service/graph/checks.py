"""Checks over what the store serves: the Data Cube integrity constraints and our SHACL shapes.

The IC queries are the Recommendation's own (``datacube/ic/`` of the shared standards folder,
setting ``GERBIL_QA_STANDARDS``): the cube is loaded with our vocabulary into the default graph
of a scratch store, normalised with the Recommendation's two update scripts, and every ASK must
be false. IC-17 uses the portable variant (the published text's HAVING over a SELECT alias never
fires under SPARQL 1.1 algebra), IC-20/21 are instantiated from their templates, and the
approximate IC-0 (ill-typed literals) runs too.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.errors import ServiceError
from service.graph.legacy import ADVICE, is_legacy_graph
from service.graph.workspace import is_work_graph
from service.paths import PROJECT_ROOT, SHAPES_DIR

if TYPE_CHECKING:
    from service.graph.store import Storage


@dataclass(frozen=True, slots=True)
class Violation:
    """One failed check: which check, on what (a graph or file), and what it says."""

    check: str
    target: str
    message: str

    def __str__(self) -> str:
        return f"{self.target}: {self.check}: {self.message}"


@dataclass(frozen=True, slots=True)
class IntegrityConstraint:
    name: str  # "ic-01", "ic-19a", "ic-20" …
    title: str
    query: str | None = None  # an ASK query (None for templates)
    instantiation: str | None = None  # IC-20/21: SELECT ?p whose bindings fill the template
    template: str | None = None


def standards_dir() -> Path:
    """The shared standards folder (``GERBIL_QA_STANDARDS``, else ``../shared/standards``)."""
    value = os.environ.get("GERBIL_QA_STANDARDS")
    if value:
        return Path(value)
    shared = os.environ.get("GERBIL_QA_SHARED")
    return Path(shared) / "standards" if shared else PROJECT_ROOT.parent / "shared" / "standards"


def _datacube_dir(standards: Path | None) -> Path:
    folder = (standards or standards_dir()) / "datacube"
    if not (folder / "ic").is_dir():
        raise ServiceError(
            f"Data Cube IC queries not found in {folder}/ic; set GERBIL_QA_STANDARDS to the "
            "standards folder"
        )
    return folder


def _title(text: str) -> str:
    first = text.splitlines()[0]
    return first.lstrip("# ").split(". ", 1)[-1].strip()


@lru_cache(maxsize=4)
def integrity_constraints(standards: Path | None = None) -> tuple[IntegrityConstraint, ...]:
    """IC-1 … IC-21 (IC-17 portable, IC-20/21 as instantiation + template) and IC-0 (approx.)."""
    ic = _datacube_dir(standards) / "ic"
    out: list[IntegrityConstraint] = []
    approx = ic / "portable" / "ic-00-datatype-consistency.approx.rq"
    if approx.is_file():
        out.append(IntegrityConstraint("ic-00", "Datatype consistency", approx.read_text()))
    for path in sorted(ic.glob("ic-*.rq")):
        stem = path.name.removesuffix(".rq")
        name = stem.split("-", 2)[0] + "-" + stem.split("-", 2)[1]
        text = path.read_text()
        if stem.endswith(".template"):
            continue
        if stem.endswith(".instantiation"):
            template = path.with_name(path.name.replace(".instantiation.", ".template."))
            out.append(
                IntegrityConstraint(
                    name, _title(text), instantiation=text, template=template.read_text()
                )
            )
            continue
        if name == "ic-17":
            portable = next((ic / "portable").glob("ic-17-*.portable.rq"), None)
            if portable is not None:
                text = portable.read_text()
        out.append(IntegrityConstraint(name, _title(text), text))
    return tuple(out)


@lru_cache(maxsize=4)
def _normalisation(standards: Path | None) -> tuple[str, str]:
    folder = _datacube_dir(standards)
    return (
        (folder / "normalize-phase-1.ru").read_text(),
        (folder / "normalize-phase-2.ru").read_text(),
    )


def normalised_store(triples: Iterable, *, standards: Path | None = None):  # -> pyoxigraph.Store
    """A scratch store with ``triples`` (Triples or Quads) in its default graph, normalised."""
    import pyoxigraph

    store = pyoxigraph.Store()
    default = pyoxigraph.DefaultGraph()
    store.extend(pyoxigraph.Quad(t.subject, t.predicate, t.object, default) for t in triples)
    phase1, phase2 = _normalisation(standards)
    store.update(phase1)
    store.update(phase2)
    return store


def run_constraint(store, ic: IntegrityConstraint, *, exact: bool = False) -> bool:
    """True when the normalised ``store`` violates ``ic``. IC-12 is evaluated by grouping
    (:func:`ic12_violated`) unless ``exact`` asks for the published query."""
    if ic.name == "ic-12" and not exact and ic.query is not None:
        return ic12_violated(store, ic.query)
    if ic.query is not None:
        return bool(store.query(ic.query))
    assert ic.instantiation is not None and ic.template is not None  # built above
    for row in store.query(ic.instantiation):
        if bool(store.query(ic.template.replace("$p", row["p"].value))):
            return True
    return False


_IC12_OBSERVATIONS = """PREFIX qb: <http://purl.org/linked-data/cube#>
SELECT ?dataset ?obs ?dim ?value WHERE {
  ?obs qb:dataSet ?dataset .
  ?dataset qb:structure/qb:component/qb:componentProperty ?dim .
  ?dim a qb:DimensionProperty .
  OPTIONAL { ?obs ?dim ?value }
}"""


def ic12_violated(store, published: str) -> bool:
    """IC-12 (no duplicate observations) in linear time, with the published query's verdict.

    The published query compares every pair of observations of a data set (quadratic: 12 s on
    one QALD-8 experiment's six question data sets). When every observation has exactly one
    value per dimension and each value is an IRI or a blank node (what our writers make), "all
    dimension values equal" is equality of the observations' value tuples, so duplicates are
    found by hashing (:func:`ic12_by_grouping`). Anything else (a missing or repeated dimension
    value, a literal value, where SPARQL's ``=`` compares values and the query skips missing
    dimensions) runs the ``published`` query itself. ``tests/integration/test_datacube.py``
    checks both give the same verdicts on the spec editor's fixtures and on real and broken
    experiments.
    """
    verdict = ic12_by_grouping(store)
    return bool(store.query(published)) if verdict is None else verdict


def ic12_by_grouping(store) -> bool | None:
    """IC-12 by hashing the observations' dimension values; None outside the simple case."""
    import pyoxigraph

    dims: dict[object, set] = {}
    values: dict[tuple[object, object], dict[object, list]] = {}
    for row in store.query(_IC12_OBSERVATIONS):
        dataset, obs, dim, value = row["dataset"], row["obs"], row["dim"], row["value"]
        dims.setdefault(dataset, set()).add(dim)
        per_dim = values.setdefault((dataset, obs), {}).setdefault(dim, [])
        if value is not None and value not in per_dim:
            per_dim.append(value)
    keys: list[tuple] = []
    for (dataset, _obs), per_obs in values.items():
        key = [dataset]
        for dim in sorted(dims[dataset], key=str):
            found = per_obs.get(dim, [])
            if len(found) != 1 or isinstance(found[0], pyoxigraph.Literal):
                return None
            key.append(found[0])
        keys.append(tuple(key))
    return len(set(keys)) < len(keys)


def datacube_violations(
    triples: Iterable,
    *,
    target: str = "<data>",
    with_vocabulary: bool = True,
    standards: Path | None = None,
    only: Sequence[str] | None = None,
) -> list[Violation]:
    """Run every integrity constraint over ``triples`` (plus our vocabulary: code lists, DSD
    components, measure ranges). Returns one Violation per violated constraint."""
    from service.graph.vocabulary import vocabulary_triples

    data = list(triples)
    if with_vocabulary:
        data += list(vocabulary_triples())
    store = normalised_store(data, standards=standards)
    found = []
    for ic in integrity_constraints(standards):
        if only is not None and ic.name not in only:
            continue
        if run_constraint(store, ic):
            found.append(Violation(ic.name.upper(), target, ic.title))
    return found


@lru_cache(maxsize=1)
def _shapes_graph():
    import rdflib

    g = rdflib.Graph()
    for path in sorted(SHAPES_DIR.glob("*.ttl")):
        g.parse(path, format="turtle")
    return g


class _NoConversionWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to convert Literal lexical form")


@contextmanager
def _quiet_unconvertible_literals() -> Iterator[None]:
    """rdflib logs a traceback for every literal Python cannot hold (a dateTime before year 1:
    valid XSD 1.1, real in QALD-10's gold); it keeps the literal as written, which is what the
    shapes check, so the 49 lines ``check`` printed for QALD-10 said nothing wrong."""
    logger, quiet = logging.getLogger("rdflib.term"), _NoConversionWarnings()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def shacl_violations(
    triples: Iterable, *, target: str = "<data>", with_vocabulary: bool = True
) -> list[Violation]:
    """Validate ``triples`` against ``shapes/`` with pyshacl (no inference: we check what is
    written, types included). The vocabulary is added so code-list members have their types."""
    import itertools

    import pyshacl
    import rdflib

    from service.graph.vocabulary import vocabulary_triples

    items = itertools.chain(triples, vocabulary_triples() if with_vocabulary else ())
    with _quiet_unconvertible_literals():
        data = _rdflib_graph(items)
        conforms, report, _ = pyshacl.validate(
            data, shacl_graph=_shapes_graph(), inference="none", advanced=False
        )
    if conforms:
        return []
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    out = []
    for result in report.subjects(rdflib.RDF.type, sh.ValidationResult):
        focus = report.value(result, sh.focusNode)
        path = report.value(result, sh.resultPath)
        message = report.value(result, sh.resultMessage)
        where = f"{focus}" + (f" {path}" if path is not None else "")
        out.append(Violation("SHACL", target, f"{where}: {message}"))
    return sorted(out, key=str)


def _rdflib_graph(triples: Iterable) -> Any:
    """An rdflib graph of Oxigraph triples or quads (their graph dropped), term by term: a
    third of the time of writing them as N-Triples for rdflib's parser (measured on an
    experiment graph: 180 → 70 ms), the same graph (as the parser reads it, ``xsd:string``
    literals have no datatype)."""
    import pyoxigraph
    import rdflib

    iris: dict[str, rdflib.URIRef] = {}

    def term(t: Any) -> Any:
        if isinstance(t, pyoxigraph.NamedNode):
            iri = iris.get(t.value)
            if iri is None:
                iri = iris[t.value] = rdflib.URIRef(t.value)
            return iri
        if isinstance(t, pyoxigraph.BlankNode):
            return rdflib.BNode(t.value)
        if t.language is not None:
            return rdflib.Literal(t.value, lang=t.language)
        datatype = t.datatype.value
        return rdflib.Literal(
            t.value, datatype=None if datatype == _XSD_STRING else term(t.datatype)
        )

    graph = rdflib.Graph()
    graph.addN((term(t.subject), term(t.predicate), term(t.object), graph) for t in triples)
    return graph


_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def term_violations(quads: Iterable, *, target: str = "<data>") -> list[Violation]:
    """Every term of ``quads`` a strict RDF parser would refuse or a datatype does not allow
    (an invalid IRI or language tag, ``rdf:langString`` without a language, an ill-typed
    literal: Data Cube IC-0, "datatype consistency"), each with its subject and predicate.
    Oxigraph keeps such literals as given (it normalises only well-typed ones), so they are
    found by :func:`service.valid_terms.valid_term`, the rule the writers apply."""
    import pyoxigraph

    from service.model import Term, TermKind
    from service.valid_terms import is_valid_iri, valid_term

    found: list[Violation] = []
    for quad in quads:
        where = f"{_spelled(quad.subject)} <{quad.predicate.value}>"
        for position in (quad.subject, quad.predicate, quad.object):
            if isinstance(position, pyoxigraph.NamedNode) and not is_valid_iri(position.value):
                found.append(Violation("IRI", target, f"{where}: <{position.value}> is not valid"))
        obj = quad.object
        if isinstance(obj, pyoxigraph.Literal):
            datatype = obj.datatype.value if obj.language is None else None
            term = Term(obj.value, TermKind.LITERAL, datatype, obj.language)
            stored = valid_term(term)
            if stored.changed:
                found.append(Violation("IC-0", target, f"{where}: {stored.problem}"))
    return found


def _spelled(term: object) -> str:
    import pyoxigraph

    if isinstance(term, pyoxigraph.NamedNode):
        return f"<{term.value}>"
    return str(term)


def check_store(
    storage: Storage,
    *,
    standards: Path | None = None,
    shapes: bool = True,
    progress: Callable[[int, int, int], None] | None = None,
) -> list[Violation]:
    """Every check over a store, read from one consistent snapshot: the ICs per experiment
    graph (public and private), valid terms in every graph, the shapes over every graph but
    the admin graph. ``progress`` is told after each graph: graphs checked, of how many, and
    the violations found so far."""
    import pyoxigraph

    found: list[Violation] = []
    uris = storage.uris
    exp_prefix = uris.base + "graph/experiment/"
    with storage.store.snapshot() as (public, private):
        graphs: list[tuple[Any, str]] = [
            (s, g.value)
            for s in (public, private)
            for g in s.named_graphs()
            if not is_work_graph(g.value)  # a remote store's job state: not data
        ]
        for done, (source, graph) in enumerate(sorted(graphs, key=lambda x: x[1]), 1):
            quads = list(source.quads_for_pattern(None, None, None, pyoxigraph.NamedNode(graph)))
            found += term_violations(quads, target=graph)
            if graph != uris.admin_graph and graph != uris.vocab_graph:
                if graph.startswith(exp_prefix):
                    if is_legacy_graph(quads):  # what its many violations below come from
                        found.append(Violation("upgrade", graph, ADVICE))
                    found += datacube_violations(quads, target=graph, standards=standards)
                if shapes:
                    found += shacl_violations(quads, target=graph)
            if progress is not None:
                progress(done, len(graphs), len(found))
        found += interrupted_imports(private)
        found += missing_graphs(
            storage, {g for s, g in graphs if s is public}, {g for _, g in graphs}
        )
    return found


def missing_graphs(storage: Storage, public: set[str], every: set[str]) -> list[Violation]:
    """Finished experiments whose graph is gone: a published one's from the public dataset
    (``public``: its graph names), an unpublished one's from both (``every``). An empty
    server behind ``--store``, a wrong ``--location`` or a failed restore left the records
    saying "finished, public" over no results, and every other check passed."""
    from service.graph.experiments import Status

    found = []
    for status in storage.experiments.listing(include_private=True):
        if status.status is not Status.FINISHED:
            continue
        graph = storage.uris.experiment_graph(status.id)
        if graph not in (public if status.public else every):
            where = "the public dataset" if status.public else "the store"
            found.append(
                Violation(
                    "missing",
                    status.uri,
                    f"its record says finished{' and published' if status.public else ''}, but "
                    f"{where} holds no graph {graph}: its results are lost (an empty or another "
                    "store behind this URL or --location? a failed restore?); restore it from a "
                    "backup (gerbil-qa import)",
                )
            )
    return found


def interrupted_imports(private: Any) -> list[Violation]:
    """An import killed between its writes: its note is still in the private dataset, and the
    experiments the dump has published may still be private (the endpoint without them)."""
    import pyoxigraph

    from service.graph.dumps import IMPORTING, STORE_MARKER

    notes = private.quads_for_pattern(
        pyoxigraph.NamedNode(STORE_MARKER),
        pyoxigraph.NamedNode(IMPORTING),
        None,
        pyoxigraph.DefaultGraph(),
    )
    return [
        Violation(
            "import",
            str(getattr(q.object, "value", q.object)),
            "an import of this dump did not finish (killed?): the experiments it publishes may "
            "still be private; run the same `gerbil-qa import` again, which completes it",
        )
        for q in notes
    ]
