"""``gerbil-qa system …``, ``dataset refresh``, ``resume`` and ``cancel``.

Cheap to import: every heavy import happens inside a handler.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from service.call_settings import CALLED, TEXT2SPARQL_MAX_ERROR_RATE
from service.cli import add_store_option, language_tag
from service.errors import BadRequest, ServiceError
from service.model import INTERFACES


def command_group(sub: Any, name: str, *, help: str) -> Any:
    """The subcommand group ``name`` (e.g. ``dataset``), created if no other module made it.

    Two areas add commands under ``dataset`` (GRAPH: ``dataset show…``, SYSTEMS: ``dataset
    refresh``); whichever registers first creates the group, the other adds to it.
    """
    parser = sub.choices.get(name)
    if parser is None:
        parser = sub.add_parser(name, help=help)
    for action in parser._actions:  # argparse keeps the subparsers action only here
        if isinstance(action, argparse._SubParsersAction):
            return action
    return parser.add_subparsers(dest=f"{name}_command", required=True, metavar="COMMAND")


def _add_kb_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument(
        "--kb",
        nargs="+",
        action="extend",  # `--kb A --kb B` is both files (a second --kb replaced the first)
        required=required,
        metavar="FILE|URL",
        help="RDF files loaded into a local Oxigraph store, or one SPARQL endpoint URL "
        "(--kb A B or --kb A --kb B)",
    )
    parser.add_argument("--kb-version", help="the KB's version, recorded with results")
    parser.add_argument(
        "--kb-cache",
        metavar="FILE",
        help="sqlite file caching KB lookups (default for an endpoint: "
        "$GERBIL_QA_KB_CACHE or ~/.cache/gerbil-qa/kb.sqlite; none for files)",
    )
    parser.add_argument("--batch-size", type=int, default=100, help="keys per VALUES block")


def _add_call_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        type=language_tag,
        help="language of the questions (ISO 639-1); default: the dataset's one language, "
        "else that of the profile made for it (poleval: pl), else en",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds per call; a question, retries and waits included, takes at most "
        "timeout × (retries + 1)",
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=2,
        help="retries of transient failures (connection errors, 5xx, 429)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="NETWORK",
        help="allow calling this non-public network (e.g. 127.0.0.1/32) or network:port "
        "(127.0.0.1:8000); repeatable",
    )
    parser.add_argument(
        "--service-header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'|@FILE",
        help="a secret request header sent with every call to the service (e.g. "
        "'Authorization: Bearer …'), and to no other origin it redirects to; repeatable. The "
        "shell's history keeps a value given here: @FILE reads 'Name: value' lines from FILE "
        "instead",
    )


def register(sub: Any) -> None:
    system = sub.add_parser("system", help="QA systems: serve reference systems, call services")
    commands = system.add_subparsers(dest="system_command", required=True, metavar="COMMAND")

    serve = commands.add_parser(
        "serve",
        help="serve a reference system (gold-sparql, baseline) as a QA web service or a "
        "Text2SPARQL service",
    )
    serve.add_argument("name", choices=("gold-sparql", "baseline"))
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    _add_kb_options(serve, required=True)
    serve.add_argument(
        "--dataset", help="the dataset whose gold SPARQL gold-sparql runs (a file or built-in name)"
    )
    serve.add_argument(
        "--lang",
        type=language_tag,
        default="en",
        help="the baseline's label language; a Text2SPARQL question's language (gold-sparql "
        "looks in the others too)",
    )
    serve.add_argument(
        "--interface",
        choices=INTERFACES,
        default="qa",
        help="qa: POST query=&lang=, answers QALD-JSON; text2sparql: GET ?question=&dataset=, "
        "answers {dataset, question, query} (TEXT2SPARQL'25)",
    )
    serve.add_argument("--threads", type=int, default=16, help="worker threads")
    serve.add_argument(
        "--delay-ms", type=float, default=0.0, help="added to every answer (imitates latency)"
    )
    serve.set_defaults(handler=_serve)

    ask = commands.add_parser(
        "ask", help="ask a QA web service one question and show its answer or what was wrong"
    )
    ask.add_argument("url")
    ask.add_argument("question")
    ask.add_argument(
        "--interface",
        choices=INTERFACES,
        default="qa",
        help="qa: a GERBIL QA web service; text2sparql: a TEXT2SPARQL service, asked about "
        "--dataset, whose query is then run on the dataset's KB (or --kb)",
    )
    ask.add_argument(
        "--dataset",
        help="text2sparql: the questions file or built-in name the service is asked about",
    )
    ask.add_argument(
        "--kb",
        nargs="+",
        action="extend",
        metavar="FILE|URL",
        help="text2sparql: run the query here (RDF files or one SPARQL endpoint URL) instead of "
        "the built-in dataset's own KB",
    )
    _add_call_options(ask)
    ask.set_defaults(handler=_ask)

    run = commands.add_parser(
        "run", help="run every question of a dataset against a QA web service"
    )
    run.add_argument("url")
    run.add_argument(
        "--dataset", required=True, help="questions file (any supported format) or built-in name"
    )
    run.add_argument("--name", help="the system's name (default: its URL)")
    run.add_argument("--concurrency", type=int, default=4, help="calls in flight at once")
    run.add_argument(
        "--interface",
        choices=INTERFACES,
        default="qa",
        help="qa: a GERBIL QA web service (POST query, lang; answers QALD-JSON); text2sparql: a "
        "TEXT2SPARQL service (GET question, dataset; answers a SPARQL query, kept as the answer "
        "and run on the KB when evaluated)",
    )
    run.add_argument(
        "--output",
        type=Path,
        help="write the answer file here (QALD-JSON; TEXT2SPARQL answers JSON for text2sparql)",
    )
    run.add_argument(
        "--max-error-rate",
        type=float,
        default=None,
        metavar="SHARE",
        help=CALLED["maxErrorRate"].description
        + f" Default: {CALLED['maxErrorRate'].default:g}; with --interface text2sparql "
        f"{TEXT2SPARQL_MAX_ERROR_RATE:g}.",
    )
    _add_call_options(run)
    run.set_defaults(handler=_run)

    dataset = command_group(sub, "dataset", help="built-in and stored datasets")
    refresh = dataset.add_parser(
        "refresh", help="re-run a dataset's gold SPARQL on a KB into a new dataset version"
    )
    refresh.add_argument("name", help="a dataset file or a built-in dataset's name")
    _add_kb_options(refresh, required=False)  # default: a built-in dataset's own KB
    refresh.add_argument("--output", type=Path, help="the new version's file (never overwritten)")
    add_store_option(
        refresh,
        required=False,
        what="register the new version there, its file kept beside the store",
    )
    refresh.add_argument("--show", type=int, default=20, help="answers shown per changed question")
    refresh.add_argument(
        "--timeout", type=float, default=30.0, help="seconds per gold query (then it is stopped)"
    )
    refresh.add_argument(
        "--max-results", type=int, default=100_000, help="rows per gold query at most"
    )
    refresh.set_defaults(handler=_refresh)

    resume = sub.add_parser(
        "resume", help="continue an interrupted, cancelled or failed experiment"
    )
    _add_store_options(resume)
    resume.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per call (default: the run's own, as it was submitted)",
    )
    resume.add_argument(
        "--allow", action="append", default=[], metavar="NETWORK", help="allow a non-public network"
    )
    resume.set_defaults(handler=_resume)

    cancel = sub.add_parser("cancel", help="cancel a queued or running experiment")
    _add_store_options(cancel)
    cancel.set_defaults(handler=_cancel)

    progress = sub.add_parser("progress", help="show an experiment's status and questions done")
    _add_store_options(progress)
    progress.set_defaults(handler=_progress)

    listing = sub.add_parser(
        "experiments",
        help="list a store's experiments, private ones too (the operator's view)",
        description="Every experiment of the store in id order, from its admin records: id, "
        "status, public or private, when created and published, what it ran (dataset and "
        "systems, for runs submitted to the service). Works while serve holds the store.",
    )
    add_store_option(listing, required=True)
    listing.add_argument("--base", default=None, metavar="URI", help="base of minted URIs")
    from service.graph.experiments import Status

    listing.add_argument(
        "--status", choices=[s.value for s in Status], help="only experiments in this state"
    )
    visibility = listing.add_mutually_exclusive_group()
    visibility.add_argument("--public", action="store_true", help="only published experiments")
    visibility.add_argument("--private", action="store_true", help="only unpublished ones")
    listing.add_argument(
        "--output",
        choices=("table", "json"),
        default="table",
        help="json: one object per line (keys only ever added)",
    )
    listing.set_defaults(handler=_experiments)


def _add_store_options(parser: argparse.ArgumentParser) -> None:
    add_store_option(parser, required=True)
    parser.add_argument("--base", default=None, metavar="URI", help="base of minted URIs")
    parser.add_argument("id", help="the experiment id (yyyyMMdd + 4 digits)")


def _policy(allow: list[str]) -> Any:
    import os

    from service.systems.safety import ALLOW_ENV, NetworkPolicy

    try:
        return NetworkPolicy.allowing(
            *os.environ.get(ALLOW_ENV, "").split(","),
            *allow,
            how_to_allow=f"--allow {{entry}} or {ALLOW_ENV}",
        )
    except ValueError as err:
        raise BadRequest(str(err)) from None


def _open_kb(args: argparse.Namespace) -> Any:
    from service.kb.open import DEFAULT_CACHE, open_kb

    cache = args.kb_cache or DEFAULT_CACHE
    return open_kb(args.kb, version=args.kb_version, batch_size=args.batch_size, cache=cache)


def _serve(args: argparse.Namespace) -> int:
    from service.kb import describe
    from service.systems.reference import build_system
    from service.systems.server import serve

    kb = _open_kb(args)
    dataset = _questions(args.dataset) if args.dataset else None
    system = build_system(args.name, kb=kb, dataset=dataset, language=args.lang)

    def ready(url: str) -> None:
        if args.interface == "text2sparql":  # it answers queries: whoever asks runs them
            kind = "Text2SPARQL service"
            how = f"a SPARQL query per question, for the caller to run; KB {describe(kb)}"
        else:
            kind, how = "QA web service", f"answers computed on the KB {describe(kb)}"
        print(f"serving {system.name} at {url} as a {kind} ({system.describe()}; {how})")
        sys.stdout.flush()

    serve(
        system,
        host=args.host,
        port=args.port,
        threads=args.threads,
        delay=args.delay_ms / 1000,
        interface=args.interface,
        language=args.lang,
        ready=ready,
    )
    return 0


def _service(args: argparse.Namespace, **options: Any) -> Any:
    from service.systems.secret_headers import from_options
    from service.systems.webservice import WebService

    return WebService(
        args.url,
        timeout=args.timeout,
        retries=args.retries,
        policy=_policy(args.allow),
        headers=from_options(args.service_header),
        **options,
    )


def _ask(args: argparse.Namespace) -> int:
    from service.systems.response import AnotherId
    from service.systems.webservice import ask

    dataset = None
    if args.interface == "text2sparql":
        if not args.dataset:
            raise BadRequest(
                "a Text2SPARQL service is asked about a dataset: give --dataset FILE|NAME "
                "(its id is sent; its KB, or --kb, runs the query)"
            )
        dataset = _questions(args.dataset)
        service = _service(args, interface="text2sparql", dataset_id=dataset.file_id)
    else:
        service = _service(args)
    service.check()

    def waiting(reason: str, delay: float, attempt: int) -> None:  # not silent for a minute
        print(
            f"gerbil-qa: {reason}; waiting {delay:g} s before attempt {attempt} of "
            f"{service.retries + 1}",
            file=sys.stderr,
            flush=True,
        )

    language = args.lang or "en"  # one question, no dataset to take it from
    answer, warnings = ask(service, args.question, language, question_id="1", on_retry=waiting)
    for problem in warnings:
        if isinstance(problem, AnotherId):  # the id "1" is made up here: any echoed one is fine
            continue
        print(f"gerbil-qa: {problem}", file=sys.stderr)
    if answer.error is not None:
        print(f"gerbil-qa: {args.url}: {answer.error}", file=sys.stderr)
        return 1
    if dataset is not None:
        ran = _query_run(args, dataset, answer)
        _print_json(ran)
        return 1 if "error" in ran else 0
    out: dict[str, Any] = {
        "answers": [t.n3() for t in answer.answers.values()],
        "sparql": answer.sparql,
        "runtimeMs": round(answer.runtime_ms or 0.0, 1),  # the question's, retries included
    }
    if answer.attempts > 1:
        out.update(attempts=answer.attempts, retryReason=answer.retry_reason)
    if answer.confidence is not None:  # eQALD: what the confidence measures will use
        out["confidence"] = answer.confidence
    _print_json(out)
    return 0


def _query_run(args: argparse.Namespace, dataset: Any, answer: Any) -> dict[str, Any]:
    """What a Text2SPARQL service's query gives on the KB, as an experiment would run it: its
    answers, or why it gives none (a team debugging one question saw nothing of this before
    running a whole dataset)."""
    from service.cli.evaluate import dataset_source
    from service.experiments.queries import kb_sources
    from service.experiments.spec import ExperimentSpec, KBSpec
    from service.formats.text2sparql import prefix_environment
    from service.kb import describe
    from service.kb.executor import SparqlExecutor

    kb = KBSpec(tuple(args.kb)) if args.kb else None
    sources, version = kb_sources(ExperimentSpec(dataset_source(args.dataset), (), kb=kb))
    with SparqlExecutor(
        list(sources), prefixes=prefix_environment(dataset), version=version
    ) as executor:
        result = executor.run(answer.sparql)
        out: dict[str, Any] = {"query": answer.sparql, "kb": describe(executor)}
    if result.failure is not None:
        out["error"] = f"the query gave no answers: {result.failure}"
    else:
        out["answers"] = [t.n3() for t in result.answers.values()]
        out["executed"] = result.executed
    if result.rewrites:
        out["rewrites"] = list(result.rewrites)  # what the lenient dialect read differently
    out["runtimeMs"] = round(answer.runtime_ms or 0.0, 1)
    if answer.attempts > 1:
        out.update(attempts=answer.attempts, retryReason=answer.retry_reason)
    return out


def _questions(text: str, *, language: str | None = None) -> Any:  # -> service.model.Dataset
    """``--dataset``: a file (gold answers or not), or a built-in dataset's name, as
    `evaluate --dataset` takes it: an ``expected.tsv``'s texts from the ``in.tsv`` beside it,
    in ``language`` (``--lang``), else in that of the profile made for TSV (poleval: pl)."""
    from service import catalog, formats
    from service.cli.evaluate import dataset_source
    from service.experiments.spec import CatalogueDataset

    source = dataset_source(text)
    if isinstance(source, CatalogueDataset):
        return catalog.load(source.name)
    dataset = formats.read(text, language=language)
    if language is None and not any(lang for q in dataset.questions for lang in q.languages):
        # a TSV's texts name no language: its format's (PolEval: pl)
        own = catalog.texts_language_of_file(text, dataset.format)
        if own is not None:
            dataset = formats.read(text, language=own)
    return dataset


def _print_json(value: Any) -> None:
    """``value`` as JSON on stdout; a lone surrogate a service sent as its JSON escape (raw, it
    has no UTF-8 and the print crashed: explore31 F13)."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    print(text.encode("utf-8", "backslashreplace").decode("utf-8"))


