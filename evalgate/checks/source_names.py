"""A Sources entry's citation labels, `Author (Year)` and its title, and the body lines that name a
source by them.

The template asks for display names such as `[Smith et al. (YYYY) Title of paper](https://url)`
because they "feed the `Author (Year)` citation labels shown on the generated site" (_template.md),
and authors cite by that label in the body: "Smith et al. (2024) found ...", "(Smith et al.,
2024)", "Jones and Smith, 2024", "Smith's 2024 survey", often with no URL beside it. So a body line
that writes an entry's first author and, within a few words after it, the entry's year names that
entry. The label is read only where it is unambiguous: an author run of capitalised words (with
`van`, `de`, ... before it) at the start of the entry's name and a `(YYYY)` in that name, the pair
held by no other entry of the item ("Mitchell (2026)" heading three companion items names none).
Likewise a title the entry's name sets off in italics or quotes, of three words or more
(`*The Elements of Statistical Learning*`), written anywhere in the body in any case.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from evalgate.checks.source_reasons import folds
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
# a sentence's end: not the point of "et al.", "e.g.", "i.e.", "vs.", "cf.", "Fig.", "No.", "p." (the
# look-behinds follow the point and take it in, so the pattern starts with a class `re` scans for
# instead of trying eight look-behinds at every character)
_SENTENCE_END = re.compile(
    r"[.!?;](?<!\bal.)(?<!\be\.g.)(?<!\bi\.e.)(?<!\bvs.)(?<!\bcf.)(?<!\bFig.)(?<!\bNo.)(?<!\bp.)(?=\s)"
)
WINDOW = 40  # characters after the author in which its year must be the first year written
# a title set off in single emphasis (not bold) or quotes
_TITLE = re.compile(
    r"(?<![*\w])\*(?!\*)([^*]+?)(?<!\*)\*(?![*\w])|(?<!\w)_([^_]+?)_(?!\w)|\"([^\"]+)\"|“([^”]+)”"
)
_WORDS = re.compile(r"[^\W_]+")


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
        # The character before the author is tested after its first word, by a look-behind over that
        # word and one character (the same test): a pattern that begins with a look-behind has no
        # literal for the regex engine to jump to, so it was tried at every position of the body,
        # once per entry (5x the time of the whole search over the corpus's entries and bodies).
        first = escaped[0]
        rest = "".join(r"\s+" + word for word in escaped[1:])
        return re.compile(rf"{first}(?<![\w'’-]{first}){rest}(?![\w-])", flags)


@dataclass(frozen=True)
class Title:
    """An entry's title as its name sets it off, in italics or quotes, of three words or more
    (`*The Elements of Statistical Learning*`): the body may name the work by it."""

    title: str

    def pattern(self, any_case: bool = True) -> re.Pattern[str]:
        """The title's words in any case, any white space or punctuation between them."""
        # the character before the title tested after its first word, as in AuthorYear.pattern
        first, *others = map(re.escape, _WORDS.findall(self.title))
        rest = "".join(r"\W+" + word for word in others)
        return re.compile(rf"{first}(?<!\w{first}){rest}(?!\w)", re.I)


Label = AuthorYear | Title


def _display_name(source: SourceEntry) -> str:
    """An entry's display name: its link's text, else its text."""
    link = _LINK_TEXT.match(source.text)
    return link.group(1) if link else source.text


def title(source: SourceEntry) -> Title | None:
    """The title an entry's name sets off in italics or quotes, if three words or more."""
    return _title(_display_name(source))


def _title(name: str) -> Title | None:
    # _TITLE starts with look-behinds, so it is tried at every character: most names hold none of
    # the four characters a title needs
    if "*" not in name and "_" not in name and '"' not in name and "“" not in name:
        return None
    for found in _TITLE.finditer(name):
        words = _WORDS.findall(next(group for group in found.groups() if group is not None))
        if len(words) >= 3:
            return Title(" ".join(words).lower())  # so two entries' titles compare as they match
    return None


def author_year(source: SourceEntry) -> AuthorYear | None:
    """The label `Author (Year)` an entry's name gives, or None."""
    return _author_year(_display_name(source))


def _author_year(name: str) -> AuthorYear | None:
    year = _YEAR.search(name)  # first: it starts with a literal `(`, and most names hold no year
    if year is None:
        return None
    author = _AUTHOR.match(name)
    if author is None:
        return None
    first = author.group(1).rstrip(".'’")
    if first.split()[0].lower() in _NOT_AUTHORS:
        return None
    return AuthorYear(first, year.group(1))


def own_labels(source: SourceEntry) -> tuple[Label, ...]:
    """An entry's labels: its `Author (Year)`, its title (those it has)."""
    name = _display_name(source)
    return tuple(label for label in (_author_year(name), _title(name)) if label is not None)


