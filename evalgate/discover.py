"""Command-line targets -> the markdown files to evaluate.

A target is a file, a directory (recursed for markdown files) or a glob. Problems with a target (it does
not exist, a directory holds no markdown, a symlink leads outside the root) become per-target errors so
the rest of the run goes on.

Markdown files are named `*.md` or `*.markdown`, in any letter case (`x.MD`, `x.Markdown`): the
directory walk takes them all, and a glob that ends in a markdown extension matches every one of them,
as the action's `paths` filter does (`github/globs.py`), so the CLI and the action evaluate the same
files.
"""

from __future__ import annotations

import glob as globlib
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

MARKDOWN_EXTENSIONS = (".md", ".markdown")


def any_case(extension: str) -> str:
    """`.md` as `.[mM][dD]`: a glob (and regex) class per letter, ASCII letters only, so no other
    character that lower-cases to one of them (the Kelvin sign to `k`) counts."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in extension)


_MARKDOWN_END = re.compile("(?:" + "|".join(r"\." + any_case(e[1:]) for e in MARKDOWN_EXTENSIONS) + r")\Z")


def is_markdown(name: str) -> bool:
    """Whether a file name has a markdown extension (`.md`, `.markdown`) in any letter case."""
    return _MARKDOWN_END.search(name) is not None


def markdown_extension(pattern: str) -> str | None:
    """The markdown extension a glob ends with (in any case, as written), or None."""
    found = _MARKDOWN_END.search(pattern)
    return found.group() if found else None


def _glob_markdown(pattern: str) -> list[str]:
    """globlib.glob, except that a pattern ending in a markdown extension matches every markdown
    extension in any case (`**/*.md` finds `x.MD` and `y.markdown`)."""
    ending = markdown_extension(pattern)
    if ending is None:
        return globlib.glob(pattern, recursive=True)
    stem = pattern[: -len(ending)]
    found: set[str] = set()
    for ext in MARKDOWN_EXTENSIONS:
        found.update(globlib.glob(stem + any_case(ext), recursive=True))
    return list(found)


def reportable(name: str) -> str:
    """A file name as reports can carry it. os.fsdecode keeps bytes that are not UTF-8 (a name git or
    the file system holds, `bad\\xff.md`) as lone surrogates, which no UTF-8 writer accepts: JSON, the
    job summary and GitHub's API would fail on them. They are written as `\\xNN` instead."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        try:
            return os.fsencode(name).decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
            return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return name


@dataclass(frozen=True)
class Target:
    """One file to evaluate: how it is shown in reports, and where it is."""

    display: str
    path: Path


@dataclass(frozen=True)
class TargetProblem:
    display: str
    message: str


# Set, these change where git looks for the repository (or which directory is its top): git decides.
_GIT_DISCOVERY_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
)


def repository_root(start: Path) -> Path:
    """The git top level containing `start`, else `start` itself.

    Found as git finds it: the nearest directory, from `start`'s real path up, holding a `.git` that is
    a repository (a directory with a HEAD) or points to one (the `gitdir:` file of a worktree or a
    submodule). That takes microseconds where starting `git rev-parse --show-toplevel` took 3-9 ms and
    the `subprocess` import: a tenth of a one-file check. When the environment changes git's
    discovery (GIT_DIR and the like), git itself is asked."""
    if any(name in os.environ for name in _GIT_DISCOVERY_VARIABLES):
        return _git_toplevel(start)
    here = start.resolve()
    for directory in (here, *here.parents):
        if _is_git_entry(directory / ".git"):
            return directory
    return here


def _is_git_entry(dot_git: Path) -> bool:
    if dot_git.is_dir():
        return (dot_git / "HEAD").is_file()
    try:
        with open(dot_git, "rb") as link:
            return link.read(8) == b"gitdir: "
    except OSError:  # absent (the usual case), or unreadable
        return False


