"""The QALD-1..4 scorer (ag-sc/QALD Evaluation.py)."""

from __future__ import annotations

from service.evaluation.matchers.qald import LegacyMatcher
from service.evaluation.profiles.base import QA_ONLY, Profile
from service.evaluation.scoring import LEGACY

PROFILE = Profile(
    name="qald-legacy",
    version="1.0.0",
    reference="QALD-3-Evaluation.py",
    title="QALD-1 to 4 Evaluation.py",
    description=(
        "The QALD-1..4 scorer (ag-sc/QALD Evaluation.py, as in QALD-3 Evaluation_Task1.py). "
        "Answers are lists, duplicates count: each answer is the list of a row's stripped "
        "values. Both lists empty scores 1; an empty answer 0; otherwise c = number of answer "
        "items found among the gold items (repeats each count, so recall can exceed 1 as in the "
        "script), precision = c/|answers| and recall = c/|gold| rounded to 5 places, F1 from "
        "the rounded values, rounded again. Global precision and recall are the means over all "
        "gold questions (missing ones count 0) and the global F1 is the F1 of those means (0 "
        "when either is 0). QA only."
    ),
    settings=(
        ("items", "row-lists"),
        ("match", "strip"),
        ("sets", "lists"),
        ("round", "5"),
        ("macro-f", "f-of-means"),
    ),
    matcher=LegacyMatcher(),
    scoring=LEGACY,
    experiment_types=QA_ONLY,
)
"""QALD-1..4 Evaluation.py. Differences: questions are keyed by id (the script keys the answer
file by question text); all values of a row are compared (the script keeps only the children
of one "chosen" tag type per question); the micro values are ours (the script has none)."""
