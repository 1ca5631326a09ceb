"""A TEXT2SPARQL'25 team with an LLM-based system walks the API and the pages (hq10): their
Text2SPARQL service (``tests/integration/test_text2sparql_participant.py``'s, real, on
127.0.0.1) submitted by URL on CK25 and on DB25 in both languages, its per-question view read,
a second version resubmitted and the two compared, and the same run from the run page in a real
headless chromium.

What it found: the per-question view showed the system's SPARQL and why it failed, but not the
gold query it is judged against, so a team could not see what their query should have been
without looking the question up elsewhere; and the run page kept the default profile (fair) for
CK25 and DB25, so a team taking it as it came read a score that was not the challenge's (0.72
for an LLM run the official rules score 0.70), while PolEval's datasets picked their own.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.integration.test_text2sparql_participant import (
    CK25,
    DB25,
    DBPEDIA_KB,
    NOTHING_STRIPPED,
    LLMService,
    ck25_llm,
    db25_llm,
    questions_of,
)
from tests.web.conftest import Server, start_server, stop_server


@pytest.fixture(autouse=True)
def _mirror(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CK25's questions, gold and graphs come from the catalogue's local mirror (CI has no
    internet and sets no GERBIL_QA_DATA)."""
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))


@pytest.fixture(scope="module")
def ck25_llm_service(data_dir: Path) -> Iterator[LLMService]:
    with pytest.MonkeyPatch.context() as patch:  # the questions, read here from the mirror
        patch.setenv("GERBIL_QA_DATA", str(data_dir))
        questions = questions_of("text2sparql-2025-ck25")
    service = LLMService(questions, ck25_llm, flaky={"13": "429"})
    yield service
    service.close()


def _submit(server: Server, body: dict, token: str | None = None) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = server.post("api/experiments", json=body, headers=headers)
    assert response.status_code == 202, response.text
    ticket = response.json()
    state = server.wait_finished(ticket["id"], ticket["token"], timeout=120)
    return {**ticket, "state": state}


def _owner(server: Server, ticket: dict) -> requests.Session:
    """A browser-like session that owns the experiment (its owner link sets the cookie)."""
    session = requests.Session()
    assert session.get(ticket["ownerLink"], timeout=30).status_code == 200
    return session


