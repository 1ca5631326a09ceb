"""The ``poleval`` profile's matching: geval ``Accuracy`` with
``LenientHarden/ExtractNumber/Lower/Fuzzy`` (PolEval 2021 Task 4, quiz QA).

Per question (one TSV line) the answer is one string and the gold a list of alternatives; the
credit is the best over the alternatives of:

* ExtractNumber: if the gold alternative yields a number (the first match of
  ``[-+]?[0-9]*\\.[0-9]+|[0-9]+``, else the first whitespace-separated word made only of
  uppercase roman digits ``IVXLCDM`` with a positive value, written in decimal), credit 1 iff
  the answer yields the same number string (``XII`` = ``12``; ``12.0`` ≠ ``12``; the answer
  to ``witamina C`` must contain ``C`` = 100);
* otherwise Lower/Fuzzy: both lower-cased character by character, score
  ``max(0, 1 - Levenshtein(answer, gold) / len(gold))``;
* LenientHarden: credit 1 iff that score is at least 0.5 (an empty gold never matches).

The answer string is the system's values joined by tabs (an ``out.tsv`` line), ``""`` when
the system gave nothing; answer and alternatives are stripped of surrounding whitespace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.evaluation.kbview import NO_REQUESTS, KBRequests, KBView
from service.evaluation.matchers.base import Judged, MatchRule, Verdict
from service.model import AnswerSet

_ARABIC = re.compile(r"[-+]?[0-9]*\.[0-9]+|[0-9]+")
_ROMAN = dict(zip("IVXLCDM", (1, 5, 10, 50, 100, 500, 1000), strict=True))
LENIENT_HARDENING_THRESHOLD = 0.5


def roman_value(word: str) -> int | None:
    """geval's ``romanToInt`` (right to left: add a digit not smaller than the one to its right,
    else subtract it), or ``None`` when the word holds anything but ``IVXLCDM``."""
    total, right = 0, 0
    for ch in reversed(word):
        v = _ROMAN.get(ch)
        if v is None:
            return None
        total = total + v if v >= right else total - v
        right = v
    return total


def extract_number(text: str) -> str | None:
    """geval's ``extractNumber``: the first arabic number, else the first roman numeral word."""
    m = _ARABIC.search(text)
    if m:
        return m.group(0)
    for word in text.split():
        v = roman_value(word)
        if v is not None and v > 0:
            return str(v)
    return None


def _lower(text: str) -> str:
    # Haskell's Data.Char.toLower maps one character to one (U+0130 İ -> i), unlike str.lower.
    return "".join(c.lower()[0] if c.lower() else c for c in text)


def fuzzy_score(answer: str, gold: str) -> float:
    """``max(0, 1 - Levenshtein(answer, gold) / len(gold))``; 0 for an empty gold (geval
    divides by zero and clamps the result to 0)."""
    from rapidfuzz.distance import Levenshtein  # imported here: only poleval needs it

    if not gold:
        return 0.0
    return max(0.0, 1.0 - Levenshtein.distance(answer, gold) / len(gold))


def judge_line(answer: str, gold: str) -> tuple[float, MatchRule]:
    """The credit of ``answer`` against one gold alternative (1.0 or 0.0) and the rule that
    decided it (number extraction when the gold yields a number, else the fuzzy match)."""
    expected_number = extract_number(gold)
    if expected_number is not None:
        score = 1.0 if extract_number(answer) == expected_number else 0.0
        rule = MatchRule.NUMBER_EXTRACT
    else:
        score = fuzzy_score(_lower(answer), _lower(gold))
        rule = MatchRule.FUZZY
    return (1.0 if score >= LENIENT_HARDENING_THRESHOLD else 0.0), rule


def why_not(answer: str, alternatives: Sequence[str]) -> str | None:
    """Why ``answer`` matched none of the gold ``alternatives``, one phrase each (the task page
    and CSV say it: ``1 000`` is wrong for ``1000`` because only ``1`` is extracted); ``None``
    when it does match one (a result scored under another version of these rules)."""
    from rapidfuzz.distance import Levenshtein

    reasons = []
    for gold in alternatives:
        credit, rule = judge_line(answer, gold)
        if credit:
            return None
        if rule is MatchRule.NUMBER_EXTRACT:
            got = extract_number(answer)
            reasons.append(
                f"{gold}: number {got} in the answer, not {extract_number(gold)}"
                if got is not None
                else f"{gold}: no number in the answer (the gold's is {extract_number(gold)})"
            )
        elif not gold:
            reasons.append("an empty gold answer matches nothing")
        else:
            edits = Levenshtein.distance(_lower(answer), _lower(gold))
            reasons.append(f"{gold}: {edits} edits, more than half of its {len(gold)} characters")
    return "; ".join(reasons) or None


class PolEvalMatcher:
    """PolEval 2021 quiz QA (see the module docstring)."""

    __slots__ = ()  # stateless: nothing to change

    def why_not(self, answer: str, alternatives: Sequence[str]) -> str | None:
        """Why an answer line matched no alternative (see :func:`why_not`)."""
        return why_not(answer, alternatives)

    def requests(self, gold: AnswerSet, system: AnswerSet, *, language: str) -> KBRequests:
        return NO_REQUESTS

    def match(
        self,
        gold: AnswerSet,
        system: AnswerSet,
        kb: KBView,
        *,
        language: str,
        answer_type: str | None = None,
    ) -> Judged:
        # geval strips each line (``onlyStrip``) before matching.
        alternatives = [t.value.strip() for t in gold.values()] or [""]
        values = [t.value for t in system.values()]
        answer = "\t".join(values).strip()
        judged = [judge_line(answer, alt) for alt in alternatives]
        credit = max(c for c, _ in judged)
        hit = int(credit)
        best = next(i for i, (c, _) in enumerate(judged) if c == credit)
        matches = ((0, best, judged[best][1]),) if hit and values else ()
        return Judged(
            tp=hit,
            fp=(1 - hit) if values else 0,
            fn=1 - hit,
            n_system=1 if values else 0,
            n_gold=1,
            verdicts=(Verdict.CORRECT if hit else Verdict.WRONG,) if values else (),
            credit=credit,
            gold=tuple(alternatives),
            given=(answer,) if values else (),
            matches=matches,
            ranked=(answer,) if values else (),
        )
