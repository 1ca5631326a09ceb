"""What a new user tripped over (issue 8, item 5), each on the command line as they met it.

The commands run in this process (``tests.helpers.gerbil_qa_here``: ``gerbil-qa`` with the same
arguments, without an interpreter's start each); those run in a folder of their own (what they
leave there is checked), and ``serve``, in processes of their own.

The API's side of two of them is in ``tests/web/test_api.py`` (answer ids under half of the
dataset's, an upload byte-identical to a catalogue dataset); the PROV times of a web-service
run in ``tests/integration/test_systems_web.py``; ``system run``'s errors and runtimes read
back in ``tests/integration/test_systems_served.py``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from service.errors import BadRequest
from service.graph.uris import GQA
from service.paths import DEMO_DIR
from tests.conftest import QALD
from tests.helpers import gerbil_qa, gerbil_qa_here

ROOT = Path(__file__).resolve().parents[2]
QALD9_TEST = QALD / "9" / "data" / "qald-9-test-multilingual.json"
QALD8_TEST = QALD / "8" / "data" / "qald-8-test-multilingual.json"
PROV = "http://www.w3.org/ns/prov#"


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``gerbil-qa ARGS`` in this process, or run in the folder ``cwd`` in a process of its own."""
    return gerbil_qa(*args, cwd=cwd) if cwd is not None else gerbil_qa_here(*args)


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def _demo(*names: str) -> list[str]:
    return [str(DEMO_DIR / name) for name in names]


def test_a_catalogue_name_is_a_dataset(data_dir: Path) -> None:
    by_name = _cli(
        *("evaluate", "--dataset", "qald-9-test-multilingual", "--answers", str(QALD9_TEST)),
        *("--profile", "exact", "--output", "json"),
    )
    assert by_name.returncode == 0, by_name.stderr
    by_file = _cli(
        *("evaluate", "--dataset", str(QALD9_TEST), "--answers", str(QALD9_TEST)),
        *("--profile", "exact", "--output", "json"),
    )
    named, filed = json.loads(by_name.stdout), json.loads(by_file.stdout)
    assert named["dataset"] == "qald-9-test-multilingual"
    assert named["results"] == filed["results"] and named["results"]["QA"]["macroF1"] == 1.0
    typo = _cli("evaluate", "--dataset", "qald-9-test-multilingal", "--answers", str(QALD9_TEST))
    assert typo.returncode == 1, typo.stderr  # a mistyped name is told the name it missed
    assert "did you mean 'qald-9-test-multilingual'" in typo.stderr, typo.stderr


def test_several_answer_files_after_one_flag() -> None:
    files = _demo("answers-strong.json", "answers-partial.json")
    base = ["evaluate", "--dataset", *_demo("questions.json"), "--output", "json"]
    one_flag = _cli(*base, "--answers", *files)
    repeated = _cli(*base, "--answers", files[0], "--answers", files[1])
    assert one_flag.returncode == 0, one_flag.stderr
    assert [e["system"] for e in _json_lines(one_flag.stdout)] == [
        "answers-strong",
        "answers-partial",
    ]
    assert _json_lines(one_flag.stdout) == _json_lines(repeated.stdout)


