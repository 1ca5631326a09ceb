"""The one table of RDF and SPARQL-results formats.

Content negotiation, format URLs (``.ttl``), ``Link: rel="alternate"`` headers, the SPARQL
endpoint and ``gerbil-qa export`` all look formats up here; no media type is spelled anywhere
else. Lookups ignore media-type parameters (``; charset=utf-8``) and case.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RdfSyntax:
    """One RDF serialisation: its name, media type, file extension and capabilities.

    ``oxigraph`` names the pyoxigraph ``RdfFormat`` member that reads and writes it; JSON-LD is
    written through pyld with our published ``@context`` instead (``oxigraph`` is still used to
    read it). ``quads`` is True when the syntax can carry named graphs.
    """

    name: str
    label: str
    media_type: str
    extension: str
    oxigraph: str
    quads: bool = False
    aliases: tuple[str, ...] = ()
    names: tuple[str, ...] = ()  # more names clients give in format= (Virtuoso, Fuseki, …)

    @property
    def media_types(self) -> tuple[str, ...]:
        return (self.media_type, *self.aliases)

    def oxigraph_format(self):  # -> pyoxigraph.RdfFormat (imported lazily: start-up time)
        import pyoxigraph

        return getattr(pyoxigraph.RdfFormat, self.oxigraph)


@dataclass(frozen=True, slots=True)
class ResultsSyntax:
    """One SPARQL query results serialisation (SELECT/ASK)."""

    name: str
    label: str
    media_type: str
    extension: str
    oxigraph: str
    aliases: tuple[str, ...] = ()
    # SPARQL clients ask for a results format whatever the query form (SPARQLWrapper sends
    # format=xml, rdflib Accept: application/sparql-results+json): the RDF syntax a CONSTRUCT or
    # DESCRIBE result then gets, as Fuseki answers (JSON -> JSON-LD, XML -> RDF/XML)
    graph_counterpart: str | None = None

    @property
    def media_types(self) -> tuple[str, ...]:
        return (self.media_type, *self.aliases)

    def oxigraph_format(self):  # -> pyoxigraph.QueryResultsFormat
        import pyoxigraph

        return getattr(pyoxigraph.QueryResultsFormat, self.oxigraph)


TURTLE = RdfSyntax(
    "turtle",
    "Turtle",
    "text/turtle",
    "ttl",
    "TURTLE",
    # Turtle is N3 without its extensions: an N3 reader reads it
    aliases=("application/x-turtle", "application/turtle", "text/n3", "text/rdf+n3"),
    names=("n3",),
)
JSON_LD = RdfSyntax(
    "jsonld",
    "JSON-LD",
    "application/ld+json",
    "jsonld",
    "JSON_LD",
    # application/json: a JSON-LD document is JSON, and a resource asked for JSON gets it, as
    # a SPARQL CONSTRUCT asked for JSON does (its results counterpart, below) and as most
    # linked-data servers answer; it was a 406 on a resource (explore45 11). An alias: the
    # answer says application/ld+json, and application/* does not pick it
    aliases=("application/x-json+ld", "application/json"),
    names=("json-ld",),
)
N_TRIPLES = RdfSyntax(
    "ntriples",
    "N-Triples",
    "application/n-triples",
    "nt",
    "N_TRIPLES",
    aliases=("text/plain",),
    names=("n-triples",),
)
RDF_XML = RdfSyntax(
    "rdfxml",
    "RDF/XML",
    "application/rdf+xml",
    "rdf",
    "RDF_XML",
    aliases=("application/xml",),
    names=("rdf+xml",),
)
N_QUADS = RdfSyntax(
    "nquads",
    "N-Quads",
    "application/n-quads",
    "nq",
    "N_QUADS",
    quads=True,
    aliases=("text/x-nquads",),
)
TRIG = RdfSyntax("trig", "TriG", "application/trig", "trig", "TRIG", quads=True)

# Order matters: it is the server's preference when a client accepts several equally.
RDF_SYNTAXES: tuple[RdfSyntax, ...] = (TURTLE, JSON_LD, N_TRIPLES, RDF_XML, N_QUADS, TRIG)

RESULTS_JSON = ResultsSyntax(
    "json",
    "SPARQL JSON",
    "application/sparql-results+json",
    "srj",
    "JSON",
    aliases=("application/json",),
    graph_counterpart="jsonld",
)
RESULTS_XML = ResultsSyntax(
    "xml",
    "SPARQL XML",
    "application/sparql-results+xml",
    "srx",
    "XML",
    aliases=("application/xml", "text/xml"),
    graph_counterpart="rdfxml",
)
RESULTS_CSV = ResultsSyntax("csv", "CSV", "text/csv", "csv", "CSV")
RESULTS_TSV = ResultsSyntax("tsv", "TSV", "text/tab-separated-values", "tsv", "TSV")

RESULTS_SYNTAXES: tuple[ResultsSyntax, ...] = (RESULTS_JSON, RESULTS_XML, RESULTS_CSV, RESULTS_TSV)

HTML = "text/html"
CSV = "text/csv"
BIBTEX = "application/x-bibtex"  # not registered with IANA; what reference managers send
LATEX = "application/x-latex"  # not registered with IANA either; the compare table for a paper
SVG = "image/svg+xml"
SHELL = "text/x-shellscript"  # an experiment's reproduce.sh (service/web/resources.py)


def bare(media_type: str) -> str:
    """``'Text/Turtle; charset=UTF-8'`` -> ``'text/turtle'``."""
    return media_type.split(";", 1)[0].strip().lower()


def rdf_by_name(name: str) -> RdfSyntax | None:
    wanted = name.strip().lower()
    return next((s for s in RDF_SYNTAXES if wanted in (s.name, s.extension)), None)


def rdf_by_extension(extension: str) -> RdfSyntax | None:
    wanted = extension.lstrip(".").lower()
    return next((s for s in RDF_SYNTAXES if s.extension == wanted), None)


def results_by_name(name: str) -> ResultsSyntax | None:
    wanted = name.strip().lower()
    return next((s for s in RESULTS_SYNTAXES if wanted in (s.name, s.extension)), None)
