"""The three TEXT2SPARQL formats: questions YAML, result sets, answers; read, write, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import main
from service.errors import FormatError
from service.formats import losses, read, sniff, write
from service.formats.text2sparql import item_key, prefix_environment, split_item
from service.model import (
    AnswerSet,
    Dataset,
    Question,
    QuestionText,
    Term,
    attach_gold,
    system_run,
)

YAML = b"""# yamllint disable rule:line-length
---
dataset:
  id: https://text2sparql.aksw.org/2025/corporate/
  prefix: ck25
  defaultNamespace: http://ld.company.org/prod-vocab/
questions:

  - id: 1
    question:
      en: In which department is Ms. Brant?
      es: No
    features:
      - SELECT
    classes:
      - :Department
    properties:
      - :memberOf
    query:
      sparql: |
        SELECT DISTINCT ?result
        WHERE { ?x :memberOf ?result . }
  - id: 010
    question:
      en: Who?
"""


# --- questions YAML --------------------------------------------------------------------------


def test_yaml_reads_every_field_with_scalars_as_written() -> None:
    ds = read(YAML, name="questions.yml")
    assert ds.format == "text2sparql-yaml"
    assert ds.id == "https://text2sparql.aksw.org/2025/corporate/"
    assert ds.metadata == (
        ("prefix", "ck25"),
        ("defaultNamespace", "http://ld.company.org/prod-vocab/"),
    )
    first, second = ds.questions
    # YAML 1.1 would read "No" as false and 010 as the octal 8: we keep the text.
    assert first.texts == (
        QuestionText("en", "In which department is Ms. Brant?"),
        QuestionText("es", "No"),
    )
    assert second.id == "010"
    assert (first.features, first.classes, first.properties) == (
        ("SELECT",),
        (":Department",),
        (":memberOf",),
    )
    assert first.sparql == "SELECT DISTINCT ?result\nWHERE { ?x :memberOf ?result . }\n"
    assert first.answers is None and second.sparql is None
    assert prefix_environment(ds) == {"": "http://ld.company.org/prod-vocab/"}


def test_yaml_writes_what_it_reads_with_queries_as_blocks() -> None:
    ds = read(YAML)
    data = write(ds, "text2sparql-yaml")
    assert b"    sparql: |\n      SELECT DISTINCT ?result\n" in data
    assert b"- id: 1\n" in data and b"- id: '010'\n" in data
    again = read(data)
    assert (again.questions, again.id, again.metadata) == (ds.questions, ds.id, ds.metadata)
    assert losses(ds, "text2sparql-yaml") == []
    assert losses(ds, "qald-json") == ["query features, classes and properties of 1 questions"]


@pytest.mark.parametrize(
    ("text", "where", "message", "expected"),
    [
        ("questions: {a: 1}\n", (1, 12), "questions is a mapping", "a list"),
        ("questions:\n  - question: {en: x}\n", (2, 5), "question has no id", "an id"),
        ("questions:\n  - id: [1]\n", (2, 9), "question id is a list", "a value"),
        ("questions:\n  - id: 1\n    question: Hi\n", (3, 15), "question texts is a plain value",
         "a mapping"),
        ("questions:\n  - id: 1\n    features: SELECT\n", (3, 15), "features is a plain value",
         "a list"),
        ("questions:\n  - id: 1\n    query: {sparql: [x]}\n", (3, 21), "query.sparql is a list",
         "a value"),
        ("questions:\n  - id: 1\n    question: {en: [1, 2\n", (4, 1), "not valid YAML",
         "a YAML document"),
        ("dataset: {id: x}\nquestions:\n  - &q {id: 1}\n  - *q\n", (3, 5),
         "used again through a YAML alias (*name)", "a value written out"),
        ("questions:\n  - id: 1\n\tquestion: x\n", (3, 1), "not valid YAML", "a YAML document"),
    ],
)  # fmt: skip
def test_yaml_errors_name_line_column_question_and_what_was_expected(
    text: str, where: tuple[int, int], message: str, expected: str
) -> None:
    with pytest.raises(FormatError) as caught:
        read(text.encode(), name="q.yml", format="text2sparql-yaml")
    err = caught.value
    assert err.file == "q.yml"
    assert (err.line, err.column) == where, str(err)
    assert message in str(err)
    assert err.expected == expected
    if "id:" in text and "id: [1]" not in text and "{en: [1, 2" not in text:
        assert err.question_id in (None, "1")


def test_yaml_error_names_the_question_and_its_json_path() -> None:
    text = b"questions:\n  - id: 7\n    classes: [ok, {a: b}]\n"
    with pytest.raises(FormatError) as caught:
        read(text, name="q.yml")
    assert str(caught.value.problems[0]) == (
        "q.yml:3:19: $.questions[0].classes[1]: question 7: error: an entry of classes is a "
        "mapping (expected a value)"
    )


def test_yaml_warnings_for_what_is_not_kept() -> None:
    text = b"questions:\n  - id: 1\n    question: {en: Hi}\n    level: hard\n    x: [1]\nextra: 1\n"
    ds = read(text, name="q.yml")
    assert ds.questions[0].extra == (("level", "hard"),)
    messages = [str(p) for p in ds.problems]
    assert any("q.yml:5:8" in m and "question key 'x' is not kept" in m for m in messages)
    assert any("top-level key 'extra' is not kept" in m for m in messages)
    assert any("no dataset description" in m for m in messages)


def test_yaml_sniffing_and_start_up_cost() -> None:
    assert sniff(YAML) == "text2sparql-yaml"
    assert sniff(b"questions: []\n", name="x.txt") == "text2sparql-yaml"
    assert sniff(b"a: 1\n", name="q.yaml") == "text2sparql-yaml"  # by extension
    # Importing the formats (what `gerbil-qa evaluate` does) must not import PyYAML.
    code = "import sys, service.formats; print('yaml' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


# --- result sets -----------------------------------------------------------------------------

RESULT_SET = {
    "ck25:1-en": {"http://ld.company.org/prod-instances/dept-73191": 1},
    "ck25:2-en": {"+49-6200-33069465": 1, "Model:X200": 1},
    "ck25:16-en": {"true": 1},
    "ck25:33-en": {"true": 0},
    "ck25:25-en": {},
    "ck25:7-es": {"urn:x:1": 1},
}


def test_result_set_reads_items_per_question_and_language() -> None:
    ds = read(json.dumps(RESULT_SET).encode(), name="rs.json")
    assert ds.format == "result-set-json"
    assert ds.metadata == (("prefix", "ck25"),)
    by_key = {(q.id, q.language): q.answers for q in ds.questions}
    assert by_key[("1", "en")] == AnswerSet.of(
        [Term.iri("http://ld.company.org/prod-instances/dept-73191")], var="value"
    )
    # Only http(s)/ftp/urn values are IRIs: "Model:X200" is a product code.
    assert by_key[("2", "en")] == AnswerSet.of(
        [Term.literal("+49-6200-33069465"), Term.literal("Model:X200")], var="value"
    )
    assert by_key[("16", "en")] == AnswerSet(boolean=True)
    assert by_key[("33", "en")] == AnswerSet(boolean=False)
    assert by_key[("25", "en")] == AnswerSet(vars=("value",))
    assert by_key[("7", "es")].values() == (Term.iri("urn:x:1"),)
    assert ds.problems == ()


def test_result_set_writes_what_it_reads() -> None:
    ds = read(json.dumps(RESULT_SET).encode())
    assert json.loads(write(ds, "result-set-json")) == RESULT_SET


def test_result_set_from_a_qald_dataset_gets_one_key_per_language() -> None:
    q = Question(
        "5",
        texts=(QuestionText("en", "Q?"), QuestionText("es", "¿Q?")),
        answers=AnswerSet(vars=("a", "b"), rows=({"a": Term.iri("http://x/1")}, {})),
    )
    ds = Dataset("d", (q, Question("6", answers=AnswerSet(boolean=False))))
    assert json.loads(write(ds, "result-set-json")) == {
        "5-en": {"http://x/1": 1},
        "5-es": {"http://x/1": 1},
        "6": {"true": 0},
    }
    assert "question texts, queries and metadata (1 questions)" in losses(ds, "result-set-json")


def test_result_set_round_trip_through_qald_json_keeps_every_item(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DB25 items per question and language: QALD-JSON gets one question per id where the
    languages' answers agree, a language text per item, and says what it cannot hold."""
    source = data_dir / "text2sparql2025/systems/FRANZ/db25_system_result_set.json"
    original = json.loads(source.read_bytes())
    qald, back = tmp_path / "db.json", tmp_path / "back.json"
    assert main(["convert", "--to", "qald-json", str(source), str(qald)]) == 0
    said = capsys.readouterr().err
    ids = [q["id"] for q in json.loads(qald.read_bytes())["questions"]]
    differ = {
        k.split(":")[1].split("-")[0]
        for k in original
        if k.endswith("-en") and original[k] != original[k[:-3] + "-es"]
    }
    assert differ and len(ids) == 100 + len(differ)
    assert f"{len(differ)} ids" in said and "sharing the id" in said
    assert json.loads(qald.read_bytes())["dataset"] == {"prefix": "db25"}
    assert main(["convert", "--to", "result-set-json", str(qald), str(back)]) == 0
    assert json.loads(back.read_bytes()) == original


