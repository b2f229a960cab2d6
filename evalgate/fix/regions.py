"""Where `evalgate fix` must not write although the acronym check reads it as prose.

The check's masking (evalgate/checks/acronym_prose.py) is one line at a time and its line scan finds
code and headings at the top level only; its results are held byte for byte over the corpus, so it
stays as it is. A fix, though, must never change code, a heading's anchor, a link's target or label,
or HTML, so these are found here and such a use is left for the author:
- headings and code blocks inside block quotes (the quote markers stripped, the line scan run again);
- the text lines of a setext heading above its underline; a heading inside a list item;
- indented code inside a list item, or indented with a tab;
- a code span, a link's target or title, or an HTML tag that runs over more than one line of its
  paragraph;
- HTML blocks (a paragraph that starts with a tag; `<pre>`, `<script>`, `<style>`, `<textarea>` until
  their closing tag) and the content of an inline `<code>`, `<pre>`, `<kbd>`, `<samp>`, `<var>`;
- the inside of `<...>` (a link target such as `[a](<b c>)`, a tag's attributes);
- a reference label (`[text][LABEL]`, `[LABEL][]`, `[LABEL]` with a definition) or a footnote
  (`[^LABEL]`), which the edit would break; a link's text and plain bracketed text stay fixable.
"""

from __future__ import annotations

import re

from evalgate.document import Document
from evalgate.document.scan import scan_lines

_QUOTE = re.compile(r"^(?: {0,3}> ?)+")
# Possessive: a marker's spaces could go to it or to the next marker's indent, and every split of
# `-  -  -  ...` was tried (exponential); giving spaces back never helps a marker that follows.
_CONTAINER_HEADING = re.compile(r"^(?: {0,3}(?:>[ \t]?+|[-*+][ \t]++|\d{1,9}[.)][ \t]++))++#{1,6}(?:[ \t]|$)")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_LIST_ITEM = re.compile(r"^( *)(?:[-*+]|\d{1,9}[.)])( +|$)")
_HTML_START = re.compile(r"^ {0,3}<(?:[A-Za-z][A-Za-z0-9-]*|/[A-Za-z]|!|\?)")
_HTML_RAW = re.compile(r"^ {0,3}<(pre|script|style|textarea)(?:[\s>]|$)", re.IGNORECASE)
_HTML_CODE = re.compile(r"<(code|pre|kbd|samp|var)\b[^>]*>.*?</\1\s*>", re.IGNORECASE)
_REF_DEF = re.compile(r"^ {0,3}\[([^\]]+)\]:")
_HEADING = "first used in a heading (its anchor would change): expand it there by hand"
_DEF = "part of a reference definition"
_CODE_SPAN = re.compile(r"(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)")
# A link's `(target "title")` and an HTML tag, where they may run over lines (a paragraph joined).
_LINK_TARGET = re.compile(
    r"\]\(\s*(?:<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_MULTILINE_HINT = re.compile(r"`|\]\(|<[A-Za-z/]")  # what a paragraph needs for one of them
_MULTILINE = (
    ("`", _CODE_SPAN, "inside a code span"),
    ("](", _LINK_TARGET, "inside a link's target or title: expand it by hand"),
    ("<", _HTML_TAG, "inside an HTML tag"),
)


