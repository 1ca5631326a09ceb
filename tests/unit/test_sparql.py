"""SPARQL 1.1 query parsing: every construct, with the exact facts the parser must report."""

from __future__ import annotations

import copy
import doctest
import pickle
import subprocess
import sys

import pytest

from service.sparql import Node, ParsedQuery, Path, SparqlSyntaxError, TriplePattern, parse_query
from service.sparql.iri import resolve

EX = "http://example.org/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"
PRE = f"PREFIX : <{EX}> PREFIX ex: <{EX}> "


def V(name: str) -> Node:
    return Node("var", name)


def I(local: str) -> Node:  # noqa: E743 (reads like the term kind it builds)
    return Node("iri", local if ":" in local else EX + local)


def B(label: str) -> Node:
    return Node("bnode", label)


def L(value: str, datatype: str | None = None, lang: str | None = None) -> Node:
    return Node("literal", value, datatype, lang)


def T(s: Node, p: Node | Path, o: Node) -> TriplePattern:
    return TriplePattern(s, p, o)


TYPE = I(RDF + "type")
FIRST, REST, NIL = I(RDF + "first"), I(RDF + "rest"), I(RDF + "nil")


def strict(text: str, *, base: str | None = None) -> ParsedQuery:
    return parse_query(text, dialect="strict", base=base)


# ------------------------------------------------------------------ prologue and query forms


def test_select_projection_patterns_and_prefixes() -> None:
    q = strict(PRE + "SELECT DISTINCT ?x ?name WHERE { ?x a :Film ; :name ?name . }")
    assert q.form == "SELECT"
    assert q.projection == ("x", "name")
    assert q.distinct and not q.reduced and not q.select_star
    assert q.patterns == (T(V("x"), TYPE, I("Film")), T(V("x"), I("name"), V("name")))
    assert dict(q.prefixes) == {"": EX, "ex": EX}
    assert q.leniencies == ()


def test_keywords_are_case_insensitive_but_a_is_not() -> None:
    q = strict(f"prefix ex: <{EX}> select reduced ?x where {{ ?x a ex:C }} limit 5 offset 2")
    assert q.reduced and q.limit == 5 and q.offset == 2
    with pytest.raises(SparqlSyntaxError) as err:
        strict(f"PREFIX ex: <{EX}> SELECT ?x {{ ?x A ex:C }}")
    assert err.value.column == len(f"PREFIX ex: <{EX}> SELECT ?x {{ ?x ") + 1


def test_select_star_projects_in_scope_variables_in_order_of_first_appearance() -> None:
    q = strict(
        PRE + "SELECT * { ?s :p ?o OPTIONAL { ?o :q ?z } FILTER(?hidden > 1) MINUS { ?m :r ?s } "
        "BIND(1 AS ?one) GRAPH ?g { ?s :t ?u } { SELECT ?w WHERE { ?w :v ?inner } } "
        "VALUES ?val { 1 } } VALUES ?trailing { 2 }"
    )
    assert q.select_star
    assert q.projection == ("s", "o", "z", "one", "g", "u", "w", "val", "trailing")


def test_select_expressions_with_alias() -> None:
    q = strict(PRE + "SELECT ?x (STRLEN(?n) AS ?len) (<http://ex/c> AS ?c) { ?x :name ?n }")
    assert q.projection == ("x", "len", "c")
    assert q.expression_iris == ("http://ex/c",)


