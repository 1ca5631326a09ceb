"""TSV as PolEval / gonito challenges use it: ``in.tsv``, ``expected.tsv``, ``out.tsv``.

A file's role comes from its name, as in gonito: ``in*.tsv`` holds one question a line,
``out*.tsv`` a system's answer a line, anything else is ``expected.tsv``: one line per question
with tab-separated alternative answers (each alternative one row of the gold answer set, a plain
literal). Questions are identified by their 1-based line number (``"1"``, ``"2"``…). Reading an
``expected.tsv`` from a path takes the question texts from the ``in.tsv`` beside it; their
language is the ``language`` given to ``read`` (``""``, unknown, without one).

The files have no header line (gonito keeps column names apart, in ``in-header.tsv``): a first
line that looks like one (its first cell a column name such as ``id`` or ``question``) is
recorded in ``metadata`` (``tsv.header``), and an answer file with one is refused where the
dataset's question ids are known (:func:`service.experiments.inputs.check_header`).

``write`` gives one file, of the role recorded when read (``metadata`` ``tsv.role``), else
``expected`` when the dataset has answers and ``in`` otherwise; :func:`write_in` gives the
matching ``in.tsv``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path, PurePath

from service.errors import FormatError, Problem
from service.formats.base import Format, Report, Source, check_question_count
from service.formats.fields import check_questions, text2sparql_losses
from service.model import AnswerSet, Dataset, Question, QuestionText, Term

NAME = "tsv"
ROLE_KEY = "tsv.role"
IN, OUT, EXPECTED = "in", "out", "expected"
TEXTS_LOSS = "question texts (they go in in.tsv"
NO_TEXTS = "no in.tsv beside this file: the questions have no text"
# read from bytes (an upload): how to bring the texts, where "in the same directory" meant
# nothing to a dataset author uploading it
ALONE = (
    " (a file read alone, as an upload is, has nothing beside it: upload its in.tsv with it, "
    "in the run or compare page's \"its questions, in.tsv\", the API's dataset.questions "
    "(multipart: dataset_questions); or upload the dataset as QALD-JSON instead, made with "
    "in.tsv beside expected.tsv by "
    "gerbil-qa convert expected.tsv dataset.json --to qald-json --lang LANG)"
)
HEADER_KEY = "tsv.header"  # metadata: the first line, when it looks like a header
# column names a header starts with: no first answer is likely to be one ("no" is an answer)
HEADER_WORDS = frozenset(
    {
        *("id", "qid", "q_id", "question", "questions", "question_id", "questionid"),
        *("answer", "answers", "expected", "prediction", "predictions", "output"),
    }
)


def sniff(src: Source) -> bool:
    return False  # plain text: only the .tsv extension tells (see service.formats.sniff)


def role_of(name: str | None, *, answers: bool = False) -> str:
    """gonito's names: ``in.tsv``, ``out.tsv``, ``out-model=x.tsv``; all else is expected,
    except that a file given as a system's ``answers`` is an out.tsv by any other name
    (``answers.tsv``, ``predictions.tsv``) than ``in…`` or ``expected…`` (the gold as answers).

    >>> role_of("dev-0/answers.tsv"), role_of("answers.tsv", answers=True)
    ('expected', 'out')
    >>> role_of("expected.tsv", answers=True)
    'expected'
    """
    base = Path(name).name.lower() if name else ""
    for role in (IN, OUT, EXPECTED):
        if re.match(rf"{role}([-.]|$)", base):
            return role
    return OUT if answers else EXPECTED


def _lines(src: Source) -> list[str]:
    text = src.text
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline ending the last line
    return [line.removesuffix("\r") for line in lines]


def in_texts(data: bytes, name: str | None = None) -> list[str]:
    """The question texts an in.tsv's bytes give, as :func:`read` reads them (a byte-order
    mark, CRLF line ends and the last line's newline are no part of them)."""
    return _lines(Source(data, name=name))


