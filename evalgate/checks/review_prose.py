"""The prose a reviewer reads, sentence by sentence, for the research-review pack's wording checks
(formulaic_transitions, overconfident_language, opinion_labels).

The lines of the sections in scope, as readers see them (the document's own view: HTML comments
hidden, invisible characters read as shown), without front matter, code blocks, headings (the
template's headers are structure, not prose: the review prompt says not to flag them) or block quotes
(quoted material is the source's words, not the writer's). Lines are grouped into blocks (a
paragraph, a list item, a table row) and a block into sentences (a table row's cells apart). Each
sentence has its text as written and its prose, the same length with code spans, URLs, link targets,
HTML tags, label brackets (`[inference; source: ...]`) and double-quoted quotations blanked to
spaces, so a word is matched only where the writer says it and every offset maps back to a line.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from evalgate.checks.acronym_prose import prose_line, skipped_lines
from evalgate.document import Document, normalise_title
from evalgate.document.findings import DOI, URL
from evalgate.document.prose import sentence_ends

# A line that starts a block of its own: a list item (its marker), a table row.
_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_QUOTE_LINE = re.compile(r"[ \t]{0,3}>")
# A label bracket: `[fact]`, `[inference; source: https://...]`, `**[high]**` (bounded, unnested).
_LABEL_BRACKET = re.compile(
    r"\[(?=[^\[\]\n]{0,400}\])[ \t]*(?:fact|inference|assumption|confidence|sources?|high|medium|low"
    r"|opinion|speculation|hypothesis)\b[^\[\]\n]*\]",
    re.I,
)
# What a sentence cites: a URL, a DOI, an arXiv identifier, a `source:` part, a markdown link.
_CITES = re.compile(r"\bsources?\s*:|\barxiv:\s?\d|\]\(", re.I)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# What may come before a sentence's first word: list markers, emphasis, quotes, brackets, labels.
_LEAD = re.compile(r"[\s>*_\"“‘(\[#+-]*(?:\d{1,9}[.)]\s+)?[\s*_\"“‘(]*")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a block: `text` as written, `prose` (same length) with non-prose blanked,
    `evidence` its text with the label or citation that follows it ("Claim. [inference; source:
    URL]" is one sentence to the protocol, though the bracket starts another)."""

    text: str
    prose: str
    evidence: str
    start: int  # offset of the sentence in its block
    block_start: str  # the block's first 60 characters as written (a label prefixing a paragraph)
    _lines: tuple[int, ...]  # the block's line numbers
    _offsets: tuple[int, ...]  # where each of them starts in the block

    def line_at(self, offset: int) -> int:
        """The 1-based line of `offset` in this sentence."""
        return self._lines[bisect.bisect_right(self._offsets, self.start + offset) - 1]

    @property
    def question(self) -> bool:
        return self.text.rstrip(" \t\n*_\"')]”’").endswith("?")

    @property
    def cites(self) -> bool:
        """Whether the sentence (with what follows it) cites a source."""
        text = self.evidence
        return bool(URL.search(text) or DOI.search(text) or _CITES.search(text))

    def words(self) -> list[tuple[int, int, str]]:
        """(start, end, lower-cased word) of every word of its prose."""
        return [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(self.prose)]

    def opens(self, offset: int) -> bool:
        """Whether `offset` starts the sentence (markup, labels and list markers aside) or a clause
        after `;` or `:` (read in place: a sentence may hold thousands of candidates)."""
        at = offset - 1
        while at >= 0 and self.prose[at].isspace():
            at -= 1
        if at >= 0 and self.prose[at] in ";:":
            return True
        return _LEAD.fullmatch(self.prose, 0, offset) is not None

    def shown(self, offset: int = 0, chars: int = 100) -> str:
        """The sentence's words from `offset`, cut to about `chars` characters, for a message."""
        words = " ".join(self.text[offset : offset + chars + 40].split())
        return words if len(words) <= chars else words[: chars - 1] + "…"


def in_scope(document: Document, sections: tuple[str, ...]) -> bytearray:
    """1 for each line a wording check may read: in the sections (and their subsections; none: the
    whole document), neither front matter nor code, nor a heading (block quotes: `_reads`)."""
    skip = skipped_lines(document)
    keep = bytearray(len(skip))
    if sections:
        for title in sections:
            found = document.find_section(normalise_title(title))
            if found is not None:
                keep[found.line : found.end_line + 1] = b"\x01" * (found.end_line + 1 - found.line)
    else:
        keep[1 : len(document.lines) + 1] = b"\x01" * len(document.lines)
    for line in document.heading_lines:
        keep[line] = 0
    return bytearray(k & (s ^ 1) for k, s in zip(keep, skip, strict=True))


