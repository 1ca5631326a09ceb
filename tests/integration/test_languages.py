"""Several languages in one task (``--lang en,es``, ``all``): every question scored once per
language, the measures pooled over every question x language (as TEXT2SPARQL averages DB25),
each language's measures in ``byLanguage``, each per-question entry with its ``language``; for
every profile; recorded as a task over ``mul`` plus each language's task, read back by the API's
reader as the command line printed it, with the Data Cube ICs and our shapes holding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from service.evaluation.profiles import PROFILES
from tests.conftest import DATA, QALD

FRANZ = DATA / "text2sparql2025" / "systems" / "FRANZ"
QALD9_TEST = QALD / "9" / "data" / "qald-9-test-multilingual.json"


@pytest.fixture(autouse=True)
def _mirror(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))  # the catalogue reads the local mirror


def _evaluate(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    assert main(["evaluate", *args, "--output", "json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_db25_pooled_over_english_and_spanish_is_the_published_average(
    capsys: pytest.CaptureFixture[str],
) -> None:
    [ev] = _evaluate(
        capsys,
        *("--dataset", "text2sparql-2025-db25", "--profile", "text2sparql", "--types", "QA"),
        *("--answers", str(FRANZ / "db25_system_result_set.json"), "--lang", "en,es"),
    )
    published = json.loads((FRANZ / "db25_eval.json").read_text())
    average = published["average"]
    assert ev["language"] == "en,es"
    for theirs, ours in (("set_P", "macroPrecision"), ("set_recall", "macroRecall")):
        assert ev["results"]["QA"][ours] == pytest.approx(average[theirs], abs=1e-9)
    assert ev["results"]["QA"]["macroF1"] == pytest.approx(average["set_F"], abs=1e-9)
    for language in ("en", "es"):
        assert ev["byLanguage"][language]["QA"]["macroF1"] == pytest.approx(
            average[f"set_F-{language}"], abs=1e-9
        )
    assert len(ev["questions"]) == 200 and ev["results"]["QA"]["questions"] == 200
    for entry in ev["questions"]:
        expected = published[f"db25:{entry['id']}-{entry['language']}"]
        assert entry["QA"]["f1"] == pytest.approx(expected["set_F"], abs=1e-9)


@pytest.mark.parametrize("profile", [p for p in PROFILES if p != "poleval"])
def test_every_profile_pools_its_own_records(
    capsys: pytest.CaptureFixture[str], profile: str
) -> None:
    """The gold answers as the system's, in German and English: the pooled macro F1 is the
    mean of the per-question F1 over both languages, the counts add up. (poleval: its data has
    one language, Polish; pooling is the same code.)"""
    [ev] = _evaluate(
        capsys,
        *("--dataset", str(QALD9_TEST), "--answers", str(QALD9_TEST), "--lang", "de,en"),
        *("--profile", profile, "--types", "QA"),
    )
    by = ev["byLanguage"]
    assert set(by) == {"de", "en"} and ev["language"] == "de,en"
    scored = [e for e in ev["questions"] if e["QA"].get("f1") is not None]
    assert {e["language"] for e in ev["questions"]} == {"de", "en"}
    pooled = ev["results"]["QA"]
    assert pooled["questions"] == by["de"]["QA"]["questions"] + by["en"]["QA"]["questions"]
    if profile not in ("qald6", "qald-legacy"):  # their macro F1 is not the mean of per-question F1
        assert pooled["macroF1"] == pytest.approx(
            sum(e["QA"]["f1"] for e in scored) / len(scored), abs=1e-12
        )


def test_all_means_every_language_of_the_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    [ev] = _evaluate(
        capsys,
        *("--dataset", "text2sparql-2025-db25", "--profile", "text2sparql", "--types", "QA"),
        *("--answers", str(FRANZ / "db25_system_result_set.json"), "--lang", "all"),
    )
    assert sorted(ev["byLanguage"]) == ["en", "es"]


def test_recorded_pooled_tasks_read_back_as_printed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from service.graph.checks import datacube_violations, shacl_violations
    from service.graph.reader import evaluations
    from service.graph.store import open_storage

    store = tmp_path / "store"
    [printed] = _evaluate(
        capsys,
        *("--dataset", "text2sparql-2025-db25", "--profile", "text2sparql", "--types", "QA"),
        *("--answers", str(FRANZ / "db25_system_result_set.json"), "--lang", "en,es"),
        *("--store", str(store)),
    )
    experiment = printed.pop("experiment")
    storage = open_storage(store)
    try:
        quads = storage.experiments.quads(experiment["id"])
        [read] = evaluations(quads, storage.uris, experiment["id"])
        assert read == printed  # what the API answers is what the command line printed
        assert (
            read["byLanguage"]["es"]["QA"]["macroF1"]
            == printed["byLanguage"]["es"]["QA"]["macroF1"]
        )
        languages = {
            q.object.value
            for q in quads
            if q.predicate.value == "http://w3id.org/gerbil/qa/vocab#language"
        }
        assert "http://id.loc.gov/vocabulary/iso639-2/mul" in languages  # the pooled task
        assert shacl_violations(quads, target=experiment["uri"]) == []
        assert datacube_violations(quads, target=experiment["uri"]) == []
    finally:
        storage.close()


def test_a_run_against_a_separate_gold_is_recorded_as_a_dataset_of_its_own(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--gold`` with ``--store``: the questions and that gold are a dataset of their own (never
    the leaderboard of the questions' own gold), the gold file is kept as an entity."""
    from service.graph.checks import shacl_violations
    from service.graph.store import open_storage

    folder = DATA / "text2sparql2025" / "db25"
    store = tmp_path / "store"
    [printed] = _evaluate(
        capsys,
        *(
            "--dataset",
            str(folder / "questions.yaml"),
            "--gold",
            str(folder / "true_result_set.json"),
        ),
        *("--answers", str(FRANZ / "db25_system_result_set.json"), "--lang", "en,es"),
        *("--profile", "text2sparql", "--types", "QA", "--store", str(store)),
    )
    published = json.loads((FRANZ / "db25_eval.json").read_text())["average"]
    assert printed["results"]["QA"]["macroF1"] == pytest.approx(published["set_F"], abs=1e-9)
    storage = open_storage(store)
    try:
        quads = storage.experiments.quads(printed["experiment"]["id"])
        datasets = {q.object.value for q in quads if q.predicate.value.endswith("vocab#dataset")}
        assert any("/dataset/" in d and "with-the-gold-of-true_result_set" in d for d in datasets)
        roles = {q.object.value for q in quads if q.predicate.value.endswith("#fileRole")}
        assert {"dataset", "gold", "answers"} <= roles
        assert shacl_violations(quads, target=printed["experiment"]["uri"]) == []
    finally:
        storage.close()


