"""Suggested changes for a pull request: every edit `evalgate fix` would make on a line the pull request
adds, as a one-line suggestion (posted as one review by evalgate/github/review.py).

Which lines: the right side of the pull request's diff as GitHub shows it, the head commit's lines that
the diff from the merge base adds. A criss-cross history has several merge bases and GitHub diffs from
one without saying which, so a line gets a suggestion only when the diff from every merge base adds
it. A line outside the diff never gets one: the author did not write it in this pull request, and
GitHub answers a review comment there with 422, which would lose the whole review.

Which text: the file as the head commit has it, read from git's objects. The checkout is GitHub's test
merge commit, whose lines differ from the head's once the base has moved, and a suggestion names a
line of the head. It is read as `evalgate check` reads a file (a regular file, at most `max_file_mb`,
UTF-8, no NUL byte) and fixed with the run's policy (on a pull request the base commit's, so the
pull request cannot choose the fixes it is offered). Each file is fixed in a worker process under the
run's `document-timeout`, as the structural pass is (evalgate/run/workers.py): a document that makes
the fix slow costs its suggestions, never the run. A file that gets none says why in `notes`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from evalgate.config import Config
from evalgate.fix.command import DashPlan, dash_plan, fix_plan
from evalgate.fix.lines import LineFix, Rewrite, line_fixes
from evalgate.github.changes import ChangeDetectionError, changed_files, diff_starts, git_bytes
from evalgate.github.workflow import workflow_command
from evalgate.results import Report, Verdict
from evalgate.rubric import load_rubric
from evalgate.rubrics.params import AcronymExpansionParams, CheckParams

PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
_FILE_MODES = (b"100644", b"100755")
Ranges = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Suggestion:
    """Replace line `line` of `path` at the pull request's head (`old`) with `new`."""

    path: str
    line: int
    old: str
    new: str
    rewrites: tuple[Rewrite, ...]

    @property
    def acronyms(self) -> frozenset[str]:
        return frozenset(r.acronym for r in self.rewrites)


@dataclass(frozen=True)
class SuggestionPlan:
    """What a run would suggest on its pull request, and why a changed document gets nothing."""

    head_sha: str
    suggestions: tuple[Suggestion, ...]
    notes: tuple[str, ...] = ()
    fork: bool = False  # the head lives in another repository: its `pull_request` token is read-only


def suggestions_for_run(
    config: Config, workspace: Path, event_name: str, payload: Mapping[str, Any], report: Report, out: TextIO
) -> tuple[SuggestionPlan | None, list[str]]:
    """The action's suggestions for its report (none for a document that could not be evaluated), and
    what went wrong working them out (a warning, never the exit code). Another event than a pull
    request gets a notice that `suggest` does nothing there."""
    if event_name not in PULL_REQUEST_EVENTS:
        note = f"evalgate: `suggest` posts suggested changes on pull requests only; this is {event_name}"
        out.write(workflow_command("notice", note) + "\n")
        return None, []
    evaluated = [r.path for r in report.results if r.verdict is not Verdict.ERROR]
    try:
        return plan_suggestions(workspace, config, event_name, payload, evaluated), []
    except Exception as exc:  # as in publishing: a suggestion bug must not cost the decided verdict
        return None, [f"suggested changes: {type(exc).__name__}: {exc}"]


def plan_suggestions(
    workspace: Path,
    config: Config,
    event_name: str,
    payload: Mapping[str, Any],
    evaluated: Collection[str],
) -> SuggestionPlan | None:
    """The suggestions for the documents of `evaluated` (workspace-relative paths the run evaluated)
    that the pull request changes; None when the event is no pull request. Raises
    ChangeDetectionError when git cannot compare the two commits (the run has compared them already,
    so this means the repository changed under it)."""
    if event_name not in PULL_REQUEST_EVENTS:
        return None
    pull = payload.get("pull_request") or {}
    base, head = str(pull["base"]["sha"]), str(pull["head"]["sha"])
    lines = review_lines(workspace, base, head, config.paths)
    wanted = sorted(path for path in lines if path in set(evaluated))
    rubric = load_rubric(config.rubric)
    params, others = fix_plan(rubric, config)
    dashes = dash_plan(rubric, config)
    notes: list[str] = []
    read: list[tuple[str, bytes]] = []
    for path in wanted:
        raw, why = _head_file(workspace, head, path, int(config.max_file_mb * 1024 * 1024))
        if raw is None:
            notes.append(f"{path}: no suggestions: {why}")
        else:
            read.append((path, raw))
    suggestions: list[Suggestion] = []
    for (path, _), (fixes, failed) in zip(
        read, _fixed(read, _FixLines(params, others, dashes), config.document_timeout), strict=True
    ):
        if failed is not None:
            notes.append(f"{path}: no suggestions: {failed}")
        suggestions += [
            Suggestion(path, fix.line, fix.old, fix.new, fix.rewrites)
            for fix in fixes
            if _within(fix.line, lines[path])
        ]
    return SuggestionPlan(head, tuple(suggestions), tuple(notes), _fork(pull))


