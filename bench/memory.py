"""Memory of a large run: peak resident memory of ``gerbil-qa evaluate --store`` at 5,000 and
20,000 questions, and a server's resident memory before, during and after one such run.

    .venv/bin/python bench/memory.py [--questions 5000,20000] [--keep DIR]

1. Generate, for each size, a QALD-JSON of trivial questions (each one gold SPARQL query and one
   URI answer) and its answers (the same file with every third answer wrong).
2. ``gerbil-qa evaluate --dataset gold.json --answers answers.json --system Big --store DIR``
   under ``/usr/bin/time -v``: wall time and peak RSS; per thousand questions, and the largest
   size's ratio to the smallest's (the reference measured in the same run).
3. ``gerbil-qa serve`` on 127.0.0.1 (a fresh store): its RSS at rest, the largest size uploaded
   (dataset_file + answers), its peak (``VmHWM``) and its RSS once the run finished; the bound:
   after the run within 0.5 GiB of before (explore-16 4: ~6 GB kept after one run). Then the
   owner's whole status answer twice: the second is kept by its ETag (its time a ratio of the
   first's).

Needs no benchmark data (the files are generated).
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where bench/http.py and
# bench/statistics.py would shadow the standard library's modules: put the root there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from bench.bigfile import peak_rss, timed_run, wait_started
from service.systems.localnet import free_port

ROOT = Path(__file__).resolve().parents[1]
GIB = 1024**3
MIB = 1024**2
SERVE = [sys.executable, "-m", "service", "serve"]


def generate(path: Path, questions: int, *, wrong: bool) -> None:
    """The dataset (``wrong`` False) or its answers (every third answer another IRI)."""
    items = []
    for i in range(questions):
        answer = f"http://dbpedia.org/resource/{'W' if wrong and i % 3 == 0 else 'A'}{i}"
        items.append(
            {
                "id": str(i),
                "question": [{"language": "en", "string": f"Q {i}?"}],
                "query": {
                    "sparql": f"SELECT ?x WHERE {{ <http://dbpedia.org/resource/T{i}> "
                    "<http://dbpedia.org/ontology/p> ?x }"
                },
                "answers": [
                    {
                        "head": {"vars": ["x"]},
                        "results": {"bindings": [{"x": {"type": "uri", "value": answer}}]},
                    }
                ],
            }
        )
    path.write_text(json.dumps({"dataset": {"id": f"big{questions}"}, "questions": items}))


def rss(pid: int) -> int:
    """VmRSS of ``pid`` in bytes (its resident memory now)."""
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def serve_run(
    work: Path, gold: Path, answers: Path, env: dict[str, str]
) -> tuple[int, int, int, int, int, int, float, float]:
    """RSS at rest, peak, after the run (bytes), the run's seconds; then the peak, the RSS
    after one whole status answer (every question's record), its seconds and the seconds of
    the same answer asked again."""
    import requests

    store = work / "serve-store"
    shutil.rmtree(store, ignore_errors=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [*SERVE, "--store", str(store), "--port", str(port), "--no-demo"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(work / "server.log").open("w"),
    )
    try:
        wait_started(url)
        before = rss(server.pid)
        start = time.perf_counter()
        with gold.open("rb") as g, answers.open("rb") as a:
            response = requests.post(
                url + "api/experiments",
                files=[("dataset_file", (gold.name, g)), ("answers", (answers.name, a))],
                timeout=600,
            )
        if response.status_code != 202:
            raise SystemExit(f"submission refused: {response.status_code} {response.text[:500]}")
        ticket = response.json()
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        status = url + f"api/experiments/{ticket['id']}"
        while True:  # a poller's light answer (?questions=false)
            state = requests.get(status + "?questions=false", headers=auth, timeout=600).json()
            if state["status"] not in ("queued", "running", "reserved"):
                break
            time.sleep(1)
        took = time.perf_counter() - start
        if state["status"] != "finished":
            raise SystemExit(f"the run ended {state['status']}: {state.get('message')}")
        time.sleep(2)  # the runner's last steps after the status (its memory given back)
        peak, after = peak_rss(server.pid), rss(server.pid)
        # then the whole answer once (every question's record: the whole graph read)
        start = time.perf_counter()
        requests.get(status, headers=auth, timeout=600).raise_for_status()
        whole = time.perf_counter() - start
        # and again, as a poller of the whole answer does: kept by its ETag since
        start = time.perf_counter()
        requests.get(status, headers=auth, timeout=600).raise_for_status()
        again = time.perf_counter() - start
        return (before, peak, after, int(took), peak_rss(server.pid), rss(server.pid), whole,
                again)  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=60)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", default="5000,20000", help="sizes, comma-separated")
    parser.add_argument("--keep", metavar="DIR", help="work here and keep it (default: a temp)")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.questions.split(","))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GERBIL_QA_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["GERBIL_QA_MAX_QUESTIONS_PER_FILE"] = str(max(sizes))
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gqa-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    peaks: dict[int, int] = {}
    files: dict[int, tuple[Path, Path]] = {}
    print(f"{'step':<44} {'seconds':>8} {'peak MiB':>9} {'MiB/1000 q':>11}")
    for size in sizes:
        gold, answers = work / f"gold{size}.json", work / f"answers{size}.json"
        generate(gold, size, wrong=False)
        generate(answers, size, wrong=True)
        files[size] = gold, answers
        store = work / f"store{size}"
        shutil.rmtree(store, ignore_errors=True)
        took, peak, done = timed_run(
            [sys.executable, "-m", "service", "evaluate", "--dataset", str(gold), "--answers",
             str(answers), "--system", "Big", "--store", str(store), "--output", "json"],
            env,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"evaluate failed at {size}: {done.stderr[-2000:]}")
        peaks[size] = peak
        print(
            f"{f'evaluate --store, {size:,} questions':<44} {took:>8.1f} {peak / MIB:>9,.0f} "
            f"{peak / MIB / (size / 1000):>11,.0f}",
            flush=True,
        )
    small, large = sizes[0], sizes[-1]
    print(
        f"ratio {large:,} to {small:,} questions: peak x{peaks[large] / peaks[small]:.2f} "
        f"for x{large / small:g} the questions"
    )
    before, peak, after, took, peak2, after2, whole, again = serve_run(work, *files[large], env)
    print(f"{f'serve, {large:,} questions: at rest':<44} {'':>8} {before / MIB:>9,.0f}")
    print(f"{'serve: the run, peak (VmHWM)':<44} {took:>8} {peak / MIB:>9,.0f}")
    print(f"{'serve: after the run (VmRSS)':<44} {'':>8} {after / MIB:>9,.0f}")
    print(f"{'serve: one whole status answer, peak':<44} {whole:>8.1f} {peak2 / MIB:>9,.0f}")
    print(f"{'serve: after it (VmRSS)':<44} {'':>8} {after2 / MIB:>9,.0f}")
    print(
        f"{'serve: the whole answer again (kept)':<44} {again:>8.3f} "
        f"{'':>9} x{again / whole:.4f} of the first"
    )
    kept = max(after, after2) - before
    held = kept <= GIB // 2
    said = "met" if held else "MISSED"
    print(
        f"server peak / CLI peak at {large:,}: x{peak / peaks[large]:.2f}; kept after: "
        f"{kept / MIB:,.0f} MiB (bound 512 MiB: {said})"
    )
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if held else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
