"""The answer and question limits on the command line: ``gerbil-qa validate`` and ``evaluate``
refuse a file past ``--max-answers-per-question`` / ``--max-answers-per-file`` /
``--max-questions-per-file`` (or the ``GERBIL_QA_MAX_*`` variables) naming file, position,
question and limit; a real ``gerbil-qa`` process each time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.paths import DEMO_DIR

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = DEMO_DIR / "questions.json"


def gerbil_qa(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GERBIL_QA_MAX_")}
    environ["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "service", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**environ, **(env or {})},
        cwd=ROOT,
    )


@pytest.fixture(scope="module")
def big_answers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's strong answers with the first question answered 50 times (50 bindings)."""
    doc = json.loads((DEMO_DIR / "answers-strong.json").read_text())
    bindings = doc["questions"][0]["answers"][0]["results"]["bindings"]
    var = next(iter(bindings[0]))
    doc["questions"][0]["answers"][0]["results"]["bindings"] = [
        {var: {"type": "uri", "value": f"http://example.org/answer/{i}"}} for i in range(50)
    ]
    path = tmp_path_factory.mktemp("limits") / "big.json"
    path.write_text(json.dumps(doc, indent=1))
    return path


def test_validate_with_and_without_the_limit(big_answers: Path) -> None:
    assert gerbil_qa("validate", str(big_answers)).returncode == 0
    done = gerbil_qa("validate", str(big_answers), "--max-answers-per-question", "49")
    assert done.returncode == 1
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"{big_answers}:"), first  # file:line:column
    assert "has 50 answers" in first
    # the option set it, so it is named (the variable was, explore39 F9)
    assert "at most 49 answers per question (--max-answers-per-question)" in first
    assert (
        gerbil_qa("validate", str(big_answers), "--max-answers-per-question", "50").returncode == 0
    )


def test_validate_reads_the_environment(big_answers: Path) -> None:
    done = gerbil_qa("validate", str(big_answers), env={"GERBIL_QA_MAX_ANSWERS_PER_FILE": "20"})
    assert done.returncode == 1
    assert "at most 20 answers per file (GERBIL_QA_MAX_ANSWERS_PER_FILE)" in done.stdout
    # the option wins over the variable
    done = gerbil_qa(
        "validate",
        str(big_answers),
        "--max-answers-per-file",
        "1000",
        env={"GERBIL_QA_MAX_ANSWERS_PER_FILE": "20"},
    )
    assert done.returncode == 0, done.stdout
    bad = gerbil_qa("validate", str(big_answers), env={"GERBIL_QA_MAX_ANSWERS_PER_FILE": "x"})
    assert bad.returncode == 1 and "GERBIL_QA_MAX_ANSWERS_PER_FILE" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_evaluate_refuses_the_answers_file(big_answers: Path) -> None:
    argv = ["evaluate", "--dataset", str(QUESTIONS), "--answers", str(big_answers)]
    assert gerbil_qa(*argv, "--profile", "exact").returncode == 0
    done = gerbil_qa(*argv, "--profile", "exact", "--max-answers-per-question", "10")
    assert done.returncode == 1
    assert done.stdout == ""
    assert f"gerbil-qa: {big_answers}:" in done.stderr
    assert "at most 10 answers per question" in done.stderr and "Traceback" not in done.stderr
    one = gerbil_qa(*argv, "--profile", "exact", "--max-answers-per-question", "1")
    assert "(expected at most 1 answer per question (--max-answers-per-question))" in one.stderr
    refused = gerbil_qa(*argv, "--max-answers-per-question", "0")
    assert refused.returncode == 2 and "expected a whole number ≥ 1" in refused.stderr


def test_evaluate_refuses_a_file_with_too_many_questions(tmp_path: Path) -> None:
    """The demo's 14 questions past a limit of 13: exit 1 before anything is scored or
    recorded (with a store given, nothing is recorded there)."""
    store = tmp_path / "store"
    argv = ["evaluate", "--dataset", str(QUESTIONS), "--answers", str(QUESTIONS)]
    done = gerbil_qa(*argv, "--store", str(store), "--max-questions-per-file", "13")
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert f"gerbil-qa: {QUESTIONS}:" in done.stderr  # file:line:column
    assert "the file has 14 questions, more than the limit per file" in done.stderr
    assert "at most 13 questions per file (--max-questions-per-file)" in done.stderr
    assert "Traceback" not in done.stderr and "recorded experiment" not in done.stderr
    by_env = gerbil_qa(*argv, env={"GERBIL_QA_MAX_QUESTIONS_PER_FILE": "13"})
    assert by_env.returncode == 1
    assert "at most 13 questions per file (GERBIL_QA_MAX_QUESTIONS_PER_FILE)" in by_env.stderr
    assert gerbil_qa(*argv, "--max-questions-per-file", "14").returncode == 0
