"""The build backend: setuptools', writing the commit the wheel is built from into it.

An experiment names the evaluator that scored it by release and commit (``service.release``).
Run from a checkout, git tells the commit; a ``pip install .`` puts the package where there is
no ``.git``, so its experiments named the release alone. A wheel built from a git checkout
therefore carries ``service/REVISION`` (``release.built_from``), which exists only while the
wheel is built: the checkout's own runs keep asking git.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403  (the PEP 517 hooks this backend keeps)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from service import release  # the checkout's, found through the line above


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # type: ignore[no-untyped-def]
    source = release.from_checkout()
    if source is None:  # no git here (an archive): the release alone, as before
        return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)
    release.BUILT_FROM.write_text(release.built_from(source), encoding="utf-8")
    try:
        return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)
    finally:
        release.BUILT_FROM.unlink(missing_ok=True)
