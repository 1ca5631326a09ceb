"""The lenient dialect: each Virtuoso habit found in real QALD/LC-QuAD gold queries.

Every query here is (a shortened form of) a real gold query; each is accepted by the lenient
dialect with exactly the recorded leniencies, and rejected by the strict one.
"""

from __future__ import annotations

import pytest

from service.sparql import Node, SparqlSyntaxError, TriplePattern, parse_query
from service.sparql.prefixes import PREDECLARED

DBO = "http://dbpedia.org/ontology/"
DBR = "http://dbpedia.org/resource/"
XSD = "http://www.w3.org/2001/XMLSchema#"


def rejected_by_strict(text: str) -> None:
    with pytest.raises(SparqlSyntaxError):
        parse_query(text, dialect="strict")


def test_undeclared_well_known_prefixes() -> None:
    # QALD-9-plus test q31
    text = f"PREFIX res: <{DBR}> SELECT ?uri WHERE {{ res:Berlin dbp:leader ?uri }}"
    q = parse_query(text)
    assert q.patterns == (
        TriplePattern(
            Node("iri", DBR + "Berlin"),
            Node("iri", "http://dbpedia.org/property/leader"),
            Node("var", "uri"),
        ),
    )
    assert q.leniencies == (
        "undeclared prefix 'dbp:' read as <http://dbpedia.org/property/> "
        "(DBpedia's Virtuoso endpoint)",
    )
    assert dict(q.prefixes) == {"res": DBR, "dbp": "http://dbpedia.org/property/"}
    rejected_by_strict(text)


def test_a_declared_prefix_wins_over_the_predeclared_one() -> None:
    q = parse_query("PREFIX dbo: <http://example.org/> ASK { dbo:a dbo:b dbo:c }")
    assert q.leniencies == ()
    assert q.patterns[0].subject == Node("iri", "http://example.org/a")


def test_predeclared_table_holds_the_expected_namespaces() -> None:
    namespaces = {prefix: ns for prefix, (ns, _) in PREDECLARED.items()}
    assert namespaces["dbo"] == DBO
    assert namespaces["dbr"] == namespaces["res"] == DBR
    assert namespaces["wdt"] == "http://www.wikidata.org/prop/direct/"
    assert namespaces["wd"] == "http://www.wikidata.org/entity/"
    assert namespaces["geo"] == "http://www.w3.org/2003/01/geo/wgs84_pos#"  # DBpedia's binding
    assert "text" not in namespaces  # QALD hybrid pseudo queries must keep failing
    assert all(ns.startswith(("http://", "https://")) for ns in namespaces.values())


def test_virtuoso_aggregate_without_alias() -> None:
    # LC-QuAD 1.0 (1/6 of its queries) and QALD
    text = f"SELECT DISTINCT COUNT(?uri) WHERE {{ ?uri <{DBO}starring> <{DBR}Tim_Robbins> }}"
    q = parse_query(text)
    assert q.projection == ("callret-0",)
    assert q.distinct and q.aggregates == ("COUNT",)
    assert q.leniencies == (
        "expression projected without 'AS ?var' (Virtuoso names it callret-0): COUNT(?uri)",
    )
    rejected_by_strict(text)


def test_virtuoso_implicit_grouping_of_a_projected_variable() -> None:
    q = parse_query("SELECT ?x COUNT(?y) WHERE { ?x ?p ?y }")
    assert q.projection == ("x", "callret-1")
    assert q.leniencies == (
        "expression projected without 'AS ?var' (Virtuoso names it callret-1): COUNT(?y)",
        "?x projected from an aggregate query without GROUP BY ?x "
        "(Virtuoso groups by it implicitly)",
    )


def test_virtuoso_expression_as_alias_without_parentheses() -> None:
    # QALD-9-plus test q73
    text = f"SELECT Count(?sub) as ?c WHERE {{ ?sub <{DBO}goldMedalist> <{DBR}Michael_Phelps> }}"
    q = parse_query(text)
    assert q.projection == ("c",)
    assert q.leniencies == (
        "'expression AS ?var' projected without enclosing parentheses: Count(?sub)",
    )
    rejected_by_strict(text)


def test_virtuoso_function_call_projected() -> None:
    # QALD-9-plus test q124
    q = parse_query(
        "PREFIX res: <http://dbpedia.org/resource/> "
        "SELECT DISTINCT xsd:date(?date) WHERE { res:Death_of_Carlo_Giuliani dbo:deathDate ?date }"
    )
    assert q.projection == ("callret-0",)
    assert q.expression_iris == ()  # xsd:date is a function name here
    assert len(q.leniencies) == 3  # xsd:, dbo: and the unnamed projection


def test_virtuoso_parenthesised_variables() -> None:
    # QALD-6 data cube test q16 and q13
    q = parse_query("SELECT DISTINCT(?result) WHERE { ?obs ?p ?result }")
    assert q.projection == ("result",) and q.distinct
    assert q.leniencies == ("parenthesised variable '(?result)' projected",)
    q = parse_query("SELECT DISTINCT(?supplier) AS ?result { ?obs ?p ?supplier }")
    assert q.projection == ("result",)
    assert q.leniencies == (
        "'(expression) AS ?var' projected without enclosing parentheses: (?supplier)",
    )
    q = parse_query("SELECT (COUNT(?x)) { ?x ?p ?o }")
    assert q.projection == ("callret-0",)
    rejected_by_strict("SELECT DISTINCT(?result) WHERE { ?obs ?p ?result }")


