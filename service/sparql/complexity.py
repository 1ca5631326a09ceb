"""How complex a SPARQL query is: its form, triple patterns, joins, modifiers and operators.

TEXT2SPARQL'25 reports its results per query feature (``SELECT``, ``ORDER``, ``LIMIT``,
``GROUP``, ``COUNT``, ``SUBSELECT``…), and query-log studies describe queries by triple
patterns and join vertices. :func:`analyse_query` computes both from our parser (pure: no KB),
for gold and system queries alike, as a frozen :class:`QueryComplexity`; :func:`compact` is
what each question's result carries of it.

Counts cover the whole query (sub-queries, OPTIONAL, FILTER EXISTS… included). A *join
vertex* is a subject or object (variable or term) shared by two or more triple patterns, as in
the LSQ query-log statistics; predicates are not vertices.

>>> c = analyse_query("SELECT ?c (COUNT(?p) AS ?n) WHERE { ?p a dbo:Person ; dbo:birthPlace ?c }"
...                   " GROUP BY ?c ORDER BY DESC(?n) LIMIT 5")
>>> c.triple_patterns, c.join_vertices, c.features()
(2, 1, ('SELECT', 'COUNT', 'GROUP', 'ORDER', 'LIMIT'))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from service.sparql.parser import _AGGREGATES, _BUILTINS, Parser
from service.sparql.query import Node, ParsedQuery, Path, _Record

# Operators are counted by their keyword tokens (keywords are never inside strings or IRIs):
# EXISTS covers NOT EXISTS; GROUP and ORDER are GROUP BY and ORDER BY (GROUP_CONCAT is a token of
# its own); every SELECT but the outer one starts a sub-query.
_NOT_FUNCTIONS = _AGGREGATES | {"EXISTS", "NOT"}
_COUNTED = frozenset(
    (
        "ORDER", "GROUP", "HAVING", "LIMIT", "OFFSET", "SELECT", "FILTER", "OPTIONAL", "UNION",
        "MINUS", "BIND", "VALUES", "EXISTS", "SERVICE", "GRAPH",
    )
)  # fmt: skip


class QueryComplexity(_Record):
    """The shape of one query (see the module docstring); every count is over the whole query.

    A :class:`~service.sparql.query._Record` (a frozen value class without ``dataclasses``):
    creating a 26-field frozen dataclass at import costs more than analysing every query of a
    run, and this module is imported by every run whose systems answer with SPARQL.

    Fields: ``form`` (SELECT, ASK, CONSTRUCT or DESCRIBE), ``triple_patterns``,
    ``join_vertices``, ``projected`` (variables the outer query returns), ``distinct`` (the
    outer query is SELECT DISTINCT), ``limit`` and ``offset`` (the outer query's), then counts
    over the whole query (sub-queries included): ``order_by``, ``group_by``, ``having``,
    ``limits``, ``offsets``, ``subqueries``, ``filters``, ``optionals``, ``unions``, ``minus``,
    ``binds``, ``values``, ``exists`` (EXISTS and NOT EXISTS), ``services``, ``graphs``,
    ``property_paths``; ``aggregates`` (COUNT, SUM… each once, in order of first use) and
    ``functions`` (built-in functions other than aggregates: ROUND, CONTAINS…).
    """

    __slots__ = (  # noqa: RUF023 (field order)
        "form", "triple_patterns", "join_vertices", "projected", "distinct", "limit", "offset",
        "order_by", "group_by", "having", "limits", "offsets", "subqueries", "filters",
        "optionals", "unions", "minus", "binds", "values", "exists", "services", "graphs",
        "property_paths", "aggregates", "functions",
    )  # fmt: skip
    form: str
    triple_patterns: int
    join_vertices: int
    projected: int
    distinct: bool
    limit: int | None
    offset: int | None
    order_by: int
    group_by: int
    having: int
    limits: int
    offsets: int
    subqueries: int
    filters: int
    optionals: int
    unions: int
    minus: int
    binds: int
    values: int
    exists: int
    services: int
    graphs: int
    property_paths: int
    aggregates: tuple[str, ...]
    functions: tuple[str, ...]

    def features(self) -> tuple[str, ...]:
        """The query's features in TEXT2SPARQL'25's vocabulary (CK25's ``features``): the form,
        aggregates, ``GROUP``, ``HAVING``, ``ORDER``, ``LIMIT``, ``OFFSET``, ``SUBSELECT``, the
        graph operators, ``PATH`` for a property path, then the built-in functions.

        ``RESULT_ORDER_MATTERS`` is a property of the question, not of the query, and never
        appears here."""
        flags = (
            ("GROUP", self.group_by),
            ("HAVING", self.having),
            ("ORDER", self.order_by),
            ("LIMIT", self.limits),
            ("OFFSET", self.offsets),
            ("SUBSELECT", self.subqueries),
            ("FILTER", self.filters),
            ("OPTIONAL", self.optionals),
            ("UNION", self.unions),
            ("MINUS", self.minus),
            ("BIND", self.binds),
            ("VALUES", self.values),
            ("EXISTS", self.exists),
            ("SERVICE", self.services),
            ("GRAPH", self.graphs),
            ("PATH", self.property_paths),
        )
        return _features(self.form, self.aggregates, flags, self.functions)


def query_shape(text: str, prefixes: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The compact shape the results carry for a query (:func:`compact`), or ``{"error":
    "line 1, column 24: …"}`` when our parser refuses it."""
    from service.sparql.errors import SparqlSyntaxError

    try:
        return compact(analyse_query(text, prefixes=prefixes))
    except SparqlSyntaxError as err:
        return {"error": str(err)}


