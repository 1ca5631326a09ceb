"""Measures broken down by a feature of the questions (issue 11 item 3): ``evaluate --by``
(answer type, flags, language, TEXT2SPARQL features, a dataset's own fields), each slice
recomputed by the measures registry from its questions' records; the features are graph data
(``gqa:queryFeature``) that SPARQL groups by. The API's ``?by=`` is tested in test_api.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service import catalog
from service.cli import main
from tests.conftest import DATA

FRANZ = DATA / "text2sparql2025" / "systems" / "FRANZ"


@pytest.fixture(autouse=True)
def _mirror(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))


def _evaluate(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["evaluate", *args, "--output", "json"]) == 0
    return json.loads(capsys.readouterr().out.splitlines()[0])


def test_by_feature_a_question_counts_in_each_of_its_features(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ev = _evaluate(
        capsys,
        *("--dataset", "text2sparql-2025-ck25", "--profile", "text2sparql", "--types", "QA"),
        *("--answers", str(FRANZ / "ck25_system_result_set.json"), "--by", "feature"),
    )
    dataset = catalog.load("text2sparql-2025-ck25")
    f1 = {q["id"]: q["QA"]["f1"] for q in ev["questions"]}
    slices = ev["slices"]["feature"]
    stated = {f for q in dataset.questions for f in q.features}
    assert set(slices) == stated and "COUNT" in slices
    for feature, types in slices.items():
        ids = [q.id for q in dataset.questions if feature in q.features]
        assert types["QA"]["questions"] == len(ids), feature
        mean = sum(f1[i] for i in ids) / len(ids)
        assert types["QA"]["macroF1"] == pytest.approx(mean, abs=1e-12), feature


def test_the_gold_queries_sub_experiments_are_1_in_every_feature(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """text2sparql's sub-experiments take the standard rule in each slice too: the gold
    queries scored C2KB 0.54 and AIT2KB 0.14 on CK25 under the challenge's set rule."""
    from tests.helpers import ck25_gold_queries

    answers = tmp_path / "gold-queries.json"
    answers.write_text(json.dumps(ck25_gold_queries()), encoding="utf-8")
    ev = _evaluate(
        capsys,
        *("--dataset", "text2sparql-2025-ck25", "--types", "QA,C2KB,AIT2KB"),
        *("--answers", str(answers), "--by", "feature"),
    )
    assert ev["profile"] == "text2sparql"  # CK25's own
    assert ev["results"]["C2KB"]["macroF1"] == ev["results"]["AIT2KB"]["macroF1"] == 1.0
    slices = ev["slices"]["feature"]
    assert "COUNT" in slices
    for feature, types in slices.items():
        assert types["C2KB"]["macroF1"] == types["AIT2KB"]["macroF1"] == 1.0, feature


def test_by_language_of_a_pooled_task_is_each_language(capsys: pytest.CaptureFixture[str]) -> None:
    ev = _evaluate(
        capsys,
        *("--dataset", "text2sparql-2025-db25", "--profile", "text2sparql", "--types", "QA"),
        *("--answers", str(FRANZ / "db25_system_result_set.json"), "--lang", "en,es"),
        *("--by", "language,answertype"),
    )
    assert ev["slices"]["language"] == ev["byLanguage"]
    assert main(["evaluate", "--dataset", "x", "--answers", "y", "--by", "colour"]) != 0
    assert "by='colour': cannot break down by it; expected one of" in capsys.readouterr().err


def test_the_features_are_graph_data(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from service.graph.store import open_storage

    store = tmp_path / "store"
    _evaluate(
        capsys,
        *("--dataset", "text2sparql-2025-ck25", "--profile", "text2sparql", "--types", "QA"),
        *("--answers", str(FRANZ / "ck25_system_result_set.json"), "--store", str(store)),
    )
    storage = open_storage(store)
    try:
        rows = list(
            storage.public.query(
                """PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
SELECT ?feature (COUNT(DISTINCT ?q) AS ?n) WHERE { ?q gqa:queryFeature ?feature }
GROUP BY ?feature"""
            )
        )
        counts = {r["feature"].value: int(r["n"].value) for r in rows}
        dataset = catalog.load("text2sparql-2025-ck25")
        assert counts["COUNT"] == sum(1 for q in dataset.questions if "COUNT" in q.features)
    finally:
        storage.close()


def test_the_dimensions_offered_have_more_than_one_group() -> None:
    """A breakdown into one group repeats the totals: a flag or a language needs two values;
    a query feature is a subset of the questions, so one is enough (DB25's only feature,
    RESULT_ORDER_MATTERS on 4 of its 100 questions, vanished with the two-value rule)."""
    from service.evaluation.slices import offered

    assert offered({"hybrid": {"no"}, "language": {"en"}, "answertype": {"date"}}) == ()
    assert offered({"hybrid": {"no", "yes"}, "language": {"en", "es"}}) == ("hybrid", "language")
    assert offered({"feature": {"RESULT_ORDER_MATTERS"}}) == ("feature",)
    assert offered({"feature": set()}) == ()


def test_the_table_says_slices_carry_no_interval_or_test(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """explore43 F6: slice rows of one question (1.0000) under a signature naming the
    bootstrap, with no interval and nothing saying they have none."""
    from service.paths import DEMO_DIR

    argv = ["evaluate", "--dataset", str(DEMO_DIR / "questions.json"), "--profile", "exact"]
    argv += ["--answers", str(DEMO_DIR / "answers-partial.json"), "--types", "QA"]
    argv += ["--by", "answertype"]
    note = "slice values carry no interval and no test: a slice of few questions is the least"
    for extra, whole in (([], False), (["--intervals"], True)):
        assert main([*argv, *extra]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[-2].startswith(note) and lines[-1].startswith("signature: ")
        assert lines[-2].endswith("the signature's ci fields are the whole run's)") == whole
    assert main(argv[:-2]) == 0  # no slices, no note
    assert note not in capsys.readouterr().out
