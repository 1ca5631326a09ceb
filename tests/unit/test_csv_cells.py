"""Every CSV the web serves (leaderboards, listings, an experiment's tasks, a task's questions)
is written by ``service.csv_table``: a text cell that a spreadsheet would run as a formula —
a question, a system's name or an answer as someone uploaded it — is served as text."""

from __future__ import annotations

import csv
import io

import pytest

from service.csv_table import cell_text, csv_table, items_cell, split_items


def test_formula_cells_are_served_as_text_and_numbers_as_they_are() -> None:
    rows = [
        ['=HYPERLINK("http://x.example/","click")', "-1", -0.5, None],
        ["@SUM(A1:A9)", "+49 30 1234", "\tindented", "Berlin"],
    ]
    read = list(csv.reader(io.StringIO(csv_table(["a", "b", "c", "d"], rows).decode())))
    assert read[0] == ["a", "b", "c", "d"]
    assert read[1] == ['\'=HYPERLINK("http://x.example/","click")', "-1", "-0.5", ""]
    assert read[2] == ["'@SUM(A1:A9)", "'+49 30 1234", "'\tindented", "Berlin"]


TRICKY = ["a | b", "C:\\temp\\", "line1\nline2", 'say "hi", then', "|", " | ", "\\|", "", " x "]


@pytest.mark.parametrize("items", [TRICKY, TRICKY[::-1], ["plain"], ["a", ""], []])
def test_a_multi_item_cell_reads_back_as_exactly_its_items(items: list[str]) -> None:
    """An answer ``Jupiter | Saturn`` read back as two answers (explore29 11): inside an item
    ``\\`` is ``\\\\`` and ``|`` is ``\\|``, so each unescaped `` | `` separates, through the
    CSV's own quoting too."""
    table = csv_table(["id", "given"], [["1", items_cell(items)]])
    assert table.endswith(b"\r\n")
    read = list(csv.reader(io.StringIO(table.decode(), newline="")))
    assert split_items(read[1][1]) == items


def test_items_without_a_bar_or_a_backslash_are_joined_as_before() -> None:
    assert items_cell(["<http://x.org/a>", "Berlin @en", "2 (xsd:integer)"]) == (
        "<http://x.org/a> | Berlin @en | 2 (xsd:integer)"
    )
    assert items_cell(["Jupiter | Saturn"]).split(" | ") == ["Jupiter \\| Saturn"]


GUARDED = ["=x", "'=x", "'x", "+1", "-", "@a", "a | b", "\\", "", "'", "-1"]


@pytest.mark.parametrize("first", GUARDED)
def test_a_guarded_cell_reads_back_whatever_its_first_item(first: str) -> None:
    """The guard's ``'`` went before the first item, so ``=x`` and ``'=x`` were both written
    ``'=x`` (explore31 F9): an item's own leading ``'`` is ``\\'``, and the reader takes the
    guard off the cell before splitting it."""
    items = [first, *(i for i in GUARDED if i != first)]
    for cell_items in (items, [first, "b"]):
        table = csv_table(["given"], [[items_cell(cell_items)]])
        read = list(csv.reader(io.StringIO(table.decode(), newline="")))
        assert split_items(read[1][0]) == cell_items


@pytest.mark.parametrize("text", [*GUARDED, "''", "' x", "plain"])
def test_every_text_cell_reads_back_with_one_leading_quote_taken_off(text: str) -> None:
    table = csv_table(["name"], [[text]])
    assert cell_text(next(iter(csv.reader(io.StringIO(table.decode()[6:], newline=""))))[0]) == text
