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


def from_options(values: Iterable[str], option: str = "--service-header") -> Headers:
    """The command line's ``--service-header 'Name: value'`` (kept in the shell's history) or
    ``--service-header @FILE`` (``Name: value`` lines read from FILE, which the history does
    not keep)."""
    lines: list[str] = []
    for value in values:
        if value.startswith("@"):
            try:
                lines += Path(value[1:]).read_text(encoding="utf-8").splitlines()
            except OSError as err:
                raise BadRequest(f"{option} {value}: cannot read it: {err.strerror}") from None
        else:
            lines.append(value)
    return parse_lines("\n".join(lines), option)


# the shortest part of a value that is redacted on its own ("Bearer", the scheme, is not
# secret; a token is longer than this)
MIN_SECRET = 8
REDACTED = "…"


def redact(text: str, headers: Headers) -> str:
    """``text`` (an error a service's response or the HTTP client gave) without any secret
    value of ``headers``: a service that echoes the key it refused ("quota exceeded for key …")
    would otherwise have it stored with the run, published and exported. Each value, each of
    its words of at least :data:`MIN_SECRET` characters, and the credentials after an
    ``Authorization`` scheme whatever their length ("Bearer s3cr3t"), become "…" — as given,
    percent-encoded (a URL or form echo) or JSON-escaped."""
    secrets: set[str] = set()
    for name, value in headers:
        words = value.split()
        parts = {value} if len(value) >= 4 else set()  # "a" is in every message
        parts |= {w for w in words if len(w) >= MIN_SECRET}
        if name.lower() in CREDENTIALS and len(words) > 1:  # the scheme alone is no secret
            parts |= {w for w in words[1:] if len(w) >= 4} | {" ".join(words[1:])}
        secrets |= {form for part in parts for form in _spellings(part)}
    for secret in sorted(secrets, key=len, reverse=True):  # the whole value before its words
        text = text.replace(secret, REDACTED)
    return text


# headers whose value is "<scheme> <credentials>" (RFC 9110 11.6.2, 11.7.2)
CREDENTIALS = frozenset({"authorization", "proxy-authorization"})


def _spellings(secret: str) -> set[str]:
    """``secret`` as a service may echo it: as is, percent-encoded (``%20`` or ``+`` for a
    space, lower- or upper-case hex) and escaped in a JSON string (``/`` as ``\\/`` too)."""
    import json
    from urllib.parse import quote, quote_plus

    encoded = {quote(secret, safe=""), quote_plus(secret, safe="")}
    encoded |= {re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), e) for e in encoded}  # %2f
    escaped = json.dumps(secret)[1:-1]
    return {secret, escaped, escaped.replace("/", "\\/"), *encoded} - {""}  # JSON may "\/"


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
