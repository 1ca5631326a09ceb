"""``gerbil-qa evaluate`` and ``gerbil-qa profiles`` run in-process on small files."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import main
from service.evaluation import PROFILES

DBR = "http://dbpedia.org/resource/"


def qald(questions: list[tuple[str, list[str]]]) -> str:
    return json.dumps(
        {
            "dataset": {"id": "tiny"},
            "questions": [
                {
                    "id": qid,
                    "question": [{"language": "en", "string": f"Question {qid}?"}],
                    "answers": [
                        {
                            "head": {"vars": ["uri"]},
                            "results": {
                                "bindings": [{"uri": {"type": "uri", "value": DBR + v}} for v in vs]
                            },
                        }
                    ],
                }
                for qid, vs in questions
            ],
        }
    )


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    out = {
        "gold": tmp_path / "gold.json",
        "good": tmp_path / "good.json",
        "half": tmp_path / "half.json",
        "kb": tmp_path / "kb.ttl",
    }
    out["gold"].write_text(qald([("1", ["A", "B"]), ("2", ["C"])]), encoding="utf-8")
    out["good"].write_text(qald([("1", ["A", "B"]), ("2", ["C"])]), encoding="utf-8")
    out["half"].write_text(qald([("1", ["A", "X"]), ("2", ["D"])]), encoding="utf-8")
    out["kb"].write_text(
        f"<{DBR}D> <http://www.w3.org/2002/07/owl#sameAs> <{DBR}C> .\n", encoding="utf-8"
    )
    return out


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_output_is_the_contract(files: dict[str, Path], capsys: pytest.CaptureFixture[str]):
    code, out, err = run_cli(
        ["evaluate", "--dataset", str(files["gold"]), "--answers", str(files["half"]),
         "--output", "json"], capsys,
    )  # fmt: skip
    assert code == 0 and "[#" not in err  # no progress bar when stderr is not a terminal
    (line,) = out.splitlines()
    result = json.loads(line)
    assert (result["dataset"], result["system"], result["profile"]) == ("tiny", "half", "fair")
    qa = result["results"]["QA"]
    assert qa["macroPrecision"] == pytest.approx(0.25) and qa["questions"] == 2
    assert qa["meanRuntime"] is None  # JSON null
    assert [q["QA"]["tp"] for q in result["questions"]] == [1, 0]


def test_several_answer_files_give_json_lines(files: dict[str, Path], capsys) -> None:
    code, out, _ = run_cli(
        ["evaluate", "--dataset", str(files["gold"]), "--answers", str(files["good"]),
         "--answers", str(files["half"]), "--system", "Good", "--output", "json",
         "--profile", "exact"], capsys,
    )  # fmt: skip
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["system"] for r in results] == ["Good", "half"]
    assert [r["results"]["QA"]["microF1"] for r in results] == [1.0, pytest.approx(1 / 3)]


def test_table_shows_measures_and_signature(files: dict[str, Path], capsys) -> None:
    code, out, _ = run_cli(
        ["evaluate", "--dataset", str(files["gold"]), "--answers", str(files["half"]),
         "--profile", "qald6"], capsys,
    )  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("dataset: tiny   system: half   profile: qald6 1.2.0")
    assert lines[1].split() == ["measure", "QA"]
    rows = {line.split()[0]: line.split()[1] for line in lines[2:-1]}
    assert rows["processedMacroF1"] and rows["meanRuntime"] == "n/a"
    assert lines[-1] == f"signature: {PROFILES['qald6'].signature}"
    assert len({len(line) for line in lines[1:-1]}) == 1  # aligned columns


def test_csv_has_one_row_per_type_and_measure(files: dict[str, Path], capsys) -> None:
    code, out, _ = run_cli(
        ["evaluate", "--dataset", str(files["gold"]), "--answers", str(files["half"]),
         "--output", "csv", "--profile", "exact"], capsys,
    )  # fmt: skip
    assert code == 0
    # RFC 4180 §2.1, as every CSV the web serves (one writer: service/csv_table.py); was LF
    assert out.endswith("\r\n") and out.count("\n") == out.count("\r\n") > 1
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["type"] for r in rows} == {"QA"}
    f1 = next(r for r in rows if r["measure"] == "microF1")
    assert float(f1["value"]) == pytest.approx(1 / 3) and f1["signature"].startswith("gerbil-qa")
    assert next(r for r in rows if r["measure"] == "meanRuntime")["value"] == ""


def test_kb_file_changes_the_score_and_the_signature(files: dict[str, Path], capsys) -> None:
    args = ["evaluate", "--dataset", str(files["gold"]), "--answers", str(files["half"])]
    args += ["--output", "json", "--profile", "fair"]
    without = json.loads(run_cli(args, capsys)[1])
    with_kb = json.loads(
        run_cli([*args, "--kb", str(files["kb"]), "--kb-version", "v1"], capsys)[1]
    )
    assert without["results"]["QA"]["microF1"] < with_kb["results"]["QA"]["microF1"]
    assert with_kb["kb"].startswith("file:sha256:") and with_kb["kb"].endswith("(v1)")
    assert with_kb["signature"].split("|")[-1].startswith("kb:file:sha256:")
    assert without["signature"].endswith("|kb:none")


def test_bad_input_is_a_clear_error(files: dict[str, Path], capsys) -> None:
    code, _, err = run_cli(
        ["evaluate", "--dataset", str(files["gold"]), "--answers", str(files["half"]),
         "--profile", "nope"], capsys,
    )  # fmt: skip
    assert code == 1 and "unknown scorer profile 'nope'" in err
    broken = files["half"].with_name("broken.json")
    broken.write_text("{", encoding="utf-8")
    code, _, err = run_cli(
        ["evaluate", "--dataset", str(files["gold"]), "--answers", str(broken)], capsys
    )
    assert code == 1 and "broken.json" in err


def test_a_profile_that_scores_none_of_the_types_asked_is_refused_saying_so(
    files: dict[str, Path], capsys
) -> None:
    """qald6 (QA alone) with --types C2KB left every type out and stopped with a false "every
    question was skipped: none has text in language 'en'" (explore39 F3)."""
    base = ["evaluate", "--dataset", str(files["gold"]), "--answers", str(files["half"])]
    for profile, types in (("qald6", "C2KB"), ("qald-legacy", "AT")):
        code, _, err = run_cli([*base, "--profile", profile, "--types", types], capsys)
        assert code == 1, err
        assert f"the {profile} profile scores only QA, so {types} would score nothing" in err
        assert "language" not in err and "fair" in err  # a profile that scores it
    # QA beside it: scored, the other type left out with a warning, as before
    from service.paths import DEMO_DIR

    demo = ["evaluate", "--dataset", str(DEMO_DIR / "questions.json")]  # it has gold queries
    demo += ["--answers", str(DEMO_DIR / "answers-partial.json")]
    code, _, err = run_cli([*demo, "--profile", "qald6", "--types", "QA,C2KB"], capsys)
    assert code == 0 and "the qald6 profile scores only QA; C2KB is left out" in err, err


