"""A PolEval 2021 quiz-QA participant's walk in a real browser: the run page, dev-0 picked
from the catalogue, a team's ``answers.tsv`` uploaded, the per-question view and its CSV.

What it found: submitted under the default profile the run was refused with only "choose a
language" (with Polish chosen, the fair profile scored a perfect file 0.89: every alternative
a gold answer to find); a wrong Polish answer was shown false with no reason, though PolEval's
rules decide from the two strings alone (``1 000`` is wrong for ``1000``: only ``1`` is read)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.conftest import DATA
from tests.web.conftest import start_server, stop_server
from tests.web.test_browser import dataset_picks_profile, wait_until

DEV0 = DATA / "poleval2021" / "dev-0"


@pytest.fixture(autouse=True)
def mirror(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> None:
    """The catalogue's local mirror: the server reads dev-0 from it, never downloads it (CI
    has no internet and sets no GERBIL_QA_DATA)."""
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))


def _answers(tmp_path: Path) -> Path:
    """dev-0 answered with each first gold alternative, three lines changed as a team's
    system gets them wrong: line 3 (gold ``w Egipcie``), 7 (``102``), 10 (``czterech``,
    ``czworo``, ``4``: ``cztery`` is within reach of ``czterech``, so right)."""
    lines = [line.split("\t")[0] for line in (DEV0 / "expected.tsv").read_text().splitlines()]
    lines[2], lines[6], lines[9] = "Egipt", "nr 101", "cztery"
    path = tmp_path / "answers.tsv"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _pick(browser, server, answers: Path, profile: str | None) -> None:
    """Fill the run page: ``profile`` chosen by hand (else what the dataset chooses)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server.url + "experiments/new")
    wait_until(browser, lambda d: d.find_elements(By.ID, "run-form"))
    Select(browser.find_element(By.ID, "run-dataset")).select_by_value("poleval-2021-qa-dev-0")
    browser.find_element(By.ID, "run-answers").send_keys(str(answers))
    if profile:  # by hand, after the dataset chose its own
        Select(browser.find_element(By.ID, "run-profile")).select_by_value(profile)
    browser.find_element(By.ID, "run-submit").click()


@pytest.mark.browser
def test_a_participant_runs_dev0_and_reads_why_answers_were_wrong(
    server, browser, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    answers = _answers(tmp_path)
    # picking dev-0 picks PolEval's profile (before, fair stayed: refused, or 0.89 with pl)
    browser.get(server.url + "experiments/new")
    wait_until(browser, lambda d: d.find_elements(By.ID, "run-form"))
    datasets, profiles = dataset_picks_profile(browser, "run", "poleval-2021-qa-dev-0", "poleval")
    profiles.select_by_value("exact")  # a profile chosen by hand stays
    datasets.select_by_value("poleval-2021-qa-dev-0")
    assert profiles.first_selected_option.get_attribute("value") == "exact"
    # fair chosen back by hand: refused, and told which profile is PolEval's
    _pick(browser, server, answers, "fair")
    refused = wait_until(browser, lambda d: d.find_elements(By.ID, "run-error"))[0].text
    assert "--profile poleval" in refused, refused
    # said: the title says it, and the reader is taken to why (an alert already in the page
    # when it loads is not announced; focus was on the page's top)
    assert browser.title.startswith("Error: New experiment")
    assert browser.execute_script("return document.activeElement.id") == "run-error"

    _pick(browser, server, answers, None)  # the dataset chooses poleval
    wait_until(browser, lambda d: d.find_elements(By.ID, "token-notice"))
    token = browser.find_element(By.ID, "owner-token").get_attribute("value")
    experiment_id = browser.find_element(By.ID, "owner-link").get_attribute("value")
    experiment_id = experiment_id.split("?", 1)[0].rsplit("/", 1)[-1]
    state = server.wait_finished(experiment_id, token)
    (evaluation,) = state["evaluations"]
    assert evaluation["results"]["QA"]["accuracy"] == 0.998  # 998 of 1000 right
    said = {q["id"]: q["why"] for q in evaluation["questions"] if "why" in q}
    assert said == {  # as `evaluate --output json` says it, read back from the graph
        "3": "w Egipcie: 5 edits, more than half of its 9 characters",
        "7": "102: number 101 in the answer, not 102",
    }

    task = state["results"][0]["task"]
    browser.get(task)
    wait_until(browser, lambda d: d.find_elements(By.ID, "questions"))
    reasons = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#questions li.why")]
    assert "why not: w Egipcie: 5 edits, more than half of its 9 characters" in reasons
    assert "why not: 102: number 101 in the answer, not 102" in reasons
    assert len(reasons) == 2  # the right answers (cztery = czterech) have none
    # the answers are Polish words, said as Polish (they were read as the page's English);
    # a number is in no language (explore56 F2: the question's was put on numbers too)
    words = browser.find_elements(By.CSS_SELECTOR, "#questions .judged li span[lang=pl]")
    assert "czterech" in [w.text for w in words]
    assert not [w for w in words if w.text.strip().isdigit()]

    table = server.get(
        task.replace(server.url, "") + ".csv", headers={"Authorization": f"Bearer {token}"}
    )
    assert table.status_code == 200
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(table.text))}
    assert rows["3"]["why"] == "w Egipcie: 5 edits, more than half of its 9 characters"
    assert rows["10"]["why"] == "" and rows["10"]["matches"] == "cztery = czterech [fuzzy]"
    header = next(csv.reader(io.StringIO(table.text)))
    # added after every column there was (then the system's order, explore28 F10, and the
    # profile's note, explore33 F8)
    assert header[-5:] == ["matches", "why", "rankedAnswers", "note", "lookAlike"]


