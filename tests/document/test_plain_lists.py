"""`plain_lists` reads flat lists without markdown-it-py; wherever it answers, it must answer exactly
what markdown-it-py's block parse gives (items, their text, their line spans, where one list ends and
the next begins), and it must hand anything else back (None)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalgate.document import blocks as markdown_blocks
from evalgate.document import read_document
from evalgate.document.blocks import Blocks, parse_region, plain_lists


def markdown_it_lists(lines: tuple[str, ...], first: int, last: int) -> Blocks:
    """The same region through markdown-it-py only."""
    saved = markdown_blocks.plain_lists
    markdown_blocks.plain_lists = lambda *_: None  # type: ignore[assignment]
    try:
        return parse_region(lines, first, last)
    finally:
        markdown_blocks.plain_lists = saved  # type: ignore[assignment]


def both(text: str) -> tuple[Blocks | None, Blocks]:
    lines = tuple(text.split("\n"))
    return plain_lists(lines, 1, len(lines)), markdown_it_lists(lines, 1, len(lines))


def items(blocks: Blocks) -> list[list[tuple[int, int, str, bool, bool | None]]]:
    return [[(i.line, i.end_line, i.text, i.ordered, i.checked) for i in lst] for lst in blocks.lists]


def test_items_text_and_spans() -> None:
    text = "Intro line\n\n- [x] first  item\n  wrapped here\n- [ ] second\nlazy line\n\n\n- third\n"
    fast, slow = both(text)
    assert fast is not None and fast == slow
    assert items(fast) == [
        [
            (3, 4, "first item wrapped here", False, True),
            (5, 8, "second lazy line", False, False),  # the blank lines belong to the item before
            (9, 10, "third", False, None),
        ]
    ]


def test_a_new_marker_kind_starts_a_new_list() -> None:
    fast, slow = both("1. one\n2) two\n- three\n* four\n")
    assert fast is not None and fast == slow
    assert [[i.text for i in lst] for lst in fast.lists] == [["one"], ["two"], ["three"], ["four"]]
    assert [lst[0].ordered for lst in fast.lists] == [True, True, False, False]


def test_a_paragraph_after_a_blank_line_ends_the_list_and_a_rule_too() -> None:
    fast, slow = both("- a\n\nplain paragraph\n- b\n\n---\n\n- c\n\n- - -\n")
    assert fast is not None and fast == slow
    assert [[(i.line, i.end_line) for i in lst] for lst in fast.lists] == [[(1, 2)], [(4, 5)], [(8, 9)]]


def test_a_second_paragraph_indented_to_the_item_text_stays_in_the_item() -> None:
    fast, slow = both("10. first\n\n    still first\n11. next\n")
    assert fast is not None and fast == slow
    assert [i.text for i in fast.lists[0]] == ["first still first", "next"]


def test_a_list_nested_in_an_item_adds_nothing_to_its_text() -> None:
    text = "8. **Four types:**\n   - *Type 1*: assists\n   - *Type 2*: builds\nlazy\n9. next\n"
    fast, slow = both(text)
    assert fast is not None and fast == slow
    assert items(fast) == [[(1, 4, "**Four types:**", True, None), (5, 6, "next", True, None)]]


def test_an_item_that_is_a_list_reads_as_its_first_paragraph() -> None:
    fast, slow = both("- 1. [inference] one\n  wrapped\n- 2. [x] two\n")
    assert fast is not None and fast == slow
    assert items(fast) == [[(1, 2, "[inference] one wrapped", False, None), (3, 4, "two", False, True)]]


def test_a_heading_ends_the_list() -> None:
    fast, slow = both("- [x] read\n### Identified but not consulted\n\n- [ ] unread\n")
    assert fast is not None and fast == slow
    assert items(fast) == [[(1, 1, "read", False, True)], [(4, 5, "unread", False, False)]]


def test_the_corpus_is_read_without_markdown_it(corpus_dir: Path) -> None:
    """Every Key Findings and Sources section of the corpus is plain enough: reading it all never
    imports markdown-it-py (16 ms in each worker)."""
    script = (
        "import sys; from pathlib import Path; from evalgate.document import read_document\n"
        f"for path in sorted(Path({str(corpus_dir)!r}).glob('*.md')): read_document(path)\n"
        "print('markdown_it' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"]


@pytest.mark.parametrize(
    "text",
    [
        "- a\n  - nested\n    - deeper\n",  # a list nested two deep
        "- a\n  - nested\n\n  - loose\n",  # a loose nested list
        "- a\n  - nested\n\n  text\n",  # the item's text after its nested list
        "- a\n   1. b\n  2. c\n",  # nested items at two indentations
        "- a\n\n      code in the item\n",  # indented code
        "- a\n```\nfence\n```\n",
        "- a\n ## indented heading\n",
        "- a\n> quote\n",
        "-\n- b\n",  # an empty item
        "Para\n2. not a list in CommonMark\n",
        "- a\n\tx\n",
        "<div>\n- a\n",
        "- a\n---\n",  # setext underline or rule: markdown-it-py decides
    ],
)
def test_anything_but_plain_lists_goes_to_markdown_it(text: str) -> None:
    assert both(text)[0] is None


LINES = st.sampled_from(
    [
        "",
        "   ",
        "- a b",
        "* c",
        "+ d",
        "- [x] t",
        "- [ ] u",
        "1. e",
        "1) f",
        "2. g",
        "10. h",
        "-  two spaces",
        "1.     five spaces",
        "  cont",
        "   three",
        "    four",
        "      six",
        "text",
        "---",
        "***",
        "___",
        "- - -",
        "# h",
        "> q",
        "```",
        "  - nested",
        "   3. x",
        "-",
        "1.",
        "\tx",
        "<div>",
        "===",
        "_emph_",
        "**bold**",
        "*italic*",
        "-based word",
        "| a | b |",
        "`code` x",
        "- `code` y",
        "1. ``c`` z",
        "#tag",
        "- #tag",
        "~x",
        "```",
        "~~~",
        "- ```",
        "  ``` ",
        "# Sub",
        "### Sub",
        "#######",
        "  - [ ] n",
        "  - o",
        "   - p",
        "   * q",
        "   1. r",
        "   2) s",
        "    - t",
        "     - u",
        "  1. v",
        "- 1. w",
        "- 2. y",
        "1. - z",
        "* 3) aa",
        "- - bb",
        "- 1.     cc",
    ]
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=12))
@example(["- a b", "", "      six"])  # indented code inside the item (text indent + 4)
@example(["- a b", "", "    four"])  # a second paragraph (text indent + 2)
@example(["1.     five spaces", "", "      six"])
@example(["10. h", "", "   three"])  # under the item's text indent: not part of it
@example(["text", "2. g"])  # an ordered item other than 1 cannot interrupt a paragraph
@example(["- a b", "---"])
@example(["- a b", "", "---", "* c"])
def test_plain_lists_equals_markdown_it_wherever_it_answers(lines: list[str]) -> None:
    region = tuple(lines)
    fast = plain_lists(region, 1, len(region))
    if fast is not None:
        assert fast == markdown_it_lists(region, 1, len(region))


def test_corpus_sections_read_the_same_by_both(corpus_dir: Path) -> None:
    """Every section's own lines in all 453 items: where plain_lists answers, markdown-it-py agrees;
    and it answers for nearly every Key Findings and Sources section (the ones parsed for checks)."""
    answered = compared = checked_regions = 0
    for path in sorted(corpus_dir.glob("*.md")):
        doc = read_document(path)
        for section in doc.sections:
            first, last = section.line + 1, doc.own_end(section)
            if last < first:
                continue
            fast = plain_lists(doc.lines, first, last)
            if fast is not None:
                compared += 1
                assert fast == markdown_it_lists(doc.lines, first, last), (path.name, section.line)
            if section in (doc.sources_section, doc.key_findings_section):
                checked_regions += 1
                answered += fast is not None
            if section == doc.sources_section and section.end_line > last:  # read with its subsections
                whole = plain_lists(doc.lines, first, section.end_line)
                assert whole is not None, (path.name, section.line)
                assert whole == markdown_it_lists(doc.lines, first, section.end_line), (
                    path.name,
                    section.line,
                )
    assert compared > 10_000
    assert answered / checked_regions > 0.95


# `_ITEM` finds an item's marker and, in the same match, whether its text starts a block; the plain
# form is the marker alone, then `_NOT_PLAIN` where its text starts.
MARKER_ONLY = re.compile(r"(?:[-+*]|(\d{1,9})([.)])) {1,4}(?=\S)")


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.sampled_from(["-", "*", "+", "1", "12", ".", ")", " ", "\t", "#", "`", "~", "<", "=", "_", "x"]),
        max_size=10,
    ).map("".join)
)
@example("- - - -")
@example("1. # h")
@example("-  * * *")
@example("- _ _ _")  # a thematic break only the back-reference finds
def test_item_and_block_in_one_match_is_the_two_matches(line: str) -> None:
    fused, marker = markdown_blocks._ITEM.match(line), MARKER_ONLY.match(line)
    assert (fused is None) == (marker is None)
    if fused is not None and marker is not None:
        assert fused.group(1, 2) == marker.group(1, 2)
        blocked = markdown_blocks._NOT_PLAIN.match(line, marker.end()) is not None
        assert (fused.group("block") is not None) == blocked
        assert blocked or fused.end() == marker.end()


@settings(max_examples=2000, deadline=None)
@given(st.text(st.sampled_from(" #>`~|x\t"), min_size=1, max_size=8))
def test_ends_table_is_the_pattern(line: str) -> None:
    assert markdown_blocks.ends_table(line) == (markdown_blocks._TABLE_END.match(line) is not None)
