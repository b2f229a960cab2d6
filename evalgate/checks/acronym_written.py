"""What the writer wrote as an acronym's expansion, for the acronym_expansion check and `evalgate fix`:
the long form before `(ABBR)` read by the letters in order (acronym_forms.py's matcher), by a comma
list's items, by a name's irregular initials (Web Ontology Language: OWL) or as a recursive name
(YAML Ain't Markup Language); and the expansion inside `ABBR (Full Name)`. Wider than the initials
rule a suggestion must meet (acronym_forms.initials_spell): this recognises, it never suggests.
Pure functions of strings (docs/checks.md, "What counts as an expansion").
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from evalgate.checks.acronym_forms import (
    LONG_FORM_STOP,
    SMALL_WORDS,
    WORD,
    acronym_letters,
    initials_spell,
    long_form_before,
    spelled_tail,
    spells_at,
)

# A parenthesis that holds one acronym (or a group such as `CI/CD`) inside a long form, as in
# "SPARQL Protocol and Resource Description Framework (RDF) Query Language (SPARQL)": blanked, so the
# long form before the outer `(` runs through it instead of stopping at its `)`.
_INNER_GROUP = re.compile(r"\([A-Z][A-Za-z0-9]*(?:[/-][A-Za-z0-9]+)*\)")
_INNER_NAMED = re.compile(r"(?:[A-Z][\w-]*[ \t]+){1,6}\((?P<abbr>[A-Z][A-Za-z0-9]*(?:[/-][A-Za-z0-9]+)*)\)")
# The words of a long form for the irregular rule: letters and digits, with an apostrophe inside
# ("Ain't"); hyphens and slashes separate words ("Pseudo-Terminal" is two).
_NAME_WORD = re.compile(r"[^\W_](?:[^\W_]|['’](?=[^\W_]))*")


def expansion_within(inner: str, abbr: str) -> str | None:
    """The first item of `inner` (the text of a parenthesis after the acronym), if it spells the
    acronym word by word: a list such as `(RAG, RLHF, CoT)` or a gloss does not."""
    item = re.split(r"[,;]", inner, maxsplit=1)[0].strip(" :*_\"'-–—=")
    if item.upper() == abbr.upper():  # `DOT (DOT)`: the acronym again, no expansion
        return None
    if spelled_tail(abbr, item) is not None:
        return item
    # a name with irregular initials: `KAOS (Knowledge Acquisition in autOmated Specification)`
    named = irregular_expansion(item, abbr)
    return item if named is not None and len(item.split()) - len(named.split()) <= 2 else None


# How far back from the `(` a written expansion is looked for (characters; a long form is at most
# about two words per letter, and a comma list at most one item per letter)
_WINDOW = 600


def written_expansion(before: str, abbr: str, missing: int = 1) -> str | None:
    """The expansion written right before `(ABBR)`, or None; `before` is the text up to the `(`.

    Found, in this order, by Schwartz & Hearst's matcher (`expansion_before`: the letters in order, the
    first at a word start), by the initials of a comma list ("Satisfaction, Performance, ... (SPACE)"),
    or, for a name whose initials are irregular, by `irregular_expansion` ("Web Ontology Language
    (OWL)", "Explainable Artificial Intelligence (XAI)"); `missing` is how many letters of a name in
    capitalised words may have no word to come from. A parenthesis holding just an acronym inside the
    long form ("... Resource Description Framework (RDF) Query Language (SPARQL)") does not end it.
    This is how the check recognises an expansion; a suggestion is still held to `initials_spell`.
    """
    if len(before) > _WINDOW:  # no long form reaches further back: a paragraph's start is not read
        cut = before.find(" ", len(before) - _WINDOW)
        before = before[cut:] if cut >= 0 else before
    raw = before
    if "(" in before:
        before = _INNER_GROUP.sub(lambda m: " " * len(m.group()), before)
    long_form = long_form_before(before, abbr)
    at = spells_at(abbr, long_form)
    if at is not None and _compact(long_form[at:], abbr):
        found = long_form[at:].strip(" ,*_\"'")
        # `Graphviz DOT (DOT)`, `MIT License (MIT)`: the acronym spells itself; a recursive name's
        # other letters are its other words' initials (YAML Ain't Markup Language)
        if found.split()[0].strip("*_\"'").upper() != abbr.upper() or _recursive(raw, abbr):
            return found
    return list_before(before, abbr) or irregular_expansion(long_form, abbr, missing)


def _recursive(before: str, abbr: str) -> bool:
    """Whether the words after the last `abbr` in `before` spell the rest of it by their initials."""
    if "(" in before:
        # "... Resource Description Framework (RDF) ..." reads as "... RDF ..." for a recursive name
        before = _INNER_NAMED.sub(lambda m: m.group("abbr"), before)
    at = before.rfind(abbr)
    return len(abbr) > 1 and at >= 0 and initials_spell(abbr[1:], before[at + len(abbr) :])


def _compact(long_form: str, abbr: str) -> bool:
    """Whether a long form found by the matcher reads as a name: at most one word more than the
    acronym has letters (small words aside), or two thirds of the letters on the words' initials in
    order. The letters of "churn and approval loop cycling comes from survey data" spell CHAOS, but
    seven words for five letters, three of them on initials, name nothing; "Synthesis of Topic
    Outlines through Retrieval and Multi-perspective Question Asking" is STORM's name."""
    letters = acronym_letters(abbr)
    words = [w for w in WORD.findall(long_form) if w.lower() not in SMALL_WORDS]
    if len(words) <= len(letters) + 1:
        return True
    initials = "".join(w[0] + "".join(c for c in w[1:] if c.isupper()) for w in words).lower()
    return 3 * _common(letters, initials) >= 2 * len(letters)


def _common(a: str, b: str) -> int:
    """The length of the longest common subsequence of two short strings."""
    row = [0] * (len(b) + 1)
    for x in a:
        previous = 0
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], previous + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def _capitalised(word: str) -> bool:
    """A word of a name: it starts with a capital, or holds one (eXtensible, autOmated)."""
    return word[0].isupper() or any(c.isupper() for c in word[1:])


