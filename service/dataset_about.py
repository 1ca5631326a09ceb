"""What the author of an uploaded dataset may say about it: description, licence, creators,
contact, version label and the dataset it is a new version of (the title is ``title``).

The registry the command line's options (``evaluate --dataset-license …``), the API's
``about`` object and the run form's fields (``dataset_license`` …), their checks and the
OpenAPI schema come from; :mod:`service.graph.questions` writes each as DCAT/DataID.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.errors import BadRequest
from service.graph.dcat import ADMS_PUBLISHER_TYPES

DCT = "http://purl.org/dc/terms/"
DCAT = "http://www.w3.org/ns/dcat#"
GQA = "http://w3id.org/gerbil/qa/vocab#"

# an uploaded dataset's name, as ``dataset/{name}`` has it (``results.uploaded_dataset_name``:
# a label cut at 60 characters, a hyphen and up to 64 hex digits), wherever one is read; the
# label is ASCII now, but names made before kept any letter (\w: what ``str.isalnum`` kept,
# and "_"), and a store holds them for good
UPLOADED_NAME = re.compile(r"[\w.-]{1,128}")
_EMAIL = re.compile(r"[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+")


@dataclass(frozen=True, slots=True)
class AboutField:
    """One thing an author states: its ``about`` key, the property it is written with, the CLI
    option (the form field is the option with underscores), whether it repeats, its kind (how
    it is checked) and its help."""

    key: str
    predicate: str  # what the dataset's description says it with
    option: str
    many: bool
    kind: str  # text | iri | contact | dataset | choice
    metavar: str
    description: str
    choices: tuple[str, ...] = ()  # a choice's values (OpenAPI enum, CLI choices, a select)

    @property
    def form_field(self) -> str:
        return self.option.removeprefix("--").replace("-", "_")


ABOUT_FIELDS: tuple[AboutField, ...] = (
    AboutField(
        "description",
        DCT + "description",
        "--dataset-description",
        False,
        "text",
        "TEXT",
        "What the uploaded dataset is (dct:description).",
    ),
    AboutField(
        "license",
        DCT + "license",
        "--dataset-license",
        False,
        "iri",
        "IRI",
        "The uploaded dataset's licence, an http(s) IRI such as "
        "https://creativecommons.org/licenses/by/4.0/ (dct:license).",
    ),
    AboutField(
        "creators",
        DCT + "creator",
        "--dataset-creator",
        True,
        "text",
        "NAME",
        "Who made the uploaded dataset, one name each (dct:creator, a foaf:Agent).",
    ),
    AboutField(
        "creatorType",
        DCT + "type",
        "--dataset-creator-type",
        False,
        "choice",
        "TYPE",
        "What kind of agent its creators are, from the ADMS publisher types DCAT-AP asks for "
        "(dct:type of each dct:creator): " + ", ".join(ADMS_PUBLISHER_TYPES) + ".",
        tuple(ADMS_PUBLISHER_TYPES),
    ),
    AboutField(
        "contact",
        DCAT + "contactPoint",
        "--dataset-contact",
        False,
        "contact",
        "EMAIL|URL",
        "Where to write about the uploaded dataset: an e-mail address (or its mailto: IRI) "
        "or an http(s) URL (dcat:contactPoint).",
    ),
    AboutField(
        "knowledgeBase",
        GQA + "knowledgeBase",
        "--dataset-kb",
        False,
        "iri",
        "IRI",
        "The knowledge base its gold answers are over, an http(s) IRI such as "
        "http://dbpedia.org (gqa:knowledgeBase; the KB a run used is the run's).",
    ),
    AboutField(
        "knowledgeBaseVersion",
        GQA + "knowledgeBaseVersion",
        "--dataset-kb-version",
        False,
        "text",
        "V",
        "That knowledge base's version (gqa:knowledgeBaseVersion).",
    ),
    AboutField(
        "version",
        DCAT + "version",
        "--dataset-version-label",
        False,
        "text",
        "V",
        "The uploaded dataset's own version label (dcat:version), e.g. 2.",
    ),
    AboutField(
        "previousVersion",
        DCAT + "previousVersion",
        "--dataset-previous",
        False,
        "dataset",
        "NAME",
        "The uploaded dataset this file is a new version of, by its name (dataset/NAME): "
        "this one says dcat:previousVersion and dct:isVersionOf it, and it dcat:hasVersion "
        "this one; their results stay apart, each on its own leaderboard.",
    ),
    AboutField(
        "gold",
        GQA + "goldWithheld",
        "--dataset-gold",
        False,
        "choice",
        "withheld",
        "withheld: a shared task's test set. Its questions are published, its gold answers "
        "are not (no gold on its pages, in SPARQL or downloads; its runs' results are "
        "aggregates only, no question's result) until the owner of the run that uploaded "
        "it withheld reveals them (its page's link, or POST /api/datasets/NAME/reveal) "
        "(gqa:goldWithheld).",
        ("withheld",),
    ),
)
ABOUT = {f.key: f for f in ABOUT_FIELDS}

About = tuple[tuple[str, tuple[str, ...]], ...]  # (key, values) in registry order, non-empty


def named_version(title: str | None, version: str | None, name: str) -> str:
    """How pages, menus and citations name an uploaded dataset: its title, its author's version
    label and its name, "Birds QA, version 2 (birds-qa-9bcc958d)" (two versions share a title,
    and the name alone says neither).

    >>> named_version("Birds QA", "2", "birds-qa-9bcc958d"), named_version(None, None, "x-1")
    ('Birds QA, version 2 (birds-qa-9bcc958d)', 'x-1')
    """
    if not title or title == name:
        return name + (f", version {version}" if version else "")
    return title + (f", version {version}" if version else "") + f" ({name})"


MAX_TITLE = 300  # a title, not a description (whose field stops at 2,000 characters)


def parse_title(value: str | None, label: str) -> str | None:
    """A dataset file's title as given (``label``: the option, form field or JSON path):
    stripped, a blank one none (it was published as a blank ``dct:title``), a long one a
    BadRequest."""
    title = value.strip() if value else ""
    _refuse_unwritable(title, label, "title")
    if len(title) > MAX_TITLE:
        raise BadRequest(
            f"{label}: at most {MAX_TITLE:,} characters, got {len(title):,}", field="title"
        )
    return title or None


def parse_about(values: Mapping[str, Any], where: str, *, names: Mapping[str, str]) -> About:
    """``values`` (key -> a text, or a list of texts for a repeated field) checked: a bad one
    is a BadRequest naming ``where`` + its name in ``names`` (an option, a JSON path)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for key in values:
        if key not in ABOUT:
            raise BadRequest(
                f"{where}{key}: not a key of about; expected one of {sorted(ABOUT)}",
                field=f"about.{key}",
            )
    given: list[tuple[AboutField, str, list[Any]]] = []
    for f in ABOUT_FIELDS:  # every value's type first: a wrong type is named before a value
        value = values.get(f.key)
        if value is None or value == [] or value == "":
            continue
        label = f"{where}{names.get(f.key, f.key)}"
        listed = isinstance(value, list | tuple)
        items = list(value) if listed else [value]
        wrong = (f.many and not listed) or not all(isinstance(v, str) for v in items)
        if wrong or (not f.many and len(items) > 1):
            expected = "a list of texts" if f.many else "a text"
            raise BadRequest(f"{label}: expected {expected}", field=f"about.{f.key}")
        given.append((f, label, items))
    for f, label, items in given:
        cleaned = tuple(v.strip() for v in items if v.strip())
        for v in cleaned:
            _check(f, v, label)
        if cleaned:
            out.append((f.key, cleaned))
    return tuple(out)


