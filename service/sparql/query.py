"""What the parser gives back: the terms, triple patterns and facts of one SPARQL query.

Not an algebra: just what the evaluation's sub-experiments (C2KB, P2KB, RE2KB, AIT2KB) and the
answer-type checks read from a gold or system query.
"""

from __future__ import annotations

from types import MappingProxyType

# Not ``from typing import TYPE_CHECKING``: importing typing costs 3 ms of the import budget.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal

    NodeKind = Literal["iri", "var", "literal", "bnode"]
    QueryForm = Literal["SELECT", "ASK", "CONSTRUCT", "DESCRIBE"]

_set = object.__setattr__


class _Record:
    """An immutable value with named fields: a frozen, slotted dataclass, by hand.

    ``import dataclasses`` alone takes about 11 ms (it imports ``inspect``), over half of the
    20 ms import budget of this package (see ``bench/sparql.py``), so the result types get
    the same behaviour here: fields in ``__slots__``, keyword or positional construction,
    equality and hashing by field values and class, a dataclass-style ``repr``, no assignment,
    pickling and copying by value.
    """

    __slots__ = ()
    _defaults: dict[str, Any] = {}  # noqa: RUF012 (read-only, per subclass)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields: tuple[str, ...] = self.__slots__
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(fields)} arguments")
        for name in kwargs:
            if name not in fields:
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
        for at, name in enumerate(fields):
            if at < len(args):
                if name in kwargs:
                    raise TypeError(f"{type(self).__name__} got {name!r} twice")
                value = args[at]
            elif name in kwargs:
                value = kwargs[name]
            elif name in self._defaults:
                value = self._defaults[name]
            else:
                raise TypeError(f"{type(self).__name__} is missing {name!r}")
            _set(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        fields: tuple[str, ...] = self.__slots__
        return tuple(getattr(self, name) for name in fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        names: tuple[str, ...] = self.__slots__
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__name__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self._values())


class Node(_Record):
    """An RDF term or variable in a query.

    ``value`` is the full IRI (prefixes expanded, resolved against BASE), the variable name
    without ``?``/``$``, a literal's lexical form (escapes decoded, numbers exactly as written
    with their sign), or a blank node label without ``_:``. ``datatype`` is set for typed
    literals (numbers and booleans get their XSD type, §19.8 productions [130]–[134]) and is
    ``None`` for simple and language-tagged literals; ``lang`` is the tag as written.
    """

    __slots__ = ("kind", "value", "datatype", "lang")  # noqa: RUF023 (field order)
    __match_args__ = __slots__
    kind: NodeKind
    value: str
    datatype: str | None
    lang: str | None

    def __init__(
        self, kind: NodeKind, value: str, datatype: str | None = None, lang: str | None = None
    ) -> None:  # written out: the parser makes many nodes, and this is twice as fast
        _set(self, "kind", kind)
        _set(self, "value", value)
        _set(self, "datatype", datatype)
        _set(self, "lang", lang)

    def n3(self) -> str:
        """SPARQL spelling of the term (for messages and the canonical path text)."""
        if self.kind == "iri":
            return f"<{self.value}>"
        if self.kind == "var":
            return f"?{self.value}"
        if self.kind == "bnode":
            return f"_:{self.value}"
        text = (
            self.value.replace("\\", "\\\\")
            .replace('"', '\\"')
            .replace("\n", "\\n")
            .replace("\r", "\\r")
        )
        if self.lang:
            return f'"{text}"@{self.lang}'
        if self.datatype:
            return f'"{text}"^^<{self.datatype}>'
        return f'"{text}"'


class Path(_Record):
    """A property path that is more than one IRI (a one-IRI path is just a :class:`Node`).

    ``text`` is canonical: IRIs in full as ``<…>``, ``a`` as ``rdf:type``'s IRI, nested
    sequences and alternatives flattened, parentheses only where precedence needs them
    (``<p>/(<q>|<r>)*``, ``^<p>``, ``!(<p>|^<q>)``). ``iris`` lists every IRI the path mentions
    (negated ones too), each once, in order of first appearance.
    """

    __slots__ = ("text", "iris")  # noqa: RUF023 (field order)
    __match_args__ = __slots__
    text: str
    iris: tuple[str, ...]


class TriplePattern(_Record):
    __slots__ = ("subject", "predicate", "object")  # noqa: RUF023 (field order)
    __match_args__ = __slots__
    subject: Node
    predicate: Node | Path
    object: Node

    def __init__(self, subject: Node, predicate: Node | Path, object: Node) -> None:
        _set(self, "subject", subject)
        _set(self, "predicate", predicate)
        _set(self, "object", object)


class ParsedQuery(_Record):
    """The facts of one query (see ``service.sparql.parse_query``).

    ``patterns`` holds every triple pattern of the query body in document order (inside
    OPTIONAL, UNION, MINUS, GRAPH, SERVICE, sub-queries and FILTER (NOT) EXISTS alike), with
    blank-node property lists and collections expanded as §18.2.2 does; ``template`` the
    CONSTRUCT template (for ``CONSTRUCT WHERE`` the same triples). ``projection`` holds the
    projected variable names in order (aliases included; for ``SELECT *``/``DESCRIBE *`` the
    in-scope variables of the WHERE clause and a trailing VALUES block, in order of first
    appearance; for DESCRIBE the described variables); a lenient-only expression projected
    without ``AS`` gets Virtuoso's column name ``callret-N`` (N = its 0-based column).
    ``values`` holds the non-UNDEF terms of every VALUES block; ``expression_iris`` each IRI
    used as a constant inside an expression (FILTER, BIND, HAVING, GROUP BY, ORDER BY,
    projections), in order, repeats kept, function names excluded; ``aggregates`` the upper-case
    names of the aggregates used, each once. ``prefixes`` holds the declared prefixes and, in the
    lenient dialect, the predeclared ones the query used without declaring them.
    ``leniencies`` says, in words, every non-standard construct the lenient dialect accepted
    (empty for a standard query and always empty in the strict dialect).
    """

    __slots__ = (  # noqa: RUF023 (field order)
        "form",
        "projection",
        "select_star",
        "distinct",
        "reduced",
        "patterns",
        "template",
        "values",
        "expression_iris",
        "described",
        "aggregates",
        "prefixes",
        "leniencies",
        "base",
        "from_graphs",
        "from_named",
        "limit",
        "offset",
    )
    __match_args__ = __slots__
    _defaults = {  # noqa: RUF012
        "projection": (),
        "select_star": False,
        "distinct": False,
        "reduced": False,
        "patterns": (),
        "template": (),
        "values": (),
        "expression_iris": (),
        "described": (),
        "aggregates": (),
        "prefixes": MappingProxyType({}),
        "leniencies": (),
        "base": None,
        "from_graphs": (),
        "from_named": (),
        "limit": None,
        "offset": None,
    }
    form: QueryForm
    projection: tuple[str, ...]
    select_star: bool
    distinct: bool
    reduced: bool
    patterns: tuple[TriplePattern, ...]
    template: tuple[TriplePattern, ...]
    values: tuple[Node, ...]
    expression_iris: tuple[str, ...]
    described: tuple[Node, ...]
    aggregates: tuple[str, ...]
    prefixes: Mapping[str, str]
    leniencies: tuple[str, ...]
    base: str | None
    from_graphs: tuple[str, ...]
    from_named: tuple[str, ...]
    limit: int | None
    offset: int | None

    def __hash__(self) -> int:
        # ``prefixes`` is a mapping; hash its items.
        values = self._values()
        at = self.__slots__.index("prefixes")
        return hash((*values[:at], tuple(self.prefixes.items()), *values[at + 1 :]))

    def __reduce__(self) -> tuple[Any, ...]:
        values = list(self._values())
        values[self.__slots__.index("prefixes")] = dict(self.prefixes)  # mappingproxy: no pickle
        return (_rebuild_query, tuple(values))

    @property
    def variables(self) -> tuple[str, ...]:
        """Every variable the triple patterns mention, each once, in order of appearance."""
        seen: dict[str, None] = {}
        for pattern in self.patterns:
            for node in (pattern.subject, pattern.predicate, pattern.object):
                if isinstance(node, Node) and node.kind == "var":
                    seen[node.value] = None
        return tuple(seen)


def _rebuild_query(*values: Any) -> ParsedQuery:
    query = ParsedQuery(*values)
    _set(query, "prefixes", MappingProxyType(query.prefixes))
    return query
