"""Who may see an experiment: everyone once published; before that, its owner only.

The owner token is given once, at submission (only its SHA-256 is stored, in the admin graph).
A client presents it as ``Authorization: Bearer <token>`` (the API, scripts, ``curl``). For a
browser, the submission answer includes a link ``experiment/{id}?token=<token>``: the service
checks it, stores it in an HttpOnly, SameSite=Lax cookie scoped to ``/experiment/`` (and to
the run form ``/experiments/new``, where "Run it again to replace it" is submitted, and to
``/compare``, where its tasks are compared while private) and named
after the experiment, and redirects (303) to the same URL without the token, so the token does
not stay in the address bar, the history, ``Referer`` headers or access logs of later requests.
The operator may configure an admin token (``GERBIL_QA_ADMIN_TOKEN``) that counts as every
experiment's owner; on the command line, the operator uses ``gerbil-qa publish --store``.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Mapping
from urllib.parse import urlencode

from flask import g, redirect, request
from werkzeug.wrappers import Response as BaseResponse

from service.errors import BadRequest, Forbidden, NotFound
from service.graph.experiments import same_secret, secret_bytes
from service.graph.uris import EXPERIMENT_ID
from service.web.state import services

log = logging.getLogger(__name__)

COOKIE_PREFIX = "gqa_owner_"
COOKIE_PATH = "/experiment/"
# the run form, where the owner page's "Run it again to replace it" is submitted: a browser
# sends a cookie under its path only, and the resubmission was refused for want of the token
RUN_FORM_PATH = "/experiments/new"
# the compare page: the owner compares a private run with its private resubmission there
COMPARE_PATH = "/compare"
COOKIE_MAX_AGE = 30 * 24 * 3600


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def presented_token(experiment_id: str) -> str | None:
    return bearer_token() or request.cookies.get(COOKIE_PREFIX + experiment_id)


def is_admin(token: str | None) -> bool:
    admin = services().config.admin_token
    granted = bool(admin and token and same_secret(token, admin))
    if granted and request.method not in ("GET", "HEAD") and not g.get("admin_logged"):
        g.admin_logged = True  # once a request: an operator's writes are in the log
        log.info("admin token used: %s %s", request.method, request.path)
    return granted


def is_owner(experiment_id: str, token: str | None = None) -> bool:
    """True when the request carries the owner token (or the admin token) of the experiment."""
    token = token if token is not None else presented_token(experiment_id)
    if not token:
        return False
    return is_admin(token) or services().storage.experiments.check_token(experiment_id, token)


def owns_a_revision(
    experiment_id: str, token: str | None = None, *, tokens: Mapping[str, str] | None = None
) -> bool:
    """True when the request's bearer token (or the owner cookie the browser holds for it, or
    ``tokens``' entry for it) owns an experiment that revises this one, directly or down a
    line of revisions: only this one's owner (or the operator) could make it, so its token
    reads this one's results (a resubmission's ``changes``, a comparison of the two), never
    acts on it (publish, delete)."""
    token = token if token is not None else bearer_token()
    tokens = tokens or {}
    if not (token or tokens or any(n.startswith(COOKIE_PREFIX) for n in request.cookies)):
        return False
    experiments = services().storage.experiments
    seen: set[str] = set()
    newer = experiments.revisions(experiment_id, include_private=True)[1]
    while newer:
        current = newer.pop()
        if current in seen:
            continue
        seen.add(current)
        cookie = request.cookies.get(COOKIE_PREFIX + current)  # its browser's cookie
        for held in dict.fromkeys((token or cookie, tokens.get(current))):
            if held and experiments.check_token(current, held):
                return True
        newer += experiments.revisions(current, include_private=True)[1]
    return False


def may_read(experiment_id: str, tokens: Mapping[str, str] | None = None) -> bool:
    """True when the request may read this unpublished experiment's results: it carries its
    owner token (bearer, cookie, or ``tokens[experiment_id]``: one request may carry the
    tokens of several owners' experiments, ``POST /api/compare``), or a revision's."""
    tokens = tokens or {}
    token = tokens.get(experiment_id)
    return (
        is_owner(experiment_id)
        or (token is not None and is_owner(experiment_id, token))
        or owns_a_revision(experiment_id, tokens=tokens)
    )


def require_experiment(experiment_id: str):  # -> ExperimentStatus
    """The status record of an experiment; 404 for an id that was never minted."""
    if not EXPERIMENT_ID.match(experiment_id):
        raise NotFound(f"no experiment {experiment_id}: ids are yyyyMMdd and a 4-digit counter")
    state = services()
    # a run whose end the store could not take yet (a full disk) shows that end
    return state.runner.as_ended(state.storage.experiments.status(experiment_id))


def wrong_token_said(experiment_id: str) -> str:
    """ ", and the token sent is not its owner token" when a bearer token was sent that is not
    the experiment's owner's (a refusal read the same with a wrong token as with none)."""
    sent = bearer_token()
    if sent and not is_owner(experiment_id, sent):
        return ": the token sent is not its owner token (check the one you were given)"
    return ""


def not_public_yet(experiment_id: str) -> str:
    """Why an unpublished experiment is refused: a token sent that is not its owner's is
    said to be wrong (it read "not public yet … open the link with your owner token", as if
    none had been sent; explore24 2)."""
    said = f"experiment {experiment_id} is not public yet"
    sent = bearer_token() or request.args.get("token")
    if sent and sent == request.args.get("token") and is_owner(experiment_id, sent):
        # its owner's token, in a URL that does not read one (a status or API URL): said
        # where it goes, not a bare "not public yet" (explore34 8)
        return (
            f"{said}; its owner token is taken from ?token= on its pages only (the owner "
            f"link, experiment/{experiment_id}?token=…, which keeps it in this browser's "
            "cookie, then opens its task and status URLs too); a program sends it as "
            "Authorization: Bearer <token>"
        )
    if sent and not is_owner(experiment_id, sent):
        return (
            f"{said}, and the token sent is not its owner token: check the owner link or "
            "token you were given at submission (it is shown once)"
        )
    return said


TOKEN_REFUSED = "tokenRefused"  # the query a wrong owner link is sent on with (explore42 8)


def token_redirect(experiment_id: str, *, say_refused: bool = False) -> BaseResponse | None:
    """Handle ``?token=`` on an experiment URL: remember a valid token in a cookie, then
    redirect to the URL without it. ``None`` when there is no token parameter.
    ``say_refused``: a wrong token on a page anyone may read is sent on with
    ``?tokenRefused=1``, which that page says (it was dropped without a word: explore42 8)."""
    token = request.args.get("token")
    if token is None:
        return None
    rest = [(k, v) for k, v in request.args.items(multi=True) if k not in ("token", TOKEN_REFUSED)]
    owner = EXPERIMENT_ID.match(experiment_id) and services().storage.experiments.check_token(
        experiment_id, token
    )
    if say_refused and not owner:
        rest.append((TOKEN_REFUSED, "1"))
    # under the path the service is mounted at (--url-prefix), where the browser asked
    target = request.script_root + request.path + (f"?{urlencode(rest)}" if rest else "")
    response = redirect(target, code=303)
    if owner:
        set_owner_cookie(response, experiment_id, token)
    elif (
        EXPERIMENT_ID.match(experiment_id)
        and not services().storage.experiments.is_public(experiment_id)
        and not is_owner(experiment_id, request.cookies.get(COOKIE_PREFIX + experiment_id, ""))
    ):  # said here: the page it redirected to had forgotten a token was given (its owner,
        # whose cookie opens it, is taken there as before: explore27 F7)
        raise Forbidden(not_public_yet(experiment_id))
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def refuse_admin_token_in_url() -> None:
    """Every route (a ``before_request`` hook): the operator's token in a URL is in every
    proxy's log (and on an experiment page would be kept in a cookie for 30 days): taken as a
    Bearer header only, and said to the one who sent it and in the log, so it is rotated. Only
    experiment pages said so; an API URL answered 403 "not public yet" (explore26 F2)."""
    # every value: a second token= (?token=junk&token=ADMIN) passed unseen (explore27 F11)
    if not any(is_admin(token) for token in request.args.getlist("token")):
        return
    log.warning(
        "the admin token was given in a URL (?token= on %s): it is not taken there, send "
        "it as Authorization: Bearer (a proxy's access log may hold it now: rotate it)",
        request.path,
    )
    raise BadRequest(
        "the admin token is not taken in a URL (?token=), where proxies' logs keep it: "
        "send it as Authorization: Bearer"
    )


def set_owner_cookie(response: BaseResponse, experiment_id: str, token: str) -> None:
    """The owner's cookie on ``response``: for the experiment's pages, the run form (a
    resubmission of it) and the compare page (its tasks compared while private), each under
    the path the service is mounted at."""
    for path in (COOKIE_PATH, RUN_FORM_PATH, COMPARE_PATH):
        response.set_cookie(
            COOKIE_PREFIX + experiment_id,
            token,
            max_age=COOKIE_MAX_AGE,
            path=request.script_root + path,
            httponly=True,
            samesite="Lax",
            secure=services().config.cookies_secure,
        )


def token_refused() -> bool:
    """Whether this request came from a wrong owner link (``token_redirect``'s say_refused)."""
    return request.args.get(TOKEN_REFUSED) == "1"


def owner_page(response: BaseResponse) -> BaseResponse:
    """``response`` is an owner's page, or one its URL answers the owner with (a form with the
    owner's ``check``, a private experiment's page): kept by no cache, and said to vary with
    the cookie (the withdraw and reveal forms had neither: explore34 4)."""
    response.headers["Cache-Control"] = "private, no-store"
    response.vary.add("Cookie")
    return response


def form_check(experiment_id: str, token: str, action: str) -> str:
    """The value an owner's form (publish, cancel) must send back: proves the page was
    rendered for the owner (a cross-site form cannot know it), so the cookie alone cannot act
    (CSRF)."""
    message = f"{action}:{experiment_id}".encode()
    return hmac.new(secret_bytes(token), message, hashlib.sha256).hexdigest()


def require_owner_form(experiment_id: str, action: str) -> None:
    """Forbidden unless this form post carries the owner cookie and its ``check``."""
    require_experiment(experiment_id)
    token = request.cookies.get(COOKIE_PREFIX + experiment_id)
    check = request.form.get("check", "")
    if not (
        token
        and is_owner(experiment_id, token)
        and same_secret(check, form_check(experiment_id, token, action))
    ):
        raise Forbidden(f"only the owner can {action} this experiment")
