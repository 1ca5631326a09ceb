"""The result pages over HTTP (a real server): why each answer was judged as it was, the task
page's filters, the experiment page's charts and intervals, BibTeX with papers, badges."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from typing import Any

import pyoxigraph
import pytest

from service.paths import DEMO_DIR
from tests.helpers import demo_first_right

GQA = "http://w3id.org/gerbil/qa/vocab#"
SVG = "{http://www.w3.org/2000/svg}"


class Rows(HTMLParser):
    """The rows of ``table#questions``: each row's class and its cells' text."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, list[str]]] = []
        self._in_table = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table" and found.get("id") == "questions":
            self._in_table = True
        elif self._in_table and tag == "tr" and "outcome-" in (found.get("class") or ""):
            self.rows.append((found.get("class") or "", []))
        elif self._in_table and self.rows and tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in_table = False
        elif tag in ("td", "th") and self._cell is not None:
            self.rows[-1][1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def question_rows(html: str) -> list[tuple[str, list[str]]]:
    parser = Rows()
    parser.feed(html)
    return parser.rows


@pytest.fixture(scope="module")
def tasks(server) -> dict[str, str]:
    """System label -> the path of its QA task in the demo experiment."""
    demo = server.demo_id
    rows = server.storage.public.query(
        f"""PREFIX gqa: <{GQA}> PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?task ?label WHERE {{ <{server.url}experiment/{demo}> gqa:task ?task .
  ?task gerbil:experimentType gerbil:QA ; gerbil:annotator ?s . ?s rdfs:label ?label }}"""
    )
    return {r["label"].value: r["task"].value.removeprefix(server.url) for r in rows}


def test_task_page_explains_each_answer(server, tasks) -> None:
    page = server.get(tasks["demo-strong"])
    assert page.status_code == 200
    rows = {cells[0]: (cls, cells) for cls, cells in question_rows(page.text)}
    assert len(rows) == 14
    # the demo's strong system names Jupiter by its DBpedia IRI: matched through owl:sameAs
    cls, cells = rows["1"]
    assert cls == "outcome-correct"
    assert (
        "http://dbpedia.org/resource/Jupiter = http://example.org/solar/Jupiter owl:sameAs"
        in (cells[9])
    )
    assert "SELECT ?uri WHERE" in cells[1]  # the system's SPARQL, in a <details>
    # and William Herschel by his label
    assert (
        "William Herschel @en = http://example.org/solar/William_Herschel label" in rows["5"][1][9]
    )
    partial = {c[0]: c for _, c in question_rows(server.get(tasks["demo-partial"]).text)}
    assert "false: http://example.org/solar/Saturn" in partial["1"][9]
    assert "missed: http://example.org/solar/Jupiter" in partial["1"][9]
    assert partial["5"][2].startswith("missing")


def questions_with(server, prop: str, value: str) -> set[str]:
    """Ids of the demo questions whose ``gqa:{prop}`` is ``value`` (an answer type's name or a
    boolean), read from the public store."""
    rows = server.storage.public.query(
        f"""PREFIX gqa: <{GQA}> PREFIX dct: <http://purl.org/dc/terms/>
SELECT ?id ?v WHERE {{ ?q a gqa:Question ; dct:identifier ?id ; gqa:{prop} ?v .
  FILTER(CONTAINS(STR(?q), "gerbil-qa-demo")) }}"""
    )
    return {r["id"].value for r in rows if r["v"].value.rsplit("-", 1)[-1] == value}


def test_task_page_filters_by_outcome_and_feature(server, tasks) -> None:
    path = tasks["demo-partial"]
    everything = question_rows(server.get(path).text)
    outcomes = {cls.removeprefix("outcome-") for cls, _ in everything}
    assert {"correct", "partly", "wrong", "missing"} <= outcomes
    wrong = question_rows(server.get(path, params={"outcome": "wrong"}).text)
    assert wrong and all(cls == "outcome-wrong" for cls, _ in wrong)
    assert len(wrong) == sum(1 for cls, _ in everything if cls == "outcome-wrong")
    page = server.get(path, params={"outcome": ["wrong", "missing"]}).text
    two = question_rows(page)
    assert {cls for cls, _ in two} == {"outcome-wrong", "outcome-missing"}
    # the tab says what it shows (a filtered page kept the unfiltered title)
    assert ", missing, wrong questions · GERBIL QA</title>" in page
    numbers = question_rows(server.get(path, params={"answertype": "number"}).text)
    assert {cells[0] for _, cells in numbers} == questions_with(server, "answerType", "number")
    assert len(numbers) < len(everything)
    aggregation = server.get(path, params={"aggregation": "yes"}).text
    shown = question_rows(aggregation)
    assert {cells[0] for _, cells in shown} == questions_with(server, "aggregation", "true")
    both = question_rows(server.get(path, params={"aggregation": "no", "outcome": "correct"}).text)
    assert both and not {cells[0] for _, cells in both} & questions_with(
        server, "aggregation", "true"
    )
    assert 'id="clear-filters"' in aggregation
    assert '<option value="yes" selected>' in aggregation  # the form shows what was asked
    # the filters are GET parameters: the page works without JavaScript, bad values are named
    bad = server.get(path, params={"outcome": "great"}, headers={"Accept": "text/html"})
    assert bad.status_code == 400 and "outcome=&#39;great&#39;" in bad.text
    assert server.get(path, params={"hybrid": "maybe"}).status_code == 400
    # a flag no demo question has set is no filter: hybrid "no" showed all, "yes" nothing
    assert 'id="feature-aggregation"' in aggregation and 'id="feature-hybrid"' not in aggregation


def test_task_rdf_carries_the_answer_matches(server, tasks) -> None:
    turtle = server.get(tasks["demo-strong"] + ".ttl")
    assert turtle.status_code == 200
    store = pyoxigraph.Store()
    store.load(turtle.content, format=pyoxigraph.RdfFormat.TURTLE)
    rules = {
        r["rule"].value.removeprefix(GQA)
        for r in store.query(f"SELECT ?rule WHERE {{ ?m <{GQA}matchRule> ?rule }}")  # type: ignore[union-attr]
    }
    assert {"rule-same-as", "rule-label"} <= rules  # exact matches are gqa:exactAnswer
    matches = store.query(
        f"""SELECT (COUNT(?m) AS ?n) WHERE {{
  {{ ?r <{GQA}answerMatch> ?m . ?m a <{GQA}AnswerMatch> }} UNION {{ ?r <{GQA}exactAnswer> ?m }}
}}"""
    )
    tps = store.query(f"SELECT (SUM(?tp) AS ?n) WHERE {{ ?r <{GQA}tp> ?tp }}")
    assert isinstance(matches, pyoxigraph.QuerySolutions)
    assert isinstance(tps, pyoxigraph.QuerySolutions)
    assert int(next(matches)["n"].value) == int(next(tps)["n"].value)


def test_a_runtime_not_timed_says_so(server, tasks) -> None:
    """Answers read from a file have no runtimes: the pages said "undefined" ("undef.") of
    the mean runtime, which read like a bug; they say it was not timed and why."""
    page = server.get(f"experiment/{server.demo_id}", headers={"Accept": "text/html"}).text
    said = "not timed: the answers were read from a file, which holds no runtimes"
    assert f'<abbr title="{said}">not timed</abbr>' in page
    task = server.get(next(iter(tasks.values())), headers={"Accept": "text/html"}).text
    assert f"<dd>{said}</dd>" in task and "<dd>undefined</dd>" not in task


def test_experiment_page_draws_charts_with_intervals(server) -> None:
    demo = server.demo_id
    page = server.get(f"experiment/{demo}")
    assert page.status_code == 200
    html = page.text
    svgs = re.findall(r"<svg .*?</svg>", html, flags=re.S)
    assert len(svgs) == 3
    ids = []
    for svg in svgs:
        root = ET.fromstring(svg)  # strict XML inside the HTML
        assert root.get("role") == "img"
        assert root.find(f"{SVG}title") is not None and root.find(f"{SVG}desc") is not None
        ids.append(root.get("id"))
    assert ids == ["chart-measures", "chart-answer-types", "chart-scatter"]
    measures = ET.fromstring(svgs[0])
    whiskers = measures.findall(f".//{SVG}g[@class='whisker']")
    assert whiskers  # intervals from the stored per-question results
    # the interval of demo-partial's macro F1 is in the table, and brackets its value
    m = re.search(r"0\.4993<br><span class=\"ci\"[^>]*>\[(0\.\d+), (0\.\d+)\]", html)
    assert m and float(m[1]) < 0.4993 < float(m[2])
    assert 'id="table-answer-types"' in html and 'id="table-scatter"' in html


def test_experiment_page_shows_the_stored_intervals_of_confidence_measures(server) -> None:
    # a run with confidences stores the intervals of CWS, K1, K and r with its task; the
    # results table showed only those of the eight count measures
    ticket, answers = server.submit_confident()
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    html = server.get(f"experiment/{ticket['id']}", headers=auth).text
    # K1 = mean confidence of the 14 right answers: 0.575, its interval beneath it
    m = re.search(r"0\.5750<br><span class=\"ci\"[^>]*>\[(0\.\d+), (0\.\d+)\]", html)
    assert m and float(m[1]) < 0.575 < float(m[2])
    # each answer's confidence is kept with its question (the JSON, the graph, the task page):
    # the measures weigh answers by it, and nothing showed which answer had which
    status = server.get(f"api/experiments/{ticket['id']}", headers=auth).json()
    kept = {q["id"]: q.get("confidence") for q in status["evaluations"][0]["questions"]}
    given = {q["id"]: float(q["answers"][0]["confidence"]) for q in answers["questions"]}
    assert kept == given
    task = server.get(f"experiment/{ticket['id']}/task/1", headers=auth).text
    shown = re.findall(r'<span class="muted confidence">confidence (0\.\d\d)</span>', task)
    assert sorted(map(float, shown)) == sorted(given.values())


def test_question_texts_are_marked_with_their_language(server) -> None:
    # Korean and Polish texts on English pages: without lang a browser and a screen reader
    # take them for English (CJK glyph choice, pronunciation)
    texts = [
        {"language": "en", "string": "Which planet is the largest?"},
        {"language": "ko", "string": "가장 큰 행성은 무엇인가?"},
        {"language": "pl", "string": "Która planeta jest największa?"},
    ]
    row = {"x": {"type": "literal", "value": "Jowisz"}}
    answer = {"head": {"vars": ["x"]}, "results": {"bindings": [row]}}
    dataset = {"questions": [{"id": "1", "question": texts, "answers": [answer]}]}
    body = json.dumps(dataset, ensure_ascii=False).encode()
    files = [("dataset_file", ("planets.json", body)), ("answers", ("same.json", body))]
    response = server.post("api/experiments", files=files, data={"language": "ko"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    state = server.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    task = server.get(f"experiment/{ticket['id']}/task/1", headers=auth).text
    assert re.search(
        r'<a href="[^"]*/question/1" lang="ko" dir="auto">가장 큰 행성은 무엇인가\?</a>', task
    )
    question = next(r for r in state["evaluations"][0]["questions"] if r["id"] == "1")
    assert question["QA"]["f1"] == 1.0
    (dataset_name,) = set(re.findall(r"/dataset/([^/\"]+)/question/1", task))
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    page = server.get(f"dataset/{dataset_name}/question/1").text
    assert '<span lang="ko" dir="auto">가장 큰 행성은 무엇인가?</span>' in page
    assert '<span lang="pl" dir="auto">Która planeta jest największa?</span>' in page


def test_scatter_systems_are_chosen_by_query(server) -> None:
    demo = server.demo_id
    html = server.get(f"experiment/{demo}", params={"a": "demo-baseline", "b": "demo-partial"}).text
    [svg] = re.findall(r'<svg [^>]*id="chart-scatter".*?</svg>', html, flags=re.S)
    title = ET.fromstring(svg).findtext(f"{SVG}title")
    assert title == "Per-question F1: demo-baseline against demo-partial"
    assert "<option selected>demo-baseline</option>" in html


@pytest.fixture(scope="module")
def published(server) -> dict[str, Any]:
    """A new experiment (the demo's strong and partial answers), published, with a paper."""
    ticket = server.submit_demo()
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    paper = server.post(
        f"api/experiments/{ticket['id']}/papers", headers=auth, json={"doi": "10.3233/SW-180312"}
    )
    assert paper.status_code in (200, 201), paper.text
    return ticket


def test_bibtex_download_carries_the_papers_doi(server, published) -> None:
    eid = published["id"]
    bib = server.get(f"experiment/{eid}.bib")
    assert bib.status_code == 200
    assert bib.headers["Content-Type"].startswith("application/x-bibtex")
    assert bib.headers["Content-Disposition"] == f'attachment; filename="{eid}.bib"'
    assert bib.text.startswith(f"@misc{{gerbilqa-{eid},")
    assert "doi = {10.3233/SW-180312}" in bib.text
    negotiated = server.get(f"experiment/{eid}", headers={"Accept": "application/x-bibtex"})
    assert negotiated.text == bib.text
    html = server.get(f"experiment/{eid}").text
    assert "doi:10.3233/SW-180312" in html and f'href="{server.url}experiment/{eid}.bib"' in html


def test_the_citation_names_what_was_evaluated(server, published) -> None:
    """A bibliography entry "GERBIL QA experiment 2026…" told its reader nothing: its title
    names the systems and the dataset, as the results name them."""
    eid = published["id"]
    turtle = server.get(f"experiment/{eid}.ttl").text
    label = re.search(r'gqa:datasetLabel "([^"]+)"', turtle)[1]  # the dataset's title
    title = f"GERBIL QA experiment {eid}: answers-strong and answers-partial on {label}"
    assert f"  title = {{{{{title}}}}},\n" in server.get(f"experiment/{eid}.bib").text
    assert f"GERBIL QA ({eid[:4]}). {title}. " in server.get(f"experiment/{eid}").text


def test_a_demo_runs_citation_title_is_the_same_while_it_runs_and_after(server, slow_qa) -> None:
    """Asked as "demo", recorded under its file's label: the title said "on demo" while it ran
    and "on gerbil-qa-demo" once finished, so a copied entry differed from the later one
    (explore-11 5)."""
    ticket = server.post(
        "api/experiments",
        json={
            "dataset": "demo",
            "concurrency": 1,
            "systems": [{"name": "slowish", "url": f"{slow_qa}delay/0.3"}],
        },
    ).json()
    auth = {"Authorization": f"Bearer {ticket['token']}"}

    def title() -> str:
        bib = server.get(f"experiment/{ticket['id']}.bib", headers=auth).text
        return bib.split("  title = ", 1)[1].split("\n", 1)[0]

    running = title()
    status = server.get(f"api/experiments/{ticket['id']}", headers=auth).json()["status"]
    assert status in ("queued", "running"), "the run ended before its entry was read"
    server.wait_finished(ticket["id"], ticket["token"])
    assert (
        running
        == title()
        == f"{{{{GERBIL QA experiment {ticket['id']}: slowish on gerbil-qa-demo}}}},"
    )


def test_the_citation_says_on_and_with_what_the_numbers_were_computed(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry named the dataset by its name, with no dataset, profile or evaluator version,
    and an attached paper's entry had no title, author or year, printed as an empty reference
    (explore-7 2): the title names the dataset's title, the note its name and version, the
    profile and its version and the evaluator's release as the page shows them; a paper known
    by its DOI has it as its title. The key stays from the submission through publication.
    With a source repository configured, the evaluator names it and the reproduce text says
    how to get its commit (explore60 F7)."""
    from service.release import source
    from tests.web.conftest import start_server, stop_server

    repository = "https://git.example.org/gerbil-qa.git"
    commit = "0123456789abcdef0123456789abcdef01234567"
    monkeypatch.setenv("GERBIL_QA_SOURCE_REPOSITORY", repository)
    monkeypatch.setenv("GERBIL_QA_REVISION", commit)
    source.cache_clear()

    def turtle(eid: str, auth: dict[str, str]) -> str:
        return site.get(f"experiment/{eid}", headers={**auth, "Accept": "text/turtle"}).text

    site = start_server(tmp_path / "store", demo=False)
    try:
        body = {
            "dataset": {
                "filename": "birds.json",
                "content": (DEMO_DIR / "questions.json").read_text(encoding="utf-8"),
            },
            "title": "Birds & Bees QA",
            "about": {"description": "Demo birds", "creators": ["Ann Author"], "version": "1.2"},
            "profile": "fair",
            "kb": "demo",
            "systems": [
                {"name": "strong", "answers": (DEMO_DIR / "answers-strong.json").read_text()}
            ],
        }
        made = site.post("api/experiments", json=body)
        assert made.status_code == 202, made.text
        eid, auth = made.json()["id"], {"Authorization": f"Bearer {made.json()['token']}"}
        site.wait_finished(eid, made.json()["token"])
        private = site.get(f"experiment/{eid}.bib", headers=auth).text
        page = site.get(f"experiment/{eid}", headers={**auth, "Accept": "text/html"}).text
        profile = re.search(r"Profile <strong>(fair [^<]+)</strong>", page)[1]
        evaluator = re.search(r"<dt>Evaluator</dt><dd><a [^>]+>([^<]+)</a>", page)[1]
        dataset = re.search(r'<dt>Dataset</dt><dd><a href="[^"]+/dataset/([^"]+)"', page)[1]
        assert f"title = {{{{GERBIL QA experiment {eid}: strong on Birds \\& Bees QA}}}}" in private
        # the language and the KB its numbers were computed with (explore60 F4): the demo's
        # answers-strong scores 0.8214 without the KB, 1 with it
        kb = re.search(r'gqa:knowledgeBase "([^"]+)"', turtle(eid, auth))[1]
        assert kb.startswith("file:sha256:")
        note = (
            f"dataset Birds \\& Bees QA ({dataset}), version 1.2; profile {profile}; "
            f"language en; knowledge base {kb}, file ``kb.ttl''; evaluator {evaluator}}}"
        )
        assert note in private, private
        assert site.post(f"api/experiments/{eid}/publish", headers=auth).status_code == 200
        paper = site.post(
            f"api/experiments/{eid}/papers", headers=auth, json={"doi": "10.3233/SW-180312"}
        )
        assert paper.status_code in (200, 201), paper.text
        public = site.get(f"experiment/{eid}.bib").text
        assert public.startswith(private.rstrip("\n"))  # the entry as it was, key and all
        entry = public.split("\n\n")[1]
        assert "  title = {{The paper with DOI 10.3233/SW-180312}},\n" in entry
        assert "  doi = {10.3233/SW-180312},\n" in entry
        assert "  url = {https://doi.org/10.3233/SW-180312},\n" in entry
        assert "howpublished" not in public and "\\url" not in public  # the URL once
        plain = site.get(f"experiment/{eid}", headers={"Accept": "text/html"}).text
        assert f"dataset Birds &amp; Bees QA ({dataset}), version 1.2; profile {profile}" in plain
        # where the evaluator's code is: its resource, and the reproduce text
        software = re.search(r"prov:wasAssociatedWith <([^>]+)>", turtle(eid, {}))[1]
        described = site.get(
            software.removeprefix(site.url), headers={"Accept": "text/turtle"}
        ).text
        assert f"<https://schema.org/codeRepository> <{repository}>" in described or (
            f"schema:codeRepository <{repository}>" in described
        ), described
        checkout = re.search(r'<code id="reproduce-checkout">([^<]+)</code>', plain)
        assert checkout and checkout[1] == (
            f"git clone {repository} gerbil-qa &amp;&amp; cd gerbil-qa &amp;&amp; "
            f"git checkout {commit} &amp;&amp; pip install ."
        ), plain
        assert f'href="{repository}" id="reproduce-repository"' in plain
    finally:
        stop_server(site)
        monkeypatch.undo()
        source.cache_clear()  # the environment's own again, for the tests after


def test_badge_of_a_published_result(server, published) -> None:
    eid = published["id"]
    badge = server.get(f"experiment/{eid}/badge.svg", params={"measure": "macroF1"})
    assert badge.status_code == 200
    assert badge.headers["Content-Type"].startswith("image/svg+xml")
    assert badge.headers["Content-Security-Policy"] == "default-src 'none'"
    root = ET.fromstring(badge.text)
    assert root.get("role") == "img"
    statement = root.findtext(f"{SVG}title") or ""
    assert statement.startswith("GERBIL QA: answers-strong scores macro F1 1.000")
    assert root.get("aria-label") == statement
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts == ["GERBIL QA · macro F1", "1.000 · answers-strong"]
    chosen = ET.fromstring(
        server.get(
            f"experiment/{eid}/badge.svg",
            params={"measure": "microF1", "system": "answers-partial"},
        ).text
    )
    assert [t.text or "" for t in chosen.iter(f"{SVG}text")][1].endswith("· answers-partial")
    assert (
        server.get(f"experiment/{eid}/badge.svg", params={"measure": "nonsense"}).status_code == 400
    )
    missing = server.get(f"experiment/{eid}/badge.svg", params={"system": "nobody"})
    assert missing.status_code == 404
    # the page offers it with its snippets
    html = server.get(f"experiment/{eid}").text
    url = f"{server.url}experiment/{eid}/badge.svg?measure=macroF1"
    # the preview from where the page is served (img-src 'self'), the snippets name the URI
    assert f'<img src="/experiment/{eid}/badge.svg?measure=macroF1"' in html
    assert "[![GERBIL QA: answers-strong scores macro F1 1.000" in html
    assert f"]({url})]({server.url}experiment/{eid})" in html


def test_private_experiments_have_no_badge(server) -> None:
    ticket = server.submit_demo(systems=("baseline",))
    found = server.get(f"experiment/{ticket['id']}/badge.svg")
    assert found.status_code == 403
    owner = server.get(
        f"experiment/{ticket['id']}", headers={"Authorization": f"Bearer {ticket['token']}"}
    )
    assert owner.status_code == 200 and 'id="badge-markdown"' not in owner.text
    assert server.get("experiment/209901019999/badge.svg").status_code == 404


def test_the_experiment_page_breaks_the_measures_down(server) -> None:
    """``?by=answertype``: a table of each answer type x each system's QA macro F1, micro F1 and
    questions, the numbers the API's ``?by=`` gives; a bad dimension is a 400."""
    import re

    page = server.get(f"experiment/{server.demo_id}", params={"by": "answertype"})
    assert page.status_code == 200
    html = page.text
    assert 'id="breakdown-table"' in html and '<th scope="row">number</th>' in html
    api = server.get(f"api/experiments/{server.demo_id}", params={"by": "answertype"}).json()
    strong = next(e for e in api["evaluations"] if e["system"] == "demo-strong")
    resource = strong["slices"]["answertype"]["resource"]["QA"]
    table = html.split('id="breakdown-table"', 1)[1]
    row = re.search(r'<th scope="row">resource</th>(.*?)</tr>', table, re.S)
    assert row and f"{resource['macroF1']:.4f}" in row.group(1)
    assert server.get(f"experiment/{server.demo_id}", params={"by": "colour"}).status_code == 400
    # offered: the dimensions of two values or more; the demo is English and never hybrid, so
    # a language or hybrid table was one row repeating the totals (explore-10 15)
    links = html.split('id="breakdown-links"', 1)[1].split("</p>", 1)[0]
    assert re.findall(r'(?:by=|current="true">)(\w+)', links) == ["answertype", "aggregation"]
    assert server.get(f"experiment/{server.demo_id}", params={"by": "hybrid"}).status_code == 200


def test_experiment_page_lists_the_dataset_file_then_the_answers_as_submitted(server) -> None:
    html = server.get(f"experiment/{server.demo_id}").text
    files = re.findall(r">File \((\w+)\)</dt><dd><a [^>]*>([^<]+)</a>", html)
    assert files == [
        ("dataset", "questions.json"),
        ("answers", "answers-strong.json"),
        ("answers", "answers-partial.json"),
        ("answers", "answers-baseline.json"),
        ("kb", "kb.ttl"),  # the KB its labels and owl:sameAs were looked up in
    ]


def test_the_task_page_lists_the_warnings_about_the_answers(server) -> None:
    """A service's or file's answers can be read with warnings (an answer for a question the
    dataset lacks, an empty answer set); they were kept in the graph and the API only, and a
    developer reading the task page never saw why a system scored as it did."""
    import json

    from service.paths import DEMO_DIR

    answers = json.loads((DEMO_DIR / "answers-partial.json").read_text())
    answers["questions"].append({"id": "999", "answers": [{"head": {"vars": ["uri"]}}]})
    files = [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("partial-extra.json", json.dumps(answers).encode())),
    ]
    ticket = server.post("api/experiments", files=files, data={"kb": "demo"}).json()
    server.wait_finished(ticket["id"], ticket["token"])
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    status = server.get(f"api/experiments/{ticket['id']}", headers=owner).json()
    stored = status["evaluations"][0]["warnings"]
    assert any("(999); they are ignored" in w for w in stored), stored
    html = server.get(f"experiment/{ticket['id']}/task/1", headers=owner).text
    listed = re.search(r'<details class="warnings" id="warnings"[^>]*>(.*?)</details>', html, re.S)
    assert listed, "no warnings on the task page"
    assert f"{len(stored)} warning" in listed[1]
    items = [" ".join(i.split()) for i in re.findall(r"<li>(.*?)</li>", listed[1], re.S)]
    assert items == [w.replace("'", "&#39;") for w in stored]


def _uri_questions(answers: dict[str, str]) -> str:
    """QALD-JSON questions, each with one URI answer (``answers``: id -> the URI)."""
    binding = {"head": {"vars": ["x"]}, "results": {"bindings": []}}
    questions = [
        {
            "id": qid,
            "question": [{"language": "en", "string": f"Which thing is number {qid}?"}],
            "answers": [
                {**binding, "results": {"bindings": [{"x": {"type": "uri", "value": uri}}]}}
            ],
        }
        for qid, uri in answers.items()
    ]
    return json.dumps({"questions": questions})


def _submitted(
    server, dataset: str, answers: str, profile: str = "exact"
) -> tuple[dict[str, Any], dict[str, str]]:
    """A private run of system ``sys`` on an inline dataset, finished: its status and the
    owner's headers."""
    made = server.post(
        "api/experiments",
        json={
            "dataset": {"content": dataset},
            "profile": profile,
            "systems": [{"name": "sys", "answers": answers}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    return server.wait_finished(ticket["id"], ticket["token"]), owner


def test_answers_to_questions_not_in_the_dataset_are_noted(server) -> None:
    """explore-17b 8d: answers to question ids the dataset lacks (a participant answered an
    outdated version) were ignored with a warning on the task only, the run's notes empty:
    still accepted, and the notes and the experiment page say how many and which."""
    import html

    gold = _uri_questions({str(i): f"http://example.org/t/{i}" for i in range(1, 4)})
    answered = {str(i): f"http://example.org/t/{i}" for i in range(1, 16)}
    state, owner = _submitted(server, gold, _uri_questions(answered))
    name = state["dataset"].rsplit("/", 1)[1]
    said = (
        f"12 answers name questions not in {name} (ids 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
        "first 10): sys's, not scored"
    )
    assert any(n.startswith(said) for n in state["notes"]), state["notes"]
    page = html.unescape(server.get(f"experiment/{state['id']}", headers=owner).text)
    assert f"<strong>Note:</strong> {said}" in page
    # the three it has are scored as ever
    (qa,) = [r for r in state["results"] if r["experimentType"] == "QA"]
    assert qa["measures"]["macroF1"] == 1.0
    # a run answering only questions it has says nothing of the kind
    state, _ = _submitted(server, gold, gold)
    assert not any("not in" in n for n in state["notes"]), state["notes"]


def test_macro_f1_qald_of_an_all_wrong_task_says_why_it_is_undefined(server) -> None:
    """explore-17b 8a: every question answered wrong gives mean precision and recall 0, where
    macro F1 (QALD) is undefined (DESIGN.md); the pages said "this task has nothing to compute
    it from" of a task that scored every question."""
    gold = _uri_questions({str(i): f"http://example.org/t/{i}" for i in range(1, 4)})
    wrong = _uri_questions({str(i): "http://example.org/wrong" for i in range(1, 4)})
    state, owner = _submitted(server, gold, wrong)
    (qa,) = [r for r in state["results"] if r["experimentType"] == "QA"]
    assert qa["measures"]["macroF1QALD"] is None and qa["measures"]["macroF1"] == 0.0
    assert qa["measures"]["questions"] == 3
    said = "undefined: mean precision and mean recall are both 0"
    page = server.get(f"experiment/{state['id']}", headers=owner).text
    assert f'<abbr title="{said}">undef.</abbr>' in page
    task = server.get(f"experiment/{state['id']}/task/1", headers=owner).text
    assert f"<dd>{said}</dd>" in task


def test_experiment_page_prints_intervals_to_the_digits_of_their_numbers(server) -> None:
    # a paper copies "0.7204 [0.6546, 0.7885]" from evaluate --intervals and the compare page;
    # the experiment page printed "0.7204 [0.655, 0.788]": another rounding of the same bounds
    demo = server.demo_id
    html = server.get(f"experiment/{demo}").text
    evaluations = server.get(f"api/experiments/{demo}").json()["evaluations"]
    table = html.split('id="table-QA"')[1].split("</table>")[0]
    shown = 0
    for evaluation in evaluations:
        row = re.search(rf">{re.escape(evaluation['system'])}</a></th>(.*?)</tr>", table, re.S)
        assert row, evaluation["system"]
        cells = re.findall(r'>([0-9.]+)<br><span class="ci"[^>]*>\[([^\]]+)\]', row[1])
        expected = {
            (f"{evaluation['results']['QA'][m]:.4f}", f"{low:.4f}, {high:.4f}")
            for m, (low, high) in evaluation["intervals"]["QA"].items()
            if low is not None and evaluation["results"]["QA"][m] is not None
        }
        for cell in cells:
            assert cell in expected, (evaluation["system"], cell)
            shown += 1
    assert shown >= 3 * 8


def test_intervals_say_on_how_many_resamples_their_measure_was_undefined(server) -> None:
    """explore-14 1: a measure undefined on some resamples (Macro F1 QALD where a resample holds
    no question with a right answer) had them left out silently: with one right answer the
    interval started at the estimate. Of the demo's 14 questions, one right: undefined on
    (13/14)^14 = 35 % of the resamples, more than the 2.5 % tail, no bounds; four right: on
    (10/14)^14 = 0.9 %, bounds from the others. The pages, the API and the CSV say how many."""
    import csv
    import io

    files = demo_first_right(1, 4)
    response = server.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    state = server.wait_finished(ticket["id"], ticket["token"])
    by_system = {e["system"]: e for e in state["evaluations"]}
    many = by_system["right1"]["undefinedResamples"]["QA"]["macroF1QALD"]
    few = by_system["right4"]["undefinedResamples"]["QA"]["macroF1QALD"]
    assert 25 < many < 500 and 0 < few <= 25, (many, few)
    assert by_system["right1"]["intervals"]["QA"]["macroF1QALD"] == [None, None]
    low, high = by_system["right4"]["intervals"]["QA"]["macroF1QALD"]
    assert low is not None and high is not None
    assert by_system["right1"]["undefinedResamples"] == {"QA": {"macroF1QALD": many}}
    html = server.get(f"experiment/{ticket['id']}", headers=auth).text
    table = html.split('id="table-QA"')[1].split("</table>")[0]
    assert f'<span class="ci">no interval: undefined on {many} of 1,000 resamples</span>' in table
    assert f"[{low:.4f}, {high:.4f}] · {few} of 1,000 resamples undefined, left out" in table
    assert table.count("resamples") == 2  # the other measures' intervals as before
    task = next(
        t
        for t in state["results"]
        if t["system"].endswith("right1") and t["experimentType"] == "QA"
    )
    page = server.get(task["task"].removeprefix(server.url), headers=auth).text
    said = re.search(r'<span class="ci" id="interval-macroF1QALD">([^<]*)</span>', page)
    assert said and said[1] == f"no interval: undefined on {many} of 1,000 resamples"
    rows = csv.DictReader(
        io.StringIO(server.get(f"experiment/{ticket['id']}.csv", headers=auth).text)
    )
    counts = {
        r["system"].rsplit("/", 1)[-1]: r["macroF1QALDUndefinedResamples"]
        for r in rows
        if r["experimentType"] == "QA"
    }
    assert counts == {"right1": str(many), "right4": str(few)}
    # ordinary results (two of the demo's): no count, nothing changed
    demo = server.get(f"api/experiments/{server.demo_id}").json()["evaluations"]
    ordinary = [e for e in demo if e["system"] in ("demo-strong", "demo-partial")]
    assert len(ordinary) == 2 and not any("undefinedResamples" in e for e in ordinary)


def test_a_result_page_links_our_terms_to_their_definitions_here(server, tasks) -> None:
    # "question 42 fails because…": a reader follows gqa:missedAnswer from the page; it linked
    # to http://w3id.org/gerbil/qa/vocab#missedAnswer, which resolves only through w3id.org
    # (and gerbil: terms to GERBIL's own ontology), never to the vocabulary served here
    page = server.get(f"{tasks['demo-baseline']}/question/1").text
    assert 'href="http://w3id.org/gerbil' not in page
    fragments = set(re.findall(r'href="/vocab#([^"]+)"', page))
    assert {"f1", "QuestionResult", "questionStatus"} <= fragments
    vocab = server.get("vocab").text
    ids = set(re.findall(r'<section id="([^"]+)"', vocab))
    assert fragments <= ids, fragments - ids
    turtle = server.get("vocab", headers={"Accept": "text/turtle"})
    graph = pyoxigraph.Store()
    graph.load(turtle.content, format=pyoxigraph.RdfFormat.TURTLE)
    comment = pyoxigraph.NamedNode("http://www.w3.org/2000/01/rdf-schema#comment")
    for fragment in fragments:
        term = pyoxigraph.NamedNode(GQA + fragment)
        assert list(graph.quads_for_pattern(term, comment, None)), fragment


def test_experiment_page_links_its_profile_and_evaluator(server) -> None:
    # what a reviewer needs to re-run it: the page named the profile and the evaluator's
    # version as plain text; both have a description to follow (the profile's rules and
    # version in the vocabulary, the evaluator's software resource)
    html = server.get(f"experiment/{server.demo_id}").text
    profile = re.search(r'<dt>Profile</dt><dd><a href="([^"]+)">fair</a>', html)
    assert profile and profile[1] == "/vocab#profile-fair"
    assert 'id="profile-fair"' in server.get("vocab").text
    evaluator = re.search(r'<dt>Evaluator</dt><dd><a href="([^"]+)">GERBIL QA for Python', html)
    assert evaluator, "the evaluator is not linked"
    software = server.get(evaluator[1].removeprefix(server.url), headers={"Accept": "text/turtle"})
    assert software.status_code == 200 and "softwareVersion" in software.text


def test_task_page_shows_each_measures_stored_interval(server, tasks) -> None:
    # one system's row, cited on its own: the task's RDF holds each measure's interval
    # (task/n#interval-macroF1) but its page showed the numbers only, and no element had the
    # id that hash IRI names
    demo = server.demo_id
    evaluation = next(
        e
        for e in server.get(f"api/experiments/{demo}").json()["evaluations"]
        if e["system"] == "demo-partial"
    )
    page = server.get(tasks["demo-partial"]).text
    shown = 0
    for measure, (low, high) in evaluation["intervals"]["QA"].items():
        if low is None:
            continue
        value = evaluation["results"]["QA"][measure]
        span = re.search(rf'<span class="ci" id="interval-{measure}"[^>]*>\[([^\]]+)\]', page)
        assert span and span[1] == f"{low:.4f}, {high:.4f}", measure
        assert f"{value:.4f} <span" in page
        shown += 1
    assert shown == 8
    assert evaluation["intervalSignature"] in page


def test_a_question_result_page_shows_the_question_judged(server, tasks) -> None:
    """The link a paper gives for "question 1 fails because…" (task/n/question/ID): it showed a
    table of raw properties, with no question text and no system; now the task page's row for
    that question (text, outcome, every answer judged and by which rule) above its triples."""
    path = f"{tasks['demo-partial']}/question/1"
    page = server.get(path)
    assert page.status_code == 200
    (row,) = question_rows(page.text)
    task_row = {c[0]: (cls, c) for cls, c in question_rows(server.get(tasks["demo-partial"]).text)}
    assert row == task_row["1"]  # the very row of the task page
    assert "false: http://example.org/solar/Saturn" in row[1][9]
    assert "missed: http://example.org/solar/Jupiter" in row[1][9]
    assert "<h1>Question 1 · demo-partial · QA</h1>" in page.text
    assert f'href="{server.url}{tasks["demo-partial"]}" id="result-task"' in page.text
    assert 'id="result-question"' in page.text and "/question/1</a>" in page.text
    assert 'id="triples"' in page.text  # and still every triple of its description


def _task_csv(server, path: str, **kwargs: Any) -> dict[str, dict[str, str]]:
    """A task's CSV, its rows by question id."""
    import csv
    import io

    response = server.get(f"{path}.csv", **kwargs)
    assert response.status_code == 200, response.text
    return {row["id"]: row for row in csv.DictReader(io.StringIO(response.text))}


def test_task_csv_lists_each_gold_answer_once(server, published, tasks) -> None:
    """An uploaded dataset's questions are described in every experiment graph that uploaded
    it (the demo's and ``published``'s, both public): the CSV's gold column listed each gold
    answer once per such graph ("Jupiter | Jupiter")."""
    rows = _task_csv(server, tasks["demo-strong"])
    assert rows["1"]["gold"] == "http://example.org/solar/Jupiter"
    assert len(rows["2"]["gold"].split(" | ")) == 4  # Jupiter, Neptune, Saturn, Uranus


def test_private_task_csv_reads_the_questions_of_its_own_experiment(server) -> None:
    """Two private runs on one uploaded dataset (not published): the second one's CSV read the
    questions from every graph of the private store, the other owner's experiment's too."""
    data = json.loads((DEMO_DIR / "questions.json").read_text())
    data["dataset"]["id"] = "gold-listed-once"
    body = json.dumps(data).encode()
    answers = (DEMO_DIR / "answers-strong.json").read_bytes()
    tickets = []
    for _ in range(2):
        files = [("dataset_file", ("q.json", body)), ("answers", ("a.json", answers))]
        response = server.post("api/experiments", files=files, data={"kb": "demo"})
        assert response.status_code == 202, response.text
        tickets.append(response.json())
        server.wait_finished(tickets[-1]["id"], tickets[-1]["token"])
    auth = {"Authorization": f"Bearer {tickets[1]['token']}"}
    rows = _task_csv(server, f"experiment/{tickets[1]['id']}/task/1", headers=auth)
    assert rows["1"]["gold"] == "http://example.org/solar/Jupiter"


def test_a_multilingual_runs_badge_shows_its_pooled_task_and_says_so(server) -> None:
    """A run in en,de: the badge showed the system's best single language and said nothing
    of it (TEXT2SPARQL'25 DB25: 0.108 in English for the challenge's 0.098 over en,es). It
    shows the task pooled over the run's languages, naming them; ``language`` picks one."""
    import json

    doc = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    for q in doc["questions"][:5]:  # five questions in German too: the pooled task differs
        q["question"].append({"language": "de", "string": q["question"][0]["string"]})
    body = {
        "dataset": {"content": json.dumps(doc), "filename": "bilingual.json"},
        "kb": "demo",
        "language": "en,de",
        "systems": [{"name": "partial", "answers": {
            "content": (DEMO_DIR / "answers-partial.json").read_text()}}],
    }  # fmt: skip
    ticket = server.post("api/experiments", json=body)
    assert ticket.status_code == 202, ticket.text
    eid, token = ticket.json()["id"], ticket.json()["token"]
    server.wait_finished(eid, token)
    owner = {"Authorization": f"Bearer {token}"}
    assert server.post(f"api/experiments/{eid}/publish", headers=owner).status_code == 200
    state = server.get(f"api/experiments/{eid}").json()
    (evaluation,) = state["evaluations"]  # the pooled task, each language's measures beside
    pooled = evaluation["results"]["QA"]["macroF1"]
    english = evaluation["byLanguage"]["en"]["QA"]["macroF1"]
    assert f"{pooled:.3f}" != f"{english:.3f}"  # the test tells them apart

    def shown(**params: str) -> list[str]:
        svg = server.get(f"experiment/{eid}/badge.svg", params=params).text
        return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]

    assert shown()[1] == f"{pooled:.3f} · partial (en,de)"
    assert shown(language="en")[1] == f"{english:.3f} · partial (en)"
    assert server.get(f"experiment/{eid}/badge.svg", params={"language": "fr"}).status_code == 404


def test_charts_of_a_run_in_several_languages_name_each_tasks_language(server) -> None:
    """A run of two systems in en, de and pooled en,de has three tasks per system: the charts
    name each with its languages, and the scatter's default is the two systems in one language
    (before, the legend repeated the system names and the scatter plotted one system against
    itself, "demo-strong against demo-strong")."""
    doc = json.loads((DEMO_DIR / "questions.json").read_text())
    for q in doc["questions"]:
        q["question"].append(
            {"language": "de", "string": "Auf Deutsch: " + q["question"][0]["string"]}
        )
    files = [("dataset_file", ("questions.json", json.dumps(doc).encode()))]
    for name in ("strong", "partial"):
        answers = (DEMO_DIR / f"answers-{name}.json").read_bytes()
        files.append(("answers", (f"{name}.json", answers)))
    data = {"kb": "demo", "profile": "fair", "language": "en,de", "experiment_type": "QA"}
    response = server.post("api/experiments", files=files, data=data)
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    html = server.get(f"experiment/{ticket['id']}", headers=auth).text
    [measures] = re.findall(r'<svg [^>]*id="chart-measures".*?</svg>', html, flags=re.S)
    legend = [t.text for t in ET.fromstring(measures).iter(f"{SVG}text") if "(" in (t.text or "")]
    for name in ("strong", "partial"):
        for languages in ("en", "de", "en,de"):
            assert f"{name} ({languages})" in legend, legend
    [svg] = re.findall(r'<svg [^>]*id="chart-scatter".*?</svg>', html, flags=re.S)
    title = ET.fromstring(svg).findtext(f"{SVG}title") or ""
    found = re.fullmatch(r"Per-question F1: (\w+) \(([\w,]+)\) against (\w+) \(([\w,]+)\)", title)
    assert found and found[1] != found[3] and found[2] == found[4], title
    # every task can be chosen, by the name the charts give it
    assert (
        "<option>partial (de)</option>" in html or "<option selected>partial (de)</option>" in html
    )
    chosen = server.get(
        f"experiment/{ticket['id']}", headers=auth, params={"a": "strong (en)", "b": "strong (de)"}
    ).text
    [svg] = re.findall(r'<svg [^>]*id="chart-scatter".*?</svg>', chosen, flags=re.S)
    assert (
        ET.fromstring(svg).findtext(f"{SVG}title")
        == "Per-question F1: strong (en) against strong (de)"
    )


def test_an_answer_iri_of_another_scheme_is_text_not_a_link(server) -> None:
    """explore-13 2: a system's answer (or a gold value) ``javascript:alert(12)`` is a valid IRI,
    and the question page made it a link, which only the Content-Security-Policy kept from
    running script in the site's origin; the SPARQL endpoint's HTML results did the same. Only
    http(s) IRIs are links now; any other is shown as text."""
    gold = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    answers = json.loads(json.dumps(gold))
    answers["questions"][0]["answers"] = [{"head": {"vars": ["uri"]}, "results": {"bindings": [
        {"uri": {"type": "uri", "value": "javascript:alert(12)"}}]}}]  # fmt: skip
    files = [
        ("dataset_file", ("questions.json", json.dumps(gold).encode())),
        ("answers", ("script.json", json.dumps(answers).encode())),
    ]
    response = server.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    server.wait_finished(ticket["id"], ticket["token"])
    qid = answers["questions"][0]["id"]
    page = server.get(f"experiment/{ticket['id']}/task/1/question/{qid}", headers=auth)
    assert page.status_code == 200
    assert "javascript:alert(12)" in page.text  # shown, as the system gave it
    assert 'href="javascript:' not in page.text.lower()
    assert '<span class="uri">javascript:alert(12)</span>' in page.text
    query = "SELECT ?x WHERE { VALUES ?x { <javascript:alert(1)> <http://example.org/a> } }"
    table = server.get("sparql", params={"query": query}, headers={"Accept": "text/html"}).text
    assert 'href="javascript:' not in table.lower()
    assert '<span class="uri">javascript:alert(1)</span>' in table
    assert '<a class="uri" href="http://example.org/a">' in table  # a web IRI stays a link


def test_the_system_order_and_repeats_the_confidence_measures_read_are_shown(server) -> None:
    """explore28 F10: the CSV's ``given`` and the page are sorted and distinct, so K, K1, CWS
    and MRR (the system's order, its repeated items) could not be recomputed from them."""
    import html

    ex = "http://example.org/city/"
    gold = _uri_questions({"1": ex + "Paris", "2": ex + "Rome"})

    def rows(*uris: str) -> dict[str, Any]:
        return {"bindings": [{"x": {"type": "uri", "value": u}} for u in uris]}

    answers = {
        "questions": [
            {"id": "1", "answers": [{"head": {"vars": ["x"]}, "results": rows(
                ex + "Paris", ex + "Berlin", ex + "Paris"), "confidence": 0.7}]},
            {"id": "2", "answers": [{"head": {"vars": ["x"]}, "results": rows(
                ex + "Oslo", ex + "Rome"), "confidence": 0.4}]},
        ]
    }  # fmt: skip
    # an empty literal among them: "" (it read as an answer named "wrong": explore31 F4)
    empty = {"x": {"type": "literal", "value": ""}}
    answers["questions"][1]["answers"][0]["results"]["bindings"].append(empty)
    state, owner = _submitted(server, gold, json.dumps(answers))
    (qa,) = [r for r in state["results"] if r["experimentType"] == "QA"]
    # K1 reads each question's first item: Paris right (0.7), Oslo wrong (0.4)
    assert qa["measures"]["k1"] == pytest.approx((0.7 - 0.4) / 2)
    task = f"experiment/{state['id']}/task/1"
    csv_rows = _task_csv(server, task, headers=owner)
    assert csv_rows["1"]["given"] == f"{ex}Berlin | {ex}Paris"  # a set, as before
    assert csv_rows["1"]["rankedAnswers"] == (
        f"{ex}Paris [correct] | {ex}Berlin [wrong] | {ex}Paris [repeated]"
    )
    assert csv_rows["2"]["rankedAnswers"] == f'{ex}Oslo [wrong] | {ex}Rome [correct] | "" [wrong]'
    page = html.unescape(server.get(task, headers=owner).text)
    shown = re.findall(r'<ol class="ranked-answers">(.*?)</ol>', page, re.S)
    assert [re.findall(r'<li class="verdict-(\w+)">(\S+) <span', ol) for ol in shown] == [
        [("correct", ex + "Paris"), ("wrong", ex + "Berlin"), ("repeated", ex + "Paris")],
        [("wrong", ex + "Oslo"), ("correct", ex + "Rome"), ("wrong", '""')],
    ]
    # without confidences no measure reads the order: the column is empty, the page says none
    state, owner = _submitted(server, gold, gold)
    task = f"experiment/{state['id']}/task/1"
    assert {r["rankedAnswers"] for r in _task_csv(server, task, headers=owner).values()} == {""}
    assert "ranked-answers" not in server.get(task, headers=owner).text


def test_the_task_csv_says_what_the_profile_noted_of_a_question(server) -> None:
    """fair notes a written form it does not read as a number (explore33 F8); the page and the
    API said it, the task CSV had no column for it."""

    def numbers(value: str, kind: str) -> str:
        binding = {"x": {"type": "literal", "value": value}}
        if kind:
            binding["x"]["datatype"] = "http://www.w3.org/2001/XMLSchema#" + kind
        q = {"id": "1", "question": [{"language": "en", "string": "How many?"}]}
        q["answers"] = [{"head": {"vars": ["x"]}, "results": {"bindings": [binding]}}]
        return json.dumps({"questions": [q]})

    state, owner = _submitted(server, numbers("52000", "integer"), numbers("52,000", ""), "fair")
    rows = _task_csv(server, f"experiment/{state['id']}/task/1", headers=owner)
    from service.csv_table import cell_text

    assert rows["1"]["note"].startswith("not read as a number: '52,000' (fair reads")
    # it starts with a word, so the CSV guard (a cell starting with ' gets one more) leaves it
    # as it is: it was written ''52,000' … (explore35 6)
    assert cell_text(rows["1"]["note"]) == rows["1"]["note"]
    assert list(rows["1"])[-3:] == [
        "rankedAnswers",
        "note",
        "lookAlike",
    ]  # added last: positions kept