def irregular_expansion(long_form: str, abbr: str, missing: int = 1) -> str | None:
    """The last words of `long_form` that name `abbr` although their initials do not spell it, or None.

    Two or more capitalised words (a capital first or inside: eXtensible; small words such as "of" and
    "and" may sit between them), of which
    - the initials are the acronym's letters in another order (Web Ontology Language: OWL); or
    - each holds at least one of the acronym's letters, in order, the first word the first letter,
      and at least half of the letters fall on a word's initial or a capital inside a word
      (Explainable Artificial Intelligence: XAI; eXtensible Markup Language: XML); when the acronym
      has three letters or more, `missing` letters may come from no word, or words give no letter
      (Pseudo-Terminal: PTY; Grade School Math 8,000: GSM8K; Control Objectives for Information and
      Related Technologies: COBIT).
    The longest such run of words wins. Lower-case words are held to the initials (`expansion_before`):
    in "the backlink index (CI)" the letters are there, but no one wrote a name. "Web Conference
    (WWW)" or "Regulation (EU)" name nothing either.
    """
    letters = acronym_letters(abbr)
    words = list(_NAME_WORD.finditer(long_form))
    if len(letters) < 2 or len(words) < 2:
        return None
    texts = [w.group() for w in words]
    content = [t.lower() not in SMALL_WORDS and not t.isdigit() for t in texts]
    worded = [c and not t.isupper() for t, c in zip(texts, content, strict=True)]  # no acronym
    named = len(texts)  # from here on, every word is capitalised, a small word or a number
    while named > 0 and (not content[named - 1] or _capitalised(texts[named - 1])):
        named -= 1
    for start in range(named, len(texts) - 1):
        phrase = texts[start:]
        if not content[start] or sum(content[start:]) < 2 or not any(worded[start:]):
            continue  # a name of two words or more, not all acronyms (`RPM, TPM, RPD (RPD)`)
        if any(t.upper() == abbr.upper() for t in phrase):
            continue  # `MIT License (MIT)`, `JSON for Linked Data (JSON)`: the acronym spells itself
        if _initials_permuted(phrase, content[start:], letters):
            return long_form[words[start].start() :]
        allowed = missing if len(letters) >= 3 else 0
        credit = _spread(tuple(phrase), tuple(content[start:]), letters, allowed)
        if 2 * credit >= len(letters):
            return long_form[words[start].start() :]
    return None


def _initials_permuted(phrase: list[str], content: list[bool], letters: str) -> bool:
    initials = [w[0].lower() for w, c in zip(phrase, content, strict=True) if c]
    return len(letters) >= 3 and len(initials) == len(letters) and sorted(initials) == sorted(letters)


