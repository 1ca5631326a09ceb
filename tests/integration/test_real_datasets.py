"""Every real benchmark file loads, round-trips, and each oddity of the data README reads as
the exact model below. Data: ``../shared/data`` (see its README); nothing is copied here."""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path

import pytest

from service.errors import FormatError
from service.formats import read, tsv, write
from service.model import (
    XSD_BOOLEAN,
    XSD_DATE,
    XSD_INTEGER,
    AnswerSet,
    AnswerType,
    Dataset,
    QuestionText,
    Term,
    TermKind,
)
from tests.conftest import DATA, QALD

FOLDERS = ("qald", "lcquad1", "poleval2021", "system-outputs", "text2sparql2025")
MALFORMED = QALD / "5/data/qald-5_train_raw.xml"
# Files in those folders that hold no questions (lexicons, score tables, licences, notes).
NOT_QUESTION_FILES = {
    "qald/ag-sc_QALD/statistics.tsv",  # a table of challenge editions
    "poleval2021/in-header.tsv",  # the column names of in.tsv
    # TEXT2SPARQL'25 official per-item scores (read by the text2sparql reference tests)
    "text2sparql2025/systems/FRANZ/ck25_eval.json",
    "text2sparql2025/systems/FRANZ/db25_eval.json",
    "text2sparql2025/systems/DBPEDIA-SC/db25_eval.json",
}
NOT_QUESTION_SUFFIXES = {".ttl", ".csv", ".md", ""}  # lexicons, per-question scores, LICENSE


def _all_files() -> list[Path]:
    if not DATA.is_dir():
        return []
    return sorted(p for folder in FOLDERS for p in (DATA / folder).rglob("*") if p.is_file())


def _is_question_file(path: Path) -> bool:
    rel = path.relative_to(DATA).as_posix()
    return rel not in NOT_QUESTION_FILES and path.suffix not in NOT_QUESTION_SUFFIXES


QUESTION_FILES = [p for p in _all_files() if _is_question_file(p) and p != MALFORMED]


def _rel(path: Path) -> str:
    return path.relative_to(DATA).as_posix()


@cache
def load(path: Path) -> Dataset:
    return read(path, language="pl" if "poleval" in str(path) else None)


def by_id(path: Path) -> dict:
    return load(path).by_id()


# Question counts published with the data (READMEs, QALD papers) or, marked so, counted once
# by hand from the files and kept as a regression check.
KNOWN_COUNTS = {
    "qald/ag-sc_QALD/9/data/qald-9-train-multilingual.json": 408,
    "qald/ag-sc_QALD/9/data/qald-9-test-multilingual.json": 150,
    "qald/KGQA_QALD-10/data/qald_10/qald_10.json": 394,
    "qald/KGQA_QALD-10/branch_fix-qald-plus-ids/qald_10.json": 394,
    "qald/KGQA_QALD_9_plus/data/qald_9_plus_test_dbpedia.json": 150,
    "lcquad1/train-data.json": 4000,
    "lcquad1/test-data.json": 1000,
    "poleval2021/dev-0/expected.tsv": 1000,
    "poleval2021/dev-0/in.tsv": 1000,
    "poleval2021/test-A/expected.tsv": 2500,
    "poleval2021/test-A/in.tsv": 2500,
    "qald/NLIWOD/nlq1_vis.json": 40,  # 79 entries: 40 English, 39 Korean, grouped by id
    "qald/ag-sc_QALD/8/data/qald-8-train-multilingual.json": 219,
    "qald/ag-sc_QALD/8/data/qald-8-test-multilingual.json": 41,
    "qald/ag-sc_QALD/7/data/qald-7-train-multilingual.json": 215,
    "qald/ag-sc_QALD/6/data/qald-6-train-multilingual.json": 350,
    "qald/ag-sc_QALD/6/data/qald-6-test-multilingual.json": 100,
    "qald/ag-sc_QALD/5/data/qald-5_train.xml": 340,
    "qald/ag-sc_QALD/5/data/qald-5_train.json": 340,
    "qald/ag-sc_QALD/4/data/qald-4_multilingual_train.xml": 200,
    "qald/ag-sc_QALD/4/data/qald-4_multilingual_test.xml": 50,
    "qald/ag-sc_QALD/3/data/dbpedia-train.xml": 100,
    "qald/ag-sc_QALD/3/data/dbpedia-test.xml": 99,
    "qald/ag-sc_QALD/1/data/dbpedia-train.xml": 50,
    # TEXT2SPARQL'25 (its README): CK25 50 questions in English, DB25 100 in English and
    # Spanish; result sets and answers hold one entry per question and language.
    "text2sparql2025/ck25/questions.yml": 50,
    "text2sparql2025/ck25/true_result_set.json": 50,
    "text2sparql2025/db25/questions.yaml": 100,
    "text2sparql2025/db25/true_result_set.json": 200,
    "text2sparql2025/systems/FRANZ/ck25_answers.json": 50,
    "text2sparql2025/systems/FRANZ/ck25_system_result_set.json": 50,
    "text2sparql2025/systems/FRANZ/db25_answers.json": 200,
    "text2sparql2025/systems/FRANZ/db25_system_result_set.json": 200,
    "text2sparql2025/systems/DBPEDIA-SC/ck25_answers.json": 0,  # published empty: []
    "text2sparql2025/systems/DBPEDIA-SC/db25_answers.json": 200,
    "text2sparql2025/systems/DBPEDIA-SC/db25_system_result_set.json": 200,
    **{f"system-outputs/qald8-train/{s}_QALD8_Train.json": 219 for s in (
        "AskNow", "GANSWER2", "QAKIS", "QANSWER", "QASystem", "TeBaQA"
    )},
}  # fmt: skip

