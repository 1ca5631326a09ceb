"""Big-answer-file benchmark: a ~52 MB QALD-JSON answers file with 10^6 bindings against a served
store, and every way of reading it back, each held to a bound (exit status 1 when one is missed).

    .venv/bin/python bench/bigfile.py [--bindings 1000000] [--keep DIR]

1. Generate the answers: QALD-9 test (150 questions, from the catalogue) answered with its gold
   answers plus filler IRIs, 10^6 bindings spread evenly over the questions (about 6,700 each:
   under the limit of 100,000 per question and 2,000,000 per file), one question a line, about
   52 MB (under the server's 64 MiB upload limit).
2. ``gerbil-qa serve --store DIR`` as a subprocess on 127.0.0.1: submit the file (multipart),
   poll the status every 0.25 s while the job runs (each poll timed), wait for ``finished``,
   publish the experiment, then fetch its page (HTML, Turtle), its first task page, the kept
   answers file and the public dumps (N-Quads, TriG). The server's peak resident memory
   (``VmHWM`` of /proc/PID/status) is read after each step.
3. With the server stopped (it holds the store): ``gerbil-qa check --store DIR``, ``gerbil-qa
   export --store DIR`` (the whole store, and ``--experiment ID``), each under
   ``/usr/bin/time -v`` for its wall time and peak resident memory.

Prints one table: each step's figure, its bound, and whether it held. Needs the benchmark data
(``GERBIL_QA_DATA``, ``../shared/data`` by default).
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
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from service.systems.localnet import free_port

ROOT = Path(__file__).resolve().parents[1]
DATASET = "qald-9-test-multilingual"
GIB = 1024**3
MIB = 1024**2


@dataclass
class Step:
    name: str
    seconds: float | None = None
    rss: int | None = None  # bytes: the process's peak (server: its peak so far)
    note: str = ""
    max_seconds: float | None = None
    max_rss: int | None = None

    @property
    def held(self) -> bool:
        if self.max_seconds is not None and (
            self.seconds is None or self.seconds > self.max_seconds
        ):
            return False
        return not (self.max_rss is not None and (self.rss is None or self.rss > self.max_rss))


def generate(path: Path, bindings: int) -> tuple[int, int]:
    """The answers file: the dataset's questions, gold bindings first, then filler IRIs; returns
    (questions, bindings written)."""
    from service import catalog
    from service.model import TermKind

    dataset = catalog.load(DATASET)
    questions = list(dataset.questions)
    per, extra = divmod(bindings, len(questions))
    written = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"dataset": {"id": DATASET}})[:-1] + ', "questions": [\n')
        for n, question in enumerate(questions):
            want = per + (1 if n < extra else 0)
            gold = [
                row
                for row in (question.answers.rows if question.answers is not None else ())
                if len(row) == 1
            ][:want]
            rows = []
            for row in gold:
                ((_var, term),) = row.items()
                kind = "uri" if term.kind is TermKind.IRI else "literal"
                rows.append('{"x":' + json.dumps({"type": kind, "value": term.value}) + "}")
            rows += [
                f'{{"x":{{"type":"uri","value":"http://ex.org/a{written + i}"}}}}'
                for i in range(want - len(rows))
            ]
            written += len(rows)
            body = {
                "id": question.id,
                "question": [{"language": "en", "string": question.text("en") or ""}],
                "answers": ["ANSWERS"],
            }
            line = json.dumps(body).replace(
                '"ANSWERS"',
                '{"head":{"vars":["x"]},"results":{"bindings":[' + ",".join(rows) + "]}}",
            )
            out.write(line + (",\n" if n + 1 < len(questions) else "\n"))
        out.write("]}\n")
    return len(questions), written


def peak_rss(pid: int) -> int:
    """VmHWM of ``pid`` in bytes (its peak resident memory so far)."""
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^VmHWM:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def wait_started(url: str) -> None:
    """Wait (at most a minute) until the server at ``url`` answers."""
    import requests

    for _ in range(600):
        try:
            requests.get(url + "api/profiles", timeout=2)
            return
        except (requests.ConnectionError, requests.Timeout):  # bound, still starting
            time.sleep(0.1)


def timed_run(
    argv: list[str], env: dict[str, str]
) -> tuple[float, int, subprocess.CompletedProcess]:
    """Wall time and peak RSS (bytes) of a command under /usr/bin/time -v."""
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-v", *argv], capture_output=True, text=True, env=env, timeout=1800
    )
    took = time.perf_counter() - start
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    return took, int(found.group(1)) * 1024 if found else 0, done


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bindings", type=int, default=1_000_000)
    parser.add_argument("--keep", metavar="DIR", help="work here and keep it (default: a temp)")
    args = parser.parse_args(argv)
    import requests

    env = dict(os.environ)
    env.setdefault("GERBIL_QA_DATA", str((ROOT.parent / "shared" / "data").resolve()))
    os.environ["GERBIL_QA_DATA"] = env["GERBIL_QA_DATA"]
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gqa-bigfile-"))
    work.mkdir(parents=True, exist_ok=True)
    steps: list[Step] = []
    answers = work / "answers.json"
    start = time.perf_counter()
    questions, written = generate(answers, args.bindings)
    size = answers.stat().st_size
    print(
        f"generated {answers}: {size / 1e6:.1f} MB, {written:,} bindings over {questions} "
        f"questions of {DATASET} ({time.perf_counter() - start:.1f} s)",
        flush=True,
    )
    store = work / "store"
    shutil.rmtree(store, ignore_errors=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    gqa = [sys.executable, "-m", "service"]
    server = subprocess.Popen(
        [*gqa, "serve", "--store", str(store), "--port", str(port), "--no-demo"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(work / "server.log").open("w"),
    )
    failed = False
    experiment = ""
    try:
        wait_started(url)
        base_rss = peak_rss(server.pid)
        steps.append(Step("server at rest", rss=base_rss, note="VmHWM after start"))
        # 1. submit
        data = answers.read_bytes()
        start = time.perf_counter()
        response = requests.post(
            url + "api/experiments",
            data={"dataset": DATASET, "profile": "fair", "language": "en"},
            files=[("answers", ("bigfile.json", data))],
            timeout=600,
        )
        submit = time.perf_counter() - start
        del data
        if response.status_code != 202:
            print(f"submission refused: {response.status_code} {response.text[:2000]}")
            return 1
        ticket = response.json()
        experiment = ticket["id"]
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        steps.append(
            Step("submit (POST, 202)", submit, peak_rss(server.pid), "returns at once", 5.0)
        )
        # 2. polls while the job runs
        polls: list[float] = []
        state: dict[str, Any] = {}
        job_start = start
        last = 0.0
        while True:
            t0 = time.perf_counter()
            state = requests.get(
                url + f"api/experiments/{experiment}", headers=auth, timeout=600
            ).json()
            last = time.perf_counter() - t0
            if state["status"] in ("finished", "error", "cancelled", "interrupted"):
                break
            polls.append(last)
            if time.perf_counter() - job_start > 1200:
                break
            time.sleep(0.25)
        job = time.perf_counter() - job_start
        polls.sort()
        polls = polls or [0.0]
        steps.append(
            Step(
                f"status polls, running ({len(polls)}): max",
                polls[-1],
                note=f"p50 {polls[len(polls) // 2] * 1000:.1f} ms, every 0.25 s",
                max_seconds=0.5,
            )
        )
        steps.append(
            Step("status when finished (+ results)", last, note="the last poll", max_seconds=2.0)
        )
        steps.append(
            Step(
                "job: submit to finished",
                job,
                peak_rss(server.pid),
                f"status {state['status']}"
                + (f": {state.get('message')}" if state["status"] != "finished" else ""),
                120.0,
                GIB,
            )
        )
        if state["status"] != "finished":
            failed = True
            raise RuntimeError(f"the experiment ended {state['status']}: {state.get('message')}")
        published = requests.post(
            url + f"api/experiments/{experiment}/publish", headers=auth, timeout=600
        )
        assert published.status_code == 200, published.text
        # 3. pages and dumps
        uri = ticket["uri"]
        gets = [
            ("experiment page (HTML)", uri, "text/html"),
            ("experiment page (Turtle)", uri, "text/turtle"),
            ("task page (HTML)", f"{uri}/task/1", "text/html"),
            ("kept answers file", None, "*/*"),
            ("public dump (N-Quads)", url + "dump.nq", "*/*"),
            ("public dump (TriG)", url + "dump.trig", "*/*"),
        ]
        for name, target, accept in gets:
            if target is None:
                import hashlib

                target = f"{uri}/file/{hashlib.sha256(answers.read_bytes()).hexdigest()}"
            t0 = time.perf_counter()
            got = requests.get(target, headers={"Accept": accept}, timeout=1200)
            took = time.perf_counter() - t0
            steps.append(
                Step(
                    name,
                    took,
                    peak_rss(server.pid),
                    f"{got.status_code}, {len(got.content) / 1e6:.1f} MB",
                    60.0,
                    GIB,
                )
            )
            failed |= got.status_code != 200
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    # 4. the commands, the server stopped
    if experiment:
        commands = [
            ("gerbil-qa check", ["check", "--store", str(store)]),
            (
                "gerbil-qa export (store)",
                ["export", "--store", str(store), "--output", str(work / "all.nq")],
            ),
            (
                "gerbil-qa export --experiment",
                [
                    "export",
                    "--store",
                    str(store),
                    "--experiment",
                    experiment,
                    "--output",
                    str(work / "one.trig"),
                    "--format",
                    "trig",
                ],
            ),
        ]
        for name, command in commands:
            took, rss, done = timed_run([*gqa, *command], env)
            note = f"exit {done.returncode}"
            if done.returncode != 0:
                note += ": " + (done.stdout + done.stderr).strip().splitlines()[0][:100]
            steps.append(Step(name, took, rss, note, 60.0, GIB))
            failed |= done.returncode != 0
    print()
    print(f"{'step':34} {'time':>10} {'peak RSS':>10}  {'bound':22} held  note")
    for step in steps:
        seconds = f"{step.seconds:.3f} s" if step.seconds is not None else ""
        rss = f"{step.rss / MIB:.0f} MiB" if step.rss is not None else ""
        bound = ", ".join(
            part
            for part in (
                f"≤ {step.max_seconds:g} s" if step.max_seconds is not None else "",
                f"≤ {step.max_rss / MIB:.0f} MiB" if step.max_rss is not None else "",
            )
            if part
        )
        print(
            f"{step.name:34} {seconds:>10} {rss:>10}  {bound:22} "
            f"{'yes ' if step.held else 'NO  '}  {step.note}"
        )
    missed = [s.name for s in steps if not s.held]
    if missed or failed:
        print(f"\nmissed: {', '.join(missed) or 'a step failed'}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if missed or failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
