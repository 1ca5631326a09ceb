"""The registry of ``GERBIL_QA_*`` environment variables: the one place each is declared.

The web service's settings are the fields of :class:`service.web.config.WebConfig` (field
``sparql_timeout`` is ``GERBIL_QA_SPARQL_TIMEOUT``); :data:`OTHER_SETTINGS` declares those read
elsewhere (the store, the catalogue, the command line, the test suite), each with who reads it.
A name in the environment that is neither was silently ignored, so an operator who misspelt
the admin token's variable (``…_ADMIN_TOKN``) believed one was set (explore50 F4): every
command warns, once per name, naming the nearest known one (:func:`warn_unknown`).
``tests/unit/test_settings_registry.py`` keeps this registry complete (every name the code, the
tests, the Makefile and the benchmarks use is declared).
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable, Mapping

ENV_PREFIX = "GERBIL_QA_"

# Variables not in WebConfig, without the prefix: who reads them (the README's Settings table
# says what they mean).
OTHER_SETTINGS: dict[str, str] = {
    "PRIVATE_STORE": "a remote store's private dataset (service/graph/remote.py)",
    "STORE_LAYOUT": "a remote store's layout (service/graph/remote.py)",
    "STORE_USER": "a remote store's user (service/graph/remote.py)",
    "STORE_PASSWORD": "a remote store's password (service/graph/remote.py)",
    "STORE_TIMEOUT": "a remote store's seconds per request (service/graph/remote.py)",
    "WORK_DIR": "a replica's local cache directory (service/graph/remote.py)",
    "LEASE_SECONDS": "a replica's claim on a run (service/graph/claims.py)",
    "REVISION": "the commit this code was built from (service/release.py)",
    "SOURCE_REPOSITORY": "where this code is published, for its evaluator (service/release.py)",
    "DATA": "the benchmark files' mirror (service/catalog.py)",
    "CACHE": "downloaded dataset files (service/catalog.py)",
    "KB_CACHE": "a SPARQL endpoint KB's lookup cache (service/kb/cache.py)",
    "KB_QUERY_TIMEOUT": "seconds a query may run on the KB (service/kb/executor.py)",
    "STANDARDS": "the W3C standards folder (service/graph/checks.py)",
    "SHARED": "the shared folder (service/graph/checks.py)",
    "TOKEN": "the owner token of a reproduce script (service/web/reproduce.py)",
    # the test suite's own (tests/layers.py, tests/reliability/figures.py, tests/web)
    "SKIP": "test layers to skip (tests/layers.py)",
    "SOAK": "the reliability suite's long runs (tests/reliability)",
    "SOAK_MINUTES": "the reliability suite's soak length (tests/reliability)",
    "RELIABILITY_LOG": "the reliability figures' file (tests/reliability/figures.py)",
    "RELIABILITY_SEED": "the reliability suite's seed (tests/reliability/figures.py)",
    "SCREENSHOTS": "the browser tests' screenshots folder (tests/web/test_browser.py)",
}


def known_settings() -> frozenset[str]:
    """Every declared variable's full name: WebConfig's fields and :data:`OTHER_SETTINGS`."""
    from dataclasses import fields

    from service.web.config import WebConfig

    web = {f.name.upper() for f in fields(WebConfig) if f.name != "extra"}
    return frozenset(ENV_PREFIX + name for name in web | set(OTHER_SETTINGS))


def unknown_settings(environ: Mapping[str, str] | None = None) -> list[tuple[str, str | None]]:
    """The ``GERBIL_QA_*`` names in ``environ`` (else the process's) that are no setting, in
    order, each with the nearest known name (None when none is near)."""
    env = os.environ if environ is None else environ
    known = sorted(known_settings())
    tails = [name.removeprefix(ENV_PREFIX) for name in known]  # the prefix made all look near
    out: list[tuple[str, str | None]] = []
    for name in sorted(env):
        if name.startswith(ENV_PREFIX) and name not in known:
            near = difflib.get_close_matches(name.removeprefix(ENV_PREFIX), tails, n=1)
            out.append((name, ENV_PREFIX + near[0] if near else None))
    return out


_warned: set[str] = set()  # once per name and process (serve's app may be made again)


def warn_unknown(
    environ: Mapping[str, str] | None = None, say: Callable[[str], None] | None = None
) -> list[str]:
    """Warn (on stderr, or through ``say``) of each unknown ``GERBIL_QA_*`` name not warned of
    yet by this process; the warnings given."""
    given = []
    for name, near in unknown_settings(environ):
        if name in _warned:
            continue
        _warned.add(name)
        hint = f" (did you mean {near}?)" if near else ""
        given.append(
            f"warning: {name} is not a setting of gerbil-qa{hint}; it is ignored (README: Settings)"
        )
    for line in given:
        if say is not None:
            say(line)
        else:
            print(f"gerbil-qa: {line}", file=sys.stderr, flush=True)
    return given
