"""NLQ, LC-QuAD and TSV readers and writers on small hand-made files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.errors import FormatError
from service.formats import losses, read, tsv, write
from service.model import AnswerSet, Dataset, Question, QuestionText, Term, system_run

NLQ = [
    {"id": "2", "lang": "en", "question": "Q?", "answer": "A", "type": "1-1", "sparql": "S"},
    {"id": "2", "lang": "ko", "question": "질문?", "answer": "답", "type": "1-1", "sparql": "K"},
    {"id": "3", "lang": "ko", "question": "또?", "answer": "네", "type": "2", "sparql": "K3"},
    {"id": "3", "lang": "en", "question": "Again?", "answer": "Yes", "type": "2", "sparql": "S3"},
]


def test_nlq_groups_by_id_with_english_gold() -> None:
    ds = read(json.dumps(NLQ, ensure_ascii=False).encode())
    assert ds.format == "nlq-json"
    first, second = ds.questions
    assert first.texts == (QuestionText("en", "Q?"), QuestionText("ko", "질문?"))
    assert first.answers == AnswerSet.of([Term.literal("A")])
    assert first.sparql == "S"
    assert first.extra == (("type", "1-1"), ("answer@ko", "답"), ("sparql@ko", "K"))
    # English second in the file: still the gold.
    assert (second.answers, second.sparql) == (AnswerSet.of([Term.literal("Yes")]), "S3")
    assert second.texts[0] == QuestionText("ko", "또?")
    assert json.loads(write(ds, "nlq-json")) == NLQ
    assert ds.problems == ()


def test_nlq_second_entry_for_a_language_warns() -> None:
    ds = read(json.dumps([NLQ[0], NLQ[0]]).encode())
    assert len(ds.questions[0].texts) == 2
    assert [p.message.split(";")[0] for p in ds.problems] == ["a second 'en' entry for this id"]


LCQUAD = [
    {
        "_id": "1501",
        "corrected_question": "How many movies did Stanley Kubrick direct?",
        "intermediary_question": "How many <movies> …?",
        "sparql_query": "SELECT DISTINCT COUNT(?uri) WHERE { }",
        "sparql_template_id": 101,
    }
]


def test_lcquad() -> None:
    ds = read(json.dumps(LCQUAD).encode())
    assert ds.format == "lcquad-json"
    (question,) = ds.questions
    assert question.texts == (QuestionText("en", LCQUAD[0]["corrected_question"]),)
    assert question.answers is None
    assert question.extra == (
        ("intermediary_question", "How many <movies> …?"),
        ("sparql_template_id", "101"),
    )
    assert json.loads(write(ds, "lcquad-json")) == LCQUAD


def test_lcquad_entry_errors() -> None:
    with pytest.raises(FormatError) as caught:
        read(json.dumps([LCQUAD[0], {"_id": None, "corrected_question": "x"}]).encode())
    assert (caught.value.path, caught.value.expected) == ("$[1]._id", "a string or an integer id")


@pytest.fixture
def poleval(tmp_path: Path) -> Path:
    (tmp_path / "in.tsv").write_text("Ile?\nGdzie?\nKto?\n", encoding="utf-8")
    (tmp_path / "expected.tsv").write_text("4\tcztery\nw Polsce\n\n", encoding="utf-8")
    (tmp_path / "out.tsv").write_text("cztery\n\nKopernik\n", encoding="utf-8")
    return tmp_path


def test_tsv_expected_with_texts_beside(poleval: Path) -> None:
    ds = read(poleval / "expected.tsv", language="pl")
    assert ds.format == "tsv"
    assert [q.id for q in ds] == ["1", "2", "3"]
    assert ds.questions[0].texts == (QuestionText("pl", "Ile?"),)
    assert ds.questions[0].answers == AnswerSet.of([Term.literal("4"), Term.literal("cztery")])
    assert ds.questions[2].answers == AnswerSet(vars=("answer",))
    assert [(p.question_id, p.message, p.line) for p in ds.problems] == [
        ("3", "empty answer set", 3)
    ]


def test_tsv_out_is_a_system_run(poleval: Path) -> None:
    run = system_run(read(poleval / "out.tsv"), system="s")
    assert run.get("1").answers == AnswerSet.of([Term.literal("cztery")])
    assert run.get("2").answers == AnswerSet(vars=("answer",))
    assert run.get("3").answers.values() == (Term.literal("Kopernik"),)


def test_tsv_out_with_a_tab_says_the_whole_line_is_the_answer() -> None:
    # "Warszawa<TAB>0.9" (an answer and a confidence, as a researcher may write it) is one
    # answer for geval, which then scores it wrong; it was read without a word
    ds = read(b"Warszawa\t0.9\nKrak\xc3\xb3w\t0.4\nGdynia\n", format="tsv", name="out.tsv")
    assert ds.questions[0].answers == AnswerSet.of([Term.literal("Warszawa\t0.9")])
    assert [(p.line, p.message) for p in ds.problems] == [
        (1, "2 answer lines hold a tab: each whole line is one answer (PolEval/geval), so no "
            "confidence or second answer is read from TSV; give confidences in eQALD-JSON")
    ]  # fmt: skip


def test_tsv_in_alone_and_without_language(poleval: Path) -> None:
    ds = read(poleval / "in.tsv")
    assert [q.texts for q in ds][1] == (QuestionText("", "Gdzie?"),)
    assert all(q.answers is None for q in ds)


def test_tsv_line_counts_must_match(poleval: Path) -> None:
    (poleval / "in.tsv").write_text("Ile?\n", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read(poleval / "expected.tsv")
    message = str(caught.value)
    assert str(poleval / "in.tsv") in message and "has 1 line but" in message
    assert str(poleval / "expected.tsv") in message and "has 3" in message


def test_tsv_expected_without_in_and_from_bytes() -> None:
    ds = read(b"a\tb\n", format="tsv", name="expected.tsv")
    assert ds.questions[0].texts == ()
    # read alone (an upload): how to bring the texts, not "in.tsv in the same directory"
    ((problem,),) = [ds.problems]
    assert problem.message.startswith("no in.tsv beside this file: the questions have no text")
    assert "upload the dataset as QALD-JSON" in problem.message
    assert "gerbil-qa convert expected.tsv dataset.json --to qald-json" in problem.message
    assert problem.expected is None


def test_tsv_crlf_and_written_back(tmp_path: Path) -> None:
    ds = read(b"x\r\ny\tz\r\n", format="tsv", name="expected.tsv")
    assert [t.value for q in ds for t in q.answers.values()] == ["x", "y", "z"]
    assert write(ds, "tsv") == b"x\ny\tz\n"


def test_converting_to_tsv_lists_what_is_lost() -> None:
    question = Question(
        "q7",
        texts=(QuestionText("en", "Who?"), QuestionText("de", "Wer?")),
        sparql="SELECT ?x {}",
        answers=AnswerSet.of([Term.iri("http://x/a"), Term.literal("tab\there")]),
    )
    ds = Dataset("d", (question,))
    assert write(ds, "tsv") == b"http://x/a\ttab here\n"
    assert tsv.write_in(ds, language="de") == b"Wer?\n"
    assert losses(ds, "tsv") == [
        "question ids (TSV numbers questions by line) (1 questions)",
        "question texts (they go in in.tsv: see write_in) (1 questions)",
        "texts other than the first (1 questions)",
        "answer datatypes, languages and IRI marks (1 questions)",
        "tabs, line breaks and empty values in answers (1 questions)",
        "queries (1 questions)",
    ]


@pytest.mark.parametrize(
    ("body", "fmt", "said"),
    [
        (
            b'{"questions": [{"id": 1, "question": [{"string": "Who?"}]}]}',
            "qald-json",
            "1:39: $.questions[0].question[0]: question 1: warning: question text without language",
        ),
        (
            b'[{"id": "1", "question": "Who?", "answer": "x"}]',
            "nlq-json",
            "1:2: $[0]: question 1: warning: entry without lang",
        ),
    ],
)
def test_a_text_without_language_is_in_the_language_read_with(
    body: bytes, fmt: str, said: str
) -> None:
    for language, taken in ((None, "unknown"), ("de", "de")):
        ds = read(body, format=fmt, language=language)
        assert ds.questions[0].texts[0].language == (language or "")
        assert [str(p) for p in ds.problems] == [
            f"<input>:{said} (taken as {taken!r}) (expected a language code)"
        ]
