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
import sys
from typing import TYPE_CHECKING, Any

from service.errors import BadRequest
from service.evaluation.comparison_out import emit

if TYPE_CHECKING:
    pass

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
