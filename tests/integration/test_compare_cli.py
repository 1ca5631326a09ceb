"""``gerbil-qa compare`` (issue 11 item 2): the JSON contract, names as ``evaluate`` gives them,
tiers, byte-identical output for one seed, CSV and table, and a clear error for one system."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from service.cli import main
from service.evaluation import evaluate
from service.evaluation.comparison import compare
from service.formats import read
from service.model import system_run

SYSTEMS = ("AskNow", "GANSWER2", "QAKIS", "QANSWER", "QASystem", "TeBaQA")


def _args(data_dir: Path) -> list[str]:
    gold = data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json"
    outputs = data_dir / "system-outputs" / "qald8-train"
    answers = [str(outputs / f"{s}_QALD8_Train.json") for s in SYSTEMS]
    return ["compare", "--dataset", str(gold), "--answers", *answers, "--profile", "exact"]


def test_json_contract_and_the_library_agree(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_args(data_dir), "--output", "json", "--types", "QA"]) == 0
    first = capsys.readouterr().out
    data = json.loads(first)
    contract = ["dataset", "profile", "signature", "seed", "resamples", "test", "systems", "pairs"]
    assert list(data) == [*contract, "warnings", "questions"]  # keys only added
    names = [s["system"] for s in data["systems"]]
    assert sorted(names) == sorted(f"{s}_QALD8_Train" for s in SYSTEMS)  # evaluate's names
    assert {s["system"]: s["tier"] for s in data["systems"]}["GANSWER2_QALD8_Train"] == 1
    assert len(data["pairs"]) == 15 and {"pValue", "pAdjusted"} <= set(data["pairs"][0])
    # the same as the library on the same evaluations
    gold = read(data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json")
    folder = data_dir / "system-outputs" / "qald8-train"
    evaluations = [
        evaluate(
            gold,
            system_run(read(folder / f"{s}_QALD8_Train.json"), system=f"{s}_QALD8_Train"),
            profile="exact",
            experiment_types=["QA"],
        )
        for s in SYSTEMS
    ]
    assert compare(evaluations).to_json() == data
    # one seed, byte-identical output
    assert main([*_args(data_dir), "--output", "json", "--types", "QA"]) == 0
    assert capsys.readouterr().out == first


def test_table_csv_and_errors(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*_args(data_dir), "--types", "QA", "--resamples", "200", "--samples", "500"]) == 0
    table, said = capsys.readouterr()
    assert said.startswith("gerbil-qa: warning: 200 bootstrap resamples leave 5 in each tail")
    assert "tier  system" in table and "p adjusted" in table and "|n:200|" in table
    # how many questions the intervals and tests rest on (explore43 F4)
    assert table.startswith("dataset: qald-8-train-multilingual   profile: exact   ")
    assert table.splitlines()[0].endswith("   measure: macroF1   questions: 219")
    assert main([*_args(data_dir), "--types", "QA", "--output", "csv", "--seed", "7"]) == 0
    written = capsys.readouterr().out
    # RFC 4180 §2.1, as every CSV the web serves (one writer: service/csv_table.py); was LF
    assert written.endswith("\r\n") and written.count("\n") == written.count("\r\n")
    lines = written.splitlines()
    header = "system,tier,macroF1,low,high,undefinedResamples,questions,answered,missing,errors"
    assert lines[0] == header and len(lines) == 1 + len(SYSTEMS)
    # macro F1 is never undefined; every system answered all 219
    assert all(line.endswith(",,219,219,0,0") for line in lines[1:])
    one = _args(data_dir)[:5]
    assert main(one) == 1
    assert "compare needs at least two --answers files" in capsys.readouterr().err


def test_pairs_csv_and_latex_for_a_paper(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The p-values were in the JSON and the text table only, and nothing was in LaTeX
    (explore25 9): a CSV of the pairs, and booktabs tables of the systems and the pairs."""
    import re

    args = [*_args(data_dir), "--types", "QA", "--resamples", "400", "--samples", "999"]
    assert main([*args, "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main([*args, "--output", "pairs-csv"]) == 0
    written = capsys.readouterr().out
    assert written.endswith("\r\n") and written.count("\n") == written.count("\r\n")
    rows = list(csv.DictReader(io.StringIO(written)))
    assert len(rows) == len(data["pairs"]) == 15
    for row, pair in zip(rows, data["pairs"], strict=True):
        assert (row["a"], row["b"], row["test"]) == (pair["a"], pair["b"], data["test"])
        assert float(row["pAdjusted"]) == pair["pAdjusted"]
    assert main([*args, "--output", "latex"]) == 0
    tex = capsys.readouterr().out
    assert tex.startswith(f"% gerbil-qa compare, signature {data['signature']}\n")
    assert tex.splitlines()[1] == "% qald-8-train-multilingual: 219 questions compared"
    assert tex.count("\\begin{tabular}") == tex.count("\\end{tabular}") == 2
    body = [line for line in tex.splitlines() if line.endswith("\\\\")]
    assert len(body) == 2 + len(data["systems"]) + len(data["pairs"])  # with the two headers
    unescaped = re.compile(r"(?<!\\)&")
    assert [len(unescaped.findall(line)) for line in body] == (
        [3] * (1 + len(data["systems"])) + [4] * (1 + len(data["pairs"]))
    )
    first = data["systems"][0]
    name = first["system"].replace("_", "\\_")
    assert f"{first['tier']} & {name} & {first['results']['QA']['macroF1']:.4f} & [" in tex
    assert (
        "_" not in tex.replace("\\_", "").split("\n", 1)[1]
    )  # every _ escaped (not in the comment)


def test_evaluate_intervals(
    data_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``evaluate --intervals``: the same interval as ``compare`` gives that system, the interval
    method in ``intervalSignature``, low/high columns appended to the CSV, one seed one output;
    with ``--store``, the intervals recorded are the ones printed, of the ``--resamples`` given
    (it printed ``n:200`` and recorded ``n:1000``: explore61 F6)."""
    args = _args(data_dir)
    gold, answers = args[2], args[4]  # the dataset and AskNow's answers
    argv = ["evaluate", "--dataset", gold, "--answers", answers, "--profile", "exact"]
    argv += ["--types", "QA", "--intervals"]
    assert main([*argv, "--output", "json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["intervalSignature"] == data["signature"] + (
        "|ci:bootstrap-percentile|n:1000|seed:12345|level:0.95"
    )
    low, high = data["intervals"]["QA"]["macroF1"]
    assert low < data["results"]["QA"]["macroF1"] < high
    assert "questions" not in data["intervals"]["QA"]  # counts describe the run: no interval
    assert main([*_args(data_dir), "--output", "json", "--types", "QA"]) == 0
    compared = json.loads(capsys.readouterr().out)
    asknow = next(s for s in compared["systems"] if s["system"] == "AskNow_QALD8_Train")
    assert asknow["intervals"]["QA"]["macroF1"] == [low, high]
    assert main([*argv, "--output", "json"]) == 0
    assert capsys.readouterr().out == out  # byte-identical for one seed
    assert main([*argv, "--output", "csv", "--resamples", "200"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].endswith(",signature,low,high,undefinedResamples") and "|n:200|" in rows[1]
    assert "undefinedResamples" not in data  # no measure was undefined on a resample
    store = str(tmp_path / "store")
    assert main([*argv, "--output", "json", "--resamples", "200", "--store", store]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert "|n:200|" in printed["intervalSignature"]
    from service.graph.store import open_storage

    with open_storage(store, base=None) as storage:
        stored = {
            row["s"].value
            for row in storage.private.query(
                "SELECT ?s WHERE { GRAPH ?g { ?t <http://w3id.org/gerbil/qa/vocab#"
                "intervalSignature> ?s } }"
            )
        }
    assert stored == {printed["intervalSignature"]}
    assert main([*argv, "--resamples", "0", "--store", store]) == 1  # refused: no traceback
    assert "--resamples must be at least 1, not 0" in capsys.readouterr().err


def _one_right(tmp_path: Path) -> tuple[str, str, str]:
    """The demo's 14 questions, the first answered with its gold and every other with a wrong
    IRI (explore-14 1, on QALD-9 test with 150): Macro F1 QALD is undefined on the resamples
    without question 1, (13/14)^14 = 35 % of them. (dataset, one right, all right)."""
    from service.paths import DEMO_DIR

    gold = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    wrong = {"head": {"vars": ["uri"]}, "results": {"bindings": [
        {"uri": {"type": "uri", "value": "http://example.org/Wrong"}}]}}  # fmt: skip
    one = json.loads(json.dumps(gold))
    for question in one["questions"][1:]:
        question["answers"] = [wrong]
    paths = []
    for name, content in (("one-right", one), ("all-right", gold)):
        (tmp_path / f"{name}.json").write_text(json.dumps(content), encoding="utf-8")
        paths.append(str(tmp_path / f"{name}.json"))
    return str(DEMO_DIR / "questions.json"), paths[0], paths[1]


def test_an_interval_with_too_many_undefined_resamples_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore-14 1: the undefined resamples were left out silently and Macro F1 QALD's
    interval started at its estimate. More than 25 of 1,000: no bounds, and the JSON, the
    table and the CSV of evaluate and compare say on how many resamples it was undefined."""
    dataset, one, both = _one_right(tmp_path)
    argv = ["evaluate", "--dataset", dataset, "--profile", "exact", "--answers", one]
    assert main([*argv, "--types", "QA", "--intervals", "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    count = data["undefinedResamples"]["QA"]["macroF1QALD"]
    assert data["undefinedResamples"] == {"QA": {"macroF1QALD": count}} and 250 < count < 450
    assert data["results"]["QA"]["macroF1QALD"] > 0  # the estimate is defined
    assert data["intervals"]["QA"]["macroF1QALD"] == [None, None]
    assert data["intervals"]["QA"]["macroF1"][0] == 0.0  # 0, not undefined, without question 1
    assert main([*argv, "--types", "QA", "--intervals"]) == 0
    table = capsys.readouterr().out
    line = next(x for x in table.splitlines() if x.startswith("macroF1QALD"))
    assert line.endswith(f"(no interval: undefined on {count} of 1,000 resamples)")
    # every value ends on one column, the note after it (explore-15 11h: right-aligned, the
    # long note pushed its row's value out of the column)
    rows = [x for x in table.splitlines() if x.startswith(("macroF1 ", "macroF1QALD", "accuracy"))]
    ends = {len(" ".join(row.split(" (")[0].split(" [")[:1]).rstrip()) for row in rows}
    assert len(rows) == 3 and len(ends) == 1, rows
    assert main([*argv, "--types", "QA", "--intervals", "--output", "csv"]) == 0
    row = next(x for x in capsys.readouterr().out.splitlines() if ",macroF1QALD," in x)
    assert row.endswith(f",,,{count}")  # no bounds, then the count
    compared = ["compare", "--dataset", dataset, "--profile", "exact", "--answers", one, both]
    compared += ["--types", "QA", "--measure", "macroF1QALD"]
    assert main([*compared, "--output", "json"]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    ranked = {s["system"]: s for s in systems}
    assert ranked["one-right"]["undefinedResamples"] == data["undefinedResamples"]
    assert "undefinedResamples" not in ranked["all-right"]
    assert main(compared) == 0
    assert f"no interval: undefined on {count} of 1,000 resamples" in capsys.readouterr().out
    assert main([*compared, "--output", "csv"]) == 0
    assert f"one-right,2,{data['results']['QA']['macroF1QALD']!r},,,{count}" in (
        capsys.readouterr().out
    )


def test_a_system_without_a_tier_is_listed_last_with_a_dash() -> None:
    """A system whose measure is undefined gets no tier: the table printed "None" for it (and
    the sort of (tier, name) pairs could not order None among numbers)."""
    import io

    from service.evaluation.comparison_out import _table

    def system(name: str, tier: int | None, value: float | None) -> dict:
        return {"system": name, "tier": tier, "results": {"QA": {"macroF1": value}},
                "intervals": {"QA": {"macroF1": None}}}  # fmt: skip

    data = {"dataset": "d", "profile": "exact", "test": "ar", "pairs": [], "signature": "s"}
    data["systems"] = [system("a", 1, 0.5), system("b", None, None)]
    out = io.StringIO()
    _table(data, out, measure="macroF1")
    rows = out.getvalue().splitlines()
    assert rows[2].split()[:2] == ["1", "a"] and rows[3].split()[:2] == ["–", "b"]
    assert "None" not in out.getvalue().split("pairs")[0]


def test_a_p_value_below_the_printed_digits_is_not_printed_as_zero(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # McNemar on GANSWER2 against AskNow: p = 1.4e-25; the table printed "0.0000", a p-value
    # a paper cannot report (no test gives p = 0)
    assert main([*_args(data_dir), "--types", "QA", "--measure", "accuracy"]) == 0
    table = capsys.readouterr().out
    pairs = table.split("p adjusted\n")[1].split("signature:")[0].splitlines()
    assert len(pairs) == 15 and not [x for x in pairs if "0.0000" in x]
    line = next(x for x in pairs if x.startswith("AskNow_QALD8_Train    GANSWER2"))
    assert line.split()[-2:] == ["1.4e-25", "2.0e-24"]  # p, and Holm-adjusted over 15 pairs
    # from 0.0001 up, four decimals as before
    line = next(x for x in pairs if x.startswith("QAKIS_QALD8_Train     TeBaQA"))
    assert line.split()[-2:] == ["0.8899", "0.8899"]


def test_the_signature_names_how_many_pairs_holm_corrected_over(data_dir: Path) -> None:
    """QANSWER against QASystem: p adjusted 0.024 compared alone, 0.048 among four systems,
    0.07 among six (significant, then not), while the signature was the same string: a paper
    quoting the adjusted p and the signature could not be checked. It now says the family."""
    gold = read(data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json")
    folder = data_dir / "system-outputs" / "qald8-train"
    scored = {
        s: evaluate(
            gold,
            system_run(read(folder / f"{s}_QALD8_Train.json"), system=s),
            profile="exact",
            experiment_types=["QA"],
        )
        for s in SYSTEMS
    }
    found = {}
    for family in (("QANSWER", "QASystem"), SYSTEMS):
        out = compare([scored[s] for s in family], resamples=100).to_json()
        [pair] = [p for p in out["pairs"] if {p["a"], p["b"]} == {"QANSWER", "QASystem"}]
        found[len(family)] = (pair["pValue"], pair["pAdjusted"], out["signature"])
    assert found[2][0] == found[6][0]  # the raw p does not depend on the others
    assert found[2][1] < 0.05 <= found[6][1]  # the adjusted one does
    assert "|correction:holm|pairs:1|" in found[2][2]
    assert "|correction:holm|pairs:15|" in found[6][2]


def test_without_a_measure_the_profile_s_own_is_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """POST /api/compare took the profile's own measure (PolEval's accuracy, so McNemar) and
    the command macro F1 (approximate randomisation) on the same files (explore-15 12)."""
    expected = tmp_path / "expected.tsv"
    expected.write_text("".join(f"{n}\n" for n in range(1, 31)), encoding="utf-8")
    good, worse = tmp_path / "good.tsv", tmp_path / "worse.tsv"
    good.write_text(expected.read_text(encoding="utf-8"), encoding="utf-8")
    worse.write_text("".join(f"{n if n % 3 else 0}\n" for n in range(1, 31)), encoding="utf-8")
    base = ["compare", "--dataset", str(expected), "--answers", str(good), str(worse)]
    assert main([*base, "--output", "json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["profile"] == "poleval" and said["test"] == "mcnemar", said
    assert {p["measure"] for p in said["pairs"]} == {"accuracy"}
    assert main([*base, "--measure", "macroF1"]) == 0  # named, it is still taken
    table = capsys.readouterr().out
    assert "measure: macroF1" in table and "pairs (ar, Holm-adjusted)" in table, table
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "accuracy under poleval, else macroF1" in " ".join(capsys.readouterr().out.split())


def test_compare_reads_a_store_s_published_upload_and_registered_version(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """``compare --dataset NAME --dataset-version V`` (and an upload's name) said "give
    --store", an option compare had not (explore39 F2): it reads the store as evaluate does,
    and writes nothing there."""
    from tests.bird_benchmark import V1, bird_answers

    store = str(tmp_path / "store")
    birds, team_a, team_b = tmp_path / "birds.json", tmp_path / "a.json", tmp_path / "b.json"
    birds.write_bytes(V1)
    team_a.write_bytes(bird_answers(1))
    team_b.write_bytes(bird_answers(2))
    recorded = ["evaluate", "--dataset", str(birds), "--answers", str(team_a), "--store", store]
    recorded += ["--dataset-title", "Birds QA", "--output", "json"]
    assert main(recorded) == 0
    run = json.loads(capsys.readouterr().out.splitlines()[0])["experiment"]["id"]
    assert main(["publish", "--store", store, run]) == 0
    assert main(["experiments", "--store", store, "--output", "json"]) == 0
    name = json.loads(capsys.readouterr().out.splitlines()[-1])["datasetUri"].rsplit("/", 1)[1]
    by_name = ["compare", "--dataset", name, "--answers", str(team_a), str(team_b)]
    assert main(by_name) == 1
    assert "with --store DIR" in capsys.readouterr().err
    assert main([*by_name, "--store", store, "--output", "json"]) == 0
    from_store = json.loads(capsys.readouterr().out)
    assert main(["compare", "--dataset", str(birds), "--answers", str(team_a), str(team_b),
                 "--output", "json"]) == 0  # fmt: skip
    from_file = json.loads(capsys.readouterr().out)
    assert from_store["systems"] == from_file["systems"]
    assert main(["experiments", "--store", store, "--output", "json"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1  # nothing recorded

    # a built-in dataset's version that store registered
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))
    ck25 = "text2sparql-2025-ck25"
    graphs = data_dir / "text2sparql2025" / "ck25" / "graphs"
    refresh = ["dataset", "refresh", ck25, "--kb", str(graphs / "prod-inst.ttl")]
    assert main([*refresh, "--store", store, "--output", str(tmp_path / "v.json")]) == 0
    said = capsys.readouterr().out
    [uri] = [line.split(": ", 1)[1] for line in said.splitlines() if line.startswith("registered")]
    version = uri.rsplit("/version/", 1)[1]
    franz = str(data_dir / "text2sparql2025" / "systems" / "FRANZ" / "ck25_answers.json")
    answers = [franz, franz, "--system", "A", "--system", "B", "--profile", "text2sparql"]
    answers += ["--types", "QA", "--output", "json"]
    on_version = ["compare", "--dataset", ck25, "--dataset-version", version, "--answers"]
    on_version += answers
    assert main(on_version) != 0
    assert "give --store" in capsys.readouterr().err
    assert main([*on_version, "--store", store]) == 0
    assert json.loads(capsys.readouterr().out)["dataset"] == f"{ck25} version {version}"


def _qald9_files(tmp_path: Path, data_dir: Path, **made: Any) -> tuple[str, dict[str, str]]:
    """QALD-9 test (or its first ``questions`` of them) and answer files made from its gold
    (as explore43 made them): ``made`` maps a name to ``(right, mode)``; the first ``right``
    questions answered with their gold, the rest ``mode``: ``error`` (a failed call), ``wrong``
    (a wrong IRI) or ``missing`` (left out of the file)."""
    source = data_dir / "qald" / "ag-sc_QALD" / "9" / "data" / "qald-9-test-multilingual.json"
    gold = json.loads(source.read_text(encoding="utf-8"))
    questions = made.pop("questions", None)
    if questions is not None:
        gold["questions"] = gold["questions"][:questions]
        source = tmp_path / f"qald9-{questions}.json"
        source.write_text(json.dumps(gold), encoding="utf-8")
    wrong = {"head": {"vars": ["uri"]}, "results": {"bindings": [
        {"uri": {"type": "uri", "value": "http://example.org/Wrong"}}]}}  # fmt: skip
    paths = {}
    for name, (right, mode) in made.items():
        entries = []
        for i, q in enumerate(gold["questions"]):
            entry = {"id": q["id"], "question": q["question"][:1]}
            if i < right:
                entry["answers"] = q["answers"][:1]
            elif mode == "missing":
                continue
            elif mode == "error":
                entry.update(answers=[], error="timeout")
            else:
                entry["answers"] = [wrong]
            entries.append(entry)
        answers = {"dataset": gold["dataset"], "questions": entries}
        paths[name] = str(tmp_path / f"{name}.json")
        Path(paths[name]).write_text(json.dumps(answers), encoding="utf-8")
    return str(source), paths


def test_the_signature_counts_only_the_pairs_tested(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore43 F2: a system whose Macro F1 QALD is undefined (every call failed) has no test
    against the others; Holm corrected over the one tested pair (p adjusted = p) while the
    signature said ``pairs:3``."""
    dataset, files = _qald9_files(
        tmp_path, data_dir, allerr=(0, "error"), one=(1, "error"), strong=(150, "error")
    )
    argv = ["compare", "--dataset", dataset, "--profile", "exact", "--types", "QA"]
    argv += ["--answers", files["allerr"], files["one"], files["strong"]]
    assert main([*argv, "--measure", "macroF1QALD", "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    tested = [p for p in data["pairs"] if p["pValue"] is not None]
    assert len(data["pairs"]) == 3 and len(tested) == 1
    assert tested[0]["pAdjusted"] == tested[0]["pValue"]  # Holm over one
    assert "|correction:holm|pairs:1|" in data["signature"]


@pytest.mark.parametrize("questions", [1, 5])
def test_too_few_questions_for_any_pair_to_differ_are_said(
    questions: int, tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore43 F1: on the first 1 or 5 questions of QALD-9 test, a system right on all of
    them against one wrong on all: an exact paired test cannot go below 2/2^5 = 0.0625, yet
    both were tier 1 without a word (and a one-question interval [1, 1] looked exact)."""
    dataset, files = _qald9_files(
        tmp_path, data_dir, questions=questions, right=(questions, "wrong"), wrong=(0, "wrong")
    )
    argv = ["compare", "--dataset", dataset, "--profile", "exact", "--types", "QA"]
    argv += ["--answers", files["right"], files["wrong"]]
    for test in ("ar", "bootstrap"):
        assert main([*argv, "--test", test, "--output", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        least = 2 / 2**questions
        said = [w for w in data["warnings"] if w.startswith("the systems differ on at most")]
        assert said == [
            f"the systems differ on at most {questions} of the {questions} question"
            f"{'s' if questions > 1 else ''} compared, where a paired test's smallest "
            f"two-sided p-value is 2/2^{questions} = {least:.3g}, above the 0.05 the first of "
            "1 pair needs: no pair can be found different, so the tiers say nothing"
            + (
                " (the paired bootstrap can give smaller p-values on so few questions; they "
                "do not hold)"
                if test == "bootstrap"
                else ""
            )
        ]
        zero_width = [w for w in data["warnings"] if w.startswith("one question compared")]
        assert len(zero_width) == (questions == 1)
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "gerbil-qa: warning: the systems differ on at most" in err


def test_questions_left_unanswered_are_said_per_system(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore43 F3: ``evaluate`` warns of 50 questions without an answer, compare said nothing
    and showed no failed calls: a gap in coverage read as a difference in quality."""
    dataset, files = _qald9_files(
        tmp_path, data_dir, full=(150, "wrong"), gappy=(100, "missing"), failing=(103, "error")
    )
    argv = ["compare", "--dataset", dataset, "--profile", "exact", "--types", "QA"]
    argv += ["--answers", files["full"], files["gappy"], files["failing"]]
    assert main([*argv, "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    systems = {s["system"]: s for s in data["systems"]}
    assert "answered" not in systems["full"]  # an ordinary system's JSON is what it was
    assert {k: systems["gappy"][k] for k in ("answered", "missing", "errors")} == {
        "answered": 100, "missing": 50, "errors": 0}  # fmt: skip
    assert {k: systems["failing"][k] for k in ("answered", "missing", "errors")} == {
        "answered": 103, "missing": 0, "errors": 47}  # fmt: skip
    [gappy] = [w for w in data["warnings"] if w.startswith("gappy: ")]
    assert gappy.startswith("gappy: 50 of 150 questions have no answer in its file (")
    assert "each is scored as not answered (0)" in gappy  # as evaluate says it
    [failing] = [w for w in data["warnings"] if w.startswith("failing: ")]
    assert failing.startswith("failing: the call failed on 47 of 150 questions (")
    assert main(argv) == 0
    table, err = capsys.readouterr()
    assert "gerbil-qa: warning: gappy: 50 of 150 questions" in err
    assert "gerbil-qa: warning: failing: the call failed on 47" in err
    rows = {line.split()[1]: line for line in table.splitlines()[1:5] if line.strip()}
    assert rows["system"].endswith("answered")
    assert rows["full"].endswith("  all") and rows["gappy"].endswith("  100/150")
    assert rows["failing"].endswith("  103/150 (47 failed)")
    # the CSV counts them as the JSON does (it had no such columns)
    assert main([*argv, "--output", "csv"]) == 0
    written = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(written[0])[-4:] == ["questions", "answered", "missing", "errors"]
    counts = {r["system"]: (r["answered"], r["missing"], r["errors"]) for r in written}
    assert counts == {
        "full": ("150", "0", "0"),
        "gappy": ("100", "50", "0"),
        "failing": ("103", "0", "47"),
    }


@pytest.mark.parametrize("test", ["auto", "bootstrap"])
def test_no_samples_are_refused_as_no_resamples_are(
    test: str, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore43 F5: ``--samples 0`` ran the default 10,000 shuffles (1,000 resamples for the
    bootstrap) without a word, where ``--resamples 0`` and the API's samples 0 are refused."""
    args = [*_args(data_dir)[:6], "--profile", "exact", "--types", "QA", "--test", test]
    assert main([*args, "--samples", "0"]) == 1
    assert capsys.readouterr().err.strip() == "gerbil-qa: samples must be at least 1, not 0"
    assert main([*args, "--resamples", "0"]) == 1
    assert capsys.readouterr().err.strip() == "gerbil-qa: resamples must be at least 1, not 0"
    gold = read(data_dir / "qald" / "ag-sc_QALD" / "8" / "data" / "qald-8-train-multilingual.json")
    folder = data_dir / "system-outputs" / "qald8-train"
    runs = [
        evaluate(gold, system_run(read(folder / f"{s}_QALD8_Train.json"), system=s),
                 profile="exact", experiment_types=["QA"])
        for s in SYSTEMS[:2]
    ]  # fmt: skip
    from service.errors import BadRequest

    with pytest.raises(BadRequest, match="samples must be at least 1, not 0"):
        compare(runs, samples=0, test=test)


def test_a_p_value_at_the_floor_of_its_test_is_printed_as_a_bound(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore43 F7: p = 1/(samples + 1), no shuffle as extreme, was printed "1.0e-04" as if
    measured: it is a bound, "≤ 1.0e-04" (its Holm-adjusted p too), in the table and the
    LaTeX; the JSON keeps the number and says pAtFloor."""
    args = [*_args(data_dir), "--types", "QA"]
    assert main([*args, "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    floored = [p for p in data["pairs"] if p["pAtFloor"]]
    measured = [p for p in data["pairs"] if not p["pAtFloor"]]
    assert floored and measured and all(p["pValue"] == 1 / 10001 for p in floored)
    assert all(p["pValue"] > 1 / 10001 for p in measured)
    assert main(args) == 0
    table = capsys.readouterr().out
    pairs = table.split("p adjusted\n")[1].split("signature:")[0].splitlines()
    for p in data["pairs"]:
        [line] = [x for x in pairs if x.split()[:2] == [p["a"], p["b"]]]
        assert ("≤ 1.0e-04" in line) == p["pAtFloor"], line
    assert main([*args, "--output", "latex"]) == 0
    tex = capsys.readouterr().out
    assert tex.count("$\\le$ 1.0e-04") == len(floored)
    assert main([*args, "--output", "pairs-csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["pAtFloor"] == "true" for r in rows] == [p["pAtFloor"] for p in data["pairs"]]
    # McNemar is exact: never a floor (p = 1.4e-25 printed as it is)
    assert main([*args, "--measure", "accuracy", "--output", "json"]) == 0
    assert not any(p["pAtFloor"] for p in json.loads(capsys.readouterr().out)["pairs"])
