"""Reference systems served by ``gerbil-qa system serve`` (real subprocesses on 127.0.0.1), run,
archived, re-scored from the archive, and the gold refresh of a dataset on a changed KB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import requests

from service import formats
from service.evaluation import evaluate
from service.kb.local import LocalKB
from service.model import Term
from service.systems.archive import answer_file, answers_from
from service.systems.localnet import free_port, wait_for_port
from service.systems.safety import NetworkPolicy
from service.systems.webservice import WebService, ask, run_web_service

ROOT = Path(__file__).resolve().parents[2]
GERBIL_QA = [sys.executable, "-m", "service"]
LOCAL = NetworkPolicy.allowing("127.0.0.1/32")
DBR = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"

KB = f"""
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix dbr: <{DBR}> .
@prefix dbo: <{DBO}> .
dbo:capital rdfs:label "capital"@en .
dbo:currency rdfs:label "currency"@en .
dbo:birthPlace rdfs:label "birth place"@en .
dbo:author rdfs:label "author"@en .
dbr:Germany rdfs:label "Germany"@en ; dbo:capital dbr:Berlin ; dbo:currency dbr:Euro .
dbr:France rdfs:label "France"@en ; dbo:capital dbr:Paris ; dbo:currency dbr:Euro .
dbr:Japan rdfs:label "Japan"@en ; dbo:capital dbr:Tokyo ; dbo:currency dbr:Yen .
dbr:Berlin rdfs:label "Berlin"@en . dbr:Paris rdfs:label "Paris"@en .
dbr:Tokyo rdfs:label "Tokyo"@en , "東京"@ja . dbr:Euro rdfs:label "Euro"@en .
dbr:Yen rdfs:label "Yen"@en .
dbr:Goethe rdfs:label "Johann Wolfgang von Goethe"@en ; dbo:birthPlace dbr:Frankfurt .
dbr:Frankfurt rdfs:label "Frankfurt"@en .
dbr:Faust rdfs:label "Faust"@en ; dbo:author dbr:Goethe .
dbr:AT%26T rdfs:label "AT&T"@en ; dbo:capital dbr:Dallas .
dbr:Dallas rdfs:label "Dallas"@en .
"""

QUESTIONS = [
    ("1", "What is the capital of Germany?", "SELECT ?x WHERE { dbr:Germany dbo:capital ?x }"),
    ("2", "What is the currency of Japan?", "SELECT ?x WHERE { res:Japan dbo:currency ?x }"),
    ("3", "Which countries use the Euro?", "SELECT ?x WHERE { ?x dbo:currency dbr:Euro }"),
    ("4", "Where was Johann Wolfgang von Goethe born?",
     "SELECT ?x WHERE { dbr:Goethe dbo:birthPlace ?x }"),
    ("5", "Who is the author of Faust?", "SELECT ?x WHERE { dbr:Faust dbo:author ?x }"),
    ("6", "Is Tokyo the capital of Japan?", "ASK { dbr:Japan dbo:capital dbr:Tokyo }"),
    ("7", "What's the \"capital\" of AT&T (100% = 1+1)?",
     "SELECT ?x WHERE { <http://dbpedia.org/resource/AT%26T> dbo:capital ?x }"),
]  # fmt: skip


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("served")
    kb = directory / "kb.ttl"
    kb.write_text(KB, encoding="utf-8")
    oracle = LocalKB([kb])
    from service.kb.prefixes import with_default_prefixes

    questions = []
    for qid, text, sparql in QUESTIONS:
        result = oracle.select(with_default_prefixes(sparql))
        answers = (
            [{"head": {}, "boolean": result.boolean}]
            if result.boolean is not None
            else [
                {
                    "head": {"vars": ["x"]},
                    "results": {
                        "bindings": [
                            {"x": {"type": "uri", "value": t.value}} for t in result.values()
                        ]
                    },
                }
            ]
        )
        questions.append(
            {
                "id": qid,
                "question": [{"language": "en", "string": text}],
                "query": {"sparql": sparql},
                "answers": answers,
            }
        )
    dataset = directory / "geo.json"
    dataset.write_text(json.dumps({"dataset": {"id": "geo"}, "questions": questions}), "utf-8")
    return {"dir": directory, "kb": kb, "dataset": dataset}


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``gerbil-qa ARGS`` in a new process running this checkout, its output as text."""
    return subprocess.run(
        [*GERBIL_QA, *args], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120
    )


