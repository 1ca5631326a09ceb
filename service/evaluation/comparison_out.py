"""A comparison written out: the text table, CSV, pairs CSV and LaTeX tables of
``gerbil-qa compare`` and of the web comparison's ``format=latex`` (one writer for both)."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any, TextIO

from service.csv_table import write_csv

if TYPE_CHECKING:
    from service.evaluation.comparison import Comparison


def emit(
    result: Comparison, output: str, out: TextIO, *, measure: str, experiment_type: str = "QA"
) -> None:
    """``result`` written as ``output`` says; its numbers of ``experiment_type`` (QA; a
    comparison of stored C2KB… tasks on the web, whose LaTeX this writes too)."""
    data = result.to_json()
    if output == "json":
        out.write(json.dumps(data, ensure_ascii=False) + "\n")
    elif output == "csv":
        _csv(data, out, measure=measure)
    elif output == "pairs-csv":
        _pairs_csv(data, out)
    elif output == "latex":
        _latex(data, out, measure=measure, etype=experiment_type)
    else:
        _table(data, out, measure=measure)


def _value(x: Any) -> str:
    return "n/a" if x is None else f"{x:.4f}"


def _interval(system: dict[str, Any], measure: str, data: dict[str, Any], etype: str = "QA") -> str:
    """A system's interval of ``measure`` (of ``etype``) in the table, with the resamples it
    was undefined on (``[null, null]`` printed as n/a: it crashed the table)."""
    from service.evaluation.results import undefined_resamples_note

    pair = system["intervals"].get(etype, {}).get(measure)
    bounded = bool(pair) and pair[0] is not None and pair[1] is not None
    count = system.get("undefinedResamples", {}).get(etype, {}).get(measure)
    note = undefined_resamples_note(count, data["resamples"], bounded=bounded) if count else ""
    if not bounded:
        return note or "n/a"
    return f"[{pair[0]:.4f}, {pair[1]:.4f}]" + (f" ({note})" if note else "")


def _table(data: dict[str, Any], out: TextIO, *, measure: str) -> None:
    from service.evaluation.comparison import format_p_value  # loaded by the comparison

    out.write(
        f"dataset: {data['dataset']}   profile: {data['profile']}   measure: {measure}   "
        f"questions: {_questions(data)}\n"
    )
    gaps = any("answered" in s for s in data["systems"])  # a system left questions unanswered
    rows: list[tuple[str, ...]] = [
        ("tier", "system", measure, "95% interval", *(("answered",) if gaps else ()))
    ]
    for s in data["systems"]:  # in standing order (tier, then the measure)
        qa = s["results"].get("QA", {})
        tier = "–" if s["tier"] is None else str(s["tier"])  # no value: no tier
        shown = _interval(s, measure, data)
        row = (tier, s["system"], _value(qa.get(measure)), shown)
        rows.append((*row, _answered(s)) if gaps else row)
    _aligned(rows, out)
    out.write(f"\npairs ({data['test']}, Holm-adjusted):\n")
    pairs: list[tuple[str, ...]] = [("a", "b", "difference", "p", "p adjusted")]
    for p in data["pairs"]:
        pairs.append(
            (
                p["a"],
                p["b"],
                _value(p["difference"]),
                format_p_value(p["pValue"], p.get("pAtFloor", False)),
                format_p_value(p["pAdjusted"], p.get("pAtFloor", False)),
            )
        )
    _aligned(pairs, out)
    out.write(f"signature: {data['signature']}\n")


def _questions(data: dict[str, Any]) -> str:
    """The number of questions compared (explore43 F4: a 1-question file kept the dataset's
    name and nothing said only one was scored)."""
    n = data.get("questions")
    return "n/a" if n is None else f"{n:,}"


def _answered(system: dict[str, Any]) -> str:
    """``100/150`` where a system left questions unanswered (with its failed calls), else
    ``all``."""
    if "answered" not in system:
        return "all"
    total = system["answered"] + system["missing"] + system["errors"]
    failed = f" ({system['errors']} failed)" if system["errors"] else ""
    return f"{system['answered']}/{total}{failed}"


def _aligned(rows: list[tuple[str, ...]], out: TextIO) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
        out.write("\n")


def _coverage(system: dict[str, Any], questions: int | None) -> tuple[int | None, int, int]:
    """``(answered, missing, errors)`` of a system, from its JSON (the keys it has when it left
    questions unanswered; none: it answered all ``questions`` compared)."""
    if "answered" not in system:
        return questions, 0, 0
    return system["answered"], system["missing"], system["errors"]


def _csv(data: dict[str, Any], out: TextIO, *, measure: str) -> None:
    """One row per system: tier, the measure, its interval (spreadsheets read it as is), on how
    many resamples the measure was undefined (empty bounds when more than 2.5 %), the number
    of questions compared, and how many of them the system answered, had no answer in its file
    for (``missing``) or failed on (``errors``), as its JSON counts them (the CSV had none)."""
    rows = []
    for s in data["systems"]:  # in standing order (tier, then the measure)
        ci = s["intervals"].get("QA", {}).get(measure) or [None, None]
        count = s.get("undefinedResamples", {}).get("QA", {}).get(measure)
        value = s["results"].get("QA", {}).get(measure)
        questions = data.get("questions")
        answered = _coverage(s, questions)
        rows.append([s["system"], s["tier"], value, *ci, count, questions, *answered])
    header = ["system", "tier", measure, "low", "high", "undefinedResamples", "questions"]
    write_csv(out, [*header, "answered", "missing", "errors"], rows)


def _pairs_csv(data: dict[str, Any], out: TextIO) -> None:
    """One row per pair tested: the difference and both p-values, as the JSON has them (the
    systems' CSV has none: a paper's table of tests was copied by hand; explore25 9), and
    whether they are bounds (``pAtFloor``: true or false)."""
    header = ["a", "b", "measure", "difference", "pValue", "pAdjusted", "test", "pAtFloor"]
    fields = ("a", "b", "measure", "difference", "pValue", "pAdjusted")
    rows = (
        [*(p[k] for k in fields), data["test"], "true" if p.get("pAtFloor") else "false"]
        for p in data["pairs"]
    )
    write_csv(out, header, rows)


def _tex(text: str) -> str:
    """A name or label escaped for LaTeX, as the BibTeX entries escape a user's text."""
    from service.tex import tex_escape

    return tex_escape(text)


