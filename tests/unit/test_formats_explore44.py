"""explore44's broken and odd input files: what the readers, the sniffer and ``convert`` say
about them (each test names its finding)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from service.errors import FormatError
from service.formats import read
from service.formats.base import parse_json, repeated_keys


def _problems(data: bytes, **kwargs: Any) -> list[str]:
    """Every problem (errors first) as ``str``; empty when the file is read cleanly."""
    try:
        read(data, name="f.json", **kwargs)
    except FormatError as err:
        return [str(p) for p in err.problems]
    return []


RS_REPEAT = b'{\n "db25:1-en": {"http://x": 1},\n "db25:1-en": {"2892": 1}\n}\n'
QALD_REPEAT = (
    b'{"questions": [\n {"id": "7777",\n  "id": "99",\n'
    b'  "question": [{"language": "en", "string": "Who?"}]}\n]}\n'
)
EQALD_REPEAT = (
    b'{"questions": [{"question": {"id": "0", "language": [\n'
    b'  {"language": "en", "question": "Who?", "question": "What?"}]}}]}\n'
)


@pytest.mark.parametrize(
    ("data", "where", "path"),
    [
        (RS_REPEAT, "f.json:3:2:", "$:"),
        (QALD_REPEAT, "f.json:3:3:", "$.questions[0]:"),
        (EQALD_REPEAT, "f.json:2:42:", "$.questions[0].question.language[0]:"),
    ],
)
def test_a_key_given_twice_is_an_error_at_the_repeat(data: bytes, where: str, path: str) -> None:
    """A JSON object key given twice was silently dropped: the first value's answers (a result
    set), the id 7777 (QALD-JSON) vanished, validate clean (explore44 1)."""
    problems = _problems(data)
    assert problems, "read cleanly"
    first = problems[0]
    assert first.startswith(f"{where} {path} error: the key ")
    assert "given twice in this object with different values" in first


def test_a_key_repeated_with_the_same_value_is_a_warning() -> None:
    """The same value again loses nothing: a warning, and the file is read."""
    data = (
        b'{"questions": [{"id": "1", "id": "1", '
        b'"question": [{"language": "en", "string": "Who?"}]}]}'
    )
    dataset = read(data, name="f.json")
    assert [q.id for q in dataset.questions] == ["1"]
    warnings = [str(p) for p in dataset.problems]
    assert any("f.json:1:28: $.questions[0]: warning: the key 'id'" in w for w in warnings)


def test_repeated_keys_are_found_at_every_depth() -> None:
    text = '{"a": {"b": 1, "b": 2}, "c": [{"d": [], "d": []}], "a": {"b": 3}}'
    found = [(r.at, r.key, r.offset, r.differs) for r in repeated_keys(text)]
    assert found == [(("a",), "b", 15, True), (("c", 0), "d", 40, False), ((), "a", 51, True)]


def test_parse_json_without_a_list_refuses_a_repeat() -> None:
    with pytest.raises(FormatError, match=r"f:2:1: \$: error: the key 'a' is given twice"):
        parse_json('{"a": 1,\n"a": 2}', file="f")
    repeats: list[Any] = []
    assert parse_json('{"a": 1,\n"a": 2}', file="f", repeats=repeats) == {"a": 2}
    assert len(repeats) == 1


def test_json_without_repeats_reads_as_before() -> None:
    question = {"id": 1, "question": [{"language": "en", "string": "W?"}]}
    data = json.dumps({"questions": [question]}).encode()
    assert [q.id for q in read(data).questions] == ["1"]


BASE = json.dumps(
    {"questions": [{"id": "1", "question": [{"language": "en", "string": "Who?"}]}]}
).encode()


def _convert(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    from service.cli import main

    code = main(["convert", *argv])
    return code, capsys.readouterr().err


def test_convert_never_overwrites_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``convert IN IN`` replaced the input (explore44 5): refused, by path, through a link,
    and for a hard link (the same file under another name)."""
    source = tmp_path / "same.json"
    source.write_bytes(BASE)
    (tmp_path / "link.json").symlink_to(source)
    os.link(source, tmp_path / "hard.json")
    monkeypatch.chdir(tmp_path)
    for out in (str(source), "same.json", "./same.json", "link.json", "hard.json"):
        code, err = _convert(capsys, "--to", "qald-xml", str(source), out)
        assert code == 1
        assert f"{Path(out)}: is the input file {source}: not overwritten" in err
    assert source.read_bytes() == BASE


