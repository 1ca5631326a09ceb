"""A submission as the API receives it, turned into an experiment spec.

A submission names a dataset (a catalogue name, ``demo`` for the served demo's questions, or an
uploaded file), its systems (uploaded answer files, QA web-service or Text2SPARQL-service URLs,
reference systems that run here), a scorer profile, a language, experiment types,
optionally a configured knowledge base, ``force`` and ``ranked``. This module reads the request
into a :class:`RawSubmission` and builds the :class:`~service.experiments.spec.ExperimentSpec`
and the uploads (bytes by SHA-256); checking and parsing are the application layer's
(:func:`service.experiments.run.prepare`): uploads get exactly the errors ``gerbil-qa
validate`` prints, URLs are checked against the network policy, and only a submission that
passes gets an experiment id.

Two encodings are accepted (see ``openapi.py``): ``multipart/form-data`` (fields ``dataset`` or
file ``dataset_file`` with optional ``dataset_format``; files ``answers`` (one per system, named
after the file unless ``answers_name`` gives names in the same order, a value per file or one
name a line, formats by
``answers_format`` in the same order); fields ``webservice`` and ``text2sparql`` as ``name=url``
or a bare URL; ``reference`` as ``name=reference`` or a bare reference system name;
``profile``, ``language``, ``experiment_type`` (repeatable), ``kb``, ``force``, ``ranked``)
and JSON (the same, with file contents inline as text).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any

from service.call_settings import CALLED, TEXT2SPARQL_MAX_ERROR_RATE, text2sparql_run
from service.dataset_about import parse_title
from service.errors import BadRequest, FormatError
from service.systems.secret_headers import check_headers, parse_box
from service.valid_terms import writable_text_problem

if TYPE_CHECKING:
    from service.experiments.spec import ExperimentSpec

DEMO_DATASET = "demo"  # a dataset name that means the served demo's questions (datasets/demo/)


@dataclass(frozen=True, slots=True)
class FileUpload:
    """A file as it came in: its name, bytes and an optional declared format."""

    filename: str
    data: bytes
    format: str | None = None
    # the field that declared ``format`` (``dataset_format``, ``$.dataset.format``), for an error
    format_field: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True, slots=True)
class RawSystem:
    name: str | None
    answers: FileUpload | None = None
    url: str | None = None
    interface: str = "qa"  # for a URL: "qa" (a QA web service) or "text2sparql"
    reference: str | None = None  # a reference system that runs here (needs a KB)
    # secret request headers for a URL (checked; repr=False: never in a log line)
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    headers_field: str = "headers"  # where they were given, for an error


@dataclass(frozen=True, slots=True)
class RawSubmission:
    """The submission as sent, before validation."""

    dataset_name: str | None
    dataset_file: FileUpload | None
    systems: tuple[RawSystem, ...]
    profile: str | None
    language: str | None
    experiment_types: tuple[str, ...]
    kb: str | None
    title: str | None = None
    force: bool = False
    ranked: bool = False  # each answer list is in rank order: MRR and Hits@k too (--ranked)
    dataset_version: str | None = None  # a registered version of the catalogue dataset
    gold_name: str | None = None  # gold answers from elsewhere: a catalogue dataset's
    gold_file: FileUpload | None = None  # … or a file (a result set or any answers file)
    calls: tuple[tuple[str, float], ...] = ()  # how web services are called (CALL_SETTINGS)
    revision_of: str | None = None  # a resubmission: the id of the experiment it replaces
    about: tuple[tuple[str, tuple[str, ...]], ...] = ()  # what an upload's author says of it
    # a TSV expected.tsv's in.tsv (its question texts), and the field that gave it
    dataset_questions: FileUpload | None = None
    questions_field: str = "dataset_questions"


# what a file name cannot hold: control characters (C0, DEL, C1), lone surrogates and
# noncharacters; it is shown on pages, stored and named in messages
_NOT_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")


def upload_name(name: str, where: str) -> str:
    """An uploaded file's name as kept (multipart's ``filename``, an inline file's): its last
    segment (a browser may send ``C:\\Users\\me\\answers.json``; ``../x.json`` named a folder
    of nobody's), spaces around it dropped; BadRequest naming ``where`` for a name holding a
    control character, a lone surrogate or a noncharacter (it reached the experiment's
    metadata, its pages and messages as sent), or naming no file."""
    bad = _NOT_IN_NAME.search(name)
    if bad is not None:
        code = ord(bad.group())
        what = (
            "a lone UTF-16 surrogate"
            if 0xD800 <= code <= 0xDFFF
            else "a noncharacter"
            if code >= 0xFDD0
            else "a control character"
        )
        raise BadRequest(
            f"{where}: the file name {name!r} holds {what} U+{code:04X} at character "
            f"{bad.start() + 1}; expected a file name of printable characters",
            field=field_of(where),
        )
    kept = PureWindowsPath(name.strip()).name.strip()  # splits at "/" and at "\\"
    if not kept or kept in (".", ".."):
        raise BadRequest(
            f"{where}: the file name {name!r} names no file; expected a name such as answers.json",
            field=field_of(where),
        )
    return kept


def from_form(form: Any, files: Any, *, size: int | None = None) -> RawSubmission:
    """A ``multipart/form-data`` submission (Werkzeug ``MultiDict`` form and files); ``size``:
    the body's, when known (a body whose parts could not be read gives an empty form)."""
    if size and not form and not files:
        # Werkzeug drops the whole form when a part's header is not UTF-8 (a file name in
        # another encoding): it was "no dataset: give a catalogue name …"
        raise BadRequest(
            "the form could not be read: a part's header (a file name?) is not UTF-8 text; "
            "rename the file, or send the submission as JSON"
        )
    dataset_file = None
    key = "dataset_file" if files.get("dataset_file") else "dataset"
    upload = files.get(key)
    if upload is not None and upload.filename:
        dataset_file = FileUpload(
            upload_name(upload.filename, key),
            upload.read(),
            _filled(form.get("dataset_format")),
            "dataset_format",
        )
    questions = files.get("dataset_questions")
    dataset_questions = None
    if questions is not None and questions.filename:
        in_name = upload_name(questions.filename, "dataset_questions")
        dataset_questions = FileUpload(in_name, questions.read(), "tsv")
    # one value per file (the API), or the run page's box: one name a line, in the files' order
    names = [
        line for value in form.getlist("answers_name") for line in value.splitlines() or [value]
    ]
    formats = form.getlist("answers_format")
    chosen = [item for item in files.getlist("answers") if item.filename]
    last = max((n + 1 for n, line in enumerate(names) if line.strip()), default=0)
    if last > len(chosen):  # a name without its file: a file the picker did not keep
        raise BadRequest(
            f"answers_name (the systems' names, one a line in the files' order): "
            f"{_count(last, 'name')} for {_count(len(chosen), 'answer file')}; attach "
            "each system's file, or remove the names of those not attached",
            field="answers_name",
        )
    systems: list[RawSystem] = []
    for n, item in enumerate(chosen):
        name = names[n] if n < len(names) and names[n].strip() else None
        declared = formats[n] if n < len(formats) and formats[n].strip() else None
        kept = upload_name(item.filename, "answers")
        upload_file = FileUpload(kept, item.read(), declared, "answers_format")
        systems.append(RawSystem(name, upload_file))
    services: list[RawSystem] = []
    for field_name, interface in (("webservice", "qa"), ("text2sparql", "text2sparql")):
        for number, value in _numbered_lines(form.getlist(field_name)):
            name, sep, url = value.partition("=")
            given = bool(sep) and not name.lower().startswith(("http:", "https:"))
            url = url.strip() if given else value
            line = f"{SERVICE_BOXES[field_name]} ({field_name}), line {number}"
            if not url or any(c.isspace() for c in url):  # a space for the `=`, a missing URL
                raise BadRequest(
                    f"{line}: expected name=URL or a URL, got {value!r}", field=field_name
                )
            no_credentials(url, line, field=field_name)
            named = name.strip() if given else None
            services.append(RawSystem(named, url=url, interface=interface))
    # the run page's secret headers, never stored: a line for every service of the run, or
    # "NAME: Header: value" for that service only
    box = "\n".join(form.getlist(HEADERS_FIELD))
    every, own = parse_box(box, HEADERS_FIELD, [s.name for s in services if s.name])
    if (every or own) and not services:
        raise BadRequest(
            f"{HEADERS_FIELD}: secret request headers are sent to QA web services and "
            "Text2SPARQL services; the run asks none",
            field=HEADERS_FIELD,
        )
    systems += [replace(s, headers=own.get(s.name or "", every)) for s in services]
    for value in _lines(form.getlist("reference")):
        name, sep, reference = value.partition("=")
        if value:
            named = name.strip() if sep else None
            systems.append(RawSystem(named, reference=(reference if sep else value).strip()))
    gold_upload = files.get("gold_file")
    gold_file = None
    if gold_upload is not None and gold_upload.filename:
        gold_file = FileUpload(
            upload_name(gold_upload.filename, "gold_file"),
            gold_upload.read(),
            _filled(form.get("gold_format")),
            "gold_format",
        )
    return RawSubmission(
        dataset_version=form.get("dataset_version") or None,
        gold_name=form.get("gold") or None,
        gold_file=gold_file,
        dataset_name=form.get("dataset") or None,
        dataset_file=dataset_file,
        dataset_questions=dataset_questions,
        systems=tuple(systems),
        profile=_filled(form.get("profile")),
        language=form.get("language"),
        experiment_types=tuple(form.getlist("experiment_type")),
        kb=form.get("kb") or None,
        title=parse_title(form.get("title"), "title"),
        force=_ticked(form.get("force")),
        ranked=_ticked(form.get("ranked")),
        calls=_call_settings({k: v for k, v in form.items() if v.strip()}, "", numbers=False),
        revision_of=(form.get("revisionOf") or "").strip() or None,
        about=_form_about(form),
    )


def _filled(value: str | None) -> str | None:
    """A form's field as given, or None when left empty or blank: a profile, dataset_format or
    gold_format of white space only is left to its default (the profile's, a sniffed format),
    as a blank answers_format and language are (explore35 F4)."""
    return value if value and value.strip() else None


def _ticked(value: str | None) -> bool:
    """A form's checkbox (``value="1"``) or a client's ``true``/``yes``/``on``."""
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def _form_about(form: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The run form's fields about an uploaded dataset (``dataset_license`` …, from
    ``ABOUT_FIELDS``); a repeated one (``dataset_creator``) also one value a line."""
    from service.dataset_about import ABOUT_FIELDS, parse_about

    values: dict[str, Any] = {}
    for f in ABOUT_FIELDS:
        given = [line for v in form.getlist(f.form_field) for line in v.splitlines()]
        given = [v for v in given if v.strip()]
        if given:
            values[f.key] = given if f.many else given[0] if len(given) == 1 else given
    return parse_about(values, "", names={f.key: f.form_field for f in ABOUT_FIELDS})


HEADERS_FIELD = "service_headers"  # the run page's "Secret request headers" box
# the run page's labels of the service boxes, for errors that name the line
SERVICE_BOXES = {"webservice": "QA web services", "text2sparql": "Text2SPARQL services"}


def _numbered_lines(values: list[str]) -> list[tuple[int, str]]:
    """Non-blank lines of the fields' values with their line numbers (from 1, blank lines
    counted, as the text area shows them), stripped."""
    lines = [line for value in values for line in value.splitlines()]
    return [(n, line.strip()) for n, line in enumerate(lines, start=1) if line.strip()]


# Query parameters that carry a secret, by name (lower case, without "-", "_" and "."): a
# service URL holding one is refused as user-info is (explore34 12). A name that is one of
# these or whose last word is one of SECRET_PARAMETER_ENDINGS ("subscription-key",
# "session_token", "sessionToken"; not "monkey").
SECRET_PARAMETERS = frozenset(
    {
        "key", "apikey", "token", "accesstoken", "auth", "authorization", "authtoken",
        "secret", "clientsecret", "password", "passwd", "pwd", "pass", "credential",
        "credentials", "bearer", "sessionid", "signature", "sig", "jwt",
    }
)  # fmt: skip
SECRET_PARAMETER_ENDINGS = ("key", "token", "secret", "password")


def secret_parameter(name: str) -> bool:
    """Whether the query parameter ``name`` is named as one carrying a secret."""
    import re

    words = re.split(r"[-_.\s]+|(?<=[a-z0-9])(?=[A-Z])", name.strip())
    words = [w.lower() for w in words if w]
    return "".join(words) in SECRET_PARAMETERS or (
        bool(words) and words[-1] in SECRET_PARAMETER_ENDINGS
    )


def no_credentials(url: str, where: str, *, field: str) -> None:
    """A service URL with a user name or password (``http://user:pw@host/``), or a query
    parameter named as a key (``?api_key=…``, ``token``, ``secret``: ``SECRET_PARAMETERS``),
    is refused: the URL is published with the experiment (``gqa:endpoint``, its pages, the
    SPARQL endpoint), and the credentials with it. The message does not repeat the URL or a
    value (it is the submitter's secret, and error messages get logged)."""
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(url)
        userinfo = "@" in parts.netloc
    except ValueError:  # a malformed address: the network check says what is wrong
        return
    if userinfo:
        raise BadRequest(
            f"{where}: the URL holds a user name or password (before '@'), which would be "
            "published with the experiment (its page, its RDF and the SPARQL endpoint show the "
            "service's URL); give the URL without them",
            field=field,
        )
    named = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True) if secret_parameter(k)]
    if named:
        shown = ", ".join(repr(k[:40]) for k in dict.fromkeys(named))
        raise BadRequest(
            f"{where}: the URL's query string holds {shown}, named as a key or token, which "
            "would be published with the experiment (its page, its RDF and the SPARQL endpoint "
            "show the service's URL); send the secret as a secret request header instead "
            '(headers, the run page\'s "Secret request headers" box, --service-header) and '
            "give the URL without it",
            field=field,
        )


