"""SPARQL parsing speed: ``service.sparql`` against rdflib's parser, measured in the same run.

    .venv/bin/python bench/sparql.py [--runs N]

Prints
1. the time of ``import service.sparql`` in a fresh interpreter (min and median of N runs;
   target < 20 ms), next to ``import rdflib.plugins.sparql.parser`` and its ratio; also the
   extra cost once ``dataclasses``/``typing`` are loaded anyway (as in ``gerbil-qa evaluate``);
2. the time to parse the 150 QALD-9 test gold queries (target < 50 ms in total): the first
   pass in a fresh interpreter (what ``gerbil-qa evaluate`` pays) and the best in-process pass,
   in ms per query, next to rdflib's ``parseQuery`` and ``parseQuery`` + ``translateQuery``
   (what gives rdflib's triple patterns) on the same queries, and the speed-ups;
3. the throughput over every distinct gold query in the JSON files of the benchmark data
   (QALD 5–10, QALD-9-plus, LC-QuAD 1.0, NLQ, system outputs).

Bytecode is cached in a temporary ``PYTHONPYCACHEPREFIX`` (warmed once), as an installed
package would have it, even where ``PYTHONDONTWRITEBYTECODE`` is set.
"""

# ruff: noqa: E402  (the imports follow the sys.path repair below, on purpose)
from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path, where bench/http.py and
# bench/statistics.py would shadow the standard library's http package and statistics module
# (rdflib imports http): drop that entry before any import (the root is added where needed).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse
import glob
import json
import os
import statistics
import subprocess
import tempfile
import time

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("GERBIL_QA_DATA", ROOT.parent / "shared" / "data")).resolve()
TEST9 = DATA / "qald" / "ag-sc_QALD" / "9" / "data" / "qald-9-test-multilingual.json"

IMPORT_TARGET_MS = 20.0
PARSE_TARGET_MS = 50.0


