"""The build backend: setuptools', writing the commit the wheel is built from into it.

An experiment names the evaluator that scored it by release and commit (``service.release``).
Run from a checkout, git tells the commit; a ``pip install .`` puts the package where there is
no ``.git``, so its experiments named the release alone. A wheel built from a git checkout
therefore carries ``service/REVISION`` (``release.built_from``), which exists only while the
wheel is built: the checkout's own runs keep asking git.

The package reads the vocabulary, the shapes and the dataset descriptions from the checkout's
top-level ``ontology/``, ``shapes/`` and ``datasets/`` (``service.paths``). An installed wheel
has no checkout beside it, so the wheel carries copies of the three folders as the package's
data, ``service/_data/``, which likewise exists only while the wheel is built; the sdist
carries the folders where they are (MANIFEST.in), so a wheel built from it gets them too.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403  (the PEP 517 hooks this backend keeps)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from service import paths, release  # the checkout's, found through the line above


def _bundle_data() -> None:
    """Copy ontology/, shapes/ and datasets/ into the package for the wheel (service/_data/)."""
    _drop_bundle()
    for name in paths.DATA_FOLDERS:
        shutil.copytree(paths.PROJECT_ROOT / name, paths.BUNDLED_DATA / name)


def _drop_bundle() -> None:
    shutil.rmtree(paths.BUNDLED_DATA, ignore_errors=True)
    # setuptools' build/lib of an earlier build would carry files since removed into the wheel
    shutil.rmtree(paths.PROJECT_ROOT / "build" / "lib" / "service" / "_data", ignore_errors=True)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # type: ignore[no-untyped-def]
    source = release.from_checkout()
    if source is not None:  # no git here (an archive): the release alone, as before
        release.BUILT_FROM.write_text(release.built_from(source), encoding="utf-8")
    try:
        _bundle_data()
        return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)
    finally:
        _drop_bundle()
        release.BUILT_FROM.unlink(missing_ok=True)
