"""What every format module shares: the descriptor, the input, limits and the problem report.

A format is one module defining one frozen :class:`Format`; ``service.formats`` registers them
in one table. Readers get a :class:`Source` (the bytes plus where they came from) and collect
their findings in a :class:`Report`, which raises one :class:`FormatError` for all fatal ones.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from _json import scanstring  # json's C string scanner (json.decoder re-exports it)
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple, NoReturn, TypedDict, Unpack, cast

from service.errors import BadRequest, FormatError, Problem, Severity
from service.model import Dataset

Step = str | int
"""One step of a JSON path: an object key or an array index."""

MIB = 1024 * 1024

# Answers (rows of an answer set: a SPARQL binding, a QALD-XML <answer>, a result-set value, a
# TSV alternative; a boolean answer is one) per question and per file. 100,000 per question is
# 14x the largest answer set in the benchmark files and system outputs we mirror (6,933: QALD-2's
# participants' answers) and 10x the rows DBpedia's public endpoint returns for one query;
# 2,000,000 per file is over 100x the largest file's answers there (16,886: TEXT2SPARQL's DBpedia
# gold) and about what a 64 MiB upload (the server's limit) of terse SPARQL JSON can hold.
MAX_ANSWERS_PER_QUESTION = 100_000
MAX_ANSWERS_PER_FILE = 2_000_000
ANSWERS_PER_QUESTION_ENV = "GERBIL_QA_MAX_ANSWERS_PER_QUESTION"
ANSWERS_PER_FILE_ENV = "GERBIL_QA_MAX_ANSWERS_PER_FILE"

# Questions (items, entries, lines) per file. Recording an experiment costs 45 KB (questions
# without answers) to ~200 KB (an answer and a gold query each) of memory per question and
# system (measured: `evaluate --store` of 10,000 and 50,000 bare questions peaked at 0.6 and
# 2.2 GB, mostly Oxigraph's one write transaction; 20,000 answered ones at 4.1 GB); 300,000
# questions, a 24 MB upload, took a server to 11.8 GB. 20,000 is 5x the largest catalogued
# dataset (4,000: LC-QuAD 1 train) and over 3x LC-QuAD 2.0's test set (6,046).
MAX_QUESTIONS_PER_FILE = 20_000
QUESTIONS_PER_FILE_ENV = "GERBIL_QA_MAX_QUESTIONS_PER_FILE"

LIMIT_SET_BY: dict[str, str] = {}
"""The limit variables a command's option set for this command, by the option's name
(``--max-answers-per-question``; ``service.cli`` sets and clears it): a refusal names what set
the limit (it named the variable though the option had set it)."""


def _at_most(limit: int, one: str, many: str, per: str, env: str) -> str:
    """``at most 1 answer per question (--max-answers-per-question)``: the limit, what it
    counts, and what set it."""
    return (
        f"at most {limit:,} {one if limit == 1 else many} per {per} ({LIMIT_SET_BY.get(env, env)})"
    )


def _env_limit(name: str, default: int) -> int:
    """A positive whole number from the environment variable ``name`` (else ``default``);
    FormatError naming the variable when it is something else."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    return parse_limit(raw, name)


