"""Property-based tests of the readers: no input makes them fail with anything but FormatError
(nor hang), and writing then reading a generated dataset gives it back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.errors import FormatError
from service.formats import FORMATS, read, write
from service.formats.fields import element_answers
from service.model import (
    XSD_DATE,
    XSD_INTEGER,
    Annotation,
    AnswerSet,
    Dataset,
    Question,
    QuestionText,
    Term,
    TermKind,
)
from tests.conftest import DATA

FUZZ = settings(
    max_examples=60,
    deadline=2000,  # ms per example: a reader that hangs fails here
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
READERS = [None, *FORMATS]  # None: sniff


def read_or_format_error(data: bytes, fmt: str | None, name: str | None = None) -> None:
    """The property: a Dataset or a FormatError with at least one located problem."""
    try:
        ds = read(data, format=fmt, name=name)
    except FormatError as err:
        assert err.problems and all(p.message for p in err.problems)
        assert any(p.severity == "error" for p in err.problems)
        return
    assert isinstance(ds, Dataset)
    assert ds.format in FORMATS
    assert all(isinstance(q.id, str) for q in ds.questions)
    assert all(p.severity == "warning" for p in ds.problems)


# --- arbitrary input -----------------------------------------------------------------------


@FUZZ
@given(data=st.binary(max_size=600))
def test_arbitrary_bytes(data: bytes) -> None:
    for fmt in READERS:
        read_or_format_error(data, fmt, name="x.tsv" if fmt == "tsv" else None)


@FUZZ
@given(
    text=st.text(max_size=300),
    head=st.sampled_from(
        ["", "<dataset>", '{"questions": [', "questions:\n  - ", '{"ck25:1-en": ']
    ),
)
def test_arbitrary_text(text: str, head: str) -> None:
    for fmt in READERS:
        read_or_format_error((head + text).encode(), fmt)


KEYS = [
    *("id", "question", "questions", "answers", "head", "vars", "results", "bindings"),
    *("boolean", "type", "value", "datatype", "xml:lang", "language", "string", "keywords"),
    *("query", "sparql", "SPARQL", "schemaless ", "metadata", "confidence", "annotations"),
    *("char_begin", "URI", "body", "lang", "answer", "_id", "uri", "corrected_question"),
    *("sparql_query", "aggregation", "dataset", "x"),
    *("qname", "endpoint", "features", "classes", "properties", "prefix", "defaultNamespace"),
    *("ck25:1-en", "db25:2-es", "true"),
]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["uri", "literal", "true", "OUT OF SCOPE", "en", "<http://x>", ""]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=40,
)


@FUZZ
@given(value=JSON_VALUES)
def test_arbitrary_json(value: Any) -> None:
    for fmt in READERS:
        read_or_format_error(json.dumps(value).encode(), fmt)


@FUZZ
@given(value=JSON_VALUES)
def test_arbitrary_json_in_question_slots(value: Any) -> None:
    """Arbitrary values where a reader expects each part of a question."""
    docs = []
    for key in ("id", "question", "query", "answers", "metadata", "aggregation", "body"):
        question = {"id": "1", "question": [{"language": "en", "string": "Q?"}], key: value}
        docs.append({"questions": [question]})
    answers = [{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": value}]}}]
    docs.append({"questions": [{"id": "1", "answers": answers}]})
    docs.append({"questions": [{"question": {"id": "1", "language": value, "answers": value}}]})
    for doc in docs:
        for fmt in (None, "qald-json", "eqald-json"):
            read_or_format_error(json.dumps(doc).encode(), fmt)


# --- mutations of real snippets ------------------------------------------------------------

INLINE_SNIPPETS = {
    "qald-json": {
        "dataset": {"id": "qald-9-test-multilingual"},
        "questions": [
            {
                "id": "99",
                "answertype": "resource",
                "aggregation": False,
                "onlydbo": True,
                "hybrid": False,
                "question": [{"language": "en", "string": "What is the time zone of Salt Lake?"}],
                "query": {"sparql": "SELECT ?uri WHERE { res:Salt_Lake_City dbp:timezone ?uri }"},
                "answers": [
                    {
                        "head": {"vars": ["uri"]},
                        "results": {"bindings": [{"uri": {"type": "uri", "value": "http://dbpedia.org/resource/Mountain_Time_Zone"}}]},
                    }
                ],
            }
        ],
    },
}  # fmt: skip


def _real_snippets() -> dict[str, tuple[str, bytes]]:
    """The first questions of real files (when the data is here), else the inline snippet."""
    out = {"inline": ("qald-json", json.dumps(INLINE_SNIPPETS["qald-json"]).encode())}
    qald = DATA / "qald" / "ag-sc_QALD"
    json_files = {
        "qald9": ("qald-json", qald / "9/data/qald-9-test-multilingual.json", "questions"),
        "qald5body": ("qald-json", qald / "5/data/qald-5_train.json", "questions"),
        "extended": ("eqald-json", qald / "7/data/qald-7-train-hybrid-extended-json.json", "questions"),  # noqa: E501
        "nlq": ("nlq-json", DATA / "qald/NLIWOD/nlq1_vis.json", None),
        "lcquad": ("lcquad-json", DATA / "lcquad1/test-data.json", None),
    }  # fmt: skip
    for key, (fmt, path, list_key) in json_files.items():
        if path.is_file():
            doc = json.loads(path.read_text(encoding="utf-8"))
            if list_key:
                doc[list_key] = doc[list_key][:3]
            else:
                doc = doc[:4]
            out[key] = (fmt, json.dumps(doc, ensure_ascii=False).encode())
    t2s = DATA / "text2sparql2025"
    answers = t2s / "systems/DBPEDIA-SC/db25_answers.json"
    if answers.is_file():
        entries = json.loads(answers.read_text(encoding="utf-8"))[:3]
        out["t2s-answers"] = ("text2sparql-answers", json.dumps(entries).encode())
        gold = json.loads((t2s / "db25/true_result_set.json").read_text(encoding="utf-8"))
        keys = ["db25:2-en", "db25:8-en", "db25:93-es"]  # a list, an ASK true, an ASK false
        out["t2s-results"] = ("result-set-json", json.dumps({k: gold[k] for k in keys}).encode())
        text = (t2s / "ck25/questions.yml").read_text(encoding="utf-8")
        end = text.index("\n  - id: 4\n")
        out["t2s-yaml"] = ("text2sparql-yaml", text[:end].encode())
    for key, path in {
        "xml1": qald / "1/data/dbpedia-test.xml",
        "xml5": qald / "5/data/qald-5_train.xml",
    }.items():
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            end = text.index("</question>", text.index("</question>") + 1) + len("</question>")
            out[key] = ("qald-xml", (text[:end] + "\n</dataset>\n").encode())
    return out


SNIPPETS = _real_snippets()


def test_snippets_read_cleanly() -> None:
    for key, (fmt, data) in SNIPPETS.items():
        assert read(data).format == fmt, key


def mutate(value: Any, data: st.DataObject) -> Any:
    """``value`` with one part replaced by an arbitrary JSON value, removed, or retyped."""
    if isinstance(value, dict | list) and value and data.draw(st.integers(0, 3)) > 0:
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        key = data.draw(st.sampled_from(keys))
        copy = dict(value) if isinstance(value, dict) else list(value)
        action = data.draw(st.sampled_from(["descend", "descend", "delete"]))
        if action == "delete":
            del copy[key]
        else:
            copy[key] = mutate(copy[key], data)
        return copy
    return data.draw(JSON_VALUES | st.sampled_from([str(value), [value], {"value": value}]))


YAML_FORMAT = "text2sparql-yaml"
JSON_SNIPPETS = [k for k, (fmt, _) in SNIPPETS.items() if fmt not in ("qald-xml", YAML_FORMAT)]


@FUZZ
@given(data=st.data())
def test_structural_mutations_of_real_snippets(data: st.DataObject) -> None:
    fmt, snippet = SNIPPETS[data.draw(st.sampled_from(JSON_SNIPPETS))]
    doc = json.loads(snippet)
    for _ in range(data.draw(st.integers(1, 3))):
        doc = mutate(doc, data)
    encoded = json.dumps(doc, ensure_ascii=False).encode()
    read_or_format_error(encoded, None)
    read_or_format_error(encoded, fmt)


@FUZZ
@given(data=st.data())
def test_structural_mutations_of_real_yaml(data: st.DataObject) -> None:
    import yaml

    doc = yaml.safe_load(SNIPPETS["t2s-yaml"][1])
    for _ in range(data.draw(st.integers(1, 3))):
        doc = mutate(doc, data)
    style = data.draw(st.sampled_from([False, True, None]))
    encoded = yaml.safe_dump(doc, default_flow_style=style, allow_unicode=True).encode()
    read_or_format_error(encoded, None, name="q.yml")
    read_or_format_error(encoded, YAML_FORMAT)


@FUZZ
@given(data=st.data())
def test_byte_mutations_of_real_snippets(data: st.DataObject) -> None:
    fmt, snippet = SNIPPETS[data.draw(st.sampled_from(list(SNIPPETS)))]
    mutated = bytearray(snippet)
    for _ in range(data.draw(st.integers(1, 4))):
        where = data.draw(st.integers(0, len(mutated)))
        action = data.draw(st.sampled_from(["insert", "delete", "replace", "truncate"]))
        chunk = data.draw(
            st.binary(min_size=1, max_size=4)
            | st.sampled_from([b"<", b">", b"</answer>", b'"', b"{", b"]", b"&", b"\xff", b"\x00"])
        )
        if action == "insert":
            mutated[where:where] = chunk
        elif action == "delete":
            del mutated[where : where + len(chunk)]
        elif action == "replace":
            mutated[where : where + len(chunk)] = chunk
        else:
            del mutated[where:]
    read_or_format_error(bytes(mutated), None)
    read_or_format_error(bytes(mutated), fmt)


LAUGHS = (
    b"a: &a [x, x]\n"
    + b"".join(b"%c: &%c [*%c, *%c]\n" % (c, c, c - 1, c - 1) for c in range(ord("b"), ord("z")))
    + b"questions: [*y]\n"
)


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (b"[" * 200_000 + b"]" * 200_000, "qald-json"),  # deeper than Python's recursion limit
        (b'{"questions": [{"id": ' + b"9" * 100_000 + b"}]}", "qald-json"),  # int too long
        (b'{"questions": [{"id": NaN}]}', "qald-json"),
        (
            b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "' + b"a" * 1000 + b'">'
            + b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><dataset>&b;</dataset>',
            "qald-xml",
        ),
        (b'<?xml version="1.0" encoding="klingon"?><dataset/>', "qald-xml"),
        (b"<dataset>" + b"<a>" * 50_000, "qald-xml"),
        (b"questions: " + b"[" * 100_000, "text2sparql-yaml"),  # deeper than the recursion limit
        (LAUGHS, "text2sparql-yaml"),  # each alias doubles what an expanding reader builds
        (b"questions:\n  - !!python/object/apply:os.system [echo hi]\n", "text2sparql-yaml"),
    ],
)  # fmt: skip
def test_pathological_inputs_fail_cleanly(data: bytes, fmt: str) -> None:
    with pytest.raises(FormatError):
        read(data, format=fmt)


# --- write -> read identity on generated datasets ------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Cn")), max_size=12)
STRIPPED = TEXT.map(str.strip)
LANGS = st.sampled_from(["en", "de", "ru", "pt_BR"])
ANSWER_TYPES = st.sampled_from([None, "resource", "number", "date", "boolean", "string"])
FLAG = st.sampled_from([None, True, False])
IDS = st.text(st.characters(codec="ascii", categories=("L", "N")), min_size=1, max_size=6)


@st.composite
def terms(draw: st.DrawFn) -> Term:
    kind = draw(st.sampled_from(["iri", "plain", "typed", "lang", "bnode"]))
    value = draw(TEXT)
    if kind == "iri":
        return Term.iri(value)
    if kind == "typed":
        return Term.literal(value, datatype=draw(st.sampled_from([XSD_INTEGER, XSD_DATE])))
    if kind == "lang":
        return Term.literal(value, lang=draw(LANGS))
    if kind == "bnode":
        return Term(value, TermKind.BNODE)
    return Term.literal(value)


@st.composite
def answer_sets(draw: st.DrawFn) -> AnswerSet:
    names = tuple(draw(st.lists(st.sampled_from(["x", "uri", "c-0", "v"]), unique=True)))
    if draw(st.booleans()) and not draw(st.booleans()):
        return AnswerSet(vars=names, boolean=draw(st.booleans()))
    rows = draw(st.lists(st.dictionaries(st.sampled_from(["x", "uri", "v"]), terms()), max_size=4))
    return AnswerSet(vars=names, rows=tuple(rows))


def _dataset(draw: st.DrawFn, question: st.SearchStrategy[Question], **kw: Any) -> Dataset:
    ids = draw(st.lists(IDS, unique=True, max_size=4))
    return Dataset(
        id=draw(st.none() | IDS),
        questions=tuple(draw(question(qid)) for qid in ids),
        **kw,
    )


OFFSET = st.none() | st.integers(0, 99)
ANNOTATIONS = st.lists(
    st.builds(Annotation, TEXT, st.none() | TEXT, OFFSET, OFFSET), max_size=2
).map(tuple)


@st.composite
def qald_questions(draw: st.DrawFn, qid: str, *, rich: bool = False) -> Question:
    out_of_scope = draw(st.booleans()) and draw(st.booleans())
    sparql = None if out_of_scope else draw(st.none() | TEXT.filter(_not_oos))
    answers = draw(st.none() | answer_sets())
    if out_of_scope:
        answers = draw(st.sampled_from([None, AnswerSet()]))
    texts = draw(
        st.lists(
            st.builds(
                QuestionText,
                LANGS,
                st.none() | TEXT,
                st.none() | TEXT,
                ANNOTATIONS if rich else st.just(()),
            ),
            max_size=3,
        )
    )  # fmt: skip
    return Question(
        id=qid,
        texts=tuple(texts),
        answertype=draw(ANSWER_TYPES),
        aggregation=draw(FLAG),
        onlydbo=draw(FLAG),
        hybrid=draw(FLAG),
        sparql=sparql,
        pseudo_query=draw(st.none() | TEXT),
        schemaless_query=draw(st.none() | TEXT) if rich else None,
        answers=answers,
        out_of_scope=out_of_scope,
        answer_item_types=tuple(draw(st.lists(TEXT, max_size=2))) if rich else (),
        confidence=draw(st.none() | st.floats(0, 1)) if rich else None,
        extra=tuple(draw(st.dictionaries(st.sampled_from(["x_note", "x_rank"]), TEXT)).items()),
    )


def _not_oos(text: str) -> bool:
    return text.strip().upper() != "OUT OF SCOPE"


def assert_identity(ds: Dataset, fmt: str, **read_kw: Any) -> None:
    again = read(write(ds, fmt), format=fmt, **read_kw)
    assert again.questions == ds.questions
    assert again.id == ds.id


@FUZZ
@given(data=st.data())
def test_identity_qald_json(data: st.DataObject) -> None:
    ds = _dataset(data.draw, qald_questions)
    assert_identity(ds, "qald-json")


@FUZZ
@given(data=st.data())
def test_identity_eqald_json(data: st.DataObject) -> None:
    ds = _dataset(data.draw, lambda qid: qald_questions(qid, rich=True))
    assert_identity(ds, "eqald-json")


@st.composite
def xml_questions(draw: st.DrawFn, qid: str) -> Question:
    cells = st.tuples(
        st.sampled_from([None, "uri", "string", "date", "number", "boolean"]),
        STRIPPED.filter(bool),
    )
    rows = draw(st.none() | st.lists(st.lists(cells, min_size=1, max_size=3), max_size=3))
    langs = draw(st.lists(LANGS, unique=True, max_size=3))
    texts = tuple(
        QuestionText(lang, draw(st.none() | STRIPPED), draw(st.none() | STRIPPED)) for lang in langs
    )
    answers = None
    if rows is not None:
        # A bare text cell cannot share an <answer> with elements.
        rows = [r if all(e for e, _ in r) else [r[0]] for r in rows]
        answers = element_answers(rows)
    return Question(
        id=qid,
        texts=tuple(t for t in texts if t.string is not None or t.keywords is not None),
        answertype=draw(ANSWER_TYPES),
        aggregation=draw(FLAG),
        hybrid=draw(FLAG),
        sparql=draw(st.none() | STRIPPED.filter(_not_oos)),
        answers=answers,
    )


@FUZZ
@given(data=st.data())
def test_identity_qald_xml(data: st.DataObject) -> None:
    ds = _dataset(data.draw, xml_questions)
    assert_identity(ds, "qald-xml")


@st.composite
def nlq_questions(draw: st.DrawFn, qid: str) -> Question:
    english = QuestionText("en", draw(TEXT))
    extra = [("type", draw(TEXT))]
    texts = [english]
    if draw(st.booleans()):
        texts.append(QuestionText("ko", draw(TEXT)))
        extra += [("answer@ko", draw(TEXT)), ("sparql@ko", draw(TEXT))]
    return Question(
        id=qid,
        texts=tuple(texts),
        sparql=draw(TEXT),
        answers=AnswerSet.of([Term.literal(draw(TEXT))]),
        extra=tuple(extra),
    )


@FUZZ
@given(data=st.data())
def test_identity_nlq_json(data: st.DataObject) -> None:
    ds = _dataset(data.draw, nlq_questions)
    assert_identity(ds.__class__(None, ds.questions), "nlq-json")


@st.composite
def lcquad_questions(draw: st.DrawFn, qid: str) -> Question:
    return Question(
        id=qid,
        texts=(QuestionText("en", draw(TEXT)),),
        sparql=draw(TEXT),
        extra=(
            ("intermediary_question", draw(TEXT)),
            ("sparql_template_id", str(draw(st.integers(0, 999)))),
        ),
    )


@FUZZ
@given(data=st.data())
def test_identity_lcquad_json(data: st.DataObject) -> None:
    ds = _dataset(data.draw, lcquad_questions)
    assert_identity(Dataset(None, ds.questions), "lcquad-json")


CELL = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=10)


@FUZZ
@given(lines=st.lists(st.lists(CELL, max_size=3), min_size=1, max_size=5))
def test_identity_tsv_expected(lines: list[list[str]]) -> None:
    # (no lines: an empty file, refused as such by every reader)
    questions = tuple(
        Question(str(i + 1), answers=AnswerSet.of([Term.literal(v) for v in cells]))
        for i, cells in enumerate(lines)
    )
    ds = Dataset(None, questions, metadata=(("tsv.role", "expected"),))
    assert_identity(ds, "tsv", name="expected.tsv")


@st.composite
def t2s_questions(draw: st.DrawFn, qid: str) -> Question:
    langs = draw(st.lists(LANGS, unique=True, max_size=3))
    names = st.lists(TEXT, max_size=3).map(tuple)
    return Question(
        id=qid,
        texts=tuple(QuestionText(lang, draw(TEXT)) for lang in langs),
        sparql=draw(st.none() | TEXT),
        features=draw(names),
        classes=draw(names),
        properties=draw(names),
        extra=tuple(draw(st.dictionaries(st.sampled_from(["level", "note"]), TEXT)).items()),
    )


@FUZZ
@given(data=st.data(), prefix=st.none() | IDS, namespace=st.none() | TEXT)
def test_identity_text2sparql_yaml(
    data: st.DataObject, prefix: str | None, namespace: str | None
) -> None:
    metadata = tuple((k, v) for k, v in (("prefix", prefix), ("defaultNamespace", namespace)) if v)
    ds = _dataset(data.draw, t2s_questions, metadata=metadata)
    again = read(write(ds, "text2sparql-yaml"), format="text2sparql-yaml")
    assert (again.questions, again.id, again.metadata) == (ds.questions, ds.id, ds.metadata)


VALUES = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@st.composite
def result_set_entries(draw: st.DrawFn, qid: str) -> Question:
    if draw(st.booleans()) and draw(st.booleans()):
        answers = AnswerSet(boolean=draw(st.booleans()))
    else:
        values = draw(st.lists(VALUES.filter(lambda v: v != "true"), unique=True, max_size=4))
        answers = AnswerSet.of([_result_term(v) for v in values], var="value")
    return Question(
        id=qid, answers=answers, language=draw(st.none() | st.sampled_from(["en", "es"]))
    )


def _result_term(value: str) -> Term:
    from service.formats.result_set_json import _term

    return _term(value)


@FUZZ
@given(data=st.data(), prefix=st.none() | IDS)
def test_identity_result_set_json(data: st.DataObject, prefix: str | None) -> None:
    ds = _dataset(data.draw, result_set_entries)
    ds = Dataset(None, ds.questions, metadata=(("prefix", prefix),) if prefix else ())
    again = read(write(ds, "result-set-json"), format="result-set-json")
    assert again.questions == ds.questions
    assert again.metadata == (ds.metadata if ds.questions else ())  # the prefix is in the keys


@st.composite
def answers_entries(draw: st.DrawFn, qid: str) -> Question:
    language = draw(st.sampled_from(["en", "es", "pt-BR"]))
    # In the order the format writes them: endpoint and uri where the challenge puts them.
    keys = ("endpoint", "uri", "x")
    extra = dict(sorted(draw(st.dictionaries(st.sampled_from(keys), TEXT)).items()))
    return Question(
        id=qid,
        texts=(QuestionText(language, draw(TEXT)),),
        sparql=draw(st.none() | TEXT),
        language=language,
        extra=tuple(extra.items()),
    )


@FUZZ
@given(data=st.data(), prefix=st.none() | IDS)
def test_identity_text2sparql_answers(data: st.DataObject, prefix: str | None) -> None:
    ds = _dataset(data.draw, answers_entries)
    ds = Dataset(data.draw(IDS), ds.questions, metadata=(("prefix", prefix),) if prefix else ())
    again = read(write(ds, "text2sparql-answers"), format="text2sparql-answers")
    assert again.questions == ds.questions
    if ds.questions:  # the dataset and prefix are written into each entry
        assert (again.id, again.metadata) == (ds.id, ds.metadata)