EXPECTED_FORMAT = {".xml": "qald-xml", ".tsv": "tsv", ".yml": "text2sparql-yaml"}
EXPECTED_FORMAT_BY_NAME = {
    "questions.yaml": "text2sparql-yaml",
    "true_result_set.json": "result-set-json",
    "ck25_system_result_set.json": "result-set-json",
    "db25_system_result_set.json": "result-set-json",
    "ck25_answers.json": "text2sparql-answers",
    "db25_answers.json": "text2sparql-answers",
}


def test_every_data_file_is_either_read_or_known_not_to_hold_questions() -> None:
    files = _all_files()
    assert len(files) > 100
    skipped = {_rel(p) for p in files if not _is_question_file(p)}
    assert skipped >= NOT_QUESTION_FILES
    assert all(Path(s).suffix in NOT_QUESTION_SUFFIXES or s in NOT_QUESTION_FILES for s in skipped)
    assert {_rel(p) for p in QUESTION_FILES} >= set(KNOWN_COUNTS)


@pytest.mark.parametrize("path", QUESTION_FILES, ids=_rel)
def test_file_loads(path: Path) -> None:
    ds = load(path)
    assert ds.source == str(path)
    assert len(ds) > 0 or KNOWN_COUNTS.get(_rel(path)) == 0
    assert all(isinstance(q.id, str) for q in ds)
    assert not [p for p in ds.problems if p.severity == "error"]
    if path.suffix in EXPECTED_FORMAT:
        assert ds.format == EXPECTED_FORMAT[path.suffix]
    if path.name in EXPECTED_FORMAT_BY_NAME:
        assert ds.format == EXPECTED_FORMAT_BY_NAME[path.name]
    if _rel(path) in KNOWN_COUNTS:
        assert len(ds) == KNOWN_COUNTS[_rel(path)]


def _reread(ds: Dataset, tmp_path: Path) -> Dataset:
    data = write(ds, ds.format or "")
    if ds.format != "tsv":
        return read(data, format=ds.format)
    # A TSV file's role is its name (gonito), and questions live in in.tsv beside the answers.
    role = dict(ds.metadata)[tsv.ROLE_KEY]
    target = tmp_path / f"{role}.tsv"
    target.write_bytes(data)
    if role == tsv.EXPECTED and any(q.texts for q in ds):
        (tmp_path / "in.tsv").write_bytes(tsv.write_in(ds))
    language = ds.questions[0].texts[0].language if ds.questions[0].texts else None
    return read(target, format="tsv", language=language)


