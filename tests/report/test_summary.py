"""The markdown job summary: table, failing dimensions with path:line, skipped stated, truncation."""

from __future__ import annotations

from evalgate.report.summary import render_summary
from evalgate.results import FileResult, Finding, Report, RubricRef, Verdict
from tests.support.reports import assert_snapshot, dim, many_findings_report, sample_report


def test_summary_snapshot() -> None:
    assert_snapshot("summary.md", render_summary(sample_report(), "evalgate", results_file="results.json"))


def test_summary_content_is_escaped() -> None:
    text = render_summary(sample_report())
    assert "<script>" not in text and "@octocat" not in text and "@org/team" not in text
    assert "`docs/research/bad|name.md:12`" in text  # path:line of a finding
    assert "Skipped dimensions" in text and "`epistemic_labeling`" in text
    table_rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(table_rows) == 3 and all(line.count(" | ") == 4 for line in table_rows)


def test_findings_per_dimension_are_capped() -> None:
    text = render_summary(many_findings_report(25))
    assert "`docs/many.md:10`" in text and "`docs/many.md:11`" not in text
    assert "and 15 more finding(s)" in text


def test_truncation_keeps_within_limit_and_says_so() -> None:
    files = tuple(
        FileResult(
            f"docs/f{i}.md",
            Verdict.FAIL,
            1.0,
            dimensions=(dim("section_presence", 1, Finding(3, "é" * 300)),),
        )
        for i in range(3000)
    )
    report = Report(RubricRef("research-loop", "v"), files)
    limit = 1024 * 1024
    text = render_summary(report, limit=limit, results_file="out/results.json")
    assert len(text.encode()) <= limit
    assert "not shown (size limit)" in text and "`out/results.json`" in text
    small = render_summary(report, limit=5000)
    assert len(small.encode()) <= 5000 and small.count("| `docs/") < 3000
