"""The indefinite article before what `evalgate fix` inserts: "an LLM agent" becomes "a Large Language
Model (LLM) agent" (not "an Large ..."), "a API" becomes "an Application Programming Interface (API)".

The article goes by the sound of the first word: a vowel letter sounds as a vowel except where it says
"you" or "wun" (a Unified, a European, a One-Time), a silent h is a vowel (an Hour), and an acronym or a
single letter is read letter by letter (an HTTP, an IT, a URL).
"""

from __future__ import annotations

import re

# Words that start with a vowel letter but sound as a consonant ("a unified", "a European", "a one").
_CONSONANT_SOUND = ("uni", "use", "usa", "usu", "uti", "ura", "ure", "uro", "eu", "one", "once", "ubiq")
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")
_LETTERS_WITH_VOWEL_SOUND = frozenset("AEFHILMNORSX")  # "an F", "an M", "an X"
# An article right before the edit: a lower-case one after a space or an opening mark, or a capital
# one starting the line or a sentence.
_ARTICLE = re.compile(
    r"(?:(?<=[\s(\[\"'“‘*_])(?P<lower>a|an)|(?:^|(?<=^[-*+>] )|(?<=[.!?:] )|(?<=\*\*))(?P<upper>A|An))"
    r"[ \t]+$"
)
_FIRST_WORD = re.compile(r"[^\W_]+")


def article_for(phrase: str) -> str:
    """ "a" or "an" for `phrase` by the sound of its first word."""
    found = _FIRST_WORD.search(phrase)
    if found is None:
        return "a"
    word = found.group()
    if word.isdigit():  # "an 8", "an 11", "an 18", "an 80"
        return "an" if word.startswith("8") or word in ("11", "18") else "a"
    if word.isupper() or len(word) == 1:
        return "an" if word[0].upper() in _LETTERS_WITH_VOWEL_SOUND else "a"
    low = word.lower()
    if low.startswith(_SILENT_H):
        return "an"
    if low[0] in "aeiou" and not low.startswith(_CONSONANT_SOUND):
        return "an"
    return "a"


def article_before(raw: str, start: int) -> tuple[int, str] | None:
    """The column and text of the article ending right before `start` (its spaces included), or None."""
    found = _ARTICLE.search(raw, 0, start)
    if found is None or found.end() != start:
        return None
    word = found.group("lower") or found.group("upper")
    return found.start(), word


def with_article(word: str, wanted: str) -> str:
    """`wanted` ("a" or "an") written in the case of the article it replaces."""
    return wanted.capitalize() if word[0].isupper() else wanted
