"""HTTP throughput of the web service, next to Oxigraph's own server, measured in one run.

    .venv/bin/python bench/http.py [--seconds S] [--rounds R] [--triples N] [--reuse DIR]

Builds a store of real experiments (the six systems of ``system-outputs/qald8-train`` on QALD-8
train, profile ``exact``, every experiment type; recorded and published repeatedly until the
public default graph holds about N triples, default 420k), then measures requests per second
with 4 concurrent clients (threads with keep-alive connections; S seconds per target, split into
R rounds that take turns between the servers, medians reported, as this machine is shared):

- ``gerbil-qa serve`` as configured by default (waitress, 2 SPARQL worker processes, the page
  and result caches on), and the same on a copy of the store with both caches off;
- ``oxigraph serve-read-only`` (the ``oxigraph`` PyPI server) on a copy of the same public store
  (whose default graph is the union of the public graphs, as the graph layer keeps it);
- pyoxigraph in-process on that copy (1 and 4 threads, the leaderboard serialised as JSON).

Queries: a minimal leaderboard (QA tasks by macro F1, four variables; ~1.3 ms in-process), the
published leaderboard (``service.graph.queries.leaderboard_query(limit=100)``, the SPARQL page's
example and the query the pages run; ~4 ms) and mean F1 per answer type (a join over every
per-question result; heavier). Pages: an experiment URI as Turtle and as HTML. Targets (issue 4, and
issue 14 with the caches off; this 2-core machine): SPARQL >= 0.8x the Oxigraph server;
experiment pages (Turtle and HTML) >= 300 req/s. The script checks that all servers return
the same rows.

Then JSON-LD beside Turtle (issue 9): a 408-question task and a whole experiment graph, caches
off, with the ratio, pyld's time for the task (the writer before) and the SPARQL endpoint's
latency while two clients fetch the graph as JSON-LD; ``--documents`` runs only that part.

``--listings 1000,10000,100000`` measures instead the latency of the listing pages (home page,
experiment lists, a dataset's leaderboard, a system's history, systems) as the number of public
experiments grows, on bench/store.py's synthetic stores.

``--flood N`` measures instead fair service under a flood (issue 13): the latency of a simple
uncached query (the minimal leaderboard, caches off, one client, back to back) alone, then while
N clients send cartesian products (each with fresh variable names, stopped at the time limit),
for ``--seconds`` each; it prints p50/p99/max, the statuses, and the target (p99 < 500 ms, no
5xx for the simple query).
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# This file is called http.py (as the issue names it): when run as a script its folder comes
# first on sys.path and would shadow the standard library's http package. Drop that entry.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from service.systems.localnet import free_port

DATA = Path(os.environ.get("GERBIL_QA_DATA", ROOT.parent / "shared" / "data")).resolve()
OUTPUTS = DATA / "system-outputs" / "qald8-train"
SYSTEMS = ("AskNow", "GANSWER2", "QAKIS", "QANSWER", "QASystem", "TeBaQA")
CLIENTS = 4
BASE = "http://bench.gerbil-qa.test/"  # URIs only: requests go to the port each server listens on

PER_ANSWER_TYPE = """PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
SELECT ?system ?answerType (COUNT(?result) AS ?questions) (AVG(?f1) AS ?meanF1) WHERE {
  ?task a gqa:Task ; gerbil:experimentType gerbil:QA ; gerbil:annotator ?system .
  ?result gqa:resultOf ?task ; gqa:f1 ?f1 ; gqa:question ?question .
  ?question gqa:answerType ?answerType .
}
GROUP BY ?system ?answerType
ORDER BY ?system ?answerType"""

LEADERBOARD = """PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
PREFIX qb: <http://purl.org/linked-data/cube#>
SELECT ?system ?dataset ?macroF1 ?experiment WHERE {
  ?task a gqa:Task ;
        gerbil:experimentType gerbil:QA ;
        gerbil:annotator ?system ;
        gerbil:dataset ?dataset ;
        gerbil:macroF1 ?macroF1 ;
        qb:dataSet ?experiment .
}
ORDER BY DESC(?macroF1) ?experiment ?system
LIMIT 100"""


def build_store(directory: Path, *, base: str, triples: int) -> tuple[list[str], int]:
    """Record and publish QALD-8 train x six systems until the public store has ``triples``."""
    os.environ.setdefault("GERBIL_QA_DATA", str(DATA))
    from service import catalog, formats
    from service.evaluation import evaluate
    from service.evaluation.profiles import get_profile
    from service.graph.results import DatasetRef
    from service.graph.store import open_storage
    from service.model import system_run

    dataset = catalog.load("qald-8-train-multilingual")
    profile = get_profile("exact")
    evaluations = []
    for name in SYSTEMS:
        answers = formats.read(OUTPUTS / f"{name}_QALD8_Train.json")
        run = system_run(answers, system=name)
        evaluations.append(evaluate(dataset, run, profile=profile, language="en"))
    # recorded as the application layer records a run: every number with its interval
    from service.evaluation.comparison import with_intervals

    evaluations = [with_intervals(ev) for ev in evaluations]
    import pyoxigraph as ox

    def queried(store) -> int:  # triples of the default graph, which the queries read
        return sum(1 for _ in store.quads_for_pattern(None, None, None, ox.DefaultGraph()))

    ids = []
    with open_storage(directory, base=base) as graph:
        # the questions' public graph, as recording through the application layer stores it
        # (the answer-type query joins them)
        graph.catalogue.store_questions("qald-8-train-multilingual", dataset)
        while queried(graph.public) < triples:
            ref = DatasetRef.catalogue("qald-8-train-multilingual", dataset)
            ticket = graph.experiments.record(evaluations, dataset=ref)
            graph.experiments.publish(ticket.id)
            ids.append(ticket.id)
        size = queried(graph.public)
        graph.public.backup(str(directory.parent / "oxigraph-copy"))
    return ids, size


def published_leaderboard() -> str:
    """The leaderboard the service publishes (the pages' query; the SPARQL page's example is
    this one with another comment line)."""
    from service.graph.queries import leaderboard_query

    return leaderboard_query(limit=100, title="Leaderboard")


QUERIES = {
    "leaderboard": LEADERBOARD,
    "published leaderboard": published_leaderboard(),
    "F1 per answer type": PER_ANSWER_TYPE,
}


def stored(directory: Path, *, base: str) -> tuple[list[str], int]:
    """The experiments and size of a store built by an earlier run (``--reuse``)."""
    import pyoxigraph as ox

    from service.graph.store import open_storage

    with open_storage(directory, base=base, catalog=False) as graph:
        ids = [s.id for s in graph.experiments.listing()]
        size = sum(1 for _ in graph.public.quads_for_pattern(None, None, None, ox.DefaultGraph()))
    return ids, size


def wait_for(url: str, timeout: float = 60) -> None:
    parts = urlsplit(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=2)
            conn.request("GET", parts.path or "/")
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not come up")


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` and its descendants, from
    Linux's /proc: what a server spent, whatever else the shared machine runs."""
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += ticks.get(current, 0)
        todo.extend(children.get(current, ()))
    return total / os.sysconf("SC_CLK_TCK")