def test_convert_to_an_unwritable_out_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing folder or OUT a folder ended in a traceback (explore44 18); a read-only OUT
    was replaced and came back writable: refused, and kept."""
    source = tmp_path / "base.json"
    source.write_bytes(BASE)
    folder = tmp_path / "outdir"
    folder.mkdir()
    readonly = tmp_path / "ro.xml"
    readonly.write_bytes(b"mine")
    readonly.chmod(0o444)
    cases = {
        tmp_path / "nonexist" / "x.xml": f"cannot write: {tmp_path / 'nonexist'} does not exist",
        source / "x.xml": f"cannot write: {source} is not a folder",
        folder: "cannot write: it is a folder",
        readonly: "is read-only: not replaced",
    }
    for out, words in cases.items():
        code, err = _convert(capsys, "--to", "qald-xml", str(source), str(out))
        assert code == 1
        assert f"gerbil-qa: {out}: {words}" in err
        assert "Traceback" not in err
    assert readonly.read_bytes() == b"mine"
    assert readonly.stat().st_mode & 0o777 == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.json", "outdir", "ro.xml"]
    assert not list(folder.iterdir())


def test_convert_says_a_failed_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the checks cannot foresee (a full disk) is said with OUT's name, nothing left."""
    source = tmp_path / "base.json"
    source.write_bytes(BASE)

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    out = tmp_path / "x.xml"
    code, err = _convert(capsys, "--to", "qald-xml", str(source), str(out))
    assert code == 1
    said = "cannot write: no space left on the device (errno 28); nothing was written"
    assert f"{out}: {said}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.json"]


FIXTURES = Path(__file__).parent.parent / "fixtures" / "explore44"


@pytest.mark.parametrize(
    ("name", "closest", "where"),
    [
        ("rs_badweight.json", "result-set-json", ':1:49: $["db25:1-en"]["http://dbpedia.org/'),
        ("rs_list.json", "result-set-json", ':1:15: $["db25:1-en"]: question 1: error: result'),
        ("lc_noid.json", "lcquad-json", ":1:552: $[1]: error: question has no id"),
    ],
)
def test_an_unknown_format_names_the_closest_and_its_errors(
    name: str, closest: str, where: str
) -> None:
    """One bad entry made the sniffer say "unknown format" without a position; the file read
    as the format it is closest to gave the exact error (explore44 3)."""
    path = FIXTURES / name
    with pytest.raises(FormatError) as caught:
        read(path)
    note, *rest = caught.value.problems
    assert note.message.startswith("unknown format: the content matches none of the known")
    assert f"it is closest to {closest}, as which it has 1 error" in note.message
    assert "--format" in (note.expected or "")
    assert [str(p) for p in rest] == [str(p) for p in _read_as(path, closest)]
    assert str(rest[0]).startswith(f"{path}{where}")


def _read_as(path: Path, format: str) -> list[Any]:
    with pytest.raises(FormatError) as caught:
        read(path, format=format)
    return list(caught.value.problems)


def test_json_of_no_format_shape_stays_unknown() -> None:
    with pytest.raises(FormatError) as caught:
        read(FIXTURES / "nulljson.json")
    (problem,) = caught.value.problems
    assert problem.message == "unknown format: the content matches none of the known formats"


def test_a_zip_archive_is_said_to_be_one() -> None:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("base.json", BASE)
    for name in ("base.zip", "base.json"):
        with pytest.raises(FormatError) as caught:
            read(buffer.getvalue(), name=name)
        (problem,) = caught.value.problems
        assert str(problem).startswith(f"{name}:1:1: error: the file is a ZIP archive")
        assert "the file inside it, unpacked" in (problem.expected or "")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '{"questions": [\n {"id": NaN}]}',
            "f.json:2:9: error: not valid JSON: NaN is not a JSON value (expected a number "
            "(JSON has no NaN or Infinity: null, or leave the value out))",
        ),
        (
            '{"a": "NaN", "b": 1e5,\n  "c": -Infinity}',
            "f.json:2:8: error: not valid JSON: -Infinity is not a JSON value",
        ),
        (
            '{"dataset": {\n  "id": ' + "1" * 5001 + "}}",
            "f.json:2:9: error: not valid JSON: an integer of 5,001 digits (expected a number "
            "of at most 4,300 digits (a longer one as a string))",
        ),
        (  # a fraction's digits are no integer: the integer after them is the one
            "[1." + "0" * 5000 + ", 1e-" + "0" * 5000 + "1, " + "9" * 4301 + "]",
            "f.json:1:10012: error: not valid JSON: an integer of 4,301 digits",
        ),
        (
            '{"questions": "[[[",\n "x": ' + "[" * 2000 + "]" * 2000 + "}",
            "f.json:2:506: error: not valid JSON: nested more than 500 levels deep (expected at "
            "most 500 levels of nested arrays and objects)",
        ),
    ],
)
def test_json_refusals_say_where_and_what_json_allows(text: str, said: str) -> None:
    """NaN, an integer past Python's digit limit and deep nesting were refused with no position,
    the digits with Python's "use sys.set_int_max_str_digits()" (explore44 4)."""
    problems = _problems(text.encode())
    assert len(problems) == 1
    assert problems[0].startswith(said)
    assert "sys." not in problems[0]


