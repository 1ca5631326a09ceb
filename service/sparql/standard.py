"""The lenient dialect rewritten to standard SPARQL 1.1, so an engine runs what our parser reads.

Real gold queries and LLM output use Virtuoso's habits (``SELECT COUNT(?x) AS ?c``, implicit
grouping, undeclared prefixes…; see :func:`service.sparql.parse_query`). A standard engine such
as Oxigraph refuses them, so a query is parsed once in the lenient dialect and each non-standard
construct is rewritten the way the lenient dialect read it:

- every prefixed name becomes its full IRI (undeclared prefixes need no ``PREFIX``, and engines'
  own quirks with local names such as ``res:T._E._Lawrence`` are avoided);
- an expression projected without ``( … AS ?v )`` gets the parentheses, and a name
  (``callret_N``: Virtuoso's ``callret-N`` is no SPARQL variable name) when it has none;
- ``COUNT(DISTINCT ?x AS ?x)`` loses the inner alias; a ``HAVING`` condition gets its
  parentheses; keywords written together (``ASKWHERE``) are split;
- a variable projected from an aggregate query without being grouped is added to ``GROUP BY``
  (Virtuoso groups by it implicitly); ``SELECT *`` with ``GROUP BY`` projects the grouped
  variables; an ``AS`` target already in use gets a fresh name; a variable projected twice,
  once; a blank node label shared by two basic graph patterns becomes a variable;
- ``FROM`` inside a sub-query is dropped (a local KB is one graph).

Positions in the rewritten text map back to the original (:meth:`StandardQuery.original_position`),
so an engine's error is reported where the user wrote the query.

>>> q = standard_query("SELECT COUNT(?x) AS ?c WHERE { ?x a dbo:Film }")
>>> q.text
'SELECT (COUNT(?x) AS ?c) WHERE { ?x a <http://dbpedia.org/ontology/Film> }'
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass

from service.sparql.errors import position
from service.sparql.lexer import Tokens
from service.sparql.parser import Parser
from service.sparql.query import ParsedQuery


@dataclass(frozen=True, slots=True)
class StandardQuery:
    """A query as written (``original``) and as standard SPARQL (``text``).

    ``parsed`` is what the lenient dialect read; its ``leniencies`` say what was rewritten.
    """

    original: str
    text: str
    parsed: ParsedQuery
    _tokens: Tokens
    # (offset in ``text``, offset in the expanded original, length in ``text``, whether the
    # piece is a copy of the original) for each piece of ``text``, in order.
    _pieces: tuple[tuple[int, int, int, bool], ...]

    @property
    def calls_service(self) -> bool:
        """Whether an engine running ``text`` would call another endpoint (``SERVICE``).

        ``text`` is read as Oxigraph reads it (code point escapes only inside terms, ``<`` after
        an operand a less-than, as the public endpoint's guard reads queries); text it cannot
        read at all counts as a call when the word is anywhere in it.
        """
        from service.sparql.errors import SparqlSyntaxError

        try:
            parser = Parser(self.text, strict=False, base=None, escapes="in_terms")
            parser.parse()
        except (SparqlSyntaxError, RecursionError):
            return "SERVICE" in self.text.upper()
        return "SERVICE" in parser.kinds

    def original_offset(self, offset: int) -> int:
        """The offset in ``original`` that ``offset`` in ``text`` comes from (inserted text:
        where it was inserted)."""
        starts = [piece[0] for piece in self._pieces]
        at = max(0, bisect_right(starts, offset) - 1)
        if not self._pieces:
            return 0
        start, source, length, copied = self._pieces[at]
        expanded = source + min(offset - start, length) if copied else source
        return self._tokens.source_offset(expanded)

    def original_position(self, line: int, column: int) -> tuple[int, int]:
        """1-based (line, column) in ``original`` of 1-based (line, column) in ``text``."""
        offset = _offset_of(self.text, line, column)
        return position(self.original, self.original_offset(offset))


def standard_query(text: str, *, prefixes: Mapping[str, str] | None = None) -> StandardQuery:
    """Parse ``text`` in the lenient dialect and rewrite it to standard SPARQL (see the module
    docstring). ``prefixes`` are those the query's environment predeclares (a TEXT2SPARQL
    dataset's default namespace as ``:``). Raises :class:`SparqlSyntaxError` (positioned in
    ``text``) for what even the lenient dialect refuses."""
    parser = Parser(text, strict=False, base=None, prefixes=dict(prefixes or {}), rewrite=True)
    try:
        parsed = parser.parse()
    except RecursionError:
        raise parser.nested_too_deeply() from None
    source = parser.tokens.text
    edits = sorted(parser.edits, key=lambda e: (e[0], e[0] != e[1]))  # inserts first
    parts: list[str] = []
    pieces: list[tuple[int, int, int, bool]] = []
    written = 0
    at = 0  # how far ``source`` is consumed
    for start, end, replacement in edits:
        if start < at:
            continue  # inside text already replaced (a prefixed name in a dropped FROM)
        if start > at:
            pieces.append((written, at, start - at, True))
            parts.append(source[at:start])
            written += start - at
        if replacement:
            pieces.append((written, start, len(replacement), False))
            parts.append(replacement)
            written += len(replacement)
        at = end
    if at < len(source):
        pieces.append((written, at, len(source) - at, True))
        parts.append(source[at:])
    return StandardQuery(
        original=text,
        text="".join(parts),
        parsed=parsed,
        _tokens=parser.tokens,
        _pieces=tuple(pieces),
    )


def _offset_of(text: str, line: int, column: int) -> int:
    """The offset of 1-based (line, column) in ``text`` (lines end at LF)."""
    start = 0
    for _ in range(line - 1):
        found = text.find("\n", start)
        if found < 0:
            return len(text)
        start = found + 1
    return min(start + max(column - 1, 0), len(text))
