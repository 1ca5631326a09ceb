"""Spelling keys into SPARQL text (VALUES blocks) and reading SPARQL JSON bindings back."""

from __future__ import annotations

import pytest

from service.kb.prefixes import declared_prefixes, with_default_prefixes
from service.kb.terms import (
    answer_set_from_json,
    batches,
    iri_ref,
    literal,
    values_block,
)
from service.model import XSD_INTEGER, Term


@pytest.mark.parametrize(
    ("value", "spelled"),
    [
        ("plain", '"plain"'),
        ('Say "hi"', '"Say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("two\nlines\r\n", '"two\\nlines\\r\\n"'),
        ("tab\there", '"tab\\there"'),
        ("Zürich 東京", '"Zürich 東京"'),
        ("} } DROP ALL", '"} } DROP ALL"'),  # inside a string, braces are just text
    ],
)
def test_literal_escaping(value: str, spelled: str) -> None:
    assert literal(value) == spelled


def test_literal_language_and_datatype() -> None:
    assert literal("Berlin", lang="en") == '"Berlin"@en'
    assert literal("Berlin", lang="de-CH") == '"Berlin"@de-CH'
    assert literal("42", datatype=XSD_INTEGER) == f'"42"^^<{XSD_INTEGER}>'
    with pytest.raises(ValueError, match="language tag"):
        literal("x", lang='en" . } #')
    with pytest.raises(ValueError, match="absolute IRI"):
        literal("x", datatype="integer")


@pytest.mark.parametrize(
    "iri",
    [
        "http://dbpedia.org/resource/Berlin",
        "http://dbpedia.org/resource/Brazil_(film)",
        "http://dbpedia.org/resource/Café",
        "urn:isbn:1",
    ],
)
def test_iri_ref_accepts_absolute_iris(iri: str) -> None:
    assert iri_ref(iri) == f"<{iri}>"


@pytest.mark.parametrize(
    "iri",
    [
        "Berlin",  # relative: the endpoint would resolve it against its base
        "http://x/a b",
        "http://x/a>b",
        'http://x/"',
        "http://x/{a}",
        "http://x/a\\b",
        "http://x/a\nb",
        "<http://x/a>",
        "http://ex]ample.org/x",  # not RFC 3987: Oxigraph's query parser refuses the query
        "http://[::1/x",
        "http://x/%zz",
    ],
)
def test_iri_ref_refuses_what_no_store_can_hold(iri: str) -> None:
    assert iri_ref(iri) is None


def test_batches() -> None:
    assert [list(b) for b in batches([1, 2, 3, 4, 5], 2)] == [[1, 2], [3, 4], [5]]
    assert list(batches([], 3)) == []
    with pytest.raises(ValueError):
        list(batches([1], 0))


def test_values_block() -> None:
    assert values_block("k", ["<http://a>", '"b"']) == 'VALUES ?k { <http://a> "b" }'


def test_answer_set_from_sparql_json() -> None:
    data = {
        "head": {"vars": ["x", "n"]},
        "results": {
            "bindings": [
                {
                    "x": {"type": "uri", "value": "http://a"},
                    "n": {"type": "typed-literal", "value": "1", "datatype": XSD_INTEGER},
                },
                {"x": {"type": "literal", "value": "Berlin", "xml:lang": "en"}},
                {"x": {"type": "bnode", "value": "b0"}},
            ]
        },
    }
    answers = answer_set_from_json(data)
    assert answers.vars == ("x", "n")
    assert answers.rows[0]["x"] == Term.iri("http://a")
    assert answers.rows[0]["n"] == Term.literal("1", datatype=XSD_INTEGER)
    assert answers.rows[1]["x"] == Term.literal("Berlin", lang="en")
    assert answers.rows[2]["x"].kind.value == "bnode"
    assert answer_set_from_json({"head": {}, "boolean": True}).boolean is True


def test_default_prefixes_added_only_when_undeclared() -> None:
    query = "PREFIX dbo: <http://example.org/my-dbo/> SELECT ?x WHERE { res:A dbo:p ?x }"
    out = with_default_prefixes(query)
    assert out.endswith(query)
    assert "PREFIX res: <http://dbpedia.org/resource/>" in out
    assert "PREFIX dbo: <http://dbpedia.org/ontology/>" not in out
    assert declared_prefixes("prefix  foaf:<x> PREFIX : <y>") == {"foaf", ""}
