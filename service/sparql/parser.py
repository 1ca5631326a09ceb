"""Recursive-descent parser for SPARQL 1.1 Query, one method per production of §19.8.

Method names follow the grammar's production names; comments give the production numbers.
The parser does not build an algebra: it collects what :class:`ParsedQuery` reports while it
reads (triple patterns, VALUES terms, IRIs in expressions, aggregates, in-scope variables) and
checks the static rules of §18.2.1 (variable scope), §11.4 (aggregate projection) and §19.8
notes 12 (where aggregates may appear) and the blank-node-label rule of §4.1.4.

The lenient dialect (real QALD/LC-QuAD queries, written for Virtuoso) additionally accepts a
few unambiguous Virtuoso habits and says so in ``leniencies``; see :func:`parse_query`.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from service.sparql.errors import SparqlSyntaxError
from service.sparql.iri import is_absolute, resolve
from service.sparql.lexer import Tokens, words
from service.sparql.prefixes import PREDECLARED
from service.sparql.query import Node, ParsedQuery, Path, TriplePattern

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs 3 ms
if TYPE_CHECKING:
    from collections.abc import Callable

    from service.sparql.query import QueryForm

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDF_TYPE = RDF + "type"
_TYPE = Node("iri", RDF_TYPE)
_FIRST = Node("iri", RDF + "first")
_REST = Node("iri", RDF + "rest")
_NIL = Node("iri", RDF + "nil")
_NUMBER_TYPES = {"INTEGER": XSD + "integer", "DECIMAL": XSD + "decimal", "DOUBLE": XSD + "double"}
_BOOLEAN = XSD + "boolean"

_STRINGS = frozenset({"STRING1", "STRING2", "STRING_LONG1", "STRING_LONG2"})
_LONG_STRINGS = frozenset({"STRING_LONG1", "STRING_LONG2"})
_NUMBERS = frozenset(_NUMBER_TYPES)
_IRIS = frozenset({"IRIREF", "PNAME"})
# [106] VarOrTerm / [109] GraphTerm
_TERM_START = frozenset(
    {"VAR", "IRIREF", "PNAME", "BLANK_NODE_LABEL", "ANON", "NIL", "TRUE", "FALSE"}
    | _STRINGS
    | _NUMBERS
)
# [81] TriplesSameSubjectPath / [104] GraphNode: a term, or a collection / property list
_TRIPLE_START = _TERM_START | {"(", "["}
# [56] GraphPatternNotTriples
_PATTERN_START = frozenset(
    {"{", "OPTIONAL", "MINUS", "GRAPH", "SERVICE", "FILTER", "BIND", "VALUES"}
)
_VERB_START = frozenset({"VAR", "IRIREF", "PNAME", "a"})
_PATH_VERB_START = _VERB_START | {"^", "(", "!"}
_RELATIONAL = frozenset({"=", "!=", "<", ">", "<=", ">="})
_ARITHMETIC = frozenset({"+", "-", "*", "/"})
_OPERATORS = _RELATIONAL | _ARITHMETIC | {"&&", "||", "IN", "NOT"}
# [121] BuiltInCall, by argument shape
_ONE_ARG = words(
    """
    STR LANG DATATYPE IRI URI ABS CEIL FLOOR ROUND STRLEN UCASE LCASE ENCODE_FOR_URI YEAR
    MONTH DAY HOURS MINUTES SECONDS TIMEZONE TZ MD5 SHA1 SHA256 SHA384 SHA512 ISIRI ISURI
    ISBLANK ISLITERAL ISNUMERIC
    """
)
_TWO_ARGS = words(
    """
    LANGMATCHES CONTAINS STRSTARTS STRENDS STRBEFORE STRAFTER STRLANG STRDT SAMETERM
    """
)
_NO_ARGS = frozenset({"RAND", "NOW", "UUID", "STRUUID"})
_AGGREGATES = frozenset({"COUNT", "SUM", "MIN", "MAX", "AVG", "SAMPLE", "GROUP_CONCAT"})
_BUILTINS = (
    _ONE_ARG
    | _TWO_ARGS
    | _NO_ARGS
    | _AGGREGATES
    | {"IF", "BNODE", "BOUND", "CONCAT", "COALESCE", "REGEX", "SUBSTR", "REPLACE", "EXISTS", "NOT"}
)
_UPDATES = frozenset(
    {"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH"}
)
_UCHAR = re.compile(r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}")
_HEX = re.compile("[0-9A-Fa-f]+")
_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}

_Tree = tuple  # a path while it is parsed: ("iri", s) | ("seq"|"alt", [..]) | ("inv", t) | ...


class _Item:
    """One projection item of a SELECT clause, kept until the WHERE clause is known."""

    __slots__ = ("aggregate", "alias", "index", "is_expression", "name", "variables")

    def __init__(
        self,
        name: str,
        index: int,
        *,
        is_expression: bool,
        variables: list[str],
        aggregate: bool,
        alias: int = -1,
    ) -> None:
        self.name = name
        self.index = index
        self.is_expression = is_expression
        self.variables = variables
        self.aggregate = aggregate
        self.alias = alias  # the token index of the variable after AS (-1: none)


class _Select:
    """What the §11.4/§18.2.1 checks of one SELECT (query or sub-query) need to know."""

    __slots__ = (
        "distinct",
        "group_end",
        "group_vars",
        "grouped",
        "items",
        "limit",
        "modifier_aggregate",
        "offset",
        "reduced",
        "star",
        "star_index",
        "where",
        "where_end",
    )

    def __init__(self) -> None:
        self.items: list[_Item] = []
        self.star = False
        self.star_index = 0
        self.distinct = False
        self.reduced = False
        self.where: dict[str, None] = {}
        self.grouped = False
        self.group_vars: set[str] = set()
        self.modifier_aggregate = False
        self.limit: int | None = None
        self.offset: int | None = None
        self.where_end = -1  # token index of the WHERE clause's closing '}'
        self.group_end = -1  # token index of the last GROUP BY condition's last token


class Parser:
    """Parses one query text; :meth:`parse` returns the :class:`ParsedQuery`."""

    def __init__(
        self,
        text: str,
        *,
        strict: bool,
        base: str | None,
        escapes: str = "everywhere",
        prefixes: dict[str, str] | None = None,
        rewrite: bool = False,
    ) -> None:
        tokens = Tokens(text, lenient=not strict, escapes=escapes)
        self.tokens = tokens
        self.kinds = tokens.kinds
        self.texts = tokens.texts
        self.i = 0
        self.strict = strict
        self.base = base
        self.prefixes: dict[str, str] = {}
        self.patterns: list[TriplePattern] = []
        self.out = self.patterns  # where triples go: the body, or a CONSTRUCT template
        self.scope: dict[str, None] | None = None  # in-scope variables of the current group
        self.values: list[Node] = []
        self.expression_iris: list[str] = []
        self.aggregates: dict[str, None] = {}
        self.leniencies: dict[str, None] = dict.fromkeys(tokens.notes)
        # Blank nodes: fresh labels avoid every explicit one; explicit labels must stay within
        # one basic graph pattern (§4.1.4).
        self.explicit = {
            t[2:]
            for k, t in zip(tokens.kinds, tokens.texts, strict=True)
            if k == "BLANK_NODE_LABEL"
        }
        self.fresh = 0
        self.bgp = 0
        self.bgps = 0
        self.label_bgp: dict[str, int] = {}
        # The expression being read: variables outside aggregates, whether aggregates may
        # appear here (§19.8 note 12) and whether one did.
        self.evars: list[str] = []
        self.aggregates_ok = False
        self.aggregate_seen = False
        self.aggregate_depth = 0
        # The prefixes the query's environment predeclares (a dataset's default namespace as
        # ':'), tried before the well-known ones; and the undeclared prefixes the query used.
        self.environment = prefixes or {}
        self.undeclared: dict[str, str] = {}
        # With ``rewrite``: (start, end, text) replacements of the expanded query text that make
        # it standard SPARQL an engine runs as the lenient dialect reads it (service.sparql.
        # standard). Every prefixed name becomes its full IRI (no PREFIX needed, and engines'
        # own quirks with local names such as res:T._E._Lawrence are out of the way).
        self.rewrite = rewrite
        self.edits: list[tuple[int, int, str]] = []
        self.label_tokens: dict[str, list[int]] = {}  # where each blank node label is
        self.shared_labels: set[str] = set()  # labels used in two basic graph patterns
        if rewrite:
            self.edits += [(at, at, " ") for at in sorted(tokens.glued)]

    # ---------------------------------------------------------------- errors and tokens

    def _found(self, index: int) -> str:
        if self.kinds[index] == "EOF":
            return "end of query"
        text = self.texts[index]
        return repr(text if len(text) <= 40 else text[:37] + "...")

    def _expected(self, expected: str, index: int | None = None) -> SparqlSyntaxError:
        at = self.i if index is None else index
        message = f"expected {expected}, found {self._found(at)}"
        return self.tokens.error(self.tokens.offsets[at], message, expected)

    def _error(self, message: str, index: int, expected: str | None = None) -> SparqlSyntaxError:
        return self.tokens.error(self.tokens.offsets[index], message, expected)

    def _expect(self, kind: str, expected: str) -> None:
        if self.kinds[self.i] != kind:
            raise self._expected(expected)
        self.i += 1

    def nested_too_deeply(self) -> SparqlSyntaxError:
        """The error for a query whose nesting exhausted Python's recursion limit."""
        index = min(self.i, len(self.kinds) - 1)
        return self._error("query nested too deeply to parse", index, None)

    def _lenient(self, note: str, index: int) -> None:
        """Accept a non-standard construct in the lenient dialect (and say so), else fail."""
        if self.strict:
            raise self._error(note, index)
        self.leniencies[note] = None

    def _violation(self, message: str, index: int, lenient_note: str) -> None:
        """A static rule of §18.2.1/§11.4/§4.1.4 broken: an error, or a leniency."""
        if self.strict:
            raise self._error(message, index)
        self.leniencies[lenient_note] = None

    # ---------------------------------------------------------------- rewriting

    def _end(self, index: int) -> int:
        return self.tokens.offsets[index] + len(self.texts[index])

    def _as_written(self, first: int, last: int) -> str:
        """Tokens ``first`` … ``last`` quoted as the query wrote them (``COUNT(?emp)``, not
        ``COUNT ( ?emp )``), its line breaks and runs of blanks one space."""
        return " ".join(self.tokens.text[self.tokens.offsets[first] : self._end(last)].split())

    def _insert_before(self, index: int, text: str) -> None:
        if self.rewrite:
            at = self.tokens.offsets[index]
            self.edits.append((at, at, text))

    def _insert_after(self, index: int, text: str) -> None:
        if self.rewrite:
            at = self._end(index)
            self.edits.append((at, at, text))

    def _replace(self, first: int, last: int, text: str) -> None:
        """Replace tokens ``first`` … ``last`` (and what lies between them) by ``text``."""
        if self.rewrite:
            self.edits.append((self.tokens.offsets[first], self._end(last), text))

    def _fresh_variable(self, base: str, taken: set[str] | dict[str, None]) -> str:
        n = 1
        while f"{base}_{n}" in taken:
            n += 1
        return f"{base}_{n}"

    # ---------------------------------------------------------------- [1] QueryUnit

    def parse(self) -> ParsedQuery:
        self._prologue()
        kind = self.kinds[self.i]
        select: _Select
        template: list[TriplePattern] = []
        described: list[Node] = []
        graphs: tuple[list[str], list[str]] = ([], [])
        form: QueryForm
        if kind == "SELECT":
            form = "SELECT"
            select = self._select_query(graphs)
        elif kind == "CONSTRUCT":
            form = "CONSTRUCT"
            select = self._construct_query(graphs, template)
        elif kind == "DESCRIBE":
            form = "DESCRIBE"
            select = self._describe_query(graphs, described)
        elif kind == "ASK":
            form = "ASK"
            self.i += 1
            select = _Select()
            self._dataset_clauses(graphs)
            self._where_clause(select)
            self._solution_modifier(select)
            self._values_clause(select)
        elif kind in _UPDATES:
            raise self._error(
                "this is a SPARQL Update request; updates are not queries",
                self.i,
                "SELECT, ASK, CONSTRUCT or DESCRIBE",
            )
        else:
            raise self._expected("SELECT, ASK, CONSTRUCT, DESCRIBE, PREFIX or BASE")
        if self.kinds[self.i] != "EOF":
            raise self._expected(
                "GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET, VALUES or the end of the query"
            )
        for label in self.shared_labels:
            # One node meant in two basic graph patterns (Virtuoso joins them): a variable.
            for index in self.label_tokens.get(label, ()):
                self._replace(index, index, f"?bnode_{label}")
        projection: tuple[str, ...] = ()
        if form == "SELECT" or (form == "DESCRIBE" and select.star):
            projection = self._projection(select)
        elif form == "DESCRIBE":
            projection = tuple(item.name for item in select.items)
        return ParsedQuery(
            form=form,
            projection=projection,
            select_star=select.star,
            distinct=select.distinct,
            reduced=select.reduced,
            patterns=tuple(self.patterns),
            template=tuple(template),
            values=tuple(self.values),
            expression_iris=tuple(self.expression_iris),
            described=tuple(described),
            aggregates=tuple(self.aggregates),
            prefixes=MappingProxyType(self.prefixes),
            leniencies=tuple(self.leniencies),
            base=self.base,
            from_graphs=tuple(graphs[0]),
            from_named=tuple(graphs[1]),
            limit=select.limit,
            offset=select.offset,
        )

    # [4] Prologue ::= ( BaseDecl | PrefixDecl )*
    def _prologue(self) -> None:
        kinds, texts = self.kinds, self.texts
        while True:
            kind = kinds[self.i]
            if kind == "BASE":  # [5]
                self.i += 1
                if kinds[self.i] != "IRIREF":
                    raise self._expected("an IRI in angle brackets after BASE")
                self.base = resolve(self.base, texts[self.i][1:-1])
                self.i += 1
            elif kind == "PREFIX":  # [6] PrefixDecl ::= 'PREFIX' PNAME_NS IRIREF
                self.i += 1
                if kinds[self.i] != "PNAME" or not texts[self.i].endswith(":"):
                    raise self._expected("a prefix name ending in ':' after PREFIX")
                name = texts[self.i][:-1]
                if ":" in name:
                    raise self._expected("a prefix name ending in ':' after PREFIX")
                self.i += 1
                if kinds[self.i] != "IRIREF":
                    raise self._expected("an IRI in angle brackets")
                self.prefixes[name] = resolve(self.base, texts[self.i][1:-1])
                self.i += 1
            else:
                return

    # ---------------------------------------------------------------- query forms

    # [7] SelectQuery ::= SelectClause DatasetClause* WhereClause SolutionModifier
    def _select_query(self, graphs: tuple[list[str], list[str]]) -> _Select:
        select = _Select()
        self._select_clause(select)
        self._dataset_clauses(graphs)
        self._where_clause(select)
        self._solution_modifier(select)
        self._values_clause(select)  # [2] the query's ValuesClause
        return select

    # [8] SubSelect ::= SelectClause WhereClause SolutionModifier ValuesClause
    def _sub_select(self) -> tuple[str, ...]:
        select = _Select()
        self._select_clause(select)
        if self.kinds[self.i] == "FROM":
            # Virtuoso reads FROM inside a sub-query (QALD-6 data-cube gold queries).
            self._lenient("FROM inside a sub-query", self.i)
            start = self.i
            self._dataset_clauses(([], []))
            self._replace(start, self.i - 1, "")  # no standard equivalent: the KB is one graph
        self._where_clause(select)
        self._solution_modifier(select)
        self._values_clause(select)
        return self._projection(select)

    # [9] SelectClause ::= 'SELECT' ( 'DISTINCT' | 'REDUCED' )?
    #                      ( ( Var | ( '(' Expression 'AS' Var ')' ) )+ | '*' )
    def _select_clause(self, select: _Select) -> None:
        kinds, texts = self.kinds, self.texts
        self.i += 1
        if kinds[self.i] == "DISTINCT":
            select.distinct = True
            self.i += 1
        elif kinds[self.i] == "REDUCED":
            select.reduced = True
            self.i += 1
        if kinds[self.i] == "*":
            select.star = True
            select.star_index = self.i
            self.i += 1
            return
        items = select.items
        while True:
            kind = kinds[self.i]
            start = self.i
            if kind == "VAR" and (self.strict or kinds[start + 1] not in _ARITHMETIC):
                items.append(
                    _Item(
                        texts[start][1:], start, is_expression=False, variables=[], aggregate=False
                    )
                )
                self.i += 1
            elif kind == "(":
                self.i += 1
                variables, aggregate = self._in_expression(self._expression, aggregates=True)
                if kinds[self.i] == "AS":
                    self.i += 1
                    name = self._var_name()
                    alias = self.i - 1
                    self._expect(")", "')'")
                elif kinds[self.i] == ")" and not self.strict:
                    self.i += 1
                    if self.i == start + 3 and kinds[start + 1] == "VAR" and kinds[self.i] != "AS":
                        # Virtuoso: SELECT DISTINCT(?x) / SELECT (?x) projects ?x itself.
                        name = texts[start + 1][1:]
                        self._lenient(f"parenthesised variable '(?{name})' projected", start)
                        self._replace(start, start, " ")
                        self._replace(start + 2, start + 2, " ")
                        items.append(
                            _Item(name, start, is_expression=False, variables=[], aggregate=False)
                        )
                        continue
                    name, alias = self._unnamed_projection(select, start, in_parentheses=True)
                else:
                    raise self._expected("'AS'")
                items.append(
                    _Item(
                        name,
                        start,
                        is_expression=True,
                        variables=variables,
                        aggregate=aggregate,
                        alias=alias,
                    )
                )
            elif not self.strict and (kind in _BUILTINS or kind in _IRIS or kind == "VAR"):
                # Virtuoso: SELECT COUNT(?x), SELECT xsd:date(?d), SELECT SUM(?x) AS ?s,
                # SELECT ?total/?years (a VAR only gets here when an operator follows it)
                variables, aggregate = self._in_expression(self._expression, aggregates=True)
                name, alias = self._unnamed_projection(select, start, in_parentheses=False)
                items.append(
                    _Item(
                        name,
                        start,
                        is_expression=True,
                        variables=variables,
                        aggregate=aggregate,
                        alias=alias,
                    )
                )
            else:
                break
        if not items:
            raise self._expected("'*', a variable or '(' expression AS variable ')'")

    def _unnamed_projection(
        self, select: _Select, start: int, *, in_parentheses: bool
    ) -> tuple[str, int]:
        """Lenient: an expression projected without the ``( … AS ?v )`` form; its name and
        the token index of its AS variable (-1: none)."""
        shown = self._as_written(start, min(self.i, start + 12) - 1)
        if self.i > start + 12:
            shown += " …"
        if self.kinds[self.i] == "AS":
            self.i += 1
            name = self._var_name()
            what = "'(expression) AS ?var'" if in_parentheses else "'expression AS ?var'"
            self._lenient(f"{what} projected without enclosing parentheses: {shown}", start)
            self._insert_before(start, "(")
            self._insert_after(self.i - 1, ")")
            return name, self.i - 1
        name = f"callret-{len(select.items)}"
        self._lenient(
            f"expression projected without 'AS ?var' (Virtuoso names it {name}): {shown}", start
        )
        standard = "?" + name.replace("-", "_")  # a SPARQL variable name has no '-'
        if in_parentheses:
            self._insert_before(self.i - 1, f" AS {standard}")
        else:
            self._insert_before(start, "(")
            self._insert_after(self.i - 1, f" AS {standard})")
        return name, -1

    # [10] ConstructQuery ::= 'CONSTRUCT' ( ConstructTemplate DatasetClause* WhereClause
    #   SolutionModifier | DatasetClause* 'WHERE' '{' TriplesTemplate? '}' SolutionModifier )
    def _construct_query(
        self, graphs: tuple[list[str], list[str]], template: list[TriplePattern]
    ) -> _Select:
        select = _Select()
        self.i += 1
        if self.kinds[self.i] == "{":
            self.i += 1  # [73] ConstructTemplate ::= '{' ConstructTriples? '}'
            self.out, self.scope = template, None
            self._triples_template()
            self.out = self.patterns
            self._expect("}", "'}' or a triple pattern")
            self._dataset_clauses(graphs)
            self._where_clause(select)
        else:
            self._dataset_clauses(graphs)
            self._expect("WHERE", "'{' or WHERE")
            self._expect("{", "'{'")
            self.scope = select.where
            self.bgp = self._new_bgp()
            start = len(self.patterns)
            self._triples_template()
            self._expect("}", "'}' or a triple pattern")
            template.extend(self.patterns[start:])
            self.scope = None
        self._solution_modifier(select)
        self._values_clause(select)
        return select

    # [11] DescribeQuery ::= 'DESCRIBE' ( VarOrIri+ | '*' ) DatasetClause* WhereClause?
    #                        SolutionModifier
    def _describe_query(
        self, graphs: tuple[list[str], list[str]], described: list[Node]
    ) -> _Select:
        select = _Select()
        kinds = self.kinds
        self.i += 1
        if kinds[self.i] == "*":
            select.star = True
            self.i += 1
        else:
            while kinds[self.i] in ("VAR", "IRIREF", "PNAME"):
                if kinds[self.i] == "VAR":
                    name = self.texts[self.i][1:]
                    select.items.append(
                        _Item(name, self.i, is_expression=False, variables=[], aggregate=False)
                    )
                    self.i += 1
                else:
                    described.append(Node("iri", self._iri()))
            if not select.items and not described:
                raise self._expected("'*', a variable or an IRI")
        self._dataset_clauses(graphs)
        if kinds[self.i] in ("WHERE", "{"):
            self._where_clause(select)
        self._solution_modifier(select)
        self._values_clause(select)
        return select

    # [13] DatasetClause ::= 'FROM' ( DefaultGraphClause | NamedGraphClause )
    def _dataset_clauses(self, graphs: tuple[list[str], list[str]]) -> None:
        while self.kinds[self.i] == "FROM":
            self.i += 1
            named = self.kinds[self.i] == "NAMED"
            if named:
                self.i += 1
            graphs[1 if named else 0].append(self._iri())

    # [17] WhereClause ::= 'WHERE'? GroupGraphPattern
    def _where_clause(self, select: _Select) -> None:
        if self.kinds[self.i] == "WHERE":
            self.i += 1
        elif self.kinds[self.i] != "{":
            raise self._expected("WHERE or '{'")
        select.where.update(self._group_graph_pattern())
        select.where_end = self.i - 1

    # [18] SolutionModifier ::= GroupClause? HavingClause? OrderClause? LimitOffsetClauses?
    def _solution_modifier(self, select: _Select) -> None:
        kinds = self.kinds
        if kinds[self.i] == "GROUP":  # [19] GroupClause ::= 'GROUP' 'BY' GroupCondition+
            self.i += 1
            self._expect("BY", "BY")
            select.grouped = True
            start = self.i
            while self._group_condition(select):
                pass
            if self.i == start:
                raise self._expected("a variable, '(' expression ')' or a function call")
            select.group_end = self.i - 1
        if kinds[self.i] == "HAVING":  # [21] HavingClause ::= 'HAVING' HavingCondition+
            self.i += 1
            if not self._constraint_start():
                raise self._expected("'(' expression ')' or a function call")
            while self._constraint_start():
                read = self._constraint
                start = self.i
                bare = not self.strict and self.kinds[self._constraint_end()] in _OPERATORS
                if bare:
                    # Virtuoso: HAVING SUM(?x) > 1000 (statisticalQA gold queries)
                    self._lenient("HAVING condition without enclosing parentheses", self.i)
                    read = self._expression
                _, aggregate = self._in_expression(read, aggregates=True)
                if bare:
                    self._insert_before(start, "(")
                    self._insert_after(self.i - 1, ")")
                select.modifier_aggregate |= aggregate
        if kinds[self.i] == "ORDER":  # [23] OrderClause ::= 'ORDER' 'BY' OrderCondition+
            self.i += 1
            self._expect("BY", "BY")
            start = self.i
            while self._order_condition(select):
                pass
            if self.i == start:
                raise self._expected("ASC, DESC, a variable or '(' expression ')'")
        # [25] LimitOffsetClauses ::= LimitClause OffsetClause? | OffsetClause LimitClause?
        if kinds[self.i] == "LIMIT":
            select.limit = self._integer_after_keyword()
            if kinds[self.i] == "OFFSET":
                select.offset = self._integer_after_keyword()
        elif kinds[self.i] == "OFFSET":
            select.offset = self._integer_after_keyword()
            if kinds[self.i] == "LIMIT":
                select.limit = self._integer_after_keyword()

    def _integer_after_keyword(self) -> int:
        self.i += 1
        if self.kinds[self.i] != "INTEGER" or self.texts[self.i][0] in "+-":
            raise self._expected("an unsigned integer")
        self.i += 1
        try:
            return int(self.texts[self.i - 1])
        except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
            raise self._error("integer too large", self.i - 1, "a smaller integer") from None

    # [20] GroupCondition ::= BuiltInCall | FunctionCall | '(' Expression ( 'AS' Var )? ')' | Var
    def _group_condition(self, select: _Select) -> bool:
        kind = self.kinds[self.i]
        if kind == "VAR":
            select.group_vars.add(self.texts[self.i][1:])
            self.i += 1
        elif kind == "(":
            self.i += 1
            bare = self.kinds[self.i] == "VAR" and self.kinds[self.i + 1] in ("AS", ")")
            name = self.texts[self.i][1:]
            self._in_expression(self._expression, aggregates=False)
            if self.kinds[self.i] == "AS":
                self.i += 1
                alias = self.texts[self.i][1:]
                self._var_name()
                select.group_vars.add(alias)
                select.where.setdefault(alias)  # §18.2.1: GROUP BY (e AS v) puts v in scope
            elif bare:
                select.group_vars.add(name)
            self._expect(")", "')' or AS")
        elif kind in _BUILTINS or kind in _IRIS:
            self._in_expression(self._constraint, aggregates=False)
        else:
            return False
        return True

    # [24] OrderCondition ::= ( ( 'ASC' | 'DESC' ) BrackettedExpression ) | ( Constraint | Var )
    def _order_condition(self, select: _Select) -> bool:
        kind = self.kinds[self.i]
        if kind in ("ASC", "DESC"):
            self.i += 1
            if self.kinds[self.i] != "(":
                raise self._expected("'(' after " + kind)
            _, aggregate = self._in_expression(self._constraint, aggregates=True)
        elif kind == "VAR":
            self.i += 1
            return True
        elif self._constraint_start():
            _, aggregate = self._in_expression(self._constraint, aggregates=True)
        else:
            return False
        select.modifier_aggregate |= aggregate
        return True

    # [28] ValuesClause ::= ( 'VALUES' DataBlock )?
    def _values_clause(self, select: _Select) -> None:
        if self.kinds[self.i] == "VALUES":
            self.i += 1
            for name in self._data_block():
                select.where.setdefault(name)

    def _projection(self, select: _Select) -> tuple[str, ...]:
        """Projected names, after the static checks of §18.2.1 and §11.4.

        In the lenient dialect each breach is read as Virtuoso reads it, and (with
        ``rewrite``) rewritten so: an AS target that is already taken gets a fresh name, a
        variable projected twice once, a variable neither grouped nor aggregated is grouped by.
        """
        items = select.items
        names: list[str] = []
        taken: set[str] = set(select.where) | {item.name for item in items}
        for item in items:
            if item.is_expression and item.name in select.where:
                self._violation(
                    f"?{item.name} is already in scope in the WHERE clause and cannot be the "
                    "target of AS (SPARQL 1.1 §18.2.1)",
                    item.index,
                    f"?{item.name} is both bound in the WHERE clause and assigned with AS",
                )
                self._rename_alias(item, taken)
            elif item.is_expression and item.name in names:
                self._violation(
                    f"?{item.name} is already projected and cannot be the target of AS "
                    "(SPARQL 1.1 §18.2.1)",
                    item.index,
                    f"?{item.name} is projected twice",
                )
                self._rename_alias(item, taken)
            elif not item.is_expression and item.name in names:
                self._replace(item.index, item.index, "")  # engines refuse a repeated variable
            names.append(item.name)
        aggregate = (
            select.grouped or select.modifier_aggregate or any(item.aggregate for item in items)
        )
        if aggregate:
            # §11.4: in an aggregate query only grouped variables (and earlier aliases) may be
            # projected outside an aggregate.
            allowed = set(select.group_vars)
            ungrouped: dict[str, None] = {}
            for item in items:
                loose = item.variables if item.is_expression else [item.name]
                for name in loose:
                    if name not in allowed:
                        self._violation(
                            f"?{name} is projected but neither grouped nor aggregated "
                            "(SPARQL 1.1 §11.4)",
                            item.index,
                            f"?{name} projected from an aggregate query without GROUP BY ?{name} "
                            "(Virtuoso groups by it implicitly)",
                        )
                        ungrouped[name] = None
                allowed.add(item.name)
            if select.star:
                if select.grouped:
                    self._violation(
                        "SELECT * is only permitted when the query has no GROUP BY "
                        "(SPARQL 1.1 §16.1.1)",
                        select.star_index,
                        "SELECT * with GROUP BY (the grouped variables are projected)",
                    )
                    projected = tuple(name for name in select.where if name in allowed)
                else:
                    for name in select.where:
                        if name not in allowed:
                            self._violation(
                                f"SELECT * in an aggregate query projects ?{name}, which is "
                                "not grouped (SPARQL 1.1 §11.4)",
                                select.star_index,
                                "SELECT * in an aggregate query",
                            )
                            break
                    projected = tuple(name for name in select.where if name in allowed)
                if projected:
                    star = " ".join(f"?{name}" for name in projected)
                    self._replace(select.star_index, select.star_index, star)
                self._group_by(select, ungrouped)
                return projected
            self._group_by(select, ungrouped)
        if select.star:
            return tuple(select.where)
        return tuple(names)

    def _rename_alias(self, item: _Item, taken: set[str]) -> None:
        if item.alias >= 0:
            fresh = self._fresh_variable(item.name, taken)
            taken.add(fresh)
            self._replace(item.alias, item.alias, f"?{fresh}")

    def _group_by(self, select: _Select, names: dict[str, None]) -> None:
        """Rewrite: group by ``names`` too (Virtuoso's implicit grouping made explicit)."""
        if not names:
            return
        spelled = " ".join(f"?{name}" for name in names)
        if select.grouped:
            self._insert_after(select.group_end, f" {spelled}")
        elif select.where_end >= 0:
            self._insert_after(select.where_end, f" GROUP BY {spelled}")

    # ---------------------------------------------------------------- graph patterns

    def _new_bgp(self) -> int:
        self.bgps += 1
        return self.bgps

    # [53] GroupGraphPattern ::= '{' ( SubSelect | GroupGraphPatternSub ) '}'
    def _group_graph_pattern(self) -> dict[str, None]:
        self._expect("{", "'{'")
        outer_scope, outer_bgp = self.scope, self.bgp
        scope: dict[str, None] = {}
        self.scope = scope
        self.bgp = self._new_bgp()
        if self.kinds[self.i] == "SELECT":
            scope.update(dict.fromkeys(self._sub_select()))
            self.scope = scope
            self._expect("}", "'}' after the sub-query")
        else:
            self._group_graph_pattern_sub(scope)
            self.i += 1  # the '}' the loop stopped at
        self.scope, self.bgp = outer_scope, outer_bgp
        return scope

    # [54] GroupGraphPatternSub ::= TriplesBlock? ( GraphPatternNotTriples '.'? TriplesBlock? )*
    # [55] TriplesBlock ::= TriplesSameSubjectPath ( '.' TriplesBlock? )?
    def _group_graph_pattern_sub(self, scope: dict[str, None]) -> None:
        kinds = self.kinds
        open_triple = False  # a triple just ended without '.'
        while True:
            kind = kinds[self.i]
            if kind == "}":
                return
            if kind in _TRIPLE_START:
                if open_triple:
                    raise self._expected("'.' or '}'")
                self._triples_same_subject(path=True)
                if kinds[self.i] == ".":
                    self.i += 1
                    open_triple = False
                else:
                    open_triple = True
            elif kind in _PATTERN_START:
                self._graph_pattern_not_triples(scope)
                open_triple = False
                if kinds[self.i] == ".":
                    self.i += 1
            else:
                if open_triple:
                    raise self._expected("'.', '}' or a graph pattern")
                raise self._expected("'}', a triple pattern or a graph pattern")

    # [56] GraphPatternNotTriples
    def _graph_pattern_not_triples(self, scope: dict[str, None]) -> None:
        kind = self.kinds[self.i]
        if kind == "FILTER":  # [68] Filter ::= 'FILTER' Constraint
            self.i += 1
            if not self._constraint_start():
                raise self._expected("'(' expression ')', a built-in call or a function call")
            self._in_expression(self._constraint, aggregates=False)
            return  # a FILTER does not end the basic graph pattern (§18.2.2.1)
        if kind == "{":  # [67] GroupOrUnionGraphPattern
            scope.update(self._group_graph_pattern())
            while self.kinds[self.i] == "UNION":
                self.i += 1
                scope.update(self._group_graph_pattern())
        elif kind == "OPTIONAL":  # [57]
            self.i += 1
            scope.update(self._group_graph_pattern())
        elif kind == "MINUS":  # [66] (its variables stay out of scope)
            self.i += 1
            self._group_graph_pattern()
        elif kind in ("GRAPH", "SERVICE"):  # [58], [59]
            self.i += 1
            if kind == "SERVICE" and self.kinds[self.i] == "SILENT":
                self.i += 1
            if self.kinds[self.i] == "VAR":
                scope.setdefault(self.texts[self.i][1:])
                self.i += 1
            elif self.kinds[self.i] in _IRIS:
                self._iri()
            else:
                raise self._expected("a variable or an IRI")
            scope.update(self._group_graph_pattern())
        elif kind == "BIND":  # [60] Bind ::= 'BIND' '(' Expression 'AS' Var ')'
            self.i += 1
            self._expect("(", "'('")
            self._in_expression(self._expression, aggregates=False)
            self._expect("AS", "AS")
            index = self.i
            name = self._var_name()
            if name in scope:
                self._violation(
                    f"?{name} is already in scope before BIND (SPARQL 1.1 §18.2.1)",
                    index,
                    f"BIND assigns ?{name}, already bound earlier in its group",
                )
            scope.setdefault(name)
            self._expect(")", "')'")
        else:  # [61] InlineData ::= 'VALUES' DataBlock
            self.i += 1
            for name in self._data_block():
                scope.setdefault(name)
        self.bgp = self._new_bgp()

    # [62] DataBlock ::= InlineDataOneVar | InlineDataFull
    def _data_block(self) -> list[str]:
        kinds = self.kinds
        if kinds[self.i] == "VAR":  # [63] InlineDataOneVar ::= Var '{' DataBlockValue* '}'
            names = [self.texts[self.i][1:]]
            self.i += 1
            self._expect("{", "'{'")
            while kinds[self.i] != "}":
                self._data_block_value()
            self.i += 1
            return names
        # [64] InlineDataFull ::= ( NIL | '(' Var* ')' ) '{' ( '(' DataBlockValue* ')' | NIL )* '}'
        names = []
        if kinds[self.i] == "(":
            self.i += 1
            while kinds[self.i] == "VAR":
                names.append(self.texts[self.i][1:])
                self.i += 1
            self._expect(")", "a variable or ')'")
        elif kinds[self.i] == "NIL":
            self.i += 1
        else:
            raise self._expected("a variable or '(' variables ')'")
        self._expect("{", "'{'")
        while True:
            kind = kinds[self.i]
            start = self.i
            if kind == "}":
                self.i += 1
                return names
            if kind == "NIL":
                self.i += 1
                count = 0
            elif kind == "(":
                self.i += 1
                count = 0
                while kinds[self.i] != ")":
                    self._data_block_value()
                    count += 1
                self.i += 1
            else:
                raise self._expected("'(' values ')' or '}'")
            if count != len(names):
                # Each row gives one value (or UNDEF) per variable (§10.2).
                raise self._error(
                    f"VALUES row has {count} value(s) for {len(names)} variable(s)", start
                )

    # [65] DataBlockValue ::= iri | RDFLiteral | NumericLiteral | BooleanLiteral | 'UNDEF'
    def _data_block_value(self) -> None:
        kind = self.kinds[self.i]
        if kind == "UNDEF":
            self.i += 1
        elif kind in _IRIS or kind in _STRINGS or kind in _NUMBERS or kind in ("TRUE", "FALSE"):
            self.values.append(self._var_or_term())
        else:
            raise self._expected("an IRI, a literal or UNDEF")

    # ---------------------------------------------------------------- triples

    # [52] TriplesTemplate / [74] ConstructTriples ::= TriplesSameSubject ( '.' ConstructTriples? )?
    def _triples_template(self) -> None:
        kinds = self.kinds
        while kinds[self.i] in _TRIPLE_START:
            self._triples_same_subject(path=False)
            if kinds[self.i] != ".":
                return
            self.i += 1

    # [75] TriplesSameSubject ::= VarOrTerm PropertyListNotEmpty | TriplesNode PropertyList
    # [81] TriplesSameSubjectPath ::= VarOrTerm PropertyListPathNotEmpty
    #                                 | TriplesNodePath PropertyListPath
    def _triples_same_subject(self, *, path: bool) -> None:
        kind = self.kinds[self.i]
        if kind == "[" or kind == "(":
            subject = self._graph_node(path=path)
            if self.kinds[self.i] in (_PATH_VERB_START if path else _VERB_START):
                self._property_list_not_empty(subject, path=path)
        else:
            subject = self._var_or_term()
            self._property_list_not_empty(subject, path=path)

    # [77] PropertyListNotEmpty ::= Verb ObjectList ( ';' ( Verb ObjectList )? )*
    # [83] PropertyListPathNotEmpty ::= ( VerbPath | VerbSimple ) ObjectListPath
    #      ( ';' ( ( VerbPath | VerbSimple ) ObjectList )? )*
    # (The objects after ';' are read as ObjectListPath, the SPARQL 1.1 erratum's reading.)
    def _property_list_not_empty(self, subject: Node, *, path: bool) -> None:
        kinds = self.kinds
        starts = _PATH_VERB_START if path else _VERB_START
        while True:
            predicate = self._verb(path=path)
            self._object_list(subject, predicate, path=path)
            if kinds[self.i] != ";":
                return
            while kinds[self.i] == ";":
                self.i += 1
            if kinds[self.i] not in starts:
                return

    # [78] Verb ::= VarOrIri | 'a'    [84] VerbPath ::= Path    [85] VerbSimple ::= Var
    def _verb(self, *, path: bool) -> Node | Path:
        kind = self.kinds[self.i]
        if kind == "VAR":
            return self._var_or_term()
        if path and kind in _PATH_VERB_START:
            return self._path()
        if kind in _IRIS:
            return Node("iri", self._iri())
        if kind == "a":
            self.i += 1
            return _TYPE
        raise self._expected(
            "a predicate (an IRI, 'a', a variable or a property path)"
            if path
            else "a predicate (an IRI, 'a' or a variable)"
        )

    # [79] ObjectList ::= Object ( ',' Object )*    [86] ObjectListPath
    def _object_list(self, subject: Node, predicate: Node | Path, *, path: bool) -> None:
        out = self.out
        while True:
            at = len(out)
            obj = self._graph_node(path=path)
            triple = TriplePattern(subject, predicate, obj)
            if at == len(out):
                out.append(triple)
            else:  # the object's own triples came first; the triple that names it goes before
                out.insert(at, triple)
            if self.kinds[self.i] != ",":
                return
            self.i += 1

    # [104] GraphNode ::= VarOrTerm | TriplesNode    [105] GraphNodePath
    def _graph_node(self, *, path: bool) -> Node:
        kind = self.kinds[self.i]
        if kind == "[":  # [99] BlankNodePropertyList ::= '[' PropertyListNotEmpty ']'
            self.i += 1
            node = self._fresh()
            self._property_list_not_empty(node, path=path)
            self._expect("]", "']', ';' or ','")
            return node
        if kind == "(":  # [102] Collection ::= '(' GraphNode+ ')', expanded as in §18.2.2.4
            self.i += 1
            head = cell = self._fresh()
            out = self.out
            while True:
                at = len(out)
                item = self._graph_node(path=path)
                out.insert(at, TriplePattern(cell, _FIRST, item))
                if self.kinds[self.i] == ")":
                    self.i += 1
                    out.append(TriplePattern(cell, _REST, _NIL))
                    return head
                following = self._fresh()
                out.append(TriplePattern(cell, _REST, following))
                cell = following
        return self._var_or_term()

    def _fresh(self) -> Node:
        label = f"b{self.fresh}"
        while label in self.explicit:
            self.fresh += 1
            label = f"b{self.fresh}"
        self.fresh += 1
        return Node("bnode", label)

    # [106] VarOrTerm ::= Var | GraphTerm
    # [109] GraphTerm ::= iri | RDFLiteral | NumericLiteral | BooleanLiteral | BlankNode | NIL
    def _var_or_term(self) -> Node:
        kind = self.kinds[self.i]
        text = self.texts[self.i]
        if kind == "VAR":
            self.i += 1
            if self.scope is not None:
                self.scope.setdefault(text[1:])
            return Node("var", text[1:])
        if kind in _IRIS:
            return Node("iri", self._iri())
        if kind in _STRINGS:
            return self._rdf_literal()
        if kind in _NUMBERS:
            self.i += 1
            return Node("literal", text, _NUMBER_TYPES[kind])
        if kind == "TRUE" or kind == "FALSE":
            self.i += 1
            return Node("literal", text.lower(), _BOOLEAN)
        if kind == "BLANK_NODE_LABEL":
            label = text[2:]
            if self.scope is not None:
                first = self.label_bgp.setdefault(label, self.bgp)
                if self.rewrite:
                    self.label_tokens.setdefault(label, []).append(self.i)
                if first != self.bgp:
                    self.shared_labels.add(label)
                    self._violation(
                        f"blank node label _:{label} is used in two basic graph patterns "
                        "(SPARQL 1.1 §4.1.4)",
                        self.i,
                        f"blank node label _:{label} shared by two basic graph patterns",
                    )
            self.i += 1
            return Node("bnode", label)
        if kind == "ANON":
            self.i += 1
            return self._fresh()
        if kind == "NIL":
            self.i += 1
            return _NIL
        raise self._expected("an RDF term or a variable")

    def _var_name(self) -> str:
        if self.kinds[self.i] != "VAR":
            raise self._expected("a variable")
        self.i += 1
        return self.texts[self.i - 1][1:]

    # ---------------------------------------------------------------- property paths

    # [88] Path ::= PathAlternative
    def _path(self) -> Node | Path:
        tree = self._path_alternative()
        if tree[0] == "iri":
            return Node("iri", tree[1])
        iris: dict[str, None] = {}
        return Path(_path_text(tree, iris), tuple(iris))

    # [89] PathAlternative ::= PathSequence ( '|' PathSequence )*
    def _path_alternative(self) -> _Tree:
        return self._path_list("|", "alt", self._path_sequence)

    # [90] PathSequence ::= PathEltOrInverse ( '/' PathEltOrInverse )*
    def _path_sequence(self) -> _Tree:
        return self._path_list("/", "seq", self._path_elt_or_inverse)

    def _path_list(self, operator: str, kind: str, part_of: Callable[[], _Tree]) -> _Tree:
        """``part ( operator part )*`` as one ``kind`` node; a bracketed part of the same kind
        is flattened into it (``:p/(:q/:r)`` is ``:p/:q/:r``), a lone part is itself."""
        first = part_of()
        if self.kinds[self.i] != operator:
            return first
        parts = list(first[1]) if first[0] == kind else [first]
        while self.kinds[self.i] == operator:
            self.i += 1
            part = part_of()
            parts.extend(part[1] if part[0] == kind else [part])
        return (kind, parts)

    # [92] PathEltOrInverse ::= PathElt | '^' PathElt
    def _path_elt_or_inverse(self) -> _Tree:
        if self.kinds[self.i] == "^":
            self.i += 1
            return ("inv", self._path_elt())
        return self._path_elt()

    # [91] PathElt ::= PathPrimary PathMod?    [93] PathMod ::= '?' | '*' | '+'
    def _path_elt(self) -> _Tree:
        primary = self._path_primary()
        kind = self.kinds[self.i]
        if kind == "*" or kind == "+" or kind == "?":
            self.i += 1
            return ("mod", primary, kind)
        return primary

    # [94] PathPrimary ::= iri | 'a' | '!' PathNegatedPropertySet | '(' Path ')'
    def _path_primary(self) -> _Tree:
        kind = self.kinds[self.i]
        if kind in _IRIS:
            return ("iri", self._iri())
        if kind == "a":
            self.i += 1
            return ("iri", RDF_TYPE)
        if kind == "!":
            self.i += 1
            return ("neg", self._path_negated_property_set())
        if kind == "(":
            self.i += 1
            inner = self._path_alternative()
            self._expect(")", "')'")
            return inner
        raise self._expected("a property path (an IRI, 'a', '^', '!' or '(')")

    # [95] PathNegatedPropertySet ::= PathOneInPropertySet
    #      | '(' ( PathOneInPropertySet ( '|' PathOneInPropertySet )* )? ')'
    def _path_negated_property_set(self) -> list[tuple[bool, str]]:
        kind = self.kinds[self.i]
        if kind == "NIL":
            self.i += 1
            return []
        if kind != "(":
            return [self._path_one_in_property_set()]
        self.i += 1
        members = [self._path_one_in_property_set()]
        while self.kinds[self.i] == "|":
            self.i += 1
            members.append(self._path_one_in_property_set())
        self._expect(")", "'|' or ')'")
        return members

    # [96] PathOneInPropertySet ::= iri | 'a' | '^' ( iri | 'a' )
    def _path_one_in_property_set(self) -> tuple[bool, str]:
        inverse = self.kinds[self.i] == "^"
        if inverse:
            self.i += 1
        kind = self.kinds[self.i]
        if kind in _IRIS:
            return inverse, self._iri()
        if kind == "a":
            self.i += 1
            return inverse, RDF_TYPE
        raise self._expected("an IRI or 'a'")

    # ---------------------------------------------------------------- expressions

    def _in_expression(
        self, read: Callable[[], object], *, aggregates: bool
    ) -> tuple[list[str], bool]:
        """Run ``read`` (an expression production) in a fresh expression context.

        Returns the variables used outside aggregates and whether an aggregate appeared.
        """
        saved = (self.evars, self.aggregates_ok, self.aggregate_seen, self.aggregate_depth)
        self.evars, self.aggregates_ok, self.aggregate_seen, self.aggregate_depth = (
            [],
            aggregates,
            False,
            0,
        )
        read()
        result = (self.evars, self.aggregate_seen)
        self.evars, self.aggregates_ok, self.aggregate_seen, self.aggregate_depth = saved
        return result

    def _constraint_end(self) -> int:
        """Index of the token after the Constraint that starts here (brackets balanced)."""
        kinds = self.kinds
        at = self.i
        if kinds[at] != "(":
            at += 1  # the function's name
            if kinds[at - 1] == "NOT":
                at += 1  # NOT EXISTS
        depth = 0
        while kinds[at] != "EOF":
            if kinds[at] in ("(", "{", "["):
                depth += 1
            elif kinds[at] in (")", "}", "]"):
                depth -= 1
            at += 1
            if depth <= 0:
                break
        return at

    def _constraint_start(self) -> bool:
        kind = self.kinds[self.i]
        return (
            kind == "("
            or kind in _IRIS
            or (kind in _BUILTINS and kind != "NOT")
            or (kind == "NOT" and self.kinds[self.i + 1] == "EXISTS")
        )

    # [69] Constraint ::= BrackettedExpression | BuiltInCall | FunctionCall
    def _constraint(self) -> None:
        kind = self.kinds[self.i]
        if kind == "(":
            self.i += 1
            self._expression()
            self._expect(")", "')'")
        elif kind in _IRIS:  # [70] FunctionCall ::= iri ArgList
            self._iri()
            if self.kinds[self.i] not in ("(", "NIL"):
                raise self._expected("'(' (arguments of the function call)")
            self._arg_list()
        else:
            self._builtin_call()

    # [110] Expression ::= ConditionalOrExpression
    # [111] ConditionalOrExpression ::= ConditionalAndExpression ( '||' ConditionalAndExpression )*
    def _expression(self) -> None:
        self._and_expression()
        while self.kinds[self.i] == "||":
            self.i += 1
            self._and_expression()

    # [112] ConditionalAndExpression ::= ValueLogical ( '&&' ValueLogical )*
    def _and_expression(self) -> None:
        self._relational_expression()
        while self.kinds[self.i] == "&&":
            self.i += 1
            self._relational_expression()

    # [114] RelationalExpression ::= NumericExpression ( '=' NumericExpression | …
    #       | 'IN' ExpressionList | 'NOT' 'IN' ExpressionList )?
    def _relational_expression(self) -> None:
        self._additive_expression()
        kind = self.kinds[self.i]
        if kind == "IRIREF":
            # "?a<?b&&?c>?d": longest match made "<?b&&?c>" an IRIREF, but no IRI can follow
            # an operand, so this '<' is less-than (as rdflib and Oxigraph read it too).
            self.tokens.split_less_than(self.i)
            self.leniencies.update(dict.fromkeys(self.tokens.notes))
            kind = self.kinds[self.i]
        if kind in _RELATIONAL:
            self.i += 1
            self._additive_expression()
        elif kind == "IN":
            self.i += 1
            self._expression_list()
        elif kind == "NOT" and self.kinds[self.i + 1] == "IN":
            self.i += 2
            self._expression_list()

    # [116] AdditiveExpression ::= MultiplicativeExpression ( '+' MultiplicativeExpression
    #   | '-' MultiplicativeExpression | ( NumericLiteralPositive | NumericLiteralNegative )
    #   ( ( '*' UnaryExpression ) | ( '/' UnaryExpression ) )* )*
    def _additive_expression(self) -> None:
        kinds = self.kinds
        self._multiplicative_expression()
        while True:
            kind = kinds[self.i]
            if kind == "+" or kind == "-":
                self.i += 1
                self._multiplicative_expression()
            elif kind in _NUMBERS and self.texts[self.i][0] in "+-":
                # "?x -1": the sign is part of the number token (§19.8 note 6)
                self.i += 1
                while kinds[self.i] == "*" or kinds[self.i] == "/":
                    self.i += 1
                    self._unary_expression()
            else:
                return

    # [117] MultiplicativeExpression ::= UnaryExpression ( '*' UnaryExpression | '/' … )*
    def _multiplicative_expression(self) -> None:
        self._unary_expression()
        kinds = self.kinds
        while kinds[self.i] == "*" or kinds[self.i] == "/":
            self.i += 1
            self._unary_expression()

    # [118] UnaryExpression ::= '!' PrimaryExpression | '+' PrimaryExpression
    #                           | '-' PrimaryExpression | PrimaryExpression
    def _unary_expression(self) -> None:
        kind = self.kinds[self.i]
        if kind == "!" or kind == "+" or kind == "-":
            self.i += 1
        self._primary()

    # [119] PrimaryExpression ::= BrackettedExpression | BuiltInCall | iriOrFunction
    #       | RDFLiteral | NumericLiteral | BooleanLiteral | Var
    def _primary(self) -> None:
        kind = self.kinds[self.i]
        if kind == "VAR":
            if self.aggregate_depth == 0:
                self.evars.append(self.texts[self.i][1:])
            self.i += 1
        elif kind == "(":  # [120] BrackettedExpression ::= '(' Expression ')'
            self.i += 1
            self._expression()
            self._expect(")", "')'")
        elif kind in _IRIS:  # [128] iriOrFunction ::= iri ArgList?
            iri = self._iri()
            if self.kinds[self.i] in ("(", "NIL"):
                self._arg_list()
            else:
                self.expression_iris.append(iri)
        elif kind in _STRINGS:
            self._rdf_literal()
        elif kind in _NUMBERS or kind == "TRUE" or kind == "FALSE":
            self.i += 1
        elif kind in _BUILTINS:
            self._builtin_call()
        else:
            raise self._expected("an expression")

    # [71] ArgList ::= NIL | '(' 'DISTINCT'? Expression ( ',' Expression )* ')'
    def _arg_list(self) -> None:
        if self.kinds[self.i] == "NIL":
            self.i += 1
            return
        self._expect("(", "'('")
        if self.kinds[self.i] == "DISTINCT":  # a custom aggregate (§19.8 note 13)
            self.i += 1
        self._expression()
        while self.kinds[self.i] == ",":
            self.i += 1
            self._expression()
        self._expect(")", "',' or ')'")

    # [72] ExpressionList ::= NIL | '(' Expression ( ',' Expression )* ')'
    def _expression_list(self) -> None:
        if self.kinds[self.i] == "NIL":
            self.i += 1
            return
        self._expect("(", "'('")
        self._expression()
        while self.kinds[self.i] == ",":
            self.i += 1
            self._expression()
        self._expect(")", "',' or ')'")

    def _arguments(self, least: int, most: int) -> None:
        """``'(' Expression ( ',' Expression ){least-1 .. most-1} ')'``"""
        self._expect("(", "'('")
        self._expression()
        count = 1
        while count < most and (count < least or self.kinds[self.i] == ","):
            self._expect(",", "','")
            self._expression()
            count += 1
        self._expect(")", "')'" if count == most else "',' or ')'")

    # [121] BuiltInCall (and [122]–[127])
    def _builtin_call(self) -> None:
        kind = self.kinds[self.i]
        start = self.i
        self.i += 1
        if kind in _ONE_ARG:
            self._arguments(1, 1)
        elif kind in _TWO_ARGS:
            self._arguments(2, 2)
        elif kind in _AGGREGATES:
            self._aggregate(kind, start)
        elif kind in _NO_ARGS:
            self._expect("NIL", "'()'")
        elif kind == "IF":
            self._arguments(3, 3)
        elif kind == "REGEX" or kind == "SUBSTR":
            self._arguments(2, 3)
        elif kind == "REPLACE":
            self._arguments(3, 4)
        elif kind == "BNODE":
            if self.kinds[self.i] == "NIL":
                self.i += 1
            else:
                self._arguments(1, 1)
        elif kind == "CONCAT" or kind == "COALESCE":
            self._expression_list()
        elif kind == "BOUND":
            self._expect("(", "'('")
            name = self._var_name()
            if self.aggregate_depth == 0:
                self.evars.append(name)
            self._expect(")", "')'")
        elif kind == "EXISTS":  # [125]
            self._exists()
        elif kind == "NOT":  # [126] NotExistsFunc ::= 'NOT' 'EXISTS' GroupGraphPattern
            self._expect("EXISTS", "EXISTS")
            self._exists()
        else:  # pragma: no cover - _BUILTINS and the branches above list the same keywords
            raise self._expected("a built-in function", start)

    def _exists(self) -> None:
        saved = (self.evars, self.aggregates_ok, self.aggregate_seen, self.aggregate_depth)
        self._group_graph_pattern()
        self.evars, self.aggregates_ok, self.aggregate_seen, self.aggregate_depth = saved

    # [127] Aggregate ::= 'COUNT' '(' 'DISTINCT'? ( '*' | Expression ) ')' | 'SUM' '(' …
    #       | 'GROUP_CONCAT' '(' 'DISTINCT'? Expression ( ';' 'SEPARATOR' '=' String )? ')'
    def _aggregate(self, name: str, start: int) -> None:
        if not self.aggregates_ok:
            self._violation(
                f"aggregate {name} is only allowed in SELECT, HAVING and ORDER BY "
                "(SPARQL 1.1 §19.8 note 12)",
                start,
                f"aggregate {name} used outside SELECT, HAVING and ORDER BY",
            )
        self.aggregate_seen = True
        self.aggregates[name] = None
        self._expect("(", "'('")
        if self.kinds[self.i] == "DISTINCT":
            self.i += 1
        self.aggregate_depth += 1
        if name == "COUNT" and self.kinds[self.i] == "*":
            self.i += 1
        else:
            self._expression()
            if self.kinds[self.i] == "AS" and not self.strict:
                # Virtuoso runs COUNT(DISTINCT ?x AS ?x) (QALD-9) and names the column
                # callret-N, i.e. it ignores the inner alias.
                self._lenient(f"'AS {self.texts[self.i + 1]}' inside {name}(…) ignored", self.i)
                self.i += 1
                self._var_name()
                self._replace(self.i - 2, self.i - 1, "")
        if name == "GROUP_CONCAT" and self.kinds[self.i] == ";":
            self.i += 1
            self._expect("SEPARATOR", "SEPARATOR")
            self._expect("=", "'='")
            if self.kinds[self.i] not in _STRINGS:
                raise self._expected("a string")
            self._string()
        self.aggregate_depth -= 1
        self._expect(")", "')'")

    # ---------------------------------------------------------------- terms

    # [129] RDFLiteral ::= String ( LANGTAG | ( '^^' iri ) )?
    def _rdf_literal(self) -> Node:
        value = self._string()
        kind = self.kinds[self.i]
        if kind == "LANGTAG":
            self.i += 1
            return Node("literal", value, None, self.texts[self.i - 1][1:])
        if kind == "^^":
            self.i += 1
            if self.kinds[self.i] not in _IRIS:
                raise self._expected("a datatype IRI after '^^'")
            return Node("literal", value, self._iri())
        return Node("literal", value)

    # [135] String, with [160] ECHAR ::= '\' [tbnrf\"']
    def _string(self) -> str:
        kind = self.kinds[self.i]
        text = self.texts[self.i]
        cut = 3 if kind in _LONG_STRINGS else 1
        body = text[cut:-cut]
        if "\\" in body:
            body = self._unescape(body, self.tokens.offsets[self.i] + cut)
        self.i += 1
        return body

    def _unescape(self, body: str, offset: int) -> str:
        out: list[str] = []
        at = 0
        while True:
            slash = body.find("\\", at)
            if slash < 0:
                out.append(body[at:])
                return "".join(out)
            out.append(body[at:slash])
            char = body[slash + 1 : slash + 2]
            if char in "uU" and self.tokens.escapes == "in_terms":
                at = slash + (6 if char == "u" else 10)
                out.append(self._code_point(body[slash:at], offset + slash))
                continue
            if char not in _ECHAR:
                raise self.tokens.error(
                    offset + slash,
                    f"invalid escape sequence '\\{char}' in a string",
                    "one of \\t \\b \\n \\r \\f \\\" \\' \\\\",
                )
            out.append(_ECHAR[char])
            at = slash + 2

    def _code_point(self, escape: str, offset: int) -> str:
        """The character of a ``\\uXXXX``/``\\UXXXXXXXX`` escape inside a string or an IRI."""
        digits = escape[2:]
        length = 4 if escape[1:2] == "u" else 8
        code = int(digits, 16) if len(digits) == length and _HEX.fullmatch(digits) else -1
        if not 0 <= code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise self.tokens.error(
                offset, f"invalid code point escape {escape!r}", "a Unicode scalar value"
            )
        return chr(code)

    # [136] iri ::= IRIREF | PrefixedName
    def _iri(self) -> str:
        kind = self.kinds[self.i]
        text = self.texts[self.i]
        if kind == "IRIREF":
            self.i += 1
            iri = text[1:-1]
            if "\\" in iri:  # [27] UCHAR, left in the token when escapes are read "in_terms"
                start = self.tokens.offsets[self.i - 1] + 1
                iri = _UCHAR.sub(lambda m: self._code_point(m.group(), start + m.start()), iri)
            if self.base is not None and not is_absolute(iri):
                return resolve(self.base, iri)
            return iri
        if kind != "PNAME":
            raise self._expected("an IRI")
        colon = text.index(":")
        prefix, local = text[:colon], text[colon + 1 :]
        namespace = self.prefixes.get(prefix)
        if namespace is None:
            namespace = self._undeclared(prefix)
        self.i += 1
        if "\\" in local:
            # [173] PN_LOCAL_ESC: the backslash goes, the character stays (never a backslash).
            local = local.replace("\\", "")
        if self.rewrite:
            self._replace(self.i - 1, self.i - 1, f"<{namespace}{local}>")
        return namespace + local

    def _undeclared(self, prefix: str) -> str:
        known = None if self.strict else PREDECLARED.get(prefix)
        if not self.strict and prefix in self.environment:
            known = (self.environment[prefix], "the dataset's prefixes")
        if known is None:
            extra = "" if self.strict else " (and not one the lenient dialect knows)"
            raise self._error(
                f"undeclared prefix '{prefix}:'{extra}", self.i, "a prefix declared with PREFIX"
            )
        namespace, source = known
        self._lenient(f"undeclared prefix '{prefix}:' read as <{namespace}> ({source})", self.i)
        self.prefixes[prefix] = namespace
        self.undeclared[prefix] = namespace
        return namespace


def _path_text(tree: _Tree, iris: dict[str, None]) -> str:
    """Canonical text of a path; fills ``iris`` in order of appearance."""
    kind = tree[0]
    if kind == "iri":
        iris[tree[1]] = None
        return f"<{tree[1]}>"
    if kind == "alt":
        return "|".join(_path_text(part, iris) for part in tree[1])
    if kind == "seq":
        return "/".join(_wrapped(part, iris, ("alt",)) for part in tree[1])
    if kind == "inv":
        return "^" + _wrapped(tree[1], iris, ("alt", "seq", "inv"))
    if kind == "mod":
        return _wrapped(tree[1], iris, ("alt", "seq", "inv", "mod")) + tree[2]
    members = []
    for inverse, iri in tree[1]:
        iris[iri] = None
        members.append(("^<" if inverse else "<") + iri + ">")
    if len(members) == 1:
        return "!" + members[0]
    return "!(" + "|".join(members) + ")"


def _wrapped(tree: _Tree, iris: dict[str, None], weaker: tuple[str, ...]) -> str:
    text = _path_text(tree, iris)
    return f"({text})" if tree[0] in weaker else text