def test_ask_construct_describe() -> None:
    assert strict(PRE + "ASK { :a :b :c }").form == "ASK"
    assert strict(PRE + "ASK WHERE { :a :b ?c }").projection == ()

    c = strict(PRE + "CONSTRUCT { ?s :label ?o . [] :from ?s } WHERE { ?s :name ?o }")
    assert c.form == "CONSTRUCT"
    assert c.template == (T(V("s"), I("label"), V("o")), T(B("b0"), I("from"), V("s")))
    assert c.patterns == (T(V("s"), I("name"), V("o")),)

    w = strict(PRE + "CONSTRUCT WHERE { ?s :p ?o ; :q ( 1 ) }")
    assert w.template == w.patterns
    assert w.patterns == (
        T(V("s"), I("p"), V("o")),
        T(V("s"), I("q"), B("b0")),
        T(B("b0"), FIRST, L("1", XSD + "integer")),
        T(B("b0"), REST, NIL),
    )

    d = strict(PRE + "DESCRIBE ?x :y <http://z> WHERE { ?x :p :y }")
    assert d.form == "DESCRIBE"
    assert d.projection == ("x",)
    assert d.described == (I("y"), I("http://z"))
    assert d.patterns == (T(V("x"), I("p"), I("y")),)

    assert strict("DESCRIBE <http://z>").patterns == ()
    star = strict(PRE + "DESCRIBE * { ?a :p ?b }")
    assert star.select_star and star.projection == ("a", "b")


def test_dataset_clauses() -> None:
    q = strict(PRE + "SELECT * FROM :g1 FROM NAMED :g2 FROM <http://g3> { ?s ?p ?o }")
    assert q.from_graphs == (EX + "g1", "http://g3")
    assert q.from_named == (EX + "g2",)


def test_base_resolves_relative_iris_and_prefix_declarations() -> None:
    q = strict(
        "BASE <http://example.org/a/b> PREFIX p: <c/> "
        "SELECT * { <d> p:e <../f> . <#g> <?h> <//other/i> }"
    )
    assert q.base == "http://example.org/a/b"
    assert q.prefixes["p"] == "http://example.org/a/c/"
    assert q.patterns == (
        T(I("http://example.org/a/d"), I("http://example.org/a/c/e"), I("http://example.org/f")),
        T(I("http://example.org/a/b#g"), I("http://example.org/a/b?h"), I("http://other/i")),
    )
    # A base given by the caller applies when the query has none; a BASE in the query wins.
    assert strict("SELECT * { <x> ?p ?o }", base=EX).patterns[0].subject == I("x")
    assert strict("BASE <http://b/> SELECT * { <x> ?p ?o }", base=EX).patterns[0].subject == I(
        "http://b/x"
    )
    # Without any base, relative IRIs stay as written.
    assert strict("SELECT * { <x> ?p ?o }").patterns[0].subject == Node("iri", "x")


