"""How the graph names an experiment's dataset when it is recorded (imported only then)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from service.errors import BadRequest, FormatError
from service.experiments.inputs import Files, media_type_of
from service.experiments.spec import (
    CatalogueDataset,
    DatasetSource,
    ExperimentSpec,
    FileDataset,
    FileRef,
)
from service.graph.nodes import node
from service.graph.uploads import NEW_VERSION, published_description, published_notes

if TYPE_CHECKING:
    from service.experiments.spec import ExperimentSpec
    from service.graph.catalogue import CatalogueRepository
    from service.graph.results import DatasetRef, UploadedFile
    from service.graph.store import Storage
    from service.model import Dataset


@dataclass(frozen=True, slots=True)
class RecordedDataset:
    """How the graph names the experiment's dataset, and its file entity (an upload)."""

    ref: DatasetRef
    uploads: tuple[UploadedFile, ...]  # the dataset file's entity (an upload), the gold's
    stored_questions: bool  # a catalogue dataset's questions were stored now (a public write)
    notes: tuple[str, ...] = ()  # what the owner is told of it (the run's notes)


def dataset_record(
    source: DatasetSource,
    dataset: Dataset,
    files: Files,
    catalogue: CatalogueRepository,
    *,
    gold: DatasetSource | None = None,
    revising: bool = False,
) -> RecordedDataset:
    """The dataset as the graph names it: a catalogue dataset keeps its public URI (and its
    questions are stored in its public graph if they are not yet); a file byte-identical to a
    catalogue dataset's distribution is that dataset (same SHA-256: it joins its leaderboard);
    any other file is an uploaded dataset, described inside the experiment's graph (the kept
    file of a registered version links that version). ``revising``: the run re-scores or
    replaces another, whose description of the file it restates (its owner was told at that
    run what was not recorded, if anything)."""
    recorded = _dataset_record(source, dataset, files, catalogue, gold=gold, revising=revising)
    if isinstance(source, FileDataset) and source.version_of and source.version_of.version:
        name, version = source.version_of.name, source.version_of.version
        uri = catalogue.uris.dataset_version(name, version)
        recorded = replace(recorded, ref=replace(recorded.ref, version_of=uri))
        sha = recorded.ref.sha256
        if sha is not None and catalogue.upload_for_sha256(sha) is None:
            recorded = replace(
                recorded, ref=_as_its_version(recorded.ref, catalogue, name, version)
            )
    return recorded


def _as_its_version(
    ref: DatasetRef, catalogue: CatalogueRepository, name: str, version: str
) -> DatasetRef:
    """The dataset of a run on a registered version's kept file, first recorded: titled as
    the version is (the catalogue's title and the version) and credited and licensed as it is
    (its name stays the one made of the dataset's name and the version). It was a third name
    for the same file, credited to this service, with no licence (explore38 1); a published
    one keeps what its first run said, as every published upload does."""
    from service import catalog
    from service.dataset_about import ABOUT

    entry = next((e for e in catalog.entries() if e.name == name), None)
    title = f"{entry.title}, version {version}" if entry is not None else ref.title
    given = dict(ref.about)
    more = {k: v for k, v in catalogue.version_about(name, version).items() if k not in given}
    order = list(ABOUT)
    about = tuple(sorted({**given, **more}.items(), key=lambda pair: order.index(pair[0])))
    return replace(ref, title=title, about=about)


