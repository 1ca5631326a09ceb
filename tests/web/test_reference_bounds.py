"""A reference system's queries are bounded like a Text2SPARQL system's.

``gold-sparql`` runs a dataset's gold queries on the KB, and anyone may upload the dataset: its
queries ran in the service's own process, without a time limit, so one gold query joining the
KB with itself five times held a runner (and a core) for hours, and cancelling could not stop
it. They now run as every system query does: in a worker process killed at the time limit
(``GERBIL_QA_KB_QUERY_TIMEOUT``), and that question fails alone, saying why.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?o ?p }"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("GERBIL_QA_KB_QUERY_TIMEOUT", "2")
        running = start_server(tmp_path_factory.mktemp("bounds-store"), demo=False)
        yield running
    stop_server(running)


def test_a_runaway_gold_query_fails_its_question_at_the_time_limit(site: Server) -> None:
    data = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    runaway = data["questions"][2]
    runaway["query"]["sparql"] = RUNAWAY
    started = time.monotonic()
    made = site.post(
        "api/experiments",
        files=[("dataset_file", ("runaway.json", json.dumps(data).encode()))],
        data={"profile": "exact", "kb": "demo", "reference": "gold=gold-sparql"},
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    state = site.wait_finished(ticket["id"], ticket["token"], timeout=60)
    assert time.monotonic() - started < 40
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    (qa,) = [r for r in state["results"] if r["experimentType"] == "QA"]
    assert qa["measures"]["questions"] == 14  # every question scored, the runaway too
    assert qa["measures"]["errorCount"] == 1 and qa["measures"]["macroF1"] > 0.9
    number = qa["task"].rsplit("/", 1)[1]
    page = site.get(f"experiment/{ticket['id']}/task/{number}", headers=auth).text
    assert "longer than the limit of 2 s" in page  # its question says why it has no answer