def load(url: str, headers: dict[str, str], *, seconds: float, clients: int = CLIENTS) -> float:
    """Requests per second of ``clients`` threads GETting ``url`` for ``seconds``."""
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    counts = [0] * clients
    errors: list[str] = []
    start = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def worker(n: int) -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        start.wait()
        while time.monotonic() < stop_at[0]:
            conn.request("GET", target, headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                errors.append(f"{response.status} {url}")
                return
            counts[n] += 1
        conn.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    began = time.monotonic()
    stop_at[0] = began + seconds
    start.wait()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - began
    if errors:
        raise SystemExit(f"errors while measuring: {errors[:3]}")
    return sum(counts) / elapsed


def interleaved(
    targets: dict[str, tuple[str, dict[str, str]]],
    *,
    seconds: float,
    rounds: int,
    servers: dict[str, int] | None = None,
    cpu: dict[str, float] | None = None,
) -> dict[str, list[float]]:
    """Requests per second of each target, measured in ``rounds`` rounds that take turns (each
    round gives every target ``seconds / rounds``), so a change in the machine's background load
    hits all of them alike. Returns the rate of each round per target. With ``servers`` (target
    -> server process id), ``cpu`` gets each target's server CPU milliseconds per request."""
    for url, headers in targets.values():
        load(url, headers, seconds=0.5)  # warm-up
    rates: dict[str, list[float]] = {label: [] for label in targets}
    spent: dict[str, float] = dict.fromkeys(targets, 0.0)
    served: dict[str, float] = dict.fromkeys(targets, 0.0)
    for _ in range(rounds):
        for label, (url, headers) in targets.items():
            pid = (servers or {}).get(label)
            before = tree_cpu(pid) if pid else 0.0
            rate = load(url, headers, seconds=seconds / rounds)
            if pid:
                spent[label] += tree_cpu(pid) - before
                served[label] += rate * seconds / rounds
            rates[label].append(rate)
    if cpu is not None:
        cpu.update({k: 1000 * spent[k] / served[k] for k in targets if served[k]})
    return rates


def in_process(location: Path, *, seconds: float, threads: int) -> float:
    import pyoxigraph as ox

    store = ox.Store.read_only(str(location))
    counts = [0] * threads
    stop_at = time.monotonic() + seconds

    def worker(n: int) -> None:
        while time.monotonic() < stop_at:
            result = store.query(LEADERBOARD)
            result.serialize(format=ox.QueryResultsFormat.JSON)
            counts[n] += 1

    began = time.monotonic()
    pool = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return sum(counts) / (time.monotonic() - began)


def document_floor(location: Path, experiment_id: str, *, repeat: int = 10) -> tuple[int, float]:
    """The experiment page's floor in the engine: its document's quads read from Oxigraph
    in-process (pyoxigraph, the store's copy; ``describe.document_quads``, what every
    representation of the page is built from), one thread. Returns (quads, median ms)."""
    import pyoxigraph as ox

    from service.graph.uris import Uris
    from service.web.describe import FOLLOW_EXPERIMENT, document_quads

    store = ox.Store.read_only(str(location))
    uris = Uris(BASE)
    uri, graph = uris.experiment(experiment_id), uris.experiment_graph(experiment_id)
    times, found = [], []
    for _ in range(repeat + 1):
        began = time.perf_counter()
        found = document_quads(store, uri, graph=graph, follow=FOLLOW_EXPERIMENT)
        times.append(1000 * (time.perf_counter() - began))
    return len(found), statistics.median(times[1:])


def rows_of(url: str) -> list[tuple]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    conn.request(
        "GET", parts.path + "?" + parts.query, headers={"Accept": "application/sparql-results+json"}
    )
    response = conn.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"{url[:80]}…: {response.status} {body[:300]!r}")
    data = json.loads(body)
    return [
        tuple(sorted((k, v["value"]) for k, v in b.items())) for b in data["results"]["bindings"]
    ]


