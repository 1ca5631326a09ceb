"""The limits on answers per question and per file, and on questions per file
(service/formats/base.py): counted from the parsed file before any row or question is built, in
every format; a file past one is refused at once, naming the file, the position (the question)
and the limit."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.errors import BadRequest, FormatError
from service.formats import FORMATS, UNLIMITED, Limits, read, write
from service.formats.base import (
    MAX_ANSWERS_PER_FILE,
    MAX_ANSWERS_PER_QUESTION,
    MAX_QUESTIONS_PER_FILE,
)
from service.formats.sparql_json import count_raw_answers

PER_QUESTION = "GERBIL_QA_MAX_ANSWERS_PER_QUESTION"
PER_FILE = "GERBIL_QA_MAX_ANSWERS_PER_FILE"
QUESTIONS = "GERBIL_QA_MAX_QUESTIONS_PER_FILE"


def _bindings(n: int) -> list[dict[str, Any]]:
    return [{"x": {"type": "uri", "value": f"http://example.org/{i}"}} for i in range(n)]


def qald(*sizes: int, extra: list[Any] | None = None) -> bytes:
    """A QALD-JSON answers file: question i has sizes[i] bindings, one question a line."""
    questions: list[Any] = [
        {
            "id": str(i + 1),
            "question": [{"language": "en", "string": f"q{i + 1}?"}],
            "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": _bindings(n)}}],
        }
        for i, n in enumerate(sizes)
    ]
    lines = ",\n".join(json.dumps(q) for q in questions + (extra or []))
    return ('{"questions": [\n' + lines + "\n]}\n").encode()


def refused(data: bytes, limits: Limits, **kwargs: Any) -> str:
    with pytest.raises(FormatError) as caught:
        read(data, name="answers.json", limits=limits, **kwargs)
    errors = [p for p in caught.value.problems if p.severity == "error"]
    return str(errors[-1])


def test_the_defaults_are_documented_values() -> None:
    limits = Limits()
    assert (limits.max_answers_per_question, limits.max_answers_per_file) == (100_000, 2_000_000)
    assert (MAX_ANSWERS_PER_QUESTION, MAX_ANSWERS_PER_FILE) == (100_000, 2_000_000)
    assert limits.max_questions_per_file == MAX_QUESTIONS_PER_FILE == 20_000


def test_a_question_at_the_limit_is_read_one_past_it_is_refused_with_its_place() -> None:
    assert len(read(qald(1, 5, 2), limits=Limits(max_answers_per_question=5))) == 3
    text = refused(qald(1, 6, 2), Limits(max_answers_per_question=5))
    # line 3 (the second question), at its answers; the question id; the limit and its variable
    assert text.startswith("answers.json:3:"), text
    assert "$.questions[1].answers" in text and "question '2' has 6 answers" in text
    assert f"at most 5 answers per question ({PER_QUESTION})" in text
    assert "not read further" in text


def test_the_file_limit_counts_over_questions() -> None:
    assert len(read(qald(4, 4, 4), limits=Limits(max_answers_per_file=12))) == 3
    text = refused(qald(4, 4, 4, 1), Limits(max_answers_per_file=12))
    assert text.startswith("answers.json:5:"), text  # the fourth question passes it
    assert "up to question '4' number 13" in text
    assert f"at most 12 answers per file ({PER_FILE})" in text


def test_reading_stops_at_the_limit() -> None:
    """The questions after the one past a limit are not read: a broken one there (an error the
    reader would report) is not reported, and the first file's question is not built."""
    broken = {"id": "9", "answers": [{"results": {"bindings": [{"x": {"type": 5}}]}}]}
    data = qald(3, extra=[broken])
    with pytest.raises(FormatError) as caught:
        read(data, limits=Limits(max_answers_per_question=2))
    assert len(caught.value.problems) == 1, caught.value.problems
    with pytest.raises(FormatError) as unlimited:  # without the limit, the broken one is read
        read(data)
    assert "term type" in str(unlimited.value)


def test_the_limit_error_is_said_past_the_problem_cap() -> None:
    noisy = [{"id": str(i), "answers": [], "x": 1, "y": 2} for i in range(100, 110)]
    data = qald(extra=[*noisy, *json.loads(qald(7))["questions"]])
    text = refused(data, Limits(max_answers_per_question=5, max_problems=3))
    assert "has 7 answers" in text


@pytest.mark.parametrize(
    ("answers", "count"),
    [
        ([{"head": {}, "results": {"bindings": [{}, {}, {}]}}], 3),
        ([{"head": {}, "boolean": True}], 1),
        ({"bindings": [{}, {}]}, 2),  # eQALD's object
        ([{"bindings": [{}]}, {"results": {"bindings": [{}, {}]}}], 3),
        ([{"string": "a"}, {"string": "b"}], 2),  # QALD-5: one entry an answer
        ([], 0),
        ("junk", 0),
        ([5, "x"], 2),  # what is not an object counts once (the reader reports it)
    ],
)
def test_counting_raw_answers(answers: Any, count: int) -> None:
    assert count_raw_answers(answers) == count


