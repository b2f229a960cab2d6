"""Where a research item cites a source, and when two addresses name the same source.

The protocol's rule 2d1 (research-prompt.md, "Inline-citation-to-Sources completeness check") reads
the URLs cited inline across `## Research Skill Output` and `## Findings` and asks that each have an
entry in `## Sources`; source_consultation asks whether each Sources entry is cited there. Both
compare addresses the same way:

- by the keys of evalgate.checks.source_keys (a URL lower-cased without scheme, `www.`, fragment
  and tracking parameters; a DOI or arXiv identifier wherever it is written).

So a landing page and its PDF are one source when the document states what ties them: an entry
that gives the landing page and the DOI is cited by the doi.org link and by a PDF address holding
the DOI, and an entry that lists the PDF beside the landing page is cited by either.

What counts as the body: Research Skill Output and Findings, without code blocks, code spans (but a
span holding nothing but a URL, `Sources: \\`https://...\\``, is a citation written as code) and `[ ]`
task items (a source listed as not consulted is not cited).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from evalgate.checks.source_keys import (
    TRIM,
    identifier_keys,
    lowered_identifiers,
    source_keys,
    text_identifiers,
    url_key,
)
from evalgate.checks.source_names import Label, Title
from evalgate.document import Document, Section
from evalgate.document.asciifold import ascii_lowered
from evalgate.document.findings import URL, urls_in

# Inline code spans: code in a span (`curl https://api.example.org/v1/{id}`) is not a citation. A
# backtick run is its first backtick and the rest (group 1), so the pattern starts with a literal
# that `re` searches for, instead of being tried at every character (6x faster over the corpus). The
# span's text, a line's characters up to the first backtick run as long as the opening one, is read a
# run at a time: what is not a backtick, then each backtick run with what follows it, lazily, so that
# the closing run is tried only where a backtick run starts (its text ends with a character that is
# no backtick, as `(?<!`)` asked), not after every character. The same spans as
# `.*?(?<!`)`\1(?!`)` (a hypothesis test holds it).
_CODE_SPAN = re.compile(r"`(`*)(?!`)[^`\n]*(?:`+[^`\n]+)*?`\1(?!`)")
_LONE_URL = re.compile(r"(?:https?://|www\.)\S+", re.I)
# credentials before the host (`//user@host`; not medium.com/@author), placeholders, or a
# repository's clone address (`.git` at the end, as in a `.gitmodules` value): a URL's form
_URL_FORM = re.compile(r"^[^/]*//[^/@]*@|[{}<>]|\.git/?$")
# The start of a line that starts a list item with an unticked box, `- [ ] ...` or `- **[ ]** ...`.
_BOX = re.compile(r"\[ \]")
_UNTICKED_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\*\*|__)?\[ \]")


@dataclass(frozen=True)
class Citation:
    """A URL cited inline, at the first line that cites it."""

    url: str
    line: int


def top_section(document: Document, key: str) -> Section | None:
    """The highest-level (then first) section with this normalised title: `## Findings`, not a
    `### Findings` inside another section."""
    matches = [s for s in document.sections if s.key == key]
    return min(matches, key=lambda s: (s.level, s.line)) if matches else None


def cited_elsewhere(document: Document) -> dict[str, int]:
    """The keys (`url_key`, DOI and arXiv identifiers) of the URLs cited in `## Context` (whose
    factual claims the template asks to be sourced) and `## Output` (its links to the most
    important sources), code left out, each at its first line: a source cited there was consulted
    too, though rule 2d1 reads only the body. (The Research Question, Scope and Approach name what
    is to be read: a plan, not a citation.)"""
    found: dict[str, int] = {}
    code = document.code_blocks
    for section in (top_section(document, "context"), top_section(document, "output")):
        if section is None:
            continue
        for number in range(section.line + 1, section.end_line + 1):
            line = document.lines[number - 1]
            if ("http" in line or "www." in line) and not any(a <= number <= b for a, b in code):
                for url in urls_in(line):
                    for key in source_keys(url):
                        found.setdefault(key, number)
    return found


def _without_unticked_items(text: str) -> tuple[str, list[str]]:
    """`text` with the lines that start a `[ ]` list item blanked (so lines keep their places), and
    those lines. Found from each `[ ]` (a line-start pattern under re.M is tried at every line)."""
    blanked: list[tuple[int, int]] = []
    at = text.find("[ ]")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        item = _UNTICKED_ITEM.match(text, start)
        if item is not None and item.end() == at + 3:  # the line's first `[ ]` is its item's box
            blanked.append((start, end))
        at = text.find("[ ]", end)
    if not blanked:
        return text, []
    parts, lines, done = [], [], 0
    for start, end in blanked:
        parts.append(text[done:start])
        lines.append(text[start:end])
        done = end
    parts.append(text[done:])
    return "".join(parts), lines


def _code_span(match: re.Match[str]) -> str:
    """A code span that holds one URL and nothing else is a citation written as code (`Sources:
    \\`https://...\\``, common in the corpus); any other is code (a command, an endpoint template),
    and so is a lone URL with credentials or placeholders in it (`https://TOKEN@github.com/`,
    `https://github.com/{owner}/{repo}.wiki.git`) or a clone address (`https://github.com/o/r.git`,
    a `.gitmodules` value): a form to type or a setting, not a source."""
    span = match.group(0)
    if "/" not in span and "." not in span:  # most spans (a name, a command): no URL in them
        return " "
    inner = span.strip("`").strip()
    return inner if _LONE_URL.fullmatch(inner) and _URL_FORM.search(inner) is None else " "


# findings.URL over lower-cased UTF-8 bytes, split at its alternation so that each part starts with
# a literal `re` searches for (`http`, `www.`) instead of trying `[hHwW]` at every h and w of the
# text (~110 instructions a character); ASCII only, so a match stops at the first byte of a
# character that is not, and the caller asks URL itself there. The white space is spelled out: the
# ASCII of a str pattern's `\s`, \t-\r, \x1c-\x1f and the space (a bytes `\s` lacks \x1c-\x1f), and
# a class of nothing but bytes and ranges is one bitmap, where `\s` in it was a category test for
# each character of every URL.
_URL_REST = (
    rb"[^\t-\r\x1c-\x20<>()\[\]|`\"'\x80-\xff]+"
    rb"(?:\([^\t-\r\x1c-\x20()\x80-\xff]*\)[^\t-\r\x1c-\x20<>()\[\]|`\"'\x80-\xff]*)*"
)
_HTTP_URL = re.compile(rb"https?://" + _URL_REST)
_WWW_URL = re.compile(rb"www\." + _URL_REST)
# the bytes no _HTTP_URL match holds: white space and every byte outside ASCII
_OUTSIDE_URLS = frozenset(b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ") | frozenset(range(0x80, 0x100))
# a `www.` that does not follow an http scheme, so that no http URL need hold it (the look-behinds
# follow the literal `www.`, which `re` scans for)
_BARE_WWW = re.compile(rb"www\.(?<!http://www\.)(?<!https://www\.)")
# a scheme or `www.` followed by a character outside ASCII (each pattern starts with a literal)
_NOT_ASCII_AFTER = (re.compile(rb"://[\x80-\xff]"), re.compile(rb"www\.[\x80-\xff]"))
# _HTTP_URL, but a match that meets a character outside ASCII ends with its first byte: after the
# URL, or after the scheme, or `httpſ` (ſ is s to URL). Such a match sends a text to _merged_urls.
_HTTP_OR_NOT_ASCII = re.compile(rb"http(?:s?://(?:" + _URL_REST + rb"[\x80-\xff]?|[\x80-\xff])|\xc5\xbf)")


def _url_matches(utf8: bytes, lowered: bytes, text: str) -> Iterator[tuple[int, str]]:
    """(UTF-8 offset, URL) for the matches of `URL.finditer(text)`, in order, but for a match whose
    lower-cased bytes an earlier one had (its `url_key`, which reads the lower case, is that one's):
    those are most of the corpus's ~89,000, and are never looked at one by one. The http matches are
    found by one findall and made distinct (in C); each distinct one is then placed at its first
    occurrence that is a match, not a piece of another URL (`?u=https://...`, or a longer URL it
    begins). That is every match where each `www.` of the text follows an http scheme (`https://www.`,
    inside the URL that holds the scheme; a bare one, or one after `ftp://`, starts a URL of its own)
    and no URL meets a character outside ASCII; any other text is read by _merged_urls. Held to
    finditer by a hypothesis test (through Body.citations)."""
    found = _HTTP_OR_NOT_ASCII.findall(lowered)
    distinct = dict.fromkeys(found)
    if any(m[-1] >= 0x80 for m in distinct) or _BARE_WWW.search(lowered) is not None:
        yield from _merged_urls(utf8, lowered, text)
        return
    cursor = 0  # the end of the last URL placed: the next distinct one is first met after it
    for written in distinct:
        at = lowered.find(written, cursor)
        floor = cursor  # a match boundary at or before `at` (no URL crosses a line end either)
        while True:
            if at == 0 or lowered[at - 1] in _OUTSIDE_URLS:  # (most: after a space)
                match = _HTTP_URL.match(lowered, at)  # no URL holds the byte before: one starts here
            else:
                line = lowered.rfind(b"\n", floor, at) + 1
                match = _HTTP_URL.search(lowered, max(floor, line))
                while match is not None and match.end() <= at:  # the URLs before it on its line
                    match = _HTTP_URL.search(lowered, match.end())
            # `at` starts a URL or is inside one (it holds `https?://` and a character after it)
            assert match is not None and match.start() <= at
            if match.start() == at and match.end() == at + len(written):
                break
            floor = match.end()  # inside another URL, or the start of a longer one: look after it
            at = lowered.find(written, floor)
        cursor = at + len(written)
        yield at, utf8[at:cursor].decode("ascii")


def _merged_urls(utf8: bytes, lowered: bytes, text: str) -> Iterator[tuple[int, str]]:
    """_url_matches for any text: the http and www matches of the lower-cased bytes are merged (one
    inside another, a `www.` after a scheme or an address quoted in a query, is part of it), each read
    as written from `utf8`, skipped where an earlier one had its lower-cased bytes; a URL that meets a
    character outside ASCII is read by URL itself. A text where a URL may start with one is read by
    URL.finditer."""
    if b"http\xc5\xbf://" in lowered or any(p.search(lowered) for p in _NOT_ASCII_AFTER):  # `httpſ`: ſ is s
        yield from ((len(text[: m.start()].encode("utf-8")), m.group(0)) for m in URL.finditer(text))
        return
    matches: Iterable[re.Match[bytes]] = _HTTP_URL.finditer(lowered)
    if b"www." in lowered:
        matches = sorted([*matches, *_WWW_URL.finditer(lowered)], key=re.Match.start)
    seen: set[bytes] = set()
    end = 0
    size = len(utf8)
    for match in matches:
        start = match.start()
        if start < end:
            continue  # inside the last URL
        end = match.end()
        if end < size and utf8[end] >= 0x80:  # the URL goes on past ASCII: ask URL
            found = URL.match(text, len(utf8[:start].decode("utf-8")))
            if found is None:  # cannot happen: URL matches at least what the bytes matched
                continue
            url = found.group(0)
            end = start + len(url.encode("utf-8"))
            yield start, url
            continue
        written = match.group()
        if written not in seen:
            seen.add(written)
            yield start, utf8[start:end].decode("ascii")


class Body:
    """Research Skill Output and Findings of one document, read once for its citations.

    `citations`: each distinct URL cited (by `url_key`) at its first line, in document order;
    `url_line(key)`: the first line that cites a URL with that key; `identifier_line(key)`: the first
    line that writes a DOI or arXiv identifier; `find(url)`: the first line holding a normalised URL as a
    substring (an address quoted inside another, a redirect's `url=https://www....`, counts where it
    is quoted), searched on UTF-8 bytes for ASCII URLs (see `evalgate.document.asciifold`);
    `lists_unticked(url)`: whether a `[ ]` item of the body holds it."""

    def __init__(self, document: Document) -> None:
        sections = [top_section(document, "research skill output"), top_section(document, "findings")]
        parts: list[str] = []
        numbers: list[int] = []  # the document line of each body line
        in_order = True  # each section's lines rise; does the second start after the first ends?
        for section in sections:
            if section is None:
                continue
            in_order = in_order and (not numbers or numbers[-1] < section.line)
            lines = list(document.lines[section.line - 1 : section.end_line])
            for first, last in document.code_blocks:  # blanked, so every line keeps its place
                for number in range(max(first, section.line), min(last, section.end_line) + 1):
                    lines[number - section.line] = ""
            parts.append("\n".join(lines))
            numbers.extend(range(section.line, section.end_line + 1))
        raw = "\n".join(parts)
        if "`" in raw:
            raw = _CODE_SPAN.sub(_code_span, raw)
        unticked: list[str] = []
        if _BOX.search(raw):  # (`re` scans for the `[`, rarer than the ` ` and `]` that `in` stops at)
            raw, unticked = _without_unticked_items(raw)
        self.numbers = numbers
        self.in_order = in_order  # the body's lines in the document's order
        self.raw = raw
        self.unticked = "\n".join(unticked).lower()
        self._utf8 = raw.encode("utf-8")
        self._ascii = ascii_lowered(raw, self._utf8)
        self._lower: str | None = None
        self._folds: bool | None = None  # whether the body holds `ı` or `ſ` (read when first asked)
        self.citations = self._cite()
        self._url_lines = {url_key(c.url): c.line for c in self.citations}
        self._identifier_lines: dict[str, int] | None = None  # built when first asked

    def _identifiers(self) -> dict[str, int]:
        """DOI or arXiv key -> the first line that writes it, in a cited URL or in the text."""
        lines: dict[str, int] = {}
        for citation in self.citations:
            for key in identifier_keys(citation.url):
                lines.setdefault(key, citation.line)
        if self._ascii is not None:
            found: Iterable[tuple[str, int]] = lowered_identifiers(self._ascii)
            newlines = self._ascii
        else:  # a text whose lower case holds ASCII letters that are not its own: regex on the text
            found = text_identifiers(self.raw)
            newlines = self.raw.encode("utf-8")  # the offsets are byte offsets
        index = done = 0
        for key, offset in sorted(found, key=lambda item: item[1]):
            index += newlines.count(b"\n", done, offset)
            done = offset
            line = self.numbers[index]
            if line < lines.get(key, line + 1):
                lines[key] = line
        return lines

    def _cite(self) -> tuple[Citation, ...]:
        """The distinct URLs cited, each at its first line, lines counted forward from the last new
        URL (most recur: the corpus's ~90,000 URLs in these sections are ~7,600 per-item distinct)."""
        seen: dict[str, Citation] = {}
        written: set[str] = set()  # URLs as written, met before
        index = done = 0  # the body line of offset `done`
        if self._ascii is not None:
            found = _url_matches(self._utf8, self._ascii, self.raw)
            text: bytes | str = self._ascii
            newline: bytes | str = b"\n"
        else:  # a text whose lower case holds ASCII letters that are not its own
            found = ((m.start(), m.group(0)) for m in URL.finditer(self.raw))
            text, newline = self.raw, "\n"
        for start, url in found:
            url = url.rstrip(TRIM)
            if url in written:
                continue
            written.add(url)
            key = url_key(url)
            if key in seen:
                continue
            index += text.count(newline, done, start)  # type: ignore[arg-type]
            done = start
            seen[key] = Citation(url, self.numbers[index])
        return tuple(seen.values())

    def url_line(self, key: str) -> int | None:
        """The first line that cites a URL with this `url_key`, or None."""
        return self._url_lines.get(key)

    def identifier_line(self, key: str) -> int | None:
        """The first line that writes a DOI or arXiv key (`doi:...`, `arxiv:...`), in a cited URL
        or in the text, or None. (Read from the body on first use: most sources are found by URL.)"""
        if self._identifier_lines is None:
            self._identifier_lines = self._identifiers()
        return self._identifier_lines.get(key)

    def find(self, url: str) -> int | None:
        """The first line holding a normalised URL (lower case), or None."""
        if not url:
            return None
        if self._ascii is not None and url.isascii():
            at = self._ascii.find(url.encode("ascii"))
            return None if at < 0 else self.numbers[self._ascii.count(b"\n", 0, at)]
        lower = self.lowered()
        at = lower.find(url)
        return None if at < 0 else self.numbers[lower.count("\n", 0, at)]

    def mentions(self, url: str) -> Iterator[tuple[int, str]]:
        """(line, text lower-cased) of each body line that holds a normalised URL, sorted, for telling
        a citation from a note that records a failed access. Read as asked where the body's lines are
        in the document's order (the caller stops at the first line that is no such note, and most
        URLs recur many times); sorted first where the two sections are not."""
        if not url:
            return iter(())
        return self._mentions(url) if self.in_order else iter(sorted(self._mentions(url)))

    def _mentions(self, url: str) -> Iterator[tuple[int, str]]:
        if self._ascii is not None and url.isascii():
            data, needle, newline = self._ascii, url.encode("ascii"), b"\n"
        else:
            data, needle, newline = self.lowered(), url, "\n"  # type: ignore[assignment]
        index = done = 0
        at = data.find(needle)
        while at >= 0:
            start = data.rfind(newline, 0, at) + 1
            end = data.find(newline, at)
            end = len(data) if end < 0 else end
            index += data.count(newline, done, start)
            done = start
            line = data[start:end]
            yield self.numbers[index], line.decode("utf-8", "replace") if isinstance(line, bytes) else line
            at = data.find(needle, end)

    def lowered(self) -> str:
        """`raw.lower()`, made when first asked. (Lowering keeps every line break, so lines still
        count.)"""
        if self._lower is None:
            self._lower = self.raw.lower()
        return self._lower

    def ascii_lowered(self) -> str:
        """`raw` with A-Z lowered, and nothing else changed: its lowered UTF-8 bytes decoded where
        the body was read as such (cheaper than str.lower for a text outside Latin-1), else
        `lowered()`."""
        return self.lowered() if self._ascii is None else self._ascii.decode("utf-8")

    def may_write(self, label: Label) -> bool:
        """False when the body cannot write a title label (`source_names.Title`, matched in any case):
        a word of it is not in the body's lower case. (True for any other label: `source_names.mentions`
        looks for an author's name itself.) Exact where the body holds none of `ı`, `ſ` (which match `i`
        and `s` in any case) and is read as ASCII-lowered bytes; where it does, True."""
        if not isinstance(label, Title) or self._ascii is None or not label.title.isascii():
            return True
        if self._folds is None:
            self._folds = "\u0131" in self.raw or "\u017f" in self.raw
        return self._folds or all(word.encode("ascii") in self._ascii for word in label.title.split())

    def lists_unticked(self, url: str) -> bool:
        """Whether a `[ ]` item of the body holds a normalised URL."""
        return bool(url) and url in self.unticked