def _serve(*args: str) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [*GERBIL_QA, "system", "serve", *args, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        cwd=ROOT,
    )
    try:
        wait_for_port(port, timeout=30)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout:
            process.stdout.close()
        if process.stderr:
            process.stderr.close()


@pytest.fixture(scope="module")
def baseline(files: dict[str, Path]) -> Iterator[str]:
    yield from _serve("baseline", "--kb", str(files["kb"]))


@pytest.fixture(scope="module")
def gold(files: dict[str, Path]) -> Iterator[str]:
    yield from _serve("gold-sparql", "--kb", str(files["kb"]), "--dataset", str(files["dataset"]))


def _score(files: dict[str, Path], run: Any) -> float:
    dataset = formats.read(files["dataset"])
    result = evaluate(dataset, run, profile="gerbil", language="en", kb=LocalKB([files["kb"]]))
    return float(result.tasks[next(iter(result.tasks))].measures["macroF1"])


def test_gold_sparql_is_the_upper_bound_of_its_kb(files: dict[str, Path], gold: str) -> None:
    dataset = formats.read(files["dataset"])
    result = run_web_service(dataset, WebService(gold, name="gold-sparql", policy=LOCAL))
    assert result.errors == 0 and len(result.run.answers) == len(QUESTIONS)
    assert result.run.answers["6"].answers.boolean is True
    assert result.run.answers["1"].sparql == QUESTIONS[0][2]
    assert _score(files, result.run) == pytest.approx(1.0)


def test_question_text_with_special_characters_reaches_the_served_system(
    files: dict[str, Path], gold: str
) -> None:
    # gold-sparql finds a question only by its exact text: an answer proves the round trip.
    text = QUESTIONS[6][1]
    answer, _ = ask(WebService(gold, policy=LOCAL), text, "en", question_id="7")
    assert answer.error is None
    assert answer.answers.values() == (Term.iri(DBR + "Dallas"),)


def test_gold_sparql_names_an_unknown_question(gold: str) -> None:
    answer, _ = ask(WebService(gold, policy=LOCAL), "What is love?", "en", question_id="x")
    assert answer.error is not None
    assert answer.error.startswith("HTTP 404 Not Found:")
    assert answer.error == (
        """HTTP 404 Not Found: "no question of geo has this text in language 'en': """
        """'What is love?'\""""
    )


def test_baseline_answers_some_right_and_some_wrong(files: dict[str, Path], baseline: str) -> None:
    dataset = formats.read(files["dataset"])
    result = run_web_service(dataset, WebService(baseline, name="baseline", policy=LOCAL))
    assert result.errors == 0
    answers = result.run.answers
    assert answers["1"].answers.values() == (Term.iri(DBR + "Berlin"),)
    assert answers["2"].answers.values() == (Term.iri(DBR + "Yen"),)
    assert answers["1"].sparql is not None and f"<{DBO}capital>" in answers["1"].sparql
    assert answers["4"].answers.is_empty  # "born" is not "birth place": the baseline fails
    score = _score(files, result.run)
    assert 0.2 < score < 0.9


def test_served_system_describes_itself(baseline: str) -> None:
    info = requests.get(baseline, timeout=10).json()
    assert info["system"] == "baseline" and "POST query=" in info["usage"]
    missing = requests.post(baseline, data={"lang": "en"}, timeout=10)
    assert missing.status_code == 400 and "query" in missing.json()["error"]


