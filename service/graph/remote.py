"""The remote store adapter: the two datasets in SPARQL stores the operators run.

``--store http://host:7878`` (or ``GERBIL_QA_STORE``) names the **public** dataset;
``GERBIL_QA_PRIVATE_STORE`` names a second one for the **private** dataset (unpublished
experiments and the admin graph). Two datasets, not one with access rules: the public endpoint
forwards queries to the public dataset only, so no query (``GRAPH ?g``, ``FROM NAMED``, protocol
dataset parameters) can reach a private graph, whatever the store's own access control. Each is
a store speaking SPARQL 1.1 Query, Update and the Graph Store Protocol; where they are under the
URL is a *layout* (:data:`LAYOUTS`, ``GERBIL_QA_STORE_LAYOUT``): Oxigraph's server (``query``,
``update``, ``store``) or Fuseki (``sparql``, ``update``, ``data``). Credentials (HTTP Basic):
in a URL (``http://user:password@host/``, for that dataset), else ``GERBIL_QA_STORE_USER`` and
``GERBIL_QA_STORE_PASSWORD`` (both); never printed, as URLs are named without them. A store
that does not keep what is written as written is refused when opened, with the reason
(:data:`UNFAITHFUL`: Virtuoso 7).

Every write is one SPARQL Update request (``INSERT DATA`` for added quads), which SPARQL 1.1
Update applies atomically: an experiment is written whole or not at all, whatever happens to
this process. Atomic is not isolated, though: Oxigraph's server runs updates under snapshot
isolation, so what only one process may do (give out an id, run a job) is claimed
(:mod:`service.graph.claims`). Reads are SPARQL queries whose results pyoxigraph parses, so
the repositories get the same result objects as from the embedded store; a whole graph comes
by the Graph Store Protocol as N-Triples.

Job state, kept files and archived answers are in the private dataset too
(:mod:`service.graph.workspace`), so replicas share nothing but the store; a local directory
(``GERBIL_QA_WORK_DIR``, default ``~/.local/state/gerbil-qa/HOST_PORT``) only caches kept files.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from service import jsontext
from service.errors import BadRequest, ServiceError
from service.graph.adapter import QuadReader, Side
from service.graph.dumps import CHANGE_TOKEN, STORE_MARKER
from service.graph.terms import insert_quads

ENV_PRIVATE = "GERBIL_QA_PRIVATE_STORE"
WRITE_PROBE = "urn:gerbil-qa:write-probe"  # never written: deleted to see whether writes pass
PENDING = "pending-"  # a change token written before a public write (see RemoteStore._changing)
RESULTS_JSON = "application/sparql-results+json"
N_TRIPLES = "application/n-triples"
N_QUADS = "application/n-quads"

# Where query, update and Graph Store Protocol are under a store's URL.
LAYOUTS: dict[str, tuple[str, str, str]] = {
    "oxigraph": ("query", "update", "store"),
    "fuseki": ("sparql", "update", "data"),
}

# Stores that change what is written to them, refused with the reason (tests/reliability/
# test_virtuoso.py checks each reason against the Debian package where it is installed).
UNFAITHFUL: dict[str, str] = {
    "virtuoso": (
        "Virtuoso 7 changes what is written to it: it refuses blank nodes in INSERT DATA, has "
        'no default graph to write, stores "true"^^xsd:boolean as "1" and '
        '"1"^^xsd:decimal as xsd:integer, and gives xsd:double back to 6 significant digits '
        "(0.333333: every measure) (Data Cube measures and the admin graph's flags "
        "would not read back as written); use Oxigraph's server or Fuseki"
    ),
}

# Typed literals a store must give back as given; the query that opens a store projects them.
XSD = "http://www.w3.org/2001/XMLSchema#"
PROBE_TERMS = (("true", XSD + "boolean"), ("0.3333333333333333", XSD + "double"))
_PROBE_VARS = " ".join(f"?v{i}" for i in range(len(PROBE_TERMS)))
_PROBE_VALUES = " ".join(f'"{value}"^^<{datatype}>' for value, datatype in PROBE_TERMS)
PROBE = f"SELECT * WHERE {{ VALUES ({_PROBE_VARS}) {{ ({_PROBE_VALUES}) }} }}"

_URL = re.compile(r"^https?://", re.IGNORECASE)
CONNECT_TIMEOUT = 10.0  # seconds to connect (with TLS); GERBIL_QA_STORE_TIMEOUT bounds answers


def is_remote(location: object) -> bool:
    """True for an http(s) URL (a remote store), False for a directory."""
    return isinstance(location, str) and bool(_URL.match(location))


class StoreUnavailable(ServiceError):
    """The remote store did not answer, or answered with an error."""

    status = 503
    # no answer, or a proxy's "not now" (502, 503, 504): trying again later may succeed, so a
    # run is left to a take-over rather than ended (an error the store gave stays an error)
    transient = True
    forbidden = False  # it answered 401 or 403: no retry succeeds until the operator acts

    @property
    def public_message(self) -> str:
        """Not the store's address nor its HTTP client's error (an internal host and port,
        ``HTTPConnectionPool(host='10.0.0.5', …)``): anyone reads the web's answer, the
        operator's log has the message. Still the store's fault, not the user's query."""
        if self.status == 500:
            return (
                "the triple store behind this service refused a request of this service: a "
                "defect of ours, logged for the operator"
            )
        if self.forbidden:  # "try again in a moment" sent users after what cannot succeed
            return (
                "the triple store behind this service refuses this service's requests (a "
                "read-only store, or credentials it does not accept): trying again does not "
                "help until the operator fixes it (the operator's log says which store)"
            )
        what = "did not answer" if "did not answer" in self.message else "answered wrongly"
        return (
            f"the triple store behind this service {what}; try again in a moment (the "
            "operator's log says which store and what it said)"
        )