@pytest.mark.parametrize("path", QUESTION_FILES, ids=_rel)
def test_round_trip(path: Path, tmp_path: Path) -> None:
    """read(write(read(f))) == read(f) field by field; ``source`` and ``problems`` aside
    (they name the original file and describe its layout)."""
    ds = load(path)
    again = _reread(ds, tmp_path)
    assert again.questions == ds.questions
    assert dataclasses.replace(again, source=None, problems=()) == dataclasses.replace(
        ds, source=None, problems=()
    )


def test_malformed_xml_fails_naming_file_line_column_and_expected_tag() -> None:
    with pytest.raises(FormatError) as caught:
        read(MALFORMED)
    err = caught.value
    assert len(err.problems) == 1
    assert err.file == str(MALFORMED)
    assert (err.line, err.column) == (8003, 3)  # expat's 0-based column 2, made 1-based
    assert err.expected == "</answers>"
    assert "found </question>" in err.problems[0].message
    assert "opened at line 8001" in err.problems[0].message
    assert str(err).startswith(f"{MALFORMED}:8003:3: /dataset/question[301]/answers[1]: error:")


# --- the README's oddities, one test each --------------------------------------------------


def test_out_of_scope_queries_with_empty_answers() -> None:
    q = by_id(QALD / "4/data/qald-4_multilingual_train_withanswers.xml")["94"]
    assert (q.out_of_scope, q.sparql, q.answers) == (True, None, AnswerSet())
    q = by_id(QALD / "5/data/qald-5_train.json")["100"]
    assert (q.out_of_scope, q.sparql, q.answers) == (True, None, AnswerSet())
    # A questions-only file: OUT OF SCOPE and no answers at all.
    q = by_id(QALD / "2/data/dbpedia-train.xml")["94"]
    assert (q.out_of_scope, q.sparql, q.answers) == (True, None, None)
    counts = {n: sum(q.out_of_scope for q in load(QALD / f)) for n, f in [
        (2, "2/data/dbpedia-train-answers.xml"),
        (3, "3/data/dbpedia-train-answers.xml"),
        (4, "4/data/qald-4_multilingual_train_withanswers.xml"),
        (5, "5/data/qald-5_train.xml"),
    ]}  # fmt: skip
    assert all(counts.values()), counts


def test_uri_values_in_angle_brackets_are_kept_as_written() -> None:
    ds = load(QALD / "7/data/qald-7-test-hybrid.json")
    assert ds.by_id()["4"].answers.rows[0] == {
        "uri": Term("<http://dbpedia.org/resource/Achelous>", TermKind.IRI)
    }
    assert any(
        p.question_id == "4" and "angle brackets" in p.message and p.severity == "warning"
        for p in ds.problems
    )


def test_uri_values_holding_literals_are_kept_as_written() -> None:
    qs = by_id(QALD / "7/data/qald-7-train-multilingual.json")
    assert qs["55"].answers == AnswerSet(vars=("uri",), rows=({"uri": Term.iri("false")},))
    assert qs["115"].answers == AnswerSet(vars=("uri",), rows=({"uri": Term.iri("1225")},))
    qs = by_id(DATA / "qald/ag-sc_QALD/history/qald-9-test-multilingual.2018-10-10.json")
    germany = [
        t for q in qs.values() if q.answers for t in q.answers.values() if t.value == "Germany"
    ]
    assert germany == [Term.iri("Germany")]


def test_results_object_without_bindings_or_boolean_is_an_empty_answer() -> None:
    ds = load(DATA / "system-outputs/qald8-train/TeBaQA_QALD8_Train.json")
    q = ds.by_id()["2"]
    assert q.answers == AnswerSet(vars=("c",), rows=(), boolean=None)
    assert q.answers.is_empty
    assert [p.message for p in ds.problems if p.question_id == "2"] == ["empty answer set"]


