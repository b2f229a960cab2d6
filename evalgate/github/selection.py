"""A revision range's changes and the `paths` pattern -> what the action evaluates, what it refuses
(an ERROR result each, so the check fails), and which changed files it leaves out, each with the
reason. Nothing a range changes under the pattern's root goes unmentioned.

- A changed file (not deleted) that the pattern matches is evaluated when it is a regular file inside
  the workspace once symlinks are resolved, and not under `.git` (`confine`); a file symlink must also
  lead to a path the pattern matches, so a committed link cannot make a judge read another file of the
  workspace (a credential an earlier step wrote, say).
- A symlinked directory under the pattern's root is followed as `evalgate check`'s glob follows it: a
  file of the commit's tree under the directory it leads to, seen through the link, is evaluated when
  that path matches the pattern and the link or the file changed. Only committed files are reached this
  way, links are followed through links (each link at most twice: as changed and as unchanged), and a
  link that leads out of the workspace or into `.git` is refused.
- Every other changed file under the pattern's root (`globs.under_roots`: a `Completed` directory, a
  name ending in a space or spelled in full-width letters reads as under it) is named with the reason it
  was not evaluated: deleted, renamed away, excluded by a `!` line, or how it misses the glob.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from evalgate.github.changes import ChangedFile, TreeEntry, tree_entries
from evalgate.github.globs import explain_miss, glob_roots, path_matches, shown, under_roots

Reasons = tuple[tuple[str, str], ...]  # (path, why)
FILE_MODES = ("100644", "100755")
# Files reached through symlinked directories in one run; a pull request of links to the repository
# root would otherwise multiply every document of the repository by its number of links.
MAX_LINKED_FILES = 5000


@dataclass(frozen=True)
class Selection:
    """`paths` to evaluate; `rejected` paths, each an ERROR result with its reason; `not_evaluated`,
    changed files under the pattern's root that are neither, each named with its reason."""

    paths: tuple[str, ...] = ()
    rejected: Reasons = ()
    not_evaluated: Reasons = ()


def select_changes(workspace: Path, head: str, changes: Sequence[ChangedFile], pattern: str) -> Selection:
    """What to do with each file a range changed; `head` is the commit checked out in `workspace`."""
    changed = frozenset(c.path for c in changes if c.evaluable)
    matched = [c.path for c in changes if c.evaluable and path_matches(c.path, pattern)]
    selection, handled = _select(workspace, tree_entries(workspace, head), matched, pattern, changed)
    roots = glob_roots(pattern)
    named = [
        line for change in changes if change.path not in handled for line in _why_not(change, pattern, roots)
    ]
    return replace(selection, not_evaluated=selection.not_evaluated + tuple(named))


def select_all(workspace: Path, head: str, pattern: str) -> Selection:
    """Every file of `head`'s tree the pattern matches, directly or through a symlinked directory."""
    entries = tree_entries(workspace, head)
    return _select(
        workspace, entries, [e.path for e in entries if path_matches(e.path, pattern)], pattern, None
    )[0]


def _select(
    workspace: Path,
    entries: list[TreeEntry],
    matched: list[str],
    pattern: str,
    changed: frozenset[str] | None,
) -> tuple[Selection, set[str]]:
    """The selection of `matched` paths plus what symlinked directories lead to, and every path it has
    dealt with (evaluated, refused, or named here: a link that leads to no matching file)."""
    linked = _through_links(workspace, entries, pattern, changed)
    direct = [path for path in matched if path not in linked.links]
    accepted, rejected = confine(workspace, direct, pattern)
    through, refused = confine(workspace, linked.files, pattern, linked=True)
    empty = tuple(
        (link, f"a symlink to a directory that holds no file matched by paths glob {shown(pattern)}")
        for link, count in linked.links.items()
        if count == 0 and (changed is None or link in changed)
    )
    handled = {*matched, *linked.links, *(path for path, _ in linked.refused)}
    return Selection(accepted + through, rejected + refused + linked.refused, empty), handled


def _why_not(change: ChangedFile, pattern: str, roots: tuple[str, ...]) -> list[tuple[str, str]]:
    """The line naming a changed file that is not evaluated, if it lies under the pattern's roots."""

    def covered(path: str) -> bool:
        return path_matches(path, pattern) or under_roots(path, roots)

    if change.status == "deleted":
        return [(change.path, "deleted")] if covered(change.path) else []
    if under_roots(change.path, roots):
        return [(change.path, explain_miss(change.path, pattern))]
    if change.old_path and covered(change.old_path):
        return [(change.old_path, f"renamed to {change.path!r}, {explain_miss(change.path, pattern)}")]
    return []


