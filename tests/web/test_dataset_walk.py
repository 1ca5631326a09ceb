"""What a walk through the less-walked catalogue datasets (NLQ, LC-QuAD 1.0, QALD-10, PolEval)
found on their public pages, over HTTP."""

from __future__ import annotations

import json
import re
from pathlib import Path

from service import catalog
from service.errors import Problem
from service.model import AnswerSet, Dataset, Question, QuestionText
from service.web.state import EXTENSION


def test_a_catalogue_file_is_named_by_its_dataset_not_the_servers_path(
    server, data_dir: Path
) -> None:
    # The dataset page's format findings read '/work/shared/data/qald/NLIWOD/nlq1_vis.json:450:2:
    # … empty question id': the server's mirror folder, on a public page and in the graph.
    catalog.load_into(
        server.storage.catalogue, "nlq-shared-task-1", mirror=data_dir, download=False
    )
    server.app.extensions[EXTENSION].changed()
    for suffix in ("", ".nt", ".jsonld"):
        text = server.get("dataset/nlq-shared-task-1" + suffix).text
        assert str(data_dir) not in text and "/qald/NLIWOD/" not in text, suffix
        assert "nlq-shared-task-1 (nlq1_vis.json):450:2" in text, suffix
    # that question's id is empty: its URI ends with the slash, and dereferences (a 404 before)
    empty = server.get("dataset/nlq-shared-task-1/question/", headers={"Accept": "text/turtle"})
    assert empty.status_code == 200, empty.text[:300]
    assert "/dataset/nlq-shared-task-1/question/>" in empty.text and "questionText" in empty.text
    # its page's links to its other formats (question/.ttl …) dereference too
    page = server.get("dataset/nlq-shared-task-1/question/").text
    links = set(re.findall(r'href="[^"]*(/dataset/nlq-shared-task-1/question/\.\w+)"', page))
    assert links, page[:500]
    for link in sorted(links):
        got = server.get(link.removeprefix("/"))
        assert got.status_code == 200 and "questionText" in got.text, (link, got.status_code)


def test_a_file_read_from_a_path_is_named_without_its_folders(server) -> None:
    # a version registered from the command line is read from the operator's path
    question = Question("1", (QuestionText("en", "Who?"),), answers=AnswerSet())
    problem = Problem("odd", severity="warning", file="/srv/private/v2/qald.json", line=3)
    dataset = Dataset("walk-path", (question,), problems=(problem,))
    server.storage.catalogue.store_questions("walk-path", dataset)
    server.app.extensions[EXTENSION].changed()
    text = server.get("dataset/walk-path.nt").text
    assert "/srv/private" not in text and "qald.json:3: warning: odd" in text


def _qald(*, answer_types: bool) -> bytes:
    """Two QALD-JSON questions with gold answers, with or without answer types."""
    questions = []
    for i, city in ((1, "Berlin"), (2, "Paris")):
        q = {
            "id": str(i),
            "question": [{"language": "en", "string": f"What is city {i}?"}],
            "answers": [
                {
                    "head": {"vars": ["uri"]},
                    "results": {
                        "bindings": [
                            {"uri": {"type": "uri", "value": f"http://dbpedia.org/resource/{city}"}}
                        ]
                    },
                }
            ],
        }
        if answer_types:
            q["answertype"] = "resource"
        questions.append(q)
    return json.dumps({"questions": questions}).encode()


def test_a_type_the_gold_has_nothing_for_says_why_it_has_no_scores(server) -> None:
    # QALD-10 with --types AT: a table of n/a, "questions 0, skippedQuestions 394", and only
    # each question's status (no-gold) in the JSON said why
    files = [
        ("dataset_file", ("no-types.json", _qald(answer_types=False))),
        ("answers", ("sys.json", _qald(answer_types=True))),
    ]
    data = {"profile": "fair", "experiment_type": ["QA", "AT"]}
    response = server.post("api/experiments", files=files, data=data)
    assert response.status_code == 202, response.text
    ticket = response.json()
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    state = server.wait_finished(ticket["id"], ticket["token"])
    said = "AT: no question was scored: the dataset gives no answer types"
    [evaluation] = state["evaluations"]  # the API says it as `evaluate --output json` does
    assert any(said in w for w in evaluation["warnings"]), evaluation["warnings"]
    results = evaluation["results"]
    assert results["AT"]["questions"] == 0 and results["QA"]["questions"] == 2
    page = server.get(f"experiment/{ticket['id']}", headers={**auth, "Accept": "text/html"})
    assert f'<p class="info" id="unscored-AT">{said}.</p>' in page.text
    assert 'id="unscored-QA"' not in page.text  # QA was scored


