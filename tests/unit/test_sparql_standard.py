"""The lenient dialect rewritten to standard SPARQL: each rewrite, and positions mapped back."""

from __future__ import annotations

import pytest

from service.sparql import SparqlSyntaxError, parse_query
from service.sparql.standard import standard_query

DBO = "http://dbpedia.org/ontology/"
XSD = "http://www.w3.org/2001/XMLSchema#"
LSO = "http://linkedspending.aksw.org/ontology/"


@pytest.mark.parametrize(
    ("lenient", "standard"),
    [
        # real QALD-9 test gold queries (ids 73, 22, 124, 39 of qald-9-test-multilingual.json)
        ("SELECT Count(?sub) as ?c WHERE { ?sub dbo:goldMedalist ?x }",
         f"SELECT (Count(?sub) as ?c) WHERE {{ ?sub <{DBO}goldMedalist> ?x }}"),
        ("SELECT COUNT(DISTINCT ?y AS ?y) WHERE { ?x dbo:child ?y . }",
         f"SELECT (COUNT(DISTINCT ?y ) AS ?callret_0) WHERE {{ ?x <{DBO}child> ?y . }}"),
        ("SELECT DISTINCT xsd:date(?date) WHERE { ?x dbo:deathDate ?date }",
         f"SELECT DISTINCT (<{XSD}date>(?date) AS ?callret_0) "
         f"WHERE {{ ?x <{DBO}deathDate> ?date }}"),
        ("SELECT DISTINCT ?uri WHERE { ?x dbo:author ?uri } ORDER BY DESC(COUNT(?x)) LIMIT 1",
         f"SELECT DISTINCT ?uri WHERE {{ ?x <{DBO}author> ?uri }} GROUP BY ?uri "
         "ORDER BY DESC(COUNT(?x)) LIMIT 1"),
        # QALD-6 data-cube (LinkedSpending) gold queries
        ("select ?c sum(xsd:decimal(?a)) as ?s { ?o lso:a ?a; lso:c ?c } group by ?o",
         f"select ?c (sum(<{XSD}decimal>(?a)) as ?s) {{ ?o <{LSO}a> ?a; <{LSO}c> ?c }} "
         "group by ?o ?c"),
        ("select distinct(?d) { ?o lso:d ?d }", f"select distinct ?d  {{ ?o <{LSO}d> ?d }}"),
        ("select (sum(?a)/12) as ?r { ?o lso:a ?a }",
         f"select ((sum(?a)/12) as ?r) {{ ?o <{LSO}a> ?a }}"),
        ("select ?t/?y { ?o lso:t ?t; lso:y ?y }",
         f"select (?t/?y AS ?callret_0) {{ ?o <{LSO}t> ?t; <{LSO}y> ?y }}"),
        ("select ?r { ?o lso:r ?r; lso:a ?a } group by ?r having sum(?a)>10",
         f"select ?r {{ ?o <{LSO}r> ?r; <{LSO}a> ?a }} group by ?r having (sum(?a)>10)"),
        ("select avg(?s) { select ?d sum(?a) as ?s from <http://g> { ?o lso:a ?a; lso:d ?d } }",
         f"select (avg(?s) AS ?callret_0) {{ select ?d (sum(?a) as ?s)  {{ ?o <{LSO}a> ?a; "
         f"<{LSO}d> ?d }} GROUP BY ?d }}"),
        ("ASKWHERE { ?x ?p ?o }", "ASK WHERE { ?x ?p ?o }"),
        # LLM output (TEXT2SPARQL'25 DB25): Virtuoso's count(*) as ?x, ?x also in the pattern
        ("select count(*) as ?x where{dbr:Y dbo:author ?x }",
         "select (count(*) as ?x_1) where{<http://dbpedia.org/resource/Y> "
         f"<{DBO}author> ?x }}"),
        ("SELECT ?x ?x WHERE { ?x ?p ?o }", "SELECT ?x  WHERE { ?x ?p ?o }"),
        ("SELECT * WHERE { ?x ?p ?o } GROUP BY ?x", "SELECT ?x WHERE { ?x ?p ?o } GROUP BY ?x"),
        ("SELECT * { _:a ?p ?o . { _:a ?q ?z } }",
         "SELECT * { ?bnode_a ?p ?o . { ?bnode_a ?q ?z } }"),
        # already standard: only prefixed names are spelled out
        ("PREFIX pv: <http://ld/> SELECT ?r WHERE { ?s pv:memberOf ?r }",
         "PREFIX pv: <http://ld/> SELECT ?r WHERE { ?s <http://ld/memberOf> ?r }"),
    ],
)  # fmt: skip
def test_each_leniency_is_rewritten_as_the_lenient_dialect_reads_it(
    lenient: str, standard: str
) -> None:
    query = standard_query(lenient)
    assert query.text == standard
    assert query.parsed == parse_query(lenient)
    # The rewritten query is strict SPARQL 1.1 and means the same triple patterns.
    strict = parse_query(query.text, dialect="strict")
    assert strict.patterns == query.parsed.patterns or "_:a" in lenient


