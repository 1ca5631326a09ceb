"""The dispatcher imports only the command module(s) a command needs, and its table is true."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from service.cli import COMMAND_MODULES, COMMANDS, build_parser, main


def _registered(module: str) -> set[str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    importlib.import_module(module).register(sub)
    return set(sub.choices)


@pytest.mark.parametrize("module", COMMAND_MODULES)
def test_command_table_matches_what_each_module_registers(module: str) -> None:
    claimed = {cmd for cmd, modules in COMMANDS.items() if module in modules}
    assert _registered(module) == claimed


def test_every_table_entry_names_a_known_module() -> None:
    assert {m for modules in COMMANDS.values() for m in modules} == set(COMMAND_MODULES)


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert all(cmd in out for cmd in COMMANDS)


def _every_parser(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                out += _every_parser(child)
    return out


def test_every_help_says_the_defaults_worth_saying() -> None:
    """Defaults were in the code alone (`system serve`'s port 8000, 16 threads; `system run`'s
    60 s timeout, 2 retries; explore39 F6): every command's help says each, and never a
    default of nothing."""
    helps = {p.prog: p.format_help() for p in _every_parser(build_parser())}
    serve = " ".join(helps["gerbil-qa system serve"].split())
    assert "port to listen on (default: 8000)" in serve
    assert "worker threads (default: 16)" in serve
    run = " ".join(helps["gerbil-qa system run"].split())
    assert "(default: 60.0)" in run and "(default: 2)" in run and "(default: 4)" in run
    rescore = " ".join(helps["gerbil-qa rescore"].split())
    assert "output format (default: table)" in rescore
    for prog, text in helps.items():
        flat = " ".join(text.split())
        for nothing in ("(default: None)", "(default: )", "(default: False)", "(default: [])"):
            assert nothing not in flat, prog


def test_leaderboard_help_says_a_removed_board_is_gone() -> None:
    """A removed board's URI answers 410 Gone (an id never frozen 404), which the help said
    was 404 (explore56 F6)."""
    helps = {p.prog: p.format_help() for p in _every_parser(build_parser())}
    said = " ".join(helps["gerbil-qa leaderboard"].split())
    assert "A removed one's URI answers 410 Gone" in said
    assert "removed one's URI answers 404" not in said


def test_resume_keeps_the_runs_own_timeout_unless_given() -> None:
    """`resume --timeout` defaulted to 60 s, replacing the seconds per call a run was
    submitted with (`--timeout 300` resumed at 60 s unasked; explore40 F9): no default, the
    run's own, and the help says so."""
    args = build_parser(["resume", "x"]).parse_args(["resume", "--store", "s", "20261129 0001"])
    assert args.timeout is None
    given = build_parser(["resume", "x"]).parse_args(
        ["resume", "--store", "s", "--timeout", "300", "x"]
    )
    assert given.timeout == 300.0
    helps = {p.prog: p.format_help() for p in _every_parser(build_parser())}
    said = " ".join(helps["gerbil-qa resume"].split())
    assert "seconds per call (default: the run's own" in said and "60.0" not in said


def test_parser_for_a_command_holds_only_that_area() -> None:
    parser = build_parser(["validate", "x.json"])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {"validate", "convert"}


