"""The compare LaTeX tables and the escaping they share with the BibTeX entries
(``service.tex``): what a table needs is said in its comment, its comment stays a comment."""

from __future__ import annotations

import io
from typing import Any

from service.cli.compare import _latex


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
