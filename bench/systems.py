"""Systems and KB benchmarks: concurrent web-service calls, batched KB identity lookups.

    .venv/bin/python bench/systems.py [--questions 150] [--latency-ms 200] [--kb-latency-ms 20]

1. **Web service.** ``gerbil-qa system serve baseline --delay-ms 200`` runs as its own process
   on 127.0.0.1 (every answer takes 200 ms); a 150-question experiment is run against it with
   concurrency 4 and with concurrency 1 (the sequential reference, measured in the same run).
   Target: wall time with concurrency c at most 1.25 × (sequential time / c).
2. **KB identity.** Every distinct IRI of the QALD-9 test gold answers (4310) is looked up for
   its owl:sameAs closure on a remote SPARQL endpoint: the ``oxigraph`` server
   (``serve-read-only``) behind a proxy adding 20 ms to every request, holding a KB built here
   from those IRIs (a sameAs link and a label each, plus filler). Batched (VALUES blocks of
   100) against one lookup per IRI (what GERBIL does), same code, same answers (checked).
   Targets: at least 50× fewer round trips and at least 20× less time. Also shown: the batched
   lookup of every spelling the identity rules produce, as the ``fair`` profile asks it.
3. **Text2SPARQL.** A Text2SPARQL service on 127.0.0.1 answers each of CK25's 50 questions
   with its gold query after ``--t2s-latency-ms`` (100 ms); the whole experiment runs through
   the application layer (asked with concurrency 4, every query executed on CK25's two graphs,
   scored with ``text2sparql``). Reported: the asking phase against 50 × latency / concurrency
   (target ≤ 1.25×), the query execution and the whole run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Running a script puts its folder first on sys.path, where bench/http.py would shadow the
# standard library's http package (which urllib and requests import): put the root there.
sys.path[0] = str(ROOT)
DATA = Path(os.environ.get("GERBIL_QA_DATA", ROOT.parent / "shared" / "data")).resolve()
TEST9 = DATA / "qald" / "ag-sc_QALD" / "9" / "data" / "qald-9-test-multilingual.json"
DBR = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def web_service(questions: int, latency_ms: float, concurrency: int, work: Path) -> bool:
    from service.model import Dataset, Question, QuestionText
    from service.systems.localnet import free_port, wait_for_port
    from service.systems.safety import NetworkPolicy
    from service.systems.webservice import WebService, run_web_service

    kb = work / "countries.ttl"
    lines = ["@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."]
    lines.append(f'<{DBO}capital> rdfs:label "capital"@en .')
    for i in range(questions):
        lines.append(
            f'<{DBR}Country_{i}> rdfs:label "Country {i}"@en ; <{DBO}capital> <{DBR}C{i}> .'
        )
    kb.write_text("\n".join(lines), encoding="utf-8")
    dataset = Dataset(
        "bench",
        tuple(
            Question(str(i), (QuestionText("en", f"What is the capital of Country {i}?"),))
            for i in range(questions)
        ),
    )
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "service",
            "system",
            "serve",
            "baseline",
            "--kb",
            str(kb),
            "--port",
            str(port),
            "--delay-ms",
            str(latency_ms),
            "--threads",
            str(max(16, 2 * concurrency)),
        ],
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
    )
    try:
        wait_for_port(port, timeout=30)
        url = f"http://127.0.0.1:{port}/"
        policy = NetworkPolicy.allowing("127.0.0.1/32")
        # Warm up (imports, the server's first request), not measured.
        run_web_service(
            Dataset("warm", dataset.questions[:4]), WebService(url, policy=policy, concurrency=4)
        )
        times = {}
        for c in (concurrency, 1):
            started = time.perf_counter()
            result = run_web_service(dataset, WebService(url, policy=policy, concurrency=c))
            times[c] = time.perf_counter() - started
            assert result.errors == 0 and len(result.run.answers) == questions, result.errors
            assert all(not a.answers.is_empty for a in result.run.answers.values())
            mean = result.mean_runtime_ms or 0.0
            print(
                f"  concurrency {c}: {times[c]:7.2f} s wall, mean call {mean:6.1f} ms, "
                f"{questions / times[c]:6.1f} questions/s"
            )
    finally:
        server.terminate()
        server.wait(timeout=10)
    ideal = times[1] / concurrency
    ratio = times[concurrency] / ideal
    ok = ratio <= 1.25
    print(
        f"  sequential/{concurrency} = {ideal:.2f} s; concurrent wall / that = {ratio:.3f} "
        f"(target <= 1.25): {_verdict(ok)}"
    )
    return ok


def _gold_iris() -> list[str]:
    from service import formats

    dataset = formats.read(TEST9)
    found: dict[str, None] = {}
    for question in dataset.questions:
        if question.answers is not None:
            for term in question.answers.values():
                if term.is_iri:
                    found.setdefault(term.value, None)
    return list(found)


def _identity_kb(iris: list[str], path: Path, *, filler: int = 50_000) -> None:
    from service.kb.terms import iri_ref, literal

    lines = []
    for n, iri in enumerate(iris):
        ref = iri_ref(iri)
        if ref is None:
            continue
        name = iri.rsplit("/", 1)[-1].replace("_", " ")
        lines.append(
            f"{ref} <http://www.w3.org/2002/07/owl#sameAs> <http://www.wikidata.org/entity/Q{n}> ."
        )
        lines.append(
            f"{ref} <http://www.w3.org/2000/01/rdf-schema#label> {literal(name, lang='en')} ."
        )
    for n in range(filler):  # unrelated data, so the store is not only the keys
        lines.append(f'<{DBR}Filler_{n}> <{DBO}wikiPageID> "{n}" .')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def kb_identity(latency_ms: float, batch_size: int, work: Path) -> bool:
    from service.evaluation.kbview import KBRequests, resolve
    from service.kb.identity import canonical_iris
    from service.kb.remote import RemoteKB
    from service.systems.localnet import LatencyProxy, OxigraphServer

    iris = _gold_iris()
    kb_file = work / "qald9-identity.nt"
    _identity_kb(iris, kb_file)
    print(f"  QALD-9 test: {len(iris)} distinct gold IRIs; KB {kb_file.stat().st_size // 1024} KiB")
    with OxigraphServer([kb_file]) as server:
        target = f"http://127.0.0.1:{server.port}"
        with LatencyProxy(target, delay=latency_ms / 1000) as proxy:
            endpoint = proxy.url + "/query"
            RemoteKB(endpoint).same_as(iris[:10])  # warm up, not measured
            results = {}
            figures = {}
            for label, size in (("batched", batch_size), ("one per IRI", 1)):
                kb = RemoteKB(endpoint, batch_size=size)
                started = time.perf_counter()
                results[label] = kb.same_as(iris)
                figures[label] = (time.perf_counter() - started, kb.round_trips)
                print(
                    f"  {label:12s}: {figures[label][1]:6d} round trips, {figures[label][0]:8.2f} s"
                )
            assert results["batched"] == results["one per IRI"], "batched answers differ"
            linked = sum(1 for closure in results["batched"].values() if len(closure) > 1)
            print(f"  same answers both ways; {linked} IRIs have a sameAs link in the KB")
            kb = RemoteKB(endpoint, batch_size=batch_size)
            started = time.perf_counter()
            spellings = frozenset(s for iri in iris for s in canonical_iris(iri))
            resolve(kb, KBRequests(same_as=spellings))
            spent = time.perf_counter() - started
            print(
                f"  every spelling, batched (as fair asks): {kb.round_trips} round trips, "
                f"{spent:.2f} s for {len(iris)} IRIs ({len(spellings)} spellings)"
            )
    (t_batch, n_batch), (t_single, n_single) = figures["batched"], figures["one per IRI"]
    trips, speed = n_single / n_batch, t_single / t_batch
    ok = trips >= 50 and speed >= 20
    print(
        f"  {trips:.0f}x fewer round trips (target >= 50), {speed:.1f}x less time "
        f"(target >= 20): {_verdict(ok)}"
    )
    return ok


def text2sparql(latency_ms: float, concurrency: int) -> bool:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import parse_qs, urlsplit

    from service import catalog
    from service.experiments.asked import Text2SparqlService
    from service.experiments.run import run_experiment
    from service.experiments.spec import CatalogueDataset, ExperimentSpec, RunOptions
    from service.systems.safety import NetworkPolicy

    dataset = catalog.load("text2sparql-2025-ck25")
    queries = {t.string: q.sparql for q in dataset.questions for t in q.texts if t.string}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            question = parse_qs(urlsplit(self.path).query).get("question", [""])[0]
            time.sleep(latency_ms / 1000)
            body = json.dumps({"query": queries.get(question, "")}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    phases: dict[str, float] = {}

    def progress(state) -> None:  # the first time each phase is seen, the last answer
        now = time.perf_counter()
        phases.setdefault(state.phase, now)
        system = state.systems[0]
        if state.phase == "asking" and system.total and system.done == system.total:
            phases.setdefault("asked", now)

    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/api"
        spec = ExperimentSpec(
            dataset=CatalogueDataset("text2sparql-2025-ck25"),
            systems=(Text2SparqlService("gold-queries", url),),
            profile="text2sparql",
            options=RunOptions(concurrency=concurrency),
        )
        policy = NetworkPolicy.allowing("127.0.0.1/32")
        started = time.perf_counter()
        outcome = run_experiment(spec, policy=policy, progress=progress)
        total = time.perf_counter() - started
    finally:
        server.shutdown()
        server.server_close()
    [ev] = outcome.evaluations
    qa = ev.tasks[next(iter(ev.tasks))]
    asking = phases["asked"] - phases["asking"]
    executing = phases["scoring"] - phases["asked"]
    ideal = len(dataset.questions) * latency_ms / 1000 / concurrency
    ratio = asking / ideal
    ok = ratio <= 1.25
    print(
        f"  {len(dataset.questions)} questions asked in {asking:.2f} s (50 x {latency_ms:g} ms / "
        f"{concurrency} = {ideal:.2f} s; ratio {ratio:.3f}, target <= 1.25: {_verdict(ok)}); "
        f"their queries run on CK25 (graphs loaded) in {executing:.2f} s; whole run "
        f"{total:.2f} s; macro F1 {qa.measures.get('macroF1'):.4f} "
        f"({qa.measures.get('errorCount')} queries failed on Oxigraph)"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=150)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--kb-latency-ms", type=float, default=20.0)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--t2s-latency-ms", type=float, default=100.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gerbil-qa-bench-") as tmp:
        work = Path(tmp)
        print(
            f"1. web service: {args.questions} questions, {args.latency_ms:g} ms per answer, "
            f"concurrency {args.concurrency} vs 1"
        )
        ok_ws = web_service(args.questions, args.latency_ms, args.concurrency, work)
        print(
            f"2. KB identity: QALD-9 test gold IRIs, remote endpoint + {args.kb_latency_ms:g} ms "
            f"per request, VALUES blocks of {args.batch_size} vs one lookup per IRI"
        )
        if not TEST9.exists():
            print(f"  skipped: {TEST9} not found (set GERBIL_QA_DATA)")
            ok_kb = True
        else:
            ok_kb = kb_identity(args.kb_latency_ms, args.batch_size, work)
        print(
            f"3. Text2SPARQL: CK25's 50 questions, a service answering its gold queries after "
            f"{args.t2s_latency_ms:g} ms, concurrency {args.concurrency}, queries run on CK25"
        )
        ok_t2s = text2sparql(args.t2s_latency_ms, args.concurrency)
    verdicts = {"webService": ok_ws, "kbIdentity": ok_kb, "text2sparql": ok_t2s}
    print(json.dumps({k: _verdict(v) for k, v in verdicts.items()}))
    return 0 if all(verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