def test_the_environment_gives_the_default_namespace_as_the_empty_prefix() -> None:
    text = "SELECT ?r WHERE { ?s :memberOf ?r ; rdfs:label ?l }"
    query = standard_query(text, prefixes={"": "http://ld.company.org/prod-vocab/"})
    assert query.text == (
        "SELECT ?r WHERE { ?s <http://ld.company.org/prod-vocab/memberOf> ?r ; "
        "<http://www.w3.org/2000/01/rdf-schema#label> ?l }"
    )
    assert (
        "undeclared prefix ':' read as <http://ld.company.org/prod-vocab/> (the dataset's "
        "prefixes)" in query.parsed.leniencies
    )
    with pytest.raises(SparqlSyntaxError, match="undeclared prefix ':'"):
        standard_query(text)
    # A declared prefix wins over the environment.
    declared = standard_query("PREFIX : <http://x/> ASK { :a :b :c }", prefixes={"": "http://y/"})
    assert "<http://x/a>" in declared.text


def test_positions_in_the_rewritten_text_map_back_to_the_original() -> None:
    original = "SELECT COUNT(?x)\n  WHERE { ?x a dbo:Film ;\n   dbo:bad ?y }"
    query = standard_query(original)
    lines = query.text.split("\n")
    # "dbo:bad" became "<http://dbpedia.org/ontology/bad>" on line 3
    column = lines[2].index("<http://dbpedia.org/ontology/bad>") + 1
    assert query.original_position(3, column) == (3, 4)
    # a token after the rewritten one, and one after inserted text on line 1
    assert query.original_position(3, lines[2].index("?y") + 1) == (3, 12)
    assert query.original_position(1, lines[0].index("COUNT") + 1) == (1, 8)
    assert query.original_position(2, lines[1].index("WHERE") + 1) == (2, 3)
    # inserted text maps to where it was inserted
    assert query.original_position(1, lines[0].index("AS ?callret_0") + 1) == (1, 17)


def test_positions_survive_code_point_escapes() -> None:
    original = 'SELECT ?x WHERE { ?x dbo:name "\\u00e9t\\u00e9" . ?x dbo:p ?y }'
    query = standard_query(original)
    at = query.text.index("<http://dbpedia.org/ontology/p>") + 1
    assert query.original_position(1, at) == (1, original.index("dbo:p") + 1)


def test_what_even_the_lenient_dialect_refuses_raises_in_the_original() -> None:
    with pytest.raises(SparqlSyntaxError) as caught:
        standard_query("SELECT ?x WHERE {\n ?x dbo:p <http://x/{unique_identifier}> }")
    assert (caught.value.line, caught.value.column) == (2, 11)  # the "<" no IRI can start
