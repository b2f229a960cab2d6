"""The changed files a run did not evaluate: named with the reason in the job summary's header (which is
never cut for size), in the text report and in the JSON report."""

from __future__ import annotations

import json
from dataclasses import replace

from evalgate.report.jsonfile import render_json
from evalgate.report.summary import NOT_EVALUATED_LISTED, render_summary
from evalgate.report.text import render_text
from evalgate.results import NotEvaluated
from tests.support.reports import assert_snapshot, sample_report

NAMED = (
    NotEvaluated("Research/completed/gone.md", "deleted"),
    NotEvaluated(
        "Research/Completed/a.md",
        "not matched by paths glob 'Research/completed/**/*.md': the directory 'Completed' differs in "
        "letter case from 'completed'",
    ),
    NotEvaluated(
        "Research/completed/b.md ",
        "not matched by paths glob 'Research/completed/**/*.md': the name 'b.md ' ends with a space",
    ),
    NotEvaluated("Research/completed/@octocat <b>.txt", "not matched by paths glob '**/*.md': not markdown"),
)


def test_files_not_evaluated_are_a_section_above_the_results_snapshot() -> None:
    text = render_summary(replace(sample_report(), not_evaluated=NAMED), "evalgate")
    assert_snapshot("summary-not-evaluated.md", text)
    assert text.index("**Changed files not evaluated** (4)") < text.index("| File | Verdict |")
    assert "`'Research/completed/b.md '`" in text  # the trailing space shows
    assert "@octocat" not in text.replace("`Research/completed/@octocat <b>.txt`", "")
    assert "<b>" not in text.replace("`Research/completed/@octocat <b>.txt`", "")


def test_a_long_list_is_cut_in_the_summary_and_whole_in_the_results() -> None:
    many = tuple(
        NotEvaluated(f"Research/Completed/{i}.md", "not matched") for i in range(NOT_EVALUATED_LISTED + 7)
    )
    report = replace(sample_report(), not_evaluated=many)
    text = render_summary(report, "evalgate", limit=65535)
    assert f"**Changed files not evaluated** ({NOT_EVALUATED_LISTED + 7})" in text
    assert "… and 7 more (every one is in the results file)" in text
    assert f"Research/Completed/{NOT_EVALUATED_LISTED - 1}.md" in text
    assert f"Research/Completed/{NOT_EVALUATED_LISTED}.md" not in text
    listed = json.loads(render_json(report))["not_evaluated"]
    assert [entry["path"] for entry in listed] == [entry.path for entry in many]


def test_the_text_report_and_json_name_each_file_and_reason() -> None:
    report = replace(sample_report(), not_evaluated=NAMED)
    text = render_text(report)
    assert "not evaluated: Research/completed/gone.md: deleted" in text
    assert "not evaluated: 'Research/completed/b.md ': not matched by paths glob" in text
    assert json.loads(render_json(report))["not_evaluated"][0] == {
        "path": "Research/completed/gone.md",
        "reason": "deleted",
    }
    assert "not_evaluated" not in json.loads(render_json(sample_report()))
    assert "Changed files not evaluated" not in render_summary(sample_report(), "evalgate")
