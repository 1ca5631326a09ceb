"""The contracts generated from the registries, and the command that writes or checks them.

The registries are the source of truth: measures (:mod:`service.evaluation.measures`), profiles
(:mod:`service.evaluation.profiles`), formats (:mod:`service.formats`), experiment types and
question statuses (:mod:`service.evaluation.results`), answer types (:mod:`service.model`).
From them come

* committed files, written by ``python -m service.contracts write`` (``make contracts``) and
  compared by ``python -m service.contracts check`` (and a test): :data:`GENERATED`;
* documents built when served or run, so they cannot drift: the OpenAPI enums and measure
  schemas (:mod:`service.contracts.openapi`) and the CLI help (``gerbil-qa evaluate --help``).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

from service.paths import PROJECT_ROOT


def _measures() -> str:
    from service.contracts.vocabulary import measures_ttl

    return measures_ttl()


def _codelists() -> str:
    from service.contracts.vocabulary import codelists_ttl

    return codelists_ttl()


def _call_settings() -> str:
    from service.contracts.vocabulary import call_settings_ttl

    return call_settings_ttl()


def _shapes() -> str:
    from service.contracts.shapes import shapes_ttl

    return shapes_ttl()


GENERATED: dict[str, Callable[[], str]] = {
    "ontology/generated-measures.ttl": _measures,
    "ontology/generated-codelists.ttl": _codelists,
    "ontology/generated-call-settings.ttl": _call_settings,
    "shapes/generated-shapes.ttl": _shapes,
}
"""Every generated file (relative to the project root) and the function that renders it."""


def render() -> dict[str, str]:
    """What every generated file must hold, from the registries as they are now."""
    return {path: make() for path, make in GENERATED.items()}


def write(root: Path = PROJECT_ROOT) -> list[str]:
    """Write every generated file that differs; the paths written."""
    written = []
    for path, text in render().items():
        target = root / path
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def check(root: Path = PROJECT_ROOT) -> dict[str, str]:
    """Every generated file that differs from what the registries produce -> a unified diff
    (empty when all match)."""
    stale = {}
    for path, text in render().items():
        target = root / path
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            diff = difflib.unified_diff(
                current.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"{path} (committed)",
                tofile=f"{path} (from the registries)",
            )
            stale[path] = "".join(diff)
    return stale
