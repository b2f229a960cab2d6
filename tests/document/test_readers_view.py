"""The readers' view: the checks and the judge read a document as a reader of the rendered file does.
HTML comments and link reference definitions are hidden, invisible characters and look-alike letters
inside words are found and read as shown, and every line keeps its number."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from evalgate.checks import run_check
from evalgate.document import parse_document, shown
from evalgate.document.disguise import _REFERENCE, may_refer
from evalgate.judging.prompt import render_judge_prompt
from evalgate.rubric import load_rubric
from tests.checks.research_item import research_item


def _blank_page() -> str:
    """A complete item, every line after the title inside one comment: renders as one sentence."""
    head, body = research_item().split("\n# ", 1)
    title, body = body.split("\n", 1)
    return f"{head}\n# {title}\n\nThis page intentionally left blank.\n\n<!--\n{body}\n-->\n"


def test_sections_inside_a_comment_are_not_there() -> None:
    document = parse_document(_blank_page())
    assert [s.title for s in document.sections] == [document.sections[0].title]
    result = run_check("section_presence", document)
    assert result.score == 1
    assert any("missing required section ## Findings" in f.message for f in result.findings)
    # the same item without the comment is complete
    assert run_check("section_presence", parse_document(research_item())).score == 5


def test_a_comment_inside_a_section_leaves_it_empty_and_lines_keep_their_numbers() -> None:
    text = "# T\n\n## Scope\n\n<!-- the scope\nis secret -->\n\n## Context\n\nVisible.\n"
    document = parse_document(text)
    assert len(document.lines) == len(text.splitlines())
    assert document.lines[4:6] == ("", "")  # the comment's lines, blank
    assert document.file_line(5) == "<!-- the scope"
    scope = document.find_section("scope")
    assert scope is not None and scope.line == 3
    context = document.find_section("context")
    assert context is not None and context.line == 8  # the file's line
    assert document.altered_lines == frozenset({5, 6})


def test_inline_comments_code_spans_and_escapes() -> None:
    text = (
        "# T\n\n"
        "Words <!-- hidden words --> shown.\n\n"
        "`<!-- code -->` and \\<!-- escaped --> stay.\n\n"
        "A paragraph <!-- that\nspans --> lines.\n\n"
        "An unclosed <!-- comment is text\n\n## H\n\n-->\n"
    )
    lines = parse_document(text).lines
    assert "hidden" not in lines[2] and lines[2].startswith("Words ") and lines[2].endswith(" shown.")
    assert lines[4] == "`<!-- code -->` and \\<!-- escaped --> stay."
    assert lines[6] == "A paragraph" + " " * (len("A paragraph <!-- that") - len("A paragraph"))
    assert lines[7] == "lines."
    assert lines[9] == "An unclosed <!-- comment is text"  # not closed within its paragraph


def test_a_comment_block_hides_a_fence_and_headings_inside_it() -> None:
    text = "# T\n\n<!--\n```\n## Inside\n-->\n\n## After\n\n```\ncode\n```\n"
    document = parse_document(text)
    assert [s.title for s in document.sections] == ["T", "After"]
    assert document.code_blocks == ((10, 12),)


def test_reference_definitions_are_hidden() -> None:
    text = '# T\n\n## Scope\n\n[scope]: https://example.org "Our scope is everything in this title"\n'
    document = parse_document(text)
    assert document.lines[4] == ""
    result = run_check("section_presence", document)
    assert any("## Scope is empty" in f.message for f in result.findings)


def test_a_reference_definition_with_its_title_on_the_next_line_is_hidden() -> None:
    document = parse_document("# T\n\n[a]: https://x.org/x\n  'GPU title'\n\nSee [a].\n")
    assert document.lines[2:4] == ("", "")
    assert run_check("acronym_expansion", document).findings == ()


def test_details_hidden_attributes_and_style_do_not_hide() -> None:
    # GitHub folds <details> (a click opens it) and strips `hidden` and `style`: the text shows
    text = "# T\n\n<details><summary>More</summary>\n\nShown.\n\n</details>\n<div hidden>Also shown.</div>\n"
    document = parse_document(text)
    assert document.lines == tuple(text.splitlines()) and document.hidden == ()


def test_the_judge_sees_the_readers_view_and_is_told_what_was_removed() -> None:
    text = _blank_page().replace("intentionally left blank.", "intentionally left <!-- x --> blank.")
    document = parse_document(text)
    rendered = render_judge_prompt(load_rubric("research-loop"), document, seed=0)
    prompt = rendered.text
    shown_document = prompt.split(f"BEGIN {rendered.fence}\n", 1)[1].split(f"END {rendered.fence}", 1)[0]
    assert "## Findings" not in shown_document and "Key Findings" not in shown_document
    assert "This page intentionally left" in shown_document
    lines = text.splitlines()
    start, title = lines.index("<!--") + 1, lines.index("This page intentionally left <!-- x --> blank.") + 1
    assert f"lines {start}-{len(lines)} were inside an HTML comment and are not shown" in prompt
    assert f"part of line {title} was inside an HTML comment and is not shown" in prompt
    # the notes are said once, after the sentence that names the fence lines (which stays whole)
    assert prompt.count("Not shown, because") == 1
    assert f"It lies between the line `BEGIN {rendered.fence}` and the line `END {rendered.fence}`;" in prompt
    # a document with nothing hidden is shown as it is, with no note
    plain = parse_document(research_item())
    assert shown(plain) == (plain.text, ())
    assert "Not shown, because" not in render_judge_prompt(load_rubric("research-loop"), plain, seed=0).text


def test_invisible_characters_and_look_alikes_inside_an_acronym() -> None:
    for disguised, character in (
        ("L\u200bLM", "U+200B ZERO WIDTH SPACE"),
        ("L\u2060LM", "U+2060 WORD JOINER"),
        ("L\u00adLM", "U+00AD SOFT HYPHEN"),
        ("L\u200cLM", "U+200C ZERO WIDTH NON-JOINER"),
        ("\ufeffL\u202eLM", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("\u0410PI", "U+0410 CYRILLIC CAPITAL LETTER A"),
    ):
        reads = "API" if "PI" in disguised else "LLM"
        text = f"# T\n\nThe {disguised} answered.\n"
        document = parse_document(text)
        assert document.lines[2] == f"The {reads} answered.", disguised
        (token,) = document.disguised
        assert token.line == 3 and token.reads == reads and character in token.characters
        result = run_check("acronym_expansion", document)
        messages = [f.message for f in result.findings]
        assert result.score <= 2, messages
        assert any(f"{reads} used without expansion" in m for m in messages), messages
        assert any("<U+" in m and f'"{reads}" holds' in m for m in messages), messages


@pytest.mark.parametrize(
    ("written", "character"),
    [
        ("LL&#x200b;M", "U+200B ZERO WIDTH SPACE"),  # renders as LLM with an invisible character inside
        ("L&#8203;LM", "U+200B ZERO WIDTH SPACE"),
        ("L&ZeroWidthSpace;LM", "U+200B ZERO WIDTH SPACE"),
        ("L&shy;LM", "U+00AD SOFT HYPHEN"),
        ("&Alpha;PI", "U+0391 GREEK CAPITAL LETTER ALPHA"),
        ("L&#76;M", None),  # a plain letter written as a reference: read as LLM, nothing hidden
    ],
)
def test_a_character_reference_inside_an_acronym_is_read_as_rendered(
    written: str, character: str | None
) -> None:
    reads = "API" if "PI" in written else "LLM"
    document = parse_document(f"# T\n\nThe {written} answered.\n")
    assert document.lines[2] == f"The {reads} answered.", written
    assert [t.characters for t in document.disguised] == ([(character,)] if character else [])
    messages = [f.message for f in run_check("acronym_expansion", document).findings]
    assert any(f"{reads} used without expansion" in m for m in messages), messages


def test_character_references_elsewhere_are_left_as_written() -> None:
    text = "# T\n\nAT&amp;T and R&D and caf&eacute; and `LL&#x200b;M` and &nbsp;x.\n\n```\nL&#8203;LM\n```\n"
    document = parse_document(text)
    assert document.lines[2] == "AT&amp;T and R&D and café and `LL&#x200b;M` and &nbsp;x."
    assert document.lines[5] == "L&#8203;LM" and document.disguised == ()


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["&", ";", "#", "x", "20", "B", "amp", "&#x200b;", "&amp;", " ", "é"]), max_size=12
    )
)
def test_may_refer_is_the_search_it_stands_for(pieces: list[str]) -> None:
    text = "".join(pieces)
    plain = "&" in text and ";" in text and _REFERENCE.search(text) is not None
    assert may_refer(text) == plain


def test_an_expanded_acronym_with_a_zero_width_space_is_matched_and_still_flagged() -> None:
    document = parse_document("# T\n\nA Large Language Model (L\u200bLM) helps. The LLM is fast.\n")
    result = run_check("acronym_expansion", document)
    messages = [f.message for f in result.findings]
    assert not any("without expansion" in m for m in messages), messages
    (message,) = messages
    assert "(L<U+200B>LM)" in message and '"LLM" holds an invisible character' in message
    assert result.score == 2


def test_writing_that_needs_joiners_is_no_finding() -> None:
    emoji = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # a family: joined by U+200D
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # a word with U+200C inside
    text = f"# T\n\nFamily {emoji} and {persian}.\n"
    moscow = "\u041c\u043e\u0441\u043a\u0432\u0430"
    text += f"Symbols: \u03b1 = 0.5, \u03bb-scaling, CoS_\u03bb, \u03a3 p(x). {moscow} is a city.\n"
    assert parse_document(text).disguised == ()


def _rendered_without_comments(markdown: str, *, html: bool = True) -> str:
    """The characters a reader is shown. With `html` off every `<!--` is text: in the readers' view
    the comments are blanked already, and a `<!--` left there is one the reader sees (re-rendering it
    with HTML on could pair it with a later `-->` that the file's rendering had shown as text)."""
    import re

    rendered = MarkdownIt("commonmark", {"html": html}).render(markdown)
    rendered = re.sub(r"<!--.*?-->", "", rendered, flags=re.S)
    rendered = re.sub(r"<!--.*", "", rendered, flags=re.S)  # unclosed: HTML hides the rest
    from html import unescape

    # the letters and digits shown: punctuation may differ where the file's text after a comment block
    # is raw HTML (`\\` stays a backslash there) and the view's is markdown (`\\` escapes)
    return "".join(re.findall(r"\w", unescape(re.sub(r"<br />|<[^>]+>", "", rendered))))


PIECES = st.sampled_from(["a", "b c", "<!--a", "a-->", "`", "``", "\\", "\n", "\n\n", "## h\n", " "])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=16).map("".join))
@example("a<!--a\naa--><!--aa-->")  # a second comment on the line where one spanning lines closes
@example("a<!--\n--><!--## h--> b <!--c-->")
@example("<!--aa--><!--a\na-->a")  # a comment opened by raw HTML: markdown text's `-->` does not close it
@example("<!--aa--><!--a\na<!--aa--><!--a")  # raw HTML's `-->` does; an unclosed inline `<!--` is text
@example("`\n```<!--aa-->`")  # three backticks with one after them open no fence: a code span holds it
@example("a<!--a\n```a-->`")  # ... nor end the paragraph a comment spans
@example("<!--aa--><!--a\n`<!--aa-->a`")  # a code span's `-->` is text: it closes nothing
@example("<!--aa--><!--a\n`<!--aa-->a")  # an unclosed backtick is text: the comment is raw HTML
@example("<!--aa--><!--a\n`<!--aa-->\na`")  # a code span closed on the next line holds it
def test_hidden_text_is_what_commonmark_renders_as_a_comment(body: str) -> None:
    """The readers' view, rendered, shows the same words as the file rendered with its comments
    removed (markdown-it-py, CommonMark): what is blanked is exactly what a reader never sees."""
    text = "# T\n\n" + body + "\n"
    document = parse_document(text)
    assert len(document.lines) == len(text.splitlines())
    assert _rendered_without_comments("\n".join(document.lines), html=False) == _rendered_without_comments(
        text
    )