def review_lines(workspace: Path, base: str, head: str, pattern: str) -> dict[str, Ranges]:
    """The lines of `head` a review comment may hold a suggestion on, per file matching `pattern`:
    those the diff from every merge base of `base` and `head` adds (see the module's docstring)."""
    found: dict[str, Ranges] | None = None
    for start in diff_starts(workspace, base, head, three_dot=True):
        added = {c.path: c.added_lines for c in changed_files(workspace, start, head, pattern) if c.evaluable}
        found = added if found is None else {p: _common(r, added[p]) for p, r in found.items() if p in added}
    return {path: ranges for path, ranges in (found or {}).items() if ranges}


def _common(a: Ranges, b: Ranges) -> Ranges:
    """The lines two range lists both hold, as ranges."""
    pairs = ((max(s1, s2), min(e1, e2)) for s1, e1 in a for s2, e2 in b)
    return tuple(sorted((start, end) for start, end in pairs if start <= end))


def _within(line: int, ranges: Ranges) -> bool:
    return any(start <= line <= end for start, end in ranges)


def _fork(pull: Mapping[str, Any]) -> bool:
    head_repo, base_repo = (pull.get(side, {}).get("repo") for side in ("head", "base"))
    if not isinstance(head_repo, dict):  # the fork was deleted: GitHub sends null
        return True
    return isinstance(base_repo, dict) and head_repo.get("full_name") != base_repo.get("full_name")


def _head_file(workspace: Path, head: str, path: str, max_bytes: int) -> tuple[bytes | None, str]:
    """The bytes of `path` at `head`, or None and why they are not a document to fix."""
    try:
        listing = git_bytes(workspace, "ls-tree", "-l", "-z", "--end-of-options", head, "--", path)
        entry = listing.split(b"\0")[0]
        if not entry:
            return None, "not in the head commit"
        mode, _kind, _sha, size = entry.split(b"\t", 1)[0].split()
        if mode not in _FILE_MODES:
            return None, "not a regular file in the head commit (a symlink or a submodule)"
        if int(size) > max_bytes:
            return None, f"{int(size)} bytes is larger than the {max_bytes}-byte limit"
        raw = git_bytes(workspace, "cat-file", "blob", f"{head}:{path}")
    except (ChangeDetectionError, ValueError) as exc:
        return None, f"cannot be read from the head commit ({exc})"
    if b"\0" in raw:
        return None, "binary file (NUL byte), not markdown"
    return raw, ""


# What fixing one file gives: its line fixes, or none and why.
_Fixed = tuple[list[LineFix], str | None]


@dataclass(frozen=True)
class _FixLines:
    """Fix one file's bytes (picklable, for a worker process)."""

    params: AcronymExpansionParams | None
    others: list[tuple[str, CheckParams | None]]
    dashes: DashPlan | None = None  # the em-dash fixes, with a rubric that has `em_dashes`

    def __call__(self, item: tuple[str, bytes]) -> _Fixed:
        try:
            return line_fixes(item[1], self.params, self.others, self.dashes), None
        except UnicodeDecodeError as exc:
            return [], f"not UTF-8 (invalid byte at offset {exc.start})"
        except Exception as exc:  # a fix bug costs this file's suggestions, never the run
            return [], f"internal error while fixing: {type(exc).__name__}: {exc}"


def _fixed(read: list[tuple[str, bytes]], work: _FixLines, budget: float) -> list[_Fixed]:
    """Each file fixed in a worker process within `budget` seconds, in order."""
    if not read:
        return []
    from evalgate.run import start_method
    from evalgate.run.workers import Workers

    def timed_out(_item: tuple[str, bytes], why: str) -> _Fixed:
        return [], f"not fixed: {why} (the time budget per document, document-timeout, is {budget:g} s)"

    pool: Workers[tuple[str, bytes], _Fixed] = Workers(1, work, budget, timed_out, start_method)
    try:
        return list(pool.map(read))
    finally:
        pool.close()
