"""SPARQL 1.1 Query parsing: the triple patterns and facts of a gold or system query.

A recursive-descent parser over the grammar of §19 of the SPARQL 1.1 Query Language
Recommendation. rdflib's parser is a real one too, but importing it costs about 0.4 s and it
parses a QALD query in about 6 ms, while ``gerbil-qa evaluate`` must finish within 1.5× the
start-up time of ``python -c "import rdflib"``; this one imports in a few milliseconds and parses
a query in a fraction of a millisecond (``bench/sparql.py``). rdflib and pyoxigraph serve as
oracles in ``tests/reference/sparql``.

>>> q = parse_query("PREFIX dbo: <http://dbpedia.org/ontology/> "
...                 "SELECT ?x WHERE { ?x a dbo:Film ; dbo:director ?d }")
>>> q.projection
('x',)
>>> [p.predicate.value for p in q.patterns]
['http://www.w3.org/1999/02/22-rdf-syntax-ns#type', 'http://dbpedia.org/ontology/director']
>>> parse_query("SELECT DISTINCT COUNT(?x) WHERE { ?x a dbo:Film }").leniencies[0]
"expression projected without 'AS ?var' (Virtuoso names it callret-0): COUNT(?x)"
"""

from __future__ import annotations

from service.sparql.errors import SparqlSyntaxError
from service.sparql.parser import Parser
from service.sparql.query import Node, ParsedQuery, Path, TriplePattern

__all__ = [
    "MAX_QUERY_BYTES",
    "Node",
    "ParsedQuery",
    "Path",
    "SparqlSyntaxError",
    "TriplePattern",
    "parse_query",
]

# The longest query text read: the public endpoint's default (its setting may change it there)
# and the fixed bound on a query a Text2SPARQL system answers with. Here, not in the web layer,
# so that the systems' code may read it too.
MAX_QUERY_BYTES = 64 * 1024

# Not ``from typing import …``: importing typing costs 3 ms of the 20 ms import budget.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Dialect = Literal["lenient", "strict"]
    Escapes = Literal["everywhere", "in_terms"]


def parse_query(
    text: str,
    *,
    dialect: Dialect = "lenient",
    base: str | None = None,
    escapes: Escapes = "everywhere",
    prefixes: dict[str, str] | None = None,
) -> ParsedQuery:
    """Parse one SPARQL 1.1 query (not an update) and return its facts.

    ``dialect="strict"`` accepts exactly SPARQL 1.1 Query: the grammar of §19.8 plus its static
    rules (variable scope §18.2.1, aggregate projection §11.4, SELECT * only without GROUP BY
    §16.1.1, aggregates only in SELECT, HAVING and ORDER BY §19.8 note 12, blank node labels
    within one basic graph pattern §4.1.4). Like rdflib and Oxigraph, it reads a ``<`` right
    after an operand as less-than even where longest match would make an IRIREF of it
    (``?a<?b&&?c>?d``).

    ``dialect="lenient"`` (the default; real QALD and LC-QuAD queries were run on Virtuoso)
    also accepts these Virtuoso habits found in the real gold queries, each listed in
    ``ParsedQuery.leniencies`` when used:

    - undeclared prefixes that DBpedia's, LinkedSpending's or Wikidata's endpoint predeclares
      (``service.sparql.prefixes``);
    - expressions projected without ``( … AS ?v )``: ``SELECT DISTINCT COUNT(?uri)``,
      ``SELECT (?x)``, ``SELECT SUM(?x) AS ?s``, ``SELECT ?total/?years``; an unnamed one is
      named ``callret-N`` (N its 0-based column) as Virtuoso names it;
    - ``COUNT(DISTINCT ?x AS ?x)`` (the inner alias is ignored, as Virtuoso does);
    - ``HAVING SUM(?x) > 10`` without enclosing parentheses, ``FROM`` inside a sub-query;
    - two keywords written together (``ASKWHERE``, ``ORDER BYDESC``) when the word splits
      into two keywords in exactly one way;
    - breaches of the static rules above (Virtuoso groups by an ungrouped projected variable
      implicitly).

    ``base`` is the base IRI for relative IRIs when the query has no BASE. ``escapes`` says
    where ``\\u``/``\\U`` code point escapes are read: ``"everywhere"`` before tokenizing, as
    §19.2 says; ``"in_terms"`` only inside IRIs and strings, as Oxigraph reads them (the public
    endpoint's guard must read a query exactly as the engine that runs it). ``prefixes`` are
    the prefixes the query's environment predeclares (a TEXT2SPARQL dataset's default namespace
    as ``:``): the lenient dialect reads them undeclared before the well-known ones. Raises
    :class:`SparqlSyntaxError` for anything else, including too deep nesting.
    """
    if dialect not in ("lenient", "strict"):
        raise ValueError(f"unknown SPARQL dialect {dialect!r}: expected 'lenient' or 'strict'")
    parser = Parser(text, strict=dialect == "strict", base=base, escapes=escapes, prefixes=prefixes)
    try:
        return parser.parse()
    except RecursionError:
        raise parser.nested_too_deeply() from None
