"""Markdown research item -> Document: front matter, a section tree with line spans, lists, tables.

Line numbers everywhere are 1-based lines of the original file (CRLF and a BOM are normalised away
before parsing but never shift a line).

CONTRACT (shared by checks/, judging/ and report/; the parser fills it in):
- `parse_document(text, path="") -> Document` never raises on any str input.
- `read_document(path) -> Document` raises `DocumentError` (a clear, per-file message) for files that
  cannot be evaluated at all: missing, not a regular file, not UTF-8, binary (NUL bytes), too large.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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


@dataclass(frozen=True)
class Section:
    """A heading and everything up to the next heading of the same or a higher level."""

    level: int
    title: str  # heading text as written, inline markup stripped
    line: int  # the heading's line
    end_line: int  # last line of the section's content (inclusive)
    body: str = ""  # the text between the heading line and end_line, as written

    @property
    def key(self) -> str:
        """Normalised title used to match required sections: lower case, `§`, numbering and
        punctuation removed, whitespace collapsed (e.g. '§6 Synthesis' -> '6 synthesis')."""
        return normalise_title(self.title)


@dataclass(frozen=True)
class ListItem:
    line: int
    end_line: int
    text: str  # the item's text, its lines joined with single spaces, marker removed
    ordered: bool = False
    checked: bool | None = None  # task-list items: True for [x], False for [ ], None otherwise


@dataclass(frozen=True)
class TableRow:
    line: int
    cells: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    line: int
    end_line: int
    header: tuple[str, ...]
    rows: tuple[TableRow, ...]


@dataclass(frozen=True)
class ExecutiveSummary:
    line: int  # first line of its text
    end_line: int
    text: str
    first_sentence: str


@dataclass(frozen=True)
class KeyFinding:
    number: int  # 1-based position in the list
    line: int
    end_line: int
    text: str  # full item text
    claim: str  # the claim without its trailing (label; confidence; source) parenthetical


@dataclass(frozen=True)
class EvidenceRow:
    line: int
    claim: str
    source: str
    confidence: str
    notes: str
    cells: tuple[str, ...]


@dataclass(frozen=True)
class SourceEntry:
    line: int
    checked: bool | None  # [x] True, [ ] False, a plain bullet None
    text: str
    urls: tuple[str, ...]


@dataclass(frozen=True)
class Document:
    """A parsed research item."""

    path: str
    text: str  # normalised text (no BOM, LF line ends)
    lines: tuple[str, ...]  # lines[0] is line 1
    front_matter: FrontMatter
    sections: tuple[Section, ...]  # every heading in document order
    code_blocks: tuple[tuple[int, int], ...] = ()  # (first, last) lines of fenced/indented code
    executive_summary: ExecutiveSummary | None = None
    key_findings: tuple[KeyFinding, ...] = ()
    key_findings_section: Section | None = None
    evidence_map: Table | None = None
    evidence_rows: tuple[EvidenceRow, ...] = ()
    sources: tuple[SourceEntry, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def find_section(self, key: str, *, under: Section | None = None) -> Section | None:
        """The first section whose normalised title equals `key` (or starts with it followed by a
        space), optionally restricted to sections inside `under`."""
        for s in self.sections:
            if under is not None and not (under.line < s.line <= under.end_line):
                continue
            if s.key == key or s.key.startswith(key + " "):
                return s
        return None


def normalise_title(title: str) -> str:
    import re

    t = title.lower().replace("§", " ")
    t = re.sub(r"[^a-z0-9]+", " ", t)
    return " ".join(t.split())
