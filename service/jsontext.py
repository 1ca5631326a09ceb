"""JSON from elsewhere (a system's answer, a SPARQL endpoint's results): ``json.loads`` with
one more failure turned into a reason. Python's reader recurses, so a text nested some thousand
arrays deep raises :class:`RecursionError`, which no caller expects and which ended whole runs
(explore46 1); :func:`loads` raises :class:`TooDeep`, a :class:`ValueError`, saying how deep."""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"?', re.DOTALL)  # brackets in them are text
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = [0] * 256  # what each bracket does to the depth
for _open, _close in (b"[]", b"{}"):
    _STEP[_open], _STEP[_close] = 1, -1


class TooDeep(ValueError):
    """The text nests arrays and objects deeper than Python's JSON reader goes."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        super().__init__(f"nested too deeply to read ({depth} levels of arrays and objects)")


def nesting(text: str | bytes) -> int:
    """How many arrays and objects deep ``text`` goes at its deepest (strings skipped). The
    work is the regular expression's and ``bytes.translate``'s, then one running sum: 16 MiB of
    brackets take under a second (a token loop in Python took five)."""
    data = text.encode("utf-8", "replace") if isinstance(text, str) else bytes(text)
    brackets = _STRINGS.sub(b"", data).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def loads(text: str | bytes, **options: Any) -> Any:
    """``json.loads(text, **options)``; :class:`TooDeep` where that recursed too deeply."""
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise TooDeep(nesting(text)) from None
