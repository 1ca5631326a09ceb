"""An upload's unknown ``dataset_format`` is blamed on the field: the answer named the file
("upload.json: error: the file is declared as format 'banana' …"), not the field that said it.
It names the field, the value given and the formats accepted (from the formats registry),
through the form (``dataset_format``; the run page marks its select) and through the JSON
submission (``$.dataset.format``) alike."""

from __future__ import annotations

import io
import re
from typing import Any

from flask.testing import FlaskClient

from service.formats import FORMATS
from tests.lakes_benchmark import lakes


def _check(got: Any, field: str) -> None:
    assert got.status_code == 400, got.text
    error = got.get_json()
    said = error["error"]
    assert said.startswith(f"{field}: 'banana' is no known format; expected one of "), said
    assert ", ".join(FORMATS) in said  # the registry's names, in its order
    assert "upload.json" not in said  # the field, not the file
    [problem] = error["problems"]
    assert problem["path"] == f"$.{field.removeprefix('$.')}" and problem["file"] is None


def _form() -> dict[str, Any]:
    data = lakes()
    return {
        "profile": "exact",
        "dataset_format": "banana",
        "dataset_file": (io.BytesIO(data), "upload.json"),
        "answers": (io.BytesIO(data), "strong.json"),
    }


def test_the_form_names_the_field(client: FlaskClient) -> None:
    got = client.post("/api/experiments", data=_form(), content_type="multipart/form-data")
    _check(got, "dataset_format")
    page = client.post(
        "/experiments/new",
        data=_form(),
        content_type="multipart/form-data",
        headers={"Accept": "text/html"},
    )
    assert page.status_code == 400
    text = page.get_data(as_text=True)
    assert "dataset_format: &#39;banana&#39; is no known format" in text, text[:2000]
    marked = re.findall(r'id="(run-[^"]+)"[^>]*aria-invalid="true"', text)
    assert marked == ["run-dataset-format"], marked


def test_the_json_submission_names_the_field(client: FlaskClient) -> None:
    data = lakes().decode()
    body = {
        "dataset": {"filename": "upload.json", "content": data, "format": "banana"},
        "profile": "exact",
        "systems": [{"name": "strong", "answers": data}],
    }
    _check(client.post("/api/experiments", json=body), "$.dataset.format")
    body["dataset"]["format"] = "QALD-JSON"  # a known one, in any case: taken
    assert client.post("/api/experiments", json=body).status_code == 202
