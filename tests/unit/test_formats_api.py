"""The formats registry and API: sniffing, limits, sources, positions, and the CLI commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import main
from service.errors import FormatError
from service.formats import FORMATS, Format, Limits, get, read, sniff, write
from service.formats.base import JsonLocator, json_path
from service.model import AnswerSet, Dataset, Question, QuestionText, Term
from service.paths import DEMO_DIR

QALD = b'{"questions": [{"id": "1", "question": [{"language": "en", "string": "Q?"}]}]}'
EQALD = b'{"questions": [{"question": {"id": "1", "language": []}}]}'
NLQ = b'[{"id": "1", "lang": "en", "question": "Q?", "answer": "A"}]'
LCQUAD = b'[{"_id": "1", "corrected_question": "Q?", "sparql_query": "S"}]'
XML = b'<?xml version="1.0"?>\n<!-- c -->\n<dataset id="x"><question id="1"/></dataset>'


def test_registry_holds_one_descriptor_per_format() -> None:
    assert list(FORMATS) == [
        "eqald-json",
        "qald-json",
        "nlq-json",
        "lcquad-json",
        "text2sparql-answers",
        "result-set-json",
        "qald-xml",
        "text2sparql-yaml",
        "tsv",
    ]
    for name, fmt in FORMATS.items():
        assert isinstance(fmt, Format) and fmt.name == name
        assert fmt.label and fmt.media_types and fmt.extensions and fmt.description
        assert get(name) is fmt
    assert get("QALD-JSON") is FORMATS["qald-json"]
    assert get("application/qald+xml; charset=utf-8") is FORMATS["qald-xml"]
    with pytest.raises(FormatError) as caught:
        get("csv")
    assert caught.value.expected == "one of " + ", ".join(FORMATS)


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        (QALD, None, "qald-json"),
        (EQALD, None, "eqald-json"),
        (NLQ, None, "nlq-json"),
        (LCQUAD, None, "lcquad-json"),
        (XML, None, "qald-xml"),
        (b"\xef\xbb\xbf" + QALD, None, "qald-json"),  # a byte-order mark
        (b"a\tb\n", "expected.tsv", "tsv"),  # plain text: by extension
        (XML, "answers.json", "qald-xml"),  # content first
    ],
)
def test_sniff(data: bytes, name: str | None, expected: str) -> None:
    assert sniff(data, name=name) == expected


@pytest.mark.parametrize(
    ("data", "name"), [(b"a\tb\n", None), (b'{"x": 1}', "data.json"), (b"\x00\xff", "x.bin")]
)
def test_unknown_format_lists_the_formats_tried(data: bytes, name: str | None) -> None:
    with pytest.raises(FormatError) as caught:
        read(data, name=name)
    assert caught.value.file == name
    for fmt in FORMATS:
        assert fmt in (caught.value.expected or "")


@pytest.mark.parametrize(
    ("data", "name", "said"),
    [
        (b"", "mine.json", "the file is empty (0 bytes)"),
        (b"", "mine.xml", "the file is empty (0 bytes)"),  # was "XML: no element found"
        (b"", "out.tsv", "the file is empty (0 bytes)"),  # was an answer file of no lines
        (b"\n  \n", "mine.json", "the file holds only white space"),
    ],
)
def test_an_empty_file_is_said_to_be_empty(data: bytes, name: str, said: str) -> None:
    # Before: "unknown format: the content matches none of the known formats"
    with pytest.raises(FormatError) as caught:
        read(data, name=name)
    (problem,) = caught.value.problems
    assert problem.message == said and problem.file == name
    assert "qald-json" in (problem.expected or "")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_utf16_file_is_said_to_be_utf16(encoding: str) -> None:
    # Before: "unknown format: the content matches none of the known formats" for a .json
    data = (DEMO_DIR / "questions.json").read_text(encoding="utf-8")
    raw = ("\ufeff" + data).encode(encoding) if encoding.endswith("be") else data.encode(encoding)
    with pytest.raises(FormatError) as caught:
        read(raw, name="utf16.json")
    (problem,) = caught.value.problems
    assert "it is UTF-16 (its byte-order mark); save it as UTF-8" in problem.message, problem
    assert (problem.file, problem.line, problem.column) == ("utf16.json", 1, 1)


@pytest.mark.parametrize(
    ("name", "encoding", "order"),
    [
        ("utf16.json", "utf-16-le", "little-endian"),
        ("utf16.json", "utf-16-be", "big-endian"),
        ("expected.tsv", "utf-16-le", "little-endian"),  # "ó" is no UTF-8: the mark-less case
    ],
)
def test_a_utf16_file_without_its_mark_is_said_to_be_utf16(
    name: str, encoding: str, order: str
) -> None:
    # Before: "not valid JSON: expecting property name enclosed in double quotes" at 1:2 (its
    # NULs are valid UTF-8); the mark alone made it UTF-16
    data = "Ile nóg ma pająk?\t8\n" if name.endswith(".tsv") else None
    text = data or (DEMO_DIR / "questions.json").read_text(encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read(text.encode(encoding), name=name)
    (problem,) = caught.value.problems
    assert f"it is UTF-16 ({order}, without a byte-order mark" in problem.message, problem
    assert (problem.file, problem.line, problem.column) == (name, 1, 1)


def test_reading_a_path_records_source_and_format(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(QALD)
    ds = read(path)
    assert (ds.source, ds.format) == (str(path), "qald-json")
    assert read(str(path)).source == str(path)
    assert read(QALD, name="upload.json").source is None


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as caught:
        read(tmp_path / "nope.json")
    assert caught.value.file == str(tmp_path / "nope.json")
    assert "cannot read the file" in str(caught.value)


def test_size_and_question_limits(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(QALD)
    with pytest.raises(FormatError) as caught:
        read(path, limits=Limits(max_bytes=10))
    assert "more than the limit of 10 bytes (Limits.max_bytes)" in str(caught.value)
    with pytest.raises(FormatError) as caught:
        read(QALD, limits=Limits(max_bytes=10))
    assert caught.value.expected == "at most 10 bytes"
    two = json.dumps({"questions": [{"id": "1"}, {"id": "2"}]}).encode()
    with pytest.raises(FormatError) as caught:
        read(two, limits=Limits(max_questions_per_file=1))
    assert caught.value.path == "$.questions"
    assert "the file has 2 questions, more than the limit per file" in str(caught.value)
    assert "at most 1 question per file (GERBIL_QA_MAX_QUESTIONS_PER_FILE)" in str(caught.value)
    assert len(read(two, limits=Limits(max_questions_per_file=2))) == 2


def test_problem_count_is_capped() -> None:
    many = json.dumps({"questions": [{"id": str(i)} for i in range(30)]}).encode()
    ds = read(many, limits=Limits(max_problems=5))
    assert len(ds.problems) == 6
    assert ds.problems[-1].message == "25 more problems not listed (limit: 5 per file)"


def test_invalid_utf8_is_located() -> None:
    with pytest.raises(FormatError) as caught:
        read(b'{"questions": [\n {"id": "\xff"}]}', format="qald-json")
    assert (caught.value.line, caught.value.column) == (2, 10)
    assert caught.value.expected == "UTF-8 text"


def test_locator_finds_nested_paths_and_falls_back_to_the_deepest_existing() -> None:
    text = '{"a": [1, {"b c": [true, {"d": "x"}]}],\n "e": null}'
    locator = JsonLocator(text)
    assert locator.line_col(("a", 1, "b c", 1, "d")) == (1, 32)
    assert locator.line_col(("e",)) == (2, 7)
    assert locator.line_col(("a", 7)) == (1, 7)  # no such element: the array
    assert locator.line_col(("a", 0, "z")) == (1, 8)  # a number has no children
    assert json_path(("a", 1, "b c", 1, "xml:lang")) == '$.a[1]["b c"][1]["xml:lang"]'


def test_write_then_read_is_identity_for_every_format_that_can_carry_it() -> None:
    question = Question(
        "1",
        texts=(QuestionText("en", "Q?"),),
        answers=AnswerSet.of([Term.iri("http://x/a")], var="uri"),
    )
    ds = Dataset("d", (question,))
    for name in ("qald-json", "eqald-json", "qald-xml"):
        assert read(write(ds, name), format=name).questions == ds.questions, name


# --- CLI ---------------------------------------------------------------------------------


def test_validate_prints_every_problem_and_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"questions": [{"id": "1"}, {"id": "1", "answers": []}]}, indent=1))
    assert main(["validate", str(path)]) == 1  # repeated ids: the upload's error (explore44 F2)
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{path}:3:3: $.questions[0]: question 1: warning: question has no text in any language",
        f"{path}:6:3: $.questions[1]: question 1: warning: question has no text in any language",
        f"{path}:6:3: $.questions[1]: question 1: warning: empty answer set",
        f"{path}:3:3: $.questions[0]: question 1: warning: question has neither gold answers nor "
        "a gold query: it is scored only with gold given apart (evaluate --gold) (expected gold "
        "answers or a gold query (or the question marked OUT OF SCOPE))",
        f"{path}:6:3: $.questions[1]: question 1: error: duplicate question id (also question "
        "#1) (expected unique question ids (the store names each question's result by its id, "
        "and answers are matched by it))",
        "2 questions, 1 error, 4 warnings",
    ]


def test_validate_fatal_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "d.xml"
    path.write_text('<dataset id="x"><question id="1"></dataset>')
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{path}:1:36: /dataset/question[1]: error: not well-formed XML")
    assert out[-1] == "0 questions, 1 error, 0 warnings"  # not "1 errors"
    assert main(["validate", str(path), "--format", "qald-json"]) == 1
    # was "not valid JSON" at 1:1: the content is named, as TSV declared says (explore44 20)
    said = f"{path}:1:1: error: the content is qald-xml, not qald-json as declared"
    assert said in capsys.readouterr().out


def test_convert_to_file_and_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.json"
    source.write_text(
        json.dumps(
            {
                "questions": [
                    {
                        "id": "1",
                        "question": [{"language": "en", "string": "Q?"}],
                        "answers": [
                            {
                                "head": {"vars": ["x"]},
                                "results": {
                                    "bindings": [
                                        {"x": {"type": "literal", "value": "a", "xml:lang": "en"}}
                                    ]
                                },
                            }
                        ],
                    }
                ]
            }
        )
    )
    out = tmp_path / "out.xml"
    assert main(["convert", str(source), str(out), "--to", "qald-xml"]) == 0
    err = capsys.readouterr().err
    assert "1 question from qald-json to qald-xml" in err
    assert "dropped: answer datatypes, languages, blank nodes or variable names" in err
    assert read(out).questions[0].answers.values() == (Term.literal("a"),)
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind
    assert main(["convert", str(out), "-", "--to", "qald-json", "--from", "qald-xml"]) == 0
    assert json.loads(capsys.readouterr().out)["questions"][0]["id"] == "1"


def test_convert_to_tsv_writes_in_tsv_beside(tmp_path: Path) -> None:
    source = tmp_path / "q.json"
    source.write_bytes(
        json.dumps(
            {
                "questions": [
                    {
                        "id": "1",
                        "question": [
                            {"language": "de", "string": "Wer?"},
                            {"language": "en", "string": "Who?"},
                        ],
                        "answers": [{"head": {}, "boolean": True}],
                    }
                ]
            }
        ).encode()
    )
    assert main(["convert", str(source), str(tmp_path / "expected.tsv"), "--to", "tsv"]) == 0
    assert (tmp_path / "expected.tsv").read_text() == "true\n"
    assert (tmp_path / "in.tsv").read_text() == "Who?\n"


def test_convert_to_tsv_never_replaces_another_in_tsv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The questions file is written beside OUT without being named: a user's (or another
    conversion's) in.tsv there was silently replaced."""
    source = tmp_path / "q.json"
    source.write_bytes(QALD)
    questions = tmp_path / "in.tsv"
    questions.write_text("Someone else's question?\n")
    target = tmp_path / "expected.tsv"
    assert main(["convert", str(source), str(target), "--to", "tsv"]) == 1
    said = capsys.readouterr().err
    assert f"{questions} exists" in said and "remove or move it" in said
    assert questions.read_text() == "Someone else's question?\n"
    assert not target.exists()
    questions.unlink()  # then the same conversion twice: the same in.tsv is no conflict
    for _ in range(2):
        assert main(["convert", str(source), str(target), "--to", "tsv"]) == 0


