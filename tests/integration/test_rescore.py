"""Re-scoring into revisions (issue 11 item 4): ``gerbil-qa rescore`` runs a stored
experiment's kept spec and files again into a NEW experiment that is ``prov:wasRevisionOf``
the old one (never overwritten), prints the per-question changes and why (the signatures), and
the leaderboards show the newest published revision of each row's line (its profile too)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from service.cli import main
from service.paths import DEMO_DIR
from tests.helpers import register_ck25_version

PROV_REVISION = "http://www.w3.org/ns/prov#wasRevisionOf"


def _record(capsys: pytest.CaptureFixture[str], store: Path, *answers: Path) -> str:
    argv = [
        "evaluate",
        "--dataset",
        str(DEMO_DIR / "questions.json"),
        "--kb",
        str(DEMO_DIR / "kb.ttl"),
    ]
    argv += ["--answers", *map(str, answers), "--store", str(store), "--output", "json"]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out.splitlines()[0])["experiment"]["id"]


def test_a_revision_is_a_new_experiment_linked_to_the_old_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from service.graph.store import open_storage

    store = tmp_path / "store"
    # the answer files are copies that disappear: re-scoring reads the store's kept bytes
    strong, partial = (
        shutil.copy(DEMO_DIR / f"answers-{n}.json", tmp_path) for n in ("strong", "partial")
    )
    old = _record(capsys, store, Path(strong), Path(partial))
    storage = open_storage(store)
    before = sorted(map(str, storage.experiments.quads(old)))
    storage.close()
    Path(strong).unlink()
    Path(partial).unlink()

    assert (
        main(["rescore", old, "--store", str(store), "--profile", "exact", "--output", "json"]) == 0
    )
    done = json.loads(capsys.readouterr().out)
    new = done["experiment"]
    assert done["revisionOf"] == old and new != old
    [strong_changes] = [s for s in done["changes"]["systems"] if s["system"] == "answers-strong"]
    assert strong_changes["signatureBefore"].startswith("gerbil-qa:fair|")
    assert strong_changes["signatureAfter"].startswith("gerbil-qa:exact|")
    changed = {c["question"] for c in strong_changes["questions"] if c["type"] == "QA"}
    assert "1" in changed  # a DBpedia IRI that fair matched through sameAs and exact does not
    assert strong_changes["results"]["QA"]["macroF1"][0] == 1.0

    storage = open_storage(store)
    try:
        assert sorted(map(str, storage.experiments.quads(old))) == before  # never overwritten
        links = [q for q in storage.experiments.quads(new) if q.predicate.value == PROV_REVISION]
        assert [q.object.value for q in links] == [storage.uris.experiment(old)]
        assert storage.experiments.revisions(new, include_private=True) == ([old], [])
        # a revision under another profile is another view: the old rows stay, under fair
        storage.experiments.publish(old)
        storage.experiments.publish(new)
        assert _shown(storage) == {("fair", old), ("exact", new)}
        history = {r["revisionOf"].value for r in _rows(storage) if r["revisionOf"] is not None}
        assert history == {storage.uris.experiment(old)}  # the row links its history
    finally:
        storage.close()
    # re-scored under its own profile (its current version), the old one is history
    assert main(["rescore", old, "--store", str(store), "--output", "json"]) == 0
    newest = json.loads(capsys.readouterr().out)["experiment"]
    storage = open_storage(store)
    try:
        storage.experiments.publish(newest)
        assert _shown(storage) == {("fair", newest), ("exact", new)}
        assert _counted(storage) == len(_rows(storage))  # the filters' counts, as the rows
    finally:
        storage.close()
    table_code = main(["rescore", new, "--store", str(store)])
    assert table_code == 0 and f"re-scores {new}" in capsys.readouterr().out


def _rows(storage) -> list:
    from service.graph.queries import leaderboard_query

    return list(storage.public.query(leaderboard_query(experiment_type="QA")))


def _counted(storage) -> int:
    """The rows the leaderboard's filter counts say it has (results read here: a result kept
    alive would keep the store open)."""
    from service.graph.queries import leaderboard_counts_query

    counts = storage.public.query(leaderboard_counts_query(by=("profile",)))
    return sum(int(r["n"].value) for r in counts)


def _shown(storage) -> set[tuple[str, str]]:
    """(profile, experiment id) of the leaderboard's rows."""
    return {
        (r["profile"].value.rsplit("-", 1)[-1], r["experiment"].value.rsplit("/", 1)[-1])
        for r in _rows(storage)
    }


