"""Syntax errors: where (line, column, offset), what the grammar expected, and the message."""

from __future__ import annotations

import pytest

from service.sparql import SparqlSyntaxError, parse_query

EX = "http://example.org/"


def error(text: str, *, dialect: str = "strict") -> SparqlSyntaxError:
    with pytest.raises(SparqlSyntaxError) as caught:
        parse_query(text, dialect=dialect)  # type: ignore[arg-type]
    return caught.value


@pytest.mark.parametrize(
    ("text", "line", "column", "expected", "found"),
    [
        # the brief's example: a FILTER where only triples may stand
        (
            "PREFIX : <http://e/>\nCONSTRUCT WHERE {\n  ?s :p ?o . FILTER(?o > 1) }",
            3,
            14,
            "'}' or a triple pattern",
            "'FILTER'",
        ),
        # missing closing brace
        ("SELECT ?x WHERE { ?x ?p ?o", 1, 27, "'.', '}' or a graph pattern", "end of query"),
        # two triples without '.' between them
        ("SELECT * {\n  ?a ?b ?c\n  ?d ?e ?f\n}", 3, 3, "'.' or '}'", "'?d'"),
        # a triple missing its object
        ("SELECT ?x\r\nWHERE {\r\n  ?x ?p }", 3, 9, "an RDF term or a variable", "'}'"),
        # a projected expression without AS (strict)
        ("SELECT (COUNT(?x)) WHERE { ?x ?p ?o }", 1, 18, "'AS'", "')'"),
        # a keyword typo after the WHERE clause (real QALD-5 data: OFSET)
        (
            "SELECT ?x { ?x ?p ?o } ORDER BY ?x OFSET 1",
            1,
            36,
            "GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET, VALUES or the end of the query",
            "'OFSET'",
        ),
        # an empty query
        ("", 1, 1, "SELECT, ASK, CONSTRUCT, DESCRIBE, PREFIX or BASE", "end of query"),
        # SELECT with nothing to project
        (
            "SELECT WHERE { ?x ?p ?o }",
            1,
            8,
            "'*', a variable or '(' expression AS variable ')'",
            "'WHERE'",
        ),
        # an operator without its right operand
        ("ASK { ?x ?p ?o FILTER(?x = ) }", 1, 28, "an expression", "')'"),
        # LIMIT takes an unsigned integer
        ("SELECT * { ?s ?p ?o } LIMIT -1", 1, 29, "an unsigned integer", "'-1'"),
        # PREFIX needs a prefix name ending in ':'
        (
            "PREFIX dbo <http://dbpedia.org/ontology/> ASK {}",
            1,
            8,
            "a prefix name ending in ':' after PREFIX",
            "'dbo'",
        ),
        # a path with a dangling '/'
        ("ASK { ?s <p>/ ?o }", 1, 15, "a property path (an IRI, 'a', '^', '!' or '(')", "'?o'"),
        # BIND without AS
        ("ASK { BIND(1 ?x) }", 1, 14, "AS", "'?x'"),
        # GROUP without BY
        ("SELECT ?x { ?x ?p ?o } GROUP ?x", 1, 30, "BY", "'?x'"),
        # a bad token after the query
        (
            "ASK { } }",
            1,
            9,
            "GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET, VALUES or the end of the query",
            "'}'",
        ),
    ],
)
def test_error_positions_and_expectations(
    text: str, line: int, column: int, expected: str, found: str
) -> None:
    err = error(text)
    assert (err.line, err.column) == (line, column)
    assert err.expected == expected
    assert err.message == f"expected {expected}, found {found}"
    assert str(err) == f"line {line}, column {column}: expected {expected}, found {found}"
    # offset and (line, column) name the same character
    lines = text.replace("\r\n", "\n").split("\n")
    offset = err.offset - text[: err.offset].count("\r\n")
    assert sum(len(x) + 1 for x in lines[: line - 1]) + column - 1 == offset


def test_the_brief_example_reads_as_specified() -> None:
    err = error("PREFIX : <http://e/>\nCONSTRUCT WHERE {\n  ?s ?p ?o .    FILTER(?o) }")
    assert str(err) == "line 3, column 17: expected '}' or a triple pattern, found 'FILTER'"


def test_undeclared_prefix() -> None:
    err = error("SELECT ?x WHERE {\n  ?x dbo:birthPlace ?y }")
    assert (err.line, err.column, err.offset) == (2, 6, 23)
    assert err.message == "undeclared prefix 'dbo:'"
    assert err.expected == "a prefix declared with PREFIX"
    # The lenient dialect knows dbo: but not every prefix.
    err = error("SELECT ?x WHERE { ?x foo:bar ?y }", dialect="lenient")
    assert err.message == "undeclared prefix 'foo:' (and not one the lenient dialect knows)"