def _env(cache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _fresh(code: str, env: dict[str, str]) -> float:
    """Run ``code`` in a fresh interpreter; it prints one number, returned as a float."""
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def _timed_import(module: str, before: str = "") -> str:
    return (
        f"{before}\nimport time\nt = time.perf_counter()\nimport {module}\n"
        "print((time.perf_counter() - t) * 1000)"
    )


def gold_queries() -> list[str]:
    data = json.loads(TEST9.read_text(encoding="utf-8"))
    return [q["query"]["sparql"] for q in data["questions"] if q.get("query", {}).get("sparql")]


def all_distinct_queries() -> list[str]:
    texts: dict[str, None] = {}
    for name in sorted(glob.glob(str(DATA / "**" / "*.json"), recursive=True)):
        try:
            data = json.loads(Path(name).read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        items = data if isinstance(data, list) else data.get("questions", [])
        for q in items if isinstance(items, list) else []:
            query = q.get("query") if isinstance(q, dict) else None
            text = query.get("sparql") if isinstance(query, dict) else query
            text = text or (
                q.get("sparql") or q.get("sparql_query") if isinstance(q, dict) else None
            )
            if isinstance(text, str) and text.strip():
                texts[text] = None
    return list(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh interpreters per figure")
    args = parser.parse_args()
    if not TEST9.is_file():
        sys.exit(f"QALD-9 test not found at {TEST9} (set GERBIL_QA_DATA)")
    sys.path.insert(0, str(ROOT))
    queries = gold_queries()

    with tempfile.TemporaryDirectory() as cache:
        env = _env(cache)
        for module in ("service.sparql", "rdflib.plugins.sparql.parser"):
            _fresh(_timed_import(module), env)  # warm the bytecode cache
        ours = sorted(_fresh(_timed_import("service.sparql"), env) for _ in range(args.runs))
        extra = sorted(
            _fresh(_timed_import("service.sparql", "import dataclasses, typing"), env)
            for _ in range(args.runs)
        )
        theirs = sorted(
            _fresh(_timed_import("rdflib.plugins.sparql.parser"), env)
            for _ in range(max(3, args.runs // 3))
        )
        first_pass = sorted(
            _fresh(
                "import json, time\nfrom service.sparql import parse_query, SparqlSyntaxError\n"
                f"qs = json.load(open({str(TEST9)!r}))['questions']\n"
                "qs = [q['query']['sparql'] for q in qs if q.get('query', {}).get('sparql')]\n"
                "t = time.perf_counter()\n"
                "for q in qs:\n"
                "    try:\n        parse_query(q)\n"
                "    except SparqlSyntaxError:\n        pass\n"
                "print((time.perf_counter() - t) * 1000)",
                env,
            )
            for _ in range(args.runs)
        )

    print("1. import, fresh interpreter, ms (min / median)")
    ours_median = statistics.median(ours)
    print(f"   service.sparql                        {ours[0]:7.1f} / {ours_median:7.1f}")
    extra_median = statistics.median(extra)
    print(f"   service.sparql, dataclasses+typing in {extra[0]:7.1f} / {extra_median:7.1f}")
    print(
        f"   rdflib.plugins.sparql.parser          {theirs[0]:7.1f} / "
        f"{statistics.median(theirs):7.1f}   ({statistics.median(theirs) / ours_median:.0f}x ours)"
    )
    verdict = "met" if ours_median < IMPORT_TARGET_MS else "MISSED"
    print(f"   target < {IMPORT_TARGET_MS:.0f} ms (median): {verdict}")

    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    from service.sparql import SparqlSyntaxError, parse_query

    def ours_pass() -> tuple[float, int]:
        failed = 0
        start = time.perf_counter()
        for q in queries:
            try:
                parse_query(q)
            except SparqlSyntaxError:
                failed += 1
        return (time.perf_counter() - start) * 1000, failed

    def rdflib_pass(translate: bool) -> tuple[float, int]:
        failed = 0
        start = time.perf_counter()
        for q in queries:
            try:
                parsed = parseQuery(q)
                if translate:
                    translateQuery(parsed)
            except Exception:  # rdflib raises several kinds; any means "rejected"
                failed += 1
        return (time.perf_counter() - start) * 1000, failed

    best, failed = min(ours_pass() for _ in range(args.runs))
    rdflib_parse, rdflib_failed = min(rdflib_pass(False) for _ in range(5))
    rdflib_full, _ = min(rdflib_pass(True) for _ in range(5))
    first = statistics.median(first_pass)
    n = len(queries)
    print(f"\n2. the {n} QALD-9 test gold queries (lenient dialect; {failed} rejected), ms")
    print(f"   ours, first pass in a fresh process   {first:7.1f}   ({first / n:.3f} ms/query)")
    print(f"   ours, best in-process pass            {best:7.1f}   ({best / n:.3f} ms/query)")
    print(
        f"   rdflib parseQuery                     {rdflib_parse:7.1f}   ({rdflib_parse / n:.3f}"
        f" ms/query, {rdflib_failed} rejected)   speed-up {rdflib_parse / best:.0f}x"
    )
    print(
        f"   rdflib parseQuery + translateQuery    {rdflib_full:7.1f}   ({rdflib_full / n:.3f}"
        f" ms/query)   speed-up {rdflib_full / best:.0f}x"
    )
    verdict = "met" if first < PARSE_TARGET_MS else "MISSED"
    print(f"   target < {PARSE_TARGET_MS:.0f} ms in total (first pass): {verdict}")

    everything = all_distinct_queries()
    start = time.perf_counter()
    rejected = 0
    for q in everything:
        try:
            parse_query(q)
        except SparqlSyntaxError:
            rejected += 1
    took = time.perf_counter() - start
    print(
        f"\n3. all {len(everything)} distinct gold queries of the JSON data files: {took:.2f} s, "
        f"{len(everything) / took:,.0f} queries/s ({rejected} rejected by the lenient dialect)"
    )


if __name__ == "__main__":
    main()
