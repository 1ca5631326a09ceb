"""The QALD-1..4 scorer (ag-sc/QALD Evaluation.py).

1.1.0 (explore33 F7): a question not answered (missing from the answer file, or its call
failed) scores 0 whatever its gold, as the description always said ("missing ones count 0");
one whose gold was empty scored 1/1/1, under a warning saying "scored as not answered".
"""

from __future__ import annotations

from service.evaluation.matchers.qald import LegacyMatcher
from service.evaluation.profiles.base import QA_ONLY, OlderVersion, Profile
from service.evaluation.scoring import LEGACY

PROFILE = Profile(
    name="qald-legacy",
    version="1.1.0",
    reference="QALD-3-Evaluation.py",
    title="QALD-1 to 4 Evaluation.py",
    description=(
        "The QALD-1..4 scorer (ag-sc/QALD Evaluation.py, as in QALD-3 Evaluation_Task1.py). "
        "Answers are lists, duplicates count: each answer is the list of a row's stripped "
        "values. Both lists empty scores 1; an empty answer 0; otherwise c = number of answer "
        "items found among the gold items (repeats each count, so recall can exceed 1 as in the "
        "script), precision = c/|answers| and recall = c/|gold| rounded to 5 places, F1 from "
        "the rounded values, rounded again. Global precision and recall are the means over all "
        "gold questions (missing ones, and failed calls, count 0 even where the gold is empty) "
        "and the global F1 is the F1 of those means (0 when either is 0). QA only."
    ),
    settings=(
        ("items", "row-lists"),
        ("match", "strip"),
        ("sets", "lists"),
        ("round", "5"),
        ("macro-f", "f-of-means"),
        ("unanswered", "0"),
    ),
    matcher=LegacyMatcher(),
    scoring=LEGACY,
    experiment_types=QA_ONLY,
    older=(OlderVersion("1.0.0", LEGACY),),  # only the per-question rule moved
)
"""QALD-1..4 Evaluation.py. Differences: questions are keyed by id (the script keys the answer
file by question text); all values of a row are compared (the script keeps only the children
of one "chosen" tag type per question); the micro values are ours (the script has none)."""
