"""An access log for operators (``GERBIL_QA_ACCESS_LOG``): one line per request, after its
answer, on the ``service.web.requests`` logger: client, method, path, status, bytes, duration.

Owner tokens travel in query strings (``?token=``, the link a run's page gives its owner) and
must never reach a log file, so every ``token`` parameter's value is blanked, whatever the
name's case or percent-encoding (``TOKEN=``, ``Tok%65n=``: the service reads ``token`` only, but
a link typed or rewritten so still carries the secret); headers (the bearer token, cookies) are
not logged at all."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import unquote_plus

log = logging.getLogger("service.web.requests")

SECRET_PARAMETERS = frozenset({"token"})


def shown_target(path: str, query: str) -> str:
    """The request target as logged: ``/x?token=…`` keeps the parameter, not its value."""
    if not query:
        return path
    parts = query.split("&")
    for i, part in enumerate(parts):
        key = part.partition("=")[0]
        # case-folded: TOKEN=<owner token> was logged whole (explore56 F5)
        if unquote_plus(key).casefold() in SECRET_PARAMETERS:
            parts[i] = f"{key}=…"
    return f"{path}?{'&'.join(parts)}"


class AccessLog:
    """WSGI middleware logging each request once its body has been sent (or it failed)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        started = time.perf_counter()
        seen: dict[str, str] = {}

        def noting(status: str, headers: list[tuple[str, str]], *exc: Any) -> Any:
            seen["status"] = status.split(" ", 1)[0]
            return start_response(status, headers, *exc)

        body = self.app(environ, noting)
        return self._counted(body, environ, seen, started)

    def _counted(
        self, body: Iterable[bytes], environ: dict[str, Any], seen: dict[str, str], started: float
    ) -> Iterator[bytes]:
        sent = 0
        try:
            for chunk in body:
                sent += len(chunk)
                yield chunk
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()
            log.info(
                '%s "%s %s" %s %d %.1fms',
                environ.get("REMOTE_ADDR", "-"),
                environ.get("REQUEST_METHOD", "-"),
                shown_target(
                    environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", ""),
                    environ.get("QUERY_STRING", ""),
                ),
                seen.get("status", "-"),
                sent,
                (time.perf_counter() - started) * 1000,
            )
