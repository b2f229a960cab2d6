"""The suggestion review's parts: reading earlier suggestions back as GitHub sends them, a suggestion
whose line holds backticks, document text that stays inert, and API failures told from refusals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalgate.fix.lines import Rewrite
from evalgate.github.api import GitHubClient, RetryPolicy
from evalgate.github.review import post_suggestions, read_earlier, suggestion_body
from evalgate.github.suggest import Suggestion, SuggestionPlan
from tests.support.github_api import FakeGitHub, user_object
from tests.support.github_pulls import PULL_REVIEW_COMMENTS

BOT = "github-actions[bot]"
LINE = "Run ```make``` before the TPU job, as @octocat said."
FIXED = "Run ```make``` before the Tensor Processing Unit (TPU) job, as @octocat said."
SUGGESTION = Suggestion("a.md", 3, LINE, FIXED, (Rewrite("TPU", "TPU", "Tensor Processing Unit (TPU)"),))


def _comment(body: str, **fields: object) -> dict[str, object]:
    return {
        "path": "a.md",
        "line": 3,
        "side": "RIGHT",
        "body": body,
        "user": user_object(BOT, "Bot"),
        **fields,
    }


def test_a_line_with_backticks_gets_a_longer_fence_and_reads_back_the_same() -> None:
    body = suggestion_body(SUGGESTION, "evalgate")
    assert "\n````suggestion\n" + FIXED + "\n````" in body  # a ``` run inside: the fence is longer
    earlier = read_earlier(_comment(body), "evalgate", BOT)
    assert earlier is not None and (earlier.line, earlier.text, earlier.acronyms) == (3, FIXED, {"TPU"})
    # GitHub may give the body back with CRLF line ends
    again = read_earlier(_comment(body.replace("\n", "\r\n")), "evalgate", BOT)
    assert again == earlier


def test_document_words_in_the_explanation_are_inline_code() -> None:
    hostile = Suggestion("a.md", 1, "", "x", (Rewrite("TPU", "@octocat <img src=x>", "`TPU`"),))
    body = suggestion_body(hostile, "evalgate")
    explanation = body.split("\n")[2]
    outside_code = re.sub(r"(`+)(?:(?!\1).)+?\1", "", explanation)
    assert "@octocat" in explanation and "@" not in outside_code and "<" not in outside_code


@pytest.mark.parametrize(
    ("fields", "line"),
    [({}, 3), ({"line": None}, None), ({"line": "3"}, None)],
    ids=["current", "outdated: null", "not a number"],
)
def test_an_outdated_suggestion_has_no_line(fields: dict[str, object], line: int | None) -> None:
    body = suggestion_body(SUGGESTION, "evalgate")
    earlier = read_earlier(_comment(body, **fields), "evalgate", BOT)
    assert earlier is not None and earlier.line == line
    without = _comment(body)
    del without["line"]  # the fake's form: the OpenAPI description has no null line
    assert read_earlier(without, "evalgate", BOT).line is None  # type: ignore[union-attr]


def test_only_this_checks_own_suggestions_on_the_new_side_count() -> None:
    body = suggestion_body(SUGGESTION, "evalgate")
    assert read_earlier(_comment(body, user=user_object("mallory", "User")), "evalgate", BOT) is None
    assert read_earlier(_comment(body, side="LEFT"), "evalgate", BOT) is None
    assert read_earlier(_comment(body), "other-check", BOT) is None
    assert read_earlier(_comment("no marker"), "evalgate", BOT) is None


@pytest.mark.parametrize(("status", "notice"), [(403, True), (404, True), (500, False)])
def test_listing_refused_is_a_notice_and_a_failing_api_an_error(
    status: int, notice: bool, github_contract: Path
) -> None:
    with FakeGitHub(github_contract) as github:
        github.pulls.open_pull(7, "a" * 40, {"a.md": {3}})
        github.fault("GET", PULL_REVIEW_COMMENTS, status, times=9)
        client = GitHubClient("t", github.url, RetryPolicy(attempts=2, backoff=0))
        outcome = post_suggestions(client, "o/r", 7, SuggestionPlan("a" * 40, (SUGGESTION,)), "evalgate", BOT)
    assert outcome.posted == 0 and not github.pulls.reviews
    assert (outcome.notice is not None, outcome.error is not None) == (notice, not notice)