def test_result_set_items_a_format_cannot_tell_apart_are_listed_both_ways(data_dir: Path) -> None:
    """QALD-XML keeps no string-less text: the DB25 items become questions sharing an id, and
    a result set written from them would keep one per id; both conversions say so."""
    items = read(data_dir / "text2sparql2025/db25/true_result_set.json")
    dropped = losses(items, "qald-xml")
    assert any(d.startswith("one question per id: 100 ids") for d in dropped), dropped
    assert "the TEXT2SPARQL key prefix 'db25' (ids are written without it)" in dropped
    xml = read(write(items, "qald-xml"), name="db.xml")
    assert len(xml) == 200
    back = losses(xml, "result-set-json")
    assert "entries whose key repeats an earlier one, such as '1' (100 questions)" in back, back


def test_result_set_odd_weights_are_warnings_and_bad_ones_errors() -> None:
    ds = read(b'{"db25:1-en": {"a": 0, "b": 2, "c": 1, "d": 0}}', name="rs.json")
    assert [p.message for p in ds.problems] == [
        "weight 0 read as an answer (a gold item of weight 0 is not relevant) (2 values)",
        "weight 2 read as 1",
    ]
    with pytest.raises(FormatError) as caught:
        read(
            b'{\n "db25:1-en": {"a": "1"},\n "db25:2-en": []\n}',
            name="rs.json",
            format="result-set-json",
        )
    first, second = caught.value.problems
    assert str(first) == (
        'rs.json:2:21: $["db25:1-en"].a: question 1: error: weight is a string '
        "(expected a number (1; 0 for a false ASK))"
    )
    assert (second.line, second.question_id, second.message) == (3, "2", "result set is a list")


