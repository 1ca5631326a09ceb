"""The ``fair`` profile's matching: GERBIL's idea with its known unfairness fixed.

Rules (each applies to gold and system alike unless said otherwise):

1. Answer items are the values of every variable of every row (a boolean answer is
   ``true``/``false`` as ``xsd:boolean``); the sets compared are distinct items.
2. An item is an IRI when typed ``uri`` and, once whitespace and ``<…>`` are stripped, it
   starts with a URI scheme (``scheme:``); or a literal whose text is an ``http(s)://`` URL. A
   ``uri``-typed value without a scheme (``"false"``, ``"1225"``, ``"Germany"`` in real QALD
   files) is read as a plain literal.
3. IRIs are compared by the identity rules of :mod:`service.kb.identity`: angle brackets and
   whitespace stripped, percent-escapes decoded where an IRI may hold the character, Unicode
   NFC (1.4.0), scheme and host case-insensitive, an internationalised host its punycode
   (1.4.0), https = http, ``en.dbpedia.org`` = ``dbpedia.org``, ``/page/`` = ``/resource/``,
   and a Wikipedia article URL equal to the DBpedia resource of the same title and language
   edition; a Wikidata page URL (``www.wikidata.org/wiki/Q42``,
   ``/wiki/Property:P31``) equal to the entity IRI (1.3.0). With a KB, every spelling of both
   sides is expanded by the owl:sameAs closure and two IRIs match when their closures share a
   normal form.
4. Literals are compared by value for their datatype: numbers numerically (``"8"`` = ``"8.0"`` =
   ``"8e0"``, any numeric XSD type or an untyped numeric string); dates at the gold value's
   granularity (gold ``1990``, as ``xsd:gYear`` or a plain literal of four digits where the
   question's answertype is ``date``, matches ``1990-05-03`` and the number ``1990``; gold
   ``1990-05-03`` does not match ``1990``; a plain ``1990`` of another answertype, or none, is a
   number; time zone and fractional seconds ignored; months and days of one digit and years of
   three digits in a full date, ``632-6-8``, read too where it is a day of the calendar); booleans
   (``true``/``false`` in any case, ``1``/``0`` when typed ``xsd:boolean``); strings case- and
   whitespace-insensitively (Unicode NFC, case folding, runs of spaces collapsed, a combining dot
   above an ``i`` dropped so that a dotted İ is an i on either side: 1.4.0), language tags
   ignored, but the Turkish i rule of ``tr``/``az`` where the gold literal (or the run) is in one
   of them, whatever the system string's tag (1.3.0), or the system string is. An untyped gold of
   digits with a leading zero (the area code ``030``) is a code, compared as a string (1.3.0). Only
   these lexical forms are read as numbers and dates, in the decimal digits of any one script
   (``４２``, ``٤٢``, ``۴۲``, not ``4٢``; direction marks such as U+200F ignored: 1.4.0):
   ``52,000`` and ``20 April 1912`` are strings,
   and a wrong answer of such a form says so in the question's note (:func:`unread_kind`).
5. Labels in both directions (with a KB): a system literal matches a gold IRI when a resource
   having it as ``rdfs:label`` (any language) matches that IRI, or when it equals one of the
   gold IRI's labels as a string (rule 4: before 1.2.0 this direction was case-sensitive,
   explore28 F8); a system IRI matches a gold literal when one of its ``rdfs:label`` values
   equals the literal as a string.
6. Items of one answer naming one thing count once (with a KB; 1.2.0, explore28 F9): IRIs
   whose owl:sameAs closures meet, and a string literal equal to a label of an IRI of the
   same answer (``SELECT ?x ?label``); the first stays, shown with the others.
7. Matching is one-to-one and maximal (bipartite matching), so the order of answers never
   changes a score. TP = matched pairs, FP = system items left (wrong literals are false
   positives), FN = gold items left. Then the standard P/R/F rules.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from decimal import Decimal
from functools import lru_cache
from typing import NamedTuple

from service.evaluation.kbview import KBRequests, KBView
from service.evaluation.matchers.base import (
    Judged,
    MatchRule,
    Verdict,
    paired,
    verdicts_by_key,
)
from service.evaluation.values import (
    ascii_digits,
    boolean_value,
    date_value,
    is_date_type,
    is_numeric_type,
    mixed_digits,
    number_value,
    string_key,
    year_like,
)
from service.kb.identity import canonical_iri, canonical_iris, is_plain_http_iri, strip_brackets
from service.model import XSD_BOOLEAN, AnswerSet, Term, TermKind

Key = tuple[str, object]
_HTTP = re.compile(r"^https?://\S+$")
# Digits with a leading zero (the area code 030): a code, compared as a string (1.3.0). QALD's
# answertype does not tell codes from numbers: "030" is "number" in QALD-5 to 7 and "string" in
# QALD-9, and QALD-6/8 give "string" to the numbers 6.0E7 and 37056169.
_CODE = re.compile(r"^\s*0[0-9]+\s*$")
# A dotted or dotless capital i: the Turkish and the other case foldings differ on it.
_TURKISH_I = re.compile("[Iİ]")
# A 'uri' value is an IRI when it has a scheme (spaces inside are left to the identity rules,
# which encode them; Wikipedia titles are often written with spaces).
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S")


class _Item(NamedTuple):
    key: Key  # the item's identity: ("iri", canonical IRI) or its literal value key
    iri: str | None = None  # the stripped IRI, for KB lookups
    term: Term | None = None  # the literal, when not an IRI
    shown: str = ""
    # an IRI as the file wrote it: `exact` is the same text, not the same once stripped (an
    # IRI in angle brackets was labelled an exact match, which the exact profile refuses)
    written: str | None = None


@lru_cache(maxsize=1 << 16)
def _iri_item(value: str, language: str, years: bool = True) -> _Item:
    """The item of a ``uri``-typed value, cached by its string: gold and system files repeat
    the same IRIs, and a string's hash is cached where a Term's is recomputed."""
    if is_plain_http_iri(value):  # nothing to strip, already in normal form
        return _Item(("iri", value), iri=value, shown=f"<{value}>", written=value)
    v = strip_brackets(value)
    if _SCHEME.match(v):
        return _Item(("iri", canonical_iri(v)), iri=v, shown=f"<{v}>", written=value)
    return _literal_item(Term.literal(value.strip()), language, years)


@lru_cache(maxsize=1 << 16)
def _as_item(term: Term, language: str, years: bool = True) -> _Item:
    if term.is_iri:
        return _iri_item(term.value, language, years)
    return _literal_item(term, language, years)


def _literal_item(term: Term, language: str, years: bool = True) -> _Item:
    if term.is_literal and _HTTP.match(term.value.strip()):
        v = term.value.strip()
        return _Item(("iri", canonical_iri(v)), iri=v, shown=f"<{v}>", written=term.value)
    return _Item(_literal_key(term, language, years), term=term, shown=term.n3())


def _literal_key(term: Term, language: str, years: bool = True) -> Key:
    """The one value a literal stands for (how a gold literal is read). ``years``: a plain
    literal of four digits is a year (a gold's only where its answertype is ``date``)."""
    dt, text = term.datatype, term.value
    if dt == XSD_BOOLEAN:
        b = boolean_value(term)
        if b is not None:
            return ("bool", b)
    elif is_numeric_type(dt):
        n = number_value(text)
        if n is not None:
            return ("num", n)
    elif is_date_type(dt):
        d = date_value(text)
        if d is not None:
            return ("date", d.parts)
    else:
        b = boolean_value(term)
        if b is not None:
            return ("bool", b)
        if _CODE.match(text):  # a code such as the area code 030, not the number 30
            return ("str", string_key(text, language=term.lang or language))
        if years and year_like(text):  # a year (QALD writes a year answer so), also a number
            return ("date", (str(int(ascii_digits(text))),))
        n = number_value(text)
        if n is not None:
            return ("num", n)
        d = date_value(text)
        if d is not None:
            return ("date", d.parts)
    return ("str", string_key(text, language=term.lang or language))


def _wants(it: _Item) -> set[Key]:
    """The keys a gold literal matches: its value's, and for a year the number too (gold
    ``1978`` is a year that ``1978-05-02`` has and the number ``1978.0`` is)."""
    key = it.key
    if key[0] == "date" and isinstance(key[1], tuple) and len(key[1]) == 1:
        return {key, ("num", Decimal(key[1][0]).normalize())}
    return {key}


@lru_cache(maxsize=1 << 16)
def _literal_offers(term: Term, language: str) -> frozenset[Key]:
    """Every value a system literal may stand for (how a system literal is read)."""
    text = term.value
    offers: set[Key] = {
        _literal_key(term, language),
        ("str", string_key(text, language=term.lang or language)),
    }
    if _TURKISH_I.search(text):  # the gold's language decides (1.3.0): an untagged AMERİKA
        offers.add(("str", string_key(text, language="tr")))  # is the Amerika of a tr gold
        offers.add(("str", string_key(text)))
    b = boolean_value(term)
    if b is not None:
        offers.add(("bool", b))
    n = number_value(text)
    if n is not None:
        offers.add(("num", n))
    d = date_value(text)
    if d is not None:
        offers.update(("date", d.parts[:g]) for g in range(1, len(d.parts) + 1))
        if len(d.parts) == 1 and year_like(text):
            offers.add(("num", Decimal(d.parts[0]).normalize()))
    return frozenset(offers)


def iri_keys(iri: str, kb: KBView) -> set[Key]:
    """The identity keys of an IRI: the normal forms of every spelling's sameAs closure."""
    keys: set[Key] = {("iri", canonical_iri(iri))}
    if kb.same_as_map:  # without a KB an IRI is only its normal form
        for spelling in canonical_iris(iri):
            found = kb.same_as_map.get(spelling)
            if found:
                keys.update(("iri", canonical_iri(x)) for x in found)
    return keys


def _resource_keys(resource: str, kb: KBView) -> set[Key]:
    """The identity keys of a resource the KB returned (its own spelling is the KB's)."""
    return {("iri", canonical_iri(x)) for x in kb.closure(resource)}


def _items(answers: AnswerSet, language: str, years: bool = True) -> list[_Item]:
    """The items of an answer set; ``years``: a plain literal of four digits is a year (a
    gold's only where the question's answertype is ``date``: explore35 2)."""
    out: list[_Item] = []
    iri_item, as_item, iri = _iri_item, _as_item, TermKind.IRI
    for t in _terms(answers):
        out.append(
            iri_item(t.value, language, years) if t.kind is iri else as_item(t, language, years)
        )
    return out


def _terms(answers: AnswerSet) -> list[Term] | tuple[Term, ...]:
    """``answers.values()``, without its per-row generator in the common case of one binding
    per row (where the order of a row's terms cannot matter)."""
    out: list[Term] = []
    if answers.boolean is None:
        for row in answers.rows:
            if len(row) != 1:
                return answers.values()
            out.extend(row.values())
        return out
    return answers.values()


def _distinct(items: Iterable[_Item]) -> list[_Item]:
    """One item per identity key, first occurrence order (``base.distinct`` with a key
    function, specialised: a third faster on the large answer sets of QALD-9)."""
    first: dict[Key, _Item] = {}
    for it in items:
        first.setdefault(it.key, it)
    return list(first.values())


def _label_keys(iri: str, kb: KBView, language: str) -> set[Key]:
    """The labels of every spelling of ``iri``, each as a string compares (rule 4), under a
    key of their own: a literal may name the IRI by one, another IRI of that label may not."""
    return {
        ("label", string_key(label, language=language))
        for spelling in canonical_iris(iri)
        for label in kb.labels(spelling)
    }


def _one_per_thing(
    items: list[_Item], kb: KBView, language: str, merged: dict[Key, Key]
) -> list[_Item]:
    """``items`` with those naming one thing counted once (rule 6): IRIs whose sameAs closures
    meet, and a string literal equal to a label of one of the IRIs. The first of them stays,
    in its place, shown with the others; ``merged`` gets each other's key -> the kept one's."""
    owner: dict[Key, int] = {}  # an identity or label key -> the index of the item holding it
    kept: dict[int, _Item] = {}
    for at, it in enumerate(items):  # IRIs first: a literal may repeat one written after it
        if it.iri is None:
            continue
        keys = iri_keys(it.iri, kb)
        first = next((owner[k] for k in keys if k in owner), None)
        if first is None:
            kept[at] = it
            for k in keys | _label_keys(it.iri, kb, language):
                owner.setdefault(k, at)
        else:
            kept[first] = kept[first]._replace(shown=f"{kept[first].shown} = {it.shown}")
            merged[it.key] = items[first].key
    for at, it in enumerate(items):
        if it.iri is not None:
            continue
        first = owner.get(("label", it.key[1])) if it.key[0] == "str" else None
        if first is None:
            kept[at] = it
        else:
            kept[first] = kept[first]._replace(shown=f"{kept[first].shown} = {it.shown}")
            merged[it.key] = items[first].key
    return [kept[at] for at in sorted(kept)]


# Written forms of a number fair does not read: digit groups with separators (52,000, 1 234,
# 1.234.567) or a decimal comma (3,5).
_UNREAD_NUMBER = re.compile(
    r"^[+-]?(?:[0-9]{1,3}(?:[,.' \u00a0\u202f][0-9]{3})+(?:[.,][0-9]+)?|[0-9]+,[0-9]+)$"
)
_MONTHS = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|"
    "july|august|september|october|november|december"
)
# Written forms of a date fair does not read: a month's English name with a day or a year
# (20 April 1912, April 20, 1912, May 1811), or day, month and year with slashes or dots.
_UNREAD_DATE = re.compile(
    rf"^(?:(?:[0-9]{{1,2}}\.?\s+)?(?:{_MONTHS})\.?(?:\s+[0-9]{{1,2}}(?:st|nd|rd|th)?,?)?"
    rf"\s+[0-9]{{1,4}}|[0-9]{{1,2}}[/.][0-9]{{1,2}}[/.][0-9]{{2,4}})$",
    re.IGNORECASE,
)


