"""What an acronym's expansion looks like: the letters an acronym spells, the long form before `(ABBR)`
by Schwartz & Hearst's matcher (letters in order), the strict word-initials rule every suggestion must
meet, and whether a written expansion is the protocol's required one. What else a writer's words may
be (a name with irregular initials, a list) is acronym_written.py's.

Used by the acronym_expansion check, the repository glossary (evalgate/checks/glossary.py) and
`evalgate fix`; pure functions of strings, no document in sight.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

SMALL_WORDS = frozenset({"a", "an", "and", "as", "for", "in", "of", "on", "or", "the", "to", "with", "by"})
# Where a long form stops when looking back from `(`: another parenthesis, a table cell, a clause end.
LONG_FORM_STOP = re.compile(r"[()\[\]|;:]|\.\s|\n[ \t]*\n")
WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*")  # "Ain't" is one word
_SPELL_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*(?:[-–][A-Za-z0-9]+(?:['’][A-Za-z]+)*)*")


@lru_cache(maxsize=4096)
def acronym_letters(abbr: str) -> str:
    """The letters an acronym spells, lower case, digits aside (D3: d). A name of several words that
    holds acronyms (`EU AI Act`) spells each acronym's letters and each other word's initial."""
    if " " in abbr.strip():
        return "".join(w if w.isupper() else w[0] for w in abbr.split()).lower()
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


def long_form_before(before: str, abbr: str) -> str:
    """The last words of `before` (text up to the `(`) that could be `abbr`'s long form: at most about
    two words per letter, and not across another parenthesis, a table cell or a clause end."""
    n = len(acronym_letters(abbr))
    keep = max(n + 5, 2 * n)
    # Only a stop that ends inside the last `keep` words can shorten the long form, so the search
    # starts at the white space before the first of them (where `rsplit` leaves the rest) instead of
    # at the start of up to four lines of prose (-3% of the check's instructions). No stop starts
    # before a word and ends inside it (a stop is one character, a `.` and a space, or white space),
    # so from that word on the search finds the same stops as one from the start.
    # Without a stop the long form is those last words, which `rsplit` has already split off.
    rest = before.rsplit(None, keep)
    start = len(rest[0]) if len(rest) > keep else 0
    stops = [m.end() for m in LONG_FORM_STOP.finditer(before, start)]
    if stops:
        return " ".join(before[stops[-1] :].split()[-keep:])
    return " ".join(rest[-keep:])


def expansion_before(before: str, abbr: str) -> str | None:
    long_form = long_form_before(before, abbr)
    at = spells_at(abbr, long_form)
    return None if at is None else long_form[at:].strip(" ,*_\"'")


def initials_spell(abbr: str, phrase: str) -> bool:
    """Strict: the words' initials are the acronym's letters in order. A small word (of, for, and) may
    be skipped; a capital inside a word may supply a letter too (JavaScript Object Notation). A
    recursive name starts with the acronym itself, and its other words spell the rest (YAML Ain't
    Markup Language)."""
    letters = acronym_letters(abbr)
    words = _SPELL_WORD.findall(phrase)
    if len(words) > 1 and words[0] == abbr and len(letters) > 1:
        return initials_spell(abbr[1:], phrase[phrase.index(abbr) + len(abbr) :])
    return len(letters) > 0 and _spell(tuple(words), letters)


@lru_cache(maxsize=4096)
def _spell(words: tuple[str, ...], letters: str) -> bool:
    """initials_spell's walk, trying a small word both ways ("Total Cost of Ownership": the O is
    Ownership's, not of's) and a word's further initials (a capital inside it, JavaScript; the part after
    a hyphen, Retrieval-Augmented) taken or not (Generative Pre-trained Transformer: GPT)."""

    @cache
    def walk(w: int, i: int) -> bool:
        if w == len(words):
            return i == len(letters)
        word = words[w]
        if word.lower() in SMALL_WORDS and walk(w + 1, i):
            return True
        if i == len(letters) or word[0].lower() != letters[i]:
            return False
        return any(walk(w + 1, end) for end in _ends(word, letters, i + 1))

    return walk(0, 0)


def _ends(word: str, letters: str, i: int) -> list[int]:
    """Where the letters may stand after a word that gave letter i - 1 by its initial: its further
    initials (inner capitals, and the first letter after a hyphen) may give the next letters, in order."""
    ends = [i]
    for k in range(1, len(word)):
        slot = word[k].isupper() or (word[k - 1] in "-–" and word[k].isalnum())
        if slot and ends[-1] < len(letters) and word[k].lower() == letters[ends[-1]]:
            ends.append(ends[-1] + 1)
    return ends


def spelled_tail(abbr: str, item: str) -> str | None:
    """`item`, or its words after a word or two of context (`EU Digital Operational Resilience Act`
    for DORA), when they spell the acronym by their initials; None otherwise. The context is never
    all but the acronym itself (`Sparse PCA` names no PCA)."""
    words = item.split()
    for lead in range(min(3, len(words))):
        tail = words[lead:]
        if lead and (len(tail) < 2 or any(w.strip("*_\"'").upper() == abbr.upper() for w in tail)):
            break
        if initials_spell(abbr, " ".join(tail)):
            return " ".join(tail)
    return None


def same_words(found: str, required: str) -> bool:
    """Whether `required` (the protocol's expansion) is among the last words of `found`, tolerating case,
    hyphens, punctuation, plurals and a shortened word (Program/Programming)."""
    # An acronym inside the required expansion (IT in IT Service Management) may be spelled out.
    want = [w.lower() for w in WORD.findall(required) if not w.isupper()]
    have = [w.lower() for w in WORD.findall(found)][-(len(want) + 2) :]
    for offset in range(len(have) - len(want) + 1):
        if all(_word_matches(h, w) for h, w in zip(have[offset:], want, strict=False)):
            return True
    return False


def _word_matches(have: str, want: str) -> bool:
    have, want = have.removesuffix("s"), want.removesuffix("s")
    short, long = sorted((have, want), key=len)
    return have == want or (len(short) >= 4 and long.startswith(short))
