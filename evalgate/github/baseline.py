"""`gate-on` in the action and on the command line: which mode applies, the base commit, and each
evaluated document's version there.

The mode: the `gate-on` input (or `--gate-on`), else `gate-on` in the configuration (on a pull
request the base commit's), else `new` on pull_request, pull_request_target and merge_group and
`all` on push and workflow_dispatch. Under `new` the base commit is the pull request's `base.sha`,
the merge group's `base_sha`, or for a push the merge base of `before` and `after`; on the command
line, `--base REV`.

A document's version is read from the base commit's objects with git (`ls-tree -z`, `cat-file
--batch` by object name), never by checking the base out into the workspace, and written into a
private directory outside it for the run to evaluate. Its path there is the document's own, or for
a rename the old path when that path is under `paths` too; a document added by the change, or
renamed into `paths` from outside it, has no version to compare with (every finding is new). A
path through a symlink is followed as git stores it, inside the tree only.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evalgate.config import Config
from evalgate.discover import Target
from evalgate.github.changes import (
    EMPTY_TREE,
    ChangeDetectionError,
    ChangedFile,
    changes_since,
    git_bytes,
    git_env,
    merge_bases,
)
from evalgate.github.globs import path_matches
from evalgate.results import GateOn, GateOnMode
from evalgate.run.baseline import BaseVersion

if TYPE_CHECKING:
    from evalgate.github.events import Targets

GATE_ON_MODES: tuple[GateOnMode, ...] = ("new", "all")
NEW_BY_DEFAULT = ("pull_request", "pull_request_target", "merge_group")
_FILE_MODES = (b"100644", b"100755")
_SYMLINK_MODE = b"120000"
_TREE_MODE = b"040000"
_MAX_LINKS = 40  # as the kernel's limit on symlinks followed in one path


def choose_mode(event_name: str, given: str | None, configured: str | None) -> tuple[GateOnMode, str]:
    """The mode a run gates on, and why: an explicit setting wins, then the event's default."""
    if given:
        return _mode(given), "the gate-on input"
    if configured:
        return _mode(configured), "gate-on in the configuration"
    default: GateOnMode = "new" if event_name in NEW_BY_DEFAULT else "all"
    return default, f"the default on {event_name}"


def _mode(value: str) -> GateOnMode:
    return "new" if value == "new" else "all"


def base_of_event(event_name: str, repo: Path, base: str | None, head: str | None) -> str | None:
    """The commit a `new` run compares with: the pull request's or merge group's base, or for a push
    the merge base of `before` and `after`; None when the event has none (a dispatch, a first push)."""
    if base is None or base == EMPTY_TREE or head is None:
        return None
    if event_name in ("push",):
        found = merge_bases(repo, base, head)
        return found[0] if found else None
    return base


