"""What an acronym's expansion looks like: the letters an acronym spells, the long form written before
`(ABBR)` (Schwartz & Hearst's matcher), the strict word-initials rule every suggestion must meet, the
expansion inside `ABBR (Full Name)`, and whether a written expansion is the protocol's required one.

Used by the acronym_expansion check, the repository glossary (evalgate/checks/glossary.py) and
`evalgate fix`; pure functions of strings, no document in sight.
"""

from __future__ import annotations

import re
from functools import lru_cache

_SMALL_WORDS = frozenset({"a", "an", "and", "as", "for", "in", "of", "on", "or", "the", "to", "with", "by"})
# Where a long form stops when looking back from `(`: another parenthesis, a table cell, a clause end.
_LONG_FORM_STOP = re.compile(r"[()\[\]|;:]|\.\s|\n[ \t]*\n")
_WORD = re.compile(r"[A-Za-z0-9]+")


@lru_cache(maxsize=4096)
def acronym_letters(abbr: str) -> str:
    return "".join(c for c in abbr.lower() if c.isalpha())


def spells_at(abbr: str, long_form: str) -> int | None:
    """Where the expansion of `abbr` starts in `long_form` (which ends right before the `(`), or None.

    Schwartz & Hearst's matcher (2003): walk the abbreviation's letters from the last, each found
    further left in the long form; the first letter must begin a word. Digits are skipped (D3, FTS5).
    """
    letters = acronym_letters(abbr)
    if not letters:
        return None
    text = long_form.lower()
    j = len(text)  # the letter sought next is left of here
    for c in reversed(letters[1:]):
        j = text.rfind(c, 0, j)
        if j < 0:
            return None
    j = text.rfind(letters[0], 0, j)
    while j > 0 and text[j - 1].isalnum():  # the first letter begins a word
        j = text.rfind(letters[0], 0, j)
    return None if j < 0 else j


def _long_form_before(before: str, abbr: str) -> str:
    """The last words of `before` (text up to the `(`) that could be `abbr`'s long form: at most about
    two words per letter, and not across another parenthesis, a table cell or a clause end."""
    n = len(acronym_letters(abbr))
    keep = max(n + 5, 2 * n)
    # Only a stop that ends inside the last `keep` words can shorten the long form, so the search
    # starts at the white space before the first of them (where `rsplit` leaves the rest) instead of
    # at the start of up to four lines of prose (-3% of the check's instructions). No stop starts
    # before a word and ends inside it (a stop is one character, a `.` and a space, or white space),
    # so from that word on the search finds the same stops as one from the start.
    rest = before.rsplit(None, keep)
    start = len(rest[0]) if len(rest) > keep else 0
    stops = [m.end() for m in _LONG_FORM_STOP.finditer(before, start)]
    if stops:
        before = before[stops[-1] :]
    return " ".join(before.split()[-keep:])


def expansion_before(before: str, abbr: str) -> str | None:
    long_form = _long_form_before(before, abbr)
    at = spells_at(abbr, long_form)
    return None if at is None else long_form[at:].strip(" ,*_\"'")


def initials_spell(abbr: str, phrase: str) -> bool:
    """Strict: the words' initials are the acronym's letters in order. A small word (of, for, and) may
    be skipped; a capital inside a word may supply a letter too (JavaScript Object Notation)."""
    letters = acronym_letters(abbr)
    i = 0
    for word in _WORD.findall(phrase):
        if i < len(letters) and word[0].lower() == letters[i]:
            i += 1
            for ch in word[1:]:
                if i < len(letters) and ch.isupper() and ch.lower() == letters[i]:
                    i += 1
        elif word.lower() not in _SMALL_WORDS:
            return False
    return i == len(letters) > 0


def expansion_within(inner: str, abbr: str) -> str | None:
    """The first item of `inner` (the text of a parenthesis after the acronym), if it spells the
    acronym word by word: a list such as `(RAG, RLHF, CoT)` or a gloss does not."""
    item = re.split(r"[,;]", inner, maxsplit=1)[0].strip(" :*_\"'-–—=")
    return item if initials_spell(abbr, item) else None


def same_words(found: str, required: str) -> bool:
    """Whether `required` (the protocol's expansion) is among the last words of `found`, tolerating case,
    hyphens, punctuation, plurals and a shortened word (Program/Programming)."""
    # An acronym inside the required expansion (IT in IT Service Management) may be spelled out.
    want = [w.lower() for w in _WORD.findall(required) if not w.isupper()]
    have = [w.lower() for w in _WORD.findall(found)][-(len(want) + 2) :]
    for offset in range(len(have) - len(want) + 1):
        if all(_word_matches(h, w) for h, w in zip(have[offset:], want, strict=False)):
            return True
    return False


def _word_matches(have: str, want: str) -> bool:
    have, want = have.removesuffix("s"), want.removesuffix("s")
    short, long = sorted((have, want), key=len)
    return have == want or (len(short) >= 4 and long.startswith(short))