def test_store_commands_take_the_base_from_the_store(tmp_path: Path) -> None:
    store, base = tmp_path / "store", "https://example.org/qa/"
    recorded = _cli(
        *("evaluate", "--dataset", *_demo("questions.json"), "--answers"),
        *_demo("answers-partial.json"),
        *("--store", str(store), "--base", base),
    )
    assert recorded.returncode == 0, recorded.stderr
    eid = re.search(r"recorded experiment (\d{12})", recorded.stderr).group(1)  # type: ignore[union-attr]
    dump = _cli("export", "--store", str(store))
    assert dump.returncode == 0, dump.stderr
    assert f"<{base}experiment/{eid}>" in dump.stdout
    # the base first: an import into a new store reads only up to it before loading
    assert dump.stdout.startswith(f'<urn:gerbil-qa:store> <{GQA}base> "{base}" .')
    checked = _cli("check", "--store", str(store), "--no-shapes")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    shown = _cli("progress", "--store", str(store), eid)
    assert shown.returncode == 0 and f"experiment {eid}: finished" in shown.stdout
    (tmp_path / "dump.nq").write_text(dump.stdout, encoding="utf-8")
    again = tmp_path / "again"
    _cli("evaluate", "--dataset", *_demo("questions.json"), "--answers", *_demo(
        "answers-partial.json"), "--store", str(again), "--base", base)  # fmt: skip
    # that store gave the same id to its own experiment (ids count per day): not merged
    restored = _cli("import", "--store", str(again), str(tmp_path / "dump.nq"))
    assert restored.returncode == 1 and "another owner token" in restored.stderr
    # a new store takes the dump's base: it was refused after the store had been created
    # with the default base, which no --base could change then
    fresh = _cli("import", "--store", str(tmp_path / "fresh"), str(tmp_path / "dump.nq"))
    assert fresh.returncode == 0, fresh.stderr
    again_dumped = _cli("export", "--store", str(tmp_path / "fresh"))
    assert f"<{base}experiment/{eid}>" in again_dumped.stdout, again_dumped.stderr
    # a base given on the command line must still be the store's
    other = _cli("export", "--store", str(store), "--base", "https://example.com/other/")
    assert other.returncode == 1 and f"created with base {base}" in other.stderr