def _dataset_record(
    source: DatasetSource,
    dataset: Dataset,
    files: Files,
    catalogue: CatalogueRepository,
    *,
    gold: DatasetSource | None = None,
    revising: bool = False,
) -> RecordedDataset:
    from service.graph.results import DatasetRef, UploadedFile

    if gold is not None:
        return _with_gold(source, dataset, files, gold)
    upload: UploadedFile | None = None
    name: str | None = None
    sha: str | None = None
    catalogued: tuple[UploadedFile, ...] = ()
    if isinstance(source, CatalogueDataset):
        name = source.name
        catalogued = catalogue_files(source.name)
    else:
        sha, size = files.checksum(source.file)
        upload = UploadedFile(
            source.file.name, sha, size, role="dataset", media_type=media_type_of(dataset)
        )
        name = catalogue.name_for_sha256(sha)
    if name is not None:
        stored = False
        if not catalogue.has_questions(name):
            catalogue.store_questions(name, dataset)
            stored = True
        kept = (upload, *_questions_file(source, files)) if upload is not None else catalogued
        return RecordedDataset(DatasetRef.catalogue(name, dataset, sha256=sha), kept, stored)
    kept = (upload, *_questions_file(source, files)) if upload is not None else ()
    said = _said(source)
    published = catalogue.upload_for_sha256(sha) if sha is not None else None
    if published is not None:  # the same bytes, published before: that dataset, its title
        name, title = published
        # its in.tsv, if any, is the published one (check_about): the dataset's file already
        kept = kept[:1]
        own = source.title if isinstance(source, FileDataset) else None
        # a revision restates what its line said: the author re-scoring the run that published
        # the description was told its description "was not recorded" (explore32 12)
        notes = (
            ()
            if revising
            else published_notes(name, title, own, about=tuple(k for k, _ in said["about"]))
        )
        newer = catalogue.newer_uploads(name)
        if newer:  # a participant of a shared task on an outdated version learns of it
            notes += (
                f"the dataset {name} has a newer version, {newer[-1].label}: these results "
                f"rank on the leaderboard of {name}; run on {newer[-1].name} to rank on the "
                "newer version's",
            )
        statements = catalogue.upload_statements(name)
        said = _published_description(statements)
        said["gold_withheld"] = catalogue.gold_withheld(name, statements)
        ds = node(catalogue.uris.dataset(name))
        said["restated"] = tuple(published_description(catalogue.store, catalogue.uris, ds))
        return RecordedDataset(
            DatasetRef(name, False, dataset, title=title, sha256=sha, **said), kept, False, notes
        )
    ref = replace(upload_ref(dataset_label(source, dataset), dataset, sha, catalogue), **said)
    ref = replace(ref, gold_withheld=dict(ref.about).get("gold") == ("withheld",))
    twin = _same_but_line_ends(source, files, catalogue) if isinstance(source, FileDataset) else ()
    return RecordedDataset(ref, kept, False, twin)


_BOM = b"\xef\xbb\xbf"


def _same_but_line_ends(
    source: FileDataset, files: Files, catalogue: CatalogueRepository
) -> tuple[str, ...]:
    """A note when the file is a public dataset's file but for its line ends (CRLF, LF) or a
    UTF-8 byte-order mark: an upload is named and ranked by its bytes (its SHA-256, its
    checksum in DCAT, the file kept), so an editor's CRLF made another dataset with another
    leaderboard without a word (explore44 F11). Kept a dataset of its own, as before (its
    checksum is its file's); the note names the one to run on to rank with it. Only public
    datasets are looked up (the catalogue's, published uploads), by the SHA-256 of each of
    the file's four spellings."""
    import hashlib

    data = files.data(source.file)
    body = data.removeprefix(_BOM).replace(b"\r\n", b"\n")
    crlf = body.replace(b"\n", b"\r\n")
    for other in (body, _BOM + body, crlf, _BOM + crlf):
        if other == data:
            continue
        sha = hashlib.sha256(other).hexdigest()
        published = catalogue.upload_for_sha256(sha)
        name = catalogue.name_for_sha256(sha) or (published[0] if published else None)
        if name is None:
            continue
        what = []
        if (b"\r\n" in data) != (b"\r\n" in other):  # which has which (explore48 13)
            ends = ("CRLF", "LF") if b"\r\n" in data else ("LF", "CRLF")
            what.append(f"line ends (this file {ends[0]}, {name}'s {ends[1]})")
        if data.startswith(_BOM) != other.startswith(_BOM):
            has = "this file has one" if data.startswith(_BOM) else f"{name}'s has one"
            what.append(f"a byte-order mark ({has})")
        return (
            f"the dataset file {source.file.name} differs from the dataset {name}'s only in "
            f"{' and '.join(what)}: an upload is named by its bytes, so these results are "
            f"those of a dataset of their own, on a leaderboard of their own; run on {name} "
            "(or its file as it is) to rank with it",
        )
    return ()


