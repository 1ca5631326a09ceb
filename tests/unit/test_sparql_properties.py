"""Property tests: whatever the text, the parser answers with a result or a SparqlSyntaxError.

Inputs are arbitrary Unicode text, token soups drawn from SPARQL's own vocabulary, deeply
nested brackets, and real gold queries (QALD-9 test, LC-QuAD) mutated by deleting, inserting,
duplicating and swapping pieces. Hypothesis' deadline turns a hang into a failure.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from service.sparql import ParsedQuery, SparqlSyntaxError, parse_query
from tests.conftest import DATA, QALD

SETTINGS = settings(
    max_examples=150,
    deadline=2000,  # ms per example: far above the ~0.2 ms a query takes, so only a hang fails
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_WORDS = (
    "SELECT ASK CONSTRUCT DESCRIBE WHERE PREFIX BASE FROM NAMED DISTINCT REDUCED AS FILTER "
    "OPTIONAL UNION MINUS GRAPH SERVICE SILENT BIND VALUES UNDEF GROUP BY HAVING ORDER ASC DESC "
    "LIMIT OFFSET COUNT SUM GROUP_CONCAT SEPARATOR EXISTS NOT IN STR REGEX IF BOUND a true "
    "{ } ( ) [ ] ; , . = != < > <= >= ! && || + - * / ^ ^^ | ? () []"
)
TOKENS = [
    *_WORDS.split(),
    "?x", "?y", "$z", "_:b", "_:b0", "<http://e/p>", "<>", "<#a>", ":p", "ex:q", "ex:", "dbo:a",
    "'s'", '"s"', '"""l\n"""', "'''l'''", '"x"@en', "1", "-2", "+3.5", ".5e-3", "@en",
    "# comment\n", "\\u0041", "%41", "ex:a\\,b", "text:",
]  # fmt: skip

SOUP = st.lists(st.sampled_from(TOKENS), max_size=60)


def parse_both(text: str) -> None:
    """Both dialects either parse ``text`` or raise SparqlSyntaxError; nothing else."""
    results: dict[str, ParsedQuery | SparqlSyntaxError] = {}
    for dialect in ("strict", "lenient"):
        try:
            results[dialect] = parse_query(text, dialect=dialect)  # type: ignore[arg-type]
        except SparqlSyntaxError as err:
            assert err.line >= 1 and err.column >= 1
            assert 0 <= err.offset <= len(text)
            results[dialect] = err
    strict, lenient = results["strict"], results["lenient"]
    # Whatever strict accepts, lenient accepts identically, with nothing to forgive.
    if isinstance(strict, ParsedQuery):
        assert lenient == strict
        assert strict.leniencies == ()


@SETTINGS
@given(st.text(max_size=300))
@example("SELECT * { ?s ?p ?o } LIMIT " + "9" * 5000)
@example("ASK { FILTER(" + "(" * 5000 + ")")
@example("'''" + "'" * 2000)
@example("ASK { ?s ex:" + "." * 5000 + " }")
@example("\\U0010FFFF \\uD800")
def test_arbitrary_text(text: str) -> None:
    parse_both(text)


@SETTINGS
@given(SOUP, st.sampled_from([" ", "", "\n"]))
def test_token_soup(tokens: list[str], separator: str) -> None:
    parse_both(separator.join(tokens))


@settings(SETTINGS, max_examples=25)  # each too-deep example unwinds a RecursionError
@given(st.integers(min_value=0, max_value=1500), st.sampled_from(["(", "{", "[", "( "]))
def test_deep_nesting(depth: int, bracket: str) -> None:
    closing = {"(": ")", "{": "}", "[": "]", "( ": ")"}[bracket]
    parse_both("ASK { FILTER(" + bracket * depth + "1" + closing * depth + ") }")
    parse_both("ASK " + bracket * depth + closing * depth)
    parse_both("SELECT * { ?s ?p " + bracket * depth + "?o" + closing * depth + " }")


def _real_queries() -> list[str]:
    queries: list[str] = []
    qald9 = QALD / "9" / "data" / "qald-9-test-multilingual.json"
    lcquad = DATA / "lcquad1" / "test-data.json"
    if qald9.is_file():
        data = json.loads(qald9.read_text(encoding="utf-8"))
        queries += [q["query"]["sparql"] for q in data["questions"] if q["query"].get("sparql")]
    if lcquad.is_file():
        data = json.loads(Path(lcquad).read_text(encoding="utf-8"))
        queries += [q["sparql_query"] for q in data[:100]]
    return queries


REAL = _real_queries()


@SETTINGS
@given(st.data())
def test_mutated_real_queries(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(REAL), label="query")
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        n = len(text)
        i = data.draw(st.integers(0, n), label="at")
        j = data.draw(st.integers(i, min(n, i + 12)), label="to")
        how = data.draw(st.sampled_from(["delete", "insert", "duplicate", "swap"]), label="how")
        if how == "delete":
            text = text[:i] + text[j:]
        elif how == "insert":
            piece = data.draw(st.sampled_from(TOKENS) | st.text(max_size=3), label="piece")
            text = text[:i] + piece + text[i:]
        elif how == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            k = data.draw(st.integers(0, n), label="other")
            text = text[:i] + text[k : k + 5] + text[i + 5 :]
    parse_both(text)


def test_every_real_query_sample_parses_in_the_lenient_dialect() -> None:
    """The unmutated sample itself is accepted (so the mutations start from valid queries)."""
    assert REAL, f"no QALD-9 test or LC-QuAD 1 test file under {DATA}"
    rejected = []
    for text in REAL:
        try:
            parse_query(text)
        except SparqlSyntaxError as err:
            rejected.append((text, str(err)))
    assert rejected == []
