"""Server-side SVG charts: parsed with an XML parser, marks, positions and labels checked."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from service.web.charts import PALETTE, BarChart, Scatter, Series, bar_chart, scatter_chart

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # strict XML: a malformed chart fails here


def bars(root: ET.Element) -> list[ET.Element]:
    return root.findall(".//svg:rect[@class='bar']", NS)


def titles(elements: list[ET.Element]) -> list[str]:
    return [e.findtext("svg:title", namespaces=NS) or "" for e in elements]


MEASURES = BarChart(
    ident="chart-measures",
    title="QA measures by system",
    description="Macro F1 and micro F1 of two systems with 95 % intervals.",
    categories=("macro F1", "micro F1"),
    series=(
        Series("GANSWER2", (0.546, 0.115), ((0.483, 0.608), (0.054, 0.295))),
        Series("QAKIS", (0.203, None), ((0.153, 0.253), None)),
    ),
    axis_label="score (0 to 1)",
)


def test_bar_chart_is_accessible_svg() -> None:
    root = parse(bar_chart(MEASURES))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("role") == "img"
    labelled = (root.get("aria-labelledby") or "").split()
    assert labelled == ["chart-measures-title", "chart-measures-desc"]
    assert root.find("svg:title", NS).get("id") == "chart-measures-title"  # type: ignore[union-attr]
    assert root.findtext("svg:title", namespaces=NS) == "QA measures by system"
    assert "95 %" in (root.findtext("svg:desc", namespaces=NS) or "")
    assert root.find(".//svg:script", NS) is None
    assert not [e for e in root.iter() if e.get("style")]  # no inline style (CSP)


def test_bars_have_heights_by_value_and_titles_with_numbers() -> None:
    root = parse(bar_chart(MEASURES))
    found = bars(root)
    assert len(found) == 3  # QAKIS micro F1 is undefined: no bar
    heights = [float(b.get("height") or 0) for b in found]
    values = [float(b.get("data-value") or 0) for b in found]
    assert values == [0.546, 0.203, 0.115]  # category by category, series in order
    # heights proportional to the values, bottoms on one baseline
    assert heights[0] / heights[1] == pytest.approx(0.546 / 0.203, rel=0.02)
    bottoms = {round(float(b.get("y") or 0) + float(b.get("height") or 0), 1) for b in found}
    assert len(bottoms) == 1
    assert titles(found)[0] == "GANSWER2, macro F1: 0.546 [0.483, 0.608]"
    assert [b.get("fill") for b in found[:2]] == list(PALETTE[:2])
    undefined = root.findall(".//svg:text[@class='bar undefined']", NS)
    assert titles(undefined) == ["QAKIS, micro F1: undefined"]


def test_whiskers_span_the_interval() -> None:
    root = parse(bar_chart(MEASURES))
    whiskers = root.findall(".//svg:g[@class='whisker']", NS)
    assert len(whiskers) == 3
    first = whiskers[0].findall("svg:line", NS)
    stem = first[0]
    low, high = float(stem.get("y1") or 0), float(stem.get("y2") or 0)
    bar = bars(root)[0]
    per_unit = float(bar.get("height") or 0) / 0.546
    assert low - high == pytest.approx((0.608 - 0.483) * per_unit, rel=0.02)
    top_of_bar = float(bar.get("y") or 0)
    assert high < top_of_bar < low  # the estimate lies inside its interval


def label_text(label: ET.Element) -> list[str]:
    return [t.text or "" for t in label.findall("svg:tspan", NS)]


def test_category_labels_and_legend() -> None:
    root = parse(bar_chart(MEASURES))
    labels = root.findall(".//svg:text[@class='category']", NS)
    assert [label_text(label) for label in labels] == [["macro F1"], ["micro F1"]]
    legend = root.find(".//svg:g[@class='legend']", NS)
    assert legend is not None
    assert [t.text for t in legend.findall("svg:text", NS)] == ["GANSWER2", "QAKIS"]


def test_long_labels_are_cut_with_the_full_text_in_a_title() -> None:
    chart = BarChart(
        "c", "t", "d", ("an extraordinarily long answer type name",), (Series("s", (0.5,)),)
    )
    root = parse(bar_chart(chart))
    [label] = root.findall(".//svg:text[@class='category']", NS)
    lines = label_text(label)
    assert len(lines) == 2 and lines[-1].endswith("…")  # two lines, the second cut
    assert label.findtext("svg:title", namespaces=NS) == "an extraordinarily long answer type name"


def test_a_zero_is_a_stub_and_two_words_wrap() -> None:
    chart = BarChart(
        "c", "t", "d", ("macro precision",), (Series("a", (0.0,)), Series("b", (1.0,)))
    )
    root = parse(bar_chart(chart))
    zero, one = bars(root)
    assert 0 < float(zero.get("height") or 0) <= 2 and zero.get("data-value") == "0"
    assert float(one.get("height") or 0) > 100
    [label] = root.findall(".//svg:text[@class='category']", NS)
    assert label_text(label) == ["macro", "precision"]


def test_text_is_escaped() -> None:
    chart = BarChart("c", "<b>&", 'a "quoted" <desc>', ("x<y",), (Series("A&B", (0.5,)),))
    root = parse(bar_chart(chart))
    assert root.findtext("svg:title", namespaces=NS) == "<b>&"
    assert titles(bars(root)) == ["A&B, x<y: 0.500"]


def test_scatter_merges_equal_points_and_sizes_them_by_count() -> None:
    points = ((1.0, 1.0),) * 9 + ((0.0, 1.0),) + ((0.5, 0.25),)
    svg = scatter_chart(Scatter("s", "Per-question F1", "d", "A", "B", points))
    root = parse(svg)
    dots = root.findall(".//svg:circle[@class='point']", NS)
    assert sorted(int(d.get("data-count") or 0) for d in dots) == [1, 1, 9]
    by_count = {int(d.get("data-count") or 0): d for d in dots if d.get("data-count") == "9"}
    big = by_count[9]
    small = next(d for d in dots if d.get("data-count") == "1")
    assert float(big.get("r") or 0) > float(small.get("r") or 0)
    assert titles([big]) == ["9 questions: A 1.000, B 1.000"]
    # (1, 1) is the top right corner, (0, 1) the top left: y grows downwards in SVG
    top_left = next(d for d in dots if "A 0.000, B 1.000" in titles([d])[0])
    assert float(top_left.get("cx") or 0) < float(big.get("cx") or 0)
    assert float(top_left.get("cy") or 0) == float(big.get("cy") or 0)
    half = next(d for d in dots if "A 0.500" in titles([d])[0])
    assert float(half.get("cy") or 0) > float(big.get("cy") or 0)
    assert root.find(".//svg:line[@class='diagonal']", NS) is not None


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


@pytest.mark.parametrize("colour", PALETTE)
def test_palette_has_3_to_1_contrast_on_white(colour: str) -> None:
    assert (1.05) / (_luminance(colour) + 0.05) >= 3.0
