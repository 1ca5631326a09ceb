"""The KB protocol over a :class:`~service.kb.executor.SparqlExecutor`: every query in a worker
process killed at the time limit (an endpoint: an HTTP time limit), its rows and bytes bounded.

What reference systems ask in a run: ``gold-sparql`` runs the dataset's gold queries, and
anyone may upload the dataset, so its queries are bounded as a Text2SPARQL system's are (in the
service's own process, one that joined the KB with itself five times held a runner for hours,
and a cancel could not stop it). A query that fails is that question's failure, saying why.
"""

from __future__ import annotations

from service.errors import BadRequest
from service.kb.batched import BatchedSparqlKB
from service.kb.executor import SparqlExecutor
from service.model import AnswerSet


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

    def close(self) -> None:
        self.executor.close()
