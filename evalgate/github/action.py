"""The GitHub Action run: the runner's environment -> config + targets -> run() -> results file ->
publish -> exit code.

Order matters and is the point of this module:
0. (entrypoint.py, before this module runs) the tokens leave the process's environment block: it
   re-execs itself without them and reads them from a pipe (`credentials.py`);
1. tokens are masked (`::add-mask::`) before anything is printed, and removed from the environment
   that judges and git inherit (only `copilot-token` is handed on, as COPILOT_GITHUB_TOKEN);
2. the workspace is trusted for git (`safe.directory` through GIT_CONFIG_*, as `changes.git_env`
   does, so no global config is written);
3. the policy is read where it can be trusted: on a pull request or merge group, from the base
   commit (`github/trusted.py`, `policy-from`); then the event decides the targets
   (`events.targets_from_event`), evaluated by the same `run()` the CLI uses, so the action's results
   equal `evalgate check` on the same files;
   judges run as an unprivileged user when the action is root, in a copy of the base commit's tree
   on a pull request, with the workspace's `.git` and RUNNER_TEMP closed to them (`isolation.py`);
4. the JSON results file is written before anything is posted, so it exists even when the API is down;
5. publishing (check run or status, annotations, summary, outputs, comment, and with `suggest` the
   suggested changes of `evalgate fix` on the lines a pull request adds, `suggest.py`) is best effort:
   its errors become warnings, a token that may not post suggestions a notice, and neither changes
   the exit code, which is the verdict's alone.

Exit codes: 0 every file passed; 1 a file failed or could not be evaluated; 2 the action is
misconfigured (bad input, configuration, rubric, judge spec, event, or no results file).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import sys
import uuid
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from evalgate.config import DEFAULT_PATHS, Config, ConfigError, config_from_args
from evalgate.discover import reportable
from evalgate.gate import error_result
from evalgate.github.baseline import GATE_ON_MODES, for_event
from evalgate.github.changes import ChangeDetectionError, git_env
from evalgate.github.comment import CommentMode
from evalgate.github.credentials import CREDENTIAL_VARIABLES
from evalgate.github.events import load_event, targets_from_event
from evalgate.github.isolation import judge_sandbox
from evalgate.github.policy import POLICY_SOURCES, PolicyError, PolicyFrom, repository_path
from evalgate.github.publish import context_from_env, publish
from evalgate.github.trusted import run_policy
from evalgate.github.workflow import add_mask, workflow_command, write_outputs
from evalgate.judging.backends import JudgeSpecError
from evalgate.judging.backends.command import JOB_TOKEN_FOR_COPILOT_ONLY
from evalgate.judging.backends.process import JudgeSandbox, unprivileged_user
from evalgate.report.render import log_text, render
from evalgate.results import EXIT_USAGE, GateOnMode, NotEvaluated, Report, exit_code
from evalgate.rubric import RubricError

if TYPE_CHECKING:
    from evalgate.github.suggest import SuggestionPlan

RESULTS_FILE = "evalgate-results.json"
COMMENT_MODES: tuple[CommentMode, ...] = ("on-failure", "always", "never")
SWITCHES = {"true": True, "false": False, "": False}


class ActionInputError(Exception):
    """An action input is malformed; the message names the input."""


@dataclass(frozen=True)
class ActionInputs:
    """The action's `with:` inputs, parsed. Empty optional inputs are None (the config file decides)."""

    paths: str | None
    files: str | None
    rubric: str | None
    judges: tuple[str, ...] | None
    config: str | None
    github_token: str
    copilot_token: str
    check_name: str
    comment: CommentMode
    jobs: int | None
    seed: int | None
    cache_dir: str | None
    policy_from: PolicyFrom = "base"
    history_branch: str | None = None  # keep the score history on this branch (#15); None: off
    history_path: str = "evalgate/history.jsonl"
    gate_on: GateOnMode | None = None  # None: the configuration's, else the event's default
    suggest: bool = False  # post `evalgate fix`'s edits on a pull request's lines as suggestions
    require_calibration: bool | None = None  # None: the configuration decides

    def __repr__(self) -> str:  # the dataclass repr would print both tokens
        return f"ActionInputs(check_name={self.check_name!r}, comment={self.comment!r}, tokens=***)"


def action_input(env: Mapping[str, str], name: str) -> str:
    """One input as the runner passes it to a Docker action: INPUT_<NAME>, hyphens kept, trimmed."""
    return env.get(f"INPUT_{name.upper()}", "").strip()


def _integer(env: Mapping[str, str], name: str) -> int | None:
    raw = action_input(env, name)
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ActionInputError(f"input {name!r} must be a whole number, got {raw!r}") from None


