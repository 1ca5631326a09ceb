"""The ``gerbil-qa`` command line: one module per area registers its subcommands.

Command modules must stay cheap to import (import heavy libraries inside the handlers):
``gerbil-qa evaluate`` is measured against the start-up time of ``import rdflib``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from service.errors import FormatError, ServiceError

# Each module defines ``register(subparsers)``; its handlers return an exit code.
COMMAND_MODULES: tuple[str, ...] = (
    "service.cli.systems",
    "service.cli.formats",
    "service.cli.evaluate",
    "service.cli.compare",
    "service.cli.graph",
    "service.cli.web",
)

# Which modules register each top-level command, so a run imports only what it needs
# (tests/unit/test_cli.py keeps this table equal to what the modules really register).
COMMANDS: dict[str, tuple[str, ...]] = {
    "evaluate": ("service.cli.evaluate",),
    "profiles": ("service.cli.evaluate",),
    "compare": ("service.cli.compare",),
    "validate": ("service.cli.formats",),
    "convert": ("service.cli.formats",),
    "export": ("service.cli.graph",),
    "import": ("service.cli.graph",),
    "check": ("service.cli.graph",),
    "upgrade": ("service.cli.graph",),
    "rescore": ("service.cli.graph",),
    "datasets": ("service.cli.graph",),
    "dataset": ("service.cli.graph", "service.cli.systems"),
    "system": ("service.cli.systems",),
    "resume": ("service.cli.systems",),
    "cancel": ("service.cli.systems",),
    "progress": ("service.cli.systems",),
    "experiments": ("service.cli.systems",),
    "serve": ("service.cli.web",),
    "publish": ("service.cli.web",),
    "delete": ("service.cli.web",),
    "withdraw": ("service.cli.web",),
    "leaderboard": ("service.cli.web",),
}


STORE_HELP = (
    "the store: a directory (the embedded Oxigraph store, created if missing) or the http(s) "
    "URL of a remote SPARQL store (its private twin in $GERBIL_QA_PRIVATE_STORE)"
)


def add_store_option(parser: argparse.ArgumentParser, *, required: bool, what: str = "") -> None:
    """``--store DIR|URL``, the same for every command (``what``: what the command does there)."""
    parser.add_argument(
        "--store",
        required=required,
        metavar="DIR|URL",
        help=STORE_HELP + (f"; {what}" if what else ""),
    )


def while_served(parser: argparse.ArgumentParser, call: str, *, admin: bool = True) -> None:
    """What a command that writes the store does through the service's API while ``serve``
    holds its embedded store (one process's at a time): said when it is refused so. ``call``
    is filled from the command's arguments; ``admin``: with the operator's token, which owns
    every experiment. Before, the refusal named the holder and no way on."""
    if admin:
        call += " with `Authorization: Bearer $GERBIL_QA_ADMIN_TOKEN` (the operator's token)"
    parser.set_defaults(while_served=call)


def _while_served(err: ServiceError, args: argparse.Namespace) -> str:
    call = getattr(args, "while_served", None)
    if not call:
        return ""
    from service.graph.embedded import StoreBusy

    if not isinstance(err, StoreBusy):
        return ""
    return "; while it serves, " + call.format(**vars(args))


# The format readers' limits (service/formats/base.py reads these variables; the options
# below set them for one command, so every file the command reads is held to them): the
# option's variable and what it refuses, with the built-in default.
LIMIT_OPTIONS: dict[str, tuple[str, str]] = {
    "max_answers_per_question": (
        "GERBIL_QA_MAX_ANSWERS_PER_QUESTION",
        "a file with more than N answers per question (default: ${}, else 100,000)",
    ),
    "max_answers_per_file": (
        "GERBIL_QA_MAX_ANSWERS_PER_FILE",
        "a file with more than N answers in all (default: ${}, else 2,000,000)",
    ),
    "max_questions_per_file": (
        "GERBIL_QA_MAX_QUESTIONS_PER_FILE",
        "a file with more than N questions (default: ${}, else 20,000)",
    ),
}


def language_tag(text: str) -> str:
    """A ``--lang`` value as BCP 47 recommends writing it (``EN`` -> ``en``); imported when
    an option is read, so that ``--help`` stays light."""
    from service.evaluation.languages import canonical_tag

    return canonical_tag(text)


def _limit(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, got {text!r}")
    return value


def add_limits(parser: argparse.ArgumentParser) -> None:
    """``--max-answers-per-question N``, ``--max-answers-per-file N`` and
    ``--max-questions-per-file N`` (default: the environment variables, else the built-in
    limits): a file past one is refused."""
    for dest, (env, refused) in LIMIT_OPTIONS.items():
        parser.add_argument(
            "--" + dest.replace("_", "-"),
            dest=dest,
            type=_limit,
            metavar="N",
            help="refuse " + refused.format(env),
        )


def _with_limits(args: argparse.Namespace) -> dict[str, str | None]:
    """Set the limit variables the options give; what they were, to restore."""
    import os

    before: dict[str, str | None] = {}
    for dest, (env, _) in LIMIT_OPTIONS.items():
        value = getattr(args, dest, None)
        if value is not None:
            from service.formats.base import LIMIT_SET_BY

            before[env] = os.environ.get(env)
            os.environ[env] = str(value)
            LIMIT_SET_BY[env] = "--" + dest.replace("_", "-")  # the refusal names the option
    return before


def _restore(before: dict[str, str | None]) -> None:
    import os

    if before:
        from service.formats.base import LIMIT_SET_BY

        for env in before:
            LIMIT_SET_BY.pop(env, None)
    for env, value in before.items():
        if value is None:
            os.environ.pop(env, None)
        else:
            os.environ[env] = value


def _command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names (its first word that is not an option), if any."""
    return next((a for a in argv if not a.startswith("-")), None)


def _modules_for(argv: Sequence[str]) -> tuple[str, ...]:
    """The command modules needed to parse ``argv``: all of them for help or a typo."""
    return COMMANDS.get(_command(argv) or "", COMMAND_MODULES)


class _Version(argparse.Action):
    """``--version``: the version an experiment records, asked only when printed (it may run
    git, which every other command's start-up should not pay for)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from service.release import source

        parser.exit(message=f"gerbil-qa {source().version}\n")


class _HelpWithDefaults(argparse.HelpFormatter):
    """Each option's help ends with its default, where it has one worth saying (not None, a
    flag's False or an empty list) and the help does not say it already: the defaults were in
    the code alone (explore39 F6)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        default = action.default
        if (
            text
            and action.option_strings
            and "%(default)" not in text
            and "default" not in text
            and default not in (None, False, argparse.SUPPRESS)
            and default not in ([], "")
        ):
            text += " (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """Every command's parser: subcommands are made of the same class (argparse's
    ``add_parser`` makes its parser's class), so each says its defaults."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpWithDefaults)
        super().__init__(*args, **kwargs)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser; given ``argv``, only the modules its command needs are imported."""
    parser = _Parser(
        prog="gerbil-qa", description="Benchmark question answering systems (GERBIL QA)."
    )
    parser.add_argument(
        "--version",
        action=_Version,
        help="print the version experiments record (the release and the commit) and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = COMMAND_MODULES if argv is None else _modules_for(argv)
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


# Commands that read, score and print, then return: they allocate many objects and make no
# reference cycles, so the cyclic collector is off while they run (each collection would walk
# every object again; after a run, two collections over its objects cost ~5 ms of a QALD-8
# ``evaluate``). Refcounting still frees everything.
COLLECTOR_OFF: frozenset[str] = frozenset({"evaluate"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; ``argv`` None: the process's own command line (the console script)."""
    own_process = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    paused = _command(argv) in COLLECTOR_OFF
    was_enabled = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _run(argv)
    finally:
        if paused:
            if own_process:
                # The process exits next: its last full collection need not walk every object
                # left (modules, caches; ~4 ms), which the exit frees anyway.
                gc.freeze()
            elif was_enabled:
                gc.enable()


def _run(argv: list[str]) -> int:
    args = build_parser(argv).parse_args(argv)
    from service.cli.settings import warn_unknown

    warn_unknown()  # a misspelt GERBIL_QA_* variable was silently ignored (explore50 F4)
    before = _with_limits(args)
    try:
        return int(args.handler(args) or 0)
    except FormatError as err:
        for problem in err.problems:
            print(f"gerbil-qa: {problem}", file=sys.stderr)
        return 1
    except ServiceError as err:
        print(f"gerbil-qa: {err}{_while_served(err, args)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as err:  # a full disk, too many open files: one line, not a traceback
        print(f"gerbil-qa: {os_error_line(err, args)}", file=sys.stderr)
        return 1
    finally:
        _restore(before)


def os_error_line(err: OSError, args: argparse.Namespace) -> str:
    """An OS error no command said itself, in one line: a full disk (a quota, a file-size
    limit) under ``--store`` as that (explore52 F1, F3: a traceback; ``serve`` wrote its
    settings into the log with it), else the file and what the system said."""
    from service.errors import REMEDY, os_error_said, room_errno, store_has_no_room

    store = getattr(args, "store", None)
    where = f"{err} {err.filename or ''}"
    code = room_errno(err)
    if code is not None and store is not None and str(store) in where:
        return str(store_has_no_room(err, store))
    if code is not None and err.errno is None:  # the store library's error: its text alone
        return f"{str(err).rstrip('. ')}: {REMEDY[code]}"
    said = os_error_said(err)
    if code is not None:
        said += f": {REMEDY[code]}"
    return f"{err.filename}: {said}" if err.filename else said


if __name__ == "__main__":
    sys.exit(main())