def _qald(*ids: Any) -> bytes:
    questions = [{"id": i, "question": [{"language": "en", "string": f"Q{i}?"}]} for i in ids]
    return json.dumps({"questions": questions}).encode()


def test_integer_ids_stay_integers_in_qald_and_eqald_json() -> None:
    """``"id": 0`` became ``"id": "0"`` on conversion, unannounced: tools keying by the JSON
    value (QALD-10's scripts) then missed every question (explore44 17)."""
    from service.formats import losses, write

    dataset = read(_qald(0, "1", 2))
    assert [q.id for q in dataset.questions] == ["0", "1", "2"]
    ids = [q["id"] for q in json.loads(write(dataset, "qald-json"))["questions"]]
    assert ids == [0, "1", 2]
    eqald = write(dataset, "eqald-json")
    assert [q["id"] for q in json.loads(eqald)["questions"]] == [0, "1", 2]
    back = json.loads(write(read(eqald), "qald-json"))
    assert [q["id"] for q in back["questions"]] == [0, "1", 2]
    assert losses(dataset, "qald-json") == losses(dataset, "eqald-json") == []
    for other in ("qald-xml", "nlq-json", "lcquad-json", "tsv", "text2sparql-yaml"):
        assert "integer question ids (2: written as strings)" in losses(dataset, other), other


def test_a_careful_read_keeps_integer_ids_too() -> None:
    """A question the fast path gives up on (an unknown text key) is read carefully."""
    data = json.dumps(
        {"questions": [{"id": 7, "question": [{"language": "en", "string": "Q?", "odd": 1}]}]}
    ).encode()
    from service.formats import write

    assert json.loads(write(read(data), "qald-json"))["questions"][0]["id"] == 7


def test_lcquad_to_nlq_names_the_fields_it_drops() -> None:
    """LC-QuAD → nlq-json dropped ``intermediary_question`` and ``sparql_template_id`` without
    a word (explore44 19); nothing else changes."""
    from service.formats import losses

    entry = {
        "_id": "1701",
        "corrected_question": "Which architect?",
        "intermediary_question": "What is the <architect> of <X>",
        "sparql_query": "SELECT ?u WHERE { ?u ?p ?o }",
        "sparql_template_id": 5,
    }
    dataset = read(json.dumps([entry, {**entry, "_id": "1702"}]).encode())
    assert dataset.format == "lcquad-json"
    found = losses(dataset, "nlq-json")
    assert "the fields intermediary_question, sparql_template_id (2 questions)" in found
    assert not any("fields" in what for what in losses(dataset, "qald-json"))


QALD_XML = (
    '<?xml version="1.0"?>\n<dataset id="x">\n<question id="1">\n'
    '<string lang="en">Who?</string>\n</question>\n</dataset>\n'
)


@pytest.mark.parametrize("encoding", ["utf-32", "utf-32-be"])
@pytest.mark.parametrize(("text", "name"), [(BASE.decode(), "f.json"), (QALD_XML, "f.xml")])
def test_utf32_is_called_utf32(encoding: str, text: str, name: str) -> None:
    """UTF-32 was called UTF-16 (JSON), or "not well-formed (invalid token)" (XML)
    (explore44 21)."""
    data = text.encode(encoding)
    if encoding.endswith("be"):
        data = b"\x00\x00\xfe\xff" + data
    with pytest.raises(FormatError) as caught:
        read(data, name=name)
    (problem,) = caught.value.problems
    assert str(problem).startswith(f"{name}:1:1: error: the file is not valid UTF-8")
    assert "it is UTF-32 (its byte-order mark); save it as UTF-8" in problem.message


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_qald_xml_is_read_as_the_readme_says(encoding: str) -> None:
    """XML names its encoding and every XML reader takes UTF-16 (explore44 13: the README
    said UTF-16 was refused, which holds for JSON, YAML and TSV only)."""
    dataset = read(QALD_XML.encode(encoding), name="f.xml")
    assert [q.text("en") for q in dataset.questions] == ["Who?"]


