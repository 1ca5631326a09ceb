"""What a walk through the less-walked catalogue datasets (LC-QuAD 1.0, QALD-10, NLQ, PolEval)
found on the command line, each run as a user runs it."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from tests.conftest import DATA
from tests.helpers import gerbil_qa as _cli

ROOT = Path(__file__).resolve().parents[2]
LCQUAD_TEST = DATA / "lcquad1" / "test-data.json"


def _readme_command(start: str) -> list[str]:
    """The README's command that begins with ``start`` (it may wrap over lines)."""
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    found = re.search(rf"`({re.escape(start)}[^`]*)`", text)
    assert found, start
    return shlex.split(found[1])


def test_lcquad_is_scored_on_what_its_gold_queries_mark(tmp_path: Path) -> None:
    # `--types C2KB,P2KB,RE2KB` was refused for "no gold answers", though these compare queries
    argv = _readme_command("gerbil-qa evaluate --dataset lc-quad-1-test")
    assert "--types" in argv and "--by" in argv
    argv = [str(LCQUAD_TEST) if a == "answers.json" else a for a in argv[1:]]
    # offline: from the mirror alone, with an empty download cache
    done = _cli(*argv, GERBIL_QA_CACHE=str(tmp_path / "cache"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].split() == ["measure", "C2KB", "P2KB", "RE2KB"]
    assert "questions           1000    1000    1000" in lines
    # the README's slice block: LC-QuAD's template ids, measured on C2KB (QA is not scored)
    header = next(i for i, line in enumerate(lines) if line.startswith("by extra:"))
    assert lines[header].split()[:3] == ["by", "extra:sparql_template_id", "(C2KB)"]
    block = lines[header + 1 : -1]
    # the block ends saying that slices carry no interval (explore43 F6)
    assert block[-1].startswith("slice values carry no interval and no test"), block[-1]
    rows = {line.split()[0]: line.split()[1:] for line in block[:-1]}
    assert rows["1"] == ["30", "1.0000", "1.0000", "1.0000"]
    # the template ids by number (before as text: 1, 101, 102, …, 11, 111, 15, …, 2)
    assert list(rows) == sorted(rows, key=int) and list(rows).index("2") == 1, list(rows)
    assert sum(int(r[0]) for r in rows.values()) == 1000
    assert not (tmp_path / "cache").exists()


def test_the_gold_a_dataset_needs_depends_on_the_types_asked(tmp_path: Path) -> None:
    qa = _cli("evaluate", "--dataset", "lc-quad-1-test", "--answers", str(LCQUAD_TEST))
    assert qa.returncode == 1 and "the dataset has no gold answers" in qa.stderr
    assert "--types C2KB,P2KB,RE2KB,AIT2KB" in qa.stderr  # says what can be scored instead
    at = _cli("evaluate", "--dataset", "lc-quad-1-test", "--answers", str(LCQUAD_TEST),
              "--types", "AT")  # fmt: skip
    assert at.returncode == 1 and "the dataset has no gold answers" in at.stderr
    # QA beside C2KB: refused too, naming what can run (before: a QA task of "undef.")
    both = _cli("evaluate", "--dataset", "lc-quad-1-test", "--answers", str(LCQUAD_TEST),
                "--types", "QA,C2KB,AT")  # fmt: skip
    assert both.returncode == 1, both.stdout
    assert "no gold answers, so QA, AT cannot be scored" in both.stderr, both.stderr
    assert "score the others alone: --types C2KB" in both.stderr
    # questions without answers or queries: nothing a query-level type compares either
    bare = tmp_path / "bare.json"
    question = {"id": "1", "question": [{"language": "en", "string": "Who?"}]}
    bare.write_text(json.dumps({"questions": [question]}), encoding="utf-8")
    c2kb = _cli("evaluate", "--dataset", str(bare), "--answers", str(bare), "--types", "C2KB")
    assert c2kb.returncode == 1
    assert "no gold queries or annotations, so C2KB cannot be scored" in c2kb.stderr


def test_qald10_answer_types_say_why_they_are_not_scored() -> None:
    # a table of n/a ("questions 0, skippedQuestions 394") and no reason but in the JSON's
    # per-question statuses (no-gold): QALD-10 gives no answer types
    qald10 = DATA / "qald" / "KGQA_QALD-10" / "data" / "qald_10" / "qald_10.json"
    done = _cli("evaluate", "--dataset", "qald-10-test", "--answers", str(qald10), "--types", "AT")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "skippedQuestions  394" in lines
    said = "AT: no question was scored: the dataset gives no answer types"
    assert said in lines
    as_json = _cli("evaluate", "--dataset", "qald-10-test", "--answers", str(qald10),
                   "--types", "QA,AT", "--output", "json")  # fmt: skip
    warnings = json.loads(as_json.stdout)["warnings"]
    assert f"qald-10-test: warning: {said}" in warnings
    assert not [w for w in warnings if "QA: no question" in w]  # QA was scored


def test_a_recorded_experiment_names_its_files_without_the_servers_folders(
    tmp_path: Path,
) -> None:
    # NLQ's own file as the answers: its reader's warnings were stored in the experiment's graph
    # as '/work/shared/data/qald/NLIWOD/nlq1_vis.json:450:2: … empty question id'
    nlq = DATA / "qald" / "NLIWOD" / "nlq1_vis.json"
    store = str(tmp_path / "store")
    done = _cli("evaluate", "--dataset", "nlq-shared-task-1", "--answers", str(nlq),
                "--store", store)  # fmt: skip
    assert done.returncode == 0, done.stderr
    exported = _cli("export", "--store", store)
    comments = [line for line in exported.stdout.splitlines() if "rdf-schema#comment" in line]
    assert any('"nlq1_vis.json:450:2: $[56]' in line for line in comments), comments
    assert not [line for line in comments if str(DATA) in line]
