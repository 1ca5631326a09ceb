"""Every CSV the web serves (leaderboards, listings, an experiment's tasks, a task's questions)
is written by ``pages.csv_table``: a text cell that a spreadsheet would run as a formula —
a question, a system's name or an answer as someone uploaded it — is served as text."""

from __future__ import annotations

import csv
import io

from service.web.pages import csv_table


def test_formula_cells_are_served_as_text_and_numbers_as_they_are() -> None:
    rows = [
        ['=HYPERLINK("http://x.example/","click")', "-1", -0.5, None],
        ["@SUM(A1:A9)", "+49 30 1234", "\tindented", "Berlin"],
    ]
    read = list(csv.reader(io.StringIO(csv_table(["a", "b", "c", "d"], rows).decode())))
    assert read[0] == ["a", "b", "c", "d"]
    assert read[1] == ['\'=HYPERLINK("http://x.example/","click")', "-1", "-0.5", ""]
    assert read[2] == ["'@SUM(A1:A9)", "'+49 30 1234", "'\tindented", "Berlin"]
