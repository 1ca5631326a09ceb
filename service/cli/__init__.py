"""The ``gerbil-qa`` command line: one module per area registers its subcommands.

Command modules must stay cheap to import (import heavy libraries inside the handlers):
``gerbil-qa evaluate`` is measured against the start-up time of ``import rdflib``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from service import __version__
from service.errors import FormatError, ServiceError

# Each module defines ``register(subparsers)``; its handlers return an exit code.
COMMAND_MODULES: tuple[str, ...] = (
    "service.cli.systems",
    "service.cli.formats",
    "service.cli.evaluate",
    "service.cli.graph",
    "service.cli.web",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gerbil-qa", description="Benchmark question answering systems (GERBIL QA)."
    )
    parser.add_argument("--version", action="version", version=f"gerbil-qa {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except FormatError as err:
        for problem in err.problems:
            print(f"gerbil-qa: {problem}", file=sys.stderr)
        return 1
    except ServiceError as err:
        print(f"gerbil-qa: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
