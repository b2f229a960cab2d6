"""Headings and code blocks of markdown, cheaply: one scan of the lines.

Why not parse the whole file with markdown-it-py: over the 453-item corpus a full parse costs ~10 s
and a block-only parse ~3 s, while the structural pass has a budget of about one second. Headings and
fences follow simple line rules that a scan gets exactly right (CommonMark: a fence closes with the
same character, at least as long, nothing but spaces after; an ATX heading is up to three spaces, one
to six `#`, then a space or the end of the line); lists and tables do not, so those are read region
by region in `evalgate.document.blocks`.

The scan follows the CommonMark rules that decide a setext heading (which lines are paragraph text,
where a list ends), tested against markdown-it-py on generated documents. It does not model block
quotes (a lazy continuation line of a quote is taken as paragraph text) nor list items' content
indentation (after a blank line, any indented line is taken as still in the list), and it takes
every line starting with `|` for a table row; none of these changes a heading in the corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from evalgate.document.html_blocks import HTML_END, code_spans, html_start, in_code_span, paragraph

_FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
# The title is the rest of the line, its end spaces stripped in Python: a lazy `(.*?)` before
# `[ \t]*$` tried the end at every character, quadratic in a run of inner spaces.
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE_LEAD = frozenset("`~")
_SETEXT_LEAD = frozenset("=-")
_LIST_MARKER = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_ORDERED = re.compile(r" {0,3}(\d{1,9})[.)]")
THEMATIC_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# A line that starts a block (so it is no paragraph text a setext underline could make a heading):
# a quote, table or HTML line, a list item, a heading, a fence. (Thematic breaks are taken, by
# THEMATIC_BREAK, before the scan gets here.)
_BLOCK_START = re.compile(r"^ {0,3}(?:[>|]|[-+*] |\d{1,9}[.)] |#{1,6}(?:[ \t]|$)|`{3}|~{3})")
_BULLETS = frozenset("-*+")
# What may follow a bullet and its space in a thematic break (`- - -`, `-  -  -`): more of the
# same character, or spaces and tabs between them. After anything else the line is no break.
_BREAK_GAP = {c: frozenset(c + " \t") for c in "-*+"}
_MARKUP = re.compile(r"(\*\*|__|`|\*|(?<!\w)_|_(?!\w))")


@dataclass(frozen=True)
class LineScan:
    """What the line scan found: headings as (line, level, title), code block line spans, the HTML
    comments that start a block (`<!--` first on a line) as (line, column, end line, end column), the
    end column one past the closing `-->` (an unclosed comment runs to the end of the file), and the
    other HTML blocks, whose lines hold no heading, fence or other markdown block."""

    headings: tuple[tuple[int, int, str], ...]
    code_blocks: tuple[tuple[int, int], ...]
    comment_blocks: tuple[tuple[int, int, int, int], ...] = ()
    # CommonMark's other HTML blocks as (first line, last line, type 1 or 3-7): raw HTML, no markdown
    html_blocks: tuple[tuple[int, int, int], ...] = ()


@lru_cache(maxsize=4096)  # the template's headings recur in every item
def heading_title(raw: str) -> str:
    """Heading text with its closing `#`s, links and emphasis/code markers removed."""
    # Each step is taken only where its one required text is: most headings have none.
    text = _without_closing_hashes(raw).strip()
    if "](" in text:
        text = strip_links(text)
    if "*" in text or "_" in text or "`" in text:
        text = _MARKUP.sub("", text)
    return text.strip()


def _without_closing_hashes(raw: str) -> str:
    """`re.sub(r"(?:^|[ \t]+)#+[ \t]*$", "", raw)`: a closing run of `#`s, with the spaces around it,
    removed when it is the whole text or spaces come before it. Done from the end: the regex tried
    every position of a run of spaces, quadratic in its length."""
    end = raw.rstrip(" \t")
    head = end.rstrip("#")
    if len(head) == len(end):  # no closing `#`
        return raw
    if not head or head[-1] in " \t":
        return head.rstrip(" \t")
    return raw  # `C#`: the hashes are part of the title


def strip_links(text: str) -> str:
    r"""`re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)`: each inline link (or image) replaced by
    its text, in linear time. The regex tried every `[` and ran to the next `]` from each, quadratic
    in a run of `[` after `](`; every `[` before the same `]` succeeds or fails alike, so one try per
    `]` does."""
    out: list[str] = []
    done = search = 0
    while (start := text.find("[", search)) >= 0:
        close = text.find("]", start + 1)
        if close < 0:
            break
        if not text.startswith("(", close + 1):
            search = close + 1
            continue
        end = text.find(")", close + 2)
        if end < 0:
            break  # no `)` after this `](`: none after a later one either
        if start > done and text[start - 1] == "!":
            start -= 1
        out.append(text[done:start])
        out.append(text[text.index("[", start) + 1 : close])
        done = search = end + 1
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


@lru_cache(maxsize=4096)  # the template's heading lines recur in every item
def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, title) when the line is an ATX heading (`## Title ##`), else None."""
    heading = _ATX.match(line)
    if heading is None:
        return None
    return len(heading.group(1)), heading_title((heading.group(2) or "").rstrip(" \t"))


