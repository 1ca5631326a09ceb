"""Which RDF terms a strict parser accepts, and the rule that maps any other term to one.

Real answer files hold terms no strict RDF client reads: ``rdf:langString`` literals without
a language (264 of them in KGQAn's QALD-9 answers), ill-formed typed literals
(``"1920-10-8"^^xsd:date``, ``"-44-3-1"^^xsd:date``), malformed language tags, datatype and
resource IRIs with spaces. This module is the one place that says what is valid and what is
stored instead. Readers call :func:`valid_term` to warn, with the position, about every term
that will be stored differently; the RDF writers (``service/graph/nodes.py``) call it on every
answer term and literal they write, so nothing invalid reaches the store.

The model keeps the term as the file gave it (``service/model.py``): the scorer profiles see
the file's values, so mapping a term for storage never changes a score.

What is valid (what pyoxigraph's strict parser and the XSD 1.1 lexical spaces accept):

- an IRI: RFC 3987 (scheme, authority with a numeric port and a bracketed IPv6 or IPvFuture
  host, characters of each part, ``%HH`` escapes, private-use characters only in the query);
- a language tag: a well-formed BCP 47 tag (RFC 5646 §2.1, including the grandfathered tags);
- a typed literal of an XSD datatype listed here (``_PATTERNS``, ``INTEGER_BOUNDS``): a
  lexical form in the datatype's lexical space (range bounds of the integer types, days of the
  month, leap years);
  literals of other datatypes are not checked (their lexical space is not known here);
- text without lone UTF-16 surrogates (which UTF-8 cannot encode) and without the characters
  XML 1.0 cannot carry, not even as a character reference (§2.2 Char: U+0000-U+0008, U+000B,
  U+000C, U+000E-U+001F, U+FFFE, U+FFFF), which would make every RDF/XML document, SPARQL XML
  result and HTML page holding the value not well-formed; tab, LF and CR are text.

The rule for everything else (:func:`valid_term`), in order:

1. A lone surrogate or a character XML cannot carry becomes U+FFFD (the Unicode replacement
   character).
2. An IRI in angle brackets (``"<http://…>"``) or with surrounding spaces loses them; an IRI
   that is still not valid, and a blank node, become a plain literal of the value.
3. A language tag with ``_`` for ``-`` (``pt_BR``) is spelled with ``-``; a tag that is still
   not well-formed is dropped (the literal becomes an ``xsd:string``).
4. A datatype written as a prefixed name of a prefix every RDF syntax binds alike (``xsd:``,
   ``xs:``, ``rdf:``, ``rdfs:``, ``owl:``, in any case: ``"xsd:boolean"``, as SPARQL JSON results
   are sometimes written) is expanded to its IRI when that names a datatype of the namespace,
   and dropped (``xsd:string``) when it names none (``xsd:foo``, ``xsd:Integer``, ``xsd:``):
   read as an IRI (scheme ``xsd``) it names no datatype anyone means;
   ``rdf:langString`` (or ``rdf:dirLangString``) without a language becomes ``xsd:string``;
   a datatype that is not a valid IRI is dropped (``xsd:string``).
5. An ill-formed lexical form is repaired when the repair is unambiguous: surrounding
   whitespace removed (XSD's whitespace "collapse"), ``True``/``FALSE`` lower-cased for
   ``xsd:boolean``, a date, dateTime, gYearMonth or gYear of a year 1 or later with unpadded
   fields zero-padded (``1920-10-8`` -> ``1920-10-08``), and a date or dateTime given with a
   space instead of ``T``; the result must be valid. Anything else, including dates before
   year 1 (XSD 1.0 and 1.1 disagree on what ``-0044`` means), becomes a plain literal of the
   value as written (``"-44-3-1"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from service.model import RDF, RDF_LANGSTRING, XSD, XSD_STRING, Term, TermKind

RDF_DIRLANGSTRING = RDF + "dirLangString"
_CACHED_LENGTH = 300  # longer values (gold queries, comments) are checked but not cached

# --- IRIs (RFC 3987) -------------------------------------------------------------------------

# Non-ASCII characters are classified first (``_ascii_form``), so the grammar below is an
# ASCII regex: Unicode ranges repeated in every part made compiling it cost ~100 ms at import.
_UCS_RANGES = (
    (0xA0, 0xD7FF),
    (0xF900, 0xFDCF),
    (0xFDF0, 0xFFEF),
    *((plane, plane + 0xFFFD) for plane in range(0x10000, 0xE0000, 0x10000)),
    (0xE1000, 0xEFFFD),
)
_PRIVATE_RANGES = ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))
_UCS_MARK, _PRIVATE_MARK, _BAD_MARK = "u", "\x01", " "


def _ascii_form(value: str) -> str:
    """``value`` with each non-ASCII character replaced by ``u`` (RFC 3987 ucschar), ``\\x01``
    (iprivate, allowed in the query only) or a space (allowed nowhere)."""
    out = []
    for ch in value:
        code = ord(ch)
        if code < 0x80:
            out.append(ch)
        elif 0xA0 <= code <= 0xD7FF or _in(code, _UCS_RANGES):  # the first: most text
            out.append(_UCS_MARK)
        elif _in(code, _PRIVATE_RANGES):
            out.append(_PRIVATE_MARK)
        else:
            out.append(_BAD_MARK)
    return "".join(out)


def _in(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(low <= code <= high for low, high in ranges)


_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
# A bracketed host is matched loosely here and checked by ``_valid_ip_literal``.
_IP_LITERAL = r"\[(?P<ip>[0-9A-Za-z\-._~!$&'()*+,;=:]*)\]"
_AUTHORITY = (
    rf"(?:(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*@)?"
    rf"(?:{_IP_LITERAL}|(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})*)"
    r"(?::[0-9]*)?"
)
_IRI_PATTERN = (
    r"[A-Za-z][A-Za-z0-9+\-.]*:"
    rf"(?://{_AUTHORITY}(?:/{_PCHAR}*)*|/(?:{_PCHAR}+(?:/{_PCHAR}*)*)?|{_PCHAR}+(?:/{_PCHAR}*)*)?"
    rf"(?:\?(?:{_PCHAR}|[/?\x01])*)?"
    rf"(?:#(?:{_PCHAR}|[/?])*)?"
)


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str]:
    """Patterns are compiled when first used: compiling all of them costs ~50 ms, too much
    for the start-up of ``gerbil-qa evaluate``, and most files need two or three."""
    return re.compile(pattern)


# Most IRIs need neither user info nor an IP literal: this pattern (ASCII classes, no nesting;
# ``%`` escapes checked apart) accepts them and compiles and runs several times faster than
# the grammar below, which decides the rest.
_PLAIN_PCHAR = "A-Za-z0-9\\-._~!$&'()*+,;=:@%"
_PLAIN_IRI = (
    r"[A-Za-z][A-Za-z0-9+\-.]*:"
    rf"(?://[A-Za-z0-9\-._~!$&'()*+,;=%]*(?::[0-9]*)?(?:/[{_PLAIN_PCHAR}/]*)?"
    rf"|(?!//)[{_PLAIN_PCHAR}/]*)"
    rf"(?:\?[{_PLAIN_PCHAR}/?\x01]*)?(?:#[{_PLAIN_PCHAR}/?]*)?"
)
_BAD_ESCAPE = "%(?![0-9A-Fa-f]{2})"


@lru_cache(maxsize=1 << 14)
def is_valid_iri(value: str) -> bool:
    """An absolute IRI (RFC 3987) as pyoxigraph's strict parser accepts it."""
    form = value if value.isascii() else _ascii_form(value)
    if _compiled(_PLAIN_IRI).fullmatch(form) is not None:
        return "%" not in form or _compiled(_BAD_ESCAPE).search(form) is None
    if ":" not in form:  # no scheme: refused without compiling the grammar (~0.5 ms)
        return False
    match = _compiled(_IRI_PATTERN).fullmatch(form)
    return match is not None and (match["ip"] is None or _valid_ip_literal(match["ip"]))


