"""A TEXT2SPARQL'25 participant's view (explore41): what a team reads of its run and why.

A Text2SPARQL run asks every question by default (the challenge asked them all and scored each
failure 0; GERBIL's 0.25 error-rate rule stopped the service and scored the questions never
asked 0).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from tests.integration.test_text2sparql_participant import LLMService, questions_of

CK25 = "text2sparql-2025-ck25"


@pytest.fixture(autouse=True)
def _mirror(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))


def _spec(body: dict[str, object]):  # type: ignore[no-untyped-def]
    from service.web.submission import from_json, to_spec

    return to_spec(from_json(body), kbs={}, default_profile="exact")[0]


def test_a_text2sparql_submission_asks_every_question_unless_told() -> None:
    """explore41 F2: a submission with a Text2SPARQL service and no maxErrorRate recorded 0.25,
    so 15 failures of 50 stopped it and the 33 questions never asked scored 0."""
    t2s = {"name": "t", "url": "http://127.0.0.1:18900/", "interface": "text2sparql"}
    qa = {"name": "q", "url": "http://127.0.0.1:18900/"}
    assert _spec({"dataset": CK25, "systems": [t2s]}).options.max_error_rate == 1.0
    told = {"dataset": CK25, "systems": [t2s], "maxErrorRate": 0.25}
    assert _spec(told).options.max_error_rate == 0.25  # an explicit value wins
    profiled = {"dataset": CK25, "systems": [qa], "profile": "text2sparql"}
    assert _spec(profiled).options.max_error_rate == 1.0
    assert _spec({"dataset": CK25, "systems": [qa]}).options.max_error_rate == 0.25


def test_system_run_of_a_text2sparql_service_asks_every_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """explore41 F2: ``system run --interface text2sparql`` stopped a service failing its first
    15 questions after 17 calls ("33 never asked … aborted")."""
    questions = questions_of(CK25)
    broken = frozenset(str(n) for n in range(1, 16))
    service = LLMService(questions, lambda qid, language, gold: gold, broken=broken)
    out = tmp_path / "a.json"
    argv = ["system", "run", service.url, "--interface", "text2sparql", "--dataset", CK25]
    argv += ["--retries", "0", "--output", str(out), "--allow", "127.0.0.1/32"]
    try:
        assert main(argv) == 0
        said = capsys.readouterr().out
        assert "50 asked, 15 failed, 0 never asked" in said and "aborted" not in said
        assert len(json.loads(out.read_text(encoding="utf-8"))) == 50
        assert main([*argv, "--max-error-rate", "0.25"]) == 1  # an explicit value wins
        assert "aborted" in capsys.readouterr().out
    finally:
        service.close()