def parse_limit(raw: str, name: str) -> int:
    """``raw`` as a limit (a whole number at least 1; ``_`` and ``,`` separators allowed)."""
    try:
        value = int(raw.strip().replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise BadRequest(f"{name}: cannot read {raw!r} as a limit; expected a whole number ≥ 1")
    return value


@dataclass(frozen=True, slots=True)
class Limits:
    """Input size limits; a file over a limit is refused with a :class:`FormatError`.

    The answer and question limits default to ``$GERBIL_QA_MAX_ANSWERS_PER_QUESTION``,
    ``$GERBIL_QA_MAX_ANSWERS_PER_FILE`` and ``$GERBIL_QA_MAX_QUESTIONS_PER_FILE`` when set
    (read when a ``Limits`` is made)."""

    max_bytes: int = 256 * MIB
    max_questions_per_file: int = field(
        default_factory=lambda: _env_limit(QUESTIONS_PER_FILE_ENV, MAX_QUESTIONS_PER_FILE)
    )
    max_problems: int = 10_000  # findings kept per file; a garbage file should not eat memory
    max_answers_per_question: int = field(
        default_factory=lambda: _env_limit(ANSWERS_PER_QUESTION_ENV, MAX_ANSWERS_PER_QUESTION)
    )
    max_answers_per_file: int = field(
        default_factory=lambda: _env_limit(ANSWERS_PER_FILE_ENV, MAX_ANSWERS_PER_FILE)
    )


DEFAULT_LIMITS = Limits(
    max_answers_per_question=MAX_ANSWERS_PER_QUESTION,
    max_answers_per_file=MAX_ANSWERS_PER_FILE,
    max_questions_per_file=MAX_QUESTIONS_PER_FILE,
)
"""The built-in limits (not the environment's)."""

UNLIMITED = Limits(
    max_answers_per_question=2**62, max_answers_per_file=2**62, max_questions_per_file=2**62
)
"""For files the operator chose (the catalogue's): no answer or question limits."""


@dataclass(frozen=True, slots=True)
class Format:
    """One benchmark file format: how to recognise, read and write it.

    ``sniff`` looks at the content only (the registry falls back to ``extensions``);
    ``write`` returns the bytes and never fails on a valid :class:`Dataset` (what the format
    cannot carry is listed by ``losses``).
    """

    name: str
    label: str
    media_types: tuple[str, ...]
    extensions: tuple[str, ...]
    read: Callable[[Source], Dataset]
    write: Callable[[Dataset], bytes]
    sniff: Callable[[Source], bool]
    losses: Callable[[Dataset], list[str]]
    description: str = ""


class Source:
    """The bytes to read and what is known about them; parses JSON once for sniffer and reader.

    A plain class (not a dataclass, which costs a millisecond at import; see bench/evaluate.py).
    """

    def __init__(
        self,
        data: bytes,
        name: str | None = None,
        path: Path | None = None,
        language: str | None = None,
        limits: Limits = DEFAULT_LIMITS,
        answers: bool = False,
        questions: tuple[str, bytes] | None = None,
        gold: bool = False,
    ) -> None:
        self.data = data
        self.name = name
        self.path = path
        self.language = language
        self.limits = limits
        self.answers = answers  # read as a system's answers (TSV: an out.tsv, whatever its name)
        # TSV: the in.tsv given with an expected.tsv (its name and bytes), as an upload brings it
        self.questions = questions
        # check each question's gold (`validate`): answers or a query, a query that parses
        self.gold = gold
        self._json: Any = None
        self._json_error: FormatError | None = None
        self._json_done = False
        self._offsets: Offsets = {}  # what parsing the JSON learnt about positions
        self.repeated_keys: list[RepeatedKey] = []  # keys an object of the JSON gives twice

    def __repr__(self) -> str:
        return f"Source(<{len(self.data)} bytes>, name={self.name!r})"

    @cached_property
    def text(self) -> str:
        """The content as text (UTF-8, a byte-order mark is dropped); FormatError if not UTF-8
        (UTF-16, Windows editors' "Unicode", named as such, with or without its mark)."""
        order = utf16_byte_order(self.data)
        bom = self.data[:2] in (b"\xff\xfe", b"\xfe\xff")
        try:
            text = self.data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            at = err.start
            message = f"the file is not valid UTF-8 (byte 0x{self.data[at]:02x})"
        else:
            if order is None or "\x00" not in text:
                return text
            # without its mark, UTF-16 of Latin letters is valid UTF-8 byte by byte: JSON then
            # refused it at 1:2 ("expecting property name"), not saying why
            at, message = self.data.index(0), "the file is not UTF-8"
        if self.data[:4] in UTF32_BOMS:  # was called UTF-16 (explore44 21)
            message += ": it is UTF-32 (its byte-order mark); save it as UTF-8"
        elif bom:
            message += ": it is UTF-16 (its byte-order mark); save it as UTF-8"
        elif order is not None:
            message += (
                f": it is UTF-16 ({order}, without a byte-order mark: every other byte is "
                "NUL); save it as UTF-8"
            )
        # UTF-16 is the whole file's encoding, not one byte's fault: said at its start
        whole = order is not None or self.data[:4] in UTF32_BOMS
        line, column = _line_col_of_byte(self.data, 0 if whole else at)
        raise FormatError(
            Problem(message, file=self.name, line=line, column=column, expected="UTF-8 text")
        ) from None

    @property
    def head(self) -> str:
        """The first characters, for sniffing, without failing on bad bytes."""
        return self.data[:4096].decode("utf-8", "replace").lstrip("\ufeff \t\r\n")

    def json(self) -> Any:
        """The parsed JSON value; raises FormatError (with line and column) if it is not JSON."""
        if not self._json_done:
            self._json_done = True
            try:
                self._json = parse_json(
                    self.text, file=self.name, offsets=self._offsets, repeats=self.repeated_keys
                )
            except FormatError as err:
                self._json_error = err
        if self._json_error is not None:
            raise self._json_error
        return self._json

    def is_json(self) -> bool:
        if not self.head.startswith(("{", "[")):
            return False
        try:
            self.json()
        except FormatError:
            return False
        return True

    @cached_property
    def locator(self) -> JsonLocator:
        return JsonLocator(self.text, known=self._offsets)

    @property
    def extension(self) -> str:
        if not self.name:
            return ""
        return Path(self.name).suffix.lstrip(".").lower()


UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")  # little- and big-endian


def utf16_byte_order(data: bytes) -> str | None:
    """``"little-endian"`` or ``"big-endian"`` when ``data`` is UTF-16: by its byte-order mark,
    else by a NUL in every other byte of its first 512 (Latin letters, as JSON, XML and TSV
    files mostly are; a few other characters may have a NUL on the other side)."""
    if data[:2] == b"\xff\xfe":
        return "little-endian"
    if data[:2] == b"\xfe\xff":
        return "big-endian"
    pairs = min(len(data), 512) // 2
    first, second = data[: 2 * pairs : 2].count(0), data[1 : 2 * pairs : 2].count(0)
    if pairs >= 2 and second * 2 > pairs and first * 10 <= pairs:
        return "little-endian"
    if pairs >= 2 and first * 2 > pairs and second * 10 <= pairs:
        return "big-endian"
    return None


def _line_col_of_byte(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


class _NotJson(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON value")


def refuse_constant(name: str) -> Any:
    """``parse_constant`` refusing NaN and Infinity, which JSON has not (said by
    :func:`json_refusal` at their place)."""
    return _refuse_constant(name)


class _TooLarge(_NotJson):
    pass


def finite_float(literal: str) -> float:
    """``parse_float`` refusing a number too large for a float (``1e999`` read as infinity,
    then said to be "inf" or "a float", explore47 F1); :func:`json_refusal` says where."""
    value = float(literal)
    if value in (math.inf, -math.inf):
        raise _TooLarge(f"{literal} is too large a number")
    return value


Offsets = dict[int, "dict[str, int] | list[int] | None"]
"""Offset of a container -> offsets of its children (by key or index), as JsonLocator keeps."""


class RepeatedKeyFound(Exception):  # a signal, not a ValueError (see parse_json)
    """An object gives a key twice (raised by :func:`one_key_each`, caught by parse_json)."""


def one_key_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: the object as a dict; :class:`RepeatedKeyFound` when a key repeats
    (``json`` keeps the last value and drops the others without a word: explore44 1)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        raise RepeatedKeyFound
    return value


class RepeatedKey(NamedTuple):
    """A key an object gives more than once: the object's path, the key, where the repeat is
    (offset of the repeated key's opening quote) and whether the values differ."""

    at: tuple[Step, ...]
    key: str
    offset: int
    differs: bool


def repeated_keys(text: str) -> list[RepeatedKey]:
    """Every repeated object key in the JSON ``text`` (which parses), in text order. A walk in
    Python: only run once the C decoder has seen a repeat."""
    found: list[RepeatedKey] = []
    decode = json.JSONDecoder().raw_decode  # the text parsed (or is a request: NaN allowed)
    skip = _SKIP_WS

    def walk(pos: int, at: tuple[Step, ...]) -> tuple[Any, int]:
        if text.startswith("{", pos):
            seen: dict[str, Any] = {}
            pos = skip(text, pos + 1).end()
            while not text.startswith("}", pos):
                if text.startswith(",", pos):
                    pos = skip(text, pos + 1).end()
                key_at = pos
                key, pos = scanstring(text, pos + 1)
                pos = skip(text, pos).end()
                pos = skip(text, pos + 1).end()  # the ':'
                value, pos = walk(pos, (*at, key))
                if key in seen:
                    found.append(RepeatedKey(at, key, key_at, seen[key] != value))
                seen[key] = value
                pos = skip(text, pos).end()
            return seen, pos + 1
        if text.startswith("[", pos):
            items: list[Any] = []
            pos = skip(text, pos + 1).end()
            while not text.startswith("]", pos):
                if text.startswith(",", pos):
                    pos = skip(text, pos + 1).end()
                item, pos = walk(pos, (*at, len(items)))
                items.append(item)
                pos = skip(text, pos).end()
            return items, pos + 1
        return decode(text, pos)

    walk(skip(text, 0).end(), ())
    return found


def parse_json(
    text: str,
    *,
    file: str | None,
    offsets: Offsets | None = None,
    repeats: list[RepeatedKey] | None = None,
) -> Any:
    """``json.loads`` with errors turned into a located :class:`FormatError`.

    A key an object gives twice is put in ``repeats`` (the value read is ``json.loads``'s:
    the last one); without ``repeats`` it is an error naming the key and where it is.

    With ``offsets``, the top level is decoded one member at a time (each member by the
    decoder's own ``raw_decode``), and where each member starts, and where each item of a
    top-level array (or of an array that is a member of the top-level object) starts, is put
    in ``offsets`` for :class:`JsonLocator`: locating a problem in ``questions[i]`` then does
    not decode the file a second time. Anything unexpected falls back to ``json.loads``, so
    the value, or the error, is always exactly that of ``json.loads``.
    """
    try:
        try:
            if offsets is not None:
                try:
                    return _decode_top_level(text, offsets)
                except (ValueError, IndexError, RecursionError):
                    offsets.clear()  # json.loads below says what is wrong
            return _DECODER.decode(text)
        except RepeatedKeyFound:
            if offsets is not None:
                offsets.clear()
            value = _PLAIN_DECODER.decode(text)
            found = repeated_keys(text)
            if repeats is None:
                first = found[0]
                line, column = JsonLocator(text).position(first.offset)
                raise FormatError(
                    Problem(
                        f"the key {first.key!r} is given twice in this object",
                        file=file,
                        line=line,
                        column=column,
                        path=json_path(first.at),
                        expected="each key once in an object",
                    )
                ) from None
            repeats.extend(found)
            return value
    except json.JSONDecodeError as err:
        if text.startswith("\ufeff") and err.pos == 0:  # one was dropped in decoding
            raise doubled_bom(file) from None
        raise FormatError(
            Problem(
                f"not valid JSON: {json_error_message(err.msg)}",
                file=file,
                line=err.lineno,
                column=err.colno,
                expected="a JSON document",
            )
        ) from None
    except (_NotJson, ValueError, RecursionError) as err:
        # ValueError: an integer too long to convert (Python's int max_str_digits guard).
        raise FormatError(json_refusal(text, err, file)) from None


MAX_JSON_DEPTH = 500
"""Nesting said in the refusal of JSON too deep to parse (the parser gives up at about 990
levels, where Python's recursion limit is; the deepest benchmark file nests 9)."""

_JSON_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]|-?Infinity|NaN|(?<![\w.+-])(-?\d+)(?![.\deE])'
)  # strings skipped whole; group 1: an integer (not a fraction's or an exponent's digits)


def json_refusal(text: str, err: BaseException, file: str | None) -> Problem:
    """What the C decoder refused without a position — NaN or Infinity, an integer past
    Python's digit limit, nesting past the recursion limit — at its line and column, with
    what JSON allows there (explore44 4: Python's "use sys.set_int_max_str_digits()" advice
    reached users). Found by one scan of the text outside strings (an error path only)."""
    if isinstance(err, _TooLarge):
        return _too_large(text, file)
    depth, digits = 0, sys.get_int_max_str_digits()
    deep = isinstance(err, RecursionError)
    constant = isinstance(err, _NotJson)
    for token in _JSON_TOKEN.finditer(text):
        value = token.group()
        if value in "[{":
            depth += 1
            if deep and depth > MAX_JSON_DEPTH:
                message = f"nested more than {MAX_JSON_DEPTH:,} levels deep"
                expected = f"at most {MAX_JSON_DEPTH:,} levels of nested arrays and objects"
                break
        elif value in "]}":
            depth -= 1
        elif constant and value.lstrip("-") in ("NaN", "Infinity"):
            message = f"{value} is not a JSON value"
            expected = "a number (JSON has no NaN or Infinity: null, or leave the value out)"
            break
        elif not constant and not deep and token.group(1) and len(value.lstrip("-")) > digits:
            message = f"an integer of {len(value.lstrip('-')):,} digits"
            expected = f"a number of at most {digits:,} digits (a longer one as a string)"
            break
    else:  # not found (cannot happen): said without a place, never Python's own advice
        message = "nested too deeply" if deep else "a value that cannot be read"
        return Problem(f"not valid JSON: {message}", file=file, expected="a JSON document")
    line = text.count("\n", 0, token.start()) + 1
    column = token.start() - (text.rfind("\n", 0, token.start()) + 1) + 1
    return Problem(
        f"not valid JSON: {message}", file=file, line=line, column=column, expected=expected
    )


_JSON_NUMBER = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')  # strings skipped


def _too_large(text: str, file: str | None) -> Problem:
    """The first number of ``text`` too large for a float, at its line and column."""
    for token in _JSON_NUMBER.finditer(text):
        value = token.group()
        if not value.startswith('"') and float(value) in (math.inf, -math.inf):
            line = text.count("\n", 0, token.start()) + 1
            column = token.start() - (text.rfind("\n", 0, token.start()) + 1) + 1
            return Problem(
                f"not valid JSON: {value} is too large a number",
                file=file,
                line=line,
                column=column,
                expected="a number within about ±1.8e308 (a larger one as a string)",
            )
    return Problem("not valid JSON: a number too large", file=file, expected="a JSON document")


def doubled_bom(file: str | None) -> FormatError:
    """A file starting with two byte-order marks (one is dropped in decoding: the second is
    text, where nothing may be): said so, where JSON said "unexpected UTF-8 BOM (decode using
    utf-8-sig)", naming a Python call, and XML "not well-formed (invalid token)" (explore31
    F17)."""
    return FormatError(
        Problem(
            "a second byte-order mark at the start",
            file=file,
            line=1,
            column=2,
            expected="at most one",
        )
    )


def json_error_message(msg: str) -> str:
    """Python's ``JSONDecodeError.msg`` as a phrase of its own: the message is cut before its
    ": line 93 column 18 (char 2999)" tail, which left "Unterminated string starting at"
    dangling; the position is given apart (``file:line:column``)."""
    if msg.endswith(" starting at"):
        msg = msg.removesuffix(" starting at") + " (it starts here)"
    elif msg.endswith(" at"):  # "Invalid control character at"
        msg = msg.removesuffix(" at") + " here"
    return msg[:1].lower() + msg[1:]


_JSON_WS = re.compile("[ \t\n\r]*")  # JSON's whitespace, as json.loads accepts it
# The pattern matches everywhere (possibly empty), so its ``match`` never gives None.
_SKIP_WS = cast("Callable[[str, int], re.Match[str]]", _JSON_WS.match)
# NaN, Infinity and a number too large for a float (1e999, read as infinity) refused at their
# place, as a request body refuses them (service.web.api.json_body): a dataset or answer file
# read 1e999 as infinity
_DECODER = json.JSONDecoder(
    parse_constant=_refuse_constant, parse_float=finite_float, object_pairs_hook=one_key_each
)
_PLAIN_DECODER = json.JSONDecoder(  # a repeated key: the last one wins
    parse_constant=_refuse_constant, parse_float=finite_float
)


def _decode_top_level(text: str, offsets: Offsets) -> Any:
    """``json.loads(text)`` for an object or array, recording offsets; ValueError otherwise."""
    skip = _SKIP_WS
    value: Any
    start = skip(text, 0).end()
    if text.startswith("[", start):
        value, end = _decode_array(text, start, offsets)
    elif text.startswith("{", start):
        value = {}
        keys: dict[str, int] = {}
        pos = skip(text, start + 1).end()
        while not text.startswith("}", pos):
            if keys and not text.startswith(",", pos):
                raise ValueError("expected ','")
            if keys:
                pos = skip(text, pos + 1).end()
            if not text.startswith('"', pos):
                raise ValueError("expected a key")
            key, pos = scanstring(text, pos + 1)
            pos = skip(text, pos).end()
            if not text.startswith(":", pos):
                raise ValueError("expected ':'")
            pos = skip(text, pos + 1).end()
            if key in keys:
                raise RepeatedKeyFound
            keys[key] = pos
            if text.startswith("[", pos):
                value[key], pos = _decode_array(text, pos, offsets)
            else:
                value[key], pos = _DECODER.raw_decode(text, pos)
            pos = skip(text, pos).end()
        offsets[start] = keys
        end = pos + 1
    else:
        raise ValueError("not an object or array")
    if skip(text, end).end() != len(text):
        raise ValueError("extra data")
    return value


def _decode_array(text: str, start: int, offsets: Offsets) -> tuple[list[Any], int]:
    skip, decode = _SKIP_WS, _DECODER.raw_decode
    items: list[Any] = []
    at: list[int] = []
    pos = skip(text, start + 1).end()
    while not text.startswith("]", pos):
        if at:
            if not text.startswith(",", pos):
                raise ValueError("expected ','")
            pos = skip(text, pos + 1).end()
        at.append(pos)
        item, pos = decode(text, pos)
        items.append(item)
        pos = skip(text, pos).end()
    offsets[start] = at
    return items, pos + 1


_JSON_SPACE = re.compile("[ \t\r\n\ufeff]*")


class JsonLocator:
    """Finds the line and column of a JSON path in the text it was parsed from.

    ``json`` gives no positions, so this walks the text with the decoder's own
    ``raw_decode``, one container at a time, caching the offsets of each container's
    children. A container's children are found by scanning the grandchildren that are
    containers too (not by decoding them whole), so the walk down ``questions[i]`` decodes the
    big array about once; locating many problems in one file costs about one extra parse.
    """

    def __init__(self, text: str, *, known: Offsets | None = None) -> None:
        self.text = text
        # Only the end of each value is wanted: objects become their size (``len``, a C call)
        # instead of dicts, which makes skipping a value about a third faster.
        self._decoder = json.JSONDecoder(object_pairs_hook=len)
        self._children: Offsets = dict(known) if known else {}
        # Offsets whose line is known, with the number of newlines before each (sorted).
        self._known: list[int] = [0]
        self._newlines: list[int] = [0]

    def offset(self, path: Sequence[Step]) -> int:
        """Offset of the value at ``path``, or of the deepest existing container on it."""
        pos = self._skip_ws(0)
        for step in path:
            children = self._children_of(pos)
            found = (
                children.get(step)
                if isinstance(children, dict) and isinstance(step, str)
                else children[step]
                if isinstance(children, list) and isinstance(step, int) and step < len(children)
                else None
            )
            if found is None:
                break
            pos = found
        return pos

    def line_col(self, path: Sequence[Step]) -> tuple[int, int]:
        return self.position(self.offset(path))

    def position(self, offset: int) -> tuple[int, int]:
        """1-based line and column of ``offset``: newlines counted from the nearest offset
        already located before it (problems come mostly in text order: one pass in all)."""
        text = self.text
        index = bisect_right(self._known, offset) - 1
        line = self._newlines[index] + text.count("\n", self._known[index], offset)
        if self._known[index] != offset:
            self._known.insert(index + 1, offset)
            self._newlines.insert(index + 1, line)
        return line + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1

    def _skip_ws(self, pos: int) -> int:
        space = _JSON_SPACE.match(self.text, pos)
        return space.end() if space else pos  # the pattern matches everywhere

    def _children_of(self, pos: int) -> dict[str, int] | list[int] | None:
        if pos in self._children:
            return self._children[pos]
        found: dict[str, int] | list[int] | None = None
        try:
            if self.text.startswith(("{", "["), pos):
                found, _ = self._scan(pos, deeper=True)
        except (ValueError, IndexError, RecursionError):
            found = None  # the text is not JSON here; locate the container instead
        self._children[pos] = found
        return found

    def _scan(self, pos: int, *, deeper: bool) -> tuple[dict[str, int] | list[int], int]:
        """The children's offsets of the container at ``pos``, and the offset after it.

        ``deeper``: a child that is a container is scanned too (its children cached) instead
        of being decoded whole.
        """
        text = self.text
        is_object = text.startswith("{", pos)
        close = "}" if is_object else "]"
        keys: dict[str, int] = {}
        items: list[int] = []
        pos = self._skip_ws(pos + 1)
        while not text.startswith(close, pos):
            if is_object:
                key, pos = scanstring(text, pos + 1)
                pos = self._skip_ws(pos)
                pos = self._skip_ws(pos + 1)  # the ':'
                keys[key] = pos  # a repeated key: the last one wins, as in json.loads
            else:
                items.append(pos)
            if deeper and text.startswith(("{", "["), pos):
                children, end = self._scan(pos, deeper=False)
                self._children[pos] = children
                pos = end
            else:
                _, pos = self._decoder.raw_decode(text, pos)
            pos = self._skip_ws(pos)
            if text.startswith(",", pos):
                pos = self._skip_ws(pos + 1)
        return (keys if is_object else items), pos + 1


def json_path(path: Sequence[Step]) -> str:
    """``("questions", 3, "query", "schemaless ")`` -> ``$.questions[3].query["schemaless "]``."""
    out = ["$"]
    for step in path:
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif step.isidentifier():
            out.append(f".{step}")
        else:
            out.append("[" + json.dumps(step, ensure_ascii=False) + "]")
    return "".join(out)


class _Finding(NamedTuple):
    message: str
    severity: Severity
    at: tuple[Step, ...] | None
    xml_path: str | None
    line: int | None
    column: int | None
    question_id: str | None
    expected: str | None


class Where(TypedDict, total=False):
    """Where a finding is (a JSON path ``at``, or an XML path, line and column), the question
    it concerns and what was expected there; every key optional."""

    at: Sequence[Step] | None
    xml_path: str | None
    line: int | None
    column: int | None
    question_id: str | None
    expected: str | None


GROUPED_SHOWN = 10  # items a grouped warning names (:meth:`Report.warn_each`); then "and N more"


class Report:
    """Collects a reader's findings; :meth:`finish` raises one FormatError for the fatal ones.

    JSON findings are given as a path (``at``) and located lazily, once, at the end: most files
    have no problem, and locating costs a second walk over the text.
    """

    def __init__(self, source: Source) -> None:
        self.source = source
        self._findings: list[_Finding] = []
        self._dropped = 0
        self.answers = 0  # answers counted so far (:meth:`count_answers`)
        # warnings said once for every question they concern (:meth:`warn_each`)
        self._grouped: dict[tuple[str, str | None], list[str]] = {}
        self._repeats_taken = False
        self.integer_ids: list[str] = []  # question ids the JSON gave as integers

    def _take_repeated_keys(self) -> None:
        """The JSON's repeated keys as findings (once): an error where the values differ (one
        of them is lost whichever is read), a warning where the value is the same again."""
        if self._repeats_taken:
            return
        self._repeats_taken = True
        for repeat in self.source.repeated_keys:
            line, column = self.source.locator.position(repeat.offset)
            self._add(
                "error" if repeat.differs else "warning",
                f"the key {repeat.key!r} is given twice in this object"
                + (
                    " with different values: one of them would be lost"
                    if repeat.differs
                    else " with the same value (read once)"
                ),
                at=repeat.at,
                line=line,
                column=column,
                expected="each key once in an object",
            )

    def error(self, message: str, **where: Unpack[Where]) -> None:
        self._add("error", message, **where)

    def warn(self, message: str, **where: Unpack[Where]) -> None:
        self._add("warning", message, **where)

    def warn_each(self, message: str, item: str, *, expected: str | None = None) -> None:
        """One warning for every question it concerns: ``message`` is said once, when the
        report is finished, followed by each ``item`` given with it (``question 3: "abc"``):
        a file with a hundred of one small slip reads as one line, not a hundred."""
        self._grouped.setdefault((message, expected), []).append(item)

    def _add(
        self,
        severity: Severity,
        message: str,
        *,
        at: Sequence[Step] | None = None,
        xml_path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        question_id: str | None = None,
        expected: str | None = None,
    ) -> None:
        if len(self._findings) >= self.source.limits.max_problems:
            self._dropped += 1
            return
        where = tuple(at) if at is not None else None
        self._findings.append(
            _Finding(message, severity, where, xml_path, line, column, question_id, expected)
        )

    def count_answers(self, count: int, **where: Unpack[Where]) -> None:
        """Count one question's ``count`` answers against the limits, before they are built;
        past a limit, raise the FormatError at once (reading stops there) naming the file, the
        position (``where``: a JSON path, a line and column, the question id) and the limit."""
        limits = self.source.limits
        self.answers += count
        qid = where.get("question_id")
        question = f"question {qid!r}" if qid is not None else "a question"
        if count > limits.max_answers_per_question:
            limit = limits.max_answers_per_question
            message = (
                f"{question} has {count:,} answers, more than the limit per question; "
                "the file was not read further"
            )
            expected = _at_most(limit, "answer", "answers", "question", ANSWERS_PER_QUESTION_ENV)
        elif self.answers > limits.max_answers_per_file:
            limit = limits.max_answers_per_file
            message = (
                f"the answers up to {question} number {self.answers:,}, more than the limit "
                "per file; the file was not read further"
            )
            expected = _at_most(limit, "answer", "answers", "file", ANSWERS_PER_FILE_ENV)
        else:
            return
        at = where.get("at")
        self._findings.append(  # past max_problems too: this one must be said
            _Finding(
                message,
                "error",
                tuple(at) if at is not None else None,
                where.get("xml_path"),
                where.get("line"),
                where.get("column"),
                qid,
                expected,
            )
        )
        self.finish()

    @property
    def has_errors(self) -> bool:
        self._take_repeated_keys()
        return any(f.severity == "error" for f in self._findings)

    def problems(self) -> list[Problem]:
        self._take_repeated_keys()
        out = []
        for f in self._findings:
            line, column, path = f.line, f.column, f.xml_path
            if f.at is not None:
                path = json_path(f.at)
                if line is None:
                    line, column = self.source.locator.line_col(f.at)
            out.append(
                Problem(
                    f.message,
                    severity=f.severity,
                    file=self.source.name,
                    line=line,
                    column=column,
                    path=path,
                    question_id=f.question_id,
                    expected=f.expected,
                )
            )
        for (message, expected), items in self._grouped.items():
            shown = "; ".join(items[:GROUPED_SHOWN])
            if len(items) > GROUPED_SHOWN:
                shown += f"; and {len(items) - GROUPED_SHOWN} more"
            out.append(
                Problem(
                    # a count only where there are several (a bare "(1)" read as a footnote)
                    f"{message} ({len(items)}): {shown}"
                    if len(items) > 1
                    else f"{message}: {shown}",
                    severity="warning",
                    file=self.source.name,
                    expected=expected,
                )
            )
        if self._dropped:
            out.append(
                Problem(
                    f"{self._dropped} more problems not listed "
                    f"(limit: {self.source.limits.max_problems} per file)",
                    severity="error" if self.has_errors else "warning",
                    file=self.source.name,
                )
            )
        return out

    def finish(self) -> tuple[Problem, ...]:
        """The non-fatal problems; raises FormatError listing every problem if any is fatal."""
        problems = self.problems()
        if any(p.severity == "error" for p in problems):
            errors = [p for p in problems if p.severity == "error"]
            warnings = [p for p in problems if p.severity != "error"]
            raise FormatError(errors + warnings)
        return tuple(problems)


def fail(src: Source, message: str, **where: Any) -> NoReturn:
    """Raise a FormatError for one fatal problem in ``src`` (``where``: Problem fields)."""
    raise FormatError(Problem(message, file=src.name, **where))


def check_question_count(report: Report, count: int, *, at: Sequence[Step] | None = None) -> bool:
    """False (and an error) when a file holds more questions than the limits allow. Every
    format counts its items here (questions, entries, lines) before it reads any of them:
    scoring and recording cost memory per question (:data:`MAX_QUESTIONS_PER_FILE`). ``at``:
    the JSON path of the list (None: the file is not JSON)."""
    limit = report.source.limits.max_questions_per_file
    if count > limit:
        report.error(
            f"the file has {count:,} questions, more than the limit per file; "
            "none of them was read",
            at=at,
            expected=_at_most(limit, "question", "questions", "file", QUESTIONS_PER_FILE_ENV),
        )
        return False
    return True


def dumps(value: Any) -> bytes:
    """JSON with one question (list item) a line: readable, diff-friendly, and fast.

    ``json.dumps(indent=…)`` falls back to the pure-Python encoder (about 5x slower on QALD-9
    train), so only the outer levels are laid out here; each item is encoded by the C encoder,
    to UTF-8 at once, and the parts joined once: the file costs twice its size while written,
    not five times (a 524 MB archive of 10 MB queries peaked past 2.5 GB, explore46 2).
    """
    encode = json.JSONEncoder(ensure_ascii=False).encode

    def raw(item: Any) -> bytes:
        text = encode(item)
        if not text.isascii():  # a lone surrogate (half an emoji a service sent) has no UTF-8:
            # written as its JSON escape, which reads back as it was (explore31 F13)
            text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
        return text.encode("utf-8")

    def items(values: list[Any], indent: bytes) -> list[bytes]:
        parts: list[bytes] = []
        for number, item in enumerate(values):
            parts += (b",\n" if number else b"", indent, raw(item))
        return parts

    if isinstance(value, list):
        if not value:
            return b"[]\n"
        return b"".join([b"[\n", *items(value, b"  "), b"\n]\n"])
    if isinstance(value, dict):
        if not value:
            return b"{}\n"
        parts: list[bytes] = [b"{\n"]
        for number, (key, item) in enumerate(value.items()):
            parts += (b",\n" if number else b"", b"  ", raw(key), b": ")
            if isinstance(item, list) and item:
                parts += (b"[\n", *items(item, b"    "), b"\n  ]")
            else:
                parts.append(raw(item))
        parts.append(b"\n}\n")
        return b"".join(parts)
    return raw(value) + b"\n"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
