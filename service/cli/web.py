"""``gerbil-qa serve`` (the web service on waitress), ``gerbil-qa publish``, ``delete`` and
``withdraw`` (the operator publishes, deletes or withdraws an experiment from the command
line), ``leaderboard list|remove`` (the operator's frozen leaderboards)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from service.cli import add_store_option, while_served


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="run the web service (URIs, SPARQL endpoint, JSON API)",
        description=(
            "Serve the store over HTTP with waitress: experiment URIs by content negotiation, "
            "the public SPARQL endpoint and the JSON API. Settings not given here come from "
            "GERBIL_QA_* environment variables (GERBIL_QA_BASE, GERBIL_QA_SPARQL_TIMEOUT, "
            "GERBIL_QA_SPARQL_WORKERS, GERBIL_QA_CONNECTION_LIMIT, GERBIL_QA_CHANNEL_TIMEOUT, "
            "GERBIL_QA_ADMIN_TOKEN, GERBIL_QA_KBS, …). Catalogue datasets' files are read "
            "from GERBIL_QA_DATA (a copy of the benchmark data; default ../shared/data "
            "where it exists), else downloaded: offline, set it. At first start "
            "the service computes and publishes the demo experiment (datasets/demo)."
        ),
    )
    add_store_option(serve, required=False, what="default $GERBIL_QA_STORE")
    serve.add_argument("--host", help="interface to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (8080)")
    serve.add_argument(
        "--base",
        metavar="URI",
        help="base of every URI; a store keeps the one it was made with (default: the store's; "
        "a new store's http://localhost:PORT/): a store `evaluate --store` made without "
        "--base is under http://localhost:8080/, whatever --port serves it",
    )
    serve.add_argument("--threads", type=int, help="HTTP worker threads (8)")
    serve.add_argument(
        "--connection-limit",
        type=int,
        metavar="N",
        help="open connections accepted at once (1000); more wait for one to close",
    )
    serve.add_argument(
        "--channel-timeout",
        type=int,
        metavar="S",
        help="close a connection after S seconds without traffic (30): idle keep-alive "
        "sockets, half-sent requests",
    )
    serve.add_argument(
        "--url-prefix",
        default="",
        metavar="PATH",
        help="path the service is mounted under behind a proxy (e.g. /gerbil)",
    )
    serve.add_argument("--no-demo", action="store_true", help="do not compute the demo experiment")
    serve.add_argument(
        "--access-log",
        action="store_true",
        help="log one line per request (client, method, path with owner tokens blanked, "
        "status, bytes, ms); also GERBIL_QA_ACCESS_LOG=1",
    )
    serve.add_argument(
        "--no-resume",
        action="store_true",
        help="leave the runs a shutdown or crash interrupted as they are (default: queue them "
        "again at start; GERBIL_QA_RESUME_RUNS=0)",
    )
    serve.set_defaults(handler=_serve)

    publish = subparsers.add_parser(
        "publish",
        help="publish an experiment (the operator; no token needed)",
        description="Make a finished experiment public, as its owner would through the API.",
    )
    add_store_option(publish, required=True)
    publish.add_argument("id", help="experiment id (yyyyMMdd + 4 digits)")
    publish.add_argument("--base", metavar="URI", help="base URI (default: the store's)")
    publish.add_argument(
        "--paper",
        action="append",
        default=[],
        metavar="DOI|URL",
        help="link a paper citing the experiment (dct:isReferencedBy); repeatable; an already "
        "published experiment just gets the link",
    )
    publish.set_defaults(handler=_publish)
    while_served(publish, "publish through its API: `POST /api/experiments/{id}/publish`")

    delete = subparsers.add_parser(
        "delete",
        help="delete an unpublished experiment (the operator; no token needed)",
        description="Delete an unpublished experiment that is not running, as its owner would "
        "through the API: its graph, its admin record and owner token, its job, its archived "
        "answers and the kept files no one else uses. A published experiment stays (its URI "
        "is cited): re-score it into a corrected revision instead.",
    )
    add_store_option(delete, required=True)
    delete.add_argument("id", help="experiment id (yyyyMMdd + 4 digits)")
    delete.set_defaults(handler=_delete)
    while_served(delete, "delete through its API: `DELETE /api/experiments/{id}`")

    withdraw = subparsers.add_parser(
        "withdraw",
        help="withdraw a published experiment (the operator; no token needed)",
        description="Withdraw a published experiment, as its owner would through the API: it "
        "leaves every leaderboard, listing and comparison and the public default graph; its "
        "URI keeps resolving, with its results and the date and reason of the withdrawal. "
        "For good. An unpublished experiment is deleted instead.",
    )
    add_store_option(withdraw, required=True)
    withdraw.add_argument("id", help="experiment id (yyyyMMdd + 4 digits)")
    withdraw.add_argument(
        "--reason", required=True, help="why (shown with the experiment; at most 2,000 characters)"
    )
    withdraw.set_defaults(handler=_withdraw)
    while_served(
        withdraw,
        'withdraw through its API: `POST /api/experiments/{id}/withdraw` with {{"reason": …}}',
    )

    leaderboard = subparsers.add_parser(
        "leaderboard",
        help="list or remove frozen leaderboards (the operator; no token needed)",
        description="The frozen leaderboards of a store: list them, or remove one (spam, an "
        "offensive title: anyone may freeze on the web, and the first title of a state is "
        "kept). A removed one's URI answers 410 Gone, saying when (an id never frozen is "
        "404); freezing the same standings makes it anew. "
        "On a running service with the embedded store, use DELETE /api/leaderboards/{id} with "
        "the admin token instead (the store is the server's).",
    )
    commands = leaderboard.add_subparsers(
        dest="leaderboard_command", required=True, metavar="COMMAND"
    )
    listed = commands.add_parser("list", help="every frozen leaderboard, newest first")
    add_store_option(listed, required=True)
    listed.set_defaults(handler=_leaderboards)
    removed = commands.add_parser("remove", help="remove a frozen leaderboard")
    add_store_option(removed, required=True)
    removed.add_argument("id", help="the frozen leaderboard's id (16 hex digits)")
    removed.set_defaults(handler=_remove_leaderboard)
    while_served(removed, "remove it through its API: `DELETE /api/leaderboards/{id}`")


def _serve(args: argparse.Namespace) -> int:
    import dataclasses
    import logging
    import signal

    from service.web import close_app, create_app
    from service.web.config import ENV_PREFIX, check_bounds, load_config
    from service.web.serving import (
        bind_sockets,
        create_server,
        preload_page_modules,
        raise_open_files_limit,
    )

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    config = load_config({"demo": True})
    explicit = {
        k: v
        for k, v in {
            "store": _directory(args.store),
            "host": args.host,
            "port": args.port,
            "base": args.base,
            "threads": args.threads,
            "connection_limit": args.connection_limit,
            "channel_timeout": args.channel_timeout,
        }.items()
        if v is not None
    }
    if args.no_demo:
        explicit["demo"] = False
    if args.no_resume:
        explicit["resume_runs"] = False
    if args.access_log:
        explicit["access_log"] = True
    # --port 99999 was announced and listened nowhere; named as given (explore49 F10)
    check_bounds(explicit, {k: f"{k} (--{k.replace('_', '-')})" for k in explicit})
    config = dataclasses.replace(config, **explicit)
    if config.store is None:
        print("gerbil-qa serve: give --store DIR (or set GERBIL_QA_STORE)")
        return 2
    # before the store is opened (RocksDB needs 96 files) and any page's first import
    raise_open_files_limit(config)
    preload_page_modules()
    if args.base is None and ENV_PREFIX + "BASE" not in os.environ:
        from service.graph.store import stored_base

        base = stored_base(config.store) or f"http://localhost:{config.port}/"
        config = dataclasses.replace(config, base=base)
    if not config.base.endswith("/"):
        config = dataclasses.replace(config, base=config.base + "/")
    # the address first: a port in use is said before a store is made for it (with its base)
    sockets = bind_sockets(config)
    try:
        app = create_app(config)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise

    log = logging.getLogger("service.serve")
    why = ["interrupted"]
    stopping: list[int] = []  # the signal that started the shutdown, once it has

    def stop(signum: int, frame: object) -> None:  # leave through the finally below
        if stopping:  # again (a watchdog, a repeated stop): raised in the finally, it cut the
            # hand-over short, and the interpreter's exit broke the runs (explore46 9)
            log.info("already shutting down (%s)", signal_again(signum, stopping))
            stopping.append(signum)
            return
        stopping.append(signum)
        why[0] = f"signal {signal.Signals(signum).name}"
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    # Ctrl-C as SIGTERM: the first stops, later ones are said and ignored (a second one cut
    # the shutdown short, exit 130 and no "stopped"; explore49 F4); left ignored if it was
    # SIGHUP (the terminal closed, a rotation tool's reload) likewise: it killed serve at
    # once, no "stopped", runs cut instead of handed over (explore57 F2); `nohup` ignores it
    hangup = getattr(signal, "SIGHUP", None)  # not on Windows
    for number in (signal.SIGINT, hangup):
        if number is not None and signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, stop)
    server = None
    try:
        server = create_server(app, config, sockets, url_prefix=args.url_prefix)
        from service.graph.remote import without_credentials

        store = without_credentials(str(config.store), {})  # a remote URL's password: never
        where = served_at(config.host, config.port, args.url_prefix)
        print(f"GERBIL QA serving {store} on {where} ", flush=True)
        print(f"  URIs under {config.base}; SPARQL endpoint {config.base}sparql", flush=True)
        elsewhere = base_elsewhere(
            config.base, config.port, store=store if config.store is not None else "DIR"
        )
        if elsewhere:
            print(f"  note: {elsewhere}", flush=True)
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        stopping.append(0)  # a SIGTERM from here on leaves the shutdown to finish
        # a clean stop said in the log, told from a crash (which leaves nothing; explore26 F7)
        log.info("shutting down (%s)", why[0])
        if server is not None:
            server.close()
        close_app(app)
        log.info("stopped")
        # and while the interpreter exits, which puts a handler of ours back to the default:
        # a second Ctrl-C then killed serve with 130 after it had stopped cleanly
        for number in (signal.SIGINT, signal.SIGTERM, hangup):
            if number is not None:
                signal.signal(number, signal.SIG_IGN)
    return 0


def signal_again(signum: int, stopping: list[int]) -> str:
    """How a stop signal that came while ``serve`` shuts down is logged: ``signal SIGTERM
    again`` for one that came before, else ``signal SIGINT after SIGTERM`` (the one that began
    the shutdown; 0: none, it began otherwise). A different one was said "SIGINT again"
    (explore66 F11)."""
    import signal

    name = signal.Signals(signum).name
    if signum in stopping:
        return f"signal {name} again"
    first = stopping[0] if stopping else 0
    return f"signal {name} after {signal.Signals(first).name}" if first else f"signal {name}"


def served_at(host: str, port: int, url_prefix: str = "") -> str:
    """Where ``serve`` answers: its address and the path it is mounted at (``--url-prefix``,
    which the first line left out: explore40 10)."""
    prefix = url_prefix.strip("/")
    named = f"[{host}]" if ":" in host else host
    return f"http://{named}:{port}/" + (f"{prefix}/" if prefix else "")


def base_elsewhere(base: str, port: int, *, store: str = "DIR") -> str | None:
    """What ``serve`` says when the store's base is a loopback address on another port than
    the one it serves: every link its pages give (an owner link, "Watch it run", a download)
    leads there, where nothing answers (explore32 2). A store keeps the base it was made with
    (its URIs are in its graphs), so it is said, with the two ways out, not changed. ``store``
    is named as it was given (a remote store's URL, its password left out), and the base it
    suggests keeps the base's host (127.0.0.1 stays 127.0.0.1; explore37 5), its scheme and
    its path (a loopback base under ``/gerbil/`` was not said at all, and https and the path
    were left out of the suggestion: explore40 10)."""
    from urllib.parse import urlsplit

    parts = urlsplit(base)
    host = (parts.hostname or "").lower()
    if host not in ("localhost", "127.0.0.1", "::1"):
        return None  # a public base: a proxy in front of this port, as deployed
    said = parts.port or (443 if parts.scheme == "https" else 80)
    if said == port:
        return None
    named = f"[{host}]" if ":" in host else host
    path = parts.path.rstrip("/")
    mounted = f" --url-prefix {path}" if path else ""
    remote = store.startswith(("http://", "https://"))
    replicas = (
        " (replicas of a remote store serve one base behind a proxy: there this note is expected)"
        if remote
        else ""
    )
    # why a directory's base is localhost:8080, only where that is the case: a replica's
    # operator was sent to `evaluate --store` for a remote store `serve` made (explore65 F9)
    made = (
        ": `evaluate --store` without --base makes http://localhost:8080/"
        if not remote and base == "http://localhost:8080/"
        else ""
    )
    return (
        f"this store's URIs are under {base} (the base it was made with{made}), not port "
        f"{port}: the links its pages "
        f'give (owner links, "Watch it run", downloads) lead to port {said}. Serve it with '
        f"--port {said}{mounted}, or move it: gerbil-qa export --store {store} --files "
        f"--output FILE, then gerbil-qa import --store NEW --base "
        f"{parts.scheme or 'http'}://{named}:{port}{parts.path or '/'} --rebase FILE{replicas}"
    )


def _publish(args: argparse.Namespace) -> int:
    from service.experiments.rescore import (
        check_publishable,
        name_in_use_note,
        names_in_use,
        own_system_names,
        publish_checked,
    )

    with _operated(args.store, "publish", base=args.base) as storage:
        if storage is None:
            return 1
        experiments = storage.experiments
        status = experiments.status(args.id)
        if status.withdrawn_at is not None and not args.paper:
            experiments.refuse_withdrawn(args.id)
        if status.withdrawn_at is None:  # before any paper is linked: all or nothing (and
            check_publishable(storage, args.id)  # again as it is published)
        papers = [experiments.attach_paper(args.id, reference) for reference in args.paper]
        if status.withdrawn_at is None:
            status = publish_checked(storage, args.id)
            print(f"published {status.id}: {status.uri} ({status.published_at})")
            shared = names_in_use(storage, args.id)
            own = own_system_names(storage, args.id) if shared else ()
            if note := name_in_use_note(shared, own=own):
                print(f"note: {note}", file=sys.stderr)
        else:  # a paper may still cite it: linked, and the experiment stays out of listings
            print(f"withdrawn {status.id}: {status.uri} ({status.withdrawn_at}); stays withdrawn")
    for paper in papers:
        print(f"  referenced by {paper}")
    return 0


def _delete(args: argparse.Namespace) -> int:
    from service.experiments.deletion import delete_experiment

    with _operated(args.store, "delete") as storage:
        if storage is None:
            return 1
        delete_experiment(storage, args.id)
    print(f"deleted {args.id}")
    return 0


def _withdraw(args: argparse.Namespace) -> int:
    with _operated(args.store, "withdraw") as storage:
        if storage is None:
            return 1
        from service.experiments.dataset_checks import after_withdrawal

        status = storage.experiments.withdraw(args.id, args.reason)
        after_withdrawal(storage, args.id)
    print(f"withdrawn {status.id}: {status.uri} ({status.withdrawn_at})")
    return 0


def _leaderboards(args: argparse.Namespace) -> int:
    from service.graph import leaderboards
    from service.graph.snapshots import consistent_storage

    store = _existing_store(args.store, "leaderboard list")
    if store is None:
        return 1
    # it only reads: from a checkpoint while a serve holds the store, as `experiments`
    with consistent_storage(store) as storage:
        rows = leaderboards.listing(storage)
    for row in rows:
        print(f"{row['id']}  {row['frozenAt'][:19]}  {row['title']}")
    # on stderr, as `experiments` counts its rows: none printed nothing at all (explore51 F7)
    said = f"{len(rows)} frozen leaderboard(s)" if rows else "no frozen leaderboards"
    print(said, file=sys.stderr)
    return 0


def _remove_leaderboard(args: argparse.Namespace) -> int:
    from service.graph import leaderboards

    with _operated(args.store, "leaderboard remove") as storage:
        if storage is None:
            return 1
        uri = storage.uris.leaderboard(args.id)
        if not leaderboards.remove(storage, args.id):
            print(f"gerbil-qa leaderboard remove: no frozen leaderboard {args.id} in {args.store}")
            return 1
    print(f"removed {args.id}: {uri}")
    return 0


@contextmanager
def _operated(location: str, command: str, *, base: str | None = None) -> Iterator[Any]:
    """The storage an operator's command acts on (its own base unless ``base``), or None,
    said, when there is no store at ``location`` (the command must not make one)."""
    from service.graph.store import open_storage

    store = _existing_store(location, command)
    if store is None:
        yield None
        return
    with open_storage(store, base=base, catalog=False) as storage:
        yield storage


def _existing_store(location: str, command: str) -> Path | str | None:
    """The store an operator's command acts on; None, said, when there is none at
    ``location`` (the command must not make one)."""
    store = _directory(location)
    if store is None or (isinstance(store, Path) and not (store / "private").is_dir()):
        print(f"gerbil-qa {command}: no store at {location}")
        return None
    return store


def _directory(location: str | None) -> Path | str | None:
    from service.graph.store import check_location

    return check_location(location)  # a directory, or a remote store's URL