def scan_lines(lines: tuple[str, ...], first: int = 1, *, shortcuts: bool = True) -> LineScan:
    """Find headings (ATX, and setext under a plain paragraph line) and code blocks (fenced, and
    indented outside lists) from 1-based line `first` (at least 1) on. `shortcuts=False` takes every
    line by the general path, the plain form the shortcuts must equal
    (tests/document/test_scan_headings.py)."""
    headings: list[tuple[int, int, str]] = []
    code: list[tuple[int, int]] = []
    fence: tuple[str, int, int] | None = None  # (char, length, opening line)
    indented_start: int | None = None
    in_list = False
    prev_blank = True
    prev_paragraph = False  # the previous line could be a setext heading's text
    para_start = 0  # the first line of that paragraph
    quick = shortcuts  # shortcuts on, and no fence, indented code block or comment open
    comments: list[tuple[int, int, int, int]] = []
    comment: tuple[int, int] | None = None  # an open comment block's (line, column) of its `<!--`
    # The open comment was opened by raw HTML after a comment block closed on its line (`<!-- a --><!--`):
    # the lines after it are markdown again, whose `-->` is text (escaped in the HTML); only raw HTML
    # closes it, a later `<!--` (a comment block, an inline comment) and the `-->` after that.
    raw_open = False
    html: tuple[int, int] | None = None  # an open HTML block's first line and type
    html_blocks: list[tuple[int, int, int]] = []
    for number, line in enumerate(lines[first - 1 :], first):
        if quick:
            # No fence, indented code, comment or HTML block is open (quick is off while one is), and
            # shortcuts for the lines most items are made of, each doing exactly what the general
            # path below does for such a line.
            if not line:  # an empty line (a quarter of the corpus's lines) ends a paragraph
                prev_blank, prev_paragraph = True, False
                continue
            lead = line[0]
            if (
                lead in _BULLETS
                and line[1:2] == " "
                and len(line.rstrip()) > 2
                and (line[2] not in _BREAK_GAP[lead] or not THEMATIC_BREAK.match(line))
            ):
                # a bullet item (a quarter of the corpus's lines); never a setext underline, and
                # not `- - -`, `-  -  -` or `* * *` (thematic breaks)
                in_list, prev_paragraph, prev_blank = True, False, False
                continue
            if lead == " ":  # a nested bullet item (`  - text`, 7,000 of the corpus's lines)
                body = line.lstrip(" ")
                if (
                    len(line) - len(body) < 4
                    and body[:1] in _BULLETS
                    and body[1:2] == " "
                    and len(body.rstrip()) > 2
                    and (body[2] not in _BREAK_GAP[body[0]] or not THEMATIC_BREAK.match(line))
                ):
                    in_list, prev_paragraph, prev_blank = True, False, False
                    continue
            if lead.isalpha() or lead == "[" or (lead == "*" and line[1:2] == "*"):
                # prose, a link, bold text: no block can start here
                if in_list and prev_blank:
                    in_list = False
                if not prev_paragraph:
                    para_start = number
                prev_paragraph, prev_blank = not in_list, False
                continue
            if lead == "|":  # a table row
                if in_list and prev_blank:
                    in_list = False
                prev_paragraph, prev_blank = False, False
                continue
            if lead == "#":
                heading = atx_heading(line)
                if heading:  # (`#tag` is no heading: the general path takes it)
                    headings.append((number, *heading))
                    in_list, prev_blank, prev_paragraph = False, False, False
                    continue
            elif "0" <= lead <= "9":  # a numbered item, or a paragraph that starts with a number
                item = _LIST_MARKER.match(line)
                if item and prev_paragraph and not _interrupts(line, item.end()):
                    prev_blank = False  # paragraph text after all
                    continue
                if item:
                    in_list, prev_paragraph, prev_blank = True, False, False
                    continue
                if prev_blank:
                    in_list = False
                if not prev_paragraph:
                    para_start = number
                # (_BLOCK_START matches such a line only where _LIST_MARKER does)
                prev_paragraph, prev_blank = not in_list, False
                continue
        else:
            if html is not None and html[1] >= 6 and not line.strip():  # a blank line ends types 6, 7
                html_blocks.append((html[0], number - 1, html[1]))
                html, quick = None, shortcuts
            if not line:
                # an empty line: it ends a paragraph, and inside a fence, an indented block or a
                # comment it changes nothing
                if fence is None and indented_start is None and comment is None and html is None:
                    prev_blank, prev_paragraph = True, False
                continue
            if html is not None:
                if html[1] < 6 and HTML_END[html[1]].search(line):
                    html_blocks.append((html[0], number, html[1]))
                    html, quick = None, shortcuts
                    prev_blank, prev_paragraph = False, False
                continue
            if comment is not None:
                after, block = 0, True
                if raw_open:
                    after = line.find("<!--")
                    if after > 0 and "`" in line[:after]:  # one in a code span is text, not HTML
                        spans = code_spans(paragraph(lines, number))
                        while after > 0 and in_code_span(spans, after):
                            after = line.find("<!--", after + 4)
                    if after < 0:
                        continue
                    # a comment block's `<!--` first on the line, else an inline comment in a paragraph
                    raw_open, block, after = False, not line[:after].strip(), after + 4
                close = line.find("-->", after)
                if close >= 0:
                    if block:
                        comment, raw_open = _close_comments(comments, comment, number, line, close)
                    else:  # the rest of the line is paragraph text, where an unclosed `<!--` is text
                        comments.append((*comment, number, close + 3))
                        comment = None
                    quick = shortcuts and comment is None
                continue
        if fence is not None:
            if closes_fence(line, fence[0], fence[1]):
                code.append((fence[2], number))
                fence, quick = None, shortcuts
            continue
        blank = not line.strip()
        indent = len(line) - len(line.lstrip(" \t"))
        if indented_start is not None:
            if blank or indent >= 4:
                continue
            code.append(_trim_blank(lines, indented_start, number - 1))
            indented_start, quick = None, shortcuts
        if not blank and indent >= 4 and prev_blank and not in_list:
            indented_start, quick = number, False
            prev_blank = False
            continue
        # The fence, heading and setext patterns allow only spaces before their first character, so
        # that character (after spaces) says which of them can match; most lines are list items or
        # table rows that none can.
        lead = line.lstrip(" ")[:1]
        if lead == "<" and line.startswith("<!--", len(line) - len(line.lstrip(" "))):
            # CommonMark's HTML block of type 2: it runs to the first line holding `-->` (this one
            # too: `<!-->` closes itself), and a reader sees none of the comment
            at = len(line) - len(line.lstrip(" "))
            if at < 4 + (4 if in_list else 0):
                close = line.find("-->", at + 2)
                comment = (number, at)
                if close >= 0:
                    comment, raw_open = _close_comments(comments, comment, number, line, close)
                quick = shortcuts and comment is None
                prev_blank, prev_paragraph = False, False
                continue
        if lead == "<" and indent < 4 and (indent == 0 or not in_list):
            # (inside a list only at the margin, where it ends the list: an HTML block inside an item
            # is not modelled, as the items' content indentation is not; a list item's text is a
            # paragraph too: the line after it, with no blank between)
            kind = html_start(line[indent:], prev_paragraph or (in_list and not prev_blank))
            if kind is not None:
                if kind < 6 and HTML_END[kind].search(line, indent + 2):
                    html_blocks.append((number, number, kind))  # it ends on its first line
                else:
                    html, quick = (number, kind), False
                if indent == 0:
                    in_list = False  # at the margin it ends a list (indented, it may be in an item)
                prev_blank, prev_paragraph = False, False
                continue
        match = _FENCE_OPEN.match(line) if lead in _FENCE_LEAD else None
        if match and len(match.group("indent")) < 4 + (4 if in_list else 0):
            marker = match.group("fence")
            if not (marker[0] == "`" and "`" in match.group("info")):
                fence, quick = (marker[0], len(marker), number), False
                if indent == 0:
                    in_list = False  # a fence at the margin ends a list (indented, it may be in an item)
                prev_blank, prev_paragraph = False, False
                continue
        heading = atx_heading(line) if lead == "#" else None
        if heading:
            headings.append((number, *heading))
            in_list, prev_blank, prev_paragraph = False, False, False
            continue
        setext = _SETEXT.match(line) if lead in _SETEXT_LEAD and prev_paragraph else None
        if setext:
            level = 1 if setext.group(1)[0] == "=" else 2
            # the heading is the whole paragraph above the underline, from its first line
            headings.append((para_start, level, heading_title(" ".join(lines[para_start - 1 : number - 1]))))
            prev_blank, prev_paragraph = False, False
            continue
        if blank:
            prev_blank, prev_paragraph = True, False
            continue
        if THEMATIC_BREAK.match(line):  # tried before list items: `* * *` is a thematic break
            if indent == 0:
                in_list = False  # (indented, it may be inside a list item)
            prev_blank, prev_paragraph = False, False
            continue
        item = _LIST_MARKER.match(line)
        if item and prev_paragraph and not _interrupts(line, item.end()):
            prev_blank = False  # paragraph text after all
            continue
        if item:
            in_list = True
        elif indent == 0 and prev_blank:
            in_list = False
        if not prev_paragraph:
            para_start = number
        # an indented line continues an open paragraph (indented code needs a blank line before it)
        prev_paragraph = not in_list and (indent < 4 or prev_paragraph) and not _BLOCK_START.match(line)
        prev_blank = False
    if fence is not None:  # an unclosed fence runs to the end of the document
        code.append((fence[2], len(lines)))
    if indented_start is not None:
        code.append(_trim_blank(lines, indented_start, len(lines)))
    if comment is not None:  # an unclosed comment hides the rest of the document
        comments.append((*comment, len(lines), len(lines[-1])))
    if html is not None:  # an unclosed HTML block runs to the end of the document
        html_blocks.append((html[0], len(lines), html[1]))
    return LineScan(tuple(headings), tuple(code), tuple(comments), tuple(html_blocks))