def _lines(values: list[str]) -> list[str]:
    """Field values split at line ends (the run page's text areas hold one system a line),
    blank lines dropped."""
    return [line.strip() for value in values for line in value.splitlines() if line.strip()]


def _text(data: dict[str, Any], key: str, where: str) -> str | None:
    """An optional string member (None: absent); BadRequest naming it when it is something
    else, ``null`` too (the document says a string: ``"title": null`` was taken where
    ``"title": 5`` was refused; explore64 F5), or text with a lone surrogate (it could be
    stored nowhere)."""
    if key not in data:
        return None
    value = data[key]
    if value is None:
        raise BadRequest(
            f"{where}.{key}: expected a string, got null (leave the key out for none)",
            field=field_of(f"{where}.{key}"),
        )
    if isinstance(value, str):
        # a lone surrogate said as $.about's are, by code point and place (explore31 F8)
        problem = writable_text_problem(value, f"{where}.{key}")
        if problem is not None:  # stored, it would break every XML client (explore29 10)
            raise BadRequest(problem, field=field_of(f"{where}.{key}"))
        return value
    raise BadRequest(
        f"{where}.{key}: expected a string, got {type(value).__name__}",
        field=field_of(f"{where}.{key}"),
    )


def utf8(text: str, where: str) -> bytes:
    """``text`` as UTF-8; BadRequest naming ``where`` when it holds a lone surrogate (JSON can
    write one, nothing can store it)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800") decoded from JSON
        # said as a title's or $.about's is (explore31 F8)
        problem = writable_text_problem(text, where) or f"{where}: not valid Unicode text"
        raise BadRequest(problem) from None


def _inline_file(
    value: Any, where: str, default_name: str, *, keys: frozenset[str] | None = None
) -> FileUpload:
    if isinstance(value, str):
        # a file given as bare text has no name to tell its format: neither JSON nor XML, it
        # is TSV, the one plain-text format (PolEval's out.tsv: was "system-1.json: unknown
        # format")
        text = value.lstrip("\ufeff \t\r\n")
        if text and text[0] not in "{[<" and default_name.endswith(".json"):
            default_name = default_name.removesuffix(".json") + ".tsv"
        return FileUpload(default_name, utf8(value, where))
    if isinstance(value, dict):  # "filenme" or "formt" was ignored: a sniffed format, no name
        known_keys(value, keys or FILE_KEYS, where, what="a file")
    if not isinstance(value, dict) or not isinstance(value.get("content"), str):
        raise BadRequest(
            f"{where}: expected a string or an object with 'content' (text)",
            field=field_of(where),
        )
    named = _text(value, "filename", where)
    return FileUpload(
        upload_name(named, f"{where}.filename") if named else default_name,
        utf8(value["content"], f"{where}.content"),
        _text(value, "format", where),
        f"{where}.format",
    )


# The keys of a JSON submission (the OpenAPI ``Submission``, tested to agree) besides the call
# settings (``CALL_SETTINGS``), and of each of its systems.
SUBMISSION_KEYS = frozenset(
    {"dataset", "title", "about", "revisionOf", "datasetVersion", "gold", "systems", "profile"}
    | {"language", "experimentTypes", "kb", "force", "ranked"}
)
SYSTEM_KEYS = frozenset({"name", "answers", "url", "interface", "reference", "headers"})
FILE_KEYS = frozenset({"content", "filename", "format"})  # an inline file's (``InlineFile``)
DATASET_FILE_KEYS = FILE_KEYS | {"questions"}  # an inline dataset file's (``InlineDatasetFile``)


def known_keys(
    data: dict[str, Any], known: frozenset[str], where: str, *, what: str = "a submission"
) -> None:
    """A key the schema does not name is refused, with the nearest it does: ``"profil":
    "exact"`` was ignored, and the run scored under the default profile without a word."""
    import difflib

    for key in data:
        if key not in known:
            near = difflib.get_close_matches(str(key), sorted(known), n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else f"; expected one of {sorted(known)}"
            path = f"{where}.{key}"
            raise BadRequest(f"{path}: not a key of {what}{hint}", field=field_of(path))


def json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words (``null``, ``an array``…), for a refusal."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    kinds = ((str, "a string"), (int | float, "a number"), (list, "an array"), (dict, "an object"))
    return next((said for kind, said in kinds if isinstance(value, kind)), type(value).__name__)


def field_of(path: str) -> str:
    """A ``ServiceError.field`` for the JSON path ``path`` (``$.systems[0].nme`` ->
    ``systems[0].nme``): the API's problem names the whole path, not the key alone."""
    return path.removeprefix("$").removeprefix(".")


