"""The public SPARQL 1.1 Protocol endpoint (blueprint ``sparql``), read-only.

Query operations: GET with ``query``; POST with ``application/x-www-form-urlencoded`` (``query``
in the body); POST with ``application/sparql-query`` (the body is the query); protocol dataset
parameters ``default-graph-uri``/``named-graph-uri`` (SPARQL 1.1 Protocol §2.1). Updates in any
form (an ``update`` parameter, an ``application/sparql-update`` body) get 403; ``SERVICE`` gets
403 too (``sparql_guard.py`` reads the query as the engine will; the workers have no network).
A GET without a query returns the service description (Service Description §2), or the HTML
query page for a browser. Queries run in killable worker processes over the public view
(``query_pool.py``, ``public_view.py``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote_to_bytes

from flask import Blueprint, Response, render_template, request
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.wrappers import Request

from service import mediatypes
from service.errors import BadRequest, Forbidden, ServiceError, retry_after
from service.shortages import no_space, out_of_files
from service.web import conneg, cors
from service.web.query_pool import QueryJob
from service.web.sparql_guard import QueryFacts
from service.web.sparql_guard import inspect_query_cached as inspect_query
from service.web.state import services

if TYPE_CHECKING:
    from service.web.state import Services

bp = Blueprint("sparql", __name__)
log = logging.getLogger(__name__)

FORMATS_NS = "http://www.w3.org/ns/formats/"
# W3C format IRIs (http://www.w3.org/ns/formats/) for sd:resultFormat, by our syntax name.
FORMAT_IRIS = {
    "json": "SPARQL_Results_JSON",
    "xml": "SPARQL_Results_XML",
    "csv": "SPARQL_Results_CSV",
    "tsv": "SPARQL_Results_TSV",
    "turtle": "Turtle",
    "ntriples": "N-Triples",
    "rdfxml": "RDF_XML",
    "jsonld": "JSON-LD",
    "nquads": "N-Quads",
    "trig": "TriG",
}

RESULTS = tuple(
    conneg.Representation(s.name, s.label, s.media_types, s.extension)
    for s in mediatypes.RESULTS_SYNTAXES
)
GRAPH_RESULTS = tuple(conneg.RDF[s.name] for s in mediatypes.RDF_SYNTAXES)
_FORM = "application/x-www-form-urlencoded"
_QUERY = "application/sparql-query"
_UPDATE = "application/sparql-update"
_READ_ONLY = "this endpoint is read-only: SPARQL Update is not accepted"
_NO_SERVICE = (
    "SERVICE (federated query) is not allowed on this public endpoint; "
    "run federated queries from your own SPARQL engine against this endpoint instead"
)


@dataclass(frozen=True, slots=True)
class ProtocolRequest:
    """A query operation as the protocol delivered it."""

    query: str
    default_graphs: tuple[str, ...]
    named_graphs: tuple[str, ...]
    # the format parameters clients send (``format``, and Fuseki's ``output``), in order
    formats: tuple[str, ...] = ()


def _decode(req: Request, body: bytes, *, what: str) -> str:
    charset = (req.mimetype_params.get("charset") or "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise ServiceError(
            f"{what}: charset={charset} is not supported; send UTF-8 (SPARQL 1.1 Protocol §2.1)",
            status=415,
        )
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BadRequest(f"{what}: the body is not valid UTF-8 (byte {err.start})") from None


def _check_utf8_parameter(query_string: bytes, name: str) -> None:
    """400 if parameter ``name`` of the URL is not UTF-8 once percent-decoded (§2.1.1), as a
    POST body that is not UTF-8 is."""
    for pair in query_string.split(b"&"):
        key, _, value = pair.partition(b"=")
        if unquote_to_bytes(key.replace(b"+", b" ")) != name.encode():
            continue
        try:
            unquote_to_bytes(value.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError as err:
            raise BadRequest(
                f"the '{name}' parameter is not valid UTF-8 once percent-decoded (byte {err.start})"
            ) from None


def _single(values: Sequence[str], name: str) -> str | None:
    if len(values) > 1:
        raise BadRequest(f"exactly one '{name}' parameter is allowed, got {len(values)}")
    return values[0] if values else None


# GET query strings parsed lately, by their text: clients send the same queries again and
# again, and percent-decoding a query (Python's ``unquote``, a loop per escape) cost as much as
# the rest of the endpoint's own work for the published leaderboard (~0.15 ms of ~0.2 ms).
GET_PARSES_KEPT = 256
GET_PARSE_MAX = 16 * 1024  # longer query strings are parsed each time (the cache stays small)


def read_protocol_request(req: Request) -> ProtocolRequest | None:
    """The query of ``req``, or ``None`` for a plain GET (service description)."""
    if req.method in ("GET", "HEAD"):
        query_string = req.environ.get("QUERY_STRING", "")
        if len(query_string) <= GET_PARSE_MAX:
            return _get_operation(query_string)
        return _read_get(req)
    return _read_post(req)


@lru_cache(maxsize=GET_PARSES_KEPT)
def _get_operation(query_string: str) -> ProtocolRequest | None:
    """:func:`_read_get` of a request with this (WSGI) query string, remembered; what it
    refuses is raised each time (exceptions are not cached)."""
    return _read_get(Request({"QUERY_STRING": query_string, "REQUEST_METHOD": "GET"}))


def _refuse_updates(args: Any) -> None:
    if "update" in args or "using-graph-uri" in args or "using-named-graph-uri" in args:
        raise Forbidden(_READ_ONLY)


def _read_get(req: Request) -> ProtocolRequest | None:
    args = req.args
    _refuse_updates(args)
    query = _single(args.getlist("query"), "query")
    if query is None:
        return None
    if "%" in query or "\ufffd" in query:  # werkzeug keeps bytes it cannot decode as %XX
        _check_utf8_parameter(req.query_string, "query")
    return ProtocolRequest(
        query,
        tuple(args.getlist("default-graph-uri")),
        tuple(args.getlist("named-graph-uri")),
        (*args.getlist("format"), *args.getlist("output")),
    )


def _read_post(req: Request) -> ProtocolRequest:
    args = req.args
    _refuse_updates(args)
    default_graphs = args.getlist("default-graph-uri")
    named_graphs = args.getlist("named-graph-uri")
    formats = [*args.getlist("format"), *args.getlist("output")]
    mimetype = req.mimetype
    if mimetype == _UPDATE:
        raise Forbidden(_READ_ONLY)
    if mimetype == _FORM:
        text = _decode(req, req.get_data(cache=True), what="form body")
        try:
            form = parse_qsl(text, keep_blank_values=True, strict_parsing=False)
        except ValueError as err:
            raise BadRequest(f"form body: {err}") from None
        names = [name for name, _ in form]
        if "update" in names:
            raise Forbidden(_READ_ONLY)
        query = _single([v for k, v in form if k == "query"] + args.getlist("query"), "query")
        if query is None:
            raise BadRequest("the form body has no 'query' parameter")
        default_graphs += [v for k, v in form if k == "default-graph-uri"]
        named_graphs += [v for k, v in form if k == "named-graph-uri"]
        formats += [v for k, v in form if k in ("format", "output")]
    elif mimetype == _QUERY:
        if "query" in args:
            raise BadRequest("a direct POST carries its query in the body, not in 'query'")
        query = _decode(req, req.get_data(cache=True), what="query body")
    else:
        given = f"Content-Type {mimetype}" if mimetype else "no Content-Type"
        raise ServiceError(
            f"{given}: POST a query as {_FORM} (query=...) or as {_QUERY}", status=415
        )
    return ProtocolRequest(query, tuple(default_graphs), tuple(named_graphs), tuple(formats))


def _names(syntax: mediatypes.RdfSyntax | mediatypes.ResultsSyntax) -> tuple[str, ...]:
    """Every name a client may give ``syntax`` in ``format=``, lower case."""
    names = (syntax.name, syntax.extension, *getattr(syntax, "names", ()), *syntax.media_types)
    return tuple(name.lower() for name in names)


def _graph_names() -> dict[str, str]:
    """``format=`` names for a graph result -> pyoxigraph RDF format: the RDF syntaxes' own,
    then the results formats clients ask for anyway, as their RDF counterparts."""
    out = {name: s.oxigraph for s in mediatypes.RDF_SYNTAXES for name in _names(s)}
    for results in mediatypes.RESULTS_SYNTAXES:
        rdf = mediatypes.rdf_by_name(results.graph_counterpart or "")
        if rdf is not None:
            for name in _names(results):
                out.setdefault(name, rdf.oxigraph)
    return out


HTML_NAMES = frozenset({"html", *conneg.HTML.media_types})
RESULT_NAMES = {name: s.oxigraph for s in mediatypes.RESULTS_SYNTAXES for name in _names(s)}
# an ASK's answer: SPARQL 1.1 CSV and TSV Results are for SELECT only (a table of bindings,
# §1 of that note), so an ASK asked for them is a 406 naming JSON and XML, as a CONSTRUCT asked
# for them is; it was answered "true" as text/csv (explore45 17)
TABLE_ONLY = ("csv", "tsv")
BOOLEAN_RESULTS = tuple(r for r in RESULTS if r.key not in TABLE_ONLY)
BOOLEAN_NAMES = {
    name: s.oxigraph
    for s in mediatypes.RESULTS_SYNTAXES
    if s.name not in TABLE_ONLY
    for name in _names(s)
}
GRAPH_NAMES = _graph_names()
# for Accept: the results media types a graph result answers, as their RDF counterparts
COUNTERPARTS = tuple(
    conneg.Representation(rdf.name, rdf.label, r.media_types, None, rdf=rdf)
    for r in mediatypes.RESULTS_SYNTAXES
    if (rdf := mediatypes.rdf_by_name(r.graph_counterpart or "")) is not None
)


@lru_cache(maxsize=512)
def negotiate_results(
    formats: tuple[str, ...], accept: str | None, form: str
) -> tuple[str | None, str | None, bool]:
    """(results format, RDF format, html) as pyoxigraph member names for a ``form`` query.

    As Virtuoso and Fuseki do: the first ``format``/``output`` value that names a format for
    this query form wins (a name, an extension or a media type; SPARQLWrapper sends
    ``format=xml`` for every form, so a results format asked for a graph result gives its RDF
    counterpart: XML -> RDF/XML, JSON -> JSON-LD); else ``Accept``, read the same way; else 406.
    Cached: clients send the same few values again and again."""
    graph = form in ("CONSTRUCT", "DESCRIBE")
    boolean = form == "ASK"
    names = GRAPH_NAMES if graph else BOOLEAN_NAMES if boolean else RESULT_NAMES
    for value in formats:
        token = mediatypes.bare(value)
        if token in HTML_NAMES:
            return "JSON", "TURTLE", True  # run as JSON / Turtle, render the page from that
        member = names.get(token)
        if member:
            return (None, member, False) if graph else (member, None, False)
    offered: tuple[conneg.Representation, ...] = (
        (*GRAPH_RESULTS, *COUNTERPARTS) if graph else BOOLEAN_RESULTS if boolean else RESULTS
    )
    pick = conneg.choose_from_accept(accept, (*offered, conneg.HTML), default=offered[0])
    if pick is conneg.HTML:
        return "JSON", "TURTLE", True
    if pick is not None and graph and pick.rdf is not None:
        return None, pick.rdf.oxigraph, False
    if pick is not None and not graph:
        return _results_member(pick), None, False
    # what was asked: format= values naming no format of the form are passed over, and
    # Accept decides (an ASK's format=csv gets JSON under Accept: */*), so both are said
    asked = [f"format={f}" for f in formats] + ([f"Accept: {accept}"] if accept else [])
    offer = "offer" if len(asked) > 1 else "offers"
    available = GRAPH_RESULTS if graph else BOOLEAN_RESULTS if boolean else RESULTS
    raise conneg.NotAcceptable(
        f"{', '.join(asked) or 'no Accept'} {offer} no format for "
        f"{'an' if form == 'ASK' else 'a'} {form} result; available: "
        + ", ".join(r.media_type for r in available)
    )


def _results_member(rep: conneg.Representation) -> str:
    syntax = mediatypes.results_by_name(rep.key)
    if syntax is None:  # pragma: no cover - RESULTS is built from the same table
        raise ServiceError(f"unknown results syntax {rep.key}")
    return syntax.oxigraph


@lru_cache(maxsize=64)
def _media_type_of(kind: str, member: str) -> str:
    syntax: mediatypes.RdfSyntax | mediatypes.ResultsSyntax
    if kind == "triples":
        syntax = next(s for s in mediatypes.RDF_SYNTAXES if s.oxigraph == member)
    else:
        syntax = next(s for s in mediatypes.RESULTS_SYNTAXES if s.oxigraph == member)
    text_like = syntax.media_type.startswith("text/") or "json" in syntax.media_type
    return syntax.media_type + ("; charset=utf-8" if text_like else "")


# the same as every other route's (cors.py): a script of another origin reads the answer's
# ETag (to revalidate) and a busy endpoint's Retry-After
CORS_HEADERS = (cors.ALLOW_ORIGIN, cors.EXPOSE_HEADERS)


@bp.after_request
def _add_cors(response: Response) -> Response:
    response.headers.update(CORS_HEADERS)
    return response


@bp.route("/sparql/", methods=["OPTIONS"])
@bp.route("/sparql", methods=["OPTIONS"])  # first: what url_for gives
def preflight() -> Response:
    response = Response(status=204)
    response.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
    response.headers["Access-Control-Allow-Headers"] = cors.ALLOW_HEADERS  # If-None-Match too
    response.headers["Access-Control-Max-Age"] = cors.MAX_AGE
    return response


@dataclass(frozen=True, slots=True)
class QueryAnswer:
    """A query's answer as the endpoint sends it: ``kind`` (``solutions``, ``boolean``,
    ``triples``), the body, its media type and ETag; ``html``: the client is a browser and
    gets a page made from this (JSON or Turtle) body."""

    kind: str
    body: bytes
    media_type: str
    etag: str
    html: bool = False


def answer_query(
    state: Services, req: Request, operation: ProtocolRequest, facts: QueryFacts | None = None
) -> QueryAnswer:
    """The endpoint's rules for one query operation, whoever parsed the HTTP request: SERVICE
    refused, the result format negotiated, a cached answer reused (public data only changes on
    writes, which clear the cache), else the query run in a worker process. ``facts``: the
    guard's reading of ``operation.query`` when the caller has it already."""
    if facts is None:
        facts = _facts(state, operation.query)
    if facts.uses_service:
        raise Forbidden(_NO_SERVICE)
    results_format, rdf_format, html = negotiate_results(
        operation.formats, req.headers.get("Accept"), facts.form
    )
    job = QueryJob(
        query=operation.query,
        base_iri=state.config.sparql_url,
        default_graphs=operation.default_graphs or None,
        named_graphs=operation.named_graphs or None,
        results_format=results_format,
        rdf_format=rdf_format,
        max_bytes=state.config.sparql_max_bytes,
    )
    # The key is everything the answer depends on.
    key = (job.query, job.default_graphs, job.named_graphs, results_format, rdf_format)
    rendered = None if facts.volatile else state.results.get(key)
    if rendered is None:
        outcome = state.pool.run(job, shape=facts.shape)
        media_type = _media_type_of(outcome.kind, outcome.format)
        rendered = state.results.rendered(outcome.body, f"{outcome.kind} {media_type}")
        if not facts.volatile:
            state.results.put(key, rendered)
    kind, _, media_type = rendered.content_type.partition(" ")
    return QueryAnswer(kind, rendered.body, media_type, rendered.etag, html)


