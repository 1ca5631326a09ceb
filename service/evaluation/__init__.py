"""Evaluation: score a system's answers against a dataset under a scorer profile.

Pure (no HTTP, no store): :func:`evaluate` gets the dataset, the run and optionally a KB, and
returns an :class:`~service.evaluation.results.Evaluation`. Profiles live in
:mod:`service.evaluation.profiles`, measures in :mod:`service.evaluation.measures`.
"""

from __future__ import annotations

from service.evaluation.profiles import PROFILES, Profile, get_profile
from service.evaluation.results import Evaluation, ExperimentType
from service.evaluation.runner import evaluate

__all__ = ["PROFILES", "Evaluation", "ExperimentType", "Profile", "evaluate", "get_profile"]
