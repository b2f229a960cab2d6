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


# Rows that name their finding by number in the claim cell: written here, words unrelated to the
# findings, so only the number can match them.
UNRELATED = "[inference] Reviewed against the release checklist."


@pytest.mark.parametrize(
    "form", ["KF{n}", "KF-{n}", "KF #{n}", "Key Finding {n}", "Finding {n}", "[fact] See key finding {n}."]
)
def test_a_row_that_names_its_finding_by_number_covers_it(form: str) -> None:
    rows = [form.format(n=n) if form.startswith("[") else f"[fact] {form.format(n=n)}" for n in range(1, 7)]
    outcome = run(research_item(rows=rows))
    assert (outcome.score, outcome.findings) == (5, ())
    assert run(research_item(rows=[UNRELATED] * 6)).score == 1  # the same rows without numbers


def test_a_named_number_wins_over_words() -> None:
    """Row 1 paraphrases finding 2 but names KF1: it is finding 1's row, and finding 2 keeps its own."""
    rows = [f"[fact] KF1: {ROWS[1][7:]}", ROWS[1], *ROWS[2:]]
    key_findings = parse_document(research_item(rows=rows)).key_findings
    matched = evidence_map_coverage.match_rows(
        key_findings, parse_document(research_item(rows=rows)).evidence_rows
    )
    assert matched[1].claim.startswith("[fact] KF1:") and matched[2].claim == ROWS[1]


def test_a_row_naming_two_findings_covers_both() -> None:
    rows = ["[inference] KF1/KF2 digests and tags", *ROWS[2:]]
    assert (run(research_item(rows=rows)).score, run(research_item(rows=rows)).findings) == (5, ())
    # without the numbers, five rows for six findings leave one uncovered
    assert run(research_item(rows=[UNRELATED, *ROWS[2:]])).score in (1, 2)


def test_a_number_that_names_no_finding_or_a_score_is_not_an_id() -> None:
    assert evidence_map_coverage.named_findings("[fact] F1 48% and BLEU-1 69% on the benchmark") == set()
    assert evidence_map_coverage.named_findings("[fact] Finding 3 and KF-4") == {3, 4}
    text = research_item(rows=[*ROWS[:5], "[fact] KF9 recording the evaluated digest"])
    outcome = run(text)  # KF9 names nothing; the row is matched by its words, as any other
    assert (outcome.score, outcome.findings) == (5, ())


def test_a_url_written_without_its_scheme_backs_a_row_but_a_site_name_does_not() -> None:
    backed = evidence_map_coverage.is_source_backed
    assert backed("Okafor (2023) arxiv.org/abs/2305.01234; ops.example.org/runbooks/rollback")
    assert backed("[x] docs.example.dev/limits/")
    assert not backed("fly.io pricing docs") and not backed("Example Labs, 2024, p. 3/4")
    assert backed("Osei et al. arXiv:2405.01234") and not backed("Osei et al. (2024) preprint")
    assert not backed("e.g./i.e. usage notes")