def looks_like_header(line: str) -> bool:
    r"""Line 1 starts with a column name (``id``, ``question_id``, ``Question``…).

    >>> looks_like_header("id\tanswer"), looks_like_header("Question"), looks_like_header("Paris")
    (True, True, False)
    """
    return line.split("\t", 1)[0].strip().lower() in HEADER_WORDS


def read(src: Source, role: str | None = None) -> Dataset:
    """``src`` as the TSV file of ``role`` (default: the role its name gives)."""
    report = Report(src)
    role = role or role_of(src.name, answers=src.answers)
    lines = _lines(src)
    questions: list[Question] = []
    places: list[dict[str, int]] = []
    if check_question_count(report, len(lines)):
        texts: list[str] | None = None
        beside: tuple[Problem, ...] = ()
        if role == IN:
            texts = lines
        elif role == EXPECTED:
            texts, beside = _texts_beside(src, len(lines))
        language = src.language or ""
        for i, line in enumerate(lines):
            qtexts = (QuestionText(language, texts[i]),) if texts is not None else ()
            answers: AnswerSet | None = None
            if role == EXPECTED:
                cells = line.split("\t")
                report.count_answers(
                    len(cells) - cells.count(""), line=i + 1, column=1, question_id=str(i + 1)
                )
                answers = AnswerSet.of([Term.literal(v) for v in cells if v != ""])
                if line and "" in cells:
                    report.warn(
                        "empty alternative (not kept)",
                        line=i + 1,
                        column=1,
                        question_id=str(i + 1),
                        expected="non-empty tab-separated answers",
                    )
            elif role == OUT:
                report.count_answers(1 if line else 0, line=i + 1, column=1, question_id=str(i + 1))
                answers = AnswerSet.of([Term.literal(line)] if line else [])
            questions.append(Question(id=str(i + 1), texts=qtexts, answers=answers))
            places.append({"line": i + 1, "column": 1})
        if role == OUT:
            _warn_tabs(report, lines, "answer", ANSWER_TABS)
        elif role == IN:
            _warn_tabs(report, lines, "in.tsv", KEPT_TEXT_TABS)
        # a system's answers need no question text (an answers file named expected.tsv was
        # told to bring its in.tsv, even with the dataset's sent; explore47 F4)
        if texts is None and role == EXPECTED and lines and not src.answers:
            alone = src.path is None and src.questions is None
            report.warn(
                NO_TEXTS + (ALONE if alone else ""),
                expected=None if alone else "in.tsv in the same directory",
            )
        if role != OUT:  # a system's answers: empty ones are normal, texts absent
            check_questions(questions, report, places, texts=texts is not None, gold=False)
        if src.gold and lines and not src.data.endswith(b"\n"):  # PolEval's files all end so
            report.warn(
                f"the file ends without a line end after line {len(lines)}: was it cut? (its "
                "last question's line may be incomplete)",
                line=len(lines),
                column=len(lines[-1]) + 1,
                question_id=str(len(lines)),
                expected="a line end after every line",
            )
    else:
        beside = ()
    return Dataset(
        id=None,
        questions=tuple(questions),
        format=NAME,
        problems=beside + report.finish(),
        metadata=((ROLE_KEY, role),)
        + (((HEADER_KEY, lines[0]),) if lines and looks_like_header(lines[0]) else ()),
    )


ANSWER_TABS = (
    "each whole line is one answer (PolEval/geval), so no confidence or second answer is read "
    "from TSV; give confidences in eQALD-JSON"
)
KEPT_TEXT_TABS = (
    "each whole line is its question's text, as when it was kept (a new in.tsv with tabs is "
    "refused)"
)


