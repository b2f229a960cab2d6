"""The line scan finds the headings markdown-it-py finds, on generated documents made of the lines
research items are made of: ATX and setext headings, `#tag` text, numbered and bulleted items (a
numbered item not starting at 1 cannot interrupt a paragraph), prose, indented lines, fences and
thematic breaks. Two things the scan does not model are left out: block quotes (whose lazy
continuation lines can never end in a setext heading) and pipe lines that are no table (the scan
takes every `|` line for a table row); the corpus test in test_document.py holds the scan to
markdown-it-py on all 453 real items."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.document.scan import closes_fence, scan_lines

PIECES = ["# Head", "## Two #", "#tag", "1. item", "12) item", "2026 was good", "2. x", "text", "", "- a"]
PIECES += ["* b", "    code", "  - nested", "```", "~~~", "---", "===", "**bold**", "* * *", "- - -", "___"]
LINES = st.sampled_from(PIECES)


def markdown_it_headings(text: str) -> list[tuple[int, int]]:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").disable(["inline", "text_join"])
    return [(t.map[0] + 1, int(t.tag[1])) for t in md.parse(text) if t.type == "heading_open" and t.map]


@settings(max_examples=3000, deadline=None)
@given(st.lists(LINES, max_size=12))
@example(["---", "---"])  # a thematic break is no paragraph: the second is no setext underline
@example(["#tag", "---"])  # `#tag` is paragraph text, so this is a heading
@example(["===", "#tag", "---"])  # a setext heading starts at its paragraph's first line
@example(["text", "    more", "---"])  # an indented line continues a paragraph
@example(["text", "12) item", "---"])  # a numbered item not at 1 does not interrupt a paragraph
@example(["1. item", "```", "```", "#tag", "---"])  # a fence at the margin ends a list
@example(["1. item", "---", "#tag", "---"])  # so does a thematic break
def test_headings_are_markdown_it_s(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    assert [(n, level) for n, level, _ in scan_lines(tuple(lines)).headings] == markdown_it_headings(text)


def test_a_setext_heading_s_title_is_its_whole_paragraph() -> None:
    (heading,) = scan_lines(("Two line", "*title*", "---")).headings
    assert heading == (1, 2, "Two line title")


# The scan's shortcuts for common lines against its general path, which every line can take.
SHORTCUT_PIECES = [*PIECES, "-  -  -", "*\t*\t*", "- -", "-  x", "+ + +", "  - x", "   * y", "    - z"]
SHORTCUT_PIECES += ["  -  -  -", "  - - -", " * * *", "  + z", " -x", "  -", "  - ", "  - \u00a0", "  1. x"]
SHORTCUT_PIECES += ["  ```", "```  ", "````", "~~~~~", "``` x`", "text", "[link](x)", "**b**", "| a |"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(SHORTCUT_PIECES), max_size=14), st.integers(1, 3))
@example(["-  -  -", "Title", "---"], 1)  # a thematic break with wide gaps ends the list
@example(["  - x", "Title", "---"], 1)
@example(["text", "  - \u00a0", "---"], 1)  # an empty item is paragraph text
@example(["text", "  - ", "---"], 1)
def test_the_shortcuts_do_what_the_general_path_does(lines: list[str], first: int) -> None:
    assert scan_lines(tuple(lines), first) == scan_lines(tuple(lines), first, shortcuts=False)


def closes_fence_plainly(line: str, char: str, length: int) -> bool:
    stripped = line.strip()
    closing = stripped and set(stripped) == {char} and len(stripped) >= length
    return bool(closing) and len(line) - len(line.lstrip(" ")) < 4


@settings(max_examples=2000, deadline=None)
@given(st.text(st.sampled_from("`~ \tx\u00a0"), max_size=10), st.sampled_from("`~"), st.integers(3, 5))
@example("  ```` ", "`", 3)
@example("```x", "`", 3)
@example("    ```", "`", 3)  # indented four: code, not a closing fence
def test_closes_fence_is_the_plain_rule(line: str, char: str, length: int) -> None:
    assert closes_fence(line, char, length) == closes_fence_plainly(line, char, length)


# CommonMark's HTML blocks (types 1 and 3-7), in which no line is a heading: a `<div>` or a tag alone
# on a line runs to a blank line (a tag alone cannot interrupt a paragraph), `<pre>`, `<?`, `<!X` and
# `<![CDATA[` to their end marks. At the margin (an HTML block inside a list item is not modelled,
# as the items' content indentation is not).
HTML_PIECES = [*PIECES, "<div>", "</div>", '<span class="x">', "</span>", "<pre>", "</pre>", "<?x", "?>"]
HTML_PIECES += ["<![CDATA[", "]]>", "<!DOCTYPE x", "x >", "<div>## h"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(HTML_PIECES), max_size=12))
@example(["<div>", "## Key Findings"])  # raw HTML up to a blank line: a reader sees text, no heading
@example(["text", "<span>", "# Head"])  # a tag alone does not interrupt a paragraph: this is a heading
@example(["<![CDATA[", "# Head", "]]>", "# Head"])
def test_headings_inside_html_blocks_are_markdown_it_s(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    assert [(n, level) for n, level, _ in scan_lines(tuple(lines)).headings] == markdown_it_headings(text)
