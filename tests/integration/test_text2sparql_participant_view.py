"""A TEXT2SPARQL'25 participant's view (explore41): what a team reads of its run and why.

A Text2SPARQL run asks every question by default (the challenge asked them all and scored each
failure 0; GERBIL's 0.25 error-rate rule stopped the service and scored the questions never
asked 0).
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.cli import main
from tests.integration.test_text2sparql_participant import LLMService, questions_of

CK25 = "text2sparql-2025-ck25"


@pytest.fixture(autouse=True)
def _mirror(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))


def _spec(body: dict[str, object]):  # type: ignore[no-untyped-def]
    from service.web.submission import from_json, to_spec

    return to_spec(from_json(body), kbs={}, default_profile="exact")[0]


def test_a_text2sparql_submission_asks_every_question_unless_told() -> None:
    """explore41 F2: a submission with a Text2SPARQL service and no maxErrorRate recorded 0.25,
    so 15 failures of 50 stopped it and the 33 questions never asked scored 0."""
    t2s = {"name": "t", "url": "http://127.0.0.1:18900/", "interface": "text2sparql"}
    qa = {"name": "q", "url": "http://127.0.0.1:18900/"}
    assert _spec({"dataset": CK25, "systems": [t2s]}).options.max_error_rate == 1.0
    told = {"dataset": CK25, "systems": [t2s], "maxErrorRate": 0.25}
    assert _spec(told).options.max_error_rate == 0.25  # an explicit value wins
    profiled = {"dataset": CK25, "systems": [qa], "profile": "text2sparql"}
    assert _spec(profiled).options.max_error_rate == 1.0
    assert _spec({"dataset": CK25, "systems": [qa]}).options.max_error_rate == 0.25


def test_system_run_of_a_text2sparql_service_asks_every_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore41 F2: ``system run --interface text2sparql`` stopped a service failing its first
    15 questions after 17 calls ("33 never asked … aborted")."""
    questions = questions_of(CK25)
    broken = frozenset(str(n) for n in range(1, 16))
    service = LLMService(questions, lambda qid, language, gold: gold, broken=broken)
    out = tmp_path / "a.json"
    argv = ["system", "run", service.url, "--interface", "text2sparql", "--dataset", CK25]
    argv += ["--retries", "0", "--output", str(out), "--allow", "127.0.0.1/32"]
    try:
        assert main(argv) == 0
        said = capsys.readouterr().out
        assert "50 asked, 15 failed, 0 never asked" in said and "aborted" not in said
        assert len(json.loads(out.read_text(encoding="utf-8"))) == 50
        assert main([*argv, "--max-error-rate", "0.25"]) == 1  # an explicit value wins
        assert "aborted" in capsys.readouterr().out
    finally:
        service.close()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    from service.web import close_app, create_app

    app = create_app({"store": tmp_path / "store", "sparql_workers": 1, "demo": False})
    yield app
    close_app(app)


