"""A knowledge base behind a SPARQL 1.1 endpoint (Oxigraph server, Virtuoso, Fuseki, QLever…).

Queries go through SPARQLWrapper as HTTP POST (a ``VALUES`` block of a hundred IRIs does not fit
in a URL), results come back as SPARQL JSON. Transient failures (connection errors, 5xx) are
retried with exponential backoff; a malformed query is not. The endpoint URL (plus the default
graph, when one is given) is the KB's identity; its version is what the operator declares,
because SPARQL endpoints do not state one reliably.
"""

from __future__ import annotations

import time
import urllib.error
from typing import Any

from service.errors import BadRequest, ServiceError
from service.kb.batched import DEFAULT_BATCH_SIZE, BatchedSparqlKB
from service.kb.cache import LookupCache
from service.kb.terms import answer_set_from_json
from service.model import AnswerSet


class RemoteKBError(ServiceError):
    """The endpoint could not answer (after retries); the message names it and says why."""

    status = 502


class RemoteKB(BatchedSparqlKB):
    """The KB protocol over a remote SPARQL endpoint."""

    def __init__(
        self,
        endpoint: str,
        *,
        version: str | None = None,
        default_graph: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        cache: LookupCache | None = None,
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.5,
    ) -> None:
        super().__init__(batch_size=batch_size, cache=cache)
        if not endpoint.startswith(("http://", "https://")):
            raise BadRequest(f"a SPARQL endpoint must be an http(s) URL, got {endpoint!r}")
        self.endpoint = endpoint
        self.default_graph = default_graph
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self._version = version

    @property
    def identity(self) -> str:
        if self.default_graph:
            return f"{self.endpoint}#graph={self.default_graph}"
        return self.endpoint

    @property
    def version(self) -> str | None:
        return self._version

    def _execute(self, sparql: str) -> AnswerSet:
        from SPARQLWrapper import JSON, POST, SPARQLWrapper
        from SPARQLWrapper.SPARQLExceptions import EndPointInternalError, SPARQLWrapperException

        attempt = 0
        while True:
            # One wrapper per query: SPARQLWrapper keeps the query as mutable state, so a shared
            # instance would not be thread-safe.
            client = SPARQLWrapper(self.endpoint, returnFormat=JSON)
            client.setMethod(POST)
            client.setTimeout(int(max(1, self.timeout)))
            if self.default_graph:
                client.addDefaultGraph(self.default_graph)
            client.setQuery(sparql)
            try:
                data: Any = client.queryAndConvert()
            except (EndPointInternalError, urllib.error.URLError, OSError) as err:
                if attempt >= self.retries:
                    raise RemoteKBError(
                        f"SPARQL endpoint {self.endpoint} failed after {attempt + 1} attempts: "
                        f"{_reason(err)}"
                    ) from err
                time.sleep(self.backoff * 2**attempt)
                attempt += 1
                continue
            except SPARQLWrapperException as err:
                raise BadRequest(
                    f"SPARQL endpoint {self.endpoint} refused the query: {err}"
                ) from err
            if not isinstance(data, dict):
                raise RemoteKBError(
                    f"SPARQL endpoint {self.endpoint} did not answer with SPARQL JSON results"
                )
            return answer_set_from_json(data)


def _reason(err: BaseException) -> str:
    if isinstance(err, urllib.error.URLError) and not isinstance(err, urllib.error.HTTPError):
        return f"cannot connect ({err.reason})"
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__
