"""The sticky PR comment: found by its marker (across pages) among the token's own comments, edited
not duplicated, per mode; a refused edit posts a new comment."""

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
BOT = "github-actions[bot]"  # who the fake's default token (a GITHUB_TOKEN) posts as


def test_second_run_edits_the_comment(fake_github: FakeGitHub) -> None:
    client = client_for(fake_github)
    first = publish_comment(client, "o/r", 5, sample_report(), "evalgate", "on-failure", author=BOT)
    second = publish_comment(client, "o/r", 5, sample_report(), "evalgate", "on-failure", author=BOT)
    assert first.action == "created" and second.action == "updated"
    assert first.comment_id == second.comment_id and len(fake_github.comments) == 1
    assert len(fake_github.calls_to("POST", ISSUE_COMMENTS)) == 1
    assert len(fake_github.calls_to("PATCH", COMMENT)) == 1
    assert fake_github.violations == []


def test_marker_found_on_a_later_page(fake_github: FakeGitHub) -> None:
    for i in range(40):
        fake_github.add_comment(5, f"chatter {i}")
    old = fake_github.add_comment(5, marker("evalgate") + "\nold results", by="GitHub-Actions[bot]")
    fake_github.add_comment(5, marker("other-check") + "\nnot ours", by=BOT)
    client = client_for(fake_github)
    outcome = publish_comment(client, "o/r", 5, sample_report(), "evalgate", "always", author=BOT)
    assert outcome.action == "updated" and outcome.comment_id == old  # logins compare case-insensitively
    assert "old results" not in fake_github.comments[old]["body"]


def test_the_marker_in_someone_elses_comment_does_not_make_it_ours(fake_github: FakeGitHub) -> None:
    forged = fake_github.add_comment(5, marker("evalgate") + "\n✅ PASS", by="mallory")
    bot_named = fake_github.add_comment(5, marker("evalgate") + "\n✅ PASS", by="other-app[bot]")
    ours = fake_github.add_comment(5, marker("evalgate") + "\nold results", by=BOT)
    client = client_for(fake_github)
    outcome = publish_comment(client, "o/r", 5, sample_report(), "evalgate", "always", author=BOT)
    assert outcome.action == "updated" and outcome.comment_id == ours
    assert fake_github.comments[forged]["body"].endswith("✅ PASS")
    assert fake_github.comments[bot_named]["body"].endswith("✅ PASS")


def test_without_a_known_author_no_comment_is_edited_and_a_new_one_is_posted(fake_github: FakeGitHub) -> None:
    ours = fake_github.add_comment(5, marker("evalgate") + "\nold results", by=BOT)
    outcome = publish_comment(client_for(fake_github), "o/r", 5, sample_report(), "evalgate", "always")
    assert outcome.action == "created" and outcome.comment_id != ours
    assert fake_github.calls_to("PATCH", COMMENT) == [] and fake_github.calls_to("GET", ISSUE_COMMENTS) == []
    assert fake_github.comments[ours]["body"].endswith("old results")


def test_a_refused_edit_posts_a_new_comment_and_says_so(fake_github: FakeGitHub) -> None:
    ours = fake_github.add_comment(5, marker("evalgate") + "\nold results", by=BOT)
    fake_github.fault("PATCH", COMMENT, 403)
    outcome = publish_comment(
        client_for(fake_github), "o/r", 5, sample_report(), "evalgate", "always", author=BOT
    )
    assert outcome.action == "created" and outcome.comment_id not in (None, ours)
    assert outcome.error is not None and f"comment {ours} could not be edited" in outcome.error
    assert "❌" in fake_github.comments[outcome.comment_id or 0]["body"]


def test_a_refused_edit_and_post_is_one_failure_naming_both(fake_github: FakeGitHub) -> None:
    ours = fake_github.add_comment(5, marker("evalgate") + "\nold results", by=BOT)
    fake_github.fault("PATCH", COMMENT, 404)
    fake_github.fault("POST", ISSUE_COMMENTS, 403)
    outcome = publish_comment(
        client_for(fake_github), "o/r", 5, sample_report(), "evalgate", "always", author=BOT
    )
    assert outcome.action == "failed" and outcome.error is not None
    assert f"comment {ours} could not be edited" in outcome.error and "nor a new one posted" in outcome.error


def test_on_failure_mode_skips_a_pass_but_updates_a_stale_failure(fake_github: FakeGitHub) -> None:
    client = client_for(fake_github)
    passing = publish_comment(client, "o/r", 5, passing_report(), "evalgate", "on-failure", author=BOT)
    assert passing.action == "skipped" and fake_github.comments == {}
    publish_comment(client, "o/r", 5, sample_report(), "evalgate", "on-failure", author=BOT)
    now_passing = publish_comment(client, "o/r", 5, passing_report(), "evalgate", "on-failure", author=BOT)
    assert now_passing.action == "updated"
    [comment] = fake_github.comments.values()
    assert "✅ PASS" in comment["body"] and "❌" not in comment["body"]


def test_never_mode_makes_no_calls(fake_github: FakeGitHub) -> None:
    outcome = publish_comment(client_for(fake_github), "o/r", 5, sample_report(), "evalgate", "never")
    assert outcome.action == "skipped" and fake_github.calls == []


def test_listing_failure_is_an_error_value(fake_github: FakeGitHub) -> None:
    fake_github.fault("GET", ISSUE_COMMENTS, 500, times=10)
    client = client_for(fake_github)
    outcome = publish_comment(client, "o/r", 5, sample_report(), "evalgate", "always", author=BOT)
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
