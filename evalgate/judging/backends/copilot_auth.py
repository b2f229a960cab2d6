"""When Copilot refuses the judge's token: which permission or policy is missing, in words.

The Copilot CLI (1.0.102) prints one of a few fixed errors when it cannot use its token, whatever the
reason on GitHub's side; the permission or policy that is missing follows from that error and the kind
of token, which GitHub's token formats name by prefix: `ghs_` an installation token (a workflow's
`GITHUB_TOKEN`, the job token), `github_pat_` a fine-grained personal access token, `ghp_` a classic
one. The CLI's errors, as it prints them when its GitHub and Copilot API answer so (seen against a
loopback server playing those answers; tests/judging/test_copilot_auth.py):

- no token at all: "No authentication information found" (an empty `copilot-token`; a fork pull
  request gets no secrets);
- a classic token: "Classic Personal Access Tokens (ghp_) are not supported" (refused before any call);
- HTTP 401: "Authentication failed" (GitHub answers a fine-grained token without the Copilot Requests
  permission with 401 "Personal Access Token does not have Copilot Requests permission";
  github/copilot-cli#46);
- HTTP 403: "Access denied by policy settings" (GitHub answers "not authorized to use this Copilot
  feature, it requires an enterprise or organization policy to be enabled"; github/copilot-cli#18);
- the job token where Copilot does not take it: "GitHub App Server-To-Server Tokens are not supported
  for this endpoint" (github/copilot-cli#3396; the job token works only when the job grants
  `permissions: copilot-requests: write` and, in an organisation, the policy "Allow use of Copilot
  CLI billed to the organization" is on).
"""

from __future__ import annotations

TokenKind = str  # "job", "fine-grained", "classic", "other", "none"

JOB_PERMISSION = (
    "the job must grant `permissions: copilot-requests: write` (in the workflow's `permissions:` block) "
    "and pass `copilot-token: ${{ github.token }}`"
)
ORG_POLICY = (
    'an organisation owner must turn on "Allow use of Copilot CLI billed to the organization" '
    "(organisation settings, Copilot, Policies)"
)
PAT_PERMISSION = "a fine-grained personal access token needs the Copilot Requests permission"
EITHER = (
    f"give the judge a token Copilot accepts: {JOB_PERMISSION}, or, as the fallback, {PAT_PERMISSION} "
    "(stored as a secret)"
)


def token_kind(token: str | None) -> TokenKind:
    """What kind of GitHub token `token` is, from its documented prefix."""
    if not token:
        return "none"
    if token.startswith("ghs_"):
        return "job"
    if token.startswith("github_pat_"):
        return "fine-grained"
    if token.startswith("ghp_"):
        return "classic"
    return "other"


def explain_refusal(stderr: str, token: str | None) -> str | None:
    """What is missing when the CLI's `stderr` says Copilot refused its token (None: it says no
    such thing). `token` is the token the CLI was given; only its prefix is read."""
    kind = token_kind(token)
    if "No authentication information found" in stderr:
        return (
            "Copilot got no token: the `copilot-token` input is empty (on a fork pull request the "
            f"workflow gets no secrets, and its job token no Copilot access); {EITHER}"
        )
    if "Classic Personal Access Tokens (ghp_) are not supported" in stderr:
        return f"Copilot does not accept a classic personal access token (ghp_): {EITHER}"
    if "Server-To-Server Tokens are not supported" in stderr:
        return f"Copilot refused the job's token: {JOB_PERMISSION}; in an organisation {ORG_POLICY}"
    if "Access denied by policy settings" in stderr:
        if kind == "job":
            return (
                f"Copilot refused the job's token by policy: {ORG_POLICY}; in a personal repository "
                "the owner's Copilot plan must include Copilot CLI"
            )
        return (
            "Copilot refused the token's user by policy: the Copilot CLI policy is off for them in "
            "their organisation or enterprise, or their Copilot plan does not include it"
        )
    if "Authentication failed" in stderr:
        if kind == "job":
            return f"Copilot refused the job's token: {JOB_PERMISSION}"
        if kind == "fine-grained":
            return (
                f"Copilot refused the personal access token: {PAT_PERMISSION}, and the token must not "
                "have expired or been revoked"
            )
        return f"Copilot refused the token: {EITHER}"
    return None
