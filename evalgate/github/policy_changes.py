"""What a pull request would change in the policy: reported (summary, check run, comment, a warning
annotation on each changed policy file), never applied. The changes take effect after merge.

The comparison is between the base commit's policy (what the run applied) and the checked-out tree's
(what would apply once merged): the configuration's keys (judges listed as added and removed), the
rubric's identity and version, and, when the rubric differs, its gate policy and dimensions.

The checked-out tree's policy files are the pull request's, so they are read as untrusted text
(`policy.CheckoutFiles`: files of the repository's tree only, regular, size-capped; YAML nested past
the cap refused before libyaml composes it). Whatever they hold, the worst outcome is a line saying
they do not load.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgate.config import Config, parse_config, yaml_key
from evalgate.github.policy import (
    CheckoutFiles,
    ConfigBuilder,
    TrustedPolicy,
    is_rubric_file,
    repository_path,
    touches,
)
from evalgate.github.untrusted import judge_paths
from evalgate.rubric import Rubric, RubricError, load_rubric, parse_rubric

MAX_LISTED = 20  # policy keys listed per rubric; a rewritten rubric does not need a line per anchor
# git attributes decide how git and GitHub show a change: `-diff` or `binary` make a document a binary
# file in the pull request's diff, `linguist-generated` collapses it. They once hid documents from the
# gate itself (issue 26); evalgate now diffs every file as text, but reviewers still see their effect.
ATTRIBUTES_FILE = ".gitattributes"


@dataclass(frozen=True)
class PolicyChanges:
    """The report lines (plain text, escaped where rendered) and the policy files the PR changes."""

    lines: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    introduced: str | None = None  # the configuration file a first adoption adds
    attributes: tuple[str, ...] = ()  # the `.gitattributes` files (anywhere) the pull request changes


def _show(value: object) -> str:
    if isinstance(value, tuple | list):
        return "[" + ", ".join(str(v) for v in value) + "]" if value else "[]"
    return "(none)" if value is None else str(value)


def policy_files(config: Config, workspace: Path, config_file: str) -> set[str]:
    """The workspace-relative files a configuration reads: itself, a rubric file, the glossary file, the
    calibration record, judge programs."""
    files = {config_file}
    rel = repository_path(workspace, config.rubric)
    if rel is not None and rel != "." and is_rubric_file(config.rubric, (workspace / rel).is_file):
        files.add(rel)
    glossary = repository_path(workspace, config.acronyms.glossary) if config.acronyms.glossary else None
    if glossary is not None and glossary != ".":
        files.add(glossary)
    record = repository_path(workspace, config.calibration) if config.calibration else None
    if record is not None and record != ".":
        files.add(record)
    for spec in config.judges:
        files.update(judge_paths(spec, workspace))
    return files


def _config_lines(base: Config, head: Config) -> list[str]:
    lines = []
    for name in (f.name for f in dataclasses.fields(Config)):
        key = yaml_key(name)
        old, new = getattr(base, name), getattr(head, name)
        if old == new:
            continue
        if name == "judges":
            added = [j for j in new if j not in old]
            removed = [j for j in old if j not in new]
            if added:
                lines.append(f"judges added: {', '.join(added)}")
            if removed:
                lines.append(f"judges removed: {', '.join(removed)}")
            if not added and not removed:
                lines.append(f"judges: {_show(old)} → {_show(new)}")
        else:
            lines.append(f"{key}: {_show(old)} → {_show(new)}")
    return lines


def _flat(data: Any, prefix: str) -> dict[str, Any]:
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for key, value in data.items():
            out.update(_flat(value, f"{prefix}.{key}"))
        return out
    return {prefix: data}


def _rubric_lines(base: Rubric, head: Rubric) -> list[str]:
    if base.version == head.version:
        return []
    lines = [f"rubric {base.id} (version {base.version}) → {head.id} (version {head.version})"]
    old, new = (_flat(dataclasses.asdict(r.policy), "policy") for r in (base, head))
    keys = sorted(old.keys() | new.keys())
    lines += [
        f"rubric {k}: {_show(old.get(k))} → {_show(new.get(k))}" for k in keys if old.get(k) != new.get(k)
    ]
    base_dims = {d.id: d for d in base.dimensions}
    head_dims = {d.id: d for d in head.dimensions}
    if added := [d for d in head_dims if d not in base_dims]:
        lines.append(f"rubric dimensions added: {', '.join(added)}")
    if removed := [d for d in base_dims if d not in head_dims]:
        lines.append(f"rubric dimensions removed: {', '.join(removed)}")
    for dim_id in base_dims.keys() & head_dims.keys():
        if base_dims[dim_id].hard_fail != head_dims[dim_id].hard_fail:
            lines.append(
                f"rubric {dim_id} hard fail: {base_dims[dim_id].hard_fail} → {head_dims[dim_id].hard_fail}"
            )
        elif base_dims[dim_id].kind != head_dims[dim_id].kind:
            lines.append(f"rubric {dim_id} kind: {base_dims[dim_id].kind} → {head_dims[dim_id].kind}")
    return lines[: MAX_LISTED + 1]


def _load(name: str) -> tuple[Rubric | None, str | None]:
    try:
        return load_rubric(name), None
    except RubricError as exc:
        return None, str(exc).splitlines()[0]


def _head_config(policy: TrustedPolicy, checkout: CheckoutFiles, build: ConfigBuilder) -> Config:
    """The checkout's configuration with the action's inputs over it, its file read as the pull
    request's (a configuration file outside the repository is the runner's, read as the base run did)."""
    if repository_path(checkout.workspace, policy.config_file) is None:
        return build(None)
    text = checkout.read(policy.config_file)
    if text is None:  # deleted by the pull request: the defaults (or, for the `config` input, an error)
        return build(None)
    return build(parse_config(text, policy.config_file))


def _head_rubric(name: str, policy: TrustedPolicy, checkout: CheckoutFiles) -> Rubric:
    """The rubric the checkout's configuration names: a shipped pack, or a file of the pull request's
    tree. A path outside the repository is read only when the base policy names the same one (a file
    of the runner's, as trusted as the base); the pull request cannot point the gate at any other."""
    rel = repository_path(checkout.workspace, name)
    if rel is None:
        if policy.declared is not None and name == policy.declared.rubric:
            return load_rubric(name)
        raise RubricError(f"{name}: outside the repository")
    if not is_rubric_file(name, lambda: os.path.lexists(checkout.workspace / rel)):
        return load_rubric(name)  # a pack's name, and no path of that name in the checkout
    text = checkout.read(rel)
    if text is None:
        raise RubricError(f"{name}: rubric file not found")
    return parse_rubric(text, rel)


def describe_changes(policy: TrustedPolicy, workspace: Path, build: ConfigBuilder) -> PolicyChanges:
    """Compare the applied base policy with the checkout's, which `build` completes with the action's
    inputs. Anything wrong with the checkout's policy files is reported as a line. Nothing to say when
    the run did not use a base policy."""
    if policy.base is None or policy.declared is None or policy.changed is None:
        return PolicyChanges()
    changed = policy.changed
    lines: list[str] = []
    introduced = None
    if policy.introduced:
        introduced = policy.config_file
        lines.append(
            f"the base commit has no {policy.config_file}: this run applied the built-in defaults; the "
            "configuration this pull request adds applies after merge"
        )
    checkout = CheckoutFiles(workspace)
    head: Config | None
    try:
        head = _head_config(policy, checkout, build)
    except Exception as exc:  # any configuration error of the PR's is a finding here, not a failure
        head, lines = None, [*lines, f"the pull request's policy does not load: {str(exc).splitlines()[0]}"]
    files = policy_files(policy.declared, workspace, policy.config_file)
    if head is not None:
        files |= policy_files(head, workspace, policy.config_file)
    changed_files = tuple(sorted(f for f in files if touches(changed, f)))
    if changed_files:
        lines.insert(0, f"changed policy files: {', '.join(changed_files)}")
    attributes = attribute_files(changed)
    if attributes:
        lines.append(
            f"changed git attributes: {', '.join(attributes)} (they decide how git and GitHub show a change: "
            "`-diff` or `binary` show a document as a binary file in the diff, `linguist-generated` "
            "collapses it; evalgate diffs every file as text and evaluates it regardless)"
        )
    if head is not None:
        lines += _config_lines(policy.declared, head)
        base_rubric, _ = _load(policy.config.rubric)
        head_rubric, error = None, None
        try:
            head_rubric = _head_rubric(head.rubric, policy, checkout)
        except Exception as exc:  # the PR's rubric: whatever is wrong with it is a line, never a failure
            error = str(exc).splitlines()[0]
        if error:
            lines.append(f"the pull request's rubric does not load: {error}")
        elif base_rubric is not None and head_rubric is not None:
            lines += _rubric_lines(base_rubric, head_rubric)
    return PolicyChanges(tuple(dict.fromkeys(lines)), changed_files, introduced, attributes)


def attribute_files(changed: frozenset[str]) -> tuple[str, ...]:
    """The `.gitattributes` files among the changed paths, in any directory."""
    return tuple(sorted(path for path in changed if path.rsplit("/", 1)[-1] == ATTRIBUTES_FILE))


def changed_file_warnings(changes: PolicyChanges) -> Iterable[tuple[str, dict[str, str], str]]:
    """(command, properties, message) for the workflow commands that mark each changed policy file."""
    title = "evalgate policy (not applied)"
    for path in changes.files:
        message = (
            f"This pull request changes {path}, part of the evalgate policy. This run applied the base "
            "commit's policy; the change takes effect after merge."
        )
        yield "warning", {"file": path, "title": title}, message
    for path in changes.attributes:
        message = (
            f"This pull request changes {path}: git attributes can show a document as binary or collapse "
            "it as generated in the diff, hiding it from review. evalgate evaluates it regardless."
        )
        yield "warning", {"file": path, "title": "evalgate: git attributes changed"}, message
    if changes.introduced:
        yield (
            "notice",
            {"title": title},
            f"This pull request introduces {changes.introduced}; it applies after merge.",
        )
