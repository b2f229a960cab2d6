"""Change detection never silently drops a document (issue 26): each attack of the review of 2026-12-03,
run through entrypoint.py as the container runs it, on real git repositories built here, against the
contract-checked fake GitHub. Before the fix each one turned a failing document into a green check
(0 files, `success`) or into no check run at all (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.checks.research_item import research_item
from tests.github.test_entrypoint import (
    BROKEN_ITEM,
    NEW_ITEM,
    OLD_ITEM,
    ROOT,
    ActionRun,
    Workspace,
    _event,
    _run_action,
)
from tests.support.github_api import FakeGitHub
from tests.support.gitrepo import GitRepo
from tests.support.timings import without_timings

GOOD_ITEM = research_item()
DRAFT = "Research/drafts/2026-12-02-draft.md"


def pull_request(
    tmp_path: Path,
    base_files: Mapping[str, str | bytes | None],
    pr_files: Mapping[str, str | bytes | None],
    *,
    base_links: Mapping[str, str] | None = None,
    pr_links: Mapping[str, str] | None = None,
) -> Workspace:
    """main with a passing OLD_ITEM and `base_files`, a feature branch with `pr_files`, and the test
    merge commit that actions/checkout leaves on pull_request, checked out."""
    repo = GitRepo.init(tmp_path / "workspace")
    for rel, target in (base_links or {}).items():
        repo.symlink(rel, target)
    base = repo.commit("base", {OLD_ITEM: GOOD_ITEM, "README.md": "# r\n", **base_files})
    repo.checkout("feature", new=True)
    for rel, target in (pr_links or {}).items():
        repo.symlink(rel, target)
    head = repo.commit("the pull request", dict(pr_files))
    repo.checkout("main")
    repo.checkout("pull-merge", new=True)
    merge = repo.merge("feature", "Merge feature into main")
    return Workspace(repo, base, head, merge)


def run_pr(tmp_path: Path, events_dir: Path, ws: Workspace, api: str, **inputs: str) -> ActionRun:
    event = _event(events_dir, "pull_request.synchronize.22.json", ws, tmp_path)
    return _run_action(tmp_path, ws, "pull_request", event, api, inputs=inputs, sha=ws.merge)


def verdicts(run: ActionRun) -> dict[str, str]:
    assert run.results is not None, run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    return {r["path"]: r["verdict"] for r in run.results["results"]}


def not_evaluated(run: ActionRun) -> dict[str, str]:
    assert run.results is not None, run.stdout + run.stderr
    return {entry["path"]: entry["reason"] for entry in run.results.get("not_evaluated", [])}


def check_run(github: FakeGitHub) -> dict[str, Any]:
    (posted,) = github.check_runs.values()
    return posted


def cli_results(workspace: Path, *targets: str) -> dict[str, str]:
    """`evalgate check [TARGET...] --format json` in the workspace: path -> verdict."""
    proc = subprocess.run(
        [sys.executable, "-m", "evalgate", "check", "--format", "json", *targets],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": os.environ["PATH"], "HOME": str(workspace.parent), "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode in (0, 1), proc.stderr
    return {r["path"]: r["verdict"] for r in json.loads(proc.stdout)["results"]}


# ------------------------------------------------------------------ 1. attributes and content sniffing


@pytest.mark.parametrize(
    ("where", "line"),
    [(".gitattributes", "*.md -diff\n"), ("Research/completed/.gitattributes", "*.md binary\n")],
)
def test_a_gitattributes_line_in_the_pr_cannot_hide_a_document(
    where: str, line: str, tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """`-diff` or `binary` made git report the change as binary: 0 files, `success`."""
    ws = pull_request(tmp_path, {}, {where: line, NEW_ITEM: BROKEN_ITEM})
    run = run_pr(tmp_path, events_dir, ws, github.url)

    assert verdicts(run) == {NEW_ITEM: "FAIL"}
    assert run.returncode == 1
    assert check_run(github)["conclusion"] == "failure"
    # the attributes file is reported as a change to the policy, and marked on its line
    assert run.results is not None
    assert any(where in change for change in run.results["policy_changes"]), run.results["policy_changes"]
    assert f"::warning file={where}," in run.stdout


def test_attributes_merged_earlier_cannot_hide_a_later_push(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """Once on main, `*.md binary` hid every later change from the push gate."""
    repo = GitRepo.init(tmp_path / "workspace")
    base = repo.commit(
        "attributes", {"Research/completed/.gitattributes": "*.md binary\n", "README.md": "r\n"}
    )
    head = repo.commit("a failing item", {NEW_ITEM: BROKEN_ITEM})
    ws = Workspace(repo, base, head)
    run = _run_action(tmp_path, ws, "push", _event(events_dir, "push.4.json", ws, tmp_path), github.url)

    assert verdicts(run) == {NEW_ITEM: "FAIL"} and run.returncode == 1
    assert check_run(github)["head_sha"] == head


def test_a_document_with_a_nul_byte_is_evaluated_and_errors(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """git calls a file with a NUL byte in its first 8,000 bytes binary: it was skipped, `success`."""
    nul = "Research/completed/2026-12-03-nul.md"
    ws = pull_request(tmp_path, {}, {nul: BROKEN_ITEM.replace("It depends.", "It\0depends.").encode()})
    run = run_pr(tmp_path, events_dir, ws, github.url)

    assert verdicts(run) == {nul: "ERROR"} and run.returncode == 1
    assert run.results is not None
    (result,) = run.results["results"]
    assert "binary file (NUL byte at offset" in result["error"]
    assert check_run(github)["conclusion"] == "failure"


# ------------------------------------------------------------------ 2. a criss-cross merge base


def test_a_criss_cross_merge_cannot_hide_a_revert(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """main fixed an item (B) and merged a side branch (X); the PR head merges the same two commits
    the other way round and keeps the item's old, failing text. `git merge-base` picks X, where the
    item is that old text, so `base...head` listed nothing; the checked-out merge commit holds it."""
    repo = GitRepo.init(tmp_path / "workspace")
    first = repo.commit("an item that fails", {OLD_ITEM: BROKEN_ITEM, "README.md": "r\n"})
    fixed = repo.commit("fix the item", {OLD_ITEM: GOOD_ITEM})
    repo.checkout("side", new=True, start=first)
    side = repo.commit("side work", {"notes.txt": "n\n"})  # later than `fixed`: merge-base picks it
    repo.checkout("main")
    base = repo.merge("side", "main merges side")
    repo.checkout("feature", new=True, start=side)
    repo.run("merge", "-q", "--no-ff", "--no-commit", fixed)
    head = repo.commit("merge main's fix, keeping the old item", {OLD_ITEM: BROKEN_ITEM})
    assert repo.run("merge-base", base, head) == side
    assert repo.run("diff", "--name-only", f"{base}...{head}") == ""  # what the gate used to see
    repo.checkout("main")
    repo.checkout("pull-merge", new=True)
    merge = repo.merge("feature", "Merge feature into main")
    assert (repo.path / OLD_ITEM).read_text() == BROKEN_ITEM
    ws = Workspace(repo, base, head, merge)

    run = run_pr(tmp_path, events_dir, ws, github.url)

    assert verdicts(run) == {OLD_ITEM: "FAIL"} and run.returncode == 1
    posted = check_run(github)
    assert posted["conclusion"] == "failure" and posted["head_sha"] == head


# ------------------------------------------------------------------ 3. directory symlinks


def test_a_symlinked_directory_is_evaluated_as_the_cli_does(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """A link under Research/completed/ to a failing draft: the CLI's default glob evaluates and fails
    the draft through the link; the action found 0 files."""
    ws = pull_request(
        tmp_path, {DRAFT: BROKEN_ITEM}, {}, pr_links={"Research/completed/from-drafts": "../drafts"}
    )
    run = run_pr(tmp_path, events_dir, ws, github.url)

    through = "Research/completed/from-drafts/2026-12-02-draft.md"
    assert verdicts(run) == {through: "FAIL"} and run.returncode == 1
    assert cli_results(ws.path) == {OLD_ITEM: "PASS", through: "FAIL"}
    assert run.results is not None
    # a pull request gates on what it makes worse: the CLI does the same with --gate-on new --base
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalgate",
            "check",
            "--format",
            "json",
            "--gate-on",
            "new",
            "--base",
            ws.base,
            through,
        ],
        cwd=ws.path,
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
    )
    assert without_timings(run.results["results"]) == without_timings(json.loads(cli.stdout)["results"])
    assert run.results["results"][0]["gate_on"]["base_path"] is None  # the link is new: no base version
    assert check_run(github)["conclusion"] == "failure"


def test_a_change_behind_a_symlinked_directory_on_main_is_evaluated(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """The link is already on main; the pull request only edits the draft it leads to."""
    link = {"Research/completed/from-drafts": "../drafts"}
    ws = pull_request(tmp_path, {DRAFT: GOOD_ITEM}, {DRAFT: BROKEN_ITEM}, base_links=link)
    run = run_pr(tmp_path, events_dir, ws, github.url)

    assert verdicts(run) == {"Research/completed/from-drafts/2026-12-02-draft.md": "FAIL"}
    assert run.returncode == 1


def test_a_symlinked_directory_leading_out_of_the_workspace_is_refused(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# a runner file\n")
    ws = pull_request(tmp_path, {}, {}, pr_links={"Research/completed/out": str(outside)})
    run = run_pr(tmp_path, events_dir, ws, github.url)

    assert verdicts(run) == {"Research/completed/out": "ERROR"} and run.returncode == 1
    assert run.results is not None
    assert "outside the workspace" in run.results["results"][0]["error"]
    assert "runner file" not in json.dumps(run.results)


# ------------------------------------------------------------------ 4. names the glob misses


NEAR_MISSES = {
    "Research/Completed/2026-12-03-case.md": "letter case",
    "Research/completed/2026-12-03-space.md ": "ends with a space",
    "Research/completed /2026-12-03-dir-space.md": "ends with a space",
    "Ｒesearch/completed/2026-12-03-wide.md": "full-width",
    "Research/completed/2026-12-03-wide-ext.ｍｄ": "full-width",
    "Research/completed/figure.txt": "not markdown",
}


def test_markdown_extensions_in_any_case_are_evaluated_and_near_misses_are_named(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    upper, long_form = "Research/completed/2026-12-03-upper.MD", "Research/completed/2026-12-03-long.markdown"
    pr_files: dict[str, str | None] = {upper: BROKEN_ITEM, long_form: BROKEN_ITEM, OLD_ITEM: None}
    pr_files.update(dict.fromkeys(NEAR_MISSES, BROKEN_ITEM))
    ws = pull_request(tmp_path, {}, pr_files)
    run = run_pr(tmp_path, events_dir, ws, github.url, comment="always")

    assert verdicts(run) == {upper: "FAIL", long_form: "FAIL"} and run.returncode == 1
    named = not_evaluated(run)
    assert set(named) == {*NEAR_MISSES, OLD_ITEM}, named
    assert named[OLD_ITEM] == "deleted"
    for path, why in NEAR_MISSES.items():
        assert "not matched by paths glob 'Research/completed/**/*.md'" in named[path], (path, named[path])
        assert why in named[path], (path, named[path])
    # named in the job summary, the check run and the comment too, with the reason
    posted = check_run(github)
    (comment,) = github.comments.values()
    for text in (run.summary, posted["output"]["summary"], comment["body"]):
        assert "Changed files not evaluated" in text
        assert "2026-12-03-case.md" in text and "ends with a space" in text and "deleted" in text
    # the CLI walks and globs the same way
    assert cli_results(ws.path, "Research/completed") == {upper: "FAIL", long_form: "FAIL"}
    assert cli_results(ws.path) == {upper: "FAIL", long_form: "FAIL"}


# ------------------------------------------------------------------ 5. names the diff parse broke on


def test_a_name_with_a_newline_and_a_space_gets_a_check_run(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """`a\\n+++ b/x\\n.md` broke the text diff's parse: exit 2 and no check run."""
    odd = "Research/completed/a\n+++ b/x\n.md"
    ws = pull_request(tmp_path, {}, {odd: BROKEN_ITEM, NEW_ITEM: BROKEN_ITEM})
    run = run_pr(tmp_path, events_dir, ws, github.url)

    assert verdicts(run) == {odd: "FAIL", NEW_ITEM: "FAIL"} and run.returncode == 1
    assert check_run(github)["conclusion"] == "failure"


def test_a_name_that_is_not_utf8_gets_a_check_run(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """git stores any bytes as a name; the results file, the summary and the API carry UTF-8 only. The
    run crashed writing the results (a traceback, no check run); the bytes are now shown as `\\xNN`."""
    evaluated = os.fsdecode(b"Research/completed/bad\xff.md")
    missed = os.fsdecode(b"Research/Completed/worse\xfe.md")
    ws = pull_request(tmp_path, {}, {evaluated: BROKEN_ITEM, missed: BROKEN_ITEM})
    run = run_pr(tmp_path, events_dir, ws, github.url)

    assert verdicts(run) == {"Research/completed/bad\\xff.md": "FAIL"} and run.returncode == 1
    assert set(not_evaluated(run)) == {"Research/Completed/worse\\xfe.md"}
    assert check_run(github)["conclusion"] == "failure"
    assert "worse\\xfe.md" in run.summary
