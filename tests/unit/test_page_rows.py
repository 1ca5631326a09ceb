"""What the task page computes from a result: outcome, filters, totals of long lists."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from service.errors import BadRequest
from service.graph.results import EXPLAINED_PER_KIND
from service.web.pages import OUTCOMES, QuestionFilter, QuestionRow, outcome


@pytest.mark.parametrize(
    ("status", "f1", "expected"),
    [
        ("scored", 1.0, "correct"),
        ("scored", 0.4, "partly"),
        ("scored", 0.0, "wrong"),
        ("error", 0.0, "error"),
        ("missing", 0.0, "missing"),
        ("no-text", None, "skipped"),
        ("no-gold", None, "skipped"),
    ],
)
def test_outcome(status: str, f1: float | None, expected: str) -> None:
    assert outcome(status, f1) == expected and expected in OUTCOMES


def row(qid: str, result: str, answer_type: str | None, **features: bool) -> QuestionRow:
    return QuestionRow(
        uri=qid,
        question=qid,
        question_id=qid,
        text=None,
        status="scored",
        measures={},
        given=(),
        gold=(),
        note=None,
        answer_type=answer_type,
        outcome=result,
        features=features,
    )


def test_filter_keeps_rows_by_outcome_answer_type_and_features() -> None:
    rows = [
        row("1", "correct", "number", aggregation=True),
        row("2", "wrong", "number", aggregation=False),
        row("3", "wrong", "resource"),
        row("4", "missing", "resource", aggregation=True),
    ]
    asked = QuestionFilter.from_args(
        MultiDict([("outcome", "wrong"), ("outcome", "missing"), ("aggregation", "no")])
    )
    assert [r.question_id for r in rows if asked.keeps(r)] == ["2"]  # 3 has no value for it
    assert QuestionFilter.from_args(MultiDict({"answertype": "number"})).args() == {
        "answertype": "number"
    }
    everything = QuestionFilter.from_args(MultiDict({"hybrid": "any"}))
    assert not everything.active and all(everything.keeps(r) for r in rows)
    assert asked.args() == {"outcome": ["wrong", "missing"], "aggregation": "no"}


@pytest.mark.parametrize("args", [{"outcome": "great"}, {"hybrid": "maybe"}, {"onlydbo": "1"}])
def test_bad_filter_values_are_named(args: dict[str, str]) -> None:
    with pytest.raises(BadRequest, match=next(iter(args))):
        QuestionFilter.from_args(MultiDict(args))


def test_totals_use_the_counts_when_a_list_was_cut() -> None:
    long = [f"<http://example.org/{i}>" for i in range(EXPLAINED_PER_KIND)]
    cut = QuestionRow(
        uri="r",
        question="q",
        question_id="1",
        text=None,
        status="scored",
        measures={"tp": 0, "fp": 3, "fn": 2150},
        given=(),
        gold=(),
        note=None,
        answer_type=None,
        false=("a", "b", "c"),
        missed=tuple(long),
    )
    assert cut.totals() == (0, 3, 2150)


def test_scores_equal_but_for_float_noise_share_a_rank() -> None:
    """Three leaderboard rows showing one score (an answer file in en, in de, and the pooled
    en,de task, whose mean was summed in another order: 0.5462808599474557 twice and ...556)
    were ranked 1, 1, 3; a real difference still ranks apart."""
    from service.web.listings import LeaderboardRow
    from service.web.ui import _competition_ranks

    def board(*scores: float) -> list[LeaderboardRow]:
        return [
            LeaderboardRow(
                f"t{i}", "e", f"s{i}", "s", "d", "QA", "en", "fair", None, None, {"macroF1": score}
            )
            for i, score in enumerate(scores)
        ]

    def no_query(**_: object) -> list[LeaderboardRow]:
        raise AssertionError("the first page reads no rows before it")

    rows = board(0.5462808599474557, 0.5462808599474557, 0.5462808599474556, 0.54628, 0.5)
    ranks, _ = _competition_ranks(rows, "macroF1", 0, no_query)
    assert list(ranks.values()) == [1, 1, 1, 4, 5]
    # a page starting inside such a tie follows it back
    page_two, _ = _competition_ranks(
        rows[2:], "macroF1", 2, lambda limit, offset: rows[offset:][:limit]
    )
    assert [page_two[r.task] for r in rows[2:]] == [1, 4, 5]


def test_ranks_count_systems_not_runs() -> None:
    """A system published twice (the same answer file in two experiments) was ranked 2 and 2
    and the next system "4th" of three (explore-7 3): its best run on a dataset, language and
    profile takes the rank, its other runs there share it and name that run, on every page."""
    from service.web.listings import LeaderboardRow
    from service.web.ui import _competition_ranks

    def row(task: str, system: str, score: float, language: str = "en") -> LeaderboardRow:
        return LeaderboardRow(
            task, "e", system, system, "d", "QA", language, "fair", None, None, {"macroF1": score}
        )

    rows = [
        row("t1", "gAnswer2", 0.55),
        row("t2", "QAnswer", 0.36),
        row("t3", "QAnswer", 0.36),  # the same file again
        row("t4", "TeBaQA", 0.18),
        row("t5", "QAnswer", 0.10),  # a weaker run of QAnswer, below TeBaQA
        row("t6", "QAnswer", 0.05, language="de"),  # another language: ranked of its own,
    ]  # from 1 (it was 4th of rows it was never ranked against: explore25 13)
    ranks, other_runs = _competition_ranks(rows, "macroF1", 0, lambda **_: [])
    assert [ranks[r.task] for r in rows] == [1, 2, 2, 3, 2, 1]
    assert other_runs == {"t3": "t2", "t5": "t2"}
    # a later page knows the systems ranked before it
    page, later = _competition_ranks(
        rows[3:], "macroF1", 3, lambda limit, offset: rows[offset:][:limit]
    )
    assert [page[r.task] for r in rows[3:]] == [3, 2, 1] and later["t5"] == "t2"


@pytest.mark.parametrize(
    ("status", "missing_text", "said"),
    [
        ("no-gold", None, "no gold"),
        ("no-text", "no pt-BR text", "no pt-BR text"),
        ("scored", None, None),
        ("missing", None, None),
        ("error", None, None),
    ],
)
def test_a_skipped_row_says_why_it_was_not_scored(
    status: str, missing_text: str | None, said: str | None
) -> None:
    """A skipped row said "Given: none" though the system had answered: its answers are not
    recorded, so it says why it was not scored (explore56 F7)."""
    from dataclasses import replace

    skipped = replace(row("2", "skipped", None), status=status, missing_text=missing_text)
    assert skipped.not_scored == said
