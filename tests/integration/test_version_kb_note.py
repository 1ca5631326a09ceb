"""A run on a registered dataset version says when its answers came from another KB than the
one the version's gold was refreshed on.

``dataset refresh NAME --kb A --store S`` registers a version whose gold is what A answers;
``evaluate --dataset NAME --dataset-version V`` then ran the systems' queries on the
catalogue's own KB (or a ``--kb`` given) without a word, though the gold and the answers came
from two different KBs: the scores then measure how the KBs differ as much as the systems.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.cli import main
from service.graph.store import open_storage
from service.kb.local import files_identity

CK25 = "text2sparql-2025-ck25"
RDFS_COMMENT = "http://www.w3.org/2000/01/rdf-schema#comment"


@pytest.fixture(autouse=True)
def _mirror(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))


def test_a_version_refreshed_on_another_kb_says_so(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graphs = data_dir / "text2sparql2025" / "ck25" / "graphs"
    both = [graphs / "prod-vocab.ttl", graphs / "prod-inst.ttl"]
    store = tmp_path / "store"
    # the version's gold: what the instances graph alone answers (no vocabulary)
    refresh = ["dataset", "refresh", CK25, "--kb", str(both[1]), "--store", str(store)]
    assert main([*refresh, "--output", str(tmp_path / "v.json")]) == 0
    out = capsys.readouterr().out
    [uri] = [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("registered")]
    version = uri.rsplit("/version/", 1)[1]
    franz = data_dir / "text2sparql2025" / "systems" / "FRANZ" / "ck25_answers.json"
    run = ["evaluate", "--dataset", CK25, "--dataset-version", version, "--answers", str(franz)]
    run += ["--system", "FRANZ", "--profile", "text2sparql", "--types", "QA", "--output", "json"]
    run += ["--store", str(store)]

    assert main(run) == 0  # the catalogue's KB: both graphs
    said = capsys.readouterr()
    other = json.loads(said.out)["experiment"]["id"]
    refreshed_on = files_identity([both[1]])
    note = (
        f"gerbil-qa: note: the gold of {CK25} version {version} was refreshed on the KB "
        f"{refreshed_on}"
    )
    assert note in said.err
    assert f"the answers were run or matched on {files_identity(both)}" in said.err

    assert main([*run, "--kb", str(both[1])]) == 0  # the KB it was refreshed on
    said = capsys.readouterr()
    same = json.loads(said.out)["experiment"]["id"]
    assert "gerbil-qa: note:" not in said.err

    with open_storage(str(store)) as storage:  # the note is the experiment's, in its graph
        notes = {
            eid: [q.object.value for q in storage.experiments.quads(eid, answers=False)
                  if q.predicate.value == RDFS_COMMENT]
            for eid in (other, same)
        }  # fmt: skip
    assert len(notes[other]) == 1 and refreshed_on in notes[other][0]
    assert notes[same] == []