def test_eqald_json() -> None:
    doc = {
        "questions": [
            {
                "id": "a",
                "question": [{"language": "en", "string": "q?"}],
                "answers": [{"bindings": _bindings(4), "confidence": 0.5}],
            }
        ]
    }
    data = json.dumps(doc).encode()
    assert read(data, limits=Limits(max_answers_per_question=4)).format == "eqald-json"
    text = refused(data, Limits(max_answers_per_question=3))
    assert "$.questions[0].answers" in text and "question 'a' has 4 answers" in text


def test_eqald_json_of_qald7_extended() -> None:
    doc = {
        "questions": [
            {
                "question": {
                    "id": "b",
                    "language": [{"language": "en", "question": "q?"}],
                    "answers": {"head": {"vars": ["x"]}, "results": {"bindings": _bindings(4)}},
                }
            }
        ]
    }
    data = json.dumps(doc).encode()
    assert len(read(data, limits=Limits(max_answers_per_question=4))) == 1
    text = refused(data, Limits(max_answers_per_question=3))
    assert "$.questions[0].question.answers" in text and "question 'b' has 4" in text


def test_qald_xml_names_line_and_column() -> None:
    answers = "".join(f"<answer><uri>http://e/{i}</uri></answer>" for i in range(4))
    data = (
        '<?xml version="1.0"?>\n<dataset id="d">\n<question id="7">\n'
        '<string lang="en">q?</string>\n'
        f"  <answers>{answers}</answers>\n</question>\n</dataset>\n"
    ).encode()
    assert len(read(data, limits=Limits(max_answers_per_question=4))) == 1
    text = refused(data, Limits(max_answers_per_question=3))
    assert text.startswith("answers.json:5:3:"), text
    assert "question '7' has 4 answers" in text


def test_result_set_json() -> None:
    data = json.dumps({"ck25:1-en": {"a": 1, "b": 1}, "ck25:2-en": {"c": 1, "d": 1}}).encode()
    assert len(read(data, limits=Limits(max_answers_per_file=4))) == 2
    text = refused(data, Limits(max_answers_per_file=3))
    assert "question '2'" in text and f"({PER_FILE})" in text


def test_tsv(tmp_path) -> None:
    path = tmp_path / "expected.tsv"
    path.write_text("a\tb\tc\nd\n")
    assert len(read(path, limits=Limits(max_answers_per_question=3))) == 2
    with pytest.raises(FormatError) as caught:
        read(path, limits=Limits(max_answers_per_question=2))
    assert str(caught.value.problems[0]).startswith(f"{path}:1:1:")
    out = tmp_path / "out.tsv"
    out.write_text("a\nb\nc\n")
    with pytest.raises(FormatError, match="number 3"):
        read(out, limits=Limits(max_answers_per_file=2))


def test_the_environment_sets_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PER_QUESTION, "2")
    monkeypatch.setenv(PER_FILE, "1_000")
    assert (Limits().max_answers_per_question, Limits().max_answers_per_file) == (2, 1000)
    with pytest.raises(FormatError, match="has 3 answers"):
        read(qald(3))  # read() without limits takes the environment's
    assert len(read(qald(3), limits=UNLIMITED)) == 1  # the catalogue's
    monkeypatch.setenv(PER_QUESTION, "many")
    with pytest.raises(BadRequest, match=PER_QUESTION):
        Limits()
    monkeypatch.setenv(PER_QUESTION, "0")
    with pytest.raises(BadRequest, match="≥ 1"):
        Limits()


@pytest.mark.parametrize("name", FORMATS)
def test_every_format_counts_its_questions_before_reading_them(name: str) -> None:
    """The demo's 14 questions written in each format: read at a limit of 14, refused at 13
    naming the file, the count, the limit and its variable (an upload of 300,000 questions,
    24 MB, took a server to 11.8 GB while its results were recorded)."""
    from service.paths import DEMO_DIR

    data = write(read(DEMO_DIR / "questions.json"), name)
    at_limit = read(data, format=name, name="many", limits=Limits(max_questions_per_file=14))
    assert len(at_limit.questions) == 14
    with pytest.raises(FormatError) as caught:
        read(data, format=name, name="many", limits=Limits(max_questions_per_file=13))
    (error,) = [p for p in caught.value.problems if p.severity == "error"]
    text = str(error)
    assert text.startswith("many:"), text
    assert "the file has 14 questions, more than the limit per file" in text
    assert f"at most 13 questions per file ({QUESTIONS})" in text


def test_the_question_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(QUESTIONS, "2")
    assert Limits().max_questions_per_file == 2
    with pytest.raises(FormatError, match="the file has 3 questions"):
        read(qald(1, 1, 1))
    assert len(read(qald(1, 1, 1), limits=UNLIMITED)) == 3  # the catalogue's
    monkeypatch.setenv(QUESTIONS, "0")
    with pytest.raises(BadRequest, match=QUESTIONS):
        Limits()