def test_qald_hybrid_pseudo_queries_raise_in_both_dialects() -> None:
    pseudo = (
        "PREFIX res: <http://dbpedia.org/resource/> ASK WHERE { "
        'res:Johns_Hopkins_Bayview_Medical_Center text:"burn victim unit" . }'
    )
    for dialect in ("strict", "lenient"):
        err = error(pseudo, dialect=dialect)
        assert "undeclared prefix 'text:'" in err.message
        assert err.column == pseudo.index("text:") + 1


def test_out_of_scope_placeholder_is_not_a_query() -> None:
    err = error("\nOUT OF SCOPE\n", dialect="lenient")
    assert (err.line, err.column) == (2, 1)


def test_updates_are_not_queries() -> None:
    for update in ["INSERT DATA { <a> <b> <c> }", "delete where { ?s ?p ?o }", "LOAD <http://x>"]:
        err = error(update, dialect="lenient")
        assert err.message == "this is a SPARQL Update request; updates are not queries"
        assert (err.line, err.column) == (1, 1)
    err = error("PREFIX : <http://e/>\nCLEAR ALL")
    assert (err.line, err.column) == (2, 1)


def test_lexical_errors() -> None:
    err = error('SELECT ?x { ?x ?p "abc }')
    assert err.column == 19 and "unterminated or malformed string literal" in err.message
    err = error('SELECT ?x { ?x ?p "a\\db" }')
    assert err.column == 21 and err.message == "invalid escape sequence '\\d' in a string"
    err = error("ASK { ?s ?p ?o } §")
    assert err.column == 18 and err.message == "unexpected character '§'"
    err = error("ASK { ?s ?p ?o\u00a0}")
    assert err.column == 15 and err.message == "unexpected character U+00A0"
    err = error("ASK { ?s ?p ?ok\u00d7 }")  # × is no name character
    assert err.column == 16
    err = error("ASK { ?s ?p 'x'@ }")
    assert err.column == 16 and err.message == "malformed language tag"
    err = error("ASK { _: ?p ?o }")
    assert err.column == 7 and err.message == "malformed blank node label"
    err = error("ASK { <a b> ?p ?o }")  # a space cannot be in an IRIREF: '<' is less-than
    assert err.column == 7 and err.message.endswith("found '<'")


def test_codepoint_escape_errors_and_positions_after_escapes() -> None:
    err = error("ASK { ?s ?p '\\U00110000' }")
    assert err.column == 14 and err.message == "invalid code point escape '\\\\U00110000'"
    # Positions count characters of the original text, before \u escapes are expanded.
    err = error("SELECT ?x { ?x ?p 'caf\\u00e9\\d' }")
    assert err.column == 29


def test_values_rows_must_match_the_variables() -> None:
    err = error("SELECT * { VALUES (?a ?b) { (1 2) (1) } }")
    assert err.column == 35
    assert err.message == "VALUES row has 1 value(s) for 2 variable(s)"
    assert err.expected is None


def test_static_rule_errors_point_at_the_offending_item() -> None:
    err = error("SELECT ?s (COUNT(?o) AS ?n)\nWHERE { ?s ?p ?o }")
    assert (err.line, err.column) == (1, 8)
    assert err.message == "?s is projected but neither grouped nor aggregated (SPARQL 1.1 §11.4)"
    assert err.expected is None
    err = error("SELECT * {\n  ?s ?p ?o\n  BIND(1 AS ?s) }")
    assert (err.line, err.column) == (3, 13)
    err = error("SELECT * { _:a ?p ?o OPTIONAL { _:a ?q ?z } }")
    assert err.column == 33
    assert "blank node label _:a" in err.message


@pytest.mark.parametrize(
    "text",
    [
        "ASK { FILTER(" + "(" * 3000 + "1" + ")" * 3000 + ") }",
        "ASK " + "{" * 3000 + "}" * 3000,
        "SELECT * { ?s " + "(" * 3000 + "<p>" + ")" * 3000 + " ?o }",
        "SELECT * { ?s ?p " + "( " * 3000 + ")" * 3000 + " }",
        "ASK { FILTER(" + "EXISTS { FILTER(" * 1000 + "1" + ") }" * 1000 + ") }",
    ],
)
def test_deep_nesting_is_a_syntax_error_not_a_recursion_error(text: str) -> None:
    err = error(text, dialect="lenient")
    assert err.message == "query nested too deeply to parse"
    assert err.line == 1 and err.column > 1
