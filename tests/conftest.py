"""Shared fixtures: where the real benchmark data and standards live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GERBIL_QA_SHARED", ROOT.parent / "shared")).resolve()
DATA = Path(os.environ.get("GERBIL_QA_DATA", SHARED / "data")).resolve()
STANDARDS = SHARED / "standards"
QALD = DATA / "qald" / "ag-sc_QALD"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.skip(f"real benchmark data not found at {DATA}")
    return DATA


@pytest.fixture(scope="session")
def standards_dir() -> Path:
    if not STANDARDS.is_dir():
        pytest.skip(f"standards not found at {STANDARDS}")
    return STANDARDS
