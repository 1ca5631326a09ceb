"""Secret request headers for the services a run asks (``Authorization: Bearer …``,
``X-API-Key: …``): checked once here, for the API, the run page and the command line.

Their values are secrets: they are held by the running job only (never in its saved spec, the
graph, a page, a log or a message, which name the headers at most) and sent only to the
service's own origin (a redirect to another host, port or scheme drops them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from service.errors import BadRequest

Headers = tuple[tuple[str, str], ...]

MAX_HEADERS = 8
MAX_VALUE_BYTES = 4096
# the client sets these itself (framing, the body's type, the host it connects to); a Cookie
# would be a second, unchecked way to send state
OWNED = frozenset(
    {
        "host",
        "content-length",
        "content-type",
        "transfer-encoding",
        "connection",
        "accept-encoding",
        "cookie",
    }
)
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 5.1 field-name (a token)


# Authorization schemes (RFC 9110, the IANA registry's common ones): one alone is no credential
SCHEMES = frozenset({"basic", "bearer", "digest", "token", "apikey"})


def check_headers(items: Iterable[tuple[str, str]], where: str) -> Headers:
    """The headers as given, or BadRequest naming ``where`` and the header (by position and
    name, never its value) and what was expected."""
    # a field value's surrounding whitespace is not part of it (RFC 9110 5.5); requests would
    # refuse it at every call and quote the value in its error
    headers = tuple((name, value.strip(" \t")) for name, value in items)
    if len(headers) > MAX_HEADERS:
        raise BadRequest(
            f"{where}: {len(headers)} headers, at most {MAX_HEADERS} are sent", field=where
        )
    seen: set[str] = set()
    for n, (name, value) in enumerate(headers):
        at = f"{where}[{n}]"
        if not _TOKEN.fullmatch(name):
            raise BadRequest(
                f"{at}: {name!r} is not a header name (letters, digits and !#$%&'*+.^_`|~-)",
                field=at,
            )
        if name.lower() in OWNED:
            raise BadRequest(
                f"{at}: {name} is set by the client itself; expected another header "
                "(e.g. Authorization or X-API-Key)",
                field=at,
            )
        if name.lower() in seen:
            raise BadRequest(f"{at}: {name} is given twice", field=at)
        seen.add(name.lower())
        if "\r" in value or "\n" in value or "\0" in value:
            raise BadRequest(f"{at}: the value of {name} holds a line break", field=at)
        # an unset variable in a script: the run failed every question with 401, its spec
        # naming the header as given
        if not value:
            raise BadRequest(f"{at}: the value of {name} is empty", field=at)
        scheme, _, credentials = value.partition(" ")
        if (
            name.lower() == "authorization"
            and not credentials.strip()
            and scheme.lower() in SCHEMES
        ):
            raise BadRequest(
                f"{at}: the value of {name} is the scheme {scheme} alone: expected its "
                f"credentials after it ({scheme} …)",
                field=at,
            )
        try:
            size = len(value.encode("latin-1"))  # what http.client sends a str value as
        except UnicodeEncodeError:
            raise BadRequest(
                f"{at}: the value of {name} holds characters beyond Latin-1 (expected ASCII)",
                field=at,
            ) from None
        if size > MAX_VALUE_BYTES:
            raise BadRequest(
                f"{at}: the value of {name} is {size} bytes, at most {MAX_VALUE_BYTES}", field=at
            )
    return headers


def parse_lines(text: str, where: str) -> Headers:
    """``Name: value`` lines (blank lines skipped), checked; errors name the line, not the
    value."""
    found: list[tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip():
            raise BadRequest(f"{where}, line {number}: expected 'Name: value'", field=where)
        found.append((name.strip(), value.strip()))
    return check_headers(found, where)


def parse_box(text: str, where: str, services: Iterable[str]) -> tuple[Headers, dict[str, Headers]]:
    """The run page's box: ``Header: value`` lines for every service of the run, and
    ``NAME: Header: value`` lines for the service NAME only (one of ``services``; a run's
    services may be on other origins, and one's key is nobody else's). Errors name the line,
    never the value; a service's line without a value (as the form filled from a run leaves
    it) is refused rather than sent empty."""
    named = {name.strip() for name in services}
    common: list[str] = []
    own: dict[str, list[tuple[str, str]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        target, sep, rest = line.partition(":")
        if not sep or target.strip() not in named:
            common.append(line)
            continue
        header, sep, value = rest.partition(":")
        if not sep or not value.strip():  # else "keyed: sk-…" would go to every service
            said = f"no value for {header.strip()}" if sep else "no header name"
            raise BadRequest(
                f"{where}, line {number}: {said} for the service {target.strip()}: "
                "expected 'NAME: Header: value'",
                field=where,
            )
        own.setdefault(target.strip(), []).append((header.strip(), value.strip()))
        common.append("")  # the other lines keep their numbers in errors
    every = parse_lines("\n".join(common), where)
    return every, {
        name: check_headers([*every, *headers], f"{where} for {name}")
        for name, headers in own.items()
    }


def from_options(values: Iterable[str], option: str = "--service-header") -> Headers:
    """The command line's ``--service-header 'Name: value'`` (kept in the shell's history) or
    ``--service-header @FILE`` (``Name: value`` lines read from FILE, which the history does
    not keep)."""
    lines: list[str] = []
    for value in values:
        if value.startswith("@"):
            try:
                # utf-8-sig: a file a Windows editor saved starts with a byte-order mark
                lines += Path(value[1:]).read_text(encoding="utf-8-sig").splitlines()
            except OSError as err:
                raise BadRequest(f"{option} {value}: cannot read it: {err.strerror}") from None
        else:
            lines.append(value)
    return parse_lines("\n".join(lines), option)


# a part of a value this long is redacted wherever it appears (inside a longer token too);
# a shorter one only as a whole token ("a" is in every message, "the" in "them")
MIN_SECRET = 8
REDACTED = "…"
# the status line the HTTP client writes itself ("HTTP 401 Unauthorized: "), never the service's
_STATUS_LINE = re.compile(r"HTTP (\d{3})(?: ([A-Za-z' -]+))?: ")


def redact(text: str, headers: Headers) -> str:
    """``text`` (an error a service's response or the HTTP client gave) without any secret
    value of ``headers``: a service that echoes the key it refused ("quota exceeded for key …")
    would otherwise have it stored with the run, published and exported.

    The secret parts of a value: the value, each of its words (an ``Authorization`` scheme
    such as "Bearer" apart), the credentials after a scheme, and Basic's decoded
    ``user:password`` and password. Each is matched in any letter case (a hex key echoed
    upper-cased, percent-escapes in mixed case) as given, percent-encoded, JSON-escaped or
    base64-encoded, and becomes "…": a part of :data:`MIN_SECRET` characters or more wherever it
    appears, a shorter one only as a whole token (``Bearer a`` leaves "Unauthorized" whole).
    The status line the client writes first (``HTTP 401 Unauthorized:``) is kept: only what
    follows it is the service's text."""
    secrets: set[str] = set()
    for name, value in headers:
        words = value.split()
        if name.lower() in CREDENTIALS and len(words) > 1:  # the scheme alone is no secret
            words = words[1:]
            secrets |= _decoded_basic(value)
        secrets |= {value, " ".join(words), *words}
    forms = {form for part in secrets for form in _spellings(part)}
    if not forms:
        return text
    alternatives = []
    for form in sorted(forms, key=len, reverse=True):  # the whole value before its words
        pattern = re.escape(form)
        if len(form) < MIN_SECRET:
            pattern = rf"(?<![0-9A-Za-z]){pattern}(?![0-9A-Za-z])"
        alternatives.append(pattern)
    status = _STATUS_LINE.match(text)
    kept = status[0] if status and _client_phrase(status) else ""
    hidden = re.sub("|".join(alternatives), REDACTED, text[len(kept) :], flags=re.IGNORECASE)
    return kept + hidden


def _client_phrase(status: re.Match[str]) -> bool:
    """Whether a status line is one the client wrote: its reason is the code's standard phrase
    (the service's own reason phrase is not used, it could hold anything)."""
    from http import HTTPStatus

    try:
        return status[2] in (None, HTTPStatus(int(status[1])).phrase)
    except ValueError:
        return status[2] is None


# headers whose value is "<scheme> <credentials>" (RFC 9110 11.6.2, 11.7.2)
CREDENTIALS = frozenset({"authorization", "proxy-authorization"})


def _decoded_basic(value: str) -> set[str]:
    """``Basic`` credentials as the service decodes them: ``user:password`` and the password
    (RFC 7617); nothing for another scheme or a value that is not base64 text."""
    import base64
    import binascii

    scheme, _, credentials = value.partition(" ")
    if scheme.lower() != "basic":
        return set()
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return set()
    return {decoded, decoded.partition(":")[2]}


def _spellings(secret: str) -> set[str]:
    """``secret`` as a service may echo it: as is, percent-encoded (``%20`` or ``+`` for a
    space), escaped in a JSON string (``/`` as ``\\/`` too) and base64-encoded (standard or
    URL-safe alphabet, with or without padding). Letter case is the matcher's concern."""
    import base64
    import json
    from urllib.parse import quote, quote_plus

    if not secret:
        return set()
    escaped = json.dumps(secret)[1:-1]
    raw = secret.encode("latin-1", "replace")
    encoded = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    encoded |= {e.rstrip("=") for e in encoded}
    spelt = {secret, escaped, escaped.replace("/", "\\/"), *encoded}
    return spelt | {quote(secret, safe=""), quote_plus(secret, safe="")}


def names(headers: Headers) -> tuple[str, ...]:
    return tuple(name for name, _ in headers)


def origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port (the default one made explicit): where a header may go."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)
