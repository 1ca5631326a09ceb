"""GERBIL QA for Python: benchmarking question answering systems, linked-data native."""

__version__ = "0.1.0"
