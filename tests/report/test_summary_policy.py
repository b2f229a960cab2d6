"""The job summary's policy section: a pull request's changes to the policy, shown and not applied."""

from __future__ import annotations

from dataclasses import replace

from evalgate.report.summary import render_summary
from tests.support.reports import assert_snapshot, sample_report

CHANGES = (
    "changed policy files: .evalgate.yml, judge.py, lenient.yml",
    "rubric: research-loop → lenient.yml",
    "judges added: command:python3 judge.py @octocat <b>",
    "rubric policy.min_mean: 4.0 → 1.0",
)


def test_policy_changes_are_a_section_above_the_results_snapshot() -> None:
    text = render_summary(replace(sample_report(), policy_changes=CHANGES), "evalgate")
    assert_snapshot("summary-policy-changes.md", text)
    section = text.index("> **Policy changes in this pull request (not applied)**")
    assert section < text.index("| File | Verdict |")
    assert "@octocat" not in text and "<b>" not in text  # PR-supplied text is inert


def test_no_section_without_changes() -> None:
    assert "Policy changes" not in render_summary(sample_report(), "evalgate")
