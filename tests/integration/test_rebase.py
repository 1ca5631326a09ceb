"""Moving a store to another base: ``gerbil-qa import --rebase`` of a backup made under one base
(a store tried out at localhost) into a store of another (its public base). Before, the import
was refused ("the dump was made with base …") and nothing could move a store's experiments."""

from __future__ import annotations

import re
from pathlib import Path

import pyoxigraph as ox

from service.graph.dumps import STORE_MARKER, rebased
from service.graph.store import open_storage
from service.graph.uris import GQA
from service.paths import DEMO_DIR
from tests.helpers import gerbil_qa, recorded

OLD, NEW = "http://localhost:8080/", "https://gerbil-qa.example.org/qa/"


def _iris(storage) -> set[str]:
    """Every IRI of both datasets, in any position."""
    found: set[str] = set()
    for side in (storage.public, storage.private):
        for q in side.quads_for_pattern(None, None, None):
            for term in (q.subject, q.predicate, q.object, q.graph_name):
                if isinstance(term, ox.NamedNode):
                    found.add(term.value)
    return found


def test_a_backup_moves_to_a_store_of_another_base(tmp_path: Path) -> None:
    old_store = str(tmp_path / "old")
    public = recorded(old_store, DEMO_DIR / "answers-strong.json")
    told = gerbil_qa(
        "evaluate",
        *("--dataset", str(DEMO_DIR / "questions.json"), "--store", old_store),
        *("--answers", str(DEMO_DIR / "answers-baseline.json")),
    )
    found = re.search(r"experiment (\d{12}) .*owner token: ([\w-]+)", told.stderr + told.stdout)
    assert found, told.stderr
    private, token = found.groups()
    assert gerbil_qa("publish", public, "--store", old_store).returncode == 0
    assert gerbil_qa("withdraw", public, "--store", old_store, "--reason", "a test").returncode == 0
    backup = tmp_path / "backup.tar.gz"
    done = gerbil_qa("export", "--store", old_store, "--files", "--output", str(backup))
    assert done.returncode == 0, done.stderr
    with open_storage(old_store, base=None) as old:
        before = old.experiments.status(private)
        old_public = len(old.public)

    new_store = str(tmp_path / "new")
    refused = gerbil_qa("import", "--store", new_store, "--base", NEW, str(backup))
    assert refused.returncode != 0 and "import --rebase" in refused.stderr + refused.stdout
    assert not Path(new_store).exists()  # a refused dump leaves no store behind
    needs_base = gerbil_qa("import", "--store", new_store, "--rebase", str(backup))
    assert needs_base.returncode != 0 and "--base" in needs_base.stderr + needs_base.stdout
    moved = gerbil_qa("import", "--store", new_store, "--base", NEW, "--rebase", str(backup))
    assert moved.returncode == 0, moved.stderr

    with open_storage(new_store, base=None) as new:
        assert new.uris.base == NEW
        iris = _iris(new)
        assert not [i for i in iris if i.startswith(OLD)]
        assert new.uris.experiment(public) in iris and new.uris.experiment(private) in iris
        assert GQA + "withdrawnAt" in iris  # vocabulary terms as they were
        status = new.experiments.status(private)
        assert status.uri == NEW + f"experiment/{private}" and status.status == before.status
        assert not new.experiments.is_public(private)
        assert new.experiments.check_token(private, token)
        withdrawn = new.experiments.status(public)
        assert withdrawn.withdrawn_at is not None and withdrawn.withdrawal_reason == "a test"
        assert len(new.public) == old_public  # every public quad, moved
    checked = gerbil_qa("check", "--store", new_store)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    files = gerbil_qa("rescore", private, "--store", new_store)  # its kept files came along
    assert files.returncode == 0, files.stdout + files.stderr


def test_the_vocabulary_is_never_moved_even_under_its_own_prefix() -> None:
    """A deployment whose base is the vocabulary's prefix (``http://w3id.org/gerbil/qa/``):
    its experiments move, ``gqa:`` terms and ``xsd:anyURI`` literals of other sites do not."""
    old = "http://w3id.org/gerbil/qa/"
    scratch = ox.Store()
    experiment = ox.NamedNode(old + "experiment/202601010001")
    graph = ox.NamedNode(old + "graph/experiment/202601010001")
    any_uri = ox.NamedNode("http://www.w3.org/2001/XMLSchema#anyURI")
    scratch.add(ox.Quad(experiment, ox.NamedNode(GQA + "status"), ox.NamedNode(GQA + "x"), graph))
    scratch.add(
        ox.Quad(
            experiment, ox.NamedNode(GQA + "link"), ox.Literal(old + "a", datatype=any_uri), graph
        )
    )
    scratch.add(
        ox.Quad(
            experiment,
            ox.NamedNode(GQA + "home"),
            ox.Literal("https://else.org/", datatype=any_uri),
            graph,
        )
    )
    scratch.add(ox.Quad(ox.NamedNode(STORE_MARKER), ox.NamedNode(GQA + "base"), ox.Literal(old)))
    out = {
        (str(q.subject), str(q.predicate), str(q.object), str(q.graph_name))
        for q in rebased(scratch, old, NEW)
    }
    moved = f"<{NEW}experiment/202601010001>"
    into = f"<{NEW}graph/experiment/202601010001>"
    assert (moved, f"<{GQA}status>", f"<{GQA}x>", into) in out
    assert (moved, f"<{GQA}link>", f'"{NEW}a"^^<{any_uri.value}>', into) in out
    assert (moved, f"<{GQA}home>", f'"https://else.org/"^^<{any_uri.value}>', into) in out
    assert (f"<{STORE_MARKER}>", f"<{GQA}base>", f'"{NEW}"', "DEFAULT") in out


def test_the_ontology_of_a_store_under_the_vocabularys_prefix_stays(tmp_path: Path) -> None:
    """A store whose base is ``http://w3id.org/gerbil/qa/`` holds the vocabulary's graph, whose
    ontology is ``<http://w3id.org/gerbil/qa/vocab>`` (no ``#``, so no ``gqa:`` term): rebased,
    it moved to ``NEW/vocab``, and every term was ``rdfs:isDefinedBy`` the deployment's URI."""
    from service.contracts.vocabulary import ONTOLOGY
    from service.graph.dumps import export, read_dump

    old = "http://w3id.org/gerbil/qa/"
    ontology = ONTOLOGY.strip("<>")
    with open_storage(tmp_path / "old", base=old) as storage:
        dump = read_dump(export(storage))
    assert any(True for _ in dump.quads_for_pattern(ox.NamedNode(ontology), None, None))
    out = rebased(dump, old, NEW)
    iris = {
        t.value
        for q in out
        for t in (q.subject, q.object, q.graph_name)
        if isinstance(t, ox.NamedNode)
    }
    assert ontology in iris
    assert not [i for i in iris if i.startswith(NEW + "vocab")]
    assert NEW + "graph/vocab" in iris  # the graph it is kept in is the store's: it moves
