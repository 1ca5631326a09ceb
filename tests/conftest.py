"""Shared fixtures: where the real benchmark data and standards live. The suite's rules (what a
layer needs, ``GERBIL_QA_SKIP``, no skip under ``CI=true``) are in ``tests/layers.py``; its hooks
are imported here, which registers them (a hook added there is added to this import)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import flask
import jinja2
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


class _CompiledTemplates(jinja2.BytecodeCache):
    """The code Jinja compiles a template to, kept for this test process: every app the tests
    make (a server per module, more per test: 130 in a run) compiled the same 47 templates at
    its start (service/web/app.py), ~1 s each time. Kept under the template's name and file,
    Jinja's check of its source's checksum (a changed source is compiled again) and the
    environment's options that shape the code (an app made otherwise compiles its own). The
    app still reads every template at its start; only the compiling is done once."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def get_bucket(
        self, environment: jinja2.Environment, name: str, filename: str | None, source: str
    ) -> Any:
        autoescape = environment.autoescape
        options = (
            autoescape(name) if callable(autoescape) else autoescape,
            sorted(environment.extensions),
            environment.block_start_string,
            environment.block_end_string,
            environment.variable_start_string,
            environment.variable_end_string,
            environment.comment_start_string,
            environment.comment_end_string,
            environment.line_statement_prefix,
            environment.line_comment_prefix,
            environment.trim_blocks,
            environment.lstrip_blocks,
            environment.newline_sequence,
            environment.keep_trailing_newline,
            environment.optimized,
            environment.finalize is not None,
            environment.is_async,
        )
        key = repr((self.get_cache_key(name, filename), options))
        bucket = jinja2.bccache.Bucket(environment, key, self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: Any) -> None:
        with self._lock:
            code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Any) -> None:
        code = bucket.bytecode_to_string()
        with self._lock:
            self._code[bucket.key] = code


flask.Flask.jinja_options = {**flask.Flask.jinja_options, "bytecode_cache": _CompiledTemplates()}