_READS = {
    "number": "digits of any one script with an optional sign, decimal point and exponent: "
    "52000, -3.5, 4.5e-07, ４２",
    "date": "ISO 8601 dates, in the digits of one script: 1912, 1912-04, 1912-04-20, 1912-4-20, "
    "1912-04-20T00:00:00Z",
}


def unread_kind(answer: str, golds: Sequence[str]) -> str | None:
    """``"number"`` or ``"date"`` when a wrong system literal is a written form of one that
    fair does not read and a gold literal left unmatched is one (explore33 F8): ``52,000`` for
    gold ``52000``, ``20 April 1912`` for gold ``1912-04-20``.

    >>> unread_kind("52,000", ["52000"]), unread_kind("20 April 1912", ["1912-04-20"])
    ('number', 'date')
    >>> unread_kind("Berlin", ["52000"]), unread_kind("52,000", ["Berlin"])
    (None, None)
    """
    text = ascii_digits(answer).strip()  # ４２,０００ is 42,000
    if not text or number_value(text) is not None or date_value(text) is not None:
        return None
    if (mixed := mixed_digits(answer)) is not None:  # 4٢: digits of two scripts (explore54 F7)
        text = mixed.strip()
        if number_value(text) is not None and any(
            number_value(g) is not None and not _CODE.match(g) for g in golds
        ):
            return "number"
        if date_value(text) is not None and any(date_value(g) is not None for g in golds):
            return "date"
    if _UNREAD_NUMBER.match(text) and any(
        number_value(g) is not None and not _CODE.match(g) for g in golds
    ):
        return "number"
    if _UNREAD_DATE.match(text) and any(date_value(g) is not None for g in golds):
        return "date"
    return None


