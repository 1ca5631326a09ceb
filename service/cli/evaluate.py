"""``gerbil-qa evaluate`` and ``gerbil-qa profiles``: score answer files from the command line.

The handler is the application layer's use case, like the API's: :func:`spec_from_args` turns
the arguments into an :class:`~service.experiments.spec.ExperimentSpec`,
:func:`~service.experiments.run.run_experiment` runs it (and records it with ``--store``), and
:func:`emit` prints the evaluations. Everything but argparse is imported inside the handlers
(pyoxigraph only with ``--kb``, ``--store`` or a catalogue name): ``gerbil-qa evaluate`` is timed
against the start-up of ``import rdflib``.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from service.cli import add_limits, add_store_option, while_served
from service.errors import BadRequest, NotFound, ServiceError

if TYPE_CHECKING:
    from service.evaluation.results import Evaluation, ExperimentType
    from service.experiments.progress import RunProgress
    from service.experiments.spec import DatasetSource, ExperimentSpec

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


def _choices() -> tuple[str, str, str]:
    """The default profile, the profile names (default marked) and the experiment types, for
    the help: from the registries, without importing any profile's module."""
    from service.evaluation.profiles import DEFAULT_PROFILE, PROFILES
    from service.evaluation.results import ExperimentType

    profiles = ", ".join(f"{n} (default)" if n == DEFAULT_PROFILE else n for n in PROFILES)
    return DEFAULT_PROFILE, profiles, ",".join(t.value for t in ExperimentType)


def add_run_arguments(
    parser: argparse.ArgumentParser, default_profile: str, profile_names: str, type_names: str
) -> None:
    """The arguments that say what to score (``evaluate`` and ``compare`` share them, so the
    same files give the same systems, named alike)."""
    parser.add_argument(
        "--dataset",
        required=True,
        metavar="FILE|NAME",
        help="the gold dataset: a file, or a built-in dataset's name (gerbil-qa datasets)",
    )
    parser.add_argument(
        "--dataset-version",
        metavar="V",
        help="a built-in dataset's registered version (gerbil-qa dataset refresh NAME --store "
        "registers one; read from that store's kept file, so give --store)",
    )
    parser.add_argument(
        "--gold",
        metavar="FILE|NAME",
        help="take the gold answers from this file (a TEXT2SPARQL result set or any answers "
        "format) instead of the dataset, matched by question id and language",
    )
    parser.add_argument(
        "--answers",
        required=True,
        action="extend",
        nargs="+",
        metavar="FILE",
        help="answer files, one per system (several after one flag, or the flag repeated)",
    )
    parser.add_argument(
        "--system",
        action="append",
        metavar="NAME",
        help="the system's name, one per --answers in order (default: the file's stem)",
    )
    parser.add_argument(
        "--profile",
        metavar="P",
        help=f"scorer profile: {profile_names}; a built-in dataset made for one is scored "
        f"with it unless another is given (poleval, text2sparql), any other with "
        f"{default_profile}",
    )
    parser.add_argument(
        "--lang",
        metavar="L",
        help="question language (default: the profile's; gerbil-qa profiles); several as en,es "
        "or all (every language of the dataset): each question is scored once per language and "
        "the measures are pooled over every question x language (JSON: byLanguage has each "
        "language's, and every per-question entry its language)",
    )
    parser.add_argument(
        "--kb",
        metavar="FILE|URL",
        action="append",
        help="RDF file (any syntax by extension; repeatable) or one SPARQL endpoint URL: for "
        "owl:sameAs and label lookups (profiles that use a KB: see gerbil-qa profiles) and to run "
        "the queries of TEXT2SPARQL answers (default: a catalogue dataset's own KB)",
    )
    parser.add_argument("--kb-version", metavar="V", help="the KB's version, for the record")
    parser.add_argument(
        "--types",
        metavar="T,…",
        help=f"experiment types, comma-separated: {type_names} (default: QA and every "
        "sub-experiment the answers have data for)",
    )
    parser.add_argument(
        "--ranked",
        action="store_true",
        help="answers are listed in rank order: also report MRR and Hits@1/5/10",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="score answers even when under half of the dataset's question ids have one "
        "(refused by default: they are likely answers to another dataset)",
    )
    add_limits(parser)


