"""``gerbil-qa validate`` and ``gerbil-qa convert``: check and translate benchmark files."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from service.cli import add_limits, language_tag
from service.errors import BadRequest, Conflict, FormatError, Problem
from service.model import Dataset


def register(subparsers: argparse._SubParsersAction) -> None:
    from service.formats import FORMATS

    names = ", ".join(FORMATS)
    validate = subparsers.add_parser(
        "validate",
        help="report every problem in a dataset or answer file",
        description="Read FILE and print every problem found, one a line "
        "(file:line:col: path: question id: severity: message), then a summary. "
        "Exit status 1 when a problem is fatal (the file cannot be used), else 0.",
    )
    validate.add_argument("file", metavar="FILE")
    validate.add_argument("--format", metavar="F", help=f"skip sniffing: one of {names}")
    validate.add_argument(
        "--lang",
        metavar="LANG",
        type=language_tag,
        help="language of texts the file leaves untagged",
    )
    add_limits(validate)
    validate.set_defaults(handler=_validate)

    convert = subparsers.add_parser(
        "convert",
        help="convert a dataset or answer file to another format",
        description="Read IN and write it to OUT ('-' for standard output) as FORMAT. "
        "What FORMAT cannot carry is listed on standard error.",
    )
    convert.add_argument("input", metavar="IN")
    convert.add_argument("output", metavar="OUT")
    convert.add_argument("--to", required=True, metavar="FORMAT", help=f"one of {names}")
    convert.add_argument("--from", dest="source_format", metavar="FORMAT", help="skip sniffing")
    convert.add_argument(
        "--lang",
        metavar="LANG",
        type=language_tag,
        help="language of texts the input leaves untagged",
    )
    convert.set_defaults(handler=_convert)


def _validate(args: argparse.Namespace) -> int:
    from service.experiments.inputs import check_unique_ids, refuse_unwritable
    from service.experiments.locate import sources_at
    from service.formats import read, tsv
    from service.formats.base import Source
    from service.formats.fields import DUPLICATE_ID

    questions = 0
    problems: tuple[Problem, ...] = ()
    try:
        # an expected.tsv's in.tsv as `evaluate` and an upload check it: one text a line, no
        # JSON or XML file (a result set was read as 20 question texts, explore44 F14)
        beside = tsv.in_beside(Path(args.file)) if args.format in (None, tsv.NAME) else None
        if beside is not None:
            tsv.refuse_columns(
                Source(beside.read_bytes(), name=str(beside)), Path(args.file).read_bytes()
            )
        dataset = read(args.file, format=args.format, language=args.lang, gold=True)
        problems = (*dataset.problems, *_ids_with_controls(dataset, str(args.file)))
        questions = len(dataset)
        if not questions:  # `[]` was "0 questions, 0 errors", exit 0 (explore44 13)
            raise FormatError(
                Problem(
                    "the file holds no questions: as a dataset it cannot be run, and as answers "
                    "it answers none",
                    file=str(args.file),
                    expected="at least one question",
                )
            )
        # what a run refuses, said here too: it said "0 errors" of a control character that
        # `evaluate` and the API refuse (explore31 F6)
        refused: list[Problem] = []
        for check in (
            lambda: refuse_unwritable(dataset, str(args.file), sources=sources_at(args.file)),
            # and repeated question ids, which an upload and `evaluate --store` refuse: it
            # passed them as a warning, exit 0 (explore44 F2); said once, as the error
            lambda: check_unique_ids(dataset),
        ):
            try:
                check()
            except FormatError as err:
                refused += err.problems
        if refused:
            raise FormatError(refused)
    except FormatError as err:
        kept = _not_said_again(problems if questions else (), err.problems)
        if any(p.message.startswith(DUPLICATE_ID) for p in err.problems):
            kept = tuple(p for p in kept if not p.message.startswith(DUPLICATE_ID))
        problems = (*kept, *err.problems)
    for problem in problems:
        print(problem)
    errors = sum(1 for p in problems if p.severity == "error")
    warnings = len(problems) - errors
    print(
        f"{_count(questions, 'question')}, {_count(errors, 'error')}, {_count(warnings, 'warning')}"
    )
    return 1 if errors else 0


def _not_said_again(
    warnings: tuple[Problem, ...], refused: Sequence[Problem]
) -> tuple[Problem, ...]:
    """The reader's problems but a warning that a value is "kept … stored with U+FFFD" where a
    run refuses that value (a control character in gold): it was said twice at one place, as a
    warning and as the error, which contradicted it (explore44 6)."""
    places = {(p.line, p.column, p.path) for p in refused if p.severity == "error"}
    return tuple(
        p
        for p in warnings
        if not (
            p.severity == "warning"
            and "U+FFFD in its place" in p.message
            and (p.line, p.column, p.path) in places
        )
    )


def _ids_with_controls(dataset: Dataset, file: str) -> list[Problem]:
    """Warnings of a dataset id or question ids holding a control character (a newline, a
    tab), which XML carries and so nothing refused: written where an id goes (a LaTeX comment,
    a line of text), a newline ended the line and its rest was read as LaTeX (explore55 F9)."""
    import unicodedata

    def control(value: str | None) -> str | None:
        found = next((c for c in value or "" if unicodedata.category(c) == "Cc"), None)
        return None if found is None else f"U+{ord(found):04X}"

    expected = "an id without control characters (newlines, tabs)"
    said = []
    if code := control(dataset.id):
        said.append(
            Problem(
                f"the dataset id {dataset.id!r} holds a control character {code}: written where "
                "an id goes (a LaTeX comment, a line of a table) it breaks the line",
                severity="warning",
                file=file,
                expected=expected,
            )
        )
    ids = [q.id for q in dataset.questions if control(q.id)]
    if ids:
        shown = ", ".join(repr(i) for i in ids[:5]) + (", …" if len(ids) > 5 else "")
        said.append(
            Problem(
                f"{_count(len(ids), 'question id')} "
                f"{'holds' if len(ids) == 1 else 'hold'} a control character ({shown}): "
                "written where an id goes (a LaTeX comment, a line of a table) it breaks the line",
                severity="warning",
                file=file,
                expected=expected,
            )
        )
    return said


def _count(n: int, noun: str) -> str:
    """``1 error``, ``0 errors``, ``2 errors``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _repeats_an_id(dataset: Dataset) -> bool:
    seen: set[str] = set()
    for question in dataset.questions:
        if question.id in seen:
            return True
        seen.add(question.id)
    return False


