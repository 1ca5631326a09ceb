"""System names in two Unicode forms: ``café`` (U+00E9) and ``cafe`` + U+0301 were two
systems that look the same, and the "name in use" warning missed it (explore63 F1)."""

from __future__ import annotations

NFC, NFD = "caf\u00e9", "cafe\u0301"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def test_a_submitted_name_is_kept_in_nfc_and_a_stored_nfd_name_is_in_use() -> None:
    import pyoxigraph as ox

    from service.experiments.rescore import published_under
    from service.graph.adapter import Side
    from service.graph.store import open_storage
    from service.graph.uris import GERBIL, GQA
    from service.web.submission import FileUpload, RawSubmission, RawSystem, to_spec

    answers = FileUpload("a.json", b"{}", None, "answers_format")
    systems = (RawSystem(f" {NFD} ", answers), RawSystem(NFD, url="http://e.org/q"))
    spec, _ = to_spec(RawSubmission("qald-9", None, systems, "fair", None, (), None), kbs={})
    assert [s.name for s in spec.systems] == [NFC, NFC]

    with open_storage(None, catalog=False) as storage:  # a name stored before, decomposed
        task, experiment = ox.NamedNode("http://e.org/task"), ox.NamedNode("http://e.org/1")
        storage.store.add(
            Side.PUBLIC,
            [
                ox.Quad(task, ox.NamedNode(RDF_TYPE), ox.NamedNode(GQA + "Task")),
                ox.Quad(task, ox.NamedNode("http://purl.org/linked-data/cube#dataSet"), experiment),
                ox.Quad(
                    task, ox.NamedNode(GERBIL + "annotator"), ox.NamedNode(storage.uris.system(NFD))
                ),
            ],
        )
        assert published_under(storage, [storage.uris.system(NFC)], None) == {NFD: ["1"]}
        # explore66 F1: that stored name is another system, not "the same system"
        from service.experiments.rescore import name_in_use_note

        note = name_in_use_note({NFD: ["1"]}, own=[NFC]) or ""
        assert "system/cafe%CC%81 by experiment 1" in note and "a different system" in note
        assert "as the same system" not in note and "withdraw this experiment" in note
        same = name_in_use_note({NFD: ["1"]}, own=[NFD]) or ""
        assert "as the same system" in same and "different" not in same