def _finished(client: Any, body: dict[str, Any]) -> tuple[str, str]:
    """Submit ``body`` through the API and wait for it to finish: its id and owner token."""
    response = client.post("/api/experiments", json=body)
    assert response.status_code == 202, response.get_data(as_text=True)
    eid, token = response.get_json()["id"], response.get_json()["token"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = client.get(
            f"/api/experiments/{eid}", headers={"Authorization": f"Bearer {token}"}
        ).get_json()
        if status["status"] in ("finished", "error"):
            assert status["status"] == "finished", status
            return eid, token
        time.sleep(0.1)
    raise AssertionError(f"experiment {eid} never finished")


def _gold_queries_answers() -> str:
    """A TEXT2SPARQL answers file giving every CK25 question its gold query."""
    from service import catalog

    entries = [
        {
            "dataset": "https://text2sparql.aksw.org/2025/corporate/",
            "question": q.text("en"),
            "query": q.sparql,
            "qname": f"ck25:{q.id}-en",
        }
        for q in catalog.load(CK25).questions
    ]
    return json.dumps(entries)


def test_a_copy_of_the_gold_query_scored_below_1_says_why(app: Any) -> None:
    """explore41 F1: the gold query itself was "wrong" on q25/q41 (official result set empty)
    and q33 (gold ASK false, never shown), "partly" on q46/q50 (ties under ORDER BY … LIMIT),
    and nothing on the page said why."""
    from service.web.pages import EMPTY_GOLD_NOTE, FALSE_ASK_NOTE, SAME_QUERY_NOTE

    client = app.test_client()
    answers = {"filename": "gold_queries.json", "content": _gold_queries_answers()}
    body = {"dataset": CK25, "systems": [{"name": "copy", "answers": answers}]}
    eid, token = _finished(client, body)
    auth = {"Authorization": f"Bearer {token}"}

    def page(qid: str) -> str:
        response = client.get(f"/experiment/{eid}/task/1/question/{qid}", headers=auth)
        assert response.status_code == 200
        return html.unescape(response.get_data(as_text=True))

    assert EMPTY_GOLD_NOTE in page("25") and EMPTY_GOLD_NOTE in page("41")
    assert FALSE_ASK_NOTE in page("33")
    assert SAME_QUERY_NOTE in page("50") and SAME_QUERY_NOTE in page("46")
    assert not any(n in page("1") for n in (EMPTY_GOLD_NOTE, FALSE_ASK_NOTE, SAME_QUERY_NOTE))
    task = html.unescape(client.get(f"/experiment/{eid}/task/1", headers=auth).get_data(True))
    assert task.count(EMPTY_GOLD_NOTE) == 2 and task.count(FALSE_ASK_NOTE) == 1
    # the dataset's question pages say it too, and show the ASK's gold value
    q33 = html.unescape(client.get(f"/dataset/{CK25}/question/33").get_data(as_text=True))
    assert f"false (xsd:boolean): {FALSE_ASK_NOTE}" in q33
    q25 = html.unescape(client.get(f"/dataset/{CK25}/question/25").get_data(as_text=True))
    assert f"0: {EMPTY_GOLD_NOTE}" in q25
    q1 = html.unescape(client.get(f"/dataset/{CK25}/question/1").get_data(as_text=True))
    assert EMPTY_GOLD_NOTE not in q1 and FALSE_ASK_NOTE not in q1


def test_db25s_live_endpoint_is_not_labelled_as_the_challenges_dump() -> None:
    """explore41 F3: with no KB given, DB25's queries run on https://dbpedia.org/sparql (today's
    DBpedia) and the run and its signature's kb were labelled "DBpedia 2015-10 (the
    TEXT2SPARQL'25 dump)". Nothing here calls the endpoint."""
    from service import catalog
    from service.evaluation.profiles import PROFILES
    from service.experiments.queries import kb_sources
    from service.experiments.spec import CatalogueDataset, ExperimentSpec
    from service.kb import describe
    from service.kb.open import open_kb

    dump = catalog.get_entry("text2sparql-2025-db25").knowledge_base_version
    assert dump == "DBpedia 2015-10 (the TEXT2SPARQL'25 dump)"
    sources, version = kb_sources(ExperimentSpec(CatalogueDataset("text2sparql-2025-db25"), ()))
    assert sources == ("https://dbpedia.org/sparql",)
    assert version == f"live endpoint: today's data, not {dump}"
    kb = describe(open_kb(list(sources), version=version, cache=None))
    signature = PROFILES["text2sparql"].signature_for(kb)
    assert "kb:https://dbpedia.org/sparql_(live_endpoint:_today's_data,_not_DBpedia" in signature
    # CK25's own KB files are the challenge's: their label stays
    _files, ck25 = kb_sources(ExperimentSpec(CatalogueDataset(CK25), ()))
    assert ck25 == catalog.get_entry(CK25).knowledge_base_version


def test_an_aborted_run_says_one_failure_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore41 F4: "15 failed … aborted: 14 of 50 questions failed" in one line (calls in
    flight when the limit was reached failed after it): the rule's count is said as the count
    when it tripped, and the failed count again as the count in all."""
    broken = frozenset(str(n) for n in range(1, 31))
    service = LLMService(questions_of(CK25), lambda qid, language, gold: gold, broken=broken)
    argv = ["system", "run", service.url, "--interface", "text2sparql", "--dataset", CK25]
    argv += ["--retries", "0", "--concurrency", "8", "--max-error-rate", "0.25"]
    argv += ["--output", str(tmp_path / "a.json"), "--allow", "127.0.0.1/32"]
    try:
        assert main(argv) == 1
    finally:
        service.close()
    said = capsys.readouterr().out
    failed = re.search(
        r"(\d+) failed, .*; aborted by the error-rate rule when (\d+) of 50 questions failed, "
        r"more than 25% of them: in all, with the calls in flight when it stopped, (\d+) failed",
        said,
    )
    assert failed is not None, said
    assert failed[1] == failed[3] and int(failed[2]) <= int(failed[1])


def test_an_empty_answers_list_is_told_as_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore41 F7: DBPEDIA-SC's ck25_answers.json is ``[]``, refused as "only 0 of the
    dataset's 50 question ids have an answer here: are these answers to another dataset?"."""
    empty = tmp_path / "ck25_answers.json"
    empty.write_text("[]", encoding="utf-8")
    argv = ["evaluate", "--dataset", CK25, "--answers", str(empty), "--profile", "text2sparql"]
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert "the file holds no entries" in err and "another dataset" not in err


def test_a_byte_order_mark_before_the_query_is_named() -> None:
    """explore41 F9: "prose: text before the query: '\\ufeff'"."""
    from service.kb.executor import FailureReason, QueryFailure, prepare

    failed = prepare("\ufeffSELECT ?s WHERE { ?s ?p ?o }")
    assert isinstance(failed, QueryFailure) and failed.reason is FailureReason.PROSE
    assert failed.message.startswith("a byte-order mark (U+FEFF) before the query")
    assert "\\ufeff" not in failed.message and "\ufeff" not in failed.message
    prose = prepare("Here: SELECT ?s WHERE { ?s ?p ?o }")
    assert isinstance(prose, QueryFailure) and "text before the query" in prose.message


def test_a_reproduce_command_for_two_systems_says_it_prints_json_lines(app: Any) -> None:
    """explore41 F8: the page said "The JSON it prints" of a command printing one JSON object per
    system, one per line (``json.load`` of its output fails with "Extra data")."""
    client = app.test_client()
    copy = {"filename": "a.json", "content": _gold_queries_answers()}
    two = [{"name": "a", "answers": copy}, {"name": "b", "answers": {**copy, "filename": "b.json"}}]
    eid, token = _finished(client, {"dataset": CK25, "systems": two})
    page = client.get(f"/experiment/{eid}", headers={"Authorization": f"Bearer {token}"})
    text = page.get_data(as_text=True)
    assert "It prints one JSON object per system, one per line" in text
    assert "The JSON it prints" not in text
    eid, token = _finished(client, {"dataset": CK25, "systems": two[:1]})
    page = client.get(f"/experiment/{eid}", headers={"Authorization": f"Bearer {token}"})
    assert "The JSON it prints holds each system's measures" in page.get_data(as_text=True)


def test_the_experiment_page_names_each_services_url_and_interface(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """explore41 F10: neither the experiment page nor its task pages showed the URL a service
    was called at, nor that it was a Text2SPARQL service (its system's page lists every URL it
    was ever asked at, with no way to tell which run used which)."""
    from service.experiments.runner import ExperimentRunner
    from service.systems.safety import NetworkPolicy
    from service.web import close_app, create_app
    from service.web.state import EXTENSION

    monkeypatch.setenv("GERBIL_QA_ALLOW_NETWORKS", "127.0.0.1/32")
    app = create_app({"store": tmp_path / "store", "sparql_workers": 1, "demo": False})
    state = app.extensions[EXTENSION]
    state.runner.close()
    state.runner = ExperimentRunner(
        state.storage,
        workers=1,
        on_public_change=state.changed,
        policy=NetworkPolicy.allowing("127.0.0.1/32"),
    )
    service = LLMService(questions_of(CK25), lambda qid, language, gold: gold)
    try:
        systems = [
            {"name": "t2s", "url": service.url, "interface": "text2sparql"},
            {"name": "qa", "url": service.url + "/qa"},  # GET only: every POST fails
        ]
        body = {"dataset": CK25, "systems": systems, "retries": 0}
        eid, token = _finished(app.test_client(), body)
        page = app.test_client().get(
            f"/experiment/{eid}", headers={"Authorization": f"Bearer {token}"}
        )
        text = html.unescape(page.get_data(as_text=True))
        written = _graph_of(state.storage, eid)
    finally:
        service.close()
        close_app(app)
    assert 'id="web-services"' in text
    assert f"t2s: {service.url}" in " ".join(re.sub(r"<[^>]+>", "", text).split())
    assert "Text2SPARQL service (TEXT2SPARQL'25 interface)" in text
    assert "QA web service (GERBIL QA interface)" in text
    assert "maxErrorRate 1" in " ".join(re.sub(r"<[^>]+>", "", text).split())  # F2
    # recorded as gqa:interface beside gqa:endpoint, which the shapes accept
    from service.graph.checks import shacl_violations

    said = {
        (t.subject.value, t.object.value)
        for t in written
        if t.predicate.value.endswith("#interface")
    }
    assert {i for _s, i in said} == {"qa", "text2sparql"}
    assert shacl_violations(written) == []
    # ... and an interface the registry has not is refused by them (its sh:in is generated)
    import pyoxigraph as ox

    odd = [
        ox.Triple(t.subject, t.predicate, ox.Literal("soap"))
        if t.predicate.value.endswith("#interface")
        else t
        for t in written
    ]
    assert any("interface" in str(v) for v in shacl_violations(odd))


def _graph_of(storage: Any, eid: str) -> list[Any]:
    """The triples of experiment ``eid``'s graph."""
    import pyoxigraph as ox

    gqa = "http://w3id.org/gerbil/qa/vocab#"
    return [
        ox.Triple(r["s"], r["p"], r["o"])  # type: ignore[index]
        for r in storage.private.query(
            f"SELECT ?s ?p ?o WHERE {{ GRAPH ?g {{ ?e a <{gqa}Experiment> ; "
            f'<http://purl.org/dc/terms/identifier> "{eid}" }} '
            "GRAPH ?g { ?s ?p ?o } }"
        )
    ]
