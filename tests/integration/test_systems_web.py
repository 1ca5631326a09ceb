"""The durable runner inside the web service: an experiment submitted through the JSON API with a
QA web service runs in the service's worker pool, reports progress, archives the answers it
got as an entity of the experiment, can be cancelled through the API and then resumed.

The app is built by the web layer's ``create_app``; its runner is replaced by one with a single
worker and a network policy that allows loopback (the test's QA service).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from service.experiments.runner import ExperimentRunner
from service.kb.local import LocalKB
from service.paths import DEMO_DIR
from service.systems.reference import BaselineSystem
from service.systems.safety import NetworkPolicy
from service.systems.server import ServedSystem, make_app
from service.web.state import EXTENSION

LOCAL = NetworkPolicy.allowing("127.0.0.1/32")


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    kb = LocalKB([DEMO_DIR / "kb.ttl"])
    with ServedSystem(make_app(BaselineSystem(kb), delay=0.05)) as system:
        yield system.url


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from service.web import close_app, create_app
    from service.web.state import EXTENSION

    monkeypatch.setenv("GERBIL_QA_ALLOW_NETWORKS", "127.0.0.1/32")  # submission URL check
    app = create_app({"store": tmp_path / "store", "sparql_workers": 1, "demo": False})
    state = app.extensions[EXTENSION]
    state.runner.close()
    state.runner = ExperimentRunner(
        state.storage, workers=1, on_public_change=state.changed, policy=LOCAL
    )
    yield app
    close_app(app)


def _submit(client: Any, url: str) -> tuple[str, str]:
    body = {
        "dataset": {
            "filename": "questions.json",
            "content": (DEMO_DIR / "questions.json").read_text(encoding="utf-8"),
        },
        "systems": [{"name": "baseline", "url": url}],
        "profile": "fair",
        "kb": "demo",
    }
    return _submitted(client, body)


def _submitted(client: Any, body: dict[str, Any]) -> tuple[str, str]:
    """Submit ``body`` through the API; the experiment's id and owner token."""
    response = client.post("/api/experiments", json=body)
    assert response.status_code == 202, response.get_data(as_text=True)
    data = response.get_json()
    return data["id"], data["token"]