def read_inputs(env: Mapping[str, str], credentials: Mapping[str, str] | None = None) -> ActionInputs:
    """Parse every input; raises ActionInputError naming the first bad one. The two tokens come from
    `credentials` (what entrypoint.py received on its pipe) when given, else from `env`."""
    secrets = env if credentials is None else credentials
    comment = action_input(env, "comment") or "on-failure"
    if comment not in COMMENT_MODES:
        raise ActionInputError(f"input 'comment' must be one of {', '.join(COMMENT_MODES)}, got {comment!r}")
    judges = [line.strip() for line in action_input(env, "judges").splitlines() if line.strip()]
    policy_from = action_input(env, "policy-from") or "base"
    if policy_from not in POLICY_SOURCES:
        raise ActionInputError(
            f"input 'policy-from' must be one of {', '.join(POLICY_SOURCES)}, got {policy_from!r}"
        )
    history_branch, history_path = _history_inputs(env)
    gate_on = action_input(env, "gate-on") or None
    if gate_on is not None and gate_on not in GATE_ON_MODES:
        raise ActionInputError(f"input 'gate-on' must be one of {', '.join(GATE_ON_MODES)}, got {gate_on!r}")
    suggest = action_input(env, "suggest").lower()
    if suggest not in SWITCHES:
        raise ActionInputError(f"input 'suggest' must be true or false, got {suggest!r}")
    require = action_input(env, "require-calibration").lower()
    if require not in ("", "true", "false"):
        raise ActionInputError(f"input 'require-calibration' must be true or false, got {require!r}")
    paths = action_input(env, "paths")
    return ActionInputs(
        # the input always arrives (action.yml has a default); at that default, .evalgate.yml decides
        paths=paths if paths and paths != DEFAULT_PATHS else None,
        files=action_input(env, "files") or None,
        rubric=action_input(env, "rubric") or None,
        judges=tuple(judges) or None,
        config=action_input(env, "config") or None,
        github_token=action_input(secrets, "github-token"),
        copilot_token=action_input(secrets, "copilot-token"),
        check_name=action_input(env, "check-name") or "evalgate",
        comment=comment,  # type: ignore[arg-type]  # checked against COMMENT_MODES above
        jobs=_integer(env, "jobs"),
        seed=_integer(env, "seed"),
        cache_dir=action_input(env, "cache-dir") or None,
        policy_from=policy_from,  # type: ignore[arg-type]  # checked against POLICY_SOURCES above
        history_branch=history_branch,
        history_path=history_path,
        gate_on=gate_on,  # type: ignore[arg-type]  # checked against GATE_ON_MODES above
        suggest=SWITCHES[suggest],
        require_calibration=None if not require else require == "true",
    )


_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|^[/.-]|[/.]$|\.lock$|/\.|\.lock/")


def _history_inputs(env: Mapping[str, str]) -> tuple[str | None, str]:
    """`history-branch` must be a branch name git accepts and `history-path` a plain relative path in
    it: a mistake there is exit 2 at the start, not a notice after the run that nothing was kept."""
    branch = action_input(env, "history-branch").strip() or None
    if branch is not None and (_BAD_REF.search(branch) or branch == "@"):
        raise ActionInputError(f"input 'history-branch' is not a valid branch name: {branch!r}")
    path = action_input(env, "history-path").strip() or "evalgate/history.jsonl"
    parts = path.split("/")
    if "\\" in path or any(part in ("", ".", "..") for part in parts) or not path.isprintable():
        raise ActionInputError(
            f"input 'history-path' must be a relative path on the history branch, without '..', "
            f"empty parts or backslashes: {path!r}"
        )
    return branch, path


def protect_credentials(env: MutableMapping[str, str], inputs: ActionInputs, out: TextIO) -> None:
    """Mask both tokens in the log, then leave only the copilot token in the inherited environment."""
    for secret in dict.fromkeys((inputs.github_token, inputs.copilot_token)):
        if secret:
            out.write(add_mask(secret) + "\n")
    out.flush()
    for name in CREDENTIAL_VARIABLES:
        env.pop(name, None)
    if inputs.copilot_token:
        # Never the github-token: a judge gets only the credential the user gave it for judging.
        env["COPILOT_GITHUB_TOKEN"] = inputs.copilot_token
        if inputs.copilot_token == inputs.github_token:
            # The job's own token (`copilot-token: ${{ github.token }}`) can post check runs: only the
            # Copilot CLI gets it, never a `command:` judge (evalgate/judging/backends/command.py).
            env[JOB_TOKEN_FOR_COPILOT_ONLY] = "1"


def trust_workspace(env: MutableMapping[str, str], workspace: Path) -> None:
    """Mark the workspace `safe.directory` for every git the run starts (command-line scope)."""
    for key, value in git_env(workspace, dict(env)).items():
        if key.startswith("GIT_CONFIG_"):
            env[key] = value