@dataclass(frozen=True, slots=True)
class RemoteSettings:
    """How to reach the two datasets (from ``GERBIL_QA_*`` variables, see the module docstring)."""

    public: str
    private: str
    layout: str = "oxigraph"
    user: str | None = None
    password: str | None = field(default=None, repr=False)  # never in a log (explore52 F3)
    timeout: float = 60.0
    work_dir: Path | None = None

    # credentials given in a URL, by the URL without them (what every message names)
    url_credentials: Mapping[str, tuple[str, str]] = field(default_factory=dict, repr=False)

    def credentials(self, url: str) -> tuple[str, str] | None:
        """Who a dataset's requests are sent as: its URL's user, else the settings'."""
        found = self.url_credentials.get(url)
        if found is None and self.user is not None:
            found = (self.user, self.password or "")
        return found

    @classmethod
    def from_env(cls, public: str, env: Mapping[str, str] | None = None) -> RemoteSettings:
        env = os.environ if env is None else env
        given: dict[str, tuple[str, str]] = {}
        public = without_credentials(public, given)
        private = without_credentials(env.get(ENV_PRIVATE, "").strip(), given)
        if not private:
            raise BadRequest(
                f"--store {public}: a remote store needs a second dataset for unpublished "
                f"experiments: set {ENV_PRIVATE} to its URL (another Oxigraph server or Fuseki "
                "dataset; the first one is what the public endpoint serves)"
            )
        if not is_remote(private):
            raise BadRequest(f"{ENV_PRIVATE}={private}: expected an http(s) URL")
        if private.rstrip("/") == public.rstrip("/"):
            raise BadRequest(
                f"{ENV_PRIVATE} names the same dataset as --store ({public}): unpublished "
                "experiments would be public"
            )
        layout = env.get("GERBIL_QA_STORE_LAYOUT", "oxigraph").strip().lower()
        if layout not in LAYOUTS:
            raise BadRequest(
                f"GERBIL_QA_STORE_LAYOUT={layout}: expected one of {', '.join(LAYOUTS)}"
            )
        raw = env.get("GERBIL_QA_STORE_TIMEOUT", "60")
        try:
            timeout = float(raw)
        except ValueError:
            timeout = math.nan
        if not timeout > 0 or math.isinf(timeout):  # 0, -1, nan reached urllib3's traceback
            raise BadRequest(f"GERBIL_QA_STORE_TIMEOUT: expected seconds > 0, got {raw!r}")
        work = env.get("GERBIL_QA_WORK_DIR", "").strip()
        return cls(
            public=public,
            private=private,
            layout=layout,
            user=env.get("GERBIL_QA_STORE_USER") or None,
            password=env.get("GERBIL_QA_STORE_PASSWORD") or None,
            timeout=timeout,
            work_dir=Path(work) if work else default_work_dir(public),
            url_credentials=given,
        )