def compact(found: QueryComplexity) -> dict[str, Any]:
    """``{"triplePatterns", "joinVertices", "features"}``: what each question's result says
    of a query's shape."""
    return {
        "triplePatterns": found.triple_patterns,
        "joinVertices": found.join_vertices,
        "features": list(found.features()),
    }


def compact_shape(parsed: ParsedQuery, kinds: list[str]) -> dict[str, Any]:
    """``compact(complexity(parsed, kinds))`` without the whole record: the evaluation wants
    the shape of every query of a run, and the record was half of its cost."""
    counts, functions = _tallies(kinds)
    flags = [  # in the order of QueryComplexity.features
        *((name, counts.get(name, 0)) for name in _MODIFIERS),
        ("SUBSELECT", counts.get("SELECT", 0) - (parsed.form == "SELECT")),
        *((name, counts.get(name, 0)) for name in _OPERATORS),
        ("PATH", _property_paths(parsed)),
    ]
    return {
        "triplePatterns": len(parsed.patterns),
        "joinVertices": _join_vertices(parsed),
        "features": list(_features(parsed.form, parsed.aggregates, flags, functions)),
    }


# The keywords that are features under their own name (QueryComplexity.features).
_MODIFIERS = ("GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET")
_OPERATORS = (
    "FILTER", "OPTIONAL", "UNION", "MINUS", "BIND", "VALUES", "EXISTS", "SERVICE", "GRAPH",
)  # fmt: skip


def _features(
    form: str,
    aggregates: tuple[str, ...],
    flags: Iterable[tuple[str, int]],
    functions: Iterable[str],
) -> tuple[str, ...]:
    found = [form, *aggregates]
    found += [name for name, count in flags if count]
    found += [f for f in functions if f not in found]
    return tuple(found)


def _tallies(kinds: list[str]) -> tuple[dict[str, int], tuple[str, ...]]:
    """How often each counted keyword occurs, and the built-in functions used (each once, in
    order of first use)."""
    counts: dict[str, int] = {}  # a dict, not a Counter: its misses call Python code
    for kind in kinds:
        if kind in _COUNTED:
            counts[kind] = counts.get(kind, 0) + 1
    functions = dict.fromkeys(k for k in kinds if k in _BUILTINS and k not in _NOT_FUNCTIONS)
    return counts, tuple(functions)


def _property_paths(parsed: ParsedQuery) -> int:
    return sum(isinstance(p.predicate, Path) for p in parsed.patterns)


def analyse_query(text: str, *, prefixes: Mapping[str, str] | None = None) -> QueryComplexity:
    """The complexity of ``text`` read in the lenient dialect (``prefixes``: the dataset's
    environment, as for :func:`service.sparql.parse_query`). Raises SparqlSyntaxError."""
    parser = Parser(text, strict=False, base=None, prefixes=dict(prefixes or {}))
    try:
        parsed = parser.parse()
    except RecursionError:
        raise parser.nested_too_deeply() from None
    return complexity(parsed, parser.kinds)


def complexity(parsed: ParsedQuery, kinds: list[str]) -> QueryComplexity:
    """The complexity of a parsed query, given the token kinds it was parsed from."""
    counts, functions = _tallies(kinds)
    return QueryComplexity(
        form=parsed.form,
        triple_patterns=len(parsed.patterns),
        join_vertices=_join_vertices(parsed),
        projected=len(parsed.projection),
        distinct=parsed.distinct,
        limit=parsed.limit,
        offset=parsed.offset,
        order_by=counts.get("ORDER", 0),
        group_by=counts.get("GROUP", 0),
        having=counts.get("HAVING", 0),
        limits=counts.get("LIMIT", 0),
        offsets=counts.get("OFFSET", 0),
        subqueries=counts.get("SELECT", 0) - (parsed.form == "SELECT"),
        filters=counts.get("FILTER", 0),
        optionals=counts.get("OPTIONAL", 0),
        unions=counts.get("UNION", 0),
        minus=counts.get("MINUS", 0),
        binds=counts.get("BIND", 0),
        values=counts.get("VALUES", 0),
        exists=counts.get("EXISTS", 0),
        services=counts.get("SERVICE", 0),
        graphs=counts.get("GRAPH", 0),
        property_paths=_property_paths(parsed),
        aggregates=parsed.aggregates,
        functions=functions,
    )


def _join_vertices(parsed: ParsedQuery) -> int:
    # keyed by (kind, value, datatype, lang): hashing a Node by its fields costs a tuple each
    degree: dict[tuple[Any, ...], int] = {}
    for pattern in parsed.patterns:
        s, o = pattern.subject, pattern.object
        ends = {_key(s), _key(o)}
        for end in ends:
            degree[end] = degree.get(end, 0) + 1
    return sum(1 for n in degree.values() if n > 1)


def _key(term: Node | Path | Any) -> tuple[Any, ...]:
    if isinstance(term, Node):
        return (term.kind, term.value, term.datatype, term.lang)
    return (id(term),)
