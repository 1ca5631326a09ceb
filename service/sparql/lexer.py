"""Tokenizer for SPARQL 1.1 Query: the terminals of §19.8 of the Recommendation as one regex.

The grammar is LL(1) over these terminals, matched longest-first (§19.8 note 3): the master
pattern tries each alternative in an order under which the first match is also the longest
one the grammar allows (long strings before short ones, ``<iri>`` before ``<=``/``<``, a
prefixed name before a keyword, a signed number before ``+``/``-``, ``NIL``/``ANON`` before
``(``/``[``).

Tokens come back as three parallel lists (kind, text, offset) rather than objects: the parser
touches every token several times and the benchmark budget is a few microseconds per token.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from service.sparql.errors import SparqlSyntaxError, position

# §19.8 productions [164]–[173]. Python's ``re`` compiles a class listing large Unicode ranges
# by visiting every code point in them (tens of milliseconds per class, far over the import
# budget), so the token regex uses coarse classes: each one is the exact class on ASCII and lets
# every non-ASCII character through, written as a negated ASCII class (which compiles at once).
# ``_check_name`` then holds each non-ASCII character of a name token to the exact ranges.
_BASE = r"[^\x00-\x40\x5b-\x60\x7b-\x7f]"  # [164] PN_CHARS_BASE: A-Z a-z
_CHARS_U = r"[^\x00-\x40\x5b-\x5e\x60\x7b-\x7f]"  # [165] PN_CHARS_U: also _
_CHARS = r"[^\x00-\x2c\x2e\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]"  # [167] PN_CHARS: also - 0-9
_CHARS_DOT = r"[^\x00-\x2c\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]"  # PN_CHARS | '.'
_CHARS_COLON = r"[^\x00-\x2c\x2e\x2f\x3b-\x40\x5b-\x5e\x60\x7b-\x7f]"  # PN_CHARS | ':'
_CHARS_DOT_COLON = r"[^\x00-\x2c\x2f\x3b-\x40\x5b-\x5e\x60\x7b-\x7f]"  # PN_CHARS | '.' | ':'
_U_DIGIT = r"[^\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]"  # PN_CHARS_U | [0-9] (VARNAME)
_PLX = r"%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%]"  # [170] PLX, [171] PERCENT, [173]
_PN_PREFIX = f"{_BASE}(?:{_CHARS_DOT}*{_CHARS})?"  # [168]
_PN_LOCAL = (  # [169]
    f"(?:{_CHARS_U}|[:0-9]|{_PLX})(?:(?:{_CHARS_DOT_COLON}|{_PLX})*(?:{_CHARS_COLON}|{_PLX}))?"
)
_EXPONENT = "[eE][+-]?[0-9]+"
_WS = "[ \t\r\n]"

# Whitespace and comments before a token (possessive: no backtracking into them).
_SPACE = r"(?:[ \t\r\n]++|#[^\r\n]*+)*+"
_SKIP_SPACE = re.compile(_SPACE)
# Order matters (see the module docstring). Top-level groups only, so ``lastgroup`` names them.
# The leading whitespace is part of each match (not a token of its own): half the matches.
_IRIREF = r'<[^<>"{}|^`\\\x00-\x20]*>'  # [139]
# [139] IRIREF with [27] UCHAR escapes, as an engine that reads code point escapes only inside
# IRIs and strings (Oxigraph) sees it (see ``Tokens``).
_IRIREF_UCHAR = r'<(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>'
_OTHER_TERMINALS = "|".join(
    [
        rf"(?P<PNAME>(?:{_PN_PREFIX})?:(?:{_PN_LOCAL})?)",
        rf"(?P<BLANK_NODE_LABEL>_:{_U_DIGIT}(?:{_CHARS_DOT}*{_CHARS})?)",  # [142]
        rf"(?P<VAR>[?$]{_U_DIGIT}+)",  # [143], [144], [166]
        r"(?P<LANGTAG>@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*)",
        rf"(?P<DOUBLE>[+-]?(?:[0-9]+\.[0-9]*{_EXPONENT}|\.[0-9]+{_EXPONENT}|[0-9]+{_EXPONENT}))",
        r"(?P<DECIMAL>[+-]?[0-9]*\.[0-9]+)",
        r"(?P<INTEGER>[+-]?[0-9]+)",
        r"(?P<STRING_LONG1>'''(?:(?:'|'')?(?:[^'\\]|\\[\s\S]))*''')",
        r'(?P<STRING_LONG2>"""(?:(?:"|"")?(?:[^"\\]|\\[\s\S]))*""")',
        r"(?P<STRING1>'(?:[^'\\\n\r]|\\[^\n\r])*')",
        r'(?P<STRING2>"(?:[^"\\\n\r]|\\[^\n\r])*")',
        rf"(?P<NIL>\({_WS}*\))",
        rf"(?P<ANON>\[{_WS}*\])",
        r"(?P<WORD>[A-Za-z][A-Za-z0-9_]*)",
        r"(?P<PUNCT>\^\^|&&|\|\||!=|<=|>=|[{}()\[\];,.=<>!+\-*/^|?])",
    ]
)
_TOKEN = re.compile(f"{_SPACE}(?:(?P<IRIREF>{_IRIREF})|{_OTHER_TERMINALS})")
_token_in_terms: re.Pattern[str] | None = None  # compiled when first needed (import budget)


def _in_terms_pattern() -> re.Pattern[str]:
    global _token_in_terms
    if _token_in_terms is None:
        _token_in_terms = re.compile(f"{_SPACE}(?:(?P<IRIREF>{_IRIREF_UCHAR})|{_OTHER_TERMINALS})")
    return _token_in_terms


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` (for keyword tables)."""
    return frozenset(text.split())


