"""git diff -> the files a revision range changed: status, old path, and added line ranges.

Names only ever come from `-z` output (`git diff --name-status -z`, `git ls-tree -z`): exact bytes, no
quoting, so any name git can store survives (spaces, newlines, `+++ b/x` inside a name, leading
dashes, non-UTF-8 bytes). The added line ranges (for `evalgate changed`; the action does not need them)
come from the unified diff of the same range, one patch per listed file, paired with the listing by
position; only each patch's hunks are parsed, with `unidiff`.

Every diff runs with options that the repository cannot change (`DIFF_OPTIONS`): `--text`, so neither a
`.gitattributes` line (`*.md -diff`, `*.md binary`) nor a NUL byte makes a change binary and hides it,
and no textconv or external driver. A three-dot range takes the union over every merge base.

git always runs as an argv list (never a shell), with `--` before pathspecs and literal pathspecs, and
with `safe.directory` set for this one command only, so it works in a container workspace that another
uid owns without touching any global config. Shallow clones are deepened as far as a range needs
(see `ensure_history`).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from evalgate.github.globs import path_matches

ZERO_SHA = "0" * 40
# git knows the empty tree without it being stored; diffing from it lists every file as added.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
FETCH_TIMEOUT_S = 600
LOCAL_TIMEOUT_S = 120

ChangeStatus = Literal["added", "modified", "renamed", "deleted"]


class ChangeDetectionError(Exception):
    """What to evaluate could not be determined (missing commits, bad range, git failure)."""


@dataclass(frozen=True)
class ChangedFile:
    """One file a revision range changed.

    `path` is the path at the head (for a deletion, the path that was deleted); `old_path` is set for
    renames only. `added_lines` are inclusive 1-based (start, end) ranges of lines added at the head.
    """

    path: str
    status: ChangeStatus
    old_path: str | None = None
    added_lines: tuple[tuple[int, int], ...] = ()

    @property
    def evaluable(self) -> bool:
        """Deleted files are listed but never evaluated. A binary file is evaluated: reading it is an
        error of its own (`read_document`), never a silent skip."""
        return self.status != "deleted"


SYMLINK_MODE = "120000"


@dataclass(frozen=True)
class TreeEntry:
    """One entry of a commit's tree: its path and git mode (100644 file, 120000 symlink, ...)."""

    path: str
    mode: str

    @property
    def is_symlink(self) -> bool:
        return self.mode == SYMLINK_MODE


# ---------------------------------------------------------------------------------------------- git


