"""What a PolEval 2021 quiz-QA participant tripped over, on the command line as they met it.

Answer files are written here as participants write them: one answer a line, named as they
like (gonito says ``out.tsv``; teams write ``answers.tsv``, ``predictions.tsv``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import DATA
from tests.helpers import gerbil_qa as _cli

DEV0 = DATA / "poleval2021" / "dev-0"

QUESTIONS = ["Litera?", "Odcinek?", "Gdzie?", "Czy?", "Numer?", "Ilu?"]
GOLD = ["alfa", "cięciwa", "w Egipcie", "tak", "102", "czterech\tczworo\t4"]
ANSWERS = ["Alfa", "cieciwa", "Egipt", "Tak.", "nr 102", "cztery"]  # 5 of 6 right


def _first_alternatives(tmp_path: Path) -> Path:
    """A perfect dev-0 answer file: each question's first gold alternative."""
    lines = (DEV0 / "expected.tsv").read_text(encoding="utf-8").splitlines()
    out = tmp_path / "out.tsv"
    out.write_text("".join(line.split("\t")[0] + "\n" for line in lines), encoding="utf-8")
    return out


def _small(tmp_path: Path, answers: list[str], name: str) -> tuple[Path, Path]:
    """A small PolEval dataset (in.tsv beside expected.tsv) and an answer file ``name`` in the
    same folder, as a participant keeps ``dev-0/``."""
    (tmp_path / "in.tsv").write_text("".join(q + "\n" for q in QUESTIONS), encoding="utf-8")
    expected = tmp_path / "expected.tsv"
    expected.write_text("".join(g + "\n" for g in GOLD), encoding="utf-8")
    out = tmp_path / name
    out.write_text("".join(a + "\n" for a in answers), encoding="utf-8")
    return expected, out


def test_a_poleval_dataset_is_scored_with_poleval_unless_another_profile_is_given(
    tmp_path: Path,
) -> None:
    # Before, the default profile was fair wherever none was given: the run failed (no English
    # question), and with --lang pl fair scored a perfect answer file 0.89 (every alternative a
    # gold answer to find); the run page chose poleval with the dataset, the CLI and API not
    out = _first_alternatives(tmp_path)
    done = _cli("evaluate", "--dataset", "poleval-2021-qa-dev-0", "--answers", str(out))
    assert done.returncode == 0, done.stderr
    assert "profile: poleval " in done.stdout and "language: pl" in done.stdout, done.stdout
    # fair named: the refusal without --lang points to poleval
    base = ("evaluate", "--dataset", "poleval-2021-qa-dev-0", "--answers", str(out))
    fair = _cli(*base, "--profile", "fair")
    assert fair.returncode == 1
    assert "--profile poleval" in fair.stderr, fair.stderr


def test_alternatives_scored_as_a_set_are_warned(tmp_path: Path) -> None:
    out = _first_alternatives(tmp_path)
    base = ("evaluate", "--dataset", "poleval-2021-qa-dev-0", "--answers", str(out))
    fair = _cli(*base, "--profile", "fair", "--lang", "pl", "--output", "json")
    assert fair.returncode == 0, fair.stderr
    result = json.loads(fair.stdout)
    assert result["results"]["QA"]["accuracy"] < 1.0  # what the warning explains
    said = [w for w in result["warnings"] if "alternative" in w]
    assert len(said) == 1 and "--profile poleval" in said[0], result["warnings"]
    assert "110 questions" in said[0]  # dev-0 lines with more than one alternative
    table = _cli(*base, "--profile", "fair", "--lang", "pl")  # on stderr, in the singular
    assert "gerbil-qa: out: 1 warning\n" in table.stderr and "--profile poleval" in table.stderr
    poleval = json.loads(_cli(*base, "--profile", "poleval", "--output", "json").stdout)
    assert poleval["results"]["QA"]["accuracy"] == 1.0
    assert not [w for w in poleval["warnings"] if "alternative" in w]


