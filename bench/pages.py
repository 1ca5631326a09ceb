"""Page benchmark: time and weight of the HTML pages people use, on a store of thousands of
public experiments plus a real 400-question experiment.

    .venv/bin/python bench/pages.py [--experiments 5000] [--repeat 7] [--datasets NAME,…|all]

1. A store with ``--experiments`` synthetic public experiments (2 questions each, written by the
   service's own writer as bench/store.py does, bulk-loaded and compacted) spread over 20
   datasets, 50 systems, two profiles (fair, qald6) and two languages (en, de).
2. One real experiment: QALD-9 train (408 questions) under ``fair`` with three systems (the gold
   answers; the gold answers of every other question; the first gold answer of each question),
   recorded and published the service's way, with the dataset's questions and check findings.
3. Pages rendered cold (the page cache emptied before every request) through the Flask test
   client, median of ``--repeat`` runs: the leaderboards (all, filtered and sorted, a late
   page), the home page, a dataset's page with its leaderboard, the experiment page (charts and
   bootstrap intervals computed from the stored per-question results), a task page (408
   explained questions, 100 a page) and its filtered view, the comparison of its three stored
   QA tasks (the compare page) and the run page.
4. Dataset pages of catalogue datasets (``--datasets``; default the QALD-9 files): the page as
   served next to the reference measured in the same run, the same description and findings
   rendered the way the page did before (a properties table per finding, every finding IRI
   listed).

Needs the benchmark data (``GERBIL_QA_DATA``, ``../shared/data`` by default).
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where bench/http.py and
# bench/statistics.py would shadow the standard library's http package and statistics module:
# put the project root there before any import.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import argparse
import os
import platform
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from typing import Any, cast
from urllib.parse import quote

from bench.cold import timed
from bench.machine import load_average

BASE = "http://localhost:8080/"
DATASETS = [f"bench-dataset-{i}" for i in range(20)]
SYSTEMS = [f"system-{i}" for i in range(50)]
PROFILES = ("fair", "qald6")
LANGUAGES = ("en", "de")
NOW = datetime(2024, 1, 1, tzinfo=UTC)
QALD9 = "qald-9-train-multilingual"


def synthetic(n: int, k: int, rng: random.Random) -> Any:  # -> Evaluation
    """A 2-question evaluation of one system, with measures that vary."""
    from bench.store import synthetic_scores
    from service.evaluation.profiles import get_profile
    from service.evaluation.results import Evaluation, ExperimentType, TaskScores

    profile = get_profile(PROFILES[k % 2])
    scores = synthetic_scores(n, rng)
    value = rng.random()
    measures = {
        name: value * rng.uniform(0.8, 1.0)
        for name in (
            "microPrecision",
            "microRecall",
            "microF1",
            "macroPrecision",
            "macroRecall",
            "macroF1",
            "macroF1QALD",
            "accuracy",
        )
    }
    measures.update({"errorCount": 0, "questions": n, "skippedQuestions": 0})
    task = TaskScores(ExperimentType.QA, measures, tuple(scores))
    system = SYSTEMS[rng.randrange(len(SYSTEMS))]
    return Evaluation(
        DATASETS[k % len(DATASETS)],
        system,
        profile,
        LANGUAGES[(k // 2) % 2],
        {ExperimentType.QA: task},
    )


def grow(graph: Any, n: int, tmp: Path, rng: random.Random) -> float:
    """Add ``n`` synthetic public experiments to ``graph``'s public store; seconds taken."""
    import pyoxigraph as ox

    from service.graph.results import DatasetRef, ExperimentRecord, experiment_quads
    from service.release import Source

    t0 = time.perf_counter()
    path = tmp / "experiments.nq"
    issued = ox.NamedNode("http://purl.org/dc/terms/issued")
    with path.open("wb") as out:
        for k in range(n):
            day = 1 + k // 9999
            eid = f"2024{1 + (day - 1) // 28 % 12:02d}{1 + (day - 1) % 28:02d}{1 + k % 9999:04d}"
            ev = synthetic(2, k, rng)
            # each its own end time, as real runs have: with one shared time every listing's
            # sort compared IRIs on the tie (home 18 -> 180 ms at 5,000 experiments)
            ended = NOW + timedelta(minutes=k)
            record = ExperimentRecord(
                eid, (ev,), DatasetRef(ev.dataset, True), NOW, ended, Source("bench"), ()
            )
            name = ox.NamedNode(graph.uris.experiment_graph(eid))
            quads = experiment_quads(record, graph.uris, name.value)
            exp = ox.NamedNode(graph.uris.experiment(eid))
            quads.append(ox.Quad(exp, issued, ox.Literal(NOW.isoformat()), name))
            default = ox.DefaultGraph()  # what publishing adds: the default-graph copy
            quads += [ox.Quad(q.subject, q.predicate, q.object, default) for q in quads]
            ox.serialize(quads, out, format=ox.RdfFormat.N_QUADS)
        for label in DATASETS:  # described, as catalogue datasets are, so their pages exist
            uri = ox.NamedNode(graph.uris.dataset(label))
            where = ox.NamedNode(graph.uris.dataset_graph(label))
            triples: list[tuple[ox.NamedNode, ox.NamedNode | ox.Literal]] = [
                (
                    ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                    ox.NamedNode("http://www.w3.org/ns/dcat#Dataset"),
                ),
                (ox.NamedNode("http://purl.org/dc/terms/identifier"), ox.Literal(label)),
                (
                    ox.NamedNode("http://purl.org/dc/terms/title"),
                    ox.Literal(f"Benchmark dataset {label}"),
                ),
            ]
            described = [
                ox.Quad(uri, p, o, g) for p, o in triples for g in (where, ox.DefaultGraph())
            ]
            ox.serialize(described, out, format=ox.RdfFormat.N_QUADS)
    graph.public.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS)
    path.unlink()
    graph.public.optimize()
    return time.perf_counter() - t0


