"""A paper's reviewer holds one experiment URI and reproduces its numbers (hq13): the URI
resolved as HTML and as Turtle (rdflib, strict), the page's "Reproduce these numbers" script run
as printed (its downloads checked against their SHA-256, the evaluator of this checkout on the
PATH), and every number it prints compared, to the last digit, with the experiment's RDF.

What it found: the page listed the files and the profile, but not the language, the KB, which
file was whose answers or how they go together, so the command was rebuilt by trial; and a
TEXT2SPARQL run's knowledge base, on which each system query was run to get its answers, was
named only as ``file:sha256:H (version)``, H a hash of hashes of files the experiment did not
name or serve, so its numbers could not be reproduced from the citation at all.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import rdflib
import requests

from tests.web.conftest import Server

GQA = rdflib.Namespace("http://w3id.org/gerbil/qa/vocab#")
GERBIL = rdflib.Namespace("http://w3id.org/gerbil/vocab#")
PROV = rdflib.Namespace("http://www.w3.org/ns/prov#")
DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
DCT = rdflib.Namespace("http://purl.org/dc/terms/")
QALD8 = "system-outputs/qald8-train"
CK25_FRANZ = "text2sparql2025/systems/FRANZ/ck25_answers.json"


@pytest.fixture(autouse=True)
def _mirror(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Catalogue datasets come from the local mirror (CI has no internet)."""
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))


def _published(server: Server, dataset: str, profile: str, answers: list[Path]) -> str:
    files = [("answers", (p.name, p.read_bytes())) for p in answers]
    response = server.post(
        "api/experiments", files=files, data={"dataset": dataset, "profile": profile}
    )
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"], timeout=120)
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    return ticket["uri"]


def _graph(uri: str) -> rdflib.Graph:
    response = requests.get(uri, headers={"Accept": "text/turtle"}, timeout=60)
    assert response.status_code == 200
    graph = rdflib.Graph()
    graph.parse(data=response.text, format="turtle")  # strict: a bad term fails here
    return graph


def _stored(graph: rdflib.Graph, uri: str) -> dict[tuple[str, str], dict[str, float | int]]:
    """(system, experiment type) -> every number of the task, as the RDF has it."""
    stored = {}
    for task in graph.objects(rdflib.URIRef(uri), GQA.task):
        system = str(graph.value(graph.value(task, GERBIL.annotator), DCT.identifier))
        kind = str(graph.value(task, GERBIL.experimentType)).rsplit("#", 1)[1]
        stored[(system, kind)] = {
            str(p).rsplit("#", 1)[1]: o.toPython()
            for p, o in graph.predicate_objects(task)
            if isinstance(o, rdflib.Literal) and type(o.toPython()) in (int, float)
        }
    return stored


