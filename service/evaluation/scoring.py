"""Per-question P/R/F rules and the aggregates computed from them, one scheme per tool.

``standard`` is DESIGN §3's (GERBIL's) rule set; ``qald6`` reproduces QALD-5/6
``evaluation.rb``; ``qald-legacy`` reproduces QALD-1..4 ``Evaluation.py``. Aggregates are always
computed from the per-question records (STYLE §5); undefined values are ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Protocol

from service.evaluation.matchers.base import Judged
from service.evaluation.results import QuestionScore

PRF = tuple[float, float, float]


def fscore(precision: float, recall: float) -> float:
    """Harmonic mean; 0 when both are 0."""
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def standard_prf(tp: int, fp: int, fn: int) -> PRF:
    """DESIGN §3 / GERBIL: nothing to find and nothing found is perfect (1, 1, 1); no true
    positive otherwise is (0, 0, 0); else P = TP/(TP+FP), R = TP/(TP+FN), F their harmonic mean."""
    if tp == 0:
        return (1.0, 1.0, 1.0) if fp == 0 and fn == 0 else (0.0, 0.0, 0.0)
    p = tp / (tp + fp)
    r = tp / (tp + fn)
    return p, r, fscore(p, r)


class Scoring(Protocol):
    """A scheme: the per-question rule and the two aggregations.

    ``micro`` and ``macro`` get the scored per-question records of one scope (every scored
    question, or only the processed ones) and return (P, R, F1), or ``None`` when undefined.
    They read only the records' counts (``tp``, ``fp``, ``fn``, ``n_gold``, ``n_system``) and
    per-question values (``precision``, ``recall``, ``f1``), so a vectorised twin over those
    columns can be tested equal to them.
    """

    name: str
    # Macro F1 QALD's empty answer (P = 1, R = 0) is an answer the system gave: a question it
    # did not answer is its own P there too (0 under the rules that score it 0). Before, a
    # failed call counted as an empty answer, so a flaky service gained QALD precision from
    # its failures (explore28 F1); the tools we reproduce keep GERBIL's reading.
    qald_answered_only: bool
    # A question the system did not answer scores as an empty answer would, everywhere (GERBIL
    # reads a missing answer as empty): the warning naming such questions says so, where under
    # the other schemes it says they are scored as not answered (explore33 F7).
    missing_as_empty: bool

    def question(self, judged: Judged, *, processed: bool) -> PRF: ...

    def micro(self, rows: Sequence[QuestionScore]) -> PRF | None: ...

    def macro(self, rows: Sequence[QuestionScore]) -> PRF | None: ...


def _sum_p(rows: Sequence[QuestionScore]) -> float:
    # scored rows always have P and R; "or 0.0" only satisfies the types
    return sum(r.precision or 0.0 for r in rows)


def _sum_r(rows: Sequence[QuestionScore]) -> float:
    return sum(r.recall or 0.0 for r in rows)


def standard_micro(rows: Sequence[QuestionScore]) -> PRF | None:
    """Micro P/R/F1: the standard rule on the counts summed over ``rows`` (undefined if none)."""
    if not rows:
        return None
    tp = sum(r.tp or 0 for r in rows)
    fp = sum(r.fp or 0 for r in rows)
    fn = sum(r.fn or 0 for r in rows)
    return standard_prf(tp, fp, fn)


class StandardScoring:
    """Micro P/R/F from summed counts with the same rule; macro = means of per-question values."""

    __slots__ = ()  # stateless
    name = "standard"
    qald_answered_only = False
    missing_as_empty = True

    def question(self, judged: Judged, *, processed: bool) -> PRF:
        return standard_prf(judged.tp, judged.fp, judged.fn)

    def micro(self, rows: Sequence[QuestionScore]) -> PRF | None:
        return standard_micro(rows)

    def macro(self, rows: Sequence[QuestionScore]) -> PRF | None:
        if not rows:
            return None
        n = len(rows)
        return (_sum_p(rows) / n, _sum_r(rows) / n, sum(r.f1 or 0.0 for r in rows) / n)


class AnsweredScoring(StandardScoring):
    """The standard rule for answers given; a question the system did not answer (its call
    failed, or the answer file has no entry for it) scores (0, 0, 0). Under the standard rule
    it was "nothing found": 1/1/1 wherever the gold has nothing to find, so a system that
    answered nothing scored C2KB 0.46 and AIT2KB 0.86 on TEXT2SPARQL'25 CK25 (explore25 1).
    Our own profiles use it; ``gerbil`` keeps GERBIL's rule, which it reproduces."""

    __slots__ = ()  # stateless
    name = "standard-answered"
    missing_as_empty = False

    def question(self, judged: Judged, *, processed: bool) -> PRF:
        if not processed:
            return 0.0, 0.0, 0.0
        return standard_prf(judged.tp, judged.fp, judged.fn)