@pytest.mark.parametrize(
    ("reference", "expected"),
    # RFC 3986 §5.4.1 normal examples and §5.4.2 abnormal ones.
    [
        ("g:h", "g:h"),
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"),
        (";x", "http://a/b/c/;x"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."),
        ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
    ],
)
def test_relative_iri_resolution_follows_rfc_3986(reference: str, expected: str) -> None:
    assert resolve("http://a/b/c/d;p?q", reference) == expected


# ------------------------------------------------------------------ triples


def test_predicate_and_object_lists() -> None:
    q = strict(PRE + "SELECT * { ?s :p ?a , ?b ; :q ?c ;; ; :r ?d ; }")
    assert q.patterns == (
        T(V("s"), I("p"), V("a")),
        T(V("s"), I("p"), V("b")),
        T(V("s"), I("q"), V("c")),
        T(V("s"), I("r"), V("d")),
    )


def test_blank_node_property_lists_get_fresh_labels_distinct_from_explicit_ones() -> None:
    q = strict(PRE + "SELECT * { _:b0 :p [ :q [ :r ?x ] ; :s _:b1 ] . [] :t [] . [ :u ?y ] }")
    # _:b0 and _:b1 are taken, so the fresh labels start at b2.
    assert q.patterns == (
        T(B("b0"), I("p"), B("b2")),
        T(B("b2"), I("q"), B("b3")),
        T(B("b3"), I("r"), V("x")),
        T(B("b2"), I("s"), B("b1")),
        T(B("b4"), I("t"), B("b5")),
        T(B("b6"), I("u"), V("y")),
    )


def test_collections_expand_to_first_rest_triples() -> None:
    q = strict(PRE + 'SELECT * { ?s :p ( 1 ?x ( "a" ) ) . ( :e ) :q ?o . ?s :empty () }')
    one, a = L("1", XSD + "integer"), L("a")
    assert q.patterns == (
        T(V("s"), I("p"), B("b0")),
        T(B("b0"), FIRST, one),
        T(B("b0"), REST, B("b1")),
        T(B("b1"), FIRST, V("x")),
        T(B("b1"), REST, B("b2")),
        T(B("b2"), FIRST, B("b3")),
        T(B("b3"), FIRST, a),
        T(B("b3"), REST, NIL),
        T(B("b2"), REST, NIL),
        T(B("b4"), FIRST, I("e")),
        T(B("b4"), REST, NIL),
        T(B("b4"), I("q"), V("o")),
        T(V("s"), I("empty"), NIL),
    )


def test_a_triples_node_subject_needs_no_property_list() -> None:
    q = strict(PRE + "SELECT * { [ :p ?x ] . ( ?y ) }")
    assert q.patterns == (
        T(B("b0"), I("p"), V("x")),
        T(B("b1"), FIRST, V("y")),
        T(B("b1"), REST, NIL),
    )


def test_literals_all_forms() -> None:
    q = strict(
        PRE
        + "SELECT * { ?s :p 'a\\'b' , \"c\\\"d\\n\" , '''e'f''g''' , \"\"\"h\"i\n\"\"\" , "
        '"x"@en-GB , "5"^^xsd:int , "t"^^<http://dt> , 1 , -2 , +3 , 1.5 , .5 , -1.5e3 , 1E2 , '
        "true , FALSE }".replace("xsd:int", f"<{XSD}int>")
    )
    assert [p.object for p in q.patterns] == [
        L("a'b"),
        L('c"d\n'),
        L("e'f''g"),
        L('h"i\n'),
        L("x", lang="en-GB"),
        L("5", XSD + "int"),
        L("t", "http://dt"),
        L("1", XSD + "integer"),
        L("-2", XSD + "integer"),
        L("+3", XSD + "integer"),
        L("1.5", XSD + "decimal"),
        L(".5", XSD + "decimal"),
        L("-1.5e3", XSD + "double"),
        L("1E2", XSD + "double"),
        L("true", XSD + "boolean"),
        L("false", XSD + "boolean"),
    ]


def test_string_escapes_and_codepoint_escapes() -> None:
    q = strict(PRE + r'SELECT * { ?s :p "\t\b\n\r\f\"\'\\" , "caf\u00E9" , "\U0001F600" }')
    assert [p.object.value for p in q.patterns] == ["\t\b\n\r\f\"'\\", "café", "\U0001f600"]
    # §19.2: \u escapes are processed before parsing, so they work in names too.
    assert strict(r"SELECT ?\u0078 { ?x ?p ?o }").projection == ("x",)


def test_prefixed_names_with_escapes_percent_dots_and_colons() -> None:
    q = strict(
        PRE + r"SELECT * { ex:a\,b ex:%C3%A9 ex:T._E._Lawrence . ex:x:y:z :1st ex:a.b. "
        r"ex:\-\.x\~ ex: ex:_z }"
    )
    assert [p.subject.value for p in q.patterns[:2]] == [EX + "a,b", EX + "x:y:z"]
    assert q.patterns[0].predicate == I("%C3%A9")  # PERCENT stays encoded (§19.8 [171])
    assert q.patterns[0].object == I("T._E._Lawrence")
    assert q.patterns[1].predicate == I("1st")
    assert q.patterns[1].object == I("a.b")  # the final '.' ends the triple
    assert q.patterns[2] == T(I("-.x~"), I(EX), I("_z"))


def test_unicode_names() -> None:
    q = strict(f"PREFIX é: <{EX}> SELECT ?ñame {{ ?ñame é:Straße _:β·1 }}")
    assert q.projection == ("ñame",)
    assert q.patterns == (T(V("ñame"), I("Straße"), B("β·1")),)


def test_comments_are_white_space_but_not_inside_iris_and_strings() -> None:
    q = strict(
        "# a comment\nPREFIX ex: <http://example.org/#frag> # another\n"
        "SELECT ?x#no space needed\nWHERE { ?x ex:p '# not a comment' ; <http://x#y> ?z } # end"
    )
    assert q.projection == ("x",)
    assert q.patterns == (
        T(V("x"), I("http://example.org/#fragp"), L("# not a comment")),
        T(V("x"), I("http://x#y"), V("z")),
    )


def test_var_and_dollar_var_are_the_same_variable() -> None:
    q = strict("SELECT $x { ?x ?p $o }")
    assert q.projection == ("x",)
    assert q.patterns == (T(V("x"), V("p"), V("o")),)


# ------------------------------------------------------------------ property paths


def path(text: str, *locals_: str) -> Path:
    return Path(text, tuple(EX + name for name in locals_))


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (":p", I("p")),
        ("(:p)", I("p")),
        ("a", TYPE),
        (":p/:q", path(f"<{EX}p>/<{EX}q>", "p", "q")),
        (":p/(:q/:r)", path(f"<{EX}p>/<{EX}q>/<{EX}r>", "p", "q", "r")),
        (":p|:q|:p", path(f"<{EX}p>|<{EX}q>|<{EX}p>", "p", "q")),
        ("(:p/:q)/:r", path(f"<{EX}p>/<{EX}q>/<{EX}r>", "p", "q", "r")),
        ("(:p|:q)|:r", path(f"<{EX}p>|<{EX}q>|<{EX}r>", "p", "q", "r")),
        (":p|(:q|:r)|(:p/:q)", path(f"<{EX}p>|<{EX}q>|<{EX}r>|<{EX}p>/<{EX}q>", "p", "q", "r")),
        ("^:p", path(f"^<{EX}p>", "p")),
        (":p*", path(f"<{EX}p>*", "p")),
        (":p+", path(f"<{EX}p>+", "p")),
        (":p?", path(f"<{EX}p>?", "p")),
        ("^:p*", path(f"^<{EX}p>*", "p")),
        ("(^:p)*", path(f"(^<{EX}p>)*", "p")),
        ("(:p|:q)/:r", path(f"(<{EX}p>|<{EX}q>)/<{EX}r>", "p", "q", "r")),
        ("(:p/:q)*", path(f"(<{EX}p>/<{EX}q>)*", "p", "q")),
        ("^(:p/:q)", path(f"^(<{EX}p>/<{EX}q>)", "p", "q")),
        ("!:p", path(f"!<{EX}p>", "p")),
        ("!^:p", path(f"!^<{EX}p>", "p")),
        (
            "!(:p|^:q|a)",
            Path(f"!(<{EX}p>|^<{EX}q>|<{RDF}type>)", (EX + "p", EX + "q", RDF + "type")),
        ),
        ("!()", Path("!()", ())),
        ("a/:p*", Path(f"<{RDF}type>/<{EX}p>*", (RDF + "type", EX + "p"))),
    ],
)
def test_property_paths(written: str, expected: Node | Path) -> None:
    q = strict(PRE + f"SELECT * {{ ?s {written} ?o }}")
    assert q.patterns == (T(V("s"), expected, V("o")),)