def add_about_arguments(parser: argparse.ArgumentParser) -> None:
    """What the author of a dataset file says of it (``service.dataset_about``), recorded with
    it under --store: its title, then one option per field of the registry."""
    from service.dataset_about import ABOUT_FIELDS

    parser.add_argument(
        "--dataset-title", metavar="TEXT", help="a dataset file's title (dct:title)"
    )
    for f in ABOUT_FIELDS:
        parser.add_argument(
            f.option,
            dest="about_" + f.key,
            metavar=f.metavar,
            action="append" if f.many else "store",
            choices=f.choices or None,
            help=f.description + (" Repeatable." if f.many else ""),
        )


def about_from_args(args: argparse.Namespace) -> tuple[tuple[str, tuple[str, ...]], ...]:
    from service.dataset_about import ABOUT_FIELDS, parse_about

    values = {f.key: getattr(args, "about_" + f.key, None) for f in ABOUT_FIELDS}
    names = {f.key: f.option for f in ABOUT_FIELDS}
    return parse_about({k: v for k, v in values.items() if v}, "", names=names)


def register(subparsers: argparse._SubParsersAction) -> None:
    from service.evaluation.slices import DIMENSIONS as SLICE_DIMENSIONS

    default_profile, profile_names, type_names = _choices()
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
    add_run_arguments(evaluate, default_profile, profile_names, type_names)
    add_about_arguments(evaluate)
    evaluate.add_argument(
        "--intervals",
        action="store_true",
        help="also a 95 %% percentile bootstrap interval for every measure (over questions; "
        "JSON keys intervals and undefinedResamples, a column in the table, low/high/"
        "undefinedResamples columns in the CSV; no bounds for a measure undefined on more "
        "than 2.5 %% of the resamples)",
    )
    evaluate.add_argument(
        "--resamples", type=int, metavar="N", help="bootstrap resamples (default 1000)"
    )
    evaluate.add_argument("--seed", type=int, metavar="N", help="random seed (default 12345)")
    evaluate.add_argument(
        "--by",
        metavar="DIM[,DIM]",
        help="also every measure broken down by a feature of the questions: "
        f"{', '.join(SLICE_DIMENSIONS)} or extra:KEY (JSON key slices, a block per dimension "
        "in the table)",
    )
    evaluate.add_argument("--output", choices=OUTPUTS, default="table", help="output format")
    add_store_option(
        evaluate, required=False, what="also record the run there (private until published)"
    )
    evaluate.add_argument(
        "--base",
        metavar="URI",
        help="base of the URIs minted in a new store (default: the store's own, "
        "http://localhost:8080/ for a new one)",
    )
    evaluate.set_defaults(handler=handle_evaluate)
    while_served(
        evaluate,
        "submit the run to it: `POST /api/experiments` or its run page (/experiments/new); "
        "it is recorded in that store",
        admin=False,
    )

    profiles = subparsers.add_parser(
        "profiles",
        help="list the scorer profiles",
        description="Print each scorer profile's name, version, IRI, signature and description.",
    )
    profiles.set_defaults(handler=handle_profiles)


# -- evaluate ------------------------------------------------------------------------------------


def _made_here(location: str) -> bool:
    """Whether ``evaluate`` makes store ``location`` (a directory holding none yet), read
    without taking its lock."""
    from service.graph.remote import is_remote
    from service.graph.store import stored_base

    return not is_remote(location) and stored_base(location) is None


