"""User text for LaTeX and BibTeX: one escaping for the compare LaTeX tables and the BibTeX
entries, so that what a user typed prints as typed (BibTeX dropped braces and backslashes,
``\\emph{a}`` printed ``empha``; ``<`` and ``>`` printed ``¡`` and ``¿`` under LaTeX's default
OT1 encoding: explore55 F10, F11). Not for ``url`` and ``doi`` fields, which styles read
verbatim."""

from __future__ import annotations

# braces as \textbraceleft{} and \textbraceright{}, not \{ and \}: BibTeX counts an escaped
# brace as a brace, so one the user left open (``a { b``) left the entry unclosed
LATEX_SPECIAL = {c: f"\\{c}" for c in "&%$#_"} | {
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def tex_escape(text: str) -> str:
    """``text`` as LaTeX that prints it: its special characters escaped, with no brace left
    unbalanced (so that it is safe inside a BibTeX ``{…}`` value too)."""
    return "".join(LATEX_SPECIAL.get(c, c) for c in text)


def tex_line(text: str) -> str:
    """``text`` escaped (:func:`tex_escape`) on one line: its whitespace runs (newlines, tabs)
    as one space, as a BibTeX field or a table cell wants it."""
    return tex_escape(" ".join(text.split()))