class Guard:
    """The lines and spans of one document that a fix leaves alone, with the reason."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.lines = document.lines
        self.whole: dict[int, str] = {}  # line -> why no edit is made anywhere on it
        self.spans: dict[int, list[tuple[int, int, str]]] = {}  # line -> (start, end, why)
        self.labels: set[str] = set()
        self._found = False  # found on the first question: most documents' passes ask none

    def _find(self) -> None:
        self._found = True
        document = self.document
        self.labels = {_normalise_label(m.group(1)) for line in self.lines if (m := _REF_DEF.match(line))}
        skip = {n for first, last in document.code_blocks for n in range(first, last + 1)}
        fm = document.front_matter
        if fm.start_line is not None and fm.end_line is not None:
            skip.update(range(fm.start_line, fm.end_line + 1))
        self._quotes(skip)
        self._blocks(skip, set(document.heading_lines))
        self._code_spans(skip)

    def why_not(self, line: int, start: int, end: int) -> str | None:
        """Why an edit of columns [start, end) of `line` must not be made, or None."""
        if not self._found:
            self._find()
        if line in self.whole:
            return self.whole[line]
        for a, b, why in self.spans.get(line, ()):
            if a < end and start < b:
                return why
        raw = self.lines[line - 1]
        opening, closing = raw.rfind("<", 0, start), raw.find(">", end)
        if opening >= 0 and closing >= 0 and ">" not in raw[opening:start] and "<" not in raw[end:closing]:
            return "inside <...> (a link target or HTML): expand it by hand"
        target = raw.rfind("](", 0, start)
        if target >= 0 and _depth(raw[target + 1 : start]) > 0:
            return "inside a link's target or title: expand it by hand"
        opening, closing = raw.rfind("[", 0, start), raw.find("]", end)
        inside = (
            opening >= 0 and closing >= 0 and "]" not in raw[opening:start] and "[" not in raw[end:closing]
        )
        if inside and self._label(raw, opening, closing):
            return "inside [...] (a link label or footnote the edit would break): expand it by hand"
        return None

    def _label(self, raw: str, opening: int, closing: int) -> bool:
        """Whether `[...]` from `opening` to `closing` is a label: a footnote `[^x]`, the label of
        `[text][x]` or `[x][]`, or a shortcut `[x]` a reference definition names. Plain bracketed
        text (`[fact]`) and a link's text are not."""
        if raw.startswith("^", opening + 1) or raw.startswith("[]", closing + 1):
            return True
        if opening > 0 and raw[opening - 1] == "]":
            return True
        if raw.startswith(("(", "["), closing + 1):
            return False
        return _normalise_label(raw[opening + 1 : closing]) in self.labels

    def _quotes(self, skip: set[int]) -> None:
        """Headings and code blocks inside each run of block-quote lines."""
        number = 1
        while number <= len(self.lines):
            line = self.lines[number - 1]
            if number in skip or not (line.lstrip(" ").startswith(">") and _QUOTE.match(line)):
                number += 1
                continue
            first = number
            while number <= len(self.lines) and number not in skip and _QUOTE.match(self.lines[number - 1]):
                number += 1
            inner = tuple(_QUOTE.sub("", line) for line in self.lines[first - 1 : number - 1])
            found = scan_lines(inner)
            for heading, _, _ in found.headings:
                self.whole[first + heading - 1] = _HEADING
            for a, b in found.code_blocks:
                for n in range(a, b + 1):
                    self.whole[first + n - 1] = "inside a code block in a block quote"

    def _blocks(self, skip: set[int], headings: set[int]) -> None:
        """Setext heading text, headings in list items, indented code in lists or by a tab, HTML."""
        content = 0  # the content column of the list item above (0: not in a list)
        code = False
        prev_blank = True
        raw_html: str | None = None  # the tag of an open <pre>/<script>/<style>/<textarea> block
        html_block = False
        paragraph: list[int] = []
        for number, raw in enumerate(self.lines, 1):
            if raw_html is not None:
                self.whole[number] = "inside an HTML block"
                if f"</{raw_html}" in raw.lower():
                    raw_html = None
                continue
            blank = not raw.strip()
            if number in skip or blank:
                if blank:
                    prev_blank, html_block = True, False
                paragraph = []
                continue
            line = raw.expandtabs(4) if "\t" in raw else raw  # (each regex below runs only on its hint)
            indent = len(line) - len(line.lstrip(" "))
            if prev_blank and "<" in raw and (m := _HTML_RAW.match(raw)):
                raw_html = m.group(1).lower()
                self.whole[number] = "inside an HTML block"
                if f"</{raw_html}" in raw.lower():
                    raw_html = None
                prev_blank = False
                continue
            if prev_blank and "<" in raw and _HTML_START.match(raw):
                html_block = True
            if html_block:
                self.whole[number] = "inside an HTML block"
            if (prev_blank or code) and indent >= content + 4:
                code = True
                self.whole[number] = "inside indented code"
            else:
                code = False
                lead = line[indent : indent + 1]
                item = _LIST_ITEM.match(line) if lead in ("-", "*", "+") or lead.isdigit() else None
                if item is not None:
                    spaces = len(item.group(2))
                    content = item.end() if 0 < spaces <= 4 else item.start(2) + 1
                elif prev_blank and indent == 0:
                    content = 0
            title = number > 1 and raw.lstrip()[:1] in ("'", '"', "(", "<")
            if title and (_REF_DEF.match(self.lines[number - 2]) or self.whole.get(number - 1) == _DEF):
                self.whole[number] = _DEF
            if raw.rstrip().endswith("]:") and _REF_DEF.match(raw):
                self.whole[number + 1] = _DEF
            if "#" in raw and _CONTAINER_HEADING.match(raw):
                self.whole[number] = _HEADING
            if (
                raw.lstrip()[:1] in ("=", "-")
                and _SETEXT_UNDERLINE.match(raw)
                and any(n in headings for n in paragraph)
            ):
                for n in paragraph:
                    self.whole.setdefault(n, _HEADING)
                paragraph = []
                prev_blank = False
                continue
            for m in _HTML_CODE.finditer(raw) if "<" in raw else ():
                self.spans.setdefault(number, []).append((m.start(), m.end(), "inside HTML code"))
            paragraph.append(number)
            prev_blank = False

    def _code_spans(self, skip: set[int]) -> None:
        """Code spans, link targets and titles, and HTML tags that run over more than one line of a
        paragraph (each line alone does not show them)."""
        para: list[int] = []
        for number in range(1, len(self.lines) + 2):
            raw = self.lines[number - 1] if number <= len(self.lines) else ""
            if number not in skip and raw.strip():
                para.append(number)
                continue
            if len(para) > 1 and any(_MULTILINE_HINT.search(self.lines[n - 1]) for n in para):
                self._spans_over(para)
            para = []

    def _spans_over(self, para: list[int]) -> None:
        starts = []
        text = ""
        for n in para:
            starts.append(len(text))
            text += self.lines[n - 1] + "\n"
        for hint, pattern, why in _MULTILINE:
            for m in pattern.finditer(text) if hint in text else ():
                if "\n" not in m.group():
                    continue
                for n, at in zip(para, starts, strict=True):
                    length = len(self.lines[n - 1])
                    a, b = max(m.start() - at, 0), min(m.end() - at, length)
                    if a < b:
                        self.spans.setdefault(n, []).append((a, b, why))


def _depth(text: str) -> int:
    """How many parentheses `text` leaves open (it starts at a link's `(`)."""
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth <= 0:
                return 0
    return depth


def _normalise_label(label: str) -> str:
    """A link label as CommonMark matches it: case-folded, inner whitespace collapsed."""
    return " ".join(label.split()).casefold()