_IPV_FUTURE = r"[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+"


def _valid_ip_literal(text: str) -> bool:
    """An IPv6 address (RFC 4291 text form, no zone) or an IPvFuture literal."""
    if _compiled(_IPV_FUTURE).fullmatch(text):
        return True
    import ipaddress

    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return "%" not in text


# --- language tags (BCP 47) ------------------------------------------------------------------

_ALNUM = "[A-Za-z0-9]"
_LANGTAG = (
    r"(?:[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4}|[A-Za-z]{5,8})"  # language, extlang
    r"(?:-[A-Za-z]{4})?"  # script
    r"(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"  # region
    rf"(?:-(?:{_ALNUM}{{5,8}}|[0-9]{_ALNUM}{{3}}))*"  # variants
    rf"(?:-[0-9A-WYZa-wyz](?:-{_ALNUM}{{2,8}})+)*"  # extensions
    rf"(?:-[xX](?:-{_ALNUM}{{1,8}})+)?"  # private use
    rf"|[xX](?:-{_ALNUM}{{1,8}})+"  # private use only
)
# RFC 5646 §2.2.8: grandfathered tags, well-formed though they do not follow the grammar.
_GRANDFATHERED = frozenset(
    (
        *("en-gb-oed", "i-ami", "i-bnn", "i-default", "i-enochian", "i-hak", "i-klingon"),
        *("i-lux", "i-mingo", "i-navajo", "i-pwn", "i-tao", "i-tay", "i-tsu", "sgn-be-fr"),
        *("sgn-be-nl", "sgn-ch-de", "art-lojban", "cel-gaulish", "no-bok", "no-nyn"),
        *("zh-guoyu", "zh-hakka", "zh-min", "zh-min-nan", "zh-xiang"),
    )
)


