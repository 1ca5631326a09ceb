"""A dataset or answer file refuses a number too large for a float at its line and column, with
the words a request body's refusal has (``1e999 is too large a number``): it read ``1e999`` as
infinity, where a request body refused it (explore47 F1)."""

from __future__ import annotations

import json

import pytest

from service.errors import FormatError
from service.formats import read

BODY_WORDS = "1e999 is too large a number (expected a number within about ±1.8e308"


def _answers(confidence: str) -> bytes:
    """An eQALD-style QALD-JSON answer file: one question, its answer's confidence as given."""
    bindings = '{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", '
    bindings += '"value": "http://example.org/Baikal"}}]}'
    return (
        '{"questions": [\n'
        ' {"id": "1", "question": [{"language": "en", "string": "Which lake?"}],\n'
        f'  "answers": [{bindings}, "confidence": {confidence}}}]}}\n'
        "]}\n"
    ).encode()


def _refusal(data: bytes, **kwargs: object) -> str:
    with pytest.raises(FormatError) as caught:
        read(data, name="f.json", **kwargs)  # type: ignore[arg-type]
    [problem] = caught.value.problems
    return str(problem)


@pytest.mark.parametrize("declared", [None, "qald-json"])
def test_an_answer_file_refuses_1e999_at_its_place(declared: str | None) -> None:
    data = _answers("1e999")
    column = data.decode().splitlines()[2].index("1e999") + 1
    said = _refusal(data, answers=True, format=declared)
    assert said.startswith(f"f.json:3:{column}: error: not valid JSON: {BODY_WORDS}"), said
    assert read(_answers("0.9"), name="f.json", answers=True).questions  # a float is read


def test_a_dataset_file_refuses_1e999_at_its_place() -> None:
    question = {"id": "1", "question": [{"language": "en", "string": "How deep?"}]}
    text = json.dumps({"dataset": {"id": "lakes"}, "questions": [question]}, indent=1)
    text = text.replace('"id": "1"', '"id": "1",\n  "depth": -1e999')
    line = next(n for n, s in enumerate(text.splitlines(), 1) if "1e999" in s)
    column = text.splitlines()[line - 1].index("-1e999") + 1
    said = _refusal(text.encode())
    assert said.startswith(f"f.json:{line}:{column}: error: not valid JSON: -{BODY_WORDS}"), said