def _questions_file(source: DatasetSource, files: Files) -> tuple[UploadedFile, ...]:
    """The in.tsv given with an expected.tsv: a file of the dataset too (role ``questions``,
    its second distribution), kept and exported with it."""
    from service.formats.tsv import FORMAT
    from service.graph.results import UploadedFile

    if not isinstance(source, FileDataset) or source.questions is None:
        return ()
    sha, size = files.checksum(source.questions)
    tsv = FORMAT.media_types[0]
    return (UploadedFile(source.questions.name, sha, size, role="questions", media_type=tsv),)


def upload_ref(
    label: str, dataset: Dataset, sha: str | None, catalogue: CatalogueRepository
) -> DatasetRef:
    """An upload's dataset, named by its label and 8 hex digits of its SHA-256, or more where
    another file has that name already: the same name for two contents merged them (one page,
    two checksums, one leaderboard), and a look-alike of a published dataset takes minutes to
    make."""
    from service.graph.results import NAME_DIGITS, DatasetRef, uploaded_dataset_name

    ref = DatasetRef.upload(label, dataset, sha256=sha)
    if sha is None:
        return ref
    for digits in NAME_DIGITS[1:]:
        if not catalogue.upload_name_taken(ref.name, sha):
            break
        ref = replace(ref, name=uploaded_dataset_name(label, sha, digits))
    return ref


def check_about(spec: ExperimentSpec, storage: Storage, files: Files) -> None:
    """What an upload's author says is refused before the run when it cannot be recorded: a
    statement about a catalogue dataset's file (its results are the catalogue's, as when it is
    named), about questions scored on another gold (a dataset of their own), a previous
    version that is no published uploaded dataset (its link would lead nowhere), or other
    question texts for a published dataset (``files``: the submission's, to read its in.tsv)."""
    from service.errors import BadRequest

    catalogue = storage.catalogue
    source = spec.dataset
    if spec.gold is not None and isinstance(source, FileDataset):
        _refuse_other_gold_on_withheld(source, storage, files)
    if isinstance(source, FileDataset) and source.questions is not None:
        _check_published_texts(source.file, source.questions, storage, files)
    if not isinstance(source, FileDataset) or not source.about:
        return
    named = catalogue.name_for_sha256(Files().checksum(source.file)[0])
    withholding = dict(source.about).get("gold") == ("withheld",)
    if withholding and source.questions is None and _tsv_alone(source.file):
        raise BadRequest(  # a test set no team could read (explore21 16)
            f"about.gold (--dataset-gold): {source.file.name} is an expected.tsv, its gold "
            "alone: a test set whose gold is withheld needs its in.tsv, the questions teams "
            "answer (the run page's questions file, the API's dataset.questions, an in.tsv "
            "beside it)",
            field="about.gold",
        )
    if named is not None and withholding:  # the reason that matters (explore21 7)
        raise BadRequest(
            f"about.gold (--dataset-gold): the file {source.file.name} is the catalogue's "
            f"{named} (the same bytes), whose gold is public: it cannot be withheld; a hidden "
            "test set is a file of its own",
            field="about.gold",
        )
    if named is not None:  # was recorded under the catalogue's name, the description dropped
        raise BadRequest(
            f'about (the run page\'s "About your dataset file", --dataset-…): the file '
            f"{source.file.name} is the catalogue's {named} (the same bytes), which keeps the "
            "description it has: leave the description out, or upload another file",
            field="about",
        )
    if spec.gold is not None:
        raise BadRequest(
            "about (--dataset-…): describes a dataset file scored on its own gold answers; "
            "with a separate gold the results are a dataset of their own",
            field="about",
        )
    previous = dict(source.about).get("previousVersion")
    if previous and not catalogue.upload_statements(previous[0]):
        raise BadRequest(
            f"about.previousVersion (--dataset-previous): dataset/{previous[0]} is no published "
            "uploaded dataset "
            "of this store (publish a run on it first; its name is in the run's datasetUri)",
            field="about.previousVersion",
        )
    sha = Files().checksum(source.file)[0]
    # a withdrawn dataset's too: its runs' pages keep its gold as published (explore23 5)
    public_gold = catalogue.public_gold_of(sha) if withholding else None
    if public_gold is not None:
        raise BadRequest(
            f"about.gold (--dataset-gold): the file {source.file.name} is the published "
            f"dataset {public_gold} (the same bytes), whose gold is public: it cannot be "
            "withheld; a hidden test set is a file never published",
            field="about.gold",
        )
    published = catalogue.upload_for_sha256(sha)
    if published is not None:  # without accounts its first author cannot be told from another
        raise BadRequest(
            f'about (the run page\'s "About your dataset file", --dataset-…): the file '
            f'{source.file.name} is the published dataset {published[0]} ("{published[1]}", '
            "the same bytes), whose description is its first publisher's: leave the "
            f"description out to run on it; {NEW_VERSION.format(name=published[0])}",
            field="about",
        )


