"""Run a judge process: argv (never a shell), prompt on stdin, a timeout that kills the whole group,
and, where the caller asks (the action, which runs as root), as an unprivileged user and inside a copy
of the trusted tree (`JudgeSandbox`)."""

from __future__ import annotations

import contextlib
import os
import posixpath
import pwd
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534  # the overflow uid and gid, `nobody`/`nogroup` on Linux, when no passwd entry names it
# Variables that name places a judge reads code from; an entry in the workspace is pinned to the tree.
PATH_LISTS = ("PATH", "PYTHONPATH", "NODE_PATH")


@dataclass(frozen=True)
class RunAs:
    """A user a judge process runs as: its uid and gid, and no supplementary groups."""

    uid: int
    gid: int


def unprivileged_user() -> RunAs | None:
    """`nobody` when this process is root (a container action), else None: a process that is not root
    cannot change its user, and needs not (it holds no more than its user may)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return RunAs(NOBODY, NOBODY)
    return RunAs(entry.pw_uid, entry.pw_gid)


@dataclass(frozen=True)
class JudgeSandbox:
    """How a run's judge processes are started.

    `run_as`: the user every judge process runs as (None: this process's own). `tree`: a copy of the
    trusted commit's whole tree that stands for `workspace`: `command:` judges run in it, and a path into
    the workspace (absolute, or through `..`) on a judge's command line, in `replay:DIR`, in PATH,
    PYTHONPATH or NODE_PATH, or GITHUB_WORKSPACE itself, leads into the tree instead. A relative path
    without `..` needs nothing: it resolves in the tree, the judge's working directory. So nothing a
    pull request changed in the workspace is reachable by a path the judge was given.
    """

    run_as: RunAs | None = None
    tree: Path | None = None
    workspace: Path | None = None

    def pinned(self, value: str) -> str:
        """`value` as the judge should see it: a path into the workspace becomes the tree's."""
        if self.tree is None or self.workspace is None:
            return value
        if not (posixpath.isabs(value) or ".." in value.split("/")):
            return value
        base = self.workspace.as_posix()
        rel = posixpath.relpath(posixpath.normpath(posixpath.join(base, value)), base)
        if rel == ".." or rel.startswith("../"):
            return value  # outside the workspace: the runner's, not the pull request's
        return posixpath.normpath(posixpath.join(self.tree.as_posix(), rel))

    def pinned_argument(self, token: str) -> str:
        """A command-line argument pinned: the whole token, or the value of `--option=VALUE`."""
        if token.startswith("-") and "=" in token:
            option, _, value = token.partition("=")
            return f"{option}={self.pinned(value)}"
        return self.pinned(token)

    def pinned_environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` with GITHUB_WORKSPACE (and PWD) at the tree and workspace entries of PATH, PYTHONPATH
        and NODE_PATH pinned into it."""
        out = dict(env)
        if self.tree is None:
            return out
        for name in PATH_LISTS:
            if name in out:
                out[name] = os.pathsep.join(
                    self.pinned(entry) if entry else entry for entry in out[name].split(os.pathsep)
                )
        for name in ("GITHUB_WORKSPACE", "PWD"):
            if name in out:
                out[name] = str(self.tree)
        return out


@dataclass(frozen=True)
class ProcessResult:
    """What a finished process left: exit code, output bytes and wall time."""

    returncode: int
    stdout: bytes
    stderr: bytes
    elapsed_ms: float


class ProcessTimeout(TimeoutError):
    """The process ran past its timeout and was killed with its children."""


def run_process(
    argv: Sequence[str],
    stdin: bytes,
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    run_as: RunAs | None = None,
) -> ProcessResult:
    """Run `argv` with `stdin`, wait at most `timeout` seconds, return its output.

    The child gets its own session so that on timeout we can kill the process group: the Copilot
    npm loader, for one, is a node process that spawns the native binary, and killing only the
    parent would leave the binary (and its open model connection) running. With `run_as` the child
    drops to that user and group, with no supplementary groups, before it runs anything.
    Raises FileNotFoundError/PermissionError when argv[0] cannot be run, ProcessTimeout on timeout.
    """
    started = time.perf_counter()
    with subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        start_new_session=True,
        user=run_as.uid if run_as is not None else None,
        group=run_as.gid if run_as is not None else None,
        extra_groups=[] if run_as is not None else None,
    ) as proc:
        try:
            stdout, stderr = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            raise ProcessTimeout(f"timed out after {timeout:g} s") from None
        except BaseException:
            _kill_group(proc)
            raise
    return ProcessResult(proc.returncode, stdout, stderr, (time.perf_counter() - started) * 1000)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(proc.pid, signal.SIGKILL)
