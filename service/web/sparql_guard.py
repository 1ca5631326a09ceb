"""What the public endpoint must know about a query text before an engine process runs it.

The guard reads the query exactly as the engine will: with our SPARQL 1.1 parser
(``service.sparql``, checked against pyoxigraph and rdflib on thousands of real queries) in the
reading Oxigraph uses for ``\\u`` escapes (only inside IRIs and strings, ``escapes="in_terms"``)
and with the parser's own handling of ``<`` after an operand (less-than, not an IRI). A query
the parser does not accept is refused before any engine sees it, so there is no second reading
in which a ``SERVICE`` keyword could hide (``FILTER(1<2)SERVICE#>`` once passed a regular
expression as an IRI while Oxigraph ran the ``SERVICE`` call).

What it reports: the query form (to negotiate the response format before running it), whether
it calls ``SERVICE`` (refused: a public service does not make requests on a stranger's behalf;
the worker processes cannot reach the network anyway, see ``query_pool.py``), whether it uses
functions whose value changes between evaluations (never cached), and its *shape* (the query
with variables and numbers blanked: the pool remembers which shapes ran long).

Limits, checked before parsing and again on what the parser read: the text's size and the
nesting depth of groups, expressions and lists. Oxigraph parses and evaluates queries by
recursion, so ~3,000 nested ``{ }`` (6 KB) or 1,000 nested ``FILTER EXISTS`` overflowed its
stack and killed the process; the workers also run queries on a thread with a large stack, so
that long flat chains (``1+1+…``, ``{} UNION {} …``) within the size limit stay far from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from service.errors import BadRequest
from service.sparql import MAX_QUERY_BYTES

QUERY_FORMS = ("SELECT", "CONSTRUCT", "DESCRIBE", "ASK")
# Functions whose value changes from one evaluation to the next (SPARQL 1.1 §17.4): a query
# using one must not be answered from the result cache.
VOLATILE = frozenset({"RAND", "NOW", "UUID", "STRUUID", "BNODE"})
DEFAULT_MAX_BYTES = MAX_QUERY_BYTES
DEFAULT_MAX_DEPTH = 64

_OPEN = frozenset({"{", "(", "["})
_CLOSE = frozenset({"}", ")", "]"})
_BLANKED = {"VAR": "?", "INTEGER": "0", "DECIMAL": "0", "DOUBLE": "0"}
_SPELLED = frozenset(
    {"IRIREF", "PNAME", "BLANK_NODE_LABEL", "LANGTAG"}
    | {"STRING1", "STRING2", "STRING_LONG1", "STRING_LONG2"}
)


@dataclass(frozen=True, slots=True)
class QueryFacts:
    """What the parser read: the query form, SERVICE, volatile functions, the query's shape."""

    form: str
    uses_service: bool
    volatile: bool = False
    shape: int = 0  # a hash of the tokens with variables and numbers blanked


def inspect_query(
    text: str, *, max_bytes: int = DEFAULT_MAX_BYTES, max_depth: int = DEFAULT_MAX_DEPTH
) -> QueryFacts:
    """Parse ``text`` as the engine will and report its facts; :class:`BadRequest` (400) for a
    query past a limit or that is not SPARQL 1.1 Query.

    >>> inspect_query('SELECT * FROM <g> { ?s ?p "SERVICE" }').uses_service
    False
    >>> inspect_query('SELECT * { FILTER(1<2)SERVICE#>\\n<http://a/> {} }').uses_service
    True
    """
    from service.sparql.errors import SparqlSyntaxError
    from service.sparql.parser import Parser

    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise BadRequest(
            f"the query is {size:,} bytes long, more than this endpoint's limit of "
            f"{max_bytes:,} bytes (sparql_max_query_bytes)"
        )
    try:
        parser = Parser(text, strict=False, base=None, escapes="in_terms")
        _check_depth(text, parser.kinds, parser.tokens.offsets, max_depth)
        try:
            parser.parse()
        except RecursionError:
            raise parser.nested_too_deeply() from None
    except SparqlSyntaxError as err:  # its cause keeps the position (the query page marks it)
        raise BadRequest(f"query syntax error: {err}") from err
    kinds, texts = parser.kinds, parser.texts
    # The parser may have re-read an IRI as '<' (FILTER(1<2)…): check the final tokens again.
    _check_depth(text, kinds, parser.tokens.offsets, max_depth)
    words = set(kinds)
    # Oxigraph needs no space after a keyword (`SERVICEa:b {…}` is SERVICE a:b to it), but it
    # tries a triple first where one may stand, as the parser does; where no triple may stand,
    # the parser refused the prefixed name above (tests/reliability: the glued forms).
    service = "SERVICE" in words
    form = next(kind for kind in kinds if kind in QUERY_FORMS)
    shape = hash(
        tuple(
            _BLANKED.get(kind) or (text_ if kind in _SPELLED else kind)
            for kind, text_ in zip(kinds, texts, strict=True)
        )
    )
    return QueryFacts(
        form=form, uses_service=service, volatile=not words.isdisjoint(VOLATILE), shape=shape
    )


def _check_depth(text: str, kinds: list[str], offsets: list[int], limit: int) -> None:
    from service.sparql.errors import position

    depth = 0
    for at, kind in enumerate(kinds):
        if kind in _OPEN:
            depth += 1
            if depth > limit:
                line, column = position(text, offsets[at])
                raise BadRequest(
                    f"the query nests groups, expressions or lists more than {limit} levels deep "
                    f"(line {line}, column {column}); this endpoint's limit is {limit} "
                    "(sparql_max_depth)"
                )
        elif kind in _CLOSE:
            depth -= 1


@lru_cache(maxsize=512)
def inspect_query_cached(
    text: str, *, max_bytes: int = DEFAULT_MAX_BYTES, max_depth: int = DEFAULT_MAX_DEPTH
) -> QueryFacts:
    """:func:`inspect_query`, remembered for the texts seen last (clients repeat queries)."""
    return inspect_query(text, max_bytes=max_bytes, max_depth=max_depth)
