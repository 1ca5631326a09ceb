"""Confidence and ranking measures (CLEF 2004 K, K1, r; TREC CWS; MRR; Hits@k).

Definitions (seed 004; every choice the paper leaves open is stated here):

* The answer items of a question are the system's values in its order (row order is the
  system's ranking); the profile's matching judges each one correct, repeated (the same answer
  again) or wrong. An empty answer is one **NIL** answer, correct iff the gold set is empty, as
  CLEF required systems to answer NIL.
* A question's confidence (eQALD ``confidence``) applies to each of its answer items; a
  question without one has confidence 0, CLEF's "no knowledge" baseline.
* ``R(i)``, the number of known distinct correct answers, is the number of distinct gold items
  under the profile (1 for an empty gold set: the NIL answer).
* **K** = mean over questions of Σ_r score(r)·eval(r) / max(R(i), answered(i)), eval 1 correct,
  0 repeated, -1 wrong; answered(i) the number of answer items (NIL counts as one).
* **K1** = mean over questions of score·eval of the top-ranked item only (eval 1 correct, -1
  otherwise), which is the paper's formula for systems giving one answer per question and
  keeps K1 in [-1, 1] for list answers.
* **r** = Pearson correlation over every answer item of (confidence, 1 if correct else 0);
  undefined with fewer than two items or zero variance in either (the paper's N/A).
* **CWS** = (1/Q) Σ_{i=1..Q} (correct questions among the first i) / i, questions ordered by
  confidence, highest first, ties in dataset order; a question is correct when its top-ranked
  item is.
* **MRR** = mean of 1/rank of the first correct item (0 if none); **Hits@k** = share of
  questions with a correct item in the first k.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import sqrt
from typing import NamedTuple

from service.evaluation.results import Measure, Verdict


class Ranked(NamedTuple):
    """One question as the confidence measures see it."""

    confidence: float | None
    verdicts: tuple[Verdict, ...]  # the system's answer items in rank order
    gold_size: int  # distinct gold items

    @property
    def items(self) -> tuple[Verdict, ...]:
        """The answer items, an empty answer being one NIL item."""
        if self.verdicts:
            return self.verdicts
        return (Verdict.CORRECT if self.gold_size == 0 else Verdict.WRONG,)

    @property
    def score(self) -> float:
        return self.confidence if self.confidence is not None else 0.0


_EVAL_K = {Verdict.CORRECT: 1.0, Verdict.REPEATED: 0.0, Verdict.WRONG: -1.0}


def k_measure(questions: Sequence[Ranked]) -> float | None:
    if not questions:
        return None
    total = 0.0
    for q in questions:
        items = q.items
        denominator = max(q.gold_size or 1, len(items))
        total += sum(q.score * _EVAL_K[v] for v in items) / denominator
    return total / len(questions)


def k1_measure(questions: Sequence[Ranked]) -> float | None:
    if not questions:
        return None
    return sum(q.score * (1.0 if q.items[0] is Verdict.CORRECT else -1.0) for q in questions) / len(
        questions
    )


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r; ``None`` with fewer than two pairs or a zero variance."""
    n = len(xs)
    # a constant variable has no variance; its mean need not equal its value in floating point
    # (0.1 ten times averages to 0.09999999999999999), so test for constancy, not for sxx == 0
    if n < 2 or min(xs) == max(xs) or min(ys) == max(ys):
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    return sxy / sqrt(sxx * syy)


def r_measure(questions: Sequence[Ranked]) -> float | None:
    scores: list[float] = []
    assess: list[float] = []
    for q in questions:
        for v in q.items:
            scores.append(q.score)
            assess.append(1.0 if v is Verdict.CORRECT else 0.0)
    return pearson(scores, assess)


def cws(questions: Sequence[Ranked]) -> float | None:
    if not questions:
        return None
    order = sorted(range(len(questions)), key=lambda i: -questions[i].score)  # stable: ties
    correct = 0
    total = 0.0
    for rank, i in enumerate(order, start=1):
        if questions[i].items[0] is Verdict.CORRECT:
            correct += 1
        total += correct / rank
    return total / len(questions)


def _first_correct(q: Ranked) -> int | None:
    for rank, v in enumerate(q.items, start=1):
        if v is Verdict.CORRECT:
            return rank
    return None


def mrr(questions: Sequence[Ranked]) -> float | None:
    if not questions:
        return None
    ranks = [_first_correct(q) for q in questions]
    return sum(1.0 / r for r in ranks if r is not None) / len(questions)


def hits_at(questions: Sequence[Ranked], k: int) -> float | None:
    if not questions:
        return None
    ranks = [_first_correct(q) for q in questions]
    return sum(1 for r in ranks if r is not None and r <= k) / len(questions)


def confidence_measures(questions: Sequence[Ranked]) -> dict[str, Measure]:
    """The four confidence measures of ``questions`` (the registry computes each on its own)."""
    return {
        "cws": cws(questions),
        "k1": k1_measure(questions),
        "k": k_measure(questions),
        "r": r_measure(questions),
    }