def is_valid_language_tag(tag: str) -> bool:
    """A well-formed BCP 47 language tag (RFC 5646 §2.1; case-insensitive)."""
    return _compiled(_LANGTAG).fullmatch(tag) is not None or tag.lower() in _GRANDFATHERED


def is_asked_language_tag(tag: str) -> bool:
    """Whether a dataset's texts tagged ``tag`` are a language a run asks in: a well-formed BCP
    47 tag once ``_`` is ``-`` (QALD's ``pt_BR``) that begins with an ISO 639 code, as ``--lang``
    takes it. ``en--US`` or ``123`` is none: ``--lang`` refuses it, ``all`` skips its texts and a
    bare ``en`` does not take them as a regional text (explore53 F5)."""
    made = tag.strip().replace("_", "-")
    return is_valid_language_tag(made) and _compiled(_ASKED).fullmatch(made) is not None


_ASKED = "[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*"  # run.check_spec's LANGUAGE_TAG


def language_tag(raw: str) -> str | None:
    """The tag to store for ``raw`` (rule 3): as given, or with ``-`` for ``_`` and surrounding
    spaces removed; None when it is still not well-formed."""
    if is_valid_language_tag(raw):
        return raw
    tag = raw.strip().replace("_", "-")
    return tag if is_valid_language_tag(tag) else None


# --- XSD lexical spaces (XSD 1.1 Part 2) -----------------------------------------------------

_TZ = r"(?:Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))"
_YEAR = r"-?(?:[1-9][0-9]{3,}|0[0-9]{3})"
_MONTH = r"(?:0[1-9]|1[0-2])"
_DAY = r"(?:0[1-9]|[12][0-9]|3[01])"
_TIME = r"(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?|24:00:00(?:\.0+)?)"
_SECONDS = r"[0-9]+(?:\.[0-9]+)?S"
_DUR_TIME = rf"T(?:[0-9]+H(?:[0-9]+M)?(?:{_SECONDS})?|[0-9]+M(?:{_SECONDS})?|{_SECONDS})"
_DUR_DATE = r"(?:[0-9]+Y(?:[0-9]+M)?(?:[0-9]+D)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)"
_DECIMAL = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_INTEGER = r"[+-]?[0-9]+"
_B64 = "[A-Za-z0-9+/]"

