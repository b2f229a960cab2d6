"""Lists and tables of the line regions a check reads (Sources, Key Findings, Evidence Map).

A region of nothing but paragraphs, headings and lists of paragraphs (every Key Findings and Sources
section of the corpus) is read by `plain_lists`, which gives exactly what markdown-it-py gives there
and hands every other region back to it; markdown-it-py then block-parses the region (inline pass
off). The Evidence Map's pipe table is read by a line scan, `first_pipe_table`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from evalgate.document.model import ListItem, Table, TableRow
from evalgate.document.prose import single_spaced
from evalgate.document.scan import THEMATIC_BREAK

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_TASK = re.compile(r"^\[([ xX])\](?:\s+|$)")


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
            items.append(_list_item(span, single_spaced(" ".join(parts or nested)), ordered))
        i += 1
    return i + 1, tuple(items)


def _list_item(span: tuple[int, int], text: str, ordered: bool) -> ListItem:
    checked: bool | None = None
    task = _TASK.match(text) if text.startswith("[") else None  # most items have no task box
    if task:
        checked = task.group(1) != " "
        text = text[task.end() :]
    return ListItem(line=span[0], end_line=span[1], text=text, ordered=ordered, checked=checked)


# Possessive throughout: each part is followed by a character it cannot take, so giving back never
# helps, and two adjacent `\s*` (a cell's end and the row's) split trailing spaces quadratically.
_DELIMITER_ROW = re.compile(r"^ {0,3}\|?\s*+:?-++:?\s*+(?:\|\s*+:?-++:?\s*+)*+\|?\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_TABLE_END = re.compile(r"^ {0,3}(?:#{1,6}(?:\s|$)|>|`{3}|~{3})")
_TABLE_END_LEAD = frozenset(" #>`~")


def _cells(line: str) -> tuple[str, ...]:
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    # Most rows have no escaped pipe, and then the split is str.split's (the regex, which starts
    # with a look-behind, is tried at every character).
    cells = _CELL_SPLIT.split(text) if "\\|" in text else text.split("|")
    return tuple(map(str.strip, cells))


def ends_table(line: str) -> bool:
    """Whether a non-blank line starts a block that ends a pipe table (heading, quote, fence). Only
    a line starting with one of their characters or a space can (most rows start with `|`)."""
    return line[0] in _TABLE_END_LEAD and _TABLE_END.match(line) is not None


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
            if not line.strip() or ends_table(line):
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

# What no plain line may start with, past its indentation: a block other than a paragraph or a
# top-level list item could begin there (fence, heading, HTML, quote, setext underline, a nested or
# indented list item, a thematic break). A code span or `#tag` starts a paragraph. ({rule}: the
# number of the group that holds a thematic break's character.)
_BLOCK = (
    r" *(?:`{{3}}|~{{3}}|#{{1,6}}(?:[ \t]|$)|[<>=]|[-+*](?: |$)|\d{{1,9}}[.)](?: |$)"
    r"|([-*_])(?: *\{rule}){{2,}} *$)"
)
_NOT_PLAIN = re.compile(_BLOCK.format(rule=1))
# A top-level list item: marker at the start of the line, one to four spaces, then text; and whether
# that text starts a block of its own (`block`), found in the same match: the item's number and
# delimiter are groups 1 and 2, `block` 3, its thematic break's character 4.
_ITEM = re.compile(r"(?:[-+*]|(\d{1,9})([.)])) {1,4}(?=\S)(?P<block>" + _BLOCK.format(rule=4) + ")?")
_HEADING = re.compile(r"#{1,6}(?: |$)")  # an ATX heading at the start of a line without tabs


def plain_lists(lines: tuple[str, ...], first: int, last: int) -> Blocks | None:
    """The top-level lists of 1-based lines first..last when the region holds nothing but paragraphs,
    ATX headings and lists whose items are paragraphs and tight lists of paragraphs, else None (the
    caller asks markdown-it-py).

    For such regions the CommonMark rules are few, and this follows markdown-it-py exactly (the corpus
    test compares the two on every section of all 453 items, and a property test on generated
    regions): an item runs from its marker line to the next non-blank line that is not part of it (or
    the region's end); a line at the start of the line that is not a marker continues an item's open
    paragraph and otherwise ends the list; after a blank line only lines indented to the item's text
    continue it; a change of bullet character, of `.` to `)` or of bullet to number starts a new
    list; a heading at the start of the line ends the list. An item's text is its own paragraphs;
    a list nested in it (its markers indented to the item's text, none after a blank line inside it)
    adds nothing, unless the item holds nothing else (`- 1. text`): then it reads as the nested list's
    first paragraph. Whatever else could start a block (tabs, fences, quotes, HTML, thematic breaks
    inside an item, deeper lists, empty items, an ordered item that would interrupt a paragraph)
    returns None. Most Key Findings and Sources sections are plain, and this is about ten times
    cheaper than the parse."""
    region = lines[first - 1 : last]
    lists: list[tuple[ListItem, ...]] = []
    items: list[ListItem] = []
    kind: tuple[str, str] | None = None  # the open list: ("-", "") for `-` bullets, ("1", ")") for `1)`
    start = width = 0  # the open item's first line (index in region) and text indentation
    nest = -1  # the indentation of the markers of a list nested in the open item, -1 while none
    # The open item's own paragraphs' lines, or the first paragraph of a list that is all it holds
    parts: list[str] = []
    sink: list[str] | None = None  # where the open paragraph's lines go (parts, or None: nowhere)
    in_item = paragraph = False  # inside an item; a paragraph is open
    blank = True  # the last line was blank (or there was none)

    def close_item(end: int) -> None:
        text = single_spaced(" ".join(parts))
        items.append(_list_item((start + first, end + first - 1), text, kind is not None and kind[1] != ""))

    for index, line in enumerate(region):
        if not line.strip():
            blank, paragraph = True, False
            continue
        if "\t" in line:
            return None
        indent = len(line) - len(line.lstrip(" "))
        if blank and indent == 0 and THEMATIC_BREAK.match(line):  # most Sources end with one
            if in_item:
                close_item(index)
                lists.append(tuple(items))
                items, kind, in_item = [], None, False
            blank = False
            continue
        item = _ITEM.match(line) if indent == 0 else None
        if item is not None:
            number, delimiter, block = item.group(1, 2, "block")
            if paragraph and not in_item and number is not None and int(number) != 1:
                return None  # CommonMark: paragraph text, markdown-it-py's rule applies
            if block is None:
                width, nest = item.end(), -1
                text = line[width:]
            else:  # the item's text starts a block of its own: plain only as a list's item
                width = nest = item.start("block")
                nested = _ITEM.match(line, width)
                if nested is None or nested.group("block") is not None:
                    return None
                text = line[nested.end() :]
            new_kind = ("1", delimiter) if number is not None else (line[0], "")
            if in_item:
                close_item(index)
            if kind != new_kind and items:
                lists.append(tuple(items))
                items = []
            kind, start = new_kind, index
            parts = sink = [text]
            in_item, paragraph, blank = True, True, False
            continue
        if _NOT_PLAIN.match(line):  # a block starts here; plain if a heading or a nested list's item
            if indent == 0 and _HEADING.match(line):  # it ends the list
                if in_item:
                    close_item(index)
                    lists.append(tuple(items))
                    items, kind, in_item = [], None, False
                blank, paragraph = True, False
                continue
            nested = _ITEM.match(line, indent) if in_item and width <= indent <= width + 3 else None
            if nested is None or nested.group("block") is not None:
                return None
            if nest < 0:
                if paragraph and nested.group(1) is not None and int(nested.group(1)) != 1:
                    return None  # paragraph text or a list: markdown-it-py decides
                nest = indent
            elif indent != nest or blank:
                return None  # a deeper list, or a loose one
            sink, paragraph, blank = None, True, False
            continue
        if paragraph:  # a continuation line, lazy or indented
            if sink is not None:
                sink.append(line)
            blank = False
            continue
        if in_item and indent >= width:
            if indent >= width + 4 or nest >= 0:
                return None  # indented code inside the item, or text after a nested list
            parts.append(line)  # the item's next paragraph
            sink = parts
            paragraph, blank = True, False
            continue
        if indent:
            return None  # after a blank line: indented code, or a paragraph that markdown-it-py places
        if in_item:  # a paragraph at the start of the line ends the list
            close_item(index)
            lists.append(tuple(items))
            items, kind, in_item = [], None, False
        sink, paragraph, blank = None, True, False
    if in_item:
        close_item(len(region))
    if items:
        lists.append(tuple(items))
    return Blocks(tuple(lists), ())
