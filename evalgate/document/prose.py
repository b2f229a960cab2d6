"""Prose as the reader reads it: white space made single, where sentences end, the first sentence.

Takes text; gives text and offsets. Imports nothing of the package, so the model (the Executive
Summary, read when asked for), the parsers and the checks all use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# A sentence's end: its `.`, `!` or `?`, closing quotes or brackets, white space, then what starts a
# sentence. The end is one past the punctuation (a look-behind for it would give `re` no first
# character to skip to, and it tried every character of every summary).
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]*_]*\s+(?=[\"'“‘(*_]*[A-Z0-9]|\[)")
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "al.", "etc.", "cf.", "Fig.", "No.", "approx.", "U.S.", "Dr.")


def single_spaced(text: str) -> str:
    """`" ".join(text.split())`: white space runs made one space, none at either end. Most item
    texts are so already, and telling that costs a third of splitting them into words and joining
    those: a printable text holds no white space but the space (every other white space character
    is a control or separator character), so only runs of spaces and end spaces can change."""
    if text.isprintable():
        # then runs of spaces are what there is to collapse, and that is what str.replace does
        while "  " in text:
            text = text.replace("  ", " ")
        return text.strip(" ")
    return " ".join(text.split())


def first_sentence(text: str) -> str:
    """The text up to its first sentence end (abbreviations such as 'e.g.' do not end one)."""
    for end in sentence_ends(text):
        return text[:end].strip()
    return text.strip()


def sentence_ends(text: str) -> Iterator[int]:
    """The offset just past each sentence's `.`, `!` or `?` in `text`, in order: one followed by
    white space and what starts a sentence (a capital, a digit, a `[` label), where the text before
    it does not end with an abbreviation ('e.g.') or an initial ('J.')."""
    for match in _SENTENCE_END.finditer(text):
        end = match.start() + 1
        head = text[:end].rstrip("\"'”’)]*_")
        if head.endswith(_ABBREVIATIONS) or _ends_with_initial(head):
            continue
        yield end


def _ends_with_initial(head: str) -> bool:
    r"""`re.search(r"\b[A-Z]\.$", head)`: the text ends with an initial (`J.`), or does before a
    final newline (where `$` matches too). Looked at from the end, not searched for from the start
    of every candidate sentence's head."""
    if head.endswith("\n"):
        head = head[:-1]
    return (
        head[-2:-1].isascii()
        and head[-2:-1].isupper()
        and head.endswith(".")
        and not (head[-3:-2].isalnum() or head[-3:-2] == "_")
    )
