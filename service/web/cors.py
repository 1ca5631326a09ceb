"""Cross-origin access (CORS) for every response, and answers to browsers' preflights.

Everything the service publishes is public linked data, so any web page's script may read it:
``Access-Control-Allow-Origin: *`` on every response (resources, format URLs, listings, the
vocabulary, the API, errors), with the headers a linked-data client needs exposed (``Link``,
``Content-Location``, ``ETag``…). ``OPTIONS`` preflights are answered for every route with
its methods and the request headers scripts send (``Accept``, ``Authorization``,
``Content-Type``, conditional headers).

Why this is safe: ``Access-Control-Allow-Credentials`` is never sent, so a browser never lets
a script read a response to a request that carried the owner cookie (and the cookie is
``SameSite=Lax``). The API's state-changing calls are authorised by a bearer token a script
must already hold, never by ambient credentials, so letting scripts call them adds nothing an
attacker could use. The one cookie-authorised form (``experiment/{id}/publish``, protected
from cross-site requests by its check value) gets no CORS headers at all.
"""

from __future__ import annotations

import re

from flask import Request, Response

ALLOW_ORIGIN = ("Access-Control-Allow-Origin", "*")
EXPOSE_HEADERS = (
    "Access-Control-Expose-Headers",
    "Content-Location, Content-Disposition, ETag, Last-Modified, Link, Location, Retry-After, Vary",
)
ALLOW_HEADERS = "Accept, Authorization, Content-Type, If-Match, If-Modified-Since, If-None-Match"
DEFAULT_METHODS = "GET, HEAD, POST, OPTIONS"
MAX_AGE = "86400"
_COOKIE_FORMS = re.compile(r"^/experiment/[^/]+/publish/?$")


def add_cors(request: Request, response: Response) -> Response:
    """The CORS headers of ``response`` (an ``after_request`` hook of the whole app)."""
    if _COOKIE_FORMS.match(request.path):
        return response
    headers = response.headers
    headers.setdefault(*ALLOW_ORIGIN)
    headers.setdefault(*EXPOSE_HEADERS)
    if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
        headers.setdefault("Access-Control-Allow-Methods", headers.get("Allow") or DEFAULT_METHODS)
        headers.setdefault("Access-Control-Allow-Headers", ALLOW_HEADERS)
        headers.setdefault("Access-Control-Max-Age", MAX_AGE)
    return response