def test_paths_in_property_lists_and_property_list_after_semicolon() -> None:
    # The objects after ';' are read as ObjectListPath (SPARQL 1.1 errata).
    q = strict(PRE + "SELECT * { ?s :p/:q ?o ; ?v [ :r* ?z ] }")
    assert q.patterns == (
        T(V("s"), path(f"<{EX}p>/<{EX}q>", "p", "q"), V("o")),
        T(V("s"), V("v"), B("b0")),
        T(B("b0"), path(f"<{EX}r>*", "r"), V("z")),
    )


# ------------------------------------------------------------------ graph patterns


def test_patterns_in_every_kind_of_group_in_document_order() -> None:
    q = strict(
        PRE + "SELECT ?a { ?a :p1 ?b . OPTIONAL { ?b :p2 ?c } { ?a :p3 ?d } UNION { ?a :p4 ?e } "
        "MINUS { ?a :p5 ?f } GRAPH ?g { ?a :p6 ?h } SERVICE SILENT <http://s> { ?a :p7 ?i } "
        "FILTER NOT EXISTS { ?a :p8 ?j } FILTER(EXISTS { ?a :p9 ?k }) "
        "{ SELECT ?a WHERE { ?a :p10 ?l } } BIND(EXISTS { ?a :p11 ?m } AS ?n) }"
    )
    assert [p.predicate.value[len(EX) :] for p in q.patterns] == [f"p{n}" for n in range(1, 12)]


