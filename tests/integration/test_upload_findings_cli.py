"""An uploaded dataset's checks on the command line: ``gerbil-qa evaluate --store`` records a
run on a file with a broken gold query, an empty gold set and a question without its German
text; ``gerbil-qa publish`` makes its findings public with it (before, only the experiment),
and ``gerbil-qa check`` finds the store clean, shapes included."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph
import pytest

from service.cli import main
from service.graph.questions import check_dataset
from service.graph.store import open_storage
from tests.lakes_benchmark import lakes

GQA = "http://w3id.org/gerbil/qa/vocab#"


def test_publish_makes_an_uploads_findings_public(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from service import formats

    path = tmp_path / "lakes.json"
    path.write_bytes(lakes())
    store = str(tmp_path / "store")
    argv = ["evaluate", "--dataset", str(path), "--answers", str(path), "--profile", "exact"]
    assert main([*argv, "--store", store, "--output", "json"]) == 0, capsys.readouterr().err
    run = json.loads(capsys.readouterr().out.splitlines()[0])["experiment"]["id"]
    expected = check_dataset(formats.read(path))

    def stored() -> list[tuple[str, str]]:
        with open_storage(store) as storage:
            rows = storage.public.query(
                f"SELECT ?kind ?q WHERE {{ ?d <{GQA}finding> ?f . ?f <{GQA}findingKind> ?kind "
                f"OPTIONAL {{ ?f <{GQA}aboutQuestion> ?q }} }}"
            )
            return sorted(
                (r["kind"].value.rsplit("finding-", 1)[1], r["q"].value.rsplit("/", 1)[1])
                for r in rows
            )

    assert stored() == []  # recorded, not published: nothing public
    assert main(["publish", "--store", store, run]) == 0
    assert f"published {run}" in capsys.readouterr().out
    assert stored() == sorted((f.kind, f.question_id or "") for f in expected)
    with open_storage(store) as storage:
        graphs = [g.value for g in storage.public.named_graphs()]
        assert sum(g.startswith(storage.uris.dataset_graph("lakes-")) for g in graphs) == 1
        name = next(g for g in graphs if g.startswith(storage.uris.dataset_graph("")))
        quads = list(storage.public.quads_for_pattern(None, None, None, pyoxigraph.NamedNode(name)))
        assert len([q for q in quads if q.predicate.value == GQA + "checkedAt"]) == 1
    assert main(["check", "--store", store]) == 0, capsys.readouterr().out
