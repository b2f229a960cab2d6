"""Which policy a run applies: on a pull request, the trusted base commit's, read from git's objects.

The policy is the configuration file (`.evalgate.yml` or the `config` input) and every file it names
inside the repository (a rubric given as a path, the acronym glossary file). On `pull_request`,
`pull_request_target` and `merge_group` with `policy-from: base` (the default), it is read with
`git cat-file` from the base commit (`pull_request.base.sha`, `merge_group.base_sha`), never from the
checked-out tree, which
is the pull request's merge commit: a change that fails the gate cannot loosen the gate by changing
the rules in the same change. The documents under review still come from the checked-out tree.
A rubric or glossary file read from the base is written to a private scratch directory outside the
workspace and the run is pointed at it, so `run()` loads exactly the base's bytes.

`push` and `workflow_dispatch` read the checked-out commit, which is already trusted, and so does
`policy-from: head`, which a repository sets knowingly. Action inputs apply in every mode: the
workflow file is trusted or not as a whole (docs/security.md says how to protect it).
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from evalgate.config import DEFAULT_CONFIG_FILE, Config, ConfigError, parse_config
from evalgate.github.changes import ChangeDetectionError, ensure_history, git_bytes
from evalgate.github.events import PR_ACTIONS
from evalgate.rubric import PACKS_DIR, RubricError, pack_names, parse_rubric
from evalgate.yamlsafe import MAX_POLICY_BYTES, Refused, read_text_file, refusal_reason

PolicyFrom = Literal["base", "head"]
POLICY_SOURCES: tuple[PolicyFrom, ...] = ("base", "head")
# The events whose checkout holds untrusted changes, judged against a trusted base commit.
BASE_POLICY_EVENTS = ("pull_request", "pull_request_target", "merge_group")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_FILE_MODES = (b"100644", b"100755")  # git's modes for a regular file (a symlink is 120000)
# Builds the run's configuration: input overrides over a configuration already loaded (or, for None,
# over the configuration file in the checked-out tree).
ConfigBuilder = Callable[[Config | None], Config]


class PolicyError(Exception):
    """The trusted policy cannot be applied: the base commit is out of reach, or the policy would run
    a program the pull request supplies. The message says how to fix it."""


@dataclass(frozen=True)
class TrustedPolicy:
    """The configuration a run applies and where it came from.

    `base` is the commit the policy was read from (None: the checked-out tree). `declared` is that
    configuration as written (a rubric path not yet pointed at its scratch copy), for comparisons.
    `changed` holds every workspace-relative path where the checkout differs from the base commit
    (None: not a pull request or merge group, nothing in the checkout is untrusted).
    `introduced` is true when the base has no configuration file and the pull request adds one.
    """

    config: Config
    base: str | None = None
    declared: Config | None = None
    changed: frozenset[str] | None = None
    config_file: str = DEFAULT_CONFIG_FILE
    introduced: bool = False


def policy_commit(event_name: str, payload: Mapping[str, Any]) -> str | None:
    """The base commit whose policy judges this event, or None when the checkout is trusted (push,
    workflow_dispatch) or the event evaluates nothing (a pull request closed, labelled, ...)."""
    if event_name in ("pull_request", "pull_request_target"):
        if payload.get("action") not in PR_ACTIONS:
            return None
        sha = _get(payload, "pull_request", "base", "sha")
    elif event_name == "merge_group":
        sha = _get(payload, "merge_group", "base_sha")
    else:
        return None
    if not isinstance(sha, str) or not _SHA.fullmatch(sha):
        raise PolicyError(f"{event_name} payload: the base commit is missing or not a commit sha ({sha!r})")
    return sha


def _get(payload: Mapping[str, Any], *keys: str) -> object:
    node: object = payload
    for key in keys:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


def reach_commit(workspace: Path, commit: str) -> None:
    """Make sure `commit`'s objects are here: a shallow checkout is deepened in bounded steps, then the
    commit is fetched by name (`changes.ensure_history`); else a PolicyError saying how to fix it."""
    try:
        ensure_history(workspace, [commit])
    except ChangeDetectionError as exc:
        raise PolicyError(
            f"the policy is read from the pull request's base commit {commit}, which this checkout does "
            f"not have and could not fetch ({exc}). Check out with `fetch-depth: 0` (actions/checkout), "
            "or keep the default fetch-depth with a remote evalgate can fetch from"
        ) from None


def repository_path(workspace: Path, name: str) -> str | None:
    """`name` (relative to the workspace, or absolute) as a normalised workspace-relative POSIX path
    when it points inside the workspace; None when it points outside (a file of the runner's)."""
    # lexically, as the run will open it from the workspace: `../workspace/x` and `/elsewhere/../x`
    # that lead back in are inside (symlinks are not followed: the base is read from git's objects)
    where = posixpath.normpath(posixpath.join(workspace.as_posix(), Path(name).as_posix()))
    rel = posixpath.relpath(where, workspace.as_posix())
    if rel == ".." or rel.startswith("../"):
        return None
    return rel


class CommitFiles:
    """Files of one commit, read from the object store (nothing is checked out or written)."""

    def __init__(self, workspace: Path, commit: str) -> None:
        self.workspace = workspace
        self.commit = commit

    @property
    def label(self) -> str:
        return f"base commit {self.commit[:12]}"

    def _entry(self, rel: str) -> tuple[bytes, int] | None:
        """The git mode and size (-1 for a tree) of `rel` at the commit, or None."""
        listing = git_bytes(self.workspace, "ls-tree", "-l", "-z", "--end-of-options", self.commit, "--", rel)
        entry = listing.split(b"\0")[0]
        if not entry:
            return None
        mode, _kind, _sha, size = entry.split(b"\t", 1)[0].split()
        return mode, int(size) if size.isdigit() else -1

    def has_file(self, rel: str) -> bool:
        """Whether the commit has a file (not a directory) at workspace-relative `rel`."""
        entry = self._entry(rel)
        return entry is not None and entry[0] in _FILE_MODES

    def read(self, rel: str) -> str | None:
        """The UTF-8 text of workspace-relative `rel` at the commit; None when it has no such path.
        A symlink, a directory, a blob past MAX_POLICY_BYTES (checked before it is read) or bytes that
        are not UTF-8 are a PolicyError naming the path."""
        entry = self._entry(rel)
        if entry is None:
            return None
        mode, size = entry
        if mode not in _FILE_MODES:
            raise PolicyError(
                f"{rel} ({self.label}): a policy file must be a regular file (git mode {mode!r})"
            )
        if size > MAX_POLICY_BYTES:
            raise PolicyError(f"{rel} ({self.label}): larger than {MAX_POLICY_BYTES} bytes")
        data = git_bytes(self.workspace, "cat-file", "blob", f"{self.commit}:./{rel}")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise PolicyError(f"{rel} ({self.label}): not UTF-8 text") from None

    def changed_paths(self) -> frozenset[str]:
        """Workspace-relative paths where the checked-out tree differs from the commit (added,
        changed, deleted or renamed, committed or not), plus untracked files."""
        diff = git_bytes(
            self.workspace, "diff", "--name-only", "--no-renames", "--relative", "-z", self.commit
        )
        untracked = git_bytes(self.workspace, "ls-files", "--others", "--exclude-standard", "-z")
        names = (diff + b"\0" + untracked).split(b"\0")
        return frozenset(os.fsdecode(name) for name in names if name)


class CheckoutFiles:
    """Files of the checked-out tree, which on a pull request are the pull request's: read only as
    files of the repository's tree. A name outside the workspace, inside `.git`, or led out of the
    tree (or into `.git`) by a symlink is refused, and so is anything but a regular file, or one past
    MAX_POLICY_BYTES, before a byte is read: a pull request's `rubric: /dev/zero` (or a committed
    symlink to it) would otherwise be read until memory ran out."""

    label = "the checkout"

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace.resolve()

    def read(self, name: str) -> str | None:
        """The UTF-8 text of `name` (workspace-relative, or absolute) in the checkout; None when there
        is no such path. Raises PolicyError naming it for anything it will not read."""
        rel = repository_path(self.workspace, name)
        if rel is None:
            raise PolicyError(f"{name}: outside the repository")
        if _in_git_dir(rel):
            raise PolicyError(f"{name}: inside .git, not a file of the repository")
        path = self.workspace / rel
        if not os.path.lexists(path):
            return None
        real = path.resolve()
        if not real.is_relative_to(self.workspace):
            raise PolicyError(f"{name}: leads outside the repository (a symlink)")
        if _in_git_dir(real.relative_to(self.workspace).as_posix()):
            raise PolicyError(f"{name}: leads inside .git (a symlink)")
        try:
            return read_text_file(real)
        except (OSError, Refused) as exc:
            raise PolicyError(f"{name}: {refusal_reason(exc)}") from None


def _in_git_dir(rel: str) -> bool:
    return rel == ".git" or rel.startswith(".git/")


def touched(changed: frozenset[str], rel: str) -> list[str]:
    """The paths among `changed` at `rel`, under it (a directory), or above it: a directory on its
    way that the pull request replaced, for instance with a symlink leading somewhere else."""
    if rel == ".":
        return sorted(changed)
    rel = rel.rstrip("/")
    return sorted(p for p in changed if p == rel or p.startswith(rel + "/") or rel.startswith(p + "/"))


def touches(changed: frozenset[str], rel: str) -> bool:
    """Whether the pull request changed `rel`, anything under it, or a directory above it."""
    return bool(touched(changed, rel))


def is_rubric_file(name: str, exists: Callable[[], bool]) -> bool:
    """A rubric setting names a file (not a shipped pack) as `load_rubric` decides: a YAML suffix,
    or a path that exists."""
    return name.endswith((".yml", ".yaml")) or exists()


def load_policy(
    workspace: Path,
    event_name: str,
    payload: Mapping[str, Any],
    *,
    policy_from: PolicyFrom,
    config_file: str | None,
    build: ConfigBuilder,
    scratch: Path,
) -> TrustedPolicy:
    """The policy for this event. `build` applies the action's inputs; `scratch` is a private
    directory outside the workspace for the base's rubric. Raises PolicyError, ConfigError or
    RubricError with a message naming the file."""
    commit = policy_commit(event_name, payload)
    if commit is None:
        return TrustedPolicy(build(None))
    reach_commit(workspace, commit)
    tree = CommitFiles(workspace, commit)
    changed = tree.changed_paths()
    if policy_from == "head":
        return TrustedPolicy(build(None), changed=changed)
    name = config_file or DEFAULT_CONFIG_FILE
    rel = repository_path(workspace, name)
    if rel is None:  # a configuration file outside the repository is the runner's, not the PR's
        return _pinned(build(None), tree, changed, scratch, name, introduced=False)
    text = tree.read(rel)
    if text is None:
        loaded, introduced = Config(), (workspace / rel).is_file()
        if config_file and not introduced:  # named by the `config` input, and in neither commit
            raise ConfigError(f"{rel}: configuration file not found (in the {tree.label} or the checkout)")
    else:
        loaded, introduced = parse_config(text, f"{rel} ({tree.label})"), False
    return _pinned(build(loaded), tree, changed, scratch, rel, introduced=introduced)


def _pinned(
    declared: Config,
    tree: CommitFiles,
    changed: frozenset[str],
    scratch: Path,
    config_file: str,
    *,
    introduced: bool,
) -> TrustedPolicy:
    """Point the declared configuration's rubric at the base's copy of it, when it is a repository file."""
    config = declared
    rubric = declared.rubric
    rel = repository_path(tree.workspace, rubric)
    if rel is not None and rel != "." and is_rubric_file(rubric, lambda: tree.has_file(rel)):
        text = tree.read(rel)
        if text is None:
            if not touches(changed, rel):
                raise RubricError(f"{rubric}: rubric file not found in the {tree.label}")
            # the pull request adds the rubric its policy names: it applies after merge
            config = declared.with_overrides(rubric=Config().rubric)
        else:
            parse_rubric(text, f"{rel} ({tree.label})")  # an error names the file, not the scratch copy
            config = declared.with_overrides(rubric=_scratch_copy(scratch, f"base-{Path(rel).name}", text))
    elif rel is not None and rel != "." and os.path.lexists(tree.workspace / rel):
        config = declared.with_overrides(rubric=_pinned_pack(rubric, tree, scratch))
    config = _pinned_glossary(config, tree, changed, scratch)
    config = _pinned_calibration(config, tree, scratch)
    return TrustedPolicy(config, tree.commit, declared, changed, config_file, introduced)


def _pinned_pack(name: str, tree: CommitFiles, scratch: Path) -> str:
    """A copy of the shipped pack `name` outside the workspace. Needed when the checkout has a path by
    that name: `load_rubric` prefers an existing path to a pack, so the pull request's file would
    replace the pack the base names (`rubric: research-loop`, the default)."""
    if name not in pack_names():
        raise RubricError(f"{name}: rubric file not found in the {tree.label}")
    text = (PACKS_DIR / f"{name}.yml").read_text(encoding="utf-8")
    return _scratch_copy(scratch, f"pack-{name}.yml", text)


def _pinned_glossary(config: Config, tree: CommitFiles, changed: frozenset[str], scratch: Path) -> Config:
    """Point `acronyms.glossary` at the base's copy of the file, when it is a repository file. A glossary
    the pull request adds applies after merge; one missing from both commits is an error naming it."""
    glossary = config.acronyms.glossary
    rel = repository_path(tree.workspace, glossary) if glossary else None
    if rel is None or rel == ".":
        return config
    text = tree.read(rel)
    if text is None:
        if not touches(changed, rel):
            raise ConfigError(f"{glossary}: acronym glossary file not found in the {tree.label}")
        pinned = None
    else:
        pinned = _scratch_copy(scratch, f"base-glossary-{Path(rel).name}", text)
    return config.with_overrides(acronyms=dataclasses.replace(config.acronyms, glossary=pinned))


def _pinned_calibration(config: Config, tree: CommitFiles, scratch: Path) -> Config:
    """Point `calibration:` at the base's copy of the record, when it is a repository file: the record
    decides whether judged failures count (`require-calibration`), so a pull request must not bring
    its own. A record the base does not have is read from a path that does not exist, named so that
    the report says why ("not calibrated: .../absent-from-the-base-commit/...: not found")."""
    record = config.calibration
    rel = repository_path(tree.workspace, record) if record else None
    if rel is None or rel == ".":
        return config
    text = tree.read(rel)
    if text is None:
        return dataclasses.replace(
            config, calibration=str(scratch / "absent-from-the-base-commit" / Path(rel).name)
        )
    return dataclasses.replace(
        config, calibration=_scratch_copy(scratch, f"base-calibration-{Path(rel).name}", text)
    )


def _scratch_copy(scratch: Path, name: str, text: str) -> str:
    """Write a trusted policy file's text into the private scratch directory; the path the run reads."""
    scratch.mkdir(parents=True, exist_ok=True)
    copy = scratch / name
    copy.write_text(text, encoding="utf-8")
    return str(copy)
