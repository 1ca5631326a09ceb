"""QALD-XML reader and writer on small hand-made files."""

from __future__ import annotations

import pytest

from service.errors import FormatError
from service.formats import read, write
from service.model import (
    XSD_BOOLEAN,
    XSD_DATE,
    XSD_DECIMAL,
    XSD_DOUBLE,
    XSD_INTEGER,
    AnswerSet,
    Dataset,
    Question,
    QuestionText,
    Term,
)


def xml(body: str, *, dataset: str = '<dataset id="t">') -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{dataset}\n{body}\n</dataset>\n'.encode()


def one(body: str) -> Question:
    ds = read(xml(body))
    assert ds.format == "qald-xml"
    (question,) = ds.questions
    return question


def test_question_fields_whitespace_cdata_and_default_language() -> None:
    question = one(
        """<question id="4" answertype="resource" aggregation="false" onlydbo="true" hybrid="false"
            yago="true">
<string>
  Who is it?
</string>
<keywords lang="de">wer</keywords>
<query><![CDATA[
SELECT ?uri WHERE { ?uri a <http://x/C> . FILTER(?x < 3) }
]]></query>
</question>"""
    )
    assert question.id == "4"
    assert question.texts == (QuestionText("en", "Who is it?"), QuestionText("de", None, "wer"))
    assert (question.aggregation, question.onlydbo, question.hybrid) == (False, True, False)
    assert question.sparql == "SELECT ?uri WHERE { ?uri a <http://x/C> . FILTER(?x < 3) }"
    assert question.extra == (("yago", "true"),)
    assert question.answers is None


def test_answer_elements_map_to_terms() -> None:
    question = one(
        """<question id="1"><string lang="en">Q?</string><answers>
<answer><uri> http://x/a </uri><string>A</string></answer>
<answer><date>2001-07-20</date></answer>
<answer><number>42</number></answer>
<answer><number>1.81</number></answer>
<answer><number>1.2E3</number></answer>
<answer>  bare text  </answer>
<answer><uri>http://x/b</uri><uri>http://x/c</uri></answer>
</answers></question>"""
    )
    assert question.answers.rows == (
        {"uri": Term.iri("http://x/a"), "string": Term.literal("A")},
        {"date": Term.literal("2001-07-20", datatype=XSD_DATE)},
        {"number": Term.literal("42", datatype=XSD_INTEGER)},
        {"number": Term.literal("1.81", datatype=XSD_DECIMAL)},
        {"number": Term.literal("1.2E3", datatype=XSD_DOUBLE)},
        {"answer": Term.literal("bare text")},
        {"uri": Term.iri("http://x/b"), "uri_2": Term.iri("http://x/c")},
    )
    assert question.answers.vars == ("uri", "string", "date", "number", "answer", "uri_2")


def test_single_boolean_is_an_ask_answer() -> None:
    question = one(
        '<question id="1"><answers><answer><boolean>True</boolean></answer></answers></question>'
    )
    assert question.answers == AnswerSet(boolean=True)


def test_odd_values_are_kept_with_warnings() -> None:
    ds = read(
        xml(
            """<question id="1"><string lang="en">Q?</string><answers>
<answer><number>3 m</number><date>2008: a festival</date><boolean>yes</boolean></answer>
<answer><label>x</label></answer>
<answer/>
</answers></question>"""
        )
    )
    rows = ds.questions[0].answers.rows
    assert rows[0] == {
        "number": Term.literal("3 m"),
        "date": Term.literal("2008: a festival", datatype=XSD_DATE),
        "boolean": Term.literal("yes", datatype=XSD_BOOLEAN),
    }
    assert rows[1] == {"string": Term.literal("x")}
    assert rows[2] == {}
    assert [(p.line, p.message.split(" (")[0]) for p in ds.problems] == [
        (4, "<number> '3 m' is not a number"),
        (4, "<date> '2008: a festival' is not an xsd:date"),
        (4, "<boolean> 'yes' is not true or false"),
        (5, "unknown answer element <label>"),
        (6, "empty <answer>"),
    ]
    assert ds.problems[3].path == "/dataset/question[1]/answers[1]/answer[2]/label[1]"


def test_out_of_scope() -> None:
    question = one(
        '<question id="9"><string lang="en">Q?</string><query>OUT OF SCOPE</query>'
        "<answers/></question>"
    )
    assert (question.out_of_scope, question.sparql, question.answers) == (True, None, AnswerSet())
    assert b"<query>OUT OF SCOPE</query>" in write(Dataset("d", (question,)), "qald-xml")


def test_keywords_listed_after_all_strings_pair_by_language() -> None:
    question = one(
        """<question id="1">
<string lang="en">Who?</string><string lang="de">Wer?</string>
<keywords lang="en">who</keywords><keywords lang="de">wer</keywords>
</question>"""
    )
    assert question.texts == (QuestionText("en", "Who?", "who"), QuestionText("de", "Wer?", "wer"))