def test_values_inline_and_trailing() -> None:
    q = strict(
        PRE + "SELECT * { VALUES ?x { :a 1 UNDEF } VALUES (?y ?z) { (:b 'c') (UNDEF true) } "
        "VALUES () { () } ?x :p ?y } VALUES (?w) { (:d) }"
    )
    assert q.values == (
        I("a"),
        L("1", XSD + "integer"),
        I("b"),
        L("c"),
        L("true", XSD + "boolean"),
        I("d"),
    )
    assert q.projection == ("x", "y", "z", "w")


def test_filter_forms_and_expression_iris() -> None:
    q = strict(
        PRE
        + "SELECT ?x { ?x :p ?y FILTER(?y = :c || ?y IN (:d, <http://e>) && ?y NOT IN (:f)) "
        "FILTER regex(str(?y), '^a', 'i') FILTER :fn(?y, :g) FILTER(xsd:integer(?y) > 3) "
        "BIND(IF(bound(?y), :h, :i) AS ?z) } "
        "GROUP BY ?x (:grp AS ?gg) HAVING(COUNT(?y) > :lim) ORDER BY DESC(:ord) ?x :f2(?x)".replace(
            "xsd:integer", f"<{XSD}integer>"
        )
    )
    # Function names (:fn, xsd:integer, :f2) are not constants; everything else is, in order.
    assert q.expression_iris == tuple(
        n if ":" in n else EX + n
        for n in ["c", "d", "http://e", "f", "g", "h", "i", "grp", "lim", "ord"]
    )
    assert q.aggregates == ("COUNT",)


def test_all_builtins_parse() -> None:
    exprs = [
        "STR(?x)", "LANG(?x)", "LANGMATCHES(?x, 'en')", "DATATYPE(?x)", "BOUND(?x)", "IRI(?x)",
        "URI(?x)", "BNODE()", "BNODE(?x)", "RAND()", "ABS(?x)", "CEIL(?x)", "FLOOR(?x)",
        "ROUND(?x)", "CONCAT(?x, ?x, 'a')", "CONCAT()", "SUBSTR(?x, 1)", "SUBSTR(?x, 1, 2)",
        "STRLEN(?x)", "REPLACE(?x, 'a', 'b')", "REPLACE(?x, 'a', 'b', 'i')", "UCASE(?x)",
        "LCASE(?x)", "ENCODE_FOR_URI(?x)", "CONTAINS(?x, 'a')", "STRSTARTS(?x, 'a')",
        "STRENDS(?x, 'a')", "STRBEFORE(?x, 'a')", "STRAFTER(?x, 'a')", "YEAR(?x)", "MONTH(?x)",
        "DAY(?x)", "HOURS(?x)", "MINUTES(?x)", "SECONDS(?x)", "TIMEZONE(?x)", "TZ(?x)", "NOW()",
        "UUID()", "STRUUID()", "MD5(?x)", "SHA1(?x)", "SHA256(?x)", "SHA384(?x)", "SHA512(?x)",
        "COALESCE(?x, 1)", "IF(?x, 1, 2)", "STRLANG(?x, 'en')", "STRDT(?x, <http://d>)",
        "sameTerm(?x, ?x)", "isIRI(?x)", "isURI(?x)", "isBlank(?x)", "isLiteral(?x)",
        "isNumeric(?x)", "REGEX(?x, 'a')", "REGEX(?x, 'a', 'i')", "EXISTS { ?x ?p ?o }",
        "NOT EXISTS { ?x ?p ?o }", "!BOUND(?x)", "-?x + +?x - ?x * 2 / 3 >= 4",
        "?x -1 * 2 < 5", "?x != ?x", "?x <= ?x", "?x > ?x", "<http://f>(DISTINCT ?x, 1)",
    ]  # fmt: skip
    for expr in exprs:
        q = strict(f"SELECT ?x {{ ?x ?p ?o FILTER({expr}) }}")
        assert q.projection == ("x",), expr


