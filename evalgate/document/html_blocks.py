"""CommonMark's HTML blocks other than comments, and code spans, for the line scan (evalgate.document.scan).

An HTML block's lines are raw HTML: no heading, list, table or fence is read in them, and GitHub shows
their text as it is (types 1, 6 and 7: `<pre>`, `<div>` and the other block tags, a tag alone on a
line) or nothing at all (types 3-5: `<?...?>`, `<!X...>`, `<![CDATA[...]]>`, which an HTML parser, a
browser's or GitHub's sanitizer's, reads as comments). Types 6 and 7 end at a blank line, 7 cannot
interrupt a paragraph, the others end at their closing mark (CommonMark 0.31, section 4.6).
"""

from __future__ import annotations

import bisect
import re

# The start of each type's first line, and the end of types 1 and 3-5. Each part of a pattern is
# followed by what it cannot hold, so the match is linear.
_HTML_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|"
    "hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|"
    "section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_ATTRIBUTE = r"""(?:[ \t]++[A-Za-z_:][\w.:-]*+(?:[ \t]*+=[ \t]*+(?:[^\s"'=<>`]++|'[^']*+'|"[^"]*+"))?+)"""
_HTML_START = (
    (1, re.compile(r"<(?:script|pre|style|textarea)(?:[ \t>]|$)", re.I)),
    (5, re.compile(r"<!\[CDATA\[")),
    (4, re.compile(r"<![A-Za-z]")),
    (3, re.compile(r"<\?")),
    (6, re.compile(rf"</?(?:{_HTML_TAGS})(?:[ \t]|/?>|$)", re.I)),
    (
        7,
        re.compile(
            rf"(?:<[A-Za-z][A-Za-z0-9-]*+{_ATTRIBUTE}*+[ \t]*+/?>|</[A-Za-z][A-Za-z0-9-]*+[ \t]*+>)[ \t]*$"
        ),
    ),
)
HTML_END = {
    1: re.compile(r"</(?:script|pre|style|textarea)>", re.I),
    3: re.compile(r"\?>"),
    4: re.compile(r">"),
    5: re.compile(r"\]\]>"),
}


def html_start(text: str, in_paragraph: bool) -> int | None:
    """The type of the HTML block `text` (a line without its indentation) starts, or None."""
    for kind, pattern in _HTML_START:
        if pattern.match(text) and not (kind == 7 and in_paragraph):
            return kind
    return None


_TICKS = re.compile(r"`+")


def paragraph(lines: tuple[str, ...], number: int) -> str:
    """Line `number` and the lines after it up to a blank one, joined: where a code span may close."""
    end = number
    while end < len(lines) and lines[end].strip():
        end += 1
    return "\n".join(lines[number - 1 : end])


def code_spans(text: str) -> list[tuple[int, int]]:
    """The code spans of `text` as (start, end) offsets, in order (CommonMark: a run of backticks opens
    one that the next run of the same length closes; an unclosed run is text). Linear: each opener's
    closer is found by bisection among the runs of its length."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        after = bisect.bisect_right(same, index)
        if after == len(same):
            index += 1  # unclosed: text
            continue
        closer = same[after]
        spans.append((start, runs[closer][1]))
        index = closer + 1
    return spans


def in_code_span(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether offset `at` falls inside one of the (ordered) code spans."""
    found = bisect.bisect_right(spans, (at, 1 << 62)) - 1
    return found >= 0 and spans[found][0] < at < spans[found][1]