def handle_evaluate(args: argparse.Namespace) -> int:
    # main() turns the cyclic collector off for the whole command (service.cli.COLLECTOR_OFF)
    from service.experiments.run import run_experiment

    dimensions: tuple[str, ...] = ()
    if args.by:  # an option is checked before any file is looked for
        from service.evaluation.slices import parse_dimensions

        dimensions = parse_dimensions(args.by)
    if args.resamples is not None and args.resamples < 1:  # before any scoring (a traceback
        # after it; with --store, after the run, as its recorded intervals take it too)
        raise BadRequest(f"--resamples must be at least 1, not {args.resamples}")
    spec = spec_from_args(args)
    storage = None
    withheld: str | None = None  # the dataset whose gold the recorded run withholds
    about = getattr(spec.dataset, "about", ())
    if about and not args.store:
        raise BadRequest(
            "--dataset-description, --dataset-license …: what is said of a dataset is recorded "
            "with it in a store: give --store"
        )
    if args.store:
        from service.graph.store import open_storage

        new = args.base is None and _made_here(args.store)
        storage = open_storage(args.store, base=args.base)
        if new:  # its URIs are fixed now: said, as serve --port elsewhere leads nowhere
            print(
                f"gerbil-qa: note: a new store, {args.store}: its URIs are under "
                f"{storage.uris.base} for good (the default base; serve it there, or give "
                "--base URI, the address it will be served at, when making a store)",
                file=sys.stderr,
            )
    kept: dict[str, bytes] = {}
    outcome = None
    try:
        if storage is not None:  # a published upload of the store, by its name
            from service.catalog import own_profile_of_upload
            from service.experiments.run import named_upload

            named = getattr(spec.dataset, "name", None)  # a catalogue-style name, if one
            spec, kept = named_upload(spec, storage)
            if args.profile is None and kept and named:  # its own, as the API takes it
                own = own_profile_of_upload(storage.catalogue, named)
                spec = replace(spec, profile=own or spec.profile)
        from service.experiments.inputs import Files

        if storage is not None:  # an about, an in.tsv on published bytes (check_about)
            from service.experiments.recording import check_about, inherit_withheld_gold

            spec = inherit_withheld_gold(spec, storage)  # checked as if given (explore23 8)
            check_about(spec, storage, Files(kept))
            if dimensions and (held := _withholding(spec, storage, Files(kept))):
                raise BadRequest(_BY_WITHHELD.format(name=held))  # before it is recorded
        bar = _ProgressBar() if sys.stderr.isatty() else None
        outcome = run_experiment(
            spec,
            storage=storage,
            progress=bar,
            files=Files(kept),
            interval_resamples=args.resamples,
            interval_seed=args.seed,
        )
        if bar is not None:
            bar.finish()
        if storage is not None and outcome.ticket is not None:
            withheld = storage.catalogue.scored_withheld_on(storage.private, outcome.ticket.id)
    except OSError as err:
        if storage is None:
            raise
        raise _not_recorded(err, args.store, outcome) from None
    finally:
        if storage is not None:
            storage.close()
    evaluations = list(outcome.evaluations)
    if withheld is not None:  # as the API gives it (explore21 12)
        if dimensions:
            raise BadRequest(_BY_WITHHELD.format(name=withheld))
        evaluations = [_withheld(ev) for ev in evaluations]
        print(
            f"gerbil-qa: note: the gold of dataset {withheld} is withheld (a shared task's test "
            "set): the measures alone are given, without each question's result or intervals, "
            "as the recorded experiment keeps them",
            file=sys.stderr,
        )
    if args.intervals and withheld is None:  # recorded ones have theirs: printed as stored
        evaluations = [
            ev if "intervals" in ev.extra else _with_intervals(ev, args) for ev in evaluations
        ]
    if dimensions and outcome.dataset is not None:
        from service.evaluation.slices import question_values, sliced

        values = question_values(outcome.dataset.questions)
        evaluations = [
            replace(ev, extra={**ev.extra, "slices": sliced(ev, values, dimensions)})
            for ev in evaluations
        ]
    if outcome.ticket is not None:
        ticket = outcome.ticket
        print(
            f"gerbil-qa: recorded experiment {ticket.id} at {ticket.uri} (private; owner token: "
            f"{ticket.token})",
            file=sys.stderr,
        )
        info = {"id": ticket.id, "uri": ticket.uri}
        evaluations = [replace(ev, extra={**ev.extra, "experiment": info}) for ev in evaluations]
    emit(evaluations, args.output, sys.stdout)
    _warn(evaluations)
    for note in outcome.notes:  # about the run as a whole (recorded with it too)
        print(f"gerbil-qa: note: {note}", file=sys.stderr)
    return 0


