"""Identity of IRIs without a knowledge base: spellings that name the same resource.

QA systems and gold files spell the same DBpedia resource many ways: ``<…>``-wrapped,
``https`` instead of ``http``, ``en.dbpedia.org`` for ``dbpedia.org``, the Wikipedia article URL
(``https://en.wikipedia.org/wiki/X`` is DBpedia's ``http://dbpedia.org/resource/X``; other
language editions map to ``http://xx.dbpedia.org/resource/X``), or percent-encoded and not
(``Caf%C3%A9`` / ``Café``, ``%28`` / ``(``). None of this needs a KB.

Two functions, pure and cheap:

* :func:`canonical_iri` gives the one normal form; two IRIs denote the same resource by these
  rules iff their normal forms are equal.
* :func:`canonical_iris` gives every spelling worth asking a KB about (the normal form included);
  every member has the same normal form, so two sets overlap iff the normal forms are equal.

The rules, in order:

1. Surrounding whitespace and one pair of angle brackets are stripped (QALD-7 hybrid files).
2. The scheme and host are lower-cased, default ports dropped, and ``https`` becomes ``http``
   (RFC 9110 §4.2.2 lets ``https`` name a different resource, but every KB in QA publishes its
   IRIs under ``http`` and systems switch freely).
3. Percent-escapes in the path are decoded when they stand for a character an IRI may hold
   literally (RFC 3987 §3.2: non-ASCII UTF-8; RFC 3986 §6.2.2.2: unreserved characters; and the
   sub-delimiters DBpedia writes raw, like ``'`` ``(`` ``)`` ``,``); ``%2F``, ``%3F``, ``%23``
   and ``%25`` stay encoded because decoding them changes how the IRI parses. In the query and
   fragment only unreserved and non-ASCII characters are decoded (``&``, ``=``, ``+`` separate
   parameters there). Characters an IRI may not hold (space, ``"``, ``<``…) are encoded;
   escapes use upper-case hex.
4. ``en.dbpedia.org`` is ``dbpedia.org`` (DBpedia's English chapter has no language prefix);
   ``dbpedia.org/page/X`` (the HTML page) is ``dbpedia.org/resource/X``.
5. A Wikipedia article URL (``xx.wikipedia.org/wiki/X``, mobile ``xx.m.wikipedia.org``) is the
   DBpedia resource of that edition; spaces in DBpedia and Wikipedia names are underscores.
6. A Wikidata page URL (``www.wikidata.org/wiki/Q42``, ``/wiki/Property:P31``,
   ``/wiki/Lexeme:L7``; also ``wikidata.org`` and mobile ``m.wikidata.org``) is the entity it
   is the page of, ``http://www.wikidata.org/entity/Q42`` (explore33 F3), as a DBpedia page is
   its resource.
7. The IRI is in Unicode NFC once its escapes are decoded (RFC 3987 §5.3.2.2): ``Caf\u00e9``,
   ``Cafe\u0301`` and ``Cafe%CC%81`` are one name (Wikipedia titles are NFC); and an
   internationalised host is its ASCII (punycode) form, ``müller.example`` =
   ``xn--mller-kva.example`` (IDNA, RFC 3490, the ``idna`` codec of Python; explore53 F6).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from urllib.parse import SplitResult, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
# RFC 3986 unreserved characters; in a path also the sub-delims and ':' '@' (harmless there,
# while in a query '&', '=', '+' and ';' separate parameters and stay encoded).
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_DECODABLE_IN_PATH = _UNRESERVED | frozenset("!$&'()*+,;=:@")
# Characters RFC 3987 does not allow literally in an IRI; they are always percent-encoded.
_MUST_ENCODE = frozenset(' "<>\\^`{|}') | frozenset(chr(c) for c in range(0x21)) | {"\x7f"}
_ESCAPES = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
# Language editions: ISO 639 codes, some with a suffix (``zh-yue``); not ``www``, ``live``…
_LANG = r"(?!www\.)(?P<lang>[a-z]{2,3}(?:-[a-z]+)?)"
_WIKIPEDIA = re.compile(rf"^{_LANG}\.(?:m\.)?wikipedia\.org$")
_DBPEDIA = re.compile(rf"^(?:{_LANG}\.)?dbpedia\.org$")
_RESOURCE = "/resource/"
_WIKIDATA_HOSTS = frozenset({"www.wikidata.org", "wikidata.org", "m.wikidata.org"})
_WIKIDATA_PAGE = re.compile(r"^/wiki/(?:Property:(?=P)|Lexeme:(?=L))?(?P<id>[QPL][1-9][0-9]*)$")


def strip_brackets(iri: str) -> str:
    """``' <http://x> '`` -> ``'http://x'`` (one pair of angle brackets, and whitespace)."""
    text = iri.strip()
    if len(text) >= 2 and text[0] == "<" and text[-1] == ">":
        text = text[1:-1].strip()
    return text


def _decode_run(run: str, decodable: frozenset[str]) -> str:
    """Decode one run of ``%XX`` escapes where the result may stand literally in an IRI."""
    raw = bytes(int(run[i + 1 : i + 3], 16) for i in range(0, len(run), 3))
    out: list[str] = []
    i = 0
    while i < len(raw):
        byte = raw[i]
        if byte < 0x80:
            char = chr(byte)
            out.append(char if char in decodable else f"%{byte:02X}")
            i += 1
            continue
        # A UTF-8 sequence: decode it whole, or keep its bytes escaped when it is not valid UTF-8.
        length = 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4
        chunk = raw[i : i + length]
        try:
            out.append(chunk.decode("utf-8"))
            i += length
        except UnicodeDecodeError:
            out.append(f"%{byte:02X}")
            i += 1
    return "".join(out)


def _normalise(component: str, decodable: frozenset[str] = _DECODABLE_IN_PATH) -> str:
    decoded = _ESCAPES.sub(lambda m: _decode_run(m.group(0), decodable), component)
    if not decoded.isascii():  # NFC before encoding: NFC may give an ASCII character (U+1FEF)
        decoded = unicodedata.normalize("NFC", decoded)
    if not any(c in _MUST_ENCODE for c in decoded):
        return decoded
    return "".join(f"%{ord(c):02X}" if c in _MUST_ENCODE else c for c in decoded)


def _dbpedia_host(lang: str | None) -> str:
    return "dbpedia.org" if lang in (None, "en") else f"{lang}.dbpedia.org"


# An http IRI that the rules leave as it is: lower-case host without port, not a Wikipedia or
# en.dbpedia host nor a Wikidata page, no /page/, no percent-escape, no character an IRI must
# encode, no query or fragment. Most IRIs of real files are such; tests/unit/test_kb_identity.py
# checks on every IRI of the QALD gold files, and on generated ones, that the rules indeed return
# them unchanged.
_PLAIN_HTTP_IRI = re.compile(
    r"http://(?!en\.dbpedia\.org/)(?![^/]*wikipedia\.org/)(?![^/]*wikidata\.org/wiki/)"
    r"[a-z0-9\-]+(?:\.[a-z0-9\-]+)*/"
    r"(?!page/)[^\x00-\x20%\"<>\\^`{|}?#\x7f]*"
)
_plain_http_iri = _PLAIN_HTTP_IRI.fullmatch


def is_plain_http_iri(iri: str) -> bool:
    """Whether the whole IRI is such, and in NFC: it is its own normal form (a shortcut, no
    parsing; ``str.isascii`` is a flag, so an ASCII IRI costs no normalisation check).

    The pattern's bound method is kept: under CPython 3.11, callgrind showed
    ``PATTERN.fullmatch(x)`` on a pattern imported from here binding the method anew at each
    call (about 500 instructions a call, 1% of the fair profile on QALD-9)."""
    return _plain_http_iri(iri) is not None and (
        iri.isascii() or unicodedata.is_normalized("NFC", iri)
    )


@lru_cache(maxsize=65536)
def canonical_iri(iri: str) -> str:
    """The normal form of an IRI under the module's identity rules (see the module docstring).

    >>> canonical_iri("<https://en.wikipedia.org/wiki/Caf%C3%A9>")
    'http://dbpedia.org/resource/Café'
    >>> canonical_iri("http://en.dbpedia.org/resource/Brazil_%28disambiguation%29")
    'http://dbpedia.org/resource/Brazil_(disambiguation)'

    A string that is not an absolute ``scheme:…`` IRI comes back with only rule 1 applied.
    """
    if is_plain_http_iri(iri):  # saves most of the time of large answer sets
        return iri
    return _by_the_rules(iri)


def _by_the_rules(iri: str) -> str:
    """:func:`canonical_iri` without the shortcut: every rule applied."""
    text = strip_brackets(iri)
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    scheme = parts.scheme.lower()
    if not scheme or (scheme in _DEFAULT_PORTS and not parts.netloc):
        return text
    if scheme not in _DEFAULT_PORTS:
        # Other schemes (urn:, mailto:, ftp:): only the scheme's case and NFC are normalised.
        other = urlunsplit(parts._replace(scheme=scheme))
        return other if other.isascii() else unicodedata.normalize("NFC", other)
    host = (parts.hostname or "").lower()
    if not host.isascii():  # an internationalised host: its ASCII form (rule 7)
        host = _ascii_host(host)
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if parts.username or parts.password:
        netloc = parts.netloc.rsplit("@", 1)[0] + "@" + netloc
    path = _normalise(parts.path)
    query, fragment = _normalise(parts.query, _UNRESERVED), _normalise(parts.fragment, _UNRESERVED)
    wiki = _WIKIPEDIA.match(host)
    dbp = _DBPEDIA.match(host)
    if wiki and path.startswith("/wiki/") and len(path) > len("/wiki/") and not query:
        netloc = _dbpedia_host(wiki.group("lang"))
        path = _RESOURCE + path[len("/wiki/") :].replace(" ", "_").replace("%20", "_")
    elif host in _WIKIDATA_HOSTS and (page := _WIKIDATA_PAGE.match(path)) and not query:
        netloc, path, fragment = "www.wikidata.org", "/entity/" + page.group("id"), ""
    elif dbp:
        netloc = _dbpedia_host(dbp.group("lang"))
        if path.startswith("/page/"):
            path = _RESOURCE + path[len("/page/") :]
        if path.startswith(_RESOURCE):
            path = path.replace("%20", "_")
    return urlunsplit(SplitResult("http", netloc, path, query, fragment))


def _ascii_host(host: str) -> str:
    """An internationalised host name in its ASCII form (IDNA ToASCII, which also NFKC-folds
    and lower-cases it), or NFC where it is no valid host name (an empty or too long label).

    >>> _ascii_host("müller.example"), _ascii_host("mu\u0308ller.example")
    ('xn--mller-kva.example', 'xn--mller-kva.example')
    """
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return unicodedata.normalize("NFC", host)


def _uri_form(iri: str, *, encode: str = "") -> str:
    """The IRI with non-ASCII characters (and those in ``encode``) percent-encoded as UTF-8."""
    out: list[str] = []
    for char in iri:
        if ord(char) > 0x7F or char in encode:
            out.extend(f"%{b:02X}" for b in char.encode("utf-8"))
        else:
            out.append(char)
    return "".join(out)


@lru_cache(maxsize=65536)
def canonical_iris(iri: str) -> frozenset[str]:
    """Every spelling of ``iri`` worth looking up in a KB, its normal form included.

    All members have the same :func:`canonical_iri`, so two IRIs are identical without a KB iff
    their sets overlap. For a DBpedia or Wikipedia IRI the set holds the DBpedia resource IRI
    under ``http`` and ``https``, with and without ``en.``, the Wikipedia article URL, and the
    IRI, URI and fully escaped percent-encodings of the name. For any other ``http(s)`` IRI it
    holds both schemes and both encodings, and an internationalised host in ASCII and in Unicode;
    a non-IRI string maps to itself alone.
    """
    canonical = canonical_iri(iri)
    try:
        parts = urlsplit(canonical)
    except ValueError:  # not a URL (``http://ex]ample.org/``): the IRI alone, as canonical_iri
        return frozenset({canonical})
    if parts.scheme != "http":
        return frozenset({canonical})
    encodings = {canonical, _uri_form(canonical)}
    dbp = _DBPEDIA.match(parts.hostname or "")
    if dbp and parts.path.startswith(_RESOURCE) and not parts.query and not parts.fragment:
        # Older DBpedia releases and many systems escape sub-delimiters in resource names too.
        prefix, name = canonical[: canonical.index(_RESOURCE)], parts.path[len(_RESOURCE) :]
        encodings.add(prefix + _RESOURCE + _uri_form(name, encode="!$&'()*+,;=:@"))
    spellings: set[str] = set()
    for form in encodings:
        rest = form[len("http://") :]
        spellings.update((form, "https://" + rest))
        if dbp:
            lang = dbp.group("lang") or "en"
            name_and_more = rest.split(_RESOURCE, 1)[1] if _RESOURCE in rest else None
            if lang == "en":
                spellings.update(("http://en." + rest, "https://en." + rest))
            if name_and_more and "?" not in name_and_more and "#" not in name_and_more:
                wiki = f"{lang}.wikipedia.org/wiki/{name_and_more}"
                spellings.update(("https://" + wiki, "http://" + wiki))
    host = parts.hostname or ""
    if "xn--" in host:  # a KB may write an internationalised host in Unicode (rule 7)
        try:
            unicode_host = host.encode("ascii").decode("idna")
        except UnicodeError:
            unicode_host = host
        if unicode_host != host:
            spellings.update([x.replace("//" + host, "//" + unicode_host, 1) for x in spellings])
    return frozenset(spellings)
