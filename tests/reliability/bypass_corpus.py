"""Queries that try to make the public endpoint open a connection (SERVICE in every disguise).

Every form points at ``http://127.0.0.1:PORT/…``, where a test listens and counts connections.
Hand-written forms cover the known tricks (the ``FILTER(1<2)SERVICE#>`` bypass of issue 13,
escapes, comments, case, prefixed names, BASE, subqueries, EXISTS, GRAPH, property paths,
variables bound to the endpoint); a generated product combines keyword spellings, separators,
ways to write the endpoint and places to put the call, so that no single reading of the text
is tested alone.
"""

from __future__ import annotations

from itertools import product


def hand_written(port: int) -> list[str]:
    url = f"http://127.0.0.1:{port}/sparql"
    iri = f"<{url}>"
    return [
        f"SELECT * {{ SERVICE {iri} {{ ?s ?p ?o }} }}",
        # issue 13: the old guard read `<2)SERVICE#>` as an IRI, Oxigraph reads `<` as less-than
        f"SELECT * WHERE {{ FILTER(1<2)SERVICE#>\n{iri} {{ ?s ?p ?o }} }}",
        f"SELECT * WHERE {{ FILTER(1<=2)SERVICE#>\n{iri} {{ ?s ?p ?o }} }}",
        f"SELECT * WHERE {{ BIND(1<2 AS ?x)SERVICE#>\n{iri} {{ }} }}",
        f"SELECT * WHERE {{ FILTER(?a<?b)SERVICE#>\n{iri} {{ }} }}",
        f"ASK {{ FILTER(1<2) SERVICE {iri} {{ }} #> \n}}",
        # escapes: Oxigraph decodes \u only inside IRIs and strings
        f'SELECT * {{ BIND("\\u0022" AS ?x) SERVICE {iri} {{ }} }} #""" AS ?y) }}',
        f"SELECT * {{ BIND('\\u0027' AS ?x) SERVICE {iri} {{ }} }} #''' AS ?y) }}",
        f"SELECT * {{ SERVICE <http://127.0.0.1:{port}/\\u0073parql> {{ }} }}",
        f"SELECT * {{ SERVICE <\\U00000068ttp://127.0.0.1:{port}/sparql> {{ }} }}",
        f"SELECT * {{ \\u0053ERVICE {iri} {{ }} }}",
        f"SELECT * {{ SERVIC\\u0045 {iri} {{ }} }}",
        # comments and strings that look like they end elsewhere
        f"SELECT * {{ # }}\nSERVICE {iri} {{ }} }}",
        f"SELECT * {{ ?s ?p '''#''' . SERVICE {iri} {{ }} }}",
        f'SELECT * {{ ?s ?p "<" . SERVICE {iri} {{ }} ?s ?p ">" }}',
        f"SELECT * {{ SERVICE#{{\n{iri}#}}\n{{ }} }}",
        f"SELECT * {{ SERVICE\r{iri}\r{{ }} }}",
        # prefixed names, BASE, glued keyword (Oxigraph needs no space after a keyword)
        f"PREFIX e: <http://127.0.0.1:{port}/> SELECT * {{ SERVICE e:sparql {{ }} }}",
        f"PREFIX e: <http://127.0.0.1:{port}/> SELECT * {{ SERVICEe:sparql {{ }} }}",
        f"PREFIX : <http://127.0.0.1:{port}/> SELECT * {{ SERVICE:sparql {{ }} }}",
        f"PREFIX service: <http://127.0.0.1:{port}/> SELECT * {{ service:sparql ?p ?o }}",
        f"BASE <http://127.0.0.1:{port}/> SELECT * {{ SERVICE <sparql> {{ }} }}",
        f"SELECT * {{ SERVICE <//127.0.0.1:{port}/sparql> {{ }} }}",
        # variables bound to the endpoint
        f"SELECT * {{ VALUES ?u {{ {iri} }} SERVICE ?u {{ }} }}",
        f"SELECT * {{ BIND({iri} AS ?u) SERVICE ?u {{ }} }}",
        f"SELECT * {{ BIND(IRI(CONCAT('http://127.0.0.1:', '{port}/sparql')) AS ?u) "
        "SERVICE ?u { } }",
        # every place a graph pattern can stand
        f"SELECT * {{ {{ SELECT * {{ SERVICE {iri} {{ }} }} }} }}",
        f"ASK {{ FILTER EXISTS {{ SERVICE {iri} {{ }} }} }}",
        f"ASK {{ FILTER NOT EXISTS {{ SERVICE {iri} {{ }} }} }}",
        f"SELECT * {{ BIND(EXISTS {{ SERVICE {iri} {{ }} }} AS ?e) }}",
        f"SELECT * {{ GRAPH ?g {{ SERVICE {iri} {{ }} }} }}",
        f"SELECT * {{ ?s <http://e/p>/<http://e/q>* ?o . SERVICE {iri} {{ }} }}",
        f"SELECT * {{ {{}} UNION {{ SERVICE {iri} {{ }} }} }}",
        f"SELECT * {{ OPTIONAL {{ SERVICE {iri} {{ }} }} }}",
        f"SELECT * {{ ?s ?p ?o MINUS {{ SERVICE {iri} {{ }} }} }}",
        f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE {iri} {{ ?s ?p ?o }} }}",
        f"DESCRIBE ?s WHERE {{ SERVICE {iri} {{ ?s ?p ?o }} }}",
        f"SELECT * {{ SERVICE SILENT {iri} {{ ?s ?p ?o }} }}",
        f"SELECT * {{ SERVICE {iri} {{ SERVICE {iri} {{ }} }} }}",
        f"SELECT (COUNT(*) AS ?n) {{ SERVICE {iri} {{ ?s ?p ?o }} }} GROUP BY ?s",
        # other hosts that are this machine
        f"SELECT * {{ SERVICE <http://localhost:{port}/sparql> {{ }} }}",
        f"SELECT * {{ SERVICE <http://127.1:{port}/sparql> {{ }} }}",
        f"SELECT * {{ SERVICE <http://2130706433:{port}/sparql> {{ }} }}",
        f"SELECT * {{ SERVICE <http://[::ffff:127.0.0.1]:{port}/sparql> {{ }} }}",
    ]


