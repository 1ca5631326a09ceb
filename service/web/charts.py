"""Charts drawn on the server as SVG: pure functions from numbers to markup, no JavaScript.

A chart is inline SVG in the page, so it needs nothing the strict Content-Security-Policy
forbids (colours are presentation attributes, not ``style``), prints, and reads without
scripts. Each chart is accessible: ``role="img"`` named by its ``<title>`` and described by its
``<desc>``, every mark has a ``<title>`` with its exact numbers (a tooltip in browsers, read by
screen readers), colours come from a palette with at least 3:1 contrast on white (WCAG 2.1
non-text contrast), and the pages put a data table next to each chart.

* :func:`bar_chart`: grouped bars (one group per category, one bar per series), each with an
  optional interval drawn as a whisker: measures of several systems with their bootstrap
  intervals, or a per-answer-type breakdown.
* :func:`scatter_chart`: per-question F1 of two systems, one circle per distinct point with an
  area that grows with the number of questions on it (F1 values pile up at 0 and 1), and the
  diagonal where both systems do equally well.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

SVG_NS = "http://www.w3.org/2000/svg"
# Okabe & Ito's colour-blind-safe hues, darkened where needed for 3:1 contrast on white.
PALETTE = ("#0072B2", "#C14F00", "#007A5E", "#AD3E83", "#6B5900", "#3D3D3D", "#5B4BB7")
TEXT = "#1b1f23"
MUTED = "#4a5560"
GRID = "#d0d7de"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
CHAR_WIDTH = 0.6  # average glyph width of the font, in ems (for laying out labels)
ZERO_STUB = 2.0  # px: the height of a bar whose value is 0
MIN_SLOT = 90.0  # px: the least width of a category (bars and the space after them)


@dataclass(frozen=True, slots=True)
class Series:
    """One series of a bar chart: a value per category, and optionally an interval each."""

    name: str
    values: tuple[float | None, ...]
    intervals: tuple[tuple[float, float] | None, ...] = ()


@dataclass(frozen=True, slots=True)
class BarChart:
    ident: str  # unique in the page: the ids of the title and description derive from it
    title: str
    description: str
    categories: tuple[str, ...]
    series: tuple[Series, ...]
    axis_label: str = ""
    axis_max: float = 1.0


@dataclass(frozen=True, slots=True)
class Scatter:
    ident: str
    title: str
    description: str
    x_label: str  # system on the x axis
    y_label: str
    points: tuple[tuple[float, float], ...]  # (x, y) per question, both in [0, 1]


def _number(value: float) -> str:
    """Coordinates with two decimals at most (the SVG stays small and diffable)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: object) -> ET.Element:
    element = ET.SubElement(
        parent, tag, {k.rstrip("_").replace("_", "-"): _attr(v) for k, v in attrs.items()}
    )
    if text is not None:
        element.text = text
    return element


def _attr(value: object) -> str:
    return _number(value) if isinstance(value, float) else str(value)


def _root(ident: str, title: str, description: str, width: float, height: float) -> ET.Element:
    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "width": _number(width),
            "height": _number(height),
            "viewBox": f"0 0 {_number(width)} {_number(height)}",
            "role": "img",
            "aria-labelledby": f"{ident}-title {ident}-desc",
            "class": "chart",
            "id": ident,
            "font-family": FONT,
            "font-size": "12",
        },
    )
    _el(svg, "title", title, id=f"{ident}-title")
    _el(svg, "desc", description, id=f"{ident}-desc")
    return svg


def _text_width(text: str, size: float = 12) -> float:
    return len(text) * size * CHAR_WIDTH


