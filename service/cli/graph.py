"""``gerbil-qa export``, ``import``, ``check``, ``datasets``, ``dataset show|load``.

Commands on a store take its base from the store (``--base`` only names the base of a new one).
Cheap to import: pyoxigraph, rdflib and pyshacl are imported inside the handlers.
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.cli import add_store_option, while_served
from service.errors import BadRequest, Conflict

if TYPE_CHECKING:
    from service.experiments.backup import Backup
    from service.graph.store import Storage

DEFAULT_BASE = "http://localhost:8080/"  # = service.graph.uris.DEFAULT_BASE (not imported: cheap)
SHOWN_FINDINGS = 20  # findings printed by `dataset load`; the rest are counted


def _store_options(
    parser: argparse.ArgumentParser,
    *,
    required: bool = True,
    new: str = DEFAULT_BASE,
    what: str = "",
) -> None:
    add_store_option(parser, required=required, what=what)
    parser.add_argument(
        "--base",
        metavar="URI",
        help=f"base of minted URIs (default: the store's own; {new} for a new store)",
    )


def register(sub: Any) -> None:
    export = sub.add_parser("export", help="dump the store (or one experiment) as RDF")
    _store_options(export)
    export.add_argument("--experiment", metavar="ID", help="only this experiment's graph")
    export.add_argument(
        "--format", default="nquads", choices=("nquads", "trig", "turtle"), help="RDF syntax"
    )
    export.add_argument("--output", type=Path, metavar="FILE", help="write here, not stdout")
    export.add_argument(
        "--files",
        action="store_true",
        help="a whole backup: a tar archive (gzip if FILE ends in .gz) of the dump and the files "
        "kept beside the graph (uploads, dataset versions, archived answers, the jobs of "
        "cancelled or failed runs), which a dump alone does not hold",
    )
    export.set_defaults(handler=_export)

    imp = sub.add_parser("import", help="restore a dump made by `gerbil-qa export`")
    _store_options(imp, new="the dump's")
    imp.add_argument(
        "file",
        type=Path,
        help="an N-Quads (.nq) or TriG (.trig) dump, or an `export --files` archive",
    )
    imp.add_argument(
        "--rebase",
        action="store_true",
        help="move the dump's URIs to the store's base (--base for a new store): a store "
        "tried out under one base, deployed under another; its experiments' old URIs no "
        "longer resolve",
    )
    imp.add_argument(
        "--legacy-dump",
        action="store_true",
        help="a dump or backup made before export wrote its closing line and SHA256SUMS "
        "(2026-11-28): taken as it is, though it cannot tell whether it is whole",
    )
    imp.set_defaults(handler=_import)

    check = sub.add_parser(
        "check",
        help="run the Data Cube integrity constraints and SHACL shapes over the store; warn "
        "of files experiments used that it does not keep",
    )
    _store_options(check)
    check.add_argument(
        "--standards", type=Path, metavar="DIR", help="shared standards folder (IC queries)"
    )
    check.add_argument("--no-shapes", action="store_true", help="only the Data Cube checks")
    check.set_defaults(handler=_check)

    upgrade = sub.add_parser(
        "upgrade",
        help="rewrite the experiments older versions wrote in today's terms, and complete the "
        "uploads they published (serve does both at start)",
    )
    _store_options(upgrade, what="one that exists (there is nothing to upgrade in a new one)")
    upgrade.set_defaults(handler=_upgrade)

    rescore = sub.add_parser(
        "rescore",
        help="re-score a stored experiment into a new revision (the old one stays)",
        description="Run a stored experiment's spec again (its kept files; the profile's current "
        "version, or --profile; the catalogue's current dataset) into a new private experiment "
        "that is prov:wasRevisionOf the old one, and print what changed per question.",
    )
    _store_options(rescore, required=False)
    rescore.add_argument("experiment", metavar="ID", help="the experiment to re-score")
    rescore.add_argument("--profile", help="score under this profile instead of the spec's")
    rescore.add_argument(
        "--dataset-version",
        metavar="V",
        help="score against this registered version of its catalogue dataset (a gold "
        "refresh), or, for an uploaded dataset, its newer version: the name of a published "
        "uploaded dataset that says --dataset-previous of it (or of a version between)",
    )
    rescore.add_argument(
        "--output", choices=("table", "json"), default="table", help="output format"
    )
    rescore.set_defaults(handler=_rescore)
    while_served(
        rescore,
        "re-score through its API: `POST /api/experiments/{experiment}/rescore` (with "
        '{{"profile": …}} or {{"datasetVersion": …}})',
    )

    datasets = sub.add_parser("datasets", help="list the built-in datasets")
    datasets.set_defaults(handler=_datasets)

    from service.cli.systems import command_group

    dataset = command_group(sub, "dataset", help="built-in and stored datasets")
    show = dataset.add_parser("show", help="describe one built-in dataset")
    show.add_argument("name")
    show.set_defaults(handler=_dataset_show)
    load = dataset.add_parser(
        "load", help="load a built-in dataset (mirror or download), check it, store its questions"
    )
    load.add_argument("name")
    _store_options(load)
    load.add_argument("--offline", action="store_true", help="never download: mirror only")
    load.set_defaults(handler=_dataset_load)


def _location(args: argparse.Namespace) -> Path | str:
    from service.graph.store import check_location

    location = check_location(args.store)  # a directory, or a remote store's URL
    if location is None:
        raise BadRequest("give --store DIR")
    return location


def _open(args: argparse.Namespace, *, create: bool = True) -> Storage:
    from service.graph.store import open_storage

    return open_storage(_location(args), base=args.base, create=create)


def _rescore(args: argparse.Namespace) -> int:
    import json

    from service.experiments.inputs import Files
    from service.experiments.rescore import changes, dataset_of, rescore_spec
    from service.experiments.run import run_experiment
    from service.graph.reader import evaluations

    storage = _open(args)
    try:
        old = args.experiment
        spec, uploads = rescore_spec(
            storage, old, profile=args.profile, dataset_version=args.dataset_version
        )
        old = spec.options.revision_of or old  # newer answers replace a re-scoring's there
        old_quads = storage.experiments.quads(old, answers=False)
        before = evaluations(old_quads, storage.uris, old)
        outcome = run_experiment(spec, storage=storage, files=Files(uploads))
        ticket = outcome.ticket
        assert ticket is not None  # a store records
        new = ticket.id
        new_quads = storage.experiments.quads(new, answers=False)
        after = evaluations(new_quads, storage.uris, new)
    finally:
        storage.close()
    diff = changes(before, after, datasets=(dataset_of(old_quads), dataset_of(new_quads)))
    # private, as `evaluate --store` records are: its owner token is shown once, here
    print(
        f"gerbil-qa: recorded experiment {new} at {ticket.uri} (private; owner token: "
        f"{ticket.token})",
        file=sys.stderr,
    )
    if args.output == "json":
        print(
            json.dumps({"experiment": new, "uri": ticket.uri, "revisionOf": old, "changes": diff})
        )
        return 0
    what = old if old == args.experiment else f"{args.experiment}'s answers as a revision of {old}"
    print(f"experiment {new} re-scores {what} (prov:wasRevisionOf; private until published)")
    print_changes(diff)
    return 0


def print_changes(diff: dict[str, Any]) -> None:
    """A re-scoring's changes (:func:`service.experiments.rescore.changes`) as ``rescore``
    prints them: per system the signatures, the measures that moved and the first 20 changed
    questions, each with its F1 and the counts that moved."""
    if "datasetAfter" in diff:
        print(f"  on another dataset: before {diff['datasetBefore']}, now {diff['datasetAfter']}")
    for system in diff["systems"]:
        count = len(system["questions"])
        print(f"  {system['system']} ({system['language']}): {count} question results changed")
        if system["signatureBefore"] != system["signatureAfter"]:
            print(f"    signature before: {system['signatureBefore']}")
            print(f"    signature after:  {system['signatureAfter']}")
        for etype, measures in system["results"].items():
            for name, (was, now) in measures.items():
                print(f"    {etype} {name}: {was} -> {now}")
        for change in system["questions"][:20]:
            was, now = change["before"], change["after"]
            status = (
                f" ({was['status']} -> {now['status']})" if was["status"] != now["status"] else ""
            )
            moved = "".join(  # the counts that moved (a micro measure's why at one F1)
                f", {k} {was.get(k)} -> {now.get(k)}"
                for k in ("tp", "fp", "fn")
                if was.get(k) != now.get(k)
            )
            print(
                f"    question {change['question']} {change['type']}: F1 "
                f"{was['f1']} -> {now['f1']}{moved}{status}"
            )
        if len(system["questions"]) > 20:
            print(f"    … {len(system['questions']) - 20} more (--output json lists them all)")


def _export(args: argparse.Namespace) -> int:
    from service.cli.output import check_output, output_file, write_output
    from service.graph.dumps import export
    from service.graph.snapshots import consistent_storage
    from service.graph.store import workspace_at

    if args.files and (args.experiment or args.format == "turtle"):
        raise BadRequest("--files backs up a whole store: as nquads or trig, without --experiment")
    if args.output:
        check_output(args.output)  # a folder, a read-only file: refused before the export
    with consistent_storage(_location(args), base=args.base) as storage:  # also while served
        data = export(storage, format=args.format, experiment_id=args.experiment)
        if args.files:
            from service.experiments.backup import write_backup
            from service.graph.store import workspace_at

            gzip = bool(args.output) and args.output.name.endswith(".gz")
            # a file is written beside FILE and renamed when whole: an earlier backup stays
            target = (
                output_file(args.output) if args.output else nullcontext((sys.stdout.buffer, ""))
            )
            with target as (out, _):
                # the store's own workspace: a served store is read from a checkpoint
                workspace = workspace_at(_location(args))
                # the jobs of runs that ended without a result: they can be resumed
                stopped = [
                    s.id
                    for s in storage.experiments.listing(include_private=True)
                    if s.status.resumable
                ]
                kept = write_backup(data, args.format, workspace, out, gzip=gzip, jobs=stopped)
            print(f"gerbil-qa: the dump and {kept} kept file(s)", file=sys.stderr)
            return 0
    if args.output:
        write_output(args.output, data)  # beside FILE, then renamed: an earlier dump stays
    else:
        sys.stdout.buffer.write(data)
    return 0


def unchecked_note(name: str, data: bytes, backup: Backup | None) -> str | None:
    """What an import taken as it is (``--legacy-dump``) could not check, as the file is:
    it said "has no closing line or SHA256SUMS (made before 2026-11-28)" of every such file,
    also of an archive whose dump had its closing line and of one whose SHA256SUMS checked it
    (explore50 F1). None: nothing went unchecked. ``data``: the dump (an archive's member)."""
    from service.graph.dumps import closing

    lined = closing(data) is not None
    if backup is None:
        if lined:
            return None
        return (
            f"{name} has no closing line (a dump made before 2026-11-28, or one cut short): "
            "imported unchecked; if it was cut short, what it lost is not restored"
        )
    if backup.checked:  # its SHA256SUMS checked every member's bytes, the dump's too
        return None
    if not lined:
        return (
            f"{name} has no SHA256SUMS and its dump no closing line (an archive made before "
            "2026-11-28, or one cut short): imported unchecked; if it was cut short, what it "
            "lost is not restored"
        )
    return (
        f"{name} has no SHA256SUMS (an archive made before 2026-11-28, or one cut short after "
        "its dump): its dump is whole (its closing line counted its quads), its kept files "
        "unchecked; a file cut off is not restored"
    )


def _import(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        raise BadRequest(f"{args.file}: no such file")
    fmt = "trig" if args.file.suffix.lower() == ".trig" else "nquads"
    from service.experiments.backup import is_backup, read_backup, restore_files
    from service.graph.dumps import digest_said, dump_base, import_dump, read_dump
    from service.graph.legacy import WRITTEN_BEFORE
    from service.graph.legacy import legacy_experiment_graphs as legacy_graphs
    from service.graph.store import stored_base

    legacy = args.legacy_dump
    # all checked first
    backup = read_backup(args.file, legacy=legacy) if is_backup(args.file) else None
    data = backup.dump if backup is not None else args.file.read_bytes()
    fmt = backup.format if backup is not None else fmt
    source = f"{args.file}: dump.{'trig' if fmt == 'trig' else 'nq'}" if backup else str(args.file)
    dump = read_dump(data, format=fmt, source=source, legacy=legacy)  # before a store is made
    note = unchecked_note(str(args.file), data, backup)
    if note is not None:
        print(f"gerbil-qa: {note}", file=sys.stderr)
    elif backup is None and not digest_said(data):  # an archive's SHA256SUMS checked its bytes
        print(
            f"gerbil-qa: {args.file}'s closing line has no sha256 (a dump made before "
            "2026-11-29, or its digest removed): its quads were counted, its bytes not checked, "
            "so a value edited in place would not be seen",
            file=sys.stderr,
        )
    if args.base is None and stored_base(_location(args)) is None:
        if args.rebase:
            raise BadRequest("import --rebase into a new store: give its base (--base URI)")
        # a new store is made with the dump's base (the default one would refuse the dump,
        # and once made no --base could change it)
        args.base = dump_base(data, format=fmt)
    location = _location(args)
    made = isinstance(location, Path) and not location.exists()
    try:
        with _open(args) as storage:
            from service.web.demo import demo_ids

            demos = demo_ids(storage)
            done = import_dump(
                storage, dump, source=str(args.file), rebase=args.rebase, demos=demos
            )
            # the graph first: an import killed before the files is completed by running it again
            restored = (
                restore_files(storage.workspace, backup.files, skip_jobs=done.kept) if backup else 0
            )
            older = len(
                {g for side in (storage.public, storage.private) for g in legacy_graphs(side)}
            )
    except BadRequest:
        if made:  # a refused dump leaves no store behind, made with a base it did not want
            import shutil

            shutil.rmtree(location, ignore_errors=True)
        raise
    # with experiments left as the store has them, not every quad read was written
    print(
        f"{'read' if done.kept or done.removed else 'imported'} {done.read} quads from {args.file}"
    )
    if done.replaced:
        print(
            f"gerbil-qa: the store's demo experiment {', '.join(done.replaced)}, which `serve` "
            "computed at its first start and all the store held, was replaced by the dump "
            "(a later `serve` computes a demo only if the dump has none)",
            file=sys.stderr,
        )
    if backup is not None:
        total, there = len(backup.files), len(backup.files) - restored
        # "(the others were there)" when every file was restored named no others
        already = f"; {there} were there already" if there else ""
        print(f"restored {restored} of its {total} kept file(s){already}")
    if done.kept:
        print(
            f"gerbil-qa: {len(done.kept)} experiment(s) of the dump were already in the store and "
            f"are left as the store has them: {', '.join(done.kept)}",
            file=sys.stderr,
        )
    if done.removed:
        print(
            f"gerbil-qa: {len(done.removed)} frozen leaderboard(s) of the dump were removed from "
            f"the store since and are left out: {', '.join(done.removed)}",
            file=sys.stderr,
        )
    if older:  # else `check` fails them and the leaderboards leave them out
        print(
            f"gerbil-qa: {older} experiment graph(s) are in the terms of a version before "
            f"{WRITTEN_BEFORE}: run `gerbil-qa upgrade --store {args.store}` (or start "
            "`gerbil-qa serve` on it) to rewrite them in today's",
            file=sys.stderr,
        )
    return 0


def _check(args: argparse.Namespace) -> int:
    from service.experiments.kept import missing
    from service.graph.checks import check_store
    from service.graph.snapshots import consistent_storage
    from service.graph.store import workspace_at

    location = _location(args)
    with consistent_storage(location, base=args.base) as storage:  # also while served
        found = check_store(
            storage, standards=args.standards, shapes=not args.no_shapes, progress=_Progress()
        )
        # the files where the store keeps them (a served store's checkpoint has none)
        gone = missing(storage, workspace_at(location))
    for violation in found:
        print(violation)
    # not a violation: the graph is whole without them (a store restored from a dump alone)
    for experiment_id, name, sha, was_kept in gone:
        if was_kept:
            print(
                f"warning: experiment {experiment_id} used {name} (SHA-256 {sha}), which this "
                "store does not keep: it can be neither downloaded nor scored again (restore "
                "it from an export --files backup)",
                file=sys.stderr,
            )
    never = sorted({experiment_id for experiment_id, *_, was_kept in gone if not was_kept})
    if never:  # no backup holds them: one line, not one a file
        count = sum(not was_kept for *_, was_kept in gone)
        print(
            f"warning: {count} file(s) of {len(never)} experiment(s) ({', '.join(never)}) were "
            "recorded by a version that kept no files (before 2026-11-24): there is nothing to "
            "restore; they can be neither downloaded nor scored again, unless given again "
            "(gerbil-qa evaluate --dataset FILE --answers FILE …)",
            file=sys.stderr,
        )
    print(f"{len(found)} violation(s)", file=sys.stderr)
    return 1 if found else 0


class _Progress:
    """``check``'s word on stderr every ``EVERY`` seconds while it works: a loaded store took
    minutes with nothing said (explore63)."""

    EVERY = 10.0

    def __init__(self) -> None:
        self.last = time.monotonic()

    def __call__(self, done: int, total: int, found: int) -> None:
        if time.monotonic() - self.last >= self.EVERY and done < total:
            self.last = time.monotonic()
            print(
                f"checked {done} of {total} graphs, {found} violation(s) so far…", file=sys.stderr
            )


def _upgrade(args: argparse.Namespace) -> int:
    from service.graph.legacy import (
        WRITTEN_BEFORE,
        remove_withheld_intervals,
        upgrade,
        withhold_downloads,
    )
    from service.graph.store import STORE_FORMAT, newer_writer
    from service.graph.uploads import complete_published_uploads

    with _open(args, create=False) as storage:  # a mistyped path made an empty store
        if (newer := newer_writer(storage.store)) is not None:
            raise Conflict(
                f"the store was last written by {newer}, newer than this version's store format "
                f"{STORE_FORMAT}: an older version does not upgrade it (nothing upgraded); run "
                "the newer version's `gerbil-qa upgrade`"
            )
        graphs = upgrade(storage)
        uploads = complete_published_uploads(storage)
        withheld = remove_withheld_intervals(storage)
        downloads = withhold_downloads(storage)
    for graph in graphs:
        print(f"upgraded {graph}")
    for graph in withheld:
        print(f"removed the intervals of {graph}")
    for graph in downloads:
        print(f"removed the download URLs of {graph} (its test set withholds its gold)")
    for dataset in uploads:
        print(f"completed {dataset}")
    print(
        f"{len(graphs)} experiment graph(s) written by a version before {WRITTEN_BEFORE} "
        "upgraded (experiment types gerbil:QA …, PROV agent types, GERBIL's status fields; "
        f"results untouched); {len(withheld)} run graph(s) on a test set whose gold is "
        f"withheld without their intervals (their measures untouched); {len(uploads)} "
        "published uploaded dataset(s) completed "
        "(catalogue link, publisher, date of first issue, generated description marked, a "
        "kept file as its distribution)",
        file=sys.stderr,
    )
    return 0


def _datasets(args: argparse.Namespace) -> int:
    from service.catalog import entries, listed_languages

    rows = [
        (
            e.name,
            str(e.question_count),
            ",".join(listed_languages(e)),
            e.knowledge_base_version,
            e.title,
        )
        for e in entries()
    ]
    header = ("name", "questions", "languages", "knowledge base", "title")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row[:4], widths, strict=True)) + "  " + row[4])
    return 0


