"""How the graph names an experiment's dataset when it is recorded (imported only then)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from service.experiments.inputs import Files, media_type_of
from service.experiments.spec import CatalogueDataset, DatasetSource, FileDataset

if TYPE_CHECKING:
    from service.graph.catalogue import CatalogueRepository
    from service.graph.results import DatasetRef, UploadedFile
    from service.model import Dataset


@dataclass(frozen=True, slots=True)
class RecordedDataset:
    """How the graph names the experiment's dataset, and its file entity (an upload)."""

    ref: DatasetRef
    upload: UploadedFile | None
    stored_questions: bool  # a catalogue dataset's questions were stored now (a public write)


def dataset_record(
    source: DatasetSource,
    dataset: Dataset,
    files: Files,
    catalogue: CatalogueRepository,
) -> RecordedDataset:
    """The dataset as the graph names it: a catalogue dataset keeps its public URI (and its
    questions are stored in its public graph if they are not yet); a file byte-identical to a
    catalogue dataset's distribution is that dataset (same SHA-256: it joins its leaderboard);
    any other file is an uploaded dataset, described inside the experiment's graph."""
    from service.graph.results import DatasetRef, UploadedFile

    upload: UploadedFile | None = None
    name: str | None = None
    sha: str | None = None
    if isinstance(source, CatalogueDataset):
        name = source.name
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
        return RecordedDataset(DatasetRef.catalogue(name, dataset, sha256=sha), upload, stored)
    label = dataset_label(source, dataset)
    return RecordedDataset(DatasetRef.upload(label, dataset, sha256=sha), upload, False)


def dataset_label(source: DatasetSource, dataset: Dataset) -> str:
    """What the results call the dataset: its title, its id, or its file's name."""
    if isinstance(source, FileDataset) and source.title:
        return source.title
    if dataset.id:
        return dataset.id
    name = source.file.name if isinstance(source, FileDataset) else dataset.source
    return PurePosixPath(name).stem if name else "dataset"
