"""Embeddable badges for published results: a small SVG (``experiment/{id}/badge.svg``) and
the Markdown and HTML snippets that link it to the experiment.

A badge shows one measure of one system on the experiment's QA task: by default the best
system by that measure (``?measure=macroF1``, ``&system=NAME`` to choose), on the run's
headline task (pooled over its languages; ``&language=en`` for one). Its shape follows the
familiar two-part style of README badges (a grey label, a coloured value), drawn by our own
code; white text on both parts has at least 4.5:1 contrast, and the SVG is an accessible image
(``role="img"``, ``aria-label`` and ``<title>`` with the full statement: system, value,
dataset, profile, experiment).
"""

from __future__ import annotations

import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import unquote, urlencode

from service.errors import BadRequest, NotFound
from service.web.pages import ExperimentPage, TaskRow, measure_label, measure_order

LABEL_FILL = "#4a5560"  # 7.5:1 with white
VALUE_FILL = "#0b5cad"  # 6.4:1 with white
WITHDRAWN_FILL = "#8a2a1f"  # 8.6:1 with white
CHAR = 6.8  # px per character of 11 px Verdana/DejaVu Sans, rounded up
DEFAULT_MEASURE = "macroF1"
NOT_BADGES = frozenset({"questions", "skippedQuestions", "errorCount", "meanRuntime"})


@dataclass(frozen=True, slots=True)
class Badge:
    system: str
    measure: str
    value: float
    dataset: str
    profile: str
    experiment_id: str
    withdrawn: bool = False  # a badge embedded before the withdrawal stops showing the score
    language: str | None = None  # said where the experiment has several languages

    @property
    def label(self) -> str:
        return f"GERBIL QA · {measure_label(self.measure)}"

    @property
    def message(self) -> str:
        said = f"{self.system} ({self.language})" if self.language else self.system
        return f"withdrawn · {said}" if self.withdrawn else f"{self.value:.3f} · {said}"

    @property
    def fill(self) -> str:
        return WITHDRAWN_FILL if self.withdrawn else VALUE_FILL

    @property
    def statement(self) -> str:
        """The badge in words (its text alternative)."""
        if self.withdrawn:
            return (
                f"GERBIL QA: the result of {self.system} on {self.dataset} (experiment "
                f"{self.experiment_id}) was withdrawn"
            )
        where = f"{self.dataset} in {self.language}" if self.language else self.dataset
        return (
            f"GERBIL QA: {self.system} scores {measure_label(self.measure)} {self.value:.3f} "
            f"on {where} under the {self.profile} profile (experiment {self.experiment_id})"
        )


def badge_measures() -> list[str]:
    return [m for m in measure_order() if m not in NOT_BADGES]


def choose(
    page: ExperimentPage, *, measure: str, system: str | None = None, language: str | None = None
) -> Badge:
    """The badge of ``measure`` on the QA task: of ``system`` (its label or name), else of the
    best system by that measure; in ``language`` (a task's languages, ``en`` or ``en,es``),
    else in the run's headline task, the one pooled over all its languages (the best single
    language was taken: DB25's 0.108 in English for the challenge's 0.098), the languages said
    on the badge where the run has several. 400 for a measure no badge shows, 404 when the
    experiment has no value for it."""
    if measure not in badge_measures():
        raise BadRequest(f"measure={measure!r}: expected one of {', '.join(badge_measures())}")
    rows: list[TaskRow] = [
        r for r in page.tasks_of("QA") if isinstance(r.measures.get(measure), int | float)
    ]
    if system is not None:  # compared in NFC: names are kept in NFC, older ones as stored
        wanted = unicodedata.normalize("NFC", system)
        rows = [r for r in rows if wanted in _names(r)]
    tags = sorted({r.language_tag for r in rows})
    if language is not None:
        rows = [r for r in rows if r.language_tag == language]
    elif rows:
        widest = max(len(r.language_tag.split(",")) for r in rows)
        rows = [r for r in rows if len(r.language_tag.split(",")) == widest]
    if not rows:
        who = f" for system {system!r}" if system else ""
        within = f" in {language!r} (it has {', '.join(tags)})" if language and tags else ""
        raise NotFound(f"experiment {page.id} has no QA {measure}{who}{within}")
    best = max(rows, key=lambda r: float(r.measures[measure] or 0.0))
    return Badge(
        system=best.system_label,
        measure=measure,
        value=float(best.measures[measure] or 0.0),
        dataset=page.dataset_label or "",
        profile=best.profile,
        experiment_id=page.id,
        withdrawn=page.withdrawn_at is not None,
        language=best.language_tag if len(tags) > 1 else None,
    )


