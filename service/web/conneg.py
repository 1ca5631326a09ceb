"""Content negotiation, in one place (STYLE §6).

A resource offers representations (HTML, the RDF syntaxes of ``service/mediatypes.py``, CSV for
tables). The choice is, in order: a format URL's extension (``/experiment/X.ttl``), the
``?format=`` parameter (name, extension or media type), then the ``Accept`` header with q-values
(RFC 9110 §12.5.1: the most specific matching range gives an offer its quality, so
``text/turtle;q=0, */*`` refuses Turtle; ties go to the server's order). No ``Accept`` header at
all means the resource's default (Werkzeug's ``best_match`` would silently return its default
for that case, so we never rely on it). A real ``Accept`` that matches nothing gives 406.
Every negotiated response carries ``Vary: Accept`` and one ``Link: rel="alternate"`` per format.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flask import Request, Response, has_request_context, request

from service import mediatypes
from service.errors import NotFound, ServiceError


class NotAcceptable(ServiceError):
    status = 406


@dataclass(frozen=True, slots=True)
class Representation:
    """One way to serve a resource: a key, its media types (first is canonical), an extension."""

    key: str
    label: str
    media_types: tuple[str, ...]
    extension: str | None
    rdf: mediatypes.RdfSyntax | None = None

    @property
    def media_type(self) -> str:
        return self.media_types[0]


HTML = Representation("html", "HTML", (mediatypes.HTML, "application/xhtml+xml"), "html")
CSV = Representation("csv", "CSV", (mediatypes.CSV,), "csv")
# a table's rows for programs: at the page's own URL (leaderboards, comparisons) or, where the
# API already lists them, a 303 to it (systems, experiments, frozen leaderboards, the API page)
JSON = Representation("json", "JSON", ("application/json",), None)
BIBTEX = Representation("bibtex", "BibTeX", (mediatypes.BIBTEX,), "bib")
# the comparison's tables for a paper (``gerbil-qa compare --output latex``), at its page's URL
LATEX = Representation("latex", "LaTeX", (mediatypes.LATEX, "text/x-tex"), None)
RDF = {
    s.name: Representation(s.name, s.label, s.media_types, s.extension, rdf=s)
    for s in mediatypes.RDF_SYNTAXES
}
TRIPLES = tuple(RDF[s.name] for s in mediatypes.RDF_SYNTAXES if not s.quads)
QUADS = tuple(RDF[s.name] for s in mediatypes.RDF_SYNTAXES if s.quads)
EXTENSIONS = {r.extension for r in (HTML, CSV, BIBTEX, *RDF.values()) if r.extension}
# a page for people only (a form, an API's documentation): any other Accept is a 406
HTML_ONLY = (HTML,)


def offers(
    *, html: bool = True, quads: bool = False, csv: bool = False, bibtex: bool = False
) -> tuple[Representation, ...]:
    """The representations of a resource, in the server's order of preference."""
    out: list[Representation] = [HTML] if html else []
    out.extend(TRIPLES)
    if quads:
        out.extend(QUADS)
    if csv:
        out.append(CSV)
    if bibtex:
        out.append(BIBTEX)
    return tuple(out)


def split_extension(name: str) -> tuple[str, str | None]:
    """``'20240101000.ttl'`` -> ``('20240101000', 'ttl')``; unknown suffixes stay in the name."""
    stem, dot, ext = name.rpartition(".")
    if dot and stem and ext.lower() in EXTENSIONS:
        return stem, ext.lower()
    return name, None


def _by_token(offered: Sequence[Representation], token: str) -> Representation | None:
    wanted = token.strip().lower()
    bare = mediatypes.bare(wanted)
    for rep in offered:
        if wanted in (rep.key, rep.extension) or bare in rep.media_types:
            return rep
    return None


def _quality(rep: Representation, ranges: Sequence[tuple[str, float]]) -> float:
    """The q-value the client gives ``rep``: from the most specific range that matches it."""
    best_specificity, best_q = -1, 0.0
    for position, media_type in enumerate(rep.media_types):
        kind, _, sub = media_type.partition("/")
        for value, q in ranges:
            r_kind, _, r_sub = mediatypes.bare(value).partition("/")
            if r_kind == kind and r_sub == sub:
                specificity = 2
            elif position:  # an alias is matched by name only: the response has the canonical
                continue  # type, so application/* got text/html by HTML's application/xhtml+xml
            elif r_kind == "*" and r_sub in ("*", ""):
                specificity = 0
            elif r_kind == kind and r_sub == "*":
                specificity = 1
            else:
                continue
            if specificity > best_specificity or (specificity == best_specificity and q > best_q):
                best_specificity, best_q = specificity, q
    return best_q