def _default_language(dataset: Any) -> str:
    """``--lang`` not given: the dataset's one language (a PolEval dataset's pl was refused as
    "no question in en", explore28 F17), else the profile made for its languages' (none: en)."""
    from service.evaluation.profiles import PROFILES, own_profile

    held = list(dict.fromkeys(lang for q in dataset.questions for lang in q.languages if lang))
    if len(held) == 1:
        return held[0]
    own = own_profile(held, dataset.format or "")
    return (
        PROFILES[own].default_language if own and PROFILES[own].default_language in held else "en"
    )


def _run(args: argparse.Namespace) -> int:
    from service.systems.archive import QUERY_FORMAT, answer_file_in
    from service.systems.webservice import run_web_service

    if args.output is not None:
        from service.cli.output import check_output

        check_output(args.output)  # before the service is asked: a run may take hours
    dataset = _questions(args.dataset, language=args.lang)
    args.lang = args.lang or _default_language(dataset)
    languages = _run_languages(args.lang, dataset, text2sparql=args.interface == "text2sparql")
    service = _service(
        args,
        name=args.name,
        concurrency=args.concurrency,
        interface=args.interface,
        dataset_id=dataset.file_id,
        max_error_rate=_max_error_rate(args),
    )
    show = sys.stderr.isatty()

    def progress(done: int, all_: int) -> None:
        if show:
            print(f"\r{done}/{all_} questions", end="", file=sys.stderr, flush=True)

    runs = {}
    aborted = False
    for language in languages:  # a pooled run (DB25's en,es) asks each question in each
        total = sum(1 for q in dataset.questions if q.text(language) is not None)
        result = run_web_service(dataset, service, language=language, progress=progress)
        runs[language] = result.run
        aborted = aborted or bool(result.aborted)
        if show:
            print(file=sys.stderr)
        for qid, answer in result.run.answers.items():
            if answer.error is not None:
                print(f"gerbil-qa: question {qid}: {answer.error}", file=sys.stderr)
        for problem in result.run.problems:  # the answers file keeps none of them
            print(f"gerbil-qa: {problem}", file=sys.stderr)
        mean = f"{result.mean_runtime_ms:.1f} ms" if result.mean_runtime_ms is not None else "n/a"
        # questions never asked (after an abort) are counted apart from the calls that failed;
        # retried ones too, as retries hide a service's failures from the failed count
        print(
            f"{service.system}: {total} questions"
            + (f" in {language}" if len(languages) > 1 else "")
            + f": {result.calls} asked, {result.errors} failed, "
            f"{total - result.calls} never asked, {result.retried} retried; mean runtime {mean} "
            "per question answered, retries included"
            # the rule's count when it tripped, and the failed count above with the calls then
            # in flight: two counts said apart ("15 failed … aborted: 14 of 50 questions
            # failed" read as a contradiction, explore41 F4), as the web runner's note says it
            + (
                f"; aborted by the error-rate rule when {result.aborted}: in all, with the "
                f"calls in flight when it stopped, {result.errors} failed"
                if result.aborted
                else ""
            )
        )
    if args.output is not None:
        fmt = QUERY_FORMAT if args.interface == "text2sparql" else None  # QALD-JSON or eQALD
        from service.cli.output import write_output

        said = write_output(args.output, answer_file_in(runs, dataset, format=fmt))
        print(f"answer file written to {said}")
    return 1 if aborted else 0


