"""A misspelt ``GERBIL_QA_*`` variable was silently ignored: the operator believed an admin token
or a time limit set (explore50 F4). Every command warns, once per name, naming the nearest known
one, from the registry (``service/cli/settings.py``), which names every variable in use."""

from __future__ import annotations

import re

import pytest

from service.cli import main, settings
from service.cli.settings import known_settings, unknown_settings, warn_unknown
from service.paths import PROJECT_ROOT


def _used() -> set[str]:
    """Every ``GERBIL_QA_*`` name the code, the tests, the benchmarks and the Makefile write."""
    paths = [PROJECT_ROOT / "Makefile"]
    for folder in ("service", "tests", "bench", "scripts"):
        paths += [p for p in (PROJECT_ROOT / folder).rglob("*") if p.suffix in (".py", ".sh")]
    names: set[str] = set()
    for path in paths:
        if path.name == "test_settings_registry.py":  # the misspelt names below
            continue
        names |= set(re.findall(r"GERBIL_QA_[A-Z][A-Z_]*[A-Z]", path.read_text(encoding="utf-8")))
    return names


def test_every_variable_in_use_is_in_the_registry() -> None:
    known = known_settings()
    used = _used()
    # a name cut short in a pattern (`match=r"… GERBIL_QA_RUNNER_A"`) is the start of a known one
    unknown = sorted(n for n in used if n not in known and not any(k.startswith(n) for k in known))
    assert not unknown, f"in use but not declared in service/cli/settings.py: {unknown}"
    assert {"GERBIL_QA_DATA", "GERBIL_QA_ADMIN_TOKEN", "GERBIL_QA_SKIP"} <= known
    assert len(used) > 40  # the walk found them


def test_a_misspelt_variable_is_named_with_the_nearest_known_one() -> None:
    env = {
        "GERBIL_QA_ADMIN_TOKN": "x",
        "GERBIL_QA_SPARQL_TIMEOUTS": "abc",
        "GERBIL_QA_ZZZQQ": "1",
        "GERBIL_QA_DATA": "/data",
        "GERBIL_QA_SPARQL_TIMEOUT": "3",
        "PATH": "/bin",
    }
    assert unknown_settings(env) == [
        ("GERBIL_QA_ADMIN_TOKN", "GERBIL_QA_ADMIN_TOKEN"),
        ("GERBIL_QA_SPARQL_TIMEOUTS", "GERBIL_QA_SPARQL_TIMEOUT"),
        ("GERBIL_QA_ZZZQQ", None),
    ]


def test_each_unknown_name_is_warned_of_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "_warned", set())
    said: list[str] = []
    env = {"GERBIL_QA_ADMIN_TOKN": "x"}
    warn_unknown(env, said.append)
    warn_unknown(env, said.append)
    assert said == [
        "warning: GERBIL_QA_ADMIN_TOKN is not a setting of gerbil-qa (did you mean "
        "GERBIL_QA_ADMIN_TOKEN?); it is ignored (README: Settings)"
    ]


def test_a_command_warns_of_a_misspelt_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    monkeypatch.setattr(settings, "_warned", set())
    monkeypatch.setenv("GERBIL_QA_SPARQL_TIMEOUTS", "abc")
    path = tmp_path / "a.json"
    path.write_text("x", encoding="utf-8")
    main(["validate", str(path)])
    err = capsys.readouterr().err
    assert (
        "gerbil-qa: warning: GERBIL_QA_SPARQL_TIMEOUTS is not a setting of gerbil-qa "
        "(did you mean GERBIL_QA_SPARQL_TIMEOUT?)"
    ) in err
    assert err.count("GERBIL_QA_SPARQL_TIMEOUTS") == 1