def _tsv_alone(file: FileRef) -> bool:
    """Whether ``file`` is a TSV expected.tsv given without its in.tsv (none beside its path)."""
    from pathlib import Path

    if (file.format or "") != "tsv" and not file.name.lower().endswith(".tsv"):
        return False
    return file.path is None or not (Path(file.path).parent / "in.tsv").is_file()


def _refuse_other_gold_on_withheld(source: FileDataset, storage: Storage, files: Files) -> None:
    """A run on a test set whose gold is withheld, scored on a gold of its own: its questions
    and that gold are a dataset of their own, not withheld, whose run served the test set's
    file — its gold — to anyone who asked (explore21 19)."""
    from service.errors import Forbidden

    held = storage.catalogue.withheld_test_set(files.checksum(source.file)[0])
    if held is not None:
        raise Forbidden(
            f"gold (gold_file): dataset {held} is a test set whose gold its organiser "
            "withholds: a run on it is scored on that gold, by the service, and on no other "
            "(its questions with another gold would publish its file)",
            field="gold",
        )


def inherit_withheld_gold(spec: ExperimentSpec, storage: Storage) -> ExperimentSpec:
    """``spec`` whose upload is a new version (``about.previousVersion``) of a test set whose
    gold is withheld now: withheld too (``about.gold``), as its author's kept spec then says
    (it is who may reveal it). A corrected test set was published with its gold, most of the
    withheld one's, unless its author chose "withheld" again (explore21 11); to publish a
    version with its gold, reveal the previous one first."""
    from service.dataset_about import ABOUT_FIELDS

    source = spec.dataset
    if not isinstance(source, FileDataset):
        return spec
    said = dict(source.about)
    previous = said.get("previousVersion")
    if not previous or "gold" in said or not storage.catalogue.gold_withheld(previous[0]):
        return spec
    said["gold"] = ("withheld",)
    about = tuple((f.key, said[f.key]) for f in ABOUT_FIELDS if f.key in said)
    return replace(spec, dataset=replace(source, about=about))


