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

from service.formats import qald_json, read, sniff
from service.formats.base import Report, Source
from service.formats.sparql_json import NotPlain, PlainTerms
from tests.conftest import DATA, QALD
from tests.unit.test_formats_fuzz import JSON_VALUES, mutate


def _qald_json_files() -> list[Path]:
    found = []
    for path in sorted(DATA.rglob("*.json")):
        data = path.read_bytes()
        if len(data) < 20_000_000 and sniff(data, name=path.name) == "qald-json":
            found.append(path)
    return found


FILES = _qald_json_files() if DATA.is_dir() else []


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
    if not DATA.is_dir():
        pytest.skip("shared data not available")
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
    if not path.is_file():
        pytest.skip("shared data not available")
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