def test_a_revision_names_its_uri_and_owner_token(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The revision is private, as ``evaluate --store`` records are: ``rescore`` says where it
    is and its owner token, shown once (without it its page and status were out of reach)."""
    from service.graph.store import open_storage

    store = tmp_path / "store"
    old = _record(capsys, store, DEMO_DIR / "answers-partial.json")
    assert main(["rescore", old, "--store", str(store), "--profile", "exact"]) == 0
    out, err = capsys.readouterr()
    new = out.split()[1]
    [line] = [x for x in err.splitlines() if "owner token" in x]
    storage = open_storage(store)
    try:
        uri = storage.uris.experiment(new)
        assert f"recorded experiment {new} at {uri} (private; owner token: " in line
        token = line.rsplit("owner token: ", 1)[1].rstrip(")")
        assert storage.experiments.check_token(new, token)
    finally:
        storage.close()
    assert main(["rescore", old, "--store", str(store), "--output", "json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["uri"].endswith(f"/experiment/{done['experiment']}")


def test_what_cannot_be_rescored_is_refused_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from service import formats
    from service.evaluation import evaluate
    from service.graph.results import DatasetRef
    from service.graph.store import open_storage
    from service.model import system_run

    store = tmp_path / "store"
    storage = open_storage(store)
    dataset = formats.read(DEMO_DIR / "questions.json")
    run = system_run(formats.read(DEMO_DIR / "answers-partial.json"), system="partial")
    ticket = storage.experiments.record(
        [evaluate(dataset, run, profile="exact")], dataset=DatasetRef.upload("demo", dataset)
    )
    storage.close()
    assert main(["rescore", ticket.id, "--store", str(store)]) != 0
    assert "kept no spec" in capsys.readouterr().err


def test_a_registered_gold_refresh_is_run_and_rescored_by_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data_dir: Path, monkeypatch
) -> None:
    """``dataset refresh NAME --store`` registers a version with its file kept; ``evaluate
    --dataset NAME --dataset-version V`` runs it by name (a dataset of its own: another gold), and
    ``rescore --dataset-version V`` re-scores a catalogue run against it."""
    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))
    store = tmp_path / "store"
    _, version, franz = register_ck25_version(str(store), data_dir, tmp_path / "v2.json", capsys)
    run = ["evaluate", "--dataset", "text2sparql-2025-ck25", "--answers", str(franz)]
    run += ["--profile", "text2sparql", "--types", "QA", "--output", "json"]
    assert main([*run, "--dataset-version", version]) != 0  # read from its store
    assert "give --store" in capsys.readouterr().err
    assert main([*run, "--dataset-version", version, "--store", str(store)]) == 0
    on_version = json.loads(capsys.readouterr().out)
    assert on_version["results"]["QA"]["questions"] == 50

    assert main([*run, "--store", str(store)]) == 0
    old = json.loads(capsys.readouterr().out)["experiment"]["id"]
    argv = ["rescore", old, "--store", str(store), "--dataset-version", version]
    assert main([*argv, "--output", "json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["revisionOf"] == old
    [system] = done["changes"]["systems"]
    assert system["results"]["QA"]  # the refreshed gold moved some measure


def test_an_in_tsv_kept_with_tabs_before_they_were_refused_still_rescores(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch
) -> None:
    """An in.tsv line with a tab is refused when given (the CLI, uploads), not when a store's
    kept copy is read: a run recorded before the rule came (simulated by switching it off for
    the recording) re-scores with the texts it was run with, its findings saying why."""
    from service.experiments.dataset_checks import upload_findings
    from service.formats import tsv
    from service.graph.store import open_storage

    for name, text in (("expected.tsv", "7\nPoznań\n"), ("in.tsv", "Ile?\n1\tStolica?\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "out.tsv").write_text("7\nGdańsk\n", encoding="utf-8")
    store = tmp_path / "store"
    argv = ["evaluate", "--dataset", str(tmp_path / "expected.tsv")]
    argv += ["--answers", str(tmp_path / "out.tsv"), "--store", str(store), "--output", "json"]
    assert main(argv) != 0  # given now: refused naming the line
    assert "in.tsv:2:2" in capsys.readouterr().err

    with monkeypatch.context() as old_release:
        old_release.setattr(tsv, "refuse_columns", lambda src, answers=None: None)
        assert main(argv) == 0
    old = json.loads(capsys.readouterr().out.splitlines()[0])["experiment"]["id"]
    assert main(["rescore", old, "--store", str(store), "--output", "json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["revisionOf"] == old
    storage = open_storage(store)
    try:
        said = {q.object.value for q in storage.experiments.quads(done["experiment"])}
        said |= {f.message for f in upload_findings(storage, done["experiment"]) or ()}
    finally:
        storage.close()
    assert "Ile?" in said and "1\tStolica?" in said  # the texts it was run with
    told = [s for s in said if "in.tsv line holds a tab" in s]
    assert told and "each whole line is its question's text, as when it was kept" in told[0]


def test_a_registered_version_and_the_run_on_it_are_cited_alike(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data_dir: Path, monkeypatch
) -> None:
    """explore38 1: a registered version's BibTeX named the catalogue's title and AKSW, its RDF
    another title and no creator, publisher or licence; the run re-scored on it sat on a third
    name credited to "GERBIL QA" with no licence and no version. Now the version's RDF says the
    catalogue dataset's title, publisher and licence (its distribution too), and the run's
    dataset the same title (with the version), creator and licence."""
    import pyoxigraph as ox

    from service.graph.store import open_storage

    monkeypatch.setenv("GERBIL_QA_DATA", str(data_dir))
    store = tmp_path / "store"
    uri, version, franz = register_ck25_version(str(store), data_dir, tmp_path / "v2.json", capsys)
    run = ["evaluate", "--dataset", "text2sparql-2025-ck25", "--answers", str(franz)]
    run += ["--profile", "text2sparql", "--types", "QA", "--output", "json", "--store", str(store)]
    assert main(run) == 0
    old = json.loads(capsys.readouterr().out)["experiment"]["id"]
    argv = ["rescore", old, "--store", str(store), "--dataset-version", version]
    assert main([*argv, "--output", "json"]) == 0
    done = json.loads(capsys.readouterr().out)
    new = str(done["experiment"]).rsplit("/", 1)[-1]

    dct, foaf = "http://purl.org/dc/terms/", "http://xmlns.com/foaf/0.1/"
    title = "TEXT2SPARQL'25 CK25 (corporate knowledge graph)"
    licence = "https://creativecommons.org/licenses/by-sa/4.0/"
    with open_storage(store) as storage:

        def values(side: ox.Store, subject: str, predicate: str) -> set[str]:
            return {
                q.object.value
                for q in side.quads_for_pattern(
                    ox.NamedNode(subject), ox.NamedNode(predicate), None
                )
            }

        public = storage.public
        assert values(public, uri, dct + "title") == {f"{title}, version {version}"}
        assert values(public, uri, dct + "publisher") == {"https://github.com/AKSW"}
        assert values(public, uri, dct + "license") == {licence}
        assert values(public, uri + "#distribution", dct + "license") == {licence}
        # the run's dataset (private until published): the same title, creator and licence
        private = storage.private
        graph = storage.uris.experiment_graph(new)
        [dataset] = {
            q.subject.value
            for q in private.quads_for_pattern(
                None,
                ox.NamedNode("http://www.w3.org/ns/prov#wasDerivedFrom"),
                ox.NamedNode(uri),
                ox.NamedNode(graph),
            )
        }
        assert values(private, dataset, dct + "title") == {f"{title}, version {version}"}
        assert values(private, dataset, dct + "license") == {licence}
        creators = values(private, dataset, dct + "creator")
        assert {n for c in creators for n in values(private, c, foaf + "name")} == {
            "AKSW research group, Leipzig University"
        }
