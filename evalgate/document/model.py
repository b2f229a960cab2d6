"""The document model: what a markdown research item is once read, with nothing of how it is parsed.

Takes nothing; gives the frozen types every later stage reads (`Document`, `Section`, `ListItem`,
`Table`, `KeyFinding`, `EvidenceRow`, `SourceEntry`, `FrontMatter`, `HiddenSpan`, `DisguisedToken`),
`DocumentError` and `normalise_title`. Line numbers are 1-based lines of the original file. The
parsers (`scan`, `blocks`, `findings`) build these types; `reader` composes them. This module imports
none of them (only `prose`, which imports nothing of the package, for the Executive Summary that a
document reads from its own lines when first asked).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from evalgate.document.prose import first_sentence, single_spaced


class DocumentError(Exception):
    """A file that cannot be read as a markdown document; the message is shown to the user as is."""


@dataclass(frozen=True)
class FrontMatter:
    """YAML front matter between `---` lines at the top. `data` is None when absent or broken."""

    data: dict[str, Any] | None
    start_line: int | None = None  # line of the opening `---`
    end_line: int | None = None  # line of the closing `---`
    error: str | None = None  # why it could not be loaded (safe_load), if broken
    error_line: int | None = None


@dataclass(frozen=True, init=False)
class Section:
    """A heading and everything up to the next heading of the same or a higher level."""

    level: int
    title: str  # heading text as written, inline markup stripped
    line: int  # the heading's line
    end_line: int  # last line of the section's content (inclusive)
    # Normalised title used to match required sections: lower case, `§`, numbering and punctuation
    # removed, whitespace collapsed (e.g. '§6 Synthesis' -> '6 synthesis'). Every section's key is
    # read (sections are found by key), so it is set at once: a cached_property takes a lock.
    key: str = field(init=False, repr=False, compare=False)

    def __init__(self, level: int, title: str, line: int, end_line: int) -> None:
        # What the frozen dataclass's own __init__ does, in one call: it sets each field through
        # object.__setattr__, and a section (13,000 over the corpus) took 1.5 us to make, not 0.5.
        self.__dict__.update(
            level=level, title=title, line=line, end_line=end_line, key=normalise_title(title)
        )


@dataclass(frozen=True, init=False)
class ListItem:
    """One item of a list (top level of its list), with the line span it occupies."""

    line: int
    end_line: int
    text: str  # the item's text, its lines joined with single spaces, marker removed
    ordered: bool = False
    checked: bool | None = None  # task-list items: True for [x], False for [ ], None otherwise

    def __init__(
        self, line: int, end_line: int, text: str, ordered: bool = False, checked: bool | None = None
    ) -> None:
        # made by the thousand, as sections are (see Section.__init__)
        self.__dict__.update(line=line, end_line=end_line, text=text, ordered=ordered, checked=checked)


@dataclass(frozen=True, init=False)
class TableRow:
    """One body row of a pipe table; cells are stripped, inline markup kept."""

    line: int
    cells: tuple[str, ...]

    def __init__(self, line: int, cells: tuple[str, ...]) -> None:
        self.__dict__.update(line=line, cells=cells)  # made by the thousand (see Section.__init__)


@dataclass(frozen=True)
class Table:
    """A pipe table: its header cells and body rows."""

    line: int
    end_line: int
    header: tuple[str, ...]
    rows: tuple[TableRow, ...]


@dataclass(frozen=True)
class ExecutiveSummary:
    """The Findings' Executive Summary prose and its first sentence."""

    line: int  # first line of its text
    end_line: int
    text: str
    first_sentence: str


@dataclass(frozen=True, init=False)
class KeyFinding:
    """One item of the Key Findings list."""

    number: int  # 1-based position in the list
    line: int
    end_line: int
    text: str  # full item text
    claim: str  # the claim without its trailing (label; confidence; source) parenthetical

    def __init__(self, number: int, line: int, end_line: int, text: str, claim: str) -> None:
        # made by the thousand (see Section.__init__)
        self.__dict__.update(number=number, line=line, end_line=end_line, text=text, claim=claim)


@dataclass(frozen=True, init=False)
class EvidenceRow:
    """One row of the Evidence Map table, cells picked by header name."""

    line: int
    claim: str
    source: str
    confidence: str
    notes: str
    cells: tuple[str, ...]

    def __init__(
        self, line: int, claim: str, source: str, confidence: str, notes: str, cells: tuple[str, ...]
    ) -> None:
        # made by the thousand (see Section.__init__)
        self.__dict__.update(
            line=line, claim=claim, source=source, confidence=confidence, notes=notes, cells=cells
        )


@dataclass(frozen=True, init=False)
class SourceEntry:
    """One entry of the `## Sources` list (its subsections' lists included)."""

    line: int
    checked: bool | None  # [x] True, [ ] False, a plain bullet None
    text: str
    urls: tuple[str, ...]
    end_line: int  # the entry's last line

    def __init__(
        self, line: int, checked: bool | None, text: str, urls: tuple[str, ...], end_line: int | None = None
    ) -> None:
        self.__dict__.update(
            line=line, checked=checked, text=text, urls=urls, end_line=line if end_line is None else end_line
        )  # (see Section.__init__)


@dataclass(frozen=True)
class HiddenSpan:
    """Text of the file a reader does not see (an HTML comment, a link reference definition): from
    `column` of `line` to `end_column` (exclusive) of `end_line`, 1-based lines, 0-based columns."""

    line: int
    column: int
    end_line: int
    end_column: int
    kind: str  # "HTML comment" or "link reference definition"
    block: bool = True  # a comment that starts a block (False: inside a paragraph)


