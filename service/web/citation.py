"""How to cite an experiment: BibTeX and plain text built from what is fixed at submission.

The citation must not change when the experiment finishes or is published (its URI and
citation exist from the start, DESIGN §4), so it uses only the id (whose first 8 digits are the
submission date), the URI and the service's base: nothing computed later.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


@dataclass(frozen=True, slots=True)
class Citation:
    uri: str
    bibtex: str
    text: str


def citation_for(experiment_id: str, uri: str, *, base: str) -> Citation:
    year, month, day = experiment_id[:4], int(experiment_id[4:6]), int(experiment_id[6:8])
    host = urlsplit(base).netloc or base
    title = f"GERBIL QA experiment {experiment_id}"
    bibtex = (
        f"@misc{{gerbilqa-{experiment_id},\n"
        f"  title = {{{{{title}}}}},\n"
        f"  author = {{{{GERBIL QA}}}},\n"
        f"  howpublished = {{\\url{{{uri}}}}},\n"
        f"  url = {{{uri}}},\n"
        f"  year = {{{year}}},\n"
        f"  month = {MONTHS[month - 1]},\n"
        f"  note = {{Experiment submitted on {year}-{month:02d}-{day:02d} "
        f"to GERBIL QA at {host}}}\n"
        f"}}"
    )
    text = f"GERBIL QA ({year}). {title}. {host}. {uri}"
    return Citation(uri=uri, bibtex=bibtex, text=text)
