"""Scorer profiles: one module per profile, registered by name in :data:`PROFILES`.

Every profile has a stable ``name``, a ``version`` (bumped on any change of behaviour), an
``iri`` (``http://w3id.org/gerbil/qa/vocab#profile-<name>``), a one-paragraph ``description``
and a ``signature`` built from an explicit list of its settings, sacrebleu style, printed with
every number it produces; a result that used a KB carries the KB's identity in its signature
(:meth:`Profile.signature_for`). See :mod:`service.evaluation.profiles.base` for the fields.

**Adding a profile** is one module here defining ``PROFILE = Profile(...)`` plus one line in
:data:`_MODULES`; ``make contracts`` then regenerates the vocabulary's code list. A profile's
module is imported the first time the profile is asked for, so ``gerbil-qa evaluate`` loads
only the matcher it uses.

>>> get_profile("exact").signature
'gerbil-qa:exact|v:1.2.0|ref:none|items:values|match:string|sets:distinct|empty:1/0|unanswered:0|qald-empty:given|c2kb:unprojected-classes|kb:no'
>>> list(PROFILES)[:2]
['fair', 'gerbil']
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from service.errors import BadRequest
from service.evaluation.profiles.base import (
    ALL_TYPES,
    QA_ONLY,
    VOCAB,
    AnswerItems,
    Profile,
)

if TYPE_CHECKING:
    from service.evaluation.matchers.base import ExplainsMisses

__all__ = [
    "ALL_TYPES",
    "DEFAULT_PROFILE",
    "PROFILES",
    "QA_ONLY",
    "VOCAB",
    "AnswerItems",
    "Profile",
    "ProfileRegistry",
    "explains_misses",
    "get_profile",
    "made_for",
    "own_profile",
    "why_wrong",
]

_MODULES: dict[str, str] = {
    "fair": "fair",
    "gerbil": "gerbil",
    "qald6": "qald6",
    "qald-legacy": "qald_legacy",
    "exact": "exact",
    "poleval": "poleval",
    "text2sparql": "text2sparql",
}
"""Every profile's name -> its module in this package, in listing order (the first is the
default). Register a new profile here."""


class ProfileRegistry(Mapping[str, Profile]):
    """Profiles by name, in listing order; a profile's module is imported on first use.

    Iterating the names imports nothing; reading a profile imports its module only.
    """

    def __init__(self, modules: Mapping[str, str]) -> None:
        self._modules = dict(modules)
        self._loaded: dict[str, Profile] = {}

    def __getitem__(self, name: str) -> Profile:
        found = self._loaded.get(name)
        if found is None:
            module = self._modules[name]  # KeyError for an unknown name, as a Mapping should
            found = importlib.import_module(f"{__name__}.{module}").PROFILE
            if not isinstance(found, Profile) or found.name != name:
                raise ValueError(f"{__name__}.{module}.PROFILE is not the profile {name!r}")
            self._loaded[name] = found
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._modules

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def register(self, profile: Profile) -> Profile:
        """Add a profile value (last in listing order); ``ValueError`` if the name is taken.
        The built-in profiles are registered by module in :data:`_MODULES` instead."""
        if profile.name in self._modules:
            raise ValueError(f"profile {profile.name!r} is already registered")
        self._modules[profile.name] = ""  # never imported: the value is loaded already
        self._loaded[profile.name] = profile
        return profile

    def unregister(self, name: str) -> None:
        """Remove a profile (tests that register a profile of their own take it out again)."""
        del self._modules[name]
        self._loaded.pop(name, None)


PROFILES = ProfileRegistry(_MODULES)
"""Every profile by name; the first (``fair``) is the default."""

DEFAULT_PROFILE = next(iter(PROFILES))


def own_profile(languages: Iterable[str], questions_format: str) -> str | None:
    """The profile a dataset is scored with unless another is chosen: the one made for its
    language (:func:`made_for`), else the one reproducing the challenge its questions' format
    comes from (``text2sparql`` for TEXT2SPARQL'25: under the default profile a team read a
    score that was not the challenge's, 0.72 where the official rules give 0.70)."""
    found = made_for(languages)
    if found:
        return found[0]
    return next(
        (p.name for p in PROFILES.values() if questions_format in p.challenge_formats), None
    )


def made_for(languages: Iterable[str], *, besides: str | None = None) -> list[str]:
    """The profiles made for one of ``languages``: their default language is one of them and
    not the default profile's (``poleval`` for Polish), nor ``besides``'s. A PolEval dataset
    scored under the default profile counts every alternative as a gold answer to find."""
    ordinary = {PROFILES[DEFAULT_PROFILE].default_language}
    if besides is not None:
        ordinary.add(besides)
    wanted = set(languages) - ordinary
    return [p.name for p in PROFILES.values() if p.default_language in wanted]


def _explainer(profile: str | Profile) -> ExplainsMisses | None:
    """The profile's matcher when it can say why an answer matched nothing (poleval)."""
    from service.evaluation.matchers.base import ExplainsMisses

    if isinstance(profile, str) and profile not in PROFILES:
        return None  # a result of a profile no longer offered
    matcher = get_profile(profile).matcher
    return matcher if isinstance(matcher, ExplainsMisses) else None


def explains_misses(profile: str | Profile) -> bool:
    """Whether the profile's matcher can say why an answer matched nothing."""
    return _explainer(profile) is not None


def why_wrong(profile: str | Profile, given: Sequence[str], missed: Sequence[str]) -> str | None:
    """Why the one ``given`` answer matched none of the ``missed`` gold answers, where the
    profile's matcher can say (``None`` otherwise): the one place the JSON of ``evaluate`` and
    of the API, the task page and its CSV get it from."""
    explainer = _explainer(profile) if len(given) == 1 and missed else None
    return explainer.why_not(given[0], missed) if explainer is not None else None


def get_profile(name: str | Profile) -> Profile:
    """The profile called ``name``; ``BadRequest`` naming the known ones otherwise."""
    if isinstance(name, Profile):
        return name
    key = name.strip().lower()
    if key not in PROFILES:
        known = ", ".join(PROFILES)
        raise BadRequest(f"unknown scorer profile {name!r}; known profiles: {known}")
    return PROFILES[key]
