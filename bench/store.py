"""Store benchmark: write time of one 400-question experiment, and the latency of the published
leaderboard query (``service.graph.queries``) at 1k, 10k and 100k stored experiments next to the
same query over a minimal cube built with raw pyoxigraph in the same run.

Targets (issue 3): one write <= 0.2 s; leaderboard <= 1.2x the raw cube at each size, growth no
worse than linear. The large stores are built for the benchmark only: synthetic experiments
(2 questions each, written by the service's own writer ``experiment_quads`` plus the default-graph
copy and ``dct:issued`` that publishing adds) are serialised to N-Quads once and ``bulk_load``-ed,
each size adding to the previous one; both stores are then compacted (``Store.optimize``), as
RocksDB's background compaction leaves a long-running store. Latencies are measured interleaved
(ours, raw, ours, raw …) so load changes hit both alike; the ratio uses CPU time of the querying
thread, which another process's load barely moves, and wall time is printed too.

Why compaction: ``bulk_load`` leaves many overlapping SST files, and every lookup then visits
several of them; uncompacted, the 2.2M-quad store at 10k experiments was ~1.5x slower than the
small raw cube, which is what the earlier 2.4x figure measured. A store written the service's way,
one transaction per publication, gets RocksDB's background compaction: ``--transactional 10000``
builds one like that and compares it uncompacted.

Run: ``python bench/store.py [--sizes 1000,10000,100000] [--repeat 15] [--transactional 10000]``
(about 30 minutes with 100k on 2 cores; ``--sizes 1000,10000`` takes 3).
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where bench/http.py and
# bench/statistics.py would shadow the standard library's http package and statistics module
# (urllib, requests and rdflib import http): put the project root there before any import.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import argparse
import os
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pyoxigraph as ox

from bench.machine import load_average
from service.evaluation.profiles import get_profile
from service.evaluation.results import (
    Evaluation,
    ExperimentType,
    QuestionScore,
    TaskScores,
)
from service.graph.adapter import add_public
from service.graph.queries import LEADERBOARD_MEASURES, leaderboard_query
from service.graph.results import DatasetRef, ExperimentRecord, experiment_quads
from service.graph.store import open_storage
from service.graph.terms import language_iri, literal, measure_iri
from service.graph.uris import Uris
from service.model import AnswerSet, Dataset, Question, QuestionText, Term
from service.release import Source

ROOT = Path(__file__).resolve().parent.parent
GQA = "http://w3id.org/gerbil/qa/vocab#"
QB = "http://purl.org/linked-data/cube#"
PROV = "http://www.w3.org/ns/prov#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
DCT_ISSUED = "http://purl.org/dc/terms/issued"
XSD = "http://www.w3.org/2001/XMLSchema#"
PROFILE = get_profile("fair")
DATASETS = [f"bench-dataset-{i}" for i in range(20)]
SYSTEMS = [f"system-{i}" for i in range(50)]
NOW = datetime(2024, 1, 1, tzinfo=UTC)


def synthetic_scores(n: int, rng: random.Random) -> list[QuestionScore]:
    """``n`` questions scored 0, 0.5 or 1 at random, one answer given each (the experiments of
    the benches' synthetic stores: this one's and bench/pages.py's)."""
    scores = []
    for i in range(n):
        f = rng.choice((0.0, 0.5, 1.0))
        scores.append(
            QuestionScore(
                str(i + 1),
                tp=int(f > 0),
                fp=int(f < 1),
                fn=int(f < 1),
                precision=f,
                recall=f,
                f1=f,
                given=(f"<http://dbpedia.org/resource/R{i}>",),
            )
        )
    return scores


def evaluation(n_questions: int, *, system: str, dataset: str, rng: random.Random) -> Evaluation:
    scores = synthetic_scores(n_questions, rng)
    macro = statistics.fmean(s.f1 for s in scores) if scores else 0.0
    measures = {
        "microPrecision": macro,
        "microRecall": macro,
        "microF1": macro,
        "macroPrecision": macro,
        "macroRecall": macro,
        "macroF1": macro,
        "macroF1QALD": macro if macro > 0 else None,
        "accuracy": macro,
        "errorCount": 0,
        "meanRuntime": None,
        "questions": n_questions,
        "skippedQuestions": 0,
    }
    task = TaskScores(ExperimentType.QA, measures, tuple(scores))
    return Evaluation(dataset, system, PROFILE, "en", {ExperimentType.QA: task})


def dataset(n: int) -> Dataset:
    return Dataset(
        "bench",
        tuple(
            Question(
                str(i + 1),
                texts=(QuestionText("en", f"Question {i + 1}?"),),
                answertype="resource",
                answers=AnswerSet.of([Term.iri(f"http://dbpedia.org/resource/R{i}")]),
            )
            for i in range(n)
        ),
    )


def bench_write(tmp: Path, rng: random.Random, runs: int) -> None:
    ds = dataset(400)
    store = open_storage(tmp / "write", catalog=False)
    store.catalogue.store_questions("bench-400", ds)
    store.catalogue.ensure_catalog()
    evaluations = [evaluation(400, system="system-0", dataset="bench-400", rng=rng)]
    ref = DatasetRef.catalogue("bench-400", ds)
    store.experiments.record(evaluations, dataset=ref)
    walls, cpus, publish = [], [], []
    for _ in range(runs):
        ev = [evaluation(400, system="system-0", dataset="bench-400", rng=rng)]
        t0, c0 = time.perf_counter(), time.process_time()
        ticket = store.experiments.record(ev, dataset=ref)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        t0 = time.perf_counter()
        store.experiments.publish(ticket.id)
        publish.append(time.perf_counter() - t0)
    n_quads = len(store.experiments.quads(ticket.id))
    store.close()
    print(f"write one finished 400-question experiment ({n_quads} quads, on disk, one transaction;")
    print(f"  {runs} runs, {load_average()}):")
    print(
        f"  record             median {statistics.median(walls):.3f} s  min {min(walls):.3f} s"
        f"  (CPU median {statistics.median(cpus):.3f} s)   target <= 0.2 s"
    )
    print(
        f"  publish            median {statistics.median(publish):.3f} s  "
        f"min {min(publish):.3f} s  (graph + default-graph copy, one transaction)"
    )


class Cubes:
    """The service's public store and the raw cube, grown size by size."""

    def __init__(self, tmp: Path, rng: random.Random) -> None:
        self.tmp = tmp
        self.rng = rng
        self.uris = Uris()
        self.ours = open_storage(tmp / "ours")  # vocabulary and catalogue, as served
        self.raw = ox.Store(str(tmp / "raw"))
        self.count = 0
        self.labelled: set[str] = set()

    def grow(self, n: int) -> float:
        """Add experiments until there are ``n``; returns the seconds it took."""
        t0 = time.perf_counter()
        ours_file, raw_file = self.tmp / "ours.nq", self.tmp / "raw.nt"
        with ours_file.open("wb") as ours, raw_file.open("w") as raw:
            for k in range(self.count, n):
                quads, lines = self._experiment(k)
                ox.serialize(quads, ours, format=ox.RdfFormat.N_QUADS)
                raw.write(lines)
        self.ours.public.bulk_load(path=str(ours_file), format=ox.RdfFormat.N_QUADS)
        self.raw.bulk_load(path=str(raw_file), format=ox.RdfFormat.N_TRIPLES)
        ours_file.unlink()
        raw_file.unlink()
        self.ours.public.optimize()
        self.raw.optimize()
        self.count = n
        return time.perf_counter() - t0

    def _experiment(self, k: int) -> tuple[list, str]:
        uris = self.uris
        day = 1 + k // 9999
        eid = f"2024{1 + (day - 1) // 28 % 12:02d}{1 + (day - 1) % 28:02d}{1 + k % 9999:04d}"
        ds_name = DATASETS[k % len(DATASETS)]
        system = SYSTEMS[self.rng.randrange(len(SYSTEMS))]
        ev = evaluation(2, system=system, dataset=ds_name, rng=self.rng)
        # each its own end time, a minute apart, as real runs have (with one shared time every
        # listing's sort fell back to comparing IRIs, which no real store does)
        ended = NOW + timedelta(minutes=k)
        record = ExperimentRecord(
            eid, (ev,), DatasetRef(ds_name, True), NOW, ended, Source("bench"), ()
        )
        graph = ox.NamedNode(uris.experiment_graph(eid))
        named = experiment_quads(record, uris, graph.value)
        exp = ox.NamedNode(uris.experiment(eid))
        named.append(ox.Quad(exp, ox.NamedNode(DCT_ISSUED), ox.Literal(NOW.isoformat()), graph))
        default = (
            ox.DefaultGraph()
        )  # what ExperimentRepository.publish adds: the default-graph copy
        quads = named + [ox.Quad(q.subject, q.predicate, q.object, default) for q in named]

        # The raw cube: only the triples the leaderboard query reads, nothing else.
        task = f"<{uris.task(eid, 1)}>"
        measures = ev.tasks[ExperimentType.QA].measures
        triples = [
            (RDF_TYPE, f"<{GQA}Task>"),
            (f"{QB}dataSet", f"<{uris.experiment(eid)}>"),
            ("http://w3id.org/gerbil/vocab#annotator", f"<{uris.system(system)}>"),
            ("http://w3id.org/gerbil/vocab#dataset", f"<{uris.dataset(ds_name)}>"),
            ("http://w3id.org/gerbil/vocab#experimentType", "<http://w3id.org/gerbil/vocab#QA>"),
            (f"{GQA}language", f"<{language_iri('en')}>"),
            (f"{GQA}profile", f"<{PROFILE.iri}>"),
            (f"{GQA}signature", literal(ev.signature)),
        ]
        for m in LEADERBOARD_MEASURES:
            if measures[m] is not None:
                triples.append((measure_iri(m), f'"{float(measures[m])!r}"^^<{XSD}double>'))
        lines = "".join(f"{task} <{p}> {o} .\n" for p, o in triples)
        lines += (
            f"<{uris.experiment(eid)}> <{PROV}endedAtTime> "
            f'"{ended.isoformat()}"^^<{XSD}dateTime> .\n'
        )
        if system not in self.labelled:
            self.labelled.add(system)
            lines += f'<{uris.system(system)}> <{RDFS_LABEL}> "{system}" .\n'
        return quads, lines

    def close(self) -> None:
        self.ours.close()


def interleaved(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, tuple]:
    """Median wall and thread-CPU seconds of each run, measured in turns."""
    for run in runs.values():
        run()  # warm-up
    wall: dict[str, list[float]] = {k: [] for k in runs}
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            t0, c0 = time.perf_counter(), time.thread_time()
            run()
            cpu[name].append(time.thread_time() - c0)
            wall[name].append(time.perf_counter() - t0)
    return {k: (statistics.median(wall[k]), statistics.median(cpu[k])) for k in runs}


def rows(results) -> list[tuple]:
    return [tuple(None if t is None else t.value for t in r) for r in results]


def bench_leaderboard(sizes: list[int], tmp: Path, rng: random.Random, repeat: int) -> None:
    cubes = Cubes(tmp, rng)
    queries = {
        "dataset page": leaderboard_query(dataset=cubes.uris.dataset(DATASETS[3])),
        "SPARQL example": leaderboard_query(limit=100, title="Leaderboard"),
    }
    print()
    print("leaderboard: the published query (service.graph.queries.leaderboard_query) over the")
    print("service's public store (ours) and a raw cube of only the triples it reads (raw);")
    print(f"median of {repeat} interleaved runs; ratio = ours/raw CPU time of the query thread")
    print(
        f"  {'query':<15} {'experiments':>11} {'rows':>6} {'ours quads':>11} {'ours ms':>8} "
        f"{'raw ms':>8} {'ratio':>6}  {'wall ratio':>10}  growth (ours CPU)"
    )
    previous: dict[str, tuple[int, float]] = {}
    try:
        for n in sizes:
            built = cubes.grow(n)
            quads = len(cubes.ours.public)
            for name, query in queries.items():
                ours_rows = rows(cubes.ours.public.query(query))
                raw_rows = rows(cubes.raw.query(query))
                if ours_rows != raw_rows or not ours_rows:
                    raise SystemExit(f"{name}: the two cubes disagree at {n} experiments")
                times = interleaved(
                    {
                        "ours": lambda q=query: list(cubes.ours.public.query(q)),
                        "raw": lambda q=query: list(cubes.raw.query(q)),
                    },
                    repeat if n < 100_000 or name == "dataset page" else max(3, repeat // 3),
                )
                (ours_wall, ours_cpu), (raw_wall, raw_cpu) = times["ours"], times["raw"]
                growth = ""
                if name in previous:
                    before_n, before = previous[name]
                    growth = f"x{ours_cpu / before:.1f} for x{n / before_n:.0f} experiments"
                previous[name] = (n, ours_cpu)
                print(
                    f"  {name:<15} {n:>11} {len(ours_rows):>6} {quads:>11} {ours_cpu * 1000:>8.2f} "
                    f"{raw_cpu * 1000:>8.2f} {ours_cpu / raw_cpu:>5.2f}x  "
                    f"{ours_wall / raw_wall:>9.2f}x  {growth}"
                )
            print(f"  ({n} experiments built and compacted in {built:.0f} s; {load_average()})")
    finally:
        cubes.close()


def bench_union_flag(tmp: Path, rng: random.Random, n: int = 1000) -> None:
    """Why the public default graph is a materialised union (store.py): the same data in
    named graphs only, queried with ``use_default_graph_as_union=True``."""
    cubes = Cubes(tmp / "union", rng)
    cubes.grow(n)
    named = ox.Store()
    named.extend(
        q
        for q in cubes.ours.public.quads_for_pattern(None, None, None, None)
        if not isinstance(q.graph_name, ox.DefaultGraph)
    )
    query = leaderboard_query(dataset=cubes.uris.dataset(DATASETS[3]))
    copy = rows(cubes.ours.public.query(query))
    union = rows(named.query(query, use_default_graph_as_union=True))
    times = interleaved(
        {
            "copy": lambda: list(cubes.ours.public.query(query)),
            "union": lambda: list(named.query(query, use_default_graph_as_union=True)),
        },
        5,
    )
    cubes.close()
    print()
    print(f"the alternative, at {n} experiments: named graphs only + use_default_graph_as_union")
    print(
        f"  materialised default graph: {len(copy)} rows in {times['copy'][1] * 1000:.1f} ms;  "
        f"union flag: {len(union)} rows ({len(set(union))} distinct) in "
        f"{times['union'][1] * 1000:.1f} ms"
    )


def bench_transactional(tmp: Path, rng: random.Random, n: int, repeat: int) -> None:
    """The service's own layout: ``n`` experiments published one transaction each (as
    ``ExperimentRepository.publish`` writes them), left as RocksDB's background compaction
    leaves them, against the raw cube (bulk-loaded and compacted)."""
    cubes = Cubes(tmp / "transactional", rng)
    t0 = time.perf_counter()
    raw_file = cubes.tmp / "raw.nt"
    with raw_file.open("w") as raw:
        for k in range(n):
            quads, lines = cubes._experiment(k)
            add_public(
                cubes.ours.store,
                [q for q in quads if not isinstance(q.graph_name, ox.DefaultGraph)],
            )
            raw.write(lines)
    cubes.raw.bulk_load(path=str(raw_file), format=ox.RdfFormat.N_TRIPLES)
    cubes.raw.optimize()
    built = time.perf_counter() - t0
    query = leaderboard_query(dataset=cubes.uris.dataset(DATASETS[3]))
    if rows(cubes.ours.public.query(query)) != rows(cubes.raw.query(query)):
        raise SystemExit("the two cubes disagree")
    times = interleaved(
        {
            "ours": lambda: list(cubes.ours.public.query(query)),
            "raw": lambda: list(cubes.raw.query(query)),
        },
        repeat,
    )
    cubes.close()
    (ours_wall, ours_cpu), (raw_wall, raw_cpu) = times["ours"], times["raw"]
    print()
    print(f"{n} experiments published one transaction each, not compacted by hand ({built:.0f} s):")
    print(
        f"  dataset page: ours {ours_cpu * 1000:.2f} ms, raw {raw_cpu * 1000:.2f} ms, ratio "
        f"{ours_cpu / raw_cpu:.2f}x (wall {ours_wall / raw_wall:.2f}x); {load_average()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per query and size")
    parser.add_argument("--write-runs", type=int, default=15, help="0: skip the write benchmark")
    parser.add_argument(
        "--transactional",
        type=int,
        default=0,
        metavar="N",
        help="also build N experiments one transaction each, uncompacted (10000: ~2 min)",
    )
    args = parser.parse_args()
    print(
        f"bench/store.py: pyoxigraph {ox.__version__}, Python {platform.python_version()}, "
        f"{load_average()}"
    )
    rng = random.Random(42)
    with tempfile.TemporaryDirectory(prefix="gerbil-qa-bench-", dir=os.environ.get("TMPDIR")) as t:
        tmp = Path(t)
        if args.write_runs:
            bench_write(tmp, rng, args.write_runs)
        bench_union_flag(tmp, rng)
        if args.sizes:
            bench_leaderboard([int(s) for s in args.sizes.split(",")], tmp, rng, args.repeat)
        if args.transactional:
            bench_transactional(tmp, rng, args.transactional, args.repeat)
    print(f"done; {load_average()}")


if __name__ == "__main__":
    main()
