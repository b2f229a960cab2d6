"""entrypoint.py run as the container runs it: a subprocess with the environment a runner gives a Docker
action (GITHUB_*, INPUT_* with action.yml's defaults, hyphens kept), a real git workspace built here,
real webhook payloads rewritten to its SHAs, and a loopback GitHub API that validates every body
against GitHub's OpenAPI description."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.github_api import FakeGitHub
from tests.support.gitrepo import GitRepo
from tests.support.judge_user import open_to_judges
from tests.support.timings import without_timings

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "entrypoint.py"
GITHUB_TOKEN = "ghs_jobTokenThatMustNeverBePrinted0123456789"
COPILOT_TOKEN = "github_pat_copilotTokenNeverPrinted_0123456789"
REPOSITORY = "octo-org/research"
NEW_ITEM = "Research/completed/2026-12-01-new-item.md"
OLD_ITEM = "Research/completed/2026-11-01-old-item.md"

# A research item far from the template: most required sections are missing, so the deterministic
# checks fail it with findings on its lines. The last line would be a workflow command if the log
# printed document text with commands enabled.
BROKEN_ITEM = """\
---
title: Does caching judge replies change verdicts?
---
# Does caching judge replies change verdicts?

## Research Question

Does caching LLM replies change CI verdicts?

## Findings

### Executive Summary

It depends.

