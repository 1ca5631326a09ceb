"""What DCAT-AP 3.0.1 asks of a dataset description beyond the dataset itself.

The profile's range and controlled-vocabulary shapes check the resources a description links
to, inside the description: a language is a ``dct:LinguisticSystem`` and a concept of the EU
language authority table, a media type a ``dct:MediaType`` from IANA, a format a concept of
the EU file-type table, a theme one of the EU data themes. Every description we write (the
catalogue's, an uploaded dataset's) gets these from :func:`linked_descriptions`, so the
catalogue files name only the IRIs. Language codes map to the EU table through ISO 639-3
(``pycountry``: ``en`` -> ``ENG``, ``pt-BR`` -> ``POR``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from service.graph.terms import DCT, RDF, SKOS

if TYPE_CHECKING:  # pyoxigraph only when a description is made: the registry of ``about``
    # (service.dataset_about) reads the ADMS types below, and `evaluate` loads no RDF library
    from service.graph.nodes import Literal, NamedNode

AUTHORITY = "http://publications.europa.eu/resource/authority/"
LANGUAGES = AUTHORITY + "language"
FILE_TYPES = AUTHORITY + "file-type"
DATA_THEMES = AUTHORITY + "data-theme"
IANA_MEDIA_TYPES = "http://www.iana.org/assignments/media-types/"
# ADMS publisher types: DCAT-AP's controlled vocabulary for an agent's dct:type (a creator's,
# a publisher's), by code (the IRI's last segment) with its label.
PUBLISHER_TYPES = "http://purl.org/adms/publishertype/"
PUBLISHER_TYPE_SCHEME = PUBLISHER_TYPES + "1.0"
ADMS_PUBLISHER_TYPES = {
    "Academia-ScientificOrganisation": "Academia/Scientific organisation",
    "Company": "Company",
    "IndustryConsortium": "Industry consortium",
    "LocalAuthority": "Local authority",
    "NationalAuthority": "National authority",
    "NonGovernmentalOrganisation": "Non-governmental organisation",
    "NonProfitOrganisation": "Non-profit organisation",
    "PrivateIndividual(s)": "Private individual(s)",
    "PublicBody": "Public body",
    "RegionalAuthority": "Regional authority",
    "StandardisationBody": "Standardisation body",
    "SupraNationalAuthority": "Supra-national authority",
}

Triple = tuple["NamedNode", "NamedNode", "NamedNode | Literal"]

# Titles of the EU authority tables and labels of the concepts we use (DCAT-AP's mandatory
# shapes want a title on every skos:ConceptScheme and a skos:prefLabel on every skos:Concept).
SCHEME_TITLES = {
    LANGUAGES: "Languages (EU authority table)",
    FILE_TYPES: "File types (EU authority table)",
    DATA_THEMES: "Data themes (EU authority table)",
    AUTHORITY + "planned-availability": "Planned availability (EU authority table)",
    PUBLISHER_TYPE_SCHEME: "Publisher type (ADMS)",
}
CONCEPT_LABELS = {
    "TECH": "Science and technology",
    "STABLE": "Stable",
    "RDF_TURTLE": "RDF Turtle",
    "RDF_N_TRIPLES": "RDF N-Triples",
    "JSON_LD": "JSON-LD",
    "YAML": "YAML",
}


@lru_cache(maxsize=512)
def language_iri(code: str) -> str | None:
    """The EU language authority IRI for a language code (``en``, ``pt_BR``, ``eng``)."""
    language = _language(code)
    return f"{LANGUAGES}/{language.alpha_3.upper()}" if language is not None else None


@lru_cache(maxsize=512)
def language_code(iri: str) -> str:
    """The ISO 639-1 code (else the ISO 639-3 code) of an EU language IRI or an id.loc.gov
    ISO 639 IRI; the IRI's last segment when it is neither."""
    tail = iri.rstrip("/").rsplit("/", 1)[-1]
    language = _language(tail.lower())
    if language is None:
        return tail
    return getattr(language, "alpha_2", None) or language.alpha_3


def _language(code: str):  # -> pycountry language record | None
    import pycountry

    primary = code.strip().replace("_", "-").split("-")[0].lower()
    if len(primary) == 2:
        return pycountry.languages.get(alpha_2=primary)
    if len(primary) == 3:
        return pycountry.languages.get(alpha_3=primary)
    return None