def listings_bench(sizes: list[int], work: Path, *, repeat: int) -> None:
    """Latency of the pages that list public results, as the number of experiments grows.

    The stores are bench/store.py's synthetic ones (one QA task of 2 questions per experiment,
    20 datasets, 50 systems, written by the service's own writer and bulk-loaded, each size
    adding to the previous one). ``gerbil-qa serve`` runs on each with its caches off; each page
    is requested ``repeat`` times in turn, one client, and the median is printed, next to the
    unfiltered leaderboard query the home page ran before (in-process, the same store)."""
    import importlib.util
    import random

    spec = importlib.util.spec_from_file_location("bench_store", ROOT / "bench" / "store.py")
    if spec is None or spec.loader is None:
        raise SystemExit("bench/store.py not found")
    bench_store = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_store)
    import pyoxigraph as ox

    from service.graph.adapter import add_public
    from service.graph.queries import leaderboard_query
    from service.graph.store import open_storage

    cubes = bench_store.Cubes(work, random.Random(42))
    store = work / "ours"
    dataset_uri = ox.NamedNode(cubes.uris.dataset(bench_store.DATASETS[3]))
    add_public(
        cubes.ours.store,  # a title, so that the dataset's page exists (not catalogued)
        [
            ox.Quad(
                dataset_uri,
                ox.NamedNode("http://purl.org/dc/terms/title"),
                ox.Literal("A synthetic dataset"),
                ox.NamedNode(cubes.uris.dataset_graph(bench_store.DATASETS[3])),
            )
        ],
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GERBIL_QA_")}
    env.update(GERBIL_QA_SPARQL_CACHE_ENTRIES="0", GERBIL_QA_PAGE_CACHE_ENTRIES="0")
    gerbil_qa = str(Path(sys.executable).with_name("gerbil-qa"))
    dataset, system = bench_store.DATASETS[3], bench_store.SYSTEMS[7]
    pages = {
        "home page": "/",
        "experiments, page 1": "/experiments",
        "experiments, page 100": "/experiments?page=100",
        "API experiments, page 1": "/api/experiments",
        f"dataset {dataset} (leaderboard page 1)": f"/dataset/{dataset}",
        f"system {system} (history page 1)": f"/system/{system}",
        "systems": "/systems",
    }
    print(
        f"\nlisting pages, caches off, 1 client, median of {repeat} (ms); "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"  {'experiments':>11}  " + "  ".join(f"{name}" for name in pages) + "  | before:")
    print("  " + " " * 11 + "  unfiltered leaderboard query (the old home page), in-process")
    try:
        for n in sizes:
            cubes.grow(n)
            started = time.perf_counter()
            old = leaderboard_query()
            list(cubes.ours.public.query(old))
            unfiltered = (time.perf_counter() - started) * 1000
            cubes.ours.close()
            port = free_port()
            server = subprocess.Popen(
                [gerbil_qa, "serve", "--store", str(store), "--port", str(port), "--no-demo"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                wait_for(f"http://127.0.0.1:{port}/api/profiles", timeout=120)
                times: dict[str, list[float]] = {name: [] for name in pages}
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
                for _ in range(repeat):
                    for name, path in pages.items():
                        began = time.perf_counter()
                        conn.request("GET", path, headers={"Accept": "text/html"})
                        response = conn.getresponse()
                        response.read()
                        if response.status != 200:
                            raise SystemExit(f"{path}: {response.status}")
                        times[name].append((time.perf_counter() - began) * 1000)
                conn.close()
            finally:
                server.terminate()
                server.wait(30)
            cells = "  ".join(f"{statistics.median(times[name]):>{len(name)}.1f}" for name in pages)
            print(f"  {n:>11}  {cells}  | {unfiltered:.0f} ms")
            cubes.ours = open_storage(store)
    finally:
        cubes.close()


CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE {{ ?a{n} ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }}"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def timed_requests(port: int, query: str, *, seconds: float) -> tuple[list[float], dict[int, int]]:
    """One client sending ``query`` back to back for ``seconds``: latencies and statuses."""
    target = f"/sparql?query={quote(query)}"
    headers = {"Accept": "application/sparql-results+json"}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        conn.request("GET", target, headers=headers)
        response = conn.getresponse()
        response.read()
        latencies.append(time.monotonic() - started)
        statuses[response.status] = statuses.get(response.status, 0) + 1
    conn.close()
    return latencies, statuses


def flood_bench(work: Path, *, clients: int, seconds: float, triples: int) -> int:
    """The simple query's latency alone and under a flood of cartesian products."""
    if (work / "store").is_dir():
        ids, size = stored(work / "store", base=BASE)
    else:
        ids, size = build_store(work / "store", base=BASE, triples=triples)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GERBIL_QA_")}
    env.update(GERBIL_QA_SPARQL_CACHE_ENTRIES="0", GERBIL_QA_PAGE_CACHE_ENTRIES="0")
    gerbil_qa = str(Path(sys.executable).with_name("gerbil-qa"))
    server = subprocess.Popen(
        [gerbil_qa, "serve", "--store", str(work / "store"), "--port", str(port), "--no-demo"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    flood_statuses: dict[int, int] = {}
    stop = threading.Event()

    def flooder(n: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        sent = 0
        while not stop.is_set():
            sent += 1
            query = CARTESIAN.format(n=f"{n}_{sent}")  # a new text each time: no cache helps
            conn.request("GET", f"/sparql?query={quote(query)}")
            response = conn.getresponse()
            response.read()
            flood_statuses[response.status] = flood_statuses.get(response.status, 0) + 1
        conn.close()

    try:
        wait_for(f"http://127.0.0.1:{port}/api/profiles")
        timed_requests(port, LEADERBOARD, seconds=1.0)  # warm up
        alone, alone_statuses = timed_requests(port, LEADERBOARD, seconds=seconds)
        threads = [threading.Thread(target=flooder, args=(n,)) for n in range(clients)]
        for thread in threads:
            thread.start()
        flooded, flooded_statuses = timed_requests(port, LEADERBOARD, seconds=seconds)
        stop.set()
        for thread in threads:
            thread.join(120)
    finally:
        server.terminate()
        server.wait(30)
    print(
        f"store: {size} triples, {len(ids)} experiments; simple query: the minimal leaderboard, "
        f"caches off, one client back to back, {seconds:g} s per phase ({os.cpu_count()} CPUs)"
    )
    print(f"  {'':<34} {'requests':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  statuses")
    for label, latencies, statuses in (
        ("alone", alone, alone_statuses),
        (f"while {clients} clients flood", flooded, flooded_statuses),
    ):
        print(
            f"  {label:<34} {len(latencies):>8} {percentile(latencies, 0.5) * 1000:>8.1f} "
            f"{percentile(latencies, 0.99) * 1000:>8.1f} {max(latencies) * 1000:>8.1f}  "
            f"{dict(sorted(statuses.items()))}"
        )
    print(f"  the flood's cartesian products: statuses {dict(sorted(flood_statuses.items()))}")
    p99 = percentile(flooded, 0.99)
    errors = sum(n for status, n in flooded_statuses.items() if status >= 500)
    verdict = "met" if p99 < 0.5 and errors == 0 else "NOT met"
    print(f"target: p99 under flood < 500 ms and no 5xx: {verdict} ({p99 * 1000:.0f} ms, {errors})")
    return 0


def timed_get(conn: http.client.HTTPConnection, path: str, accept: str) -> tuple[float, int]:
    """Seconds to GET ``path`` with ``Accept: accept`` on ``conn``, and the body's size."""
    began = time.perf_counter()
    conn.request("GET", path, headers={"Accept": accept})
    response = conn.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"{path} as {accept}: {response.status} {body[:200]!r}")
    return time.perf_counter() - began, len(body)


def documents_bench(work: Path, *, repeat: int) -> dict[str, float]:
    """JSON-LD beside Turtle for big documents: a 408-question task (QALD-9 train, the gold
    answers as a system's, every experiment type) and that experiment's whole graph, served
    by ``gerbil-qa serve`` with its caches off (each request writes the document). Prints
    median latencies of ``repeat`` interleaved requests, sizes and the JSON-LD/Turtle ratio;
    what pyld (the writer before) takes for the task, in-process; and the SPARQL endpoint's
    latency alone and while two clients keep fetching the graph as JSON-LD."""
    os.environ.setdefault("GERBIL_QA_DATA", str(DATA))
    from service import catalog
    from service.evaluation import evaluate
    from service.graph.results import DatasetRef
    from service.graph.store import open_storage
    from service.model import system_run

    store = work / "documents"
    dataset = catalog.load("qald-9-train-multilingual")
    run = system_run(dataset, system="gold-answers")
    evaluation = evaluate(dataset, run, profile="exact", language="en")
    with open_storage(store, base=BASE) as storage:
        ref = DatasetRef.catalogue("qald-9-train-multilingual", dataset)
        ticket = storage.experiments.record([evaluation], dataset=ref)
        storage.experiments.publish(ticket.id)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GERBIL_QA_")}
    env.update(GERBIL_QA_SPARQL_CACHE_ENTRIES="0", GERBIL_QA_PAGE_CACHE_ENTRIES="0")
    port = free_port()
    gerbil_qa = str(Path(sys.executable).with_name("gerbil-qa"))
    server = subprocess.Popen(
        [gerbil_qa, "serve", "--store", str(store), "--port", str(port), "--no-demo"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    figures: dict[str, float] = {}
    try:
        wait_for(f"http://127.0.0.1:{port}/api/profiles", timeout=120)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        documents = {
            f"task of {len(dataset)} questions": f"/experiment/{ticket.id}/task/1",
            "whole experiment graph": f"/graph/experiment/{ticket.id}",
        }
        syntaxes = {"Turtle": "text/turtle", "JSON-LD": "application/ld+json"}
        times: dict[tuple[str, str], list[float]] = {}
        sizes: dict[tuple[str, str], int] = {}
        for _ in range(repeat):
            for name, path in documents.items():
                for syntax, accept in syntaxes.items():
                    took, size = timed_get(conn, path, accept)
                    times.setdefault((name, syntax), []).append(took)
                    sizes[(name, syntax)] = size
        task_nt = f"http://127.0.0.1:{port}{documents[f'task of {len(dataset)} questions']}.nt"
        conn.close()
        pyld_seconds = pyld_time(get_bytes(task_nt))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)  # idle ones are closed
        sparql = "/sparql?query=" + quote(LEADERBOARD)
        alone = [timed_get(conn, sparql, "application/sparql-results+json")[0] for _ in range(5)]
        stop = threading.Event()

        def fetch_graph() -> None:
            other = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            while not stop.is_set():
                timed_get(other, documents["whole experiment graph"], "application/ld+json")

        hammers = [threading.Thread(target=fetch_graph) for _ in range(2)]
        for thread in hammers:
            thread.start()
        time.sleep(0.5)
        busy = [timed_get(conn, sparql, "application/sparql-results+json")[0] for _ in range(5)]
        stop.set()
        for thread in hammers:
            thread.join()
        conn.close()
    finally:
        server.terminate()
        server.wait(30)
    print(
        f"\nJSON-LD beside Turtle, caches off, 1 client, median of {repeat} interleaved "
        f"requests (load average {os.getloadavg()[0]:.1f})"
    )
    for name in documents:
        turtle = statistics.median(times[(name, "Turtle")])
        jsonld = statistics.median(times[(name, "JSON-LD")])
        figures[f"{name}: JSON-LD / Turtle"] = jsonld / turtle
        print(
            f"  {name}: Turtle {turtle * 1000:.0f} ms ({sizes[(name, 'Turtle')] / 1e6:.1f} MB), "
            f"JSON-LD {jsonld * 1000:.0f} ms ({sizes[(name, 'JSON-LD')] / 1e6:.1f} MB): "
            f"ratio {jsonld / turtle:.2f}"
        )
    task = f"task of {len(dataset)} questions"
    print(
        f"  before (pyld from_rdf + compact, in-process, the task): {pyld_seconds:.1f} s, "
        f"{pyld_seconds / statistics.median(times[(task, 'JSON-LD')]):.0f}x our JSON-LD request"
    )
    figures["SPARQL alone"] = statistics.median(alone)
    figures["SPARQL beside 2 JSON-LD graph clients"] = statistics.median(busy)
    print(
        f"  leaderboard SPARQL query: {statistics.median(alone) * 1000:.0f} ms alone, "
        f"{statistics.median(busy) * 1000:.0f} ms while 2 clients fetch the graph as JSON-LD"
    )
    return figures


def get_bytes(url: str) -> bytes:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    conn.request("GET", parts.path)
    body = conn.getresponse().read()
    conn.close()
    return body


def pyld_time(ntriples: bytes) -> float:
    """Seconds pyld takes to write ``ntriples`` as the service wrote JSON-LD before."""
    from pyld import jsonld

    from service.web.rdf_out import context_document

    began = time.perf_counter()
    expanded = jsonld.from_rdf(ntriples.decode("utf-8"), {"format": "application/n-quads"})
    jsonld.compact(expanded, context_document())
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="per target, all rounds")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--triples", type=int, default=420_000)
    parser.add_argument("--workers", type=int, default=2, help="SPARQL worker processes")
    parser.add_argument("--threads", type=int, default=8, help="waitress threads")
    parser.add_argument(
        "--reuse", type=Path, metavar="DIR", help="build the store in DIR once and reuse it"
    )
    parser.add_argument(
        "--documents",
        action="store_true",
        help="instead: only JSON-LD beside Turtle for a 408-question task and a whole graph",
    )
    parser.add_argument(
        "--listings",
        metavar="SIZES",
        help="instead: latency of the listing pages at these numbers of synthetic experiments "
        "(e.g. 10000,100000; bench/store.py's stores)",
    )
    parser.add_argument(
        "--remote",
        action="store_true",
        help="also the service on a remote store (issue 14): a copy of the store served by two "
        "`oxigraph serve` (public, private), `gerbil-qa serve --store URL`, caches off",
    )
    parser.add_argument(
        "--flood",
        type=int,
        metavar="N",
        help="instead: the simple query's latency alone and while N clients send cartesian "
        "products (issue 13: 2-4)",
    )
    args = parser.parse_args()
    if args.flood:
        if not OUTPUTS.is_dir():
            print(f"bench/http.py: the QALD-8 system outputs are not at {OUTPUTS}", file=sys.stderr)
            return 2
        work = args.reuse or Path(tempfile.mkdtemp(prefix="gqa-bench-flood-"))
        try:
            return flood_bench(work, clients=args.flood, seconds=args.seconds, triples=args.triples)
        finally:
            if args.reuse is None:
                shutil.rmtree(work, ignore_errors=True)
    if args.documents:
        with tempfile.TemporaryDirectory(prefix="gqa-bench-documents-") as tmp:
            documents_bench(Path(tmp), repeat=max(3, args.rounds))
        return 0
    if args.listings:
        with tempfile.TemporaryDirectory(prefix="gqa-bench-listings-") as tmp:
            sizes = [int(size) for size in args.listings.split(",")]
            listings_bench(sizes, Path(tmp), repeat=max(3, args.rounds))
        return 0
    if not OUTPUTS.is_dir():
        print(f"bench/http.py: the QALD-8 system outputs are not at {OUTPUTS}", file=sys.stderr)
        return 2

    work = args.reuse or Path(tempfile.mkdtemp(prefix="gqa-bench-http-"))
    ours_port, raw_port, oxi_port = free_port(), free_port(), free_port()
    remote_port = free_port()
    figures: dict[str, float] = {}
    cpu: dict[str, float] = {}  # server CPU ms per request (the server and its workers)
    ratios: dict[str, float] = {}
    counts: dict[str, int] = {}
    load_before = os.getloadavg()
    base = BASE
    processes: list[subprocess.Popen] = []
    remote_servers: list[subprocess.Popen] = []
    try:
        started = time.monotonic()
        if (work / "store").is_dir():
            ids, size = stored(work / "store", base=base)
        else:
            ids, size = build_store(work / "store", base=base, triples=args.triples)
        print(
            f"store: {size} triples in the public default graph, from {len(ids)} published "
            "experiments "
            f"(QALD-8 train x {len(SYSTEMS)} systems each), ready in "
            f"{time.monotonic() - started:.0f} s"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("GERBIL_QA_")}
        env.update(GERBIL_QA_SPARQL_WORKERS=str(args.workers), GERBIL_QA_THREADS=str(args.threads))
        # the same service with its caches off, to show what they are worth
        no_cache = dict(env, GERBIL_QA_SPARQL_CACHE_ENTRIES="0", GERBIL_QA_PAGE_CACHE_ENTRIES="0")
        gerbil_qa = str(Path(sys.executable).with_name("gerbil-qa"))
        store = str(work / "store")
        snapshot = str(work / "store-uncached")
        if not Path(snapshot).exists():  # a second copy: one store cannot be opened twice
            shutil.copytree(store, snapshot, ignore=shutil.ignore_patterns("LOCK"))
        copy = work / "store-remote"  # a third, for the Oxigraph servers of --remote
        if args.remote and not copy.exists():
            shutil.copytree(store, copy, ignore=shutil.ignore_patterns("LOCK"))
        for port, directory, environ in ((ours_port, store, env), (raw_port, snapshot, no_cache)):
            processes.append(
                subprocess.Popen(
                    [gerbil_qa, "serve", "--store", directory, "--port", str(port), "--no-demo"],
                    env=environ,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        oxigraph = str(Path(sys.executable).with_name("oxigraph"))
        if args.remote:  # the same data in two Oxigraph servers, the service in front of them
            ports = {"public": free_port(), "private": free_port()}
            for side, port in ports.items():
                remote_servers.append(
                    subprocess.Popen(
                        [
                            oxigraph,
                            "serve",
                            "--location",
                            str(copy / side),
                            "--bind",
                            f"127.0.0.1:{port}",
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
            for port in ports.values():
                wait_for(f"http://127.0.0.1:{port}/")
            remote_env = dict(
                no_cache,
                GERBIL_QA_PRIVATE_STORE=f"http://127.0.0.1:{ports['private']}/",
                GERBIL_QA_WORK_DIR=str(work / "remote-work"),
            )
            processes.append(
                subprocess.Popen(
                    [
                        gerbil_qa,
                        "serve",
                        "--store",
                        f"http://127.0.0.1:{ports['public']}/",
                        "--port",
                        str(remote_port),
                        "--no-demo",
                    ],
                    env=remote_env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        location = str(work / "oxigraph-copy")
        processes.append(
            subprocess.Popen(
                [
                    oxigraph,
                    "serve-read-only",
                    "--location",
                    location,
                    "--bind",
                    f"127.0.0.1:{oxi_port}",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        for url in (
            f"http://127.0.0.1:{ours_port}/api/profiles",
            f"http://127.0.0.1:{raw_port}/api/profiles",
            f"http://127.0.0.1:{oxi_port}/",
            *([f"http://127.0.0.1:{remote_port}/api/profiles"] if args.remote else []),
        ):
            wait_for(url)

        def ours(port: int, text: str) -> str:
            return f"http://127.0.0.1:{port}/sparql?query={quote(text)}"

        oxi = {
            name: f"http://127.0.0.1:{oxi_port}/query?query={quote(text)}"
            for name, text in QUERIES.items()
        }
        for name, text in QUERIES.items():
            rows = rows_of(ours(ours_port, text))
            others = [oxi[name], ours(raw_port, text)]
            others += [ours(remote_port, text)] if args.remote else []
            if not rows or any(rows != rows_of(url) for url in others):
                print(f"the servers disagree on the {name} query", file=sys.stderr)
                return 1
            counts[name] = len(rows)
        accept = {"Accept": "application/sparql-results+json"}
        seconds = args.seconds
        experiment = f"/experiment/{ids[0]}"
        pid_ours, pid_raw = processes[0].pid, processes[1].pid
        pid_oxi = processes[-1].pid
        # the service on the remote store: its CPU counted with both Oxigraph servers'
        remote_label = "gerbil-qa serve, remote store, caches off"
        for name, text in QUERIES.items():
            targets = {
                f"oxigraph serve-read-only: {name}": (oxi[name], accept),
                f"gerbil-qa serve: {name}": (ours(ours_port, text), accept),
                f"gerbil-qa serve, caches off: {name}": (ours(raw_port, text), accept),
            }
            servers = {
                f"oxigraph serve-read-only: {name}": pid_oxi,
                f"gerbil-qa serve: {name}": pid_ours,
                f"gerbil-qa serve, caches off: {name}": pid_raw,
            }
            if args.remote:
                targets[f"{remote_label}: {name}"] = (ours(remote_port, text), accept)
                servers[f"{remote_label}: {name}"] = processes[2].pid
            rates = interleaved(
                targets, seconds=seconds, rounds=args.rounds, servers=servers, cpu=cpu
            )
            reference = rates[f"oxigraph serve-read-only: {name}"]
            for label, values in rates.items():
                figures[label] = statistics.median(values)
                if not label.startswith("oxigraph"):
                    ratios[label] = statistics.median(
                        v / r for v, r in zip(values, reference, strict=True)
                    )
        figures["pyoxigraph in-process, 1 thread: leaderboard"] = in_process(
            work / "oxigraph-copy", seconds=seconds, threads=1
        )
        figures["pyoxigraph in-process, 4 threads: leaderboard"] = in_process(
            work / "oxigraph-copy", seconds=seconds, threads=4
        )
        pages = {
            f"{label}: experiment URI as {kind}": (
                f"http://127.0.0.1:{port}{experiment}",
                {"Accept": media_type},
            )
            for label, port in (
                ("gerbil-qa serve", ours_port),
                ("gerbil-qa serve, caches off", raw_port),
            )
            for kind, media_type in (("Turtle", "text/turtle"), ("HTML", "text/html"))
        }
        if args.remote:
            for kind, media_type in (("Turtle", "text/turtle"), ("HTML", "text/html")):
                pages[f"{remote_label}: experiment URI as {kind}"] = (
                    f"http://127.0.0.1:{remote_port}{experiment}",
                    {"Accept": media_type},
                )
        page_servers = {
            label: pid_ours
            if label.startswith("gerbil-qa serve:")
            else processes[2].pid
            if label.startswith(remote_label)
            else pid_raw
            for label in pages
        }
        for label, values in interleaved(
            pages, seconds=seconds, rounds=args.rounds, servers=page_servers, cpu=cpu
        ).items():
            figures[label] = statistics.median(values)
        floor = document_floor(work / "oxigraph-copy", ids[0])
        load_after = os.getloadavg()
    finally:
        for process in [*processes, *remote_servers]:
            process.terminate()
        for process in [*processes, *remote_servers]:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        if args.reuse is None:
            shutil.rmtree(work, ignore_errors=True)

    print(
        f"\nrequests per second, {CLIENTS} concurrent clients, median of {args.rounds} "
        f"interleaved rounds of {args.seconds / args.rounds:g} s ({os.cpu_count()} CPUs; load "
        f"average {load_before[0]:.1f} before, {load_after[0]:.1f} after; result rows: "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
        + ")"
    )
    width = max(map(len, figures))
    print(f"  {'':<{width}}  {'req/s':>8}  server CPU ms/request")
    for name, value in figures.items():
        spent = f"{cpu[name]:8.2f}" if name in cpu else ""
        print(f"  {name:<{width}}  {value:8.1f}  {spent}")
    print(
        "\nratio to the Oxigraph server (median of the per-round ratios of req/s; then the "
        "Oxigraph server's CPU per request over ours):"
    )
    for label, ratio in ratios.items():
        verdict = "met" if ratio >= 0.8 else "NOT met"
        reference = "oxigraph serve-read-only: " + label.split(": ", 1)[1]
        by_cpu = f"{cpu[reference] / cpu[label]:8.2f}" if label in cpu else ""
        print(f"  {label:<{width}}  {ratio:8.2f}  (target >= 0.80: {verdict})  {by_cpu}")
    for name, rate in figures.items():
        label, _, page = name.partition(": experiment URI as ")
        if page:
            verdict = "met" if rate >= 300 else "NOT met"
            print(f"{label}: experiment page as {page} {rate:.0f} req/s (target >= 300: {verdict})")
    quads, floor_ms = floor
    ceiling = 1000 * (os.cpu_count() or 1) / floor_ms
    print(
        f"the engine's floor for the experiment page: reading its document's {quads:,} quads "
        f"from Oxigraph in-process takes {floor_ms:.1f} ms on one core, so no server that reads "
        f"them per request passes {ceiling:.0f} req/s on this machine's {os.cpu_count()} cores"
    )
    for label, rate in figures.items():
        if "caches off" in label and "experiment URI" in label:
            print(f"  {label}: {rate / ceiling:.2f} of that ceiling")
    with tempfile.TemporaryDirectory(prefix="gqa-bench-documents-") as tmp:
        documents_bench(Path(tmp), repeat=max(3, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