def _facts(state: Services, query: str) -> QueryFacts:
    config = state.config
    return inspect_query(
        query, max_bytes=config.sparql_max_query_bytes, max_depth=config.sparql_max_depth
    )


ANSWER_HEADERS = (("Vary", "Accept"), ("Cache-Control", "no-cache"), *CORS_HEADERS)


@bp.route("/sparql/", methods=["GET", "POST"])
@bp.route("/sparql", methods=["GET", "POST"])  # first: what url_for gives
def endpoint() -> Response:
    operation = read_protocol_request(request)
    if operation is None:
        return service_description()
    try:
        answer = answer_query(services(), request, operation)
    except ServiceError as err:
        # a limit (503: too long, busy) comes back in the editor too; a fault (500) does not
        limit = err.status == 503
        if (err.status >= 500 and not limit) or not wants_page(
            operation, request.headers.get("Accept")
        ):
            raise  # a program's error response, as the protocol's clients read it
        return _query_error_page(operation.query, err)
    if answer.html:
        return _html_results(operation.query, answer.kind, answer.body)
    response = Response(answer.body, content_type=answer.media_type)
    response.headers.update(ANSWER_HEADERS)
    response.set_etag(answer.etag)
    response.make_conditional(request)  # in place: 304 when the ETag matches
    return response