def choose_from_accept(
    accept: str | None, offered: Sequence[Representation], *, default: Representation
) -> Representation | None:
    """The offer the ``Accept`` header prefers; ``default`` without a header; None if none fits."""
    if accept is None or not accept.strip():
        return default
    ranges: list[tuple[str, float]] = []
    for part in accept.split(","):
        if not part.strip():
            continue
        value, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            name, _, raw = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(raw.strip()), 0.0), 1.0)
                except ValueError:
                    q = 0.0  # a malformed weight counts as "not acceptable"
        ranges.append((value.lower(), q))
    # The default first, so that a plain */* (curl, most libraries) gets it.
    ordered = [default, *(r for r in offered if r != default)]
    best, best_q = None, 0.0
    for rep in ordered:
        q = _quality(rep, ranges)
        if q > best_q:
            best, best_q = rep, q
    return best


def negotiate(
    request: Request,
    offered: Sequence[Representation],
    *,
    extension: str | None = None,
    default: Representation | None = None,
) -> Representation:
    """Pick the representation for ``request`` (see the module docstring for the order)."""
    default = default or offered[0]
    if extension is not None:
        rep = _by_token(offered, extension)
        if rep is None or rep.extension != extension:
            raise NotFound(f"this resource has no .{extension} representation")
        return rep
    fmt = request.args.get("format")
    if fmt:
        rep = _by_token(offered, fmt)
        if rep is None:
            raise NotAcceptable(f"format={fmt!r} is not offered here; {_listing(offered)}")
        return rep
    rep = choose_from_accept(request.headers.get("Accept"), offered, default=default)
    if rep is None:
        raise NotAcceptable(
            f"none of the media types in Accept: {request.headers.get('Accept')} "
            f"is offered here; {_listing(offered)}"
        )
    return rep


def _listing(offered: Sequence[Representation]) -> str:
    return "available: " + ", ".join(r.media_type for r in offered)


def decorate(
    response: Response,
    *,
    url: str,
    offered: Sequence[Representation],
    chosen: Representation | None = None,
    query: str = "",
) -> Response:
    """Add ``Vary: Accept`` and the ``Link: rel="alternate"`` headers for each format URL
    (``query``: what follows each, a page's ``?page=N``).

    At a format URL (``experiment/X.ttl``: the extension chose, the request's ``Accept`` did
    not) no ``Vary: Accept`` (RFC 9110 §12.5.5: it does not vary) and a ``Link: <url>;
    rel="canonical"`` to the URI it is a representation of (RFC 6596; explore45 13, 15); so
    does the URI asked with a query that is not part of it (``?format=ttl``, a page's view
    ``?a=…&b=…``, ``?refresh=on``): one URI for every view of one resource. The URI itself
    asked as it is sends none (it is its own). Never ``rel="describedby"``: the URI is the
    document (200 by negotiation, no 303), not a thing another document describes; the HTML
    says the same with ``<link rel="canonical">`` (``base.html``)."""
    at_format_url = bool(
        chosen is not None
        and chosen.extension
        and has_request_context()
        and request.path.endswith(f".{chosen.extension}")
    )
    if not at_format_url:
        response.vary.add("Accept")
    canonical = at_format_url or (has_request_context() and not _is_canonical_target(query))
    links = [f'<{url}{query}>; rel="canonical"'] if canonical else []
    links += [
        f'<{url}.{rep.extension}{query}>; rel="alternate"; type="{rep.media_type}"'
        for rep in offered
        if rep.extension
    ]
    if links:
        existing = response.headers.get("Link")
        response.headers["Link"] = ", ".join([*([existing] if existing else []), *links])
    if chosen is not None and chosen.extension:
        response.headers.setdefault("Content-Location", f"{url}.{chosen.extension}{query}")
    return response


def _is_canonical_target(query: str) -> bool:
    """The request asked for the canonical URI itself (its query exactly ``query``, the
    ``?page=N`` of a paged resource, in any order), not a view of it."""
    from urllib.parse import parse_qsl

    asked = sorted(request.args.items(multi=True))
    return asked == sorted(parse_qsl(query.removeprefix("?"), keep_blank_values=True))
