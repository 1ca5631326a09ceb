"""User text for LaTeX and BibTeX: one escaping for the compare LaTeX tables and the BibTeX
entries, so that what a user typed prints as typed (BibTeX dropped braces and backslashes,
``\\emph{a}`` printed ``empha``; ``<`` and ``>`` printed ``¡`` and ``¿`` under LaTeX's default
OT1 encoding: explore55 F10, F11). Not for ``url`` and ``doi`` fields, which styles read
verbatim."""

from __future__ import annotations

import unicodedata

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


def needs(text: str) -> list[str]:
    """What LaTeX needs beyond booktabs to print ``text``, one comment line each: T1 fontenc
    for Latin letters beyond ASCII (pdfLaTeX's default OT1 stopped at "\\k unavailable in
    encoding OT1" on a Polish name), XeLaTeX/LuaLaTeX or the script's own encoding for letters
    outside the Latin script (Cyrillic, Greek, CJK: "Unicode character В (U+0412) not set up
    for use with LaTeX" even with T1; explore55 F1). Names are not transliterated."""
    latin, scripts = False, []
    for char in sorted(set(text)):
        if ord(char) < 128 or not char.isalpha():
            continue
        script = unicodedata.name(char, "").split(" ")[0]
        if script == "LATIN":
            latin = True
        elif script:
            scripts.append({"CJK": "CJK"}.get(script, script.capitalize()))
    said = []
    if latin:
        said.append("\\usepackage[T1]{fontenc}: a name has Latin letters beyond ASCII")
    if scripts:
        named = ", ".join(dict.fromkeys(scripts))
        said.append(
            f"XeLaTeX or LuaLaTeX (fontspec, a font with them): a name has {named} letters; "
            "with pdfLaTeX, babel and their script's fontenc (T2A for Cyrillic, LGR for Greek) "
            "or the CJK package"
        )
    return said


def comment_lines(text: str) -> str:
    """``text`` as LaTeX comment lines, each ``% …`` ending in a newline: a newline in a value
    (a dataset id) ended the comment and put the rest into the document as LaTeX (explore55
    F9); each line of a value of many lines is a comment, any other control character is
    written as ``?``."""
    lines = text.splitlines() or [""]
    shown = ("".join("?" if unicodedata.category(c) == "Cc" else c for c in x) for x in lines)
    return "".join(f"% {line}".rstrip() + "\n" for line in shown)