def _unread_note(g: list[_Item], s: list[_Item], pairs: dict[int, int]) -> str | None:
    """What the question's note says of the wrong system literals :func:`unread_kind` names:
    ``not read as a number: '52,000' (fair reads …)``; and of those equal as numbers to a gold
    code left unmatched: ``compared as text with the code '030': '30' (fair reads …)``."""
    matched = set(pairs.values())
    left = [it for gi, it in enumerate(g) if gi not in pairs and it.term is not None]
    golds = [it.term.value for it in left if it.term is not None]
    if not golds:
        return None
    # an unmatched gold code (030, read as a string) and the numbers equal to it (30, 30.0)
    codes = {
        value: number_value(value)
        for it in left
        if it.term is not None
        and it.key[0] == "str"
        and _CODE.match(value := it.term.value.strip())
    }
    unread: dict[str, list[str]] = {}
    as_text: dict[str, list[str]] = {}
    for si, it in enumerate(s):
        if si in matched or it.term is None:
            continue
        n = number_value(it.term.value) if codes else None
        code = next((c for c, v in codes.items() if n is not None and v == n), None)
        if code is not None:
            as_text.setdefault(code, []).append(repr(it.term.value.strip()))
        elif (kind := unread_kind(it.term.value, golds)) is not None:
            unread.setdefault(kind, []).append(repr(it.term.value.strip()))
    said = [  # starting with a word: a CSV cell starting with ' gets one more (explore35 6)
        f"not read as {'a ' + kind if len(texts) == 1 else kind + 's'}: {', '.join(texts)} "
        f"(fair reads {_READS[kind]})"
        for kind, texts in unread.items()
    ]
    said.extend(  # a right number turned wrong by the code rule says why (explore35 1)
        f"compared as text with the code {code!r}: {', '.join(texts)} (fair reads a gold of "
        "digits with a leading zero as a code)"
        for code, texts in as_text.items()
    )
    return "; ".join(said) or None