def test_an_official_evaluation_file_is_refused_as_what_it_is() -> None:
    scores = {"ck25:1-en": {"set_P": 0.0, "set_recall": 0.0, "set_F": 0.0}, "average": {}}
    with pytest.raises(FormatError) as caught:
        read(json.dumps(scores).encode(), name="ck25_eval.json")
    assert "this is a TEXT2SPARQL evaluation" in str(caught.value)
    assert caught.value.file == "ck25_eval.json"


@pytest.mark.parametrize(
    ("key", "parts"),
    [
        ("ck25:1-en", ("ck25", "1", "en")),
        ("db25:100-es", ("db25", "100", "es")),
        ("1-pt-BR", (None, "1", "pt-BR")),
        ("q-12", (None, "q-12", None)),
        ("x:y:3-de", ("x", "y:3", "de")),
        ("7", (None, "7", None)),
    ],
)
def test_item_keys_split_and_join(key: str, parts: tuple[str | None, str, str | None]) -> None:
    assert split_item(key) == parts
    assert item_key(*parts) == key


# --- answers ---------------------------------------------------------------------------------

ANSWERS = [
    {
        "dataset": "https://text2sparql.aksw.org/2025/dbpedia/",
        "question": "How many?",
        "query": "select count(*) as ?x where{dbr:X dbo:y ?x }",
        "endpoint": "https://example.org/api",
        "qname": "db25:1-en",
        "uri": "https://text2sparql.aksw.org/2025/dbpedia/1-en",
    },
    {
        "dataset": "https://text2sparql.aksw.org/2025/dbpedia/",
        "question": "¿Cuántos?",
        "query": " ",
        "endpoint": "https://example.org/api",
        "uri": "https://text2sparql.aksw.org/2025/dbpedia/1-es",
    },
]


