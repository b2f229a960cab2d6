"""What a judge process can reach when the action runs it.

The container runs as root; a judge (the Copilot CLI, a `command:` program, anything either starts)
runs as `nobody`, with no supplementary groups (`process.unprivileged_user`). For the run's duration,
the directories it must not read are closed to users other than their owner and group: the
workspace's `.git` (actions/checkout keeps the job token in `.git/config` unless told not to) and
RUNNER_TEMP (where actions/checkout v6 keeps it instead, and where the runner keeps the job's
files). They are given back their modes afterwards. The action itself, root, is not held back by
either. A judge needs neither: it reads its prompt on stdin, and the Copilot CLI works in a private
scratch directory that belongs to the judge's user.

On a pull request judged by its base commit's policy, `command:` and `replay:` judges run in a copy
of the base commit's whole tree (`base_tree`), made with git from the commit's objects in a fresh
directory outside the workspace and RUNNER_TEMP, and the workspace itself is closed to the judge's
user too: a script the base's judge sources or requires by a relative path is the base's, and the
pull request's files are not readable by any path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from evalgate.github.changes import LOCAL_TIMEOUT_S, git_env
from evalgate.github.policy import PolicyError
from evalgate.judging.backends.process import JudgeSandbox, RunAs

OTHERS = stat.S_IRWXO


@contextlib.contextmanager
def closed_to_others(paths: Sequence[Path]) -> Iterator[list[Path]]:
    """While inside: each existing directory of `paths` without permissions for other users (its
    owner's and group's kept); the modes are put back on the way out. Yields the ones closed."""
    closed: list[tuple[Path, int]] = []
    try:
        for path in paths:
            try:
                mode = stat.S_IMODE(os.lstat(path).st_mode)
                if not stat.S_ISDIR(os.lstat(path).st_mode) or not mode & OTHERS:
                    continue
                os.chmod(path, mode & ~OTHERS)
            except OSError:
                continue  # not there, or not ours to change: nothing to put back
            closed.append((path, mode))
        yield [path for path, _ in closed]
    finally:
        for path, mode in reversed(closed):
            with contextlib.suppress(OSError):
                os.chmod(path, mode)


@contextlib.contextmanager
def base_tree(workspace: Path, commit: str) -> Iterator[Path]:
    """A copy of `commit`'s whole tree in a new directory outside the workspace, readable by every user
    (so by the judge's) and writable by none but root; removed on the way out. Written by git from the
    commit's objects through a temporary index, so the workspace's own index and files are untouched."""
    tree = Path(tempfile.mkdtemp(prefix="evalgate-base-tree-"))
    index = Path(tempfile.mkdtemp(prefix="evalgate-base-index-"))
    try:
        os.chmod(tree, 0o755)
        env = {**git_env(workspace), "GIT_INDEX_FILE": str(index / "index")}
        for args in (["read-tree", commit], ["checkout-index", "--all", "--force", f"--prefix={tree}/"]):
            try:
                proc = subprocess.run(
                    ["git", "-C", str(workspace), *args],
                    env=env,
                    capture_output=True,
                    timeout=LOCAL_TIMEOUT_S,
                    stdin=subprocess.DEVNULL,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise PolicyError(
                    f"the base commit's tree could not be copied for the judges: {exc}"
                ) from None
            if proc.returncode != 0:
                reason = os.fsdecode(proc.stderr).strip() or f"git {args[0]} exit {proc.returncode}"
                raise PolicyError(f"the base commit's tree could not be copied for the judges: {reason}")
        yield tree
    finally:
        shutil.rmtree(index, ignore_errors=True)
        shutil.rmtree(tree, ignore_errors=True)


def runs_programs(judges: Sequence[str]) -> bool:
    """Whether any judge spec starts a process (or, for `replay:`, reads files a tree can hold)."""
    return any(spec.strip().partition(":")[0] in ("command", "copilot", "replay") for spec in judges)


def judge_sandbox(
    stack: contextlib.ExitStack,
    *,
    workspace: Path,
    env: Mapping[str, str],
    judges: Sequence[str],
    base: str | None,
    run_as: RunAs | None,
) -> JudgeSandbox:
    """The sandbox the run's judges start in, set up on `stack` (undone when it closes): on a pull
    request judged by the base's policy (`base`) the base commit's tree, when a judge runs or replays
    files; as `run_as`, the directories above closed to the judge's user."""
    if not runs_programs(judges):
        return JudgeSandbox()
    tree = None
    if base is not None and any(spec.strip().startswith(("command:", "replay:")) for spec in judges):
        tree = stack.enter_context(base_tree(workspace, base))
    if run_as is not None:
        closed = [workspace / ".git"]
        if env.get("RUNNER_TEMP"):
            closed.append(Path(env["RUNNER_TEMP"]))
        if tree is not None:
            closed.append(workspace)  # nothing of the pull request's is for the base's judges to read
        stack.enter_context(closed_to_others(closed))
    return JudgeSandbox(run_as=run_as, tree=tree, workspace=workspace if tree is not None else None)