def real_evaluations(graph: Any) -> tuple[Any, list[Any]]:
    """QALD-9 train (stored in ``graph``) and three systems' evaluations under fair."""
    from service import catalog
    from service.evaluation import evaluate
    from service.model import AnswerSet, SystemAnswer, SystemRun, system_run

    catalog.load_into(graph.catalogue, QALD9, download=False)
    gold = catalog.load(QALD9, download=False)
    upper = system_run(gold, system="gold-answers")
    half = SystemRun(
        "every-other-question",
        {qid: a for k, (qid, a) in enumerate(upper.answers.items()) if k % 2 == 0},
    )
    first = SystemRun(
        "first-answer-only",
        {
            qid: SystemAnswer(
                qid,
                answers=AnswerSet(
                    vars=a.answers.vars, rows=a.answers.rows[:1], boolean=a.answers.boolean
                ),
            )
            for qid, a in upper.answers.items()
        },
    )
    return gold, [evaluate(gold, run, profile="fair") for run in (upper, half, first)]


def real_experiment(graph: Any) -> str:
    """QALD-9 train under fair with three systems of different quality; published."""
    from service.graph.results import DatasetRef

    gold, evaluations = real_evaluations(graph)
    ticket = graph.experiments.record(evaluations, dataset=DatasetRef.catalogue(QALD9, gold))
    graph.experiments.publish(ticket.id)
    return ticket.id


def bench_write(tmp: Path, runs: int) -> None:
    """Recording the 408-question experiment (three systems, six experiment types each) with
    the explanation of every answer, and with the same writer not writing it (the reference,
    in the same run, interleaved)."""
    from service.graph import results
    from service.graph.results import DatasetRef
    from service.graph.store import open_storage

    graph = open_storage(tmp / "write", base=BASE)
    gold, evaluations = real_evaluations(graph)
    explain = results._explanation
    times: dict[str, list[float]] = {"with explanations": [], "without (reference)": []}
    sizes: dict[str, int] = {}
    try:
        for _ in range(runs):
            for name, writer in (
                ("with explanations", explain),
                # the reference names no given answer, as _explanation returns when it names none
                ("without (reference)", lambda *_: set()),
            ):
                results._explanation = writer  # type: ignore[assignment]
                t0 = time.perf_counter()
                ticket = graph.experiments.record(
                    evaluations, dataset=DatasetRef.catalogue(QALD9, gold)
                )
                times[name].append(time.perf_counter() - t0)
                sizes[name] = len(graph.experiments.quads(ticket.id))
    finally:
        results._explanation = explain  # type: ignore[assignment]
        graph.close()
    print(f"\nrecord the 408-question experiment (3 systems), median of {runs} ({load_average()}):")
    reference = statistics.median(times["without (reference)"])
    for name, found in times.items():
        middle = statistics.median(found)
        print(f"  {name:<22} {sizes[name]:>8} quads  {middle:.3f} s  ({middle / reference:.2f}x)")


def row(name: str, figures: tuple[float, float, int], note: str = "") -> None:
    wall, cpu, size = figures
    print(f"  {name:<44} {size / 1024:>8.1f} KB {wall:>9.1f} ms {cpu:>9.1f} ms  {note}")


def header() -> None:
    print(f"  {'page':<44} {'weight':>11} {'wall':>12} {'CPU':>12}")


