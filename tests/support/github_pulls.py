"""Pull requests for the fake GitHub (tests/support/github_api.py): reviews and review comments.

The state GitHub keeps for a pull request's review, played as GitHub plays it:
- `open_pull(number, head, diff)`: a pull request whose diff, as GitHub shows it, holds `diff`'s lines
  on its right side (per path; `diff_lines` computes them from a real repository: the lines of every
  hunk with git's 3 lines of context, the lines a review comment may go on);
- `POST .../reviews` with `comments` (by `line` and `side`, or by `position`) creates the review and its
  comments on `commit_id`. A comment on a line outside the diff is refused with 422 and nothing is
  created, as GitHub does (the whole review fails); the refusal is kept in `refused`;
- `push_pull(number, head, diff, moved)` is a push to the head branch: every current comment moves to
  the line `moved(path, line)` gives (`line_moves` computes it from the two commits with git), or is
  outdated when its line changed or left the diff. GitHub then sends `line` and `position` as null;
  the OpenAPI description says they are integers (github/rest-api-description#1901), so the fake,
  whose answers are held to the description, leaves them out, which a client must read the same way;
- `GET .../comments` lists every review comment (paginated, `Link` as GitHub sends it), `GET
  .../reviews` the reviews, and `PUT .../dismissals` refuses a COMMENT review with 422 ("Can not
  dismiss a commented pull request review"), as GitHub does.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

PULL_REVIEWS = "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"
PULL_REVIEW_COMMENTS = "/repos/{owner}/{repo}/pulls/{pull_number}/comments"
REVIEW_DISMISSALS = "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals"
PULL_ROUTES = {PULL_REVIEWS, PULL_REVIEW_COMMENTS, REVIEW_DISMISSALS}
STAMP = "2026-12-03T12:00:00Z"
Moves = Callable[[str, int], "int | None"]
Answer = tuple[int, dict[str, str], Any]
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


class PullRequests:
    """Reviews and review comments per pull request, with the diff their lines must be in."""

    def __init__(self, url: Callable[[], str], take_id: Callable[[], int], per_page: int) -> None:
        self._url = url
        self._take_id = take_id
        self._per_page = per_page
        self.heads: dict[int, list[str]] = {}  # number -> every head sha, oldest first
        self.diffs: dict[int, dict[str, set[int]]] = {}
        self.reviews: dict[int, dict[str, Any]] = {}
        self.review_comments: dict[int, dict[str, Any]] = {}
        self.refused: list[str] = []  # every review GitHub would have answered with 422, and why

    def open_pull(self, number: int, head: str, diff: Mapping[str, set[int]]) -> None:
        self.heads[number] = [head]
        self.diffs[number] = {path: set(lines) for path, lines in diff.items()}

    def push_pull(self, number: int, head: str, diff: Mapping[str, set[int]], moved: Moves) -> None:
        self.heads[number].append(head)
        self.diffs[number] = {path: set(lines) for path, lines in diff.items()}
        for comment in self.review_comments.values():
            if comment["pull"] != number or comment["line"] is None:
                continue
            line = moved(comment["path"], comment["line"])
            if line is None or line not in self.diffs[number].get(comment["path"], set()):
                comment["line"] = None  # outdated: GitHub keeps it on the commit it was made on
            else:
                comment["line"], comment["commit_id"] = line, head

    def on_pull(self, number: int) -> list[dict[str, Any]]:
        """The review comments of one pull request, oldest first."""
        comments = sorted(self.review_comments.values(), key=lambda c: c["id"])
        return [c for c in comments if c["pull"] == number]

    def serve(
        self,
        method: str,
        route: str,
        path: str,
        query: Mapping[str, list[str]],
        body: Any,
        actor: dict[str, Any],
    ) -> Answer:
        segments = path.strip("/").split("/")
        number = int(segments[4])
        if number not in self.heads:
            return 404, {}, {"message": "Not Found"}
        if route == REVIEW_DISMISSALS:
            review = self.reviews.get(int(segments[6]))
            if review is None:
                return 404, {}, {"message": "Not Found"}
            if review["state"] == "COMMENTED":
                return 422, {}, {"message": "Can not dismiss a commented pull request review"}
            review["state"] = "DISMISSED"
            return 200, {}, self._review_object(review)
        if route == PULL_REVIEWS and method == "POST":
            return self._create_review(number, body or {}, actor)
        if route == PULL_REVIEWS:
            reviews = [r for r in sorted(self.reviews.values(), key=lambda r: r["id"]) if r["pull"] == number]
            return self._page(path, query, [self._review_object(r) for r in reviews])
        return self._page(path, query, [self._comment_object(c) for c in self.on_pull(number)])

    def _create_review(self, number: int, body: dict[str, Any], actor: dict[str, Any]) -> Answer:
        commit = body.get("commit_id", self.heads[number][-1])
        if commit not in self.heads[number]:
            return self._refuse(f"commit_id {commit} is not part of the pull request")
        event = body.get("event")
        if event in ("COMMENT", "REQUEST_CHANGES") and not body.get("body"):
            return self._refuse(f"a {event} review needs a body")
        placed = []
        for comment in body.get("comments", []):
            line = comment.get("line")
            if line is None or comment.get("side", "RIGHT") != "RIGHT" or "position" in comment:
                return self._refuse(f"{comment['path']}: only `line` on the RIGHT side is played here")
            if commit != self.heads[number][-1] or line not in self.diffs[number].get(comment["path"], set()):
                where = f"{comment['path']}:{line}"
                return self._refuse(f"{where}: pull request review thread line must be part of the diff")
            placed.append((comment, line))
        review_id = self._take_id()
        state = {"COMMENT": "COMMENTED", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}
        review = {
            "id": review_id,
            "pull": number,
            "body": body.get("body", ""),
            "state": state.get(event or "", "PENDING"),
            "commit_id": commit,
            "user": actor,
        }
        self.reviews[review_id] = review
        for comment, line in placed:
            comment_id = self._take_id()
            self.review_comments[comment_id] = {
                "id": comment_id,
                "pull": number,
                "review_id": review_id,
                "path": comment["path"],
                "line": line,
                "original_line": line,
                "commit_id": commit,
                "original_commit_id": commit,
                "body": comment["body"],
                "user": actor,
            }
        return 200, {}, self._review_object(review)

    def _refuse(self, why: str) -> Answer:
        self.refused.append(why)
        return 422, {}, {"message": "Unprocessable Entity", "errors": [why]}

    def _page(self, path: str, query: Mapping[str, list[str]], items: list[Any]) -> Answer:
        per_page = min(int(query.get("per_page", [self._per_page])[0]), self._per_page)
        page = int(query.get("page", ["1"])[0])
        headers = {}
        if page * per_page < len(items):
            headers["Link"] = f'<{self._url()}{path}?per_page={per_page}&page={page + 1}>; rel="next"'
        return 200, headers, items[(page - 1) * per_page : page * per_page]

    # ---- the contract's objects ----------------------------------------------------------------------
    def _review_object(self, review: dict[str, Any]) -> dict[str, Any]:
        pull = f"{self._url()}/repos/o/r/pulls/{review['pull']}"
        html = f"https://github.com/o/r/pull/{review['pull']}#pullrequestreview-{review['id']}"
        return {
            "id": review["id"],
            "node_id": f"PRR_{review['id']}",
            "user": review["user"],
            "body": review["body"],
            "state": review["state"],
            "html_url": html,
            "pull_request_url": pull,
            "_links": {"html": {"href": html}, "pull_request": {"href": pull}},
            "submitted_at": STAMP,
            "commit_id": review["commit_id"],
            "author_association": "CONTRIBUTOR",
        }

    def _comment_object(self, comment: dict[str, Any]) -> dict[str, Any]:
        url = f"{self._url()}/repos/o/r/pulls/comments/{comment['id']}"
        pull = f"{self._url()}/repos/o/r/pulls/{comment['pull']}"
        html = f"https://github.com/o/r/pull/{comment['pull']}#discussion_r{comment['id']}"
        where = {} if comment["line"] is None else {"line": comment["line"]}
        return {
            "url": url,
            "pull_request_review_id": comment["review_id"],
            "id": comment["id"],
            "node_id": f"PRRC_{comment['id']}",
            "diff_hunk": f"@@ -{comment['original_line']},1 +{comment['original_line']},1 @@",
            "path": comment["path"],
            **where,
            "commit_id": comment["commit_id"],
            "original_commit_id": comment["original_commit_id"],
            "user": comment["user"],
            "body": comment["body"],
            "created_at": STAMP,
            "updated_at": STAMP,
            "html_url": html,
            "pull_request_url": pull,
            "author_association": "CONTRIBUTOR",
            "_links": {"self": {"href": url}, "html": {"href": html}, "pull_request": {"href": pull}},
            "original_line": comment["original_line"],
            "side": "RIGHT",
            "start_line": None,
            "original_start_line": None,
            "start_side": None,
            "subject_type": "line",
        }


# ---- the diff as GitHub shows it, from a real repository ------------------------------------------------


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


def _patches(raw: bytes) -> dict[str, list[tuple[int, int, int, int]]]:
    """path -> hunks (old start, old count, new start, new count) of a plain `git diff`."""
    hunks: dict[str, list[tuple[int, int, int, int]]] = {}
    path = None
    for line in raw.split(b"\n"):
        if line.startswith(b"+++ "):
            path = None if line == b"+++ /dev/null" else line[6:].decode()
            if path is not None:
                hunks.setdefault(path, [])
        elif (match := _HUNK.match(line)) and path is not None:
            a, b, c, d = match.groups()
            hunks[path].append((int(a), int(b or b"1"), int(c), int(d or b"1")))
    return hunks


def _right_side(repo: Path, base: str, head: str, context: int) -> dict[str, set[int]]:
    start = _git(repo, "merge-base", base, head).decode().split()[0]
    raw = _git(repo, "diff", "--no-color", "--no-ext-diff", f"-U{context}", start, head)
    return {path: {n for *_, c, d in hunks for n in range(c, c + d)} for path, hunks in _patches(raw).items()}


def diff_lines(repo: Path, base: str, head: str) -> dict[str, set[int]]:
    """The right side of a pull request's diff as GitHub shows it: from the merge base of `base` and
    `head` to `head`, every line of every hunk with 3 lines of context (where a comment may go)."""
    return _right_side(repo, base, head, 3)


def added_lines(repo: Path, base: str, head: str) -> dict[str, set[int]]:
    """The lines of `head` a pull request from `base` adds (the `+` lines of GitHub's diff)."""
    return _right_side(repo, base, head, 0)


def line_moves(repo: Path, old: str, new: str) -> Moves:
    """Where a line of `old` is in `new` (None when a hunk changed or removed it), as GitHub moves a
    review comment on a push."""
    hunks = _patches(_git(repo, "diff", "--no-color", "--no-ext-diff", "-U0", old, new))

    def moved(path: str, line: int) -> int | None:
        shift = 0
        for a, b, _c, d in hunks.get(path, []):
            if b and a <= line < a + b:
                return None
            if (b and a + b - 1 < line) or (not b and a < line):
                shift += d - b
        return line + shift

    return moved
