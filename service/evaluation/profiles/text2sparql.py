"""TEXT2SPARQL'25 (ESWC 2025), as the challenge scored result sets.

1.1.0: the sub-experiments (C2KB, …), which the challenge never scored, take the standard
per-question rule; under the set rule a question whose gold query names no resource scored 0
even for the gold query itself (CK25's gold queries got C2KB 0.54, AIT2KB 0.14; explore-14 1).

1.2.0: in the sub-experiments a question the system did not answer (its call failed, or the
answer file has no entry for it) scores 0/0/0, not the 1/1/1 of "nothing to mark and nothing
marked": a system that answered nothing scored C2KB 0.46 and AIT2KB 0.86 on CK25 (explore25 1).

1.3.0: such a question is no empty answer in Macro F1 QALD either (its P is 0 there, as its
set_P is, not the 1 of an empty answer: explore28 F1), and C2KB holds the classes of variables
not projected (scored nowhere but RE2KB before, F11).
"""

from __future__ import annotations

from service.evaluation.matchers.text2sparql import Text2SparqlMatcher
from service.evaluation.profiles.base import OlderVersion, Profile
from service.evaluation.scoring import ANSWERED, ANSWERED_QALD, SET, SET_QALD, STANDARD

PROFILE = Profile(
    name="text2sparql",
    version="1.3.0",
    reference="TEXT2SPARQL-2025-pytrec_eval-set",
    title="TEXT2SPARQL'25",
    description=(
        "The TEXT2SPARQL'25 challenge's scoring (pytrec_eval set_P, set_recall, set_F over "
        "result sets). Items are the value strings of every binding of every variable, "
        "compared exactly, as sets. A gold item is relevant only with a weight above 0, so an "
        "ASK whose gold is false has no relevant item; every item a system returned counts as "
        "retrieved, so a system's ASK answer is the item 'true' whether it said true or false. "
        "A question with no relevant item, nothing retrieved or no hit scores 0/0/0 (also when "
        "both are empty); else P = TP/(TP+FP), R = TP/(TP+FN). Macro precision, recall and F1 "
        "are the challenge's averages: plain means over every question and language scored. "
        "NDCG is not computed (the published files give no ranks: it is 0 for every system). "
        "The challenge scored result sets only: the sub-experiments (C2KB, P2KB, RE2KB, AT, "
        "AIT2KB) take the standard per-question rule, so nothing to mark and nothing marked "
        "scores 1/1/1; a question the system did not answer (its call failed, or the answer "
        "file has no entry for it) scores 0/0/0 there, and is no empty answer in Macro F1 "
        "QALD (P = 0). C2KB also holds the classes of what is not a projected variable."
    ),
    settings=(
        ("items", "values"),
        ("match", "string"),
        ("sets", "distinct"),
        ("ask", "gold-true-relevant,system-any-retrieved"),
        ("empty", "0/0"),
        ("subexperiments", "standard-answered+qald"),
        ("qald-empty", "given"),
        ("c2kb", "unprojected-classes"),
    ),
    matcher=Text2SparqlMatcher(),
    scoring=SET_QALD,
    subexperiment_scoring=ANSWERED_QALD,
    unprojected_classes_in_c2kb=True,
    challenge_formats=("text2sparql-yaml",),
    challenge_measures=(
        ("macroF1", "the challenge's set_F average"),
        ("macroPrecision", "the challenge's set_P average"),
        ("macroRecall", "the challenge's set_recall average"),
    ),
    older=(
        OlderVersion("1.0.0", SET),
        OlderVersion("1.1.0", SET, STANDARD),
        OlderVersion("1.2.0", SET, ANSWERED),
    ),
)