def test_the_per_question_view_shows_the_gold_query_beside_the_systems(
    server: Server, ck25_llm_service: LLMService, data_dir: Path
) -> None:
    from service import catalog

    body = {"dataset": "text2sparql-2025-ck25", "profile": "text2sparql", "timeout": 10}
    body["systems"] = [{"name": "llm", "url": ck25_llm_service.url, "interface": "text2sparql"}]
    ticket = _submit(server, body)
    assert ck25_llm_service.datasets == {CK25}
    (evaluation,) = ticket["state"]["evaluations"]
    by_id = {q["id"]: q for q in evaluation["questions"]}
    assert NOTHING_STRIPPED in by_id["1"]["error"]  # the API says what the CLI says
    assert "```sparql" in by_id["1"]["systemQuery"]  # read back from the graph
    assert by_id["1"]["runtimeMs"] > 0  # the service answered; its query failed
    from tests.web.test_openapi_conformance import Conformance

    api = Conformance(server.get("api/openapi.json").json())
    api.check(
        "/api/experiments/{id}",
        "get",
        server.get(
            f"api/experiments/{ticket['id']}",
            headers={"Authorization": f"Bearer {ticket['token']}"},
        ),
    )
    assert api.mismatches == []  # systemQuery is documented: a strict client reads it
    assert by_id["13"]["attempts"] == 2 and "HTTP 429" in by_id["13"]["retryReason"]

    session = _owner(server, ticket)
    task = next(r["task"] for r in ticket["state"]["results"] if r["experimentType"] == "QA")
    page = session.get(task, timeout=30).text
    # the official number found among ours: macro F1 is the challenge's set_F average
    macro = evaluation["results"]["QA"]["macroF1"]
    assert (
        f'macro F1 <span class="muted challenge-measure">(the challenge\'s set_F average)</span>'
        f"</dt><dd>{macro:.4f}" in html.unescape(page)
    )
    experiment = html.unescape(session.get(ticket["uri"], timeout=30).text)
    assert 'macro F1<br><span class="muted challenge-measure">(the challenge\'s set_F' in experiment
    # the sub-experiments' tables (C2KB… from the queries) are no challenge measure
    heads = [t.split("</thead>")[0] for t in experiment.split('class="results" id="table-')[1:]]
    assert len(heads) > 1 and [h.split('"')[0] for h in heads if "challenge-measure" in h] == ["QA"]
    gold = {q.id: q.sparql for q in catalog.load("text2sparql-2025-ck25").questions}
    rows = {
        row.split("</a>", 1)[0].rsplit(">", 1)[-1]: row
        for row in page.split('<tr class="outcome-')[1:]
    }
    for qid in ("1", "4", "7", "10"):  # fenced, semicolon, label for IRI, empty query
        assert "The gold SPARQL" in rows[qid], qid
        assert gold[qid].strip() in html.unescape(rows[qid]), qid
    fenced = html.unescape(rows["1"])
    assert "The system's SPARQL" in fenced and "```sparql" in fenced
    assert NOTHING_STRIPPED in fenced
    # the task's CSV: the system's query and the gold one, then what was rewritten
    import csv
    import io

    table = session.get(task + ".csv", timeout=30)
    assert table.status_code == 200, table.text[:300]
    reader = csv.DictReader(io.StringIO(table.text))
    names = reader.fieldnames or []
    at = names.index("systemQuery")  # then the gold query and the rewrites (columns added)
    assert names[at : at + 3] == ["systemQuery", "goldQuery", "queryRewrites"]
    by_row = {r["id"]: r for r in reader}
    assert by_row["4"]["systemQuery"].rstrip().endswith("};")
    assert by_row["4"]["goldQuery"] == gold["4"]
    # the question's own page too
    question = rows["7"].split('href="', 1)[1].split('"', 1)[0]
    single = html.unescape(session.get(question, timeout=30).text)
    assert "The gold SPARQL" in single and gold["7"].strip() in single
    assert "Elena Herzog" in single  # the label the system gave, false, beside the IRI missed


def test_db25_in_both_languages_on_a_configured_kb(tmp_path: Path) -> None:
    """DB25 through the API with ``language: en,es``: each question asked in each language, the
    per-question entries scored on the configured KB (DBpedia in part)."""
    kb = tmp_path / "dbpedia-part.ttl"
    kb.write_text(DBPEDIA_KB, encoding="utf-8")
    server = start_server(tmp_path / "store", kbs=f"dbpedia-part={kb}", demo=False)
    service = LLMService(questions_of("text2sparql-2025-db25"), db25_llm)
    try:
        body = {"dataset": "text2sparql-2025-db25", "profile": "text2sparql", "language": "en,es"}
        body |= {"kb": "dbpedia-part", "experimentTypes": ["QA"]}
        body["systems"] = [{"name": "llm", "url": service.url, "interface": "text2sparql"}]
        ticket = _submit(server, body)
    finally:
        service.close()
        stop_server(server)
    assert service.datasets == {DB25}
    assert sum(service.calls.values()) == 200
    (evaluation,) = ticket["state"]["evaluations"]
    assert evaluation["language"] == "en,es" and evaluation["results"]["QA"]["questions"] == 200
    scored = {(q["id"], q["language"]): q for q in evaluation["questions"]}
    assert scored["3", "en"]["QA"]["f1"] == 1.0
    assert NOTHING_STRIPPED in scored["3", "es"]["error"]
    assert scored["8", "es"]["QA"]["f1"] == 1.0  # a false ASK retrieves "true", as officially
    assert "'true' whatever it says" in scored["8", "es"]["note"]  # and says so (the graph's)


