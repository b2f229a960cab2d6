"""Check a judge's evidence quotes against the document it judged, and find the line of each.

A judge is asked for verbatim quotes, but models re-type text: they straighten or curl quotes, swap
dashes, drop markdown emphasis, re-wrap lines and capitalise the first word. None of that changes what
was quoted, so both the quote and the document are normalised the same way before the lookup:

- Unicode NFKC, then case folded (a quote that differs only in case quotes the same words; the chance
  that case alone separates a real quote from an invented one is negligible);
- curly single/double quotes -> straight; hyphen, non-breaking hyphen, figure/en/em dash, minus -> `-`;
- markdown emphasis and code markers (`*`, `_`, `` ` ``, `~`) and double quotes removed (a quote
  nested in a quoted evidence cell is often re-typed);
- every run of whitespace (line breaks included) -> one space.

A quote with an ellipsis (`...`, `…`, `[...]`) matches when its parts occur in that order. Anything
else an invented or paraphrased quote would need is not forgiven: it is reported with verified=False.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from evalgate.document import Document
from evalgate.judgement import Evidence

_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
    }
)
_DROPPED = frozenset('*_`~"')
_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\s*){3}\]|\[…\]|(?:\.\s*){3,}|…)\s*")
_EDGE = " \"'.,;:"  # a quote's surrounding quote marks and trailing punctuation are not content


@dataclass(frozen=True)
class NormalisedText:
    """Text in the normalised form above, with where each source line's text starts in it."""

    text: str
    starts: tuple[int, ...]  # the index in `text` where each kept source line begins, ascending
    numbers: tuple[int, ...]  # that source line's 1-based number

    def line_at(self, index: int) -> int:
        """The source line of the character at `index`."""
        return self.numbers[bisect_right(self.starts, index) - 1] if self.starts else 1


def normalise(text: str) -> NormalisedText:
    """Normalise `text` for quote lookup, remembering where each source line's text starts."""
    out: list[str] = []
    starts: list[int] = []
    numbers: list[int] = []
    length = 0
    # Line by line: every character of a line maps to that line, so a line is normalised as a whole
    # (NFKC and case folding may change its length) and only the collapsing is done per character.
    for number, raw in enumerate(text.split("\n"), start=1):
        folded = unicodedata.normalize("NFKC", raw).translate(_TRANSLATE).casefold()
        words = "".join(c for c in folded if c not in _DROPPED).split()
        if not words:
            continue
        joined = (" " if out else "") + " ".join(words)
        out.append(joined)
        starts.append(length)
        numbers.append(number)
        length += len(joined)
    return NormalisedText("".join(out), tuple(starts), tuple(numbers))


# A run's batch of documents (evalgate.run._BATCH) can all be prepared before their replies come.
@lru_cache(maxsize=64)
def _normalised_document(text: str) -> NormalisedText:
    """A judged document normalised once for all its quotes: every dimension of every judge's reply
    looks its quotes up in the same text (normalising a 60 KB document took ~8 ms, four times a
    reply, in judge threads that finish together)."""
    return normalise(text)


def prepare(document: Document | str) -> None:
    """Normalise the document for `verify_quotes` now, while its judge calls are in flight, rather
    than when its replies arrive: a wave of replies comes back at once, and ~2.6 ms of this per
    document then held the interpreter while the next wave's calls waited to be sent."""
    _normalised_document(document if isinstance(document, str) else document.text)


def _quote_parts(quote: str) -> list[str]:
    parts = [normalise(part).text.strip(_EDGE) for part in _ELLIPSIS.split(quote)]
    return [p for p in parts if p]


def locate(document: NormalisedText, quote: str) -> int | None:
    """The 1-based line where `quote` starts in the normalised document, or None if it is not there."""
    parts = _quote_parts(quote)
    if not parts:
        return None
    # The earliest occurrence of the first part leaves the most room for the rest to follow it.
    start = document.text.find(parts[0])
    if start == -1:
        return None
    position = start + len(parts[0])
    for part in parts[1:]:
        found = document.text.find(part, position)
        if found == -1:
            return None
        position = found + len(part)
    return document.line_at(start)


def verify_quotes(document: Document | str, quotes: Iterable[str]) -> tuple[Evidence, ...]:
    """Each quote as Evidence: verified with its line when found in the document, else flagged."""
    normalised = _normalised_document(document if isinstance(document, str) else document.text)
    results = []
    for quote in quotes:
        line = locate(normalised, quote)
        results.append(Evidence(quote=quote, verified=line is not None, line=line))
    return tuple(results)
