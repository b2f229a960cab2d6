"""The action's policy step, in order: read the policy from where it can be trusted
(`policy.load_policy`), describe what the pull request would change in the policy
(`policy_changes.describe_changes`), and keep the judge cache where a pull request cannot plant
entries (`untrusted.place_cache`). github/action.py calls `run_policy` once, before the run, and
then runs the judges of a base policy in a copy of the base commit's tree (`isolation.base_tree`),
so no program of the pull request's runs as a judge.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from evalgate.config import Config
from evalgate.github.policy import ConfigBuilder, PolicyFrom, load_policy
from evalgate.github.policy_changes import PolicyChanges, changed_file_warnings, describe_changes
from evalgate.github.untrusted import place_cache
from evalgate.github.workflow import workflow_command
from evalgate.results import Report


@dataclass(frozen=True)
class RunPolicy:
    """The configuration to run with, what the pull request would change in it, and notices."""

    config: Config
    changes: PolicyChanges = field(default_factory=PolicyChanges)
    notices: tuple[str, ...] = ()
    base: str | None = None  # the commit the policy was read from, when the checkout is untrusted

    def apply(self, report: Report, out: TextIO) -> Report:
        """The report with the policy section and notices, and their workflow commands on `out`
        (a warning on each changed policy file, a notice for each note)."""
        for command, properties, message in changed_file_warnings(self.changes):
            out.write(workflow_command(command, message, properties) + "\n")
        for notice in self.notices:
            out.write(workflow_command("notice", f"evalgate: {notice}") + "\n")
        if not (self.changes.lines or self.notices):
            return report
        return replace(report, policy_changes=self.changes.lines, notes=report.notes + self.notices)


def _scratch(env: Mapping[str, str]) -> Path:
    """A private directory outside the workspace for the base policy's files."""
    runner_temp = env.get("RUNNER_TEMP")
    where = runner_temp if runner_temp and Path(runner_temp).is_dir() else None
    return Path(tempfile.mkdtemp(prefix="evalgate-policy-", dir=where))


def run_policy(
    env: Mapping[str, str],
    workspace: Path,
    event_name: str,
    payload: dict[str, Any],
    *,
    policy_from: PolicyFrom,
    config_file: str | None,
    build: ConfigBuilder,
) -> RunPolicy:
    """The policy this event runs with. Raises PolicyError, ConfigError or RubricError (exit 2)."""
    policy = load_policy(
        workspace,
        event_name,
        payload,
        policy_from=policy_from,
        config_file=config_file,
        build=build,
        scratch=_scratch(env),
    )
    changes = describe_changes(policy, workspace, build)
    config, notices = place_cache(policy.config, env=env, workspace=workspace, changed=policy.changed)
    return RunPolicy(config, changes, notices, policy.base)
