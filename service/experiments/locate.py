"""Where in its file a refused dataset value is (explore31 F7, F8).

A dataset is refused for a character no RDF/XML document can carry after it was read, from
the model, which keeps no positions: the refusal named the file and the question only, where a
reader's warning for the same character in an answer file names ``file:line:column`` and the
JSON path. A refusal is rare, so the file is read again then, and each refused value found in
it: a JSON file's string equal to the value (else the first one holding the same character),
located by its path; a TSV file's line (a question's id is its line number), the texts of a
PolEval pair in its in.tsv; any other file, the character's first occurrence not yet named.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from service.errors import Problem, ServiceError

if TYPE_CHECKING:
    from service.experiments.inputs import Files
    from service.experiments.spec import FileDataset
    from service.formats.base import Source, Step


@dataclass(frozen=True)
class Refused:
    """A value refused: its problem (file and question named), the value and its character
    (the match in the value), and whether it is a question's text (a PolEval pair's in.tsv)."""

    problem: Problem
    value: str
    found: re.Match[str] | None
    text: bool = False


# the dataset file and, for a PolEval expected.tsv, its in.tsv, read again (None: not at hand)
Sources = Callable[[], "tuple[Source | None, Source | None]"]


def sources_of(source: FileDataset, files: Files) -> Sources:
    """The files of ``source`` as ``files`` reads them, read again when asked."""

    def read() -> tuple[Source | None, Source | None]:
        from service.formats.base import Source
        from service.formats.tsv import in_beside

        ref = source.file
        main = Source(files.data(ref), name=_name(ref.path, ref.name))
        texts = None
        if source.questions is not None:
            q = source.questions
            texts = Source(files.data(q), name=_name(q.path, q.name))
        elif ref.path is not None and (beside := in_beside(Path(ref.path))) is not None:
            texts = Source(beside.read_bytes(), name=str(beside))
        return main, texts

    return read


def sources_at(path: str | Path) -> Sources:
    """A file given by its path (``gerbil-qa validate``), with the in.tsv beside it."""

    def read() -> tuple[Source | None, Source | None]:
        from service.formats.base import Source
        from service.formats.tsv import in_beside

        main = Source(Path(path).read_bytes(), name=str(path))
        beside = in_beside(Path(path)) if str(path).lower().endswith(".tsv") else None
        texts = Source(beside.read_bytes(), name=str(beside)) if beside is not None else None
        return main, texts

    return read


def _name(path: str | None, name: str) -> str:
    return path or PurePosixPath(name).name or name


def located(refused: Sequence[Refused], sources: Sources | None, fmt: str | None) -> list[Problem]:
    """The problems of ``refused``, each with the file, line, column and path of its value
    where it is found; as they were where it is not (or the files cannot be read again)."""
    if sources is None:
        return [r.problem for r in refused]
    try:
        main, texts = sources()
    except (OSError, ServiceError):  # a position helps; the refusal is said without one
        return [r.problem for r in refused]
    if main is None:
        return [r.problem for r in refused]
    if fmt == "tsv":
        return [_in_tsv(r, main, texts) for r in refused]
    try:
        doc = main.json() if main.head.startswith(("{", "[")) else None
    except ServiceError:  # not JSON after all: found by its character
        doc = None
    if doc is not None:
        return _in_json(refused, main, doc)
    return _in_text(refused, main)


def _in_tsv(r: Refused, main: Source, texts: Source | None) -> Problem:
    """A TSV file's question is its line (its id); a PolEval pair's texts are in its in.tsv."""
    src = texts if r.text and texts is not None else main
    qid = r.problem.question_id
    if qid is None or not qid.isdigit():
        return r.problem
    from service.formats.tsv import in_texts

    lines = in_texts(src.data)  # split at LF only: U+000B, U+0085, U+2028… are no line ends
    line = int(qid)
    if not 0 < line <= len(lines):
        return r.problem
    column = _column(lines[line - 1], r)
    return replace(r.problem, file=src.name or r.problem.file, line=line, column=column)


def _column(line: str, r: Refused) -> int:
    """The 1-based column of ``r``'s character in ``line`` (its value's place, else the
    character's first), or 1."""
    at = line.find(r.value) if r.value else -1
    if at >= 0 and r.found is not None:
        return at + r.found.start() + 1
    if r.found is not None and (bad := line.find(r.found.group())) >= 0:
        return bad + 1
    return max(at, 0) + 1


def _in_json(refused: Sequence[Refused], main: Source, doc: Any) -> list[Problem]:
    from service.formats.base import json_path

    wanted = {r.found.group() for r in refused if r.found is not None}
    strings = [(at, s) for at, s in _strings(doc, ()) if any(c in s for c in wanted)]
    used: set[int] = set()
    out = []
    for r in refused:
        pick = next((i for i, (_, s) in enumerate(strings) if i not in used and s == r.value), None)
        if pick is None and r.found is not None and not r.found.group().isspace():
            bad = r.found.group()
            pick = next((i for i, (_, s) in enumerate(strings) if i not in used and bad in s), None)
        if pick is None:
            out.append(r.problem)
            continue
        used.add(pick)
        at = strings[pick][0]
        line, column = main.locator.line_col(at)
        out.append(replace(r.problem, line=line, column=column, path=json_path(at)))
    return out


def _strings(value: Any, at: tuple[Step, ...]) -> Iterator[tuple[tuple[Step, ...], str]]:
    """Every string of a JSON value with its path, in the file's order."""
    if isinstance(value, str):
        yield at, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*at, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*at, i))


def _in_text(refused: Sequence[Refused], main: Source) -> list[Problem]:
    """Any other file: each character's first occurrence not yet named, by line and column."""
    text = main.text
    used: set[int] = set()
    out = []
    for r in refused:
        if r.found is None or r.found.group().isspace():
            out.append(r.problem)
            continue
        bad, start = r.found.group(), 0
        while (at := text.find(bad, start)) >= 0 and at in used:
            start = at + 1
        if at < 0:
            out.append(r.problem)
            continue
        used.add(at)
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        out.append(replace(r.problem, line=line, column=column))
    return out