# Every keyword of the grammar (§19.8, note 1: matched case-insensitively; 'a' is not a keyword).
KEYWORDS = words(
    """
    BASE PREFIX SELECT DISTINCT REDUCED AS CONSTRUCT WHERE DESCRIBE ASK FROM NAMED GROUP BY
    HAVING ORDER ASC DESC LIMIT OFFSET VALUES UNDEF OPTIONAL GRAPH SERVICE SILENT BIND MINUS
    UNION FILTER STR LANG LANGMATCHES DATATYPE BOUND IRI URI BNODE RAND ABS CEIL FLOOR ROUND
    CONCAT STRLEN UCASE LCASE ENCODE_FOR_URI CONTAINS STRSTARTS STRENDS STRBEFORE STRAFTER YEAR
    MONTH DAY HOURS MINUTES SECONDS TIMEZONE TZ NOW UUID STRUUID MD5 SHA1 SHA256 SHA384 SHA512
    COALESCE IF STRLANG STRDT SAMETERM ISIRI ISURI ISBLANK ISLITERAL ISNUMERIC REGEX SUBSTR
    REPLACE EXISTS NOT IN COUNT SUM MIN MAX AVG SAMPLE GROUP_CONCAT SEPARATOR TRUE FALSE
    LOAD CLEAR DROP CREATE ADD MOVE COPY INSERT DELETE WITH DATA INTO USING DEFAULT ALL TO
    """
)

# The non-ASCII code points of [164] PN_CHARS_BASE, and those [167] PN_CHARS adds (which may
# not start a name), as sorted (first, last) ranges.
_BASE_RANGES = (
    (0x00C0, 0x00D6),
    (0x00D8, 0x00F6),
    (0x00F8, 0x02FF),
    (0x0370, 0x037D),
    (0x037F, 0x1FFF),
    (0x200C, 0x200D),
    (0x2070, 0x218F),
    (0x2C00, 0x2FEF),
    (0x3001, 0xD7FF),
    (0xF900, 0xFDCF),
    (0xFDF0, 0xFFFD),
    (0x10000, 0xEFFFF),
)
_INNER_RANGES = tuple(sorted((*_BASE_RANGES, (0x00B7, 0x00B7), (0x0300, 0x036F), (0x203F, 0x2040))))