def without_credentials(url: str, found: dict[str, tuple[str, str]]) -> str:
    """``url`` without its ``user:password@`` part, which goes into ``found`` under it."""
    from urllib.parse import unquote

    parts = urlsplit(url)
    if is_remote(url) and "@" in url[len(f"{parts.scheme}://{parts.netloc}") :]:
        # a password's "/", "?" or "#" ended the host early: what follows was printed as the
        # store's address (the password's tail with it), so none of the URL is named here
        raise BadRequest(
            "a store URL has '@' after its host: percent-encode the user and password "
            "(@ as %40, / as %2F, ? as %3F, # as %23, % as %25, : as %3A) or set "
            "GERBIL_QA_STORE_USER and GERBIL_QA_STORE_PASSWORD"
        )
    if not is_remote(url) or parts.username is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    bare = parts._replace(netloc=host).geturl()
    found[bare] = (unquote(parts.username), unquote(parts.password or ""))
    return bare


def default_work_dir(url: str) -> Path:
    """``$XDG_STATE_HOME/gerbil-qa/HOST_PORT_PATH`` (replicas on one machine share it)."""
    parts = urlsplit(url)
    name = re.sub(r"[^A-Za-z0-9.-]+", "_", f"{parts.hostname}_{parts.port or ''}{parts.path}")
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "gerbil-qa" / name.strip("_")