class QueryFastPath:
    """WSGI middleware: ``GET /sparql?query=…`` from programs, without Flask's per-request
    machinery (request context, URL map, hooks: about a third of the endpoint's own CPU time
    per query, measured with bench/http.py). The rules are the same functions the Flask view
    calls (:func:`read_protocol_request`, :func:`answer_query`); everything else (POST, the
    service description, browsers, which get HTML pages and HTML errors) goes to Flask.
    Errors are plain text, as ``app.error_response`` writes them for non-browsers."""

    def __init__(self, app: Any, state: Services, security_headers: tuple) -> None:
        self.next = app.wsgi_app
        self.state = state
        self.headers = security_headers
        self.answered = 0  # requests answered here (monitoring, tests)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if not self._mine(environ):
            return self.next(environ, start_response)
        req = Request(environ)
        operation = None
        try:
            operation = read_protocol_request(req)
            if operation is None:
                return self.next(environ, start_response)  # the service description
            facts = _facts(self.state, operation.query)
            if negotiate_results(operation.formats, req.headers.get("Accept"), facts.form)[2]:
                return self.next(environ, start_response)  # a page for a browser
            answer = answer_query(self.state, req, operation, facts)
        except OSError as err:  # a full disk, too many files open: Flask's handler says which
            if no_space(err) or out_of_files(err):  # (507; 503 with Retry-After), not a 500
                return self.next(environ, start_response)
            raise
        except ServiceError as err:
            accept = req.headers.get("Accept")
            if operation is not None and err.status < 500 and wants_page(operation, accept):
                return self.next(environ, start_response)  # the page, with the error (format=html)
            if err.status >= 500:  # as the Flask handler (app._service_error) logs it
                log.log(err.log_level, "%s %s: %s", req.method, req.path, err.message)
            body = (err.public_message + "\n").encode("utf-8")
            headers = [
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Length", str(len(body))),
                ("Vary", "Accept"),
                *CORS_HEADERS,
                *self.headers,
            ]
            wait = retry_after(err)  # as the Flask handler (app._service_error) says it
            if wait is not None:
                headers.append(("Retry-After", wait))
            start_response(f"{err.status} {HTTP_STATUS_CODES.get(err.status, '')}", headers)
            return [b"" if req.method == "HEAD" else body]
        if answer.html:  # pragma: no cover - html was ruled out above
            return self.next(environ, start_response)
        self.answered += 1
        etag = f'"{answer.etag}"'
        headers = [("Content-Type", answer.media_type), *ANSWER_HEADERS, ("ETag", etag)]
        headers.extend(self.headers)
        if etag in req.headers.get("If-None-Match", "") or req.headers.get("If-None-Match") == "*":
            start_response("304 NOT MODIFIED", headers[1:])
            return [b""]
        headers.insert(1, ("Content-Length", str(len(answer.body))))
        start_response("200 OK", headers)
        return [b"" if req.method == "HEAD" else answer.body]

    @staticmethod
    def _mine(environ: dict[str, Any]) -> bool:
        return (
            environ.get("REQUEST_METHOD") in ("GET", "HEAD")
            and environ.get("PATH_INFO") in ("/sparql", "/sparql/")
            and "text/html" not in environ.get("HTTP_ACCEPT", "")
        )