def _convert(args: argparse.Namespace) -> int:
    from service.experiments.inputs import check_unique_ids
    from service.formats import get, losses, read, tsv, write

    target = get(args.to)
    if args.output != "-":
        _check_output(Path(args.output), Path(args.input))
    dataset = read(args.input, format=args.source_format, language=args.lang)
    if args.lang is None and not any(lang for q in dataset.questions for lang in q.languages):
        from service.catalog import texts_language_of_file

        # a TSV's texts name no language: its format's, as evaluate and system read them
        # (PolEval's in.tsv: pl; they were written "language": ""; explore54 F6)
        own = texts_language_of_file(args.input, dataset.format)
        if own is not None:
            dataset = read(args.input, format=args.source_format, language=own)
    dropped = losses(dataset, target.name)
    extra_files: list[tuple[Path, bytes]] = []
    if target.name == tsv.NAME and args.output != "-":
        out = Path(args.output)
        # a text may name only its language (a TEXT2SPARQL item converted to QALD): no question
        has_texts = any(t.string for q in dataset.questions for t in q.texts)
        if has_texts and tsv.role_of(out.name) != tsv.IN:
            # TSV keeps the questions in a file of their own, beside the answers.
            questions = out.with_name("in.tsv")
            content = tsv.write_in(dataset, language=args.lang or "en")
            _check_output(questions, Path(args.input))
            _refuse_to_replace(questions, content, named=out)
            extra_files.append((questions, content))
            dropped = [d for d in dropped if not d.startswith(tsv.TEXTS_LOSS)]
    data = write(dataset, target.name)
    # a repeated question id is refused, as validate and an upload refuse it, where the file
    # written would not hold every question: nlq-json kept one per id, the second was lost and
    # the file validated clean (explore47 F6); qald-json keeps them sharing the id, and a
    # result set written from such a file is whole again, so those convert, with the warning
    if _repeats_an_id(dataset) and len(read(data, format=target.name)) < len(dataset):
        check_unique_ids(dataset)
    if args.output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        for path, content in [(Path(args.output), data), *extra_files]:
            print(f"gerbil-qa: wrote {_write(path, content)}", file=sys.stderr)
    warnings = sum(1 for p in dataset.problems if p.severity == "warning")
    print(
        f"gerbil-qa: {_count(len(dataset), 'question')} from {dataset.format} to {target.name}"
        + (
            f" ({_count(warnings, 'warning')} on reading; see gerbil-qa validate)"
            if warnings
            else ""
        ),
        file=sys.stderr,
    )
    for what in dropped:
        print(f"gerbil-qa: dropped: {what}", file=sys.stderr)
    if note := _no_language_note(dataset, target.name):
        print(f"gerbil-qa: note: {note}", file=sys.stderr)
    return 0