def git_env(repo: Path, base_env: dict[str, str] | None = None) -> dict[str, str]:
    """An environment for git commands on `repo`: trusts `repo` for this process only, never prompts.

    `safe.directory` goes through GIT_CONFIG_COUNT (command-line scope, which git honours for it),
    appended after any entries already in the environment.
    """
    env = dict(os.environ if base_env is None else base_env)
    count = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
    for key, value in (("safe.directory", str(repo.absolute())), ("core.quotePath", "false")):
        env[f"GIT_CONFIG_KEY_{count}"] = key
        env[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    env["GIT_TERMINAL_PROMPT"] = "0"  # a missing credential is an error, not a hang
    env["GIT_LITERAL_PATHSPECS"] = "1"  # a file named '*.md' or ':!x' means itself
    env["LC_ALL"] = "C"  # stable messages to quote in errors
    return env


def git_bytes(repo: Path, *args: str, check: bool = True, timeout: float = LOCAL_TIMEOUT_S) -> bytes:
    """Run `git -C repo args...` and return its stdout; a failure is a ChangeDetectionError."""
    argv = ["git", "-C", str(repo), *args]
    try:
        proc = subprocess.run(
            argv, env=git_env(repo), capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ChangeDetectionError(f"git {args[0]} failed in {repo}: {exc}") from exc
    if check and proc.returncode != 0:
        message = os.fsdecode(proc.stderr).strip() or f"exit {proc.returncode}"
        raise ChangeDetectionError(f"git {' '.join(args[:3])} failed in {repo}: {message}")
    return proc.stdout


def git(repo: Path, *args: str, check: bool = True, timeout: float = LOCAL_TIMEOUT_S) -> str:
    """Like `git_bytes`, decoded as the filesystem decodes paths, trailing newline stripped."""
    return os.fsdecode(git_bytes(repo, *args, check=check, timeout=timeout)).rstrip("\n")


def _succeeds(repo: Path, *args: str) -> bool:
    argv = ["git", "-C", str(repo), *args]
    proc = subprocess.run(argv, env=git_env(repo), capture_output=True, timeout=LOCAL_TIMEOUT_S)
    return proc.returncode == 0


def has_commit(repo: Path, rev: str) -> bool:
    """Whether `rev` names a commit present in the repository's object store."""
    return _succeeds(repo, "cat-file", "-e", f"{rev}^{{commit}}")


def is_shallow(repo: Path) -> bool:
    """Whether the repository is a shallow clone (actions/checkout's default fetch-depth 1)."""
    return git(repo, "rev-parse", "--is-shallow-repository") == "true"


def merge_bases(repo: Path, a: str, b: str) -> list[str]:
    """Every best common ancestor of `a` and `b` (`git merge-base --all`); empty when the visible
    history has none. A criss-cross history has several, and `git merge-base` names only one."""
    out = git_bytes(repo, "merge-base", "--all", a, b, check=False)
    return os.fsdecode(out).split()


def is_ancestor(repo: Path, ancestor: str, descendant: str) -> bool:
    """Whether `ancestor` is `descendant` or one of its ancestors."""
    return _succeeds(repo, "merge-base", "--is-ancestor", ancestor, descendant)


def resolve_commit(repo: Path, rev: str) -> str:
    """The full object name of the commit `rev` names."""
    return git(repo, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}")


# -------------------------------------------------------------------------------------- history


def ensure_history(
    repo: Path,
    revs: Sequence[str],
    *,
    merge_base_of: tuple[str, str] | None = None,
    remote: str = "origin",
    first_deepen: int = 32,
    max_deepen: int = 4096,
) -> int:
    """Fetch until every rev in `revs` is present (and `merge_base_of` has every merge base).

    A shallow clone is deepened by doubling steps (32, 64, ...) until the total passes `max_deepen`,
    then unshallowed once; revs still missing (e.g. the old tip of a forced push, reachable from no
    branch) are fetched by object name. When the two revisions of `merge_base_of` have forked (neither
    contains the other), a shallow clone is unshallowed even once a merge base shows: a criss-cross
    history has several, and one beyond the shallow boundary would be missed (`merge_bases`). Returns
    the number of fetches made. Raises ChangeDetectionError naming what is still missing.
    """

    def missing() -> list[str]:
        absent = [rev for rev in revs if not has_commit(repo, rev)]
        if not absent and merge_base_of and not merge_bases(repo, *merge_base_of):
            absent.append(f"merge base of {merge_base_of[0]} and {merge_base_of[1]}")
        return absent

    def forked() -> bool:
        if merge_base_of is None:
            return False
        ends = {resolve_commit(repo, rev) for rev in merge_base_of}
        return not ends & set(merge_bases(repo, *merge_base_of))

    fetches = 0
    absent = missing()
    shallow = is_shallow(repo)
    if not absent and not (shallow and forked()):
        return fetches
    has_remote = remote in git(repo, "remote").split("\n")
    if has_remote and shallow:
        step, total = first_deepen, 0
        while is_shallow(repo) and (absent or forked()):
            if total >= max_deepen or not absent:
                git(repo, "fetch", "--no-tags", "--unshallow", remote, timeout=FETCH_TIMEOUT_S)
            else:
                git(repo, "fetch", "--no-tags", f"--deepen={step}", remote, timeout=FETCH_TIMEOUT_S)
                total += step
                step *= 2
            fetches += 1
            absent = missing()
    if has_remote:
        for rev in [r for r in revs if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", r)]:
            if not has_commit(repo, rev):
                # Servers let a client want an unadvertised object; a gc'd one stays missing.
                git_bytes(repo, "fetch", "--no-tags", remote, rev, check=False, timeout=FETCH_TIMEOUT_S)
                fetches += 1
        absent = missing()
    if merge_base_of and not absent and is_shallow(repo) and forked():
        a, b = merge_base_of
        absent.append(f"every merge base of {a} and {b} (the history is shallow)")
    if absent:
        where = f"from remote '{remote}'" if has_remote else "(no remote to fetch from)"
        raise ChangeDetectionError(
            f"cannot compare revisions in {repo}: missing {', '.join(absent)} after fetching {where}"
        )
    return fetches


# ----------------------------------------------------------------------------------------- diffs

# Options that neither the repository's configuration nor its attributes can change. `--text`: a
# `-diff` or `binary` attribute, or a NUL byte in a file's first 8,000 bytes, would make git call the
# change binary and print no hunks (every change is text here; `read_document` refuses a binary file
# with an error of its own). No textconv or external diff driver runs; prefixes, relative paths,
# submodules and file order are fixed, so the listing and the patch agree entry for entry.
DIFF_OPTIONS = (
    "--text",
    "--no-textconv",
    "--no-ext-diff",
    "--no-color",
    "--find-renames",
    "--no-relative",
    "--ignore-submodules=none",
    "--submodule=short",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "-O/dev/null",
)
_STATUS: dict[str, ChangeStatus] = {"A": "added", "M": "modified", "T": "modified", "D": "deleted"}


def _parse_name_status(raw: bytes) -> list[ChangedFile]:
    """`git diff --name-status -z`: exact bytes, no quoting, so any name git can store survives."""
    fields = [os.fsdecode(f) for f in raw.split(b"\0")]
    entries: list[ChangedFile] = []
    i = 0
    while i < len(fields) and fields[i]:
        code = fields[i][0]
        if code in "RC":  # rename/copy: score, then old and new path
            old, new = fields[i + 1], fields[i + 2]
            entries.append(
                ChangedFile(new, "renamed" if code == "R" else "added", old if code == "R" else None)
            )
            i += 3
        elif code in _STATUS:
            entries.append(ChangedFile(fields[i + 1], _STATUS[code]))
            i += 2
        else:
            raise ChangeDetectionError(f"unexpected git diff status {fields[i]!r} for {fields[i + 1]!r}")
    return entries


def _listing(repo: Path, base: str, head: str, specs: Sequence[str] = ()) -> list[ChangedFile]:
    raw = git_bytes(repo, "diff", "--name-status", "-z", *DIFF_OPTIONS, base, head, "--", *specs)
    return _parse_name_status(raw)


def changes_since(repo: Path, base: str) -> list[ChangedFile]:
    """Every tracked file the working tree changed since `base` (committed or not), renames at their
    new path: what `evalgate check --gate-on new --base REV` compares with."""
    return _parse_name_status(git_bytes(repo, "diff", "--name-status", "-z", *DIFF_OPTIONS, base, "--"))


def diff_starts(repo: Path, base: str, head: str, *, three_dot: bool = False) -> list[str]:
    """Where a diff to `head` starts: `base`, or for `three_dot` every merge base of the two."""
    for rev in (base, head):
        if rev != EMPTY_TREE and not has_commit(repo, rev):
            raise ChangeDetectionError(f"commit {rev} is not in {repo} (shallow clone? fetch it first)")
    if not three_dot:
        return [base]
    starts = merge_bases(repo, base, head)
    if not starts:
        raise ChangeDetectionError(f"{base} and {head} have no common history in {repo}")
    return starts


def diff_entries(repo: Path, base: str, head: str, *, three_dot: bool = False) -> list[ChangedFile]:
    """Every file changed from `base` to `head`, without line ranges, in git's order.

    `three_dot` diffs from the merge base of `base` and `head` (GitHub's `base...head`), and when a
    criss-cross history has several, from each of them, taking the union: `git merge-base` names one,
    and a file `head` keeps as it was in that one (an old, failing version of an item the other one
    fixed) would be no change from there, yet differs from what `base` holds. Both revisions must be
    present: call `ensure_history` first for shallow clones.
    """
    return _union(repo, diff_starts(repo, base, head, three_dot=three_dot), head)


def _union(repo: Path, starts: list[str], head: str) -> list[ChangedFile]:
    found: dict[str, ChangedFile] = {}
    for start in starts:
        for entry in _listing(repo, start, head):
            found.setdefault(entry.path, entry)
    return list(found.values())


def changed_files(
    repo: Path, base: str, head: str, pattern: str = "", *, three_dot: bool = False
) -> list[ChangedFile]:
    """The files changed from `base` to `head` whose head path matches `pattern` (see
    `globs.path_matches`), with the line ranges each adds (for `evalgate changed`).

    A rename counts at its new path; deletions are listed (never evaluated). See `diff_entries`.
    """
    starts = diff_starts(repo, base, head, three_dot=three_dot)
    wanted = [e for e in _union(repo, starts, head) if path_matches(e.path, pattern)]
    if not wanted:
        return []
    ranges: dict[str, list[tuple[int, int]]] = {}
    for start in starts:
        for path, added in _added_lines(repo, start, head, wanted).items():
            ranges[path] = _merged([*ranges.get(path, []), *added])
    return [replace(e, added_lines=tuple(ranges.get(e.path, ()))) for e in wanted]


def _added_lines(
    repo: Path, base: str, head: str, wanted: list[ChangedFile]
) -> dict[str, list[tuple[int, int]]]:
    """The lines each wanted file adds from `base` to `head`. Names come from the `-z` listing, never
    from the patch text: both list the same files in the same order (same options, same pathspecs),
    so each file's patch is paired with its listing entry by position."""
    needs_diff = [e for e in wanted if e.status != "deleted"]
    found: dict[str, list[tuple[int, int]]] = {}
    # Limit the patch to the wanted files (both sides of a rename, so git still pairs them), in
    # batches that keep argv far below the kernel's limit.
    batch = 400
    for i in range(0, len(needs_diff), batch):
        group = needs_diff[i : i + batch]
        specs = sorted({p for e in group for p in (e.path, e.old_path) if p})
        listing = _listing(repo, base, head, specs)
        raw = git_bytes(
            repo, "diff", "--unified=0", "--inter-hunk-context=0", *DIFF_OPTIONS, base, head, "--", *specs
        )
        patches = _split_patches(raw)
        if len(listing) != len(patches):
            raise ChangeDetectionError(
                f"git diff listed {len(listing)} files but printed {len(patches)} patches for {base}..{head}"
            )
        for entry, lines in zip(listing, patches, strict=True):
            if entry.status != "deleted":
                found[entry.path] = _added_ranges(lines, entry.path)
    return found


def _split_patches(raw: bytes) -> list[list[bytes]]:
    """Split a multi-file unified diff into per-file line lists at `diff --git ` headers.

    Hunk lines start with ' ', '+', '-' or '\\', and git quotes a name holding a newline, so a header
    line cannot occur inside a hunk. Lines are split on \\n only: a \\r inside a line is content, as
    git counts it.
    """
    patches: list[list[bytes]] = []
    for line in raw.split(b"\n")[:-1] if raw.endswith(b"\n") else raw.split(b"\n"):
        if line.startswith(b"diff --git "):
            patches.append([])
        if patches:
            patches[-1].append(line + b"\n")
    return patches


def _added_ranges(lines: list[bytes], path: str) -> list[tuple[int, int]]:
    """The added line ranges of one file's patch. Only its hunks are parsed (by unidiff): the header
    git wrote, with the file's quoted names, is replaced by a plain one."""
    first = next((i for i, line in enumerate(lines) if line.startswith(b"@@ ")), None)
    if first is None:  # a pure rename, a mode change, an empty file
        return []
    hunks = [line.decode("utf-8", "replace") for line in lines[first:]]
    try:
        patch = PatchSet(["--- a/file\n", "+++ b/file\n", *hunks])
    except UnidiffParseError as exc:
        raise ChangeDetectionError(f"cannot parse the diff of {path!r}: {exc}") from exc
    ranges = [
        (hunk.target_start, hunk.target_start + hunk.target_length - 1)
        for patched in patch
        for hunk in patched
        if hunk.target_length
    ]
    return _merged(ranges)


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted ranges with overlapping and adjacent ones joined (adjacent -U0 hunks read as one)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and out[-1][1] + 1 >= start:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def tree_entries(repo: Path, rev: str) -> list[TreeEntry]:
    """Every entry of `rev`'s tree, recursively: files, symlinks (mode 120000) and submodules."""
    raw = git_bytes(repo, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", rev)
    entries = []
    for record in raw.split(b"\0"):
        if record:
            meta, _, name = record.partition(b"\t")
            entries.append(TreeEntry(os.fsdecode(name), meta.split(b" ", 1)[0].decode()))
    return entries


def files_at(repo: Path, rev: str, pattern: str = "") -> list[str]:
    """Every file path in `rev`'s tree that matches `pattern`, in git's order."""
    return [e.path for e in tree_entries(repo, rev) if path_matches(e.path, pattern)]


def format_changes(changes: Sequence[ChangedFile]) -> str:
    """One line per changed file for `evalgate changed`: what would be evaluated, and why not."""
    if not changes:
        return "no matching files changed"
    lines = []
    for change in changes:
        shown = repr(change.path) if any(c in change.path for c in "\n\r\t") else change.path
        verdict = "evaluate" if change.evaluable else "skip (deleted)"
        detail = change.status + (f" from {change.old_path!r}" if change.old_path else "")
        ranges = ",".join(f"{a}-{b}" if a != b else str(a) for a, b in change.added_lines)
        lines.append(f"{verdict:<14} {detail:<10} {shown}" + (f"  +[{ranges}]" if ranges else ""))
    evaluated = sum(c.evaluable for c in changes)
    lines.append(f"{evaluated} of {len(changes)} changed files would be evaluated")
    return "\n".join(lines)