def test_virtuoso_alias_inside_count() -> None:
    # QALD-9 train q56: Virtuoso answered it in a column named callret-0
    text = f"SELECT COUNT(DISTINCT ?uri AS ?uri) WHERE {{ ?uri <{DBO}director> ?d }}"
    q = parse_query(text)
    assert q.projection == ("callret-0",)
    assert q.leniencies == (
        "'AS ?uri' inside COUNT(…) ignored",
        "expression projected without 'AS ?var' (Virtuoso names it callret-0): "
        "COUNT(DISTINCT ?uri AS ?uri)",
    )
    rejected_by_strict(text)


def test_keywords_written_together() -> None:
    # QALD-5 train JSON q66 and QALD-8 QASystem output q117
    q = parse_query(f"ASKWHERE {{ <{DBR}Velvet_Goldmine> <{DBO}starring> <{DBR}Christian_Bale> }}")
    assert q.form == "ASK" and len(q.patterns) == 1
    assert q.leniencies == ("keywords written together: 'ASKWHERE' read as 'ASK WHERE'",)
    q = parse_query("SELECT ?a { ?a ?p ?y } GROUP BY ?a ORDER BYDESC(COUNT(?y)) LIMIT 1")
    assert q.limit == 1
    assert q.leniencies == ("keywords written together: 'BYDESC' read as 'BY DESC'",)
    rejected_by_strict("ASKWHERE { ?s ?p ?o }")
    # A word that splits in no way, or in two ways, stays an error.
    with pytest.raises(SparqlSyntaxError):
        parse_query("ASK { ?s ?p ?o } OFSET 1")


def test_virtuoso_from_inside_a_sub_query_and_rebinding_with_as() -> None:
    # QALD-6 data cube train q10 (raw) and q12
    q = parse_query(
        "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
        "select avg(?sum) as ?avg { select ?d sum(xsd:decimal(?a)) as ?sum "
        "from <http://linkedspending.aksw.org/ministry_of_health> { ?obs ?d ?a } }"
    )
    assert q.projection == ("avg",)
    assert "FROM inside a sub-query" in q.leniencies
    assert q.aggregates == ("AVG", "SUM")
    q = parse_query(
        "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT xsd:decimal(?a) as ?a { ?o ?p ?a }"
    )
    assert q.projection == ("a",)
    assert "?a is both bound in the WHERE clause and assigned with AS" in q.leniencies


def test_linkedspending_prefixes() -> None:
    q = parse_query(
        "select ?p from <http://linkedspending.aksw.org/town_of_cary_expenditures> "
        "{ ?obs qb:dataSet ls:town_of_cary_expenditures. ?obs lso:refYear ?p }"
    )
    assert q.patterns[0].predicate == Node("iri", "http://purl.org/linked-data/cube#dataSet")
    assert q.patterns[0].object.value == (
        "http://linkedspending.aksw.org/instance/town_of_cary_expenditures"
    )
    assert q.from_graphs == ("http://linkedspending.aksw.org/town_of_cary_expenditures",)


def test_a_standard_query_has_no_leniencies_and_both_dialects_agree() -> None:
    text = (
        f"PREFIX dbo: <{DBO}> SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {{ ?x a dbo:Film }} "
        "GROUP BY ?x"
    )
    assert parse_query(text).leniencies == ()
    assert parse_query(text) == parse_query(text, dialect="strict")


def test_leniencies_are_listed_once() -> None:
    q = parse_query("ASK { dbo:a dbo:b dbo:c . dbo:d dbo:e dbo:f }")
    assert len(q.leniencies) == 1


def test_virtuoso_having_without_parentheses_and_arithmetic_projections() -> None:
    # QALD-6 statisticalQA draft (history/statisticalQA.2016-01-05.xml) q42 and q33
    q = parse_query(
        "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
        "select count(?country) as ?result { select ?country { ?obs ?p ?country ; ?q ?aid } "
        "group by ?country having sum(xsd:decimal(?aid))>1000000 }"
    )
    assert q.projection == ("result",)
    assert q.aggregates == ("COUNT", "SUM")
    assert "HAVING condition without enclosing parentheses" in q.leniencies
    q = parse_query("select ?total/?years/365.242 { ?s ?total ?years }")
    assert q.projection == ("callret-0",)
    assert q.leniencies == (
        "expression projected without 'AS ?var' (Virtuoso names it callret-0): "
        "?total/?years/365.242",
    )
    # A standard HAVING and plain variables are untouched.
    assert parse_query("SELECT ?s ?o { ?s ?p ?o }").leniencies == ()
    q = parse_query("SELECT ?s { ?s ?p ?o } GROUP BY ?s HAVING (COUNT(?o) > 1) COUNT(?p) < 3")
    assert q.leniencies == ("HAVING condition without enclosing parentheses",)
