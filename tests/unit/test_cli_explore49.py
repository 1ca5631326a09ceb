"""explore49's findings (each test names its finding)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from service.cli import main


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "q.json"
    question = {"id": "1", "question": [{"language": "en", "string": "Who?"}]}
    source.write_text(json.dumps({"questions": [question]}), encoding="utf-8")
    return source


def _expected(source: Path, capsys: pytest.CaptureFixture[str]) -> bytes:
    assert main(["convert", "--to", "qald-xml", str(source), "-"]) == 0
    return capsys.readouterr().out.encode()


@pytest.mark.parametrize("where", ["beside", "other"])
def test_convert_writes_through_a_link_and_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """A link OUT became a regular file, its target left as it was (explore49 F8): the link is
    kept, its target replaced (the temporary file beside the target, none left)."""
    source = _source(tmp_path)
    expected = _expected(source, capsys)
    folder = tmp_path if where == "beside" else tmp_path / "other"
    folder.mkdir(exist_ok=True)
    target = folder / "t.xml"
    target.write_text("old")
    link = tmp_path / "l.xml"
    link.symlink_to(target if where == "other" else Path("t.xml"))
    assert main(["convert", "--to", "qald-xml", str(source), str(link)]) == 0
    assert link.is_symlink()
    assert target.read_bytes() == expected
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_convert_refuses_a_dangling_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dangling link OUT became a regular file (explore49 F8): refused before IN is read,
    the link kept, nothing made."""
    source = _source(tmp_path)
    link = tmp_path / "dang.xml"
    link.symlink_to("nowhere.xml")
    assert main(["convert", "--to", "qald-xml", str(source), str(link)]) == 1
    err = capsys.readouterr().err
    assert f"{link}: cannot write: it is a link to nowhere.xml, which does not exist" in err
    assert link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dang.xml", "q.json"]


def test_convert_writes_into_the_file_a_descriptor_link_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``convert IN /dev/stdout > out`` replaced /dev/stdout itself, out left empty (explore49
    F7): a link through /proc/self/fd/N (as /dev/stdout is) to a regular file is written in
    place, the descriptor's file gets the bytes, the link stays a link."""
    source = _source(tmp_path)
    expected = _expected(source, capsys)
    out = tmp_path / "out.xml"
    with open(out, "wb") as opened:
        link = tmp_path / "stdout"
        link.symlink_to(f"/proc/self/fd/{opened.fileno()}")
        assert main(["convert", "--to", "qald-xml", str(source), str(link)]) == 0
        assert os.fstat(opened.fileno()).st_ino == out.stat().st_ino
    assert link.is_symlink()
    assert out.read_bytes() == expected


def test_a_text2sparql_query_past_the_bound_names_the_bound_it_broke() -> None:
    """The reason named the endpoint's setting sparql_max_query_bytes, which the bound never
    followed (explore49 F5): it names the fixed bound on a Text2SPARQL answer's query."""
    from service.systems.response import BadResponse, parse_query_answer

    body = json.dumps({"query": "x" * 65_537}).encode()
    with pytest.raises(BadResponse) as raised:
        parse_query_answer(body, question_id="1")
    said = str(raised.value)
    assert "65,537 bytes long, more than the limit of 65,536 bytes" in said, said
    assert "(the bound on a Text2SPARQL answer's query, fixed at 64 KiB" in said, said
    assert "sparql_max_query_bytes" not in said, said
    answer, _ = parse_query_answer(json.dumps({"query": "x" * 65_536}).encode(), question_id="1")
    assert answer.sparql is not None and len(answer.sparql) == 65_536


def test_a_response_size_is_said_with_its_unit() -> None:
    """ "the response is 1048577 bytes, more than the limit of 1048576" (explore49 F6)."""
    from service.systems.webservice import readable_size as _size

    assert _size(1_048_577) == "1.0 MiB (1,048,577 bytes)"
    assert _size(1_048_576) == "1 MiB"
    assert _size(65_536) == "64 KiB"
    assert _size(1_000_000) == "1,000,000 bytes"
    assert _size(512) == "512 bytes"


def test_an_unspecified_ipv6_address_is_refused_in_brackets() -> None:
    """ "refusing to connect to ::: :: is an unspecified address" (explore49 F10)."""
    import ipaddress

    from service.systems.safety import NetworkPolicy, UnsafeURL

    with pytest.raises(UnsafeURL) as refused:
        NetworkPolicy.allowing().check_address(ipaddress.ip_address("::"), host="::", port=80)
    said = refused.value.message
    assert said.startswith("refusing to connect to [::]: [::] is an unspecified address"), said


def test_a_bad_setting_is_named_by_its_variable_and_inf_is_refused() -> None:
    """A bad GERBIL_QA_RUNNER_ASK_SECONDS was named runner_ask_seconds; inf and 1e400 were
    taken (explore49 F10)."""
    from service.errors import BadRequest
    from service.web.config import load_config

    for value in ("inf", "1e400", "-1", "nan"):
        with pytest.raises(BadRequest) as refused:
            load_config(environ={"GERBIL_QA_RUNNER_ASK_SECONDS": value})
        said = refused.value.message
        assert said.startswith(
            "setting runner_ask_seconds (GERBIL_QA_RUNNER_ASK_SECONDS): expected a finite "
            "number ≥ 0, got "
        ), said
    with pytest.raises(BadRequest, match=r"setting runner_ask_seconds \(GERBIL_QA_RUNNER_A"):
        load_config(environ={"GERBIL_QA_RUNNER_ASK_SECONDS": "abc"})
    assert load_config(environ={"GERBIL_QA_RUNNER_ASK_SECONDS": " 5 "}).runner_ask_seconds == 5
