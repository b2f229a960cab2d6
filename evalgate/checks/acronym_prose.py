"""Masking non-prose for the acronym_expansion check: what of a document is not prose at all (front
matter, code blocks, HTML comments) and, within a line, code spans, autolinks, HTML tags, link
targets, reference definitions and URLs, blanked to spaces so columns and offsets keep; `Prose` gives
a document's lines masked on demand.
"""

from __future__ import annotations

import bisect
import re

from evalgate.document import Document, normalise_title

# Non-prose inside one line, masked only on lines that hold a candidate acronym (most never need it).
# (gate, hint, pattern): each pattern runs only on a line that contains its hint, and starts with a
# literal so the regex engine can jump between candidates; one alternation of all of them was ten
# times slower. A hint of several characters is looked for only where one of its characters, the
# gate, is in the line (a one-character search runs at memchr's speed, a longer one at a tenth of
# it, and a fifth to two fifths of the lines asked about hold no `]`, `:` or `.`).
_INLINE_NON_PROSE: tuple[tuple[str, str, re.Pattern[str] | None], ...] = (
    ("`", "`", re.compile(r"(?P<tick>`+)(?!`).*?(?<!`)(?P=tick)(?!`)|`.*")),  # an unclosed span: rest of line
    # A target may hold balanced parentheses (a DOI such as `1520-0469(1963)020%3C0130:DNF%3E2.0.CO;2`);
    # `]` ends it and the runs are possessive, else from each `](` of a long run it ran to the run's
    # end: quadratic.
    ("]", "](", re.compile(r"\]\((?:[^()\s\]]++|\([^()\s\]]*+\))*+(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")),
    ("]", "]:", re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S.*")),
    (
        "<",
        "<",
        re.compile(r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>"),
    ),
    (":", "://", None),  # `[A-Za-z][A-Za-z0-9+.-]*://` + _URL_BODY, found from each `://`: see _blank_urls
    (".", "www.", re.compile(r"www\.[^\s<>()\[\]]*")),
    (":", "mailto:", re.compile(r"mailto:[^\s<>()\[\]]*")),
)


_BLOCK_START = re.compile(r"[ \t]*(?:[-*+|>#]|\d+[.)])")  # a line that starts a block does not continue one


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group())


_URL_BODY = re.compile(r"[^\s<>()\[\]]*(?:\([^\s()]*\)[^\s<>()\[\]]*)*")
_SCHEME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")
_SCHEME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _blank_urls(line: str) -> str:
    """`re.sub` of `[A-Za-z][A-Za-z0-9+.-]*://` + _URL_BODY with spaces, found from each `://` instead
    of tried at every letter (that regex scanned each word to its end: a third of the check's time).
    The leftmost match for a `://` starts at the first letter of the scheme characters before it; a
    match ends at a character that is no scheme character, so matches never overlap the next scheme."""
    at = line.find("://")
    parts: list[str] = []
    done = 0
    while at >= 0:
        start = at - 5  # most URLs are `https://` with no scheme character before it: one comparison
        if not (
            start >= done
            and line.startswith("https", start)
            and (start == done or line[start - 1] not in _SCHEME_CHARS)
        ):
            start = at
            while start > done and line[start - 1] in _SCHEME_CHARS:
                start -= 1
            while start < at and line[start] not in _SCHEME_START:
                start += 1
        if start == at:  # no letter before this `://`: no URL starts here
            at = line.find("://", at + 1)
            continue
        end = _URL_BODY.match(line, at + 3).end()  # type: ignore[union-attr]  # `*`: always matches
        parts.append(line[done:start])
        parts.append(" " * (end - start))
        done = end
        at = line.find("://", end)
    if not parts:
        return line
    parts.append(line[done:])
    return "".join(parts)


# What follows a token that masking cannot blank while it keeps the token's first character: a `)`
# right after it, or blanks and then a letter or digit that starts no URL, `www.` or `mailto:`.
_KEPT_AFTER = re.compile(r"\)|[ \t]+(?![A-Za-z][A-Za-z0-9+.-]*://|www\.|mailto:)[A-Za-z0-9]")
# Characters at which a masked span can start (besides a line's start and a letter): a token holding
# one could start a span inside itself that runs past its end.
_SPAN_STARTS = frozenset("`]<:")


def kept_after(text: str, end: int, token: str) -> bool:
    """Whether the character after a token ending at offset `end` of `text` (a `)`, or the first one
    after blanks: a letter or digit) is left as it is by `prose_line` wherever the token's first
    character is. So no `,`, `:` or dash can follow the token in the masked line.

    Every masked span starts at a backtick, `]`, `<`, the line's start or a letter (a URL's scheme,
    `www.`, `mailto:`). A span that blanks that character and keeps the token's first one starts
    after it: inside the token, only at a letter (the token holds no `` ` ``, `]`, `<` or `:`:
    `token`'s characters are asked), so a URL, `www.` or `mailto:` span, none of which holds a `)`
    or a blank (a URL's balanced `(...)` needs its `://` inside the token); or at the character
    itself, where only those three start at a letter or digit, and `_KEPT_AFTER` refuses them."""
    return _KEPT_AFTER.match(text, end) is not None and _SPAN_STARTS.isdisjoint(token)


def prose_line(line: str) -> str:
    """`line` with its non-prose characters replaced by spaces (same length, so columns keep): code
    spans, autolinks, HTML tags, link targets (the link text stays prose), reference definitions, URLs."""
    for gate, hint, pattern in _INLINE_NON_PROSE:
        if gate in line and hint in line:
            line = _blank_urls(line) if pattern is None else pattern.sub(_blank, line)
    return line


def skipped_lines(document: Document) -> bytearray:
    """1 for every line that is not prose at all: front matter, code blocks, HTML comments."""
    skip = bytearray(len(document.lines) + 2)
    fm = document.front_matter
    if fm.start_line is not None and fm.end_line is not None:
        skip[fm.start_line : fm.end_line + 1] = b"\x01" * (fm.end_line + 1 - fm.start_line)
    for first, last in document.code_blocks:
        last = min(last, len(document.lines))
        if first <= last:
            skip[first : last + 1] = b"\x01" * (last + 1 - first)
    return skip


def comment_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of HTML comments (`<!-- ... -->`, possibly over many lines; unclosed runs to the end)."""
    spans: list[tuple[int, int]] = []
    at = _comment_start(text, 0)
    while at >= 0:
        end = text.find("-->", at + 4)
        end = len(text) if end < 0 else end + 3
        spans.append((at, end))
        at = _comment_start(text, end)
    return spans


def inside_spans(spans: list[tuple[int, int]], offset: int) -> bool:
    """Whether `offset` is inside one of `spans` (sorted `(start, end)` pairs, as comment_spans gives)."""
    i = bisect.bisect_right(spans, (offset, len(spans) and 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= offset < spans[i][1]


def _comment_start(text: str, start: int) -> int:
    """`text.find("<!--", start)`, found from each `<`: a one-character find runs at memchr's speed,
    while the four-character one stops at every `-` (table rules, hyphens) and took 30 ms of the
    check over the corpus, whose 453 items hold 1,431 `<` and 3 comments."""
    at = text.find("<", start)
    while at >= 0 and not text.startswith("<!--", at):
        at = text.find("<", at + 1)
    return at


class Prose:
    """The document's lines, masked to prose on demand (most lines never need it), for the
    acronym_expansion check's pass; `sections` limits it to those sections and their subsections."""

    def __init__(self, document: Document, sections: tuple[str, ...] = ()) -> None:
        self.lines = document.lines
        self.skip = skipped_lines(document)
        if sections:  # only these sections (and their subsections) are scanned
            keep = bytearray(len(self.skip))
            for title in sections:
                found = document.find_section(normalise_title(title))
                if found is not None:
                    keep[found.line : found.end_line + 1] = b"\x01" * (found.end_line + 1 - found.line)
            self.skip = bytearray(s | (k ^ 1) for s, k in zip(self.skip, keep, strict=True))
        self._masked: dict[int, str] = {}
        section = document.find_section("sources")
        self.sources = (section.line, section.end_line) if section is not None else (0, -1)

    def line(self, number: int) -> str:
        if self.skip[number]:
            return ""
        masked = self._masked.get(number)
        if masked is None:
            masked = self._masked[number] = prose_line(self.lines[number - 1])
        return masked

    def before(self, number: int, column: int) -> str:
        """Prose before `column` of a line, with up to three earlier lines while the paragraph wraps."""
        parts = [self.line(number)[:column]]
        while len(parts) < 4 and number > 1 and not _BLOCK_START.match(parts[-1]):
            number -= 1
            previous = self.line(number)
            if not previous.strip() or previous.lstrip().startswith("#"):
                break
            parts.append(previous)
        return " ".join(reversed(parts))
