"""Property tests: parse_document never raises and its line numbers stay inside the document."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.checks import run_check
from evalgate.document import parse_document
from evalgate.results import Status

# the research-loop rubric's structural checks, each scored 1-5 (other rubrics' checks use other scales)
STRUCTURAL = (
    "section_presence",
    "evidence_map_coverage",
    "key_finding_word_count",
    "source_consultation",
    "acronym_expansion",
)
MARKDOWNISH = st.lists(
    st.sampled_from(
        [
            "---",
            "# T",
            "## Findings",
            "### Key Findings",
            "### Evidence Map",
            "## Sources",
            "1. a claim",
            "2) b",
            "- [x] [s](https://x.y)",
            "- [ ] z",
            "| a | b |",
            "|---|---|",
            "```",
            "~~~",
            "    code",
            "",
            "  ",
            "title: x",
            "a: &a [1]",
            "b: *a",
            "Text.\r",
            "\ufeff",
            "===",
            "* * *",
            "> quote",
        ]
    )
    | st.text(max_size=40),
    max_size=40,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=400), MARKDOWNISH))
def test_parse_never_raises_and_lines_are_in_range(text: str) -> None:
    doc = parse_document(text)
    n = len(doc.lines)
    for s in doc.sections:
        assert 1 <= s.line <= s.end_line <= n
    for first, last in doc.code_blocks:
        assert 1 <= first <= last <= n
    for kf in doc.key_findings:
        assert 1 <= kf.line <= kf.end_line <= n
    for s in doc.sections:  # own content: up to the first subsection, found by bisection
        inner = [o.line for o in doc.sections if s.line < o.line <= s.end_line]
        assert doc.own_end(s) == (inner[0] - 1 if inner else s.end_line)


@settings(max_examples=150, deadline=None)
@given(MARKDOWNISH)
def test_checks_score_any_text(text: str) -> None:
    doc = parse_document(text)
    for name in STRUCTURAL:
        result = run_check(name, doc)
        assert result.status is Status.SCORED, result.error
        assert result.score is not None and 1 <= result.score <= 5


@settings(max_examples=150, deadline=None)
@given(MARKDOWNISH)
def test_crlf_never_moves_a_heading(text: str) -> None:
    text = text.replace("\r", "")
    plain, crlf = parse_document(text), parse_document(text.replace("\n", "\r\n"))
    assert [(s.line, s.title) for s in crlf.sections] == [(s.line, s.title) for s in plain.sections]