def test_cli_run_archives_answers_that_rescore_identically(
    files: dict[str, Path], gold: str, tmp_path: Path
) -> None:
    output = tmp_path / "answers.json"
    done = _cli(
        "system",
        "run",
        gold,
        "--dataset",
        str(files["dataset"]),
        "--name",
        "gold-sparql",
        "--allow",
        "127.0.0.1/32",
        "--output",
        str(output),
    )
    assert done.returncode == 0, done.stderr
    n = len(QUESTIONS)
    assert f"gold-sparql: {n} questions: {n} asked, 0 failed, 0 never asked" in done.stdout
    archived = answers_from(formats.read(output.read_bytes(), name=str(output)))
    assert archived.system == "gold-sparql"
    assert all(a.runtime_ms is not None for a in archived.answers.values())
    assert _score(files, archived) == pytest.approx(1.0)
    # And through the evaluator's own command line, as a user would re-score it later.
    scored = _cli(
        "evaluate",
        "--dataset",
        str(files["dataset"]),
        "--answers",
        str(output),
        "--profile",
        "gerbil",
        "--kb",
        str(files["kb"]),
        "--output",
        "json",
    )
    assert scored.returncode == 0, scored.stderr
    qa = json.loads(scored.stdout)["results"]["QA"]
    assert qa["macroF1"] == pytest.approx(1.0)
    # the archive's runtimes are read back: the mean of the calls' times, never 0
    runtimes = [a.runtime_ms for a in archived.answers.values()]
    assert qa["errorCount"] == 0 and qa["meanRuntime"] == pytest.approx(
        sum(runtimes) / len(runtimes), rel=1e-3
    )


def test_an_aborted_run_says_what_was_never_asked_and_rescores_its_errors(
    files: dict[str, Path], gold: str, tmp_path: Path
) -> None:
    from service import formats
    from service.model import QuestionText

    dataset = formats.read(files["dataset"])
    # the gold-sparql service knows its questions by their text: the first four are unknown
    unknown = {q.id for q in dataset.questions[:4]}
    questions = [
        replace(q, texts=(QuestionText("en", f"Unknown {q.id}?"),)) if q.id in unknown else q
        for q in dataset.questions
    ]
    changed = tmp_path / "changed.json"
    changed.write_bytes(formats.write(replace(dataset, questions=tuple(questions)), "qald-json"))
    output = tmp_path / "aborted.json"
    done = _cli(
        *("system", "run", gold, "--dataset", str(changed), "--name", "gold-sparql"),
        *("--allow", "127.0.0.1/32", "--concurrency", "1", "--output", str(output)),
    )
    n = len(QUESTIONS)
    # GERBIL's rule: more than ceil(25 % of 7) = 2 failures aborts after the third one
    assert done.returncode == 1
    assert f"gold-sparql: {n} questions: 3 asked, 3 failed, {n - 3} never asked" in done.stdout
    assert "aborted by the error-rate rule when 3 of 7 questions failed" in done.stdout
    scored = _cli(
        *("evaluate", "--dataset", str(changed), "--answers", str(output), "--output", "json")
    )
    assert scored.returncode == 0, scored.stderr
    result = json.loads(scored.stdout)
    # the 3 failed calls; the 4 never asked are no calls: unanswered, with a word of the abort
    # (they were errors too, explore28 F6)
    assert result["results"]["QA"]["errorCount"] == 3
    assert [e["status"] for e in result["questions"]] == ["error"] * 3 + ["missing"] * (n - 3)
    assert any(f"{n - 3} of its {n} questions were never asked" in w for w in result["warnings"])
    # --max-error-rate 1: every question asked, as TEXT2SPARQL'25 asked (explore25 8)
    every = _cli(
        *("system", "run", gold, "--dataset", str(changed), "--name", "gold-sparql"),
        *("--allow", "127.0.0.1/32", "--output", str(output), "--max-error-rate", "1"),
    )
    assert every.returncode == 0, every.stdout + every.stderr
    assert f"gold-sparql: {n} questions: {n} asked, 4 failed, 0 never asked" in every.stdout