def _check_published_texts(
    file: FileRef, questions: FileRef, storage: Storage, files: Files
) -> None:
    """An in.tsv given with the bytes of a published dataset: its question texts are its first
    publisher's as the rest of its description (README), so other texts are refused (each
    question would get a second text); the same texts add nothing, whatever their bytes (a
    byte-order mark, CRLF, no last newline: an editor's save was refused as another in.tsv)."""
    published = storage.catalogue.upload_for_sha256(files.checksum(file)[0])
    if published is None:
        return
    name, title = published
    _, texts = storage.catalogue.published_tsv(name)
    if texts is not None and _same_texts(files.data(questions), texts, storage):
        return
    if texts is None:
        has, instead = "it has none", "to run on it without texts"
    else:
        has, instead = "other ones", "to run on the published texts"
    # a dataset is its expected.tsv's SHA-256: a "new version" of the same expected.tsv with
    # other texts would be that dataset again, so it is not advised (explore-11 21: the advice
    # to publish one was refused with this same message)
    raise BadRequest(
        f"dataset.questions (the run page's \"its questions, in.tsv\", the CLI's in.tsv beside "
        f"--dataset): {questions.name} is not the in.tsv of the published dataset "
        f'{name} ("{title}"), whose expected.tsv has the same bytes as {file.name}: a dataset '
        f"is its expected.tsv (named by its SHA-256), and the question texts of a published "
        f"one are its first publisher's ({has}), which cannot be added or changed, also not "
        f"by a new version with the same expected.tsv; leave the in.tsv out (the CLI: no "
        f"in.tsv beside --dataset) {instead}; other texts can come only with another "
        f"expected.tsv (a corrected gold, with about.previousVersion {name} to make it this "
        f"one's new version)",
        field="dataset.questions",
    )


def _same_texts(given: bytes, published_sha: str, storage: Storage) -> bool:
    """Whether the in.tsv bytes ``given`` read as the published one's question texts."""
    import hashlib

    from service.experiments.kept import file_key
    from service.formats.tsv import in_texts

    if hashlib.sha256(given).hexdigest() == published_sha:
        return True
    workspace = storage.workspace
    published = workspace.read(file_key(published_sha)) if workspace is not None else None
    if published is None:  # not kept here (a dump imported without --files): bytes alone
        return False
    try:
        return in_texts(given) == in_texts(published)
    except FormatError:  # not UTF-8: not the same texts (reading it says why)
        return False


def _published_description(published: dict[str, str]) -> dict[str, Any]:
    """What a later upload of published bytes says of them: nothing of its own (without
    accounts a stranger cannot be told from their author, so the first publisher's
    description is the dataset's, creators and licence included), and the published licence
    for its own file's distribution."""
    from service.dataset_about import ABOUT
    from service.graph.catalogue import DCT_PUBLISHER

    licence = published.get(ABOUT["license"].predicate)
    return {
        "about": (("license", (licence,)),) if licence else (),
        "described": True,  # a published dataset has a description (its author's or generated)
        "published_by": DCT_PUBLISHER in published,
    }


def _said(source: DatasetSource) -> dict[str, Any]:
    """What an upload's author said of it (``DatasetRef`` fields)."""
    return {"about": source.about if isinstance(source, FileDataset) else ()}


def _with_gold(
    source: DatasetSource, dataset: Dataset, files: Files, gold: DatasetSource
) -> RecordedDataset:
    """Questions scored against a separate gold are a dataset of their own (described in the
    experiment's graph, named by the questions and that gold together), so their results never
    join the leaderboard of the questions' own gold; the gold file is kept as an entity."""
    from service.graph.results import DatasetRef, UploadedFile

    gold_name = gold.name if isinstance(gold, CatalogueDataset) else gold.file.name
    own = dataset_label(source, dataset)
    if "://" in own:  # a dataset id that is an IRI (TEXT2SPARQL's): its last segment
        own = [part for part in own.split("/") if part][-1]
    label = f"{own} with the gold of {PurePosixPath(gold_name).stem}"
    uploads = []
    for kept, role in ((source, "dataset"), (gold, "gold")):
        if isinstance(kept, CatalogueDataset):
            uploads += [replace(f, role=role) for f in catalogue_files(kept.name)]
        elif isinstance(kept, FileDataset):
            sha, size = files.checksum(kept.file)
            uploads.append(
                UploadedFile(
                    kept.file.name,
                    sha,
                    size,
                    role=role,
                    media_type=media_type_of(dataset) if role == "dataset" else None,
                )
            )
    return RecordedDataset(DatasetRef.upload(label, dataset), tuple(uploads), False)