def test_mismatched_tag_names_expected_closing_tag() -> None:
    data = xml('<question id="1">\n<answers>\n<answer>x</answer>\n</question>')
    with pytest.raises(FormatError) as caught:
        read(data, name="bad.xml")
    err = caught.value
    assert (err.file, err.line, err.column, err.expected) == ("bad.xml", 6, 3, "</answers>")
    assert "found </question> but <answers> (opened at line 4) is still open" in str(err)


def test_truncated_file() -> None:
    with pytest.raises(FormatError) as caught:
        read(b'<dataset id="x"><question id="1">', name="cut.xml")
    assert caught.value.line == 1
    assert caught.value.expected and "inside <question>" in caught.value.expected


@pytest.mark.parametrize(
    "data",
    [
        b"<dataset>" + b"<a>" * 20_000,
        b'<dataset id="x"><question id="1"><string lang="en">Who?</string></question></dataset>',
    ],
)
def test_what_a_read_built_is_freed_without_the_cyclic_collector(data: bytes) -> None:
    """A refused deep file (its error's traceback holds the parser's frame in a cycle) and a
    read one leave neither their element tree nor expat's state to the cyclic collector: each
    hostile upload of 100,000 open elements held ~70 MB until it came round."""
    import contextlib
    import gc
    import pyexpat

    from service.formats import qald_xml

    def alive() -> int:
        kinds = (qald_xml.Node, pyexpat.XMLParserType)
        return sum(isinstance(o, kinds) for o in gc.get_objects())

    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        before = alive()
        with contextlib.suppress(FormatError):
            read(data, format="qald-xml")
        assert alive() == before
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize(
    "prolog",
    [
        '<!DOCTYPE dataset [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>',
        '<!DOCTYPE dataset SYSTEM "file:///etc/passwd">',
    ],
)
def test_dtds_and_entities_are_refused(prolog: str) -> None:
    data = f'<?xml version="1.0"?>\n{prolog}\n<dataset id="x">&b;</dataset>'.encode()
    with pytest.raises(FormatError) as caught:
        read(data, format="qald-xml")
    assert caught.value.expected == "XML without DTD, entity declarations or external references"
    assert caught.value.line == 2
    # said in words, not defusedxml's repr "DTDForbidden(name='dataset', system_id=…)"
    assert "refused: a document type declaration (<!DOCTYPE dataset>)" in str(caught.value)
    assert "Forbidden(" not in str(caught.value)


def test_other_root_and_missing_id() -> None:
    with pytest.raises(FormatError) as caught:
        read(b"<questions/>", format="qald-xml")
    assert caught.value.expected == "<dataset>"
    with pytest.raises(FormatError) as caught:
        read(xml("<question><string>Q?</string></question>"))
    assert (caught.value.line, caught.value.path) == (3, "/dataset/question[1]")


def test_round_trip_of_every_answer_shape() -> None:
    data = xml(
        """<question id="1" answertype="resource" hybrid="true">
<string lang="en">A &amp; B?</string><keywords lang="en">a, b</keywords>
<string lang="en">A and B?</string>
<pseudoquery>SELECT ?x WHERE { ?x text:"a &lt; b" }</pseudoquery>
<answers><answer><uri>http://x/a</uri><string>A</string></answer>
<answer>bare</answer><answer><number>7</number></answer></answers>
</question>
<question id="2"><answers><answer><boolean>false</boolean></answer></answers></question>""",
        dataset='<dataset id="t" description="a &quot;test&quot;">',
    )
    ds = read(data)
    again = read(write(ds, "qald-xml"))
    assert again.questions == ds.questions
    assert (again.id, again.metadata) == ("t", (("dataset.description", 'a "test"'),))


def test_writing_what_xml_cannot_carry_is_listed() -> None:
    from service.formats import losses

    question = Question(
        "1",
        texts=(QuestionText("en", " padded "),),
        answers=AnswerSet.of([Term.literal("x", lang="en")], var="v"),
        confidence=0.5,
    )
    dropped = losses(Dataset("d", (question,)), "qald-xml")
    assert dropped == [
        "confidences (1 questions)",
        "answer datatypes, languages, blank nodes or variable names (1 questions)",
        "surrounding whitespace (1 questions)",
    ]
    again = read(write(Dataset("d", (question,)), "qald-xml")).questions[0]
    assert again.answers == AnswerSet(vars=("string",), rows=({"string": Term.literal("x")},))


def test_an_unknown_answer_type_is_said_as_the_json_readers_say_it() -> None:
    ds = read(
        xml('<question id="1" answertype="whatever"><string lang="en">Q?</string></question>')
    )
    (problem,) = ds.problems
    assert str(problem) == (
        "<input>:3:1: /dataset/question[1]: question 1: warning: unknown answer type 'whatever' "
        "(kept as written) (expected resource, string, number, date or boolean)"
    )
    json_doc = b'{"questions": [{"id": "1", "answertype": "whatever", "question": []}]}'
    said = [p for p in read(json_doc, format="qald-json").problems if "answer type" in p.message]
    assert [(p.message, p.expected) for p in said] == [(problem.message, problem.expected)]