def test_the_dataset_id_is_called_the_dataset_id() -> None:
    """``$.dataset.id: question id is a number`` named the wrong id (explore44 13). (It was
    ``1e99999``, now refused as too large a number, as a request body refuses it.)"""
    data = b'{"dataset": {\n  "id": 1.5e99}, "questions": []}'
    assert _problems(data)[0].startswith(
        "f.json:2:9: $.dataset.id: error: dataset id is a number (expected a string or an "
        "integer id)"
    )


@pytest.mark.parametrize(
    "content", [b"[]", b'{"questions": []}', b'{"dataset": {"id": "x"}, "questions": []}']
)
def test_validate_refuses_a_file_of_no_questions(
    content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``[]`` validated as "0 questions, 0 errors", exit 0: a dataset of nothing, refused as
    answers (explore44 13)."""
    from service.cli import main

    path = tmp_path / "list.json"
    path.write_bytes(content)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: error: the file holds no questions" in out
    assert out.endswith("0 questions, 1 error, 0 warnings\n")


@pytest.mark.parametrize(
    ("data", "name", "format", "said"),
    [
        (BASE, "f.json", "qald-xml", "the content is qald-json, not qald-xml as declared"),
        (QALD_XML.encode(), "f.xml", "qald-json", "the content is qald-xml, not qald-json as "),
        (b'{"a": 1}', "f.xml", "qald-xml", "the content is JSON, not qald-xml as declared"),
        (b'{"a": 1}', "f.xml", None, "the content is JSON, not qald-xml as its name (.xml) says"),
        (b"<a/>", "f.json", "qald-json", "the content is XML, not qald-json as declared"),
    ],
)
def test_content_of_another_format_than_declared_is_named(
    data: bytes, name: str, format: str | None, said: str
) -> None:
    """JSON declared QALD-XML was "not well-formed XML" at 1:1, where TSV declared said "the
    content is qald-json, not tsv as declared" (explore44 20, 13)."""
    problems = _problems(data, format=format) if name == "f.json" else _xml_problems(data, format)
    assert problems[0].startswith(f"{name}:1:1: error: {said}")


def _xml_problems(data: bytes, format: str | None) -> list[str]:
    with pytest.raises(FormatError) as caught:
        read(data, name="f.xml", format=format)
    return [str(p) for p in caught.value.problems]


def test_an_unknown_declared_format_names_the_file_and_the_declaration() -> None:
    """``<input>: error: unknown format 'banana'`` blamed no file (explore44 20)."""
    (problem,) = _problems(BASE, format="banana")
    assert problem.startswith(
        "f.json: error: the file is declared as format 'banana', which is no known format "
        "(expected one of eqald-json, qald-json,"
    )


def test_a_broken_file_of_its_declared_format_keeps_its_own_errors() -> None:
    path = FIXTURES / "rs_badweight.json"
    problems = [str(p) for p in _read_as(path, "result-set-json")]
    assert problems[0].startswith(f"{path}:1:49: ")


def _binding(value: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "questions": [
                {
                    "id": "1",
                    "question": [{"language": "en", "string": "Who?"}],
                    "answers": [
                        {"head": {"vars": ["uri"]}, "results": {"bindings": [{"uri": value}]}}
                    ],
                }
            ]
        }
    ).encode()


def test_a_nul_in_gold_is_said_once_as_the_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A U+0000 in a gold literal was a warning ("kept … stored with U+FFFD") and the error
    refusing it, at one place (explore44 6)."""
    from service.cli import main

    path = tmp_path / "nul.json"
    path.write_bytes(_binding({"type": "literal", "value": "a\u0000b"}))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2, out
    assert "error: the gold answer ?uri: holds a control character U+0000" in out[0]
    assert "U+FFFD" not in out[0]
    assert out[1] == "1 question, 1 error, 0 warnings"


def test_a_nul_in_answers_is_still_a_warning() -> None:
    dataset = read(_binding({"type": "literal", "value": "a\u0000b"}), answers=True)
    (warning,) = [str(p) for p in dataset.problems]
    assert "stored with U+FFFD in its place" in warning


def test_a_prefixed_datatype_of_an_invalid_value_says_one_rule() -> None:
    """ "stored with the datatype <…#integer>; as a plain literal": two contradicting rules
    (explore44 7)."""
    term = {"type": "literal", "value": "abc", "datatype": "xsd:integer"}
    (warning,) = [p.message for p in read(_binding(term)).problems]
    assert warning == (
        "datatype 'xsd:integer' is a prefixed name, not an IRI; 'abc' is not a valid "
        "xsd:integer (kept as written; stored as a plain literal)"
    )
    term["value"] = "5"
    (warning,) = [p.message for p in read(_binding(term)).problems]
    assert "stored with the datatype <http://www.w3.org/2001/XMLSchema#integer>)" in warning
