"""One sticky PR comment per check name, found again by a hidden marker and edited in place.

Modes: `always` posts or updates on every run; `on-failure` posts only when the run does not pass,
but still updates an earlier comment when the run now passes (so a stale "failing" comment never
lingers); `never` does nothing.

The marker alone does not make a comment evalgate's: anyone who can comment on the pull request can
write it. A comment is this check's only when it carries the marker and was written by the identity
the token posts as (`author`), which the run learns from what its token has just created: the check
run's `app` (an installation token, the GITHUB_TOKEN included, posts as `<app slug>[bot]`:
`github-actions[bot]`), or, where a token may not create check runs (a personal token), the commit
status's `creator` (that user). GitHub's logins are unique and case-insensitive, and no user's login
can end in `[bot]`. Without a known author no comment is edited; a new one is posted instead. When
GitHub refuses the edit of the run's own comment, a new comment is posted too, so a failure is never
left without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

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


def marker(check_name: str, kind: str = "evalgate") -> str:
    """The hidden HTML comment that identifies this check's comment among all others on the PR (and,
    with another `kind`, its suggested changes among the review comments)."""
    # `--` would end the HTML comment early and a newline would split the marker: keep it one token
    safe = "".join(ch if ch.isalnum() or ch in "-_./ " else "_" for ch in check_name).replace("--", "-_")
    return f"<!-- {kind}:{safe} -->"


def render_comment(report: Report, check_name: str, results_file: str | None = None) -> str:
    """The comment body: the marker, then the job summary cut to fit the comment limit."""
    head = marker(check_name) + "\n"
    # the summary limit is in bytes, which is never fewer than characters, so this fits in both
    return head + render_summary(report, check_name, COMMENT_LIMIT - utf8_len(head), results_file)


def app_login(check_run: object) -> str | None:
    """The login an app's installation token posts as, `<slug>[bot]`, from a check run it created."""
    app = check_run.get("app") if isinstance(check_run, dict) else None
    slug = app.get("slug") if isinstance(app, dict) else None
    return f"{slug}[bot]" if isinstance(slug, str) and slug else None


def creator_login(status: object) -> str | None:
    """The login of who created a commit status (the token's user)."""
    creator = status.get("creator") if isinstance(status, dict) else None
    login = creator.get("login") if isinstance(creator, dict) else None
    return login if isinstance(login, str) and login else None


def written_by(comment: dict[str, Any], author: str) -> bool:
    """Whether GitHub says `author` wrote the comment (logins compare case-insensitively)."""
    user = comment.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    return isinstance(login, str) and login.casefold() == author.casefold()


def find_comment(
    client: GitHubClient, repository: str, pr_number: int, check_name: str, author: str
) -> tuple[int | None, str | None]:
    """The id of this check's earlier comment on the PR, written by `author` (or None), and an error
    if listing failed."""
    listing = client.paginate(f"/repos/{repository}/issues/{pr_number}/comments")
    if not listing.ok:
        return None, listing.error
    tag = marker(check_name)
    for comment in listing.data:
        if isinstance(comment, dict) and tag in str(comment.get("body", "")) and written_by(comment, author):
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
    author: str | None = None,
) -> CommentOutcome:
    """Create, update or skip the PR comment according to `mode` and the run's verdict. Only a
    comment `author` wrote is edited (None: the token's identity is unknown, so none is)."""
    if mode == "never":
        return CommentOutcome("skipped")
    existing = None
    if author is not None:
        existing, error = find_comment(client, repository, pr_number, check_name, author)
        if error:
            return CommentOutcome("failed", None, error)
    passing = report.verdict is Verdict.PASS
    if mode == "on-failure" and passing and existing is None:
        return CommentOutcome("skipped")
    body = {"body": render_comment(report, check_name, results_file)}
    refused = None
    if existing is not None:
        edited = client.request("PATCH", f"/repos/{repository}/issues/comments/{existing}", json=body)
        if edited.ok:
            return CommentOutcome("updated", existing)
        refused = f"comment {existing} could not be edited ({edited.error})"
    created = client.request("POST", f"/repos/{repository}/issues/{pr_number}/comments", json=body)
    if not created.ok:
        error = created.error if refused is None else f"{refused}, nor a new one posted ({created.error})"
        return CommentOutcome("failed", None, error)
    # the edit's refusal is still reported (a warning), with what was done instead
    note = None if refused is None else f"{refused}; a new comment was posted"
    return CommentOutcome("created", int(created.data["id"]), note)