def test_both_results_and_boolean_qald9_test() -> None:
    ds = load(QALD / "9/data/qald-9-test-multilingual.json")
    for qid in ("6", "79", "92", "117"):
        assert ds.by_id()[qid].answers == AnswerSet(vars=(), rows=(), boolean=True)
    both = [p for p in ds.problems if "both results and boolean" in p.message]
    assert sorted(p.question_id for p in both) == ["117", "6", "79", "92"]
    assert {p.severity for p in both} == {"warning"}
    assert both[0].path == "$.questions[8].answers[0].boolean"
    assert (both[0].line, both[0].column) == (662, 19)


def test_empty_literal_values() -> None:
    qs = by_id(DATA / "qald/KGQA_QALD_9_plus/data/qald_9_plus_test_dbpedia.json")
    assert qs["164"].answers.rows[3] == {"uri": Term("", TermKind.LITERAL, lang="en")}
    assert Term.literal("", lang="en") in qs["60"].answers.values()


def test_duplicate_question_ids() -> None:
    ds = load(QALD / "8/data/wikidata-train-7.json")
    twenty = [q for q in ds if q.id == "20"]
    assert [q.text("en") for q in twenty] == [
        "Which states border Illinois?",
        "How many goals did Pelé score?",
    ]
    assert ds.by_id()["20"] is twenty[0]
    dup = [p for p in ds.problems if "duplicate" in p.message]
    assert [(p.question_id, p.severity, p.path) for p in dup] == [
        ("20", "warning", "$.questions[19]")
    ]


def test_language_entries_with_keywords_but_no_string() -> None:
    q = by_id(QALD / "9/data/qald-9-train-multilingual.json")["148"]
    assert q.texts_in("ro") == (QuestionText("ro", None, "concediu ,  celebru ,  lume "),)
    assert q.text("ro") is None
    assert q.text("en")


def test_several_strings_for_one_language_qald9_plus() -> None:
    ds = load(DATA / "qald/KGQA_QALD_9_plus/data/qald_9_plus_test_dbpedia.json")
    q = ds.by_id()["99"]
    german = q.texts_in("de")
    assert len(german) == 2
    assert all(t.string for t in german) and german[0].string != german[1].string
    assert q.text("de") == german[0].string
    assert ds.id is None  # no "dataset" key
    assert sum(1 for q in ds if q.answers is not None and q.answers.is_empty) == 35


def test_bindings_of_variables_missing_from_head() -> None:
    ds = load(QALD / "8/data/qald-8-test-multilingual.json")
    answers = ds.by_id()["17"].answers
    iri = Term.iri("http://dbpedia.org/resource/Fort_Mill,_South_Carolina")
    assert answers == AnswerSet(vars=("uri",), rows=({"string": iri},))
    assert answers.values() == (iri,)
    assert any("?string is bound but not in head.vars" in p.message for p in ds.problems)
    # The QALD-6 data cube files quote the variable name in bindings only.
    cube = by_id(QALD / "6/data/qald-6-test-datacube.json")["18"].answers
    assert cube == AnswerSet(vars=("callret-0",), rows=({'"callret-0"': Term.literal("19")},))


@pytest.mark.parametrize(
    ("file", "qid", "raw", "normalised"),
    [
        ("qald/ag-sc_QALD/3/data/dbpedia-test.xml", "47", "num", AnswerType.NUMBER),
        ("qald/ag-sc_QALD/5/data/qald-5_train.json", "164", "list", AnswerType.RESOURCE),
        ("qald/ag-sc_QALD/5/data/qald-5_train.json", "246", "uri", AnswerType.RESOURCE),
        ("qald/ag-sc_QALD/6/data/qald-6-test-hybrid.json", "18", "text", AnswerType.STRING),
        ("qald/NLIWOD/QALD_SystemAnswer_test.xml", None, "resouce", AnswerType.RESOURCE),
    ],
)
def test_answer_type_spellings(
    file: str, qid: str | None, raw: str, normalised: AnswerType
) -> None:
    ds = load(DATA / file)
    q = ds.by_id()[qid] if qid else next(q for q in ds if q.answertype == raw)
    assert (q.answertype, q.answer_type) == (raw, normalised)
    assert not any("unknown answer type" in p.message for p in ds.problems)


# --- further real oddities found while reading every file -----------------------------------


