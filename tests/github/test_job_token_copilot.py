"""The job's own token as the Copilot judge's token (`copilot-token: ${{ github.token }}` with
`permissions: copilot-requests: write`), through entrypoint.py: only that explicit input hands it to
the judge, the judge gets only it, and when Copilot refuses it the results say which permission or
policy is missing. The real Copilot CLI meets a loopback stand-in for GitHub's and Copilot's APIs
(tests/support/copilot_api.py) that refuses the token as GitHub does."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.github.test_entrypoint import GITHUB_TOKEN, NEW_ITEM, _action_defaults
from tests.github.test_policy_from_base import GATED, pull_request, run_pr
from tests.support.copilot_api import CopilotApi
from tests.support.github_api import FakeGitHub


def test_the_job_token_given_as_copilot_token_is_the_judges_only_token() -> None:
    from evalgate.github.action import protect_credentials, read_inputs
    from evalgate.judging.backends.copilot import TOKEN_VARIABLES, copilot_environment

    env = {
        **_action_defaults(GITHUB_TOKEN),
        "INPUT_COPILOT-TOKEN": GITHUB_TOKEN,  # what `${{ github.token }}` gives
        "GITHUB_TOKEN": GITHUB_TOKEN,
        "GH_TOKEN": GITHUB_TOKEN,
    }
    log = io.StringIO()
    protect_credentials(env, read_inputs(env), log)
    assert log.getvalue().splitlines() == [f"::add-mask::{GITHUB_TOKEN}"]  # one token, masked once
    assert env["COPILOT_GITHUB_TOKEN"] == GITHUB_TOKEN
    assert "GITHUB_TOKEN" not in env and "GH_TOKEN" not in env
    cli = copilot_environment(env, copilot_home="/nonexistent", tmpdir="/nonexistent")
    assert [name for name in TOKEN_VARIABLES if name in cli] == ["COPILOT_GITHUB_TOKEN"]


@pytest.mark.copilot
def test_a_job_token_without_the_copilot_permission_is_named_in_the_results(
    tmp_path: Path, events_dir: Path, github: FakeGitHub, copilot_bin: str
) -> None:
    ws = pull_request(tmp_path, GATED, {})
    with CopilotApi(401, "unauthorized: Bad credentials\n") as api:
        run = run_pr(
            tmp_path,
            events_dir,
            ws,
            api=github.url,
            runner_env={**api.environment(), "EVALGATE_COPILOT_BIN": copilot_bin},
            judges="copilot:gpt-5.4",
            comment="never",
            **{"copilot-token": GITHUB_TOKEN},
        )
    assert api.requests, run.stdout + run.stderr
    # the judge presented the job token and no other (the CLI writes "Bearer" in either case)
    assert {(auth or "").partition(" ")[2] for _, _, auth in api.requests} == {GITHUB_TOKEN}

    assert run.results is not None, run.stdout + run.stderr
    (result,) = [r for r in run.results["results"] if r["path"] == NEW_ITEM]
    (judged,) = [d for d in result["dimensions"] if d["kind"] == "judge"]
    assert "Copilot refused the job's token" in judged["error"]
    assert "permissions: copilot-requests: write" in judged["error"]
    assert run.returncode == 1  # a gate that could not judge does not pass (on-judge-error: fail)
    assert "copilot-requests: write" in run.summary
    for text in (run.summary, run.stderr, str(run.results)):
        assert GITHUB_TOKEN not in text