class RemoteDataset:
    """One remote dataset, read as a :class:`~service.graph.adapter.QuadReader`."""

    remote = True  # each call is a round trip: readers that can, ask for whole graphs

    def __init__(self, url: str, settings: RemoteSettings, http: Any) -> None:
        query, update, store = LAYOUTS[settings.layout]
        root = url.rstrip("/") + "/"
        self.url = url
        self.query_url = root + query
        self.update_url = root + update
        self.store_url = root + store
        self._http = http  # a urllib3 PoolManager, shared by both datasets
        self._timeout = settings.timeout
        import urllib3

        credentials = settings.credentials(url)
        # sent with every request (urllib3 drops a pool's own headers when a request has any)
        self._auth: dict[str, str] = (
            urllib3.make_headers(basic_auth=":".join(credentials)) if credentials else {}
        )

    # -- reading -------------------------------------------------------------------------
    def query(self, query: str, **options: Any) -> Any:
        """Run a query; SELECT/ASK results parsed by pyoxigraph, CONSTRUCT as a list of triples."""
        import pyoxigraph as ox

        params: list[tuple[str, str]] = []
        if options.get("default_graph") is not None:
            params += [("default-graph-uri", _iri(g)) for g in options["default_graph"]]
        if options.get("named_graphs") is not None:
            params += [("named-graph-uri", _iri(g)) for g in options["named_graphs"]]
        if options.get("use_default_graph_as_union"):
            params.append(("union-default-graph", ""))  # Oxigraph server's extension
        if options.get("base_iri"):
            query = f"BASE <{options['base_iri']}>\n{query}"
        response = self._post_query(
            query, accept=f"{RESULTS_JSON}, {N_TRIPLES};q=0.9", params=params
        )
        _raise_for(response, self.query_url)
        if _media(response) == N_TRIPLES:
            return [q.triple for q in ox.parse(response.data, format=ox.RdfFormat.N_TRIPLES)]
        _expect_results(response, self.query_url)
        return ox.parse_query_results(response.data, format=ox.QueryResultsFormat.JSON)

    def ping(self, timeout: float) -> None:
        """``ASK {}`` within ``timeout`` seconds (:class:`StoreUnavailable` if not)."""
        import urllib3

        wait = urllib3.Timeout(connect=timeout, read=timeout)
        response = self._post_query("ASK {}", accept=RESULTS_JSON, timeout=wait)
        _raise_for(response, self.query_url)
        _expect_results(response, self.query_url)

    def quads_for_pattern(
        self, subject: Any, predicate: Any, object: Any, graph_name: Any = None
    ) -> Iterator[Any]:
        import pyoxigraph as ox

        if subject is None and predicate is None and object is None:
            if isinstance(graph_name, ox.NamedNode | ox.DefaultGraph):
                return iter(self._graph(graph_name))
            if graph_name is None:
                whole = self._dataset()
                if whole is not None:
                    return iter(whole)
        # A blank node cannot be named in a query (its label would be a variable): ask for
        # every node in its place and keep the one (stores such as Oxigraph's keep labels).
        given = dict(zip("spo", (subject, predicate, object), strict=True))
        blank = {k: v for k, v in given.items() if _is_blank(v)}
        terms = {k: None if k in blank else v for k, v in given.items()}
        pattern = " ".join(f"?{k}" if v is None else str(v) for k, v in terms.items()) + " ."
        wanted = [f"?{k}" for k, v in terms.items() if v is None]
        select = " ".join(wanted) if wanted else "*"
        if isinstance(graph_name, ox.DefaultGraph):
            text = f"SELECT {select} WHERE {{ {pattern} }}"
        elif graph_name is not None:
            text = f"SELECT {select} WHERE {{ GRAPH {graph_name} {{ {pattern} }} }}"
        else:
            text = (
                f"SELECT {select} ?g WHERE {{ {{ {pattern} }} UNION "
                f"{{ GRAPH ?g {{ {pattern} }} }} }}"
            )
            if not wanted:
                text = text.replace("SELECT * ?g", "SELECT ?g")
        rows = self.query(text)
        default = ox.DefaultGraph()
        out: list[Any] = []
        for row in rows:
            s, p, o = (terms[k] or row[k] for k in ("s", "p", "o"))
            if blank and any(row[k] != v for k, v in blank.items()):
                continue
            g = graph_name if graph_name is not None else row["g"]
            out.append(ox.Quad(s, p, o, g if g is not None else default))
        return iter(out)

    def subjects_quads(self, nodes: Sequence[Any], graph_name: Any) -> list[Any]:
        """The quads of the IRIs among ``nodes`` as subjects, and of the blank nodes they link
        to, in one query (blank nodes among ``nodes`` give nothing: their quads came with the
        quads linking them). ``graph_name``: a named graph, the default graph, or None (any
        named graph).

        In one graph, a CONSTRUCT answered as N-Triples that Oxigraph parses: Python touches
        no term (the SELECT's rows cost 7 ms of Python per 1,000 quads, measured, against 0.7
        for the parse). Any graph needs each quad's graph, which a CONSTRUCT cannot give: a
        SELECT. The two branches of the UNION give each triple once (an OPTIONAL repeated a
        subject's triple with each triple of its blank node)."""
        import pyoxigraph as ox

        iris = [n for n in nodes if isinstance(n, ox.NamedNode)]
        if not iris:
            return []
        values = " ".join(str(n) for n in iris)
        pattern = "{ ?s ?p ?o } UNION { ?s ?lp ?o FILTER(isBlank(?o)) ?o ?bp ?bo }"
        if graph_name is not None:
            if isinstance(graph_name, ox.NamedNode):
                pattern = f"GRAPH {graph_name} {{ {pattern} }}"
            return self._construct(
                f"CONSTRUCT {{ ?s ?p ?o . ?o ?bp ?bo }} WHERE {{ VALUES ?s {{ {values} }} "
                f"{pattern} }}",
                graph_name,
            )
        rows = self.query(
            f"SELECT ?s ?p ?o ?bp ?bo ?g WHERE {{ VALUES ?s {{ {values} }} GRAPH ?g "
            f"{{ {pattern} }} }}"
        )
        out: dict[Any, None] = {}
        for row in rows:
            g = row["g"]
            if row["p"] is not None:
                out[ox.Quad(row["s"], row["p"], row["o"], g)] = None
            else:
                out[ox.Quad(row["o"], row["bp"], row["bo"], g)] = None
        return list(out)

    def _construct(self, query: str, graph_name: Any) -> list[Any]:
        """The triples of a CONSTRUCT as quads in ``graph_name`` (a named graph or the default
        graph), each once, parsed by Oxigraph. N-Triples in a TriG graph block are quads of
        that graph, so even the graph name is set by the parser (a third faster than a Quad
        rebuilt from each triple, measured). ``lenient``: the store's IRIs were checked when
        they were written."""
        import pyoxigraph as ox

        response = self._post_query(query, accept=N_TRIPLES)
        _raise_for(response, self.query_url)
        data = response.data
        media = _media(response)
        if media != N_TRIPLES:  # a store that answered another syntax than asked
            fmt = ox.RdfFormat.from_media_type(media)
            if fmt is None:
                raise StoreUnavailable(f"the store at {self.url} answered {media or 'no type'}")
            parsed = ox.parse(data, format=fmt)
            return list(
                dict.fromkeys(ox.Quad(q.subject, q.predicate, q.object, graph_name) for q in parsed)
            )
        if isinstance(graph_name, ox.NamedNode):
            data = b"%s {\n%s\n}" % (str(graph_name).encode(), data)
            parsed = ox.parse(data, format=ox.RdfFormat.TRIG, lenient=True)
        else:
            parsed = ox.parse(data, format=ox.RdfFormat.N_TRIPLES, lenient=True)
        return list(dict.fromkeys(parsed))

    def _graph(self, graph_name: Any) -> list[Any]:
        """A whole graph by the Graph Store Protocol (one streamed N-Triples document)."""
        import pyoxigraph as ox

        default = isinstance(graph_name, ox.DefaultGraph)
        params = [("default", "")] if default else [("graph", graph_name.value)]
        response = self._send("GET", self.store_url, params=params, accept=N_TRIPLES)
        if response.status == 404:
            return []
        _raise_for(response, self.store_url)
        return [
            ox.Quad(q.subject, q.predicate, q.object, graph_name)
            for q in ox.parse(response.data, format=ox.RdfFormat.N_TRIPLES)
        ]

    def _dataset(self) -> list[Any] | None:
        """The whole dataset as N-Quads by the Graph Store Protocol where the store offers it
        (Oxigraph, Fuseki); None where it does not (then a query reads it)."""
        import pyoxigraph as ox

        response = self._send("GET", self.store_url, accept=N_QUADS)
        if response.status != 200 or _media(response) != N_QUADS:
            return None
        return list(ox.parse(response.data, format=ox.RdfFormat.N_QUADS))

    def check_engine(self) -> None:
        """Refuse a store known to change what is written to it (:data:`UNFAITHFUL`), by the
        name in its ``Server`` header, or, where a proxy hides that header (nginx does by
        default), by what it gives back of :data:`PROBE` (by GET: Virtuoso 7 never answers a
        query POSTed as ``application/sparql-query``, so a store query would wait it out)."""
        ask = [("query", PROBE)]
        response = self._send("GET", self.query_url, params=ask, accept=RESULTS_JSON)
        server = response.headers.get("Server", "").lower()
        for name, reason in UNFAITHFUL.items():
            if name in server:
                raise BadRequest(
                    f"the store at {self.url} is {response.headers['Server']}: {reason}"
                )
        changed = _probe_changes(response)
        if changed:
            raise BadRequest(
                f"the store at {self.url} changes typed literals: {'; '.join(changed)} "
                f"(Data Cube measures and the admin graph's flags would not read back as "
                f"written; Virtuoso 7 does this, behind a proxy that hides its name); "
                f"use Oxigraph's server or Fuseki"
            )

    def check_writable(self) -> None:
        """Raise (:class:`StoreUnavailable`, saying 401 or 403) unless the dataset takes a
        SPARQL Update: a no-op one, the deletion of a triple no one writes. A read-only store
        was found out by the first publication, a 503 telling users to try again."""
        self.update(f"DELETE DATA {{ <{STORE_MARKER}> <{WRITE_PROBE}> <{WRITE_PROBE}> }}")

    def check_default_graph(self) -> None:
        """Refuse a dataset that answers queries over the union of its graphs (``oxigraph
        serve --union-default-graph``): the public default graph is kept as that union already
        (less withdrawn experiments), so each triple came twice (every listing row twice) and
        a withdrawn experiment was back. A triple of a dataset's default graph matches once
        there; by GET, as :meth:`check_engine`."""
        some = "SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(!isBlank(?s) && !isBlank(?o)) } LIMIT 1"
        found = self._get_rows(some)
        if not found:
            return
        triple = " ".join(_sparql_term(found[0][k]) for k in ("s", "p", "o"))
        rows = self._get_rows(f"SELECT (COUNT(*) AS ?n) WHERE {{ {triple} }}")
        matched = int(rows[0]["n"]["value"]) if rows else 1
        if matched > 1:
            raise BadRequest(
                f"the store at {self.url} answers queries over the union of its graphs "
                f"(one triple of its default graph matched {matched} times): this service "
                f"keeps the public default graph as the union of the public graphs itself, "
                f"so listings would show each row {matched} times and withdrawn experiments "
                f"again; run it without union-default-graph (oxigraph serve "
                f"--union-default-graph, Fuseki's tdb:unionDefaultGraph)"
            )

    def _get_rows(self, query: str) -> list[dict[str, Any]]:
        """A SELECT by GET, its JSON rows (none when the store answers something else)."""
        response = self._send("GET", self.query_url, params=[("query", query)], accept=RESULTS_JSON)
        if response.status != 200 or _media(response) != RESULTS_JSON:
            return []
        try:
            return list(jsontext.loads(response.data)["results"]["bindings"])
        except (ValueError, KeyError, TypeError):
            return []

    def contains_named_graph(self, graph_name: Any) -> bool:
        return bool(self.query(f"ASK {{ GRAPH {graph_name} {{ ?s ?p ?o }} }}"))

    def named_graphs(self) -> Iterator[Any]:
        rows = self.query("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")
        return iter([row["g"] for row in rows])

    def __iter__(self) -> Iterator[Any]:
        return self.quads_for_pattern(None, None, None)

    # -- writing -------------------------------------------------------------------------
    def update(self, text: str) -> None:
        """One SPARQL 1.1 Update request: applied whole or not at all."""
        response = self._send(
            "POST", self.update_url, body=text, content_type="application/sparql-update"
        )
        _raise_for(response, self.update_url)

    # -- HTTP (urllib3: a fourth of requests' CPU time per call, measured) ------------------
    def forward(
        self,
        query: str,
        params: Sequence[tuple[str, str]],
        accept: str,
        *,
        limit: int,
        timeout: float,
    ) -> tuple[int, str, bytes]:
        """A query sent on for the public endpoint: (status, media type, body), the body read
        up to ``limit`` bytes (:class:`ResultTooLarge` past it) within ``timeout`` seconds
        (urllib3's ``ReadTimeoutError`` past it)."""
        import urllib3

        response = self._post_query(
            query,
            accept=accept,
            params=params,
            timeout=urllib3.Timeout(connect=5.0, read=timeout),
            stream=True,
        )
        try:
            parts: list[bytes] = []
            size = 0
            for chunk in response.stream(64 * 1024):
                size += len(chunk)
                if size > limit:
                    raise ResultTooLarge(limit)
                parts.append(chunk)
            return response.status, _media(response), b"".join(parts)
        except urllib3.exceptions.ReadTimeoutError:
            raise
        except urllib3.exceptions.HTTPError as err:
            raise StoreUnavailable(f"the store at {self.url} did not answer: {err}") from err
        finally:
            response.release_conn()

    def _post_query(
        self, query: str, *, accept: str, params: Sequence[tuple[str, str]] = (), **options: Any
    ) -> Any:
        """A query sent by the protocol's POST with the query as the body (no length limit of
        a URL); ``options``: :meth:`_send`'s ``timeout`` and ``stream``."""
        return self._send(
            "POST",
            self.query_url,
            params=params,
            body=query,
            content_type="application/sparql-query",
            accept=accept,
            **options,
        )

    def _send(
        self,
        method: str,
        url: str,
        *,
        params: Sequence[tuple[str, str]] = (),
        body: str | None = None,
        content_type: str | None = None,
        accept: str = "*/*",
        timeout: Any = None,
        stream: bool = False,
    ) -> Any:
        from urllib.parse import urlencode

        import urllib3

        headers = {**self._auth, "Accept": accept}
        if content_type is not None:
            headers["Content-Type"] = f"{content_type}; charset=utf-8"
        target = f"{url}?{urlencode(params)}" if params else url
        if timeout is None:  # a connection (and its TLS handshake) is quick or never comes
            timeout = urllib3.Timeout(
                connect=min(CONNECT_TIMEOUT, self._timeout), read=self._timeout
            )
        started = time.monotonic()
        try:
            return self._http.request(
                method,
                target,
                body=body.encode("utf-8") if body is not None else None,
                headers=headers,
                timeout=timeout,
                preload_content=not stream,
                retries=False,
            )
        except urllib3.exceptions.ReadTimeoutError:
            if stream:
                raise  # the endpoint's time limit: its caller says so
            waited = time.monotonic() - started
            # a plain-HTTP server that waits out the TLS handshake: urllib3 reports it as a
            # read timeout, after the connect one
            hint = PLAIN_HTTP_HINT if url.lower().startswith("https:") else ""
            raise StoreUnavailable(
                f"the store at {self.url} did not answer within {round(waited, 1):g} s{hint}"
            ) from None
        except urllib3.exceptions.HTTPError as err:
            raise StoreUnavailable(
                f"the store at {self.url} did not answer: {err}{_tls_hint(url, err)}"
            ) from err