class GitBaseline:
    """Each target's version at `sha` in the repository `repo` (see the module), written into a
    private directory removed by `close`. `changed`: the change's files under `paths` (status and old
    path), from the event's diff; None: git diff from `sha` to the working tree says (the CLI)."""

    def __init__(
        self,
        repo: Path,
        sha: str,
        why: str,
        *,
        paths: str,
        max_bytes: int,
        changed: Sequence[ChangedFile] | None = None,
        scratch_in: str | None = None,
    ) -> None:
        self.repo = repo.resolve()
        self._sha = sha
        self._why = why
        self.paths = paths
        self.max_bytes = max_bytes
        if changed is None:
            changed = changes_since(self.repo, sha)
        self.changed = {c.path: c for c in changed}
        self._trees: dict[str, dict[str, tuple[bytes, str, int]]] = {}
        self.scratch = Path(tempfile.mkdtemp(prefix="evalgate-base-", dir=scratch_in))

    @property
    def sha(self) -> str:
        return self._sha

    @property
    def why(self) -> str:
        return self._why

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> GitBaseline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def versions(self, targets: Sequence[Target]) -> list[BaseVersion]:
        """Each target's base version, in order (never raises for one document: a version that
        cannot be read is a note, and the document is compared with nothing)."""
        wanted: list[tuple[str | None, str]] = [self._base_path(t) for t in targets]
        blobs = self._resolve([path for path, _note in wanted if path is not None])
        contents = _read_blobs(
            self.repo, sorted({oid for oid, size in blobs.values() if oid and size <= self.max_bytes})
        )
        out = []
        for index, (target, (path, note)) in enumerate(zip(targets, wanted, strict=True)):
            if path is None:
                out.append(BaseVersion(None, note=note))
                continue
            oid, size = blobs.get(path, (None, 0))
            data = contents.get(oid) if oid is not None else None
            if oid is None or (data is None and size <= self.max_bytes):
                note = f"no file {path!r} at the base commit {self._sha[:12]}: every finding is new"
                out.append(BaseVersion(None, note=note))
            elif size > self.max_bytes:
                out.append(
                    BaseVersion(
                        path, note=f"its base version is {size} bytes, over the {self.max_bytes}-byte limit"
                    )
                )
            else:
                assert data is not None  # read: the first branch takes a blob that was not
                out.append(self._written(index, target, path, data))
        return out

    def _written(self, index: int, target: Target, path: str, data: bytes) -> BaseVersion:
        try:
            if target.path.is_file() and target.path.read_bytes() == data:
                return BaseVersion(path, same=True)
        except OSError:
            pass  # the document's own read reports it
        file = self.scratch / f"{index}.md"
        file.write_bytes(data)
        return BaseVersion(path, file)

    def _base_path(self, target: Target) -> tuple[str | None, str]:
        """The target's path at the base commit, or None and why it has none."""
        absolute = Path(os.path.abspath(target.path))
        if not absolute.is_relative_to(self.repo):
            return None, "outside the repository: no base version"
        rel = absolute.relative_to(self.repo).as_posix()
        change = self.changed.get(rel)
        if change is None or change.status == "modified":
            return rel, ""
        if change.status == "renamed" and change.old_path is not None:
            old = change.old_path
            if path_matches(old, self.paths) or not path_matches(rel, self.paths):
                return old, ""
            return None, f"renamed into the paths glob from {old!r}: new to the gate, every finding is new"
        return None, "new in this change: every finding is new"

    def _resolve(self, paths: list[str]) -> dict[str, tuple[str | None, int]]:
        """path -> (object name, size) of the regular file it names at the base commit, following
        symlinks inside the tree; (None, 0) for anything else."""
        return {path: self._lookup(path) for path in paths}

    def _lookup(self, path: str) -> tuple[str | None, int]:
        """Walk the base commit's trees, one name at a time, as the kernel walks a path: a symlink
        (a link to a file, or a linked directory on the way) is read and followed from where it is,
        within the tree only, at most _MAX_LINKS times."""
        parts, tree, links = path.split("/"), self._sha, 0
        done: list[str] = []  # the names walked so far: where a link's relative target starts
        while parts:
            entry = self._tree(tree).get(parts[0])
            if entry is None:
                return None, 0
            mode, oid, size = entry
            if mode == _SYMLINK_MODE:
                links += 1
                target = os.fsdecode(_read_blobs(self.repo, [oid]).get(oid, b""))
                joined = posixpath.normpath(posixpath.join("/".join(done), target))
                if links > _MAX_LINKS or target.startswith("/") or joined == ".." or joined.startswith("../"):
                    return None, 0  # a loop, or out of the tree: not the repository's file
                parts, done, tree = [*(joined.split("/") if joined != "." else []), *parts[1:]], [], self._sha
            elif len(parts) == 1:
                return (oid, size) if mode in _FILE_MODES else (None, 0)
            elif mode == _TREE_MODE:
                parts, done, tree = parts[1:], [*done, parts[0]], oid
            else:
                return None, 0  # a file, or a submodule, where a directory should be
        return None, 0  # the path names the top of the tree

    def _tree(self, treeish: str) -> dict[str, tuple[bytes, str, int]]:
        """name -> (mode, object name, size) of every entry of one tree (a commit: its top tree),
        listed once per run with `git ls-tree -z` (names exactly as git stores them)."""
        if treeish not in self._trees:
            raw = git_bytes(self.repo, "ls-tree", "-l", "-z", "--end-of-options", treeish)
            entries = {}
            for record in raw.split(b"\0"):
                if record:
                    meta, _, name = record.partition(b"\t")
                    mode, _kind, oid, size = meta.split()
                    entries[os.fsdecode(name)] = (mode, oid.decode(), int(size) if size.isdigit() else -1)
            self._trees[treeish] = entries
        return self._trees[treeish]


def _read_blobs(repo: Path, oids: Sequence[str]) -> dict[str, bytes]:
    """The contents of the blobs named, read in one `git cat-file --batch` by object name."""
    if not oids:
        return {}
    argv = ["git", "-C", str(repo), "cat-file", "--batch"]
    request = "".join(f"{oid}\n" for oid in oids).encode()
    try:
        proc = subprocess.run(argv, input=request, env=git_env(repo), capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ChangeDetectionError(f"git cat-file failed in {repo}: {exc}") from exc
    if proc.returncode != 0:
        raise ChangeDetectionError(f"git cat-file failed in {repo}: {os.fsdecode(proc.stderr).strip()}")
    out, data, at = {}, proc.stdout, 0
    for oid in oids:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        if len(header) != 3 or header[1] != b"blob":
            at = end + 1
            continue
        size = int(header[2])
        out[oid] = data[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return out


def for_event(
    event_name: str,
    targets: Targets,
    workspace: Path,
    config: Config,
    given: str | None,
    scratch_in: str | None = None,
) -> tuple[GitBaseline | None, GateOn]:
    """The action's mode for this event and, under `new` with a base commit, the baseline to run
    with (the caller closes it). An event with no base commit (a dispatch, a first push) gates on
    all findings under any setting, and says so."""
    mode, why = choose_mode(event_name, given, config.gate_on)
    if mode == "all" or targets.mode == "none":
        return None, GateOn(mode, why)
    sha = base_of_event(event_name, workspace, targets.base, targets.head) if targets.mode == "diff" else None
    if sha is None:
        return None, GateOn("all", f"{why}, but {event_name} has no base commit to compare with")
    limit = int(config.max_file_mb * 1024 * 1024)
    baseline = GitBaseline(
        workspace,
        sha,
        why,
        paths=config.paths,
        max_bytes=limit,
        changed=targets.changed,
        scratch_in=scratch_in,
    )
    return baseline, GateOn("new", why, sha)
