"""git diff -> the files a revision range changed: status, old path, and added line ranges.

Paths come from `git diff --name-status -z` (exact bytes, no quoting, so names with spaces, newlines,
leading dashes or non-UTF-8 bytes survive); the added line ranges come from the unified diff of the same
range, parsed with `unidiff`. Both outputs list files in git's diff-queue order, so they are paired by
position instead of by re-parsing the quoted `diff --git` header lines, which are ambiguous for such names.

git always runs as an argv list (never a shell), with `--` before pathspecs and literal pathspecs, and
with `safe.directory` set for this one command only, so it works in a container workspace that another
uid owns without touching any global config. Shallow clones are deepened as far as a range needs
(see `ensure_history`).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

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
    binary: bool = False

    @property
    def evaluable(self) -> bool:
        """Deleted and binary files are listed but never evaluated."""
        return self.status != "deleted" and not self.binary


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


def merge_base(repo: Path, a: str, b: str) -> str | None:
    """The best common ancestor of `a` and `b`, or None when the visible history has none."""
    out = git_bytes(repo, "merge-base", a, b, check=False)
    return os.fsdecode(out).strip() or None


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
    """Fetch until every rev in `revs` is present (and `merge_base_of` has a merge base).

    A shallow clone is deepened by doubling steps (32, 64, ...) until the total passes `max_deepen`,
    then unshallowed once; revs still missing (e.g. the old tip of a forced push, reachable from no
    branch) are fetched by object name. Returns the number of fetches made. Raises
    ChangeDetectionError naming what is still missing.
    """

    def missing() -> list[str]:
        absent = [rev for rev in revs if not has_commit(repo, rev)]
        if not absent and merge_base_of and merge_base(repo, *merge_base_of) is None:
            absent.append(f"merge base of {merge_base_of[0]} and {merge_base_of[1]}")
        return absent

    fetches = 0
    absent = missing()
    if not absent:
        return fetches
    has_remote = remote in git(repo, "remote").split("\n")
    if has_remote and is_shallow(repo):
        step, total = first_deepen, 0
        while absent and is_shallow(repo):
            if total >= max_deepen:
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
    if absent:
        where = f"from remote '{remote}'" if has_remote else "(no remote to fetch from)"
        raise ChangeDetectionError(
            f"cannot compare revisions in {repo}: missing {', '.join(absent)} after fetching {where}"
        )
    return fetches


# ----------------------------------------------------------------------------------------- globs


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate one GitHub filter pattern to a regex matched against the whole path.

    GitHub's cheat sheet: `*` any run without `/`; `**` any run; `**/` also zero directories (so
    `docs/**/*.md` matches `docs/a.md`); `?` zero or one and `+` one or more of the preceding
    character; `[a-z0-9]` one listed character; `\\` escapes the next character.
    """
    out: list[str] = []
    quantifiable = False  # whether `?`/`+` may follow the last atom (a single character or class)
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i, quantifiable = i + 3, False
        elif pattern.startswith("**", i):
            out.append(".*")
            i, quantifiable = i + 2, False
        elif char == "*":
            out.append("[^/]*")
            i, quantifiable = i + 1, False
        elif char in "?+" and quantifiable:
            out.append(char)
            i, quantifiable = i + 1, False
        elif char == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            negate = body[0] in "!^"
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + re.sub(r"([\\\]\[^])", r"\\\1", body) + "]")
            i, quantifiable = end + 1, True
        elif char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i, quantifiable = i + 2, True
        else:
            out.append(re.escape(char))
            i, quantifiable = i + 1, True
    return re.compile("".join(out), re.DOTALL)


def path_matches(path: str, pattern: str) -> bool:
    """Whether `path` is selected by `pattern`: one glob per line, evaluated in order like GitHub's
    `paths` filter (a later `!glob` excludes what earlier lines included). A blank pattern selects all.
    """
    lines = [line.strip() for line in pattern.splitlines() if line.strip()]
    if not lines:
        return True
    selected = False
    for line in lines:
        negate = line.startswith("!")
        if _glob_regex(line[1:] if negate else line).fullmatch(path):
            selected = not negate
    return selected


# ----------------------------------------------------------------------------------------- diffs


@dataclass(frozen=True)
class _Entry:
    status: ChangeStatus
    path: str
    old_path: str | None


_STATUS: dict[str, ChangeStatus] = {"A": "added", "M": "modified", "T": "modified", "D": "deleted"}


def _parse_name_status(raw: bytes) -> list[_Entry]:
    fields = [os.fsdecode(f) for f in raw.split(b"\0")]
    entries: list[_Entry] = []
    i = 0
    while i < len(fields) and fields[i]:
        code = fields[i][0]
        if code in "RC":  # rename/copy: score, then old and new path
            old, new = fields[i + 1], fields[i + 2]
            entries.append(_Entry("renamed" if code == "R" else "added", new, old if code == "R" else None))
            i += 3
        elif code in _STATUS:
            entries.append(_Entry(_STATUS[code], fields[i + 1], None))
            i += 2
        else:
            raise ChangeDetectionError(f"unexpected git diff status {fields[i]!r} for {fields[i + 1]!r}")
    return entries


