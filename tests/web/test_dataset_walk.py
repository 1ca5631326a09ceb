"""What a walk through the less-walked catalogue datasets (NLQ, LC-QuAD 1.0, QALD-10, PolEval)
found on their public pages, over HTTP."""

from __future__ import annotations

from pathlib import Path

from service import catalog
from service.errors import Problem
from service.model import AnswerSet, Dataset, Question, QuestionText
from service.web.state import EXTENSION


def test_a_catalogue_file_is_named_by_its_dataset_not_the_servers_path(
    server, data_dir: Path
) -> None:
    # The dataset page's format findings read '/work/shared/data/qald/NLIWOD/nlq1_vis.json:450:2:
    # … empty question id': the server's mirror folder, on a public page and in the graph.
    catalog.load_into(
        server.storage.catalogue, "nlq-shared-task-1", mirror=data_dir, download=False
    )
    server.app.extensions[EXTENSION].changed()
    for suffix in ("", ".nt", ".jsonld"):
        text = server.get("dataset/nlq-shared-task-1" + suffix).text
        assert str(data_dir) not in text and "/qald/NLIWOD/" not in text, suffix
        assert "nlq-shared-task-1 (nlq1_vis.json):450:2" in text, suffix


def test_a_file_read_from_a_path_is_named_without_its_folders(server) -> None:
    # a version registered from the command line is read from the operator's path
    question = Question("1", (QuestionText("en", "Who?"),), answers=AnswerSet())
    problem = Problem("odd", severity="warning", file="/srv/private/v2/qald.json", line=3)
    dataset = Dataset("walk-path", (question,), problems=(problem,))
    server.storage.catalogue.store_questions("walk-path", dataset)
    server.app.extensions[EXTENSION].changed()
    text = server.get("dataset/walk-path.nt").text
    assert "/srv/private" not in text and "qald.json:3: warning: odd" in text
