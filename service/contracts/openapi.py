"""The parts of the OpenAPI document that come from the registries (built when served, so they
cannot drift): the enums of formats, profiles and experiment types, and the schemas of the
measures (one property per registered measure, with its label, description and bounds)."""

from __future__ import annotations

from typing import Any

from service.evaluation.measures import MEASURES, QUESTION_MEASURES
from service.evaluation.profiles import DEFAULT_PROFILE, PROFILES
from service.evaluation.results import ExperimentType
from service.formats import FORMATS

XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


def format_enum() -> list[str]:
    return list(FORMATS)


def profile_enum() -> list[str]:
    return list(PROFILES)


def default_profile() -> str:
    return DEFAULT_PROFILE


def experiment_type_enum() -> list[str]:
    return [t.value for t in ExperimentType]


def _number(
    datatype: str, label: str, description: str, minimum: float | None, maximum: float | None
) -> dict[str, Any]:
    kind = "integer" if datatype == XSD_INTEGER else "number"
    out: dict[str, Any] = {"type": [kind, "null"], "title": label, "description": description}
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum
    return out


def measures_schema() -> dict[str, Any]:
    """One task's measures: canonical name -> value (``null``: undefined)."""
    return {
        "type": "object",
        "description": "One task's measures by canonical name (null: undefined). Which are "
        "present depends on the profile, the experiment type and the answers (see each one).",
        "properties": {
            name: _number(i.datatype, i.label, i.description, i.minimum, i.maximum)
            for name, i in MEASURES.items()
        },
        "additionalProperties": False,
    }


def question_measures_schema() -> dict[str, Any]:
    """One question's measures in one task (``null``: not scored)."""
    return {
        "type": "object",
        "properties": {
            name: _number(q.datatype, q.label, q.description, q.minimum, q.maximum)
            for name, q in QUESTION_MEASURES.items()
        },
    }