def test_aggregates_and_group_by() -> None:
    q = strict(
        PRE + "SELECT ?g (COUNT(*) AS ?n) (COUNT(DISTINCT ?x) AS ?d) (SUM(?v) AS ?s) "
        "(MIN(?v) AS ?lo) (MAX(?v) AS ?hi) (AVG(?v) AS ?m) (SAMPLE(?x) AS ?one) "
        "(GROUP_CONCAT(DISTINCT ?x ; SEPARATOR = ', ') AS ?all) (?n + 1 AS ?n1) "
        "{ ?x :in ?g ; :v ?v } GROUP BY ?g HAVING (SUM(?v) > 10) ORDER BY DESC(COUNT(?x))"
    )
    assert q.projection == ("g", "n", "d", "s", "lo", "hi", "m", "one", "all", "n1")
    assert q.aggregates == ("COUNT", "SUM", "MIN", "MAX", "AVG", "SAMPLE", "GROUP_CONCAT")


def test_less_than_after_an_operand_is_not_the_start_of_an_iri() -> None:
    # Longest match would read "<?b&&?c>" as an IRIREF; after an operand only '<' fits (as in
    # rdflib and Oxigraph).
    q = strict(PRE + "SELECT * { ?a :p ?b FILTER(?a<?b&&?b>?a) FILTER(?a<=?b||:x(?a<:c)) }")
    assert q.expression_iris == (EX + "c",)
    assert q.patterns == (T(V("a"), I("p"), V("b")),)
    q = strict(PRE + "SELECT * { ?a :p ?b FILTER(?a < <http://x>) FILTER(?b IN (<y>)) }")
    assert q.expression_iris == ("http://x", "y")


def test_group_by_expression_alias_is_a_grouped_variable() -> None:
    q = strict(PRE + "SELECT ?y (COUNT(*) AS ?n) { ?s :date ?d } GROUP BY (YEAR(?d) AS ?y)")
    assert q.projection == ("y", "n")


# ------------------------------------------------------------------ static rules (strict)


@pytest.mark.parametrize(
    ("query", "rule"),
    [
        ("SELECT ?s (COUNT(?o) AS ?n) { ?s ?p ?o }", "§11.4"),
        ("SELECT ?p { ?s ?p ?o } GROUP BY ?s", "§11.4"),
        ("SELECT (?o AS ?t) { ?s ?p ?o } GROUP BY ?s", "§11.4"),
        ("SELECT * { ?s ?p ?o } GROUP BY ?s", "§16.1.1"),
        ("SELECT * { ?s ?p ?o } GROUP BY ?s ?p ?o", "§16.1.1"),
        ("SELECT * { ?s ?p ?o } HAVING (COUNT(*) > 1)", "§11.4"),
        (
            "SELECT ((?a + ?b) AS ?ab) (COUNT(?a) AS ?c) { ?s ?p ?a ; ?q ?b } GROUP BY (?a + ?b)",
            "§11.4",
        ),
        ("SELECT (1 AS ?x) { SELECT (2 AS ?x) {} }", "§18.2.1"),
        ("SELECT ?s { ?s ?p ?o } ORDER BY COUNT(?o)", "§11.4"),
        ("SELECT ?s { ?s ?p ?o FILTER(COUNT(?o) > 1) }", "note 12"),
        ("SELECT ?s { ?s ?p ?o BIND(SUM(?o) AS ?x) }", "note 12"),
        ("SELECT (1 AS ?x) (2 AS ?x) {}", "§18.2.1"),
        ("SELECT ?s (1 AS ?s) { ?s ?p ?o }", "§18.2.1"),
        ("SELECT (1 AS ?s) { ?s ?p ?o }", "§18.2.1"),
        ("SELECT * { ?s ?p ?o BIND(1 AS ?s) }", "§18.2.1"),
        ("SELECT * { _:a ?p ?o OPTIONAL { _:a ?q ?z } }", "§4.1.4"),
        ("SELECT * { _:a ?p ?o . { _:a ?q ?z } }", "§4.1.4"),
    ],
)
def test_strict_enforces_the_static_rules(query: str, rule: str) -> None:
    with pytest.raises(SparqlSyntaxError, match=rule.replace(".", r"\.")):
        strict(query)
    lenient = parse_query(query)  # lenient accepts and says what it overlooked
    assert lenient.leniencies


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * { ?s ?p ?o { BIND(1 AS ?s) } }",  # a new group: ?s not in scope there
        "SELECT * { _:a ?p ?o FILTER(true) _:a ?q ?z }",  # FILTER does not end the BGP
        "SELECT (COUNT(*) AS ?c) { ?s ?p ?o } GROUP BY (?s AS ?t) HAVING (?t)",
        "SELECT ?s { ?s ?p ?o } GROUP BY ?s ORDER BY ?o",  # ORDER BY is not restricted
        "SELECT (?s AS ?t) { ?s ?p ?o } GROUP BY ?s",
        "SELECT ?t { ?s ?p ?o } GROUP BY (STR(?s) AS ?t)",
        "CONSTRUCT { _:a ?p ?o } WHERE { _:a ?p ?o }",  # the template is not a BGP
    ],
)
def test_strict_accepts_what_the_static_rules_allow(query: str) -> None:
    assert strict(query).leniencies == ()


