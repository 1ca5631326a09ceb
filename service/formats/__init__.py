"""Read and write QA benchmark files: one registry of formats, one way in and out.

>>> from service.formats import read, write
>>> ds = read(b'{"questions": [{"id": 1, "question": [{"language": "en", "string": "Hi?"}]}]}')
>>> ds.format, ds.questions[0].id, ds.questions[0].text("en")
('qald-json', '1', 'Hi?')
>>> read(write(ds, "qald-json")).questions == ds.questions
True

Every format is one module with one :class:`~service.formats.base.Format` descriptor, listed
in :data:`FORMATS` (the order is the sniffing order: most specific first). Importing this
package is cheap (``json`` only; XML support loads ``defusedxml`` when first used).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from service.errors import FormatError, Problem
from service.formats import (
    eqald_json,
    lcquad_json,
    nlq_json,
    qald_json,
    qald_xml,
    result_set_json,
    text2sparql,
    text2sparql_answers,
    text2sparql_yaml,
    tsv,
)
from service.formats.base import (
    UNLIMITED,
    UTF32_BOMS,
    Format,
    Limits,
    Source,
    utf16_byte_order,
)
from service.formats.fields import integer_ids
from service.model import Dataset

__all__ = [
    "FORMATS",
    "UNLIMITED",
    "Format",
    "FormatError",
    "Limits",
    "get",
    "losses",
    "read",
    "sniff",
    "write",
]

FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        eqald_json.FORMAT,
        qald_json.FORMAT,
        nlq_json.FORMAT,
        lcquad_json.FORMAT,
        text2sparql_answers.FORMAT,
        result_set_json.FORMAT,
        qald_xml.FORMAT,
        text2sparql_yaml.FORMAT,
        tsv.FORMAT,
    )
}
"""Every format by name, in sniffing order."""


def get(name: str) -> Format:
    """The format called ``name`` (or serving media type ``name``); FormatError if none."""
    wanted = name.strip().lower()
    if wanted in FORMATS:
        return FORMATS[wanted]
    from service.mediatypes import bare  # only for a media type (the import is not free)

    for fmt in FORMATS.values():
        if bare(wanted) in fmt.media_types[:1]:
            return fmt
    raise FormatError(Problem(f"unknown format {name!r}", expected="one of " + ", ".join(FORMATS)))


def read(
    source: str | Path | bytes,
    *,
    format: str | None = None,
    name: str | None = None,
    language: str | None = None,
    limits: Limits | None = None,
    answers: bool = False,
    questions: tuple[str, bytes] | None = None,
    gold: bool = False,
) -> Dataset:
    """Read a dataset (or a system's answer file) from a path or from bytes.

    ``format`` is sniffed when not given (content first, then the file extension). ``name``
    names bytes in messages. ``language`` tags question texts whose file gives no language
    (TSV). ``answers``: the file is a system's answers (a TSV is then an ``out.tsv`` whatever
    its name). ``questions``: an ``in.tsv`` (name, bytes) giving a TSV ``expected.tsv``'s
    question texts (else an ``in.tsv`` beside its path does). ``gold``: also warn of a
    question with neither gold answers nor a gold query, of a gold query that does not parse
    and of a TSV file cut after its last line end (``gerbil-qa validate``; a run's checks say
    these on the dataset's page). A path read is recorded in ``Dataset.source`` as given.
    Raises FormatError.
    """
    limits = limits or Limits()  # the answer limits from the environment, if set there
    if isinstance(source, bytes | bytearray | memoryview):
        data, path, label = bytes(source), None, name
        _check_size(len(data), limits, label)
    else:
        path = Path(source)
        label = name or str(source)
        data = _read_file(path, limits, label)
    if not data:  # said as such, not as an unknown format or as an answer file of no lines
        raise FormatError(Problem("the file is empty (0 bytes)", file=label, expected=_ANY_FORMAT))
    src = Source(
        data,
        name=label,
        path=path,
        language=language,
        limits=limits,
        answers=answers,
        questions=questions,
        gold=gold and not answers,
    )
    fmt = _declared(format, label) if format else FORMATS[_sniff(src)]
    if fmt.name == "tsv":
        _not_other_format(src)
    try:
        dataset = fmt.read(src)
    except FormatError as err:
        # JSON declared QALD-XML (or named .xml) was "not well-formed XML" at 1:1 (explore44 20)
        _content_of_another_format(src, fmt, declared=bool(format))
        raise err.located(file=label) from None
    recorded = str(source) if path is not None else dataset.source
    return replace(dataset, source=recorded, format=fmt.name)


def write(dataset: Dataset, format: str) -> bytes:
    """``dataset`` in ``format``; what the format cannot carry is listed by :func:`losses`."""
    return get(format).write(_for_format(dataset, format))


def losses(dataset: Dataset, format: str) -> list[str]:
    """What writing ``dataset`` as ``format`` drops, one phrase each (empty: nothing)."""
    shaped = _for_format(dataset, format)
    found = get(format).losses(shaped)
    if format not in text2sparql.ENTRY_LANGUAGE_FORMATS:
        found += text2sparql.shared_ids(shaped)
    if format not in ("qald-json", "eqald-json") and integer_ids(dataset):
        found.append(f"integer question ids ({len(integer_ids(dataset))}: written as strings)")
    prefix = text2sparql.metadata_value(dataset, text2sparql.PREFIX_KEY)
    if prefix and format not in _KEEP_PREFIX:
        found.append(f"the TEXT2SPARQL key prefix {prefix!r} (ids are written without it)")
    return found


_KEEP_PREFIX = (
    text2sparql.ENTRY_LANGUAGE_FORMATS | text2sparql.TEXT_LANGUAGE_FORMATS | {"text2sparql-yaml"}
)


def _for_format(dataset: Dataset, format: str) -> Dataset:
    if format in text2sparql.TEXT_LANGUAGE_FORMATS:
        return text2sparql.per_question(dataset)
    if format in text2sparql.ENTRY_LANGUAGE_FORMATS:
        return text2sparql.per_item(dataset)
    return dataset


def sniff(data: bytes, *, name: str | None = None) -> str:
    """The name of the format of ``data``: by content first, then by ``name``'s extension."""
    return _sniff(Source(data, name=name))


def _declared(name: str, label: str | None) -> Format:
    """The format a file was declared to be; an unknown one blamed on the declaration, naming
    the file (it was ``<input>: error: unknown format 'banana'``: explore44 20)."""
    try:
        return get(name)
    except FormatError:
        raise FormatError(
            Problem(
                f"the file is declared as format {name!r}, which is no known format",
                file=label,
                expected="one of " + ", ".join(FORMATS),
            )
        ) from None


def _content_of_another_format(src: Source, fmt: Format, *, declared: bool) -> None:
    """A file its declared format (``declared``; else the one its name's extension chose)
    cannot read whose content is another format's, or JSON where XML is read or XML where
    JSON is: said so, as TSV declared of a JSON file is (:func:`_not_other_format`), rather
    than the reader's first complaint ("not well-formed XML" at 1:1 of a JSON file)."""
    src = _fresh(src)  # a reader lets go of the parsed JSON as it reads (big answer files)
    if fmt.sniff(src):  # the content is the format's, with errors: they are what to say
        return
    found = next((f.name for f in FORMATS.values() if f is not fmt and f.sniff(src)), None)
    if found is None and "json" not in fmt.extensions and src.head.startswith(("{", "[")):
        found = "JSON"
    if found is None and "xml" not in fmt.extensions and src.head.startswith("<"):
        found = "XML"
    if found is None or found == "tsv":  # any text is TSV: no hint
        return
    if {found, fmt.name} == _QALD_JSONS:  # one document shape: the reader's own errors say it
        return
    how = "as declared" if declared else f"as its name (.{src.extension}) says"
    raise FormatError(
        Problem(
            f"the content is {found}, not {fmt.name} {how}",
            file=src.name,
            line=1,
            column=1,
            expected=f"{fmt.label}, or the file declared as {found}"
            if found not in ("JSON", "XML")
            else fmt.label,
        )
    )


def _not_other_format(src: Source) -> None:
    """TSV reads any text, a JSON or XML file too (as one question a line: a JSON dataset
    declared TSV became 780 questions, and the refusal then blamed the answer file): content
    that another format recognises is refused as that format, where TSV was declared."""
    for other in FORMATS.values():
        if other.name != "tsv" and other.sniff(src):
            raise FormatError(
                Problem(
                    f"the content is {other.name}, not tsv as declared",
                    file=src.name,
                    line=1,
                    column=1,
                    expected=f"tab-separated lines, or the file declared as {other.name}",
                )
            )


def _sniff(src: Source) -> str:
    for fmt in FORMATS.values():
        if fmt.sniff(src):
            return fmt.name
    # The extension decides only when one format claims it (.json is shared by four).
    claimed = [f.name for f in FORMATS.values() if src.extension in f.extensions]
    if src.extension and len(claimed) == 1:
        return claimed[0]
    if src.head.startswith(("{", "[")):
        src.json()  # JSON that does not parse (a truncated file): say where, not "unknown"
    if utf16_byte_order(src.data) or src.data[:4] in UTF32_BOMS:
        src.text  # noqa: B018 - UTF-16 (Windows' "Unicode") or -32: said so, with how to save it
    if src.data.startswith(b"PK\x03\x04"):
        raise FormatError(
            Problem(
                "the file is a ZIP archive",
                file=src.name,
                line=1,
                column=1,
                expected=f"the file inside it, unpacked: {_ANY_FORMAT}",
            )
        )
    _refuse_as_closest(src)
    blank = not src.data.strip()
    raise FormatError(
        Problem(
            "the file holds only white space"
            if blank
            else "unknown format: the content matches none of the known formats",
            file=src.name,
            expected=f"{_ANY_FORMAT} (tried by content, then by file extension)",
        )
    )


_ANY_FORMAT = "a dataset or answer file in one of " + ", ".join(FORMATS)


def _refuse_as_closest(src: Source) -> None:
    """JSON that no format recognises whole, said as the format it is closest to, with that
    reader's own problems (file:line:col): one bad entry (a weight ``"heavy"``, an LC-QuAD
    entry without ``_id``) made the sniffer say "unknown format" with no position at all
    (explore44 3). Closest: of the JSON formats whose reader accepts the document's shape
    (its top level) and read some entries without an error, the one finding the fewest
    errors. Nothing is raised when none does (the caller says "unknown format")."""
    if not src.head.startswith(("{", "[")) or not src.is_json():
        return
    entries = len(src.json())
    best: tuple[int, str, list[Problem]] | None = None
    for fmt in FORMATS.values():
        if "json" not in fmt.extensions:
            continue
        try:
            fmt.read(_fresh(src))  # each reader on its own parse: readers let go of it
        except FormatError as err:
            errors = [p for p in err.problems if p.severity == "error"]
            if len(errors) >= entries or any(_is_shape_error(p) for p in errors):
                continue  # not one entry read well: no more its format than any other
            if best is None or len(errors) < best[0]:
                best = (len(errors), fmt.name, list(err.problems))
    if best is None:
        return
    count, name, problems = best
    first = next(p for p in problems if p.severity == "error")
    raise FormatError(
        [
            Problem(  # at the first error: the API's message is the first problem
                "unknown format: the content matches none of the known formats; it is closest "
                f"to {name}, as which it has {count} error{'s' if count > 1 else ''} (listed "
                "after this)",
                file=src.name,
                line=first.line,
                column=first.column,
                expected=f"{name} without them, or the file's format declared "
                "(--format, or the upload's format field)",
            ),
            *problems,
        ]
    )


_QALD_JSONS = {"qald-json", "eqald-json"}


def _fresh(src: Source) -> Source:
    """``src`` unread: a reader empties the parsed JSON's question list as it builds each
    question, so what another reader (or a sniffer) sees after it is not the file."""
    return Source(
        src.data,
        name=src.name,
        path=src.path,
        language=src.language,
        limits=src.limits,
        answers=src.answers,
        questions=src.questions,
    )


def _is_shape_error(problem: Problem) -> bool:
    """A reader's refusal of the document's top level (``not a QALD-JSON document``, ``the
    document is an object``): that format is not the file's."""
    return problem.path in (None, "$") or "document" in problem.message


def _check_size(size: int, limits: Limits, label: str | None) -> None:
    if size > limits.max_bytes:
        raise FormatError(
            Problem(
                f"the file is {size} bytes, more than the limit of {limits.max_bytes} bytes "
                "(Limits.max_bytes)",
                file=label,
                expected=f"at most {limits.max_bytes} bytes",
            )
        )


def _read_file(path: Path, limits: Limits, label: str) -> bytes:
    try:
        _check_size(path.stat().st_size, limits, label)
        with path.open("rb") as handle:
            data = handle.read(limits.max_bytes + 1)
    except OSError as err:
        raise FormatError(
            Problem(f"cannot read the file: {err.strerror or err}", file=label)
        ) from None
    _check_size(len(data), limits, label)
    return data
