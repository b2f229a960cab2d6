"""Block structure of markdown, cheaply: a line scan for fences and headings, and a markdown-it-py
block parse (inline pass off) of just the line regions whose lists and tables a check reads.

Why not parse the whole file with markdown-it-py: over the 453-item corpus a full parse costs ~10 s
and a block-only parse ~3 s, while the structural pass has a budget of about one second. Headings and
fences follow simple line rules that a scan gets exactly right (CommonMark: a fence closes with the
same character, at least as long, nothing but spaces after; an ATX heading is up to three spaces, one
to six `#`, then a space or the end of the line); lists and tables do not, so those go to
markdown-it-py, region by region. A region of nothing but paragraphs and flat lists (most Key Findings
and Sources sections) is read by `plain_lists`, which gives exactly what markdown-it-py gives there
and hands every other region back to it.

The scan follows the CommonMark rules that decide a setext heading (which lines are paragraph text,
where a list ends), tested against markdown-it-py on generated documents. It does not model block
quotes (a lazy continuation line of a quote is taken as paragraph text) nor list items' content
indentation (after a blank line, any indented line is taken as still in the list), and it takes
every line starting with `|` for a table row; none of these changes a heading in the corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from evalgate.document import ListItem, Table, TableRow

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE_LEAD = frozenset("`~")
_SETEXT_LEAD = frozenset("=-")
_LIST_MARKER = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_ORDERED = re.compile(r" {0,3}(\d{1,9})[.)]")
_THEMATIC = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# A line that starts a block (so it is no paragraph text a setext underline could make a heading):
# a quote, table or HTML line, a list item, a heading, a fence. (Thematic breaks are taken, by
# _THEMATIC, before the scan gets here.)
_BLOCK_START = re.compile(r"^ {0,3}(?:[>|<]|[-+*] |\d{1,9}[.)] |#{1,6}(?:[ \t]|$)|`{3}|~{3})")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"(\*\*|__|`|\*|(?<!\w)_|_(?!\w))")
_TASK = re.compile(r"^\[([ xX])\](?:\s+|$)")


@dataclass(frozen=True)
class LineScan:
    """What the line scan found: headings as (line, level, title) and code block line spans."""

    headings: tuple[tuple[int, int, str], ...]
    code_blocks: tuple[tuple[int, int], ...]


def heading_title(raw: str) -> str:
    """Heading text with its closing `#`s, links and emphasis/code markers removed."""
    # Each pattern is applied only where its one required text is: most headings have none.
    text = (_ATX_CLOSE.sub("", raw) if raw.rstrip(" \t").endswith("#") else raw).strip()
    if "](" in text:
        text = _LINK.sub(r"\1", text)
    if "*" in text or "_" in text or "`" in text:
        text = _MARKUP.sub("", text)
    return text.strip()


def scan_lines(lines: tuple[str, ...], first: int = 1) -> LineScan:
    """Find headings (ATX, and setext under a plain paragraph line) and code blocks (fenced, and
    indented outside lists) from 1-based line `first` on."""
    headings: list[tuple[int, int, str]] = []
    code: list[tuple[int, int]] = []
    fence: tuple[str, int, int] | None = None  # (char, length, opening line)
    indented_start: int | None = None
    in_list = False
    prev_blank = True
    prev_paragraph = False  # the previous line could be a setext heading's text
    para_start = 0  # the first line of that paragraph
    for number in range(first, len(lines) + 1):
        line = lines[number - 1]
        if not line:
            # an empty line (a quarter of the corpus's lines): it ends a paragraph, and inside a
            # fence or an indented block it changes nothing
            if fence is None and indented_start is None:
                prev_blank, prev_paragraph = True, False
            continue
        if fence is None and indented_start is None:
            # Shortcuts for the lines most items are made of, each doing exactly what the general
            # path below does for such a line.
            lead = line[0]
            if lead.isalpha() or lead == "[" or (lead == "*" and line[1:2] == "*"):
                # prose, a link, bold text: no block can start here
                if in_list and prev_blank:
                    in_list = False
                if not prev_paragraph:
                    para_start = number
                prev_paragraph, prev_blank = not in_list, False
                continue
            if (
                lead in "-*+"
                and line[1:2] == " "
                and len(line.rstrip()) > 2
                and (line[2] != lead or not _THEMATIC.match(line))
            ):
                # a bullet item (a quarter of the corpus's lines); never a setext underline, and
                # not `- - -` or `* * *` (thematic breaks)
                in_list, prev_paragraph, prev_blank = True, False, False
                continue
            if lead == "|":  # a table row
                if in_list and prev_blank:
                    in_list = False
                prev_paragraph, prev_blank = False, False
                continue
            if lead == "#":
                heading = _ATX.match(line)
                if heading:  # (`#tag` is no heading: the general path takes it)
                    headings.append((number, len(heading.group(1)), heading_title(heading.group(2) or "")))
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
        if fence is not None:
            stripped = line.strip()
            char, length, start = fence
            closing = stripped and set(stripped) == {char} and len(stripped) >= length
            if closing and len(line) - len(line.lstrip(" ")) < 4:
                code.append((start, number))
                fence = None
            continue
        blank = not line.strip()
        indent = len(line) - len(line.lstrip(" \t"))
        if indented_start is not None:
            if blank or indent >= 4:
                continue
            code.append(_trim_blank(lines, indented_start, number - 1))
            indented_start = None
        if not blank and indent >= 4 and prev_blank and not in_list:
            indented_start = number
            prev_blank = False
            continue
        # The fence, heading and setext patterns allow only spaces before their first character, so
        # that character (after spaces) says which of them can match; most lines are list items or
        # table rows that none can.
        lead = line.lstrip(" ")[:1]
        match = _FENCE_OPEN.match(line) if lead in _FENCE_LEAD else None
        if match and len(match.group("indent")) < 4 + (4 if in_list else 0):
            marker = match.group("fence")
            if not (marker[0] == "`" and "`" in match.group("info")):
                fence = (marker[0], len(marker), number)
                if indent == 0:
                    in_list = False  # a fence at the margin ends a list (indented, it may be in an item)
                prev_blank, prev_paragraph = False, False
                continue
        heading = _ATX.match(line) if lead == "#" else None
        if heading:
            headings.append((number, len(heading.group(1)), heading_title(heading.group(2) or "")))
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
        if _THEMATIC.match(line):  # tried before list items: `* * *` is a thematic break
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
    return LineScan(tuple(headings), tuple(code))


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


# ---------------------------------------------------------------------------------------------
# Region block parse


# Block structure only: inline parsing is most of markdown-it-py's cost and no check needs its tokens.
# Two parsers: the table rule is tried at every paragraph line and splits cells in Python, so regions
# read for their lists (Sources, Key Findings) use a parser without it.
# Built on first use: most regions are plain (`plain_lists`), so a run over a few files often needs
# neither, and importing markdown-it-py is a tenth of the CLI's start-up.
@cache
def _block_parser(tables: bool) -> MarkdownIt:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark")
    if tables:
        parser.enable("table")
    return parser.disable(["inline", "text_join", "reference"])


@dataclass(frozen=True)
class Blocks:
    """Top-level lists (each a tuple of items) and tables of one region, in order."""

    lists: tuple[tuple[ListItem, ...], ...]
    tables: tuple[Table, ...]


def parse_region(lines: tuple[str, ...], first: int, last: int, *, tables: bool = False) -> Blocks:
    """Block-parse 1-based lines first..last (tables only when asked); returned lines are lines of
    the whole file. A region of plain lists and paragraphs is read by `plain_lists`; anything else
    goes to markdown-it-py."""
    if last < first:
        return Blocks((), ())
    if not tables:
        plain = plain_lists(lines, first, last)
        if plain is not None:
            return plain
    offset = first  # token map rows are 0-based within the region
    parser = _block_parser(tables)
    tokens = parser.parse("\n".join(lines[first - 1 : last]) + "\n")
    lists: list[tuple[ListItem, ...]] = []
    found_tables: list[Table] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.level == 0 and tok.type in ("bullet_list_open", "ordered_list_open"):
            i, items = _collect_list(tokens, i, offset)
            lists.append(items)
            continue
        if tok.level == 0 and tok.type == "table_open":
            i, table = _collect_table(tokens, i, offset)
            found_tables.append(table)
            continue
        i += 1
    return Blocks(tuple(lists), tuple(found_tables))


def _collect_list(tokens: list, i: int, offset: int) -> tuple[int, tuple[ListItem, ...]]:
    ordered = tokens[i].type == "ordered_list_open"
    close = tokens[i].type.replace("_open", "_close")
    level = tokens[i].level
    items: list[ListItem] = []
    parts: list[str] = []
    nested: list[str] = []  # an item whose only content is a nested list (`- 1. text`) reads as that
    span = (0, 0)
    i += 1
    while i < len(tokens) and not (tokens[i].type == close and tokens[i].level == level):
        tok = tokens[i]
        if tok.type == "list_item_open" and tok.level == level + 1:
            parts, nested = [], []
            span = (tok.map[0] + offset, tok.map[1] + offset - 1) if tok.map else (offset, offset)
        elif tok.type == "inline" and tok.level == level + 3:  # the item's own paragraphs
            parts.append(tok.content)
        elif tok.type == "inline" and not nested:
            nested.append(tok.content)
        elif tok.type == "list_item_close" and tok.level == level + 1:
            items.append(_list_item(span, " ".join(" ".join(parts or nested).split()), ordered))
        i += 1
    return i + 1, tuple(items)


def _list_item(span: tuple[int, int], text: str, ordered: bool) -> ListItem:
    checked: bool | None = None
    task = _TASK.match(text)
    if task:
        checked = task.group(1) != " "
        text = text[task.end() :]
    return ListItem(line=span[0], end_line=span[1], text=text, ordered=ordered, checked=checked)


_DELIMITER_ROW = re.compile(r"^ {0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_TABLE_END = re.compile(r"^ {0,3}(?:#{1,6}(?:\s|$)|>|`{3}|~{3})")


def _cells(line: str) -> tuple[str, ...]:
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    # Most rows have no escaped pipe, and then the split is str.split's (the regex, which starts
    # with a look-behind, is tried at every character).
    cells = _CELL_SPLIT.split(text) if "\\|" in text else text.split("|")
    return tuple(cell.strip() for cell in cells)


def first_pipe_table(lines: tuple[str, ...], first: int, last: int) -> Table | None:
    """The first GFM pipe table in 1-based lines first..last: a header row, a delimiter row with as
    many cells, then rows up to a blank line or the start of another block. Done by line scan
    because markdown-it-py's table rule splits cells a character at a time in Python, which cost a
    third of the structural budget on the corpus's Evidence Maps; the rules are the same (cells split
    at unescaped pipes, also inside code spans)."""
    for n in range(first, last):
        header, delimiter = lines[n - 1], lines[n]
        if "|" not in header or not _DELIMITER_ROW.match(delimiter) or "-" not in delimiter:
            continue
        head = _cells(header)
        if len(head) != len(_cells(delimiter)) or len(header) - len(header.lstrip()) >= 4:
            continue
        rows: list[TableRow] = []
        end = n + 1
        for m in range(n + 2, last + 1):
            line = lines[m - 1]
            if not line.strip() or _TABLE_END.match(line):
                break
            cells = _cells(line)[: len(head)]  # GFM: excess cells are dropped, missing ones empty
            rows.append(TableRow(line=m, cells=cells + ("",) * (len(head) - len(cells))))
            end = m
        return Table(line=n, end_line=end, header=head, rows=tuple(rows))
    return None


def _collect_table(tokens: list, i: int, offset: int) -> tuple[int, Table]:
    start = tokens[i].map[0] + offset if tokens[i].map else offset
    end = tokens[i].map[1] + offset - 1 if tokens[i].map else offset
    header: tuple[str, ...] = ()
    rows: list[TableRow] = []
    cells: list[str] = []
    row_line = start
    in_head = False
    i += 1
    while i < len(tokens) and tokens[i].type != "table_close":
        tok = tokens[i]
        if tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            cells = []
            row_line = tok.map[0] + offset if tok.map else row_line
        elif tok.type == "inline":
            cells.append(tok.content.strip())
        elif tok.type == "tr_close":
            if in_head:
                header = tuple(cells)
            else:
                rows.append(TableRow(line=row_line, cells=tuple(cells)))
        i += 1
    return i + 1, Table(line=start, end_line=end, header=header, rows=tuple(rows))


# ---------------------------------------------------------------------------------------------
# Plain lists without markdown-it-py

# A top-level list item: marker at the start of the line, one to four spaces, then text.
_ITEM = re.compile(r"(?:[-+*]|(\d{1,9})([.)])) {1,4}(?=\S)")
# What no plain line may start with, past its indentation: a block other than a paragraph or a
# top-level list item could begin there (fence, heading, HTML, quote, setext underline, a nested or
# indented list item, a thematic break). A code span or `#tag` starts a paragraph.
_NOT_PLAIN = re.compile(
    r" *(?:`{3}|~{3}|#{1,6}(?:[ \t]|$)|[<>=]|[-+*](?: |$)|\d{1,9}[.)](?: |$)|([-*_])(?: *\1){2,} *$)"
)


def plain_lists(lines: tuple[str, ...], first: int, last: int) -> Blocks | None:
    """The top-level lists of 1-based lines first..last when the region holds nothing but paragraphs
    and flat lists whose items are paragraphs, else None (the caller asks markdown-it-py).

    For such regions the CommonMark rules are few, and this follows markdown-it-py exactly (the corpus
    test compares the two on every section of all 453 items, and a property test on generated
    regions): an item runs from its marker line to the next non-blank line that is not part of it (or
    the region's end); a line at the start of the line that is not a marker continues an item's open
    paragraph and otherwise ends the list; after a blank line only lines indented to the item's text
    continue it; a change of bullet character, of `.` to `)` or of bullet to number starts a new
    list. Whatever else could start a block (tabs, fences, headings, quotes, HTML, thematic breaks,
    nested lists, empty items, an ordered item that would interrupt a paragraph) returns None. Most
    Key Findings and Sources sections are plain, and this is about ten times cheaper than the parse."""
    region = lines[first - 1 : last]
    lists: list[tuple[ListItem, ...]] = []
    items: list[ListItem] = []
    kind: tuple[str, str] | None = None  # the open list: ("-", "") for `-` bullets, ("1", ")") for `1)`
    start = width = 0  # the open item's first line (index in region) and text indentation
    parts: list[str] = []
    in_item = paragraph = False  # inside an item; a paragraph is open
    blank = True  # the last line was blank (or there was none)

    def close_item(end: int) -> None:
        text = " ".join(" ".join(parts).split())
        items.append(_list_item((start + first, end + first - 1), text, kind is not None and kind[1] != ""))

    for index, line in enumerate(region):
        if not line.strip():
            blank, paragraph = True, False
            continue
        if "\t" in line:
            return None
        indent = len(line) - len(line.lstrip(" "))
        if blank and indent == 0 and _THEMATIC.match(line):  # a thematic break (most Sources end with one)
            if in_item:
                close_item(index)
                lists.append(tuple(items))
                items, kind, in_item = [], None, False
            blank = False
            continue
        item = _ITEM.match(line) if indent == 0 else None
        if item is not None:
            number, delimiter = item.groups()
            if _NOT_PLAIN.match(line, item.end()):
                return None  # the item's text starts a block of its own
            if paragraph and not in_item and number is not None and int(number) != 1:
                return None  # CommonMark: paragraph text, markdown-it-py's rule applies
            new_kind = ("1", delimiter) if number is not None else (line[0], "")
            if in_item:
                close_item(index)
            if kind != new_kind and items:
                lists.append(tuple(items))
                items = []
            kind, start, width = new_kind, index, item.end()
            parts = [line[item.end() :]]
            in_item, paragraph, blank = True, True, False
            continue
        if _NOT_PLAIN.match(line):
            return None
        if paragraph:  # a continuation line, lazy or indented
            if in_item:
                parts.append(line)
            blank = False
            continue
        if in_item and indent >= width:
            if indent >= width + 4:
                return None  # indented code inside the item
            parts.append(line)  # the item's next paragraph
            paragraph, blank = True, False
            continue
        if indent:
            return None  # after a blank line: indented code, or a paragraph that markdown-it-py places
        if in_item:  # a paragraph at the start of the line ends the list
            close_item(index)
            lists.append(tuple(items))
            items, kind, in_item = [], None, False
        paragraph, blank = True, False
    if in_item:
        close_item(len(region))
    if items:
        lists.append(tuple(items))
    return Blocks(tuple(lists), ())