def test_an_answer_file_one_line_short_is_refused_at_its_line(server, tmp_path: Path) -> None:
    # Before: 201, an experiment reserved and stored, then "error" once the job scored it.
    lines = _answers(tmp_path).read_bytes().splitlines(keepends=True)
    before = len(server.storage.experiments.listing(include_private=True))
    for name, data, line in (("short.tsv", lines[:-1], 1000), ("long.tsv", [*lines, b"x\n"], 1001)):
        response = server.post(
            "api/experiments",
            data={"dataset": "poleval-2021-qa-dev-0", "profile": "poleval"},
            files={"answers": (name, b"".join(data))},
        )
        assert response.status_code == 400, response.text
        (problem,) = response.json()["problems"]
        assert (problem["file"], problem["line"]) == (name, line), problem
        assert problem["expected"] == "1000 answer lines"
    assert len(server.storage.experiments.listing(include_private=True)) == before  # none kept


def test_the_status_with_why_answers_as_documented(server, tmp_path: Path) -> None:
    from tests.web.test_openapi_conformance import Conformance

    api = Conformance(server.get("api/openapi.json").json())
    ticket = server.post(  # no profile: the dataset's own (before: fair, refused for pl)
        "api/experiments",
        data={"dataset": "poleval-2021-qa-dev-0"},
        files={"answers": ("out.tsv", _answers(tmp_path).read_bytes())},
    ).json()
    server.wait_finished(ticket["id"], ticket["token"])
    status = api.check(
        "/api/experiments/{id}",
        "get",
        server.get(
            f"api/experiments/{ticket['id']}",
            headers={"Authorization": f"Bearer {ticket['token']}"},
        ),
    )
    assert status["evaluations"][0]["profile"] == "poleval"
    assert [q["id"] for q in status["evaluations"][0]["questions"] if "why" in q] == ["3", "7"]
    assert api.mismatches == []  # "why" is documented: a strict client reads it
    # its citation names the built-in dataset by its catalogue title and version, as while it
    # ran (before: the bare name once finished, and no version)
    from service import catalog

    entry = catalog.get_entry("poleval-2021-qa-dev-0")
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    bib = " ".join(server.get(f"experiment/{ticket['id']}.bib", headers=auth).text.split())
    assert f"on {entry.title}}}}}" in bib, bib
    assert f"dataset {entry.title} (poleval-2021-qa-dev-0), version {entry.version};" in bib, bib


