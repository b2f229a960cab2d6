"""The sticky comment belongs to the token's identity, through entrypoint.py on a real pull request
checkout against the contract-checked fake GitHub: a contributor's comment carrying evalgate's hidden
marker is never edited in place of evalgate's own, and a refused edit still leaves a failure comment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evalgate.github.comment import marker
from tests.github.test_entrypoint import ActionRun, _event, _run_action, _workspace
from tests.support.github_api import ISSUE_COMMENT, FakeGitHub

FORGED = marker("evalgate") + "\n## evalgate: ✅ PASS\n\nEvery file passes."


@pytest.fixture
def github(github_contract: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(github_contract) as server:
        yield server
        assert server.violations == []


def _run_pr(tmp_path: Path, events_dir: Path, github: FakeGitHub) -> ActionRun:
    ws = _workspace(tmp_path, pr=True)
    event = _event(events_dir, "pull_request.synchronize.22.json", ws, tmp_path)
    run = _run_action(
        tmp_path, ws, "pull_request", event, github.url, {"comment": "on-failure"}, sha=ws.merge
    )
    assert run.returncode == 1, run.stdout + run.stderr  # the item fails
    return run


def test_a_contributors_comment_with_the_marker_is_not_edited_in_place_of_evalgates(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    # the contributor's comment comes first; evalgate's own, from an earlier passing run, after it
    forged = github.add_comment(7, FORGED, by="mallory")
    ours = github.add_comment(
        7, marker("evalgate") + "\n## evalgate: ✅ PASS (an earlier run)", by="github-actions[bot]"
    )
    _run_pr(tmp_path, events_dir, github)

    assert github.comments[forged]["body"] == FORGED  # untouched
    assert "❌ FAIL" in github.comments[ours]["body"]  # evalgate's own says what this run found
    assert len(github.comments) == 2


def test_a_contributors_marker_comment_github_will_not_let_it_edit_still_leaves_a_failure_comment(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    forged = github.add_comment(7, FORGED, by="mallory")
    github.fault("PATCH", ISSUE_COMMENT, 403)  # GitHub refuses edits of others' comments to this token
    _run_pr(tmp_path, events_dir, github)

    assert github.comments[forged]["body"] == FORGED
    (new,) = [c for c in github.comments.values() if c["id"] != forged]
    assert new["user"]["login"] == "github-actions[bot]" and "❌ FAIL" in new["body"]


def test_a_refused_edit_of_evalgates_own_comment_posts_a_new_one(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ours = github.add_comment(7, marker("evalgate") + "\nold results", by="github-actions[bot]")
    github.fault("PATCH", ISSUE_COMMENT, 404)  # deleted, or the conversation locked, since it was listed
    run = _run_pr(tmp_path, events_dir, github)

    (new,) = [c for c in github.comments.values() if c["id"] != ours]
    assert "❌ FAIL" in new["body"]
    assert f"::warning::evalgate could not publish: comment {ours} could not be edited" in run.stdout
