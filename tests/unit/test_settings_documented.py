"""Every setting the code reads is in the README's Settings table: a newcomer found settings
the server reads (``GERBIL_QA_MAX_UPLOAD_BYTES``, ``GERBIL_QA_MAX_WAITING_RUNS``) named nowhere,
and eight more missing from the table (explore39 F7)."""

from __future__ import annotations

import re
from dataclasses import fields

from service.paths import PROJECT_ROOT
from service.web.config import ENV_PREFIX, WebConfig


def _settings_section() -> str:
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]


def test_every_setting_the_code_reads_is_in_the_settings_table() -> None:
    table = _settings_section()
    web = {ENV_PREFIX + f.name.upper() for f in fields(WebConfig) if f.name != "extra"}
    named = set()
    for path in (PROJECT_ROOT / "service").rglob("*.py"):
        named |= set(re.findall(r"GERBIL_QA_[A-Z][A-Z_]*[A-Z]", path.read_text(encoding="utf-8")))
    missing = sorted(name for name in web | named if f"`{name}`" not in table)
    assert not missing, f"settings read but not in README's Settings table: {missing}"
    assert len(web | named) > 40  # the scan found the settings (not an empty walk)
