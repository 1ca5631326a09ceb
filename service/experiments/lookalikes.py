"""System names that read as another's: letters of other alphabets that look like Latin ones.

A system is its name on every leaderboard, so ``TеBaQA`` (a Cyrillic е) or ``GPT-4о`` (a
Cyrillic о) would be a new system that reads as TeBaQA or GPT-4o. Refused, naming the letter:

* a letter a font draws like a Latin one (:data:`LATIN_LOOKALIKES`, after Unicode's confusables
  for the alphabets people mix with Latin) in a word that also has Latin letters (``КБQA``: К);
* in a name with Latin letters, a word of another alphabet made only of such letters
  (``GPT-4о``: the word ``4о``), while a word of real Cyrillic or Greek stays a name
  (``Вопрос QA``: п is no Latin letter; ``ΣQA``, ``μBERT-QA``);
* a Latin letter drawn like another (:data:`LATIN_IMPOSTORS`: script ɡ, small capital ꜱ),
  anywhere;
* letters written in a compatibility form (fullwidth ``ｅ``, mathematical bold ``𝐓``): NFKC
  makes them the Latin letter they show.

Names are compared as NFC (a decomposed ``é`` from a file name is the precomposed one). What is
not caught: a name wholly in lookalike letters of one alphabet with no Latin letter in it.
"""

from __future__ import annotations

import unicodedata

LATIN_LOOKALIKES = frozenset(
    "АВЕЅІЈКМНОРСТХУԚԜаеорсухѕіјԁԛԝһӏ"  # Cyrillic
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικνυρ"  # Greek
    "օոսցհզ"  # Armenian
    "ᎪᏴᏟᎠᎬᏀᎻᎫᏦᏞᎷᏢᏚᎢᏙᏔᏃ"  # Cherokee
    "ⲀⲂⲈⲎⲒⲔⲘⲚⲞⲢⲤⲦⲨⲬⲟⲣⲥ"  # Coptic
    "ꓐꓑꓓꓔꓖꓗꓙꓚꓜꓝꓟꓠꓡꓢꓣꓥꓧꓪꓫꓬꓮꓰꓲꓳꓴ"  # Lisu
)

# Latin-script letters drawn like a basic Latin letter (Unicode's confusables: IPA letters,
# small capitals), refused wherever they are: ``demo-stronɡ`` (a script ɡ) read as
# demo-strong on the leaderboard (explore34 3). Letters a language writes with (Turkish ı,
# ß, ð, þ, ø…) are not here.
LATIN_IMPOSTORS = {
    "ɡ": "g", "ɑ": "a", "ȷ": "j", "ɩ": "i", "ʋ": "v", "ǀ": "l",
    "ᴀ": "A", "ʙ": "B", "ᴄ": "C", "ᴅ": "D", "ᴇ": "E", "ꜰ": "F", "ɢ": "G", "ʜ": "H",
    "ɪ": "I", "ᴊ": "J", "ᴋ": "K", "ʟ": "L", "ᴍ": "M", "ɴ": "N", "ᴏ": "O", "ᴘ": "P",
    "ꞯ": "Q", "ʀ": "R", "ꜱ": "S", "ᴛ": "T", "ᴜ": "U", "ᴠ": "V", "ᴡ": "W", "ʏ": "Y",
    "ᴢ": "Z",
}  # fmt: skip


def lookalike_reason(name: str) -> str | None:
    """Why ``name`` (NFC) could read as another system's name, or None."""
    plain = unicodedata.normalize("NFKC", name)
    if plain != name:
        at = next(i for i, c in enumerate(name) if unicodedata.normalize("NFKC", c) != c)
        return _said(name[at], at, f"is written as {unicodedata.normalize('NFKC', name[at])!r}")
    for at, char in enumerate(name):
        if char in LATIN_IMPOSTORS:
            return _said(char, at, f"is drawn like the Latin letter {LATIN_IMPOSTORS[char]!r}")
    words = _words(name)
    has_latin = any(_latin(c) for word in words for _, c in word)
    for word in words:
        latin = any(_latin(c) for _, c in word)
        foreign = [(i, c) for i, c in word if c.isalpha() and not _latin(c)]
        looks = [(i, c) for i, c in foreign if c in LATIN_LOOKALIKES]
        if latin and looks:  # one word, two alphabets, a letter drawn as a Latin one
            return _said(looks[0][1], looks[0][0], "looks like a Latin letter in a Latin word")
        if has_latin and foreign and len(looks) == len(foreign):
            text = "".join(c for _, c in word)
            return _said(looks[0][1], looks[0][0], f"is in {text!r}, a word of Latin look-alikes")
    return None


def _words(name: str) -> list[list[tuple[int, str]]]:
    """Runs of letters and digits with their positions (a separator starts a new word)."""
    words: list[list[tuple[int, str]]] = [[]]
    for i, char in enumerate(name):
        if char.isalnum():
            words[-1].append((i, char))
        elif words[-1]:
            words.append([])
    return [w for w in words if w]


def _latin(char: str) -> bool:
    return unicodedata.name(char, "").startswith("LATIN ")


def _said(char: str, index: int, why: str) -> str:
    return (
        f"has {char!r} (U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}, at character "
        f"{index + 1}), which {why}: a name that reads as another system's is refused; write "
        "it in Latin letters, or each word wholly in its own alphabet"
    )