class FairMatcher:
    """The fair profile (see the module docstring for every rule)."""

    __slots__ = ()  # stateless: nothing to change

    def requests(self, gold: AnswerSet, system: AnswerSet, *, language: str) -> KBRequests:
        g = _items(gold, language)
        s = _items(system, language)
        same: set[str] = set()
        for it in (*g, *s):
            if it.iri is not None:
                same |= canonical_iris(it.iri)
        gold_has_iri = any(it.iri is not None for it in g)
        r4l = frozenset(
            (it.term.value.strip(), None)
            for it in s
            if gold_has_iri and it.term is not None and it.term.value.strip()
        )
        # the labels of every IRI when either side holds a literal: a literal may name one
        # (rule 5) or repeat one of its own answer (rule 6)
        l4r: set[str] = set()
        if any(it.iri is None for it in (*g, *s)):
            for it in (*g, *s):
                if it.iri is not None:
                    l4r |= canonical_iris(it.iri)
        return KBRequests(frozenset(same), r4l, frozenset(l4r))

    def match(
        self,
        gold: AnswerSet,
        system: AnswerSet,
        kb: KBView,
        *,
        language: str,
        answer_type: str | None = None,
    ) -> Judged:
        # A plain gold 1978 is a year (matched by 1978-05-02) where the answertype is date; a
        # number otherwise (gold 1225, answertype number, matched 1225-01-01; explore35 2).
        gold_items = _items(gold, language, years=answer_type == "date")
        # The gold file given as answers (the upper-bound check) is one object: its items once.
        given = gold_items if system is gold else _items(system, language)
        g = _distinct(gold_items)
        s = g if system is gold else _distinct(given)
        merged: dict[Key, Key] = {}  # an item counted with another (rule 6): its key -> that one's

        pairs: dict[int, int]  # gold index -> system index
        if kb.same_as_map or kb.labels_map or kb.resources_map:
            g = _one_per_thing(g, kb, language, {})
            s = g if system is gold else _one_per_thing(s, kb, language, merged)
            pairs = self._bipartite(g, s, kb, language)
        else:
            # Without a KB an IRI matches only the IRI of the same normal form and never a
            # literal: the IRIs are a set intersection, only the literals need the matching.
            iris: dict[Key, int] = {}
            literals_g: list[int] = []
            for gi, it in enumerate(g):
                if it.iri is None:
                    literals_g.append(gi)
                else:
                    iris[it.key] = gi
            pairs = {}
            literals_s: list[int] = []
            for si, it in enumerate(s):
                if it.iri is None:
                    literals_s.append(si)
                elif (at := iris.get(it.key)) is not None:
                    pairs[at] = si
            if literals_g and literals_s:
                found = self._bipartite(
                    [g[i] for i in literals_g], [s[i] for i in literals_s], kb, language
                )
                for gl, sl in found.items():
                    pairs[literals_g[gl]] = literals_s[sl]
        correct_keys = {s[si].key for si in pairs.values()}
        correct, wrong = Verdict.CORRECT, Verdict.WRONG
        if len(s) == len(given):  # no repeats: ``s`` is ``given``
            verdicts = tuple([correct if it.key in correct_keys else wrong for it in s])
            ranked = [it.shown for it in s]
        else:  # an item counted with another repeats it
            keys = [merged.get(it.key, it.key) for it in given]
            verdicts = verdicts_by_key(keys, correct_keys)
            ranked = [it.shown for it in given]
        exact = MatchRule.EXACT  # items are cached: the same value is often the very same object
        matches = [
            (si, gi, exact if s[si] is g[gi] else _rule(s[si], g[gi])) for gi, si in pairs.items()
        ]
        judged = paired(matches, [it.shown for it in g], [it.shown for it in s], verdicts, ranked)
        if judged.fp and judged.fn and (note := _unread_note(g, s, pairs)) is not None:
            return judged._replace(note=note)
        return judged

    def _bipartite(
        self, g: list[_Item], s: list[_Item], kb: KBView, language: str
    ) -> dict[int, int]:
        """A maximum one-to-one matching: gold index -> system index."""
        index: dict[Key, list[int]] = {}
        for gi, it in enumerate(g):
            if it.iri is None:
                wants = _wants(it)
            else:
                wants = iri_keys(it.iri, kb) if kb.same_as_map else {it.key}
            if it.iri is not None and kb.labels_map:  # its labels, for system literals only
                wants |= _label_keys(it.iri, kb, language)
            for k in wants:
                index.setdefault(k, []).append(gi)
        edges: list[list[int]] = []
        for it in s:
            offers = self._offers(it, kb, language)
            edges.append(sorted({gi for k in offers for gi in index.get(k, ())}))
        return max_matching(edges, len(g))

    @staticmethod
    def _offers(it: _Item, kb: KBView, language: str) -> set[Key]:
        if it.iri is not None:
            offers = iri_keys(it.iri, kb) if kb.same_as_map else {it.key}
            if kb.labels_map:
                for spelling in canonical_iris(it.iri):
                    for label in kb.labels(spelling):
                        offers.add(("str", string_key(label, language=language)))
            return offers
        if it.term is None:  # cannot happen: an item is an IRI or a literal
            return set()
        offers = set(_literal_offers(it.term, language))
        offers.add(("label", string_key(it.term.value, language=it.term.lang or language)))
        for resource in kb.resources(it.term.value.strip(), None):
            offers |= _resource_keys(resource, kb)
        return offers