def set_prf(tp: int, fp: int, fn: int) -> PRF:
    """pytrec_eval's ``set_P``/``set_recall``/``set_F`` as TEXT2SPARQL'25 used them: no hit
    (no relevant item, nothing retrieved, or nothing in common) is (0, 0, 0), also when both
    sets are empty; else P = TP/(TP+FP), R = TP/(TP+FN), F their harmonic mean."""
    if tp == 0:
        return (0.0, 0.0, 0.0)
    p = tp / (tp + fp)
    r = tp / (tp + fn)
    return p, r, fscore(p, r)


class AnsweredQaldScoring(AnsweredScoring):
    """:class:`AnsweredScoring`, and in Macro F1 QALD too a question not answered is no empty
    answer: its P is 0 (``fair`` and ``exact`` 1.2.0)."""

    __slots__ = ()  # stateless
    name = "standard-answered+qald"
    qald_answered_only = True


class SetScoring(StandardScoring):
    """TEXT2SPARQL'25: per question :func:`set_prf`; the aggregations are the standard ones
    (macro = the challenge's averages, plain means over every scored question × language)."""

    __slots__ = ()  # stateless
    name = "set"

    def question(self, judged: Judged, *, processed: bool) -> PRF:
        return set_prf(judged.tp, judged.fp, judged.fn)


class SetQaldScoring(SetScoring):
    """:class:`SetScoring`, and in Macro F1 QALD a question not answered is no empty answer:
    its P is 0, as its set_P is (``text2sparql`` 1.3.0)."""

    __slots__ = ()  # stateless
    name = "set+qald"
    qald_answered_only = True
    missing_as_empty = False  # an empty answer is P = 1 in Macro F1 QALD, a missing one 0


def _ratio(a: float, b: float) -> float:
    # evaluation.rb: "if denominator == 0 then 0"
    return a / b if b else 0.0


class Qald6Scoring:
    """QALD-5/6 ``evaluation.rb``.

    Per question: a question missing from the answer file (or whose call failed) is not
    processed and scores 0; an empty gold set scores 1 for an empty answer, else 0; otherwise
    P = 1 for an empty answer else correct/|user|, R = correct/|gold|. Aggregates over all gold
    questions and (``processed…``) over the processed ones: micro P = Σcorrect/Σ|user|,
    micro R = Σcorrect/Σ|gold|; macro P and R the means; every F is the F of its P and R;
    a zero denominator gives 0.
    """

    __slots__ = ()  # stateless
    name = "qald6"
    qald_answered_only = False
    missing_as_empty = False

    def question(self, judged: Judged, *, processed: bool) -> PRF:
        if not processed:
            return 0.0, 0.0, 0.0
        if judged.n_gold == 0:
            return (1.0, 1.0, 1.0) if judged.n_system == 0 else (0.0, 0.0, 0.0)
        p = 1.0 if judged.n_system == 0 else judged.tp / judged.n_system
        r = judged.tp / judged.n_gold
        return p, r, fscore(p, r)

    def micro(self, rows: Sequence[QuestionScore]) -> PRF | None:
        # an unprocessed question has no answers: it adds to the gold count only
        correct = sum(r.tp or 0 for r in rows)
        user = sum(r.n_system or 0 for r in rows)
        gold = sum(r.n_gold or 0 for r in rows)
        p, r = _ratio(correct, user), _ratio(correct, gold)
        return p, r, fscore(p, r)

    def macro(self, rows: Sequence[QuestionScore]) -> PRF | None:
        p, r = _ratio(_sum_p(rows), len(rows)), _ratio(_sum_r(rows), len(rows))
        return p, r, fscore(p, r)


