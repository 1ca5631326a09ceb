"""The KB protocol over a :class:`~service.kb.executor.SparqlExecutor`: every query in a worker
process killed at the time limit (an endpoint: an HTTP time limit), its rows and bytes bounded.

What ``gold-sparql`` asks in a run: it runs the dataset's gold queries, and anyone may upload
the dataset, so they are bounded as a Text2SPARQL system's queries are (in the service's own
process, one that joined the KB with itself five times held a runner for hours, and a cancel
could not stop it). A query that fails is that question's failure, saying why. The lookups of
the service's own code (the baseline's label index, matching) stay on the in-process KB: they
read every label of a large KB at once, past any bound a query from outside should have.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from service.errors import BadRequest
from service.kb.batched import BatchedSparqlKB
from service.kb.executor import SparqlExecutor
from service.model import AnswerSet


@contextmanager
def bounded(kb: Any) -> Iterator[BoundedKB]:
    """``kb`` (a :class:`~service.kb.local.LocalKB` or :class:`~service.kb.remote.RemoteKB`)
    asked through a :class:`SparqlExecutor` on the same files or endpoint, closed after."""
    sources = [str(f) for f in kb.files] if hasattr(kb, "files") else [kb.endpoint]
    executor = SparqlExecutor(sources, version=kb.version)
    try:
        yield BoundedKB(executor)
    finally:
        executor.close()


class BoundedKB(BatchedSparqlKB):
    def __init__(self, executor: SparqlExecutor) -> None:
        super().__init__()
        self.executor = executor

    @property
    def identity(self) -> str:
        return self.executor.identity

    @property
    def version(self) -> str | None:
        return self.executor.version

    def _execute(self, sparql: str) -> AnswerSet:
        result = self.executor.run(sparql)
        if result.failure is not None:
            raise BadRequest(f"the KB could not evaluate the query: {result.failure}")
        return result.answers
