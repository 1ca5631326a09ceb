"""Scale benchmark (issue 14): the embedded store against a remote Oxigraph server, at 10k and
100k public experiments, with one and two web replicas.

    .venv/bin/python bench/scale.py [--sizes 10000,100000] [--seconds 8] [--clients 4]

For each size (the store grows from one size to the next):

1. Synthetic published experiments (bench/pages.py's: 2 questions each, 20 datasets, 50 systems,
   written by the service's own writer, with the public default-graph copy, ``dct:issued`` and
   the private admin record a publication leaves) are bulk-loaded into a store directory and
   compacted.
2. **Embedded**: the store opened in-process: one 400-question experiment recorded, then
   published (median of 3); then ``gerbil-qa serve --store DIR`` with both caches off: the
   median latency of the leaderboards page, a dataset's page (its leaderboard), an experiment
   page (HTML and Turtle) and the published leaderboard query over SPARQL, and requests per
   second of ``--clients`` clients fetching experiment pages (Turtle and HTML, random
   experiments) for ``--seconds``.
3. **Remote**: the same directories served by two ``oxigraph serve`` processes (public and
   private), the same write, publish and latencies through ``serve --store URL``, and the
   requests per second with one replica and with two (the clients split between them).

Growth per x10 experiments is printed for each figure. Everything runs on this machine's two
cores: the load generator, the replicas and the Oxigraph servers share them, so the two-replica
figure shows what a second process adds when the cores are already busy, not what a second
machine would. About 25 minutes with 100k experiments; ``--sizes 1000`` takes two.
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where bench/http.py and
# bench/statistics.py would shadow the standard library: put the project root there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import argparse
import math
import os
import random
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pyoxigraph as ox
import requests

from bench.pages import BASE, DATASETS, NOW, synthetic
from bench.store import evaluation
from service.graph.queries import leaderboard_query
from service.graph.results import DatasetRef, ExperimentRecord, experiment_quads
from service.graph.uris import Uris
from service.release import Source
from service.systems.localnet import free_port

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
OXIGRAPH = str(Path(PYTHON).parent / "oxigraph")
GQA = "http://w3id.org/gerbil/qa/vocab#"
XSD = "http://www.w3.org/2001/XMLSchema#"
# caches off; a time limit above the slowest query measured (the all-datasets leaderboard at
# 100k experiments runs 7-10 s on these cores)
COLD = {
    "GERBIL_QA_PAGE_CACHE_ENTRIES": "0",
    "GERBIL_QA_SPARQL_CACHE_ENTRIES": "0",
    "GERBIL_QA_SPARQL_TIMEOUT": "120",
}


def experiment_id(k: int) -> str:
    day = 1 + k // 9999
    return f"2024{1 + (day - 1) // 28 % 12:02d}{1 + (day - 1) % 28:02d}{1 + k % 9999:04d}"


def grow(directory: Path, start: int, stop: int, rng: random.Random) -> float:
    """Add experiments ``start`` … ``stop - 1`` (published) to the store in ``directory``."""
    t0 = time.perf_counter()
    uris = Uris(BASE)
    admin = ox.NamedNode(uris.admin_graph)
    default = ox.DefaultGraph()
    issued = ox.NamedNode("http://purl.org/dc/terms/issued")
    when = ox.Literal(
        NOW.isoformat().replace("+00:00", "Z"), datatype=ox.NamedNode(XSD + "dateTime")
    )
    public_file, private_file = directory / "public.nq", directory / "private.nq"
    with public_file.open("wb") as public, private_file.open("wb") as private:
        for k in range(start, stop):
            eid = experiment_id(k)
            ev = synthetic(2, k, rng)
            record = ExperimentRecord(
                eid, (ev,), DatasetRef(ev.dataset, True), NOW, NOW, Source("bench"), ()
            )
            graph = ox.NamedNode(uris.experiment_graph(eid))
            quads = experiment_quads(record, uris, graph.value)
            exp = ox.NamedNode(uris.experiment(eid))
            quads.append(ox.Quad(exp, issued, when, graph))
            quads += [ox.Quad(q.subject, q.predicate, q.object, default) for q in quads]
            ox.serialize(quads, public, format=ox.RdfFormat.N_QUADS)
            facts = [
                (ox.NamedNode(GQA + "status"), ox.Literal("finished")),
                (
                    ox.NamedNode(GQA + "published"),
                    ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean")),
                ),
                (ox.NamedNode(GQA + "publishedAt"), when),
                (ox.NamedNode(GQA + "createdAt"), when),
                (ox.NamedNode(GQA + "ownerTokenHash"), ox.Literal("0" * 64)),
            ]
            ox.serialize(
                [ox.Quad(exp, p, o, admin) for p, o in facts], private, format=ox.RdfFormat.N_QUADS
            )
    for side, path in (("public", public_file), ("private", private_file)):
        store = ox.Store(str(directory / "store" / side))
        store.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS)
        store.optimize()
        del store
        path.unlink()
    return time.perf_counter() - t0


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def write_and_publish(location: str, rng: random.Random, repeat: int = 3) -> tuple[float, float]:
    """Median seconds to record one 400-question experiment, and to publish it."""
    from service.graph.store import open_storage

    writes, publishes = [], []
    with open_storage(location, base=BASE, catalog=False) as storage:
        for _ in range(repeat):
            ev = evaluation(400, system="scale-system", dataset=DATASETS[0], rng=rng)
            t0 = time.perf_counter()
            ticket = storage.experiments.record([ev], dataset=DatasetRef(DATASETS[0], True))
            writes.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            storage.experiments.publish(ticket.id)
            publishes.append(time.perf_counter() - t0)
    return statistics.median(writes), statistics.median(publishes)


@contextmanager
def process(args: list[str], ready: str, env: dict[str, str] | None = None) -> Iterator[None]:
    """A server subprocess, up once ``ready`` answers."""
    proc = subprocess.Popen(
        args,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                requests.get(ready, timeout=5)
                break
            except (requests.ConnectionError, requests.Timeout):  # bound, still starting
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{args[:3]} did not start ({proc.returncode})") from None
                time.sleep(0.1)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def serve(store: str, env: dict[str, str]) -> tuple[str, Any]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    args = [
        PYTHON,
        "-m",
        "service",
        "serve",
        "--store",
        store,
        "--port",
        str(port),
        "--base",
        BASE,
        "--no-demo",
    ]
    return url, process(args, url + "api/profiles", {**COLD, **env})


def latency(url: str, path: str, accept: str, repeat: int) -> float:
    session = requests.Session()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        response = session.get(url + path.lstrip("/"), headers={"Accept": accept}, timeout=120)
        times.append(time.perf_counter() - t0)
        if response.status_code != 200:
            raise SystemExit(f"{path}: {response.status_code} {response.text[:300]}")
    return median_ms(times)


def throughput(
    urls: list[str], paths: Callable[[random.Random], tuple[str, str]], clients: int, seconds: float
) -> float:
    """Requests per second of ``clients`` threads (spread over ``urls``), keep-alive."""
    done = [0] * clients
    errors: list[str] = []
    stop = time.monotonic() + seconds

    def client(i: int) -> None:
        rng = random.Random(i)
        session = requests.Session()
        base = urls[i % len(urls)]
        while time.monotonic() < stop:
            path, accept = paths(rng)
            response = session.get(base + path, headers={"Accept": accept}, timeout=60)
            if response.status_code != 200:
                errors.append(f"{path}: {response.status_code}")
            done[i] += 1

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit(f"{len(errors)} failed requests, e.g. {errors[0]}")
    return sum(done) / (time.monotonic() - started)


def measure_pages(url: str, n: int, repeat: int) -> dict[str, float]:
    eid = experiment_id(n // 2)
    sparql = "sparql?query=" + requests.utils.quote(leaderboard_query(limit=100))
    return {
        "leaderboards page": latency(url, "leaderboards", "text/html", repeat),
        "dataset page": latency(url, f"dataset/{DATASETS[3]}", "text/html", repeat),
        "experiment page (HTML)": latency(url, f"experiment/{eid}", "text/html", repeat),
        "experiment (Turtle)": latency(url, f"experiment/{eid}", "text/turtle", repeat),
        "leaderboard SPARQL": latency(url, sparql, "application/sparql-results+json", repeat),
    }


def measure(
    mode: str,
    location: str,
    env: dict[str, str],
    n: int,
    pages: Callable[[random.Random], tuple[str, str]],
    args: argparse.Namespace,
    rng: random.Random,
    note: Callable[[str, str, float], None],
) -> None:
    """One store's figures: write and publish in process, then through ``serve`` (caches off)
    the pages' latency and throughput; a remote store also with a second replica."""
    write, publish = write_and_publish(location, rng)
    note(mode, "write (400 questions) ms", write * 1000)
    note(mode, "publish ms", publish * 1000)
    url, replica = serve(location, env)
    with replica:
        for name, ms in measure_pages(url, n, args.repeat).items():
            note(mode, f"{name} ms", ms)
        rate = throughput([url], pages, args.clients, args.seconds)
        note(mode, "experiment pages req/s, 1 process", rate)
        if mode == "remote":  # replicas share a remote store only
            url_b, replica_b = serve(location, env)
            with replica_b:
                rate = throughput([url, url_b], pages, args.clients, args.seconds)
                note(mode, "experiment pages req/s, 2 replicas", rate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rng = random.Random(14)
    print(
        f"bench/scale.py: {os.cpu_count()} cores, sizes {sizes}, {args.clients} clients, caches off"
    )
    table: dict[tuple[str, str], list[float]] = {}

    def note(mode: str, name: str, value: float) -> None:
        table.setdefault((mode, name), []).append(value)

    with tempfile.TemporaryDirectory(prefix="gqa-scale-") as tmp:
        directory = Path(tmp)
        (directory / "store").mkdir()
        from service.graph.store import open_storage

        open_storage(directory / "store", base=BASE).close()  # vocabulary, catalogue, marker
        built = 0
        for n in sizes:
            seconds = grow(directory, built, n, rng)
            built = n
            print(f"\n{n} experiments built in {seconds:.0f} s")
            store_dir = str(directory / "store")

            def pages(rng: random.Random, n: int = n) -> tuple[str, str]:
                eid = experiment_id(rng.randrange(n))
                return f"experiment/{eid}", rng.choice(("text/turtle", "text/html"))

            measure("embedded", store_dir, {}, n, pages, args, rng, note)
            ports = free_port(), free_port()
            public, private = (f"http://127.0.0.1:{p}/" for p in ports)
            env = {
                "GERBIL_QA_PRIVATE_STORE": private,
                "GERBIL_QA_WORK_DIR": str(directory / "work"),
            }
            oxi = [
                process(
                    [
                        OXIGRAPH,
                        "serve",
                        "--location",
                        str(directory / "store" / side),
                        "--bind",
                        f"127.0.0.1:{port}",
                    ],
                    f"http://127.0.0.1:{port}/query?query=ASK%7B%7D",
                )
                for side, port in zip(("public", "private"), ports, strict=True)
            ]
            with oxi[0], oxi[1]:
                os.environ.update(env)
                measure("remote", public, env, n, pages, args, rng, note)
    print()
    print(
        f"  {'figure':<42} {'store':<9} " + " ".join(f"{n:>10}" for n in sizes) + "  growth per x10"
    )
    for (mode, name), values in table.items():
        growth = ""
        if len(values) > 1 and values[0]:  # per x10 experiments, whatever the sizes' spread
            decades = math.log10(sizes[-1] / sizes[0])
            growth = f"x{(values[-1] / values[0]) ** (1 / decades):.2f}"
        cells = " ".join(f"{v:>10.1f}" for v in values)
        print(f"  {name:<42} {mode:<9} {cells}  {growth}")
    print(f"\n{load()}")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


if __name__ == "__main__":
    main()