def unique_labels(sources: Iterable[SourceEntry]) -> dict[int, tuple[Label, ...]]:
    """Each entry's labels (its `Author (Year)`, its title) by its line, those no other entry
    shares."""
    labels: dict[int, tuple[Label, ...]] = {}
    for source in sources:
        found = own_labels(source)
        if found:
            labels[source.line] = found
    counts = Counter(label for found in labels.values() for label in found)
    unique = {line: tuple(label for label in found if counts[label] == 1) for line, found in labels.items()}
    return {line: found for line, found in unique.items() if found}


def mentions(
    label: Label, text: str, numbers: list[int], any_case: bool = False, lowered: str | None = None
) -> Iterator[tuple[int, str]]:
    """(document line, sentence) for each place in `text` (whose lines are document lines
    `numbers`) that writes the label, in the text's order: the title, or the author and then, as the
    first year within WINDOW characters on the same line, the year. The sentence is what the line says
    around it, from the last sentence end before the label to the first after it. `lowered`, when
    given, is `text` with (at least) A-Z lowered and no character changed in length, at hand: a title
    is looked for in it. Read as asked: a caller that needs the first place stops the search there."""
    index = done = 0  # the line of offset `done` (the places come in order)
    for at, stop in _places(label, text, any_case, lowered):
        end = text.find("\n", stop)
        end = len(text) if end < 0 else end
        if isinstance(label, AuthorYear):
            year = _ANY_YEAR.search(text, stop, min(stop + WINDOW, end))
            if year is None or year.group(0) != label.year:
                continue
            stop = year.end()
        start = text.rfind("\n", 0, at) + 1
        before = [m.end() for m in _SENTENCE_END.finditer(text, start, at)]
        after = _SENTENCE_END.search(text, stop, end)
        sentence = text[before[-1] if before else start : after.start() + 1 if after else end]
        index += text.count("\n", done, start)
        done = start
        yield numbers[index], sentence


def _places(label: Label, text: str, any_case: bool, lowered: str | None = None) -> Iterator[tuple[int, int]]:
    """(start, end) of each match of `label.pattern(any_case)` in `text`. An author of one word (the
    most common) is found by str.find and its two boundary tests: no pattern to compile, and a
    faster scan than the pattern's."""
    if isinstance(label, AuthorYear):
        last = label.author.split()[-1]
        if (last.lower() if any_case else last) not in text:
            return
        if not any_case and label.author == last and not last.islower():
            size = len(last)
            at = text.find(last)
            while at >= 0:
                after = at + size
                if not (at and _joins(text[at - 1], "'’-")) and not (
                    after < len(text) and _joins(text[after], "-")
                ):
                    yield at, after
                    at = text.find(last, after)  # as finditer: the next match starts after this one
                else:
                    at = text.find(last, at + 1)
            return
    elif label.title.isascii() and not folds(text):
        yield from _title_places(label.title.split(), text.lower() if lowered is None else lowered)
        return
    for match in label.pattern(any_case).finditer(text):
        yield match.span()


def _title_places(words: list[str], lowered: str) -> Iterator[tuple[int, int]]:
    """`Title.pattern`'s matches, found in the text's lower case: a match is the title's words as
    words of the text (runs of `\\w`) one after another, with non-word characters between them, so
    each place its longest word stands is read back and on from there (its first word is often
    "the", written all over a body), and as finditer they do not overlap. ASCII words only. (Lower
    case answers as `re.I` does where the text holds none of source_reasons.FOLDS.)"""
    k = max(range(len(words)), key=lambda i: len(words[i]))  # the first of the longest
    anchor, before, after = words[k], words[k - 1 :: -1] if k else [], words[k + 1 :]
    size, done = len(lowered), 0
    at = lowered.find(anchor)
    while at >= 0:
        start = at
        for word in before:  # back over the non-word run before it, then the word
            gap = start
            while gap > 0 and not _joins(lowered[gap - 1], ""):
                gap -= 1
            start = gap - len(word) if gap < start and lowered.endswith(word, 0, gap) else -1
            if start < 0:
                break
        end = at + len(anchor) if start >= 0 and not (start and _joins(lowered[start - 1], "")) else -1
        for word in after:  # on over the non-word run after it, then the word
            if end < 0:
                break
            gap = end
            while gap < size and not _joins(lowered[gap], ""):
                gap += 1
            end = gap + len(word) if gap > end and lowered.startswith(word, gap) else -1
        if end >= 0 and start >= done and not (end < size and _joins(lowered[end], "")):
            yield start, end
            done = end
        at = lowered.find(anchor, at + 1)


def _joins(character: str, also: str) -> bool:
    """Whether `character` is a word character (`\\w`) or one of `also`."""
    return character.isalnum() or character == "_" or character in also
