"""A page rendered cold through the Flask test client: what bench/pages.py and
bench/catalog.py measure (the page cache emptied before each request, a key kept where the
script says so)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterable
from typing import Any


def timed(
    client: Any,
    state: Any,
    path: str,
    repeat: int,
    *,
    accept: str = "text/html",
    keep: Iterable[str] = (),
) -> tuple[float, float, int]:
    """Median wall and CPU milliseconds of ``path`` rendered with the page cache emptied but for
    the entries ``keep`` names, and its size in bytes."""
    walls, cpus, size = [], [], 0
    for _ in range(repeat):
        kept = {key: state.cache.get(key) for key in keep}
        state.cache.clear()
        for key, value in kept.items():
            if value is not None:
                state.cache.put(key, value)
        t0, c0 = time.perf_counter(), time.process_time()
        response = client.get(path, headers={"Accept": accept})
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - t0)
        if response.status_code != 200:
            raise SystemExit(f"{path}: {response.status_code} {response.data[:300]!r}")
        size = len(response.data)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000, size
