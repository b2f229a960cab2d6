"""The sticky PR comment: found by its marker (across pages), edited not duplicated, per mode."""

from __future__ import annotations

from evalgate.github.comment import COMMENT_LIMIT, marker, publish_comment, render_comment
from evalgate.results import FileResult, Finding, Report, RubricRef, Verdict
from tests.support.github_api import FakeGitHub
from tests.support.reports import (
    assert_snapshot,
    client_for,
    dim,
    passing_report,
    sample_report,
)

ISSUE_COMMENTS = "/repos/{owner}/{repo}/issues/{issue_number}/comments"
COMMENT = "/repos/{owner}/{repo}/issues/comments/{comment_id}"


def test_second_run_edits_the_comment(fake_github: FakeGitHub) -> None:
    client = client_for(fake_github)
    first = publish_comment(client, "o/r", 5, sample_report(), "evalgate", "on-failure")
    second = publish_comment(client, "o/r", 5, sample_report(), "evalgate", "on-failure")
    assert first.action == "created" and second.action == "updated"
    assert first.comment_id == second.comment_id and len(fake_github.comments) == 1
    assert len(fake_github.calls_to("POST", ISSUE_COMMENTS)) == 1
    assert len(fake_github.calls_to("PATCH", COMMENT)) == 1
    assert fake_github.violations == []


def test_marker_found_on_a_later_page(fake_github: FakeGitHub) -> None:
    for i in range(40):
        fake_github.add_comment(5, f"chatter {i}")
    old = fake_github.add_comment(5, marker("evalgate") + "\nold results")
    fake_github.add_comment(5, marker("other-check") + "\nnot ours")
    outcome = publish_comment(client_for(fake_github), "o/r", 5, sample_report(), "evalgate", "always")
    assert outcome.action == "updated" and outcome.comment_id == old
    assert "old results" not in fake_github.comments[old]["body"]


def test_on_failure_mode_skips_a_pass_but_updates_a_stale_failure(fake_github: FakeGitHub) -> None:
    client = client_for(fake_github)
    assert publish_comment(client, "o/r", 5, passing_report(), "evalgate", "on-failure").action == "skipped"
    assert fake_github.comments == {}
    publish_comment(client, "o/r", 5, sample_report(), "evalgate", "on-failure")
    now_passing = publish_comment(client, "o/r", 5, passing_report(), "evalgate", "on-failure")
    assert now_passing.action == "updated"
    [comment] = fake_github.comments.values()
    assert "✅ PASS" in comment["body"] and "❌" not in comment["body"]


def test_never_mode_makes_no_calls(fake_github: FakeGitHub) -> None:
    outcome = publish_comment(client_for(fake_github), "o/r", 5, sample_report(), "evalgate", "never")
    assert outcome.action == "skipped" and fake_github.calls == []


def test_listing_failure_is_an_error_value(fake_github: FakeGitHub) -> None:
    fake_github.fault("GET", ISSUE_COMMENTS, 500, times=10)
    outcome = publish_comment(client_for(fake_github), "o/r", 5, sample_report(), "evalgate", "always")
    assert outcome.action == "failed" and "500" in (outcome.error or "")
    assert fake_github.calls_to("POST", ISSUE_COMMENTS) == []


def test_comment_body_snapshot_and_limit() -> None:
    body = render_comment(sample_report(), "evalgate", results_file="evalgate-results.json")
    assert body.startswith("<!-- evalgate:evalgate -->\n")
    assert_snapshot("comment.md", body)
    long_finding = (Finding(1, "x" * 500),)
    files = tuple(
        FileResult(f"f{i}.md", Verdict.FAIL, 1.0, dimensions=(dim("section_presence", 1, *long_finding),))
        for i in range(400)
    )
    big = render_comment(Report(RubricRef("research-loop", "v"), files), "evalgate")
    assert len(big) <= COMMENT_LIMIT and "not shown (size limit)" in big


def test_marker_cannot_be_broken_by_the_check_name() -> None:
    tag = marker("a-->b\nc")
    assert tag.startswith("<!-- evalgate:") and tag.endswith(" -->")
    assert "-->" not in tag[:-4] and "\n" not in tag
