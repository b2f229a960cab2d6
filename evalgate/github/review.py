"""Suggested changes posted to a pull request: one review per run, each suggestion once.

A run's new suggestions (evalgate/github/suggest.py) go out as one review (`POST /pulls/{n}/reviews`,
event COMMENT, on the head commit), each a review comment on its line of the diff's right side with a
```suggestion block the author applies in one click. Nothing is posted when nothing is new.

Earlier suggestions are the pull request's review comments that carry this check's hidden marker and
were written by the identity the token posts as (the sticky comment's rule, evalgate/github/comment.py:
anyone can copy a marker). Against them, a suggestion is
- already there: an earlier one on the same path and line (as GitHub places it now) suggests the same
  text. A push that only moves the line keeps GitHub's comment on it, so nothing is posted again;
- not repeated: an earlier one on the same file fixed the same acronym and is outdated (GitHub sets
  its `line` to null once the author changes that line). The author has seen it and wrote their own
  words instead; the finding still stands in the check run, so a second suggestion would only nag;
- new otherwise.
Nothing is resolved, dismissed or deleted. GitHub marks and folds outdated suggestions itself; a
COMMENT review cannot be dismissed (GitHub answers 422 "Can not dismiss a commented pull request
review"), and resolving a thread exists only in the GraphQL API, which evalgate does not use. An
earlier suggestion that still applies stays where it is; one the author applied is outdated.

A token that may not write reviews (403: no `pull-requests: write`, or a fork pull request's
read-only token) gets a notice, never a failure: the verdict is the check's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from evalgate.github.api import GitHubClient
from evalgate.github.comment import marker, written_by
from evalgate.github.suggest import Suggestion, SuggestionPlan
from evalgate.report.escape import markdown_code

SUGGESTION_MARKER = "evalgate-suggestion"
_FIXES = re.compile(r"<!-- evalgate-fixes: ([^<>]*?) -->")
_BLOCK = re.compile(r"^(`{3,})suggestion[ \t]*\n(.*?)\n\1[ \t]*$", re.M | re.S)
_ACRONYM_CHARS = re.compile(r"[^\w&.+/-]")
PERMISSION_NOTICE = (
    "the token may not write pull request reviews: grant the job `pull-requests: write` "
    "(a fork pull request's token is read-only and never can)"
)


@dataclass(frozen=True)
class EarlierSuggestion:
    """One of this check's suggestions already on the pull request, as GitHub shows it now."""

    path: str
    line: int | None  # None: outdated (the author changed the line after it was suggested)
    text: str | None  # the suggested line, or None when the body holds no suggestion block
    acronyms: frozenset[str]


@dataclass(frozen=True)
class SuggestionOutcome:
    """What the run did with its suggestions; `notice` says why none could be posted (not a failure),
    `error` that the API failed (a warning)."""

    posted: int = 0
    already: int = 0
    not_repeated: int = 0
    review_id: int | None = None
    notice: str | None = None
    error: str | None = None


def post_suggestions(
    client: GitHubClient,
    repository: str,
    pr_number: int,
    plan: SuggestionPlan,
    check_name: str,
    author: str | None,
) -> SuggestionOutcome:
    """Post the plan's new suggestions as one review on `plan.head_sha`; see the module's docstring.
    `author` is who the token posts as (None: unknown, so nothing is posted: earlier suggestions
    could not be told from anyone else's)."""
    if not plan.suggestions:
        return SuggestionOutcome()
    if author is None:
        why = (
            "this is a fork pull request, whose token is read-only"
            if plan.fork
            else "the token could create neither the check run nor the commit status, so evalgate cannot "
            "tell its own earlier suggestions (grant `checks: write` and `pull-requests: write`)"
        )
        return SuggestionOutcome(notice=why)
    listing = client.paginate(f"/repos/{repository}/pulls/{pr_number}/comments")
    if not listing.ok:
        if listing.status in (403, 404):
            return SuggestionOutcome(notice=PERMISSION_NOTICE)
        return SuggestionOutcome(error=f"suggested changes: {listing.error}")
    earlier = [
        found
        for comment in listing.data
        if isinstance(comment, dict) and (found := read_earlier(comment, check_name, author)) is not None
    ]
    new: list[Suggestion] = []
    already = not_repeated = 0
    for suggestion in plan.suggestions:
        if any(_same(e, suggestion) for e in earlier):
            already += 1
        elif any(_outdated_for(e, suggestion) for e in earlier):
            not_repeated += 1
        else:
            new.append(suggestion)
    if not new:
        return SuggestionOutcome(0, already, not_repeated)
    review = {
        "commit_id": plan.head_sha,
        "event": "COMMENT",
        "body": review_body(len(new), check_name),
        "comments": [
            {"path": s.path, "line": s.line, "side": "RIGHT", "body": suggestion_body(s, check_name)}
            for s in new
        ],
    }
    posted = client.request("POST", f"/repos/{repository}/pulls/{pr_number}/reviews", json=review)
    if posted.status == 403:
        return SuggestionOutcome(0, already, not_repeated, notice=PERMISSION_NOTICE)
    if not posted.ok:
        return SuggestionOutcome(0, already, not_repeated, error=f"suggested changes: {posted.error}")
    review_id = posted.data.get("id") if isinstance(posted.data, dict) else None
    known = review_id if isinstance(review_id, int) else None
    return SuggestionOutcome(len(new), already, not_repeated, known)