def old_dataset_page(app: Any, uri: str) -> int:
    """Bytes of the dataset's description and findings rendered as the page did before: the
    generic resource template, a properties table per finding and every finding IRI."""
    from service.web import resources

    with app.test_request_context("/"):
        found = resources._public_document(uri)
        return len(resources._generic_html(uri, found).encode("utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--experiments", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--datasets", default="qald-9-train-multilingual,qald-9-test-multilingual")
    args = parser.parse_args()
    import pyoxigraph

    from service import __version__, catalog
    from service.errors import ServiceError
    from service.graph.store import open_storage
    from service.web import close_app, create_app
    from service.web.state import EXTENSION

    python = platform.python_version()
    print(f"bench/pages.py: GERBIL QA {__version__}, Python {python}, {load_average()}")
    rng = random.Random(42)
    with tempfile.TemporaryDirectory(prefix="gerbil-qa-pages-", dir=os.environ.get("TMPDIR")) as t:
        tmp = Path(t)
        bench_write(tmp, max(3, args.repeat))
        graph = open_storage(tmp / "store", base=BASE)
        built = grow(graph, args.experiments, tmp, rng)
        eid = real_experiment(graph)
        names = (
            [e.name for e in catalog.entries()]
            if args.datasets == "all"
            else args.datasets.split(",")
        )
        loaded = []
        for name in names:
            if name == QALD9:
                loaded.append(name)
                continue
            try:
                catalog.load_into(graph.catalogue, name, download=False)
                loaded.append(name)
            except ServiceError as err:  # a dataset missing here: said, skipped
                print(f"  ({name}: not loaded: {err})")
        app = create_app({"base": BASE, "sparql_workers": 1, "demo": False}, storage=graph)
        try:
            state = app.extensions[EXTENSION]
            state.changed()
            client = app.test_client()
            size = len(cast(Any, graph.store.public))  # the embedded pyoxigraph store
            print(
                f"{args.experiments} synthetic experiments built and compacted in {built:.0f} s; "
                f"{size} public quads; the 408-question experiment {eid}"
            )
            print(f"\nlisting pages, cold, median of {args.repeat} ({load_average()}):")
            header()
            ds = DATASETS[4]  # its experiments are under fair, in English (k % 4 == 0)
            for name, path in (
                ("leaderboards (the most used dataset)", "/leaderboards"),
                ("leaderboards, all datasets", "/leaderboards?dataset=all"),
                (
                    "leaderboards, one dataset/language/profile",
                    f"/leaderboards?dataset={ds}&language=en&profile=fair&sort=microF1",
                ),
                (
                    "leaderboards, all, by accuracy, page 20",
                    "/leaderboards?dataset=all&sort=accuracy&page=20",
                ),
                ("home (one dataset's top 15)", "/"),
                (f"dataset {ds} (its leaderboard)", f"/dataset/{ds}"),
                ("experiments, page 1", "/experiments"),
                ("systems (each with its public experiments)", "/systems"),
                ("sitemap, its first file (every public page)", "/sitemap/1.xml"),
            ):
                row(name, timed(client, state, path, args.repeat))
            print(f"\nthe 408-question experiment {eid}, cold:")
            header()
            row(
                "experiment (3 systems, charts, intervals)",
                timed(client, state, f"/experiment/{eid}", args.repeat),
            )
            row(
                "task 1 (408 explained questions, 100 a page)",
                timed(client, state, f"/experiment/{eid}/task/1", args.repeat),
            )
            row(
                "task 1, ?outcome=wrong",
                timed(client, state, f"/experiment/{eid}/task/1?outcome=wrong", args.repeat),
            )
            row(
                "task 1 as Turtle",
                timed(client, state, f"/experiment/{eid}/task/1.ttl", args.repeat),
            )
            qa_tasks = [
                r["task"].value
                for r in graph.public.query(
                    f"""PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
SELECT ?task WHERE {{ <{BASE}experiment/{eid}> gqa:task ?task .
  ?task gerbil:experimentType gerbil:QA }} ORDER BY ?task"""
                )
            ]
            query = "&".join(f"task={quote(t, safe='')}" for t in qa_tasks)
            row(
                f"compare its {len(qa_tasks)} stored QA tasks (tiers, charts)",
                timed(client, state, f"/compare?{query}", args.repeat),
                "10,000 shuffles a pair, 1,000 resamples",
            )
            row(
                "run page (the catalogue by challenge)",
                timed(client, state, "/experiments/new", args.repeat),
            )
            print("\ndataset pages, cold (reference: the same description and findings as the")
            print("page inlined them before, measured in this run):")
            header()
            for name in loaded:
                uri = graph.uris.dataset(name)
                figures = timed(client, state, f"/dataset/{name}", args.repeat)
                with app.app_context():
                    before = old_dataset_page(app, uri)
                finding = pyoxigraph.NamedNode("http://w3id.org/gerbil/qa/vocab#finding")
                findings = sum(
                    1
                    for _ in graph.public.quads_for_pattern(
                        pyoxigraph.NamedNode(uri), finding, None, pyoxigraph.DefaultGraph()
                    )
                )
                row(
                    f"dataset {name}",
                    figures,
                    f"{findings} findings; before: {before / 1024:.0f} KB "
                    f"({before / figures[2]:.0f}x this page)",
                )
        finally:
            close_app(app)
            graph.close()
    print(f"done; {load_average()}")


if __name__ == "__main__":
    main()