def linked_descriptions(iris: Iterable[str]) -> list[Triple]:
    """Descriptions of the EU authority concepts (languages, file types, data themes, planned
    availability), the ADMS publisher types and the IANA media types among ``iris``: types,
    scheme, label; each once."""
    from service.graph.nodes import Literal, node

    out: list[Triple] = []
    typ, label = node(RDF + "type"), node(SKOS + "prefLabel")
    in_scheme = node(SKOS + "inScheme")
    schemes: set[str] = set()
    for value in dict.fromkeys(iris):
        subject = node(value)
        if value.startswith(LANGUAGES + "/"):
            out += [
                (subject, typ, node(DCT + "LinguisticSystem")),
                (subject, typ, node(SKOS + "Concept")),
                (subject, in_scheme, node(LANGUAGES)),
            ]
            name = _language(value.rsplit("/", 1)[1].lower())
            if name is not None:
                out.append((subject, label, Literal(name.name, language="en")))
            schemes.add(LANGUAGES)
        elif value.startswith(AUTHORITY) and value.rsplit("/", 1)[0] in SCHEME_TITLES:
            scheme, code = value.rsplit("/", 1)
            out += [
                (subject, typ, node(SKOS + "Concept")),
                (subject, in_scheme, node(scheme)),
                (subject, label, Literal(CONCEPT_LABELS.get(code, code), language="en")),
            ]
            if scheme == FILE_TYPES:
                out.append((subject, typ, node(DCT + "MediaTypeOrExtent")))
            schemes.add(scheme)
        elif value.startswith(PUBLISHER_TYPES) and value != PUBLISHER_TYPE_SCHEME:
            code = value[len(PUBLISHER_TYPES) :]
            out += [
                (subject, typ, node(SKOS + "Concept")),
                (subject, in_scheme, node(PUBLISHER_TYPE_SCHEME)),
                (subject, label, Literal(ADMS_PUBLISHER_TYPES.get(code, code), language="en")),
            ]
            schemes.add(PUBLISHER_TYPE_SCHEME)
        elif value.startswith(IANA_MEDIA_TYPES):
            out += [
                (subject, typ, node(DCT + "MediaType")),
                (subject, label, Literal(value[len(IANA_MEDIA_TYPES) :])),
            ]
    title = node(DCT + "title")
    for scheme in sorted(schemes):
        out += [
            (node(scheme), typ, node(SKOS + "ConceptScheme")),
            (node(scheme), title, Literal(SCHEME_TITLES[scheme], language="en")),
        ]
    return out


SPDX = "http://spdx.org/rdf/terms#"
DCAT = "http://www.w3.org/ns/dcat#"
XSD = "http://www.w3.org/2001/XMLSchema#"
# the EU file type of a media type (DCAT-AP's dct:format)
FILE_TYPE_OF = {
    "application/json": "JSON",
    "application/xml": "XML",
    "text/xml": "XML",  # QALD-XML's last registered type (``inputs.media_type_of``)
    "text/tab-separated-values": "TSV",
    "application/yaml": "YAML",
}


def file_distribution(
    dataset: str, url: str, sha256: str, size: int, media_type: str, description: str
) -> list[Triple]:
    """A file served at ``url`` as ``dataset``'s ``dcat:Distribution`` (``{dataset}#distribution``,
    its checksum ``…#distribution-checksum``, as the catalogue's): download and access URL,
    byte size, SHA-256, IANA media type, EU file type, availability, and what DCAT-AP asks to
    see of those concepts."""
    from service.graph.nodes import Literal, node

    d, checksum = node(dataset + "#distribution"), node(dataset + "#distribution-checksum")
    typ = node(RDF + "type")
    media = IANA_MEDIA_TYPES + media_type
    out: list[Triple] = [
        (node(dataset), node(DCAT + "distribution"), d),
        (d, typ, node(DCAT + "Distribution")),
        (d, node(DCAT + "downloadURL"), node(url)),
        (d, node(DCAT + "accessURL"), node(url)),
        (d, node(DCAT + "byteSize"), Literal(str(size), datatype=node(XSD + "nonNegativeInteger"))),
        (d, node(DCAT + "mediaType"), node(media)),
        (d, node(DCT + "description"), Literal(description, language="en")),
        (d, node("http://spdx.org/rdf/terms#checksum"), checksum),
        (checksum, typ, node(SPDX + "Checksum")),
        (checksum, node(SPDX + "algorithm"), node(SPDX + "checksumAlgorithm_sha256")),
        (checksum, node(SPDX + "checksumValue"), Literal(sha256, datatype=node(XSD + "hexBinary"))),
        (
            d,
            node("http://data.europa.eu/r5r/availability"),
            node(AUTHORITY + "planned-availability/STABLE"),
        ),
    ]
    linked = [media, AUTHORITY + "planned-availability/STABLE"]
    if (code := FILE_TYPE_OF.get(media_type)) is not None:
        out.append((d, node(DCT + "format"), node(f"{FILE_TYPES}/{code}")))
        linked.append(f"{FILE_TYPES}/{code}")
    return out + linked_descriptions(linked)