def test_a_refused_local_service_names_the_command_lines_allow_option(
    files: dict[str, Path], gold: str
) -> None:
    # the README's pair: `system serve … --port 8000`, then `system run URL` without --allow
    env = {k: v for k, v in _env().items() if k != "GERBIL_QA_ALLOW_NETWORKS"}
    done = subprocess.run(
        [*GERBIL_QA, "system", "run", gold, "--dataset", str(files["dataset"])],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 1
    assert "is a loopback address" in done.stderr
    port = gold.rstrip("/").rsplit(":", 1)[1]
    assert f"allow it with --allow 127.0.0.1:{port} or GERBIL_QA_ALLOW_NETWORKS" in done.stderr


def test_archive_keeps_errors(files: dict[str, Path], gold: str) -> None:
    from dataclasses import replace

    from service.model import QuestionText

    dataset = formats.read(files["dataset"])
    # Two questions the gold system cannot know (their text changed): two 404s, no abort.
    questions = [
        replace(q, texts=(QuestionText("en", f"Unknown {q.id}?"),)) if q.id in ("6", "7") else q
        for q in dataset.questions
    ]
    dataset = replace(dataset, questions=tuple(questions))
    result = run_web_service(dataset, WebService(gold, name="gold", policy=LOCAL, retries=0))
    assert result.errors == 2 and result.aborted is None
    back = answers_from(formats.read(answer_file(result.run, dataset, language="en")))
    assert {q: a.error for q, a in back.answers.items()} == {
        q: a.error for q, a in result.run.answers.items()
    }
    assert back.answers["6"].error is not None and "Unknown 6?" in back.answers["6"].error
    assert back.answers["1"].answers == result.run.answers["1"].answers
    # a failed call's entry is empty because it failed: no "empty answer set" warning for it
    assert not [p for p in back.problems if p.question_id in ("6", "7")], back.problems


def test_an_archived_empty_answer_of_a_service_is_an_answer_as_it_was_live(
    files: dict[str, Path],
) -> None:
    """A service's empty answer set is an answer (no warning in the experiment); the archive
    replayed warned of it, so the experiment's "Reproduce" script printed warnings the
    experiment did not have (explore22 7). An answer file's empty set still warns."""
    from service.model import AnswerSet, SystemAnswer, SystemRun

    dataset = formats.read(files["dataset"])
    first, second = dataset.questions[:2]
    given = {
        first.id: SystemAnswer(first.id, answers=AnswerSet(), runtime_ms=3.0),
        second.id: SystemAnswer(second.id, answers=second.answers, runtime_ms=4.0),
    }
    data = answer_file(SystemRun("svc", given), dataset, language="en")
    back = answers_from(formats.read(data))
    assert back.answers[first.id].answers == AnswerSet() and not back.problems, back.problems
    plain = data.replace(b'"runtimeMs": 3.0', b'"note": "typed by hand"')
    assert b'"runtimeMs": 3.0' in data and plain != data
    by_hand = answers_from(formats.read(plain))
    assert [p.message for p in by_hand.problems] == ["empty answer set"]


def test_archive_keeps_what_only_eqald_holds(files: dict[str, Path]) -> None:
    """An eQALD service's confidences were dropped by the QALD-JSON archive: `system run
    --output` then `evaluate` lost the confidence measures the live run had."""
    from service.model import SystemAnswer, SystemRun

    dataset = formats.read(files["dataset"])
    first, second = dataset.questions[:2]
    given = {
        first.id: SystemAnswer(first.id, answers=first.answers, confidence=0.42, runtime_ms=9.0),
        second.id: SystemAnswer(second.id, error="HTTP 500"),
    }
    data = answer_file(SystemRun("eqald", given), dataset, language="en")
    back = answers_from(formats.read(data))
    assert back.answers[first.id].confidence == 0.42
    assert back.answers[first.id].runtime_ms == 9.0 and back.answers[second.id].error == "HTTP 500"
    assert formats.sniff(data) == "eqald-json"
    # without anything only eQALD holds, the archive stays plain QALD-JSON
    plain = {first.id: SystemAnswer(first.id, answers=first.answers)}
    assert formats.sniff(answer_file(SystemRun("p", plain), dataset, language="en")) == "qald-json"


def test_dataset_refresh_makes_a_new_version(files: dict[str, Path], tmp_path: Path) -> None:
    changed = tmp_path / "kb-v2.ttl"
    changed.write_text(
        KB.replace("dbo:capital dbr:Berlin", "dbo:capital dbr:Bonn").replace(
            "dbr:Japan rdfs:label", "dbr:Japan dbo:currency dbr:Euro . dbr:Japan rdfs:label"
        ),
        encoding="utf-8",
    )
    output = tmp_path / "geo-v2.json"
    original = files["dataset"].read_bytes()
    command = [
        "dataset",
        "refresh",
        str(files["dataset"]),
        "--kb",
        str(changed),
        "--kb-version",
        "v2",
        "--output",
        str(output),
    ]
    done = _cli(*command)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"refreshed {len(QUESTIONS)} questions on file:sha256:")
    assert "(v2): 3 changed, 4 unchanged" in lines[0]
    assert (
        "  1: changed" in lines
        and f"    + <{DBR}Bonn>" in lines
        and f"    - <{DBR}Berlin>" in lines
    )
    assert "  2: changed" in lines and "  3: changed" in lines
    assert files["dataset"].read_bytes() == original  # the old version is untouched
    new = formats.read(output).by_id()
    assert new["1"].answers is not None and new["1"].answers.values() == (Term.iri(DBR + "Bonn"),)
    prov = Path(str(output) + ".prov.ttl").read_text(encoding="utf-8")
    assert "prov:wasDerivedFrom" in prov and files["dataset"].resolve().as_uri() in prov
    assert "(v2)" in prov and "prov:startedAtTime" in prov
    again = _cli(*command)
    assert again.returncode == 1 and "never overwrites" in again.stderr
    # --store: the new version is also registered in the store's catalogue, with provenance
    store_dir = tmp_path / "store"
    stored = _cli(
        *command[:-2], "--output", str(tmp_path / "geo-v2b.json"), "--store", str(store_dir)
    )
    assert stored.returncode == 0, stored.stderr
    [uri] = [x.split(": ", 1)[1] for x in stored.stdout.splitlines() if x.startswith("registered")]
    from service.graph.store import open_storage

    with open_storage(store_dir, base=None) as graph:
        name = graph.uris.locate(uri).keys["dataset"]
        [version] = graph.catalogue.versions(name)
        assert version.uri == uri and version.previous == graph.uris.dataset(name)
        prov = "http://www.w3.org/ns/prov#"
        gqa = "http://w3id.org/gerbil/qa/vocab#"
        assert graph.public.query(
            f"""ASK {{ <{uri}> <{prov}wasGeneratedBy> ?a . ?a <{prov}used> ?kb .
            ?kb <{gqa}knowledgeBaseVersion> "v2" ; <http://purl.org/dc/terms/identifier> ?id .
            FILTER(STRSTARTS(?id, "file:sha256:")) }}"""
        )
        bonn = graph.uris.version_question(name, version.version, "1")
        assert graph.public.query(f"ASK {{ <{bonn}> <{gqa}goldAnswer> <{DBR}Bonn> }}")


def test_rescoring_a_web_service_run_names_its_archived_answers(
    files: dict[str, Path], gold: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from service.cli import main
    from service.experiments import asked
    from service.experiments.runner import ExperimentRunner
    from service.experiments.spec import ExperimentSpec, FileDataset, FileRef
    from service.graph.experiments import Status
    from service.graph.store import open_storage

    spec = ExperimentSpec(
        FileDataset(FileRef.local(files["dataset"])), (asked.WebService("gold", gold),)
    )
    with open_storage(tmp_path / "store", catalog=False) as storage:
        runner = ExperimentRunner(storage, workers=1, policy=LOCAL)
        ticket = runner.submit(spec)
        runner.wait(ticket.id, timeout=60)
        runner.close()
        assert storage.experiments.status(ticket.id).status is Status.FINISHED
    assert main(["rescore", ticket.id, "--store", str(tmp_path / "store")]) != 0
    said = capsys.readouterr().err
    # it said to resume the experiment, which refuses a finished one; then to score them with
    # `gerbil-qa evaluate`, which records nothing that replaces the run (explore23 2)
    assert "resume" not in said and ticket.uri in said and "revisionOf" in said, said
