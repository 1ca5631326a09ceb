"""Per-question P/R/F rules and the aggregates computed from them, one scheme per tool.

``standard`` is DESIGN §3's (GERBIL's) rule set; ``qald6`` reproduces QALD-5/6
``evaluation.rb``; ``qald-legacy`` reproduces QALD-1..4 ``Evaluation.py``. Aggregates are always
computed from the per-question records (STYLE §5); undefined values are ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple, Protocol

from service.evaluation.matchers.base import Judged
from service.evaluation.results import Measure

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


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


class Row(NamedTuple):
    """One scored question as the aggregation sees it."""

    judged: Judged
    prf: PRF
    processed: bool


def qald_prf(row: Row) -> tuple[float, float]:
    """Macro F1 QALD's per-question values: an empty answer to a question with gold answers is
    P = 1, R = 0 (GERBIL QA, dice-group/gerbil#211); otherwise the profile's own values."""
    if row.judged.n_system == 0 and row.judged.n_gold > 0:
        return 1.0, 0.0
    return row.prf[0], row.prf[1]


def standard_micro(rows: Sequence[Row]) -> dict[str, Measure]:
    """Micro P/R/F1: the standard rule on the counts summed over ``rows`` (undefined if none)."""
    if not rows:
        return {"microPrecision": None, "microRecall": None, "microF1": None}
    tp = sum(r.judged.tp for r in rows)
    fp = sum(r.judged.fp for r in rows)
    fn = sum(r.judged.fn for r in rows)
    p, r, f = standard_prf(tp, fp, fn)
    return {"microPrecision": p, "microRecall": r, "microF1": f}


def common_measures(rows: Sequence[Row]) -> dict[str, Measure]:
    """macroF1QALD and accuracy, the same for every scheme."""
    out: dict[str, Measure] = {}
    pr = [qald_prf(r) for r in rows]
    mp = _mean([p for p, _ in pr])
    mr = _mean([r for _, r in pr])
    out["macroF1QALD"] = None if mp is None or mr is None or mp + mr == 0 else fscore(mp, mr)
    if rows and all(r.judged.credit is not None for r in rows):
        out["accuracy"] = _mean([r.judged.credit or 0.0 for r in rows])
    else:
        out["accuracy"] = _mean([1.0 if r.prf[0] == 1 and r.prf[1] == 1 else 0.0 for r in rows])
    return out


class Scoring(Protocol):
    """A scheme: the per-question rule and the aggregates."""

    name: str

    def question(self, judged: Judged, *, processed: bool) -> PRF: ...

    def aggregate(self, rows: Sequence[Row]) -> dict[str, Measure]: ...


class StandardScoring:
    """Micro P/R/F from summed counts with the same rule; macro = means of per-question values."""

    __slots__ = ()  # stateless
    name = "standard"

    def question(self, judged: Judged, *, processed: bool) -> PRF:
        return standard_prf(judged.tp, judged.fp, judged.fn)

    def aggregate(self, rows: Sequence[Row]) -> dict[str, Measure]:
        out = standard_micro(rows)
        out["macroPrecision"] = _mean([r.prf[0] for r in rows])
        out["macroRecall"] = _mean([r.prf[1] for r in rows])
        out["macroF1"] = _mean([r.prf[2] for r in rows])
        out.update(common_measures(rows))
        return out


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

    def question(self, judged: Judged, *, processed: bool) -> PRF:
        if not processed:
            return 0.0, 0.0, 0.0
        if judged.n_gold == 0:
            return (1.0, 1.0, 1.0) if judged.n_system == 0 else (0.0, 0.0, 0.0)
        p = 1.0 if judged.n_system == 0 else judged.tp / judged.n_system
        r = judged.tp / judged.n_gold
        return p, r, fscore(p, r)

    def aggregate(self, rows: Sequence[Row]) -> dict[str, Measure]:
        done = [r for r in rows if r.processed]
        correct = sum(r.judged.tp for r in done)
        user = sum(r.judged.n_system for r in done)
        gold_done = sum(r.judged.n_gold for r in done)
        gold_all = sum(r.judged.n_gold for r in rows)
        sum_p = sum(r.prf[0] for r in rows)
        sum_r = sum(r.prf[1] for r in rows)
        out: dict[str, Measure] = {}
        for prefix, gold, n in (("", gold_all, len(rows)), ("processed", gold_done, len(done))):
            micro_p, micro_r = _ratio(correct, user), _ratio(correct, gold)
            macro_p, macro_r = _ratio(sum_p, n), _ratio(sum_r, n)
            for avg, p, r in (("micro", micro_p, micro_r), ("macro", macro_p, macro_r)):
                base = f"{prefix}{avg.capitalize()}" if prefix else avg
                out[f"{base}Precision"] = p
                out[f"{base}Recall"] = r
                out[f"{base}F1"] = fscore(p, r)
        out.update(common_measures(rows))
        return dict(sorted(out.items(), key=lambda kv: kv[0].startswith("processed")))


def round5(value: float) -> float:
    """Python 2's ``round(x, 5)`` (half away from zero on the exact binary value), as the
    QALD-1..4 scripts ran it."""
    return float(Decimal(value).quantize(Decimal("0.00001"), rounding=ROUND_HALF_UP))


class LegacyScoring:
    """QALD-1..4 ``Evaluation.py`` (QALD-3 ``Evaluation_Task1.py``, "Jela 5.5").

    Per question: both empty 1/1/1; empty user answer 0; no correct item 0; else
    R = round5(c/|gold|), P = round5(c/|user|), F = round5(2PR/(P+R)) from the rounded P and R.
    Global: the means of P and of R over all gold questions and the F of those means (0 when
    either mean is 0). Micro values (not in the tool) use the standard rule on summed counts.
    """

    __slots__ = ()  # stateless
    name = "qald-legacy"

    def question(self, judged: Judged, *, processed: bool) -> PRF:
        c, u, g = judged.tp, judged.n_system, judged.n_gold
        if u == 0:
            return (1.0, 1.0, 1.0) if g == 0 else (0.0, 0.0, 0.0)
        if c == 0:
            return 0.0, 0.0, 0.0
        r = round5(float(Decimal(c) / Decimal(g)))
        p = round5(float(Decimal(c) / Decimal(u)))
        return p, r, round5((2 * p * r) / (r + p))

    def aggregate(self, rows: Sequence[Row]) -> dict[str, Measure]:
        out = standard_micro(rows)
        if rows:
            p = sum(r.prf[0] for r in rows) / len(rows)
            r_ = sum(r.prf[1] for r in rows) / len(rows)
            out["macroPrecision"], out["macroRecall"] = p, r_
            out["macroF1"] = 0.0 if p == 0 or r_ == 0 else 2 * r_ * p / (p + r_)
        else:
            out["macroPrecision"] = out["macroRecall"] = out["macroF1"] = None
        out.update(common_measures(rows))
        return out


STANDARD = StandardScoring()
QALD6 = Qald6Scoring()
LEGACY = LegacyScoring()
