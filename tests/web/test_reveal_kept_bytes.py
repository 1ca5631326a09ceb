"""A test set recorded on the command line is revealed from the bytes its runs were scored on.

The reveal and the test set's ``questions.json`` read the organiser's spec as the command line
typed it: a relative path was read against the server's directory (a 400 naming the author's
file, the reveal impossible), and a file its author edited in place after the upload was
revealed as the edited file's gold, not the uploaded one's (explore32 1, 5). They read the file
the store kept by its SHA-256 now, as a run on the test set by name does."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from service.cli import main
from service.systems.localnet import free_port
from tests.web.conftest import start_server, stop_server


def _test_set(gold: str) -> str:
    questions = [
        {
            "id": str(i),
            "question": [{"language": "en", "string": f"Which planet is number {i}?"}],
            "answers": [
                {
                    "head": {"vars": ["s"]},
                    "results": {
                        "bindings": [
                            {"s": {"type": "literal", "value": gold if i == 3 else f"P{i}"}}
                        ]
                    },
                }
            ],
        }
        for i in range(1, 6)
    ]
    return json.dumps({"dataset": {"id": "kept-planets"}, "questions": questions})


def test_a_cli_test_set_is_revealed_from_its_kept_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    author, elsewhere = tmp_path / "author", tmp_path / "elsewhere"
    author.mkdir()
    elsewhere.mkdir()
    (author / "bq.json").write_text(_test_set("UPLOADED-GOLD"))
    port = free_port()
    store, base = str(tmp_path / "store"), f"http://127.0.0.1:{port}/"
    monkeypatch.chdir(author)  # the README's command, run where the file is: a relative path
    argv = ["evaluate", "--dataset", "bq.json", "--answers", "bq.json", "--store", store]
    argv += ["--base", base, "--profile", "exact", "--output", "json", "--dataset-title", "BQ"]
    code = main([*argv, "--dataset-gold", "withheld"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    experiment = json.loads(printed.out)["experiment"]["id"]
    token = re.search(r"owner token: ([^)\s]+)", printed.err)
    assert token, printed.err
    assert main(["publish", "--store", store, experiment]) == 0
    # the author fixes a question in place, and the server runs in another directory
    (author / "bq.json").write_text(_test_set("EDITED-GOLD"))
    monkeypatch.chdir(elsewhere)
    site = start_server(Path(store), port=port, demo=False)
    try:
        listed = site.get("api/datasets").json()["datasets"]
        name = next(d["name"] for d in listed if d["name"].startswith("bq-"))
        questions = site.get(f"dataset/{name}/questions.json")
        assert questions.status_code == 200, questions.text
        assert [q["id"] for q in questions.json()["questions"]] == ["1", "2", "3", "4", "5"]
        auth = {"Authorization": f"Bearer {token.group(1)}"}
        revealed = site.post(f"api/datasets/{name}/reveal", headers=auth)
        assert revealed.status_code == 200, revealed.text
        gold = site.get(f"dataset/{name}/question/3", headers={"Accept": "text/turtle"}).text
        assert "UPLOADED-GOLD" in gold and "EDITED-GOLD" not in gold
        # re-scoring reads the kept bytes too, not the edited file at its path
        rescored = site.post(f"api/experiments/{experiment}/rescore", headers=auth)
        assert rescored.status_code == 202, rescored.text
        state = site.wait_finished(rescored.json()["id"], rescored.json()["token"])
        assert state["evaluations"][0]["results"]["QA"]["macroF1"] == pytest.approx(1.0)
    finally:
        stop_server(site)