def test_qalds_hindi_is_asked_as_hi_hi_in_or_hi_underscore_in(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """QALD-9 tags its Hindi texts ``hi_IN``: ``--lang hi`` and ``hi-IN`` found no question
    ("it has questions in … hi_IN"), and ``hi_IN`` was refused as no ISO 639 code."""
    scored = {}
    for asked in ("hi", "hi-IN", "hi_IN"):
        [ev] = _evaluate(
            capsys,
            *("--dataset", str(QALD9_TEST), "--answers", str(QALD9_TEST), "--types", "QA"),
            *("--profile", "exact", "--lang", asked),
        )
        assert len(ev["questions"]) == 150, asked  # every question, in Hindi
        scored[asked] = ev["results"]["QA"]["macroF1"]
    assert scored["hi"] == scored["hi-IN"] == scored["hi_IN"] == 1.0, scored


def test_a_bare_language_takes_its_own_texts_before_a_regional_one() -> None:
    from service.model import Question, QuestionText

    q = Question("1", (QuestionText("pt_BR", "Quem?"), QuestionText("pt", "Quem é?")))
    assert q.text("pt") == "Quem é?" and q.text("pt-BR") == q.text("pt_br") == "Quem?"
    only = Question("2", (QuestionText("hi_IN", "कौन?"),))
    assert only.text("hi") == only.text("HI-in") == "कौन?" and only.text("hi-XX") is None


def test_all_names_a_datasets_languages_as_an_explicit_lang_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """QALD-9 tags texts ``pt_BR`` and ``hi_IN``: ``--lang pt_BR`` named them ``pt-BR``, but
    ``all`` kept ``pt_BR`` in ``language``, ``byLanguage`` and the store (explore51 F2)."""
    from service.graph.store import open_storage

    store = tmp_path / "store"
    base = ("--dataset", str(QALD9_TEST), "--answers", str(QALD9_TEST), "--types", "QA")
    [pooled] = _evaluate(capsys, *base, "--lang", "all", "--store", str(store))
    languages = pooled["language"].split(",")
    assert {"pt-BR", "hi-IN"} <= set(languages) and not any("_" in x for x in languages)
    assert list(pooled["byLanguage"]) == languages
    assert {q["language"] for q in pooled["questions"]} == set(languages)
    [alone] = _evaluate(capsys, *base, "--lang", "pt_BR")
    assert alone["language"] == "pt-BR"
    assert pooled["byLanguage"]["pt-BR"]["QA"] == alone["results"]["QA"]
    storage = open_storage(store)
    try:
        quads = storage.experiments.quads(pooled["experiment"]["id"])
        tags = {
            q.object.value
            for q in quads
            if q.predicate.value == "http://w3id.org/gerbil/qa/vocab#languageTag"
        }
        assert {"pt-BR", "hi-IN"} <= tags and not any("_" in tag for tag in tags), tags
    finally:
        storage.close()


def test_a_datasets_missing_texts_name_the_language_as_a_run_does() -> None:
    """The dataset checks said ``no question text in 'pt_BR'`` where a run names ``pt-BR``."""
    from service.graph.questions import check_dataset
    from service.model import Dataset, Question, QuestionText

    dataset = Dataset(
        "d",
        (
            Question("1", (QuestionText("en", "Who?"), QuestionText("pt_BR", "Quem?"))),
            Question("2", (QuestionText("en", "What?"),)),
        ),
    )
    [missing] = [f for f in check_dataset(dataset, parse=False) if f.kind == "missing-text"]
    assert (missing.message, missing.question_id) == ("no question text in 'pt-BR'", "2")


def _qald(path: Path, texts: dict[str, list[tuple[str | None, str]]]) -> Path:
    """A QALD-JSON file: question id -> its (language, string) texts (``None``: untagged), each
    answered by ``http://ex.org/{id}``."""
    questions = []
    for qid, each in texts.items():
        written = [
            {"string": s} if lang is None else {"language": lang, "string": s} for lang, s in each
        ]
        binding = {"x": {"type": "uri", "value": f"http://ex.org/{qid}"}}
        answers = [{"head": {"vars": ["x"]}, "results": {"bindings": [binding]}}]
        questions.append(
            {"id": qid, "answertype": "resource", "question": written, "answers": answers}
        )
    path.write_text(json.dumps({"dataset": {"id": "tags"}, "questions": questions}))
    return path


def test_a_tag_spelt_two_ways_is_one_language_scored_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Texts tagged ``pt_BR`` and ``PT-br``: ``all`` scored each Portuguese question twice (as
    ``pt_BR`` and as ``PT-br``: 6 records for 4 texts), recorded two tasks of ``iso639-1/pt``
    for one system, dataset and profile (Data Cube IC-12: duplicate observations) and the
    leaderboard listed the experiment twice (explore53 F1, F3)."""
    from service.graph.checks import datacube_violations, shacl_violations
    from service.graph.store import open_storage

    gold = _qald(
        tmp_path / "gold.json",
        {
            "1": [("en", "Who?"), ("pt_BR", "Quem?")],
            "2": [("en", "What?"), ("PT-br", "O quê?")],
        },
    )
    store = tmp_path / "store"
    [ev] = _evaluate(
        capsys,
        *("--dataset", str(gold), "--answers", str(gold), "--lang", "all"),
        *("--types", "QA", "--store", str(store)),
    )
    assert ev["language"] == "en,pt-BR" and list(ev["byLanguage"]) == ["en", "pt-BR"]
    assert ev["results"]["QA"]["questions"] == 4  # four texts, each once
    assert ev["byLanguage"]["pt-BR"]["QA"]["questions"] == 2
    storage = open_storage(store)
    try:
        quads = storage.experiments.quads(ev["experiment"]["id"])
        vocab = "http://w3id.org/gerbil/qa/vocab#"
        tags = {
            (q.subject.value, q.object.value)
            for q in quads
            if q.predicate.value == vocab + "languageTag"
        }
        # one task a language, and the pooled one
        assert sorted(tag for _, tag in tags) == ["en", "en,pt-BR", "pt-BR"], tags
        portuguese = {
            q.subject.value
            for q in quads
            if q.predicate.value == vocab + "language"
            and q.object.value.endswith("/pt")
            and "/question/" not in q.subject.value
        }
        assert len(portuguese) == 1, portuguese  # one task: the leaderboard's one row
        assert datacube_violations(quads, target=ev["experiment"]["uri"]) == []
        assert shacl_violations(quads, target=ev["experiment"]["uri"]) == []
    finally:
        storage.close()


def test_all_scores_each_text_once_in_its_own_language(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``all`` scored an untagged text in every language (read in each), a ``pt_BR`` text under
    ``pt-BR`` and again under ``pt``, ``zh-Hant-TW`` under ``zh`` too (explore53 F2). Each text
    counts once: under its own tag, an untagged one under the profile's default (en). Named
    with ``--lang``, ``pt`` still takes a question's ``pt_BR`` text where it has no ``pt`` one,
    and each language an untagged text."""
    gold = _qald(
        tmp_path / "gold.json",
        {
            "1": [("en", "Who?"), ("de", "Wer?")],
            "2": [(None, "untagged")],
            "3": [("pt_BR", "Quem?")],
            "4": [("PT-br", "O quê?")],
            "5": [("pt", "Onde?")],
            "6": [("zh-Hant-TW", "誰？")],
            "7": [("zh", "谁？")],
        },
    )
    base = ("--dataset", str(gold), "--answers", str(gold), "--types", "QA")
    [ev] = _evaluate(capsys, *base, "--lang", "all")
    scored = sorted(
        (q["id"], q["language"]) for q in ev["questions"] if q.get("status") != "no-text"
    )
    assert scored == [
        ("1", "de"),
        ("1", "en"),
        ("2", "en"),
        ("3", "pt-BR"),
        ("4", "pt-BR"),
        ("5", "pt"),
        ("6", "zh-Hant-TW"),
        ("7", "zh"),
    ]
    assert ev["results"]["QA"]["questions"] == 8  # eight texts, each once
    [pt] = _evaluate(capsys, *base, "--lang", "pt")
    assert sorted(q["id"] for q in pt["questions"] if q.get("status") != "no-text") == [
        "2",
        "3",
        "4",
        "5",
    ]
    [de] = _evaluate(capsys, *base, "--lang", "de")
    assert sorted(q["id"] for q in de["questions"] if q.get("status") != "no-text") == ["1", "2"]


def test_a_tag_that_is_no_language_tag_is_never_asked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``all`` ran ``en--US`` and ``123`` as languages (which ``--lang`` refuses), and ``--lang
    en`` took the ``en--US`` text as a regional English one (explore53 F5)."""
    gold = _qald(
        tmp_path / "gold.json",
        {"1": [("en--US", "bad")], "2": [("123", "digits")], "3": [("en", "Who?")]},
    )
    base = ("--dataset", str(gold), "--answers", str(gold), "--types", "QA")
    for lang in ("all", "en"):
        [ev] = _evaluate(capsys, *base, "--lang", lang)
        assert ev["language"] == "en", lang
        assert [q["id"] for q in ev["questions"] if q.get("status") != "no-text"] == ["3"], lang


@pytest.mark.parametrize("label_tag", ["pt-BR", "PT-br"])
def test_the_gerbil_label_lookup_does_not_depend_on_how_a_tag_is_spelt(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, label_tag: str
) -> None:
    """Questions tagged ``pt_BR`` and ``PT-br`` answered "São Paulo", a label of the gold IRI
    in the KB: ``all`` under ``gerbil`` scored one 0.0 and the other 1.0, by the task its tag
    made (explore53 F12). Both are one pt-BR task now, and each finds the label."""
    gold = _qald(tmp_path / "gold.json", {"1": [("pt_BR", "Onde?")], "2": [("PT-br", "Onde?")]})
    data = json.loads(gold.read_text())
    answers = []
    for q in data["questions"]:
        q["answers"][0]["results"]["bindings"][0]["x"]["value"] = "http://ex.org/São_Paulo"
        literal = {"x": {"type": "literal", "value": "São Paulo"}}
        answers.append(
            {
                "id": q["id"],
                "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [literal]}}],
            }
        )
    gold.write_text(json.dumps(data))
    system = tmp_path / "system.json"
    system.write_text(json.dumps({"questions": answers}))
    kb = tmp_path / "kb.ttl"
    rdfs = "http://www.w3.org/2000/01/rdf-schema#"
    kb.write_text(f'<http://ex.org/São_Paulo> <{rdfs}label> "São Paulo"@{label_tag} .\n')
    [ev] = _evaluate(
        capsys,
        *("--dataset", str(gold), "--answers", str(system), "--kb", str(kb)),
        *("--lang", "all", "--profile", "gerbil", "--types", "QA"),
    )
    assert ev["language"] == "pt-BR"
    assert [(q["id"], q["QA"]["f1"]) for q in ev["questions"]] == [("1", 1.0), ("2", 1.0)]


QALD7_TEST = QALD / "7" / "data" / "qald-7-test-multilingual.json"


def test_all_asks_the_languages_with_a_text_not_those_with_an_empty_string(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """QALD-7 test multilingual has ``"string": ""`` in fa, es, nl and ro in all 43 questions:
    ``all`` asked fa and exited 1, "none has text in language 'fa'" (explore54 F1)."""
    data = json.loads(QALD7_TEST.read_text())
    blank = {t["language"] for q in data["questions"] for t in q["question"] if not t["string"]}
    assert {"fa", "es", "nl", "ro"} <= blank  # the file as the finding saw it
    [ev] = _evaluate(
        capsys, "--dataset", str(QALD7_TEST), "--answers", str(QALD7_TEST), "--lang", "all"
    )
    assert sorted(ev["language"].split(",")) == ["de", "en", "fr", "it"]
    assert sorted(ev["byLanguage"]) == ["de", "en", "fr", "it"]


def test_the_datasets_listing_names_the_languages_all_asks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``gerbil-qa datasets`` listed es, fa, nl, ro for QALD-7 test (texts all empty) and ``hi``
    and one ``pt`` for QALD-9 test, whose ``all`` asks ``hi-IN``, ``pt`` and ``pt-BR``
    (explore54 F8): both take :func:`text_languages`, the listing sorted."""
    assert main(["datasets"]) == 0
    rows = {line.split()[0]: line.split()[2] for line in capsys.readouterr().out.splitlines()}
    assert rows["qald-7-multilingual-test"] == "de,en,fr,it"
    [ev] = _evaluate(
        capsys,
        *("--dataset", "qald-9-test-multilingual", "--answers", str(QALD9_TEST)),
        *("--lang", "all", "--types", "QA"),
    )
    assert rows["qald-9-test-multilingual"] == ",".join(sorted(ev["language"].split(",")))
    assert "hi-IN" in rows["qald-9-test-multilingual"].split(",")
    assert main(["dataset", "show", "qald-7-multilingual-test"]) == 0
    assert "languages: de, en, fr, it" in capsys.readouterr().out