def _query_page(
    *,
    query: str | None = None,
    table: dict | None = None,
    boolean: bool | None = None,
    text: str | None = None,
    error: str | None = None,
    at: tuple[str, int] | None = None,
) -> str:
    """The SPARQL page, with a query's result or none (every name given: an undefined
    ``boolean`` is "not none" to the template, which showed "Result: false"), or the error
    that refused the query and ``at``: the line and column it points to."""
    return render_template(
        "query.html", query=query, table=table, boolean=boolean, text=text, error=error,
        at=at, examples=example_queries(),
    )  # fmt: skip


def wants_page(operation: ProtocolRequest, accept: str | None) -> bool:
    """The client asked for the HTML page (``format=html``, a browser's Accept) whatever the
    query's form: a query that does not parse has none, so it must be HTML for both."""
    forms = ("SELECT", "CONSTRUCT")
    try:
        return all(negotiate_results(operation.formats, accept, form)[2] for form in forms)
    except ServiceError:  # a format named that no form has: not the page
        return False


def _query_error_page(query: str, err: ServiceError) -> Response:
    """The query page again for a browser, the refused query in the editor and why above it
    (before, a bare error page: the query was lost); the status kept."""
    from service.sparql.errors import SparqlSyntaxError

    cause, at = err.__cause__, None
    if isinstance(cause, SparqlSyntaxError):  # the line it points into, to mark the column
        lines = query.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if cause.line <= len(lines):
            at = (lines[cause.line - 1], cause.column)
    page = _query_page(query=query, error=err.public_message, at=at)
    response = Response(page, status=err.status, content_type="text/html; charset=utf-8")
    response.vary.add("Accept")
    if (wait := retry_after(err)) is not None:  # busy: when to try again
        response.headers["Retry-After"] = wait
    return response


