"""publish(report, ctx): every channel, each fallback, and errors as values."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from evalgate.github.comment import marker
from evalgate.github.publish import PublishContext, context_from_env, publish
from tests.support.github_api import FakeGitHub
from tests.support.reports import FAST_RETRY, assert_snapshot, many_findings_report, sample_report

CHECK_RUNS = "/repos/{owner}/{repo}/check-runs"
TOKEN = "ghs_very_secret_token"
SHA = "c" * 40


def _ctx(url: str, tmp_path: Path, **overrides: object) -> PublishContext:
    env = {
        "GITHUB_API_URL": url,
        "GITHUB_REPOSITORY": "octo/docs",
        "GITHUB_SHA": "f" * 40,  # the merge commit on pull_request: the head sha override must win
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_RUN_ID": "42",
    }
    fields: dict[str, object] = {
        "token": TOKEN,
        "head_sha": SHA,
        "pr_number": 9,
        "comment_mode": "on-failure",
        "results_file": "evalgate-results.json",
        "retry": FAST_RETRY,
    }
    fields.update(overrides)
    return context_from_env(env, **fields)


def test_full_publish_through_an_enterprise_server(github_contract: Path, tmp_path: Path) -> None:
    with FakeGitHub(github_contract, url_prefix="/api/v3") as fake:
        stream = io.StringIO()
        outcome = publish(many_findings_report(120), _ctx(fake.url, tmp_path), stream)
        assert outcome.ok and outcome.channel == "check-run"
        assert (outcome.annotations, outcome.annotation_requests) == (120, 3)
        assert outcome.comment is not None and outcome.comment.action == "created"
        [run] = fake.check_runs.values()
        assert (
            run["head_sha"] == SHA
            and run["details_url"] == "https://github.example/octo/docs/actions/runs/42"
        )
        assert stream.getvalue() == f"::add-mask::{TOKEN}\n"  # nothing else on stdout
        assert fake.violations == []
    assert "verdict=FAIL\n" in (tmp_path / "output").read_text()
    assert "results-file=evalgate-results.json" in (tmp_path / "output").read_text()
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("## evalgate: ❌ FAIL") and TOKEN not in summary


def test_forbidden_check_run_falls_back_to_status_and_workflow_commands(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    fake_github.fault("POST", CHECK_RUNS, 403)
    stream = io.StringIO()
    outcome = publish(sample_report(), _ctx(fake_github.url, tmp_path, pr_number=None), stream)
    assert outcome.channel == "status" and outcome.status_posted
    assert [s["state"] for s in fake_github.statuses] == ["error"]
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("::add-mask::") and len(lines) == 1 + outcome.annotations == 5
    assert fake_github.violations == []


def test_no_token_uses_workflow_commands_only(tmp_path: Path) -> None:
    stream = io.StringIO()
    ctx = PublishContext(step_summary_path=tmp_path / "s.md")
    outcome = publish(sample_report(), ctx, stream)
    assert outcome.channel == "workflow-commands" and outcome.ok and outcome.summary_written
    assert len(stream.getvalue().splitlines()) == outcome.annotations == 4
    assert "add-mask" not in stream.getvalue()


def test_api_down_returns_errors_and_still_annotates(github_contract: Path, tmp_path: Path) -> None:
    fake = FakeGitHub(github_contract)
    url = fake.url
    fake.stop()
    stream = io.StringIO()
    outcome = publish(sample_report(), _ctx(url, tmp_path), stream)  # must not raise
    assert not outcome.ok and outcome.channel == "workflow-commands"
    assert all("unreachable" in e for e in outcome.errors) and len(outcome.errors) == 3
    assert outcome.comment is not None and outcome.comment.action == "failed"
    assert outcome.summary_written and outcome.outputs_written
    printed = stream.getvalue()
    assert printed.count(TOKEN) == 1 and all(TOKEN not in e for e in outcome.errors)
    assert TOKEN not in repr(_ctx(url, tmp_path))


def test_job_summary_file_is_the_snapshotted_summary(tmp_path: Path) -> None:
    ctx = PublishContext(step_summary_path=tmp_path / "s.md", results_file="results.json")
    publish(sample_report(), ctx, io.StringIO())
    assert_snapshot("summary.md", (tmp_path / "s.md").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("token", "poster"),
    [
        ("GITHUB_TOKEN", "github-actions[bot]"),  # the github-actions app's installation token
        ("app", "evalgate-reporter[bot]"),  # another app's installation token
        ("personal", "octocat"),  # a user's token: no check runs, so the status says who it is
    ],
)
def test_the_sticky_comment_is_the_one_the_tokens_identity_wrote(
    fake_github: FakeGitHub, tmp_path: Path, token: str, poster: str
) -> None:
    if token == "app":
        fake_github.act_as_app("evalgate-reporter", 4242)
    elif token == "personal":
        fake_github.act_as_user("octocat")
    tag = marker("evalgate")
    others = [
        fake_github.add_comment(9, f"{tag}\n✅ PASS", by=login)
        for login in ("mallory", "github-actions[bot]", "evalgate-reporter[bot]", "octocat")
        if login != poster
    ]
    ours = fake_github.add_comment(9, f"{tag}\nold results", by=poster)

    outcome = publish(sample_report(), _ctx(fake_github.url, tmp_path), io.StringIO())
    assert outcome.comment is not None and (outcome.comment.action, outcome.comment.comment_id) == (
        "updated",
        ours,
    )
    assert outcome.channel == ("status" if token == "personal" else "check-run")
    assert all(fake_github.comments[other]["body"].endswith("✅ PASS") for other in others)
    assert fake_github.violations == []
