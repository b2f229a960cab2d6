"""When Copilot refuses the judge's token, the error says which permission or policy is missing.

The real Copilot CLI 1.0.102 runs with a token against a loopback stand-in for GitHub's and Copilot's
APIs (tests/support/copilot_api.py) that answers as GitHub answers a token it will not serve; the CLI
prints its own error for each answer, and evalgate's message is read from that. Offline mode (BYOK)
cannot produce these errors: there the CLI words every 401/403 of the model server as its own
provider error, so the token path is the one driven here. No scripted stand-in for the CLI is used.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalgate.judging.backends import BackendError
from evalgate.judging.backends.copilot import CopilotBackend
from evalgate.judging.backends.copilot_auth import explain_refusal, token_kind
from tests.support.copilot_api import CopilotApi

JOB_TOKEN = "ghs_jobTokenForCopilot0123456789"
FINE_GRAINED = "github_pat_11AAAAAAA0fineGrainedToken_0123456789"
CLASSIC = "ghp_classicTokenNotAccepted0123456789"
# Copilot's API words its refusals as text (github/copilot-cli#46, #18, #3396)
S2S = (
    "checking server-to-server token: bad request: "
    "GitHub App Server-To-Server Tokens are not supported for this endpoint\n"
)
NO_PERMISSION = "unauthorized: Personal Access Token does not have Copilot Requests permission\n"
POLICY = (
    "You are not authorized to use this Copilot feature, "
    "it requires an enterprise or organization policy to be enabled.\n"
)


def _judge(api: CopilotApi, token: str | None, binary: str, tmp_path: Path) -> CopilotBackend:
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", str(tmp_path))}
    return CopilotBackend("gpt-5.4", environ={**environ, **api.environment()}, token=token, binary=binary)


@pytest.mark.copilot
@pytest.mark.parametrize(
    ("token", "status", "message", "says"),
    [
        (
            JOB_TOKEN,
            401,
            "unauthorized: Bad credentials\n",
            ["Copilot refused the job's token", "copilot-requests: write"],
        ),
        (JOB_TOKEN, 403, POLICY, ["by policy", "Allow use of Copilot CLI billed to the organization"]),
        (
            JOB_TOKEN,
            400,
            S2S,
            ["copilot-requests: write", "Allow use of Copilot CLI billed to the organization"],
        ),
        (FINE_GRAINED, 401, NO_PERMISSION, ["personal access token", "Copilot Requests permission"]),
        (FINE_GRAINED, 403, POLICY, ["token's user by policy", "Copilot CLI policy is off"]),
    ],
    ids=["job-401", "job-403", "job-400-server-to-server", "pat-401", "pat-403"],
)
def test_a_refused_token_names_the_missing_permission_or_policy(
    token: str, status: int, message: str, says: list[str], copilot_bin: str, tmp_path: Path
) -> None:
    with CopilotApi(status, message) as api:
        judge = _judge(api, token, copilot_bin, tmp_path)
        with pytest.raises(BackendError) as refused:
            judge.complete("Score this document.")
        assert api.requests, "the CLI never reached the stand-in"
        assert all(auth is None or token not in auth or auth.endswith(token) for _, _, auth in api.requests)
        calls = len(api.requests)
        # every later call is refused at once, without another CLI start
        with pytest.raises(BackendError) as again:
            judge.complete("Score another document.")
        assert len(api.requests) == calls
    reason = str(refused.value)
    assert all(part in reason for part in says), reason
    assert "the Copilot CLI said: Error:" in reason and str(again.value) == reason
    assert token not in reason and not refused.value.retryable


@pytest.mark.copilot
@pytest.mark.parametrize(
    ("token", "says"),
    [(None, "Copilot got no token"), (CLASSIC, "classic personal access token (ghp_)")],
    ids=["no-token", "classic"],
)
def test_a_missing_or_classic_token_is_named_before_any_call(
    token: str | None, says: str, copilot_bin: str, tmp_path: Path
) -> None:
    with CopilotApi(500, {"message": "never asked"}) as api:
        with pytest.raises(BackendError) as refused:
            _judge(api, token, copilot_bin, tmp_path).complete("Score this document.")
        assert api.requests == []
    assert says in str(refused.value)
    assert "copilot-requests: write" in str(refused.value) and "Copilot Requests permission" in str(
        refused.value
    )


def test_other_failures_are_not_read_as_a_refused_token() -> None:
    assert explain_refusal("Error: Failed to load models\n\nError: 500 internal", JOB_TOKEN) is None
    assert explain_refusal("No response was returned", FINE_GRAINED) is None
    assert [token_kind(t) for t in (JOB_TOKEN, FINE_GRAINED, CLASSIC, "gho_x", "", None)] == [
        "job", "fine-grained", "classic", "other", "none", "none"
    ]  # fmt: skip