def _dataset_show(args: argparse.Namespace) -> int:
    from service.catalog import get_entry, listed_languages

    e = get_entry(args.name)
    print(f"{e.name}: {e.title}")
    print(f"  {e.description}")
    print(f"  questions: {e.question_count}   languages: {', '.join(listed_languages(e))}")
    print(f"  knowledge base: {e.knowledge_base or '-'} ({e.knowledge_base_version})")
    print(f"  version: {e.version}   issued: {e.issued}   licence: {e.licence or '-'}")
    for d in e.distributions:
        print(f"  {d.role}: {d.download_url}")
        print(f"    {d.byte_size} bytes, sha256 {d.sha256}, {d.format}, mirror: {d.mirror_path}")
    return 0


def _dataset_load(args: argparse.Namespace) -> int:
    from service.catalog import DownloadFailed, load_into

    with _open(args) as storage:
        try:
            findings = load_into(storage.catalogue, args.name, download=not args.offline)
        except DownloadFailed as err:
            raise DownloadFailed(
                f"{err} (with --offline, dataset load reads the local copy alone, never "
                "downloading)"
            ) from None
    print(f"{args.name}: stored; {len(findings)} finding(s)")
    groups = _grouped(findings)
    for group in groups[:SHOWN_FINDINGS]:
        print(f"  {_finding_line(group)}")
    if len(groups) > SHOWN_FINDINGS:
        left = sum(len(group) for group in groups[SHOWN_FINDINGS:])
        print(
            f"  … {left} more (all of them are in the store: gerbil-qa export --store {args.store})"
        )
    return 0


