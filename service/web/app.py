"""The Flask application factory (STYLE §6): ``create_app(config)`` wires the store, the public
snapshots, the SPARQL workers and the experiment runner, and registers the blueprints
``resources`` (URIs by content negotiation), ``sparql``, ``api`` and ``ui``."""

from __future__ import annotations

import atexit
import logging
import re
import tempfile
from collections.abc import Mapping
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response as BaseResponse

from service import release
from service.errors import FormatError, ServiceError, retry_after
from service.web import conneg
from service.web.config import WebConfig, load_config
from service.web.hosts import HostCheck
from service.web.state import EXTENSION, Services, services

if TYPE_CHECKING:
    from service.graph.store import Storage

log = logging.getLogger(__name__)

SNAPSHOT_DIR = ".public-snapshots"


def create_app(
    config: WebConfig | Mapping[str, Any] | None = None, *, storage: Storage | None = None
) -> Flask:
    """Build the app. ``storage`` may be an open store on disk (tests preload one)."""
    from service.graph.store import open_storage

    cfg = config if isinstance(config, WebConfig) else load_config(config)
    release.source()  # the version experiments record: a malformed one stops the start, not a run
    if storage is None:
        path = cfg.store
        if path is None:  # no store given: a throw-away one (the endpoint needs it on disk)
            path = Path(tempfile.mkdtemp(prefix="gerbil-qa-store-"))
        storage = open_storage(path, base=cfg.base)
    if storage.work_dir is None:
        raise ServiceError("the web service needs a store on disk (--store DIR or URL)")
    if storage.uris.base != cfg.base:
        raise ServiceError(f"the store uses base {storage.uris.base}, the service {cfg.base}")

    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = cfg.max_upload_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    pool, view = _query_engine(cfg, storage)
    from service.web.cache import DocumentCache

    cache = DocumentCache(max_entries=cfg.page_cache_entries)
    results = DocumentCache(max_entries=cfg.sparql_cache_entries, max_bytes=32 * 1024 * 1024)
    # never dropped on a write: an ETag names what its answer says (a 20,000-question one:
    # 12 MB, recomputed in 30-40 s at each poll of its owner)
    answers = DocumentCache(
        max_entries=min(cfg.page_cache_entries, 32), max_bytes=128 * 1024 * 1024
    )
    # The application layer's background runner: a small pool, job state beside the store,
    # interrupted jobs marked at start (and queued again below).
    from service.experiments.runner import ExperimentRunner

    runner = ExperimentRunner(
        storage,
        workers=cfg.runner_workers,
        question_budget=cfg.runner_question_budget,
        ask_seconds=cfg.runner_ask_seconds,
        policy=cfg.network_policy(),
        limits=cfg.format_limits(),
        resuming=cfg.resume_runs and not storage.store.read_only,  # as resume_interrupted below
    )
    state = Services(
        config=cfg,
        storage=storage,
        view=view,
        pool=pool,
        runner=runner,
        cache=cache,
        results=results,
        answers=answers,
    )
    runner.on_public_change = state.changed
    from service.graph.embedded import EmbeddedStore

    if isinstance(storage.store, EmbeddedStore):  # consistent reads for the CLI while serving
        from service.graph.snapshots import SnapshotService

        state.snapshots = SnapshotService(storage.store).start()
    from service.graph.remote import RemoteStore

    if isinstance(storage.store, RemoteStore):  # other replicas may write: follow their writes
        from service.web.replicas import ChangeWatcher

        state.watcher = ChangeWatcher(storage, on_change=state.refresh).start()
    app.extensions[EXTENSION] = state
    _upgrade_legacy_experiments(storage)  # before the first snapshot: it holds them upgraded
    _complete_published_uploads(storage)  # likewise
    _complete_upload_findings(storage)  # likewise
    _warn_of_lost_graphs(storage)
    view.refresh()
    atexit.register(state.close)

    from service.web import (
        access,
        api,
        comparing,
        discovery,
        frozen,
        health,
        metrics,
        resources,
        running,
        sparql_endpoint,
        ui,
    )

    app.register_blueprint(ui.bp)
    app.register_blueprint(resources.bp)
    app.register_blueprint(sparql_endpoint.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(comparing.bp)
    app.register_blueprint(running.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(metrics.bp)
    app.register_blueprint(discovery.bp)
    app.register_blueprint(frozen.bp)
    app.register_error_handler(ServiceError, _service_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(OSError, _os_error)
    # every template compiled now, beside the code that renders it: one read on first use after
    # the checkout changed under a running server got names this code does not give it (500)
    for name in app.jinja_env.list_templates():
        app.jinja_env.get_template(name)
    app.before_request(access.refuse_admin_token_in_url)
    app.before_request(_ignore_future_if_modified_since)
    app.after_request(_security_headers)
    app.after_request(_cors)
    app.after_request(_html_safe)
    # programs' GET queries skip Flask's request machinery (same rules; sparql_endpoint.py)
    app.wsgi_app = sparql_endpoint.QueryFastPath(app, state, SECURITY_HEADERS)  # type: ignore[method-assign]
    app.wsgi_app = HostCheck(app.wsgi_app, SECURITY_HEADERS)  # type: ignore[method-assign]
    if cfg.access_log:  # outermost: the fast path's queries are requests too
        from service.web.access_log import AccessLog

        app.wsgi_app = AccessLog(app.wsgi_app)  # type: ignore[method-assign]
    if cfg.resume_runs and not storage.store.read_only:  # once the app can take their writes
        runner.resume_interrupted()
    if cfg.demo:
        from service.web.demo import ensure_demo

        ensure_demo(state)
    return app


def _upgrade_legacy_experiments(storage: Storage) -> None:
    """Experiments older versions wrote, rewritten in today's terms (``service.graph.legacy``):
    left as they were, the leaderboards and GERBIL-era queries left them out without a word."""
    from service.graph.legacy import (
        WRITTEN_BEFORE,
        legacy_experiment_graphs,
        remove_withheld_intervals,
        upgrade,
    )

    if storage.store.read_only:
        found = {  # a graph in both datasets (a publication stopped half-way) counts once
            g for side in (storage.public, storage.private) for g in legacy_experiment_graphs(side)
        }
        if found:
            log.warning(
                "%d experiment graphs were written by a version before %s; this read-only "
                "store cannot upgrade them (`gerbil-qa upgrade --store …` can): the leaderboards "
                "leave them out",
                len(found),
                WRITTEN_BEFORE,
            )
        return
    withheld = remove_withheld_intervals(storage)
    if withheld:
        log.warning(
            "removed the intervals of %d run graphs on a test set whose gold is withheld "
            "(with their published seed they tell a small set's outcomes; measures untouched)",
            len(withheld),
        )
    upgraded = upgrade(storage)
    if upgraded:
        log.warning(
            "upgraded %d experiment graphs written by a version before %s to today's terms "
            "(experiment types gerbil:QA …, PROV agent types, GERBIL's status fields; results "
            "untouched): the published ones are on the leaderboards now (first: %s)",
            len(upgraded),
            WRITTEN_BEFORE,
            upgraded[0],
        )


def _complete_published_uploads(storage: Storage) -> None:
    """Uploads published by an older version get what a publication writes today: the
    catalogue's link, a publisher, the date of first issue, the generated description's mark
    (``service.graph.uploads.complete_published_uploads``): else a harvester missed them."""
    from service.graph.uploads import complete_published_uploads

    if storage.store.read_only:
        return
    done = complete_published_uploads(storage)
    if done:
        log.warning(
            "completed %d uploaded datasets published by an older version (catalogue link, "
            "publisher, date of first issue, generated description marked; first: %s)",
            len(done),
            done[0],
        )


def _complete_upload_findings(storage: Storage) -> None:
    """Published uploaded datasets without their check findings (published before uploads
    were checked, or a crash between the publication and its findings) get them; those of
    uploads whose runs are all withdrawn go."""
    from service.experiments.dataset_checks import complete_upload_findings

    if storage.store.read_only:
        return
    done = complete_upload_findings(storage)
    if done.checked:  # it said "brought up to date, nothing to do" of what it did (explore54 F4)
        log.info(
            "re-checked %d published uploaded dataset(s) whose findings (what each dataset "
            "page lists under its checks) another set of checks made, or none: %s; %d "
            "finding(s) added, %d removed",
            len(done.checked),
            ", ".join(
                f"{name} ({before} -> {now} findings)"
                for name, (before, now) in done.checked.items()
            ),
            done.added,
            done.dropped,
        )
    if done.removed:
        log.info(
            "removed the findings of uploaded dataset(s) whose runs are all withdrawn: %s",
            ", ".join(done.removed),
        )


LOST_SAMPLE = 5  # the newest publications looked at when serving starts


def _warn_of_lost_graphs(storage: Storage) -> None:
    """Said loudly at start when the newest published experiments have no graph in the public
    dataset: an empty server behind ``--store``, a wrong ``--location``, a failed restore. It
    started healthy, its published experiments "finished" over no results (``gerbil-qa
    check`` names every one; this looks at a few, to cost nothing at any size)."""
    import pyoxigraph as ox

    from service.graph.terms import GQA

    rows = storage.private.query(
        f"SELECT ?e WHERE {{ GRAPH <{storage.uris.admin_graph}> {{ ?e <{GQA}published> true }} }} "
        f"ORDER BY DESC(STR(?e)) LIMIT {LOST_SAMPLE}"
    )
    lost = []
    for row in rows:
        eid = row["e"].value.rsplit("/", 1)[-1]
        graph = storage.uris.experiment_graph(eid)
        if not storage.public.contains_named_graph(ox.NamedNode(graph)):
            lost.append(eid)
    if lost:
        log.error(
            "the public dataset (%s) holds no graph of the published experiment(s) %s: their "
            "results are lost here (an empty or another store behind --store or --location? a "
            "failed restore?); run gerbil-qa check, restore from a backup (gerbil-qa import)",
            storage.store.location,
            ", ".join(lost),
        )


def _query_engine(cfg: WebConfig, storage: Storage) -> tuple[Any, Any]:
    """What runs public queries and what the endpoint reads them from: worker processes over
    snapshots of the embedded store, or the remote store itself (remote_queries.py)."""
    from service.graph.remote import RemoteStore

    if isinstance(storage.store, RemoteStore):
        from service.web.remote_queries import RemoteQueries, RemoteView

        public = storage.store.public
        return RemoteQueries(public, timeout=cfg.sparql_timeout), RemoteView(public)
    from service.web.isolation import DEFAULT_MECHANISMS
    from service.web.public_view import PublicView
    from service.web.query_pool import QueryPool

    assert storage.work_dir is not None
    pool = QueryPool(
        size=cfg.sparql_workers,
        timeout=cfg.sparql_timeout,
        queue_timeout=cfg.sparql_queue_timeout,
        memory_mb=cfg.sparql_memory_mb,
        long_slots=cfg.sparql_long_queries or None,
        quick_seconds=cfg.sparql_quick_seconds,
        # requests waiting for a long slot hold an HTTP thread each: keep most threads free
        long_waiting=max(1, cfg.threads // 4),
        isolation=DEFAULT_MECHANISMS if cfg.sparql_network_isolation else (),
    )
    view = PublicView(
        storage.public,
        work_dir=storage.work_dir / SNAPSHOT_DIR,
        in_use=pool.snapshots_in_use,
        on_refresh=pool.set_snapshot,
    )
    return pool, view


def close_app(app: Flask) -> None:
    """Stop the workers and release the store (tests; ``serve`` does it at exit)."""
    state: Services = app.extensions[EXTENSION]
    state.close()
    atexit.unregister(state.close)


def problems_of(err: ServiceError) -> list[dict[str, Any]]:
    if not isinstance(err, FormatError):
        return []
    return [
        {
            "message": p.message,
            "severity": p.severity,
            "file": p.file,
            "line": p.line,
            "column": p.column,
            "path": p.path,
            "question": p.question_id,
            "expected": p.expected,
            "text": str(p),
        }
        for p in err.problems
    ]


def api_problems(err: ServiceError) -> list[dict[str, Any]]:
    """The API's problems of ``err``: a file's, or the submission field it is about (its JSON
    path), so a script knows which setting to fix without reading the sentence."""
    if isinstance(err, FormatError) or err.field is None:
        return problems_of(err)
    return [
        {
            "message": err.message,
            "severity": "error",
            "file": None,
            "line": None,
            "column": None,
            "path": f"$.{err.field}",
            "question": None,
            "expected": None,
            "text": err.message,
        }
    ]


def json_error(status: int, message: str, problems: list[dict[str, Any]] | None = None):
    """The API's error object (``components/responses/Error`` of the OpenAPI document)."""
    response = jsonify({"error": message, "status": status, "problems": problems or []})
    response.status_code = status
    return response


def error_response(status: int, message: str, *, problems: list[dict[str, Any]] | None = None):
    """One error body for the whole service: JSON under /api, HTML for browsers, else text."""
    if request.path.startswith("/api/"):
        response = json_error(status, message, problems)
    else:
        offered = (conneg.HTML,)
        wants_html = conneg.choose_from_accept(
            request.headers.get("Accept"), offered, default=conneg.HTML
        ) is conneg.HTML and "text/html" in (request.headers.get("Accept") or "")
        if wants_html:
            page = render_template(
                "error.html",
                status=status,
                reason=_reason(status),
                message=message,
                problems=problems,
            )
            response = Response(page, content_type="text/html; charset=utf-8")
        else:
            lines = [message, *(p["text"] for p in problems or [])]
            response = Response("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
    response.status_code = status
    response.vary.add("Accept")
    return response


def _service_error(err: ServiceError) -> BaseResponse:
    if err.status == 404:
        moved = _without_trailing_slash()
        if moved is not None:
            return moved
    if err.status >= 500:
        log.log(err.log_level, "%s %s: %s", request.method, request.path, err.message)
    api = request.path.startswith("/api/")  # the pages show the sentence alone
    problems = api_problems(err) if api else problems_of(err)
    response = error_response(err.status, err.public_message, problems=problems)
    wait = retry_after(err)  # service.errors: a busy service's wait, a store away's hint
    if wait is not None:
        response.headers["Retry-After"] = wait
    return response


NO_SPACE_MESSAGE = (
    "the server cannot save this now: no space is left on the disk that holds its store; "
    "try again once its operator has freed space"
)
NO_FILES_MESSAGE = (
    "the server has too many files open just now (its open-files limit): try again in a few seconds"
)
NO_FILES_RETRY_AFTER = 5  # seconds: a burst of connections that used up the files is over


def _os_error(err: OSError) -> BaseResponse:
    """A full disk: 507 Insufficient Storage (RFC 4918 §11.5: the server cannot store what the
    request needs), without ``Retry-After``: space comes back when someone frees it, not after
    a wait a client could be told, and a 503 invites a client to retry on a timer. Too many
    open files: 503 with ``Retry-After`` (it passes with the load). Each names the cause and
    no path of the server; the log has the error. Any other: raised again, Flask's 500.
    (Both were Flask's generic 500, "… overloaded …"; explore52 F5, F10.)"""
    from service.shortages import no_space, out_of_files

    if no_space(err):
        log.error("%s %s: the disk is full: %s", request.method, request.path, err)
        services().runner.write_failures.note(err)
        return error_response(507, NO_SPACE_MESSAGE)
    if out_of_files(err):
        log.error("%s %s: out of open files: %s", request.method, request.path, err)
        response = error_response(503, NO_FILES_MESSAGE)
        response.headers["Retry-After"] = str(NO_FILES_RETRY_AFTER)
        return response
    raise err


def _http_error(err: HTTPException) -> BaseResponse:
    if err.code == 404:
        moved = _without_trailing_slash()
        if moved is not None:
            return moved
    message = _too_large() if err.code == 413 else None  # Werkzeug's words name no limit
    response = error_response(err.code or 500, message or err.description or err.name)
    if err.code == 405 and hasattr(err, "valid_methods") and err.valid_methods:
        response.headers["Allow"] = ", ".join(err.valid_methods)
    return response


def _ignore_future_if_modified_since() -> None:
    """An ``If-Modified-Since`` later than the server's clock is not a date the client had
    from us: it is invalid (RFC 7232 §3.3) and ignored (RFC 9110 §13.1.3 lets a server), so
    the request is answered whole. ``Sun, 29 Nov 2099 …`` was a 304 (explore56 F4)."""
    from datetime import UTC, datetime

    from werkzeug.http import parse_date

    since = parse_date(request.environ.get("HTTP_IF_MODIFIED_SINCE"))
    if since is not None and since > datetime.now(UTC):
        request.environ.pop("HTTP_IF_MODIFIED_SINCE", None)
        request.__dict__.pop("if_modified_since", None)  # if read already (a cached property)


def _without_trailing_slash() -> BaseResponse | None:
    """A GET or HEAD of a URI with a trailing slash that is not one (``experiment/ID/``,
    ``leaderboard/ID/``, ``dataset/NAME/version/V/``, pasted from a PDF or typed so): a 301 to
    the URI without it, under the store's base, its query kept, when a route serves that one;
    None otherwise (the 404 stands)."""
    from werkzeug.routing.exceptions import RoutingException
    from werkzeug.utils import redirect

    path = request.path
    if request.method not in ("GET", "HEAD") or len(path) < 2 or not path.endswith("/"):
        return None
    bare = path.rstrip("/")
    if not bare:
        return None
    adapter = current_app.url_map.bind("localhost")
    try:
        adapter.match(bare, method="GET")
    except (HTTPException, RoutingException):
        return None
    from service.web.state import services

    target = services().storage.uris.base + bare.lstrip("/")
    query = request.query_string.decode("latin-1")
    return redirect(f"{target}?{query}" if query else target, code=301)


def _too_large() -> str | None:
    """What a request over the upload limit is told: its size, the limit and its setting (the
    files are not named: the body is refused before it is read)."""
    from service.systems.webservice import readable_size

    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if not limit:
        return None
    size = request.content_length
    sent = f"{size:,} bytes" if size is not None else "more bytes than that"
    # the limit with its unit, as a response's bound is said: a limit of 1,000 bytes was
    # "(0 MiB)" (explore51 F5)
    return (
        f"the request is {sent}, more than the upload limit of {readable_size(limit)} "
        "for all its files together; nothing was stored "
        "(expected smaller files; the limit is the server's GERBIL_QA_MAX_UPLOAD_BYTES)"
    )


SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "same-origin"))


def _cors(response: Response) -> Response:
    from service.web.cors import add_cors

    return add_cors(request, response)


# what HTML's parsing rules call an error in the input stream (HTML "control-character-in-input-
# stream", "noncharacter-in-input-stream"), in UTF-8: C0 controls but tab, LF, FF and CR; DEL;
# C1 controls U+0080-U+009F; noncharacters U+FDD0-U+FDEF and U+xFFFE, U+xFFFF of every plane
_NOT_HTML_BYTES = re.compile(
    rb"[\x00-\x08\x0b\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xef\xb7[\x90-\xaf]|\xef\xbf[\xbe\xbf]"
    rb"|\xf0[\x9f\xaf\xbf]\xbf[\xbe\xbf]|[\xf1-\xf3][\x8f\x9f\xaf\xbf]\xbf[\xbe\xbf]|\xf4\x8f\xbf[\xbe\xbf]"
)
# searching a page for that pattern costs ~30 ms a megabyte (a class at its start is tried at
# every byte); these, ~2 ms, find every page that holds one (and a few that do not)
_HTML_ASCII_OK = bytes(
    b for b in range(256) if b not in b"%b\x7f" % bytes([*range(9), 11, *range(14, 32)])
)
_HTML_HINTS = (
    re.compile(rb"\xc2[\x80-\x9f]").search,
    re.compile(rb"\xef(?:\xb7[\x90-\xaf]|\xbf[\xbe\xbf])").search,
    re.compile(rb"\xbf[\xbe\xbf]").search,
)


def _html_safe(response: Response) -> Response:
    """An HTML page with U+FFFD for each character HTML's parser calls an error (explore31 F2).
    XML 1.0 allows C1 controls and noncharacters, and the store keeps them: the gold answers of
    the built-in qald-1-musicbrainz datasets hold C1 controls (mojibake of Japanese and Cyrillic
    names), so a dataset holding one is not refused; a store written before may hold C0
    controls too. Written raw, a strict HTML parser stopped at them."""
    if response.mimetype != "text/html" or response.is_streamed or response.direct_passthrough:
        return response
    body = response.get_data()
    if body.translate(None, _HTML_ASCII_OK) or any(hint(body) for hint in _HTML_HINTS):
        cleaned = _NOT_HTML_BYTES.sub("\ufffd".encode(), body)
        if cleaned != body:
            response.set_data(cleaned)
    return response


def _security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS:
        response.headers.setdefault(name, value)
    if response.mimetype == "text/html":
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        )
    return response


def _reason(status: int) -> str:
    """The status's phrase for the error page's heading ("404 Not Found", "410 Gone")."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
