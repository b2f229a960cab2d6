"""The container runs as root; the runner's workspace belongs to its user (uid 1001 on GitHub's
runners). entrypoint.py run as root on such a workspace must leave nothing there owned by root: not
the results file, not the judge reply cache (a directory, which the runner's user could not empty),
not what git writes into .git. Runs only as root (as the container does); skipped otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalgate.github.ownership import Handover, give_to_workspace_owner
from tests.support.gitrepo import GitRepo
from tests.support.judge_user import open_to_judges

ROOT = Path(__file__).resolve().parents[2]
RUNNER_UID, RUNNER_GID = 1001, 1002  # not root's, and different from each other
ITEM = "Research/completed/2026-12-01-item.md"

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root, as a container action runs"
)


def _chown_tree(path: Path, uid: int, gid: int) -> None:
    for entry in [path, *path.rglob("*")]:
        os.chown(entry, uid, gid, follow_symlinks=False)


def _owned_by_root(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.lstat().st_uid == 0)


def _runner_workspace(tmp_path: Path) -> Path:
    repo = GitRepo.init(tmp_path / "workspace")
    repo.commit("an item", {ITEM: "# An item\n\n## Research Question\n\nWhy?\n", "README.md": "# r\n"})
    _chown_tree(repo.path, RUNNER_UID, RUNNER_GID)
    return repo.path


def _judge(tmp_path: Path) -> str:
    """A command judge replying with a complete score table, so its reply is cached."""
    dimensions = (
        "executive_summary_first_sentence",
        "claim_source_accuracy",
        "epistemic_labeling",
        "key_finding_specificity",
    )
    rows = "".join(f'| {d} | 4 | "Why?" | fine |\n' for d in dimensions)
    reply = tmp_path / "reply.md"
    reply.write_text(f"| dimension | score | evidence | reasoning |\n| --- | --- | --- | --- |\n{rows}")
    exe = tmp_path / "judge.sh"
    exe.write_text(f"#!/bin/sh\ncat >/dev/null\ncat '{reply}'\n")
    exe.chmod(0o755)
    open_to_judges(tmp_path)  # the action runs it as nobody
    return f"command:{exe}"


def test_the_entrypoint_as_root_leaves_nothing_root_owned_in_the_workspace(tmp_path: Path) -> None:
    workspace = _runner_workspace(tmp_path)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"inputs": {}, "ref": "refs/heads/main", "repository": {}}))
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_EVENT_NAME": "workflow_dispatch",
        "GITHUB_EVENT_PATH": str(event),
        "INPUT_PATHS": "Research/completed/**/*.md",
        "INPUT_JUDGES": _judge(tmp_path),
        "INPUT_CACHE-DIR": "caches/evalgate",  # two directories the run creates
    }
    proc = subprocess.run(
        [sys.executable, str(ROOT / "entrypoint.py")],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    results = json.loads((workspace / "evalgate-results.json").read_text())
    assert [r["path"] for r in results["results"]] == [ITEM]
    cache = workspace / "caches" / "evalgate"
    assert [p for p in cache.rglob("*") if p.is_file()], proc.stdout + proc.stderr

    assert _owned_by_root(workspace) == []
    for path in (workspace / "evalgate-results.json", workspace / "caches", cache):
        assert (path.stat().st_uid, path.stat().st_gid) == (RUNNER_UID, RUNNER_GID), path
    assert "could not give" not in proc.stdout


def test_files_root_owns_are_handed_over_and_nothing_else_changes(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    (workspace / "kept").mkdir(parents=True)
    (workspace / "kept" / "other-user.txt").write_text("x")
    os.chown(workspace / "kept" / "other-user.txt", 2000, 2000)
    _chown_tree(workspace, RUNNER_UID, RUNNER_GID)
    os.chown(workspace / "kept" / "other-user.txt", 2000, 2000)  # someone else's: left alone
    (workspace / "kept" / "new").mkdir()
    (workspace / "kept" / "new" / "file").write_text("y")
    (workspace / "link").symlink_to("/etc/hostname")  # the link is re-owned, never its target

    before = os.stat("/etc/hostname").st_uid
    assert give_to_workspace_owner(workspace) == Handover(changed=3, failed=0)
    assert _owned_by_root(workspace) == []
    assert (workspace / "kept" / "other-user.txt").stat().st_uid == 2000
    assert (workspace / "link").lstat().st_uid == RUNNER_UID
    assert os.stat("/etc/hostname").st_uid == before


def test_a_workspace_root_owns_is_left_as_it_is(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "file").write_text("z")
    assert give_to_workspace_owner(workspace) == Handover()
    assert (workspace / "file").stat().st_uid == 0
