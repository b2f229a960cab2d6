"""A Sources entry's citation label, `Author (Year)`, and the body lines that cite a source by it.

The template asks for display names such as `[Smith et al. (YYYY) Title of paper](https://url)`
because they "feed the `Author (Year)` citation labels shown on the generated site" (_template.md),
and authors cite by that label in the body: "Smith et al. (2024) found ...", "(Smith et al.,
2024)", "Jones and Smith, 2024", "Smith's 2024 survey", often with no URL beside it. So a body line
that writes an entry's first author and, within a few words after it, the entry's year names that
entry. The label is read only where it is unambiguous: an author run of capitalised words (with
`van`, `de`, ... before it) at the start of the entry's name and a `(YYYY)` in that name, the pair
held by no other entry of the item ("Mitchell (2026)" heading three companion items names none).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from evalgate.document import SourceEntry

_PARTICLES = r"(?:(?i:van|von|de|der|den|di|da|du|del|della|le|la|ten|ter|dos|das)\s+)*"
# the name's first author: capitalised words (one or two), after markup and quotes
_AUTHOR = re.compile(
    rf"[\s*_\"“‘]*({_PARTICLES}[A-Z][\w'’.-]*(?:\s+(?!(?:et|and)\b)[A-Z][\w'’-]*)?)(?=[\s,&(:;—–-]|$)"
)
_YEAR = re.compile(r"\(((?:1[5-9]|20)\d\d)[a-z]?\)")
_ANY_YEAR = re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?!\d)")
_LINK_TEXT = re.compile(r"\s*\[([^\]]+)\]\(")
# a title's first word, not an author
_NOT_AUTHORS = frozenset(
    {"a", "an", "the", "on", "in", "of", "for", "to", "from", "how", "what", "why", "when", "where"}
    | {"which", "who", "is", "are", "do", "does", "can"}
)
# a sentence's end: not the point of "et al.", "e.g.", "i.e.", "vs.", "cf.", "Fig.", "No.", "p."
_SENTENCE_END = re.compile(
    r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bcf)(?<!\bFig)(?<!\bNo)(?<!\bp)[.!?;](?=\s)"
)
WINDOW = 40  # characters after the author in which its year must be the first year written


@dataclass(frozen=True)
class AuthorYear:
    """An entry's citation label: its first author as written (`van Lamsweerde`) and its year."""

    author: str
    year: str

    def pattern(self, any_case: bool = False) -> re.Pattern[str]:
        """The author as a word of its own (a particle in either case; every word with `any_case`,
        for text already lowered)."""
        words = self.author.split()
        escaped = [f"(?i:{re.escape(w)})" if w.islower() else re.escape(w) for w in words]
        flags = re.I if any_case else 0
        return re.compile(r"(?<![\w'’-])" + r"\s+".join(escaped) + r"(?![\w-])", flags)


def author_year(source: SourceEntry) -> AuthorYear | None:
    """The label `Author (Year)` an entry's name gives, or None."""
    link = _LINK_TEXT.match(source.text)
    name = link.group(1) if link else source.text
    author = _AUTHOR.match(name)
    year = _YEAR.search(name)
    if author is None or year is None:
        return None
    first = author.group(1).rstrip(".'’")
    if first.split()[0].lower() in _NOT_AUTHORS:
        return None
    return AuthorYear(first, year.group(1))


def unique_labels(sources: Iterable[SourceEntry]) -> dict[int, AuthorYear]:
    """Each entry's label by its line, for the labels that no other entry shares."""
    labels = {source.line: label for source in sources if (label := author_year(source)) is not None}
    counts = Counter(labels.values())
    return {line: label for line, label in labels.items() if counts[label] == 1}


def mentions(
    label: AuthorYear, text: str, numbers: list[int], any_case: bool = False
) -> list[tuple[int, str]]:
    """(document line, sentence) for each place in `text` (whose lines are document lines
    `numbers`) that writes the author and then, as the first year within WINDOW characters on the
    same line, the label's year: the sentence is what the line says around it, from the last
    sentence end before the author to the first after the year."""
    found: list[tuple[int, str]] = []
    last = label.author.split()[-1]
    if (last.lower() if any_case else last) not in text:
        return found
    for match in label.pattern(any_case).finditer(text):
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        year = _ANY_YEAR.search(text, match.end(), min(match.end() + WINDOW, end))
        if year is None or year.group(0) != label.year:
            continue
        start = text.rfind("\n", 0, match.start()) + 1
        before = [m.end() for m in _SENTENCE_END.finditer(text, start, match.start())]
        after = _SENTENCE_END.search(text, year.end(), end)
        sentence = text[before[-1] if before else start : after.start() + 1 if after else end]
        found.append((numbers[text.count("\n", 0, start)], sentence))
    return found
