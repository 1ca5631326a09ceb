"""How complex a SPARQL query is: its form, triple patterns, joins, modifiers and operators.

TEXT2SPARQL'25 reports its results per query feature (``SELECT``, ``ORDER``, ``LIMIT``,
``GROUP``, ``COUNT``, ``SUBSELECT``…), and query-log studies describe queries by triple
patterns and join vertices. :func:`analyse_query` computes both from our parser (pure: no KB),
for gold and system queries alike, as a frozen :class:`QueryComplexity` whose
:meth:`~QueryComplexity.as_json` is the JSON the CLI and API print.

Counts cover the whole query (sub-queries, OPTIONAL, FILTER EXISTS… included). A *join
vertex* is a subject or object (variable or term) shared by two or more triple patterns, as in
the LSQ query-log statistics; predicates are not vertices.

>>> c = analyse_query("SELECT ?c (COUNT(?p) AS ?n) WHERE { ?p a dbo:Person ; dbo:birthPlace ?c }"
...                   " GROUP BY ?c ORDER BY DESC(?n) LIMIT 5")
>>> c.triple_patterns, c.join_vertices, c.features()
(2, 1, ('SELECT', 'COUNT', 'GROUP', 'ORDER', 'LIMIT'))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from service.sparql.parser import _AGGREGATES, _BUILTINS, Parser
from service.sparql.query import Node, ParsedQuery, Path

# Operators are counted by their keyword tokens (keywords are never inside strings or IRIs):
# EXISTS covers NOT EXISTS; GROUP and ORDER are GROUP BY and ORDER BY (GROUP_CONCAT is a token of
# its own); every SELECT but the outer one starts a sub-query.
_NOT_FUNCTIONS = _AGGREGATES | {"EXISTS", "NOT"}


@dataclass(frozen=True, slots=True)
class QueryComplexity:
    """The shape of one query (see the module docstring); every count is over the whole query."""

    form: str  # SELECT, ASK, CONSTRUCT or DESCRIBE
    triple_patterns: int
    join_vertices: int
    projected: int  # variables the (outer) query returns
    distinct: bool  # the outer query is SELECT DISTINCT
    limit: int | None  # the outer query's LIMIT and OFFSET
    offset: int | None
    order_by: int  # ORDER BY clauses (sub-queries included), likewise below
    group_by: int
    having: int
    limits: int  # LIMIT clauses anywhere
    offsets: int
    subqueries: int
    filters: int
    optionals: int
    unions: int
    minus: int
    binds: int
    values: int
    exists: int  # EXISTS and NOT EXISTS
    services: int
    graphs: int
    property_paths: int
    aggregates: tuple[str, ...]  # COUNT, SUM… each once, in order of first use
    functions: tuple[str, ...]  # built-in functions other than aggregates (ROUND, CONTAINS…)

    def features(self) -> tuple[str, ...]:
        """The query's features in TEXT2SPARQL'25's vocabulary (CK25's ``features``): the form,
        aggregates, ``GROUP``, ``HAVING``, ``ORDER``, ``LIMIT``, ``OFFSET``, ``SUBSELECT``, the
        graph operators, ``PATH`` for a property path, then the built-in functions.

        ``RESULT_ORDER_MATTERS`` is a property of the question, not of the query, and never
        appears here."""
        found = [self.form, *self.aggregates]
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
        found += [name for name, count in flags if count]
        found += [f for f in self.functions if f not in found]
        return tuple(found)

    def as_json(self) -> dict[str, Any]:
        """JSON-ready: every field (tuples as lists) plus ``features``."""
        out = asdict(self)
        out["aggregates"] = list(self.aggregates)
        out["functions"] = list(self.functions)
        out["features"] = list(self.features())
        return out


def query_shape(text: str, prefixes: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The compact shape the results carry for a query: ``{"triplePatterns", "joinVertices",
    "features"}``, or ``{"error": "line 1, column 24: …"}`` when our parser refuses it."""
    from service.sparql.errors import SparqlSyntaxError

    try:
        found = analyse_query(text, prefixes=prefixes)
    except SparqlSyntaxError as err:
        return {"error": str(err)}
    return {
        "triplePatterns": found.triple_patterns,
        "joinVertices": found.join_vertices,
        "features": list(found.features()),
    }


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
    counts = Counter(kinds)
    functions = dict.fromkeys(k for k in kinds if k in _BUILTINS and k not in _NOT_FUNCTIONS)
    return QueryComplexity(
        form=parsed.form,
        triple_patterns=len(parsed.patterns),
        join_vertices=_join_vertices(parsed),
        projected=len(parsed.projection),
        distinct=parsed.distinct,
        limit=parsed.limit,
        offset=parsed.offset,
        order_by=counts["ORDER"],
        group_by=counts["GROUP"],
        having=counts["HAVING"],
        limits=counts["LIMIT"],
        offsets=counts["OFFSET"],
        subqueries=counts["SELECT"] - (parsed.form == "SELECT"),
        filters=counts["FILTER"],
        optionals=counts["OPTIONAL"],
        unions=counts["UNION"],
        minus=counts["MINUS"],
        binds=counts["BIND"],
        values=counts["VALUES"],
        exists=counts["EXISTS"],
        services=counts["SERVICE"],
        graphs=counts["GRAPH"],
        property_paths=sum(isinstance(p.predicate, Path) for p in parsed.patterns),
        aggregates=parsed.aggregates,
        functions=tuple(functions),
    )


def _join_vertices(parsed: ParsedQuery) -> int:
    degree: Counter[Node] = Counter()
    for pattern in parsed.patterns:
        degree.update({pattern.subject, pattern.object})
    return sum(1 for n in degree.values() if n > 1)
