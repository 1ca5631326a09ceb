"""Reading one web-service response, and the exact reason when it is not an answer."""

from __future__ import annotations

import json

import pytest

from service.model import Term
from service.systems.response import BadResponse, parse_answer, parse_query_answer

BERLIN = {"type": "uri", "value": "http://dbpedia.org/resource/Berlin"}


def _qald(answers: list[object], qid: str = "q1", **extra: object) -> bytes:
    question = {"id": qid, "question": [{"language": "en", "string": "Capital?"}], **extra}
    question["answers"] = answers
    return json.dumps({"questions": [question]}).encode()


def parse(body: bytes, **kw: object):  # type: ignore[no-untyped-def]
    return parse_answer(body, question_id="q1", system="sys", **kw)


def test_qald_json_answer() -> None:
    body = _qald(
        [{"head": {"vars": ["uri"]}, "results": {"bindings": [{"uri": BERLIN}]}}],
        query={"sparql": "SELECT ?uri WHERE { ?uri a <C> }"},
        answertype="resource",
    )
    answer, warnings = parse(body)
    assert answer.question_id == "q1"
    assert answer.answers.values() == (Term.iri(BERLIN["value"]),)
    assert answer.sparql == "SELECT ?uri WHERE { ?uri a <C> }"
    assert answer.answertype == "resource"
    assert answer.error is None and warnings == ()


def test_boolean_and_bom() -> None:
    answer, _ = parse(b"\xef\xbb\xbf" + _qald([{"head": {}, "boolean": True}]))
    assert answer.answers.boolean is True


def test_eqald_answer_with_confidence() -> None:
    body = json.dumps(
        {
            "questions": [
                {
                    "id": "1",
                    "question": [{"language": "en", "string": "Capital?"}],
                    "answers": [{"bindings": [{"result": BERLIN}], "confidence": "0.9"}],
                }
            ]
        }
    ).encode()
    answer, _ = parse(body)
    assert answer.answers.values() == (Term.iri(BERLIN["value"]),)
    assert answer.confidence == pytest.approx(0.9)


def test_several_questions_use_the_first_with_a_warning() -> None:
    doc = json.loads(_qald([]))
    doc["questions"].append({"id": "8", "answers": []})  # the first, q1, is the one asked
    answer, warnings = parse(json.dumps(doc).encode())
    assert answer.question_id == "q1"
    assert any("holds 2 questions" in w.message for w in warnings)


def test_an_answer_to_another_question_is_said() -> None:
    # a service that mixes up concurrent requests (or caches by the wrong key) answers the
    # question asked before: the text it echoes says so; the score alone did not
    body = _qald([{"head": {"vars": ["uri"]}, "results": {"bindings": [{"uri": BERLIN}]}}])
    _, warnings = parse(body, asked=("en", "Capital of France?"))
    assert [w.message for w in warnings] == [
        "the response answers another question: 'Capital?' (asked: 'Capital of France?')"
    ]
    assert parse(body, asked=("en", "  Capital?  "))[1] == ()  # the same, spaced differently
    assert parse(body, asked=("de", "Hauptstadt?"))[1] == ()  # no text in that language: fine


def test_an_answer_naming_another_question_id_is_said() -> None:
    # explore28 F5: question 6 answered as {"questions": [{"id": "999", …}]} was taken without
    # a word, while another text echoed was warned
    body = _qald(
        [{"head": {"vars": ["uri"]}, "results": {"bindings": [{"uri": BERLIN}]}}], qid="999"
    )
    answer, warnings = parse(body)
    assert answer.question_id == "q1"  # kept as the answer to the question asked, and scored
    assert answer.answers.values() == (Term.iri(BERLIN["value"]),)
    [warning] = warnings
    assert warning.message == "the response answers another question: id '999' (asked: id 'q1')"
    assert warning.question_id == "q1" and warning.severity == "warning"
    assert parse(_qald([], qid=" q1 "))[1] == ()  # the id asked, spaced: fine
    unnamed = json.dumps({"questions": [{"answers": [{"head": {}, "boolean": True}]}]}).encode()
    assert parse(unnamed)[1] == ()  # no id echoed: the service need not know ours
    null = json.dumps({"questions": [{"id": None, "answers": [{"head": {}, "boolean": True}]}]})
    assert parse(null.encode())[1] == ()  # nor does "id": null (was "question has no id")
    other = json.loads(_qald([], qid="8"))
    other["questions"].insert(0, {"id": 8, "answers": [{"head": {}, "boolean": True}]})
    _, warnings = parse(json.dumps(other).encode())  # an integer id, and one more question
    assert [w.message for w in warnings][-1] == (
        "the response answers another question: id '8' (asked: id 'q1')"
    )


