"""QALD-JSON and eQALD-JSON readers and writers on small hand-made files."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.errors import FormatError
from service.formats import read, write
from service.model import (
    XSD_INTEGER,
    Annotation,
    AnswerSet,
    QuestionText,
    Term,
    TermKind,
)


def doc(*questions: dict[str, Any], dataset: Any = None) -> bytes:
    out: dict[str, Any] = {"questions": list(questions)}
    if dataset is not None:
        out = {"dataset": dataset, **out}
    return json.dumps(out, indent=1).encode()


def results(*bindings: dict[str, Any], vars: tuple[str, ...] = ("uri",)) -> dict[str, Any]:
    return {"head": {"vars": list(vars)}, "results": {"bindings": list(bindings)}}


def uri(value: str) -> dict[str, str]:
    return {"type": "uri", "value": value}


def q(qid: Any = "1", **fields: Any) -> dict[str, Any]:
    return {"id": qid, "question": [{"language": "en", "string": "Who?"}], **fields}


def test_standard_question() -> None:
    data = doc(
        q(
            "7",
            answertype="resource",
            aggregation=False,
            onlydbo=True,
            hybrid=False,
            question=[{"language": "en", "string": "Who?", "keywords": "who"}],
            query={"sparql": "SELECT ?uri WHERE {}"},
            answers=[results({"uri": uri("http://x/a")})],
        ),
        dataset={"id": "demo"},
    )
    ds = read(data)
    assert ds.format == "qald-json"
    assert ds.id == "demo"
    assert ds.problems == ()
    (question,) = ds.questions
    assert question.id == "7"
    assert question.texts == (QuestionText("en", "Who?", "who"),)
    assert (question.aggregation, question.onlydbo, question.hybrid) == (False, True, False)
    assert question.sparql == "SELECT ?uri WHERE {}"
    assert question.answers == AnswerSet(vars=("uri",), rows=({"uri": Term.iri("http://x/a")},))


def test_integer_ids_string_flags_and_missing_fields() -> None:
    ds = read(doc(q(0, aggregation="true", onlydbo="False", hybrid=" false ")))
    question = ds.questions[0]
    assert question.id == "0"
    assert (question.aggregation, question.onlydbo, question.hybrid) == (True, False, False)
    assert question.answertype is None and ds.id is None and question.answers is None


def test_terms_kept_exactly_as_written() -> None:
    bindings = [
        {"x": {"type": "uri", "value": "<http://x/a>"}},
        {"x": {"type": "uri", "value": "Germany"}},
        {"x": {"type": "typed-literal", "datatype": XSD_INTEGER, "value": "8"}},
        {"x": {"type": "literal", "xml:lang": "en", "value": " Berlin "}},
        {"x": {"type": "literal", "value": ""}},
        {"x": {"type": "bnode", "value": "b0"}},
    ]
    ds = read(doc(q(answers=[results(*bindings, vars=("x",))])))
    assert [r["x"] for r in ds.questions[0].answers.rows] == [
        Term("<http://x/a>", TermKind.IRI),
        Term("Germany", TermKind.IRI),
        Term("8", TermKind.LITERAL, XSD_INTEGER),
        Term(" Berlin ", TermKind.LITERAL, lang="en"),
        Term("", TermKind.LITERAL),
        Term("b0", TermKind.BNODE),
    ]
    messages = sorted(p.message for p in ds.problems)
    assert messages == [
        "IRI value written in angle brackets (kept as written; stored without them)",
        "a blank node is no answer term (kept as written; stored as a plain literal)",
        "empty literal value",
        "value of type uri is not an absolute IRI (kept as written; stored as a plain literal)",
    ]
    assert {p.severity for p in ds.problems} == {"warning"}


def test_a_datatype_written_as_a_prefixed_name_is_expanded_with_a_warning() -> None:
    """explore38 3: ``"datatype": "xsd:boolean"`` was stored as the IRI ``<xsd:boolean>``
    (scheme ``xsd``), with no warning; it is a warning naming the question, the datatype
    stored expanded, the term kept as written (no score changes)."""
    from service.valid_terms import valid_term

    given = {"type": "literal", "value": "true", "datatype": "xsd:boolean"}
    other = {"type": "literal", "value": "POINT(1 2)", "datatype": "geo:wktLiteral"}
    ds = read(doc(q("12", answers=[results({"x": given}, {"x": other}, vars=("x",))])))
    term, kept = (r["x"] for r in ds.questions[0].answers.rows)
    assert term == Term("true", TermKind.LITERAL, "xsd:boolean")
    assert valid_term(term).term == Term(
        "true", TermKind.LITERAL, "http://www.w3.org/2001/XMLSchema#boolean"
    )
    assert valid_term(kept).term == kept  # another scheme's name: an IRI, as written
    (problem,) = ds.problems
    assert problem.severity == "warning" and problem.question_id == "12"
    assert problem.message == (
        "datatype 'xsd:boolean' is a prefixed name, not an IRI (kept as written; stored with "
        "the datatype <http://www.w3.org/2001/XMLSchema#boolean>)"
    )


def test_results_without_bindings_or_boolean_is_empty() -> None:
    ds = read(doc(q(answers=[{"head": {"vars": ["x"]}, "results": {}}])))
    assert ds.questions[0].answers == AnswerSet(vars=("x",))
    assert [p.message for p in ds.problems] == ["empty answer set"]


def test_both_results_and_boolean() -> None:
    ask = {"head": {}, "results": {}, "boolean": False}
    mixed = {**results({"uri": uri("http://x/a")}), "boolean": True}
    empty = {"head": {}, "results": {"bindings": []}, "boolean": True}
    ds = read(doc(q("1", answers=[ask]), q("2", answers=[mixed]), q("3", answers=[empty])))
    assert ds.questions[0].answers == AnswerSet(boolean=False)
    assert ds.questions[1].answers == AnswerSet(
        vars=("uri",), rows=({"uri": Term.iri("http://x/a")},)
    )
    # an empty bindings array is kept beside the boolean: the qald6 profile reads it
    assert ds.questions[2].answers == AnswerSet(boolean=True, empty_bindings=True)
    found = [(p.question_id, p.message.split(";")[1].strip()) for p in ds.problems]
    assert found == [
        ("1", "the boolean is used (there are no bindings)"),
        ("2", "the bindings are used, the boolean dropped"),
        (
            "3",
            "the boolean is used (there are no bindings), except by the qald6 profile, "
            "which reads the empty bindings array",
        ),
    ]


def test_several_answers_entries_are_concatenated() -> None:
    first = results({"a": uri("http://x/1")}, vars=("a",))
    second = results({"b": uri("http://x/2")}, vars=("b",))
    ds = read(doc(q(answers=[first, second])))
    assert ds.questions[0].answers == AnswerSet(
        vars=("a", "b"), rows=({"a": Term.iri("http://x/1")}, {"b": Term.iri("http://x/2")})
    )
    (problem,) = ds.problems
    assert problem.message == "2 answers entries; their rows are concatenated"
    assert problem.path == "$.questions[0].answers[1]"


def test_variable_missing_from_head_is_kept_and_reported_once() -> None:
    rows = [{"s": uri(f"http://x/{i}")} for i in range(3)]
    ds = read(doc(q(answers=[results(*rows, vars=("uri",))])))
    assert len(ds.questions[0].answers.values()) == 3
    (problem,) = ds.problems
    assert problem.message == "variable ?s is bound but not in head.vars (3 values)"


def test_text_variants_keywords_only_and_repeated_language() -> None:
    texts = [
        {"language": "ru", "string": "Кто?"},
        {"language": "ru", "string": "Кто это?"},
        {"language": "ro", "keywords": "cine"},
    ]
    question = read(doc(q(question=texts))).questions[0]
    assert question.texts == (
        QuestionText("ru", "Кто?"),
        QuestionText("ru", "Кто это?"),
        QuestionText("ro", None, "cine"),
    )
    assert question.text("ru") == "Кто?" and question.text("ro") is None


def test_dataset_level_warnings() -> None:
    ds = read(
        doc(
            q("1", answertype="whatever", answers=[results()]),
            q("1", question=[{"language": "en", "keywords": "k"}]),
        )
    )
    found = sorted((p.question_id, p.message.split(" (")[0]) for p in ds.problems)
    assert found == [
        ("1", "duplicate question id"),
        ("1", "empty answer set"),
        ("1", "question has no text in any language"),
        ("1", "unknown answer type 'whatever'"),
    ]


def test_a_language_that_is_no_code_is_a_warning_once() -> None:
    """Texts tagged "german" were read without a word, then skipped as having no text for
    --lang de; pt_BR and en-US are codes (said once a file, at its first question)."""
    ds = read(
        doc(
            q("1", question=[{"language": "german", "string": "Wer?"}]),
            q("2", question=[{"language": "german", "string": "Was?"}]),
            q(
                "3",
                question=[
                    {"language": "pt_BR", "string": "Quem?"},
                    {"language": "en-US", "string": "Who?"},
                ],
            ),
        )
    )
    (odd,) = [p for p in ds.problems if "not a language tag" in p.message]
    assert odd.question_id == "1" and odd.path == "$.questions[0]" and odd.line is not None
    assert odd.message.startswith("language 'german' is not a language tag")


def test_a_tag_that_is_none_says_its_texts_are_skipped() -> None:
    """It said "its texts are asked only with --lang en--US", which --lang refuses; and
    ``all`` did ask them, as if a language (explore53 F5)."""
    ds = read(
        doc(
            q("1", question=[{"language": "en--US", "string": "Who?"}]),
            q("2", question=[{"language": "123", "string": "What?"}]),
            q("3", question=[{"language": "hi_IN", "string": "कौन?"}]),
        )
    )
    said = [p.message for p in ds.problems if "language tag" in p.message]
    assert said == [
        f"language {tag!r} is not a language tag: its texts are skipped (no run asks in it, "
        "--lang all neither)"
        for tag in ("en--US", "123")
    ]


def test_out_of_scope_json() -> None:
    question = read(doc(q(query={"sparql": " OUT OF SCOPE "}, answers=[]))).questions[0]
    assert (question.out_of_scope, question.sparql, question.answers) == (True, None, AnswerSet())
    again = read(write(read(doc(q(query={"sparql": "OUT OF SCOPE"}, answers=[]))), "qald-json"))
    assert again.questions[0].out_of_scope


def test_qald5_body_variant_round_trip() -> None:
    body = {
        "id": "3",
        "hybrid": "false",
        "answertype": "boolean",
        "aggregation": "false",
        "onlydbo": "true",
        "body": [{"language": "en", "string": "Is it?", "keywords": "it"}],
        "query": "ASK {}",
        "answers": [{"string": "true"}],
    }
    data = doc(body, dataset={"id": "qald-5_train"})
    ds = read(data)
    question = ds.questions[0]
    assert question.texts == (QuestionText("en", "Is it?", "it"),)
    assert question.sparql == "ASK {}"
    assert question.answers == AnswerSet(vars=("string",), rows=({"string": Term.literal("true")},))
    assert dict(ds.metadata) == {"variant": "qald5-body"}
    written = json.loads(write(ds, "qald-json"))
    assert written == json.loads(data)
    assert read(write(ds, "qald-json")).questions == ds.questions


def test_non_boolean_flag_is_kept_in_extra() -> None:
    ds = read(doc(q(aggregation="union")))
    assert ds.questions[0].aggregation is None
    assert ds.questions[0].extra == (("aggregation", "union"),)
    assert json.loads(write(ds, "qald-json"))["questions"][0]["aggregation"] == "union"


def test_unknown_fields_are_kept_in_extra() -> None:
    ds = read(doc(q(note="checked", score=[1, 2], query={"sparql": "S", "alt": "A"})))
    assert ds.questions[0].extra == (("query.alt", "A"), ("note", "checked"), ("score", "[1, 2]"))
    written = json.loads(write(ds, "qald-json"))["questions"][0]
    assert (written["note"], written["query"]) == ("checked", {"sparql": "S", "alt": "A"})


def test_errors_name_path_position_question_and_expectation() -> None:
    data = b"""{"questions": [
  {"id": "1", "question": [{"language": "en", "string": "A?"}],
   "answers": [{"head": {"vars": ["x"]},
                "results": {"bindings": [{"x": {"type": "iri", "value": "http://x"}}]}}]},
  {"id": "2", "question": 5,
   "aggregation": 3}
]}"""
    with pytest.raises(FormatError) as caught:
        read(data, name="answers.json")
    problems = caught.value.problems
    assert [str(p) for p in problems] == [
        "answers.json:4:57: $.questions[0].answers[0].results.bindings[0].x.type: question 1: "
        "error: unknown term type 'iri' "
        '(expected "uri", "literal", "typed-literal" or "bnode")',
        "answers.json:5:27: $.questions[1].question: question 2: error: question texts are "
        'a number (expected a list of {"language", "string", "keywords"})',
        "answers.json:6:19: $.questions[1].aggregation: question 2: warning: aggregation is 3 "
        '(kept as written) (expected true, false, "true" or "false")',
        "answers.json:5:3: $.questions[1]: question 2: warning: question has no text in any "
        "language",
    ]


def test_json_syntax_error_position() -> None:
    with pytest.raises(FormatError) as caught:
        read(b'{"questions": [\n  {"id": 1,,}\n]}', format="qald-json", name="x.json")
    err = caught.value
    assert (err.file, err.line, err.column) == ("x.json", 2, 12)
    assert "not valid JSON" in str(err) and err.expected == "a JSON document"


def test_not_a_qald_document() -> None:
    with pytest.raises(FormatError) as caught:
        read(b'{"items": []}', format="qald-json")
    assert caught.value.expected == 'an object {"dataset": {"id"}, "questions": [...]}'


# --- eQALD ----------------------------------------------------------------------------------

WIKI = {
    "dataset": {"id": "eq", "metadata": "some metadata"},
    "questions": [
        {
            "id": "1",
            "metadata": {
                "answertype": "ListOfResource",
                "hybrid": "FALSE",
                "aggregation": "TRUE",
                "answeritemtype": ["dbo:City"],
            },
            "question": [
                {
                    "language": "en",
                    "string": "Which cities?",
                    "keywords": "cities",
                    "annotations": [
                        {"char_begin": "6", "char_end": 12, "URI": "dbo:City", "type": "CLASS"}
                    ],
                }
            ],
            "query": {"SPARQL": "SELECT ?c {}", "schemaless ": "SELECT ?c { ?c a :City }"},
            "answers": [
                {
                    "bindings": [{"c": {"type": "uri", "value": "http://x/Bonn"}}],
                    "confidence": "0.9",
                }
            ],
        }
    ],
}


def test_eqald_wiki_shape() -> None:
    ds = read(json.dumps(WIKI).encode())
    assert ds.format == "eqald-json"
    assert dict(ds.metadata) == {"dataset.metadata": "some metadata"}
    question = ds.questions[0]
    assert question.answertype == "ListOfResource"
    assert (question.aggregation, question.hybrid) == (True, False)
    assert question.answer_item_types == ("dbo:City",)
    assert question.texts[0].annotations == (Annotation("dbo:City", "CLASS", 6, 12),)
    assert question.sparql == "SELECT ?c {}"
    assert question.schemaless_query == "SELECT ?c { ?c a :City }"
    assert question.confidence == 0.9
    assert question.answers == AnswerSet(rows=({"c": Term.iri("http://x/Bonn")},))
    assert ds.problems == ()
    again = read(write(ds, "eqald-json"))
    assert again.questions == ds.questions and again.metadata == ds.metadata
    assert '"schemaless": ' in write(ds, "eqald-json").decode()


def test_eqald_answers_as_object_and_numeric_confidence() -> None:
    question = dict(WIKI["questions"][0])
    question["answers"] = {"head": {"vars": ["c"]}, "boolean": True, "confidence": 1}
    ds = read(json.dumps({"questions": [question]}).encode())
    assert ds.questions[0].answers == AnswerSet(vars=("c",), boolean=True)
    assert ds.questions[0].confidence == 1.0


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        *[("high", '"high"'), ("0,8", '"0,8"'), ("nan", '"nan"'), (True, "true"), (50, "50")],
        *[("-0.2", '"-0.2"'), (1.0000001, "1.0000001"), ({"p": 1}, '{"p": 1}')],
        (1e308, "1e308"),  # as a person writes it, not Python's 1e+308 (explore31 F15)
    ],
)
def test_eqald_confidence_not_in_0_1_is_dropped_with_one_warning(bad: Any, shown: str) -> None:
    # explore28 F2/F14: 50 and -0.2 were taken (K1 3.99, "In [-1, 1]"), "0,8" and "abc" threw
    # the whole answer away (a file refused, a web service's answer an error); seed 004: a
    # confidence is a real number in [0, 1], and only the confidence measures read it
    first = json.loads(json.dumps(WIKI["questions"][0]))
    first["answers"][0]["confidence"] = bad
    second = json.loads(json.dumps(WIKI["questions"][0])) | {"id": "2"}
    second["answers"][0]["confidence"] = "x"
    third = json.loads(json.dumps(WIKI["questions"][0])) | {"id": "3"}  # "0.9": kept
    ds = read(json.dumps({"questions": [first, second, third]}).encode())
    assert [q.confidence for q in ds.questions] == [None, None, 0.9]
    assert all(q.answers == ds.questions[2].answers for q in ds.questions)  # answers kept
    [warning] = ds.problems
    assert warning.severity == "warning" and warning.expected == "a number from 0 to 1, such as 0.9"
    assert warning.message == (
        "confidences that are not a number in [0, 1] are dropped; their answers are kept and "
        f'scored, without a confidence (2): question 1: {shown}; question 2: "x"'
    )


def test_eqald_confidences_at_the_bounds_are_kept() -> None:
    values = [0, 1, "0", "1.0", " 0.25 ", 0.5]
    items = []
    for n, value in enumerate(values):
        item = json.loads(json.dumps(WIKI["questions"][0])) | {"id": str(n)}
        item["answers"][0]["confidence"] = value
        items.append(item)
    ds = read(json.dumps({"questions": items}).encode())
    assert [q.confidence for q in ds.questions] == [0.0, 1.0, 0.0, 1.0, 0.25, 0.5]
    assert ds.problems == ()


def test_eqald_many_bad_confidences_are_one_warning_naming_ten() -> None:
    items = []
    for n in range(12):
        item = json.loads(json.dumps(WIKI["questions"][0])) | {"id": str(n)}
        item["answers"][0]["confidence"] = 90
        items.append(item)
    [warning] = read(json.dumps({"questions": items}).encode()).problems
    assert "(12): question 0: 90; question 1: 90;" in warning.message
    assert warning.message.endswith("question 9: 90; and 2 more")


def test_eqald_bad_char_offset() -> None:
    question = json.loads(json.dumps(WIKI["questions"][0]))
    question["question"][0]["annotations"][0]["char_begin"] = "5..."
    with pytest.raises(FormatError) as caught:
        read(json.dumps({"questions": [question]}).encode())
    assert caught.value.path == "$.questions[0].question[0].annotations[0].char_begin"


EXTENDED = {
    "dataset": {"id": "x"},
    "questions": [
        {
            "question": {
                "id": "0",
                "answertype": "date",
                "language": [
                    {"language": "en", "question": "When?", "keywords": "when", "SPARQL": "S1"},
                    {"language": "de", "question": "Wann?", "SPARQL": "S2"},
                    {"language": "es", "keywords": "cuando", "SPARQL": "S1"},
                ],
                "answers": {"head": {"vars": ["d"]}, "results": {"bindings": []}},
                "metadata": {"aggregation": False, "onlydbo": True, "hybrid": False},
            }
        }
    ],
}


def test_eqald_extended_shape_round_trip() -> None:
    ds = read(json.dumps(EXTENDED).encode())
    question = ds.questions[0]
    assert question.texts == (
        QuestionText("en", "When?", "when"),
        QuestionText("de", "Wann?"),
        QuestionText("es", None, "cuando"),
    )
    assert question.sparql == "S1"
    assert question.extra == (("sparql@de", "S2"),)
    assert question.answers == AnswerSet(vars=("d",))
    assert json.loads(write(ds, "eqald-json")) == EXTENDED


def test_qald_json_to_eqald_and_back_keeps_everything() -> None:
    data = doc(
        q(
            "1",
            answertype="number",
            aggregation=True,
            onlydbo=False,
            hybrid=False,
            query={"sparql": "S"},
            answers=[results({"n": {"type": "literal", "value": "3"}}, vars=("n",))],
        ),
        dataset={"id": "d"},
    )
    ds = read(data)
    again = read(write(read(write(ds, "eqald-json")), "qald-json"))
    assert again.questions == ds.questions and again.id == ds.id


_OOS_FLAGS = {"aggregation": "true", "onlydbo": False, "hybrid": True}
_OOS_TEXT = [{"language": "en", "string": "Q?", "note": "x"}]  # the careful QALD-JSON reader
_OOS_DOCS = {
    "qald-json": doc(
        q(question=_OOS_TEXT, query={"sparql": "OUT OF SCOPE"}, answers=[], **_OOS_FLAGS)
    ),
    "eqald-json": doc(
        {
            "id": 1,
            "metadata": _OOS_FLAGS,
            "question": _OOS_TEXT,
            "query": {"SPARQL": "OUT OF SCOPE"},
        }
    ),
    "eqald-json extended": doc(
        {
            "question": {
                "id": 1,
                "metadata": _OOS_FLAGS,
                "language": [{"language": "en", "question": "Q?", "SPARQL": " out of scope "}],
            }
        }
    ),
    "qald-xml": b'<dataset id="d"><question id="1" aggregation="true" onlydbo="false" '
    b'hybrid="true"><string lang="en">Q?</string><query>OUT OF SCOPE</query></question></dataset>',
}


@pytest.mark.parametrize("shape", list(_OOS_DOCS))
def test_every_qald_reader_builds_flags_and_out_of_scope_alike(shape: str) -> None:
    fmt = shape.split()[0]
    question = read(_OOS_DOCS[shape], format=fmt).questions[0]
    assert (question.id, question.aggregation, question.onlydbo, question.hybrid) == (
        "1",
        True,
        False,
        True,
    )
    assert (question.out_of_scope, question.sparql) == (True, None)


def _with_id(fmt: str, qid: dict[str, Any]) -> tuple[bytes, str]:
    """One question of ``fmt`` with ``qid`` (``{}``: none, else {key: value}) and its path."""
    text = [{"language": "en", "string": "Who?", "note": "x"}]  # the careful QALD-JSON reader
    if fmt == "lcquad-json":
        return json.dumps([{"corrected_question": "Who?", **qid}]).encode(), "$[0]"
    if fmt == "nlq-json":
        return json.dumps([{"lang": "en", "question": "Who?", **qid}]).encode(), "$[0]"
    if fmt == "eqald-json extended":
        inner = {"language": [{"language": "en", "question": "Who?"}], **qid}
        return doc({"question": inner}), "$.questions[0].question"
    if fmt == "eqald-json":
        return doc({"metadata": {}, "question": text, **qid}), "$.questions[0]"
    return doc({"question": text, **qid}), "$.questions[0]"


@pytest.mark.parametrize(
    "shape", ["qald-json", "eqald-json", "eqald-json extended", "lcquad-json", "nlq-json"]
)
def test_a_missing_id_is_said_at_the_question_a_wrong_one_at_its_key(shape: str) -> None:
    key = "_id" if shape == "lcquad-json" else "id"
    fmt = shape.split()[0]
    for qid, said, where in (
        ({}, "question has no id", ""),
        ({key: [1]}, "question id is a list", f".{key}"),
    ):
        body, at = _with_id(shape, qid)
        with pytest.raises(FormatError) as err:
            read(body, format=fmt)
        found = [(p.path, p.message) for p in err.value.problems if "id" in p.message]
        assert found == [(at + where, said)]


@pytest.mark.parametrize("fmt", ["qald-json", "eqald-json"])
def test_a_question_that_is_no_object_is_said_once_at_its_place(fmt: str) -> None:
    with pytest.raises(FormatError) as err:
        read(doc(q("1"), [1], "x"), format=fmt)  # type: ignore[arg-type]
    assert [(p.path, p.message, p.expected) for p in err.value.problems] == [
        ("$.questions[1]", "question is a list", 'an object {"id", "question", …}'),
        ("$.questions[2]", "question is a string", 'an object {"id", "question", …}'),
    ]