class Qald6QaldScoring(Qald6Scoring):
    """:class:`Qald6Scoring`, and in Macro F1 QALD too a question not answered (missing from
    the answer file, or its call failed) is evaluation.rb's unprocessed question: P = 0, not
    the P = 1 of an empty answer (``qald6`` 1.2.0). Before, one result held two QALD macro
    F1s, 0.8 and 0.889, differing only by this (explore33 F6)."""

    __slots__ = ()  # stateless
    name = "qald6+qald"
    qald_answered_only = True


def round5(value: float) -> float:
    """Python 2's ``round(x, 5)`` (half away from zero on the exact binary value), as the
    QALD-1..4 scripts ran it."""
    return float(Decimal(value).quantize(Decimal("0.00001"), rounding=ROUND_HALF_UP))


class LegacyScoring:
    """QALD-1..4 ``Evaluation.py`` (QALD-3 ``Evaluation_Task1.py``, "Jela 5.5").

    Per question: a question not answered (missing from the answer file, or its call failed)
    0, whatever its gold (the script's global means count a missing question 0; before
    ``qald-legacy`` 1.1.0 one whose gold was empty scored 1, explore33 F7); both empty 1/1/1;
    empty user answer 0; no correct item 0; else R = round5(c/|gold|), P = round5(c/|user|),
    F = round5(2PR/(P+R)) from the rounded P and R. Global: the means of P and of R over all
    gold questions and the F of those means (0 when either mean is 0). Micro values (not in
    the tool) use the standard rule on summed counts.
    """

    __slots__ = ()  # stateless
    name = "qald-legacy"
    qald_answered_only = False
    missing_as_empty = False

    def question(self, judged: Judged, *, processed: bool) -> PRF:
        if not processed:
            return 0.0, 0.0, 0.0
        c, u, g = judged.tp, judged.n_system, judged.n_gold
        if u == 0:
            return (1.0, 1.0, 1.0) if g == 0 else (0.0, 0.0, 0.0)
        if c == 0:
            return 0.0, 0.0, 0.0
        r = round5(float(Decimal(c) / Decimal(g)))
        p = round5(float(Decimal(c) / Decimal(u)))
        return p, r, round5((2 * p * r) / (r + p))

    def micro(self, rows: Sequence[QuestionScore]) -> PRF | None:
        return standard_micro(rows)

    def macro(self, rows: Sequence[QuestionScore]) -> PRF | None:
        if not rows:
            return None
        p = _sum_p(rows) / len(rows)
        r = _sum_r(rows) / len(rows)
        return p, r, 0.0 if p == 0 or r == 0 else 2 * r * p / (p + r)


STANDARD = StandardScoring()
ANSWERED = AnsweredScoring()  # fair and exact 1.1.0, text2sparql 1.2.0's sub-experiments
ANSWERED_QALD = AnsweredQaldScoring()
SET = SetScoring()
SET_QALD = SetQaldScoring()
QALD6 = Qald6Scoring()  # qald6 1.1.0
QALD6_QALD = Qald6QaldScoring()
LEGACY = LegacyScoring()
SCHEMES: dict[str, Scoring] = {
    s.name: s for s in (STANDARD, ANSWERED, ANSWERED_QALD, SET, SET_QALD, QALD6, QALD6_QALD, LEGACY)
}
