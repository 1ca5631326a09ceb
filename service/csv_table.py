"""The one CSV writer: every CSV the web serves and the command line writes (RFC 4180).

Records end with CRLF (RFC 4180 §2.1), a text cell a spreadsheet would run as a formula gets
a leading ``'`` (:func:`inert`), and so does a text cell that starts with ``'`` itself, so a
reader gets every text cell back by taking one leading ``'`` off (:func:`cell_text`). A cell
holding several items (a question's given and gold answers, its matches, an experiment's
systems) joins them with `` | `` by one rule that reads back (:func:`items_cell`,
:func:`split_items`): inside an item, ``\\`` is written ``\\\\``, ``|`` is written ``\\|`` and a
leading ``'`` is written ``\\'``, so every ``|`` left unescaped is a separator and a cell's
leading ``'`` is always the guard; a consumer that splits on `` | `` is right wherever no item
holds ``|`` or ``\\`` and no cell starts with ``'``.

>>> items_cell(["Jupiter | Saturn", "C:\\\\x", "plain"])
'Jupiter \\\\| Saturn | C:\\\\\\\\x | plain'
>>> split_items(items_cell(["Jupiter | Saturn", "C:\\\\x", "plain"]))
['Jupiter | Saturn', 'C:\\\\x', 'plain']
>>> [inert(items_cell(i)) for i in (["=1+1 x", "b"], ["'=1+1 x", "b"])]
["'=1+1 x | b", "\\\\'=1+1 x | b"]
>>> [split_items(inert(items_cell(i))) for i in (["=1+1 x", "b"], ["'=1+1 x", "b"])]
[['=1+1 x', 'b'], ["'=1+1 x", 'b']]
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

LINE_END = "\r\n"  # RFC 4180 §2.1
SEPARATOR = " | "

# A spreadsheet cell holds 32,767 characters and Python's csv module reads 131,072 by
# default: one DB25 gold set is 4,498 IRIs (201 KB), which stopped csv.DictReader.
CSV_CELL_CHARS = 32_767

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
GUARD = "'"  # what a cell a spreadsheet would run (or a cell starting with it) is prefixed with


def write_csv(stream: TextIO, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """``header`` and ``rows`` as CSV to ``stream`` (None: an empty cell)."""
    writer = csv.writer(stream, lineterminator=LINE_END)
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else inert(v) for v in row])


def csv_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """``header`` and ``rows`` as a CSV document in UTF-8."""
    out = io.StringIO(newline="")
    write_csv(out, header, rows)
    return out.getvalue().encode("utf-8")


def inert(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula (a question, a system's name or an
    answer someone uploaded: ``=HYPERLINK(...)``) gets a leading ``'``, which spreadsheets
    show as text (OWASP's CSV injection advice); a number written as text (``-1``) is left as
    it is. A text cell that starts with ``'`` gets one more, so that taking one leading ``'``
    off (:func:`cell_text`) gives back every text cell: ``=x`` and ``'=x`` were both written
    ``'=x`` (explore31 F9).

    >>> [inert(v) for v in ("=1+2", "@SUM(A1)", "-1", "-2e3", "-x", "plain", -4, "'=1", "'a")]
    ["'=1+2", "'@SUM(A1)", '-1', '-2e3', "'-x", 'plain', -4, "''=1", "''a"]
    """
    if not isinstance(value, str):
        return value
    if value.startswith(GUARD):
        return GUARD + value
    if not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
    except ValueError:
        return GUARD + value
    return value


def cell_text(cell: str) -> str:
    """A text cell as it was before :func:`inert` (one leading ``'`` taken off)."""
    return cell[len(GUARD) :] if cell.startswith(GUARD) else cell


def escape_item(item: str) -> str:
    """One item of a multi-item cell: ``\\`` as ``\\\\``, ``|`` as ``\\|``, a leading ``'`` as
    ``\\'`` (so a cell's own leading ``'`` is always :func:`inert`'s guard)."""
    escaped = item.replace("\\", "\\\\").replace("|", "\\|")
    return "\\" + escaped if escaped.startswith(GUARD) else escaped


def items_cell(items: Sequence[str]) -> str:
    """``items`` escaped (:func:`escape_item`) and joined by `` | ``; the first that fit in a
    spreadsheet's cell, then an item ``… N more`` (the counts and the RDF have them all)."""
    escaped = [escape_item(i) for i in items]
    joined = SEPARATOR.join(escaped)
    if len(joined) <= CSV_CELL_CHARS:
        return joined
    kept: list[str] = []
    used = 0
    for item in escaped:
        used += len(item) + len(SEPARATOR)
        if used > CSV_CELL_CHARS - 40:  # room for the note
            break
        kept.append(item)
    return SEPARATOR.join([*kept, f"… {len(items) - len(kept)} more"])


def split_items(cell: str) -> list[str]:
    """The items of a cell :func:`items_cell` wrote, as the CSV has it (the guard's leading
    ``'`` taken off first, :func:`cell_text`), or as :func:`items_cell` returned it (an empty
    cell: none)."""
    cell = cell_text(cell)
    if cell == "":
        return []
    items: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(cell):
        ch = cell[i]
        if ch == "\\" and i + 1 < len(cell):
            current.append(cell[i + 1])
            i += 2
            continue
        if cell.startswith(SEPARATOR, i):
            items.append("".join(current))
            current = []
            i += len(SEPARATOR)
            continue
        current.append(ch)
        i += 1
    items.append("".join(current))
    return items
