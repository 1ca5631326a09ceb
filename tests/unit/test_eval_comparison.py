"""``compare``: the six QALD-8 train systems under ``exact``, and the JSON contract of issue 11."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from service.errors import BadRequest
from service.evaluation import evaluate
from service.evaluation.comparison import compare
from service.evaluation.results import Evaluation
from service.evaluation.statistics import NO_INTERVAL, holm
from service.formats import read
from service.model import system_run

SYSTEMS = ["AskNow", "GANSWER2", "QAKIS", "QANSWER", "QASystem", "TeBaQA"]


@pytest.fixture(scope="module")
def qald8_exact(data_dir: Path) -> list[Evaluation]:
    gold = read(data_dir / "qald/ag-sc_QALD/8/data/qald-8-train-multilingual.json")
    folder = data_dir / "system-outputs" / "qald8-train"
    return [
        evaluate(
            gold, system_run(read(folder / f"{s}_QALD8_Train.json"), system=s), profile="exact"
        )
        for s in SYSTEMS
    ]


def test_the_json_contract(qald8_exact: list[Evaluation]) -> None:
    out = compare(qald8_exact, measure="macroF1").to_json()
    assert list(out) == ["dataset", "profile", "signature", "seed", "resamples", "test",
                         "systems", "pairs", "warnings", "questions"]  # fmt: skip
    assert out["warnings"] == []  # the defaults are enough
    assert out["questions"] == 219  # what the intervals and tests rest on (explore43 F4)
    assert (out["dataset"], out["profile"]) == ("qald-8-train-multilingual", "exact")
    assert (out["seed"], out["resamples"], out["test"]) == (12345, 1000, "ar")
    assert out["signature"] == (
        qald8_exact[0].signature + "|ci:bootstrap-percentile|n:1000|seed:12345|level:0.95"
        "|test:ar|n:10000|seed:12345|correction:holm|pairs:15|alpha:0.05"
    )
    # in standing order: by tier, within a tier by the measure (they were in input order,
    # and the tables by name: QAKIS above a better TeBaQA in one tier)
    standing = [(s["tier"], -s["results"]["QA"]["macroF1"]) for s in out["systems"]]
    assert standing == sorted(standing) and sorted(s["system"] for s in out["systems"]) == SYSTEMS
    by_name = {ev.system: ev for ev in qald8_exact}
    for entry in out["systems"]:
        ev = by_name[entry["system"]]
        assert list(entry) == ["system", "results", "intervals", "tier"]
        assert entry["system"] == ev.to_json()["system"]
        assert entry["results"] == ev.to_json()["results"]  # the scorer's numbers, unchanged
        for etype, measures in entry["results"].items():
            intervals = entry["intervals"][etype]
            assert set(intervals) == set(measures) - set(NO_INTERVAL)
            for name, (low, high) in intervals.items():
                value = measures[name]
                if value is None:
                    assert low is None and high is None
                else:
                    assert low <= value <= high, (entry["system"], etype, name)
    assert len(out["pairs"]) == 15
    for pair in out["pairs"]:
        assert list(pair) == ["a", "b", "measure", "difference", "pValue", "pAdjusted",
                              "pAtFloor"]  # fmt: skip
        # no shuffle as extreme: p = 1/10,001 is only a bound (explore43 F7)
        assert pair["pAtFloor"] == (pair["pValue"] == 1 / 10001)
        assert pair["measure"] == "macroF1" and pair["pAdjusted"] >= pair["pValue"]
    assert [p["pAdjusted"] for p in out["pairs"]] == holm([p["pValue"] for p in out["pairs"]])
    assert json.dumps(out) == json.dumps(compare(qald8_exact, measure="macroF1").to_json())


def test_too_few_resamples_or_samples_are_said(qald8_exact: list[Evaluation]) -> None:
    """``--resamples 1 --samples 1`` printed a "95 % interval" that did not hold the estimate,
    without a word (explore25 5)."""
    rough = compare(qald8_exact[:2], resamples=1, samples=1)
    first, second = rough.warnings
    assert first.startswith("1 bootstrap resamples leave 0.025 in each tail of a 95% interval")
    assert "smallest p-value is 0.5, above the 0.05 the first of 1 pairs needs" in second
    assert rough.to_json()["warnings"] == [first, second]
    assert compare(qald8_exact[:2], resamples=400, samples=19).warnings == ()  # 10 a tail, p 0.05
    assert len(compare(qald8_exact, samples=19).warnings) == 1  # 15 pairs: 0.05 / 15 < 0.05


def test_tiers_of_the_qald8_train_systems(qald8_exact: list[Evaluation]) -> None:
    tiers = {s.system: s.tier for s in compare(qald8_exact, measure="macroF1").systems}
    # gANSWER2 (macro F1 .55) is alone at the top; AskNow (.10) alone at the bottom
    assert tiers["GANSWER2"] == 1 and tiers["AskNow"] == max(tiers.values())
    assert sorted(set(tiers.values())) == list(range(1, max(tiers.values()) + 1))
    # QAKIS (.20) and TeBaQA (.18) differ by noise: one tier
    assert tiers["QAKIS"] == tiers["TeBaQA"]
    accuracy = compare(qald8_exact, measure="accuracy")
    assert accuracy.ranking.test == "mcnemar" and accuracy.to_json()["test"] == "mcnemar"
    assert "|test:mcnemar|correction:holm|pairs:15|alpha:0.05" in accuracy.signature


def test_unfair_comparisons_are_refused(data_dir: Path, qald8_exact: list[Evaluation]) -> None:
    gold = read(data_dir / "qald/ag-sc_QALD/8/data/qald-8-train-multilingual.json")
    run = system_run(
        read(data_dir / "system-outputs/qald8-train/TeBaQA_QALD8_Train.json"), system="TeBaQA"
    )
    other_profile = evaluate(gold, run, profile="qald6")
    with pytest.raises(BadRequest, match="compare under one profile") as refused:
        compare([qald8_exact[0], other_profile])
    assert "KB alone" not in str(refused.value)  # the profiles differ, not the KB
    # TEXT2SPARQL: a team's result set (no KB) against its queries run on the KB: the refusal
    # named two signatures and said nothing of why they differ
    on_kb = dataclasses.replace(qald8_exact[1], kb="file:sha256:5bef")  # its queries ran there
    with pytest.raises(BadRequest, match=r"differ in the KB alone.*result sets with result sets"):
        compare([qald8_exact[0], on_kb])
    # queries run on two KBs: said so, not "result sets" (explore25 10)
    other_kb = dataclasses.replace(qald8_exact[0], kb="file:sha256:77aa")
    with pytest.raises(
        BadRequest, match=r"different knowledge bases \(file:sha256:5bef and file:sha256:77aa\)"
    ):
        compare([other_kb, on_kb])
    with pytest.raises(BadRequest, match="two systems are called 'TeBaQA'"):
        compare([qald8_exact[-1], evaluate(gold, run, profile="exact")])
    with pytest.raises(BadRequest, match="has no QA cws"):
        compare(qald8_exact, measure="cws")
    with pytest.raises(BadRequest, match="count of the run"):
        compare(qald8_exact, measure="questions")
    with pytest.raises(BadRequest, match="unknown test"):
        compare(qald8_exact, test="t-test")
    with pytest.raises(BadRequest, match="McNemar tests accuracy only"):
        compare(qald8_exact[:2], measure="macroF1", test="mcnemar")
    with pytest.raises(BadRequest, match="nothing to compare"):
        compare([])