def _not_recorded(err: OSError, store: str, outcome: Any) -> ServiceError:
    """A write to ``--store`` that failed, in one line (it was a traceback, though the
    experiment had been recorded; explore52 F1): a full disk as that, and whether the
    experiment was recorded. It is recorded in one transaction, the last write of a run
    here: an error before it leaves none; after it, its id and owner token are said."""
    from service.errors import no_room, os_error_said, store_has_no_room

    said = str(store_has_no_room(err, store)) if no_room(err) else os_error_said(err)
    ticket = getattr(outcome, "ticket", None)
    if ticket is None:
        return ServiceError(f"cannot record the experiment in {store}: {said}; nothing recorded")
    return ServiceError(
        f"recorded experiment {ticket.id} at {ticket.uri} (private; owner token: "
        f"{ticket.token}), then a write to {store} failed: {said}"
    )


_BY_WITHHELD = (
    "--by: the gold of dataset {name} is withheld, and slices are made of each question's "
    "result (nothing recorded: run it without --by)"
)


def _withholding(spec: Any, storage: Any, files: Any) -> str | None:
    """The dataset whose gold a run of ``spec`` would be scored withheld on: its upload says
    ``gold: withheld``, or its bytes are a published test set withheld now; else None."""
    from service.experiments.spec import FileDataset

    source = spec.dataset
    if not isinstance(source, FileDataset):
        return None
    if dict(source.about).get("gold") == ("withheld",):
        return source.title or source.file.name
    return storage.catalogue.withheld_test_set(files.checksum(source.file)[0])


def _withheld(ev: Evaluation) -> Evaluation:
    """``ev`` without what would tell a withheld gold: each question's result (the JSON's
    ``questions`` is empty, ``questionsWithheld`` says why) and its warnings about questions."""
    from service.evaluation.results import TaskScores

    tasks = {t: TaskScores(t, s.measures, ()) for t, s in ev.tasks.items()}
    dropped = ("intervals", "undefinedResamples", "intervalSignature")  # explore23 3
    extra = {k: v for k, v in ev.extra.items() if k not in dropped}
    general = tuple(p for p in ev.problems if p.question_id is None)
    return replace(ev, tasks=tasks, problems=general, extra={**extra, "questionsWithheld": True})


def _with_intervals(ev: Evaluation, args: argparse.Namespace) -> Evaluation:
    from service.evaluation.comparison import with_intervals

    return with_intervals(ev, resamples=args.resamples, seed=args.seed)


def spec_from_args(args: argparse.Namespace) -> ExperimentSpec:
    """The experiment the arguments ask for: one answer-file system per ``--answers`` file."""
    from service.dataset_about import parse_title
    from service.evaluation.languages import parse_languages
    from service.experiments.spec import ExperimentSpec, FileRef, KBSpec, RunOptions
    from service.experiments.systems import AnswerFile, system_name

    answers: list[str] = list(args.answers)
    names: list[str] = list(args.system or [])
    if len(names) > len(answers):
        raise BadRequest(f"{len(names)} --system names for {len(answers)} --answers files")
    for path in answers:
        if path.startswith(("http://", "https://")) and not Path(path).exists():
            raise BadRequest(
                f"--answers {path}: answer files are read, never called; to ask a QA web "
                f"service, run gerbil-qa system run {path} --dataset DATASET --output "
                "answers.json, then evaluate answers.json (or submit the URL to the web "
                "service's API)"
            )
    systems = tuple(
        AnswerFile(
            system_name(names[i] if i < len(names) else Path(path).stem), FileRef.local(path)
        )
        for i, path in enumerate(answers)
    )
    types = [t.strip().upper() for t in args.types.split(",") if t.strip()] if args.types else []
    dataset = dataset_source(args.dataset, stored=bool(getattr(args, "store", None)))
    if getattr(args, "dataset_version", None):
        from dataclasses import replace as with_version

        from service.experiments.spec import CatalogueDataset

        if not isinstance(dataset, CatalogueDataset):
            raise BadRequest("--dataset-version names a version of a built-in dataset's name")
        dataset = with_version(dataset, version=args.dataset_version)
    about = about_from_args(args)
    title = parse_title(getattr(args, "dataset_title", None), "--dataset-title")
    if about or title:
        from dataclasses import replace as stated

        from service.experiments.spec import FileDataset

        if not isinstance(dataset, FileDataset):
            raise BadRequest(
                "--dataset-title and --dataset-description … describe a dataset file; a "
                "dataset named (a built-in one, a store's published upload) keeps the "
                "description it has"
            )
        dataset = stated(dataset, title=title or dataset.title, about=about)
    return ExperimentSpec(
        dataset=dataset,
        gold=dataset_source(args.gold) if args.gold else None,
        systems=systems,
        profile=args.profile or _own_profile(dataset),
        languages=parse_languages(args.lang) if args.lang else (),
        experiment_types=tuple(dict.fromkeys(types)),
        kb=KBSpec(tuple(args.kb), version=args.kb_version) if args.kb else None,
        options=RunOptions(ranked=args.ranked, force=args.force),
    )