def build_config(inputs: ActionInputs, loaded: Config | None = None) -> Config:
    """The configuration file (or `.evalgate.yml`; or `loaded`, the base commit's) with the inputs
    over it, exactly as the CLI does."""
    options = argparse.Namespace(
        config=inputs.config,
        rubric=inputs.rubric,
        judge=list(inputs.judges) if inputs.judges is not None else None,
        seed=inputs.seed,
        jobs=inputs.jobs,
        cache_dir=inputs.cache_dir,
        require_calibration=inputs.require_calibration,
    )
    config = config_from_args(options, loaded)
    return config.with_overrides(paths=inputs.paths) if inputs.paths else config


def evaluate(
    env: Mapping[str, str],
    inputs: ActionInputs,
    config: Config,
    workspace: Path,
    sandbox: JudgeSandbox | None = None,
) -> tuple[Report, int | None, str | None]:
    """The event's targets evaluated by run(), its judges started in `sandbox`; returns the report,
    the PR number and the sha to report on (the PR head, not the merge commit)."""
    from evalgate.run import run

    event_name, payload = read_event(env)
    targets = targets_from_event(event_name, payload, workspace, paths=config.paths, files=inputs.files)
    scratch = env.get("RUNNER_TEMP") if env.get("RUNNER_TEMP") and Path(env["RUNNER_TEMP"]).is_dir() else None
    baseline, gate_on = for_event(event_name, targets, workspace, config, inputs.gate_on, scratch)
    # files a dispatch names are named on their own (`select:` does not filter them); git's are not
    named = None if event_name == "workflow_dispatch" else ()
    with baseline or contextlib.nullcontext():
        report = run(
            config, list(targets.paths), base=workspace, sandbox=sandbox, baseline=baseline, named=named
        )
    rejected = tuple(
        error_result(reportable(path), f"refused: {path!r} {reason}") for path, reason in targets.rejected
    )
    changed = tuple(NotEvaluated(reportable(path), reason) for path, reason in targets.not_evaluated)
    report = replace(
        report,
        results=rejected + report.results,
        notes=targets.notes + report.notes,
        gate_on=gate_on,
        not_evaluated=changed + report.not_evaluated,
    )
    return report, targets.pr_number, targets.report_sha


def warn_not_evaluated(report: Report, out: TextIO) -> None:
    """One warning in the log when changed files under the root of `paths` were not evaluated (the
    summary, the check run and the results file name each one with its reason)."""
    if report.not_evaluated:
        count = len(report.not_evaluated)
        message = (
            f"evalgate: {count} changed file(s) under the root of `paths` were not evaluated "
            "(deleted, not matched by the paths glob, or not chosen by the configuration's select:); "
            "the job summary names each with the reason"
        )
        out.write(workflow_command("warning", message, {"title": "evalgate: not evaluated"}) + "\n")


def read_event(env: Mapping[str, str]) -> tuple[str, dict[str, Any]]:
    """The event's name and payload (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH)."""
    event_path = env.get("GITHUB_EVENT_PATH")
    if not event_path:
        raise ActionInputError("GITHUB_EVENT_PATH is not set: the action must run inside a GitHub workflow")
    return load_event(Path(event_path), env.get("GITHUB_EVENT_NAME") or None)


def write_results(report: Report, workspace: Path, env: Mapping[str, str]) -> str | None:
    """Write the JSON results in the workspace (else RUNNER_TEMP); return the path to show, or None."""
    text = render(report, "json")
    candidates = [workspace / RESULTS_FILE]
    if env.get("RUNNER_TEMP"):
        candidates.append(Path(env["RUNNER_TEMP"]) / RESULTS_FILE)
    for path in candidates:
        try:
            if path.is_symlink():  # committed by a pull request: it would redirect the write
                path.unlink()
            path.write_text(text, encoding="utf-8")
        except OSError:
            continue
        # relative to the workspace, so later steps (on the host, in the workspace) can open it
        return RESULTS_FILE if path.parent == workspace else str(path)
    return None


def log_report(report: Report, out: TextIO, rubric: str | None = None) -> None:
    """The text report in the log (and, for a rubric that groups its dimensions, the review report:
    report.render.log_text), with workflow commands switched off around it: findings quote document
    text, and a line like `::error::` or `::add-mask::` in a document must stay text."""
    resume = uuid.uuid4().hex
    out.write(f"::stop-commands::{resume}\n{log_text(report, rubric)}::{resume}::\n")
    out.flush()