def refuse_columns(src: Source, answers: bytes | None = None) -> None:
    """An in.tsv given now (an upload, the CLI's beside an expected.tsv) is refused if a line
    holds a tab: a line is one question's text, whole (PolEval 2021's in.tsv has one column,
    in-header.tsv "Question"), and gonito's ``id<TAB>question`` taken whole made "0<TAB>Jak
    nazywa się …" the question text; which column is the question is the author's to say.
    Only at submission: an in.tsv a store kept before this rule is read as it was then (its
    whole lines, :func:`_warn_columns`), so its runs still re-score and run by name.

    A file of another format is refused as what it is: a 20-line result set given as the
    questions became 20 question texts ``{``, ``"db25:1-en": {"2892": 1},`` … (explore44 F14).
    ``answers``, the expected.tsv's bytes, tell a question text wrapped in markup (as many
    lines as answers) from an XML document."""
    kind = _other_content(src, None if answers is None else len(_lines(Source(answers))))
    if kind is not None:
        raise FormatError(
            Problem(
                f"this is {kind}, not an in.tsv (the questions of a PolEval expected.tsv)",
                file=src.name,
                line=1,
                column=1,
                expected="plain text, one question's text a line, as many lines as "
                "expected.tsv has",
            )
        )
    for i, line in enumerate(_lines(src)):
        if "\t" in line:
            raise FormatError(
                Problem(
                    f"line {i + 1} holds {line.count(chr(9)) + 1} tab-separated columns: an "
                    "in.tsv line is one question's text alone; keep the question's column "
                    "(for id<TAB>question lines: cut -f2 in.tsv)",
                    file=src.name,
                    line=i + 1,
                    column=line.index("\t") + 1,
                    question_id=str(i + 1),
                    expected="one column, the question text (no tab)",
                )
            )


def _other_content(src: Source, answers: int | None = None) -> str | None:
    """What an in.tsv's content is, when it is not plain lines of text: a format that
    recognises it (``a result-set-json file``), else JSON or XML by their shape. Text that is
    one element (``<b>Kto napisał Lalkę?</b>``) is an XML document only when it declares
    itself one (``<?xml``, ``<!DOCTYPE``) or its line count is not ``answers``, the
    expected.tsv's: one question's text may be wrapped in markup (explore47 F5)."""
    import json

    from service.formats import FORMATS

    for other in FORMATS.values():
        if other.name != NAME and other.sniff(src):
            return f"a {other.name} file"
    head = src.head
    if head.startswith(("{", "[")):
        try:
            json.loads(src.text)
        except ValueError:
            return None
        return "a JSON document"
    if head.startswith("<?xml") or head[:9].upper() == "<!DOCTYPE":
        return "an XML document"
    # a root element closed at the end (a question text may well begin with "<b>"), on
    # another number of lines than the answers'
    closed = re.match(r"<([A-Za-z_][\w.:-]*)[\s>/]", head)
    if (
        closed
        and src.text.rstrip().endswith((f"</{closed.group(1)}>", "/>"))
        and len(_lines(src)) != answers
    ):
        return "an XML document"
    return None


def _warn_tabs(report: Report, lines: list[str], what: str, meaning: str) -> None:
    """Lines holding a tab, said once at the first (``what``: "answer", "in.tsv"; ``meaning``:
    how they are read). An out.tsv's line is still one answer (geval reads lines whole), as
    "answer<TAB>confidence" looks like a confidence given and is silently scored wrong; a kept
    in.tsv's (accepted before :func:`refuse_columns`) is the text it was run with."""
    tabbed = [i for i, line in enumerate(lines) if "\t" in line]
    if tabbed:
        report.warn(
            f"{len(tabbed)} {what} line{'s hold' if len(tabbed) > 1 else ' holds'} a tab: "
            + meaning,
            line=tabbed[0] + 1,
            column=lines[tabbed[0]].index("\t") + 1,
            question_id=str(tabbed[0] + 1),
        )


def in_beside(path: Path) -> Path | None:
    """The ``in.tsv`` beside the TSV ``expected.tsv`` at ``path`` (its question texts)."""
    in_path = path.with_name("in.tsv")
    if path.suffix.lower() == ".tsv" and role_of(path.name) == EXPECTED and in_path.is_file():
        return in_path
    return None