def _html_results(query: str, kind: str, body: bytes) -> Response:
    table: dict | None = None
    boolean: bool | None = None
    text: str | None = None
    if kind == "triples":
        text = body.decode("utf-8")
    else:
        data = json.loads(body)
        if "boolean" in data:
            boolean = bool(data["boolean"])
        else:
            table = {
                "vars": data["head"]["vars"],
                "rows": data["results"]["bindings"],
            }
    page = _query_page(query=query, table=table, boolean=boolean, text=text)
    response = Response(page, content_type="text/html; charset=utf-8")
    response.vary.add("Accept")
    return response


# --- service description -------------------------------------------------------------------

SD_OFFERS = (conneg.HTML, *conneg.TRIPLES)


def service_description() -> Response:
    state = services()
    rep = conneg.negotiate(request, SD_OFFERS, default=conneg.RDF["turtle"])
    if rep is conneg.HTML:
        page = _query_page()  # no query yet: no result
        response = Response(page, content_type="text/html; charset=utf-8")
    elif rep.rdf is not None:  # every other offer is an RDF syntax
        from service.web.rdf_out import serialize

        body = serialize(
            description_quads(), rep.rdf, context_url=state.config.base + "context.jsonld"
        )
        response = Response(body, content_type=rep.media_type + "; charset=utf-8")
    response.vary.add("Accept")
    return response