def test_answer_types_used_as_term_types() -> None:
    hybrid = by_id(QALD / "6/data/qald-6-test-hybrid.json")
    assert hybrid["6"].answers.rows[0] == {"proj": Term.literal("6", datatype=XSD_INTEGER)}
    assert hybrid["18"].answers.rows[0] == {"proj": Term.literal('"Harward Law School" @en')}
    listed = by_id(QALD / "7/data/qald-7-train-multilingual.json")["67"].answers
    assert listed.rows[0]["list"] == Term.iri(
        "http://dbpedia.org/resource/Mid-Atlantic_Regional_Spaceport_Launch_Pad_0"
    )
    system = by_id(DATA / "system-outputs/qald8-train/QASystem_QALD8_Train.json")["3"].answers
    assert system.rows[0]["resource"] == Term.iri("http://dbpedia.org/resource/Mary_Todd_Lincoln")


def test_flag_with_a_value_other_than_true_or_false_is_kept_in_extra() -> None:
    for name in ("qald-7-train-largescale.json", "qald-7-train-largescale.xml"):
        ds = load(QALD / "7/data" / name)
        q = ds.by_id()["8"]
        assert (q.aggregation, dict(q.extra)["aggregation"]) == (None, "union")
        assert any(p.question_id == "8" and "union" in p.message for p in ds.problems)


def test_qald5_json_body_variant() -> None:
    ds = load(QALD / "5/data/qald-5_train.json")
    q = ds.by_id()["1"]
    assert dict(ds.metadata)["variant"] == "qald5-body"
    assert q.text("en") == "Give me all cosmonauts."
    assert (q.aggregation, q.onlydbo, q.hybrid) == (False, True, False)
    assert q.sparql is not None and q.sparql.strip().startswith("PREFIX rdf:")
    assert q.answers.rows[0] == {
        "string": Term.literal("http://dbpedia.org/resource/Mikhail_Korniyenko")
    }
    assert b'"body"' in write(ds, "qald-json")
    assert by_id(QALD / "5/data/qald-5_train.json")["301"].sparql is None  # hybrid: no query


def test_qald_xml_answer_elements() -> None:
    qs = by_id(QALD / "1/data/dbpedia-test.xml")
    assert qs["2"].texts == (
        QuestionText("en", "Which telecommunications organizations are located in Belgium?"),
    )
    assert qs["2"].answers.rows[0] == {
        "uri": Term.iri("http://dbpedia.org/resource/Belgacom"),
        "string": Term.literal("Belgacom"),
    }
    kinds = {t.datatype for q in qs.values() if q.answers for t in q.answers.values()}
    assert {XSD_DATE, XSD_BOOLEAN, XSD_INTEGER, None} <= kinds
    # Two <uri> in one <answer>: the second binds uri_2.
    rows = by_id(QALD / "1/data/dbpedia-train.xml")["50"].answers.rows
    assert {
        "uri": Term.iri("http://www.dhl.com/"),
        "uri_2": Term.iri("http://www.g4s.com/"),
    } in rows


def test_qald_xml_value_outside_answer_element() -> None:
    ds = load(QALD / "1/data/musicbrainz-test.xml")
    assert ds.by_id()["8"].answers == AnswerSet(
        vars=("number",), rows=({"number": Term.literal("3", datatype=XSD_INTEGER)},)
    )
    (problem,) = [p for p in ds.problems if p.question_id == "8"]
    assert (problem.line, problem.path) == (3193, "/dataset/question[15]/answers[1]/number[1]")


def test_qald_xml_keywords_pair_with_strings() -> None:
    q = load(QALD / "3/data/dbpedia-test.xml").questions[0]
    assert q.texts[:2] == (
        QuestionText(
            "en",
            "Which German cities have more than 250000 inhabitants?",
            "city, Germany, inhabitants, more than 250000",
        ),
        QuestionText(
            "de",
            "Welche deutschen Städte haben mehr als 250000 Einwohner?",
            "Stadt, Deutschland, Einwohner, mehr als 250000",
        ),
    )


def test_qald10_integer_ids_and_no_answertype() -> None:
    ds = load(DATA / "qald/KGQA_QALD-10/data/qald_10/qald_10.json")
    assert ds.questions[0].id == "0"
    assert all(q.answertype is None for q in ds)
    assert ds.id is not None


