"""``CITATION.cff`` (Citation File Format 1.2.0): how to cite the software itself, read as
YAML with the keys the format requires, its version and licence those of ``pyproject.toml``
(the repository had no way to cite GERBIL QA for Python: explore55)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

import service

ROOT = Path(__file__).resolve().parents[2]


def test_the_citation_file_is_cff_with_the_projects_version_and_licence() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert {"cff-version", "message", "title", "authors"} <= cff.keys()
    assert cff["cff-version"] == "1.2.0" and cff["title"] == "GERBIL QA for Python"
    assert cff["authors"] and all(a.get("name") or a.get("family-names") for a in cff["authors"]), (
        cff["authors"]
    )
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert cff["version"] == project["version"] == service.__version__
    assert cff["license"] == project["license"]
    named = [a["name"] for a in project.get("authors", []) if "name" in a]
    assert all(any(name in str(a.values()) for a in cff["authors"]) for name in named)