def test_a_second_version_resubmitted_and_compared(
    server: Server, ck25_llm_service: LLMService
) -> None:
    """Version 1 (fences, prose…) then version 2 (the query alone) as its revision: the
    status's ``changes`` per question, and the two compared over the API with the revision's
    token (which reaches the old run too)."""
    systems = [{"name": "llm", "url": ck25_llm_service.url, "interface": "text2sparql"}]
    body = {"dataset": "text2sparql-2025-ck25", "profile": "text2sparql", "systems": systems}
    first = _submit(server, {**body, "experimentTypes": ["QA"]})
    fixed = LLMService(questions_of("text2sparql-2025-ck25"), lambda qid, lang, gold: gold)
    try:
        systems = [{"name": "llm", "url": fixed.url, "interface": "text2sparql"}]
        second = _submit(
            server,
            {**body, "systems": systems, "experimentTypes": ["QA"], "revisionOf": first["id"]},
            token=first["token"],
        )
    finally:
        fixed.close()
    (changes,) = second["state"]["changes"]["systems"]
    moved = {c["question"]: c for c in changes["questions"] if c["type"] == "QA"}
    assert moved["1"]["before"]["status"] == "error" and moved["1"]["after"]["f1"] == 1.0
    before = changes["results"]["QA"]["macroF1"]
    assert before[0] < before[1] == pytest.approx(0.928, abs=0.001)  # the gold queries' score
    tasks = [t["state"]["results"][0]["task"] for t in (first, second)]
    compared = server.post(
        "api/compare", json={"tasks": tasks}, headers={"Authorization": f"Bearer {second['token']}"}
    )
    assert compared.status_code == 200, compared.text
    scores = {s["system"]: s["results"]["QA"]["macroF1"] for s in compared.json()["systems"]}
    assert sorted(scores.values()) == pytest.approx(sorted(before))


@pytest.mark.browser
def test_a_participant_runs_ck25_from_the_run_page(
    server: Server, browser, ck25_llm_service: LLMService
) -> None:
    from selenium.webdriver.common.by import By

    from tests.web.test_browser import dataset_picks_profile, shot, wait_until

    browser.delete_all_cookies()
    browser.get(server.url + "experiments/new")
    wait_until(browser, lambda d: d.find_elements(By.ID, "run-form"))
    # picking CK25 picks the challenge's profile (before: fair stayed, 0.72 for 0.70)
    datasets, profiles = dataset_picks_profile(
        browser, "run", "text2sparql-2025-ck25", "text2sparql"
    )
    datasets.select_by_value("text2sparql-2025-db25")
    assert profiles.first_selected_option.get_attribute("value") == "text2sparql"
    datasets.select_by_value("text2sparql-2025-ck25")
    browser.find_element(By.ID, "run-text2sparql").send_keys(f"llm={ck25_llm_service.url}")
    browser.find_element(By.ID, "run-submit").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "token-notice"))
    token = browser.find_element(By.ID, "owner-token").get_attribute("value")
    link = browser.find_element(By.ID, "owner-link").get_attribute("value")
    state = server.wait_finished(link.split("?", 1)[0].rsplit("/", 1)[-1], token, timeout=120)
    assert {r["profile"] for r in state["results"]} == {"text2sparql"}
    task = next(r["task"] for r in state["results"] if r["experimentType"] == "QA")
    browser.get(task)
    wait_until(browser, lambda d: d.find_elements(By.ID, "questions"))
    row = browser.find_element(By.CSS_SELECTOR, "#questions tbody tr")  # question 1, fenced
    assert NOTHING_STRIPPED in row.find_element(By.CSS_SELECTOR, "p.error").text
    gold = row.find_element(By.CSS_SELECTOR, "details.gold-query")
    gold.find_element(By.TAG_NAME, "summary").click()
    assert "empl-Karen.Brant%40company.org" in gold.find_element(By.TAG_NAME, "pre").text
    shot(browser, "text2sparql-participant-task")


