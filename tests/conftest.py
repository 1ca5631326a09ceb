"""Shared fixtures: where the real benchmark data and standards live. The suite's rules (what a
layer needs, ``GERBIL_QA_SKIP``, no skip under ``CI=true``) are in ``tests/layers.py``; its hooks
are imported here, which registers them (a hook added there is added to this import)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.layers import (
    DATA,
    QALD,
    SHARED,
    STANDARDS,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_make_collect_report,
    pytest_runtest_makereport,
    pytest_sessionfinish,
    pytest_terminal_summary,
    pytest_testnodedown,
)

__all__ = [
    "DATA",
    "QALD",
    "SHARED",
    "STANDARDS",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_make_collect_report",
    "pytest_runtest_makereport",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "pytest_testnodedown",
]


# A test asking for one of these needs the shared folder: when the folder is missing the run
# stops before any test runs (tests/layers.py), so here it is there.
@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def standards_dir() -> Path:
    return STANDARDS
