"""The one error the SPARQL parser raises, with the position and what the grammar expected."""

from __future__ import annotations


class SparqlSyntaxError(ValueError):
    """A query that is not SPARQL 1.1 (or not even the lenient dialect's superset of it).

    ``line`` and ``column`` are 1-based and count characters (code points); ``offset`` is the
    0-based character offset into the query text. ``expected`` names what the grammar allowed
    at that point (``"'}' or a triple pattern"``) when the error is a plain syntax error, and is
    ``None`` for a rule that is not a grammar production (such as SPARQL 1.1 §18.2.1 scoping).

    Not a ``service.errors.ServiceError``: that module imports ``dataclasses``, which alone
    would take most of this package's import budget. ``status`` says how the web layer
    should answer it all the same.
    """

    status = 400

    def __init__(
        self,
        message: str,
        *,
        line: int,
        column: int,
        offset: int,
        expected: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        self.expected = expected

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only constructor: teach pickle (multiprocessing, caches) how to rebuild it.
        return (_rebuild, (self.message, self.line, self.column, self.offset, self.expected))


def _rebuild(
    message: str, line: int, column: int, offset: int, expected: str | None
) -> SparqlSyntaxError:
    return SparqlSyntaxError(message, line=line, column=column, offset=offset, expected=expected)


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of ``offset`` in ``text``; CR LF, CR and LF all end a line."""
    offset = max(0, min(offset, len(text)))
    head = text[:offset]
    line = head.count("\n") + 1
    start = head.rfind("\n") + 1
    if "\r" in head:
        # Lone CRs also end lines (SPARQL's WS includes #xD; old Mac files use it alone).
        lone = head.replace("\r\n", "\n")
        line = lone.count("\n") + lone.count("\r") + 1
        start = max(head.rfind("\n"), head.rfind("\r")) + 1
    return line, offset - start + 1