def _texts_beside(src: Source, count: int) -> tuple[list[str] | None, tuple[Problem, ...]]:
    """The question texts of an expected.tsv: from the in.tsv given with it (an upload, or the
    CLI's, kept with the experiment), else from the in.tsv beside its path, if any."""
    if src.questions is not None:
        in_name, data = src.questions
    elif src.path is not None and (in_path := in_beside(src.path)) is not None:
        in_name, data = str(in_path), in_path.read_bytes()
    else:
        return None, ()
    from service.formats import _check_size

    _check_size(len(data), src.limits, in_name)
    # its role is "in" whatever its name (an upload's picker keeps any name: questions.tsv)
    questions = read(Source(data, name=in_name, language=src.language, limits=src.limits), IN)
    if len(questions) != count:
        raise FormatError(
            Problem(
                f"{in_name} has {len(questions)} line{'s' if len(questions) != 1 else ''} but "
                f"{src.name} has {count}",
                file=src.name,
                expected=f"as many questions in {PurePath(in_name).name} as answer lines",
            )
        )
    return [q.texts[0].string or "" for q in questions], questions.problems


def write(dataset: Dataset) -> bytes:
    role = dict(dataset.metadata).get(ROLE_KEY)
    if role is None:
        role = EXPECTED if any(q.answers is not None for q in dataset.questions) else IN
    if role == IN:
        return write_in(dataset)
    lines = []
    for q in dataset.questions:
        values = [_cell(row[0].value) for row in _rows(q.answers)]
        lines.append(values[0] if role == OUT and values else "\t".join(values))
    return "".join(line + "\n" for line in lines).encode("utf-8")


def write_in(dataset: Dataset, *, language: str | None = None) -> bytes:
    """The ``in.tsv`` of ``dataset``: each question's text in ``language`` (else its first)."""
    lines = []
    for q in dataset.questions:
        text = q.text(language) if language else None
        if text is None:
            text = next((t.string for t in q.texts if t.string), "")
        lines.append(_cell(text))
    return "".join(line + "\n" for line in lines).encode("utf-8")


def _rows(answers: AnswerSet | None) -> tuple[tuple[Term, ...], ...]:
    if answers is None:
        return ()
    return tuple(row for row in answers.row_values() if row)


def _cell(value: str) -> str:
    return value.replace("\r", " ").replace("\n", " ").replace("\t", " ")


def losses(dataset: Dataset) -> list[str]:
    found = Counter(_lost(dataset))
    return [f"{what} ({n} questions)" for what, n in found.items()]


def _lost(dataset: Dataset) -> Iterator[str]:
    role = dict(dataset.metadata).get(ROLE_KEY)
    for i, q in enumerate(dataset.questions):
        rows = _rows(q.answers)
        if q.id != str(i + 1):
            yield "question ids (TSV numbers questions by line)"
        if role != IN and q.texts:
            yield f"{TEXTS_LOSS}: see write_in)"
        if sum(1 for t in q.texts if t.string) > 1:
            yield "texts other than the first"
        if any(len(row) > 1 for row in rows):
            yield "values beyond the first of a row"
        if role == OUT and len(rows) > 1:
            yield "answers beyond the first"
        if any(t != Term.literal(t.value) for row in rows for t in row):
            yield "answer datatypes, languages and IRI marks"
        if any(_cell(t.value) != t.value or t.value == "" for row in rows for t in row):
            yield "tabs, line breaks and empty values in answers"
        if q.sparql or q.pseudo_query or q.schemaless_query:
            yield "queries"
        if q.answertype or q.aggregation is not None or q.onlydbo is not None or q.hybrid:
            yield "answer types and flags"
        if q.extra or any(t.keywords or t.annotations for t in q.texts):
            yield "keywords, annotations and extra fields"
        yield from text2sparql_losses(q)


FORMAT = Format(
    name=NAME,
    label="TSV (PolEval/gonito)",
    media_types=("text/tab-separated-values",),
    extensions=("tsv",),
    read=read,
    write=write,
    sniff=sniff,
    losses=losses,
    description="in.tsv / expected.tsv (tab-separated alternatives) / out.tsv, one line each",
)