def _names(row: TaskRow) -> set[str]:
    """What ``system=`` may give for a row's system (NFC): its label, its IRI's last part."""
    last = row.system.rsplit("/", 1)[-1]
    return {unicodedata.normalize("NFC", n) for n in (row.system_label, last, unquote(last))}


def _width(text: str) -> float:
    return round(len(text) * CHAR + 12)


def badge_svg(badge: Badge) -> str:
    """The badge as a standalone SVG document."""
    left, right = _width(badge.label), _width(badge.message)
    width = left + right
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": str(int(width)),
            "height": "20",
            "viewBox": f"0 0 {int(width)} 20",
            "role": "img",
            "aria-label": badge.statement,
        },
    )
    ET.SubElement(svg, "title").text = badge.statement
    clip = ET.SubElement(ET.SubElement(svg, "defs"), "clipPath", {"id": "round"})
    ET.SubElement(clip, "rect", {"width": str(int(width)), "height": "20", "rx": "3"})
    parts = ET.SubElement(svg, "g", {"clip-path": "url(#round)"})
    ET.SubElement(parts, "rect", {"width": str(int(left)), "height": "20", "fill": LABEL_FILL})
    ET.SubElement(
        parts,
        "rect",
        {"x": str(int(left)), "width": str(int(right)), "height": "20", "fill": badge.fill},
    )
    text = ET.SubElement(
        svg,
        "g",
        {
            "fill": "#ffffff",
            "text-anchor": "middle",
            "font-family": "Verdana, 'DejaVu Sans', sans-serif",
            "font-size": "11",
            "aria-hidden": "true",
        },
    )
    ET.SubElement(text, "text", {"x": str(left / 2), "y": "14"}).text = badge.label
    ET.SubElement(text, "text", {"x": str(left + right / 2), "y": "14"}).text = badge.message
    return ET.tostring(svg, encoding="unicode")


@dataclass(frozen=True, slots=True)
class Snippets:
    """What the experiment page offers for embedding the default badge."""

    url: str  # of the SVG
    alt: str
    markdown: str
    html: str


def every_system(page: ExperimentPage) -> list[dict[str, str]]:
    """Each QA system's badge snippets (``system``, ``url``, ``alt``, ``markdown``, ``html``),
    for the API: what the page offers, for a script to put in a README."""
    out = []
    for label in dict.fromkeys(r.system_label for r in page.tasks_of("QA")):
        found = snippets(page, system=label)
        if found is not None:
            out.append({"system": label, **asdict(found)})
    return out


def badge_url(
    experiment_uri: str, *, measure: str, system: str | None = None, language: str | None = None
) -> str:
    query: dict[str, Any] = {"measure": measure}
    if system is not None:
        query["system"] = system
    if language is not None:
        query["language"] = language
    return f"{experiment_uri}/badge.svg?{urlencode(query)}"


def snippets(
    page: ExperimentPage, *, measure: str = DEFAULT_MEASURE, system: str | None = None
) -> Snippets | None:
    """The embedding snippets of ``system``'s badge (else the best system's), None when there
    is no QA value."""
    try:
        badge = choose(page, measure=measure, system=system)
    except (BadRequest, NotFound):
        return None
    url = badge_url(page.uri, measure=measure, system=system)
    alt = badge.statement
    html_alt = alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return Snippets(
        url=url,
        alt=alt,
        markdown=f"[![{alt.replace('[', '(').replace(']', ')')}]({url})]({page.uri})",
        html=f'<a href="{page.uri}"><img src="{url.replace("&", "&amp;")}" alt="{html_alt}"></a>',
    )
