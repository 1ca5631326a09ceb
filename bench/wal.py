"""Disk taken by the embedded store's RocksDB write-ahead logs (``STORE/{public,private}/*.log``)
while the service runs: N upload runs of the demo's questions recorded through the
application layer (the Flask app, its runner and its background services, as ``serve`` has
them), every other one published; the ``*.log`` bytes of each side printed after each tenth
run and at the end, while the store is still open (closing it flushes, and the next opening
drops the logs: explore57 saw 24 → 121 MB after 42 runs, 94 MB of it ``*.log``).

The service flushes the store's memtables when something was written since the last flush, in
the snapshot service's periodic sweep (``service/graph/snapshots.py``, every
``SWEEP_SECONDS``), so RocksDB can retire a log; ``--wait`` is how long the script waits after
each run (past one sweep by default), so the figures include that flush.

    .venv/bin/python bench/wal.py [--runs 40] [--wait 11]

``--large`` records QALD-8 train runs instead (QAKiS's answers from ``GERBIL_QA_DATA``: 31,152
quads, ~22 MB of log each), every ``--wait`` seconds (5 by default there, faster than the
sweep), twice: first with a large write's own flush turned off (the reference: what the sweep
alone keeps), then as the service runs; it prints the largest ``*.log`` total each saw.

    GERBIL_QA_DATA=../shared/data .venv/bin/python bench/wal.py --large [--runs 20] [--wait 5]
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where bench/http.py and
# bench/statistics.py would shadow the standard library's modules: drop that entry.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse
import io
import tempfile
import time
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def wal_bytes(store: Path) -> dict[str, int]:
    return {
        side: sum(p.stat().st_size for p in (store / side).glob("*.log"))
        for side in ("public", "private")
    }


def record(client: Any, demo: Path, n: int, large: Path | None = None) -> None:
    data: dict[str, Any] = {
        "profile": "fair",
        "kb": "demo",
        "dataset_file": (io.BytesIO((demo / "questions.json").read_bytes()), "questions.json"),
        "answers": (io.BytesIO((demo / "answers-partial.json").read_bytes()), f"run{n}.json"),
    }
    if large is not None:
        data = {
            "dataset": "qald-8-train-multilingual",
            "answers": (io.BytesIO(large.read_bytes()), f"run{n}.json"),
        }
    answer = client.post("/api/experiments", data=data, content_type="multipart/form-data")
    assert answer.status_code == 202, answer.get_data(as_text=True)
    ticket = answer.get_json()
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    deadline = time.monotonic() + 120
    while True:
        status = client.get(f"/api/experiments/{ticket['id']}", headers=auth).get_json()["status"]
        if status in ("finished", "error", "cancelled"):
            assert status == "finished", status
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"run {n} did not finish")
        time.sleep(0.1)
    if n % 2:
        published = client.post(f"/api/experiments/{ticket['id']}/publish", headers=auth)
        assert published.status_code == 200, published.get_data(as_text=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=None, help="40, or 20 with --large")
    parser.add_argument("--wait", type=float, default=None, help="seconds after each run")
    parser.add_argument("--large", action="store_true", help="QALD-8 train runs, two variants")
    args = parser.parse_args(argv)
    runs = args.runs or (20 if args.large else 40)
    wait = args.wait if args.wait is not None else (5.0 if args.large else 11.0)
    if not args.large:
        series(runs, wait, None)
        return 0

    from service.catalog import mirror_dir
    from service.graph import embedded

    mirror = mirror_dir()
    if mirror is None:
        raise SystemExit("--large reads QAKiS's answers from the benchmark data: GERBIL_QA_DATA")
    answers = mirror / "system-outputs" / "qald8-train" / "QAKIS_QALD8_Train.json"
    flush_write = embedded.FLUSH_WRITE
    embedded.FLUSH_WRITE = 10**12  # the reference: no write flushed by its size
    print("reference (a large write not flushed by itself):", flush=True)
    before = series(runs, wait, answers)
    embedded.FLUSH_WRITE = flush_write
    print(f"as served (a write of >= {flush_write:,} quads flushed at once):", flush=True)
    after = series(runs, wait, answers)
    print(
        f"largest *.log total: reference {before / 1e6:.1f} MB, as served {after / 1e6:.1f} MB "
        f"({after / before:.2f}x)"
    )
    return 0


def series(runs: int, wait: float, large: Path | None) -> int:
    """``runs`` runs into a new store, ``wait`` s apart; the largest ``*.log`` total seen."""
    from service.paths import DEMO_DIR
    from service.web.app import close_app, create_app

    largest = 0
    with tempfile.TemporaryDirectory(prefix="gerbil-qa-wal-") as scratch:
        store = Path(scratch) / "store"
        app = create_app({"store": store, "sparql_workers": 1, "demo": False})
        try:
            client = app.test_client()
            print(f"start: *.log bytes {wal_bytes(store)}", flush=True)
            started = time.monotonic()
            for n in range(1, runs + 1):
                record(client, DEMO_DIR, n, large)
                time.sleep(wait)
                sizes = wal_bytes(store)
                total = sum(sizes.values())
                largest = max(largest, total)
                if n % 10 == 0 or n == runs:
                    print(
                        f"after {n} runs ({time.monotonic() - started:.0f} s): *.log bytes "
                        f"{sizes}, {total / 1e6:.2f} MB, {total / n / 1e3:.0f} kB a run; "
                        f"largest {largest / 1e6:.2f} MB",
                        flush=True,
                    )
        finally:
            close_app(app)
    return largest


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