def _same(earlier: EarlierSuggestion, suggestion: Suggestion) -> bool:
    return (earlier.path, earlier.line, earlier.text) == (suggestion.path, suggestion.line, suggestion.new)


def _outdated_for(earlier: EarlierSuggestion, suggestion: Suggestion) -> bool:
    same_file = earlier.path == suggestion.path
    return earlier.line is None and same_file and bool(earlier.acronyms & suggestion.acronyms)


def review_body(count: int, check_name: str) -> str:
    """The review's own text: what the suggestions are and where they come from."""
    changes = "a change" if count == 1 else f"{count} changes"
    return (
        f"{marker(check_name, SUGGESTION_MARKER)}\n"
        f"**{check_name}** suggests {changes} that `evalgate fix` would make on lines this pull request "
        "adds. Apply them here, or run `evalgate fix` on the files; the check run lists every finding."
    )


def suggestion_body(suggestion: Suggestion, check_name: str) -> str:
    """A review comment: the hidden markers, what changes and why, and the ```suggestion block. The
    document's words are shown as inline code (inert: no markup, no mentions)."""
    acronyms = " ".join(sorted(_ACRONYM_CHARS.sub("_", a).replace("--", "-_") for a in suggestion.acronyms))
    changes = "; ".join(f"{markdown_code(r.old)} → {markdown_code(r.new)}" for r in suggestion.rewrites)
    longest = max((len(run) for run in re.findall(r"`+", suggestion.new)), default=0)
    fence = "`" * max(3, longest + 1)
    return (
        f"{marker(check_name, SUGGESTION_MARKER)}\n<!-- evalgate-fixes: {acronyms} -->\n"
        f"**acronym_expansion**: {changes or 'as `evalgate fix` writes this line'} (an acronym is "
        "spelt out at its first use, as Full Name (ABBR))\n\n"
        f"{fence}suggestion\n{suggestion.new}\n{fence}"
    )


def read_earlier(comment: dict[str, Any], check_name: str, author: str) -> EarlierSuggestion | None:
    """The suggestion a review comment holds when it is this check's and `author` wrote it; else None.
    GitHub sends `line: null` (or, in a strict reading of its schema, no `line`) for an outdated one."""
    body = str(comment.get("body") or "").replace("\r\n", "\n")
    if marker(check_name, SUGGESTION_MARKER) not in body or not written_by(comment, author):
        return None
    if comment.get("side", "RIGHT") != "RIGHT" or not isinstance(comment.get("path"), str):
        return None
    line = comment.get("line")
    fixes = _FIXES.search(body)
    block = _BLOCK.search(body)
    return EarlierSuggestion(
        comment["path"],
        line if isinstance(line, int) and not isinstance(line, bool) else None,
        block.group(2) if block else None,
        frozenset(fixes.group(1).split()) if fixes else frozenset(),
    )


def summary_lines(outcome: SuggestionOutcome, plan: SuggestionPlan) -> list[str]:
    """Markdown lines for the job summary: what was suggested, or why nothing could be."""
    if outcome.notice:
        lines = [f"**Suggested changes**: not posted: {outcome.notice}."]
    elif outcome.error:
        lines = [f"**Suggested changes**: not posted: the GitHub API failed ({outcome.error})."]
    else:
        counts = [f"{outcome.posted} posted in one review" if outcome.posted else "none new to post"]
        if outcome.already:
            counts.append(f"{outcome.already} already on the pull request")
        if outcome.not_repeated:
            changed = "suggested before; the author has changed the line since"
            counts.append(f"{outcome.not_repeated} not repeated ({changed})")
        lines = [f"**Suggested changes**: {'; '.join(counts)}."]
    lines += [f"- {markdown_code(note)}" for note in plan.notes]
    return lines
