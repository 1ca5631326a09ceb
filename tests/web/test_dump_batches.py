"""The public dump is written in batches (bounded memory for any store size) and still reads
as the same dataset: N-Quads and TriG batches concatenate into one document."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from service.web import resources


def _dataset(body: bytes, fmt: ox.RdfFormat) -> set[str]:
    return {str(q) for q in ox.parse(body, format=fmt)}


@pytest.mark.parametrize(
    ("ext", "fmt"), [("nq", ox.RdfFormat.N_QUADS), ("trig", ox.RdfFormat.TRIG)]
)
def test_a_dump_in_small_batches_is_the_same_dataset(server, monkeypatch, ext, fmt) -> None:
    whole = server.get(f"dump.{ext}")
    assert whole.status_code == 200
    expected = _dataset(whole.content, fmt)
    # ~40 batches: a batch of 7 quads made thousands of them (25 s a format) for no more
    # boundaries of a kind (a graph's or a blank node's) than forty give
    size = max(7, len(expected) // 40)
    monkeypatch.setattr(resources, "DUMP_BATCH", size)
    batched = server.get(f"dump.{ext}")
    assert batched.status_code == 200
    assert len(expected) > size * 3  # several batches
    assert _dataset(batched.content, fmt) == expected
    if ext == "trig":  # each batch declared its prefixes: they are there more than once
        assert batched.text.count("@prefix") > whole.text.count("@prefix")
