"""Memory of reading what a web service answered, in process (tracemalloc), one figure a case.

    .venv/bin/python bench/responses.py [--bindings 150000,90000] [--queries 16]

1. **QALD-JSON responses.** One response of N bindings (``{"x": {"type": "uri", ...}}`` each,
   as a service answering a large SELECT): 150,000 (~7.5 MB, refused by the 100,000-answers
   limit per question) and 90,000 (~4.5 MB, read). Printed: the body's size, the peak of
   ``parse_answer`` above what was allocated before, and what the answer keeps.
2. **Text2SPARQL answers file.** ``--queries`` answers whose query is 64 KiB (the longest a
   service's query may be: ``sparql_max_query_bytes``) archived as the run keeps them: the
   file's size and the peak while writing it.

No bound is asserted (a figure only; the machine's allocator and Python's version move it).
explore46 4 saw ~130 MB a response of 150,000 bindings in a server (2 GB for one run at
concurrency 8); the reader then decoded such a body twice, the first copy kept alive.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # not bench/ first: bench/http.py would shadow the standard library's


def _body(bindings: int) -> bytes:
    rows = ",".join(
        json.dumps({"x": {"type": "uri", "value": f"http://ex.org/r{i}"}}) for i in range(bindings)
    )
    question = '{"id": "1", "question": [{"language": "en", "string": "q"}], "answers": ['
    answers = '{"head": {"vars": ["x"]}, "results": {"bindings": [' + rows + "]}}"
    return ('{"questions": [' + question + answers + "]}]}").encode()


def _mb(n: float) -> str:
    return f"{n / 2**20:,.1f} MB"


def response(bindings: int) -> None:
    from service.systems.response import BadResponse, parse_answer

    body = _body(bindings)
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    started = time.perf_counter()
    try:
        answer, _warnings = parse_answer(body, question_id="1", system="s")
        said = f"read, {len(answer.answers.rows):,} answers"
    except BadResponse as err:
        answer, said = None, f"refused ({str(err)[:60]}…)"
    seconds = time.perf_counter() - started
    now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"QALD-JSON response, {bindings:,} bindings ({_mb(len(body))}): {said}; "
        f"peak {_mb(peak - before)}, kept {_mb(now - before)}, {seconds:.2f} s (traced)"
    )
    del answer


def text2sparql_archive(queries: int) -> None:
    from service.model import Dataset, Question, QuestionText, SystemAnswer, SystemRun
    from service.systems.archive import QUERY_FORMAT, answer_file
    from service.web.sparql_guard import DEFAULT_MAX_BYTES

    dataset = Dataset(
        id="bench",
        questions=tuple(
            Question(id=str(n), texts=(QuestionText("en", f"Question {n}?"),))
            for n in range(1, queries + 1)
        ),
    )
    query = "SELECT * WHERE { ?s ?p ?o } #"
    query += "x" * (DEFAULT_MAX_BYTES - len(query) - 8)
    run = SystemRun(
        "bench",
        {q.id: SystemAnswer(q.id, sparql=f"{query}{q.id:>8}") for q in dataset.questions},
    )
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    data = answer_file(run, dataset, language="en", format=QUERY_FORMAT)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"Text2SPARQL answers file, {queries} queries of {DEFAULT_MAX_BYTES:,} bytes: "
        f"{_mb(len(data))}, peak while writing {_mb(peak - before)} "
        f"({(peak - before) / len(data):.1f}x the file)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bindings", default="150000,90000")
    parser.add_argument("--queries", type=int, default=16)
    args = parser.parse_args()
    for n in (int(x) for x in args.bindings.split(",") if x.strip()):
        response(n)
    text2sparql_archive(args.queries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