def catalogue_files(name: str) -> tuple[UploadedFile, ...]:
    """The files of a catalogue dataset an experiment read (its questions, its expected answers),
    each with the SHA-256 the catalogue verified it against: the experiment's graph pins the
    content it was scored on, whatever the catalogue says after a later refresh."""
    from service import catalog
    from service.graph.results import UploadedFile

    return tuple(
        UploadedFile(
            PurePosixPath(d.mirror_path).name,
            d.sha256,
            d.byte_size,
            role="dataset" if d.role == "questions" else "gold",
            media_type=d.media_type,
        )
        for d in catalog.get_entry(name).distributions
        if d.role != "kb"
    )


def kb_files(
    spec: ExperimentSpec, kbs: Iterable[str | None]
) -> tuple[tuple[UploadedFile, ...], tuple[Path, ...]]:
    """The files of the KB the results name (``kbs``: each result's ``file:sha256:H
    (version)``; the KB its system's queries ran on, or its labels and ``owl:sameAs`` were
    looked up in), each with its SHA-256 (role ``kb``): before, only H was recorded, the hash
    of the files' digests, and a reviewer could neither tell which files nor get them to score
    the answers again. Also the local files among them, to keep beside the store for the
    download (a catalogue dataset's own are served from the data mirror). None for a KB that
    is a SPARQL endpoint (its URL is the identity) or for results that used no KB."""
    import hashlib

    from service.experiments.queries import catalogue_name, kb_sources
    from service.graph.results import UploadedFile
    from service.kb.local import digests_identity

    named = {kb.split(" ", 1)[0] for kb in kbs if kb and kb.startswith("file:sha256:")}
    if not named:
        return (), ()
    if spec.kb is None and (name := catalogue_name(spec)) is not None:
        from service import catalog

        entry = catalog.get_entry(name)
        found = tuple(
            UploadedFile(
                PurePosixPath(d.mirror_path).name,
                d.sha256,
                d.byte_size,
                role="kb",
                media_type=d.media_type,
            )
            for d in entry.kb_distributions
        )
        paths: tuple[Path, ...] = ()
    else:
        try:
            sources, _version = kb_sources(spec)
        except BadRequest:
            return (), ()
        paths = tuple(Path(s) for s in sources if "://" not in s)
        if len(paths) != len(sources):
            return (), ()
        found = tuple(
            UploadedFile(
                path.name,
                hashlib.sha256(path.read_bytes()).hexdigest(),
                path.stat().st_size,
                role="kb",
                media_type=_rdf_media_type(path),
            )
            for path in paths
        )
    if digests_identity(f.sha256 for f in found) not in named:
        return (), ()  # another KB than the one the results name: name none
    return found, paths


def _rdf_media_type(path: Path) -> str | None:
    from service.mediatypes import rdf_by_extension

    if path.suffix.lower() == ".gz":
        return "application/gzip"
    syntax = rdf_by_extension(path.suffix)
    return syntax.media_type if syntax is not None else None


def dataset_label(source: DatasetSource, dataset: Dataset) -> str:
    """What the results call the dataset: its title, its id, or its file's name."""
    if isinstance(source, FileDataset) and source.title:
        return source.title
    if dataset.id:
        return dataset.id
    name = source.file.name if isinstance(source, FileDataset) else dataset.source
    stem = PurePosixPath(name).stem if name else "dataset"
    if isinstance(source, FileDataset) and source.file.path and _GONITO_FILE.fullmatch(stem):
        # every PolEval upload was "expected-…": its folder says which (explore44 F11)
        folder = Path(source.file.path).resolve().parent
        if _GONITO_SPLIT.fullmatch(folder.name) and folder.parent.name:
            return f"{folder.parent.name}-{folder.name}"  # poleval2021/test-A: both
        return folder.name or stem
    return stem


# gonito's file names (expected.tsv, in.tsv, out.tsv) and its split folders (dev-0, test-A)
_GONITO_FILE = re.compile(r"(expected|in|out)([-.=].*)?", re.IGNORECASE)
_GONITO_SPLIT = re.compile(r"(dev|test|train)(-[0-9A-Za-z]+)?", re.IGNORECASE)
