"""The compare LaTeX tables and the escaping they share with the BibTeX entries
(``service.tex``): what a table needs is said in its comment, its comment stays a comment."""

from __future__ import annotations

import io
from typing import Any

from service.evaluation.comparison_out import _latex


def _data(*names: str, dataset: str = "qald-8", gaps: bool = False) -> dict[str, Any]:
    """A comparison's JSON as ``compare`` writes it, of ``names`` (the first with gaps)."""
    systems = []
    for k, name in enumerate(names):
        system = {
            "system": name,
            "tier": 1,
            "results": {"QA": {"macroF1": 0.5 - k / 10}},
            "intervals": {"QA": {"macroF1": [0.4, 0.6]}},
        }
        if gaps and k == 0:
            system |= {"answered": 150, "missing": 60, "errors": 9}
        systems.append(system)
    pairs = [
        {"a": names[0], "b": b, "difference": 0.1, "pValue": 0.01, "pAdjusted": 0.02}
        for b in names[1:]
    ]
    return {
        "signature": "sig",
        "dataset": dataset,
        "questions": 219,
        "test": "paired randomisation",
        "resamples": 1000,
        "systems": systems,
        "pairs": pairs,
    }


def _tex(data: dict[str, Any]) -> str:
    out = io.StringIO()
    _latex(data, out, measure="macroF1")
    return out.getvalue()


def _comment(tex: str) -> list[str]:
    return [line for line in tex.splitlines() if line.startswith("%")]


def test_the_comment_says_what_the_names_need() -> None:
    """A Polish name failed under pdfLaTeX's default OT1 ("\\k unavailable in encoding OT1"),
    a Cyrillic or CJK one even with T1, and the comment named booktabs alone (explore55 F1)."""
    plain = _comment(_tex(_data("AskNow", "QAnswer")))
    assert plain[-1] == "% needs \\usepackage{booktabs}"
    assert not any("fontenc" in line or "XeLaTeX" in line for line in plain)
    polish = _comment(_tex(_data("Łukasz QA", "Węgrzyn")))
    assert "% needs \\usepackage[T1]{fontenc}: a name has Latin letters beyond ASCII" in polish
    assert not any("XeLaTeX" in line for line in polish)
    tex = _tex(_data("Вопрос", "問答", "Plain"))
    other = _comment(tex)
    assert not any("fontenc}:" in line for line in other)  # T1 alone does not help
    [needed] = [line for line in other if "XeLaTeX" in line]
    assert "LuaLaTeX" in needed and "Cyrillic, CJK letters" in needed and "T2A" in needed
    assert "Вопрос" in tex and "問答" in tex  # not transliterated


def test_a_dataset_id_of_many_lines_stays_in_the_comment() -> None:
    """A dataset id holding a newline ended the ``%`` comment: its next line
    (``\\bad{x} 50% & _``) was live LaTeX in the table (explore55 F9)."""
    tex = _tex(_data("A", "B", dataset="q8\n\\bad{x} 50% & _\tx\x07"))
    head = tex.split("\\begin{tabular}", 1)[0].splitlines()
    assert all(line.startswith("%") for line in head), head
    assert head[1:3] == ["% q8", "% \\bad{x} 50% & _?x?: 219 questions compared"]
    assert not any(ord(c) < 32 and c != "\n" for c in tex)


def test_validate_warns_of_a_control_character_in_an_id(tmp_path, capsys) -> None:
    """``validate`` said nothing of a dataset id holding a newline (XML carries it, so nothing
    refused it): it warns, of question ids too (explore55 F9)."""
    import json

    from service.cli import main

    question = {"language": "en", "string": "Who?"}
    answers = [{"head": {"vars": ["x"]}, "results": {"bindings": []}}]
    dataset = {
        "dataset": {"id": "q8\n\\bad{x}"},
        "questions": [
            {"id": "1\t2", "question": [question], "answers": answers},
            {"id": "3", "question": [question], "answers": answers},
        ],
    }
    path = tmp_path / "nl.json"
    path.write_text(json.dumps(dataset), encoding="utf-8")
    main(["validate", str(path)])
    out = capsys.readouterr().out
    assert "the dataset id 'q8\\n\\\\bad{x}' holds a control character U+000A" in out, out
    assert "1 question id holds a control character ('1\\t2')" in out, out


def test_the_latex_says_how_many_questions_each_system_answered_where_one_has_gaps() -> None:
    """The text table said "answered 150/219" of a system that left questions unanswered, the
    CSV its answered, missing and errors: the LaTeX said nothing of it (explore55 F2)."""
    whole = _tex(_data("A", "B"))
    assert "Answered" not in whole and "\\begin{tabular}{rlrl}" in whole
    tex = _tex(_data("A", "B", gaps=True))
    assert "\\begin{tabular}{rlrlr}" in tex
    assert "Tier & System & macro F1 & 95\\% interval & Answered \\\\" in tex
    rows = [line for line in tex.splitlines() if line.startswith("1 & ")]
    assert rows[0].endswith(" & 150/219 (9 failed) \\\\"), rows  # 150 + 60 missing + 9 errors
    assert rows[1].endswith(" & all \\\\"), rows
