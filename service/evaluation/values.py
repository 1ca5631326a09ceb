"""How answer values are read for matching: URI tests, IRI identity, literal values.

Pure string functions shared by the matching profiles. Each cites the tool or rule it follows.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import NamedTuple

from service.model import XSD, XSD_BOOLEAN, Term

# --- URI tests ------------------------------------------------------------------------------

# RFC 3986 scheme, then at least one character that may appear in a URI reference (no space,
# no control character, none of <>"{}|\^`), with well-formed percent escapes.
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:(?:[^\x00-\x20<>\"{}|\\^`%\x7f]|%[0-9A-Fa-f]{2})+$")


def is_absolute_uri(value: str) -> bool:
    """``scheme:rest`` with a valid scheme and only URI characters (GERBIL's gold IRI test)."""
    return bool(_URI.match(value))


# A simplified Apache Commons ``UrlValidator()`` (GERBIL's system-answer test): schemes http,
# https and ftp; an authority of dot-separated host labels ending in an alphabetic top-level
# label (the IANA list is not checked), or an IPv4 address, with an optional port; an ASCII path
# of the characters the validator accepts; any query and fragment without whitespace. Like the
# Java validator (``\w`` without UNICODE_CHARACTER_CLASS), a non-ASCII character in the path makes
# the value a plain string.
_URL = (
    r"^(?:https?|ftp)://"
    r"(?:(?:[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}\.?"
    r"|(?:[0-9]{1,3}\.){3}[0-9]{1,3})"
    r"(?::[0-9]{1,5})?"
    r"(?:/[-A-Za-z0-9_:@&?=+,.!/~*'%$;()]*)?"
    r"(?:\?[^\s#]*)?"
    r"(?:#\S*)?$"
)


@lru_cache(maxsize=1)
def _url() -> re.Pattern[str]:
    return re.compile(_URL)  # on first use: only the gerbil profile needs it


def is_url(value: str) -> bool:
    """Whether GERBIL QA's URL validator would accept ``value`` (http, https, ftp only)."""
    return bool(_url().match(value))


# --- literal values (fair) ------------------------------------------------------------------

_NUMERIC_TYPES = {
    XSD + t
    for t in [
        "integer",
        "decimal",
        "double",
        "float",
        "long",
        "int",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "negativeInteger",
        "nonPositiveInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    ]
}
_DATE_TYPES = {XSD + t for t in ("date", "dateTime", "gYear", "gYearMonth", "dateTimeStamp")}
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
# Months and days of one or two digits, and years of three digits in a full date: real QALD
# gold writes ``2009-6-25`` and ``632-6-8`` (QALD-8/9; explore33 F2). Such a short form is a
# date only as a real calendar date with a year of three or four digits (``4-4-2``, a football
# formation, and ``5-40-99`` are not; explore35 10), and a year of four digits with a month of
# one (``1978-5``) a date only with a month of the calendar; the ISO form (a year of four digits
# or more, two-digit month and day) is read as before. A year alone or with a month keeps four
# digits or more (``42`` is a number, not the year 42).
_DATE = re.compile(
    r"^(?P<year>-?[0-9]{1,})(?:-(?P<month>[0-9]{1,2})(?:-(?P<day>[0-9]{1,2})"
    r"(?:T(?P<time>[0-9]{2}:[0-9]{2}(?::[0-9]{2})?))?)?)?"
    r"(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})?$"
)
_YEAR_ONLY = re.compile(r"^-?[0-9]{4}$")


# Marks that set the direction of text and show nothing (LRM, RLM, ALM, the embeddings,
# overrides and isolates): an RTL answer often wraps a number in them.
_DIRECTION_MARKS = dict.fromkeys(
    map(ord, "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
)


def ascii_digits(text: str) -> str:
    """``text`` with the decimal digits of any script as ASCII digits and direction marks
    dropped (explore53 F8): full-width ``４２``, Arabic-Indic ``٤٢``, Persian ``۴۲`` and
    ``42`` + RLM are the number 42, when its digits are of one script (:func:`_as_ascii_digits`).
    Other characters stay (``٢٫٥`` is no number).

    >>> ascii_digits("\uff14\uff12"), ascii_digits("\u0661\u0669\u0667\u0668")
    ('42', '1978')
    >>> ascii_digits("42\u200f"), ascii_digits("\u200e\u06f4\u06f2")
    ('42', '42')
    >>> ascii_digits("4\u0662")  # two scripts' digits: no number (explore54 F7)
    '4\u0662'
    """
    if text.isascii():
        return text
    return _as_ascii_digits(text, mixed=False)


def _as_ascii_digits(text: str, *, mixed: bool) -> str:
    """:func:`ascii_digits`; ``mixed=False``: ``text`` as it is (its direction marks dropped)
    when its digits come from two scripts or more. A number is written in one script's digits:
    ``4٢`` (a Latin 4, an Arabic-Indic 2) is no 42, though Python's ``int()`` reads it so
    (explore54 F7; UTS #39 treats mixed-script digits as suspicious). A script's digits are
    the ten code points from its zero (``ord(c) - decimal(c)``)."""
    plain = text.translate(_DIRECTION_MARKS)
    zeros: set[int] = set()
    out = []
    for c in plain:
        d = unicodedata.decimal(c, None)
        if d is not None:
            zeros.add(ord(c) - d)
        out.append(c if d is None else str(d))
    if len(zeros) > 1 and not mixed:
        return plain
    return "".join(out)


def mixed_digits(text: str) -> str | None:
    """``text`` with its digits as ASCII digits when they come from two scripts or more (what
    :func:`ascii_digits` does not read: a wrong answer's note says why), else None.

    >>> mixed_digits("4\u0662"), mixed_digits("\u0664\u0662"), mixed_digits("42")
    ('42', None, None)
    """
    if text.isascii() or ascii_digits(text) != text.translate(_DIRECTION_MARKS):
        return None
    made = _as_ascii_digits(text, mixed=True)
    return made if made != text.translate(_DIRECTION_MARKS) else None


def number_value(text: str) -> Decimal | None:
    """The numeric value of a lexical form (``"8"`` = ``"8.0"`` = ``"8e0"``), or ``None``;
    digits of any script are read (:func:`ascii_digits`)."""
    t = ascii_digits(text).strip()
    if not _NUMBER.match(t):
        return None
    try:
        return Decimal(t).normalize()
    except InvalidOperation:
        return None


class DateValue(NamedTuple):
    """A date at its granularity: parts is (year,), (year, month), (y, m, d) or (y, m, d, time)."""

    parts: tuple[str, ...]

    def at(self, granularity: int) -> DateValue | None:
        """This date cut to ``granularity`` parts, or ``None`` when it is coarser than that."""
        if len(self.parts) < granularity:
            return None
        return DateValue(self.parts[:granularity])


def date_value(text: str) -> DateValue | None:
    """A date from ``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD`` or an xsd:dateTime (time to seconds).

    The time zone and fractional seconds are dropped; ``T00:00:00`` counts as a day (DBpedia
    writes dates as midnight dateTimes). Month and day may have one digit, and the year of a
    full date three (``632-6-8`` is ``0632-06-08``, explore33 F2), when the date is a day of
    the calendar (explore35 10).

    >>> date_value("2009-6-25"), date_value("632-6-8") == date_value("0632-06-08")
    (DateValue(parts=('2009', '06', '25')), True)
    >>> date_value("42"), date_value("632-6"), date_value("4-4-2"), date_value("1978-2-30")
    (None, None, None, None)
    >>> date_value("1978-5"), date_value("1978-0")
    (DateValue(parts=('1978', '05')), None)
    """
    m = _DATE.match(ascii_digits(text).strip())
    if not m:
        return None
    year, month, day = m.group("year"), m.group("month"), m.group("day")
    digits = year.lstrip("-")
    if len(digits) < 4 or len(month or "00") < 2 or len(day or "00") < 2:  # a short form
        if not (month and year == digits and len(digits) in (3 if day else 4, 4)):
            return None
        if not _calendar_date(int(year), int(month), int(day or 1)):
            return None
    parts = [str(int(year))]
    if month:
        parts.append(month.zfill(2))
        if day:
            parts.append(day.zfill(2))
            time = m.group("time")
            if time and time not in ("00:00", "00:00:00"):
                parts.append(time if len(time) == 8 else time + ":00")
    return DateValue(tuple(parts))


def _calendar_date(year: int, month: int, day: int) -> bool:
    """Whether year-month-day is a day of the (proleptic Gregorian) calendar."""
    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    return True


def boolean_value(term: Term) -> bool | None:
    """``true``/``false`` (any case) or, for an ``xsd:boolean``, also ``1``/``0``."""
    t = term.value.strip().lower()
    if t in ("true", "false"):
        return t == "true"
    if term.datatype == XSD_BOOLEAN and t in ("1", "0"):
        return t == "1"
    return None


_SPACE = re.compile(r"\s+")


def string_key(text: str, *, language: str | None = None) -> str:
    """A string compared case- and whitespace-insensitively (NFC, casefold, spaces collapsed).

    Turkish and Azerbaijani dotted and dotless i are lower-cased by their own rule first. A
    combining dot above an ``i`` is dropped, in any language and on either side: case folding
    turns the dotted capital ``İ`` into ``i`` + U+0307 (as JavaScript's ``toLowerCase`` does),
    so ``İstanbul``, ``i̇stanbul`` and ``istanbul`` are one string (explore53 F7). The Arabic
    and Persian forms of kaf and yeh (ك/ک, ي/ی, and ى) are one letter each.

    >>> string_key("İstanbul") == string_key("istanbul") == string_key("İSTANBUL")
    True
    >>> string_key("كيك") == string_key("کیک")
    True
    """
    t = unicodedata.normalize("NFC", text)
    if language and language.lower().split("-")[0] in ("tr", "az"):
        t = t.replace("İ", "i").replace("I", "ı")
    t = t.casefold()
    if "\u0307" in t:  # the dot of a folded İ (or one written after an i): an i has it already
        t = unicodedata.normalize("NFC", t.replace("i\u0307", "i"))
    if _ARABIC_TWINS_FOUND(t):
        t = t.translate(_ARABIC_TWINS)
    return _SPACE.sub(" ", t).strip()


# One letter, two code points: Persian text is typed with Arabic keyboards (and the other way
# round), so kaf and yeh come in either form and look alike; the alef maksura is written for a
# final yeh. Folded to the Persian forms, as search engines do (explore53 F9).
_ARABIC_TWINS = str.maketrans({"\u0643": "\u06a9", "\u064a": "\u06cc", "\u0649": "\u06cc"})
_ARABIC_TWINS_FOUND = re.compile("[\u0643\u064a\u0649]").search


def is_numeric_type(datatype: str | None) -> bool:
    return datatype in _NUMERIC_TYPES


def is_date_type(datatype: str | None) -> bool:
    return datatype in _DATE_TYPES


def year_like(text: str) -> bool:
    return bool(_YEAR_ONLY.match(ascii_digits(text).strip()))
