"""The dataset checks of an uploaded dataset (:func:`service.graph.questions.check_dataset`),
made public as a catalogue dataset's are: in the public graph ``graph/dataset/{name}``.

A catalogue dataset is checked when it is loaded; an upload is checked when the first
experiment that used it is published (its description becomes public then, in that
experiment's graph), read again from that experiment's kept spec and files as its run read
it. The findings are written once per dataset, in a transaction of their own after the
publication's: the check reads and parses a file (seconds for a large one), which is not done
while the publication's claim is held. A publication whose findings were not written (a crash
between the two writes, or a store from before this existed) gets them at the next serve start
(:func:`complete_upload_findings`), as do findings another set of checks made
(``gqa:checkSet``: a release that adds a finding kind). When the last listed run on an upload
is withdrawn, its findings leave with its description (:func:`withdraw_upload_findings`). An
unpublished upload's findings are never written to the public store; its owner reads them from
:func:`experiment_findings`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from service.errors import Conflict, ServiceError
from service.graph.terms import DCAT, DCT, GQA, PROV

if TYPE_CHECKING:
    from service.graph.questions import Finding
    from service.graph.store import Storage
    from service.model import Dataset

log = logging.getLogger(__name__)


def upload_findings(storage: Storage, experiment_id: str) -> list[Finding] | None:
    """The check findings of the uploaded dataset ``experiment_id`` was scored on, from its
    kept spec and files; None when it was scored on a catalogue dataset (checked when loaded)
    or kept no spec (recorded before specs were kept)."""
    return _spec_findings(storage, experiment_id, storage.experiments.spec_of(experiment_id))


def _spec_findings(storage: Storage, experiment_id: str, text: str | None) -> list[Finding] | None:
    """:func:`upload_findings` of the kept spec ``text``."""
    from service.graph.questions import check_dataset

    dataset = spec_dataset(storage, experiment_id, text)
    return None if dataset is None else check_dataset(dataset)


def spec_dataset(storage: Storage, experiment_id: str, text: str | None) -> Dataset | None:
    """The uploaded dataset of ``experiment_id`` read from its kept spec ``text`` and files as
    its run read it; None when it was a catalogue dataset or no spec was kept."""
    from dataclasses import replace

    from service.evaluation.profiles import get_profile
    from service.experiments.inputs import Files, read_dataset
    from service.experiments.kept import kept_or_at
    from service.experiments.rescore import _with_refs
    from service.experiments.run import ALL_LANGUAGES
    from service.experiments.spec import ExperimentSpec, FileDataset, FileRef

    if text is None:
        return None
    spec = ExperimentSpec.from_json(json.loads(text))
    if not isinstance(spec.dataset, FileDataset):
        return None
    refs = {ref.sha256: ref for ref in spec.files() if ref.sha256}

    def by_checksum(ref: FileRef) -> FileRef:  # the kept bytes, never the path as it is now
        return replace(ref, path=None) if ref.sha256 else ref

    spec = _with_refs(spec, by_checksum)

    def kept_file(sha256: str) -> bytes:
        ref = refs.get(sha256)
        name = ref.name if ref else sha256
        data = kept_or_at(
            storage.workspace,
            sha256,
            experiment_id=experiment_id,
            name=name,
            path=ref.path if ref else None,
        )
        if data is None:
            raise Conflict(  # a state of the store, not a failure of ours (explore21 6)
                f"{name}: not kept by this store (experiment {experiment_id}; a dump imported "
                "without its files?): import an archive made by gerbil-qa export --files"
            )
        return data

    # read as its run read it: the first language asked tags texts that name none (TSV)
    languages = [lang.strip() for lang in spec.languages if lang.strip()]
    language = languages[0] if languages else get_profile(spec.profile).default_language
    dataset = read_dataset(
        spec.dataset,
        Files(kept_file),
        language=None if language == ALL_LANGUAGES else language,
        named=bool(languages),
        gold=spec.gold,
        types=spec.experiment_types,
    )
    return dataset


_SEEN: OrderedDict[str, list[Finding] | None] = OrderedDict()  # by the spec's SHA-256
_SEEN_LOCK = threading.Lock()
SEEN_ENTRIES = 64  # finished experiments whose findings are remembered (their owner's polls)


def experiment_findings(storage: Storage, experiment_id: str) -> list[Finding] | None:
    """:func:`upload_findings` of a *finished* experiment, for its status and its owner's
    page (before they publish, the only place they are): remembered, as a finished
    experiment's spec and files never change (each poll re-read and re-parsed the file). None
    also when they cannot be made."""
    import hashlib

    text = storage.experiments.spec_of(experiment_id)
    if text is None:
        return None
    # by what was checked (every file named by its SHA-256), not by an id another store has
    key = hashlib.sha256(text.encode()).hexdigest()
    with _SEEN_LOCK:
        if key in _SEEN:
            _SEEN.move_to_end(key)
            return _SEEN[key]
    try:
        found = _spec_findings(storage, experiment_id, text)
    except ServiceError as err:
        log.warning("experiment %s: its dataset not checked: %s", experiment_id, err)
        found = None
    with _SEEN_LOCK:
        _SEEN[key] = found
        while len(_SEEN) > SEEN_ENTRIES:
            _SEEN.popitem(last=False)
    return found


def findings_json(findings: list[Finding]) -> list[dict[str, Any]]:
    """The API's ``datasetFindings``: one object per finding."""
    return [
        {
            "kind": f.kind,
            "severity": f.severity,
            "message": f.message,
            "question": f.question_id,
            "language": f.language,
        }
        for f in findings
    ]