@pytest.mark.parametrize(
    ("line", "shown"),
    [("---<!-- x -->", "---"), ("===<!-- x -->", "==="), ("```<!--`-->", "```")],
)
def test_a_blanked_comment_never_turns_paragraph_text_into_a_block(line: str, shown: str) -> None:
    """`Key Findings` above `---<!-- x -->` is one paragraph to a reader (the comment keeps the
    underline from being one); blanked, the line must not make a heading of it, nor open a fence."""
    text = f"# T\n\nKey Findings\n{line}\n\n## Later\n\nText.\n"
    document = parse_document(text)
    assert [s.title for s in document.sections] == ["T", "Later"]
    assert _rendered_without_comments("\n".join(document.lines), html=False) == _rendered_without_comments(
        text
    )
    assert shown in MarkdownIt("commonmark").render(text)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # raw HTML after a comment block opens a comment only raw HTML closes: markdown's `-->` is text
        ("<!-- a --><!--\n-->\n## Findings\n", ["", "", ""]),
        ("<!-- a --><!--\n-->\n<!-- b -->\n## Findings\n", ["", "", "", "## Findings"]),
        ("<!-- a --><!--\ntext <!-- b --> c\n## Findings\n", ["", "c", "## Findings"]),
        ("<!-- a --><!--\n`<!-- b -->`\n## Findings\n", ["", "", ""]),  # code: text, not HTML
    ],
)
def test_a_comment_opened_by_raw_html_runs_until_raw_html_closes_it(text: str, shown: list[str]) -> None:
    document = parse_document("# T\n\n" + text)
    assert [line.strip() for line in document.lines[2:]] == shown
    assert [s.title for s in document.sections] == ["T"] + (["Findings"] if shown[-1] else [])