@lru_cache(maxsize=1024)
def _spread(words: tuple[str, ...], content: tuple[bool, ...], letters: str, allowed: int) -> int:
    """The most letters falling on initials (or inner capitals) over the ways `words` can take the
    letters in order, each content word at least one, the first word the first letter, at most
    `allowed` letters from no word (never the first: `Zany Yak` names no QZY); -1 when there is no
    way."""
    n = len(letters)

    @cache
    def best(i: int, w: int, skipped: int) -> int:
        if w == len(words):
            return 0 if skipped + n - i <= allowed else -1
        found = -1
        if 0 < i < n and skipped < allowed:  # this letter comes from no word
            found = best(i + 1, w, skipped + 1)
        if w > 0 and not content[w]:  # a small word or a number may give nothing
            found = max(found, best(i, w + 1, skipped))
        elif w > 0 and skipped < allowed:  # so may one word, in the same allowance (Control Objectives
            found = max(found, best(i, w + 1, skipped + 1))  # for Information and Related Technologies)
        for j in range(i + 1, n + 1):
            credit = _takes(words[w], letters[i:j])
            if credit < 0:
                break  # a longer run is no subsequence either
            rest = best(j, w + 1, skipped)
            if rest >= 0:
                found = max(found, credit + rest)
        return found

    return best(0, 0, 0)


def _takes(word: str, run: str) -> int:
    """-1 if `run` is not a subsequence of `word` (any case); else how many of its letters fall on the
    word's initial or on a capital inside it (eXtensible; an acronym's inner letters are no initials,
    and it gives no letter but its first)."""
    low = word.lower()
    if word.isupper():  # an acronym in the name (Explainable AI: XAI) gives its first letters
        return len(run) if low.startswith(run) else -1
    at, credit = 0, 0
    for k, c in enumerate(run):
        if k == 0 and low[0] == c:
            at, credit = 1, 1
            continue
        p = low.find(c, at)
        if p < 0:
            return -1
        credit += p > 0 and word[p].isupper()
        at = p + 1
    return credit


def _items_spell(items: list[str], letters: str) -> bool:
    """Whether each item of a list gives the next letters by its words' initials: its first word's
    initial, then maybe those of the words after it (small words skipped), each item at least one
    ("Information Disclosure, Denial of Service" in STRIDE: I from the first, D from the second)."""
    initials = []
    for item in items:
        words = [w for w in WORD.findall(item) if w.lower() not in SMALL_WORDS] or WORD.findall(item)
        if not words:
            return False
        initials.append("".join(w[0].lower() for w in words))
    if initials[0][0] != letters[:1]:
        return False  # most lists tried are none: their first item does not give the first letter

    @cache
    def walk(k: int, i: int) -> bool:
        if k == len(initials):
            return i == len(letters)
        own = initials[k]
        if i == len(letters) or own[0] != letters[i]:
            return False
        ends = [i + 1]
        for c in own[1:]:
            if ends[-1] < len(letters) and c == letters[ends[-1]]:
                ends.append(ends[-1] + 1)
        return any(walk(k + 1, end) for end in ends)

    return walk(0, 0)


_LIST_AND = re.compile(r"^(?:and|or)\s+")


def list_items(text: str) -> list[str]:
    """The items of a comma list, a leading "and" or "or" and markup left out."""
    items = [_LIST_AND.sub("", part.strip(" *_\"'")) for part in text.split(",")]
    return [item for item in items if item]


def list_before(before: str, abbr: str) -> str | None:
    """The comma list right before `(ABBR)` whose items' initials spell it ("Create, Read, Update,
    Delete (CRUD)"), from the last clause stop on; None if there is none."""
    if "," not in before:
        return None
    stops = [m.end() for m in LONG_FORM_STOP.finditer(before)]
    clause = before[stops[-1] :] if stops else before
    letters = acronym_letters(abbr)
    parts = clause.split(",")
    for start in range(len(parts) - 1):
        text = ",".join(parts[start:])
        items = list_items(text)
        if len(items) >= 2 and len(items) <= len(letters) and _items_spell(items, letters):
            head = items[0]
            return text[text.index(head) :].strip(" *_\"'")
    return None


def list_expansion(inner: str, abbr: str) -> str | None:
    """`inner` (a parenthesis after the acronym) when it is a list whose items spell the acronym by
    their initials: `SOLID (Single Responsibility, Open-Closed, Liskov Substitution, Interface
    Segregation, Dependency Inversion)`; None otherwise."""
    items = list_items(inner)
    letters = acronym_letters(abbr)
    if 2 <= len(items) <= len(letters) and _items_spell(items, letters):
        return inner.strip(" *_\"'")
    return None