@pytest.mark.browser
def test_two_versions_answers_files_compared_on_the_compare_page(
    server: Server, browser, ck25_llm_service: LLMService, tmp_path: Path
) -> None:
    """The team's two ``system run`` answers files (version 1 as the LLM answers, version 2
    the query alone) compared in the browser: picking CK25 there picks the challenge's profile
    too (before: fair stayed, as on the run page), and version 2 is the better one."""
    from selenium.webdriver.common.by import By

    from service.cli import main
    from tests.web.test_browser import dataset_picks_profile, shot, wait_until

    fixed = LLMService(questions_of("text2sparql-2025-ck25"), lambda qid, lang, gold: gold)
    files = []
    try:
        for name, service in (("v1", ck25_llm_service), ("v2", fixed)):
            files.append(tmp_path / f"{name}.json")
            argv = ["system", "run", service.url, "--interface", "text2sparql", "--dataset"]
            argv += ["text2sparql-2025-ck25", "--output", str(files[-1]), "--name", name]
            assert main([*argv, "--allow", "127.0.0.1/32"]) == 0
    finally:
        fixed.close()
    browser.get(server.url + "compare")
    wait_until(browser, lambda d: d.find_elements(By.ID, "compare-form"))
    datasets, _ = dataset_picks_profile(browser, "cmp", "text2sparql-2025-ck25", "text2sparql")
    datasets.select_by_value("text2sparql-2025-ck25")
    browser.find_element(By.ID, "cmp-answers").send_keys("\n".join(str(f) for f in files))
    browser.find_element(By.ID, "compare-submit").click()
    table = wait_until(browser, lambda d: d.find_elements(By.ID, "compare-systems"), timeout=120)[0]
    shot(browser, "text2sparql-participant-compare")
    assert "text2sparql" in browser.find_element(By.ID, "compare-signature").text
    first = table.find_elements(By.CSS_SELECTOR, "tbody tr")[0].text
    assert first.startswith("1 v2 0.9278"), first  # tier 1: the better version (the gold queries)


# --- a small TEXT2SPARQL-shaped dataset on a server of its own (explore-6 3) -----------------

BIRDS_YAML = """\
dataset:
  id: https://example.org/birds-t2s/
  prefix: birds
  defaultNamespace: http://example.org/birds/
questions:
  - id: 1
    question:
      en: Which birds are there?
    features: [SELECT]
    query:
      sparql: SELECT ?x WHERE { ?x a <http://example.org/birds/Bird> }
  - id: 2
    question:
      en: How many birds are there?
    features: [SELECT, COUNT]
    query:
      sparql: SELECT (COUNT(?x) AS ?c) WHERE { ?x a <http://example.org/birds/Bird> }
  - id: 3
    question:
      en: Is the robin red?
    features: [ASK]
    query:
      sparql: ASK { <http://example.org/birds/robin> <http://example.org/birds/colour> "red" }
"""
BIRDS_KB = """\
@prefix ex: <http://example.org/birds/> .
ex:robin a ex:Bird ; ex:colour "red" .
ex:crow a ex:Bird ; ex:colour "black" .
ex:sparrow a ex:Bird .
"""
BIRDS = "http://example.org/birds/"
# as long as CK25's IRIs (…/empl-Karen.Brant%40company.org): no space to break the line at
LONG_GRAPH = "http://example.org/graphs/another-graph-whose-name-runs-on-as-long-as-ck25-iris"


def _birds_gold() -> str:
    import json

    def entry(qid: str, text: str, answer: dict) -> dict:
        return {"id": qid, "question": [{"language": "en", "string": text}], "answers": [answer]}

    birds = [{"x": {"type": "uri", "value": BIRDS + b}} for b in ("robin", "crow", "sparrow")]
    count = {
        "type": "literal",
        "value": "3",
        "datatype": "http://www.w3.org/2001/XMLSchema#integer",
    }
    return json.dumps(
        {
            "questions": [
                entry(
                    "1",
                    "Which birds are there?",
                    {"head": {"vars": ["x"]}, "results": {"bindings": birds}},
                ),
                entry(
                    "2",
                    "How many birds are there?",
                    {"head": {"vars": ["c"]}, "results": {"bindings": [{"c": count}]}},
                ),
                entry("3", "Is the robin red?", {"head": {}, "boolean": True}),
            ]
        }
    )


def _birds_llm(qid: str, language: str, gold: str) -> str:
    """Question 1 names a graph (FROM, not applied to a local KB), question 2 writes
    Virtuoso's ``COUNT(?x) AS ?c`` with the undeclared ``:`` (both rewritten), question 3 is
    the gold query (nothing rewritten)."""
    return {
        "1": f"SELECT ?x FROM <{LONG_GRAPH}> WHERE {{ ?x a <{BIRDS}Bird> }}",
        "2": "SELECT COUNT(?x) AS ?c WHERE { ?x a :Bird }",
    }.get(qid, gold)