# The rule that matches two literals of one kind of value when their texts differ.
_LITERAL_RULES = {
    "num": MatchRule.NUMERIC,
    "date": MatchRule.DATE_GRANULARITY,
    "bool": MatchRule.BOOLEAN,
    "str": MatchRule.CASEFOLD_STRING,
}


def _rule(given: _Item, gold: _Item) -> MatchRule:
    """Which of the rules in the module docstring matched ``given`` to ``gold`` (called for
    matched pairs only, so it can tell the rules apart by what the two items are)."""
    if given.iri is not None and gold.iri is not None:  # rule 3
        if given.written == gold.written:
            return MatchRule.EXACT
        return MatchRule.IRI_IDENTITY if given.key == gold.key else MatchRule.SAME_AS
    if given.term is None or gold.term is None:  # an IRI and a literal: rule 5
        return MatchRule.LABEL
    if given.term.value.strip() == gold.term.value.strip():
        return MatchRule.EXACT
    return _LITERAL_RULES.get(gold.key[0], MatchRule.CASEFOLD_STRING)  # rule 4


def max_matching(edges: list[list[int]], n_gold: int) -> dict[int, int]:
    """A maximum bipartite matching (gold index -> system index) by augmenting paths.

    ``edges[s]`` lists the gold items system item ``s`` may match. Breadth-first search for an
    augmenting path from each system item in turn (Kuhn's algorithm without recursion).
    """
    owner: dict[int, int] = {}  # gold -> system
    for start, targets in enumerate(edges):
        if not targets:
            continue
        free = next((gi for gi in targets if gi not in owner), None)
        if free is not None:  # the common case: a free gold item, no search needed
            owner[free] = start
            continue
        parent: dict[int, tuple[int, int | None]] = {}  # gold -> (system reaching it, prev gold)
        queue: deque[tuple[int, int | None]] = deque([(start, None)])
        visited_sys = {start}
        end: int | None = None
        while queue and end is None:
            si, via = queue.popleft()
            for gi in edges[si]:
                if gi in parent:
                    continue
                parent[gi] = (si, via)
                if gi not in owner:
                    end = gi
                    break
                nxt = owner[gi]
                if nxt not in visited_sys:
                    visited_sys.add(nxt)
                    queue.append((nxt, gi))
        while end is not None:  # flip the path
            si, prev = parent[end]
            owner[end] = si
            end = prev
    return owner
