"""What a reader of the rendered document never sees: HTML comments and link reference definitions.

Takes the file's lines and the line scan (which found the comments that start a block, `<!--` first on
a line: CommonMark's HTML block of type 2); gives the comments inside paragraphs, headings and table
rows (inline HTML), the one-line link reference definitions, and the lines with all of that blanked.

GitHub renders a comment as nothing, wherever it is and however many lines it spans, and a reference
definition (`[label]: https://... "title"`) as nothing either. Everything else it shows: `<details>`
folds its content but a click opens it; the `hidden` and `style` attributes (`<div hidden>`,
`<span style="display:none">`, a zero font size) are not on its sanitizer's allow-list, so they are
removed and the text shows; `<script>`, `<style>` and the other tags GFM's tag filter names are shown
as text. See docs/checks.md, "How a document is read".

Inline, a comment is `<!--` up to the first `-->` (CommonMark 0.31: `<!-->` and `<!--->` are
comments too) inside one paragraph: a code span that starts before it wins (`` `<!--` `` is code),
a backslash before `<` makes it text, and a comment that is not closed within its paragraph is text.
A paragraph here is a run of non-blank lines that ends where a line starts another block (a heading,
a list item, a quote, a table row, a thematic break); inside a list item's paragraph the item's own
lines are its continuation. Hidden text is blanked to spaces, so columns stay those of the file; a
line left blank by a comment that spans lines inside a paragraph ends that paragraph, and the text
after the comment's close keeps the indentation its line had (never more: more would make it code),
and a backslash in front where it would start a block (`## h` after `-->` is paragraph text).
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict

from evalgate.document.model import Document, HiddenSpan
from evalgate.document.scan import LineScan

COMMENT = "HTML comment"
REFERENCE = "link reference definition"
# CommonMark's HTML blocks of types 3-5 (`<?...?>`, `<!X...>`, `<![CDATA[...]]>`): an HTML parser, as
# every browser's and GitHub's sanitizer's, reads them as comments (bogus comments), shown as nothing
RAW_COMMENT = "piece of HTML that browsers read as a comment"


# A line that starts a block other than a paragraph continuation: an inline comment never crosses it.
_BLOCK_START = re.compile(
    r" {0,3}(?:#{1,6}(?:[ \t]|$)|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|[>|]|=+[ \t]*$|-+[ \t]*$"
    r"|(?:[-*_][ \t]*){3,}$|`{3}|~{3})"
)
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_TICK_FENCE = re.compile(r" {0,3}`{3,}[^`]*+$")  # a backtick fence's info string holds no backtick


def _starts_block(line: str) -> bool:
    """Whether `line` would start a block (or underline the line before) on its own; a run of three
    backticks only when it opens a fence."""
    found = _BLOCK_START.match(line)
    return found is not None and (not found.group().endswith("```") or _TICK_FENCE.match(line) is not None)


_TICKS = re.compile(r"`+")
# One line, CommonMark's link reference definition: a label without unescaped brackets, a destination,
# an optional title. (A title on the next line, or a label over lines, is not taken.) Every part is
# followed by something its own characters cannot hold, so the match is linear in the line.
_REFERENCE = re.compile(
    r" {0,3}\[(?:[^\\\[\]]|\\.){1,999}\]:[ \t]*(?:<[^<>\n]*>|[^\s<]\S*)"
    r"(?:[ \t]+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t]*$"
)

# `"]:" in text` as a regex: the same instructions (~1 a character of every file's whole text), but
# str's two-character search ran them at a third of the speed, 22 against 7.7 ms of CPU over the
# corpus (interleaved, min of 5); a `find("]")` loop, as `comment_start`'s, costs more (~150 `]` a file).
_REFERENCE_MARK = re.compile(r"\]:")

_TITLE_LINE = re.compile(r"[ \t]*(?:\"[^\"]*\"|'[^']*'|\([^()]*\))[ \t]*$")


def comment_start(text: str, start: int = 0) -> int:
    """`text.find("<!--", start)`, found from each `<`: a one-character find runs at memchr's speed,
    while the four-character one stops at every `-` (table rules, hyphens)."""
    at = text.find("<", start)
    while at >= 0 and not text.startswith("<!--", at):
        at = text.find("<", at + 1)
    return at


def hidden_spans(text: str, lines: tuple[str, ...], first: int, scan: LineScan) -> tuple[HiddenSpan, ...]:
    """Every span of lines `first`.. (1-based) that a reader does not see, in file order."""
    spans = [HiddenSpan(*c, COMMENT) for c in scan.comment_blocks]
    spans += [
        HiddenSpan(start, 0, end, len(lines[end - 1]), RAW_COMMENT)
        for start, end, kind in scan.html_blocks
        if 3 <= kind <= 5
    ]
    inline = comment_start(text) >= 0 and (
        not scan.comment_blocks or _outside_blocks(text, lines, scan.comment_blocks)
    )
    references = _REFERENCE_MARK.search(text) is not None
    if not (inline or references):
        return tuple(spans)
    taken = bytearray(len(lines) + 2)  # lines of code blocks and comment blocks: no inline text
    for start, end in scan.code_blocks:
        taken[start : end + 1] = b"\x01" * (end + 1 - start)
    for line, _, end, _ in scan.comment_blocks:
        taken[line : end + 1] = b"\x01" * (end + 1 - line)
    for run in _paragraphs(lines, first, taken):
        if references:
            run = _references(lines, run, spans)
        if inline and run:
            spans.extend(_inline_comments(lines, run))
    return tuple(sorted(spans, key=lambda s: (s.line, s.column)))


def _outside_blocks(text: str, lines: tuple[str, ...], blocks: tuple[tuple[int, int, int, int], ...]) -> bool:
    """Whether a `<!--` occurs other than where a comment block starts (a quick count)."""
    count, at = 0, comment_start(text)
    while at >= 0:
        count += 1
        at = comment_start(text, at + 4)
    return count > len(blocks)


def _paragraphs(lines: tuple[str, ...], first: int, taken: bytearray) -> list[list[int]]:
    """Runs of line numbers that can hold one inline context each (see the module's docstring)."""
    runs: list[list[int]] = []
    run: list[int] = []
    for number in range(first, len(lines) + 1):
        line = lines[number - 1]
        if taken[number] or not line.strip():
            if run:
                runs.append(run)
            run = []
            continue
        if run and (_starts_block(line) or _HEADING.match(lines[run[-1] - 1])):
            runs.append(run)
            run = []
        run.append(number)
    if run:
        runs.append(run)
    return runs


def _references(lines: tuple[str, ...], run: list[int], spans: list[HiddenSpan]) -> list[int]:
    """Take the reference definitions that open a paragraph; the rest of the run is returned."""
    taken = 0
    while taken < len(run):
        number = run[taken]
        line = lines[number - 1]
        if "]:" in line and _REFERENCE.match(line) is not None:
            spans.append(HiddenSpan(number, 0, number, len(line), REFERENCE))
        elif (
            taken and _TITLE_LINE.match(line) and spans[-1].kind == REFERENCE and spans[-1].line == number - 1
        ):
            spans.append(HiddenSpan(number, 0, number, len(line), REFERENCE))  # its title, on the next line
        else:
            break
        taken += 1
    return run[taken:]


def _inline_comments(lines: tuple[str, ...], run: list[int]) -> list[HiddenSpan]:
    """The comments of one paragraph (CommonMark's precedence: a code span or a comment, whichever
    starts first, wins). Linear: each backtick run finds its closing run by bisection among the runs
    of its length, and each search starts where the last one stopped."""
    text = "\n".join(lines[n - 1] for n in run)
    if comment_start(text) < 0:
        return []
    ticks = [(m.start(), len(m.group())) for m in _TICKS.finditer(text)] if "`" in text else []
    by_length: dict[int, list[int]] = defaultdict(list)
    for index, (_, length) in enumerate(ticks):
        by_length[length].append(index)
    found: list[tuple[int, int]] = []
    pos = tick = 0
    comment = comment_start(text)
    while comment >= 0:
        while tick < len(ticks) and ticks[tick][0] < pos:
            tick += 1
        if tick < len(ticks) and ticks[tick][0] < comment:
            start, length = ticks[tick]
            if _escaped(text, start):
                start, length = start + 1, length - 1
            closers = by_length.get(length, [])
            closer = bisect.bisect_right(closers, tick)
            pos = ticks[closers[closer]][0] + length if length and closer < len(closers) else start + length
            tick += 1
            if comment < pos:
                comment = comment_start(text, pos)
            continue
        if _escaped(text, comment):
            comment = comment_start(text, comment + 1)
            continue
        close = text.find("-->", comment + 2)
        if close < 0:
            break  # no `-->` after this one: none after any later `<!--` either
        found.append((comment, close + 3))
        pos = close + 3
        comment = comment_start(text, pos)
    return [_span(run, text, start, end) for start, end in found]


def _escaped(text: str, at: int) -> bool:
    """Whether an odd number of backslashes comes right before `at`."""
    before = at
    while before > 0 and text[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 1


def _span(run: list[int], text: str, start: int, end: int) -> HiddenSpan:
    """The offsets of a paragraph's text as (line, column) of the file."""
    first_index = text.count("\n", 0, start)
    last_index = first_index + text.count("\n", start, end)
    return HiddenSpan(
        run[first_index],
        start - (text.rfind("\n", 0, start) + 1),
        run[last_index],
        end - (text.rfind("\n", 0, end) + 1),
        COMMENT,
        block=False,
    )


def raw_html(lines: list[str], blocks: tuple[tuple[int, int, int], ...]) -> list[str]:
    """The lines with the text of each HTML block of types 1, 6 and 7 (`<div>`, a tag alone on a line,
    `<pre>`, up to a blank line or its closing tag) kept as the text GitHub shows, which is no markdown:
    a line after the first that starts with punctuation (not `<`: more HTML) or a digit gets a
    backslash before it, so no reader of the lines takes it for a list item, a table's delimiter row
    or another block."""
    out = list(lines)
    for start, end, kind in blocks:
        if kind in (1, 6, 7):
            for number in range(start + 1, end + 1):
                line = out[number - 1]
                text = line.lstrip(" ")
                lead = text[:1]
                if lead and (lead.isdigit() or (lead.isascii() and not lead.isalnum() and lead not in "\\<")):
                    out[number - 1] = line[: len(line) - len(text)] + "\\" + text
    return out


def blanked(lines: tuple[str, ...], spans: tuple[HiddenSpan, ...]) -> list[str]:
    """The lines with every span blanked to spaces (a line left with nothing is empty). The line that
    closes an inline comment spanning lines keeps the indentation the file gave it, no more."""
    out = list(lines)
    # where a comment's close moved the rest of its line, the shift of that line's later columns
    moved: dict[int, int] = {}
    for span in spans:
        for number in range(span.line, span.end_line + 1):
            line = out[number - 1]
            shift = moved.get(number, 0)
            start = span.column + shift if number == span.line else 0
            end = span.end_column + shift if number == span.end_line else len(line)
            if not span.block and number == span.end_line and number != span.line:
                indent = len(line) - len(line.lstrip(" "))
                rest = line[end:].lstrip(" ")
                at = len(line) - len(rest)  # where the rest starts on the line
                kept = min(indent, end)
                escape = "\\" if _BLOCK_START.match(rest) else ""  # paragraph text: it must not start a block
                line = " " * kept + escape + rest if rest else ""
                # a later comment on this line (`a--><!--b-->`) is placed by the file's columns
                moved[number] = shift + kept + len(escape) - at
            else:
                line = line[:start] + " " * (end - start) + line[end:]
                if (
                    not span.block
                    and number == span.line
                    and _starts_block(line)
                    and not _starts_block(lines[number - 1])
                ):
                    # `---<!-- x -->` and "```<!--`-->" are paragraph text in the file; blanked, they
                    # would underline the line before as a heading or open a fence
                    indent = len(line) - len(line.lstrip(" "))
                    line = line[:indent] + "\\" + line[indent:]
                    moved[number] = shift + 1
            out[number - 1] = line if line.strip() else ""
    return out


def shown(document: Document) -> tuple[str, tuple[str, ...]]:
    """The text a judge is shown, and what it is told was removed: the readers' view without the lines
    a reader sees nothing of (hidden text blanked within a line stays blank), and one sentence per
    hidden span and for the disguised tokens, in line numbers of the file."""
    if document.file_lines is None:
        return document.text, ()
    gone = _wholly_hidden(document.hidden, document.file_lines, document.lines)
    text = "\n".join(line for n, line in enumerate(document.lines, 1) if n not in gone)
    if document.text.endswith("\n"):
        text += "\n"
    notes = [_note(span, gone, document.file_lines) for span in document.hidden]
    if document.disguised:
        where = ", ".join(dict.fromkeys(str(t.line) for t in document.disguised))
        notes.append(
            f"invisible characters or look-alike letters inside words on line(s) {where} were replaced "
            "by what a reader sees"
        )
    return text, tuple(notes)


def _note(span: HiddenSpan, gone: set[int], file_lines: tuple[str, ...]) -> str:
    where = f"line {span.line}" if span.line == span.end_line else f"lines {span.line}-{span.end_line}"
    article = "an" if span.kind == COMMENT else "a"
    if all(n in gone or not file_lines[n - 1].strip() for n in range(span.line, span.end_line + 1)):
        verb = "was" if span.line == span.end_line else "were"
        return f"{where} {verb} inside {article} {span.kind} and {'is' if verb == 'was' else 'are'} not shown"
    return f"part of {where} was inside {article} {span.kind} and is not shown"


def _wholly_hidden(
    spans: tuple[HiddenSpan, ...], file_lines: tuple[str, ...], lines: tuple[str, ...]
) -> set[int]:
    """The lines that held text and are blank once the spans are hidden."""
    return {
        n
        for span in spans
        for n in range(span.line, span.end_line + 1)
        if file_lines[n - 1].strip() and not lines[n - 1].strip()
    }
