"""``gerbil-qa evaluate`` and ``gerbil-qa profiles``: score answer files from the command line.

The handler is two steps, so other areas can add to it in a few lines: :func:`compute` turns
the arguments into :class:`~service.evaluation.results.Evaluation` objects, :func:`emit` prints
them. Everything but argparse is imported inside the handlers (pyoxigraph only with ``--kb``):
``gerbil-qa evaluate`` is timed against the start-up of ``import rdflib``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from service.errors import BadRequest

if TYPE_CHECKING:
    from service.evaluation.results import Evaluation

OUTPUTS = ("table", "json", "csv")
CSV_COLUMNS = (
    "dataset",
    "system",
    "profile",
    "profileVersion",
    "language",
    "type",
    "measure",
    "value",
    "signature",
)
_PROFILE_NAMES = "fair (default), gerbil, qald6, qald-legacy, exact, poleval"


def register(subparsers: argparse._SubParsersAction) -> None:
    evaluate = subparsers.add_parser(
        "evaluate",
        help="score a system's answers against a dataset",
        description=(
            "Score one or more answer files against a dataset and print the results with the "
            "profile's signature. For PolEval TSV data, --dataset is expected.tsv and --answers "
            "out.tsv. With several --answers files, --output json prints one JSON object per "
            "line (JSON Lines), one per file, in the order given."
        ),
    )
    evaluate.add_argument("--dataset", required=True, metavar="FILE", help="the gold dataset")
    evaluate.add_argument(
        "--answers",
        required=True,
        action="append",
        metavar="FILE",
        help="a system's answer file (repeatable)",
    )
    evaluate.add_argument(
        "--system",
        action="append",
        metavar="NAME",
        help="the system's name, one per --answers in order (default: the file's stem)",
    )
    evaluate.add_argument(
        "--profile", default="fair", metavar="P", help=f"scorer profile: {_PROFILE_NAMES}"
    )
    evaluate.add_argument(
        "--lang", metavar="L", help="question language (default: the profile's, en or pl)"
    )
    evaluate.add_argument(
        "--kb",
        metavar="FILE",
        help="RDF file (any syntax by extension) or SPARQL endpoint URL for owl:sameAs and "
        "label lookups (gerbil and fair profiles)",
    )
    evaluate.add_argument("--kb-version", metavar="V", help="the KB's version, for the record")
    evaluate.add_argument(
        "--types",
        metavar="T,…",
        help="experiment types, comma-separated: QA,C2KB,P2KB,RE2KB,AT,AIT2KB (default: QA "
        "and every sub-experiment the answers have data for)",
    )
    evaluate.add_argument(
        "--ranked",
        action="store_true",
        help="answers are listed in rank order: also report MRR and Hits@1/5/10",
    )
    evaluate.add_argument("--output", choices=OUTPUTS, default="table", help="output format")
    evaluate.add_argument(
        "--store",
        metavar="DIR",
        help="also record the run as one experiment in this store (private until published)",
    )
    evaluate.add_argument(
        "--base",
        metavar="URI",
        default="http://localhost:8080/",
        help="base of the URIs minted in a new store (default http://localhost:8080/)",
    )
    evaluate.set_defaults(handler=handle_evaluate)

    profiles = subparsers.add_parser(
        "profiles",
        help="list the scorer profiles",
        description="Print each scorer profile's name, version, IRI, signature and description.",
    )
    profiles.set_defaults(handler=handle_profiles)


# -- evaluate ------------------------------------------------------------------------------------


def handle_evaluate(args: argparse.Namespace) -> int:
    import gc

    # Reading and scoring allocate many objects and make no reference cycles: the cyclic
    # collector would only walk them again and again (about 3% of a QALD-9 run). Refcounting
    # still frees everything; the collector is back on when the command is done.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        evaluations = compute(args, progress_factory=_progress_bar if sys.stderr.isatty() else None)
    finally:
        if was_enabled:
            gc.enable()
    if args.store:
        from service.cli.graph import record_evaluations

        evaluations = record_evaluations(args, evaluations)
    emit(evaluations, args.output, sys.stdout)
    _warn(evaluations)
    return 0


def compute(
    args: argparse.Namespace,
    *,
    progress_factory: Callable[[str], Callable[[int, int], None]] | None = None,
) -> list[Evaluation]:
    """The evaluations the arguments ask for, one per ``--answers`` file, in order."""
    from service.evaluation import evaluate, get_profile
    from service.formats import read
    from service.model import system_run

    profile = get_profile(args.profile)
    language = args.lang or profile.default_language
    names: list[str] = list(args.system or [])
    if len(names) > len(args.answers):
        raise BadRequest(f"{len(names)} --system names for {len(args.answers)} --answers files")
    types = [t for t in args.types.split(",") if t.strip()] if args.types else None
    dataset = read(args.dataset, language=language)
    kb = None
    if args.kb:  # an RDF file: an in-memory Oxigraph store (LocalKB); a URL: a RemoteKB
        from service.kb.open import open_kb

        kb = open_kb([args.kb], version=args.kb_version)
    out: list[Evaluation] = []
    same_file = Path(args.dataset).resolve()
    for i, path in enumerate(args.answers):
        name = names[i] if i < len(names) else Path(path).stem
        # The gold file given as answers (a sanity check, or the upper bound) is read once.
        answers = dataset if Path(path).resolve() == same_file else read(path, language=language)
        run = system_run(answers, system=name, language=language)
        progress = progress_factory(name) if progress_factory else None
        out.append(
            evaluate(
                dataset,
                run,
                profile=profile,
                language=language,
                kb=kb,
                experiment_types=types,
                progress=progress,
                ranked=args.ranked,
            )
        )
        if progress is not None:
            print(file=sys.stderr)
    return out


def emit(evaluations: Sequence[Evaluation], output: str, stream: TextIO) -> None:
    """Print ``evaluations`` as ``table``, ``json`` (one object a line) or ``csv``."""
    if output == "json":
        import json

        # One object per line (compact: json's C encoder; indenting is pure Python and slow).
        for ev in evaluations:
            stream.write(json.dumps(ev.to_json(), ensure_ascii=False) + "\n")
    elif output == "csv":
        _csv(evaluations, stream)
    else:
        for i, ev in enumerate(evaluations):
            if i:
                stream.write("\n")
            stream.write(table(ev))


def _format(value: object) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def table(ev: Evaluation) -> str:
    """A readable aligned table: one row per measure, one column per experiment type."""
    types = list(ev.tasks)
    names: list[str] = []
    for task in ev.tasks.values():
        names.extend(n for n in task.measures if n not in names)
    header = ["measure", *(t.value for t in types)]
    body = [[n, *(_format(ev.tasks[t].measures.get(n)) for t in types)] for n in names]
    widths = [max(len(r[c]) for r in [header, *body]) for c in range(len(header))]
    lines = [
        f"dataset: {ev.dataset}   system: {ev.system}   profile: {ev.profile.name} "
        f"{ev.profile.version}   language: {ev.language}" + (f"   kb: {ev.kb}" if ev.kb else ""),
    ]
    for row in [header, *body]:
        cells = [row[0].ljust(widths[0])]
        cells += [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells).rstrip())
    lines.append(f"signature: {ev.signature}")
    return "\n".join(lines) + "\n"


def _csv(evaluations: Sequence[Evaluation], stream: TextIO) -> None:
    import csv

    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for ev in evaluations:
        for etype, task in ev.tasks.items():
            for name, value in task.measures.items():
                writer.writerow(
                    [
                        ev.dataset,
                        ev.system,
                        ev.profile.name,
                        ev.profile.version,
                        ev.language,
                        etype.value,
                        name,
                        "" if value is None else repr(value) if isinstance(value, float) else value,
                        ev.signature,
                    ]
                )


def _warn(evaluations: Sequence[Evaluation]) -> None:
    for ev in evaluations:
        if not ev.problems:
            continue
        print(f"gerbil-qa: {ev.system}: {len(ev.problems)} warnings", file=sys.stderr)
        for problem in ev.problems[:5]:
            print(f"  {problem}", file=sys.stderr)
        if len(ev.problems) > 5:
            print("  … (all of them are listed in --output json)", file=sys.stderr)


def _progress_bar(label: str) -> Callable[[int, int], None]:
    """A one-line progress bar on standard error (used only when it is a terminal)."""
    width = 30

    def show(done: int, total: int) -> None:
        if total <= 0:
            return
        filled = width * done // total
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r{label}: [{bar}] {done}/{total}")
        sys.stderr.flush()

    return show


# -- profiles ------------------------------------------------------------------------------------


def handle_profiles(args: argparse.Namespace) -> int:
    import textwrap

    from service.evaluation.profiles import DEFAULT_PROFILE, PROFILES

    for i, profile in enumerate(PROFILES.values()):
        if i:
            print()
        default = " (default)" if profile.name == DEFAULT_PROFILE else ""
        print(f"{profile.name} {profile.version}{default}")
        print(f"  iri:       {profile.iri}")
        print(f"  signature: {profile.signature}")
        types = ", ".join(t.value for t in profile.experiment_types)
        print(f"  types:     {types}")
        print(
            textwrap.fill(
                profile.description, width=100, initial_indent="  ", subsequent_indent="  "
            )
        )
    return 0
