"""The parts of the OpenAPI document that come from the registries (built when served, so they
cannot drift): the enums of formats, profiles and experiment types, and the schemas of the
measures (one property per registered measure, with its label, description and bounds)."""

from __future__ import annotations

import re
from collections.abc import Sequence
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


# The patterns below say in JSON Schema (ECMA-262 regular expressions: no inline flags, so a
# letter's cases are a class) what the server takes for a name: any case, white space around
# (``str.strip``, whose characters are those of ``\s``), as ``submission._profile_name`` and
# ``formats.get`` read them; the enums were lower-case, so a request the server takes (``FAIR``,
# ``QALD-JSON``, `` fair``) failed its own schema (explore31 F10).
_KELVIN = "\u212a"  # K, which str.lower() makes k


def any_case(name: str) -> str:
    """A regular expression matching ``name`` as ``str.lower()`` compares it.

    >>> any_case("qald-json")
    '[qQ][aA][lL][dD]-[jJ][sS][oO][nN]'
    """
    out = []
    for ch in name:
        if ch.isalpha():
            kelvin = _KELVIN if ch == "k" else ""
            out.append(f"[{ch}{ch.upper()}{kelvin}]")
        elif ch.isalnum() or ch in "-/_ ":
            out.append(ch)
        else:
            out.append("\\" + ch)  # + . ; are escaped alike in ECMA-262 and Python
    return "".join(out)


def names_pattern(
    names: Sequence[str], *, media_types: Sequence[str] = (), blank: bool = False
) -> str:
    """A value that is empty (left to the default; ``blank``: white space only too) or one of
    ``names`` in any case with white space around, or a media type of ``media_types`` with
    parameters (``; charset=utf-8``)."""
    alternatives = "|".join(any_case(n) for n in names)
    if media_types:
        typed = "|".join(any_case(m) for m in media_types)
        alternatives += f"|(?:{typed})\\s*(?:;[\\s\\S]*)?"
    empty = "\\s*" if blank else ""
    return f"^(?:{empty}|\\s*(?:{alternatives})\\s*)$"


def profile_pattern(*, blank: bool = False) -> str:
    """A profile's name; ``blank``: a form's profile, where white space alone is the default."""
    return names_pattern(profile_enum(), blank=blank)


def format_pattern(*, blank: bool = False) -> str:
    """A format's name, or the media type it is served as (``formats.get``); ``blank``: a
    form's format field, where white space alone is a format left to be sniffed."""
    media = [f.media_types[0] for f in FORMATS.values()]
    return names_pattern(format_enum(), media_types=media, blank=blank)


def slice_dimensions_pattern() -> str:
    """``?by=``: the dimensions of ``slices.DIMENSIONS`` or ``extra:KEY``, separated by commas
    (``slices.parse_dimensions``: white space around each and empty items ignored, one at
    least); empty: no breakdown."""
    from service.evaluation.slices import DIMENSIONS, EXTRA

    name = f"(?:{'|'.join(map(re.escape, DIMENSIONS))}|{re.escape(EXTRA)}[^,]*[^,\\s])"
    return f"^(?:|[\\s,]*{name}(?:\\s*,[\\s,]*{name})*[\\s,]*)$"


def language_pattern(*, blank: bool = False) -> str:
    """``language``: codes separated by commas (``languages.parse_languages``), ``_`` for
    ``-`` (hi_IN), white space and empty items ignored, repeats dropped; ``all`` alone.
    ``blank``: a form's field, which left empty or blank means the default."""
    from service.evaluation.languages import LANGUAGE_PRIMARY, LANGUAGE_SUBTAG, SEPARATOR

    gap = f"[\\s{SEPARATOR}]*"
    all_ = "[Aa][Ll][Ll]"  # any case, as every tag
    not_all = f"(?!{all_}(?:[\\s{SEPARATOR}]|$))"  # all is no tag beside others: it stands alone
    tag = f"{not_all}{LANGUAGE_PRIMARY}(?:[-_]{LANGUAGE_SUBTAG})*"
    between = f"\\s*{SEPARATOR}{gap}"
    tags = f"{gap}(?:{all_}(?:{between}{all_})*|{tag}(?:{between}{tag})*){gap}"
    return f"^(?:\\s*|{tags})$" if blank else f"^{tags}$"


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
