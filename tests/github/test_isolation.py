"""The pieces of what a judge can reach (evalgate/github/isolation.py): directories closed to other
users for the judging and given their modes back, the base commit's tree copied with git without
touching the workspace, and when each applies."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

import pytest

from evalgate.github.isolation import base_tree, closed_to_others, judge_sandbox
from evalgate.github.policy import PolicyError
from evalgate.judging.backends.process import RunAs
from tests.support.gitrepo import GitRepo

NOBODY = RunAs(65534, 65534)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_closed_directories_get_their_modes_back(tmp_path: Path) -> None:
    open_dir, private, a_file = tmp_path / "open", tmp_path / "private", tmp_path / "file"
    open_dir.mkdir(mode=0o755)
    private.mkdir(mode=0o750)
    a_file.write_text("x")
    a_file.chmod(0o644)
    with closed_to_others([open_dir, private, a_file, tmp_path / "missing"]) as closed:
        assert closed == [open_dir]  # a private directory, a file or a missing path: nothing to do
        assert _mode(open_dir) == 0o750 and _mode(private) == 0o750 and _mode(a_file) == 0o644
    assert _mode(open_dir) == 0o755


def test_closed_directories_get_their_modes_back_when_the_run_fails(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir(mode=0o751)
    with pytest.raises(RuntimeError), closed_to_others([tmp_path / "d"]):
        raise RuntimeError("a judge's crash")
    assert _mode(tmp_path / "d") == 0o751


def test_the_base_tree_is_the_commits_whole_tree_and_the_workspace_is_untouched(tmp_path: Path) -> None:
    repo = GitRepo.init(tmp_path / "ws")
    repo.write({"tools/judge.sh": "echo base\n", "tools/lib.sh": "SCORE=1\n", "README.md": "# r\n"})
    (repo.path / "tools" / "judge.sh").chmod(0o755)
    repo.run("add", "--", "tools/judge.sh")
    (repo.path / "tools" / "link").symlink_to("lib.sh")
    repo.run("add", "--", "tools/link")
    base = repo.commit("base")
    repo.commit("later", {"tools/lib.sh": "SCORE=5\n", "new.txt": "new\n"})
    (repo.path / "untracked.txt").write_text("mine\n")
    status = repo.run("status", "--porcelain")

    with base_tree(repo.path, base) as tree:
        files = sorted(str(p.relative_to(tree)) for p in tree.rglob("*") if not p.is_dir())
        assert files == ["README.md", "tools/judge.sh", "tools/lib.sh", "tools/link"]
        assert (tree / "tools" / "lib.sh").read_text() == "SCORE=1\n"
        assert (
            os.access(tree / "tools" / "judge.sh", os.X_OK)
            and os.readlink(tree / "tools" / "link") == "lib.sh"
        )
        assert _mode(tree) == 0o755 and not tree.is_relative_to(repo.path)
    assert not tree.exists()
    assert repo.run("status", "--porcelain") == status  # index and files as they were


def test_a_base_tree_that_cannot_be_made_is_a_policy_error(tmp_path: Path) -> None:
    repo = GitRepo.init(tmp_path / "ws")
    repo.commit("start", {"a.txt": "a\n"})
    with (
        pytest.raises(PolicyError, match="the base commit's tree could not be copied"),
        base_tree(repo.path, "0" * 40),
    ):
        pass


@pytest.mark.parametrize(
    ("judges", "base", "run_as", "tree", "closed"),
    [
        ((), "b", NOBODY, False, []),  # no judge: nothing to set up
        (("openai:gpt-4o",), "b", NOBODY, False, []),  # starts no process
        (("copilot",), "b", NOBODY, False, [".git", "runner"]),
        (("command:./judge.sh",), None, NOBODY, False, [".git", "runner"]),  # a push: the checkout
        (("command:./judge.sh",), "b", NOBODY, True, [".git", "runner", "."]),  # a pull request
        (("replay:recordings",), "b", None, True, []),  # not root: nobody to close anything to
    ],
)
def test_what_the_sandbox_sets_up(
    tmp_path: Path,
    judges: tuple[str, ...],
    base: str | None,
    run_as: RunAs | None,
    tree: bool,
    closed: list[str],
) -> None:
    repo = GitRepo.init(tmp_path / "ws")
    commit = repo.commit("start", {"a.txt": "a\n"})
    runner = tmp_path / "runner"
    runner.mkdir(mode=0o755)
    before = {
        name: _mode(repo.path / name if name != "runner" else runner) for name in (".git", "runner", ".")
    }
    with contextlib.ExitStack() as stack:
        sandbox = judge_sandbox(
            stack,
            workspace=repo.path,
            env={"RUNNER_TEMP": str(runner)},
            judges=judges,
            base=commit if base else None,
            run_as=run_as,
        )
        assert (sandbox.tree is not None) == tree and sandbox.run_as == (
            run_as if judges[:1] != ("openai:gpt-4o",) and judges else None
        )
        now = {name: _mode(repo.path / name if name != "runner" else runner) for name in before}
        assert sorted(name for name in before if now[name] != before[name]) == sorted(closed)
    assert {name: _mode(repo.path / name if name != "runner" else runner) for name in before} == before
