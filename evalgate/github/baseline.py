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
path through a symlink is followed as git stores it, inside the tree only, and must lead to the file
it leads to in the checkout (a link the change points elsewhere: no version to compare with).
"""

from __future__ import annotations

import os
import posixpath
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class _Wanted:
    """Where a target is looked for at the base commit (`path`; None: nowhere, and `note` says why),
    its path in the workspace (`rel`) and the file that path leads to there (`real`)."""

    path: str | None
    note: str = ""
    rel: str = ""
    real: str | None = None


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
        cannot be read is a note, and the document is compared with nothing). The blobs are read
        in one `git cat-file --batch`."""
        wanted = [self._base_path(t) for t in targets]
        found = {w.path: self._lookup(w.path) for w in wanted if w.path is not None}
        readable = {oid for oid, size, _ in found.values() if oid is not None and size <= self.max_bytes}
        contents = _read_blobs(self.repo, sorted(readable))
        return [
            self._version(i, t, w, found, contents)
            for i, (t, w) in enumerate(zip(targets, wanted, strict=True))
        ]

    def _version(
        self,
        index: int,
        target: Target,
        wanted: _Wanted,
        found: dict[str, tuple[str | None, int, str]],
        contents: dict[str, bytes],
    ) -> BaseVersion:
        if wanted.path is None:
            return BaseVersion(None, note=wanted.note)
        oid, size, resolved = found[wanted.path]
        at = f"at the base commit {self._sha[:12]}"
        if oid is None or (size <= self.max_bytes and oid not in contents):
            return BaseVersion(None, note=f"no file {wanted.path!r} {at}: every finding is new")
        linked = resolved != wanted.path or wanted.real != wanted.rel
        if linked and resolved != wanted.real:
            # a link the change made or moved: the file it leads to now is not the one it led to
            note = f"{wanted.path!r} leads to {resolved!r} {at}, not to this file: every finding is new"
            return BaseVersion(None, note=note)
        if size > self.max_bytes:
            note = f"its base version is {size} bytes, over the {self.max_bytes}-byte limit"
            return BaseVersion(wanted.path, note=note)
        data = contents[oid]
        try:
            if target.path.is_file() and target.path.read_bytes() == data:
                return BaseVersion(wanted.path, same=True)
        except OSError:
            pass  # the document's own read reports it
        file = self.scratch / f"{index}.md"
        file.write_bytes(data)
        return BaseVersion(wanted.path, file)

    def _base_path(self, target: Target) -> _Wanted:
        """Where to look for the target at the base commit, or why not to."""
        absolute = Path(os.path.abspath(target.path))
        if not absolute.is_relative_to(self.repo):
            return _Wanted(None, "outside the repository: no base version")
        rel = absolute.relative_to(self.repo).as_posix()
        try:
            real: str | None = target.path.resolve().relative_to(self.repo).as_posix()
        except (OSError, ValueError):
            real = None
        change = self.changed.get(rel)
        if change is None or change.status == "modified":
            return _Wanted(rel, "", rel, real)
        if change.status == "renamed" and change.old_path is not None:
            old = change.old_path
            if path_matches(old, self.paths) or not path_matches(rel, self.paths):
                return _Wanted(old, "", rel, real)
            return _Wanted(
                None, f"renamed into the paths glob from {old!r}: new to the gate, every finding is new"
            )
        return _Wanted(None, "new in this change: every finding is new")

    def _lookup(self, path: str) -> tuple[str | None, int, str]:
        """(object name, size, the path it resolves to) of the regular file `path` names at the base
        commit; (None, 0, path) for anything else. The base commit's trees are walked one name at a
        time, as the kernel walks a path: a symlink (a link to a file, or a linked directory on the
        way) is read and followed from where it is, within the tree only, at most _MAX_LINKS times."""
        parts, tree, links = path.split("/"), self._sha, 0
        done: list[str] = []  # the names walked so far: where a link's relative target starts
        folder = "/".join(parts[:-1])
        if folder and self._tree(f"{self._sha}:{folder}", missing_ok=True):
            # the usual case: the document's directory is a tree (no link on the way), listed at once
            parts, done, tree = parts[-1:], parts[:-1], f"{self._sha}:{folder}"
        while parts:
            entry = self._tree(tree).get(parts[0])
            if entry is None:
                return None, 0, path
            mode, oid, size = entry
            if mode == _SYMLINK_MODE:
                links += 1
                target = os.fsdecode(_read_blobs(self.repo, [oid]).get(oid, b""))
                joined = posixpath.normpath(posixpath.join("/".join(done), target))
                if links > _MAX_LINKS or target.startswith("/") or joined == ".." or joined.startswith("../"):
                    return None, 0, path  # a loop, or out of the tree: not the repository's file
                parts, done, tree = [*(joined.split("/") if joined != "." else []), *parts[1:]], [], self._sha
            elif len(parts) == 1:
                return (oid, size, "/".join([*done, parts[0]])) if mode in _FILE_MODES else (None, 0, path)
            elif mode == _TREE_MODE:
                parts, done, tree = parts[1:], [*done, parts[0]], oid
            else:
                return None, 0, path  # a file, or a submodule, where a directory should be
        return None, 0, path  # the path names the top of the tree

    def _tree(self, treeish: str, *, missing_ok: bool = False) -> dict[str, tuple[bytes, str, int]]:
        """name -> (mode, object name, size) of every entry of one tree (a commit: its top tree),
        listed once per run with `git ls-tree -z` (names exactly as git stores them). `missing_ok`:
        a `COMMIT:PATH` that names no tree (a symlink on the way, no such directory) is empty."""
        if treeish not in self._trees:
            try:
                raw = git_bytes(self.repo, "ls-tree", "-l", "-z", "--end-of-options", treeish)
            except ChangeDetectionError:
                if not missing_ok:
                    raise
                raw = b""
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