def _git_toplevel(start: Path) -> Path:
    import subprocess

    try:
        out = subprocess.run(
            ["git", "-C", str(start), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return start.resolve()
    top = out.stdout.strip()
    return Path(top).resolve() if out.returncode == 0 and top else start.resolve()


def display_path(path: Path, base: Path) -> str:
    """A path relative to `base` when it lies below it (POSIX separators), else as absolute."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(base).as_posix()
    except ValueError:
        return os.path.relpath(absolute, base) if absolute.anchor == base.anchor else str(absolute)


def _escapes_root(path: Path, root: Path) -> bool:
    """True when following symlinks takes `path` outside `root` (plain paths outside are allowed:
    the user named them; a link inside the tree pointing out of it is what we refuse)."""
    absolute = Path(os.path.abspath(path))
    resolved = path.resolve()
    if resolved == absolute:
        return False
    return not resolved.is_relative_to(root) and absolute.is_relative_to(root)


def _markdown_under(directory: Path) -> list[tuple[Path, str, bool]]:
    """The markdown files below `directory` in a stable order, each with its path from `directory` (with
    `/`) and whether it is a symlink. The walk never enters a symlinked directory, so a file that is no
    symlink resolves to where its directory does: it escapes the root exactly when `directory` does
    (checked once, not per file)."""
    found: list[tuple[Path, str, bool]] = []
    top = os.fspath(directory)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        below = "" if dirpath == top else os.path.relpath(dirpath, top).replace(os.sep, "/") + "/"
        for name in sorted(filenames):
            if is_markdown(name):
                full = os.path.join(dirpath, name)
                found.append((Path(full), below + name, os.path.islink(full)))
    return found


def _shown_below(directory: Path, base: Path) -> str | None:
    """What `display_path` puts before the path from `directory` of every file below it, or None
    when that is not one prefix (`base` lies inside `directory`, or a platform whose separator is not
    `/`). Shown from the directory once instead of per file: display_path was two thirds of
    discovering the corpus's 453 files."""
    absolute = Path(os.path.abspath(directory))
    if os.sep != "/" or (absolute != base and base.is_relative_to(absolute)):
        return None
    shown = display_path(directory, base)
    return "" if shown == "." else shown + "/"


def discover(
    targets: list[str], root: Path, *, base: Path | None = None
) -> tuple[list[Target], list[TargetProblem]]:
    """Expand targets into files, in a stable order without duplicates."""
    base = (base or Path.cwd()).resolve()
    root = root.resolve()
    files: list[Target] = []
    problems: list[TargetProblem] = []
    seen: set[str] = set()

    def add(p: Path, *, contained: bool = False, shown: str | None = None) -> None:
        """`contained`: known not to escape the root (a plain file of a walked directory that does not);
        `shown`: its display path when already known."""
        shown = display_path(p, base) if shown is None else shown
        if shown in seen:
            return
        seen.add(shown)
        if not contained and _escapes_root(p, root):
            problems.append(
                TargetProblem(reportable(shown), f"refused: symlink leads outside the repository root {root}")
            )
            return
        files.append(Target(reportable(shown), p))

    for raw in targets:
        p = base / raw  # an absolute `raw` replaces base
        if p.is_dir():
            if _escapes_root(p, root):
                problems.append(
                    TargetProblem(
                        reportable(raw), f"refused: symlink leads outside the repository root {root}"
                    )
                )
                continue
            walked = _markdown_under(p)
            if not walked:
                problems.append(
                    TargetProblem(reportable(raw), "directory contains no markdown (*.md, *.markdown) files")
                )
            prefix = _shown_below(p, base)
            for f, below, link in walked:
                add(f, contained=not link, shown=None if prefix is None else prefix + below)
        elif p.exists() or p.is_symlink():
            add(p)
        elif globlib.has_magic(raw):
            matches = sorted(_glob_markdown(str(p)))
            md = [Path(m) for m in matches if Path(m).is_file() or Path(m).is_symlink()]
            if not md:
                problems.append(TargetProblem(reportable(raw), "glob matched no files"))
            for f in md:
                add(f)
        else:
            problems.append(TargetProblem(reportable(raw), "no such file or directory"))
    return files, problems


def in_shard(display: str, shard: str | None) -> bool:
    """Stable partition by path: `i/n` keeps the files whose path hash falls in bucket i (1-based)."""
    if not shard:
        return True
    index, count = (int(x) for x in shard.split("/"))
    return zlib.crc32(display.encode("utf-8")) % count == index - 1