KEYWORDS = ("SERVICE", "service", "SeRvIcE", "SERVICE SILENT", "service silent")
SEPARATORS = (" ", "\t", "\n", "\r\n", "#c\n", "#>\n", "#<\n", "")
PLACES = (
    "SELECT * {{ {call} }}",
    "SELECT * WHERE {{ FILTER(1<2){call} }}",
    "SELECT * WHERE {{ FILTER(1<2)\n{call} #>\n}}",
    "SELECT * {{ ?s ?p ?o . {call} }}",
    "SELECT * {{ ?s <http://e/p>+ ?o {call} }}",
    "SELECT * {{ OPTIONAL {{ {call} }} }}",
    "SELECT * {{ {{ }} UNION {{ {call} }} }}",
    "SELECT * {{ GRAPH ?g {{ {call} }} }}",
    "ASK {{ FILTER EXISTS {{ {call} }} }}",
    "SELECT * {{ {{ SELECT * {{ {call} }} }} }}",
    "CONSTRUCT WHERE {{ {call} }}",
)


def generated(port: int) -> list[str]:
    endpoints = (
        ("", f"<http://127.0.0.1:{port}/sparql>"),
        ("", f"<http://127.0.0.1:{port}/\\u0073parql>"),
        (f"PREFIX e: <http://127.0.0.1:{port}/> ", "e:sparql"),
        (f"BASE <http://127.0.0.1:{port}/> ", "<sparql>"),
        ("", "?u"),
    )
    forms = []
    for keyword, separator, (prologue, endpoint), place in product(
        KEYWORDS, SEPARATORS, endpoints, PLACES
    ):
        call = f"{keyword}{separator}{endpoint} {{ ?s ?p ?o }}"
        if endpoint == "?u":
            call = f"VALUES ?u {{ <http://127.0.0.1:{port}/sparql> }} {call}"
        forms.append(prologue + place.format(call=call))
    return forms


def decoys(port: int) -> list[str]:
    """The call where neither reading sees a keyword (inside comments, strings, IRIs): the
    guard must let these through, and they must not connect either."""
    call = f"SERVICE <http://127.0.0.1:{port}/sparql> {{ ?s ?p ?o }}"
    escaped = call.replace("<", "\\u003C").replace(">", "\\u003E")
    holders = (
        "# {call}\n",
        '?s ?p "{call}" .',
        "?s ?p '{call}' .",
        '?s ?p """{call}\n""" .',
        "?s ?p '''\n{call}''' .",
        '?s ?p "{escaped}" .',
        'FILTER(?o != "{call}")',
        "?s ?p <http://e/{port}#SERVICE> .",
        "?s <http://e/SERVICE> ?o .",
        "?s ?p ?o # ' {call}\n",
    )
    return [
        "SELECT * { " + holder.format(call=call, escaped=escaped, port=port) + " }"
        for holder in holders
    ]


def corpus(port: int) -> list[str]:
    return hand_written(port) + generated(port) + decoys(port)