def publish_upload_findings(storage: Storage, experiment_id: str) -> bool:
    """Once ``experiment_id`` is published: the findings of its uploaded dataset written to
    the public store, unless they are already (another experiment published it first). True
    when something was written (the caller's public caches are stale). A check that cannot be
    made is logged, never raised: the experiment is public already."""
    found = _unchecked_uploads(storage, experiment_id)
    return any(_store(storage, name, eid) for name, eid in found.items())


@dataclass(frozen=True)
class CompletedFindings:
    """What :func:`complete_upload_findings` did: each dataset checked again, with how many
    findings it had before and has now; the datasets whose findings went (runs withdrawn)."""

    checked: dict[str, tuple[int, int]] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.checked or self.removed)

    @property
    def added(self) -> int:
        return sum(max(now - before, 0) for before, now in self.checked.values())

    @property
    def dropped(self) -> int:
        return sum(max(before - now, 0) for before, now in self.checked.values())


def complete_upload_findings(storage: Storage) -> CompletedFindings:
    """Every published uploaded dataset without its findings, or with findings another set
    of checks made, gets them (replaced in one transaction), and those of one whose runs are
    all withdrawn go (serve start: a crash between a publication or a withdrawal and its
    findings' write, a release with new checks): what was checked again (findings before and
    after: the start log said "nothing to do" after adding findings; explore54 F4) and
    removed."""
    checked: dict[str, tuple[int, int]] = {}
    for name, eid in _unchecked_uploads(storage).items():
        before = _finding_count(storage, name)
        if _store(storage, name, eid):
            checked[name] = (before, _finding_count(storage, name))
    return CompletedFindings(checked, withdraw_upload_findings(storage))


def _finding_count(storage: Storage, name: str) -> int:
    """How many findings the store holds of uploaded dataset ``name``."""
    graph, ds = storage.uris.dataset_graph(name), storage.uris.dataset(name)
    rows = storage.public.query(
        f"SELECT (COUNT(DISTINCT ?f) AS ?n) WHERE {{ GRAPH <{graph}> "
        f"{{ <{ds}> <{GQA}finding> ?f }} }}"
    )
    return next((int(row["n"].value) for row in rows), 0)


def after_withdrawal(storage: Storage, experiment_id: str) -> None:
    """What withdrawing ``experiment_id`` does to the uploads it described, after its own
    transaction: findings gone with the last listed run, and what a still listed upload lost
    with the withdrawn graph (its publisher, its description) said again
    (``service.graph.uploads.complete_published_uploads``)."""
    from service.graph.uploads import complete_published_uploads

    withdraw_upload_findings(storage, experiment_id)
    complete_published_uploads(storage)