def _refuse_unwritable(value: str, label: str, field: str) -> None:
    """BadRequest for a text holding a character no RDF/XML document or HTML page can carry
    (README "Only valid terms are stored")."""
    from service.valid_terms import writable_text_problem

    problem = writable_text_problem(value, label)
    if problem is not None:
        raise BadRequest(problem, field=field)


def _check(f: AboutField, value: str, label: str) -> None:
    _refuse_unwritable(value, label, f"about.{f.key}")

    if len(value) > 2000:
        raise BadRequest(f"{label}: at most 2,000 characters", field=f"about.{f.key}")
    if f.kind == "iri" and not _web_iri(value):
        raise BadRequest(f"{label}: expected an http(s) IRI, got {value!r}", field=f"about.{f.key}")
    if f.kind == "contact" and not _contact(value):
        raise BadRequest(
            f"{label}: expected an e-mail address or an http(s) URL, got {value!r}",
            field=f"about.{f.key}",
        )
    if f.kind == "choice" and value not in f.choices:
        raise BadRequest(
            f"{label}: expected one of {list(f.choices)}, got {value!r}", field=f"about.{f.key}"
        )
    if f.kind == "dataset" and not UPLOADED_NAME.fullmatch(value):
        raise BadRequest(
            f"{label}: expected an uploaded dataset's name (dataset/NAME), got {value!r}",
            field=f"about.{f.key}",
        )


def _contact(value: str) -> bool:
    """An e-mail address, its ``mailto:`` IRI (written as given, so it must be an IRI; a
    ``mailto:`` was written as ``mailto:mailto%3A…``) or an http(s) URL."""
    from service.graph import nodes

    if value.lower().startswith("mailto:"):
        return bool(_EMAIL.fullmatch(value[7:])) and nodes.checked_iri(value) is not None
    if value.startswith(("http://", "https://")):
        return _web_iri(value)
    return bool(_EMAIL.fullmatch(value))


def _web_iri(value: str) -> bool:
    """An http(s) IRI with a host: ``http://`` and ``https:///path`` are valid IRIs that name
    nothing on the web (a licence that leads nowhere)."""
    from urllib.parse import urlsplit

    from service.graph import nodes

    if not value.startswith(("http://", "https://")) or nodes.checked_iri(value) is None:
        return False
    try:
        return bool(urlsplit(value).hostname)
    except ValueError:  # a port that is no number
        return False


def about_json(about: About) -> dict[str, Any]:
    """The ``about`` object of a spec's JSON (a repeated field as a list)."""
    return {k: list(v) if ABOUT[k].many else v[0] for k, v in about}


def about_from_json(data: Mapping[str, Any] | None) -> About:
    return parse_about(data or {}, "$.about.", names={}) if data else ()