def test_a_published_polish_upload_named_without_a_profile_is_scored_with_poleval(
    tmp_path: Path,
) -> None:
    # the run page chose poleval for it (its option's data-profile); the API chose fair
    answer = {"x": {"type": "literal", "value": "karp"}}
    data = json.dumps(
        {
            "dataset": {"id": "ryby"},
            "questions": [
                {
                    "id": "1",
                    "question": [{"language": "pl", "string": "Jaka ryba jest w stawie?"}],
                    "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [answer]}}],
                }
            ],
        }
    )
    site = start_server(tmp_path / "store", demo=False)
    try:
        made = site.post(
            "api/experiments",
            json={
                "dataset": {"filename": "ryby.json", "content": data},
                "profile": "poleval",
                "systems": [{"name": "gold", "answers": data}],
            },
        ).json()
        auth = {"Authorization": f"Bearer {made['token']}"}
        name = site.wait_finished(made["id"], made["token"])["dataset"].rsplit("/", 1)[1]
        assert site.post(f"api/experiments/{made['id']}/publish", headers=auth).status_code == 200
        again = site.post(
            "api/experiments", json={"dataset": name, "systems": [{"name": "g", "answers": data}]}
        ).json()
        site.wait_finished(again["id"], again["token"])
        status = site.get(
            f"api/experiments/{again['id']}",
            headers={"Authorization": f"Bearer {again['token']}"},
        ).json()
        assert status["evaluations"][0]["profile"] == "poleval", status["evaluations"][0]
        # one profile per dataset whichever way it is named: its first publisher's run's; a
        # Polish QALD-JSON uploaded without a profile (fair, its format's) was poleval when
        # named, by its language alone: two leaderboards for one dataset (explore-11 20)
        other = data.replace('"ryby"', '"ryby-qald"')
        made = site.post(
            "api/experiments",
            json={
                "dataset": {"filename": "ryby-qald.json", "content": other},
                "language": "pl",
                "systems": [{"name": "gold", "answers": other}],
            },
        ).json()
        done = site.wait_finished(made["id"], made["token"])
        assert done["evaluations"][0]["profile"] == "fair", done["evaluations"][0]
        auth = {"Authorization": f"Bearer {made['token']}"}
        assert site.post(f"api/experiments/{made['id']}/publish", headers=auth).status_code == 200
        name = done["dataset"].rsplit("/", 1)[1]
        again = site.post(
            "api/experiments",
            json={"dataset": name, "language": "pl", "systems": [{"name": "g", "answers": other}]},
        ).json()
        named = site.wait_finished(again["id"], again["token"])
        assert named["evaluations"][0]["profile"] == "fair", named["evaluations"][0]
    finally:
        stop_server(site)


def test_an_uploaded_tsv_is_polish_as_the_built_in_dataset_is(server) -> None:
    # its texts took the profile's language: under fair an uploaded expected.tsv was scored
    # and labelled "en", where the built-in name is refused naming the language and poleval
    # (explore-15 3)
    dataset = {
        "filename": "expected.tsv",
        "content": "4\tcztery\nWarszawa\nWisła\n",
        "questions": {"filename": "in.tsv", "content": "Dwa plus dwa?\nStolica?\nRzeka?\n"},
    }
    answers = {"filename": "out.tsv", "content": "4\nWarszawa\nOdra\n"}
    body = {"dataset": dataset, "profile": "fair", "systems": [{"name": "q", "answers": answers}]}
    refused = server.post("api/experiments", json=body)
    assert refused.status_code == 400, refused.text
    said = refused.json()["error"]
    assert "none has text in language 'en'" in said and "it has questions in pl" in said, said
    assert '"language"' in said and "--profile poleval" in said, said
    made = server.post("api/experiments", json={**body, "language": "pl"})
    assert made.status_code == 202, made.text
    state = server.wait_finished(made.json()["id"], made.json()["token"])
    assert [e["language"] for e in state["evaluations"]] == ["pl"], state
    # without its in.tsv no text tells the language: it was scored and labelled "en"
    alone = {**body, "dataset": {k: v for k, v in dataset.items() if k != "questions"}}
    refused = server.post("api/experiments", json=alone)
    assert refused.status_code == 400, refused.text
    said = refused.json()["error"]
    assert "read as 'pl'" in said and '"language"' in said and "--profile poleval" in said, said