def test_answers_read_each_returned_query_exactly() -> None:
    ds = read(json.dumps(ANSWERS).encode(), name="answers.json")
    assert ds.format == "text2sparql-answers"
    assert ds.id == "https://text2sparql.aksw.org/2025/dbpedia/"
    en, es = ds.questions
    assert (en.id, en.language, en.sparql) == ("1", "en", ANSWERS[0]["query"])
    assert (es.id, es.language, es.sparql) == ("1", "es", " ")  # item taken from the uri
    assert es.texts == (QuestionText("es", "¿Cuántos?"),)
    assert en.answers is None
    assert dict(en.extra)["endpoint"] == "https://example.org/api"
    # A language picks that language's entries as a system's answers.
    assert system_run(ds, system="s", language="es").answers["1"].sparql == " "
    assert system_run(ds, system="s", language="en").answers["1"].sparql == ANSWERS[0]["query"]


def test_answers_write_what_they_read() -> None:
    ds = read(json.dumps(ANSWERS).encode())
    written = json.loads(write(ds, "text2sparql-answers"))
    assert written[0] == ANSWERS[0]
    assert written[1] == {**ANSWERS[1], "qname": "db25:1-es"}
    assert read(json.dumps(written).encode()).questions == ds.questions


def test_another_datasets_qname_is_a_located_warning() -> None:
    """A db25 entry in a CK25 answers file was read as CK25's question of that number."""
    entries = [
        {"dataset": "https://text2sparql.aksw.org/2025/corporate/", "query": "ASK {}",
         "qname": f"ck25:{n}-en"}
        for n in (1, 2)
    ] + [{"dataset": "https://text2sparql.aksw.org/2025/corporate/", "query": "ASK {}",
          "qname": "db25:3-en"}]  # fmt: skip
    ds = read(json.dumps(entries, indent=1).encode(), name="ck25_answers.json")
    (warning,) = [p for p in ds.problems if "prefix" in p.message]
    assert warning.path == "$[2].qname" and warning.line is not None
    assert warning.question_id == "3" and "'db25' is not the file's ('ck25')" in warning.message
    assert not read(json.dumps(entries[:2]).encode()).problems


def test_an_entry_without_query_says_why_when_the_call_failed() -> None:
    """``gerbil-qa system run`` writes a failed call as an entry with its ``error`` and no
    query; reading it warned "the system returned none", as if the service had answered."""
    entries = [
        {"dataset": "d", "qname": "ck25:1-en", "error": "HTTP 500 Internal Server Error: 'boom'"},
        {"dataset": "d", "qname": "ck25:2-en"},
    ]
    ds = read(json.dumps(entries, indent=1).encode(), name="team.json")
    failed, empty = (p for p in ds.problems if "without query" in p.message)
    assert failed.question_id == "1" and failed.path == "$[0]"
    assert "returned none" not in failed.message
    assert "the call failed: HTTP 500 Internal Server Error: 'boom'" in failed.message
    assert empty.question_id == "2" and "the system returned none" in empty.message


def test_an_aborted_runs_never_asked_entries_are_not_each_warned_of() -> None:
    """A question the error-rate rule left unasked is no failed call: the archive's one
    warning of the abort says it (explore28 F6), not one "entry without query" each."""
    from service.systems.archive import answers_from

    why = "not asked: the run was aborted (2 of 3 questions failed, more than 25% of them)"
    entries = [
        {"dataset": "d", "qname": "ck25:1-en", "error": "HTTP 500 Internal Server Error: 'boom'"},
        {"dataset": "d", "qname": "ck25:2-en", "error": "HTTP 500 Internal Server Error: 'boom'"},
        {"dataset": "d", "qname": "ck25:3-en", "error": why},
    ]
    ds = read(json.dumps(entries, indent=1).encode(), name="team.json")
    assert [p.question_id for p in ds.problems if "without query" in p.message] == ["1", "2"]
    run = answers_from(ds, name="team.json", language="en")
    assert sorted(run.answers) == ["1", "2"]  # the unasked one scores as having no entry
    (said,) = [p.message for p in run.problems if "aborted run" in p.message]
    assert "(2 of 3 questions failed, more than 25% of them): 1 of its 3 questions" in said


