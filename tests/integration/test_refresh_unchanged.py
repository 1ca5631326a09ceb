"""``dataset refresh FILE --kb KB --store S`` whose gold all comes back unchanged registers the
version all the same and says why (explore45 5: "14 unchanged", then "registered version:"
without a word): the version records on which KB, and when, the gold was checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.cli import main
from service.paths import DEMO_DIR


def test_an_unchanged_refresh_says_why_it_registers_a_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    refresh = ["dataset", "refresh", str(DEMO_DIR / "questions.json")]
    refresh += ["--kb", str(DEMO_DIR / "kb.ttl"), "--store", str(store)]
    assert main([*refresh, "--output", str(tmp_path / "v.json")]) == 0
    out = capsys.readouterr().out
    assert "registered version: " in out
    assert ": 14 unchanged" in out
    assert "no question's gold changed on " in out, out
    assert "the version records that this gold holds there" in out
