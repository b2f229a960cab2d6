from __future__ import annotations

import pytest

from evalgate.checks import evidence_map_coverage
from evalgate.document import parse_document
from tests.checks.harmless import HARMLESS
from tests.checks.research_item import FINDINGS, ROWS, line_of, research_item


def run(text: str) -> evidence_map_coverage.CheckOutcome:
    return evidence_map_coverage.check(parse_document(text))


@pytest.mark.parametrize("edit", HARMLESS, ids=lambda f: f.__name__)
def test_harmless_edits_keep_the_score(edit) -> None:
    outcome = run(edit(research_item()))
    assert (outcome.score, outcome.findings) == (5, ())


@pytest.mark.parametrize("removed", range(len(ROWS)))
def test_removing_a_row_flags_that_finding(removed: int) -> None:
    text = research_item(rows=ROWS[:removed] + ROWS[removed + 1 :])
    outcome = run(text)
    assert outcome.score == 2
    assert [f.line for f in outcome.findings] == [line_of(text, FINDINGS[removed][:40])]
    assert f"Key Finding {removed + 1} has no matching" in outcome.findings[0].message


def test_shuffled_rows_still_match() -> None:
    assert run(research_item(rows=list(reversed(ROWS)))).score == 5


def test_two_missing_rows_and_no_table() -> None:
    assert run(research_item(rows=ROWS[2:])).score == 1
    assert run(research_item(drop_section="Evidence Map")).score == 1


def test_unlabelled_and_unsourced_rows_are_reported() -> None:
    rows = [r.split("] ", 1)[1] for r in ROWS[:3]] + ROWS[3:]
    text = research_item(rows=rows)
    outcome = run(text)
    assert outcome.score == 3
    assert all("does not begin with [fact]" in f.message for f in outcome.findings)
    assert [f.line for f in outcome.findings] == [line_of(text, r) for r in rows[:3]]
    no_url = text.replace("| https://example.org/ref/1 |", "| Example org, 2024 |")
    messages = [f.message for f in run(no_url).findings]
    assert any("no URL or DOI" in m for m in messages)


def test_doi_counts_as_a_source() -> None:
    assert evidence_map_coverage.is_source_backed("doi:10.1145/3442188.3445922")
    assert not evidence_map_coverage.is_source_backed("Smith et al. (2021)")
