"""The prefixes public KB endpoints predeclare, so gold queries written for them run elsewhere.

QALD gold SPARQL often uses ``dbo:``, ``res:`` or ``wdt:`` without declaring them, because
DBpedia's Virtuoso and the Wikidata Query Service predeclare them. A local Oxigraph store does
not, so :func:`with_default_prefixes` adds a ``PREFIX`` line for each known prefix the query does
not declare itself (unused declarations are harmless in SPARQL 1.1).
"""

from __future__ import annotations

import re

from service.sparql.prefixes import PREDECLARED

# One table of predeclared prefixes, with its sources: the SPARQL area's lenient dialect.
DEFAULT_PREFIXES: dict[str, str] = {p: ns for p, (ns, _who) in PREDECLARED.items()}

_DECLARED = re.compile(r"(?i)\bPREFIX\s+([A-Za-z][\w.-]*)?\s*:")


def declared_prefixes(sparql: str) -> set[str]:
    return {m.group(1) or "" for m in _DECLARED.finditer(sparql)}


def with_default_prefixes(sparql: str) -> str:
    """``sparql`` with a ``PREFIX`` line prepended for each default prefix it does not declare."""
    declared = declared_prefixes(sparql)
    lines = [f"PREFIX {p}: <{ns}>" for p, ns in DEFAULT_PREFIXES.items() if p not in declared]
    return "\n".join([*lines, sparql]) if lines else sparql