@pytest.mark.slow
def test_export_and_check_while_the_store_is_served(tmp_path: Path) -> None:
    store = tmp_path / "store"
    recorded = _cli(
        *("evaluate", "--dataset", *_demo("questions.json"), "--answers"),
        *(*_demo("answers-strong.json"), "--store", str(store)),
    )
    assert recorded.returncode == 0, recorded.stderr
    eid = re.search(r"recorded experiment (\d{12})", recorded.stderr).group(1)  # type: ignore[union-attr]
    from tests.web.conftest import free_port

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GERBIL_QA_SPARQL_WORKERS": "1"}
    command = ["serve", "--store", str(store), "--port", str(port), "--no-demo"]
    server = subprocess.Popen(
        [sys.executable, "-m", "service", *command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                requests.get(f"http://127.0.0.1:{port}/api/profiles", timeout=2)
                break
            except (requests.ConnectionError, requests.Timeout):  # bound, still starting
                time.sleep(0.1)
        # the server holds the store (RocksDB's lock): a plain opening would fail
        dump = _cli("export", "--store", str(store), "--experiment", eid, "--format", "turtle")
        assert dump.returncode == 0, dump.stderr
        assert f"experiment/{eid}>" in dump.stdout and "answers-strong" in dump.stdout
        checked = _cli("check", "--store", str(store), "--no-shapes")
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "0 violation(s)" in checked.stderr
        assert not [p for p in (store / ".snapshots").iterdir()]  # each checkpoint released
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def test_a_run_that_skips_every_question_says_why() -> None:
    base = ["evaluate", "--dataset", *_demo("questions.json"), "--answers"]
    by_language = _cli(*base, *_demo("answers-strong.json"), "--lang", "fr")
    assert by_language.returncode == 1
    assert "every question of gerbil-qa-demo was skipped" in by_language.stderr
    assert "language 'fr'" in by_language.stderr and "questions in en" in by_language.stderr
    # a profile whose default language the dataset lacks: poleval reads Polish
    by_profile = _cli(*base, *_demo("answers-strong.json"), "--profile", "poleval")
    assert by_profile.returncode == 1
    assert "the poleval profile's default is 'pl'" in by_profile.stderr


def test_a_dataset_of_empty_questions_is_not_said_to_have_questions(tmp_path: Path) -> None:
    # Found by the reliability suite: an XML question whose only text was markup the reader
    # keeps out (<xi:include/>) was "skipped: none has text in language 'en' …; it has
    # questions in en": the language of an empty string counted as a question.
    empty = tmp_path / "empty.json"
    empty.write_text(
        json.dumps(
            {
                "questions": [
                    {"id": "1", "question": [{"language": "en", "string": " "}], "answers": []}
                ]
            }
        )
    )
    done = _cli("evaluate", "--dataset", str(empty), "--answers", *_demo("answers-strong.json"),
                "--force")  # fmt: skip
    assert done.returncode == 1
    assert "none has text in language 'en'" in done.stderr
    assert "it has no question text" in done.stderr, done.stderr


def test_a_dataset_of_gold_queries_without_answers_says_what_gives_them(data_dir: Path) -> None:
    # LC-QuAD 1.0 has gold SPARQL and no answers: the refusal named the server's mirror path
    # (also to a web user) and "expected questions with answers", not how to get them
    lcquad = str(data_dir / "lcquad1" / "test-data.json")
    done = _cli("evaluate", "--dataset", "lc-quad-1-test", "--answers", lcquad)
    assert done.returncode == 1
    assert done.stderr.startswith("gerbil-qa: lc-quad-1-test: error: the dataset has no gold")
    assert str(data_dir) not in done.stderr
    assert "its 1000 questions have gold SPARQL" in done.stderr
    assert "gerbil-qa dataset refresh lc-quad-1-test --kb" in done.stderr
    assert "--gold" in done.stderr


def test_answers_to_another_dataset_are_refused_unless_forced(data_dir: Path) -> None:
    # QALD-8 test's answers (its gold, as a perfect system's) share 26 ids with QALD-9 test
    argv = ["evaluate", "--dataset", str(QALD9_TEST), "--answers", str(QALD8_TEST)]
    refused = _cli(*argv)
    assert refused.returncode == 1
    assert "only 26 of the dataset's 150 question ids have an answer" in refused.stderr
    assert "--force" in refused.stderr
    forced = _cli(*argv, "--force", "--output", "json")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(forced.stdout)["results"]["QA"]["questions"] == 150


def test_cli_prov_times_are_taken_when_they_happen(tmp_path: Path) -> None:
    from service.graph.store import open_storage

    store = tmp_path / "store"
    before = time.time()
    recorded = _cli(
        *("evaluate", "--dataset", *_demo("questions.json"), "--answers"),
        *(*_demo("answers-strong.json"), "--store", str(store), "--kb", *_demo("kb.ttl")),
    )
    after = time.time()
    assert recorded.returncode == 0, recorded.stderr
    with open_storage(store, base=None) as storage:
        [status] = storage.experiments.listing(include_private=True)
        uri = storage.uris.experiment(status.id)
        [row] = storage.private.query(
            f"SELECT ?s ?e WHERE {{ GRAPH ?g {{ <{uri}> <{PROV}startedAtTime> ?s ; "
            f"<{PROV}endedAtTime> ?e }} }}"
        )
    start, end = row["s"].value, row["e"].value
    # both to the millisecond (Oxigraph keeps xsd:dateTime in canonical form: "22.050" is "22.05")
    stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?(Z|\+00:00)$")
    assert stamp.match(start) and stamp.match(end), (start, end)
    from datetime import datetime

    started, ended = datetime.fromisoformat(start), datetime.fromisoformat(end)
    # the start is taken before the KB is loaded and the answers scored, the end after
    assert before - 0.001 <= started.timestamp() < ended.timestamp() <= after


def test_a_store_url_is_a_remote_store_never_a_folder(tmp_path: Path) -> None:
    """An http(s) URL is a remote store (service/graph/remote.py): without its private twin, or
    when nothing answers there, a clear error; another scheme is refused; never a folder."""
    evaluate = ("evaluate", "--dataset", *_demo("questions.json"), "--answers")
    done = _cli(
        *evaluate, *_demo("answers-strong.json"), "--store", "http://localhost:9/", cwd=tmp_path
    )
    assert done.returncode == 1
    assert "set GERBIL_QA_PRIVATE_STORE to its URL" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []  # no folder called "http:"
    exported = _cli("export", "--store", "ftp://example.org/sparql", cwd=tmp_path)
    assert exported.returncode == 1
    assert "expected a directory or an http(s) URL" in exported.stderr, exported.stderr
    os.environ["GERBIL_QA_PRIVATE_STORE"] = "http://127.0.0.1:9/"  # the discard port: refused
    try:
        checked = _cli("check", "--store", "http://127.0.0.1:9/public", cwd=tmp_path)
    finally:
        del os.environ["GERBIL_QA_PRIVATE_STORE"]
    assert checked.returncode == 1 and "did not answer" in checked.stderr, checked.stderr
    assert "Traceback" not in checked.stderr
    assert list(tmp_path.iterdir()) == []
    # a timeout of 0, below 0 or not a number is the one-line settings error, before any
    # request (urllib3's ValueError traceback: explore-12 7)
    from service.graph.remote import RemoteSettings

    env = {"GERBIL_QA_PRIVATE_STORE": "http://127.0.0.1:9/private"}
    for bad in ("0", "-1", "nan", "inf", "abc"):
        with pytest.raises(
            BadRequest, match=f"GERBIL_QA_STORE_TIMEOUT: expected seconds > 0, got '{bad}'"
        ):
            RemoteSettings.from_env("http://127.0.0.1:9/", {**env, "GERBIL_QA_STORE_TIMEOUT": bad})
    assert (
        RemoteSettings.from_env(
            "http://127.0.0.1:9/", {**env, "GERBIL_QA_STORE_TIMEOUT": "0.5"}
        ).timeout
        == 0.5
    )


def test_dataset_load_says_how_many_findings_it_does_not_show(
    data_dir: Path, tmp_path: Path
) -> None:
    done = _cli(
        *("dataset", "load", "qald-9-plus-test-dbpedia", "--offline"),
        *("--store", str(tmp_path / "store")),
    )
    assert done.returncode == 0, done.stderr
    total = int(re.search(r"stored; (\d+) finding", done.stdout).group(1))  # type: ignore[union-attr]
    assert total > 20  # the README counts 35 empty gold sets alone
    shown = [line for line in done.stdout.splitlines() if line.startswith(("  warning", "  error"))]
    assert len(shown) <= 20
    # the findings of one kind and message are one line, naming how many questions and the
    # first five: 130 lines "no question text in 'hy'" were one a question (explore51 F2)
    assert "  warning: missing-text: no question text in 'hy' (130 questions: " in done.stdout
    assert "  warning: empty-gold: the gold answer set is empty (35 questions: " in done.stdout
    # format findings too, by the reader's message without its place in the file: after the
    # empty-gold line came up to 20 lines "format question N: FILE:L:C: …: empty answer set"
    # (explore54 F11)
    assert "  warning: format: empty answer set (35 questions: 81, 31, 214, 210, 188, …)" in (
        done.stdout
    )
    assert "  warning: format: empty literal value (3 questions: " in done.stdout
    assert not [line for line in shown if line.startswith("  warning: format question")], shown
    said = [re.search(r"\((\d+) questions: ", line) for line in shown]
    counted = sum(int(m.group(1)) if m else 1 for m in said)
    if counted < total:
        assert f"  … {total - counted} more" in done.stdout
    else:
        assert counted == total and "more (all of them are in the store" not in done.stdout


def test_dataset_load_groups_format_findings_and_says_how_many_it_does_not_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Format findings of one reader's message at different places are one line (explore54
    F11); past SHOWN_FINDINGS lines, the rest is counted."""
    from service import catalog
    from service.cli import main
    from service.cli.graph import SHOWN_FINDINGS
    from service.graph.questions import Finding

    def place(i: int) -> str:
        return f"d (d.json):{i}:9: $.questions[{i}]: question {i}: warning: empty answer set"

    findings = [Finding("format", place(i), "warning", str(i)) for i in range(3)]
    findings += [Finding("missing-text", f"no text in 'x{i}'", "warning", "1") for i in range(25)]
    monkeypatch.setattr(catalog, "load_into", lambda catalogue, name, **_: findings)
    assert main(["dataset", "load", "d", "--store", str(tmp_path / "store")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  warning: format: empty answer set (3 questions: 0, 1, 2)", lines
    assert len(lines) == 1 + SHOWN_FINDINGS + 1
    assert lines[-1].startswith(f"  … {25 - (SHOWN_FINDINGS - 1)} more"), lines


def test_a_truncated_json_file_says_where_it_ends(tmp_path: Path) -> None:
    text = (DEMO_DIR / "questions.json").read_text(encoding="utf-8")
    cut = text[: len(text) // 2]
    (tmp_path / "cut.json").write_text(cut, encoding="utf-8")
    done = _cli(
        *("evaluate", "--dataset", "cut.json", "--answers", *_demo("answers-strong.json")),
        cwd=tmp_path,
    )
    assert done.returncode == 1
    line = cut.count("\n") + 1
    assert re.search(rf"cut\.json:{line}:\d+: error: not valid JSON", done.stderr), done.stderr
    assert "unknown format" not in done.stderr


def test_a_dataset_with_a_repeated_id_is_scored_but_not_recorded(tmp_path: Path) -> None:
    """Recorded, two questions of one id became one result URI holding both results' numbers,
    which `check` found invalid; `evaluate` without a store scores such a file as before."""
    data = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    data["questions"][5]["id"] = data["questions"][2]["id"]
    dataset = tmp_path / "repeated.json"
    dataset.write_text(json.dumps(data, indent=1), encoding="utf-8")
    args = ("evaluate", "--dataset", str(dataset), "--answers", *_demo("answers-strong.json"))
    scored = _cli(*args, "--output", "json")
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["results"]["QA"]["questions"] == len(data["questions"])
    store = tmp_path / "store"
    refused = _cli(*args, "--store", str(store))
    assert refused.returncode == 1
    assert f"{dataset}:" in refused.stderr and "error: duplicate question id" in refused.stderr
    assert "unique question ids" in refused.stderr
    listed = _cli("export", "--store", str(store))
    assert "/experiment/" not in listed.stdout  # nothing recorded


def test_progress_of_an_ended_run_says_no_phase(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gerbil-qa progress` of a run the error-rate rule ended printed "progress: scoring", the
    phase it stopped in, as if it still scored (the API and the page stopped saying so: the
    phase is what a run does while it runs). A running one still says its phase."""
    from service.cli import main
    from service.graph.store import open_storage

    store = tmp_path / "store"
    with open_storage(store, catalog=False) as storage:
        ticket = storage.experiments.reserve()
        storage.experiments.set_status(ticket.id, "running", progress="scoring")
    assert main(["progress", "--store", str(store), ticket.id]) == 0
    assert "  progress: scoring" in capsys.readouterr().out  # running: its phase
    with open_storage(store, catalog=False) as storage:
        storage.experiments.set_status(ticket.id, "error", message="system no was aborted")
    assert main(["progress", "--store", str(store), ticket.id]) == 0
    shown = capsys.readouterr().out
    assert f"experiment {ticket.id}: error" in shown and "system no was aborted" in shown
    assert "scoring" not in shown, shown


def test_progress_of_a_run_recording_beside_its_service_does_not_wait_for_the_write(
    tmp_path: Path,
) -> None:
    """While a service records a large run (one write, seconds long) `gerbil-qa progress`
    asked it for a snapshot, which waited for that write: 9 s at 2,000 questions, then
    "finished" (explore-20 13). The job's own progress says the recording, as the API does:
    here with the store held open by this process (a service), the command answers at once."""
    import time as clock

    from service.experiments.jobs import JobStore
    from service.experiments.progress import Recording, RunProgress, SystemProgress
    from service.experiments.spec import CatalogueDataset, ExperimentSpec, FileRef
    from service.experiments.systems import AnswerFile
    from service.graph.store import open_storage, workspace_at

    store = tmp_path / "store"
    with open_storage(store, catalog=False) as storage:
        ticket = storage.experiments.reserve()
        storage.experiments.set_status(ticket.id, "running", progress="recording")
    spec = ExperimentSpec(CatalogueDataset("demo"), (AnswerFile("big", FileRef("a.json")),))
    jobs = JobStore(workspace_at(store))
    jobs.create(ticket.id, spec)
    now = clock.time()
    done = SystemProgress("big", 2000, 2000, state="done", since=now - 2)
    jobs.write_progress(
        ticket.id, RunProgress("recording", (done,), now - 3, Recording(12000, now - 1, 6.0))
    )
    with open_storage(store, catalog=False):  # the service holding the store
        started = clock.monotonic()
        shown = gerbil_qa("progress", "--store", str(store), ticket.id, timeout=60)
        took = clock.monotonic() - started
    assert shown.returncode == 0, shown.stderr
    assert f"experiment {ticket.id}: running" in shown.stdout
    assert "recording: writing 12,000 question results" in shown.stdout, shown.stdout
    assert re.search(r"about \d+ s left", shown.stdout), shown.stdout
    assert took < 30, took
