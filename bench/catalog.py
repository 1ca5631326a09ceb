"""Catalogue benchmark: the DCAT catalogue a page at a time against the whole document, on a
store of thousands of published uploaded datasets.

    .venv/bin/python bench/catalog.py [--uploads 1000,10000] [--repeat 5] [--page-size 1000]

1. One upload recorded and published the service's way (the demo's questions and an answer
   file, with its author's description, licence, creators and contact, through the API of an
   app on the store), then copied ``--uploads`` times: its link
   from the catalogue and its dataset's description (distribution, creators, languages,
   themes, checksum), each copy under its own name, experiment graph, SHA-256 and first
   publication a second after the previous one, bulk-loaded in its graph and the default graph
   as a publication writes them.
2. Rendered cold (page cache emptied before each request) through the Flask test client,
   median of ``--repeat``: pages 1, a middle one and the last at ``--page-size`` datasets a
   page, in Turtle and JSON-LD, against the whole catalogue on one page (the page size set
   past the number of datasets: the document every request wrote before it had pages, plus
   its Hydra view) in the same run on the same store; the CSV (whole, a line a dataset) and
   the HTML page.

Needs no benchmark data (the demo's files are in the repository).
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # bench/http.py shadows http

import argparse
import io
import os
import platform
import re
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from bench import cold
from bench.machine import load_average

BASE = "http://localhost:8080/"
START = datetime(2025, 1, 1, tzinfo=UTC)
# what an author says of an upload (the run form's fields): its description as a harvester reads it
ABOUT = {
    "title": "Bench upload",
    "dataset_description": "Three questions about the demo knowledge base, for a benchmark.",
    "dataset_license": "https://creativecommons.org/licenses/by/4.0/",
    "dataset_creator": ["Ann Author", "Bo Coauthor"],
    "dataset_creator_type": "Academia-ScientificOrganisation",
    "dataset_contact": "bench@example.org",
}


def published_upload(client: Any) -> dict[str, str]:
    """The demo's questions uploaded with an answer file, finished and published."""
    from service.paths import DEMO_DIR

    files = {
        "dataset_file": (io.BytesIO((DEMO_DIR / "questions.json").read_bytes()), "q.json"),
        "answers": (io.BytesIO((DEMO_DIR / "answers-strong.json").read_bytes()), "strong.json"),
    }
    made = client.post(
        "/api/experiments",
        data={**files, "profile": "fair", "kb": "demo", **ABOUT},
        content_type="multipart/form-data",
    )
    assert made.status_code == 202, made.data
    ticket = made.get_json()
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    for _ in range(600):
        state = client.get(f"/api/experiments/{ticket['id']}", headers=auth).get_json()
        if state["status"] not in ("reserved", "queued", "running"):
            break
        time.sleep(0.1)
    assert state["status"] == "finished", state
    done = client.post(f"/api/experiments/{ticket['id']}/publish", headers=auth)
    assert done.status_code == 200, done.data
    return {"id": ticket["id"], "dataset": state["dataset"]}


def template(storage: Any, run: dict[str, str]) -> str:
    """The published upload as N-Quads: the catalogue's link to it and its dataset's
    description, in the experiment's graph (as its publication wrote them)."""
    import pyoxigraph as ox

    from service.web.describe import FOLLOW_DATASET, SKIP_UPLOAD, document_quads

    graph = storage.uris.experiment_graph(run["id"])
    link = ox.Quad(
        ox.NamedNode(storage.uris.catalog),
        ox.NamedNode("http://www.w3.org/ns/dcat#dataset"),
        ox.NamedNode(run["dataset"]),
        ox.NamedNode(graph),
    )
    described = document_quads(
        storage.public, run["dataset"], graph=graph, follow=FOLLOW_DATASET, skip=SKIP_UPLOAD
    )
    quads = [link, *described]
    return ox.serialize(quads, format=ox.RdfFormat.N_QUADS).decode()


