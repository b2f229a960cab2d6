"""Evidence quotes: found despite re-typing (quotes, dashes, emphasis, wrapping, case), located by
line, and flagged when the document does not contain them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgate.document import parse_document
from evalgate.judging.evidence import normalise, verify_quotes

DOCUMENT = """---
title: Caching study
---
# Does caching halve CI time?

## Executive Summary

Caching the **dependency layer** cuts median CI time
from 9 to 4 minutes — a “55% saving” on `main` [fact].

- Cold builds still take 9–10 minutes [inference].
"""


def only(quote: str) -> tuple[bool, int | None]:
    (evidence,) = verify_quotes(DOCUMENT, [quote])
    assert evidence.quote == quote
    return evidence.verified, evidence.line


def test_exact_quote_with_line() -> None:
    assert only("Caching the **dependency layer** cuts median CI time") == (True, 8)


def test_retyped_quote_is_verified() -> None:
    # emphasis dropped, line break joined, em dash as hyphen, curly quotes as straight, code marks gone
    assert only(
        'caching the dependency layer cuts median CI time from 9 to 4 minutes - a "55% saving" on main'
    )[0]
    assert only("Cold builds still take 9-10 minutes") == (True, 11)
    assert only("“Cold builds still take 9–10 minutes.”") == (True, 11)


def test_quote_spanning_lines_reports_its_first_line() -> None:
    assert only("median CI time from 9 to 4") == (True, 8)
    assert only("from 9 to 4 minutes") == (True, 9)


def test_ellipsis_matches_parts_in_order() -> None:
    assert only("Caching the dependency layer ... 55% saving") == (True, 8)
    assert only("Caching the … [fact]") == (True, 8)
    assert only("Caching … [fact]") == (True, 2)  # the earliest "caching" (front matter) starts it
    assert only("Caching the dependency layer [...] on main") == (True, 8)
    assert only("55% saving ... Caching the dependency layer") == (False, None)


def test_invented_or_paraphrased_quote_is_flagged() -> None:
    assert only("Caching halves CI time") == (False, None)
    assert only("cuts mean CI time") == (False, None)
    assert only("") == (False, None)
    assert only("...") == (False, None)


def test_many_quotes_keep_order() -> None:
    results = verify_quotes(DOCUMENT, ["[inference]", "not here", "Executive Summary"])
    assert [(e.verified, e.line) for e in results] == [(True, 11), (False, None), (True, 6)]


def test_normalise_tracks_lines_and_collapses_whitespace() -> None:
    n = normalise("A  *b*\n\n\tC—D\n")
    assert n.text == "a b c-d"
    assert [n.line_at(i) for i in range(len(n.text))] == [1, 1, 1, 3, 3, 3, 3]  # "a b" line 1, " c-d" 3


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n"), max_size=40),
        min_size=1,
        max_size=8,
    ),
    st.data(),
)
def test_any_stretch_of_a_line_is_found_at_or_before_its_line(lines: list[str], data: st.DataObject) -> None:
    document = "\n".join(lines)
    index = data.draw(st.integers(0, len(lines) - 1))
    words = lines[index].split()
    if not words:
        return
    start = data.draw(st.integers(0, len(words) - 1))
    end = data.draw(st.integers(start + 1, len(words)))
    quote = " ".join(words[start:end])
    (evidence,) = verify_quotes(document, [quote])
    if normalise(quote).text.strip(" \"'.,;:"):
        # an earlier line may contain the same words first; it is never found after its own line
        assert evidence.verified and evidence.line is not None and evidence.line <= index + 1


@pytest.mark.corpus
def test_corpus_key_findings_are_found_at_their_lines(corpus_dir: Path) -> None:
    items = sorted(corpus_dir.rglob("*.md"))[::10]
    checked = at_line = 0
    for path in items:
        document = parse_document(path.read_text(encoding="utf-8"), str(path))
        claims = [kf.claim for kf in document.key_findings]
        for finding, evidence in zip(document.key_findings, verify_quotes(document, claims), strict=True):
            # found at its line, or at an earlier line repeating the same words (a summary, say)
            assert evidence.verified and evidence.line is not None, (path.name, finding.line)
            assert evidence.line <= finding.line, (path.name, finding.line)
            at_line += evidence.line == finding.line
            checked += 1
        if claims:  # a changed figure is not the same quote
            altered = claims[0].replace(claims[0].split()[-1], "zzyzx-nonexistent")
            assert not verify_quotes(document, [altered])[0].verified
    assert checked > 100 and at_line > 0
