"""The dispatcher imports only the command module(s) a command needs, and its table is true."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from service.cli import COMMAND_MODULES, COMMANDS, build_parser, main


def _registered(module: str) -> set[str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    importlib.import_module(module).register(sub)
    return set(sub.choices)


@pytest.mark.parametrize("module", COMMAND_MODULES)
def test_command_table_matches_what_each_module_registers(module: str) -> None:
    claimed = {cmd for cmd, modules in COMMANDS.items() if module in modules}
    assert _registered(module) == claimed


def test_every_table_entry_names_a_known_module() -> None:
    assert {m for modules in COMMANDS.values() for m in modules} == set(COMMAND_MODULES)


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert all(cmd in out for cmd in COMMANDS)


def test_parser_for_a_command_holds_only_that_area() -> None:
    parser = build_parser(["validate", "x.json"])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {"validate", "convert"}


def test_evaluate_does_not_import_other_areas() -> None:
    code = (
        "import sys\n"
        "from service.cli import build_parser\n"
        "build_parser(['evaluate', '--help-not-parsed'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('service.cli.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['service.cli.evaluate']"