def _close_comments(
    comments: list[tuple[int, int, int, int]], comment: tuple[int, int], number: int, line: str, close: int
) -> tuple[tuple[int, int] | None, bool]:
    """Record the comment that `-->` at `close` of line `number` ends; the rest of that line is raw
    HTML, where another `<!--` opens a comment again: returned open when nothing closes it there,
    with True (opened by raw HTML: only raw HTML closes it)."""
    while True:
        comments.append((*comment, number, close + 3))
        again = line.find("<!--", close + 3)
        if again < 0:
            return None, False
        comment = (number, again)
        close = line.find("-->", again + 2)
        if close < 0:
            return comment, True


def closes_fence(line: str, char: str, length: int) -> bool:
    """Whether `line` closes a fence of `length` `char`s: that character only, at least as many,
    indented less than four spaces."""
    stripped = line.strip()
    # `not strip(char)`: every character is the fence's (a set of every line of a code block cost more)
    return (
        stripped[:1] == char
        and not stripped.strip(char)
        and len(stripped) >= length
        and len(line) - len(line.lstrip(" ")) < 4
    )


def _interrupts(line: str, text_at: int) -> bool:
    """Whether a list item whose text starts at `text_at` may interrupt a paragraph (CommonMark: not
    when it is empty, nor when it is numbered and does not start at 1); else it is paragraph text."""
    if not line[text_at:].strip():
        return False
    number = _ORDERED.match(line)
    return number is None or int(number.group(1)) == 1


def _trim_blank(lines: tuple[str, ...], start: int, end: int) -> tuple[int, int]:
    while end > start and not lines[end - 1].strip():
        end -= 1
    return (start, end)
