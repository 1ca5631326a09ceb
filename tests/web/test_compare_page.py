"""The compare page (``/compare``) on a running server: the form, a comparison of uploaded
answer files (tiers, intervals, pairs, charts, per-question differences) and errors shown next
to the form; the JSON API's ``/api/compare`` is tested in test_api.py."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from service.paths import DEMO_DIR

SVG = "{http://www.w3.org/2000/svg}"


def _files() -> list[tuple[str, tuple[str, bytes]]]:
    return [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("strong.json", (DEMO_DIR / "answers-strong.json").read_bytes())),
        ("answers", ("partial.json", (DEMO_DIR / "answers-partial.json").read_bytes())),
    ]


def test_the_form_is_linked_from_every_page(server) -> None:
    home = server.get("")
    assert 'href="/compare"' in home.text
    page = server.get("compare")
    assert page.status_code == 200 and 'id="compare-form"' in page.text
    assert 'name="answers" multiple' in page.text


def test_a_comparison_of_uploaded_files(server) -> None:
    response = server.post("compare", files=_files(), data={"profile": "exact"})
    assert response.status_code == 200, response.text
    html = response.text
    for ident in ("compare-systems", "compare-pairs", "compare-differences"):
        assert f'id="{ident}"' in html
    assert '<th scope="row">strong</th>' in html and '<th scope="row">partial</th>' in html
    start = html.rindex("<svg", 0, html.index('id="chart-compare-measures"'))
    svg = ET.fromstring(html[start : html.index("</svg>", start) + 6])
    assert svg.get("role") == "img"
    title = svg.find(f"{SVG}title")
    assert title is not None and (title.text or "").startswith("QA measures of each system")
    assert svg.findall(f".//{SVG}g[@class='whisker']")  # intervals drawn
    assert 'id="chart-compare-scatter"' in html


def test_errors_are_shown_next_to_the_form(server) -> None:
    one = [f for f in _files() if f[1][0] != "partial.json"]
    response = server.post("compare", files=one, data={"profile": "exact"})
    assert response.status_code == 400
    assert 'id="compare-error"' in response.text and "two or more answer files" in response.text
    assert 'id="compare-form"' in response.text
