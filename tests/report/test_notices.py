"""A notice (a finding that did not lower the score) is shown as a notice by every report: the JSON
`level`, read back by the loader, the check run's `notice` annotation level, SARIF `note`, and a
`notice:` prefix in the text and markdown reports, whatever its dimension scored."""

from __future__ import annotations

import json

import pytest

from evalgate.github.checks_run import annotations_for
from evalgate.report.load import ReportLoadError, report_from_json
from evalgate.report.sarif import to_sarif
from evalgate.report.summary import render_summary
from evalgate.report.text import render_text
from evalgate.results import FileResult, Finding, Report, RubricRef, Verdict
from tests.support.reports import dim

FINDING = Finding(30, "source not shown consulted: its box is unticked")
NOTICE = Finding(31, "the box is ticked, but its URL is cited nowhere", notice=True)


def report() -> Report:
    """One failing file whose failing dimension carries a finding and a notice."""
    result = FileResult(
        "docs/item.md",
        Verdict.FAIL,
        mean=2.0,
        dimensions=(dim("source_consultation", 2, FINDING, NOTICE),),
    )
    return Report(RubricRef("research-loop", "abc123def456"), (result,))


def test_json_marks_a_notice_and_reads_it_back() -> None:
    data = json.loads(json.dumps(report().to_json()))
    findings = data["results"][0]["dimensions"][0]["findings"]
    assert findings == [
        {"line": 30, "message": FINDING.message},
        {"line": 31, "message": NOTICE.message, "level": "notice"},
    ]
    assert report_from_json(data).results[0].dimensions[0].findings == (FINDING, NOTICE)
    findings[1]["level"] = "warning"
    with pytest.raises(ReportLoadError, match=r"findings\[1\]\.level: 'warning' is not one of notice"):
        report_from_json(data)


def test_a_notice_is_a_notice_annotation_and_a_sarif_note_in_a_failing_dimension() -> None:
    levels = {a.start_line: a.level for a in annotations_for(report())}
    assert levels == {30: "failure", 31: "notice"}
    results = to_sarif(report())["runs"][0]["results"]
    assert {r["locations"][0]["physicalLocation"]["region"]["startLine"]: r["level"] for r in results} == {
        30: "warning",
        31: "note",
    }


def test_text_and_markdown_prefix_a_notice() -> None:
    text = render_text(report())
    assert f"docs/item.md:30: {FINDING.message}" in text
    assert f"docs/item.md:31: notice: {NOTICE.message}" in text
    summary = render_summary(report())
    assert "notice: the box is ticked" in summary and "notice: source not shown" not in summary