def _fail_configuration(message: str, env: Mapping[str, str], out: TextIO) -> int:
    out.write(workflow_command("error", f"evalgate: {message}", {"title": "evalgate configuration"}) + "\n")
    if env.get("GITHUB_OUTPUT"):
        # if even this fails, the error annotation above already says what is wrong
        with contextlib.suppress(OSError):
            write_outputs(Path(env["GITHUB_OUTPUT"]), {"verdict": "ERROR"})
    out.flush()
    return EXIT_USAGE


def _record_history(
    report: Report, config: Config, env: Mapping[str, str], out: TextIO, workspace: Path
) -> list[str]:
    """Append to the configured history; alerts become warnings, the trend chart joins the summary.
    A history path in the workspace that a symlink (a pull request's) leads out of is not written."""
    if not config.history:
        return []
    from evalgate.validity.history import record_run  # a run without a history file does not load it

    rel = repository_path(workspace, config.history)
    if rel is not None and not (workspace / rel).resolve().is_relative_to(workspace):
        return [f"history {config.history}: leads outside the workspace through a symlink; not written"]
    try:
        update = record_run(report, config.history)
        for alert in update.alerts:
            out.write(workflow_command("warning", f"evalgate trend: {alert}") + "\n")
        summary = env.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write("\n### Score trend\n\n" + update.chart + "\n")
    except OSError as exc:
        return [f"history {config.history}: {exc.strerror or exc}"]
    return []


def main(
    env: MutableMapping[str, str], out: TextIO | None = None, credentials: Mapping[str, str] | None = None
) -> int:
    """Run the action. `env` is the process environment (os.environ in the container): it is read,
    and edited (credentials removed, git trust added) for the judges and git the run starts. The
    tokens come from `credentials` when given (entrypoint.py's pipe), else from `env`."""
    out = out or sys.stdout
    try:
        inputs = read_inputs(env, credentials)
    except ActionInputError as exc:
        return _fail_configuration(str(exc), env, out)
    protect_credentials(env, inputs, out)
    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
    os.chdir(workspace)  # .evalgate.yml, the config input and cache-dir are workspace-relative
    trust_workspace(env, workspace)
    try:
        # on a pull request, the base commit's policy (github/trusted.py); else the checkout's
        event_name, payload = read_event(env)
        build = functools.partial(build_config, inputs)
        policy = run_policy(
            env,
            workspace,
            event_name,
            payload,
            policy_from=inputs.policy_from,
            config_file=inputs.config,
            build=build,
        )
        config = policy.config
        with contextlib.ExitStack() as judging:  # the judges' sandbox, undone once they are done
            sandbox = judge_sandbox(
                judging,
                workspace=workspace,
                env=env,
                judges=config.judges,
                base=policy.base,
                run_as=unprivileged_user(),
            )
            report, pr_number, report_sha = evaluate(env, inputs, config, workspace, sandbox)
    except (
        ActionInputError, ConfigError, RubricError, JudgeSpecError, ChangeDetectionError, PolicyError
    ) as exc:  # fmt: skip
        return _fail_configuration(str(exc), env, out)
    report = policy.apply(report, out)
    warn_not_evaluated(report, out)

    results_file = write_results(report, workspace, env)
    log_report(report, out, config.rubric)
    overrides: dict[str, object] = {
        "token": inputs.github_token,
        "check_name": inputs.check_name,
        "pr_number": pr_number,
        "comment_mode": inputs.comment,
        "results_file": results_file,
    }
    if report_sha:
        overrides["head_sha"] = report_sha
    suggestions: SuggestionPlan | None = None
    problems: list[str] = []
    if inputs.suggest:  # imported only then: the fix engine is no part of a run that does not suggest
        from evalgate.github.suggest import suggestions_for_run

        suggestions, problems = suggestions_for_run(config, workspace, event_name, payload, report, out)
    try:
        outcome = publish(report, context_from_env(env, **overrides), out, suggestions)
        problems += outcome.errors
    except Exception as exc:  # a reporting bug must not turn a decided verdict into a crash
        problems.append(f"publishing failed: {type(exc).__name__}: {exc}")
    problems += _record_history(report, config, env, out, workspace)
    if inputs.history_branch:  # best effort: notices only, never the exit code
        from evalgate.github.history_store import HistoryBranchSettings, keep_history_on_branch

        where = HistoryBranchSettings(inputs.history_branch, inputs.history_path, config.history_keep)
        keep_history_on_branch(report, env, out, where, inputs.github_token, commit=report_sha)
    for problem in problems:
        out.write(workflow_command("warning", f"evalgate could not publish: {problem}") + "\n")
    if results_file is None:
        return _fail_configuration(f"cannot write {RESULTS_FILE} in the workspace or RUNNER_TEMP", env, out)
    out.flush()
    return exit_code(report)
