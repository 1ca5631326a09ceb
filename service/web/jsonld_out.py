"""JSON-LD written in one pass over the triples, compacted with the published context.

pyld's ``from_rdf`` + ``compact`` took 6–10 s for a 219-question task and 87 s for a whole
experiment graph (it expands, sorts and compacts every value through generic algorithms, in
pure Python, holding the GIL). Our context (``context.json``) holds prefixes only, so the
compacted form is simple enough to write directly, in time linear in the number of triples:

- one node object per subject (IRI or blank node), in order of ``@id``, its properties in
  order of their IRI, ``@type`` for ``rdf:type`` IRIs and blank nodes, each value once, arrays
  only for several values (pyld's ``compactArrays``); a single node is the document itself,
  several go in ``@graph``;
- IRIs (``@id``, ``@type``, keys, datatypes) as compact IRIs ``prefix:suffix`` with the
  shortest (then least) candidate among the context's prefixes, never a suffix starting with
  ``//`` (which would read as an absolute IRI); a namespace IRI itself stays whole, except as
  a key or type, where the prefix term stands for it;
- literals: ``xsd:string`` as a JSON string, a language-tagged one as ``{"@value",
  "@language"}``, any other as ``{"@value", "@type"}`` (no native numbers or booleans, so
  values keep their lexical forms, as pyld's defaults do);
- an IRI such as ``owl:sameAs`` written as a whole IRI (a system's answer can be anything)
  would be read back as a compact IRI under our context: the prefixes those IRIs' schemes
  name are switched off in a second, embedded context (``[url, {"owl": null}]``), and IRIs
  in their namespaces are then written whole. pyld refuses such documents altogether.

The result is the document pyld writes (``tests/web/test_jsonld.py`` compares them), expands
to the same RDF (rdflib, pyld) and costs about what Turtle costs (``bench/http.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
SMALL_NODE = 200  # properties of a lone node still written indented (json's slower encoder)
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):(?!//)")


class _Compactor:
    """IRI compaction against a context of prefixes, with the results of one document cached."""

    def __init__(self, prefixes: Mapping[str, str]) -> None:
        self.prefixes = dict(prefixes)
        self.namespaces = {ns: name for name, ns in self.prefixes.items()}
        self.ids: dict[str, str] = {}
        self.vocab: dict[str, str] = {}

    def disable(self, names: Iterable[str]) -> None:
        for name in names:
            ns = self.prefixes.pop(name, None)
            if ns is not None:
                self.namespaces.pop(ns, None)
        self.ids.clear()
        self.vocab.clear()

    def iri(self, value: str) -> str:
        """An ``@id`` value (the namespace IRI itself is not shortened there)."""
        found = self.ids.get(value)
        if found is None:
            found = self.ids[value] = self._compact(value)
        return found

    def term(self, value: str) -> str:
        """A key, an ``@type`` or a datatype (a prefix term stands for its namespace)."""
        found = self.vocab.get(value)
        if found is None:
            found = self.namespaces.get(value) or self._compact(value)
            self.vocab[value] = found
        return found

    def _compact(self, value: str) -> str:
        best: str | None = None
        for name, ns in self.prefixes.items():
            if len(value) > len(ns) and value.startswith(ns):
                suffix = value[len(ns) :]
                if suffix.startswith("//"):
                    continue
                candidate = f"{name}:{suffix}"
                if best is None or (len(candidate), candidate) < (len(best), best):
                    best = candidate
        return best or value


def confusable_prefixes(iris: Iterable[str], prefixes: Mapping[str, str]) -> set[str]:
    """The prefixes of ``prefixes`` that some IRI of ``iris`` would be mistaken for: its
    scheme is the prefix and no ``//`` follows (``owl:sameAs`` as an IRI of its own)."""
    found = set()
    for value in iris:
        m = _SCHEME.match(value)
        if m and m.group(1) in prefixes:
            found.add(m.group(1))
    return found


def write_jsonld(triples: Iterable[Any], *, context_url: str, prefixes: Mapping[str, str]) -> bytes:
    """Compacted JSON-LD of pyoxigraph ``Triple``s (or ``Quad``s: graph names are dropped)."""
    import pyoxigraph as ox

    named, literal = ox.NamedNode, ox.Literal
    # subject key -> predicate IRI -> {value key: (kind, value, extra)}, each value once
    nodes: dict[str, dict[str, dict[tuple, tuple]]] = {}
    for t in triples:
        s = t.subject
        skey = s.value if type(s) is named else "_:" + s.value
        props = nodes.get(skey)
        if props is None:
            props = nodes[skey] = {}
        p = t.predicate.value
        o = t.object
        kind = type(o)
        if kind is named:
            entry: tuple = ("iri", o.value, None)
        elif kind is literal:
            language = o.language
            if language:
                entry = ("lang", o.value, language)
            else:
                datatype = o.datatype.value
                entry = ("lit", o.value, None if datatype == XSD_STRING else datatype)
        else:
            entry = ("iri", "_:" + o.value, None)
        values = props.get(p)
        if values is None:
            props[p] = {entry: entry}
        elif entry not in values:
            values[entry] = entry

    compactor = _Compactor(prefixes)
    every_iri = (  # objects, and the datatypes of literals
        v[1] if v[0] == "iri" else v[2]
        for props in nodes.values()
        for vs in props.values()
        for v in vs
        if v[0] == "iri" or (v[0] == "lit" and v[2] is not None)
    )
    off = confusable_prefixes(
        (*nodes, *(p for props in nodes.values() for p in props), *every_iri), compactor.prefixes
    )
    compactor.disable(off)
    iri, term = compactor.iri, compactor.term

    out: list[dict[str, Any]] = []
    for skey in sorted(nodes):
        node: dict[str, Any] = {"@id": iri(skey) if not skey.startswith("_:") else skey}
        props = nodes[skey]
        types = props.pop(RDF_TYPE, None)
        if types:
            as_types = [
                term(v[1]) if not v[1].startswith("_:") else v[1] for v in types if v[0] == "iri"
            ]
            if as_types:
                node["@type"] = as_types[0] if len(as_types) == 1 else as_types
            rest = {k: v for k, v in types.items() if k[0] != "iri"}
            if rest:
                props[RDF_TYPE] = rest
        for p in sorted(props):
            written = [_value(v, iri, term) for v in props[p]]
            node[term(p)] = written[0] if len(written) == 1 else written
        out.append(node)
    context: Any = context_url if not off else [context_url, {name: None for name in sorted(off)}]
    if len(out) == 1 and len(out[0]) <= SMALL_NODE:
        document: dict[str, Any] = {"@context": context, **out[0]}
        return json.dumps(document, ensure_ascii=False, indent=2).encode("utf-8")
    # One node per line: json's C encoder writes each (``indent`` would use the slow Python one).
    head = json.dumps({"@context": context}, ensure_ascii=False)[:-1]
    if len(out) == 1:
        return (head + ", " + json.dumps(out[0], ensure_ascii=False)[1:] + "\n").encode("utf-8")
    body = ",\n".join(json.dumps(n, ensure_ascii=False) for n in out)
    return f'{head}, "@graph": [\n{body}\n]}}\n'.encode()


def _value(entry: tuple, iri: Any, term: Any) -> Any:
    kind, value, extra = entry
    if kind == "iri":
        return {"@id": value if value.startswith("_:") else iri(value)}
    if kind == "lang":
        return {"@value": value, "@language": extra}
    if extra is None:
        return value
    return {"@value": value, "@type": term(extra)}
