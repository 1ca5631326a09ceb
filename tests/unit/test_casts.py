"""The integer casts Oxigraph lacks (service.kb.casts), as XPath 2.0 §17.1 defines them."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from service.kb.casts import RANGES, XSD, cast, custom_functions


@pytest.mark.parametrize(
    ("name", "datatype", "lexical", "expected"),
    [
        ("int", "string", " 42 ", 42),  # whitespace around a lexical form is allowed
        ("int", "string", "+7", 7),
        ("int", "string", "4.2", None),  # a string must be the type's lexical form
        ("int", "string", "forty", None),
        ("int", "decimal", "-3.99", -3),  # numbers truncate towards zero
        ("int", "decimal", ".5", 0),
        ("nonNegativeInteger", "decimal", "1e999999999", None),  # no exponent in a decimal
        ("nonNegativeInteger", "string", "9" * 5000, None),  # past int()'s digit limit
        ("nonNegativeInteger", "string", "9" * 300, int("9" * 300)),
        ("int", "double", "2.5E1", 25),
        ("int", "double", "NaN", None),
        ("int", "float", "INF", None),
        ("int", "boolean", "true", 1),
        ("int", "boolean", "0", 0),
        ("int", "integer", "2147483647", 2**31 - 1),
        ("int", "integer", "2147483648", None),  # past xsd:int's range
        ("long", "integer", "2147483648", 2**31),
        ("byte", "integer", "-128", -128),
        ("unsignedByte", "integer", "-1", None),
        ("positiveInteger", "integer", "0", None),
        ("nonNegativeInteger", "integer", "0", 0),
        ("negativeInteger", "short", "-5", -5),
        ("int", "date", "2020-01-01", None),  # no cast from a date
    ],
)
def test_cast(name: str, datatype: str, lexical: str, expected: int | None) -> None:
    assert cast(name, f"{XSD}{datatype}", lexical) == expected


def test_every_integer_type_oxigraph_refuses_is_given() -> None:
    store = ox.Store()
    for name in RANGES:
        query = f'SELECT (<{XSD}{name}>("5"^^<{XSD}short>) AS ?x) {{}}'
        with pytest.raises(RuntimeError, match="is not supported"):
            list(store.query(query))  # type: ignore[arg-type]
        (row,) = store.query(query, custom_functions=custom_functions())  # type: ignore[misc]
        expected = None if name in {"nonPositiveInteger", "negativeInteger"} else "5"
        assert (row["x"].value if row["x"] else None) == expected


def test_a_language_tagged_string_or_an_iri_does_not_cast() -> None:
    store = ox.Store()
    query = f'SELECT (<{XSD}int>("5"@en) AS ?a) (<{XSD}int>(<urn:x>) AS ?b) {{}}'
    (row,) = store.query(query, custom_functions=custom_functions())  # type: ignore[misc]
    assert row["a"] is None and row["b"] is None