# the formats that write each question text's language, an empty one as it is ("language":
# "", lang="", a '' key); the others write no text (result-set-json), no language (tsv's
# in.tsv, text2sparql-answers) or English texts only (lcquad-json: "dropped" says so)
_TEXT_LANGUAGES = frozenset({"eqald-json", "qald-json", "qald-xml", "nlq-json", "text2sparql-yaml"})


def _no_language_note(dataset: Dataset, target: str) -> str | None:
    """What to say when a TSV's question texts are written without a language: a TSV carries
    none, so they were written as ``"language": ""`` without a word (reading them back warns
    of each); ``--lang`` sets it (the language of texts the input leaves untagged). Only
    where no language is known: a TSV of a format a profile is made for (PolEval's) is read in
    its language (:func:`service.catalog.texts_language_of_file`)."""
    if dataset.format != "tsv" or target not in _TEXT_LANGUAGES:
        return None
    untagged = sum(1 for q in dataset.questions for t in q.texts if not t.language and t.string)
    if not untagged:  # --lang given, or no in.tsv: no texts
        return None
    return (
        f"the TSV carries no language: {_count(untagged, 'question text')} written with an "
        "empty language (reading the file back warns of each); give --lang LANG "
        "(e.g. --lang en) to set it"
    )


def _check_output(out: Path, source: Path) -> None:
    """Refuse, before anything is read or written, an OUT that is IN (it was overwritten: the
    gold answers gone for good writing a format without them; explore44 5), a folder, in a
    folder that does not exist, or a read-only file (it was replaced, and came back writable;
    explore44 18): each said with OUT's name, not as a traceback."""
    if out.resolve() == source.resolve() or (
        out.exists() and source.exists() and os.path.samefile(out, source)
    ):
        raise BadRequest(
            f"{out}: is the input file {source}: not overwritten "
            "(expected another file to write; the input is kept as it is)"
        )
    from service.cli.output import check_output

    check_output(out)


def _refuse_to_replace(path: Path, content: bytes, *, named: Path) -> None:
    """A file the command line did not name is written only where none is, or the same one
    is (a conversion run again): another dataset's or a user's ``in.tsv`` is never lost."""
    if path.exists() and (not path.is_file() or path.read_bytes() != content):
        raise Conflict(
            f"{path} exists and holds other questions than {named}'s: not replaced "
            f"(expected no {path.name} beside {named}: remove or move it, "
            "or write OUT into another folder)"
        )


def _write(path: Path, data: bytes) -> str:
    """``path`` replaced whole, or streamed where it is a pipe or a device
    (:func:`service.cli.output.write_output`); what was written, for "wrote …"."""
    from service.cli.output import write_output

    return write_output(path, data)