# ------------------------------------------------------------------ result types


def test_result_types_are_frozen_value_objects() -> None:
    q = strict(PRE + "SELECT ?x { ?x :p/:q 'v'@en }")
    same = strict(PRE + "SELECT ?x { ?x :p/:q 'v'@en }")
    assert q == same and hash(q) == hash(same)
    assert q.patterns[0] == same.patterns[0]
    assert hash(q.patterns[0].predicate) == hash(same.patterns[0].predicate)
    with pytest.raises(AttributeError):
        q.form = "ASK"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        q.patterns[0].subject.value = "y"  # type: ignore[misc]
    with pytest.raises(TypeError):
        q.prefixes["x"] = "y"  # type: ignore[index]
    assert pickle.loads(pickle.dumps(q)) == q
    assert copy.deepcopy(q) == q
    assert repr(Node("var", "x")) == "Node(kind='var', value='x', datatype=None, lang=None)"
    assert Node("var", "x") != Path("x", ())
    assert ParsedQuery("ASK") == ParsedQuery(form="ASK")
    assert ParsedQuery("ASK").patterns == ()
    with pytest.raises(TypeError):
        ParsedQuery()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ParsedQuery("ASK", bogus=1)  # type: ignore[call-arg]
    match Node("iri", "x"):
        case Node(kind, value):
            assert (kind, value) == ("iri", "x")
    assert q.variables == ("x",)
    assert Node("literal", 'a"b\n', lang="en").n3() == '"a\\"b\\n"@en'


def test_errors_pickle_with_their_position() -> None:
    with pytest.raises(SparqlSyntaxError) as err:
        strict("SELECT ?x WHERE { ?x }")
    again = pickle.loads(pickle.dumps(err.value))
    assert (again.line, again.column, again.offset, again.expected) == (
        err.value.line,
        err.value.column,
        err.value.offset,
        err.value.expected,
    )
    assert str(again) == str(err.value)
    assert isinstance(again, ValueError)


def test_unknown_dialect_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="dialect"):
        parse_query("ASK {}", dialect="loose")  # type: ignore[arg-type]


def test_docstring_examples() -> None:
    import service.sparql

    assert doctest.testmod(service.sparql).failed == 0


def test_import_is_light() -> None:
    """No rdflib, pyoxigraph, dataclasses or typing at import (see bench/sparql.py for time)."""
    code = (
        "import sys; import service.sparql; "
        "print(sorted(m for m in ('rdflib', 'pyoxigraph', 'dataclasses', 'typing') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
