"""GitHub event payload -> Targets: what to evaluate (a revision range, or explicit paths).

How each event becomes a range (decided here; design.md has the measured facts):

- push: `before..after`. A deleted ref or a tag push evaluates nothing. A forced push diffs `after`
  from its merge base with `before` (fetched by sha if no branch reaches it any more), else from its
  merge base with the default branch. A new branch (`before` is 40 zeros) diffs from its merge base
  with `origin/<default>`; when there is none (the default branch's own first push, or no default
  given) every matching file at `after` is evaluated. The payload's `commits` list is not used: GitHub
  caps it at 20 commits and its file lists are not reliable.
- pull_request / pull_request_target (opened, synchronize, reopened, ready_for_review): from
  `base.sha` to the checked-out commit when it contains `head.sha` (GITHUB_SHA, the test merge commit
  actions/checkout leaves, or `head.sha` itself), else to `head.sha`; three dots, from every merge base.
  The documents are read from the checkout, so the diff ends there: from the merge commit's first
  parent, `base.sha`, it lists exactly the files the merge changes, whatever shape the PR's history has
  (a criss-cross merge that keeps an old version of an item, which `base.sha...head.sha` from one
  merge base misses). Results go to `head.sha`, not GITHUB_SHA.
- merge_group: `base_sha...head_sha`.
- Three-dot ranges take the union over every merge base (`changes.diff_entries`).
- workflow_dispatch: the `files` input (newline-separated paths, each validated on its own) or else
  every file matching `paths` at HEAD.

What a range's changes select (`selection.py`): matching files, files reached through a symlinked
directory under `paths` (as `evalgate check` follows them), and, named with a reason, every other
changed file under the root of `paths`. Every path handed on must stay inside the workspace once
symlinks are resolved and must not be under `.git` (where actions/checkout keeps the job token), so a
committed symlink cannot make a judge read a file outside the evaluated set.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from evalgate.github.changes import (
    EMPTY_TREE,
    ZERO_SHA,
    ChangeDetectionError,
    ChangedFile,
    diff_entries,
    ensure_history,
    git_bytes,
    has_commit,
    is_ancestor,
    is_shallow,
    resolve_commit,
)
from evalgate.github.globs import path_matches
from evalgate.github.selection import Reasons, confine, select_all, select_changes

TargetMode = Literal["diff", "files", "all", "none"]
SUPPORTED_EVENTS = ("push", "pull_request", "pull_request_target", "merge_group", "workflow_dispatch")
PR_ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
Rejections = Reasons  # (path as given, reason)


class EventError(ChangeDetectionError):
    """The event payload is unsupported, unreadable, or lacks a field it must have."""


@dataclass(frozen=True)
class Targets:
    """What one run evaluates, and where its results are reported.

    `mode` is "diff" (a revision range: `changed` lists every matching change, `paths` what is
    evaluated), "files" (explicit dispatch paths), "all" (every matching file at `head`) or "none".
    `base`/`head` are the revisions compared; for pull requests, merge groups, forced pushes and new
    branches the diff starts at their merge bases. `report_sha` is where results are posted.
    `rejected` pairs each refused path with the reason (an ERROR result each); `not_evaluated` each
    changed file under the root of `paths` that is neither evaluated nor refused, with the reason;
    `notes` say how the range was chosen.
    """

    mode: TargetMode
    base: str | None
    head: str | None
    report_sha: str | None
    paths: tuple[str, ...]
    changed: tuple[ChangedFile, ...] = ()
    pr_number: int | None = None
    notes: tuple[str, ...] = ()
    rejected: Rejections = ()
    not_evaluated: Rejections = ()


def load_event(path: Path, event_name: str | None = None) -> tuple[str, dict[str, Any]]:
    """Read GITHUB_EVENT_PATH. The name is `event_name` (GITHUB_EVENT_NAME) or inferred from the
    payload's shape; `pull_request_target` cannot be told from `pull_request` and must be passed.
    """
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EventError(f"cannot read the event payload {path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EventError(f"the event payload {path} is not valid JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise EventError(f"the event payload {path} is not a JSON object")
    if event_name:
        return event_name, payload
    for name, keys in (
        ("merge_group", ("merge_group",)),
        ("pull_request", ("pull_request",)),
        ("workflow_dispatch", ("inputs", "workflow")),
        ("push", ("ref", "before", "after")),
    ):
        if all(key in payload for key in keys):
            return name, payload
    raise EventError(f"cannot tell which event {path} holds; pass the event name (GITHUB_EVENT_NAME)")


def targets_from_event(
    event_name: str,
    payload: dict[str, Any],
    workspace: Path,
    *,
    paths: str,
    files: str | None = None,
    default_branch: str | None = None,
    remote: str = "origin",
) -> Targets:
    """Decide what to evaluate for one GitHub event in the checked-out `workspace`.

    `paths` is the glob filter (see `changes.path_matches`); `files` the workflow_dispatch input
    (falls back to the payload's `inputs.files`); `default_branch` falls back to the payload's
    `repository.default_branch`. Shallow clones are deepened as needed. Raises EventError or
    ChangeDetectionError with a message naming what is wrong.
    """
    default = default_branch or _field(payload, "repository", "default_branch", required=False)
    if event_name == "push":
        return _push(payload, workspace, paths, default, remote)
    if event_name in ("pull_request", "pull_request_target"):
        action = payload.get("action")
        if action not in PR_ACTIONS:
            return _nothing(f"{event_name} action {action!r}: nothing to evaluate")
        base, head = (
            _sha(payload, "pull_request", "base", "sha"),
            _sha(payload, "pull_request", "head", "sha"),
        )
        number = payload.get("number", _field(payload, "pull_request", "number", required=False))
        return _pull_request(
            workspace, base, head, paths, remote, number if isinstance(number, int) else None
        )
    if event_name == "merge_group":
        base, head = _sha(payload, "merge_group", "base_sha"), _sha(payload, "merge_group", "head_sha")
        return _diff(workspace, base, head, paths, remote=remote, three_dot=True, notes=("merge group",))
    if event_name == "workflow_dispatch":
        inputs = payload.get("inputs") or {}
        listed = files if files is not None else inputs.get("files") if isinstance(inputs, dict) else None
        return _dispatch(workspace, paths, listed if isinstance(listed, str) else None)
    raise EventError(f"event {event_name!r} is not supported; evalgate runs on {', '.join(SUPPORTED_EVENTS)}")


# ------------------------------------------------------------------------------------- events


def _pull_request(
    workspace: Path, base: str, head: str, paths: str, remote: str, number: int | None
) -> Targets:
    """From `base` to the checkout when it contains `head` (the test merge commit), else to `head`."""
    ensure_history(workspace, [base, head], remote=remote)
    checkout = resolve_commit(workspace, "HEAD")
    if checkout != head and is_ancestor(workspace, head, checkout):
        note = (
            f"pull request: base.sha...{checkout} (the checked-out merge commit); results go to head {head}"
        )
        end = checkout
    else:
        note = f"pull request: base.sha...head.sha; results go to head {head}"
        end = head
    return _diff(
        workspace,
        base,
        end,
        paths,
        remote=remote,
        three_dot=True,
        report_sha=head,
        pr_number=number,
        notes=(note,),
    )


def _push(payload: dict[str, Any], workspace: Path, paths: str, default: str | None, remote: str) -> Targets:
    ref = _field(payload, "ref")
    after = _sha(payload, "after")
    before = _sha(payload, "before")
    if payload.get("deleted") or after == ZERO_SHA:
        return _nothing(f"push deleted {ref}: nothing to evaluate")
    if not ref.startswith("refs/heads/"):
        return _nothing(f"push of {ref} is not a branch: nothing to evaluate")
    branch = ref.removeprefix("refs/heads/")
    if before == ZERO_SHA:
        found = _against_default(workspace, after, paths, default, branch, remote, "new branch")
        if found:
            return found
        note = f"new branch {branch} with no other branch to compare: every matching file at {after}"
        return _diff(workspace, EMPTY_TREE, after, paths, remote=remote, notes=(note,))
    if payload.get("forced"):
        try:
            return _diff(
                workspace,
                before,
                after,
                paths,
                remote=remote,
                three_dot=True,
                notes=(f"forced push: compared with the merge base of the previous tip {before}",),
            )
        except ChangeDetectionError as exc:
            found = _against_default(workspace, after, paths, default, branch, remote, f"forced push ({exc})")
            if found:
                return found
            raise
    return _diff(workspace, before, after, paths, remote=remote, notes=(f"push: {before}..{after}",))


def _against_default(
    workspace: Path, head: str, paths: str, default: str | None, branch: str, remote: str, why: str
) -> Targets | None:
    """Diff `head` from its merge base with `<remote>/<default>`, or None when that is impossible."""
    if not default or default == branch:
        return None
    tracking = f"refs/remotes/{remote}/{default}"
    if not has_commit(workspace, tracking):
        depth = ["--depth=1"] if is_shallow(workspace) else []
        refspec = f"+refs/heads/{default}:{tracking}"
        git_bytes(workspace, "fetch", "--no-tags", *depth, remote, refspec, check=False, timeout=600)
        if not has_commit(workspace, tracking):
            return None
    base = resolve_commit(workspace, tracking)
    note = f"{why}: compared with the merge base of {remote}/{default}"
    return _diff(workspace, base, head, paths, remote=remote, three_dot=True, notes=(note,))


def _diff(
    workspace: Path,
    base: str,
    head: str,
    paths: str,
    *,
    remote: str,
    three_dot: bool = False,
    report_sha: str | None = None,
    pr_number: int | None = None,
    notes: tuple[str, ...] = (),
) -> Targets:
    revs = [rev for rev in (base, head) if rev != EMPTY_TREE]
    ensure_history(workspace, revs, merge_base_of=(base, head) if three_dot else None, remote=remote)
    changed = diff_entries(workspace, base, head, three_dot=three_dot)
    selected = select_changes(workspace, head, changed, paths)
    matching = tuple(c for c in changed if path_matches(c.path, paths))
    return Targets(
        "diff",
        base,
        head,
        report_sha or head,
        selected.paths,
        matching,
        pr_number,
        notes,
        selected.rejected,
        selected.not_evaluated,
    )


def _dispatch(workspace: Path, paths: str, listed: str | None) -> Targets:
    head = resolve_commit(workspace, "HEAD")
    if listed is None or not listed.strip():
        selected = select_all(workspace, head, paths)
        note = f"workflow_dispatch without files: every file matching {paths!r} at HEAD"
        return Targets("all", None, head, head, selected.paths, notes=(note,), rejected=selected.rejected)
    accepted, rejected = validate_files(workspace, listed, paths)
    note = f"workflow_dispatch: {len(accepted)} listed file(s) accepted, {len(rejected)} rejected"
    return Targets("files", None, head, head, accepted, notes=(note,), rejected=rejected)


def _nothing(note: str) -> Targets:
    return Targets("none", None, None, None, (), notes=(note,))


# ---------------------------------------------------------------------------------- validation


def validate_files(workspace: Path, listed: str, paths: str) -> tuple[tuple[str, ...], Rejections]:
    """Split a newline-separated `files` input into accepted workspace-relative paths and
    (entry, reason) rejections. Entries are stripped, so a name with surrounding whitespace or an
    embedded newline cannot be given here (such files are still found by a diff or by `paths`).
    """
    accepted: list[str] = []
    rejected: list[tuple[str, str]] = []
    for entry in (line.strip() for line in listed.split("\n")):
        if not entry:
            continue
        reason = _entry_problem(entry, paths)
        if reason is None:
            normal = str(PurePosixPath(entry))
            ok, refused = confine(workspace, [normal], paths)
            reason = refused[0][1] if refused else None
            if ok and ok[0] not in accepted:
                accepted.append(ok[0])
        if reason:
            rejected.append((entry, reason))
    return tuple(accepted), tuple(rejected)


def _entry_problem(entry: str, paths: str) -> str | None:
    """Why a listed path is refused before touching the file system, or None."""
    pure = PurePosixPath(entry)
    if "\0" in entry:
        return "contains a NUL byte"
    if pure.is_absolute() or re.match(r"[A-Za-z]:[\\/]", entry):
        return "is an absolute path; give a path relative to the repository root"
    if ".." in pure.parts:
        return "contains '..'; give a path inside the repository"
    if not path_matches(str(pure), paths):
        return f"does not match paths {paths!r}"
    return None


# ------------------------------------------------------------------------------------ payload


def _field(payload: dict[str, Any], *keys: str, required: bool = True) -> Any:
    value: Any = payload
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    if value is None and required:
        raise EventError(f"the event payload has no {'.'.join(keys)}")
    return value


def _sha(payload: dict[str, Any], *keys: str) -> str:
    value = _field(payload, *keys)
    if not isinstance(value, str) or not _SHA.fullmatch(value):
        raise EventError(f"the event payload's {'.'.join(keys)} is not a commit sha: {value!r}")
    return value