@dataclass(frozen=True)
class DisguisedToken:
    """A token holding invisible characters or look-alike letters, at `column` (0-based) of 1-based
    `line` of the file (see evalgate.document.disguise)."""

    line: int
    column: int
    written: str  # the token as written, each such character shown as <U+XXXX>
    reads: str  # the token as readers read it (and the checks do)
    characters: tuple[str, ...]  # "U+200B ZERO WIDTH SPACE", one per distinct character
    context: str  # the line around the token, each such character shown as <U+XXXX>
    invisible: bool  # True: invisible characters; False: look-alike letters only


@dataclass(frozen=True)
class Document:
    """A parsed research item, as a reader of the rendered file reads it: `text` and `lines` are the
    file's with what a reader never sees blanked (`hidden`) and disguised tokens read as shown
    (`disguised`); `file_lines` keeps the file's own lines when that changed any."""

    path: str
    text: str  # the readers' view of the normalised text (no BOM, LF line ends)
    lines: tuple[str, ...]  # lines[0] is line 1
    front_matter: FrontMatter
    sections: tuple[Section, ...]  # every heading in document order
    code_blocks: tuple[tuple[int, int], ...] = ()  # (first, last) lines of fenced/indented code
    executive_summary_section: Section | None = None  # its text: `executive_summary`
    key_findings: tuple[KeyFinding, ...] = ()
    key_findings_section: Section | None = None
    evidence_map: Table | None = None
    evidence_rows: tuple[EvidenceRow, ...] = ()
    sources: tuple[SourceEntry, ...] = ()
    notes: tuple[str, ...] = field(default=())
    sources_section: Section | None = None
    key_findings_list: tuple[ListItem, ...] = ()  # the raw list items behind key_findings
    # The file's bytes when `text` is exactly their UTF-8 decoding (no BOM or CR was removed), so a
    # byte-level search need not encode the text again; None otherwise, and for a document handed
    # from a worker process to another (see evalgate.run), where it would double what is sent.
    utf8: bytes | None = field(default=None, repr=False, compare=False)
    hidden: tuple[HiddenSpan, ...] = ()  # what a reader does not see, blanked in `lines`
    disguised: tuple[DisguisedToken, ...] = ()  # tokens with invisible or look-alike characters
    file_lines: tuple[str, ...] | None = field(default=None, repr=False)  # when `lines` differ

    def file_line(self, line: int) -> str:
        """The file's own text of 1-based `line` (what `line_text` gives, before the readers' view),
        or '' when out of range."""
        lines = self.file_lines if self.file_lines is not None else self.lines
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    @cached_property
    def altered_lines(self) -> frozenset[int]:
        """The lines whose text the checks read differs from the file's: a column on them is not the
        file's column (an edit by column, as `evalgate fix` makes, must leave them alone)."""
        if self.file_lines is None:
            return frozenset()
        return frozenset(
            n for n, (a, b) in enumerate(zip(self.lines, self.file_lines, strict=True), 1) if a != b
        )

    def find_section(self, key: str, *, under: Section | None = None) -> Section | None:
        """The first section whose normalised title equals `key` (or starts with it followed by a
        space), optionally restricted to sections inside `under`."""
        sections = self.sections
        if under is not None:
            # sections are in line order: those inside `under` follow it up to its last line
            start = bisect.bisect_right(self.heading_lines, under.line)
            sections = sections[start : bisect.bisect_right(self.heading_lines, under.end_line)]
        spaced = key + " "
        for s in sections:
            if s.key == key or s.key.startswith(spaced):
                return s
        return None

    @cached_property
    def heading_lines(self) -> tuple[int, ...]:
        """The line of every heading, in order (sections are in document order)."""
        return tuple(s.line for s in self.sections)

    def own_end(self, section: Section) -> int:
        """The last line of `section`'s own content: the line before its first subsection, or its
        last line when it has none."""
        lines = self.heading_lines
        i = bisect.bisect_right(lines, section.line)
        if i < len(lines) and lines[i] <= section.end_line:
            return lines[i] - 1
        return section.end_line

    @cached_property
    def executive_summary(self) -> ExecutiveSummary | None:
        """The Executive Summary's prose (its section's own lines, joined) and first sentence; None
        without the section or text in it. Read when first asked for: no check reads it."""
        section = self.executive_summary_section
        if section is None:
            return None
        lines, end = self.lines, self.own_end(section)
        first = next((n for n in range(section.line + 1, end + 1) if lines[n - 1].strip()), None)
        if first is None:
            return None
        while end > first and not lines[end - 1].strip():
            end -= 1
        text = single_spaced(" ".join(lines[first - 1 : end]))
        return ExecutiveSummary(line=first, end_line=end, text=text, first_sentence=first_sentence(text))

    def line_text(self, line: int) -> str:
        """The text of 1-based `line`, or '' when out of range."""
        return self.lines[line - 1] if 1 <= line <= len(self.lines) else ""


_TITLE_WORD = re.compile(r"[a-z0-9]+")


# Memoised: the template's ~30 headings recur in every item (13,000 headings over the corpus).
@lru_cache(maxsize=4096)
def normalise_title(title: str) -> str:
    """Lower case, `§` and punctuation removed, whitespace collapsed: the runs of letters and digits
    of the lower-cased title, joined by single spaces."""
    return " ".join(_TITLE_WORD.findall(title.lower()))
