"""One entry point the run calls after results are written: publish a `Report` to GitHub.

Channels, each best effort and independent (one failing never stops the others, nothing raises):
1. `::add-mask::` for the token, first, so nothing later can print it;
2. the job summary (`GITHUB_STEP_SUMMARY`) and step outputs (`GITHUB_OUTPUT`);
3. a check run with annotations; on 403 (fork PR, read-only token) a commit status instead; with no
   token, or when neither API call worked, annotations as workflow commands on stdout;
4. the sticky PR comment, per `comment_mode`, edited only when the token wrote it: the token's
   identity is what the check run (its `app`) or the commit status (its `creator`) it just created
   says (evalgate/github/comment.py);
5. with `suggest: true` on a pull request, the suggested changes as one review, recognised on later
   runs by that same identity (evalgate/github/review.py); a token that may not post them gets a
   `::notice::` and a line in the job summary.
The verdict is the gate's; nothing here changes it.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from evalgate.github.api import DEFAULT_API_URL, GitHubClient, RetryPolicy
from evalgate.github.checks_run import annotations_for, post_commit_status, publish_check_run
from evalgate.github.comment import CommentMode, CommentOutcome, app_login, creator_login, publish_comment
from evalgate.github.workflow import (
    add_mask,
    emit_annotations,
    workflow_command,
    write_outputs,
    write_step_summary,
)
from evalgate.report.summary import render_summary
from evalgate.results import Report

if TYPE_CHECKING:  # the review modules are imported only when a run suggests (they bring the fix engine)
    from evalgate.github.review import SuggestionOutcome
    from evalgate.github.suggest import SuggestionPlan

Channel = Literal["check-run", "status", "workflow-commands"]


@dataclass(frozen=True)
class PublishContext:
    """Where and how to publish. Every field but `check_name` may be empty: that channel is skipped."""

    api_url: str = DEFAULT_API_URL  # GITHUB_API_URL (GitHub Enterprise Server: https://HOST/api/v3)
    repository: str = ""  # "owner/name" (GITHUB_REPOSITORY)
    token: str = ""  # needs checks: write (+ statuses: write, pull-requests: write for the comment)
    head_sha: str = ""  # the PR head sha on pull_request events, not GITHUB_SHA (a merge commit)
    check_name: str = "evalgate"
    pr_number: int | None = None
    comment_mode: CommentMode = "on-failure"
    annotations_limit: int | None = 1000  # None: all findings become annotations
    step_summary_path: Path | None = None  # GITHUB_STEP_SUMMARY
    output_path: Path | None = None  # GITHUB_OUTPUT
    results_file: str | None = None  # named in outputs and in the summary's truncation note
    details_url: str | None = None  # e.g. the workflow run URL; check run details / status target
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    def __repr__(self) -> str:  # dataclass repr would print the token
        return f"PublishContext(repository={self.repository!r}, check_name={self.check_name!r}, token=***)"


@dataclass(frozen=True)
class PublishOutcome:
    """What reached GitHub, through which channel, and every error met on the way (as text)."""

    channel: Channel | None
    check_run_id: int | None = None
    annotations: int = 0  # sent to the API, or printed as workflow commands
    annotation_requests: int = 0
    status_posted: bool = False
    comment: CommentOutcome | None = None
    suggestions: SuggestionOutcome | None = None
    summary_written: bool = False
    outputs_written: bool = False
    errors: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors


def context_from_env(env: Mapping[str, str], **overrides: Any) -> PublishContext:
    """A context from the runner's `GITHUB_*` variables; `overrides` (token, head_sha, ...) win."""
    repository = env.get("GITHUB_REPOSITORY", "")
    details_url = None
    if env.get("GITHUB_SERVER_URL") and env.get("GITHUB_RUN_ID") and repository:
        details_url = f"{env['GITHUB_SERVER_URL']}/{repository}/actions/runs/{env['GITHUB_RUN_ID']}"
    ctx = PublishContext(
        api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL,
        repository=repository,
        head_sha=env.get("GITHUB_SHA", ""),
        step_summary_path=Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None,
        output_path=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
        details_url=details_url,
    )
    return replace(ctx, **overrides)


def step_outputs(report: Report, results_file: str | None) -> dict[str, str]:
    """The step outputs: verdict, counts, failing files (one per line), results file."""
    summary = report.summary()
    outputs = {
        "verdict": report.verdict.value,
        "evaluated": str(summary["evaluated"]),
        "passed": str(summary["passed"]),
        "failed": str(summary["failed"]),
        "errors": str(summary["errors"]),
        "not-judged": str(summary["not_judged"]),
        "failing-files": "\n".join(r.path for r in report.results if r.verdict.value != "PASS"),
    }
    if results_file:
        outputs["results-file"] = results_file
    return outputs