def withdraw_upload_findings(storage: Storage, experiment_id: str | None = None) -> list[str]:
    """Once ``experiment_id`` is withdrawn (None: any): the findings of an uploaded dataset it
    describes leave the public store when no published, not withdrawn, experiment describes
    it any more (its description left the default graph with the withdrawn graphs' shares, and
    its page showed the findings alone). The names of those removed."""
    uris = storage.uris
    rows = storage.public.query(
        f"SELECT DISTINCT ?id WHERE {{ {_only(storage, experiment_id)} GRAPH ?g {{ "
        f"?e a <{GQA}Experiment> ; <{PROV}used> ?d . ?d a <{DCAT}Dataset> ; "
        f"<{DCT}identifier> ?id }} "
        f'FILTER(STRSTARTS(STR(?g), "{uris.base}graph/experiment/")) '
        # its own graph: findings, or only its date of first issue (a check that could not
        # be made: ``service.graph.uploads``)
        f'FILTER(STR(?d) = CONCAT("{uris.dataset("")}", ?id)) '  # an upload's: not a version's
        f"FILTER EXISTS {{ ?d <{GQA}checkedAt>|<{DCT}issued> ?t }} "
        f"FILTER NOT EXISTS {{ GRAPH ?h {{ ?x a <{GQA}Experiment> ; <{PROV}used> ?d . "
        f"?d a <{DCAT}Dataset> }} {uris.listed_experiment_graph('?h')} }} }}"
    )
    names = [row["id"].value for row in rows]
    for name in names:
        storage.catalogue.drop_findings(name)
    return names


def _only(storage: Storage, experiment_id: str | None) -> str:
    """A ``VALUES ?g`` on ``experiment_id``'s graph (nothing when None: every experiment's)."""
    if experiment_id is None:
        return ""
    return f"VALUES ?g {{ <{storage.uris.experiment_graph(experiment_id)}> }}"


def _unchecked_uploads(storage: Storage, experiment_id: str | None = None) -> dict[str, str]:
    """Uploaded datasets described in published, not withdrawn, experiment graphs (of
    ``experiment_id`` only, when given) whose findings are not stored, or were made by
    another set of checks (``gqa:checkSet``: a release added a kind; none: made before it was
    said): name -> the first experiment that used it. A catalogue dataset is described in the
    catalogue's graph, not an experiment's, and is checked again at its next run
    (``CatalogueRepository.has_questions``)."""
    from service.graph.questions import check_set
    from service.graph.terms import literal

    uris = storage.uris
    rows = storage.public.query(
        f"SELECT ?id (MIN(STR(?e)) AS ?first) WHERE {{ {_only(storage, experiment_id)} "
        f"GRAPH ?g {{ ?e a <{GQA}Experiment> ; <{PROV}used> ?d . ?d a <{DCAT}Dataset> ; "
        f"<{DCT}identifier> ?id }} "
        f'FILTER(STRSTARTS(STR(?d), "{uris.dataset("")}")) {uris.listed_experiment_graph()} '
        f"FILTER NOT EXISTS {{ ?d <{GQA}checkSet> {literal(check_set())} }} }} "
        "GROUP BY ?id ORDER BY ?id"
    )
    return {row["id"].value: row["first"].value.rsplit("/", 1)[1] for row in rows}


def _store(storage: Storage, name: str, experiment_id: str) -> bool:
    if storage.catalogue.gold_withheld(name):  # a finding may quote a gold answer or query:
        return False  # written once the gold is revealed (``reveal_gold``)
    try:
        findings = upload_findings(storage, experiment_id)
    except ServiceError as err:  # its file not in this store: its page says so
        log.warning("dataset/%s not checked: %s", name, err)
        return False
    if findings is None:
        return False
    storage.catalogue.store_findings(name, findings)
    return True