def test_evaluate_does_not_import_other_areas() -> None:
    code = (
        "import sys\n"
        "from service.cli import build_parser\n"
        "build_parser(['evaluate', '--help-not-parsed'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('service.cli.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['service.cli.evaluate']"


def test_an_uploaded_name_is_ascii_and_a_stored_unicode_one_is_still_run_by_name() -> None:
    from service.cli.evaluate import dataset_source
    from service.experiments.spec import CatalogueDataset
    from service.graph.results import uploaded_dataset_name

    digest = "7e7b546f" * 8
    # "żółw-pytań-…" was made, and nothing took it back; runs of "-" were kept
    assert uploaded_dataset_name("Żółw pytań", digest) == "zolw-pytan-7e7b546f"
    assert uploaded_dataset_name("Birds & Bees 100% {QA}", digest) == "birds-bees-100-qa-7e7b546f"
    # a name made before stays a name a store holds: --dataset still takes it
    old = "żółw-pytań-7e7b546f"
    assert dataset_source(old, stored=True) == CatalogueDataset(old)


def test_validate_says_what_a_run_refuses(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`validate` said "0 errors" of a control character `evaluate` and the API refuse
    (explore31 F6)."""
    import json

    from service.cli import main
    from service.paths import DEMO_DIR

    data = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    data["questions"][1]["question"][0]["string"] = "Which\u0001?"
    path = tmp_path / "ctl.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "question 2: error: the question text (en): holds a control character U+0001" in out
    assert out.rstrip().endswith("14 questions, 1 error, 0 warnings")


def test_validate_refuses_repeated_ids_as_the_upload_does(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`validate` passed (a warning, exit 0) a file whose question ids repeat, which an upload
    and `evaluate --store` refuse: it says the same error, once (explore44 F2)."""
    import json

    from service.cli import main
    from service.paths import DEMO_DIR

    data = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    data["questions"][1]["id"] = data["questions"][0]["id"]
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    repeated = [line for line in out if "duplicate question id" in line]
    assert len(repeated) == 1, out
    assert ": error: duplicate question id (also question #1) (expected unique" in repeated[0]
    assert "lookups by id use the first" not in repeated[0]
    assert out[-1].endswith("1 error, 0 warnings")


def test_validate_refuses_an_in_tsv_of_another_format(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """An expected.tsv's in.tsv holding a result set passed as its question texts: `validate`
    checks it as `evaluate` and an upload do (explore44 F14)."""
    from service.cli import main

    (tmp_path / "expected.tsv").write_text("7\tsiedem\nOpole\n", encoding="utf-8")
    (tmp_path / "in.tsv").write_text('{"db25:1-en": {"7": 1},\n "db25:2-en": {"x": 1}}\n')
    assert main(["validate", str(tmp_path / "expected.tsv")]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path / 'in.tsv'}:1:1: error: this is a result-set-json file, not an in.tsv" in out
    (tmp_path / "in.tsv").write_text("Ile?\n1\tGdzie?\n", encoding="utf-8")
    assert main(["validate", str(tmp_path / "expected.tsv")]) == 1
    assert "line 2 holds 2 tab-separated columns" in capsys.readouterr().out
    (tmp_path / "in.tsv").write_text("Ile?\nGdzie?\n", encoding="utf-8")
    assert main(["validate", str(tmp_path / "expected.tsv")]) == 0
    (tmp_path / "in.tsv").write_text("<b>Ile</b>?\nGdzie <i>leży</i>?\n", encoding="utf-8")
    assert main(["validate", str(tmp_path / "expected.tsv")]) == 0  # markup in a text: no XML
    (tmp_path / "in.tsv").write_text("<qs>\n<q>Ile?</q>\n</qs>\n", encoding="utf-8")
    assert main(["validate", str(tmp_path / "expected.tsv")]) == 1
    assert "this is an XML document, not an in.tsv" in capsys.readouterr().out


def _questions(tmp_path, name: str, questions: list[dict]) -> str:  # type: ignore[type-arg]
    import json

    path = tmp_path / name
    path.write_text(json.dumps({"questions": questions}, indent=1) + "\n", encoding="utf-8")
    return str(path)


def _texts(i: int) -> list[dict[str, str]]:
    return [{"language": "en", "string": f"Question {i}?"}]


def test_validate_checks_the_gold_queries_with_the_parsers_position(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A gold query that does not parse passed `validate` silently (explore44 F12): a warning
    naming the question, its place in the file and the parser's line and column in the query;
    the Virtuoso habits of real gold (an undeclared dbo:) still pass."""
    from service.cli import main

    path = _questions(
        tmp_path,
        "q.json",
        [
            {
                "id": "1",
                "question": _texts(1),
                "query": {"sparql": "SELECT ?x WHERE { ?x dbo:a ?y }"},
            },
            {
                "id": "2",
                "question": _texts(2),
                "query": {"sparql": "SELECT ?x WHERE {\n ?x <http://a> "},
            },
        ],
    )
    assert main(["validate", path]) == 0  # a warning: the file can be used
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{path}:15:3: $.questions[1]: question 2: warning: the gold query ")
    assert "does not parse: query line 2, column 16: expected an RDF term or a variable" in out[0]
    assert out[-1] == "2 questions, 0 errors, 1 warning"


def test_validate_says_a_question_without_gold_and_a_cut_file(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A question with neither gold answers nor a query passed silently, and so did a YAML
    file cut in its last question, which lost its query (explore44 F15)."""
    from service.cli import main

    path = _questions(
        tmp_path,
        "q.json",
        [
            {"id": "1", "question": _texts(1), "query": {"sparql": "ASK { ?x ?p ?o }"}},
            {"id": "2", "question": _texts(2)},
        ],
    )
    assert main(["validate", path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        f"{path}:15:3: $.questions[1]: question 2: warning: question has neither gold answers "
        "nor a gold query: it is scored only with gold given apart (evaluate --gold) (expected "
        "gold answers or a gold query (or the question marked OUT OF SCOPE))"
    )
    # a file of questions only (gold given apart) is said once, not per question
    path = _questions(
        tmp_path, "only.json", [{"id": str(i), "question": _texts(i)} for i in (1, 2)]
    )
    assert main(["validate", path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "no question has gold answers or a gold query: the 2" in out[0]
    yaml = tmp_path / "cut.yaml"
    yaml.write_text(
        "dataset:\n  id: https://example.org/x/\nquestions:\n"
        "  - id: 1\n    question:\n      en: How many?\n    query:\n      sparql: ASK {}\n"
        "  - id: 2\n    question:\n      en: What are the 10 most popu",
        encoding="utf-8",
    )
    assert main(["validate", str(yaml)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{yaml}:9:5: $.questions[1]: question 2: warning: question has ")
    assert "(the file ends here without a line end: was it cut?)" in out[0]
    tsv = tmp_path / "expected.tsv"
    tsv.write_text("7\nPozn", encoding="utf-8")
    assert main(["validate", str(tsv)]) == 0
    out = capsys.readouterr().out
    assert f"{tsv}:2:5: question 2: warning: the file ends without a line end after line 2" in out