def test_a_web_service_url_as_answers_says_how_to_ask_it(files: dict[str, Path], capsys) -> None:
    # a QA system's developer expects evaluate to call the service; it said "cannot read the
    # file: No such file or directory"
    url = "http://127.0.0.1:8000/qa"
    code, _, err = run_cli(["evaluate", "--dataset", str(files["gold"]), "--answers", url], capsys)
    assert code == 1
    assert (
        f"--answers {url}: answer files are read, never called; to ask a QA web service, run "
        f"gerbil-qa system run {url} --dataset DATASET --output answers.json, then evaluate "
        "answers.json (or submit the URL to the web service's API)"
    ) in err, err


def test_a_tsv_answer_file_with_a_header_line_is_refused(files: dict[str, Path], capsys) -> None:
    # Before: TSV numbers questions by line, so a header ("id<TAB>answer") was question 1's
    # answers, every answer after it one question off and the last line an unknown question
    gold = str(files["gold"])
    answers = files["gold"].with_name("answers.tsv")
    answers.write_text("A\tB\nC\n", encoding="utf-8")
    code, _, err = run_cli(["evaluate", "--dataset", gold, "--answers", str(answers)], capsys)
    assert code == 0, err
    answers.write_text("id\tanswer\nA\tB\nC\n", encoding="utf-8")
    code, _, err = run_cli(["evaluate", "--dataset", gold, "--answers", str(answers)], capsys)
    assert code == 1
    said = "answers.tsv:1:1: error: line 1 looks like a header (`id  answer`): TSV answer files "
    assert said + "have no header; remove it (expected " in err, err
    out = files["gold"].with_name("out.tsv")  # gonito's one answer a line
    out.write_text("Question_ID\nA\nC\n", encoding="utf-8")
    code, _, err = run_cli(["evaluate", "--dataset", gold, "--answers", str(out)], capsys)
    assert code == 1 and "out.tsv:1:1: error: line 1 looks like a header (`Question_ID`)" in err
    # a word that is one of the dataset's question ids is not taken for a header
    worded = files["gold"].with_name("worded.json")
    worded.write_text(qald([("id", ["A"]), ("2", ["C"])]), encoding="utf-8")
    answers.write_text("id\nC\n", encoding="utf-8")
    code, _, err = run_cli(
        ["evaluate", "--dataset", str(worded), "--answers", str(answers)], capsys
    )
    assert code == 0, err


def test_profiles_lists_every_profile(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["profiles"], capsys)
    assert code == 0
    for profile in PROFILES.values():
        assert f"{profile.name} {profile.version}" in out
        assert profile.iri in out and profile.signature in out
    assert "fair 1.4.0 (default)" in out


def test_evaluate_imports_neither_rdflib_nor_pyoxigraph(files: dict[str, Path]) -> None:
    script = (
        "import sys, io, contextlib\n"
        "from service.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['evaluate', '--dataset', {str(files['gold'])!r},"
        f" '--answers', {str(files['half'])!r}])\n"
        "print(code, 'rdflib' in sys.modules, 'pyoxigraph' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["0", "False", "False"]


def test_collector_off_while_evaluate_runs_and_as_it_was_after(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # main() pauses the cyclic collector for the command; called with an argv (not as the
    # process's own command line) it freezes nothing and turns the collector back on
    import gc

    import service.cli.evaluate as evaluate_cli

    seen: list[bool] = []
    real_emit = evaluate_cli.emit

    def emit(*args: object, **kwargs: object) -> None:
        seen.append(gc.isenabled())
        real_emit(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(evaluate_cli, "emit", emit)
    frozen = gc.get_freeze_count()
    code, _, _ = run_cli(
        ["evaluate", "--dataset", str(files["gold"]), "--answers", str(files["half"])], capsys
    )
    assert code == 0 and seen == [False]
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_as_the_process_command_line_objects_are_frozen_for_the_exit(
    files: dict[str, Path],
) -> None:
    # main() without argv is the console script: the process exits next, and its last full
    # collection need not walk the objects left
    script = (
        "import gc, sys, io, contextlib\n"
        f"sys.argv = ['gerbil-qa', 'evaluate', '--dataset', {str(files['gold'])!r},"
        f" '--answers', {str(files['half'])!r}]\n"
        "from service.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = main()\n"
        "print(code, gc.get_freeze_count() > 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["0", "True"]
