"""``python -m service.contracts write|check``: write the generated contracts, or check them."""

from __future__ import annotations

import argparse
import sys

from service.contracts import check, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.contracts",
        description="Generate the contracts (vocabulary, shapes) from the registries.",
    )
    parser.add_argument(
        "action",
        choices=("write", "check"),
        help="write: regenerate the files; check: exit 1 when a committed file is stale",
    )
    args = parser.parse_args(argv)
    if args.action == "write":
        for path in write():
            print(f"wrote {path}")
        return 0
    stale = check()
    for path, diff in stale.items():
        sys.stdout.write(diff)
        print(f"{path} differs from the registries: run `make contracts`", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