def _reproduce(uri: str, workdir: Path) -> list[dict]:
    """The page's script run as printed, in an empty folder; its JSON lines."""
    page = requests.get(uri, headers={"Accept": "text/html"}, timeout=60).text
    found = re.search(r'<pre id="reproduce-script"[^>]*>(.*?)</pre>', page, re.S)
    assert found, "the experiment page gives no command to reproduce its numbers"
    script = html.unescape(found.group(1))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    # only what the page names: no mirror (a missing folder: the checkout's ../shared/data is
    # the default), no catalogue
    env["GERBIL_QA_DATA"] = str(workdir / "no-mirror")
    done = subprocess.run(
        ["bash", "-c", script], cwd=workdir, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def _compare(stored: dict, printed: list[dict]) -> int:
    """Every stored task printed again with every one of its numbers equal; how many."""
    compared, seen = 0, set()
    for result in printed:
        for kind, measures in result["results"].items():
            key = (result["system"], kind)
            assert key in stored, f"the command scored {key}, which the experiment has not"
            seen.add(key)
            for name, value in measures.items():
                if value is not None and name in stored[key]:
                    assert value == stored[key][name], (key, name, stored[key][name], value)
                    compared += 1
    assert seen == set(stored), f"not reproduced: {set(stored) - seen}"
    return compared


def _intervals(graph: rdflib.Graph, uri: str) -> dict[tuple[str, str, str], list[float]]:
    """(system, experiment type, measure) -> its stored interval's bounds."""
    found = {}
    for task in graph.objects(rdflib.URIRef(uri), GQA.task):
        system = str(graph.value(graph.value(task, GERBIL.annotator), DCT.identifier))
        kind = str(graph.value(task, GERBIL.experimentType)).rsplit("#", 1)[1]
        for ci in graph.objects(task, GQA.interval):
            low, high = graph.value(ci, GQA.lowerBound), graph.value(ci, GQA.upperBound)
            if low is not None and high is not None:
                name = str(graph.value(ci, GQA.intervalOf)).rsplit("#", 1)[1]
                found[(system, kind, name)] = [low.toPython(), high.toPython()]
    return found


def _compare_intervals(stored: dict, printed: list[dict]) -> int:
    """Every stored interval printed again with equal bounds; how many."""
    again = {
        (result["system"], kind, name): bounds
        for result in printed
        for kind, each in result.get("intervals", {}).items()
        for name, bounds in each.items()
    }
    assert stored and set(stored) <= set(again), f"not printed: {set(stored) - set(again)}"
    for key, bounds in stored.items():
        assert again[key] == bounds, (key, bounds, again[key])
    return len(stored)


def test_a_qald8_result_is_reproduced_to_the_last_digit_from_its_page(
    server: Server, data_dir: Path, tmp_path: Path
) -> None:
    answers = sorted((data_dir / QALD8).glob("*_QALD8_Train.json"))[:3]
    uri = _published(server, "qald-8-train-multilingual", "fair", answers)
    graph = _graph(uri)
    printed = _reproduce(uri, tmp_path)
    compared = _compare(_stored(graph, uri), printed)
    assert compared > 100
    # and every interval the page shows and the RDF stores (the command had no --intervals)
    assert _compare_intervals(_intervals(graph, uri), printed) > 20
    # the script as a file too, the same as the page's (explore60 F1)
    download = requests.get(uri + "/reproduce.sh", timeout=60)
    assert download.status_code == 200
    assert download.headers["Content-Type"] == "text/x-shellscript; charset=utf-8"
    page = requests.get(uri, headers={"Accept": "text/html"}, timeout=60).text
    script = html.unescape(re.search(r'<pre id="reproduce-script"[^>]*>(.*?)</pre>', page, re.S)[1])
    assert download.text.startswith("#!/usr/bin/env bash\n") and download.text.endswith(
        f"\n{script}\n"
    )
    assert f'href="{uri}/reproduce.sh" id="reproduce-download"' in page
    # saved under the name the page says to run (it said reproduce.sh: explore61 F13)
    saved = re.search(r'filename="([^"]+)"', download.headers["Content-Disposition"])[1]
    assert f"<code>bash {saved}</code>" in page and f'download="{saved}"' in page
    # no repository configured: the text says whose code it is, and links none (explore60 F7)
    if 'id="reproduce-revision"' in page:  # a checkout or a wheel of one: its commit is known
        assert "it is the code this service runs, whose operator has that checkout" in page
        assert "reproduce-checkout" not in page and "codeRepository" not in graph.serialize()
    # what it downloaded is what the experiment names, byte for byte
    for f in graph.objects(rdflib.URIRef(uri), PROV.used):
        if graph.value(f, GQA.fileRole) is not None:
            data = (tmp_path / str(graph.value(f, DCT.title))).read_bytes()
            assert hashlib.sha256(data).hexdigest() == str(graph.value(f, GQA.sha256))


def test_a_text2sparql_run_names_the_kb_its_queries_ran_on_and_is_reproduced(
    server: Server, data_dir: Path, tmp_path: Path
) -> None:
    from service import catalog

    uri = _published(server, "text2sparql-2025-ck25", "text2sparql", [data_dir / CK25_FRANZ])
    graph = _graph(uri)
    kb_files = [
        f
        for f in graph.objects(rdflib.URIRef(uri), PROV.used)
        if str(graph.value(f, GQA.fileRole)) == "kb"
    ]
    shas = sorted(str(graph.value(f, GQA.sha256)) for f in kb_files)
    entry = catalog.get_entry("text2sparql-2025-ck25")
    assert shas == sorted(d.sha256 for d in entry.kb_distributions)
    # the identity the results give is the hash over those files' digests
    digest = hashlib.sha256(b"".join(sorted(bytes.fromhex(s) for s in shas))).hexdigest()
    named = {str(o) for o in graph.objects(None, GQA.knowledgeBase)}
    assert named and all(n.startswith(f"file:sha256:{digest} ") for n in named), named
    for f in kb_files:  # each downloadable from the address the graph gives
        got = requests.get(str(graph.value(f, DCAT.downloadURL)), timeout=60)
        assert got.status_code == 200
        assert hashlib.sha256(got.content).hexdigest() == str(graph.value(f, GQA.sha256))
    printed = _reproduce(uri, tmp_path)
    assert _compare(_stored(graph, uri), printed) > 20
    assert {p["kb"] for p in printed} == named  # the same KB, its version too


def test_a_gold_refreshed_after_the_experiment_is_named_on_its_page(
    server: Server, data_dir: Path
) -> None:
    """A year later the dataset has a registered version (its gold answers computed again):
    the cited experiment's page says so and links it, and the numbers stay as scored. Before,
    only the dataset's page listed versions, and the experiment's gave no hint its gold had
    moved on."""
    from service import formats
    from service.web.state import EXTENSION

    answers = [data_dir / QALD8 / "QAKIS_QALD8_Train.json"]
    uri = _published(server, "qald-8-train-multilingual", "exact", answers)
    before = requests.get(uri, timeout=60).text
    assert 'class="newer-version"' not in before
    dataset = formats.read(data_dir / "qald/ag-sc_QALD/8/data/qald-8-train-multilingual.json")
    version = server.storage.catalogue.register_version(
        "qald-8-train-multilingual", dataset, kb="http://dbpedia.org/sparql", version="hq13-review"
    )
    server.app.extensions[EXTENSION].changed()
    after = requests.get(uri, timeout=60).text
    assert f'<a href="{version.uri}">' in after and 'class="newer-version"' in after
    experiment_id = uri.rsplit("/", 1)[1]
    # the operator's command with the store it needs, and the owner's API call
    assert f"rescore {experiment_id} --store DIR --dataset-version hq13-review" in after
    said = html.unescape(after)
    body = '<code>{"datasetVersion": "hq13-review"}</code>'
    assert f"/api/experiments/{experiment_id}/rescore</code> and the body {body}" in said
    numbers = re.findall(r'<td class="num">([0-9.]+)', before)
    assert numbers and numbers == re.findall(r'<td class="num">([0-9.]+)', after)


@pytest.mark.browser
def test_a_reader_in_a_browser_copies_the_script_as_the_page_serves_it(
    server: Server, data_dir: Path, browser_without_js
) -> None:
    """What a person reads (chromium, no script): the section is there, its text is the
    script exactly (what a reader selects and copies), and it wraps instead of widening the
    page at 1280 px."""
    from selenium.webdriver.common.by import By

    uri = _published(server, "text2sparql-2025-ck25", "text2sparql", [data_dir / CK25_FRANZ])
    served = requests.get(uri, timeout=60).text
    found = re.search(r'<pre id="reproduce-script"[^>]*>(.*?)</pre>', served, re.S)
    assert found
    browser_without_js.set_window_size(1280, 900)
    browser_without_js.get(uri)
    heading = browser_without_js.find_element(By.ID, "reproduce")
    assert heading.text == "Reproduce these numbers" and heading.is_displayed()
    shown = browser_without_js.find_element(By.ID, "reproduce-script")
    assert shown.get_attribute("textContent") == html.unescape(found.group(1))
    assert "--kb prod-inst.ttl" in shown.text and "--profile text2sparql" in shown.text
    wide = browser_without_js.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert wide <= 0, f"the page scrolls {wide} px sideways"
    shot = Path(__file__).resolve().parents[2] / "var" / "screenshots"
    shot.mkdir(parents=True, exist_ok=True)
    browser_without_js.execute_script("arguments[0].scrollIntoView()", heading)
    browser_without_js.save_screenshot(str(shot / "reviewer-reproduce.png"))


def test_a_text2sparql_service_run_is_reproduced_from_its_archived_answers(
    server: Server, data_dir: Path, tmp_path: Path
) -> None:
    """A team's Text2SPARQL service (real, on 127.0.0.1) asked over HTTP: its answers are
    archived with the experiment, so the reviewer scores the same queries on the same graphs
    without asking the service again (it may be gone a year later)."""
    from tests.integration.test_text2sparql_participant import LLMService, ck25_llm, questions_of

    service = LLMService(questions_of("text2sparql-2025-ck25"), ck25_llm)
    try:
        body = {"dataset": "text2sparql-2025-ck25", "profile": "text2sparql", "timeout": 10}
        body["systems"] = [{"name": "llm", "url": service.url, "interface": "text2sparql"}]
        response = server.post("api/experiments", json=body)
        assert response.status_code == 202, response.text
        ticket = response.json()
        server.wait_finished(ticket["id"], ticket["token"], timeout=120)
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        assert (
            server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
        )
    finally:
        service.close()
    uri = ticket["uri"]
    graph = _graph(uri)
    printed = _reproduce(uri, tmp_path)  # the service is closed: only the archive answers
    assert _compare(_stored(graph, uri), printed) > 20


def test_a_run_matched_with_a_configured_kb_is_reproduced_with_its_file(
    server: Server, tmp_path: Path
) -> None:
    """The demo's answers under ``fair`` with the configured ``demo`` KB (labels and
    ``owl:sameAs`` looked up in it): the KB file is among the experiment's files, kept, and the
    command loads it (``--kb kb.ttl``), so the label matches count again."""
    ticket = server.submit_demo(systems=("strong", "partial"))
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    uri = ticket["uri"]
    graph = _graph(uri)
    printed = _reproduce(uri, tmp_path)
    assert (tmp_path / "kb.ttl").is_file()
    assert _compare(_stored(graph, uri), printed) > 20
    assert all(p["kb"] and p["kb"].startswith("file:sha256:") for p in printed)


def test_a_run_scored_with_force_is_reproduced_by_its_command(
    server: Server, data_dir: Path, tmp_path: Path
) -> None:
    """Answers to 50 of QALD-8 train's 219 questions, scored because the submission said
    ``force``: the graph does not say so, and the page's command was refused ('only 50 of the
    dataset's 219 question ids have an answer … --force')."""
    whole = json.loads((data_dir / QALD8 / "QAKIS_QALD8_Train.json").read_text(encoding="utf-8"))
    whole["questions"] = whole["questions"][:50]
    files = [("answers", ("QAKIS-part.json", json.dumps(whole).encode()))]
    data = {"dataset": "qald-8-train-multilingual", "profile": "exact", "force": "true"}
    response = server.post("api/experiments", files=files, data=data)
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"], timeout=120)
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    uri = ticket["uri"]
    assert _compare(_stored(_graph(uri), uri), _reproduce(uri, tmp_path)) > 20


def test_a_run_on_a_refreshed_gold_names_its_version_and_is_reproduced(
    data_dir: Path, tmp_path: Path
) -> None:
    """A team's TEXT2SPARQL answers scored against a registered version of CK25 (its gold run
    again on its graphs): the page names the version the dataset is the file of, and its
    command gives the numbers again. Before, the run stopped asking for a KB, and its dataset
    said 'uploaded for an experiment'. (A server of its own: a registered version is a public
    activity the listings of the shared one would show.)"""
    from service import catalog, formats
    from service.experiments.kept import keep
    from tests.web.conftest import start_server, stop_server

    server = start_server(tmp_path / "store", demo=False)
    try:
        dataset = catalog.load("text2sparql-2025-ck25")
        data = formats.write(dataset, "qald-json")
        data = data if isinstance(data, bytes) else data.encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        keep(server.storage.workspace, sha, data)
        version = server.storage.catalogue.register_version(
            "text2sparql-2025-ck25", dataset, kb="test", version="review-v2", file_sha256=sha
        )
        answers = (data_dir / CK25_FRANZ).read_text(encoding="utf-8")
        body = {
            "dataset": "text2sparql-2025-ck25",
            "datasetVersion": "review-v2",
            "systems": [{"name": "FRANZ", "answers": answers}],
            "profile": "text2sparql",
        }
        response = server.post("api/experiments", json=body)
        assert response.status_code == 202, response.text
        ticket = response.json()
        server.wait_finished(ticket["id"], ticket["token"], timeout=120)
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        published = server.post(f"api/experiments/{ticket['id']}/publish", headers=auth)
        assert published.status_code == 200
        uri = ticket["uri"]
        page = requests.get(uri, timeout=60).text
        named = re.search(r'<a href="([^"]+)" id="dataset-version">([^<]+)</a>', page)
        assert named and named.groups() == (version.uri, "text2sparql-2025-ck25 version review-v2")
        workdir = tmp_path / "reviewer"
        workdir.mkdir()
        assert _compare(_stored(_graph(uri), uri), _reproduce(uri, workdir)) > 20
    finally:
        stop_server(server)


def test_a_profile_whose_rules_moved_on_is_named_on_the_experiments_page(
    server: Server, data_dir: Path
) -> None:
    """An experiment scored under an older version of its profile (recorded so here: its
    graph says 0.9.0, as one written by an earlier release would): the page says this service
    scores under the newer version now, that the numbers stand as scored, and how to re-score.
    Before, a reader saw 'exact 0.9.0' and nothing said it was not the current rules."""
    from service.evaluation.profiles import get_profile
    from service.graph.adapter import Side

    answers = data_dir / QALD8 / "AskNow_QALD8_Train.json"
    files = [("answers", (answers.name, answers.read_bytes()))]
    data = {"dataset": "qald-8-train-multilingual", "profile": "exact", "experiment_type": "QA"}
    response = server.post("api/experiments", files=files, data=data)
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"], timeout=120)
    graph = server.storage.uris.experiment_graph(ticket["id"])
    version = f"<{GQA}profileVersion>"
    server.storage.store.update(  # as an earlier release recorded it
        Side.PRIVATE,
        f"DELETE {{ GRAPH <{graph}> {{ ?t {version} ?v }} }} INSERT {{ GRAPH <{graph}> {{ ?t "
        f'{version} "0.9.0" }} }} WHERE {{ GRAPH <{graph}> {{ ?t {version} ?v }} }}',
    )
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    page = requests.get(ticket["uri"], timeout=60).text
    notice = re.search(r'<dd class="newer-profile">(.*?)</dd>', page, re.S)
    now = get_profile("exact").version
    assert notice, "the page does not say the profile's rules moved on"
    text = html.unescape(re.sub(r"<[^>]+>", "", notice.group(1)))
    assert f"exact is version {now} here now" in text and "scored under 0.9.0" in text
    # the owner's way (the API), and the operator's command with the store it needs (a bare
    # `gerbil-qa rescore ID` was all it said: explore-15 9)
    assert f"its owner re-scores these answers under {now}" in text, text
    assert f"POST {server.url}api/experiments/{ticket['id']}/rescore (the owner token" in text
    assert f"gerbil-qa rescore {ticket['id']} --store DIR" in text
    current = requests.get(f"{server.url}experiment/{server.demo_id}", timeout=60).text
    assert 'class="newer-profile"' not in current  # a run under today's rules says nothing


def test_a_private_experiments_script_sends_the_owner_token_from_the_environment(
    server: Server, tmp_path: Path
) -> None:
    """The owner of a private run reproduces it before publishing: its files answer the owner
    only, and the script's plain curl got 403 and stopped. The owner's page gives a script that
    sends the token from $GERBIL_QA_TOKEN (never written into the page), which refuses to run
    without it and reproduces every number with it."""
    ticket = server.submit_demo()
    uri = ticket["uri"]
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    page = requests.get(uri, headers={"Accept": "text/html", **owner}, timeout=60).text
    assert 'id="reproduce-token"' in page and ticket["token"] not in page
    # its script is no file of its own while private: its owner's page has it, with the token
    assert "reproduce-download" not in page
    assert requests.get(uri + "/reproduce.sh", headers=owner, timeout=60).status_code == 403
    found = re.search(r'<pre id="reproduce-script"[^>]*>(.*?)</pre>', page, re.S)
    assert found
    script = html.unescape(found.group(1))
    assert "GERBIL_QA_TOKEN" in script
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["GERBIL_QA_DATA"] = str(tmp_path / "no-mirror")  # no mirror, as _reproduce
    env.pop("GERBIL_QA_TOKEN", None)
    run = subprocess.run
    without = run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert without.returncode != 0 and "owner token of this private experiment" in without.stderr
    env["GERBIL_QA_TOKEN"] = ticket["token"]
    done = run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    printed = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    turtle = requests.get(uri, headers={"Accept": "text/turtle", **owner}, timeout=60).text
    graph = rdflib.Graph().parse(data=turtle, format="turtle")
    assert _compare(_stored(graph, uri), printed) > 20