def test_a_placeholder_id_in_every_response_of_a_run_is_not_a_mix_up() -> None:
    # the interface sends no id (query and lang only): the GERBIL QA template writes "1" into
    # every response, which is no sign of questions mixed up; one odd id among others is
    from service.systems.response import AnotherId, placeholder_ids_dropped

    answered = [parse_answer(_qald([], qid="1"), question_id=q, system="s")[1] for q in "234"]
    template = [w for said in answered for w in said]
    assert [type(w) for w in template] == [AnotherId] * 3
    assert placeholder_ids_dropped(template) == []
    mixed = template[:1] + list(parse_answer(_qald([], qid="9"), question_id="5", system="s")[1])
    assert placeholder_ids_dropped(mixed) == mixed


def test_a_bad_confidence_is_dropped_and_the_answer_kept() -> None:
    # explore28 F14: "0,8" made the response "not a valid QA answer", the right answer an error;
    # F2: 7 was taken (K1 above 1). Without an id echoed, the warning names the question asked.
    for bad, shown in (("0,8", '"0,8"'), (7, "7")):
        results = {"head": {"vars": ["uri"]}, "results": {"bindings": [{"uri": BERLIN}]}}
        body = json.dumps({"questions": [{"answers": [{**results, "confidence": bad}]}]})
        answer, warnings = parse(body.encode())
        assert answer.error is None and answer.confidence is None
        assert answer.answers.values() == (Term.iri(BERLIN["value"]),)
        [warning] = warnings
        assert warning.question_id == "q1" and warning.file == "response"
        # the question once, as question_id: alike responses are then one warning (F15)
        assert warning.message.endswith(f"without a confidence: {shown}")


def test_a_warning_names_the_response_not_an_input_file() -> None:
    # a bound variable missing from head.vars: positioned in the response body, which no
    # "<input>" file tells the service's developer
    body = _qald([{"head": {"vars": ["x"]}, "results": {"bindings": [{"uri": BERLIN}]}}])
    _, warnings = parse(body)
    [warning] = warnings
    assert str(warning).startswith("response:1:"), str(warning)
    assert "question q1: warning: variable ?uri is bound but not in head.vars" in str(warning)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "the response body is empty"),
        (b"  \n", "the response body is empty"),
        (
            b"<html><body>Internal error</body></html>",
            "markup but not QALD-XML",
        ),
        (b"{'questions': []}", "not JSON: Expecting property name enclosed in double quotes"),
        (b'{"questions": [', "not JSON: Expecting value at line 1, column 16"),
        # was "Unterminated string starting at at line 1, column 15"
        (b'{"questions": "Ber', "not JSON: Unterminated string starting at line 1, column 15;"),
        (b"[1, 2]", "a JSON array, not an object"),
        (b'"Berlin"', "a JSON string, not an object"),
        (b'{"result": "Berlin"}', "no \"questions\" list (top-level keys: 'result')"),
        (b'{"questions": {"id": 1}}', '"questions" is a JSON object; expected a list'),
        (b'{"questions": []}', '"questions" is an empty list'),
        (b'{"questions": ["Berlin"]}', '"questions"[0] is a JSON string'),
        (b"\xff\xfe{}", "not UTF-8 (byte 0 is 0xff)"),
    ],
)
def test_bad_responses_say_what_was_wrong(body: bytes, message: str) -> None:
    with pytest.raises(BadResponse) as caught:
        parse(body)
    assert message in str(caught.value)


def test_gerbil_issue_393_top_level_answers() -> None:
    # dice-group/gerbil#393: a service sent {"answers": [...]} and GERBIL only said
    # "The annotator caused too many single errors".
    body = json.dumps(
        {"answers": [{"head": {"vars": ["uri"]}, "results": {"bindings": [{"uri": BERLIN}]}}]}
    ).encode()
    with pytest.raises(BadResponse) as caught:
        parse(body)
    text = str(caught.value)
    assert "'answers' at the top level but no \"questions\"" in text
    assert '{"questions": [{"question": […], "answers": [{"head": …, "results": …}]}]}' in text


def test_bare_sparql_results_are_named() -> None:
    body = json.dumps({"head": {"vars": ["x"]}, "results": {"bindings": []}}).encode()
    with pytest.raises(BadResponse, match="'head', 'results' at the top level"):
        parse(body)