def _max_error_rate(args: argparse.Namespace) -> float:
    """``--max-error-rate``, else 1 for a Text2SPARQL service (TEXT2SPARQL'25 asked every
    question, each failure scored 0), else GERBIL's 0.25."""
    from service.call_settings import text2sparql_run

    if args.max_error_rate is not None:
        return float(args.max_error_rate)
    if text2sparql_run("", [args]):  # args.interface
        return TEXT2SPARQL_MAX_ERROR_RATE
    return CALLED["maxErrorRate"].default


def _run_languages(text: str, dataset: Any, *, text2sparql: bool) -> tuple[str, ...]:
    """``--lang`` of ``system run``: languages the dataset has questions in (``en,es`` or
    ``all`` for a Text2SPARQL service, whose answers file keeps each). Before, ``en,es`` and a
    language the dataset lacks asked nothing and wrote an empty answer file, exit code 0."""
    from service.evaluation.languages import parse_languages

    held = tuple(dict.fromkeys(lang for q in dataset.questions for lang in q.languages))
    wanted = parse_languages(text)
    languages = held if wanted == ("all",) else wanted
    lacking = [lang for lang in languages if lang not in held]
    if lacking:
        raise BadRequest(
            f"--lang {text}: the dataset has no question in {', '.join(lacking)}; its "
            f"languages: {', '.join(held) or 'none'}"
        )
    if len(languages) > 1 and not text2sparql:
        raise BadRequest(
            f"--lang {text}: a QA web service's answer file holds one language; run it once "
            "per language (a Text2SPARQL service's answers keep several)"
        )
    return languages