def _grouped(findings: list[Any]) -> list[list[Any]]:
    """The findings of one severity, kind and message together, in the order met: QALD-9's
    130 questions without a ``pt-BR`` text are one line, not 130 (explore51 F2). A format
    finding's message starts with its place in the file (``FILE:373:9: $.questions[4]:
    question 81: warning: empty answer set``): grouped by the reader's message after it, as
    QALD-9-plus's 35 empty answer sets were one empty-gold line, then up to 20 format lines
    one each (explore54 F11)."""
    groups: dict[tuple[str, str, str], list[Any]] = {}
    for f in findings:
        groups.setdefault((f.severity, f.kind, _unplaced(f)), []).append(f)
    return list(groups.values())


def _unplaced(finding: Any) -> str:
    """A finding's message without the place a format finding starts with (what the reader
    said: ``empty answer set``); another kind's message as it is."""
    if finding.kind != "format":
        return str(finding.message)
    _, said, rest = str(finding.message).partition(f": {finding.severity}: ")
    return rest if said else str(finding.message)


def _finding_line(group: list[Any], *, named: int = 5) -> str:
    """``warning: missing-text: no question text in 'pt-BR' (130 questions: 98, 86, …)``; a
    finding alone as before (``warning: empty-gold question 81: …``)."""
    first = group[0]
    if len(group) == 1:
        where = f" question {first.question_id}" if first.question_id else ""
        return f"{first.severity}: {first.kind}{where}: {first.message}"
    ids = [f.question_id for f in group if f.question_id]
    shown = ", ".join([*ids[:named], *(["…"] if len(ids) > named else [])])
    about = f"{len(ids)} questions: {shown}" if ids else f"{len(group)} times"
    return f"{first.severity}: {first.kind}: {_unplaced(first)} ({about})"