def _fit(text: str, width: float, size: float = 12) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels."""
    room = max(1, int(width / (size * CHAR_WIDTH)))
    return text if len(text) <= room else text[: max(1, room - 1)] + "…"


def _lines(text: str, width: float, size: float = 12) -> list[str]:
    """``text`` on one line, or on two split at a space, each cut to fit ``width`` pixels."""
    if _text_width(text, size) <= width or " " not in text:
        return [_fit(text, width, size)]
    words = text.split(" ")
    best = min(
        range(1, len(words)),
        key=lambda k: max(len(" ".join(words[:k])), len(" ".join(words[k:]))),
    )
    return [_fit(" ".join(words[:best]), width, size), _fit(" ".join(words[best:]), width, size)]


def _serialise(svg: ET.Element) -> str:
    return ET.tostring(svg, encoding="unicode", short_empty_elements=True)


def _y_axis(svg: ET.Element, left: float, top: float, width: float, height: float) -> None:
    """Grid lines and labels at 0, 0.25 … 1 of the axis."""
    for k in range(5):
        share = k / 4
        y = top + height * (1 - share)
        _el(svg, "line", x1=left, x2=left + width, y1=y, y2=y, stroke=GRID, stroke_width=1)
        label = _number(share) if share not in (0, 1) else str(int(share))
        _el(svg, "text", label, x=left - 6, y=y + 4, text_anchor="end", fill=MUTED)


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def bar_chart(chart: BarChart) -> str:
    """Grouped bars with interval whiskers, as an SVG document (a string)."""
    n_series = max(1, len(chart.series))
    bar = 18.0 if n_series <= 4 else 12.0
    group = n_series * bar
    gap = max(28.0, MIN_SLOT - group)  # room between groups, and for two lines of label
    left, top, plot_h = 40.0, 12.0, 180.0
    label_h = 36.0  # two lines
    legend_rows = math.ceil(len(chart.series) / 3)
    width = max(360.0, left + len(chart.categories) * (group + gap) + 12)
    height = top + plot_h + label_h + 8 + legend_rows * 18 + (16 if chart.axis_label else 0)
    plot_w = width - left - 12
    svg = _root(chart.ident, chart.title, chart.description, width, height)
    _y_axis(svg, left, top, plot_w, plot_h)
    if chart.axis_label:
        _el(svg, "text", chart.axis_label, x=left, y=height - 4, fill=MUTED)
    scale = plot_h / (chart.axis_max or 1.0)
    baseline = top + plot_h
    for c, category in enumerate(chart.categories):
        x0 = left + gap / 2 + c * (group + gap)
        marks = _el(svg, "g", class_="group")
        for s, series in enumerate(chart.series):
            value = series.values[c] if c < len(series.values) else None
            interval = series.intervals[c] if c < len(series.intervals) else None
            x = x0 + s * bar
            colour = PALETTE[s % len(PALETTE)]
            about = f"{series.name}, {category}: {_fmt(value)}"
            if interval is not None:
                about += f" [{interval[0]:.3f}, {interval[1]:.3f}]"
            if value is None:
                mark = _el(marks, "text", "–", x=x + bar / 2, y=baseline - 4, text_anchor="middle")
                mark.set("fill", MUTED)
                mark.set("class", "bar undefined")
                _el(mark, "title", about)
                continue
            # a zero is a stub on the baseline, so that it reads as a value, not as missing
            h = max(ZERO_STUB, min(value, chart.axis_max) * scale)
            rect = _el(marks, "rect", x=x + 1, y=baseline - h, width=bar - 2, height=h, fill=colour)
            rect.set("class", "bar")
            rect.set("data-value", f"{value:.6g}")
            _el(rect, "title", about)
            if interval is not None:
                low, high = (baseline - max(0.0, min(v, chart.axis_max)) * scale for v in interval)
                mid = x + bar / 2
                whisker = _el(marks, "g", class_="whisker", stroke=TEXT, stroke_width=1.5)
                _el(whisker, "title", about)
                _el(whisker, "line", x1=mid, x2=mid, y1=low, y2=high)
                for y in (low, high):
                    _el(whisker, "line", x1=mid - 4, x2=mid + 4, y1=y, y2=y)
        centre = x0 + group / 2
        label = _el(svg, "text", x=centre, y=baseline + 16, text_anchor="middle", fill=TEXT)
        label.set("class", "category")
        for k, line in enumerate(_lines(category, group + gap - 4)):
            _el(label, "tspan", line, x=centre, dy=0 if k == 0 else 14)
        _el(label, "title", category)
    _el(svg, "line", x1=left, x2=left + plot_w, y1=baseline, y2=baseline, stroke=MUTED)
    _legend(svg, chart.series, left, baseline + label_h + 8, plot_w)
    return _serialise(svg)


def _legend(
    svg: ET.Element, series: Sequence[Series], left: float, top: float, width: float
) -> None:
    column = width / 3
    legend = _el(svg, "g", class_="legend")
    for s, one in enumerate(series):
        x = left + (s % 3) * column
        y = top + (s // 3) * 18
        _el(legend, "rect", x=x, y=y, width=12, height=12, fill=PALETTE[s % len(PALETTE)])
        _el(legend, "text", _fit(one.name, column - 24), x=x + 16, y=y + 10, fill=TEXT)


def scatter_chart(chart: Scatter) -> str:
    """Per-question values of two systems, one circle per distinct point, as SVG."""
    left, top, size = 44.0, 12.0, 240.0
    width, height = left + size + 16, top + size + 40
    svg = _root(chart.ident, chart.title, chart.description, width, height)
    for k in range(5):  # grid both ways
        share = k / 4
        x = left + size * share
        y = top + size * (1 - share)
        _el(svg, "line", x1=left, x2=left + size, y1=y, y2=y, stroke=GRID)
        _el(svg, "line", x1=x, x2=x, y1=top, y2=top + size, stroke=GRID)
        label = _number(share) if share not in (0, 1) else str(int(share))
        _el(svg, "text", label, x=left - 6, y=y + 4, text_anchor="end", fill=MUTED)
        _el(svg, "text", label, x=x, y=top + size + 14, text_anchor="middle", fill=MUTED)
    _el(
        svg,
        "line",
        x1=left,
        y1=top + size,
        x2=left + size,
        y2=top,
        stroke=MUTED,
        stroke_dasharray="4 3",
        class_="diagonal",
    )
    _el(
        svg,
        "text",
        _fit(chart.x_label, size) + " →",
        x=left + size,
        y=top + size + 30,
        text_anchor="end",
        fill=TEXT,
    )
    y_title = _el(
        svg,
        "text",
        _fit(chart.y_label, size) + " →",
        x=12,
        y=top + size,
        fill=TEXT,
        transform=f"rotate(-90 12 {_number(top + size)})",
    )
    y_title.set("class", "axis-title")
    counts = Counter((round(x, 3), round(y, 3)) for x, y in chart.points)
    biggest = max(counts.values(), default=1)
    points = _el(svg, "g", class_="points", fill=PALETTE[0], fill_opacity="0.75")
    for (x, y), n in sorted(counts.items()):
        radius = 3 + 9 * math.sqrt(n / biggest)  # area grows with the count
        dot = _el(
            points,
            "circle",
            cx=left + size * min(max(x, 0.0), 1.0),
            cy=top + size * (1 - min(max(y, 0.0), 1.0)),
            r=radius,
        )
        dot.set("class", "point")
        dot.set("data-count", str(n))
        question = "question" if n == 1 else "questions"
        _el(dot, "title", f"{n} {question}: {chart.x_label} {x:.3f}, {chart.y_label} {y:.3f}")
    return _serialise(svg)