def _own_profile(dataset: DatasetSource) -> str:
    """The profile made for a built-in dataset or a dataset file's format (poleval,
    text2sparql), else the default one."""
    from service.catalog import own_profile_of, own_profile_of_file
    from service.evaluation.profiles import DEFAULT_PROFILE
    from service.experiments.spec import CatalogueDataset

    if isinstance(dataset, CatalogueDataset):
        own = own_profile_of(dataset.name)
    else:
        own = own_profile_of_file(dataset.file.name, dataset.file.format)
    return own or DEFAULT_PROFILE


def uploaded_name(text: str) -> bool:
    """Whether ``text`` is a name ``results.uploaded_dataset_name`` makes: a label and 8 (or
    16, or 64) hex digits of the file's SHA-256."""
    from service.graph.results import NAME_DIGITS

    digits = "|".join(f"[0-9a-f]{{{n}}}" for n in NAME_DIGITS)
    # \w: a name made before kept letters beyond ASCII (``dataset_about.UPLOADED_NAME``)
    return re.fullmatch(f"[\\w.-]+-(?:{digits})", text) is not None


def dataset_source(text: str, *, stored: bool = False) -> DatasetSource:
    """``--dataset``: a file when one is there, else a built-in dataset's name (a name that is
    neither is refused saying what it may have meant: :func:`_not_a_dataset`)."""
    from service.experiments.spec import CatalogueDataset, FileDataset, FileRef

    path = Path(text)
    if not path.exists() and "/" not in text and "\\" not in text:
        from service import catalog

        if any(entry.name == text for entry in catalog.entries()):
            return CatalogueDataset(text)
        if stored and uploaded_name(text):  # a store's published upload, by name
            return CatalogueDataset(text)
        raise _not_a_dataset(text)
    from service.formats.base import Source
    from service.formats.tsv import in_beside, refuse_columns

    # an expected.tsv's in.tsv is kept with it, as an upload's is (export, rescore, download)
    beside = in_beside(path)
    if beside is not None:  # given now: one column (a kept one is read as it was)
        refuse_columns(Source(beside.read_bytes(), name=str(beside)), path.read_bytes())
    return FileDataset(FileRef.local(path), questions=FileRef.local(beside) if beside else None)