@pytest.fixture(scope="module")
def birds_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """The birds run on a server of its own (KB ``birds``): the ticket, the server and an
    owner's session."""
    import yaml

    root = tmp_path_factory.mktemp("birds-t2s")
    kb = root / "birds.ttl"
    kb.write_text(BIRDS_KB, encoding="utf-8")
    server = start_server(root / "store", kbs=f"birds={kb}", demo=False)
    questions = {
        q["question"]["en"]: (str(q["id"]), "en", q["query"]["sparql"])
        for q in yaml.safe_load(BIRDS_YAML)["questions"]
    }
    service = LLMService(questions, _birds_llm)
    try:
        body = {
            "dataset": {"content": BIRDS_YAML, "filename": "birds.yml"},
            "gold": {"content": _birds_gold(), "filename": "gold.json"},
            "kb": "birds",
            "profile": "text2sparql",
            "experimentTypes": ["QA"],
            "systems": [{"name": "llm", "url": service.url, "interface": "text2sparql"}],
        }
        ticket = _submit(server, body)
        yield {"server": server, "ticket": ticket, "session": _owner(server, ticket)}
    finally:
        service.close()
        stop_server(server)


def _links(page: str) -> list[str]:
    found = page.split('id="breakdown-links"', 1)[1].split("</p>", 1)[0]
    return [html.unescape(m) for m in re.findall(r'(?:by=|current="true">)(\w+)', found)]


def test_a_text2sparql_run_offers_the_features_its_questions_have(birds_run: dict) -> None:
    """The experiment page's breakdown offers ``feature`` (not ``language``: one), not the QALD
    flags (``?by=hybrid`` found no value); the task page filters by the query features and
    offers no "Out of scope" filter (every question is in scope)."""
    ticket, session = birds_run["ticket"], birds_run["session"]
    assert ticket["state"]["status"] == "finished", ticket["state"]
    page = session.get(ticket["uri"], timeout=30).text
    assert _links(page) == ["feature"]  # English only: no language breakdown
    by = session.get(ticket["uri"] + "?by=feature", timeout=30).text
    table = html.unescape(by.split('id="breakdown-table"', 1)[1].split("</table>", 1)[0])
    assert re.findall(r'<th scope="row">(\w+)</th>', table) == ["ASK", "COUNT", "SELECT"]
    old = session.get(ticket["uri"] + "?by=hybrid", timeout=30)  # an old link still answers
    assert old.status_code == 200 and "No question has a value for hybrid" in old.text

    task = next(r["task"] for r in ticket["state"]["results"] if r["experimentType"] == "QA")
    page = session.get(task, timeout=30).text
    assert 'id="feature-outofscope"' not in page and "Out of scope" not in page
    box = page.split('id="query-feature"', 1)[1].split("</select>", 1)[0]
    assert re.findall(r'<option value="(\w*)"', box) == ["", "ASK", "COUNT", "SELECT"]
    counted = session.get(task + "?feature=COUNT", timeout=30).text
    assert "1 of 3 questions (filtered)" in counted
    assert re.findall(r'<tr class="outcome-\w+">\s*<th scope="row"><a [^>]*>(\w+)<', counted) == [
        "2"
    ]
    assert '<option value="COUNT" selected>' in counted
    # the same filter with the others (the pager's links keep it)
    both = session.get(task + "?feature=SELECT&outcome=correct", timeout=30).text
    assert "of 3 questions (filtered)" in both and '<option value="SELECT" selected>' in both

    # published: the public page reads the questions from the public store
    server = birds_run["server"]
    published = server.post(
        f"api/experiments/{ticket['id']}/publish",
        headers={"Authorization": f"Bearer {ticket['token']}"},
    )
    assert published.status_code == 200, published.text
    public = requests.get(ticket["uri"], timeout=30).text
    assert _links(public) == ["feature"]