::error file=evil.md,line=1::injected from a document
"""


def _action_defaults(token: str) -> dict[str, str]:
    """INPUT_* for every input with its action.yml default, as the runner sets them."""
    inputs = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    env = {}
    for name, spec in inputs.items():
        default = str(spec.get("default", ""))
        env[f"INPUT_{name.upper()}"] = token if default == "${{ github.token }}" else default
    return env


@dataclass
class Workspace:
    """The checked-out repository plus the commits the events refer to."""

    repo: GitRepo
    base: str
    head: str
    merge: str | None = None

    @property
    def path(self) -> Path:
        return self.repo.path


@dataclass
class ActionRun:
    returncode: int
    stdout: str
    stderr: str
    outputs: str
    summary: str
    results: dict[str, Any] | None


def _workspace(tmp_path: Path, *, pr: bool = False) -> Workspace:
    repo = GitRepo.init(tmp_path / "workspace")
    base = repo.commit("base", {OLD_ITEM: BROKEN_ITEM, "notes/other.md": "# notes\n", "README.md": "# r\n"})
    if pr:
        repo.checkout("feature", new=True)
    head = repo.commit("add an item", {NEW_ITEM: BROKEN_ITEM, "notes/other.md": "# notes\nmore\n"})
    merge = None
    if pr:
        # what actions/checkout leaves on pull_request: the test merge commit (GITHUB_SHA)
        repo.checkout("main")
        repo.checkout("pull-merge", new=True)
        merge = repo.merge("feature", "Merge feature into main")
    return Workspace(repo, base, head, merge)


def _event(events_dir: Path, name: str, ws: Workspace, tmp_path: Path, **changes: Any) -> Path:
    payload = json.loads((events_dir / name).read_text())
    payload["repository"]["default_branch"] = "main"
    if "pull_request" in payload:
        payload["pull_request"]["base"].update(sha=ws.base, ref="main")
        payload["pull_request"]["head"].update(sha=ws.head, ref="feature")
        payload["number"] = payload["pull_request"]["number"] = 7
    elif "before" in payload:
        payload.update(ref="refs/heads/main", before=ws.base, after=ws.head, created=False, forced=False)
    payload.update(changes)
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return path


def _run_action(
    tmp_path: Path,
    ws: Workspace,
    event_name: str,
    event_path: Path,
    api_url: str,
    inputs: Mapping[str, str] | None = None,
    sha: str | None = None,
    preexec: Callable[[], None] | None = None,
    runner_env: Mapping[str, str] | None = None,
    during: Callable[[subprocess.Popen[str]], None] | None = None,
) -> ActionRun:
    """entrypoint.py run with the environment a runner gives the action's container (RUNNER_TEMP and
    HOME under tmp_path, `runner_env` over it); `during` is called while it runs."""
    runner = tmp_path / "runner"
    runner.mkdir(exist_ok=True)
    (runner / "home").mkdir(exist_ok=True)
    open_to_judges(tmp_path)  # as on a runner: the judges' user can reach a workflow's judge program
    output, summary = runner / "output", runner / "summary.md"
    output.write_text("")
    summary.write_text("")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(runner / "home"),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_WORKSPACE": str(ws.path),
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_SHA": sha or ws.head,
        "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(runner),
        "GITHUB_TOKEN": GITHUB_TOKEN,  # some workflows export it too; the judges must not inherit it
        **_action_defaults(GITHUB_TOKEN),
        **{f"INPUT_{k.upper()}": v for k, v in (inputs or {}).items()},
        **(runner_env or {}),
    }
    with subprocess.Popen(
        [sys.executable, str(ENTRYPOINT)],
        cwd=ws.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=preexec,
    ) as proc:
        try:
            if during is not None:
                during(proc)
            stdout, stderr = proc.communicate(timeout=120)
        except BaseException:
            proc.kill()
            raise
    results_path = ws.path / "evalgate-results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else None
    return ActionRun(proc.returncode, stdout, stderr, output.read_text(), summary.read_text(), results)


def _expected_exit(results: dict[str, Any]) -> int:
    return 0 if results["summary"]["verdict"] == "PASS" else 1


def _cli_results(ws: Workspace, paths: list[str]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "evalgate", "check", *paths, "--format", "json"],
        cwd=ws.path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ["PATH"], "HOME": str(ws.path.parent), "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def test_push_evaluates_the_changed_items_and_equals_the_cli(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = _workspace(tmp_path)
    event = _event(events_dir, "push.4.json", ws, tmp_path)
    run = _run_action(tmp_path, ws, "push", event, github.url)

    assert run.results is not None, run.stdout + run.stderr
    assert [r["path"] for r in run.results["results"]] == [NEW_ITEM]  # old item and notes/ untouched
    assert run.returncode == _expected_exit(run.results) == 1
    cli = _cli_results(ws, [NEW_ITEM])
    assert without_timings(run.results["results"]) == without_timings(cli["results"])
    assert run.results["summary"]["verdict"] == cli["summary"]["verdict"]

    (check_run,) = github.check_runs.values()
    assert check_run["head_sha"] == ws.head and check_run["name"] == "evalgate"
    assert check_run["conclusion"] == "failure"
    assert "verdict=FAIL" in run.outputs or "verdict=ERROR" in run.outputs
    assert "results-file=evalgate-results.json" in run.outputs
    assert "evaluated=1" in run.outputs
    assert NEW_ITEM in run.summary
    assert "Traceback" not in run.stderr


def test_push_changing_no_matching_file_passes_with_exit_0(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = _workspace(tmp_path)
    later = ws.repo.commit("notes only", {"notes/other.md": "# notes\nagain\n"})
    event = _event(events_dir, "push.4.json", ws, tmp_path, before=ws.head, after=later)
    run = _run_action(tmp_path, ws, "push", event, github.url, sha=later)

    assert run.returncode == 0, run.stdout + run.stderr
    assert run.results is not None and run.results["results"] == []
    (check_run,) = github.check_runs.values()
    assert check_run["head_sha"] == later and check_run["conclusion"] == "success"
    assert "verdict=PASS" in run.outputs


def test_pull_request_reports_on_the_head_sha_not_the_merge_commit(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = _workspace(tmp_path, pr=True)
    event = _event(events_dir, "pull_request.synchronize.22.json", ws, tmp_path)
    run = _run_action(
        tmp_path,
        ws,
        "pull_request",
        event,
        github.url,
        inputs={"comment": "always", "check-name": "research gate"},
        sha=ws.merge,
    )

    assert run.results is not None, run.stdout + run.stderr
    assert [r["path"] for r in run.results["results"]] == [NEW_ITEM]
    assert run.returncode == 1
    (check_run,) = github.check_runs.values()
    assert check_run["head_sha"] == ws.head != ws.merge
    assert check_run["name"] == "research gate"
    (comment,) = github.comments.values()
    assert comment["issue"] == 7 and "evalgate:research gate" in comment["body"]


def test_workflow_dispatch_files_are_validated_and_rejections_become_errors(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = _workspace(tmp_path)
    event = _event(events_dir, "workflow_dispatch.0.json", ws, tmp_path)
    listed = f"{OLD_ITEM}\n../../etc/passwd\nnotes/other.md\n/abs/x.md\n"
    run = _run_action(tmp_path, ws, "workflow_dispatch", event, github.url, inputs={"files": listed})

    assert run.results is not None, run.stdout + run.stderr
    by_path = {r["path"]: r for r in run.results["results"]}
    assert OLD_ITEM in by_path and by_path[OLD_ITEM]["error"] is None
    for refused in ("../../etc/passwd", "notes/other.md", "/abs/x.md"):
        assert by_path[refused]["verdict"] == "ERROR"
        assert by_path[refused]["error"].startswith("refused:")
    assert "does not match paths" in by_path["notes/other.md"]["error"]
    assert run.returncode == 1
    (check_run,) = github.check_runs.values()
    assert check_run["head_sha"] == ws.head


def test_without_a_token_findings_are_workflow_command_annotations(tmp_path: Path, events_dir: Path) -> None:
    ws = _workspace(tmp_path)
    event = _event(events_dir, "push.4.json", ws, tmp_path)
    run = _run_action(tmp_path, ws, "push", event, "http://127.0.0.1:9", inputs={"github-token": ""})

    assert run.results is not None
    assert run.returncode == 1
    annotations = [
        line for line in run.stdout.splitlines() if line.startswith(f"::error file={NEW_ITEM},line=")
    ]
    assert annotations, run.stdout
    assert "could not publish" not in run.stdout  # nothing was attempted against the API


def test_tokens_are_masked_first_and_never_printed_otherwise(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = _workspace(tmp_path, pr=True)
    event = _event(events_dir, "pull_request.opened.0.json", ws, tmp_path)
    github.fault("POST", "/repos/{owner}/{repo}/check-runs", 403)  # fork PR: falls back to a status
    run = _run_action(
        tmp_path, ws, "pull_request", event, github.url, inputs={"copilot-token": COPILOT_TOKEN}, sha=ws.merge
    )

    lines = run.stdout.splitlines()
    assert set(lines[:2]) == {
        f"::add-mask::{GITHUB_TOKEN}",
        f"::add-mask::{COPILOT_TOKEN}",
    }
    for token in (GITHUB_TOKEN, COPILOT_TOKEN):
        assert token not in run.stderr
        assert all(line.startswith("::add-mask::") for line in lines if token in line)
        assert token not in run.outputs and token not in run.summary
        assert run.results is not None and token not in json.dumps(run.results)
    assert github.statuses and github.statuses[0]["context"] == "evalgate"
    # the token reached the API only in the Authorization header
    assert all(call.headers.get("authorization") == f"Bearer {GITHUB_TOKEN}" for call in github.calls)


def test_api_down_still_writes_results_and_exits_by_the_verdict(tmp_path: Path, events_dir: Path) -> None:
    ws = _workspace(tmp_path)
    event = _event(events_dir, "push.4.json", ws, tmp_path)
    # a port nothing listens on: every call is refused (the publisher retries, then gives up)
    run = _run_action(tmp_path, ws, "push", event, "http://127.0.0.1:9")

    assert run.results is not None
    assert run.returncode == _expected_exit(run.results) == 1
    assert "::warning::evalgate could not publish" in run.stdout
    assert "results-file=evalgate-results.json" in run.outputs
    assert NEW_ITEM in run.summary


def test_document_text_in_the_log_cannot_issue_workflow_commands(tmp_path: Path, events_dir: Path) -> None:
    ws = _workspace(tmp_path)
    event = _event(events_dir, "push.4.json", ws, tmp_path)
    run = _run_action(tmp_path, ws, "push", event, "http://127.0.0.1:9", inputs={"github-token": ""})

    lines = run.stdout.splitlines()
    stop = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    resume = lines.index(f"::{lines[stop].removeprefix('::stop-commands::')}::")
    outside = lines[:stop] + lines[resume + 1 :]
    assert not any("evil.md" in line for line in outside)
    assert any(line.startswith("::error file=") for line in outside)  # our own annotations still work


# ------------------------------------------------------------------ no ../shared needed below


def _bare_run(tmp_path: Path, inputs: Mapping[str, str], files: Mapping[str, str] | None = None) -> ActionRun:
    repo = GitRepo.init(tmp_path / "workspace")
    head = repo.commit("start", {NEW_ITEM: BROKEN_ITEM, **(files or {})})
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"inputs": {}, "ref": "refs/heads/main", "workflow": "w.yml"}))
    return _run_action(
        tmp_path, Workspace(repo, head, head), "workflow_dispatch", event, "http://127.0.0.1:9", inputs
    )


@pytest.mark.parametrize(
    ("inputs", "files", "message"),
    [
        ({"comment": "sometimes"}, None, "input 'comment' must be one of"),
        ({"jobs": "many"}, None, "input 'jobs' must be a whole number"),
        ({"rubric": "no-such-rubric"}, None, "no-such-rubric"),
        (
            {"config": "ci/evalgate.yml"},
            {"ci/evalgate.yml": "rubrik: research-loop\n"},
            "rubrik: unknown key",
        ),
        ({"judges": "nonsense:backend"}, None, "nonsense"),
        # were accepted, then after the run a notice said the history was not kept
        ({"history-branch": "scores..old"}, None, "input 'history-branch' is not a valid branch name"),
        ({"history-path": "../history.jsonl"}, None, "input 'history-path' must be a relative path"),
        ({"history-path": "/history.jsonl"}, None, "input 'history-path' must be a relative path"),
    ],
)
def test_configuration_errors_exit_2_with_one_clear_message(
    tmp_path: Path, inputs: dict[str, str], files: dict[str, str] | None, message: str
) -> None:
    run = _bare_run(tmp_path, {"github-token": "", **inputs}, files)
    assert run.returncode == 2, run.stdout + run.stderr
    errors = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and message in errors[0].replace("%0A", "\n")
    assert "verdict=ERROR" in run.outputs
    assert "Traceback" not in run.stderr


def test_dispatch_without_files_evaluates_every_matching_file_at_head(tmp_path: Path) -> None:
    run = _bare_run(tmp_path, {"github-token": ""}, {OLD_ITEM: BROKEN_ITEM, "notes/x.md": "# x\n"})
    assert run.results is not None, run.stdout + run.stderr
    assert sorted(r["path"] for r in run.results["results"]) == sorted([NEW_ITEM, OLD_ITEM])
    assert run.returncode == 1


# ------------------------------------------------------------------ the pieces, in process


def test_inputs_are_read_with_hyphens_kept_and_defaults_deferred_to_the_config_file() -> None:
    from evalgate.github.action import read_inputs

    env = {
        **_action_defaults("s3cr3t-job-token"),
        "INPUT_JUDGES": "copilot:gpt-5\n\n  command:./judge.sh \n",
        "INPUT_CHECK-NAME": "docs gate",
        "INPUT_SEED": " 7 ",
    }
    inputs = read_inputs(env)
    assert inputs.github_token == "s3cr3t-job-token" and inputs.check_name == "docs gate"
    assert inputs.judges == ("copilot:gpt-5", "command:./judge.sh")
    assert inputs.seed == 7 and inputs.jobs is None
    assert inputs.paths is None  # left at the action default: .evalgate.yml's `paths` applies
    assert inputs.files is None and inputs.comment == "on-failure"
    assert "s3cr3t" not in repr(inputs)


def test_judges_inherit_only_the_copilot_token() -> None:
    import io

    from evalgate.github.action import protect_credentials, read_inputs

    env = {
        **_action_defaults(GITHUB_TOKEN),
        "INPUT_COPILOT-TOKEN": COPILOT_TOKEN,
        "GITHUB_TOKEN": GITHUB_TOKEN,
        "GH_TOKEN": GITHUB_TOKEN,
        "ACTIONS_RUNTIME_TOKEN": "runtime",
    }
    log = io.StringIO()
    protect_credentials(env, read_inputs(env), log)
    assert log.getvalue().splitlines() == [f"::add-mask::{GITHUB_TOKEN}", f"::add-mask::{COPILOT_TOKEN}"]
    assert env["COPILOT_GITHUB_TOKEN"] == COPILOT_TOKEN
    assert GITHUB_TOKEN not in env.values() and "runtime" not in env.values()


def test_the_job_token_is_never_made_the_copilot_token() -> None:
    import io

    from evalgate.github.action import protect_credentials, read_inputs

    env = {**_action_defaults(GITHUB_TOKEN), "GITHUB_TOKEN": GITHUB_TOKEN}
    protect_credentials(env, read_inputs(env), io.StringIO())
    assert "COPILOT_GITHUB_TOKEN" not in env and GITHUB_TOKEN not in env.values()


def test_workspace_is_trusted_for_git_without_touching_global_config(tmp_path: Path) -> None:
    from evalgate.github.action import trust_workspace

    env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.abbrev", "GIT_CONFIG_VALUE_0": "12"}
    trust_workspace(env, tmp_path)
    pairs = {
        env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"] for i in range(int(env["GIT_CONFIG_COUNT"]))
    }
    assert pairs["safe.directory"] == str(tmp_path) and pairs["core.abbrev"] == "12"
