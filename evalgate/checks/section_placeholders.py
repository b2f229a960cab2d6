"""Template text left in a section: the template's instruction sentences (section_presence's
`placeholders` param), found fast in a document and placed on the line where the template puts them.

Which phrases occur at all is looked for once per document by one search over its bytes
(`Searches`); a section holding one is then asked where it begins a line's text (`left_at`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The template's instruction sentences (_template.md). Any of them left in a section's own text
# means the writer did not replace the template there.
PLACEHOLDER_PHRASES = (
    "State the specific, answerable question this research addresses",
    "Restate the research question. Confirm scope",
    "Why is this question worth answering now?",
    "Decompose the question into sub-questions and describe how each will be investigated",
    "Approach sub-questions broken into atomic questions",
    "Evidence gathered per atomic question. Label each claim",
    "Facts, inferences, and assumptions explicitly separated.",
    "Internal contradictions identified and resolved (or explicitly flagged",
    "Findings re-examined through relevant lenses",
    "Final pass: every section justified, all threads synthesised",
    "What is the answer to the research question? State the key conclusion directly.",
    "Claim text as a complete sentence",
    "Explicit assumptions made during the investigation and the justification for each.",
    "**Assumption:** ... **Justification:** ...",
    "How the evidence was weighed, what trade-offs were identified",
    "What is still unknown? Where does the evidence fall short?",
    "Questions that surfaced during research but are out of scope for this item.",
    "[Smith et al. (YYYY) Source Title](https://url)",
    "[Organisation Title](https://url) — brief description",
)
# Finding which phrases occur at all is the check's main cost: one search per phrase over a lowered
# copy of every item is 0.4 s over the corpus. Instead, one regex over the item's UTF-8 bytes tells
# whether any phrase can be there (in almost every item none can, and the check is done). Each phrase
# is looked for from one character of it that is rare in prose (`q`, `x`, `j`, `?`, `(`, `,`). The
# bytes are lowered and every such character made one byte, NUL, in the same C pass
# (`bytes.translate`, no dearer than `bytes.lower()`), so a single regex starting with that literal
# byte skips from one to the next in C: six searches, one per character, cost twice as much. At each
# NUL the alternatives (one per phrase, the phrase folded the same way) check the rest of the word
# after it, as a literal, so most fail at their first byte; then the word up to it (a fixed-width
# look-behind) and the rest of the phrase across any white space. A phrase present in the text,
# reflowed or not, always matches (white space below is every character str.split() splits on), so
# an item the regex does not match holds none; an item it matches (a phrase, or a near miss such as
# `eqplicit` for `explicit`) is then looked for exactly.
_RARE_FIRST = b"q?j([x,kvz:."  # the rarest first (byte counts over the corpus)
_WHITE = (  # in UTF-8: ASCII white space, U+001C-1F, U+0085, U+00A0, U+1680, U+2000-200A, U+2028-9, ...
    rb"(?:[\t-\r\x1c-\x20]|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]"
    rb"|\xe2\x81\x9f|\xe3\x80\x80)+"  # ... U+202F, U+205F, U+3000
)

# Before a word that begins with an ASCII byte, any run of white space is matched by one byte class
# that also takes every non-ASCII byte: more than white space (a near miss is then looked for exactly,
# as above), never less, and possessive, since the word's first byte is outside it. 190 copies of
# _WHITE made compiling the search 4.6 ms; with the class 1.7 ms. A word that begins with a
# non-ASCII byte (`—`) would be swallowed by the class, so it keeps _WHITE.
_SPACE_RUN = rb"[\t-\r\x1c-\x20\x80-\xff]++"


def _gap(word: bytes) -> bytes:
    """The pattern for the white space before `word` (folded, not empty) in a phrase."""
    return _WHITE if word[0] >= 0x80 else _SPACE_RUN


@dataclass(frozen=True)
class PhraseSearch:
    """A `bytes.translate` table (A-Z lowered, each phrase's rare character made NUL) and the regex
    that matches the folded bytes wherever a phrase may be."""

    table: bytes
    pattern: re.Pattern[bytes]


def phrase_search(keys: tuple[tuple[str, str], ...]) -> PhraseSearch | None:
    """The search for these (phrase, lowered key) pairs; None when a phrase has no ASCII character
    to look for it from (a custom placeholder written all in other scripts: every item is then looked
    through directly)."""
    chars: list[int] = []
    for _, key in keys:
        raw = key.encode("utf-8")
        # ASCII and not the space: a byte of a multi-byte character or white space made NUL would
        # break the white space pattern
        char = next(
            (c for c in _RARE_FIRST if c in raw), next((c for c in raw if c < 0x80 and c != 0x20), None)
        )
        if char is None:
            return None
        chars.append(char)
    table = bytearray(bytes(range(256)).lower())
    for char in chars:
        table[char] = table[ord(chr(char).upper())] = 0
    branches = []
    for (_, key), char in zip(keys, chars, strict=True):
        raw = key.encode("utf-8")
        folded = raw.translate(table)
        at = raw.index(char)
        start = raw.rfind(b" ", 0, at) + 1  # the character's word is raw[start:stop]
        stop = raw.find(b" ", at) if b" " in raw[at:] else len(raw)
        rest = b"".join(_gap(word) + re.escape(word) for word in folded[stop:].split(b" ") if word)
        branches.append((folded[at + 1 : stop], b"(?<=" + re.escape(folded[start:stop]) + b")" + rest))
    return PhraseSearch(bytes(table), re.compile(b"\x00" + alternation(branches)))


def alternation(branches: list[tuple[bytes, bytes]]) -> bytes:
    """A pattern matching where any (literal, pattern) branch does, with the branches' literals
    merged into a trie: `uestion(?:...)` once for the six phrases whose word after the `q` is
    `uestion`. At each of the corpus's ~365,000 NUL bytes the engine's alternation tests each branch's
    first byte; merged, it tests one per distinct first byte (the search is only asked whether some
    branch matches, so their order does not matter)."""
    groups: dict[bytes, list[tuple[bytes, bytes]]] = {}
    bare = []  # branches whose literal is spent: their pattern starts with a look-behind
    for literal, pattern in branches:
        if literal:
            groups.setdefault(literal[:1], []).append((literal[1:], pattern))
        else:
            bare.append(pattern)
    parts = [
        re.escape(first) + (re.escape(group[0][0]) + group[0][1] if len(group) == 1 else alternation(group))
        for first, group in groups.items()
    ]
    return b"(?:" + b"|".join(parts + bare) + b")"


class Searches:
    """A template's phrase search, compiled once it pays for itself. Compiling it takes ~1.8 ms,
    collapsing one document's white space (what the search spares) ~0.45 ms on average over the
    corpus: so the first few documents a process checks are looked through directly (a pre-commit
    hook checks one file), and the search is compiled for the next. Either way a document gives the
    same phrases."""

    DIRECT = 4  # documents checked without the search, per process and template

    def __init__(self, keys: tuple[tuple[str, str], ...]) -> None:
        self._keys = keys
        self._direct = self.DIRECT
        self._compiled = False
        self._search: PhraseSearch | None = None

    def get(self) -> PhraseSearch | None:
        """The compiled search, or None while documents are still looked through directly."""
        if not self._compiled:
            if self._direct > 0:
                self._direct -= 1
                return None
            self._search, self._compiled = phrase_search(self._keys), True
        return self._search


# What may stand before a template sentence on its line (white space collapsed): quote and list
# markers, a task box, emphasis; each part once, so the match is linear.
_LINE_MARKUP = re.compile(r"(?:> ?)*(?:(?:[-*+]|\d{1,9}[.)]) )?(?:\[[ x]\] )?[*_`]*")


def left_at(own: list[str] | tuple[str, ...], key: str) -> int | None:
    """The index of the line of `own` whose text begins with the template sentence `key` (lowered,
    white space collapsed; reflowed over the lines after it), only markup before it (list marker,
    box, emphasis, `>`), as the template puts it; else None. The words inside the author's own line
    ("- §3 Reasoning: facts, inferences, and assumptions explicitly separated. ✓") are no template
    text left in."""
    bare = key.lstrip("*_`")
    for index, text in enumerate(own):
        words = " ".join(text.split()).lower()
        rest = _LINE_MARKUP.sub("", words, count=1)  # it matches at 0, if only the empty string
        if not rest:
            continue
        following = index + 1
        while len(rest) < len(bare) and following < len(own) and bare.startswith(rest):
            rest, following = f"{rest} {' '.join(own[following].split()).lower()}".strip(), following + 1
        if rest.startswith(bare):
            return index
    return None