def _refresh(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from service import formats
    from service.formats.text2sparql import prefix_environment
    from service.kb.executor import ExecutionLimits, SparqlExecutor
    from service.systems.refresh import default_output, diff_text, refresh_gold, write_refresh

    path = Path(args.name)
    if path.exists():
        dataset = formats.read(path)
    else:
        from service import catalog

        dataset = catalog.load(args.name)  # NotFound names `gerbil-qa datasets`
        # its provenance and default output name come from the file itself, not its shown name
        entry = catalog.get_entry(args.name)
        dataset = replace(dataset, source=str(catalog.resolve(entry.questions_file)))
    limits = ExecutionLimits(timeout=args.timeout, max_results=args.max_results)
    kb = _refresh_kb(args, is_file=path.exists())
    with SparqlExecutor(
        kb, prefixes=prefix_environment(dataset), limits=limits, version=args.kb_version
    ) as executor:
        result = refresh_gold(dataset, executor)
    store = _store_dir(args) if args.store is not None else None
    directory = store / "datasets" if store is not None else Path.cwd()
    output = args.output or default_output(
        dataset.source, when=datetime.now(UTC), directory=directory
    )
    fmt = dataset.format if dataset.format in ("qald-json", "eqald-json", "qald-xml") else None
    new_file, sidecar = write_refresh(result, output, format=fmt or "qald-json")
    if store is not None:  # the store's catalogue gets the version, with its PROV and its file
        import hashlib

        from service.experiments.kept import keep

        data = Path(new_file).read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        keep(_jobs(args).workspace, sha, data)  # experiments run the version by name from here
        try:
            version = _register_refresh(
                result,
                args.store,
                source=args.name,
                file_sha256=sha,
                file_size=len(data),
                file_media_type="application/xml" if fmt == "qald-xml" else "application/json",
            )
        except BaseException:
            if args.output is None:  # written into the store's folder for this version only
                for written in (new_file, sidecar):
                    Path(written).unlink(missing_ok=True)
            raise
        print(f"registered version: {version.uri}")
        if not result.changed:  # registered all the same: it says on which KB the gold holds
            print(
                f"  no question's gold changed on {result.kb}: the version records that this "
                "gold holds there (its KB and version, when it was checked), which a run on "
                "it cites; a run on the dataset itself scores the same"
            )
    print(diff_text(result, limit=args.show))
    print(f"new version: {new_file} (provenance: {sidecar})")
    return 0


def _refresh_kb(args: argparse.Namespace, *, is_file: bool) -> str | list[str]:
    """The KB ``--kb`` names, else a built-in dataset's own (its KB files, or its endpoint)."""
    specs = [str(s) for s in args.kb or ()]
    if not specs and not is_file:
        from service import catalog

        entry = catalog.get_entry(args.name)
        specs = [str(p) for p in catalog.kb_files(args.name)]
        if not specs and entry.sparql_endpoint:
            specs = [entry.sparql_endpoint]
    if not specs:
        raise BadRequest(
            "no KB: give --kb (RDF files or a SPARQL endpoint URL); only a built-in dataset "
            "that names its own KB needs none"
        )
    if len(specs) == 1 and specs[0].startswith(("http://", "https://")):
        return specs[0]
    return specs


def _register_refresh(
    refresh: Any,
    store: str,
    *,
    source: str,
    file_sha256: str | None = None,
    file_size: int | None = None,
    file_media_type: str = "application/json",
) -> Any:
    """Register a refreshed dataset as a new version in the store's catalogue. ``source`` is
    what was refreshed: a catalogue dataset's name, or a file (the catalogue dataset whose
    checksum it has; else named like an uploaded dataset)."""
    from service import catalog
    from service.graph.results import uploaded_dataset_name
    from service.graph.store import open_storage
    from service.systems.refresh import summary

    path = Path(source)
    with open_storage(store, base=None) as storage:
        if path.is_file():
            sha = catalog.sha256_of(path)
            entry = catalog.find_by_sha256(sha)
            # a published upload of these bytes has its name (its hash may be longer than 8)
            published = storage.catalogue.upload_for_sha256(sha)
            name = (
                entry.name
                if entry
                else published[0]
                if published
                else uploaded_dataset_name(path.name.split(".")[0], sha)
            )
        else:
            name = catalog.get_entry(source).name
        return storage.catalogue.register_version(
            name,
            refresh.dataset,
            kb=refresh.kb_identity or refresh.kb,
            kb_version=refresh.kb_version,
            started=refresh.started,
            ended=refresh.ended,
            summary=summary(refresh),
            file_sha256=file_sha256,
            file_size=file_size,
            file_media_type=file_media_type,
        )


def _jobs(args: argparse.Namespace) -> Any:
    """The store's jobs (a ``JobStore``), reachable while a service process holds an embedded
    store open."""
    from service.experiments.jobs import JobStore
    from service.graph.store import check_location, workspace_at

    return JobStore(workspace_at(check_location(args.store) or "."))


def _store_dir(args: argparse.Namespace) -> Path:
    """The directory of the store's jobs and files (a remote store's work directory)."""
    from service.graph.store import check_location, work_dir_of

    return work_dir_of(check_location(args.store) or ".")


def _open_store(args: argparse.Namespace) -> Any:
    from service.graph.store import open_storage

    return open_storage(args.store, base=args.base)


def _resume(args: argparse.Namespace) -> int:
    from service.experiments.runner import ExperimentRunner

    with _open_store(args) as storage:
        runner = ExperimentRunner(storage, workers=1, policy=_policy(args.allow))
        try:
            spec = runner.resume(args.id, timeout=args.timeout)
            print(f"resuming experiment {args.id} ({len(spec.systems)} systems)", file=sys.stderr)
            runner.wait(args.id)
        finally:
            runner.close()
        status = storage.experiments.status(args.id)
    print(
        f"experiment {args.id}: {status.status}"
        + (f" ({status.message})" if status.message else "")
    )
    return 0 if status.status == "finished" else 1


def _cancel(args: argparse.Namespace) -> int:
    jobs = _jobs(args)
    try:
        storage = _open_store(args)
    except ServiceError as err:
        if jobs.has(args.id):  # the store is a running service's: it sees the request
            jobs.request_cancel(args.id)
            print(f"cancellation of {args.id} requested; the running service stops it ({err})")
            return 0
        raise
    with storage:
        # the status before the request: once asked, a running service may end the run before
        # it is read again ("was cancelled: nothing to cancel" for a cancel that was taken)
        status = storage.experiments.status(args.id)
        if status.status not in ("reserved", "queued", "interrupted", "running"):
            print(f"experiment {args.id} {status.status.said}: nothing to cancel", file=sys.stderr)
            return 1
        if jobs.has(args.id):
            jobs.request_cancel(args.id)  # a service process running the job sees this and stops
        if status.status != "running":
            storage.experiments.set_status(
                args.id, "cancelled", message="cancelled from the command line"
            )
            status = storage.experiments.status(args.id)
    if status.status == "running":  # "running" alone read as if the cancel had not been taken
        print(f"cancellation of {args.id} requested; the running service stops it")
        return 0
    print(f"experiment {args.id}: {status.status}")
    return 0


def _experiments(args: argparse.Namespace) -> int:
    from service.experiments.overview import operator_rows
    from service.graph.snapshots import consistent_storage

    with consistent_storage(args.store, base=args.base) as storage:
        every = operator_rows(storage)
        datasets = storage.uris.dataset("")
    rows = [
        row
        for row in every
        if (not args.status or row["status"] == args.status)
        and not (args.public and not row["public"])
        and not (args.private and row["public"])
    ]
    for row in rows:
        if args.output == "json":
            print(json.dumps(row, ensure_ascii=False))
            continue
        shown = "withdrawn" if "withdrawnAt" in row else "public" if row["public"] else "private"
        systems = f" ({', '.join(row['systems'])})" if row["systems"] else ""
        recorded_name = (row["datasetUri"] or "").removeprefix(datasets)
        what = f"{recorded_name or row['dataset'] or ''}{systems}"
        print(f"{row['id']}  {row['status']:<11} {shown:<9}  {row['created'] or '':<24}  {what}")
    print(f"{len(rows)} experiment(s)", file=sys.stderr)
    return 0


def _progress(args: argparse.Namespace) -> int:
    jobs = _jobs(args)
    live = jobs.progress(args.id) if jobs.has(args.id) else None
    if live is not None and live.phase == "recording":
        # its one write holds the store (a snapshot waited for it: 9 s at 2,000 questions,
        # explore-20 13): said from the job's own progress, as the API says it
        import time

        print(f"experiment {args.id}: running")
        print(f"  progress: {live.text()}")
        _, left = live.timing(time.time())
        if left is not None:
            print(f"  about {left:.0f} s left")
    else:
        _stored_progress(args, jobs)
    if jobs.has(args.id):
        spec = jobs.spec(args.id)
        progress = jobs.progress(args.id)
        known = progress.systems if progress is not None else ()
        for index, system in enumerate(spec.systems):
            total = known[index].total if index < len(known) else 0
            # the answer log is what survives a kill; answer files have nothing to ask
            done = total if system.from_files else jobs.answered(args.id, index)
            errors = known[index].errors if index < len(known) else 0
            shown = f"{done}/{total}" if total else f"{done}"
            extra = f", {errors} error{'' if errors == 1 else 's'}" if errors else ""
            print(f"  {system.name}: {shown} questions{extra}")
    return 0


def _stored_progress(args: argparse.Namespace, jobs: Any) -> None:
    """The status the store says (while a service runs it, from a snapshot it takes)."""
    from service.graph.snapshots import consistent_storage

    try:
        with consistent_storage(args.store, base=args.base) as storage:
            status = storage.experiments.status(args.id)
            print(f"experiment {args.id}: {status.status}")
            # the stored progress is the phase a run was in: an ended run's is where it stopped
            progress = status.progress if status.status.active else None
            for label, value in (("message", status.message), ("progress", progress)):
                if value:
                    print(f"  {label}: {value}")
    except ServiceError as err:
        if not jobs.has(args.id):
            raise
        print(f"experiment {args.id}: the store is in use by another process ({err})")
