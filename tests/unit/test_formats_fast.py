"""The QALD-JSON reader's fast path agrees with its careful reader.

``plain_question`` builds well-formed questions straight from the parsed JSON and gives up
(``NotPlain``) wherever the careful ``read_question`` would report or special-case something.
The property: whenever the fast path gives a question, the careful reader gives the same one
and reports nothing; and a whole file reads the same (questions, problems with their lines and
columns) with the fast path switched off.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.errors import FormatError
from service.formats import qald_json, read, sniff
from service.formats.base import JsonLocator, Report, Source, parse_json
from service.formats.sparql_json import NotPlain, PlainTerms
from tests.conftest import DATA, QALD
from tests.unit.test_formats_fuzz import JSON_VALUES, mutate


def _qald_json_files() -> list[Path]:
    found = []
    # QALD-JSON lives in these folders; others (TEXT2SPARQL result sets…) are other formats
    folders = (DATA / "qald", DATA / "system-outputs")
    for path in sorted(p for folder in folders for p in folder.rglob("*.json")):
        data = path.read_bytes()
        if len(data) < 20_000_000 and sniff(data, name=path.name) == "qald-json":
            found.append(path)
    return found


FILES = _qald_json_files() if DATA.is_dir() else []  # none: the run stops (tests/layers.py)


def _careful(monkeypatch: pytest.MonkeyPatch, source: Path | bytes) -> Any:
    with monkeypatch.context() as m:

        def never(item: Any, terms: PlainTerms) -> Any:
            raise NotPlain

        m.setattr(qald_json, "plain_question", never)
        return read(source)


def _agrees(item: Any) -> bool:
    """The property for one question object; True when the fast path took it."""
    try:
        fast = qald_json.plain_question(item, PlainTerms())
    except NotPlain:
        return False
    report = Report(Source(b"{}", name="x.json"))
    careful = qald_json.read_question(item, report, at=("questions", 0))
    assert careful == fast
    assert report.problems() == []
    return True


def test_there_are_real_qald_json_files() -> None:
    assert len(FILES) >= 20
    assert QALD / "9" / "data" / "qald-9-test-multilingual.json" in FILES


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(DATA)))
def test_real_file_reads_the_same_without_the_fast_path(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = read(path)
    careful = _careful(monkeypatch, path)
    assert fast == careful  # questions, problems (with line and column), metadata


def test_fast_path_takes_most_real_questions() -> None:
    """Not a correctness check: the fast path must be the common case to be worth having."""
    path = QALD / "9" / "data" / "qald-9-test-multilingual.json"
    items = json.loads(path.read_bytes())["questions"]
    taken = sum(_agrees(item) for item in items)
    assert taken >= 0.9 * len(items)


ODD = [
    {"id": True},
    {"id": "1", "answertype": "colour"},
    {"id": "1", "aggregation": "union"},
    {"id": "1", "question": [{"string": "no language"}]},
    {"id": "1", "question": [{"language": "en", "string": "x", "foo": 1}]},
    {"id": "1", "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [{"y": {"type": "uri", "value": "http://a"}}]}}]},  # noqa: E501
    {"id": "1", "answers": [{"results": {"bindings": [{"x": {"type": "uri", "value": "<http://a>"}}]}}]},
    {"id": "1", "answers": [{"results": {"bindings": [{"x": {"type": "uri", "value": "Germany"}}]}}]},  # noqa: E501
    {"id": "1", "answers": [{"results": {"bindings": [{"x": {"type": "literal", "value": ""}}]}}]},
    {"id": "1", "answers": [{"results": {"bindings": [{"x": {"type": "resource", "value": "http://a"}}]}}]},
    {"id": "1", "answers": [{"head": {}, "results": {"bindings": []}, "boolean": True}]},
    {"id": "1", "answers": [{"boolean": True}, {"boolean": False}]},
    {"id": "1", "answers": [{"string": "five"}]},
    {"id": "1", "body": [{"language": "en", "string": "x"}]},
]  # fmt: skip


@pytest.mark.parametrize("item", ODD, ids=range(len(ODD)))
def test_odd_questions_go_the_careful_way(item: dict[str, Any]) -> None:
    assert not _agrees(item)


PLAIN = [
    {"id": 7, "question": [{"language": None, "string": "x"}], "query": "SELECT * {}"},
    {"id": "1", "answers": []},
    {"id": "1", "answers": [{"head": {"vars": ["x", "x"]}, "results": {}}]},
    {"id": "1", "query": {"sparql": "OUT OF SCOPE", "other": [1]}, "answers": [{}], "x": {}},
    {"id": "1", "answers": [{"results": {"bindings": [{"x": {"type": "typed-literal", "value": "1", "datatype": "http://www.w3.org/2001/XMLSchema#int"}, "y": {"type": "literal", "value": "a", "xml:lang": "en", "datatype": None}}]}}]},  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize("item", PLAIN, ids=range(len(PLAIN)))
def test_plain_questions_take_the_fast_path(item: dict[str, Any]) -> None:
    assert _agrees(item)


@settings(
    max_examples=100,
    deadline=2000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_mutated_questions_agree(data: st.DataObject) -> None:
    base = data.draw(st.sampled_from([*PLAIN, *ODD]))
    item = mutate(base, data) if data.draw(st.booleans()) else base
    if isinstance(item, dict) and data.draw(st.booleans()):
        item = {**item, data.draw(st.sampled_from(list(item) or ["id"])): data.draw(JSON_VALUES)}
    _agrees(item)


# --- the top-level decode that records offsets (parse_json(..., offsets=...)) ----------------

EDGE_DOCUMENTS = [
    '{"a": 1, "a": [2]}', '{"a": [1, 2], "a": [3]}', "[1, 2,]", '{"a": 1,}', "[1 2]", '{"a" 1}',
    "  [ ]  ", "{}", "[]", "[1] x", '{"a": NaN}', "[Infinity]", "\ufeff[1]", '{"a": "\\u00e9"}',
    '[{"x": [1, {"y": 2}]}, 3]', '{"a": 1}{"b": 2}', '{"a": [1, 2]', "[", "", "  ", "1", '"x"',
    '{"a": 1e400}', "[1" + "0" * 5000 + "]", "[[[[]]]]", '["\\x"]', '{"a": "\t"}', "null",
]  # fmt: skip


def _outcome(text: str, offsets: dict[int, Any] | None) -> tuple[str, str]:
    try:
        return "value", repr(parse_json(text, file="f.json", offsets=offsets))
    except FormatError as err:
        return "error", str(err)


@pytest.mark.parametrize("text", EDGE_DOCUMENTS, ids=range(len(EDGE_DOCUMENTS)))
def test_offsets_decode_gives_what_json_loads_gives(text: str) -> None:
    assert _outcome(text, {}) == _outcome(text, None)


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON_VALUES, indent=st.sampled_from([None, 0, 2]), cut=st.integers(0, 400))
def test_offsets_decode_and_locator_agree_with_the_plain_ones(
    value: Any, indent: int | None, cut: int
) -> None:
    text = json.dumps(value, indent=indent)
    for candidate in (text, text[:cut] + text[cut + 1 :]):  # a valid document, and a broken one
        offsets: dict[int, Any] = {}
        assert _outcome(candidate, offsets) == _outcome(candidate, None)
        if offsets:  # decoded: every path is located where the unseeded locator puts it
            seeded, plain = JsonLocator(candidate, known=offsets), JsonLocator(candidate)
            for path in _paths(json.loads(candidate)):
                assert seeded.line_col(path) == plain.line_col(path)


def _paths(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    out = [prefix, (*prefix, "missing"), (*prefix, 99)]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


def test_real_file_problems_are_located_without_a_second_parse(data_dir: Path) -> None:
    """QALD-9 test has four warnings inside questions; with the offsets of the first parse the
    locator decodes only those questions, and finds what a fresh locator finds."""
    path = data_dir / "qald" / "ag-sc_QALD" / "9" / "data" / "qald-9-test-multilingual.json"
    src = Source(path.read_bytes(), name=path.name)
    doc = src.json()
    fresh = JsonLocator(src.text)
    items = src._offsets[fresh.offset(("questions",))]
    assert isinstance(items, list) and len(items) == len(doc["questions"])
    for i in (0, 8, 118, len(items) - 1):
        at = ("questions", i, "answers", 0, "boolean")
        assert src.locator.line_col(at) == fresh.line_col(at)