def grow(storage: Any, run: dict[str, str], numbers: range, folder: Path) -> float:
    """Copies ``numbers`` of the published upload, bulk-loaded (each in its graph and in the
    default graph); the seconds it took."""
    import pyoxigraph as ox

    t0 = time.perf_counter()
    text = template(storage, run)
    name = run["dataset"].rsplit("/", 1)[1]
    sha = next(
        q.object.value
        for q in storage.public.quads_for_pattern(
            ox.NamedNode(run["dataset"]),
            ox.NamedNode("http://w3id.org/gerbil/qa/vocab#sha256"),
            None,
            None,
        )
    )
    issued = next(
        q.object.value
        for q in storage.public.quads_for_pattern(
            ox.NamedNode(run["dataset"]), ox.NamedNode("http://purl.org/dc/terms/issued"), None
        )
    )
    path = folder / "uploads.nq"
    with path.open("w", encoding="utf-8") as out:
        for i in numbers:
            day, counter = divmod(i, 9000)
            eid = f"202501{day + 2:02d}{counter + 1:04d}"
            copy = (
                text.replace(run["id"], eid)
                .replace(name, f"bench-upload-{i:05d}")
                .replace(sha, f"{i:064x}")
                .replace(issued, (START + timedelta(seconds=i)).isoformat())
            )
            copy = re.sub(r"_:(\w+)", rf"_:\1c{i}", copy)  # a copy's own blank nodes
            out.write(copy)
            for line in copy.splitlines():  # the default graph's copy: the triple alone
                out.write(line.rsplit(" ", 2)[0] + " .\n")
    storage.public.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS)
    path.unlink()
    storage.public.optimize()
    return time.perf_counter() - t0


def timed(
    client: Any, state: Any, path: str, accept: str, repeat: int, *, order: bool = False
) -> tuple[float, float, int]:
    """``path`` cold (``order``: but for the uploads' order, as the later pages of a walk find
    it): median wall and CPU milliseconds, bytes."""
    from service.web.catalog_pages import ORDER_KEY

    return cold.timed(client, state, path, repeat, accept=accept, keep=[ORDER_KEY] if order else [])


def row(name: str, figures: tuple[float, float, int]) -> None:
    wall, cpu, size = figures
    print(f"  {name:<40} {size / 1024:>10.1f} KB {wall:>9.1f} ms {cpu:>9.1f} ms")


def measure(client: Any, state: Any, total: int, size: int, repeat: int) -> None:
    """Pages 1, middle and last at ``size`` a page, and the whole catalogue on one page."""
    last = max(1, -(-total // size))
    print(f"\n{total} datasets, {size} a page: {last} pages ({load_average()})")
    print(f"  {'document':<40} {'bytes':>13} {'wall':>12} {'CPU':>12}")
    for syntax, accept in (("Turtle", "text/turtle"), ("JSON-LD", "application/ld+json")):
        for label, number in (("page 1", 1), ("a middle page", (last + 1) // 2), ("last", last)):
            path = f"/catalog?page={number}"
            row(f"{syntax}, {label} ({number})", timed(client, state, path, accept, repeat))
            again = timed(client, state, path, accept, repeat, order=True)
            row("  the same, the order kept", again)
        state.config = replace(state.config, catalog_page_size=total + 1)
        try:
            row(f"{syntax}, whole (one page)", timed(client, state, "/catalog", accept, repeat))
        finally:
            state.config = replace(state.config, catalog_page_size=size)
    row("HTML, page 1", timed(client, state, "/catalog", "text/html", repeat))
    row("CSV (whole)", timed(client, state, "/catalog.csv", "text/csv", repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--uploads", default="1000,10000", help="store sizes, comma-separated")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--page-size", type=int, default=1000)
    args = parser.parse_args()

    from service import __version__, catalog
    from service.graph.store import open_storage
    from service.web import close_app, create_app
    from service.web.state import EXTENSION

    print(f"bench/catalog.py: GERBIL QA {__version__}, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(
        prefix="gerbil-qa-catalog-", dir=os.environ.get("TMPDIR")
    ) as t:
        storage = open_storage(Path(t) / "store", base=BASE)
        settings = {"base": BASE, "sparql_workers": 1, "demo": False}
        app = create_app({**settings, "catalog_page_size": args.page_size}, storage=storage)
        try:
            state = app.extensions[EXTENSION]
            client = app.test_client()
            run = published_upload(client)
            grown = 0
            for target in (int(n) for n in args.uploads.split(",")):
                took = grow(storage, run, range(grown, target), Path(t))
                grown = max(grown, target)
                state.changed()
                print(f"\n{target} copies of the upload loaded in {took:.0f} s")
                measure(
                    client, state, len(catalog.entries()) + 1 + target, args.page_size, args.repeat
                )
        finally:
            close_app(app)


if __name__ == "__main__":
    main()