class ResultTooLarge(ServiceError):
    status = 413

    def __init__(self, limit: int) -> None:
        super().__init__(f"the result is larger than {limit} bytes; add a LIMIT or ask for less")


def _media(response: Any) -> str:
    return str(response.headers.get("Content-Type", "")).split(";")[0].strip()


def _probe_changes(response: Any) -> list[str]:
    """How the store's answer to :data:`PROBE` differs from the terms it was given (nothing
    for an answer that is no SPARQL JSON: the requests that follow report what is wrong)."""
    if response.status != 200 or _media(response) != RESULTS_JSON:
        return []
    try:
        row = jsontext.loads(response.data)["results"]["bindings"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return []
    changed = []
    for index, (value, datatype) in enumerate(PROBE_TERMS):
        got = row.get(f"v{index}") or {}
        got_value, got_type = got.get("value"), got.get("datatype")
        if got_type != datatype or not _same_value(str(got_value), value, datatype):
            given = f'"{value}"^^xsd:{datatype.removeprefix(XSD)}'
            back = f'"{got_value}"^^{str(got_type).replace(XSD, "xsd:")}'
            changed.append(f"{given} came back as {back}")
    return changed


def _sparql_term(value: Mapping[str, str]) -> str:
    """A SPARQL results JSON term (not a blank node) as SPARQL."""
    if value.get("type") == "uri":
        return f"<{value['value']}>"
    text = json.dumps(value["value"], ensure_ascii=False)
    if "xml:lang" in value:
        return f"{text}@{value['xml:lang']}"
    return f"{text}^^<{value.get('datatype', XSD + 'string')}>"


def _same_value(got: str, given: str, datatype: str) -> bool:
    """A double in another lexical form is the same double (``3.333333333333333E-1``)."""
    if datatype != XSD + "double":
        return got == given
    try:
        return float(got) == float(given)
    except ValueError:
        return False


PLAIN_HTTP_HINT = " (if it speaks plain HTTP, not TLS, its URL starts http://)"


def _tls_hint(url: str, err: Exception) -> str:
    """The plain-HTTP hint for an https URL whose handshake got no TLS back: a server that
    answers the ClientHello as a bad HTTP request (Oxigraph's does, at times: seen in CI)
    gives ``WRONG_VERSION_NUMBER`` at once instead of the read timeout."""
    import urllib3

    if not url.lower().startswith("https:"):
        return ""
    if isinstance(err, urllib3.exceptions.SSLError) or "WRONG_VERSION_NUMBER" in str(err):
        return PLAIN_HTTP_HINT
    return ""


def _raise_for(response: Any, url: str) -> None:
    if response.status < 400:
        return
    if response.status == 401:
        detail = (
            "it refused the credentials, or wants some: give them in the URL "
            "(http://user:password@host/) or in GERBIL_QA_STORE_USER and GERBIL_QA_STORE_PASSWORD"
        )
    elif response.status == 403:  # authenticated or not, this request is not allowed
        said = response.data.decode("utf-8", "replace").strip().splitlines()
        detail = (
            f"it forbids this request{f' (it said: {said[0][:200]})' if said else ''}: is it "
            "a read-only endpoint (a proxy letting only queries through), or are the "
            "credentials not allowed to write? This service writes to both datasets (SPARQL "
            "Update)"
        )
    elif _media(response) == "text/html":  # a proxy's error page: its title says as much
        detail = response.reason or "an HTML error page"
    else:
        text = response.data.decode("utf-8", "replace").strip().splitlines()
        detail = text[0][:300] if text else str(response.reason or response.status)
    message = f"the store at {url} answered {response.status}: {detail}"
    if response.status in (400, 422):  # it read the request and refused it: our defect
        error = StoreUnavailable(f"{message} (a request this service got wrong)", status=500)
    else:
        error = StoreUnavailable(message)
    error.transient = response.status in (502, 503, 504)
    error.forbidden = response.status in (401, 403)
    raise error


def _expect_results(response: Any, url: str) -> None:
    """A 200 that is no SPARQL results (a proxy's or web UI's HTML page: the URL or its layout
    is wrong) said so; the parser's SyntaxError came out as a traceback."""
    media = _media(response)
    if media not in (RESULTS_JSON, "application/json"):
        error = StoreUnavailable(
            f"the store at {url} answered {media or 'no media type'}, not SPARQL results: is "
            "that a SPARQL store's URL, and GERBIL_QA_STORE_LAYOUT its layout?"
        )
        error.transient = False
        raise error


def _is_blank(term: Any) -> bool:
    import pyoxigraph as ox

    return isinstance(term, ox.BlankNode)


def _iri(value: Any) -> str:
    return str(getattr(value, "value", value))


class RemoteStore:
    """A :class:`~service.graph.adapter.StoreAdapter` over two remote datasets."""

    def __init__(self, settings: RemoteSettings) -> None:
        import urllib3

        self.settings = settings
        # no proxy from the environment: the operator's store, reached as named
        http = urllib3.PoolManager(num_pools=4, maxsize=32)
        self._http = http
        # typed Any like the embedded store's (the protocol's attributes are QuadReaders)
        self.public: Any = RemoteDataset(settings.public, settings, http)
        self.private: Any = RemoteDataset(settings.private, settings, http)
        for dataset in (self.public, self.private):
            dataset.check_engine()
        self.public.check_default_graph()
        self.lock = threading.RLock()
        self.written_token: str | None = None  # the last change token this process wrote
        # the work directory is made when something is cached there (every command made it)

    @property
    def location(self) -> str:
        return self.settings.public

    @property
    def work_dir(self) -> Path | None:
        return self.settings.work_dir

    @property
    def read_only(self) -> bool:
        return False

    def check_writable(self) -> None:
        """Both datasets take writes (:meth:`RemoteDataset.check_writable`)."""
        for dataset in (self.public, self.private):
            dataset.check_writable()

    def reader(self, side: Side) -> RemoteDataset:
        return self.public if side is Side.PUBLIC else self.private

    def add(self, side: Side, quads: Iterable[Any]) -> None:
        quads = quads if isinstance(quads, Sequence) else list(quads)
        if quads:
            self._changing(side)
            self.reader(side).update(insert_quads(quads))
            self._changed(side)

    def update(self, side: Side, update: str) -> None:
        self._changing(side)
        self.reader(side).update(update)
        self._changed(side)

    @property
    def shared(self) -> bool:
        return True

    def ping(self, side: Side, timeout: float) -> None:
        self.reader(side).ping(timeout)

    # -- telling other processes that the public dataset changed -------------------------
    # Two tokens a public write: a pending one before it, a new one after. A process killed
    # between its write and the second token leaves the pending one, which the replicas treat
    # as done once it is older than their limit (``replicas.PENDING_LIMIT``): without it, they
    # would keep pages cached before the write until the next public write.
    def _changing(self, side: Side) -> None:
        if side is Side.PUBLIC:
            self._write_token(PENDING + secrets.token_hex(8))

    def _changed(self, side: Side) -> None:
        """After a public write, a new change token in the private dataset: the replicas
        (:mod:`service.web.replicas`) drop their caches when they see it."""
        if side is Side.PUBLIC:
            self._write_token(secrets.token_hex(8))

    def _write_token(self, token: str) -> None:
        marker, prop = f"<{STORE_MARKER}>", f"<{CHANGE_TOKEN}>"
        self.private.update(
            f'DELETE WHERE {{ {marker} {prop} ?t }} ;\nINSERT DATA {{ {marker} {prop} "{token}" }}'
        )
        self.written_token = token

    def change_token(self) -> str | None:
        """The newest public change token (None before the first public write)."""
        rows = self.private.query(f"SELECT ?t WHERE {{ <{STORE_MARKER}> <{CHANGE_TOKEN}> ?t }}")
        return next((row["t"].value for row in rows), None)

    @contextmanager
    def snapshot(self) -> Iterator[tuple[QuadReader, QuadReader]]:
        # Two servers offer no common snapshot: each query reads one consistent state of its
        # dataset; dumps and checks read the datasets one after the other.
        yield self.public, self.private

    def close(self) -> None:
        self._http.clear()
