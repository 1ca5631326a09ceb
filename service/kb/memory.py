"""A knowledge base held in plain dictionaries, loaded from one RDF file (``--kb FILE``).

Made for evaluation from the command line and for tests: the whole file is read once, and every
lookup is a dictionary access, so one batched call costs one "round trip" whatever its size.

* owl:sameAs is closed symmetrically and transitively at load time (union-find over the IRIs
  that take part in an owl:sameAs triple); the closure of an IRI holds the IRI itself.
* rdfs:label is indexed both ways. A lookup with a language tag matches that exact tag (case
  insensitive, as ``"x"@en`` in SPARQL); without one it matches the lexical form in any language.
  ``labels_for_resources(language=…)`` keeps labels whose tag matches as SPARQL ``langMatches``.
* rdf:type objects (IRIs) per subject.
* ``select`` runs SPARQL on an in-memory Oxigraph store holding the same triples (the default
  graph is the union of all graphs, as in :mod:`service.kb.local`).

The same semantics as the SPARQL KBs of :mod:`service.kb.batched`, without the queries.
pyoxigraph is imported when a file is loaded, never at module import.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.errors import BadRequest, FormatError, Problem
from service.kb import LabelKey
from service.mediatypes import rdf_by_extension
from service.model import OWL_SAMEAS, RDF_TYPE, RDFS_LABEL, AnswerSet, Term

if TYPE_CHECKING:
    import pyoxigraph

_EXTRA_EXTENSIONS = {"owl": "rdf", "xml": "rdf", "n3": "ttl"}
_EMPTY: frozenset[str] = frozenset()


def _lang_matches(tag: str, wanted: str) -> bool:
    """SPARQL ``langMatches`` (RFC 4647 basic filtering) for a non-empty range."""
    tag, wanted = tag.lower(), wanted.lower()
    if wanted == "*":
        return bool(tag)
    return tag == wanted or tag.startswith(wanted + "-")


class MemoryKB:
    """The KB protocol over dictionaries built from one RDF file (see the module docstring)."""

    def __init__(self, store: pyoxigraph.Store, *, identity: str, version: str | None = None):
        import pyoxigraph

        self.store = store
        self._identity = identity
        self._version = version
        self._round_trips = 0
        parent: dict[str, str] = {}
        self._labels: dict[str, set[tuple[str, str | None]]] = {}
        self._by_label: dict[tuple[str, str | None], set[str]] = {}  # (text, lang or None)
        self._by_text: dict[str, set[str]] = {}
        self._types: dict[str, set[str]] = {}

        def find(x: str) -> str:
            root = x
            while parent.get(root, root) != root:
                root = parent[root]
            while parent.get(x, x) != root:  # path compression
                parent[x], x = root, parent[x]
            return root

        for quad in store:
            s, p, o = quad.subject, quad.predicate.value, quad.object
            if not isinstance(s, pyoxigraph.NamedNode):
                continue
            if p == OWL_SAMEAS and isinstance(o, pyoxigraph.NamedNode):
                a, b = find(s.value), find(o.value)
                parent.setdefault(a, a)
                parent.setdefault(b, b)
                if a != b:
                    parent[a] = b
            elif p == RDFS_LABEL and isinstance(o, pyoxigraph.Literal):
                lang = o.language.lower() if o.language else None
                self._labels.setdefault(s.value, set()).add((o.value, lang))
                self._by_label.setdefault((o.value, lang), set()).add(s.value)
                self._by_text.setdefault(o.value, set()).add(s.value)
            elif p == RDF_TYPE and isinstance(o, pyoxigraph.NamedNode):
                self._types.setdefault(s.value, set()).add(o.value)
        groups: dict[str, set[str]] = {}
        for iri in parent:
            groups.setdefault(find(iri), set()).add(iri)
        self._same: dict[str, frozenset[str]] = {}
        for members in groups.values():
            frozen = frozenset(members)
            for iri in members:
                self._same[iri] = frozen

    @classmethod
    def from_file(cls, path: str | Path, *, version: str | None = None) -> MemoryKB:
        """Load any RDF syntax pyoxigraph parses (by extension; ``.gz`` allowed).

        The identity is ``file:sha256:<hex>`` of the file's bytes. Raises ``FormatError`` naming
        the file and position for invalid RDF.
        """
        import pyoxigraph

        from service.kb.local import files_identity

        file = Path(path)
        if not file.is_file():
            raise FormatError(Problem("KB file not found", file=str(file)))
        name = file.name.lower().removesuffix(".gz")
        ext = name.rsplit(".", 1)[-1] if "." in name else ""
        syntax = rdf_by_extension(_EXTRA_EXTENSIONS.get(ext, ext))
        if syntax is None:
            raise FormatError(
                Problem(
                    f"cannot tell the RDF syntax of {file.name!r} from its extension",
                    file=str(file),
                    expected="one of .ttl .nt .nq .trig .rdf .owl .jsonld (optionally .gz)",
                )
            )
        data = file.read_bytes()
        if file.name.lower().endswith(".gz"):
            data = gzip.decompress(data)
        store = pyoxigraph.Store()
        try:
            store.bulk_extend(
                pyoxigraph.parse(data, syntax.oxigraph_format(), base_iri=file.resolve().as_uri())
            )
        except SyntaxError as err:
            raise FormatError(
                Problem(
                    f"not valid RDF: {err.msg}", file=str(file), line=err.lineno, column=err.offset
                )
            ) from err
        return cls(store, identity=files_identity([file]), version=version)

    # -- the KB protocol ---------------------------------------------------------------------

    @property
    def identity(self) -> str:
        return self._identity

    @property
    def version(self) -> str | None:
        return self._version

    @property
    def round_trips(self) -> int:
        return self._round_trips

    def same_as(self, iris: Iterable[str]) -> Mapping[str, frozenset[str]]:
        self._round_trips += 1
        return {iri: self._same.get(iri, _EMPTY) | {iri} for iri in iris}

    def resources_for_labels(self, labels: Iterable[LabelKey]) -> Mapping[LabelKey, frozenset[str]]:
        self._round_trips += 1
        out: dict[LabelKey, frozenset[str]] = {}
        for text, lang in labels:
            if lang is None:
                out[(text, lang)] = frozenset(self._by_text.get(text, ()))
            else:
                out[(text, lang)] = frozenset(self._by_label.get((text, lang.lower()), ()))
        return out

    def labels_for_resources(
        self, iris: Iterable[str], *, language: str | None = None
    ) -> Mapping[str, frozenset[str]]:
        self._round_trips += 1
        out: dict[str, frozenset[str]] = {}
        for iri in iris:
            labels = self._labels.get(iri, ())
            out[iri] = frozenset(
                text
                for text, tag in labels
                if language is None or (tag is not None and _lang_matches(tag, language))
            )
        return out

    def types_of(self, iris: Iterable[str]) -> Mapping[str, frozenset[str]]:
        self._round_trips += 1
        return {iri: frozenset(self._types.get(iri, ())) for iri in iris}

    def select(self, sparql: str) -> AnswerSet:
        import pyoxigraph

        from service.kb.local import term_from_oxigraph

        self._round_trips += 1
        try:
            result: Any = self.store.query(sparql, use_default_graph_as_union=True)
        except SyntaxError as err:
            raise BadRequest(f"SPARQL syntax error: {err}") from err
        if isinstance(result, pyoxigraph.QueryBoolean):
            return AnswerSet(boolean=bool(result))
        if not isinstance(result, pyoxigraph.QuerySolutions):
            raise BadRequest("only SELECT and ASK queries can be run against a KB")
        names = tuple(v.value for v in result.variables)
        rows: list[dict[str, Term]] = []
        for solution in result:
            row: dict[str, Term] = {}
            for name in names:
                term = solution[name]
                if term is not None:
                    row[name] = term_from_oxigraph(term)
            rows.append(row)
        return AnswerSet(vars=names, rows=tuple(rows))
