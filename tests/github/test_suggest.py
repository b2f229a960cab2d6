"""Suggested changes on a pull request, through entrypoint.py on a real repository against the
contract-checked fake GitHub (its reviews and review comments held to GitHub's OpenAPI description,
a comment off the diff refused with 422 as GitHub refuses it): one review per run, each suggestion
once across pushes, a changed line not suggested again, nothing outside the diff, and a token that
may not review gets a notice and the same exit code."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.github.test_entrypoint import ROOT, ActionRun, Workspace, _event, _run_action
from tests.support.github_api import CHECK_RUNS, STATUSES, FakeGitHub
from tests.support.github_pulls import PULL_REVIEWS, added_lines, diff_lines, line_moves
from tests.support.gitrepo import GitRepo
from tests.support.timings import without_timings

ITEM = "Research/completed/2026-11-01-accelerators.md"
POLICY = "acronyms:\n  expansions:\n    TPU: Tensor Processing Unit\n    NPU: Neural Processing Unit\n"
POLICY += "    HBM: High Bandwidth Memory\n"
HEADER = """\
---
title: Do accelerators change training cost?
---
# Do accelerators change training cost?

## Research Question

Does an NPU lower the cost of inference for small models?

## Findings

### Executive Summary

"""
BASE_ITEM = HEADER + "To be written.\n"
# The pull request writes the summary: TPU and LLM are first used on lines it adds (14, 15); the NPU on
# line 8 was there before, so `evalgate fix` expands it but no suggestion may touch it.
FIRST_PUSH = (
    HEADER
    + "TPU pods cut the cost of one training run by a third.\nAn LLM trained on them converged sooner.\n"
)
# The second push adds a line above (every line below moves down by one), rewrites the LLM sentence
# without expanding it, and adds a line that first uses HBM.
SECOND_PUSH = (
    HEADER.replace("small models?\n", "small models?\nDoes memory bandwidth bound it?\n")
    + "TPU pods cut the cost of one training run by a third.\n"
    + "An LLM trained on them converged in fewer steps.\n"
    + "HBM capacity limited the batch size.\n"
)


@pytest.fixture
def github(github_contract: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(github_contract) as server:
        yield server
        assert server.violations == []
        assert server.pulls.refused == []  # no review GitHub would have answered with 422


def _pull_request(tmp_path: Path) -> tuple[GitRepo, Workspace]:
    repo = GitRepo.init(tmp_path / "workspace")
    base = repo.commit("base", {ITEM: BASE_ITEM, ".evalgate.yml": POLICY, "README.md": "# r\n"})
    repo.checkout("feature", new=True)
    head = repo.commit("write the summary", {ITEM: FIRST_PUSH})
    return repo, Workspace(repo, base, head, _merge(repo, "pull-1"))


def _merge(repo: GitRepo, branch: str) -> str:
    """What actions/checkout leaves on pull_request: the test merge commit of the head into main."""
    repo.checkout("main")
    repo.checkout(branch, new=True)
    return repo.merge("feature", "Merge feature into main")


def _push(repo: GitRepo, ws: Workspace, content: str, branch: str) -> Workspace:
    repo.checkout("feature")
    head = repo.commit("another push", {ITEM: content})
    return Workspace(repo, ws.base, head, _merge(repo, branch))


def _run(
    tmp_path: Path,
    events_dir: Path,
    github: FakeGitHub,
    ws: Workspace,
    inputs: dict[str, str] | None = None,
    fork: bool = False,
) -> ActionRun:
    event = _event(events_dir, "pull_request.synchronize.22.json", ws, tmp_path)
    if fork:
        payload = json.loads(event.read_text())
        payload["pull_request"]["head"]["repo"]["full_name"] = "someone/research"
        event.write_text(json.dumps(payload))
    run = _run_action(
        tmp_path, ws, "pull_request", event, github.url, {"suggest": "true", **(inputs or {})}, sha=ws.merge
    )
    assert run.results is not None, run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    return run


def _reviews(github: FakeGitHub) -> list[dict[str, Any]]:
    return sorted(github.pulls.reviews.values(), key=lambda r: r["id"])


def _comments_of(github: FakeGitHub, review: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in github.pulls.on_pull(7) if c["review_id"] == review["id"]]


def _suggested(comment: dict[str, Any]) -> str:
    match = re.search(r"^(`{3,})suggestion\n(.*?)\n\1$", comment["body"], re.M | re.S)
    assert match, comment["body"]
    return match.group(2)


def _fixed_by_the_cli(tmp_path: Path, content: str) -> list[str]:
    """The file's lines after `evalgate fix` (the command a user runs), with the same policy."""
    work = tmp_path / "cli-fix"
    work.mkdir(exist_ok=True)
    (work / ".evalgate.yml").write_text(POLICY)
    (work / "item.md").write_text(content)
    proc = subprocess.run(
        [sys.executable, "-m", "evalgate", "fix", "item.md"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(work), "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    return (work / "item.md").read_text().split("\n")


def test_a_suggestion_review_is_posted_once_across_two_pushes_and_only_on_added_lines(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    repo, ws = _pull_request(tmp_path)
    github.pulls.open_pull(7, ws.head, diff_lines(repo.path, ws.base, ws.head))
    first = _run(tmp_path, events_dir, github, ws)

    (review,) = _reviews(github)
    assert review["state"] == "COMMENTED" and review["commit_id"] == ws.head  # the head, not the merge
    placed = {(c["path"], c["line"]): _suggested(c) for c in _comments_of(github, review)}
    fixed = _fixed_by_the_cli(tmp_path, FIRST_PUSH)
    # exactly the lines the pull request adds that `evalgate fix` changes, each as fix writes it; the
    # NPU on line 8 is fixed by the command but was not written in this pull request
    assert placed == {(ITEM, 14): fixed[13], (ITEM, 15): fixed[14]}
    assert fixed[7] != FIRST_PUSH.split("\n")[7]
    assert placed[(ITEM, 14)].startswith("Tensor Processing Unit (TPU) pods")
    assert placed[(ITEM, 15)].startswith("A Large Language Model (LLM) trained")
    assert {line for _, line in placed} <= added_lines(repo.path, ws.base, ws.head)[ITEM]
    assert "**Suggested changes**: 2 posted in one review." in first.summary

    # The second push: the TPU line moves down one line unchanged, the LLM line is rewritten without the
    # expansion (GitHub marks that suggestion outdated), and a new line first uses HBM.
    old_head = ws.head
    ws = _push(repo, ws, SECOND_PUSH, "pull-2")
    github.pulls.push_pull(
        7, ws.head, diff_lines(repo.path, ws.base, ws.head), line_moves(repo.path, old_head, ws.head)
    )
    second = _run(tmp_path, events_dir, github, ws)

    first_review, second_review = _reviews(github)
    assert first_review == review
    (new,) = _comments_of(github, second_review)
    fixed = _fixed_by_the_cli(tmp_path, SECOND_PUSH)
    assert (new["path"], new["line"], _suggested(new)) == (ITEM, 17, fixed[16])
    assert _suggested(new).startswith("High Bandwidth Memory (HBM) capacity")
    assert second_review["commit_id"] == ws.head
    # the TPU suggestion GitHub moved to line 15 was not posted again, nor the LLM one on its new words
    assert "1 posted in one review; 1 already on the pull request; 1 not repeated" in second.summary
    assert second.returncode == first.returncode


def test_a_run_with_nothing_new_posts_no_review(tmp_path: Path, events_dir: Path, github: FakeGitHub) -> None:
    repo, ws = _pull_request(tmp_path)
    github.pulls.open_pull(7, ws.head, diff_lines(repo.path, ws.base, ws.head))
    for _ in range(2):  # a re-run of the same commit
        run = _run(tmp_path, events_dir, github, ws)
    assert len(_reviews(github)) == 1
    assert "**Suggested changes**: none new to post; 2 already on the pull request." in run.summary


def test_a_contributors_copy_of_a_suggestion_does_not_stop_evalgates_own(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """Only evalgate's own earlier suggestions count: one written by someone else with the same marker,
    line and text is not evalgate's, so evalgate still posts its own."""
    from evalgate.github.review import suggestion_body
    from evalgate.github.suggest import Suggestion

    repo, ws = _pull_request(tmp_path)
    github.pulls.open_pull(7, ws.head, diff_lines(repo.path, ws.base, ws.head))
    fixed = _fixed_by_the_cli(tmp_path, FIRST_PUSH)
    forged = suggestion_body(Suggestion(ITEM, 14, "", fixed[13], ()), "evalgate")
    github.act_as_user("mallory")
    github.pulls.serve(
        "POST",
        PULL_REVIEWS,
        "/repos/o/r/pulls/7/reviews",
        {},
        {"commit_id": ws.head, "event": "COMMENT", "body": "lgtm", "comments": [
            {"path": ITEM, "line": 14, "side": "RIGHT", "body": forged}
        ]},
        github.actor,
    )  # fmt: skip
    github.act_as_app("github-actions", 15368)
    _run(tmp_path, events_dir, github, ws)

    _, ours = _reviews(github)
    assert {c["line"] for c in _comments_of(github, ours)} == {14, 15}


def test_a_token_that_may_not_review_gets_a_notice_and_the_same_exit_code(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    repo, ws = _pull_request(tmp_path)
    github.pulls.open_pull(7, ws.head, diff_lines(repo.path, ws.base, ws.head))
    plain = _run(tmp_path, events_dir, github, ws, {"suggest": "false"})
    assert not github.calls_to("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/comments")

    github.fault("POST", PULL_REVIEWS, 403)  # no pull-requests: write
    refused = _run(tmp_path, events_dir, github, ws)

    assert refused.returncode == plain.returncode == 1
    assert github.calls_to("POST", PULL_REVIEWS) and not github.pulls.reviews
    notices = [line for line in refused.stdout.splitlines() if line.startswith("::notice")]
    assert any("suggested changes not posted" in n and "pull-requests: write" in n for n in notices), notices
    assert (
        "**Suggested changes**: not posted: the token may not write pull request reviews" in refused.summary
    )
    assert "could not publish" not in refused.stdout  # a notice, not a warning
    assert without_timings(refused.results) == without_timings(plain.results)


def test_a_fork_pull_request_gets_a_notice_and_no_review_call(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    repo, ws = _pull_request(tmp_path)
    github.pulls.open_pull(7, ws.head, diff_lines(repo.path, ws.base, ws.head))
    # a fork's pull_request token is read-only: GitHub refuses the check run and the status
    github.fault("POST", CHECK_RUNS, 403)
    github.fault("POST", STATUSES, 403)
    run = _run(tmp_path, events_dir, github, ws, {"comment": "never"}, fork=True)

    assert run.returncode == 1
    assert not github.calls_to("POST", PULL_REVIEWS)
    assert any(
        line.startswith("::notice") and "fork pull request" in line for line in run.stdout.splitlines()
    ), run.stdout
    assert "**Suggested changes**: not posted: this is a fork pull request" in run.summary


def test_suggest_must_be_true_or_false(tmp_path: Path, events_dir: Path, github: FakeGitHub) -> None:
    _, ws = _pull_request(tmp_path)
    run = _run_action(
        tmp_path,
        ws,
        "pull_request",
        _event(events_dir, "pull_request.synchronize.22.json", ws, tmp_path),
        github.url,
        {"suggest": "yes"},
        sha=ws.merge,
    )
    assert run.returncode == 2
    assert "input 'suggest' must be true or false, got 'yes'" in run.stdout


def test_suggestions_name_the_head_commits_lines_not_the_merge_commits(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """The checkout is the test merge commit: once the base has moved, its lines are not the head's,
    and a suggestion placed by them would land on the wrong line (or off the diff: 422)."""
    repo = GitRepo.init(tmp_path / "workspace")
    start = repo.commit("start", {ITEM: BASE_ITEM, ".evalgate.yml": POLICY})
    repo.checkout("feature", new=True)
    head = repo.commit("write the summary", {ITEM: FIRST_PUSH})
    repo.checkout("main")
    moved = BASE_ITEM.replace("small models?\n", "small models?\nAnd for large ones?\nAt what batch size?\n")
    base = repo.commit("main moves on", {ITEM: moved})
    ws = Workspace(repo, base, head, _merge(repo, "pull-1"))
    merged = (repo.path / ITEM).read_text().split("\n")
    assert merged[15].startswith("TPU pods")  # line 16 in the checkout, line 14 at the head
    github.pulls.open_pull(7, head, diff_lines(repo.path, base, head))
    assert start != base
    _run(tmp_path, events_dir, github, ws)

    (review,) = _reviews(github)
    assert {c["line"] for c in _comments_of(github, review)} == {14, 15}


def test_review_lines_are_those_every_merge_base_adds(tmp_path: Path) -> None:
    """In a criss-cross history git has two merge bases and GitHub diffs from one of them: a line only
    one of the two diffs adds may be off GitHub's diff, so it gets no suggestion."""
    from evalgate.github.changes import changed_files
    from evalgate.github.suggest import review_lines

    name = "Research/completed/x.md"
    lines = [f"line {n}\n" for n in range(1, 11)]
    repo = GitRepo.init(tmp_path / "repo")
    repo.commit("root", {name: "".join(lines)})
    repo.checkout("x", new=True)
    x = repo.commit("x edits line 2", {name: "".join([*lines[:1], "line 2 by x\n", *lines[2:]])})
    repo.checkout("main")
    y = repo.commit("y edits line 9", {name: "".join([*lines[:8], "line 9 by y\n", *lines[9:]])})
    repo.checkout("y-tip", new=True)  # y, kept apart from main's merge below
    repo.checkout("main")
    repo.merge("x", "main takes x")
    repo.checkout("feature", new=True, start=x)
    repo.merge("y-tip", "feature takes y")  # both merges join x and y: a criss-cross
    both = (repo.path / name).read_text().split("\n")
    head = repo.commit(
        "feature adds line 5", {name: "\n".join([*both[:4], "line 4.5 by feature", *both[4:]])}
    )
    base = repo.head("main")
    assert sorted(repo.run("merge-base", "--all", base, head).split()) == sorted([x, y])

    assert review_lines(repo.path, base, head, "Research/completed/**/*.md") == {name: ((5, 5),)}
    (union,) = changed_files(repo.path, base, head, "Research/completed/**/*.md", three_dot=True)
    assert set(union.added_lines) > {(5, 5)}  # each merge base's diff alone adds line 2 or line 10 too


def test_with_research_review_the_em_dashes_fix_writes_are_suggested_too(tmp_path: Path) -> None:
    """A suggestion is the edit `evalgate fix` writes: with a rubric that has `em_dashes`
    (research-review), that includes the em-dashes whose sentence decides the replacement; a line
    the pull request does not add gets none."""
    from evalgate.config import Config
    from evalgate.github.suggest import plan_suggestions

    old = "Old prose — kept as it was.\n"
    repo = GitRepo.init(tmp_path / "repo")
    base = repo.commit("base", {ITEM: BASE_ITEM + old})
    added = "The two concerns — state and metadata — stay apart.\n"
    head = repo.commit("write", {ITEM: BASE_ITEM + old + added})
    payload = {"pull_request": {"base": {"sha": base}, "head": {"sha": head, "repo": None}}}
    config = Config(rubric="research-review")

    plan = plan_suggestions(repo.path, config, "pull_request", payload, [ITEM])
    assert plan is not None
    line = (BASE_ITEM + old).count("\n") + 1
    assert [(s.line, s.new) for s in plan.suggestions] == [
        (line, "The two concerns (state and metadata) stay apart.")
    ]
    assert [
        s.line for s in plan_suggestions(repo.path, Config(), "pull_request", payload, [ITEM]).suggestions
    ] == []