def _write_files(report: Report, ctx: PublishContext, errors: list[str]) -> tuple[bool, bool]:
    summary_written = outputs_written = False
    try:
        if ctx.step_summary_path:
            write_step_summary(
                ctx.step_summary_path, render_summary(report, ctx.check_name, results_file=ctx.results_file)
            )
            summary_written = True
        if ctx.output_path:
            write_outputs(ctx.output_path, step_outputs(report, ctx.results_file))
            outputs_written = True
    except OSError as exc:
        errors.append(f"cannot write the runner's files: {exc}")
    return summary_written, outputs_written


def publish(
    report: Report,
    ctx: PublishContext,
    stream: TextIO | None = None,
    suggestions: SuggestionPlan | None = None,
) -> PublishOutcome:
    """Publish the report through every configured channel; errors come back in the outcome.
    `suggestions`: the pull request's suggested changes to post (None: not asked for)."""
    out = stream or sys.stdout
    errors: list[str] = []
    if ctx.token:
        out.write(add_mask(ctx.token) + "\n")
    summary_written, outputs_written = _write_files(report, ctx, errors)
    annotations = annotations_for(report, ctx.annotations_limit)

    if not (ctx.token and ctx.repository and ctx.head_sha):
        printed = emit_annotations(annotations, out)
        suggested = None
        if suggestions is not None and suggestions.suggestions:
            from evalgate.github.review import SuggestionOutcome

            suggested = SuggestionOutcome(notice="there is no `github-token` to post them with")
            _report_suggestions(suggested, suggestions, ctx, out, errors)
        return PublishOutcome(
            "workflow-commands",
            annotations=printed,
            suggestions=suggested,
            summary_written=summary_written,
            outputs_written=outputs_written,
            errors=tuple(errors),
        )

    client = GitHubClient(ctx.token, ctx.api_url, ctx.retry)
    run = publish_check_run(
        client, ctx.repository, ctx.head_sha, ctx.check_name, report, annotations, ctx.details_url
    )
    channel: Channel = "check-run"
    status_posted = False
    sent, requests = run.annotations_sent, run.requests
    author = app_login(run.created)  # who the token posts as, from what it created
    if run.error:
        errors.append(run.error)
    if run.check_run_id is None:
        status = post_commit_status(
            client, ctx.repository, ctx.head_sha, ctx.check_name, report, ctx.details_url
        )
        status_posted = status.ok
        author = creator_login(status.data) if status.ok else None
        if not status.ok:
            errors.append(status.error or "commit status failed")
        # a status has no line annotations: the workflow commands still put them on the diff
        sent, requests = emit_annotations(annotations, out), 0
        channel = "status" if status_posted else "workflow-commands"

    comment = None
    if ctx.pr_number is not None:
        comment = publish_comment(
            client,
            ctx.repository,
            ctx.pr_number,
            report,
            ctx.check_name,
            ctx.comment_mode,
            ctx.results_file,
            author=author,
        )
        if comment.error:
            errors.append(comment.error)
    suggested = None
    if suggestions is not None and ctx.pr_number is not None:
        from evalgate.github.review import post_suggestions

        suggested = post_suggestions(
            client, ctx.repository, ctx.pr_number, suggestions, ctx.check_name, author
        )
        _report_suggestions(suggested, suggestions, ctx, out, errors)
    return PublishOutcome(
        channel,
        check_run_id=run.check_run_id,
        annotations=sent,
        annotation_requests=requests,
        status_posted=status_posted,
        comment=comment,
        suggestions=suggested,
        summary_written=summary_written,
        outputs_written=outputs_written,
        errors=tuple(errors),
    )


def _report_suggestions(
    outcome: SuggestionOutcome, plan: SuggestionPlan, ctx: PublishContext, out: TextIO, errors: list[str]
) -> None:
    """What became of the suggested changes: a line in the job summary; a `::notice::` when they
    could not be posted (never a failure), a warning (through `errors`) when the API failed."""
    if outcome.notice:
        message = f"evalgate: suggested changes not posted: {outcome.notice}"
        out.write(workflow_command("notice", message, {"title": "evalgate suggestions"}) + "\n")
    if outcome.error:
        errors.append(outcome.error)
    if ctx.step_summary_path is None or not (plan.suggestions or plan.notes):
        return
    from evalgate.github.review import summary_lines

    try:
        write_step_summary(ctx.step_summary_path, "\n" + "\n".join(summary_lines(outcome, plan)) + "\n")
    except OSError as exc:
        errors.append(f"cannot write the job summary: {exc}")
