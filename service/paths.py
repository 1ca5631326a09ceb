"""Where the project's own data lives (vocabulary, shapes, dataset descriptions, demo data)."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
ONTOLOGY_DIR = PROJECT_ROOT / "ontology"
SHAPES_DIR = PROJECT_ROOT / "shapes"
DATASETS_DIR = PROJECT_ROOT / "datasets"
DEMO_DIR = DATASETS_DIR / "demo"
