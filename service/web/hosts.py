"""The request's ``Host``: a value that is no host name is refused with a 400, as HTTP requires
(RFC 9112 §3.2), before any route reads it. ``Host: a@evil.example`` or one with quotes and
spaces was served as if no host had been asked (Werkzeug reads it as empty), its absolute links
``http:///…``.

The grammar is RFC 3986's ``host [":" port]``, which is wider than Werkzeug's: a name with an
underscore (a container's name behind a proxy that passes its own ``Host``) is a host; the
pages then link under the store's base (:func:`service.web.ui.site_root`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from service.web.cors import ALLOW_ORIGIN

# reg-name: unreserved, percent-encoded, sub-delims; or an IP literal in brackets
_HOST = re.compile(
    r"(?:\[[0-9A-Fa-f:.]+(?:%25[\w.~-]+)?\]|(?:[\w.~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+)"
    r"(?::(\d{0,5}))?",
    re.ASCII,
)


def is_host(value: str) -> bool:
    """Whether ``value`` is an RFC 3986 ``host [":" port]`` with a port in 1–65535 (or none)."""
    match = _HOST.fullmatch(value)
    if match is None:
        return False
    port = match.group(1)
    return not port or 1 <= int(port) <= 65535


class HostCheck:
    """WSGI middleware: a 400 in plain text for a ``Host`` that is no host name."""

    def __init__(self, app: Any, security_headers: tuple) -> None:
        self.app = app
        self.headers = security_headers

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        host = environ.get("HTTP_HOST")
        if host is None or is_host(host):
            return self.app(environ, start_response)
        shown = host if len(host) <= 80 else host[:80] + "…"
        body = (
            f"400 Bad Request: the Host header {shown!r} is not a host name "
            "(RFC 9112 §3.2: a name or an address, and a port after ':')\n"
        ).encode("utf-8", "backslashreplace")
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