MAX_LISTED_GRAPHS = 1000


def description_quads() -> list:
    """The service description as pyoxigraph quads (default graph)."""
    import pyoxigraph as ox

    from service.web.describe import withdrawn_graphs

    state = services()
    sd = "http://www.w3.org/ns/sparql-service-description#"
    rdf_type = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    comment = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#comment")
    title = ox.NamedNode("http://purl.org/dc/terms/title")
    service = ox.NamedNode(state.config.sparql_url + "#service")
    dataset = ox.BlankNode("dataset")
    default_graph = ox.BlankNode("default")

    def n(local: str) -> ox.NamedNode:
        return ox.NamedNode(sd + local)

    out = [
        ox.Quad(service, rdf_type, n("Service")),
        ox.Quad(service, n("endpoint"), ox.NamedNode(state.config.sparql_url)),
        ox.Quad(service, n("supportedLanguage"), n("SPARQL11Query")),
        ox.Quad(service, title, ox.Literal("GERBIL QA public SPARQL endpoint")),
        ox.Quad(
            service,
            comment,
            ox.Literal(
                "Read-only. Only public graphs are named graphs (vocabulary, catalogue, "
                "datasets, published experiments, withdrawn ones too). The default graph holds "
                "their triples less what only a withdrawn experiment's graph holds (that graph "
                "stays whole: read it with GRAPH or FROM NAMED), so it is not their union and "
                "sd:UnionDefaultGraph is not claimed. "
                f"Limits: {state.config.sparql_timeout:g} s per query, "
                f"{state.config.sparql_max_bytes} bytes per result, queries up to "
                f"{state.config.sparql_max_query_bytes} bytes and "
                f"{state.config.sparql_max_depth} levels of nesting. SERVICE is not allowed.",
                language="en",
            ),
        ),
        ox.Quad(service, n("defaultDataset"), dataset),
        ox.Quad(dataset, rdf_type, n("Dataset")),
        ox.Quad(dataset, n("defaultGraph"), default_graph),
        ox.Quad(default_graph, rdf_type, n("Graph")),
        ox.Quad(
            default_graph,
            comment,
            ox.Literal(
                "The triples of the named graphs listed, less those that only withdrawn "
                "experiments' graphs hold; with each withdrawal's note (gqa:withdrawnAt, "
                "gqa:withdrawalReason).",
                language="en",
            ),
        ),
    ]
    for name in FORMAT_IRIS.values():
        out.append(ox.Quad(service, n("resultFormat"), ox.NamedNode(FORMATS_NS + name)))
    # the VoID description of what it serves, and the shapes its data conforms to
    also = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#seeAlso")
    for path in (".well-known/void", "shapes"):
        out.append(ox.Quad(service, also, ox.NamedNode(state.config.base + path)))
    graphs = sorted(state.view.graphs)
    withdrawn = {g.value for g in withdrawn_graphs(state.storage.public)}
    for index, graph in enumerate(graphs[:MAX_LISTED_GRAPHS]):
        node = ox.BlankNode(f"g{index}")
        out.append(ox.Quad(dataset, n("namedGraph"), node))
        out.append(ox.Quad(node, rdf_type, n("NamedGraph")))
        out.append(ox.Quad(node, n("name"), ox.NamedNode(graph)))
        if graph in withdrawn:  # what its graph holds, which the default graph left out
            described = ox.BlankNode(f"w{index}")
            out.append(ox.Quad(node, n("graph"), described))
            out.append(ox.Quad(described, rdf_type, n("Graph")))
            out.append(
                ox.Quad(
                    described,
                    comment,
                    ox.Literal(
                        "A withdrawn experiment's graph, whole: the default graph holds only "
                        "its withdrawal note and what other listed graphs also hold.",
                        language="en",
                    ),
                )
            )
    if len(graphs) > MAX_LISTED_GRAPHS:
        out.append(
            ox.Quad(
                dataset,
                comment,
                ox.Literal(
                    f"{len(graphs)} named graphs; the first {MAX_LISTED_GRAPHS} are listed. "
                    "SELECT DISTINCT ?g { GRAPH ?g {} } lists them all."
                ),
            )
        )
    return out


# --- example queries for the HTML page -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExampleQuery:
    title: str
    text: str


def example_queries() -> tuple[ExampleQuery, ...]:
    from service.web.examples import examples_for

    return examples_for(services().config.base)
