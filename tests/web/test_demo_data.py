"""The demo data (``datasets/demo/``) is consistent: gold answers are what the gold SPARQL
returns on the demo KB, the answer files read cleanly, and the profiles rank them as described."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from service import formats
from service.evaluation import evaluate
from service.evaluation.profiles import get_profile
from service.evaluation.results import ExperimentType
from service.kb.open import open_kb
from service.model import system_run
from service.paths import DEMO_DIR


@pytest.fixture(scope="module")
def dataset():
    return formats.read(DEMO_DIR / "questions.json")


def test_gold_answers_are_the_kb_answers(dataset) -> None:
    kb = ox.Store()
    kb.load(path=str(DEMO_DIR / "kb.ttl"), format=ox.RdfFormat.TURTLE)
    assert len(dataset) == 14
    for question in dataset:
        result = kb.query(question.sparql)
        gold = question.answers
        assert gold is not None and not gold.is_empty, question.id
        if isinstance(result, ox.QueryBoolean):
            assert gold.boolean is bool(result), question.id
        else:
            found = sorted(term.value for row in result for term in row if term is not None)
            assert found == sorted(t.value for t in gold.values()), question.id


@pytest.mark.parametrize("name", ["strong", "partial", "baseline"])
def test_answer_files_read_without_errors(name: str) -> None:
    answers = formats.read(DEMO_DIR / f"answers-{name}.json")
    assert not [p for p in answers.problems if p.severity == "error"]


def test_profiles_rank_the_demo_systems(dataset) -> None:
    kb = open_kb([str(DEMO_DIR / "kb.ttl")])
    scores = {}
    for profile in ("fair", "gerbil", "exact"):
        for name in ("strong", "partial", "baseline"):
            run = system_run(formats.read(DEMO_DIR / f"answers-{name}.json"), system=name)
            result = evaluate(dataset, run, profile=get_profile(profile), language="en", kb=kb)
            scores[profile, name] = result.tasks[ExperimentType.QA].measures["macroF1"]
    assert scores["fair", "strong"] == 1.0
    assert scores["fair", "strong"] > scores["gerbil", "strong"] > scores["exact", "strong"]
    for profile in ("fair", "gerbil", "exact"):
        assert scores[profile, "strong"] > scores[profile, "partial"] > scores[profile, "baseline"]
