"""JSON from elsewhere (a system's answer, a SPARQL endpoint's results): ``json.loads`` with
one more failure turned into a reason. Python's reader recurses, so a text nested some thousand
arrays deep raises :class:`RecursionError`, which no caller expects and which ended whole runs
(explore46 1); :func:`loads` raises :class:`TooDeep`, a :class:`ValueError`, saying how deep."""

from __future__ import annotations

import json
import re
from typing import Any

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[{]|[\]}]', re.DOTALL)


class TooDeep(ValueError):
    """The text nests arrays and objects deeper than Python's JSON reader goes."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        super().__init__(f"nested too deeply to read ({depth} levels of arrays and objects)")


def nesting(text: str | bytes) -> int:
    """How many arrays and objects deep ``text`` goes at its deepest (strings skipped)."""
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", "replace")
    depth = deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def loads(text: str | bytes, **options: Any) -> Any:
    """``json.loads(text, **options)``; :class:`TooDeep` where that recursed too deeply."""
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise TooDeep(nesting(text)) from None
