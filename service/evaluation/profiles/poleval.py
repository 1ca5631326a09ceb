"""PolEval 2021 Task 4 (quiz question answering), as geval scores it."""

from __future__ import annotations

from service.evaluation.matchers.poleval import PolEvalMatcher
from service.evaluation.profiles.base import GOLD_ALTERNATIVES, QA_ONLY, Profile
from service.evaluation.scoring import STANDARD

PROFILE = Profile(
    name="poleval",
    version="1.0.0",
    reference="geval-LenientHarden/ExtractNumber/Lower/Fuzzy/Accuracy",
    title="PolEval 2021 quiz",
    # gonito's in.tsv / expected.tsv: a TSV dataset is scored as PolEval unless another is named
    challenge_formats=("tsv",),
    description=(
        "PolEval 2021 Task 4 (quiz question answering), as geval's "
        "LenientHarden/ExtractNumber/Lower/Fuzzy/Accuracy. One answer line per question, the "
        "gold a list of alternatives; the best alternative counts. If the gold alternative "
        "yields a number (the first match of [-+]?[0-9]*\\.[0-9]+|[0-9]+, else the first "
        "uppercase roman numeral word, as decimal), the answer is right iff it yields the same "
        "number string; otherwise both are lower-cased and the answer is right iff its "
        "Levenshtein distance to the gold is at most half the gold's length. Accuracy is the "
        "mean credit; the number of answers must equal the number of questions. QA only; the "
        "default language is Polish."
    ),
    settings=(
        ("items", "line"),
        ("match", "number,levenshtein<=len/2"),
        GOLD_ALTERNATIVES,
        ("metric", "accuracy"),
    ),
    matcher=PolEvalMatcher(),
    scoring=STANDARD,
    experiment_types=QA_ONLY,
    default_language="pl",
    answer_count_must_match=True,
)