def _split_patches(raw: bytes) -> list[list[bytes]]:
    """Split a multi-file unified diff into per-file line lists at `diff --git ` headers.

    Hunk lines start with ' ', '+', '-' or '\\', so a header line cannot occur inside a hunk. Lines
    are split on \\n only: a \\r inside a line is content, as git counts it.
    """
    patches: list[list[bytes]] = []
    for line in raw.split(b"\n")[:-1] if raw.endswith(b"\n") else raw.split(b"\n"):
        if line.startswith(b"diff --git "):
            patches.append([])
        if patches:
            patches[-1].append(line + b"\n")
    return patches


def _added_ranges(lines: list[bytes], path: str) -> tuple[tuple[tuple[int, int], ...], bool]:
    head = [line for line in lines if not line.startswith(b"@@")][:8]
    binary = any(line.startswith((b"Binary files ", b"GIT binary patch")) for line in head)
    try:
        patch = PatchSet([line.decode("utf-8", "replace") for line in lines])
    except UnidiffParseError as exc:
        raise ChangeDetectionError(f"cannot parse the diff of {path!r}: {exc}") from exc
    ranges: list[tuple[int, int]] = []
    for patched in patch:
        binary = binary or patched.is_binary_file
        for hunk in patched:
            if hunk.target_length == 0:
                continue
            start, end = hunk.target_start, hunk.target_start + hunk.target_length - 1
            if ranges and ranges[-1][1] + 1 >= start:  # adjacent -U0 hunks read as one range
                ranges[-1] = (ranges[-1][0], max(end, ranges[-1][1]))
            else:
                ranges.append((start, end))
    return tuple(ranges), binary


def _diff_args(base: str, head: str) -> list[str]:
    return ["--no-color", "--no-ext-diff", "--no-textconv", "-M", "--find-renames", base, head, "--"]


def changed_files(
    repo: Path, base: str, head: str, pattern: str = "", *, three_dot: bool = False
) -> list[ChangedFile]:
    """The files changed from `base` to `head` whose head path matches `pattern` (see `path_matches`).

    `three_dot` diffs from the merge base of `base` and `head` (GitHub's `base...head` for pull
    requests). A rename counts at its new path; deletions are listed (never evaluated); binary files
    are flagged. Both revisions must be present: call `ensure_history` first for shallow clones.
    """
    for rev in (base, head):
        if rev != EMPTY_TREE and not has_commit(repo, rev):
            raise ChangeDetectionError(f"commit {rev} is not in {repo} (shallow clone? fetch it first)")
    if three_dot:
        found = merge_base(repo, base, head)
        if found is None:
            raise ChangeDetectionError(f"{base} and {head} have no common history in {repo}")
        base = found
    listing = _parse_name_status(git_bytes(repo, "diff", "--name-status", "-z", *_diff_args(base, head)))
    wanted = [e for e in listing if path_matches(e.path, pattern)]
    if not wanted:
        return []
    return list(_with_hunks(repo, base, head, wanted))


def _with_hunks(repo: Path, base: str, head: str, wanted: list[_Entry]) -> Iterable[ChangedFile]:
    needs_diff = [e for e in wanted if e.status != "deleted"]
    hunks: dict[tuple[str, str], tuple[tuple[tuple[int, int], ...], bool]] = {}
    # Limit the patch to the wanted files (both sides of a rename, so git still pairs them), in
    # batches that keep argv far below the kernel's limit.
    batch = 400
    for i in range(0, len(needs_diff), batch):
        group = needs_diff[i : i + batch]
        specs = sorted({p for e in group for p in (e.path, e.old_path) if p})
        args = _diff_args(base, head)
        listing = _parse_name_status(git_bytes(repo, "diff", "--name-status", "-z", *args, *specs))
        patches = _split_patches(git_bytes(repo, "diff", "--unified=0", *args, *specs))
        if len(listing) != len(patches):
            raise ChangeDetectionError(
                f"git diff listed {len(listing)} files but printed {len(patches)} patches for {base}..{head}"
            )
        for entry, lines in zip(listing, patches, strict=True):
            hunks[(entry.path, entry.status)] = _added_ranges(lines, entry.path)
    for entry in wanted:
        ranges, binary = hunks.get((entry.path, entry.status), ((), False))
        yield ChangedFile(entry.path, entry.status, entry.old_path, ranges, binary)


def files_at(repo: Path, rev: str, pattern: str = "") -> list[str]:
    """Every file path in `rev`'s tree that matches `pattern`, in git's order."""
    raw = git_bytes(repo, "ls-tree", "-r", "-z", "--name-only", "--end-of-options", rev)
    return [p for p in (os.fsdecode(f) for f in raw.split(b"\0")) if p and path_matches(p, pattern)]


def format_changes(changes: Sequence[ChangedFile]) -> str:
    """One line per changed file for `evalgate changed`: what would be evaluated, and why not."""
    if not changes:
        return "no matching files changed"
    lines = []
    for change in changes:
        shown = repr(change.path) if any(c in change.path for c in "\n\r\t") else change.path
        verdict = "evaluate" if change.evaluable else "skip (binary)" if change.binary else "skip (deleted)"
        detail = change.status + (f" from {change.old_path!r}" if change.old_path else "")
        ranges = ",".join(f"{a}-{b}" if a != b else str(a) for a, b in change.added_lines)
        lines.append(f"{verdict:<14} {detail:<10} {shown}" + (f"  +[{ranges}]" if ranges else ""))
    evaluated = sum(c.evaluable for c in changes)
    lines.append(f"{evaluated} of {len(changes)} changed files would be evaluated")
    return "\n".join(lines)
