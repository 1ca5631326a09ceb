"""Serve-start cost of completing uploads an older version published
(``service.graph.uploads.complete_published_uploads``), and of the findings' completion after
it: on a store of N published uploads stripped to what 3e6151b wrote (as
``tests/web/test_old_uploads.py`` makes one), then twice more with nothing missing. Counts the
public store's queries and updates; the nothing-missing figure is the median of 15 calls.

Run: ``python bench/old_uploads.py [N]`` (100 by default; about 30 s on 2 cores).
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# this folder's http.py and statistics.py would shadow the standard library's (see store.py)
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import gc
import statistics
import tempfile
import time
from typing import Any


class _Counted:
    """The public store, its queries counted."""

    def __init__(self, real: Any, counts: dict[str, int]) -> None:
        self._real, self._counts = real, counts

    def query(self, *args: Any, **kwargs: Any) -> Any:
        self._counts["queries"] += 1
        return self._real.query(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _open(store: Path, base: str) -> tuple[Any, dict[str, int]]:
    from service.graph.store import open_storage

    storage = open_storage(store, base=base)
    counts = {"queries": 0, "updates": 0}
    storage.store.public = _Counted(storage.store.public, counts)
    update = storage.store.update

    def counted_update(*args: Any, **kwargs: Any) -> Any:
        counts["updates"] += 1
        return update(*args, **kwargs)

    storage.store.update = counted_update
    return storage, counts


def _old_store(n: int) -> tuple[Path, str]:
    from service.systems.localnet import free_port
    from tests.lakes_benchmark import lakes
    from tests.web.conftest import start_server, stop_server
    from tests.web.test_old_uploads import _as_3e6151b_wrote

    store, port = Path(tempfile.mkdtemp(prefix="old-uploads-")) / "store", free_port()
    site = start_server(store, demo=False, port=port)
    try:
        tickets = []
        for k in range(n):
            data = lakes(dataset_id=f"lakes-{k}").decode()
            body = {
                "dataset": {"filename": "lakes.json", "content": data},
                "title": f"Lakes {k}",
                "profile": "exact",
                "systems": [{"name": "gold-check", "answers": data}],
            }
            made = site.post("api/experiments", json=body)
            assert made.status_code == 202, made.text
            tickets.append(made.json())
        for ticket in tickets:
            site.wait_finished(ticket["id"], ticket["token"])
            site.storage.experiments.publish(ticket["id"])  # the experiment only, as before
        _as_3e6151b_wrote(site)
    finally:
        stop_server(site)
    del site
    gc.collect()
    return store, f"http://127.0.0.1:{port}/"


def main() -> None:
    from service.experiments.dataset_checks import complete_upload_findings
    from service.graph.uploads import complete_published_uploads

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    store, base = _old_store(n)
    for label in (f"{n} old uploads", "nothing missing"):
        storage, counts = _open(store, base)
        started = time.perf_counter()
        done = complete_published_uploads(storage)
        took = (time.perf_counter() - started) * 1000
        print(
            f"{label}: {len(done)} completed in {took:.1f} ms, "
            f"{counts['queries']} queries, {counts['updates']} updates"
        )
        queries, started = counts["queries"], time.perf_counter()
        found = complete_upload_findings(storage)
        took = (time.perf_counter() - started) * 1000
        asked = counts["queries"] - queries
        print(f"  then findings: {len(found)} written in {took:.1f} ms, {asked} queries")
        storage.close()
        del storage
        gc.collect()
    storage, counts = _open(store, base)
    times = []
    for _ in range(15):
        started = time.perf_counter()
        assert complete_published_uploads(storage) == []
        times.append((time.perf_counter() - started) * 1000)
    print(
        f"nothing missing, {n} uploads: median {statistics.median(times):.1f} ms, "
        f"{counts['queries'] // 15} query a start"
    )
    storage.close()


if __name__ == "__main__":
    main()