def test_label_golds_answered_with_iris_and_no_kb_are_warned_of(server) -> None:
    # explore28 F13: NLQ's label golds answered with DBpedia IRIs, no KB: every measure 0 and
    # nothing said that fair's label matching needs one
    gold = {
        "questions": [
            {
                "id": str(i),
                "question": [{"language": "en", "string": f"What is city {i}?"}],
                "answers": [
                    {
                        "head": {"vars": ["l"]},
                        "results": {"bindings": [{"l": {"type": "literal", "value": city}}]},
                    }
                ],
            }
            for i, city in ((1, "Berlin"), (2, "Paris"))
        ]
    }
    files = [
        ("dataset_file", ("labels.json", json.dumps(gold).encode())),
        ("answers", ("sys.json", _qald(answer_types=False))),  # dbr:Berlin, dbr:Paris
    ]
    response = server.post("api/experiments", files=files, data={"profile": "fair"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    state = server.wait_finished(ticket["id"], ticket["token"])
    [evaluation] = state["evaluations"]  # as `evaluate` says it
    said = [w for w in evaluation["warnings"] if "give --kb" in w]
    assert len(said) == 1, evaluation["warnings"]
    assert "2 of 2 questions have gold answers that are labels (literals)" in said[0]
    assert (
        "system answers that are IRIs" in said[0]
        and "give --kb (or the run's kb) to match labels" in said[0]
    )
    assert evaluation["results"]["QA"]["macroF1"] == 0.0


def test_a_question_label_is_in_the_language_of_its_text(server) -> None:
    # Polish and Korean headings sat untagged inside <html lang="en">: rdfs:label had no tag
    questions = (
        Question("1", (QuestionText("pl", "Ile nóg ma pająk?"),), answers=AnswerSet()),
        Question("2", (QuestionText("ko", "서울의 인구는?"), QuestionText("en", "Seoul?"))),
    )
    server.storage.catalogue.store_questions("walk-langs", Dataset("walk-langs", questions))
    server.app.extensions[EXTENSION].changed()
    turtle = server.get("dataset/walk-langs/question/1.nt").text
    assert '<http://www.w3.org/2000/01/rdf-schema#label> "Ile nóg ma pająk?"@pl' in turtle
    page = server.get("dataset/walk-langs/question/1").text
    assert '<h1 lang="pl" dir="auto">Ile nóg ma pająk?</h1>' in page
    assert '<title lang="pl">Ile nóg ma pająk?' in page
    english = server.get("dataset/walk-langs/question/2").text  # the English text labels it
    assert '<h1 lang="en" dir="auto">Seoul?</h1>' in english
    listed = server.get("dataset/walk-langs").text
    assert '<td lang="pl" dir="auto">Ile nóg ma pająk?</td>' in listed
    assert '<td lang="en" dir="auto">Seoul?</td>' in listed


def _literals(answers: dict[str, list[str]]) -> bytes:
    """QALD-JSON questions (Polish) with literal answers: id -> values."""
    questions = [
        {
            "id": qid,
            "question": [{"language": "pl", "string": f"Pytanie {qid}?"}],
            "answers": [
                {
                    "head": {"vars": ["a"]},
                    "results": {
                        "bindings": [{"a": {"type": "literal", "value": v}} for v in values]
                    },
                }
            ],
        }
        for qid, values in answers.items()
    ]
    return json.dumps({"questions": questions}).encode()


def test_poleval_alternatives_of_one_answer_are_one_missed_answer(server) -> None:
    # The task page listed "missed: 4 · czterech · czworo" for one question with FN = 1, and a
    # question answered right by one alternative had its other alternatives listed as missed
    gold = {"1": ["4", "czterech", "czworo"], "2": ["4", "cztery"]}
    files = [
        ("dataset_file", ("quiz.json", _literals(gold))),
        ("answers", ("sys.json", _literals({"1": ["pięć"], "2": ["4"]}))),
    ]
    response = server.post("api/experiments", files=files, data={"profile": "poleval"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}", "Accept": "text/html"}
    page = server.get(f"experiment/{ticket['id']}/task/1", headers=auth).text
    missed = re.findall(
        r'<li class="fn">.*?missed:</span> (?:<span lang="pl" dir="auto">)?(.*?)(?:</span>)?</li>',
        page,
    )
    assert missed == ["4 (or czterech, czworo)"]  # question 1's only; none for question 2