def test_an_answer_file_of_any_name_is_read_as_answers(tmp_path: Path) -> None:
    # answers.tsv beside in.tsv was read as a gold file: a short one was blamed on in.tsv
    expected, short = _small(tmp_path, ANSWERS[:5], "answers.tsv")
    done = _cli(
        "evaluate", "--dataset", str(expected), "--answers", str(short), "--profile", "poleval"
    )
    assert done.returncode == 1
    assert f"{short}:6:1: error: 5 answer lines for 6 questions" in done.stderr, done.stderr
    assert "in.tsv has" not in done.stderr
    # elsewhere, it was warned for having no in.tsv beside it and its tab went unsaid
    elsewhere = tmp_path / "runs"
    elsewhere.mkdir()
    tabbed = elsewhere / "predictions.tsv"
    tabbed.write_text("".join(a + "\t0.9\n" if i == 0 else a + "\n" for i, a in enumerate(ANSWERS)))
    done = _cli(
        *("evaluate", "--dataset", str(expected), "--answers", str(tabbed)),
        *("--profile", "poleval", "--output", "json"),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["results"]["QA"]["accuracy"] == 4 / 6  # "Alfa<TAB>0.9" is one wrong answer
    assert not [w for w in result["warnings"] if "in.tsv" in w], result["warnings"]
    assert [w for w in result["warnings"] if "predictions.tsv:1:5" in w and "a tab" in w]


def test_hand_scored_polish_answers(tmp_path: Path) -> None:
    # Each outcome recomputed by the PolEval rules: lower-cased Levenshtein within half the
    # gold's length, else the extracted number; the best alternative counts.
    expected, out = _small(tmp_path, ANSWERS, "out.tsv")
    done = _cli(
        *("evaluate", "--dataset", str(expected), "--answers", str(out)),
        *("--profile", "poleval", "--output", "json"),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    f1 = [q["QA"]["f1"] for q in result["questions"]]
    # "Egipt" is 5 edits from "w egipcie" (9 characters, half 4.5): wrong
    assert f1 == [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    # and the JSON says why: before, only tp/fp/fn, and a participant guessed
    why = {q["id"]: q.get("why") for q in result["questions"]}
    assert why["3"] == "w Egipcie: 5 edits, more than half of its 9 characters"
    assert [qid for qid, said in why.items() if said] == ["3"]
    assert result["results"]["QA"]["accuracy"] == 5 / 6


def test_why_a_polish_answer_is_wrong() -> None:
    from service.evaluation.matchers.poleval import why_not

    # only "1" is read from "1 000": geval's number pattern stops at the space
    assert why_not("1 000", ["1000"]) == "1000: number 1 in the answer, not 1000"
    assert why_not("nie", ["1410"]) == "1410: no number in the answer (the gold's is 1410)"
    assert why_not("U.S.A.", ["USA"]) == "USA: 3 edits, more than half of its 3 characters"
    assert why_not("Tak.", ["tak"]) is None  # 1 edit of 3: right, nothing to explain


def test_a_windows_unicode_answer_file_is_named_as_utf16(tmp_path: Path) -> None:
    expected, _ = _small(tmp_path, ANSWERS, "out.tsv")
    utf16 = tmp_path / "runs-utf16.tsv"
    utf16.write_bytes("".join(a + "\r\n" for a in ANSWERS).encode("utf-16"))
    done = _cli(
        "evaluate", "--dataset", str(expected), "--answers", str(utf16), "--profile", "poleval"
    )
    assert done.returncode == 1
    assert (
        f"{utf16}:1:1: error: the file is not valid UTF-8 (byte 0xff): it is UTF-16" in done.stderr
    )
    assert "save it as UTF-8" in done.stderr


def test_bom_and_crlf_answer_files_score_as_plain_ones(tmp_path: Path) -> None:
    expected, _ = _small(tmp_path, ANSWERS, "out.tsv")
    windows = tmp_path / "out-windows.tsv"
    windows.write_bytes(b"\xef\xbb\xbf" + "".join(a + "\r\n" for a in ANSWERS).encode("utf-8"))
    done = _cli(
        *("evaluate", "--dataset", str(expected), "--answers", str(windows)),
        *("--profile", "poleval", "--output", "json"),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"]["QA"]["accuracy"] == 5 / 6


def test_the_in_tsv_beside_expected_tsv_is_kept_exported_and_rescored(tmp_path: Path) -> None:
    # before, only expected.tsv was kept: an export carried no question texts, and a rescore
    # or an import read the kept expected.tsv alone (its questions had no text)
    import hashlib
    import tarfile

    from service.graph.store import open_storage

    expected, out = _small(tmp_path, ANSWERS, "out.tsv")
    store = str(tmp_path / "store")
    done = _cli(
        *("evaluate", "--dataset", str(expected), "--answers", str(out)),
        *("--profile", "poleval", "--store", store, "--output", "json"),
    )
    assert done.returncode == 0, done.stderr
    experiment = json.loads(done.stdout)["experiment"]["id"]
    in_sha = hashlib.sha256((tmp_path / "in.tsv").read_bytes()).hexdigest()
    with open_storage(store, base=None) as storage:
        spec = json.loads(storage.experiments.spec_of(experiment))
        assert spec["dataset"]["questions"]["sha256"] == in_sha  # named in the kept spec
        titles = {
            row["t"].value: row["r"].value
            for row in storage.store.private.query(
                "SELECT ?t ?r WHERE { GRAPH ?g { ?f <http://purl.org/dc/terms/title> ?t ; "
                "<http://w3id.org/gerbil/qa/vocab#fileRole> ?r } }"
            )
        }
    assert titles == {"expected.tsv": "dataset", "in.tsv": "questions", "out.tsv": "answers"}
    backup = tmp_path / "backup.tar.gz"
    exported = _cli("export", "--store", store, "--files", "--output", str(backup))
    assert exported.returncode == 0, exported.stderr
    with tarfile.open(backup) as tar:
        assert any(name.endswith(f"files/{in_sha}") for name in tar.getnames()), tar.getnames()
    other = str(tmp_path / "imported")
    assert _cli("import", "--store", other, str(backup)).returncode == 0
    (tmp_path / "in.tsv").unlink()  # the imported store reads its own copy
    rescored = _cli("rescore", experiment, "--store", other, "--output", "json")
    assert rescored.returncode == 0, rescored.stderr
    assert "no in.tsv" not in rescored.stdout + rescored.stderr


def test_a_tsv_dataset_file_is_scored_with_poleval_unless_another_profile_is_given(
    tmp_path: Path,
) -> None:
    # `--dataset expected.tsv` (the README's form) was scored with fair and language en: a
    # perfect file 0.89, while the catalogue's name for the same data chose poleval
    expected, out = _small(tmp_path, ANSWERS[:6], "out.tsv")
    done = _cli("evaluate", "--dataset", str(expected), "--answers", str(out), "--output", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["profile"] == "poleval"
    assert result["results"]["QA"]["accuracy"] == pytest.approx(5 / 6)  # "Egipt" is wrong
    # fair named: refused without --lang pl, as the built-in name is; before, the file's
    # texts took fair's language and it was scored and labelled "language: en" (explore-15 3)
    fair = _cli("evaluate", "--dataset", str(expected), "--answers", str(out), "--profile", "fair")
    assert fair.returncode == 1, fair.stdout
    assert "none has text in language 'en'" in fair.stderr, fair.stderr
    assert "it has questions in pl" in fair.stderr and "--profile poleval" in fair.stderr
    polish = _cli(
        *("evaluate", "--dataset", str(expected), "--answers", str(out)),
        *("--profile", "fair", "--lang", "pl"),
    )
    assert polish.returncode == 0, polish.stderr
    assert "profile: fair " in polish.stdout and "language: pl" in polish.stdout, polish.stdout
    assert "--profile poleval" in polish.stderr  # alternatives counted apart: warned
    # without its in.tsv no text says the language: it was scored and labelled "en"
    (tmp_path / "in.tsv").unlink()
    alone = _cli("evaluate", "--dataset", str(expected), "--answers", str(out), "--profile", "fair")
    assert alone.returncode == 1, alone.stdout
    assert "read as 'pl'" in alone.stderr and "--lang pl" in alone.stderr, alone.stderr
    assert "--profile poleval" in alone.stderr
    named = _cli(
        *("evaluate", "--dataset", str(expected), "--answers", str(out)),
        *("--profile", "fair", "--lang", "pl"),
    )
    assert named.returncode == 0 and "language: pl" in named.stdout, named.stderr


def test_system_run_asks_a_service_the_questions_of_an_expected_tsv_in_polish(
    tmp_path: Path,
) -> None:
    """`system run --dataset expected.tsv` read no in.tsv beside it and asked in English: "--lang
    pl: the dataset has no question in pl; its languages: none" (explore28 F17). It reads the
    texts as `evaluate` does, in the language of the profile made for TSV (poleval: pl)."""
    from tests.helpers import qa_service

    asked: list[str] = []

    def answer(text: str) -> list[object]:
        asked.append(text)
        value = GOLD[QUESTIONS.index(text)].split("\t")[0]
        binding = {"x": {"type": "literal", "value": value}}
        return [{"head": {"vars": ["x"]}, "results": {"bindings": [binding]}}]

    expected, _ = _small(tmp_path, ANSWERS, "out.tsv")
    output = tmp_path / "service.json"
    with qa_service(answer) as url:
        port = url.split(":")[2].split("/")[0]
        done = _cli(
            *("system", "run", url, "--dataset", str(expected), "--name", "echo"),
            *("--allow", f"127.0.0.1:{port}", "--output", str(output)),
        )
    assert done.returncode == 0, done.stderr
    assert sorted(asked) == sorted(QUESTIONS)
    assert "6 questions: 6 asked, 0 failed" in done.stdout, done.stdout
    scored = _cli("evaluate", "--dataset", str(expected), "--answers", str(output))
    assert scored.returncode == 0, scored.stderr
    # the column is as wide as its widest value: a mean runtime of 10 ms or more (a loaded
    # machine) widened it by one
    assert "language: pl" in scored.stdout
    assert re.search(r"^accuracy +1\.0000$", scored.stdout, re.M), scored.stdout
