"""Re-scoring a stored experiment into a new revision (``gerbil-qa rescore``, the API's
``POST /api/experiments/{id}/rescore``).

Every experiment recorded since re-scoring exists keeps the spec it ran, with each file's
SHA-256, beside its status (``ExperimentRepository.spec_of``), and the files themselves beside
the store (``kept.py``). Re-scoring runs that spec again, under the profile's current version
(or another profile), on the catalogue's current dataset files, into a NEW experiment that
says ``prov:wasRevisionOf`` the old one; the old one is never touched. :func:`changes` is the
per-question diff between the two and why (a new signature: profile version, settings or KB).

What cannot be re-scored is refused with the reason: an experiment that kept no spec, a file
that is neither at its path nor kept, systems that must be asked again (web services: their
answers are re-scored from the archive only by resuming, not here).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from service.errors import BadRequest, Conflict
from service.experiments.spec import CatalogueDataset, ExperimentSpec, FileDataset, FileRef
from service.experiments.systems import AnswerFile

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from service.experiments.inputs import Files
    from service.graph.experiments import ExperimentStatus
    from service.graph.store import Storage


def recorded_spec(spec: ExperimentSpec, files: Files) -> str:
    """The spec as kept with the experiment: every file named by its SHA-256 and size too."""

    def checksummed(ref: FileRef) -> FileRef:
        sha, size = files.checksum(ref)
        return replace(ref, sha256=sha, size=size)

    return json.dumps(_with_refs(spec, checksummed).to_json(), sort_keys=True)


def rescore_spec(
    storage: Storage,
    experiment_id: str,
    *,
    profile: str | None = None,
    dataset_version: str | None = None,
) -> tuple[ExperimentSpec, dict[str, bytes]]:
    """The spec that re-scores ``experiment_id`` and the kept bytes it needs, by SHA-256;
    ``dataset_version``: against a registered version of its catalogue dataset instead, or
    for an uploaded dataset against its newer version (an uploaded dataset's name)."""
    status = storage.experiments.status(experiment_id)
    spec, revised = _onto(storage, status, profile, dataset_version)
    asked = [s.name for s in spec.systems if not s.from_files and s.kind != "reference"]
    if asked:
        # it said to resume the experiment, which a finished one refuses
        raise BadRequest(
            f"systems {', '.join(asked)} were asked over the network; re-scoring reads files "
            f"only: download their archived answers from the experiment's files ({status.uri}) "
            f"and submit them with revisionOf {experiment_id} (the API's revisionOf, the run "
            "page's \"Run it again to replace it\"), which replaces this run's rows"
        )  # (it said gerbil-qa evaluate, which records nothing that replaces them: explore23 2)
    spec, uploads = restored(storage, experiment_id, spec)
    answers_of = experiment_id if revised != experiment_id else None
    options = replace(spec.options, revision_of=revised, answers_of=answers_of, publish=False)
    return replace(spec, options=options), uploads


def rescore_revises(storage: Storage, experiment_id: str, dataset_version: str) -> str | None:
    """The experiment a re-scoring of ``experiment_id`` onto ``dataset_version`` would revise
    (:func:`rescore_spec`'s decision, its files not read), or None where it is refused: its
    page says what the API would do (explore42 1)."""
    from service.errors import ServiceError

    try:
        status = storage.experiments.status(experiment_id)
        return _onto(storage, status, None, dataset_version)[1]
    except ServiceError:
        return None


def _onto(
    storage: Storage, status: Any, profile: str | None, dataset_version: str | None
) -> tuple[ExperimentSpec, str]:
    """``rescore_spec``'s spec before its files are restored, and the experiment it revises
    (:func:`newest_of_its_line`)."""
    experiment_id = status.id
    if status.status.value != "finished":  # its state, not the request: 409 as publish says
        raise Conflict(
            f"experiment {experiment_id} {status.status.said}; only a finished one is re-scored"
        )
    text = storage.experiments.spec_of(experiment_id)
    if text is None:
        raise BadRequest(
            f"experiment {experiment_id} kept no spec (recorded before re-scoring existed): "
            "score its files again with gerbil-qa evaluate"
        )
    spec = ExperimentSpec.from_json(json.loads(text))
    if profile:  # as the registry names it ("Exact" -> "exact"), as a submission's
        from service.evaluation.profiles import PROFILES

        profile = profile.strip().lower() if profile.strip().lower() in PROFILES else profile
    spec = replace(spec, profile=profile or spec.profile)
    if profile is not None and dataset_version is not None:  # named before the version
        from service.evaluation.profiles import get_profile

        get_profile(profile)
    if dataset_version is not None:
        _refuse_telling_withheld(storage, experiment_id, dataset_version)
    if dataset_version is not None and isinstance(spec.dataset, FileDataset):
        spec = replace(spec, dataset=_newer_upload(storage, spec.dataset, dataset_version))
    elif dataset_version is not None and isinstance(spec.dataset, CatalogueDataset):
        spec = replace(spec, dataset=replace(spec.dataset, version=dataset_version))
    return spec, newest_of_its_line(storage, status, spec, "re-score", onto=dataset_version)


def revises_another_note(experiment_id: str, version: str | None, revised: str) -> str | None:
    """What a re-scoring of ``experiment_id`` onto ``version`` that revises ``revised`` (not
    itself: an experiment of its line stands there with older answers) says: the API's
    ``note`` and its re-score page's words, one decision (:func:`newest_of_its_line`)."""
    if revised == experiment_id:
        return None
    return (
        f"It scores the answers of experiment {experiment_id} on {version} as a revision "
        f"of experiment {revised}, which stands there with older answers of its line and "
        "which it replaces once published."
    )


def rescore_refused(storage: Storage, experiment_id: str) -> str | None:
    """What re-scoring finished ``experiment_id`` on its own dataset is refused with (the 409
    of :func:`newest_of_its_line`: a published revision of its line stands in its place), or
    None: its pages offered a re-scoring the API then refused (explore38 9). Read from its
    kept spec and its line, not its files."""
    status = storage.experiments.status(experiment_id)
    text = storage.experiments.spec_of(experiment_id)
    if status.status.value != "finished" or text is None:
        return None
    spec = ExperimentSpec.from_json(json.loads(text))
    try:
        newest_of_its_line(storage, status, spec, "re-score")
    except Conflict as refused:
        return str(refused)
    return None


def restored(
    storage: Storage, experiment_id: str, spec: ExperimentSpec
) -> tuple[ExperimentSpec, dict[str, bytes]]:
    """``spec`` (``experiment_id``'s kept one) reading its files from where they are kept,
    and their bytes by SHA-256 (re-scoring; comparing stored runs on their answer items).
    BadRequest naming a file that is neither at its path nor kept."""
    from service.experiments.kept import kept_or_at

    uploads: dict[str, bytes] = {}

    def restore(ref: FileRef) -> FileRef:
        if not ref.sha256:  # (a spec keeps every file's: one kept before, its path alone)
            if ref.path and Path(ref.path).is_file():
                return ref
            raise BadRequest(f"{ref.name}: neither at {ref.path or 'its path'} nor kept")
        # the bytes it read, by SHA-256: its path may hold an edited file now (explore32 5)
        data = kept_or_at(
            storage.workspace,
            ref.sha256,
            experiment_id=experiment_id,
            name=ref.name,
            path=ref.path,
        )
        if data is None:
            changed = " (other bytes now)" if ref.path and Path(ref.path).is_file() else ""
            raise BadRequest(
                f"{ref.name}: neither at {ref.path or 'its path'}{changed} nor kept by this store"
            )
        uploads[ref.sha256 or ""] = data
        return FileRef(ref.name, ref.sha256, ref.size, None, ref.format)

    return _with_refs(spec, restore), uploads


def _refuse_telling_withheld(storage: Storage, experiment_id: str, name: str) -> None:
    """Conflict when ``experiment_id`` answers a test set whose gold is withheld and version
    ``name`` withholds none (revealed before it, explore23 13): there its answer file and each
    question's result would be served, answers to questions the test set still withholds."""
    store = storage.public if storage.experiments.is_public(experiment_id) else storage.private
    held = storage.catalogue.scored_withheld_on(store, experiment_id)
    catalogue = storage.catalogue
    if held is None or not catalogue.gold_withheld(held) or catalogue.gold_withheld(name):
        return
    raise Conflict(
        f"experiment {experiment_id} answers the test set {held}, whose gold its organiser "
        f"withholds: re-scored on {name}, which withholds none, its answer file and each "
        f"question's result would be published, and they tell that gold; re-score it onto "
        f"{name} once the gold of {held} is revealed"
    )


def _newer_upload(storage: Storage, old: FileDataset, name: str) -> FileDataset:
    """An uploaded dataset's newer version, by its name: a published description says
    ``dcat:previousVersion`` (through any versions between) of the dataset ``old`` holds (its
    author's corrected file); read from the file the store kept for it. Or a version that
    ``dataset refresh --store`` registered of that uploaded dataset (its label, as its
    experiment page offers it, ``NAME/version/V`` or its URI): its page linked a re-scoring
    onto it that was refused as "no published newer version" (explore48 3)."""
    upload = storage.catalogue.upload_for_sha256(old.file.sha256 or "")
    if upload is not None and (registered := _registered_upload_version(storage, upload, name)):
        return registered
    found = storage.catalogue.newer_upload(name, old.file.sha256 or "")
    if found is None:
        versions = [v.version for v in storage.catalogue.versions(upload[0])] if upload else []
        said = f"; its registered versions: {', '.join(versions)}" if versions else ""
        raise BadRequest(
            f"{name!r} is neither a registered version of the uploaded dataset "
            f"{old.title or old.file.name} nor a published newer version of it (whose "
            f"description names it by dcat:previousVersion){said}",
            field="datasetVersion",
        )
    sha, title = found
    return FileDataset(FileRef(f"{name}.json", sha), title=title)


def _registered_upload_version(
    storage: Storage, upload: tuple[str, str], version: str
) -> FileDataset | None:
    """Uploaded dataset ``upload`` (name, title)'s registered version ``version`` (its label,
    ``NAME/version/LABEL`` or that URI) as the file the store kept for it, or None."""
    name, title = upload
    label = version.removeprefix(storage.uris.dataset("")).removeprefix(f"{name}/version/")
    sha = storage.catalogue.version_file(name, label)
    if sha is None:
        return None
    ref = FileRef(f"{name}-{label}.json", sha)
    return FileDataset(
        ref, title=f"{title} version {label}", version_of=CatalogueDataset(name, label)
    )


def _with_refs(spec: ExperimentSpec, change: Callable[[FileRef], FileRef]) -> ExperimentSpec:
    def source(found: Any) -> Any:
        if not isinstance(found, FileDataset):
            return found
        questions = change(found.questions) if found.questions else None
        return replace(found, file=change(found.file), questions=questions)

    systems = tuple(
        replace(s, file=change(s.file)) if isinstance(s, AnswerFile) else s for s in spec.systems
    )
    return replace(spec, dataset=source(spec.dataset), gold=source(spec.gold), systems=systems)


def dataset_of(quads: Any) -> str | None:
    """The dataset an experiment's tasks were scored on (``gerbil:dataset``), from its quads."""
    wanted = "http://w3id.org/gerbil/vocab#dataset"
    return next((q.object.value for q in quads if q.predicate.value == wanted), None)


# what a question's result is compared by: its counts too, since a micro measure moves with them
# while P/R/F1 stay (QALD-8 train q201's fn 2 -> 1 at F1 0, and no question was named; explore35 3)
_COMPARED = ("tp", "fp", "fn", "precision", "recall", "f1")


def changes(
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    *,
    datasets: tuple[str | None, str | None] = (None, None),
) -> dict[str, Any]:
    """What re-scoring changed, from the two experiments' ``evaluate --output json`` objects:
    per system, the signature before and after (why: a profile version, setting or KB) and
    each question whose counts (tp, fp, fn), precision, recall, F1 or status (``scored``,
    ``error``, ``missing``…) changed in an experiment type (a count moves a micro measure where
    P/R/F1 stay): a call that failed before and is answered now, wrongly,
    keeps its F1 of 0, and was not named though the error count fell. ``datasets``: the URIs of
    the datasets the two were scored on; when they differ (a re-scoring on another version)
    that is said too (``datasetBefore``, ``datasetAfter``): the signatures are alike."""
    old = {(e["system"], e["language"]): e for e in before}
    systems = []
    for new in after:
        was = old.get((new["system"], new["language"]))
        if was is None:
            continue
        earlier = {q["id"]: q for q in was.get("questions", ())}
        changed: list[dict[str, Any]] = []
        withheld = bool(was.get("questionsWithheld") or new.get("questionsWithheld"))
        if withheld:  # one side has no question's result: none is compared (all "changed")
            earlier, new = {}, {**new, "questions": []}
        now = {q["id"] for q in new.get("questions", ())}
        # a question the new dataset version no longer has: it left the measures too (an
        # added one is said by the loop below, "not in it" before)
        gone = [q for qid, q in earlier.items() if qid not in now] if "questions" in new else []
        for question in gone:
            for etype in was["results"]:
                if a := question.get(etype, {}):
                    keys = _COMPARED
                    changed.append(
                        {
                            "question": question["id"],
                            "type": etype,
                            "before": {**{k: a.get(k) for k in keys}, "status": _status(a)},
                            "after": {**{k: None for k in keys}, "status": None},
                        }
                    )
        for question in new.get("questions", ()):
            prior = earlier.get(question["id"], {})
            for etype in new["results"]:
                a, b = prior.get(etype, {}), question.get(etype, {})
                keys = _COMPARED
                was_status, now_status = _status(a), _status(b)
                if was_status != now_status or any(a.get(k) != b.get(k) for k in keys):
                    changed.append(
                        {
                            "question": question["id"],
                            "type": etype,
                            "before": {**{k: a.get(k) for k in keys}, "status": was_status},
                            "after": {**{k: b.get(k) for k in keys}, "status": now_status},
                        }
                    )
        systems.append(
            {
                "system": new["system"],
                "language": new["language"],
                "signatureBefore": was["signature"],
                "signatureAfter": new["signature"],
                "results": {
                    etype: {
                        m: [was["results"].get(etype, {}).get(m), value]
                        for m, value in measures.items()
                        if was["results"].get(etype, {}).get(m) != value
                    }
                    for etype, measures in new["results"].items()
                },
                "questions": changed,
            }
        )
        if "questions" not in new:  # its per-question records were not read: none to compare
            del systems[-1]["questions"]
        elif withheld:
            systems[-1]["questionsWithheld"] = True
    out: dict[str, Any] = {"systems": systems}
    if all(datasets) and datasets[0] != datasets[1]:
        out.update(datasetBefore=datasets[0], datasetAfter=datasets[1])
    return out


def _status(entry: dict[str, Any]) -> str | None:
    """A per-type question entry's status, as the CSVs say it: ``scored`` unless it says
    otherwise; ``None`` for a question the other experiment did not have."""
    return entry.get("status", "scored") if entry else None


def check_resubmission(storage: Storage, experiment_id: str, spec: ExperimentSpec) -> None:
    """A resubmission (a new run that says ``prov:wasRevisionOf`` ``experiment_id``, so that
    it replaces it in the leaderboards once published) revises a finished experiment on the
    same dataset and gold, the newest of its line for its systems (:func:`newest_of_its_line`):
    Conflict, else BadRequest naming the field. Whoever submits it must own the old one (the
    web layer checks the token)."""
    status = storage.experiments.status(experiment_id)  # NotFound for an id never minted
    if status.status.value != "finished":
        raise Conflict(
            f"experiment {experiment_id} {status.status.said}; only a finished experiment "
            "is replaced by a resubmission"
        )
    newest_of_its_line(storage, status, spec, "resubmit")
    text = storage.experiments.spec_of(experiment_id)
    if text is None:
        return  # recorded before specs were kept: its dataset cannot be compared
    old = ExperimentSpec.from_json(json.loads(text))
    for part, before, now in (
        ("dataset", old.dataset, spec.dataset),
        ("gold", old.gold, spec.gold),
    ):
        if _source(before) != _source(now):
            raise BadRequest(
                f"$.revisionOf: experiment {experiment_id} was scored on {_said(before)} as its "
                f"{part}, this submission on {_said(now)}: a resubmission answers the same "
                f"questions (choose the {part} it was scored on, on the run page in "
                f'"{_FIELDS[part]}", or submit it as a new experiment)',
                field="revisionOf",
            )


# the run page's fields a resubmission's refusal points to
_FIELDS = {"dataset": "Dataset", "gold": "gold answers from a file"}


def newest_of_its_line(
    storage: Storage, status: Any, spec: ExperimentSpec, verb: str, *, onto: str | None = None
) -> str:
    """The experiment a new revision (``spec``) of the experiment ``status`` describes revises:
    that one, where the revision would stand in the leaderboards in its place (``verb``:
    resubmit or re-score, for the message; ``onto``: the dataset version a re-scoring moves
    it to, as asked); else Conflict.

    A published revision replaces the rows of its own lines only (system, dataset, type,
    language, profile: ``queries.replaced``), so the check is per system: refused when
    another experiment of the line (the experiments linked to this one by revisions, either
    way) ranks a row under the profile for one of the spec's systems on the same dataset and
    gold, as the new revision would not replace that row and both would be ranked: the one
    that ranks it is revised instead. A system no other experiment ranks is this one's to
    replace (or a new row). Also refused: an unpublished or withdrawn revision (nothing public
    says it replaced what it revises, which would stay ranked beside the new one)."""
    experiment_id = status.id
    field = "revisionOf " if verb == "resubmit" else ""  # what the submission sets
    if not status.public or status.withdrawn_at is not None:
        older, _ = storage.experiments.revisions(experiment_id, include_private=True)
        if older:
            state = "was withdrawn" if status.public else "is not published"
            publish = "" if status.public else f", or publish {experiment_id} first"
            raise Conflict(
                f"experiment {experiment_id} {state} and itself revises {', '.join(older)}: "
                f"{verb} that one instead ({field}{older[-1]}){publish}"
            )
    standing = _standing_elsewhere(storage, experiment_id, spec)
    if not standing:
        if verb == "re-score" and (newer := _replaced_by(storage, experiment_id)) is not None:
            # nothing stands there yet (another profile or version): these answers would,
            # though newer ones replaced them, and then refuse the newer ones (explore-20 15)
            raise Conflict(
                f"experiment {experiment_id}: its answers were replaced by experiment {newer}'s "
                f"(a resubmission of it): re-score that one instead ({newer})"
            )
        return experiment_id
    # each standing one's parents: asked only of a re-scoring onto another version
    parents = (
        {o: storage.experiments.revisions(o, include_private=True)[0] for o in standing}
        if onto is not None
        else {}
    )
    if onto is not None and (replaced := _older_answers(storage, experiment_id, parents)):
        return replaced  # these answers are newer than the ones it scored there: they replace it
    first = next(iter(standing))
    if onto is not None and experiment_id in storage.experiments.answers_of(first):
        raise Conflict(  # the advice was to submit them there again (explore-20 1)
            f"experiment {experiment_id}: its answers are on {_said(spec.dataset, onto)} "
            f"already: experiment {first} re-scored them there"
        )
    said = "; ".join(f"{', '.join(names)} from {other}" for other, names in standing.items())
    step = f"{verb} that one instead ({field}{first})"
    if onto is not None and experiment_id not in parents[first]:
        # it stands on that version with other answers: re-scoring it there moves nothing,
        # a submission of these answers there replaces it (explore-17b 7: the advice "re-score
        # that one instead" was refused too)
        step = (
            f"that one is on {_said(spec.dataset, onto)} already: submit these answers there "
            f"with revisionOf {first}"
        )
    raise Conflict(
        f"experiment {experiment_id}: under profile {spec.profile} another experiment of "
        f"its line already stands in the leaderboards for system {said} (a revision "
        f"replaces only the systems it holds, so both rows would be ranked): {step}, and "
        "this one only for the systems nothing replaced yet"
    )


def _replaced_by(storage: Storage, experiment_id: str) -> str | None:
    """The published, not withdrawn, resubmission of ``experiment_id`` (a revision of it on
    its dataset and gold with other answer files) whose answers replaced its own, if any."""
    _, newer = storage.experiments.revisions(experiment_id)
    own = storage.experiments.spec_of(experiment_id)
    if not newer or own is None:
        return None
    mine = ExperimentSpec.from_json(json.loads(own))
    for other in newer:
        if storage.experiments.status(other).withdrawn_at is not None:
            continue
        text = storage.experiments.spec_of(other)
        if text is None:
            continue
        theirs = ExperimentSpec.from_json(json.loads(text))
        if _sources(theirs) == _sources(mine) and _answer_files(theirs) != _answer_files(mine):
            return other
    return None


def _answer_files(spec: ExperimentSpec) -> frozenset[str]:
    """The answer files a run scored, by SHA-256."""
    return frozenset(
        s.file.sha256 or s.file.name for s in spec.systems if isinstance(s, AnswerFile)
    )


def _older_answers(
    storage: Storage, experiment_id: str, parents: dict[str, list[str]]
) -> str | None:
    """The one experiment standing on the newer dataset (``parents``: each standing one's
    parents) when it re-scored, onto that dataset, the answers of an experiment
    ``experiment_id`` revises (so older answers than these): a re-scoring of these onto the
    newer dataset revises it, and replaces its rows there. A team improved its run on v1
    after its first run was re-scored onto v2; re-scoring the improved one was refused, and
    so was the advice (explore-17b 7). None otherwise: a row there that these answers do not
    come after is not theirs to replace."""
    if len(parents) != 1:
        return None
    ((other, above),) = parents.items()
    if len(above) != 1:
        return None
    (parent,) = above
    ancestors, todo = set(), [experiment_id]
    while todo:
        for found in storage.experiments.revisions(todo.pop(), include_private=True)[0]:
            if found not in ancestors:
                ancestors.add(found)
                todo.append(found)
    if parent not in ancestors:
        return None
    # and the other one moved its parent's answers (a resubmission stays on its dataset)
    texts = [storage.experiments.spec_of(e) for e in (other, parent)]
    if None in texts:
        return None
    specs = [ExperimentSpec.from_json(json.loads(t or "")) for t in texts]
    return other if _sources(specs[0]) != _sources(specs[1]) else None


def publish_checked(storage: Storage, experiment_id: str) -> ExperimentStatus:
    """Publish ``experiment_id`` (the API's, the form's and the CLI's way), refused by
    :func:`check_publishable` checked while no other checked publication runs: checked before
    the publication was held, two revisions of one line published at once both ranked. An
    uploaded dataset it makes public gets its check findings (``dataset_checks``)."""
    from service.experiments.dataset_checks import publish_upload_findings

    status = storage.experiments.publish(
        experiment_id, check=lambda: check_publishable(storage, experiment_id)
    )
    publish_upload_findings(storage, experiment_id)  # an upload public now: its checks too
    held = storage.catalogue.scored_withheld_on(storage.public, experiment_id)
    if held is not None and storage.catalogue.gold_revealed(held):
        from service.experiments.reveal import served_files

        # scored while its test set was withheld, published after the reveal: its files
        # are served, its graph was written without their download URLs
        served_files(storage, [experiment_id])
    return status


def check_publishable(storage: Storage, experiment_id: str) -> None:
    """Conflict when publishing ``experiment_id``, a revision, would rank a second row for one
    of its systems in its line: two revisions of one experiment made while neither was public
    both passed :func:`newest_of_its_line`, and once both were published both were ranked.
    Published already (idempotent), not a revision, or recorded before specs were kept: no
    check."""
    status = storage.experiments.status(experiment_id)
    text = storage.experiments.spec_of(experiment_id)
    if status.public or text is None:
        return
    _one_line_of_versions(storage, experiment_id)
    older, _ = storage.experiments.revisions(experiment_id, include_private=True)
    spec = ExperimentSpec.from_json(json.loads(text))
    for old in older:
        standing = _standing_elsewhere(storage, old, spec)
        if standing:
            said = "; ".join(f"{', '.join(n)} from {other}" for other, n in standing.items())
            raise Conflict(
                f"experiment {experiment_id} revises {old}, but under profile {spec.profile} "
                f"another experiment of its line now stands in the leaderboards for system "
                f"{said} (published since this one was made): publishing it would rank both "
                f"rows; revise that one instead (revisionOf {next(iter(standing))})"
            )


def _one_line_of_versions(storage: Storage, experiment_id: str) -> None:
    """Conflict when publishing ``experiment_id`` would publish a new upload as a newer
    version of one that has a newer version already: checked at submission only, two newer
    versions of v1 submitted before either was published both were, and v1 had two "next"
    versions (explore37 2). Its file published already (the same bytes): no new version."""
    from service.graph.terms import DCAT, DCT, GQA

    graph = storage.uris.experiment_graph(experiment_id)
    rows = storage.private.query(
        f"SELECT ?before ?id ?sha WHERE {{ GRAPH <{graph}> {{ ?before <{DCAT}hasVersion> ?d . "
        f"?d <{GQA}sha256> ?sha ; <{DCT}identifier> ?id }} }} LIMIT 1"
    )
    row = next(iter(rows), None)
    if row is None or storage.catalogue.upload_for_sha256(row["sha"].value) is not None:
        return
    name = row["before"].value.removeprefix(storage.uris.dataset(""))
    newer = [v for v in storage.catalogue.newer_uploads(name) if v.name != row["id"].value]
    if newer:
        raise Conflict(
            f"experiment {experiment_id} is on dataset {row['id'].value}, a newer version of "
            f"dataset/{name}, which has a newer version already, published since this run was "
            f"made: dataset/{newer[-1].name}; versions make one line: run again naming that "
            "one as the previous version (about.previousVersion)"
        )


def _standing_elsewhere(
    storage: Storage, experiment_id: str, spec: ExperimentSpec
) -> dict[str, list[str]]:
    """The experiments of ``experiment_id``'s line (but it) that rank a row for one of
    ``spec``'s systems under its profile on its dataset and gold, each with those systems'
    names, oldest first. The line is walked in the public store's graphs (a withdrawn
    revision still links its neighbours); the rows are read from the default graph, as the
    leaderboards are."""
    from service.evaluation.profiles import get_profile
    from service.experiments.run import registered_version
    from service.graph.queries import standing_query

    line, todo = {experiment_id}, [experiment_id]
    while todo:
        older, newer = storage.experiments.revisions(todo.pop())
        for found in (*older, *newer):
            if found not in line:
                line.add(found)
                todo.append(found)
    line.discard(experiment_id)
    if not line:
        return {}
    names = {storage.uris.system(s.name): s.name for s in spec.systems}
    query = standing_query(
        tuple(storage.uris.experiment(e) for e in sorted(line)),
        tuple(names),
        get_profile(spec.profile).iri,
    )
    ranked: dict[str, list[str]] = {}
    for row in storage.store.public.query(query):
        other = row["experiment"].value.rsplit("/", 1)[-1]
        ranked.setdefault(other, []).append(names[row["system"].value])
    mine = _sources(registered_version(spec, storage))
    out: dict[str, list[str]] = {}
    for other in sorted(ranked):
        text = storage.experiments.spec_of(other)
        # no kept spec: its dataset cannot be compared, so it is taken to be the same one
        if text is None or _sources(ExperimentSpec.from_json(json.loads(text))) == mine:
            out[other] = sorted(ranked[other])
    return out


def _sources(spec: ExperimentSpec) -> tuple[tuple[str, ...] | None, ...]:
    """What a run's rows are scored on: its dataset and gold (a registered version of a
    catalogue dataset is a dataset of its own)."""
    return (_source(spec.dataset), _source(spec.gold))


def _source(found: CatalogueDataset | FileDataset | None) -> tuple[str, ...] | None:
    """What identifies a dataset or gold source: a catalogue name and version, or the file's
    SHA-256 (the same bytes under another name are the same questions)."""
    if found is None:
        return None
    if isinstance(found, CatalogueDataset):
        return ("catalogue", found.name, found.version or "")
    return ("file", found.file.sha256 or found.file.name)


def _said(found: CatalogueDataset | FileDataset | None, version: str | None = None) -> str:
    """A dataset or gold source in words; ``version``: a version as asked (an uploaded
    dataset's name, or a catalogue dataset's registered version)."""
    if version is not None and isinstance(found, FileDataset):
        return f"dataset {version}"
    if found is None:
        return "no separate gold"
    if isinstance(found, CatalogueDataset):
        return f"the catalogue's {found.name}" + (
            f" (version {found.version})" if found.version else ""
        )
    return f"the file {found.file.name}"


@dataclass(frozen=True, slots=True)
class RevisionLink:
    """How published experiment ``newer`` revises ``older`` (``prov:wasRevisionOf``), as its
    pages and citations say it: whether its numbers replace the older one's (the rule the
    re-scoring refusal and the leaderboards follow: :func:`_standing_elsewhere`), and if not,
    where it went instead (another dataset version, another profile, withdrawn)."""

    older: str
    newer: str
    rescoring: bool | None  # the same answer files scored again; False: other answers; None:
    # unknown (a kept spec missing)
    replaces: tuple[str, ...]  # the older one's systems whose rows it holds in their place now
    all_systems: bool  # ``replaces`` is every system of the older one
    dataset: str | None = None  # the dataset (URI) it was scored on, when not the older one's
    profile: str | None = None  # the profile it was scored under, when not the older one's
    withdrawn: bool = False


def revision_link(storage: Storage, older: str, newer: str) -> RevisionLink:
    """How ``newer`` revises ``older`` (both published): the one decision the re-scoring
    refusal makes (a published revision of its line stands in its place), not a second one.
    A citation said "whose numbers replace these" of a revision onto a newer dataset version,
    under another profile, withdrawn, or replacing one system of two (explore40 4, 5)."""
    texts = [storage.experiments.spec_of(e) for e in (older, newer)]
    specs = [ExperimentSpec.from_json(json.loads(t)) if t else None for t in texts]
    old, new = specs
    withdrawn = storage.experiments.status(newer).withdrawn_at is not None
    rescoring = None
    if old is not None and new is not None:
        rescoring = bool(_answer_files(old)) and _answer_files(old) == _answer_files(new)
    standing = _standing_elsewhere(storage, older, old) if old is not None else {}
    replaces = tuple(standing.get(newer, ()))
    systems = {s.name for s in old.systems} if old is not None else set()
    datasets = [_scored_on(storage, e) for e in (older, newer)]
    moved = datasets[1] if datasets[1] and datasets[0] != datasets[1] else None
    profile = new.profile if old is not None and new is not None else None
    return RevisionLink(
        older,
        newer,
        rescoring,
        replaces,
        bool(replaces) and set(replaces) >= systems,
        dataset=moved,
        profile=profile if old is not None and profile != old.profile else None,
        withdrawn=withdrawn,
    )


def _scored_on(storage: Storage, experiment_id: str) -> str | None:
    """The dataset (URI) a published experiment's tasks were scored on."""
    from service.graph.queries import PREFIXES

    exp = storage.uris.experiment(experiment_id)
    rows = storage.store.public.query(
        PREFIXES + f"SELECT ?d WHERE {{ ?t qb:dataSet <{exp}> ; gerbil:dataset ?d }} LIMIT 1"
    )
    return next((row["d"].value for row in rows), None)


def names_in_use(storage: Storage, experiment_id: str) -> dict[str, list[str]]:
    """The system names of ``experiment_id`` that other published experiments (in the
    leaderboards now: the public default graph) ran under, each with those experiments' ids;
    its own line of revisions and reference systems left out. A system is its name
    (``system/{name}``): two teams that chose one name share one system page, the second
    run ranked as the first's other run (``otherRunOf``) without a word (explore58 F2). Owner
    tokens are per experiment, so the store cannot tell another team from the same team's
    next run: the caller says so to the publishing owner, leaving out what it owns."""
    return published_under(storage, _own_systems(storage, experiment_id), experiment_id)


def own_system_names(storage: Storage, experiment_id: str) -> list[str]:
    """The names of the systems ``experiment_id`` ran (reference systems left out), as stored."""
    from service.graph.reader import local

    return sorted(unquote(local(s)) for s in _own_systems(storage, experiment_id))


def _own_systems(storage: Storage, experiment_id: str) -> set[str]:
    from service.graph.nodes import node
    from service.graph.uris import GERBIL, GQA

    graph = node(storage.uris.experiment_graph(experiment_id))
    # its graph leaves the private side once published
    held = storage.public if storage.experiments.is_public(experiment_id) else storage.private
    reference = node(GQA + "ReferenceSystem")
    return {
        q.object.value
        for q in held.quads_for_pattern(None, node(GERBIL + "annotator"), None, graph)
        if not any(held.quads_for_pattern(q.object, None, reference, graph))
    }


def published_under(
    storage: Storage, systems: Iterable[str], experiment_id: str | None
) -> dict[str, list[str]]:
    """The published experiments that ran the systems ``systems`` (IRIs), by system name,
    the line of revisions of ``experiment_id`` (if any) left out."""
    from service.graph.queries import PREFIXES
    from service.graph.reader import local

    # compared in NFC: a name stored before names were normalised (e + U+0301) is the same
    # system to a reader as its NFC form (explore63 F1); both forms asked for
    systems = sorted({form for s in systems for form in _both_forms(storage, s)})
    if not systems:
        return {}
    line: set[str] = set()
    todo = [experiment_id] if experiment_id else []
    while todo:  # its revisions, and theirs: the same team's line
        one = todo.pop()
        line.add(one)
        older, newer = storage.experiments.revisions(one, include_private=True)
        todo += [other for other in (*older, *newer) if other not in line]
    values = " ".join(f"<{s}>" for s in systems)
    rows = storage.public.query(
        PREFIXES + f"SELECT DISTINCT ?system ?experiment WHERE {{ VALUES ?system {{ {values} }} "
        "?task a gqa:Task ; qb:dataSet ?experiment ; gerbil:annotator ?system . }"
    )
    shared: dict[str, list[str]] = {}
    for row in rows:
        other = row["experiment"].value.rsplit("/", 1)[-1]
        if other not in line:
            shared.setdefault(unquote(local(row["system"].value)), []).append(other)
    return {name: sorted(ids) for name, ids in sorted(shared.items())}


def _both_forms(storage: Storage, system: str) -> set[str]:
    """The system IRI ``system`` and those of its name in NFC and NFD."""
    from service.experiments.systems import name_forms

    prefix = storage.uris.system("")
    if not system.startswith(prefix):
        return {system}
    return {system} | {storage.uris.system(f) for f in name_forms(unquote(system[len(prefix) :]))}


def name_in_use_note(
    shared: dict[str, list[str]], *, published: bool = True, own: Collection[str] | None = None
) -> str | None:
    """What the owner of a run is told of :func:`names_in_use` (the names used by published
    experiments it does not own), or None: once it is ``published``, or before. ``own``: the
    run's system names (:func:`own_system_names`); a name in ``shared`` that is none of them
    is one of them in another Unicode form, another system (:func:`looks_the_same`)."""
    same, looks = looks_the_same(shared, shared if own is None else own)
    listed, undo = (
        ("this run is", "withdraw this experiment")
        if published
        else ("once published, this run is", "delete this experiment")
    )
    notes = []
    if same:
        said = "; ".join(
            f"system/{name} by experiment{'s' if len(ids) > 1 else ''} {_ids(ids)}"
            for name, ids in same.items()
        )
        notes.append(
            f"a system of this name was published already by another experiment: {said}. "
            f"A system is its name: {listed} listed and ranked as the same system (one system "
            "page; a second run shares the first's rank, as its other run). If it is not your "
            f"system, {undo} and submit its answers again under a name of your "
            "own (answers_name, or the name beside the file on the run page)"
        )
    if looks:
        notes.append(looks_the_same_said(looks, listed=listed, undo=undo))
    return ". ".join(notes) or None


def looks_the_same(
    shared: dict[str, list[str]], own: Iterable[str]
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``shared`` (:func:`published_under`) split: the names that are one of ``own`` (the
    same system), and the others, one of ``own`` in another Unicode form: a name stored
    before names were kept in NFC (e + U+0301 for é), which is another system that reads the
    same (its own IRI and page); the warning called it "the same system" (explore66 F1)."""
    mine = set(own)
    same = {name: ids for name, ids in shared.items() if name in mine}
    return same, {name: ids for name, ids in shared.items() if name not in mine}


def looks_the_same_said(looks: dict[str, list[str]], *, listed: str, undo: str) -> str:
    """What the owner is told of the names that only look like its own (:func:`looks_the_same`)."""
    from service.graph.uris import enc

    said = "; ".join(
        f"system/{enc(name)} by experiment{'s' if len(ids) > 1 else ''} {_ids(ids)}"
        for name, ids in looks.items()
    )
    return (
        f"a system whose name looks the same as this run's was published already: {said}. "
        "Its name was stored before names were kept in NFC (its letters decomposed), so it "
        f"is a different system: {listed} listed and ranked apart from it, on a page of its "
        "own, though the two read the same on every leaderboard. If it is not your system, "
        f"{undo} and submit its answers again under a name of your own"
    )


def _ids(ids: list[str]) -> str:
    return ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
