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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from evalgate.checks.acronym_prose import prose_line, skipped_lines
from evalgate.document import Document, normalise_title
from evalgate.document.findings import DOI, URL, sentence_ends

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
        after `;` or `:`."""
        before = self.prose[:offset]
        stripped = before.rstrip()
        if stripped.endswith((";", ":")):
            return True
        return _LEAD.fullmatch(before) is not None


def in_scope(document: Document, sections: tuple[str, ...]) -> bytearray:
    """1 for each line a wording check reads: in the sections (and their subsections; none: the
    whole document), neither front matter nor code, nor a heading or a block quote."""
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
    for n, text in enumerate(document.lines, 1):
        if keep[n] and (skip[n] or _QUOTE_LINE.match(text)):
            keep[n] = 0
    return keep


def _blocks(document: Document, scope: bytearray) -> Iterator[tuple[tuple[int, ...], bool]]:
    """(line numbers, is a table row) of each block in scope."""
    current: list[int] = []
    for n, text in enumerate(document.lines, 1):
        if not scope[n] or not text.strip():
            if current:
                yield tuple(current), False
                current = []
            continue
        if text.lstrip().startswith("|"):
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
    for start, end in quotation_spans(prose):
        prose = prose[:start] + " " * (end - start) + prose[end:]
    return prose


def _masked(line: str) -> str:
    line = prose_line(line)
    return _LABEL_BRACKET.sub(_blank, line) if "[" in line else line


def sentences(document: Document, sections: tuple[str, ...]) -> Iterator[Sentence]:
    """Every sentence of the prose in scope (see the module's docstring), in document order."""
    lines = document.lines
    for numbers, row in _blocks(document, in_scope(document, sections)):
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


@lru_cache(maxsize=64)
def phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for the phrases, as whole words, in any case, white space between words flexible,
    longest first (so "More importantly" wins over "importantly")."""
    ordered = sorted({p.strip() for p in phrases}, key=len, reverse=True)
    parts = [r"\s+".join(re.escape(word).replace("'", "['’]") for word in p.split()) for p in ordered]
    return re.compile(r"(?<![\w'’-])(?:" + "|".join(parts) + r")(?![\w'’-])", re.I)