@pytest.mark.parametrize(
    ("opener", "closer", "hidden"),
    [
        ("<div>", "</div>", False),  # raw HTML up to a blank line: GitHub shows its text, no markdown
        ('<span class="x">', "</span>", False),
        ("<pre>", "</pre>", False),
        ("<![CDATA[", "]]>", True),  # browsers (and GitHub's sanitizer) read these as comments
        ("<?review", "?>", True),
        ("<!NOTE", "end >", True),
    ],
)
def test_markdown_inside_an_html_block_is_no_section_list_or_table(
    opener: str, closer: str, hidden: bool
) -> None:
    findings = research_item().split("## Findings\n", 1)[1].split("\n## Output", 1)[0]
    packed = "\n".join(line for line in findings.splitlines() if line.strip())  # no blank line ends it
    text = research_item().replace(findings, f"\n{opener}\n{packed}\n{closer}\n")
    document = parse_document(text)
    titles = [s.title for s in document.sections]
    assert "Key Findings" not in titles and "Evidence Map" not in titles
    assert document.key_findings == () and document.evidence_map is None
    assert run_check("section_presence", document).score <= 2
    assert bool(document.hidden) is hidden
    if hidden:
        notes = shown(document)[1]
        assert any("inside a piece of HTML that browsers read as a comment" in note for note in notes), notes


def test_html_blocks_end_where_commonmark_ends_them() -> None:
    after = "## Heading: a tag alone interrupts no paragraph"
    text = f"# T\n\n<div>\n## Inside\n\n## After\n\ntext\n<span>\n{after}\n"
    assert [s.title for s in parse_document(text).sections] == ["T", "After", after[3:]]