def _latex(data: dict[str, Any], out: TextIO, *, measure: str, etype: str = "QA") -> None:
    """Two booktabs tables for a paper: the systems (tier, the measure, its interval, and how
    many questions each answered where one left some unanswered) and the pairs (difference,
    p, Holm-adjusted p), the signature in a comment above them."""
    from service.evaluation.comparison import format_p_value
    from service.evaluation.measures import MEASURES
    from service.tex import comment_lines, needs

    level = "95\\%"
    label = MEASURES[measure].label if measure in MEASURES else measure  # "macro F1"
    label = label if etype == "QA" else f"{etype} {label}"  # a sub-experiment's: "C2KB macro F1"
    # how many questions each system answered, as the text table and the CSV say, where one
    # left some unanswered: "answered 150/219" was in the text table only (explore55 F2)
    gaps = any("answered" in s for s in data["systems"])
    table = io.StringIO()
    table.write(f"\\begin{{tabular}}{{rlrl{'r' if gaps else ''}}}\n\\toprule\n")
    header = f"Tier & System & {_tex(label)} & {level} interval" + (" & Answered" if gaps else "")
    table.write(f"{header} \\\\\n\\midrule\n")
    for s in data["systems"]:
        tier = "--" if s["tier"] is None else str(s["tier"])
        value = _value(s["results"].get(etype, {}).get(measure))
        shown = _tex(_interval(s, measure, data, etype))
        answered = f" & {_tex(_answered(s))}" if gaps else ""
        table.write(f"{tier} & {_tex(s['system'])} & {value} & {shown}{answered} \\\\\n")
    table.write("\\bottomrule\n\\end{tabular}\n\n")
    table.write("\\begin{tabular}{llrrr}\n\\toprule\n")
    table.write(f"A & B & difference & $p$ ({_tex(data['test'])}) & $p$ (Holm) \\\\\n\\midrule\n")
    for p in data["pairs"]:
        cells = [_tex(p["a"]), _tex(p["b"]), _value(p["difference"])]
        floor = p.get("pAtFloor", False)  # a bound, not a measured p (explore43 F7)
        cells += [format_p_value(p[k], floor, le="$\\le$ ") for k in ("pValue", "pAdjusted")]
        table.write(" & ".join(cells) + " \\\\\n")
    table.write("\\bottomrule\n\\end{tabular}\n")
    # every line of the comment a comment, whatever the dataset id holds (explore55 F9)
    out.write(comment_lines(f"gerbil-qa compare, signature {data['signature']}"))
    out.write(comment_lines(f"{data['dataset']}: {_questions(data)} questions compared"))
    out.write("% needs \\usepackage{booktabs}\n")
    for needed in needs(table.getvalue()):  # what its names need (explore55 F1)
        out.write(comment_lines(f"needs {needed}"))
    out.write(table.getvalue())
