"""One sticky PR comment per check name, found again by a hidden marker and edited in place.

Modes: `always` posts or updates on every run; `on-failure` posts only when the run does not pass,
but still updates an earlier comment when the run now passes (so a stale "failing" comment never
lingers); `never` does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evalgate.github.api import GitHubClient
from evalgate.report.escape import utf8_len
from evalgate.report.summary import render_summary
from evalgate.results import Report, Verdict

CommentMode = Literal["on-failure", "always", "never"]
CommentAction = Literal["created", "updated", "skipped", "failed"]
COMMENT_LIMIT = 65536  # characters GitHub accepts in a comment body


@dataclass(frozen=True)
class CommentOutcome:
    """What was done to the PR comment, its id if one exists, and an error message if the API failed."""

    action: CommentAction
    comment_id: int | None = None
    error: str | None = None


def marker(check_name: str) -> str:
    """The hidden HTML comment that identifies this check's comment among all others on the PR."""
    # `--` would end the HTML comment early and a newline would split the marker: keep it one token
    safe = "".join(ch if ch.isalnum() or ch in "-_./ " else "_" for ch in check_name).replace("--", "-_")
    return f"<!-- evalgate:{safe} -->"


def render_comment(report: Report, check_name: str, results_file: str | None = None) -> str:
    """The comment body: the marker, then the job summary cut to fit the comment limit."""
    head = marker(check_name) + "\n"
    # the summary limit is in bytes, which is never fewer than characters, so this fits in both
    return head + render_summary(report, check_name, COMMENT_LIMIT - utf8_len(head), results_file)


def find_comment(
    client: GitHubClient, repository: str, pr_number: int, check_name: str
) -> tuple[int | None, str | None]:
    """The id of this check's earlier comment on the PR (or None), and an error if listing failed."""
    listing = client.paginate(f"/repos/{repository}/issues/{pr_number}/comments")
    if not listing.ok:
        return None, listing.error
    tag = marker(check_name)
    for comment in listing.data:
        if isinstance(comment, dict) and tag in str(comment.get("body", "")):
            return int(comment["id"]), None
    return None, None


def publish_comment(
    client: GitHubClient,
    repository: str,
    pr_number: int,
    report: Report,
    check_name: str,
    mode: CommentMode,
    results_file: str | None = None,
) -> CommentOutcome:
    """Create, update or skip the PR comment according to `mode` and the run's verdict."""
    if mode == "never":
        return CommentOutcome("skipped")
    existing, error = find_comment(client, repository, pr_number, check_name)
    if error:
        return CommentOutcome("failed", None, error)
    passing = report.verdict is Verdict.PASS
    if mode == "on-failure" and passing and existing is None:
        return CommentOutcome("skipped")
    body = {"body": render_comment(report, check_name, results_file)}
    if existing is not None:
        edited = client.request("PATCH", f"/repos/{repository}/issues/comments/{existing}", json=body)
        return CommentOutcome("updated" if edited.ok else "failed", existing, edited.error)
    created = client.request("POST", f"/repos/{repository}/issues/{pr_number}/comments", json=body)
    if not created.ok:
        return CommentOutcome("failed", None, created.error)
    return CommentOutcome("created", int(created.data["id"]))