def test_eqald_extended_qald7() -> None:
    ds = load(QALD / "7/data/qald-7-train-multilingual-extended-json.json")
    plain = load(QALD / "7/data/qald-7-train-multilingual.json")
    assert ds.format == "eqald-json"
    assert dict(ds.metadata)["variant"] == "qald7-extended"
    q = ds.by_id()["0"]
    assert (q.answertype, q.aggregation, q.onlydbo, q.hybrid) == ("date", False, True, False)
    assert q.sparql and "res:Battle_of_Gettysburg dbo:date ?date" in q.sparql
    assert q.texts[0] == QuestionText(
        "en", "When was the Battle of Gettysburg?", "Battle of Gettysburg"
    )
    # Same questions and gold answers as the plain QALD-JSON file, but for one (213, whose
    # date the extended file gives as a "uri").
    assert [q.id for q in ds] == [q.id for q in plain]
    differ = [a.id for a, b in zip(ds, plain, strict=True) if a.answers != b.answers]
    assert differ == ["213"]
    assert ds.by_id()["213"].answers.values() == (Term.iri("1997-08-31"),)


def test_nlq_groups_languages_by_id() -> None:
    ds = load(DATA / "qald/NLIWOD/nlq1_vis.json")
    q = ds.by_id()["2"]
    assert [t.language for t in q.texts] == ["en", "ko"]
    assert q.text("en") == (
        "What was the naval warfare commanded by Admiral Yi Sun-sin at Myeongnyang Strait in 1597?"
    )
    assert q.answers == AnswerSet.of([Term.literal("Battle of Myeongnyang")])
    assert q.sparql and "dbo:commander dbr:Yi_Sun-sin" in q.sparql
    extra = dict(q.extra)
    assert extra["type"] == "1-1"
    assert "prop-ko:" in extra["sparql@ko"] and "answer@ko" in extra
    assert sum(len(q.texts) for q in ds) == 79
    # One question of the file has an empty id (in both languages): kept, with a warning.
    (blank,) = [q for q in ds if q.id == ""]
    assert [t.language for t in blank.texts] == ["en", "ko"]
    assert [(p.question_id, p.line) for p in ds.problems] == [("", 450), ("2", 2)]
    # The Korean texts were decoded with a wrong encoding upstream: U+FFFD where Hangul was.
    assert "\ufffd" in (q.text("ko") or "")
    assert ds.problems[1].message.startswith(
        "39 question texts in 'ko' hold U+FFFD replacement characters"
    )


def test_lcquad_fields() -> None:
    q = load(DATA / "lcquad1/train-data.json").questions[0]
    assert q.id == "1501"
    assert q.texts == (QuestionText("en", "How many movies did Stanley Kubrick direct?"),)
    assert q.sparql and q.sparql.startswith("SELECT DISTINCT COUNT(?uri)")
    assert q.answers is None
    assert dict(q.extra) == {
        "intermediary_question": (
            "How many <movies> are there whose <director> is <Stanley Kubrick>?"
        ),
        "sparql_template_id": "101",
    }
    assert b'"sparql_template_id": 101' in write(
        load(DATA / "lcquad1/train-data.json"), "lcquad-json"
    )


def test_poleval_expected_with_in_texts_and_alternatives() -> None:
    ds = load(DATA / "poleval2021/dev-0/expected.tsv")
    q = ds.by_id()["1"]
    assert q.texts == (QuestionText("pl", "Jak nazywa się pierwsza litera alfabetu greckiego?"),)
    assert q.answers == AnswerSet.of([Term.literal("alfa")])
    multi = [q for q in ds if q.answers and len(q.answers.rows) == 3]
    assert [t.value for t in multi[0].answers.values()] == ["czterech", "czworo", "4"]
    assert sum(1 for q in ds if len(q.answers.rows) > 1) == 110
    untagged = read(DATA / "poleval2021/dev-0/in.tsv")
    assert untagged.questions[0].texts[0].language == ""
    assert untagged.questions[0].answers is None
