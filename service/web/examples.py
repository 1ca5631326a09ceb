"""Example queries shown on the SPARQL page (leaderboard, per-answer-type F1, a system's history,
the withdrawn experiments, the frozen leaderboards).

The leaderboard is the graph layer's published query, the one the web pages run. The others use
only terms the graph writes (``service/graph/results.py``): a task observation carries
the GERBIL dimensions (``gerbil:annotator`` = system, ``gerbil:dataset``,
``gerbil:experimentType``) and its measures; per-question results point to their task
(``gqa:resultOf``) and to the question (``gqa:question``), whose features are in its dataset's
graph.
"""

from __future__ import annotations

from service.graph.queries import leaderboard_query
from service.web.sparql_endpoint import ExampleQuery

PREFIXES = """PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
PREFIX gerbil: <http://w3id.org/gerbil/vocab#>
PREFIX qb: <http://purl.org/linked-data/cube#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
"""

# The published leaderboard query (service.graph.queries): the one the pages run.
LEADERBOARD = leaderboard_query(
    limit=100,
    title="Leaderboard: every system's QA results on every dataset, best macro F1 first.",
)

PER_ANSWER_TYPE = (
    PREFIXES
    + """
# Mean per-question F1 by answer type, for each system (QA task).
SELECT ?system ?answerType (COUNT(?result) AS ?questions) (AVG(?f1) AS ?meanF1) WHERE {
  ?task a gqa:Task ; gerbil:experimentType gerbil:QA ; gerbil:annotator ?system .
  ?result gqa:resultOf ?task ; gqa:f1 ?f1 ; gqa:question ?question .
  ?question gqa:answerType ?answerType .
}
GROUP BY ?system ?answerType
ORDER BY ?system ?answerType"""
)


WITHDRAWN = (
    PREFIXES
    + """
# Experiments their owners withdrew, when and why: out of every leaderboard, their graphs kept.
SELECT ?experiment ?withdrawnAt ?reason WHERE {
  ?experiment gqa:withdrawnAt ?withdrawnAt ; gqa:withdrawalReason ?reason .
}
ORDER BY DESC(?withdrawnAt)"""
)


FROZEN = (
    PREFIXES
    + """PREFIX dct: <http://purl.org/dc/terms/>
# Frozen leaderboards (kept as they stood, for citation): each row's rank, system and score.
SELECT ?leaderboard ?title ?frozenAt ?rank ?system ?score WHERE {
  ?leaderboard a gqa:FrozenLeaderboard ; dct:title ?title ; prov:generatedAtTime ?frozenAt ;
               gqa:entry ?entry .
  ?entry gqa:rank ?rank ; gqa:rankedTask ?task .
  OPTIONAL { ?entry gqa:score ?score }
  OPTIONAL { GRAPH ?g { ?task gerbil:annotator ?system } }
}
ORDER BY DESC(?frozenAt) ?leaderboard ?rank"""
)


def system_history(system_uri: str) -> str:
    return (
        PREFIXES
        + f"""
# A system's history: its QA results over time, in every public experiment.
SELECT ?ended ?dataset ?profile ?macroF1 ?experiment WHERE {{
  ?task gerbil:annotator <{system_uri}> ;
        gerbil:experimentType gerbil:QA ;
        gerbil:dataset ?dataset ;
        gqa:profile ?profile ;
        qb:dataSet ?experiment .
  OPTIONAL {{ ?task gerbil:macroF1 ?macroF1 }}
  ?experiment prov:endedAtTime ?ended .
}}
ORDER BY ?ended"""
    )


def examples_for(base: str, *, system: str = "demo-strong") -> tuple[ExampleQuery, ...]:
    from service.graph.uris import Uris

    return (
        ExampleQuery("Leaderboard", LEADERBOARD),
        ExampleQuery("F1 per answer type", PER_ANSWER_TYPE),
        ExampleQuery("A system's history", system_history(Uris(base).system(system))),
        ExampleQuery("Withdrawn experiments", WITHDRAWN),
        ExampleQuery("Frozen leaderboards", FROZEN),
    )