def _not_a_dataset(text: str) -> NotFound:
    """A ``--dataset`` name that is no file and no built-in dataset, said with what it may
    have meant: before, every name but a near miss of the catalogue's ended in "cannot read
    the file: No such file or directory" (``demo`` as the API names it, an upload's name)."""
    from service import catalog
    from service.web.demo import DEMO_KB, DEMO_QUESTIONS, demo_label
    from service.web.submission import DEMO_DATASET

    said = f"{text}: no such file, and no built-in dataset of that name"
    label = demo_label()
    if text in (DEMO_DATASET, label) or (uploaded_name(text) and text.startswith(label + "-")):
        return NotFound(
            f"{said}; the demo is the file {DEMO_QUESTIONS}, scored on its KB: --dataset "
            f"{DEMO_QUESTIONS} --kb {DEMO_KB}"
        )
    if uploaded_name(text):
        return NotFound(
            f"{said}; a published uploaded dataset is run by its name with --store DIR, the "
            "store of the service that published it (or through that service's API or run page)"
        )
    return NotFound(f"{said}{catalog.did_you_mean(text)} (see `gerbil-qa datasets`)")


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
    from service.evaluation.results import interval_resamples, undefined_resamples_note

    types = list(ev.tasks)
    names: list[str] = []
    for task in ev.tasks.values():
        names.extend(n for n in task.measures if n not in names)
    header = ["measure", *(t.value for t in types)]
    shown = ev.extra.get("intervals", {})  # evaluate --intervals
    undefined = ev.extra.get("undefinedResamples", {})
    resamples = interval_resamples(ev.extra.get("intervalSignature"))

    def cell(t: ExperimentType, n: str) -> tuple[str, str]:
        """The value, and what follows it: its interval, its undefined resamples."""
        ci = shown.get(t.value, {}).get(n)
        value = _format(ev.tasks[t].measures.get(n))
        bounded = bool(ci) and ci[0] is not None
        after = f" [{ci[0]:.4f}, {ci[1]:.4f}]" if bounded else ""
        count = undefined.get(t.value, {}).get(n)
        if count and resamples:
            after += f" ({undefined_resamples_note(count, resamples, bounded=bounded)})"
        return value, after

    body = [[cell(t, n) for t in types] for n in names]
    # values right-aligned on one edge, what follows them left-aligned after it: a long note
    # right-aligned pushed that row's value out of its column
    values = [max([len(h), *(len(r[c][0]) for r in body)]) for c, h in enumerate(header[1:])]
    texts = [[v.rjust(w) + after for (v, after), w in zip(r, values, strict=True)] for r in body]
    widths = [max([w, *(len(r[c]) for r in texts)]) for c, w in enumerate(values)]
    first = max(len(n) for n in [header[0], *names])
    lines = [
        f"dataset: {ev.dataset}   system: {ev.system}   profile: {ev.profile.name} "
        f"{ev.profile.version}   language: {ev.language}" + (f"   kb: {ev.kb}" if ev.kb else ""),
    ]
    heads = [h.rjust(v).ljust(w) for h, v, w in zip(header[1:], values, widths, strict=True)]
    for name, row in [(header[0], heads), *zip(names, texts, strict=True)]:
        cells = [name.ljust(first), *(c.ljust(w) for c, w in zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    lines += [note for task in ev.tasks.values() if (note := task.unscored_note)]
    lines += _query_lines(ev)
    lines += _slice_lines(ev)
    lines.append(f"signature: {ev.extra.get('intervalSignature') or ev.signature}")
    return "\n".join(lines) + "\n"


SLICE_COLUMNS = ("questions", "macroF1", "microF1", "macroF1QALD")


def _slice_lines(ev: Evaluation) -> list[str]:
    """``--by``: per dimension, the headline measures of each value in the QA experiment, or
    in the first one scored when QA is not (``--types C2KB,…`` on gold queries alone)."""
    lines: list[str] = []
    first = "QA" if "QA" in ev.tasks or not ev.tasks else next(iter(ev.tasks)).value
    for dim, by_value in ev.extra.get("slices", {}).items():
        rows = [
            [value, *(_format(types.get(first, {}).get(m)) for m in SLICE_COLUMNS)]
            for value, types in by_value.items()
        ]
        header = [f"by {dim} ({first})", *SLICE_COLUMNS]
        widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
        for row in [header, *rows]:
            cells = [row[0].ljust(widths[0])]
            cells += [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
            lines.append("  ".join(cells).rstrip())
        if not rows:
            lines.append(f"  (no question has a value for {dim})")
    if lines:  # under a signature naming the bootstrap, nothing said so (explore43 F6)
        lines.append(SLICE_NOTE + (SLICE_NOTE_INTERVALS if "intervals" in ev.extra else ""))
    return lines


SLICE_NOTE = (
    "slice values carry no interval and no test: a slice of few questions is the least certain"
)
SLICE_NOTE_INTERVALS = " (the intervals above and the signature's ci fields are the whole run's)"


def _query_lines(ev: Evaluation) -> list[str]:
    """For a system that answered with SPARQL: the shapes of its queries against the gold
    queries (TEXT2SPARQL's query analysis; per question in the JSON's queryShape)."""
    from service.evaluation.results import ExperimentType

    qa = ev.tasks.get(ExperimentType.QA)
    shapes = [q.query_shape for q in qa.questions if q.query_shape] if qa else []
    if not shapes:
        return []

    def mean(role: str, key: str) -> str:
        values = [s[role][key] for s in shapes if role in s and key in s[role]]
        return f"{sum(values) / len(values):.2f}" if values else "n/a"

    refused = sum(1 for s in shapes if "error" in s["system"])
    features: dict[str, int] = {}
    for s in shapes:
        for name in s["system"].get("features", ()):
            features[name] = features.get(name, 0) + 1
    listed = ", ".join(f"{k} {v}" for k, v in sorted(features.items(), key=lambda kv: -kv[1]))
    return [
        f"queries: {len(shapes)} system queries ({refused} refused by the parser); mean triple "
        f"patterns {mean('system', 'triplePatterns')} (gold {mean('gold', 'triplePatterns')}), "
        f"join vertices {mean('system', 'joinVertices')} (gold {mean('gold', 'joinVertices')})",
        f"query features: {listed or 'none'}",
    ]


def _csv(evaluations: Sequence[Evaluation], stream: TextIO) -> None:
    from service.csv_table import write_csv

    # evaluate --intervals adds three columns at the end (the others keep their places): the
    # bounds, and on how many resamples the measure was undefined (bounds left empty when more
    # than one tail's worth)
    with_ci = any("intervals" in ev.extra for ev in evaluations)
    header = [*CSV_COLUMNS, *(("low", "high", "undefinedResamples") if with_ci else ())]
    rows: list[list[Any]] = []
    for ev in evaluations:
        shown = ev.extra.get("intervals", {})
        undefined = ev.extra.get("undefinedResamples", {})
        for etype, task in ev.tasks.items():
            for name, value in task.measures.items():
                row = [
                    ev.dataset,
                    ev.system,
                    ev.profile.name,
                    ev.profile.version,
                    ev.language,
                    etype.value,
                    name,
                    "" if value is None else repr(value) if isinstance(value, float) else value,
                    ev.extra.get("intervalSignature") or ev.signature,
                ]
                if with_ci:
                    low, high = shown.get(etype.value, {}).get(name) or (None, None)
                    row += ["" if low is None else repr(low), "" if high is None else repr(high)]
                    row.append(undefined.get(etype.value, {}).get(name, ""))
                rows.append(row)
    write_csv(stream, header, rows)


def _warn(evaluations: Sequence[Evaluation]) -> None:
    for ev in evaluations:
        if not ev.problems:
            continue
        count = len(ev.problems)
        print(f"gerbil-qa: {ev.system}: {count} warning{'s' * (count != 1)}", file=sys.stderr)
        for problem in ev.problems[:5]:
            print(f"  {problem}", file=sys.stderr)
        if len(ev.problems) > 5:
            print("  … (all of them are listed in --output json)", file=sys.stderr)


class _ProgressBar:
    """A one-line progress bar on standard error per system while it is scored (used only
    when standard error is a terminal)."""

    width = 30

    def __init__(self) -> None:
        self.shown: str | None = None

    def __call__(self, progress: RunProgress) -> None:
        if progress.phase != "scoring":
            return
        current = next((s for s in progress.systems if s.state == "scoring"), None)
        if current is None or current.total <= 0:
            return
        if self.shown is not None and self.shown != current.system:
            sys.stderr.write("\n")
        self.shown = current.system
        filled = self.width * current.done // current.total
        bar = "#" * filled + "-" * (self.width - filled)
        sys.stderr.write(f"\r{current.system}: [{bar}] {current.done}/{current.total}")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.shown is not None:
            sys.stderr.write("\n")


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