def test_answers_given_as_bare_tsv_text_in_json_are_read_as_out_tsv(server, tmp_path: Path) -> None:
    # a string has no name: it was named system-1.json and refused as "unknown format"
    text = _answers(tmp_path).read_text(encoding="utf-8")
    made = server.post(
        "api/experiments",
        json={"dataset": "poleval-2021-qa-dev-0", "systems": [{"name": "t", "answers": text}]},
    )
    assert made.status_code == 202, made.text
    state = server.wait_finished(made.json()["id"], made.json()["token"])
    assert state["status"] == "finished", state
    (evaluation,) = state["evaluations"]
    assert evaluation["profile"] == "poleval" and evaluation["results"]["QA"]["accuracy"] > 0.5


def test_poleval_results_are_ranked_and_compared_by_accuracy(server, tmp_path: Path) -> None:
    """The task's metric is accuracy: a PolEval board said "by macro F1" and a comparison of
    two answer files tested their F1s (approximate randomisation) where McNemar tests
    accuracies (explore-11 15). Without a measure named, each takes the profile's own."""
    good = _answers(tmp_path)
    worse = tmp_path / "worse.tsv"
    worse.write_text(good.read_text(encoding="utf-8").replace("Warszawa", "Kraków"), "utf-8")
    compared = server.post(
        "api/compare",
        data={"dataset": "poleval-2021-qa-dev-0"},
        files=[
            ("answers", ("good.tsv", good.read_bytes())),
            ("answers", ("worse.tsv", worse.read_bytes())),
        ],
    )
    assert compared.status_code == 200, compared.text
    said = compared.json()
    assert said["test"] == "mcnemar" and "|metric:accuracy|" in said["signature"], said
    board = server.get(
        "leaderboards", params={"dataset": "poleval-2021-qa-dev-0", "format": "json"}
    )
    assert board.status_code == 200 and board.json()["sort"] == "accuracy", board.json()
    qald = server.get(
        "leaderboards", params={"dataset": "qald-9-test-multilingual", "format": "json"}
    )
    assert qald.json()["sort"] == "macroF1"  # every other profile's own: macro F1
    named = server.get("leaderboards", params={"profile": "poleval", "format": "json"})
    assert named.json()["sort"] == "accuracy"


def test_an_in_tsv_text_in_markup_and_answers_named_expected_tsv(server) -> None:
    """Through the API: a one-question in.tsv ``<b>…</b>`` was refused as "an XML document"
    (explore47 F5), and answers named expected.tsv were told to upload their in.tsv, sent
    beside the dataset (explore47 F4)."""
    dataset = {
        "filename": "expected.tsv",
        "content": "Bolesław Prus\n",
        "questions": {"filename": "in.tsv", "content": "<b>Kto napisał Lalkę?</b>\n"},
    }
    answers = {"filename": "expected.tsv", "content": "Bolesław Prus\n"}
    body = {
        "dataset": dataset,
        "profile": "poleval",
        "language": "pl",
        "systems": [{"name": "self", "answers": answers}],
    }
    made = server.post("api/experiments", json=body)
    assert made.status_code == 202, made.text
    state = server.wait_finished(made.json()["id"], made.json()["token"])
    assert state["status"] == "finished", state
    (evaluation,) = state["evaluations"]
    assert not [w for w in evaluation.get("warnings", []) if "in.tsv" in w], evaluation
    assert evaluation["results"]["QA"]["accuracy"] == 1.0
    # one element over more lines than the answers: still an XML document
    xml = {**dataset, "questions": {"filename": "in.tsv", "content": "<q>Kto\nnapisał?</q>\n"}}
    refused = server.post("api/experiments", json={**body, "dataset": xml})
    assert refused.status_code == 400 and "this is an XML document" in refused.text, refused.text