# -------------------------------------------------------------------------------- confinement


def confine(
    workspace: Path, candidates: Iterable[str], pattern: str, *, linked: bool = False
) -> tuple[tuple[str, ...], Reasons]:
    """Keep the paths that are regular files inside the workspace after resolving symlinks, outside
    `.git`. A path that is itself a symlink must lead to a path `pattern` matches; `linked` paths,
    reached through a symlinked directory to a committed file, are exempt from that rule."""
    root = workspace.resolve()
    accepted: list[str] = []
    rejected: list[tuple[str, str]] = []
    for rel in candidates:
        if ".git" in PurePosixPath(rel).parts:
            rejected.append((rel, "is inside .git"))
            continue
        real = (root / rel).resolve()
        if not real.is_relative_to(root):
            rejected.append((rel, "resolves outside the workspace (through a symlink)"))
            continue
        inside = real.relative_to(root).as_posix()
        leads_elsewhere = inside != rel and not linked and not path_matches(inside, pattern)
        if inside != rel and (".git" in PurePosixPath(inside).parts or leads_elsewhere):
            rejected.append((rel, f"is a symlink to {inside!r}, which does not match paths {pattern!r}"))
        elif not real.is_file():
            rejected.append((rel, "is not a file in the workspace" if real.exists() else "no such file"))
        else:
            accepted.append(rel)
    return tuple(accepted), tuple(rejected)


# ------------------------------------------------------------------------------ directory links


@dataclass(frozen=True)
class _Linked:
    files: tuple[str, ...]  # paths through a symlinked directory to evaluate
    links: dict[str, int]  # each link followed (by its path in the tree) -> files reached through it
    refused: Reasons  # links that lead out of the workspace or into .git


def _covers(link: str, roots: tuple[str, ...]) -> bool:
    """Whether paths through `link` can fall under a root: it lies under one, is one, or is above one."""
    return any(
        root == "" or link == root or link.startswith(root + "/") or root.startswith(link + "/")
        for root in roots
    )


def _through_links(
    workspace: Path, entries: list[TreeEntry], pattern: str, changed: frozenset[str] | None
) -> _Linked:
    """The files the pattern matches through symlinked directories of the tree. A file counts when it
    changed or a link on its way did (`changed` None: every file counts)."""
    root = workspace.resolve()
    ordered = sorted(entries, key=lambda e: e.path)
    paths = [e.path for e in ordered]
    roots = glob_roots(pattern)

    def fresh_of(path: str) -> bool:
        return changed is None or path in changed

    # (path through the links, the link's path in the tree, whether a link on the way changed)
    queue = [(e.path, e.path, fresh_of(e.path)) for e in ordered if e.is_symlink and _covers(e.path, roots)]
    expanded: set[tuple[str, bool]] = set()
    files: list[str] = []
    links: dict[str, int] = {}
    refused: list[tuple[str, str]] = []
    while queue:
        alias, link, fresh = queue.pop(0)
        real = (root / alias).resolve()
        if not real.is_dir() or (link, fresh) in expanded:
            continue
        expanded.add((link, fresh))
        inside = real.relative_to(root).as_posix() if real.is_relative_to(root) else None
        if inside is None or ".git" in PurePosixPath(inside).parts:
            if fresh:
                refused.append((alias, "is a symlink to a directory outside the workspace or in .git"))
            continue
        links.setdefault(link, 0)
        prefix = "" if inside == "." else inside + "/"
        for entry in ordered[bisect.bisect_left(paths, prefix) :]:
            if not entry.path.startswith(prefix):
                break
            through = f"{alias}/{entry.path[len(prefix) :]}"
            if entry.is_symlink:
                queue.append((through, entry.path, fresh or fresh_of(entry.path)))
            elif (
                entry.mode in FILE_MODES
                and (fresh or fresh_of(entry.path))
                and path_matches(through, pattern)
            ):
                if len(files) >= MAX_LINKED_FILES:
                    refused.append((alias, f"leads to more than {MAX_LINKED_FILES} files through symlinks"))
                    return _Linked(tuple(files), links, tuple(refused))
                files.append(through)
                links[link] += 1
    return _Linked(tuple(files), links, tuple(refused))
