"""``gerbil-qa compare``: several systems on one dataset, with intervals, paired tests and tiers.

The systems are scored exactly as ``evaluate`` scores the same arguments (one spec builder, so
each ``system`` is the name ``evaluate`` gives that file), then compared by
:func:`service.evaluation.comparison.compare`, whose JSON is the command's contract:
``{"dataset", "profile", "signature", "seed", "resamples", "test", "systems": [{"system",
"results", "intervals", "tier"}], "pairs": [{"a", "b", "measure", "difference", "pValue",
"pAdjusted"}]}`` (keys only ever added).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from service.csv_table import write_csv
from service.errors import BadRequest

if TYPE_CHECKING:
    from service.evaluation.comparison import Comparison

OUTPUTS = ("table", "json", "csv", "pairs-csv", "latex")
TESTS = ("auto", "ar", "mcnemar", "bootstrap")


def register(subparsers: argparse._SubParsersAction) -> None:
    from service.cli.evaluate import _choices, add_run_arguments

    default_profile, profile_names, type_names = _choices()
    compare = subparsers.add_parser(
        "compare",
        help="compare systems on one dataset: intervals, paired tests, tiers",
        description=(
            "Score two or more answer files against a dataset (as evaluate does) and compare "
            "them on one measure of the QA experiment: a bootstrap interval for every measure, "
            "paired tests on the same questions for every pair (approximate randomisation for "
            "F-type measures, McNemar for accuracy; Holm-corrected) and tiers (the best system "
            "and every system not significantly worse than it form tier 1; then the rest)."
        ),
    )
    add_run_arguments(compare, default_profile, profile_names, type_names)
    compare.add_argument(
        "--measure",
        help=f"the measure compared (default: the profile's own, {_own_measures()}; as POST "
        "/api/compare and the compare page take it)",
    )
    compare.add_argument("--test", choices=TESTS, default="auto", help="the paired test")
    # defaults live in service.evaluation.statistics (not imported here: it loads NumPy)
    compare.add_argument("--seed", type=int, help="random seed (default 12345)")
    compare.add_argument(
        "--resamples", type=int, help="bootstrap resamples of the intervals (default 1000)"
    )
    compare.add_argument(
        "--samples",
        type=int,
        help="samples of the paired test (default: 10,000 shuffles for ar, 1,000 for bootstrap)",
    )
    compare.add_argument("--output", choices=OUTPUTS, default="table", help="output format")
    compare.add_argument(
        "--store",
        metavar="DIR|URL",
        help="a store (a directory or a remote store's http(s) URL) to read, never written: "
        "the file of a --dataset-version it registered, a dataset it published (--dataset "
        "by its name)",
    )
    compare.set_defaults(handler=handle_compare, base=None)


def _own_measures() -> str:
    """Each profile's own measure where it is not macro F1 (``accuracy under poleval``)."""
    from service.evaluation.profiles import PROFILES

    own = [f"{p.ranked_by} under {p.name}" for p in PROFILES.values() if p.ranked_by != "macroF1"]
    return ", ".join([*own, "else macroF1"])


def handle_compare(args: argparse.Namespace) -> int:
    from service.cli.evaluate import spec_from_args
    from service.evaluation.comparison import compare
    from service.evaluation.profiles import get_profile
    from service.experiments.run import run_experiment

    spec = spec_from_args(args)
    if len(spec.systems) < 2:
        raise BadRequest("compare needs at least two --answers files")
    given = {"seed": args.seed, "resamples": args.resamples, "samples": args.samples}
    for key in ("resamples", "samples"):  # before any scoring, as the API reads its numbers
        if given[key] is not None and given[key] < 1:  # --samples 0 ran the default (explore43 F5)
            raise BadRequest(f"{key} must be at least 1, not {given[key]}")
    kept: dict[str, bytes] = {}
    if args.store:  # read as evaluate reads it, nothing recorded (explore39 F2)
        spec, kept = _from_store(spec, args)
    # none named: the profile's own, as the API's; a PolEval comparison tested macro F1s
    # (approximate randomisation) where the task's metric is accuracy (McNemar)
    measure = args.measure or get_profile(spec.profile).ranked_by
    from service.experiments.inputs import Files

    outcome = run_experiment(spec, files=Files(kept))
    result = compare(
        list(outcome.evaluations),
        measure=measure,
        test=args.test,
        **{k: v for k, v in given.items() if v is not None},
    )
    for warning in result.warnings:
        print(f"gerbil-qa: warning: {warning}", file=sys.stderr)
    emit(result, args.output, sys.stdout, measure=measure)
    return 0


def _from_store(spec: Any, args: argparse.Namespace) -> tuple[Any, dict[str, bytes]]:
    """``spec`` with what ``--store`` holds for its dataset, read and nothing written: a
    built-in dataset's registered version (the file the store kept), or a published uploaded
    dataset named by its name (its bytes, and its own profile unless --profile says one).
    Before, compare had no --store, though its refusal of both said to give one."""
    from dataclasses import replace

    from service.catalog import own_profile_of_upload
    from service.experiments.run import named_upload, registered_version
    from service.graph.store import open_storage
    from service.web.comparing import _refuse_withheld as refuse_withheld

    storage = open_storage(args.store, base=None, read_only=True)
    try:
        refuse_withheld(spec, storage)
        named = getattr(spec.dataset, "name", None)
        spec, kept = named_upload(spec, storage)
        if args.profile is None and kept and named:  # its own, as evaluate and the API take it
            spec = replace(
                spec, profile=own_profile_of_upload(storage.catalogue, named) or spec.profile
            )
        return registered_version(spec, storage), kept
    finally:
        storage.close()


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
