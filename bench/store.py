"""Store benchmark: write time of one 400-question experiment, and leaderboard latency at 1k,
10k and 100k stored experiments next to a minimal raw-pyoxigraph cube built in the same run.

Targets (issue 3): one write <= 0.2 s; leaderboard <= 1.2x the raw cube at each size, growth no
worse than linear. The large stores are built with ``bulk_load`` for the benchmark only (the
service writes one experiment per transaction). Run: ``python bench/store.py [--sizes 1000,10000]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyoxigraph  # noqa: E402

from service.evaluation.profiles import get_profile  # noqa: E402
from service.evaluation.results import (  # noqa: E402
    Evaluation,
    ExperimentType,
    QuestionScore,
    TaskScores,
)
from service.graph.results import DatasetRef, ExperimentRecord, experiment_triples  # noqa: E402
from service.graph.store import GraphStore  # noqa: E402
from service.graph.uris import Uris  # noqa: E402
from service.model import AnswerSet, Dataset, Question, QuestionText, Term  # noqa: E402

GQA = "http://w3id.org/gerbil/qa/vocab#"
GERBIL = "http://w3id.org/gerbil/vocab#"
QB = "http://purl.org/linked-data/cube#"
PROFILE = get_profile("fair")
DATASETS = [f"bench-dataset-{i}" for i in range(20)]
SYSTEMS = [f"system-{i}" for i in range(50)]

LEADERBOARD = f"""PREFIX gerbil: <{GERBIL}> PREFIX gqa: <{GQA}>
SELECT ?system (MAX(?f1) AS ?best) (COUNT(?obs) AS ?runs) WHERE {{
  ?obs gerbil:macroF1 ?f1 ; gerbil:dataset <%s> ; gerbil:experimentType gqa:QA ;
       gqa:profile <{PROFILE.iri}> ; gerbil:annotator ?system .
}} GROUP BY ?system ORDER BY DESC(?best) ?system"""


def evaluation(n_questions: int, *, system: str, dataset: str, rng: random.Random) -> Evaluation:
    scores = []
    for i in range(n_questions):
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
    macro = statistics.fmean(s.f1 for s in scores) if scores else 0.0
    measures = {
        "microPrecision": macro,
        "microRecall": macro,
        "microF1": macro,
        "macroPrecision": macro,
        "macroRecall": macro,
        "macroF1": macro,
        "macroF1QALD": macro,
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


def bench_write(tmp: Path, rng: random.Random) -> None:
    ds = dataset(400)
    store = GraphStore(tmp / "write", catalog=False)
    store.store_dataset("bench-400", ds)
    store.ensure_catalog()
    times = []
    for _ in range(7):
        ev = evaluation(400, system="system-0", dataset="bench-400", rng=rng)
        t0 = time.perf_counter()
        store.record_experiment([ev], dataset=ds, dataset_name="bench-400", catalogued=True)
        times.append(time.perf_counter() - t0)
    n_quads = len(store.experiment_quads(store.list_experiments(include_private=True)[0].id))
    store.close()
    print(f"write one 400-question experiment ({n_quads} quads, on disk, one transaction):")
    print(f"  median {statistics.median(times):.3f} s   min {min(times):.3f} s   (target <= 0.2 s)")


def build_stores(n: int, tmp: Path, rng: random.Random):
    """The service's public store with n published experiments, and the raw cube."""
    uris = Uris()
    now = datetime(2024, 1, 1, tzinfo=UTC)
    ours_file = tmp / f"ours-{n}.nq"
    raw_file = tmp / f"raw-{n}.nt"
    with ours_file.open("w") as ours, raw_file.open("w") as raw:
        for k in range(n):
            eid = f"2024{1 + k // 9999 // 28 % 12:02d}{1 + k // 9999 % 28:02d}{1 + k % 9999:04d}"
            ds_name = DATASETS[k % len(DATASETS)]
            system = SYSTEMS[rng.randrange(len(SYSTEMS))]
            ev = evaluation(2, system=system, dataset=ds_name, rng=rng)
            record = ExperimentRecord(eid, (ev,), DatasetRef(ds_name, True), now, now, "bench", ())
            graph = f"<{uris.experiment_graph(eid)}>"
            for line in experiment_triples(record, uris):
                ours.write(line[:-1] + graph + " .\n")
                ours.write(line + "\n")  # the public default graph: union of public graphs
            obs = f"<{uris.task(eid, 1)}>"
            f1 = ev.tasks[ExperimentType.QA].measures["macroF1"]
            raw.write(
                f"{obs} <{QB}dataSet> <{uris.experiment(eid)}> .\n"
                f"{obs} <{GERBIL}annotator> <{uris.system(system)}> .\n"
                f"{obs} <{GERBIL}dataset> <{uris.dataset(ds_name)}> .\n"
                f"{obs} <{GERBIL}experimentType> <{GQA}QA> .\n"
                f"{obs} <{GQA}profile> <{PROFILE.iri}> .\n"
                f'{obs} <{GERBIL}macroF1> "{f1!r}"^^<http://www.w3.org/2001/XMLSchema#double> .\n'
            )
    store = GraphStore(tmp / f"ours-{n}")
    store.public.bulk_load(path=str(ours_file), format=pyoxigraph.RdfFormat.N_QUADS)
    raw_store = pyoxigraph.Store(str(tmp / f"raw-{n}"))
    raw_store.bulk_load(path=str(raw_file), format=pyoxigraph.RdfFormat.N_TRIPLES)
    ours_file.unlink()
    raw_file.unlink()
    return store, raw_store


def latency(run, repeat: int = 15) -> float:
    run()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_leaderboard(sizes: list[int], tmp: Path, rng: random.Random) -> None:
    print("leaderboard (best macro F1 per system on one dataset; median of 15):")
    print(f"  {'experiments':>11}  {'quads':>10}  {'ours ms':>8}  {'raw ms':>8}  {'ratio':>6}")
    previous = None
    for n in sizes:
        t0 = time.perf_counter()
        store, raw_store = build_stores(n, tmp, rng)
        built = time.perf_counter() - t0
        query = LEADERBOARD % store.uris.dataset(DATASETS[3])
        ours_rows = [tuple(r) for r in store.query_public(query)]
        raw_rows = [tuple(r) for r in raw_store.query(query)]
        assert ours_rows == raw_rows and ours_rows, "the two cubes must give the same leaderboard"
        ours = latency(lambda: list(store.query_public(query)))  # noqa: B023
        ref = latency(lambda: list(raw_store.query(query)))  # noqa: B023
        growth = (
            ""
            if previous is None
            else f"  growth x{ours / previous[1]:.1f} for x{n / previous[0]:.0f} data"
        )
        print(
            f"  {n:>11}  {len(store.public):>10}  {ours * 1000:>8.2f}  {ref * 1000:>8.2f}  "
            f"{ours / ref:>5.2f}x{growth}   (built in {built:.0f} s)"
        )
        previous = (n, ours)
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    rng = random.Random(42)
    with tempfile.TemporaryDirectory(prefix="gerbil-qa-bench-") as tmp:
        bench_write(Path(tmp), rng)
        bench_leaderboard([int(s) for s in args.sizes.split(",")], Path(tmp), rng)


if __name__ == "__main__":
    main()