def test_an_empty_answers_list_reads_as_no_entries() -> None:
    ds = read(b"[]", name="ck25_answers.json")
    assert (ds.format, len(ds), ds.problems) == ("text2sparql-answers", 0, ())


def test_answers_errors_are_located() -> None:
    bad = [
        {"dataset": "d", "query": "q", "qname": 5},
        {"dataset": "d", "query": 7, "qname": "a-en"},
    ]
    with pytest.raises(FormatError) as caught:
        read(json.dumps(bad, indent=1).encode(), name="a.json")
    first, second = caught.value.problems
    assert (first.path, first.message, first.line) == ("$[0].qname", "qname is a number", 5)
    assert (second.path, second.question_id, second.message) == (
        "$[1].query",
        "a",
        "query is a number",
    )
    with pytest.raises(FormatError, match="neither qname nor uri"):
        read(b'[{"dataset": "d", "query": "q"}]', format="text2sparql-answers")


# --- gold given apart ------------------------------------------------------------------------


def test_gold_is_attached_by_question_and_language() -> None:
    questions = Dataset(
        "d",
        (
            Question("1", texts=(QuestionText("en", "A?"), QuestionText("es", "¿A?"))),
            Question("2", texts=(QuestionText("en", "B?"),)),
            Question("3", texts=(QuestionText("en", "C?"),)),
        ),
    )
    gold = read(
        json.dumps(
            {"d:1-en": {"x": 1}, "d:1-es": {"x": 1}, "d:2-en": {"true": 1}, "d:9-en": {"y": 1}}
        ).encode(),
        name="gold.json",
    )
    merged = attach_gold(questions, gold)
    answers = {q.id: q.answers for q in merged.questions}
    assert answers["1"] == AnswerSet.of([Term.literal("x")], var="value")
    assert answers["2"] == AnswerSet(boolean=True)
    assert answers["3"] is None
    assert [(p.question_id, p.message) for p in merged.problems] == [
        ("3", "no gold answers for this question"),
        ("9", "gold answers (en) for a question the dataset does not have"),
    ]
    differing = read(b'{"1-en": {"x": 1}, "1-es": {"y": 1}}')
    merged = attach_gold(questions, differing)
    assert merged.questions[0].answers == AnswerSet.of([Term.literal("x")], var="value")
    assert "differ between languages; those for en are used" in merged.problems[0].message


def test_every_odd_weight_and_a_key_of_no_shape_are_warned_at_their_place() -> None:
    """``{"true": 2}`` was read as true without a word while ``1e400`` was warned, and a key
    ``"nocolon"`` was read as question "nocolon" silently (explore44 F8): one rule, each with
    its JSON path (``1e400`` itself is now refused as too large a number: ``1e300`` here)."""
    doc = b'{"db25:1-en": {"true": 2},\n "db25:2-en": {"x": 1e300},\n "nocolon": {"y": 1}}'
    ds = read(doc, name="rs.json", format="result-set-json")
    said = {p.path: p for p in ds.problems}
    assert said['$["db25:1-en"].true'].message == "weight 2 of an ASK answer read as true"
    assert said['$["db25:1-en"].true'].expected == "1 (true) or 0 (false)"
    assert said['$["db25:2-en"].x'].message == "weight 1e+300 read as 1"
    odd = said["$.nocolon"]
    assert odd.line == 3 and odd.question_id == "nocolon"
    assert "has neither a dataset prefix nor a language" in odd.message
    assert ds.by_id()["1"].answers is not None and ds.by_id()["1"].answers.boolean is True
    # the shapes the format keeps are not warned: "1-en" (no prefix), "db25:1" (no language)
    kept = read(b'{"1-en": {"a": 1}, "db25:2": {"true": 0}}', name="k.json")
    assert kept.problems == ()