def _status(client: Any, eid: str, token: str) -> dict[str, Any]:
    response = client.get(f"/api/experiments/{eid}", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def _wait(client: Any, eid: str, token: str, *statuses: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = _status(client, eid, token)
        if status["status"] in statuses:
            return status
        time.sleep(0.05)
    raise AssertionError(f"experiment {eid} never reached {statuses}: {status}")


def test_api_experiment_with_a_web_service_runs_durably(app: Any, served: str) -> None:
    from service.web.state import EXTENSION

    client = app.test_client()
    view = app.extensions[EXTENSION].view
    snapshot = view.path  # the public snapshot the SPARQL workers read
    eid, token = _submit(client, served)
    seen_progress = set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = _status(client, eid, token)
        if status["progress"]:
            seen_progress.add(status["progress"])
        if status["status"] == "finished":
            break
        time.sleep(0.02)
    assert status["status"] == "finished", status
    assert any("questions" in p for p in seen_progress), seen_progress  # questions done, live
    # a private run's progress and results are no public write: no new snapshot was taken
    assert len(seen_progress) > 1 and view.path == snapshot
    qa = [r for r in status["results"] if r["experimentType"].endswith("QA")]
    assert qa and 0 < qa[0]["measures"]["macroF1"] < 1  # the baseline: some right, some wrong
    # each question's call time, as the task page shows it (the JSON had none before)
    [evaluation] = status["evaluations"]
    times = [q.get("runtimeMs") for q in evaluation["questions"]]
    assert len(times) == 14 and all(t is not None and t >= 50 for t in times), times
    graph = app.extensions[EXTENSION].storage
    rows = graph.private.query(
        "SELECT ?title ?sha WHERE { GRAPH ?g { ?f <http://w3id.org/gerbil/qa/vocab#fileRole> "
        '"answers" ; <http://purl.org/dc/terms/title> ?title ; '
        "<http://w3id.org/gerbil/qa/vocab#sha256> ?sha } }"
    )
    found = [(r["title"].value, r["sha"].value) for r in rows]
    archive = Path(graph.work_dir) / "answers" / eid / "1-baseline.json"
    assert found == [("1-baseline.json", _sha256(archive))]
    assert len(json.loads(archive.read_text(encoding="utf-8"))["questions"]) == 14
    # PROV: the start is when the run started, the end when it was recorded, both to the ms
    prov = "http://www.w3.org/ns/prov#"
    [times] = graph.private.query(
        f"SELECT ?s ?e WHERE {{ GRAPH ?g {{ <{status['uri']}> <{prov}startedAtTime> ?s ; "
        f"<{prov}endedAtTime> ?e }} }}"
    )
    start, end = times["s"].value, times["e"].value
    # how its web service was called (the submission's defaults): in the graph, which a
    # reviewer reads (they were in the private spec only)
    gqa = "http://w3id.org/gerbil/qa/vocab#"
    [called] = graph.private.query(
        f"SELECT ?t ?r ?c WHERE {{ GRAPH ?g {{ <{status['uri']}> <{gqa}callTimeout> ?t ; "
        f"<{gqa}callRetries> ?r ; <{gqa}callConcurrency> ?c }} }}"
    )
    assert (float(called["t"].value), int(called["r"].value), int(called["c"].value)) == (
        60.0,
        2,
        4,
    )
    page = client.get(f"/experiment/{eid}", headers={"Authorization": f"Bearer {token}"})
    shown = page.get_data(as_text=True).split('id="call-settings">', 1)[1].split("</dd>", 1)[0]
    assert shown.startswith("timeout 60") and "retries 2" in shown and "concurrency 4" in shown
    # to the ms at most (Oxigraph's canonical form drops trailing zeros: "22.050" is "22.05")
    assert all(re.match(r"^.*T\d\d:\d\d:\d\d(\.\d{1,3})?(Z|\+00:00)$", t) for t in (start, end))
    # 14 questions asked at 50 ms each, 4 at a time: the run lasts well over 100 ms
    elapsed = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    assert elapsed.total_seconds() > 0.1, (start, end)
    # The job state goes once the experiment is recorded (just after "finished" shows).
    job_dir = Path(graph.work_dir) / "jobs" / eid
    deadline = time.monotonic() + 10
    while job_dir.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not job_dir.exists()


def test_api_cancel_then_resume(app: Any, served: str) -> None:
    from service.web.state import EXTENSION

    client = app.test_client()
    runner: ExperimentRunner = app.extensions[EXTENSION].runner
    eid, token = _submit(client, served)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not runner.jobs.answers(eid, 0):  # type: ignore[union-attr]
        time.sleep(0.01)
    cancelled = client.post(
        f"/api/experiments/{eid}/cancel", headers={"Authorization": f"Bearer {token}"}
    )
    assert cancelled.status_code == 200 and cancelled.get_json()["cancelling"] is True
    status = _wait(client, eid, token, "cancelled", "finished")
    assert status["status"] == "cancelled", status
    assert "resume to continue" in status["message"]
    progress = runner.progress(eid)
    assert progress is not None
    done_before = progress.systems[0].done
    assert 0 < done_before < 14
    runner.resume(eid)
    status = _wait(client, eid, token, "finished", "error")
    assert status["status"] == "finished", status


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def _refusing(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """A QA service that answers every question with 400 (not retried: asking again is futile)."""
    environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    body = b'{"error": "I do not understand"}'
    start_response("400 Bad Request", [("Content-Type", "application/json")])
    return [body]


def test_a_run_aborted_by_the_error_rate_rule_ends_in_error_saying_so(app: Any) -> None:
    client = app.test_client()
    with ServedSystem(_refusing) as refusing:
        eid, token = _submit(client, refusing.url)
        status = _wait(client, eid, token, "finished", "error", "cancelled")
    assert status["status"] == "error", status
    assert "aborted by the error-rate rule" in status["message"]
    # GERBIL's rule: more than ceil(25 % of 14) = 4 failures; calls in flight still end
    assert "(5 of 14 questions failed, more than 25% of them)" in status["message"]
    # the only system: nothing is scored, no "other systems" are (the note of a system left out)
    assert "other systems" not in status["message"], status["message"]
    # "5 … failed" then "8 … failed" read as a contradiction: the rest were calls in flight
    assert "in all, with the calls in flight when it stopped, " in status["message"]
    asked = re.search(r"(\d+) of 14 questions asked, (\d+) of them failed", status["message"])
    assert asked is not None and 5 <= int(asked[1]) == int(asked[2]) < 14
    [system] = status["systems"]  # the progress says which calls failed and why
    assert system["errors"] == int(asked[2]) == len(system["errorReasons"])
    assert all("400" in e["reason"] for e in system["errorReasons"])


def test_max_error_rate_1_asks_every_question_and_scores_each_failure_0(app: Any) -> None:
    """TEXT2SPARQL'25 scored a failing service's questions 0; the error-rate rule left such a
    service out, with no switch (explore25 8). ``maxErrorRate`` 1: every question asked, each
    failure scored 0, the setting recorded with the run."""
    client = app.test_client()
    questions = (DEMO_DIR / "questions.json").read_text(encoding="utf-8")
    with ServedSystem(_refusing) as refusing:
        body = {
            "dataset": {"filename": "questions.json", "content": questions},
            "systems": [{"name": "refusing", "url": refusing.url}],
            "kb": "demo",
            "retries": 0,
            "maxErrorRate": 1,
        }
        eid, token = _submitted(client, body)
        status = _wait(client, eid, token, "finished", "error", "cancelled")
    assert status["status"] == "finished", status
    [evaluation] = status["evaluations"]
    qa = evaluation["results"]["QA"]
    assert (qa["errorCount"], qa["macroF1"]) == (14, 0.0)
    assert not status.get("notes")
    refused = client.post("/api/experiments", json={**body, "maxErrorRate": 1.5})
    assert refused.status_code == 400
    assert "maxErrorRate: 1.5, expected a number from 0 to 1" in refused.get_json()["error"]
    storage = app.extensions[EXTENSION].storage
    said = storage.private.query(
        "SELECT ?v WHERE { GRAPH ?g { ?e <http://w3id.org/gerbil/qa/vocab#callMaxErrorRate> ?v } }"
    )
    assert [float(row["v"].value) for row in said] == [1.0]  # type: ignore[index]


def test_a_system_the_error_rate_rule_stops_leaves_the_others_scored(app: Any) -> None:
    """GERBIL ends the failing system's task, not the experiment: before, one service that
    failed every call ended the whole experiment as error and dropped the other systems'
    results (an answer file and a later service, never asked)."""
    client = app.test_client()
    questions = (DEMO_DIR / "questions.json").read_text(encoding="utf-8")
    strong = (DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8")
    with ServedSystem(_refusing) as refusing:
        body = {
            "dataset": {"filename": "questions.json", "content": questions},
            "systems": [
                {"name": "refusing", "url": refusing.url},
                {"name": "strong", "answers": strong},
            ],
            "kb": "demo",
        }
        eid, token = _submitted(client, body)
        status = _wait(client, eid, token, "finished", "error", "cancelled")
    assert status["status"] == "finished", status
    assert [e["system"] for e in status["evaluations"]] == ["strong"]
    assert status["evaluations"][0]["results"]["QA"]["macroF1"] == 1.0
    [note] = status["notes"]
    assert "system refusing was aborted by the error-rate rule" in note, note
    assert "no results for it; the other systems are scored" in note
    # the graph says so with the experiment (published with it), and so does its page
    storage = app.extensions[EXTENSION].storage
    comments = storage.private.query(
        "SELECT ?c WHERE { GRAPH ?g { ?e <http://www.w3.org/2000/01/rdf-schema#comment> ?c ; "
        "a <http://w3id.org/gerbil/qa/vocab#Experiment> } }"
    )
    assert [row["c"].value for row in comments] == [note]  # type: ignore[index]
    page = client.get(f"/experiment/{eid}", headers={"Authorization": f"Bearer {token}"})
    assert "aborted by the error-rate rule" in page.get_data(as_text=True)


def _first_call_of_every_third_question_fails(app: Any) -> Any:
    """``app`` as a service that answers 503 to the first call of every third question it
    gets (then answers it): a service whose failures its client's retries hide."""
    import io
    import threading
    from urllib.parse import parse_qs

    seen: set[str] = set()
    lock = threading.Lock()

    def flaky(environ: dict[str, Any], start_response: Any) -> Any:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        question = parse_qs(body.decode("utf-8")).get("query", [""])[0]
        with lock:
            first = question not in seen
            seen.add(question)
            fail = first and len(seen) % 3 == 0
        if not fail:
            return app(environ, start_response)
        start_response("503 Service Unavailable", [("Content-Type", "application/json")])
        return [b'{"error": "busy"}']

    return flaky


def _check_shapes(storage: Any, eid: str) -> None:
    """The experiment's results pass the shapes, and a retried question claiming one attempt
    does not (``gqa:attempts`` is only written from two on)."""
    import pyoxigraph as ox

    from service.graph.checks import shacl_violations

    gqa = "http://w3id.org/gerbil/qa/vocab#"
    written = [
        ox.Triple(r["s"], r["p"], r["o"])  # type: ignore[index]
        for r in storage.private.query(
            f"SELECT ?s ?p ?o WHERE {{ GRAPH ?g {{ ?e a <{gqa}Experiment> ; "
            f'<http://purl.org/dc/terms/identifier> "{eid}" }} '
            "GRAPH ?g { ?s ?p ?o } }"
        )
    ]
    assert written and shacl_violations(written) == []
    one = ox.Literal("1", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
    changed = [
        ox.Triple(t.subject, t.predicate, one) if t.predicate.value == gqa + "attempts" else t
        for t in written
    ]
    assert any("attempts" in str(v) for v in shacl_violations(changed))


def test_a_retried_question_says_so_in_the_api_the_graph_and_the_task_page(app: Any) -> None:
    """Retries hid a service's failures: each question's JSON, its graph and the task page
    showed one call's time and nothing else, so a service that failed a question in three
    looked flawless. Now each retried question says how many attempts it took and why."""
    client = app.test_client()
    baseline = make_app(BaselineSystem(LocalKB([DEMO_DIR / "kb.ttl"])))
    with ServedSystem(_first_call_of_every_third_question_fails(baseline)) as flaky:
        eid, token = _submit(client, flaky.url)
        status = _wait(client, eid, token, "finished", "error", "cancelled")
    assert status["status"] == "finished", status
    [evaluation] = status["evaluations"]
    retried = {q["id"]: q for q in evaluation["questions"] if "attempts" in q}
    assert len(retried) == 4, evaluation["questions"]  # the 3rd, 6th, 9th and 12th of 14
    reason = "HTTP 503 Service Unavailable: 'busy'"
    assert all(q["attempts"] == 2 and q["retryReason"] == reason for q in retried.values())
    assert all(q["runtimeMs"] >= 500 for q in retried.values())  # the 0.5 s backoff counts
    storage = app.extensions[EXTENSION].storage
    rows = storage.private.query(
        "PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#> SELECT DISTINCT ?q ?n ?why WHERE { "
        "GRAPH ?g { ?r a gqa:QuestionResult ; gqa:question ?q ; gqa:attempts ?n ; "
        "gqa:retryReason ?why } }"
    )  # each experiment type's result of the question says so
    found = [(int(r["n"].value), r["why"].value) for r in rows]  # type: ignore[index]
    assert found == [(2, reason)] * 4
    _check_shapes(storage, eid)
    page = client.get(f"/experiment/{eid}/task/1", headers={"Authorization": f"Bearer {token}"})
    html = page.get_data(as_text=True)
    assert html.count("<summary>after 2 attempts</summary>") == 4
    why = f"the attempt before the last failed: {reason}".replace("'", "&#39;")
    assert html.count(f'<span class="retry-reason">{why}</span>') == 4


def test_a_large_upload_is_parsed_by_the_job_and_its_error_ends_it(tmp_path: Path) -> None:
    """Above ``sync_parse_bytes`` a submission is answered at once (202) and parsed by its
    job: a format error then ends the experiment as error with the file:line:column message a
    small upload gets as a 400."""
    from service.web import close_app, create_app

    app = create_app(
        {"store": tmp_path / "store", "sparql_workers": 1, "demo": False, "sync_parse_bytes": 100}
    )
    try:
        client = app.test_client()
        broken = (DEMO_DIR / "questions.json").read_text(encoding="utf-8")[:-40]
        body = {
            "dataset": {"filename": "solar.json", "content": broken},
            "systems": [{"name": "p", "answers": (DEMO_DIR / "answers-partial.json").read_text()}],
        }
        eid, token = _submitted(client, body)
        status = _wait(client, eid, token, "finished", "error")
        assert status["status"] == "error"
        assert re.match(r"^solar\.json:\d+:\d+: error: not valid JSON", status["message"])
    finally:
        close_app(app)
    small = create_app({"store": tmp_path / "small", "sparql_workers": 1, "demo": False})
    try:  # the same upload under the threshold: a 400 with that message, no id reserved
        refused = small.test_client().post("/api/experiments", json=body)
        assert refused.status_code == 400
        assert refused.get_json()["error"] == status["message"]
    finally:
        close_app(small)


def _answering_in_german_only(asked: list[tuple[str, str]]) -> Any:
    """A QA service that answers "x" to a German question and nothing to any other, keeping
    each (lang, question) it was asked in ``asked``."""
    from urllib.parse import parse_qs

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8")).items()}
        asked.append((form["lang"], form["query"]))
        values = [{"c": {"type": "literal", "value": "x"}}] if form["lang"] == "de" else []
        question = {"language": form["lang"], "string": form["query"]}
        answers = [{"head": {"vars": ["c"]}, "results": {"bindings": values}}]
        payload = {"questions": [{"id": "1", "question": [question], "answers": answers}]}
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(payload).encode("utf-8")]

    return app


def test_a_service_run_in_two_languages_is_asked_in_each(app: Any) -> None:
    """``"language": "en,de"`` with a QA web service: the job's answer log was one per system,
    so the German pass found every question answered (in English) and asked none; the pooled
    task scored the English answers twice. Now each language is asked and scored as given."""
    x = {"c": {"type": "literal", "value": "x"}}
    gold = [{"head": {"vars": ["c"]}, "results": {"bindings": [x]}}]
    questions = [
        {
            "id": str(i),
            "question": [
                {"language": "en", "string": f"Question {i}?"},
                {"language": "de", "string": f"Frage {i}?"},
            ],
            "answers": gold,
        }
        for i in (1, 2, 3)
    ]
    asked: list[tuple[str, str]] = []
    client = app.test_client()
    with ServedSystem(_answering_in_german_only(asked)) as service:
        body = {
            "dataset": {"filename": "two.json", "content": json.dumps({"questions": questions})},
            "systems": [{"name": "german", "url": service.url}],
            "language": "en,de",
        }
        eid, token = _submitted(client, body)
        status = _wait(client, eid, token, "finished", "error", "cancelled")
    assert status["status"] == "finished", status
    assert sorted(lang for lang, _ in asked) == ["de"] * 3 + ["en"] * 3, asked
    [evaluation] = status["evaluations"]
    by_language = evaluation["byLanguage"]
    assert by_language["de"]["QA"]["macroF1"] == 1.0, by_language
    assert by_language["en"]["QA"]["macroF1"] == 0.0, by_language
    # each language's answers are archived as a file of their own, each one downloadable
    storage = app.extensions[EXTENSION].storage
    rows = storage.private.query(
        "SELECT ?title ?sha WHERE { GRAPH ?g { ?f <http://w3id.org/gerbil/qa/vocab#fileRole> "
        '"answers" ; <http://purl.org/dc/terms/title> ?title ; '
        "<http://w3id.org/gerbil/qa/vocab#sha256> ?sha } }"
    )
    files = {r["title"].value: r["sha"].value for r in rows}  # type: ignore[index]
    assert len(files) == 2, files
    owner = {"Authorization": f"Bearer {token}"}
    for title, sha in files.items():
        got = client.get(f"/experiment/{eid}/file/{sha}", headers=owner)
        assert got.status_code == 200, (title, got.get_data(as_text=True))
        assert _sha256_of(got.get_data()) == sha
        spoken = {q["language"] for e in got.get_json()["questions"] for q in e["question"]}
        assert spoken == {"de" if "de" in title else "en"}, (title, spoken)


def _sha256_of(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def test_the_archived_answers_score_as_the_live_run_did(
    app: Any, served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reviewer scores a web-service run's downloadable archive with ``evaluate``: the same
    measures and per-question entries to the digit, call times included (the archive kept
    them to three decimals, so each ``runtimeMs`` and ``meanRuntime`` came out different)."""
    from service.cli import main

    client = app.test_client()
    eid, token = _submit(client, served)
    [live] = _wait(client, eid, token, "finished")["evaluations"]
    graph = app.extensions[EXTENSION].storage
    archive = Path(graph.work_dir) / "answers" / eid / "1-baseline.json"
    download = client.get(
        f"/experiment/{eid}/file/{_sha256(archive)}", headers={"Authorization": f"Bearer {token}"}
    )
    assert download.status_code == 200
    answers = tmp_path / "1-baseline.json"
    answers.write_bytes(download.data)
    argv = ["evaluate", "--dataset", str(DEMO_DIR / "questions.json"), "--answers", str(answers)]
    argv += ["--profile", "fair", "--kb", str(DEMO_DIR / "kb.ttl"), "--output", "json"]
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["results"] == live["results"]
    assert again["questions"] == live["questions"]