def _reads(document: Document, scope: bytearray, n: int) -> bool:
    """Whether line `n` is prose in scope: in `scope`, not blank, not a block quote."""
    if not 1 <= n <= len(document.lines) or not scope[n]:
        return False
    text = document.lines[n - 1]
    return bool(text.strip()) and not _QUOTE_LINE.match(text)


def _row(text: str) -> bool:
    return text.lstrip().startswith("|")


def _block_around(document: Document, scope: bytearray, n: int) -> tuple[tuple[int, ...], bool]:
    """The block holding line `n` (a prose line in scope): a table row alone, or the paragraph or
    list item it is part of (a list item's marker starts a block)."""
    lines = document.lines
    if _row(lines[n - 1]):
        return (n,), True
    first = n
    while not _ITEM.match(lines[first - 1]) and _reads(document, scope, first - 1):
        if _row(lines[first - 2]):
            break
        first -= 1
    last = n
    while _reads(document, scope, last + 1) and not _row(lines[last]) and not _ITEM.match(lines[last]):
        last += 1
    return tuple(range(first, last + 1)), False


def _ranges(scope: bytearray) -> list[tuple[int, int]]:
    """The runs of lines in `scope`, as (first, last)."""
    runs: list[tuple[int, int]] = []
    n = scope.find(1)
    while n >= 0:
        end = scope.find(0, n)
        end = len(scope) if end < 0 else end
        runs.append((n, end - 1))
        n = scope.find(1, end)
    return runs


def _blocks(
    document: Document, scope: bytearray, finder: PhraseFinder | None
) -> Iterator[tuple[tuple[int, ...], bool]]:
    """(line numbers, is a table row) of each block in scope; with a `finder`, only the blocks its
    phrases occur in, found by one search of the whole text."""
    if finder is not None:
        seen: set[int] = set()
        for n in finder.lines(document.lines, _ranges(scope)):
            if n not in seen and _reads(document, scope, n):
                block = _block_around(document, scope, n)
                seen.update(block[0])
                yield block
        return
    current: list[int] = []
    for n in range(1, len(document.lines) + 1):
        text = document.lines[n - 1]
        if not _reads(document, scope, n):
            if current:
                yield tuple(current), False
                current = []
            continue
        if _row(text):
            if current:
                yield tuple(current), False
                current = []
            yield (n,), True
            continue
        if current and _ITEM.match(text):
            yield tuple(current), False
            current = []
        current.append(n)
    if current:
        yield tuple(current), False


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group())


