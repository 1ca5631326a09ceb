"""The files an experiment read, kept beside the store by their SHA-256 (``STORE/files/{sha}``).

An experiment's graph names every uploaded file (dataset, answers, gold) with its SHA-256; the
bytes are kept here before the graph is written, so whoever may see the experiment can download
what it was scored from, and it can be scored again without the original upload (the job's own
copy goes with the job). Content-addressed: a file used by many experiments is kept once, and a
file left by a crash before its graph was written is harmless.
"""

from __future__ import annotations

import re
from pathlib import Path

FILES_DIR = "files"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def keep(work_dir: Path, sha256: str, data: bytes) -> Path:
    """Keep ``data`` under its SHA-256 (written once, atomically)."""
    from service.experiments.jobs import write_atomically

    path = work_dir / FILES_DIR / sha256
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, data)
    return path


def kept(work_dir: Path | None, sha256: str, *, experiment_id: str, name: str) -> bytes | None:
    """The bytes of a file an experiment used, by SHA-256: a kept upload, else the answer file
    its run archived (``STORE/answers/{id}/{name}``, checked against the SHA-256)."""
    import hashlib

    if work_dir is None or not _SHA256.match(sha256):
        return None
    path = work_dir / FILES_DIR / sha256
    if path.is_file():
        return path.read_bytes()
    archived = work_dir / "answers" / experiment_id / Path(name).name
    if archived.is_file():
        data = archived.read_bytes()
        if hashlib.sha256(data).hexdigest() == sha256:
            return data
    return None