def test_answers_errors_carry_the_json_path() -> None:
    body = _qald([{"head": {"vars": ["uri"]}, "results": {"bindings": [{"uri": 42}]}}])
    with pytest.raises(BadResponse) as caught:
        parse(body)
    assert "$.questions[0].answers[0].results.bindings[0]" in str(caught.value)


def test_html_error_page_is_named_with_its_content_type() -> None:
    with pytest.raises(BadResponse, match=r"not JSON \(Content-Type text/html\)"):
        parse(b"Service Unavailable", content_type="text/html")


def test_a_bare_answer_needs_no_question_text_and_gives_no_warning() -> None:
    body = json.dumps({"questions": [{"answers": [{"head": {"vars": []}, "results": {}}]}]})
    answer, warnings = parse(body.encode())
    assert answer.answers.is_empty and warnings == ()


def test_a_query_for_another_dataset_is_said() -> None:
    # a TEXT2SPARQL'25 service serves two datasets by their IRIs; one that answers for the
    # other (a default, a routing slip) only scored 0, with nothing saying why
    ck25 = "https://text2sparql.aksw.org/2025/corporate/"
    db25 = "https://text2sparql.aksw.org/2025/dbpedia/"
    body = json.dumps({"dataset": db25, "question": "Q?", "query": "SELECT * {}"}).encode()
    answer, warnings = parse_query_answer(body, question_id="q1", dataset=ck25)
    assert answer.sparql == "SELECT * {}"
    assert [w.message for w in warnings] == [
        f"the response is about dataset {db25!r}, not the one asked about ({ck25!r})"
    ]
    assert parse_query_answer(body, question_id="q1", dataset=db25)[1] == ()
    unnamed = json.dumps({"query": "SELECT * {}"}).encode()  # the dataset is not echoed: fine
    assert parse_query_answer(unnamed, question_id="q1", dataset=ck25)[1] == ()


def test_a_lone_surrogate_in_a_response_is_read_not_a_crash() -> None:
    """A service answering ``"s\\ud800"`` (JSON escapes of half an emoji) crashed ``system
    ask``/``run`` and ended a web run in an internal error (explore31 F13): read as an answer
    file's is, the graph writers store it as U+FFFD with a warning."""
    value = {"type": "literal", "value": "s\ud800"}
    body = json.dumps(
        {
            "questions": [
                {"id": "1", "answers": [{"head": {}, "results": {"bindings": [{"x": value}]}}]}
            ]
        }
    ).encode()  # escaped as JSON writes it: \ud800
    answer, _ = parse(body)  # "1" echoed where q1 was asked: the body is rewritten
    assert answer.error is None and [t.value for t in answer.answers.values()] == ["s\ud800"]


def test_the_depth_of_json_too_deep_to_read_is_said_strings_skipped() -> None:
    """explore46 1: json.loads's RecursionError, which ended whole runs, is a ValueError saying
    how deep; brackets inside strings (an escaped quote too) are text, not nesting."""
    from service.jsontext import TooDeep, loads, nesting

    assert nesting('{"a": "[[[\\" {{", "b": [{}], "c": "]]"}') == 3
    assert nesting(b"[[]][[[]]]") == 3 and nesting("1") == 0
    with pytest.raises(TooDeep, match=r"nested too deeply to read \(50000 levels of arrays"):
        loads('["x", ' + "[" * 49_999 + "]" * 49_999 + "]")
    assert loads('{"a": [[1]]}') == {"a": [[1]]}


def test_more_bindings_than_the_limit_are_refused_before_a_second_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A response past the answers-per-question limit is refused from the JSON already decoded
    (the reader decoding it again beside it took ~230 MB for 150,000 bindings, explore46 4),
    with the limit and its setting named; one at the limit is read."""
    monkeypatch.setenv("GERBIL_QA_MAX_ANSWERS_PER_QUESTION", "100")
    rows = [{"uri": {"type": "uri", "value": f"http://ex.org/r{i}"}} for i in range(101)]
    body = _qald([{"head": {"vars": ["uri"]}, "results": {"bindings": rows}}], qid="7")
    with pytest.raises(BadResponse) as refused:
        parse(body)
    assert str(refused.value) == (
        "the response is not a valid QA answer: at $.questions[0].answers: question 'q1' has "
        "101 answers, more than the limit of 100 per question "
        "(GERBIL_QA_MAX_ANSWERS_PER_QUESTION)"
    )
    body = _qald([{"head": {"vars": ["uri"]}, "results": {"bindings": rows[:100]}}])
    answer, _ = parse(body)
    assert len(answer.answers.rows) == 100
