"""Two replicas publishing runs on one uploaded dataset at the same moment (issue 14: several
replicas on one store): the dataset is issued once. Each publication reads whether the
upload has its ``dct:issued`` and, when not, writes one; two replicas that both read before
either wrote gave the upload two dates of first issue (DCAT-AP allows one). A publication on
an upload now holds that upload's publication claim too, so two publications on one upload
follow each other across replicas. It is claimed by its file's content: two runs on the same
bytes under two titles, published at once, each saw none public and kept its own name (two
datasets, two leaderboards); now the second joins the first (``uploads.join_published``).
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pyoxigraph as ox
import pytest

from service.graph.results import DatasetRef
from service.graph.store import Storage, open_storage
from tests.integration.test_graph_store import _dataset, _evaluation
from tests.remote import environment, remote_pair

ROUNDS = 6
ISSUED = "http://purl.org/dc/terms/issued"


def _issued(storage: Storage, dataset_uri: str) -> list[str]:
    found = storage.public.quads_for_pattern(
        ox.NamedNode(dataset_uri), ox.NamedNode(ISSUED), None, ox.DefaultGraph()
    )
    return [q.object.value for q in found]


def _dataset_of(storage: Storage, experiment_id: str) -> str:
    """The dataset the public graph of ``experiment_id`` says it used."""
    graph = ox.NamedNode(storage.uris.experiment_graph(experiment_id))
    used = ox.NamedNode("http://www.w3.org/ns/prov#used")
    run = ox.NamedNode(storage.uris.experiment(experiment_id))
    found = storage.public.quads_for_pattern(run, used, None, graph)
    return next(
        q.object.value for q in found if q.object.value.startswith(storage.uris.dataset(""))
    )


def _publish(
    storage: Storage, experiment_id: str, start: threading.Barrier, errors: list[BaseException]
) -> None:
    """Publish on one replica once both are ready (the test reports an error)."""
    start.wait()
    try:
        storage.experiments.publish(experiment_id)
    except BaseException as err:
        errors.append(err)


@pytest.mark.parametrize("titles", [("tiny", "tiny"), ("tiny", "other")])
def test_two_replicas_publishing_on_one_upload_issue_it_once(
    tmp_path: Path, titles: tuple[str, str]
) -> None:
    with remote_pair(tmp_path) as pair, environment(pair.env):
        a = open_storage(pair.url, base="http://gerbil-qa.test/", catalog=False)
        b = open_storage(pair.url, base="http://gerbil-qa.test/", catalog=False)
        try:
            dataset = _dataset()
            twice = []
            for round_ in range(ROUNDS):
                sha = hashlib.sha256(f"upload {round_}".encode()).hexdigest()
                refs = [DatasetRef.upload(f"{t}{round_}", dataset, sha256=sha) for t in titles]
                runs = [
                    a.experiments.record([_evaluation(dataset, system=s)], dataset=ref)
                    for s, ref in zip(("A", "B"), refs, strict=True)
                ]
                start = threading.Barrier(2)
                errors: list[BaseException] = []
                threads = [
                    threading.Thread(target=_publish, args=(s, run.id, start, errors))
                    for s, run in zip((a, b), runs, strict=True)
                ]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join(60)
                assert errors == []
                assert all(b.experiments.status(run.id).public for run in runs)
                used = {_dataset_of(a, run.id) for run in runs}
                assert len(used) == 1, f"round {round_}: one content, two datasets {used}"
                dates = _issued(a, used.pop())
                assert dates, f"round {round_}: the upload has no dct:issued"
                if len(dates) > 1:
                    twice.append((round_, dates))
            assert twice == [], f"uploads issued more than once: {twice}"
        finally:
            a.close()
            b.close()
