"""Where the project's own data lives (vocabulary, shapes, dataset descriptions, demo data).

The top-level folders ``ontology/``, ``shapes/`` and ``datasets/`` of the checkout are the
source, read in place by a checkout and an editable install (``make install``). A wheel
(``pip install .``) has no checkout beside the package, so its build copies the three folders
into the package as ``service/_data/`` (build_support/revision_backend.py), read from there.
"""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# the copies a wheel carries; in a checkout only while a wheel is being built
BUNDLED_DATA = Path(__file__).resolve().parent / "_data"
DATA_FOLDERS = ("ontology", "shapes", "datasets")


def _data_root() -> Path:
    """The checkout where it is one, else the installed package's copies."""
    if (PROJECT_ROOT / "ontology" / "gerbil-qa.ttl").is_file():
        return PROJECT_ROOT
    return BUNDLED_DATA


DATA_ROOT = _data_root()
ONTOLOGY_DIR = DATA_ROOT / "ontology"
SHAPES_DIR = DATA_ROOT / "shapes"
DATASETS_DIR = DATA_ROOT / "datasets"
DEMO_DIR = DATASETS_DIR / "demo"