def test_convert_unreadable_input_fails_cleanly(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    target = tmp_path / "out.xml"
    assert main(["convert", str(bad), str(target), "--to", "qald-xml"]) == 1
    assert not target.exists()


def test_cli_module_is_cheap_to_import() -> None:
    code = (
        "import sys, service.cli.formats, service.formats;"
        "print(sorted(m for m in ('rdflib', 'pyoxigraph', 'defusedxml', 'requests', 'flask')"
        " if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_convert_writes_files_as_any_new_file_is_written(tmp_path: Path) -> None:
    # Before: OUT (and in.tsv) kept the temporary file's mode 0600, unreadable to the group
    import os

    source = tmp_path / "q.json"
    source.write_bytes(QALD)
    old = os.umask(0o022)
    try:
        assert main(["convert", str(source), str(tmp_path / "expected.tsv"), "--to", "tsv"]) == 0
    finally:
        os.umask(old)
    for name in ("expected.tsv", "in.tsv"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644, name


def test_a_file_declared_tsv_that_another_format_recognises_is_refused_as_that() -> None:
    """TSV takes any text: a QALD-JSON dataset declared TSV was read as one question a line
    (780 of them), and the refusal then blamed the answer file."""
    from service.paths import DEMO_DIR

    data = (DEMO_DIR / "questions.json").read_bytes()
    with pytest.raises(FormatError) as refused:
        read(data, format="tsv", name="solar.json")
    (problem,) = refused.value.problems
    assert (problem.file, problem.line, problem.column) == ("solar.json", 1, 1)
    assert problem.message == "the content is qald-json, not tsv as declared"
    assert read(b"[1]\n\n", format="tsv", name="out.tsv").format == "tsv"  # an answer "[1]"


def test_validate_says_a_truncated_string_in_a_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A download cut inside a string: the message was json's "Unterminated string starting
    at" cut before its position, "… starting at (expected a JSON document)"."""
    text = (DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8")
    start = text.index('"', text.index('"questions"') + len('"questions"'))  # a string opening
    path = tmp_path / "cut.json"
    path.write_text(text[: start + 2], encoding="utf-8")
    line = text.count("\n", 0, start) + 1
    column = start - text.rfind("\n", 0, start)
    assert main(["validate", str(path)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"{path}:{line}:{column}: error: not valid JSON: unterminated string (it starts here) "
        "(expected a JSON document)"
    )