def quotation_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each quotation in `text`, its marks included: between double quotes,
    straight ones paired in order, or curly `“...”` (one not closed is none)."""
    spans: list[tuple[int, int]] = []
    if '"' not in text and "“" not in text:
        return spans
    opened: int | None = None
    for i, ch in enumerate(text):
        if opened is None and ch in '"“':
            opened = i
        elif opened is not None and (ch == '"' or (ch == "”" and text[opened] == "“")):
            spans.append((opened, i + 1))
            opened = None
    return spans


def blank_quotations(prose: str) -> str:
    """`prose` with its quotations (`quotation_spans`) blanked: a quotation is the quoted source's
    words."""
    parts: list[str] = []
    done = 0
    for start, end in quotation_spans(prose):
        parts += (prose[done:start], " " * (end - start))
        done = end
    return "".join(parts) + prose[done:] if parts else prose


def _masked(line: str) -> str:
    line = prose_line(line)
    return _LABEL_BRACKET.sub(_blank, line) if "[" in line else line


def sentences(
    document: Document, sections: tuple[str, ...], finder: PhraseFinder | None = None
) -> Iterator[Sentence]:
    """Every sentence of the prose in scope (see the module's docstring), in document order; with a
    `finder`, only those of the blocks its phrases occur in: a check that looks for phrases reads
    the few paragraphs that hold them (most hold none, and masking and splitting a paragraph costs
    far more than one search of the whole text)."""
    lines = document.lines
    for numbers, row in _blocks(document, in_scope(document, sections), finder):
        raw_lines = [lines[n - 1] for n in numbers]
        text = "\n".join(raw_lines)
        prose = blank_quotations("\n".join(_masked(line) for line in raw_lines))
        offsets, at = [], 0
        for line in raw_lines:
            offsets.append(at)
            at += len(line) + 1
        head = text[:60]
        spans = table_cells(text) if row else [(0, len(text))]
        for first, last in spans:
            ends = [first + e for e in sentence_ends(text[first:last])] + [last]
            start = first
            for i, end in enumerate(ends):
                if end <= start:
                    continue
                following = text[end : ends[i + 1]] if i + 1 < len(ends) else ""
                # a table row's claim cites in another cell: the row is its evidence
                evidence = text if row else text[start:end] + _leading_label(following)
                yield Sentence(
                    text=text[start:end],
                    prose=prose[start:end],
                    evidence=evidence,
                    start=start,
                    block_start=head,
                    _lines=numbers,
                    _offsets=tuple(offsets),
                )
                start = end


def table_cells(row: str) -> list[tuple[int, int]]:
    """The spans of a table row's cells (between its `|`; a `\\|` is inside a cell)."""
    bars = [m.start() for m in re.finditer(r"(?<!\\)\|", row)]
    return [(a + 1, b) for a, b in itertools.pairwise(bars) if b > a + 1]


_SOURCES_SENTENCE = re.compile(r"[\s*_]*(?:sources?|justification)[\s*_]*:", re.I)


def _leading_label(text: str) -> str:
    """The label or citation a sentence opens with (`[inference; source: URL]`, `(Source: URL)`) or
    the sentence itself when it is a `Source:` line: it belongs to the sentence before it ('' when
    the sentence opens with neither)."""
    if _SOURCES_SENTENCE.match(text):
        return " " + text
    stripped = text.lstrip(" \t\n*_")
    if not stripped or stripped[0] not in "[(":
        return ""
    closing = "]" if stripped[0] == "[" else ")"
    end = stripped.find(closing, 0, 600)
    return " " + stripped[: end + 1] if end > 0 else ""


@lru_cache(maxsize=64)
def word_matcher(entries: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a lower-cased word is one of `entries`: a word, a word ending in `*` (any ending) or
    one starting with `*` (any beginning)."""
    exact = frozenset(e.lower() for e in entries if "*" not in e)
    prefixes = tuple(e.lower().rstrip("*") for e in entries if e.endswith("*"))
    suffixes = tuple(e.lower().lstrip("*") for e in entries if e.startswith("*"))

    def matches(word: str) -> bool:
        word = word.replace("’", "'")
        return word in exact or word.startswith(prefixes or ("\0",)) or word.endswith(suffixes or ("\0",))

    return matches


def _word_char(text: str, at: int) -> bool:
    """Whether `text[at]` continues a word (a letter, a digit, `'` or `-`; False off either end)."""
    return 0 <= at < len(text) and (text[at].isalnum() or text[at] in "'’-")


class PhraseFinder:
    """Phrases found as whole words, in any case, white space between words flexible, longest first
    (so "More importantly" wins over "importantly"). `finditer` reads a sentence; `lines` finds the
    lines of a whole text they occur on, by one search of the text lower-cased with a pattern that
    opens with the phrases' letters (searched for by their first letters: with a look-behind or
    IGNORECASE first it was tried at every character, ~0.5 s over the corpus), each match's edges
    checked after."""

    def __init__(self, phrases: tuple[str, ...]) -> None:
        ordered = sorted({p.strip() for p in phrases}, key=len, reverse=True)
        parts = [r"\s+".join(re.escape(word).replace("'", "['’]") for word in p.split()) for p in ordered]
        self.pattern = re.compile(r"(?<![\w'’-])(?:" + "|".join(parts) + r")(?![\w'’-])", re.I)
        lowered = [r"\s+".join(re.escape(w.lower()).replace("'", "['’]") for w in p.split()) for p in ordered]
        self._fast = re.compile("|".join(lowered))

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The phrases' matches in `text`, in order."""
        return self.pattern.finditer(text)

    def lines(self, lines: Sequence[str], ranges: Sequence[tuple[int, int]]) -> Iterator[int]:
        """The 1-based numbers of `lines` a phrase starts on, in order, searched only within `ranges`
        (first and last line numbers, in order)."""
        lowered = "\n".join(lines).lower()  # lower() keeps every "\n": lines count as in the text
        starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
        for first, last in ranges:
            line, at = first, starts[first - 1]
            for match in self._fast.finditer(lowered, at, starts[last]):
                start, stop = match.span()
                if _word_char(lowered, start - 1) or _word_char(lowered, stop):
                    continue  # inside a longer word ("view" in "review")
                line += lowered.count("\n", at, start)
                at = start
                yield line


@lru_cache(maxsize=64)
def phrase_finder(phrases: tuple[str, ...]) -> PhraseFinder:
    """The phrases' finder, made once per list."""
    return PhraseFinder(phrases)