_PATTERNS: dict[str, str] = {
    "boolean": r"true|false|1|0",
    "decimal": _DECIMAL,
    "integer": _INTEGER,
    "double": rf"{_DECIMAL}(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN",
    "float": rf"{_DECIMAL}(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN",
    "date": rf"(?P<y>{_YEAR})-(?P<m>{_MONTH})-(?P<d>{_DAY}){_TZ}?",
    "dateTime": rf"(?P<y>{_YEAR})-(?P<m>{_MONTH})-(?P<d>{_DAY})T{_TIME}{_TZ}?",
    "dateTimeStamp": rf"(?P<y>{_YEAR})-(?P<m>{_MONTH})-(?P<d>{_DAY})T{_TIME}{_TZ}",
    "time": rf"{_TIME}{_TZ}?",
    "gYear": rf"{_YEAR}{_TZ}?",
    "gYearMonth": rf"{_YEAR}-{_MONTH}{_TZ}?",
    "gMonth": rf"--{_MONTH}{_TZ}?",
    "gDay": rf"---{_DAY}{_TZ}?",
    "gMonthDay": rf"--(?P<m>{_MONTH})-(?P<d>{_DAY}){_TZ}?",
    "duration": rf"-?P(?:{_DUR_DATE}(?:{_DUR_TIME})?|{_DUR_TIME})",
    "yearMonthDuration": r"-?P(?:[0-9]+Y(?:[0-9]+M)?|[0-9]+M)",
    "dayTimeDuration": rf"-?P(?:[0-9]+D(?:{_DUR_TIME})?|{_DUR_TIME})",
    "hexBinary": r"(?:[0-9A-Fa-f]{2})*",
    "base64Binary": (
        rf"(?:(?:{_B64} ?){{4}})*(?:(?:{_B64} ?){{3}}{_B64}|(?:{_B64} ?){{2}}[AEIMQUYcgkosw048] ?="
        rf"|{_B64} ?[AQgw] ?= ?=)?"
    ),
    "normalizedString": r"[^\r\n\t]*",
    "token": r"(?:[^\s](?:[^\r\n\t ]| (?! ))*[^\s]|[^\s])?",
    "language": r"[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*",
}
# Integer types and their bounds (inclusive; None: unbounded).
INTEGER_BOUNDS: dict[str, tuple[int | None, int | None]] = {
    "integer": (None, None),
    "nonPositiveInteger": (None, 0),
    "negativeInteger": (None, -1),
    "nonNegativeInteger": (0, None),
    "positiveInteger": (1, None),
    "long": (-(2**63), 2**63 - 1),
    "int": (-(2**31), 2**31 - 1),
    "short": (-(2**15), 2**15 - 1),
    "byte": (-(2**7), 2**7 - 1),
    "unsignedLong": (0, 2**64 - 1),
    "unsignedInt": (0, 2**32 - 1),
    "unsignedShort": (0, 2**16 - 1),
    "unsignedByte": (0, 2**8 - 1),
}
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    # XSD 1.1: proleptic Gregorian with a year 0 (which is a leap year)
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def lexical_problem(value: str, datatype: str) -> str | None:
    """Why ``value`` is not in the lexical space of ``datatype`` (None: it is, or the datatype is
    not listed here)."""
    local = datatype[len(XSD) :] if datatype.startswith(XSD) else None
    if local is None:
        return None
    bounds = INTEGER_BOUNDS.get(local)
    if bounds is not None:
        if not _compiled(_INTEGER).fullmatch(value):
            return f"{value!r} is not a valid xsd:{local}"
        number, (low, high) = int(value), bounds
        if (low is not None and number < low) or (high is not None and number > high):
            return f"{value!r} is out of the range of xsd:{local}"
        return None
    pattern = _PATTERNS.get(local)
    if pattern is None:
        return None
    match = _compiled(pattern).fullmatch(value)
    if match is None:
        return f"{value!r} is not a valid xsd:{local}"
    groups = match.groupdict()
    if groups.get("d"):
        day, month = int(groups["d"]), int(groups["m"])
        year = int(groups["y"]) if groups.get("y") else 2000  # gMonthDay: --02-29 is valid
        if day > _DAYS[month - 1] or (month == 2 and day == 29 and not _leap(year)):
            return f"{value!r} is not a valid xsd:{local} (no such day)"
    return None


# --- the mapping rule ------------------------------------------------------------------------