def check_form_fields(names: Any) -> None:
    """A form field ``POST /api/experiments`` does not read is refused as a JSON key is: a
    multipart ``profil=exact`` was ignored (202) and the run scored under the default profile."""
    known_keys(dict.fromkeys(names), form_fields(), "$")


@lru_cache(maxsize=1)
def form_fields() -> frozenset[str]:
    """The fields of a multipart submission: the OpenAPI ``SubmissionForm``'s (the call
    settings among them), from the one place that describes each."""
    from service.web.openapi import submission_form_schema

    return frozenset(submission_form_schema()["properties"])


def from_json(data: Any, *, also: frozenset[str] = frozenset()) -> RawSubmission:
    """A JSON submission (see the OpenAPI document for the schema); ``also``: keys the
    endpoint reads besides a submission's (a comparison's options)."""
    from service.call_settings import CALLED

    if not isinstance(data, dict):
        raise BadRequest("the JSON body must be an object")
    known_keys(data, SUBMISSION_KEYS | CALLED.keys() | also, "$")
    dataset = data.get("dataset")
    dataset_name = _text(data, "dataset", "$") if isinstance(dataset, str) else None
    dataset_file = dataset_questions = None
    if isinstance(dataset, dict):
        dataset_file = _inline_file(dataset, "$.dataset", "dataset.json", keys=DATASET_FILE_KEYS)
        if dataset.get("questions") is not None:  # an expected.tsv's in.tsv
            questions = _inline_file(dataset["questions"], "$.dataset.questions", "in.tsv")
            dataset_questions = replace(questions, format="tsv")
    elif dataset is not None and not isinstance(dataset, str):
        raise BadRequest("$.dataset: expected a catalogue name or an object with 'content'")
    raw_systems = data.get("systems")
    if not isinstance(raw_systems, list):
        raise BadRequest("$.systems: expected a list of systems")
    systems = []
    for n, item in enumerate(raw_systems):
        where = f"$.systems[{n}]"
        if not isinstance(item, dict):
            raise BadRequest(
                f"{where}: expected an object with 'name' and 'answers', 'url' or 'reference'"
            )
        known_keys(item, SYSTEM_KEYS, where)
        answers = item.get("answers")
        url = _text(item, "url", where)
        if url is not None:
            no_credentials(url, f"{where}.url", field=field_of(f"{where}.url"))
        systems.append(
            RawSystem(
                _text(item, "name", where),
                answers=_inline_file(answers, f"{where}.answers", f"system-{n + 1}.json")
                if answers is not None
                else None,
                url=url,
                interface=_interface(item, where),
                reference=_text(item, "reference", where),
                headers=_json_headers(item.get("headers"), f"{where}.headers"),
                headers_field=field_of(f"{where}.headers"),
            )
        )
    types = data.get("experimentTypes")
    types = [] if types is None else types  # 0, "", {} or false are refused, not read as []
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise BadRequest('$.experimentTypes: expected a list of names such as "QA"')
    for n, name in enumerate(types):
        utf8(name, f"$.experimentTypes[{n}]")
    force = data.get("force", False)
    if not isinstance(force, bool):
        raise BadRequest("$.force: expected true or false")
    ranked = data.get("ranked", False)
    if not isinstance(ranked, bool):
        raise BadRequest("$.ranked: expected true or false", field="ranked")
    gold = data.get("gold")
    if gold is not None and not isinstance(gold, str | dict):
        raise BadRequest("$.gold: expected a catalogue name or an object with 'content'")
    return RawSubmission(
        dataset_name=dataset_name,
        dataset_file=dataset_file,
        dataset_questions=dataset_questions,
        questions_field="$.dataset.questions",
        systems=tuple(systems),
        profile=_text(data, "profile", "$"),
        language=_json_language(data),
        experiment_types=tuple(types),
        kb=_text(data, "kb", "$"),
        title=parse_title(_text(data, "title", "$"), "$.title"),
        force=force,
        ranked=ranked,
        dataset_version=_text(data, "datasetVersion", "$"),
        gold_name=_text(data, "gold", "$") if isinstance(gold, str) else None,
        gold_file=_inline_file(gold, "$.gold", "gold.json") if isinstance(gold, dict) else None,
        calls=_call_settings(data, "$.", numbers=True),
        revision_of=_text(data, "revisionOf", "$"),
        about=_json_about(data.get("about")),
    )