def _within(ranges: tuple[tuple[int, int], ...], code: int) -> bool:
    at = bisect_right(ranges, (code, 0x10FFFF)) - 1
    return at >= 0 and ranges[at][0] <= code <= ranges[at][1]


_NAMES = frozenset({"PNAME", "BLANK_NODE_LABEL", "VAR"})
_UNICODE_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


class Tokens:
    """The token lists of one query, plus what is needed to report positions in the source.

    ``kinds[i]`` is a terminal name (``IRIREF``, ``PNAME``, ``VAR``, ``STRING2``…), an upper-cased
    keyword (``SELECT``), ``a``, a punctuation string (``{``, ``^^``) or ``EOF``; ``texts[i]`` is
    the matched source text; ``offsets[i]`` its offset in the escape-expanded text.

    ``escapes``: where ``\\u``/``\\U`` code point escapes are read. ``"everywhere"`` is §19.2:
    they are replaced before tokenizing, so ``\\u0053ERVICE`` is the keyword and ``"\\u0022"``
    closes a string. ``"in_terms"`` is how Oxigraph reads them: only inside IRIs and strings
    (the token keeps the escape; the parser decodes it), anywhere else they are an error.
    """

    __slots__ = (
        "_shifts",
        "escapes",
        "glued",
        "kinds",
        "lenient",
        "notes",
        "offsets",
        "original",
        "text",
        "texts",
    )

    def __init__(
        self, original: str, *, lenient: bool = False, escapes: str = "everywhere"
    ) -> None:
        if escapes not in ("everywhere", "in_terms"):
            raise ValueError(f"escapes must be 'everywhere' or 'in_terms', not {escapes!r}")
        self.original = original
        self.lenient = lenient
        self.escapes = escapes
        self.notes: list[str] = []  # what the lenient dialect accepted while tokenizing
        self.glued: set[int] = set()  # where two keywords written together were split
        if escapes == "everywhere":
            self.text, self._shifts = _expand_codepoint_escapes(original)
        else:
            self.text, self._shifts = original, []
        self.kinds: list[str] = []
        self.texts: list[str] = []
        self.offsets: list[int] = []
        self._scan()

    def split_less_than(self, index: int) -> None:
        """Re-read token ``index``, an IRIREF, as the operator ``<`` (or ``<=``) and rescan."""
        start = self.offsets[index]
        operator = "<=" if self.text.startswith("<=", start) else "<"
        del self.kinds[index:], self.texts[index:], self.offsets[index:]
        self.kinds.append(operator)
        self.texts.append(operator)
        self.offsets.append(start)
        self._scan(start + len(operator))

    def _scan(self, pos: int = 0) -> None:
        text = self.text
        kinds, texts, offsets = self.kinds, self.texts, self.offsets
        keywords = KEYWORDS
        end = len(text)
        match = (_TOKEN if self.escapes == "everywhere" else _in_terms_pattern()).match
        while pos < end:
            m = match(text, pos)
            if m is None:  # only whitespace left, or a character no token starts with
                space = _SKIP_SPACE.match(text, pos)
                pos = space.end() if space else pos  # the pattern matches everywhere
                if pos >= end:
                    break
                raise self._bad_character(pos)
            kind = m.lastgroup or ""  # every alternative of the pattern is a named group
            start = m.start(kind)
            value = m.group(kind)
            pos = m.end()
            if kind in _NAMES and not value.isascii():
                self._check_name(kind, value, start)
            if kind == "PUNCT":
                kind = value
            elif kind == "WORD":
                upper = value.upper()
                if upper in keywords:
                    kind = upper
                elif value == "a":
                    kind = "a"
                elif self.lenient and self._split_glued(value, start):
                    continue
            kinds.append(kind)
            texts.append(value)
            offsets.append(start)
        kinds.append("EOF")
        texts.append("")
        offsets.append(end)

    def _check_name(self, kind: str, value: str, pos: int) -> None:
        """Hold the non-ASCII characters of a name to [164]–[167] (see the comment on _BASE)."""
        if kind == "PNAME":
            colon = value.index(":")
            starts = {0, colon + 1}
        else:
            starts = {2 if kind == "BLANK_NODE_LABEL" else 1}
        for at, char in enumerate(value):
            code = ord(char)
            if code < 0x80:
                continue
            if not _within(_BASE_RANGES if at in starts else _INNER_RANGES, code):
                raise self._bad_character(pos + at)

    def _split_glued(self, word: str, pos: int) -> bool:
        """Lenient: two keywords written without a space (``ASKWHERE``, ``ORDER BYDESC``).

        A word that is no keyword can only be an error in SPARQL; when it splits into two
        keywords in exactly one way, that is what was meant (real QALD-5 queries lost the
        line break between keywords when converted from XML to JSON).
        """
        upper = word.upper()
        splits = [
            k for k in range(1, len(upper)) if upper[:k] in KEYWORDS and upper[k:] in KEYWORDS
        ]
        if len(splits) != 1:
            return False
        k = splits[0]
        self.kinds += [upper[:k], upper[k:]]
        self.texts += [word[:k], word[k:]]
        self.offsets += [pos, pos + k]
        self.glued.add(pos + k)
        note = f"keywords written together: {word!r} read as '{word[:k]} {word[k:]}'"
        if note not in self.notes:
            self.notes.append(note)
        return True

    def _bad_character(self, pos: int) -> SparqlSyntaxError:
        char = self.text[pos]
        if char in "\"'":
            what = "a closed string literal (with only \\t \\b \\n \\r \\f \\\" \\' \\\\ escapes)"
            return self.error(
                pos, f"unterminated or malformed string literal, expected {what}", what
            )
        if char == "_":
            return self.error(pos, "malformed blank node label", "a blank node label like _:b1")
        if char == "@":
            return self.error(pos, "malformed language tag", "a language tag like @en")
        shown = repr(char) if char.isprintable() and not char.isspace() else f"U+{ord(char):04X}"
        return self.error(pos, f"unexpected character {shown}", None)

    def error(self, offset: int, message: str, expected: str | None) -> SparqlSyntaxError:
        """An error at ``offset`` of the expanded text, positioned in the original text."""
        original = self.source_offset(offset)
        line, column = position(self.original, original)
        return SparqlSyntaxError(
            message, line=line, column=column, offset=original, expected=expected
        )

    def source_offset(self, offset: int) -> int:
        """Map an offset in the escape-expanded text back to the original query text."""
        if not self._shifts:
            return offset
        at = bisect_right(self._shifts, (offset, 1 << 62)) - 1
        if at < 0:
            return offset
        expanded, original = self._shifts[at]
        return original + (offset - expanded)


def _expand_codepoint_escapes(text: str) -> tuple[str, list[tuple[int, int]]]:
    r"""Replace ``\uXXXX``/``\UXXXXXXXX`` before tokenizing, as §19.2 says they are processed.

    Returns the new text and, for each replacement, (offset in new text just after it, offset in
    the original just after it), so error positions can be reported in the original text.
    """
    if "\\u" not in text and "\\U" not in text:
        return text, []
    parts: list[str] = []
    shifts: list[tuple[int, int]] = []
    last = 0
    length = 0
    for m in _UNICODE_ESCAPE.finditer(text):
        code = int(m.group(1) or m.group(2), 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            line, column = position(text, m.start())
            raise SparqlSyntaxError(
                f"invalid code point escape {m.group()!r}",
                line=line,
                column=column,
                offset=m.start(),
                expected="a Unicode scalar value",
            )
        parts.append(text[last : m.start()])
        parts.append(chr(code))
        length += m.start() - last + 1
        last = m.end()
        shifts.append((length, last))
    parts.append(text[last:])
    return "".join(parts), shifts