# A lone surrogate or a character XML 1.0 cannot carry (§2.2 Char), even as a reference. The
# ASCII ones are searched apart: most text is ASCII, and the surrogate range makes ``re`` build a
# large bitmap (about 1 ms) that reading an ASCII file should not pay.
_NOT_XML_ASCII = "[\x00-\x08\x0b\x0c\x0e-\x1f]"
_NOT_XML = "[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"
_CONTROL = "[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]"  # the same but lone surrogates
_ascii_unwritable = re.compile(_NOT_XML_ASCII).search  # small: compiled at import (~20 µs)
_LOOSE_DATE = (
    r"(?P<y>[0-9]{1,4})-(?P<m>[0-9]{1,2})(?:-(?P<d>[0-9]{1,2}))?"
    r"(?:[T ](?P<h>[0-9]{1,2}):(?P<min>[0-9]{2})(?::(?P<s>[0-9]{2}(?:\.[0-9]+)?))?)?"
    rf"(?P<tz>{_TZ})?"
)
_PADDED = {
    XSD + "date": ("d",),
    XSD + "dateTime": ("d", "h"),
    XSD + "dateTimeStamp": ("d", "h"),
    XSD + "gYearMonth": (),
}


@dataclass(frozen=True, slots=True)
class Mapped:
    """A term as it is stored: ``term`` (valid) and, when it differs from the term given,
    ``problem`` (what was wrong) and ``rule`` (what was done)."""

    term: Term
    problem: str | None = None
    rule: str | None = None

    @property
    def changed(self) -> bool:
        return self.problem is not None

    def warning(self) -> str:
        """What a reader reports: ``<problem> (kept as written; stored <rule>)``."""
        return f"{self.problem} (kept as written; stored {self.rule})"


def valid_term(term: Term) -> Mapped:
    """The valid term stored for ``term``, by the rule of the module docstring."""
    if term.kind is TermKind.LITERAL:
        if term.datatype is None and term.lang is None:  # most literals: only text to check
            value = term.value
            if (_ascii_unwritable(value) is None) if value.isascii() else not has_unwritable(value):
                return Mapped(term)
            return _literal_term(term)
        return _cached_literal(term) if len(term.value) <= _CACHED_LENGTH else _literal_term(term)
    if term.kind is TermKind.IRI:
        return _cached_iri(term) if len(term.value) <= _CACHED_LENGTH else _iri_term(term)
    literal = Term.literal(_replace_unwritable(term.value))
    return Mapped(literal, "a blank node is no answer term", "as a plain literal")


def _iri_term(term: Term) -> Mapped:
    value = term.value
    if is_valid_iri(value):
        return Mapped(term)
    inner = value.strip()
    bracketed = inner.startswith("<") and inner.endswith(">")
    if bracketed:
        inner = inner[1:-1].strip()
    if inner != value and is_valid_iri(inner):
        odd = "IRI written in angle brackets" if bracketed else "IRI with surrounding spaces"
        return Mapped(Term.iri(inner), odd, "without them")
    return Mapped(
        Term.literal(_replace_unwritable(value)),
        f"{value[:80]!r} is not a valid IRI",
        "as a plain literal",
    )


# the prefixes a datatype is written with as a prefixed name (rule 4), in any case, and their
# namespaces
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
DATATYPE_PREFIXES = {"xsd": XSD, "xs": XSD, "rdf": RDF, "rdfs": RDFS, "owl": OWL}
# the datatypes of those namespaces (RDF 1.1 Concepts 5.1 and 5.3, rdf:JSON and
# rdf:dirLangString of RDF 1.2, OWL 2's owl:real and owl:rational, rdfs:Literal): a prefixed
# name of another local name (``xsd:foo``, ``xsd:Integer``, ``xsd:``) names none
# the XSD datatypes: those whose lexical space is checked here, and those it is not
_XSD_DATATYPES = (*_PATTERNS, *INTEGER_BOUNDS, "string", "anyURI", "NMTOKEN", "Name", "NCName")
KNOWN_DATATYPES = frozenset(
    [XSD + name for name in _XSD_DATATYPES]
    + [RDF + name for name in ("HTML", "XMLLiteral", "JSON", "langString", "dirLangString")]
    + [RDFS + "Literal", OWL + "real", OWL + "rational"]
)
_PREFIXED_NAME = re.compile(r"([A-Za-z][A-Za-z0-9_.-]*):(?!//)(.*)", re.S)


