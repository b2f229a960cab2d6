"""Check runs with annotations in batches of 50, and the commit-status fallback on 403."""

from __future__ import annotations

from evalgate.github.checks_run import (
    annotations_for,
    conclusion,
    post_commit_status,
    publish_check_run,
)
from tests.support.github_api import FakeGitHub
from tests.support.reports import client_for, many_findings_report, passing_report, sample_report

CHECK_RUNS = "/repos/{owner}/{repo}/check-runs"
CHECK_RUN = "/repos/{owner}/{repo}/check-runs/{check_run_id}"
SHA = "b" * 40


def test_120_findings_one_post_two_patches(fake_github: FakeGitHub) -> None:
    report = many_findings_report(120)
    annotations = annotations_for(report)
    outcome = publish_check_run(client_for(fake_github), "o/r", SHA, "evalgate", report, annotations)
    posts, patches = fake_github.calls_to("POST", CHECK_RUNS), fake_github.calls_to("PATCH", CHECK_RUN)
    assert len(posts) == 1 and len(patches) == 2
    sizes = [len(c.body["output"]["annotations"]) for c in posts + patches]
    assert sizes == [50, 50, 20]
    assert outcome.annotations_sent == 120 and outcome.requests == 3 and outcome.error is None
    stored = fake_github.check_runs[outcome.check_run_id or 0]
    assert [a["start_line"] for a in stored["output"]["annotations"]] == list(range(1, 121))
    assert stored["conclusion"] == "failure" and stored["head_sha"] == SHA
    assert fake_github.violations == []


def test_no_findings_still_creates_a_run(fake_github: FakeGitHub) -> None:
    report = passing_report()
    outcome = publish_check_run(
        client_for(fake_github), "o/r", SHA, "evalgate", report, annotations_for(report)
    )
    assert outcome.requests == 1 and outcome.annotations_sent == 0
    assert fake_github.check_runs[outcome.check_run_id or 0]["conclusion"] == "success"
    assert conclusion(report) == "success"
    assert fake_github.violations == []


def test_annotation_fields_are_safe_and_levels_follow_the_gate() -> None:
    annotations = annotations_for(sample_report())
    assert [a.level for a in annotations] == ["failure"] * 4
    assert all("@octocat" not in a.message for a in annotations)
    ranged = next(a for a in annotations if a.start_line == 55)
    assert (ranged.end_line, ranged.title) == (57, "key_finding_specificity (score 2)")
    assert len(annotations_for(many_findings_report(120), limit=7)) == 7


def test_403_reported_as_forbidden_then_status_fallback(fake_github: FakeGitHub) -> None:
    fake_github.fault("POST", CHECK_RUNS, 403)
    client = client_for(fake_github)
    report = sample_report()
    outcome = publish_check_run(client, "o/r", SHA, "evalgate", report, annotations_for(report))
    assert outcome.forbidden and outcome.check_run_id is None
    status = post_commit_status(client, "o/r", SHA, "evalgate", report, "https://ci.example/run/1")
    assert status.ok
    [posted] = fake_github.statuses
    assert posted["state"] == "error" and posted["context"] == "evalgate" and posted["sha"] == SHA
    assert len(posted["description"]) <= 140
    assert fake_github.violations == []
