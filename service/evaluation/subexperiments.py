"""Sub-experiment markings: what a gold or system query (or eQALD annotation) says a question
needs, per GERBIL QA's experiment types (C2KB, P2KB, RE2KB, AT, AIT2KB).

From a parsed SPARQL query (every triple pattern of the body, at any depth):

* **C2KB** resources: IRIs in subject position, and in object position unless the predicate is
  ``rdf:type``; plus the IRIs of ``VALUES`` blocks, and with ``classes`` (our profiles since
  fair/exact 1.2.0, text2sparql 1.3.0) the classes of what is not a projected variable (another
  variable, or a resource: ``ASK { :Pluto a :Planet }``), which AIT2KB
  does not read (``?y a dbo:City`` where ?y is no answer was scored nowhere but RE2KB).
  Under ``gerbil`` (GERBIL QA's ``QAUtils``, where properties and answer item types are
  annotations too) C2KB also holds every P2KB property and AIT2KB type, and ``VALUES`` IRIs
  are not read (GERBIL only walks triples).
* **P2KB** properties: predicate IRIs other than ``rdf:type`` (every IRI of a property path).
* **RE2KB** relations: every triple pattern as (subject, predicate, object) where any variable
  or blank node matches any other (names ignored, positions kept), IRIs are compared as IRIs,
  literals by value (numbers numerically, booleans, otherwise the lexical form without
  language; the fair profile also case- and space-folds strings) and a property path by its text.
* **AIT2KB** answer item types: objects of ``rdf:type`` patterns whose subject is a projected
  variable (``SELECT *`` projects every variable; ``ASK`` none).

From eQALD: ``ENTITY`` annotations (or untyped ones) are C2KB, ``PROPERTY`` P2KB, ``CLASS``
AIT2KB; ``answeritemtype`` is AIT2KB. Annotation and query markings are united. Prefixed names
in annotations (``dbo:Person``) are expanded for the usual prefixes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from service.evaluation.values import is_numeric_type, number_value, string_key
from service.model import RDF_TYPE, XSD_BOOLEAN, Annotation

if TYPE_CHECKING:
    from service.sparql import ParsedQuery

PosKey = tuple[str, ...]
RelationKey = tuple[PosKey, PosKey, PosKey]
_VAR: PosKey = ("var",)

PREFIXES = {
    "dbo": "http://dbpedia.org/ontology/",
    "dbr": "http://dbpedia.org/resource/",
    "res": "http://dbpedia.org/resource/",
    "dbp": "http://dbpedia.org/property/",
    "dbc": "http://dbpedia.org/resource/Category:",
    "yago": "http://dbpedia.org/class/yago/",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "dct": "http://purl.org/dc/terms/",
    "schema": "http://schema.org/",
    "wd": "http://www.wikidata.org/entity/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "p": "http://www.wikidata.org/prop/",
    "ps": "http://www.wikidata.org/prop/statement/",
    "pq": "http://www.wikidata.org/prop/qualifier/",
}


def expand(name: str) -> str:
    """``dbo:Person`` -> the full IRI for the usual prefixes; ``<…>`` stripped; else as given."""
    text = name.strip()
    if text.startswith("<") and text.endswith(">"):
        return text[1:-1].strip()
    prefix, sep, local = text.partition(":")
    if sep and prefix in PREFIXES and not local.startswith("//"):
        return PREFIXES[prefix] + local
    return text


class Markings(NamedTuple):
    """Everything one side says about one question, each in first-seen order, no repeats."""

    resources: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    relations: tuple[RelationKey, ...] = ()
    item_types: tuple[str, ...] = ()

    def union(self, other: Markings) -> Markings:
        return Markings(
            _merge(self.resources, other.resources),
            _merge(self.properties, other.properties),
            _merge(self.relations, other.relations),
            _merge(self.item_types, other.item_types),
        )


def _merge(a: tuple[Any, ...], b: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys((*a, *b)))


def _kind(node: Any) -> str:
    return getattr(node, "kind", "path")


def _literal_key(node: Any, *, fold: bool) -> PosKey:
    """A literal by value (GERBIL: ``getLiteralValue().toString()``)."""
    value = str(node.value)
    datatype = getattr(node, "datatype", None)
    if datatype == XSD_BOOLEAN and value.strip().lower() in ("true", "false", "1", "0"):
        return ("lit", "bool", str(value.strip().lower() in ("true", "1")))
    if is_numeric_type(datatype):
        n = number_value(value)
        if n is not None:
            return ("lit", "num", str(n))
    return ("lit", "str", string_key(value) if fold else value)


def _position_key(node: Any, *, fold: bool) -> PosKey:
    kind = _kind(node)
    if kind in ("var", "bnode"):
        return _VAR
    if kind == "iri":
        return ("iri", str(node.value))
    if kind == "literal":
        return _literal_key(node, fold=fold)
    return ("path", str(getattr(node, "text", node)))


def from_query(
    query: ParsedQuery, *, gerbil: bool, fold_literals: bool = False, classes: bool = False
) -> Markings:
    """The markings a parsed query gives (see the module docstring for every rule)."""
    projected: set[str] | None
    if getattr(query, "select_star", False):
        projected = None  # every variable
    else:
        projected = set(getattr(query, "projection", ()) or ())
    form = str(getattr(query, "form", "")).upper()
    if form == "ASK":
        projected = set()
    resources: dict[str, None] = {}
    properties: dict[str, None] = {}
    relations: dict[RelationKey, None] = {}
    types: dict[str, None] = {}
    for pattern in query.patterns:
        # A node or a property path: _kind tells which, the type checker cannot.
        s: Any = pattern.subject
        p: Any = pattern.predicate
        o: Any = pattern.object
        if _kind(s) == "iri":
            resources[str(s.value)] = None
        is_type = _kind(p) == "iri" and str(p.value) == RDF_TYPE
        if is_type:
            projected_subject = _kind(s) == "var" and (projected is None or s.value in projected)
            if projected_subject and _kind(o) == "iri":
                types[str(o.value)] = None
            elif classes and _kind(o) == "iri":  # a class AIT2KB does not read
                resources[str(o.value)] = None
        else:
            if _kind(p) == "iri":
                properties[str(p.value)] = None
            elif _kind(p) == "path":
                for iri in getattr(p, "iris", ()):
                    if iri != RDF_TYPE:
                        properties[str(iri)] = None
            if _kind(o) == "iri":
                resources[str(o.value)] = None
        key = (
            _position_key(s, fold=fold_literals),
            _position_key(p, fold=fold_literals),
            _position_key(o, fold=fold_literals),
        )
        relations[key] = None
    if gerbil:
        for iri in (*properties, *types):
            resources.setdefault(iri, None)
    else:
        for term in getattr(query, "values", ()) or ():
            if _kind(term) == "iri":
                resources.setdefault(str(term.value), None)
    return Markings(tuple(resources), tuple(properties), tuple(relations), tuple(types))


def from_annotations(
    annotations: Iterable[Annotation], answer_item_types: Iterable[str] = ()
) -> Markings:
    """The markings of eQALD annotations (ENTITY/PROPERTY/CLASS) and answer item types."""
    resources: dict[str, None] = {}
    properties: dict[str, None] = {}
    types: dict[str, None] = {}
    for a in annotations:
        kind = (a.kind or "ENTITY").strip().upper()
        target = properties if kind == "PROPERTY" else types if kind == "CLASS" else resources
        target[expand(a.iri)] = None
    for t in answer_item_types:
        if t.strip():
            types[expand(t)] = None
    return Markings(tuple(resources), tuple(properties), (), tuple(types))
