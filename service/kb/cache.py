"""A disk cache for KB lookups, keyed by the KB's identity and version.

A lookup answer (the sameAs closure of an IRI, the resources of a label…) is stored under
``(kb, kind, key)`` where ``kb`` is ``describe(kb)``: the same KB in another version (another file
checksum, another declared endpoint version) never sees these entries. Empty answers are cached
too: "no resource has this label" is the commonest answer and the costliest to ask again.
sqlite3 is enough (one file, atomic writes, safe across processes); a lock serialises threads.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS lookup (
    kb TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (kb, kind, key)
) WITHOUT ROWID
"""


def default_cache_path() -> Path:
    """``$GERBIL_QA_KB_CACHE`` or ``$XDG_CACHE_HOME/gerbil-qa/kb.sqlite`` (``~/.cache``)."""
    explicit = os.environ.get("GERBIL_QA_KB_CACHE")
    if explicit:
        return Path(explicit)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "gerbil-qa" / "kb.sqlite"


class LookupCache:
    """Cached lookup answers (sets of strings) for any number of KBs in one sqlite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)

    def get_many(self, kb: str, kind: str, keys: Iterable[str]) -> dict[str, frozenset[str]]:
        """The cached answers among ``keys`` (missing keys are absent from the result)."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, frozenset[str]] = {}
        with self._lock:
            # sqlite limits the number of bound parameters; 500 stays well below every default.
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, value FROM lookup WHERE kb=? AND kind=? AND key IN ({marks})",
                    (kb, kind, *chunk),
                )
                for key, value in rows:
                    found[key] = frozenset(json.loads(value))
        return found

    def put_many(self, kb: str, kind: str, answers: Mapping[str, Iterable[str]]) -> None:
        rows = [
            (kb, kind, k, json.dumps(sorted(v), ensure_ascii=False)) for k, v in answers.items()
        ]
        with self._lock, self._db:
            self._db.executemany("INSERT OR REPLACE INTO lookup VALUES (?, ?, ?, ?)", rows)

    def count(self, kb: str | None = None) -> int:
        with self._lock:
            if kb is None:
                return int(self._db.execute("SELECT count(*) FROM lookup").fetchone()[0])
            query = "SELECT count(*) FROM lookup WHERE kb=?"
            return int(self._db.execute(query, (kb,)).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
