"""Evaluation: score a system's answers against a dataset under a scorer profile.

Pure (no HTTP, no store): :func:`evaluate` gets the dataset, the run and optionally a KB, and
returns an :class:`~service.evaluation.results.Evaluation`. Profiles live in
:mod:`service.evaluation.profiles`, measures in :mod:`service.evaluation.measures`.

The names below are imported on first use, so importing a light submodule (``results``, the
profile names) does not load every matcher.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.evaluation.profiles import PROFILES, Profile, get_profile
    from service.evaluation.results import Evaluation, ExperimentType
    from service.evaluation.runner import evaluate

__all__ = ["PROFILES", "Evaluation", "ExperimentType", "Profile", "evaluate", "get_profile"]

_HOMES = {
    "PROFILES": "profiles",
    "Profile": "profiles",
    "get_profile": "profiles",
    "Evaluation": "results",
    "ExperimentType": "results",
    "evaluate": "runner",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
