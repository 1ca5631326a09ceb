"""A knowledge base in a local, in-memory Oxigraph store, loaded from RDF files: what
:func:`service.kb.open.open_kb` and ``gerbil-qa evaluate --kb FILE`` give for files.

Its identity is the SHA-256 of the files' contents (so a changed file is another KB, and the
disk cache never mixes them up); its version is the one given, else an ``owl:versionInfo`` or
``dct:hasVersion`` the data states about a ``void:Dataset`` or ``owl:Ontology``, else unknown.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from service.errors import BadRequest, FormatError, Problem
from service.kb.batched import DEFAULT_BATCH_SIZE, BatchedSparqlKB
from service.kb.cache import LookupCache
from service.kb.casts import custom_functions
from service.mediatypes import rdf_by_extension
from service.model import XSD_STRING, AnswerSet, Term, TermKind

if TYPE_CHECKING:
    import pyoxigraph

# Extensions the media-type table does not list but RDF dumps commonly use.
_EXTRA_EXTENSIONS = {"owl": "rdf", "xml": "rdf", "n3": "ttl"}

_VERSION_QUERY = """
SELECT ?v WHERE {
  VALUES ?class { <http://rdfs.org/ns/void#Dataset> <http://www.w3.org/2002/07/owl#Ontology> }
  VALUES ?p { <http://www.w3.org/2002/07/owl#versionInfo> <http://purl.org/dc/terms/hasVersion> }
  ?d a ?class ; ?p ?v .
} ORDER BY STR(?v) LIMIT 1
"""


def _syntax_for(path: Path) -> pyoxigraph.RdfFormat:
    name = path.name.lower().removesuffix(".gz")
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    syntax = rdf_by_extension(_EXTRA_EXTENSIONS.get(ext, ext))
    if syntax is None:
        raise FormatError(
            Problem(
                f"cannot tell the RDF syntax of {path.name!r} from its extension",
                file=str(path),
                expected="one of .ttl .nt .nq .trig .rdf .owl .jsonld (optionally .gz)",
            )
        )
    return syntax.oxigraph_format()


def files_identity(paths: Sequence[Path]) -> str:
    """``file:sha256:<hex>`` over the files' bytes, whatever their order: the KB is their
    union (the same two files named in another order were another KB, whose results a
    comparison refused to set beside the first's)."""
    return digests_identity(hashlib.sha256(path.read_bytes()).hexdigest() for path in paths)


def digests_identity(sha256s: Iterable[str]) -> str:
    """:func:`files_identity` from the files' SHA-256s (hex): the SHA-256 over their sorted
    digests, so a reader holding the files' checksums checks the KB a result names."""
    digest = hashlib.sha256()
    for each in sorted(bytes.fromhex(sha) for sha in sha256s):
        digest.update(each)
    return f"file:sha256:{digest.hexdigest()}"


class LocalKB(BatchedSparqlKB):
    """The KB protocol over an in-memory Oxigraph store holding the given RDF files."""

    def __init__(
        self,
        files: Sequence[str | Path],
        *,
        version: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        cache: LookupCache | None = None,
    ) -> None:
        import pyoxigraph

        super().__init__(batch_size=batch_size, cache=cache)
        self.files = tuple(Path(f) for f in files)
        if not self.files:
            raise BadRequest("a local KB needs at least one RDF file")
        self.store = pyoxigraph.Store()
        for path in self.files:
            self._load(path)
        self._identity = files_identity(self.files)
        self._version = version if version is not None else self._declared_version()

    @property
    def identity(self) -> str:
        return self._identity

    @property
    def version(self) -> str | None:
        return self._version

    def _load(self, path: Path) -> None:
        if not path.is_file():
            raise FormatError(Problem("KB file not found", file=str(path)))
        data = path.read_bytes()
        if path.name.lower().endswith(".gz"):
            data = gzip.decompress(data)
        try:
            self.store.load(input=data, format=_syntax_for(path), base_iri=path.resolve().as_uri())
        except SyntaxError as err:
            raise FormatError(
                Problem(
                    f"not valid RDF: {err.msg}", file=str(path), line=err.lineno, column=err.offset
                )
            ) from err

    def _declared_version(self) -> str | None:
        for row in self._execute(_VERSION_QUERY).rows:
            return row["v"].value
        return None

    def _execute(self, sparql: str) -> AnswerSet:
        import pyoxigraph

        try:
            result = self.store.query(
                sparql, use_default_graph_as_union=True, custom_functions=custom_functions()
            )
            if isinstance(result, pyoxigraph.QueryBoolean):
                return AnswerSet(boolean=bool(result))
            if not isinstance(result, pyoxigraph.QuerySolutions):
                raise BadRequest("only SELECT and ASK queries can be run against a KB")
            names = tuple(v.value for v in result.variables)
            rows = []
            for solution in result:
                row: dict[str, Term] = {}
                for name in names:
                    term = solution[name]
                    if term is not None:
                        row[name] = term_from_oxigraph(term)
                rows.append(row)
        except SyntaxError as err:
            raise BadRequest(f"SPARQL syntax error: {err}") from err
        except (OSError, ValueError, TypeError, RuntimeError) as err:
            # pyoxigraph's evaluation errors (a function it does not know, a type error in an
            # aggregate): the query's failure, not the run's (a gold-sparql
            # run on CK25 ended in 'internal error' at its first such query)
            raise BadRequest(f"the KB could not evaluate the query: {err}") from err
        return AnswerSet(vars=names, rows=tuple(rows))


def term_from_oxigraph(term: object) -> Term:
    """A pyoxigraph term as a model :class:`Term`."""
    import pyoxigraph

    if isinstance(term, pyoxigraph.NamedNode):
        return Term(term.value, TermKind.IRI)
    if isinstance(term, pyoxigraph.BlankNode):
        return Term(term.value, TermKind.BNODE)
    if isinstance(term, pyoxigraph.Literal):
        if term.language:
            return Term.literal(term.value, lang=term.language)
        # A simple literal has no datatype in SPARQL JSON results; keep the two spellings equal.
        datatype = term.datatype.value
        return Term.literal(term.value, datatype=None if datatype == XSD_STRING else datatype)
    raise TypeError(f"unexpected term in query results: {term!r}")
