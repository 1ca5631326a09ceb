"""The request's ``Host``, as HTTP requires it (RFC 9112 §3.2): an HTTP/1.1 request without one,
or with a value that is no host name, is refused with a 400 before any route reads it.
``Host: a@evil.example`` or one with quotes and spaces was served as if no host had been asked
(Werkzeug reads it as empty), its absolute links ``http:///…``. An empty value is what a client
sends for a target without an authority: allowed, as HTTP/1.0 without a ``Host`` is.

The grammar is RFC 3986's ``host [":" port]``, which is wider than Werkzeug's: a name with an
underscore (a container's name behind a proxy that passes its own ``Host``) is a host; the
pages then link under the store's base (:func:`service.web.ui.site_root`). A DNS name's labels
are at most 63 characters (RFC 1035 §2.3.4), which Werkzeug refused with a 400 of its own words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from service.web.cors import ALLOW_ORIGIN

# reg-name: unreserved, percent-encoded, sub-delims; or an IP literal in brackets
_HOST = re.compile(
    r"(\[[0-9A-Fa-f:.]+(?:%25[\w.~-]+)?\]|(?:[\w.~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+)"
    r"(?::(\d{0,5}))?",
    re.ASCII,
)
LONGEST_LABEL = 63


def is_host(value: str) -> bool:
    """Whether ``value`` is an RFC 3986 ``host [":" port]``, its port at most 65535 and its
    name's labels at most 63 characters."""
    match = _HOST.fullmatch(value)
    if match is None:
        return False
    name, port = match.groups()
    if port and int(port) > 65535:
        return False
    return name.startswith("[") or all(len(label) <= LONGEST_LABEL for label in name.split("."))


def host_problem(environ: dict[str, Any]) -> str | None:
    """What is wrong with the request's ``Host``; None: nothing."""
    host = environ.get("HTTP_HOST")
    if host is None:
        if environ.get("SERVER_PROTOCOL", "HTTP/1.1") == "HTTP/1.0":
            return None
        return "an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)"
    if host == "" or is_host(host):
        return None
    shown = host if len(host) <= 80 else host[:80] + "…"
    return (
        f"the Host header {shown!r} is not a host name (RFC 9112 §3.2: a name or an address, "
        "and a port after ':')"
    )


class HostCheck:
    """WSGI middleware: a 400 in plain text for a request whose ``Host`` is missing or wrong."""

    def __init__(self, app: Any, security_headers: tuple) -> None:
        self.app = app
        self.headers = security_headers

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        problem = host_problem(environ)
        if problem is None:
            return self.app(environ, start_response)
        body = f"400 Bad Request: {problem}\n".encode("utf-8", "backslashreplace")
        start_response(
            "400 Bad Request",
            [
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Length", str(len(body))),
                ALLOW_ORIGIN,
                *self.headers,
            ],
        )
        return [body]