def _json_language(data: dict[str, Any]) -> str | None:
    """``language`` of a JSON submission; an empty one is refused (it meant the default
    silently; the form's empty field still does: it is the field left as it was)."""
    language = _text(data, "language", "$")
    if language is not None and not language.strip():
        raise BadRequest(
            f"$.language: {language!r} is empty; expected a language tag (en), several "
            "(en,es) or all, or leave it out for the profile's default",
            field="language",
        )
    return language


def _json_headers(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    """A system's ``headers`` object (``{"Name": "value"}``), checked; errors name the
    header, never its value."""
    if value is None:
        return ()
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise BadRequest(
            f"{where}: expected an object of header names and text values, e.g. "
            '{"X-API-Key": "…"}',
            field=field_of(where),
        )
    try:
        return check_headers(value.items(), where)
    except BadRequest as err:
        err.field = field_of(err.field or where)
        raise


def _json_about(value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    from service.dataset_about import parse_about

    if value is None:
        return ()
    if not isinstance(value, dict):
        raise BadRequest("$.about: expected an object (description, license, creators …)")
    return parse_about(value, "$.about.", names={})


def _call_settings(data: Any, where: str, *, numbers: bool) -> tuple[tuple[str, float], ...]:
    """The call settings a submission gives (``CALL_SETTINGS``: timeout, retries,
    concurrency), each checked against its bounds; ``numbers``: JSON numbers (else a form's
    text)."""
    from service.call_settings import CALL_SETTINGS

    found: list[tuple[str, float]] = []
    for setting in CALL_SETTINGS:
        name, kind, least, most = setting.name, setting.kind, setting.least, setting.most
        value = data.get(name)
        if value is None:
            continue
        expected = f"{'an integer' if kind is int else 'a number'} from {least:g} to {most:g}"
        try:
            if isinstance(value, bool) or (numbers and not isinstance(value, int | float)):
                raise ValueError
            number = kind(value) if numbers else kind(str(value).strip())
        except (ValueError, OverflowError):  # not a number; 1e999 (inf) for an integer
            text = str(value)[:40]
            given = f'"{text}"' if isinstance(value, str) else text
            raise BadRequest(f"{where}{name}: {given}, expected {expected}", field=name) from None
        if not least <= number <= most or (numbers and kind is int and number != value):
            raise BadRequest(f"{where}{name}: {value!r}, expected {expected}", field=name)
        found.append((name, number))
    return tuple(found)


def to_spec(
    raw: RawSubmission, *, kbs: dict[str, tuple[str, ...]], default_profile: str | None = None
) -> tuple[ExperimentSpec, dict[str, bytes]]:
    """The spec a submission asks for and its uploaded files by SHA-256 (BadRequest for what
    the request itself gets wrong: both or neither dataset, a system with both or neither of
    answers and URL, an unknown KB name)."""
    from service.evaluation.languages import parse_languages
    from service.evaluation.profiles import DEFAULT_PROFILE
    from service.experiments.asked import Reference, Text2SparqlService, WebService
    from service.experiments.spec import (
        CatalogueDataset,
        ExperimentSpec,
        FileDataset,
        FileRef,
        KBSpec,
        RunOptions,
    )
    from service.experiments.systems import AnswerFile, system_name

    uploads: dict[str, bytes] = {}

    def keep(upload: FileUpload) -> FileRef:
        fmt = _format_name(upload.format, upload.format_field)
        ref = FileRef.upload(upload.filename, upload.data, format=fmt)
        uploads[ref.sha256 or ""] = upload.data
        return ref

    if raw.dataset_file is not None and raw.dataset_name:
        raise BadRequest("give either a catalogue dataset name or a dataset file, not both")
    if raw.about and raw.dataset_file is None:
        raise BadRequest(
            '$.about (the run page\'s "About your dataset file"): describes an uploaded '
            "dataset file; a dataset named (the catalogue's, the demo, a published upload) "
            "keeps the description it has",
            field="about",
        )
    dataset: CatalogueDataset | FileDataset
    kb_name = raw.kb
    if raw.dataset_file is not None:
        questions = _questions_of(raw)
        if questions is not None:  # a new in.tsv: one column (a kept one is read as it was)
            from service.formats.base import Source
            from service.formats.tsv import refuse_columns

            refuse_columns(Source(questions.data, name=questions.filename), raw.dataset_file.data)
        dataset = FileDataset(
            keep(raw.dataset_file),
            title=raw.title,
            about=raw.about,
            questions=keep(questions) if questions is not None else None,
        )
    elif raw.dataset_questions is not None:
        _questions_of(raw)  # refused: no dataset file to give the texts of
    elif raw.dataset_name == DEMO_DATASET:  # the demo's questions, on the demo KB by default
        from service.web.demo import DEMO_QUESTIONS

        demo = FileUpload(DEMO_QUESTIONS.name, DEMO_QUESTIONS.read_bytes())
        dataset = FileDataset(keep(demo), title=raw.title)
        kb_name = kb_name or "demo"
    elif raw.dataset_name:
        dataset = CatalogueDataset(raw.dataset_name, raw.dataset_version or None)
    else:
        raise BadRequest("no dataset: give a catalogue name ('dataset') or upload a file")
    kb = None
    if kb_name:
        if kb_name not in kbs:
            known = ", ".join(sorted(kbs)) or "none configured"
            raise BadRequest(f"unknown knowledge base {kb_name!r}; known: {known}", field="kb")
        kb = KBSpec(kbs[kb_name], name=kb_name)
    systems: list[AnswerFile | WebService | Reference] = []  # Text2SparqlService: a WebService
    for n, system in enumerate(raw.systems, start=1):
        given = [system.answers is not None, system.url is not None, system.reference is not None]
        if sum(given) != 1:
            raise BadRequest(
                f"system {n}: give one of an answer file, a web-service URL or a reference system"
            )
        if system.headers and system.url is None:
            raise BadRequest(
                f"{system.headers_field}: secret request headers are sent to a web service; "
                f"system {n} is an answer file or a reference system",
                field=system.headers_field,
            )
        if system.reference is not None:
            systems.append(
                Reference(system_name(str(system.name or system.reference)), system.reference)
            )
        elif system.answers is not None:
            name = system.name or PurePosixPath(system.answers.filename).stem
            systems.append(AnswerFile(system_name(str(name)), keep(system.answers)))
        else:
            url = str(system.url or "").strip()
            kind = Text2SparqlService if system.interface == "text2sparql" else WebService
            service = kind(system_name(str(system.name or _name_from_url(url))), url)
            systems.append(service.with_headers(system.headers) if system.headers else service)
    if raw.gold_name and raw.gold_file is not None:
        raise BadRequest("give the gold either as a catalogue name or as a file, not both")
    gold: CatalogueDataset | FileDataset | None = None
    if raw.gold_file is not None:
        gold = FileDataset(keep(raw.gold_file))
    elif raw.gold_name:
        gold = CatalogueDataset(raw.gold_name)
    profile = _profile_name(raw.profile) or default_profile or _own_profile(dataset)
    profile = profile or DEFAULT_PROFILE
    calls = dict(raw.calls)
    if "maxErrorRate" not in calls and text2sparql_run(profile, systems):
        calls["maxErrorRate"] = TEXT2SPARQL_MAX_ERROR_RATE  # every question asked (README)
    spec = ExperimentSpec(
        gold=gold,
        dataset=dataset,
        systems=tuple(systems),
        profile=profile,
        languages=parse_languages(raw.language) if raw.language and raw.language.strip() else (),
        experiment_types=tuple(dict.fromkeys(raw.experiment_types)),
        kb=kb,
        options=RunOptions(
            force=raw.force,
            ranked=raw.ranked,
            revision_of=raw.revision_of,
            **{CALLED[name].field: value for name, value in calls.items()},  # type: ignore[arg-type]
        ),
    )
    return spec, uploads


def _profile_name(given: str | None) -> str | None:
    """A profile as its registry names it (``Exact`` -> ``exact``: the name is matched without
    regard to case, and the experiment records and echoes the canonical one); an unknown name
    as given, for the run to refuse naming the known ones."""
    from service.evaluation.profiles import PROFILES

    if given is None:
        return None
    key = given.strip().lower()
    return key if key in PROFILES else given


def _format_name(given: str | None, where: str | None = None) -> str | None:
    """A file format as its registry names it (``QALD-JSON`` -> ``qald-json``; a media type
    -> its format). An unknown one is refused naming ``where``, the field that declared it
    (``dataset_format``, ``$.dataset.format``), the value and the formats accepted: the
    answer named the file ("upload.json: the file is declared as format 'banana'"), not the
    field; with no field known, as given, for the reader to refuse naming the known ones."""
    from service import formats

    if given is None or not given.strip():
        return given
    try:
        return formats.get(given).name
    except FormatError:
        if where is None:
            return given
        raise BadRequest(
            f"{where}: {given!r} is no known format; expected one of "
            + ", ".join(formats.FORMATS)
            + " (or leave it empty: the format is recognised from the content)",
            field=field_of(where),
        ) from None


def _questions_of(raw: RawSubmission) -> FileUpload | None:
    """The in.tsv sent with a dataset file, which gives the texts of a TSV ``expected.tsv``'s
    questions only: with no dataset file, or with one of another format (whose questions have
    their texts in it), it is refused naming its field."""
    from service.formats import sniff

    given, field = raw.dataset_questions, raw.questions_field
    if given is None:
        return None
    where = field if field.startswith("$") else f'{field} (the pages\' "its questions, in.tsv")'
    dataset = raw.dataset_file
    if dataset is None:
        raise BadRequest(
            f"{where}: {given.filename} gives the question texts of an uploaded TSV "
            "expected.tsv; upload that dataset file with it",
            field=field_of(field),
        )
    try:
        found = dataset.format or sniff(dataset.data, name=dataset.filename)
    except FormatError:
        return given  # unreadable: reading the dataset file says where
    if found != "tsv":
        raise BadRequest(
            f"{where}: {given.filename} gives the question texts of a TSV expected.tsv, but "
            f"the dataset file {dataset.filename} is {found}, whose questions have their texts "
            "in it; leave the questions file out (or upload the dataset's expected.tsv)",
            field=field_of(field),
        )
    return given


def _interface(item: dict[str, Any], where: str) -> str:
    value = item.get("interface", "qa")
    from service.model import INTERFACES

    if value not in INTERFACES:
        expected = " or ".join(f'"{name}"' for name in INTERFACES)
        raise BadRequest(f"{where}.interface: expected {expected}, got {value!r}")
    return str(value)


def _name_from_url(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:  # out of range: the address check says so, not the name
        port = None
    text = (parts.hostname or "service") + (f"-{port}" if port else "")
    # a name starts with a letter or digit: "[::1]" gives "1", not "-1"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-._")[:80] or "service"


def _own_profile(dataset: Any) -> str | None:
    """The profile made for a dataset named (a built-in one, or a published upload in Polish)
    or uploaded (by its file's format: a PolEval expected.tsv), used when the submission names
    none: the run page chooses it with the dataset, and a
    submission through the API was scored under the default profile (a TEXT2SPARQL team read
    0.72 where the challenge's rules give 0.70)."""
    from service import catalog
    from service.experiments.spec import CatalogueDataset
    from service.web.state import services

    if not isinstance(dataset, CatalogueDataset):  # an uploaded file: by its format
        return catalog.own_profile_of_file(dataset.file.name, dataset.file.format)
    own = catalog.own_profile_of(dataset.name)
    if own is None and not any(e.name == dataset.name for e in catalog.entries()):
        own = catalog.own_profile_of_upload(services().storage.catalogue, dataset.name)
    return own
