"""The official QALD-5/6 scorer (ag-sc/QALD 6/scripts/evaluation.rb).

1.2.0 (explore33 F6): a question not answered (missing from the answer file, or its call
failed) is evaluation.rb's unprocessed question in Macro F1 QALD too: P = 0 there, as in the
macro figures, not the P = 1 of an empty answer (one result held 0.8 and 0.889 as its two QALD
macro F1s). Results of 1.1.0 keep their scheme.
"""

from __future__ import annotations

from service.evaluation.matchers.qald import Qald6Matcher
from service.evaluation.profiles.base import QA_ONLY, OlderVersion, Profile
from service.evaluation.scoring import QALD6, QALD6_QALD

PROFILE = Profile(
    name="qald6",
    version="1.2.0",
    reference="QALD-6-evaluation.rb",
    title="QALD-5/6 evaluation.rb",
    description=(
        "The official QALD-5/6 scorer (ag-sc/QALD 6/scripts/evaluation.rb). Each binding row is "
        "one answer, the multiset of its values (every variable), rows deduplicated; an ASK "
        "answer is its boolean, except that an answer object with a results.bindings array is "
        "read from its bindings even when the array is empty and a boolean is given (so "
        '{"results": {"bindings": []}, "boolean": true} is an empty answer; every other '
        "profile reads that boolean). A value of digits only is compared as value + '.0', any "
        "other value stripped and percent-decoded. An empty gold set scores 1 for an empty answer, "
        "else 0; otherwise precision is 1 for an empty answer, else correct/|answers|, and "
        "recall correct/|gold|. A question missing from the answer file (or whose call failed) "
        "is unprocessed and scores 0, also in Macro F1 QALD (where an empty answer is P = 1). "
        "Reported over all gold questions and (processed*) over the processed ones: micro "
        "precision = sum of correct / sum of answers, micro recall = sum of correct / sum "
        "of gold answers, macro precision and recall the means, every F1 the F1 of its precision "
        "and recall; a zero denominator gives 0. QA only."
    ),
    settings=(
        ("items", "rows"),
        ("boolean", "unless-bindings-array"),
        ("match", "digits+.0,strip+unescape"),
        ("sets", "uniq"),
        ("empty-user", "P=1"),
        ("macro-f", "f-of-means"),
        ("qald-empty", "given"),
    ),
    matcher=Qald6Matcher(),
    scoring=QALD6_QALD,
    older=(OlderVersion("1.1.0", QALD6),),
    experiment_types=QA_ONLY,
    processed_measures=True,
)
"""QALD-5/6 evaluation.rb. Differences: question ids are compared as strings (Ruby converts
them with ``to_i``, so ``"01"`` = ``"1"`` and non-numeric ids collide at 0); a file's several
``answers`` objects are one answer set in our model (the readers merge them)."""