def prefixed_datatype(datatype: str) -> tuple[str, str | None] | None:
    """A datatype written as a prefixed name of :data:`DATATYPE_PREFIXES`: the IRI it spells
    and that IRI when it names a datatype (:data:`KNOWN_DATATYPES`), else None in its place;
    None for anything else (an IRI, another prefix: ``geo:wktLiteral`` is a valid IRI).

    >>> prefixed_datatype("xsd:integer")[1]
    'http://www.w3.org/2001/XMLSchema#integer'
    >>> prefixed_datatype("xsd:foo")
    ('http://www.w3.org/2001/XMLSchema#foo', None)
    >>> prefixed_datatype("geo:wktLiteral") is None
    True
    """
    match = _PREFIXED_NAME.fullmatch(datatype)
    namespace = DATATYPE_PREFIXES.get(match.group(1).lower()) if match else None
    if match is None or namespace is None:
        return None
    spelled = namespace + match.group(2)
    return spelled, spelled if spelled in KNOWN_DATATYPES else None


def _literal_term(term: Term) -> Mapped:
    value, datatype, lang = term.value, term.datatype, term.lang
    problems: list[str] = []
    rules: list[str] = []
    if has_unwritable(value):
        problems.append(unwritable_problem(value))
        value = _replace_unwritable(value)
        rules.append("with U+FFFD in its place")
    prefixed = prefixed_datatype(datatype) if datatype is not None else None
    if prefixed is not None:
        spelled, named = prefixed
        if named is not None:
            problems.append(f"datatype {datatype!r} is a prefixed name, not an IRI")
            rules.append(f"with the datatype <{named}>")
        else:  # xsd:foo, xsd:Integer, xsd: — read as IRIs, they name nothing
            problems.append(
                f"datatype {(datatype or '')[:80]!r} is a prefixed name that names no "
                f"datatype (<{spelled[:80]}> is none)"
            )
            rules.append("without its datatype")
        datatype = named
    if lang is not None:
        tag = language_tag(lang)
        if tag is None:
            problems.append(f"{lang!r} is not a well-formed language tag")
            rules.append("without its language tag")
        elif tag != lang:
            problems.append(f"{lang!r} is not a well-formed language tag")
            rules.append(f"with the tag {tag!r}")
        if tag is not None:
            if datatype not in (None, RDF_LANGSTRING, RDF_DIRLANGSTRING):
                problems.append("a literal cannot have both a language and a datatype")
                rules.append("without its datatype")
            return _mapped(term, Term.literal(value, lang=tag), problems, rules)
        datatype = None if datatype in (RDF_LANGSTRING, RDF_DIRLANGSTRING) else datatype
    if datatype in (RDF_LANGSTRING, RDF_DIRLANGSTRING):
        problems.append(f"rdf:{datatype[len(RDF) :]} without a language tag")
        rules.append("as xsd:string")
        datatype = None
    if datatype is not None and not is_valid_iri(datatype):
        problems.append(f"datatype {datatype[:80]!r} is not a valid IRI")
        rules.append("without its datatype")
        datatype = None
    if datatype == XSD_STRING:
        datatype = None
    if datatype is not None:
        problem = lexical_problem(value, datatype)
        if problem is not None:
            problems.append(problem)
            repaired = repair_lexical(value, datatype)
            if repaired is None:
                # the datatype a prefix named is not kept either: one rule, not "stored with
                # the datatype <…>; as a plain literal" (explore44 7)
                rules = [r for r in rules if not r.startswith("with the datatype")]
                rules.append("as a plain literal")
                datatype = None
            else:
                rules.append(f"repaired as {repaired!r}")
                value = repaired
    return _mapped(term, Term.literal(value, datatype=datatype), problems, rules)


def _mapped(given: Term, term: Term, problems: list[str], rules: list[str]) -> Mapped:
    if not problems:
        # Same term; xsd:string spelled out or not is one literal (RDF 1.1).
        return Mapped(given if given.datatype != XSD_STRING else term)
    return Mapped(term, "; ".join(problems), "; ".join(rules))


def has_unwritable(value: str) -> bool:
    """Whether ``value`` holds a lone surrogate or a character XML 1.0 cannot carry."""
    if value.isascii():
        return _ascii_unwritable(value) is not None
    return _compiled(_NOT_XML).search(value) is not None


