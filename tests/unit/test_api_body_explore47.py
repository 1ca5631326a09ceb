"""The API's JSON bodies refuse what JSON has not, where it is (explore47 F1)."""

from __future__ import annotations

import flask
import pytest

from service.errors import BadRequest
from service.web.api import json_body


def _body(data: bytes) -> object:
    app = flask.Flask(__name__)
    with app.test_request_context(
        "/api/experiments", method="POST", data=data, content_type="application/json"
    ):
        return json_body()


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("NaN", "at line 2, column 11: NaN is not a JSON value (expected a number (JSON has no"),
        ("Infinity", "at line 2, column 11: Infinity is not a JSON value"),
        ("-Infinity", "at line 2, column 11: -Infinity is not a JSON value"),
        ("1e999", "at line 2, column 11: 1e999 is too large a number (expected a number within"),
        ("-2.5E+400", "at line 2, column 11: -2.5E+400 is too large a number"),
    ],
)
def test_an_api_body_refuses_nan_infinity_and_numbers_past_a_float(value: str, said: str) -> None:
    """``"title": NaN`` was read, then said "$.title: expected a string, got float", and
    ``"timeout": 1e999`` "inf, expected a number from 1 to 600": refused at parse, as the
    file readers refuse them, with the position and what JSON allows."""
    data = f'{{"dataset": "x", "label": "1e999 NaN",\n "title": {value}}}'.encode()
    with pytest.raises(BadRequest) as caught:
        _body(data)
    assert f"$: not valid JSON {said}" in caught.value.message


def test_an_api_body_keeps_its_numbers() -> None:
    assert _body(b'{"timeout": 1.5e2, "samples": 100, "x": -0.0}') == {
        "timeout": 150.0,
        "samples": 100,
        "x": -0.0,
    }
