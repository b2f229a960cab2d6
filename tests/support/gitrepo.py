"""Real git repositories built in a test's tmp dir: commits, branches, merges, forced pushes, clones.

    repo = GitRepo.init(tmp_path / "work")
    first = repo.commit("start", {"Research/completed/a.md": "# A\n"})
    second = repo.commit("edit", {"Research/completed/a.md": "# A\nmore\n", "old.md": None})
    origin = repo.publish(tmp_path / "origin.git")        # a bare 'origin' the work repo pushes to
    shallow = origin.clone(tmp_path / "ci", depth=1)      # what actions/checkout leaves behind

Files map a path to str/bytes content, or to None to delete it; `rename` moves one with `git mv`.
Author, committer and dates are fixed and no user or system git config is read, so runs are
reproducible and independent of the machine's ~/.gitconfig.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


class GitRepo:
    """A git repository on disk, driven through argv lists (never a shell)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tick = 0

    @classmethod
    def init(cls, path: Path, *, branch: str = "main", bare: bool = False) -> GitRepo:
        """Create a new repository at `path` with `branch` as its initial branch."""
        path.mkdir(parents=True, exist_ok=True)
        repo = cls(path)
        repo.run("init", "-q", f"--initial-branch={branch}", *(["--bare"] if bare else []))
        return repo

    def run(self, *args: str) -> str:
        """Run git in this repository and return stdout (raises with stderr on failure)."""
        self._tick += 1
        env = {**os.environ, **_ENV, "GIT_AUTHOR_DATE": f"{1_700_000_000 + self._tick} +0000"}
        env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
        proc = subprocess.run(["git", "-C", str(self.path), *args], env=env, capture_output=True)
        if proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
        return os.fsdecode(proc.stdout).strip()

    def write(self, files: Mapping[str, str | bytes | None]) -> None:
        """Write (or, for None, delete) files in the work tree and stage them."""
        for rel, content in files.items():
            target = self.path / rel
            if content is None:
                self.run("--literal-pathspecs", "rm", "-q", "--", rel)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content.encode() if isinstance(content, str) else content)
            self.run("--literal-pathspecs", "add", "--", rel)

    def symlink(self, rel: str, target: str) -> None:
        """Create (or replace) a symlink at `rel` pointing at `target` (as written) and stage it."""
        link = self.path / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target)
        self.run("--literal-pathspecs", "add", "--", rel)

    def commit(self, message: str, files: Mapping[str, str | bytes | None] | None = None) -> str:
        """Apply `files`, commit (even if empty), and return the new commit's sha."""
        self.write(files or {})
        self.run("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def rename(self, old: str, new: str) -> None:
        """Stage a rename of `old` to `new`."""
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.run("mv", "--", old, new)

    def head(self, rev: str = "HEAD") -> str:
        """The full sha `rev` resolves to."""
        return self.run("rev-parse", "--verify", f"{rev}^{{commit}}")

    def checkout(self, branch: str, *, new: bool = False, start: str | None = None) -> None:
        """Switch to `branch` (creating it from `start` when `new`)."""
        if new:
            self.run("checkout", "-q", "-b", branch, *([start] if start else []))
        else:
            self.run("checkout", "-q", branch)

    def merge(self, branch: str, message: str = "merge") -> str:
        """Merge `branch` into the current branch with a merge commit; return its sha."""
        self.run("merge", "-q", "--no-ff", "-m", message, branch)
        return self.head()

    def reset_hard(self, rev: str) -> None:
        """Move the current branch to `rev` (to rewrite history before a forced push)."""
        self.run("reset", "-q", "--hard", rev)

    def publish(self, bare_path: Path, *, remote: str = "origin") -> GitRepo:
        """Create a bare repository at `bare_path`, add it as `remote`, and push every branch."""
        bare = GitRepo.init(bare_path, bare=True)
        self.run("remote", "add", remote, str(bare_path))
        self.run("push", "-q", remote, "--all")
        return bare

    def push(self, branch: str, *, remote: str = "origin", force: bool = False) -> None:
        """Push `branch` to `remote` (forced when `force`)."""
        self.run("push", "-q", *(["--force"] if force else []), remote, f"{branch}:{branch}")

    def clone(self, dest: Path, *, depth: int | None = None, branch: str | None = None) -> GitRepo:
        """Clone this repository to `dest`; with `depth`, a shallow clone over file:// as CI makes."""
        source = self.path.absolute().as_uri() if depth else str(self.path)
        args = ["clone", "-q", *([f"--depth={depth}"] if depth else []), *(["-b", branch] if branch else [])]
        GitRepo(dest.parent).run(*args, source, str(dest))
        return GitRepo(dest)
