"""Two replicas publishing runs on one uploaded dataset at the same moment (issue 14: several
replicas on one store): the dataset is issued once. Each publication reads whether the
upload has its ``dct:issued`` and, when not, writes one; two replicas that both read before
either wrote gave the upload two dates of first issue (DCAT-AP allows one). A publication on
an upload now holds that upload's publication claim too, so two publications on one upload
follow each other across replicas.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pyoxigraph as ox

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


def _publish(
    storage: Storage, experiment_id: str, start: threading.Barrier, errors: list[BaseException]
) -> None:
    """Publish on one replica once both are ready (the test reports an error)."""
    start.wait()
    try:
        storage.experiments.publish(experiment_id)
    except BaseException as err:
        errors.append(err)


def test_two_replicas_publishing_on_one_upload_issue_it_once(tmp_path: Path) -> None:
    with remote_pair(tmp_path) as pair, environment(pair.env):
        a = open_storage(pair.url, base="http://gerbil-qa.test/", catalog=False)
        b = open_storage(pair.url, base="http://gerbil-qa.test/", catalog=False)
        try:
            dataset = _dataset()
            twice = []
            for round_ in range(ROUNDS):
                sha = hashlib.sha256(f"upload {round_}".encode()).hexdigest()
                ref = DatasetRef.upload(f"tiny{round_}", dataset, sha256=sha)
                runs = [
                    a.experiments.record([_evaluation(dataset, system=s)], dataset=ref)
                    for s in ("A", "B")
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
                dates = _issued(a, a.uris.dataset(ref.name))
                assert dates, f"round {round_}: the upload has no dct:issued"
                if len(dates) > 1:
                    twice.append((round_, dates))
            assert twice == [], f"uploads issued more than once: {twice}"
        finally:
            a.close()
            b.close()