def test_the_per_question_view_shows_what_was_rewritten_before_the_query_ran(
    birds_run: dict,
) -> None:
    """The FROM not applied to the local KB and the lenient dialect's readings are stored with
    the question's result (``gqa:queryRewrite``) and shown beside the system's SPARQL; the
    API's entries carry them (``queryRewrites``)."""
    from service.kb.executor import LOCAL_FROM

    ticket, session = birds_run["ticket"], birds_run["session"]
    (evaluation,) = ticket["state"]["evaluations"]
    by_id = {q["id"]: q for q in evaluation["questions"]}
    assert by_id["1"]["queryRewrites"] == [LOCAL_FROM]
    assert by_id["1"]["QA"]["f1"] == 1.0  # the whole KB answered, as the note says
    # and the run's warnings count such queries, for a paper to say (explore25 11)
    said = [w for w in evaluation["warnings"] if "not applied on this local KB" in w]
    assert len(said) == 1 and "1 query names graphs with FROM / FROM NAMED" in said[0], said
    assert len(by_id["2"]["queryRewrites"]) == 2  # AS without parentheses, ':' undeclared
    assert "queryRewrites" not in by_id["3"]
    task = next(r["task"] for r in ticket["state"]["results"] if r["experimentType"] == "QA")
    page = session.get(task, timeout=30).text
    rows = {
        row.split("</a>", 1)[0].rsplit(">", 1)[-1]: html.unescape(row)
        for row in page.split('<tr class="outcome-')[1:]
    }
    assert LOCAL_FROM in rows["1"] and 'class="query-rewrites"' in rows["1"]
    assert "undeclared prefix ':' read as <http://example.org/birds/>" in rows["2"]
    assert "expression AS ?var" in rows["2"]
    assert "query-rewrites" not in rows["3"]
    question = rows["1"].split('href="', 1)[1].split('"', 1)[0]
    single = html.unescape(session.get(question, timeout=30).text)
    assert single.count(LOCAL_FROM) >= 2  # the row, and the result's triples below it
    turtle = session.get(question, headers={"Accept": "text/turtle"}, timeout=30).text
    assert "queryRewrite" in turtle
    # the task's CSV says them too, and the dataset's query features (explore-10 7)
    import csv
    import io

    table = csv.DictReader(io.StringIO(session.get(task + ".csv", timeout=30).text))
    by_row = {r["id"]: r for r in table}
    assert LOCAL_FROM in by_row["1"]["queryRewrites"] and by_row["3"]["queryRewrites"] == ""
    assert by_row["1"]["queryFeatures"], by_row["1"]


@pytest.mark.browser
def test_the_task_table_fits_its_box_at_1300_px(birds_run: dict, browser) -> None:
    """At 1,300 px the per-question table's last column (runtime) was cut to "Run": the
    table now fits the page's box (or scrolls inside it), its header whole."""
    from selenium.webdriver.common.by import By

    from tests.web.test_browser import shot, wait_until

    ticket = birds_run["ticket"]
    browser.delete_all_cookies()
    browser.get(ticket["ownerLink"])
    task = next(r["task"] for r in ticket["state"]["results"] if r["experimentType"] == "QA")
    size = browser.get_window_size()
    browser.set_window_size(1300, 900)
    try:
        browser.get(task)
        wait_until(browser, lambda d: d.find_elements(By.ID, "questions"))
        for details in browser.find_elements(By.CSS_SELECTOR, "#questions details summary"):
            details.click()  # the queries opened: the widest the rows get
        fit = browser.execute_script(
            "const wrap = document.querySelector('#questions').closest('.table-wrap');"
            "const head = [...document.querySelectorAll('#questions thead th')].pop();"
            "const main = document.querySelector('main').getBoundingClientRect();"
            "const box = wrap.getBoundingClientRect(), th = head.getBoundingClientRect();"
            "return {text: head.textContent, wrapRight: box.right, mainRight: main.right,"
            " thRight: th.right, scroll: wrap.scrollWidth, client: wrap.clientWidth,"
            " question: document.querySelector('td.question-cell').offsetWidth,"
            " page: document.documentElement.scrollWidth, window: window.innerWidth};"
        )
        shot(browser, "text2sparql-task-1300")
    finally:
        browser.set_window_size(size["width"], size["height"])
    assert fit["text"] == "Runtime"
    assert fit["page"] <= fit["window"], fit  # nothing wider than the window
    assert fit["wrapRight"] <= fit["mainRight"] + 1, fit
    # nor scrolls, the question column wide enough for the queries and their rewrites: at
    # 12rem beside the answers' IRIs a rewrite note took seven lines (explore-10 8)
    assert fit["scroll"] <= fit["client"], fit
    assert fit["question"] >= 300, fit
    assert fit["thRight"] <= fit["wrapRight"] + 1, fit  # the header's end in the box