def has_control(value: str) -> bool:
    """Whether ``value`` holds a character XML 1.0 cannot carry other than a lone surrogate (a
    control character but tab, LF and CR, or U+FFFE, U+FFFF): what no file of text has by
    accident, where a lone surrogate is half an emoji cut by a truncating writer."""
    return _compiled(_CONTROL).search(value) is not None


def unwritable_problem(value: str, *, surrogates: bool = True) -> str:
    """What is wrong with a value :func:`has_unwritable` finds: the first such character, by
    code point, and its place (1-based), and how many there are (``surrogates``: lone
    surrogates counted too)."""
    found = list(_compiled(_NOT_XML if surrogates else _CONTROL).finditer(value))
    if not found:
        return ""
    first = found[0]
    code = ord(first.group())
    what = "a lone UTF-16 surrogate" if 0xD800 <= code <= 0xDFFF else "a control character"
    if code in (0xFFFE, 0xFFFF):
        what = "a noncharacter"
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return (
        f"the value holds {what} U+{code:04X} at character {first.start() + 1}{more}, "
        "which XML 1.0 cannot carry"
    )


def first_unwritable(value: str, *, surrogates: bool = True) -> re.Match[str] | None:
    """The first character of ``value`` :func:`unwritable_problem` names, or None."""
    return _compiled(_NOT_XML if surrogates else _CONTROL).search(value)


def unwritable_expected(value: str, *, surrogates: bool = True) -> str:
    """What a text refused for the character :func:`unwritable_problem` names should be: "text
    without control characters" said of a noncharacter or a lone surrogate misled."""
    found = first_unwritable(value, surrogates=surrogates)
    code = ord(found.group()) if found is not None else 0
    if 0xD800 <= code <= 0xDFFF:
        return "whole characters, not a lone UTF-16 surrogate (half of one, as of an emoji cut)"
    if code in (0xFFFE, 0xFFFF):
        return "text without the noncharacters U+FFFE and U+FFFF"
    return "text without control characters other than tab, LF and CR"


def writable_text_problem(value: str, label: str) -> str | None:
    """The message refusing a short text a user typed (a title, a name, an option) that holds
    a character XML 1.0 cannot carry, naming ``label``; None when it holds none."""
    if not has_unwritable(value):
        return None
    problem = unwritable_problem(value).removeprefix("the value ")
    return f"{label}: {problem}; expected {unwritable_expected(value)}"


def _replace_unwritable(value: str) -> str:
    return _compiled(_NOT_XML).sub("\ufffd", value)


def repair_lexical(value: str, datatype: str) -> str | None:
    """The unambiguous repair of an ill-formed lexical form (rule 5), or None."""
    stripped = value.strip()
    if stripped != value and lexical_problem(stripped, datatype) is None:
        return stripped
    if datatype == XSD + "boolean" and stripped.lower() in ("true", "false"):
        return stripped.lower()
    if datatype in _PADDED or datatype == XSD + "gYear":
        repaired = _padded_date(stripped, datatype)
        if repaired is not None and lexical_problem(repaired, datatype) is None:
            return repaired
    return None


def _padded_date(value: str, datatype: str) -> str | None:
    if datatype == XSD + "gYear":
        return value.zfill(4) if value.isdigit() and int(value) >= 1 else None
    m = _compiled(_LOOSE_DATE).fullmatch(value)
    if m is None or int(m["y"]) < 1:
        return None
    wanted = _PADDED[datatype]
    has_day, has_time = m["d"] is not None, m["h"] is not None
    if ("d" in wanted) != has_day or ("h" in wanted) != has_time:
        return None
    out = f"{int(m['y']):04d}-{int(m['m']):02d}"
    if has_day:
        out += f"-{int(m['d']):02d}"
    if has_time:
        seconds = m["s"] or "00"
        whole, _, fraction = seconds.partition(".")
        out += f"T{int(m['h']):02d}:{m['min']}:{whole}" + (f".{fraction}" if fraction else "")
    return out + (m["tz"] or "")


_CACHE_SIZE = 1 << 14
_cached_iri = lru_cache(maxsize=_CACHE_SIZE)(_iri_term)
_cached_literal = lru_cache(maxsize=_CACHE_SIZE)(_literal_term)
