"""The `command:CMD` backend: any executable as a judge — prompt on stdin, reply on stdout.

The command line is split with shlex and run without a shell, so `;`, `|` or `$(...)` in a spec are
literal arguments, never shell syntax. It runs with the environment less what the Copilot backend
also keeps out (`INPUT_*`, `ACTIONS_*`, GITHUB_TOKEN, GH_TOKEN): in the action those hold the
workflow's inputs, the runner's service tokens and the job token, and a judge needs none of them.

With a `JudgeSandbox` (the action on a pull request, judged by its base commit's policy) the command
runs in a copy of the base commit's tree, with the paths it is given into the workspace pinned to
that copy, and as the sandbox's unprivileged user: a script it sources (`. ./lib.sh`) or requires
(`require('./lib')`) is the base commit's, whatever the pull request changed.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

from evalgate.judgement import Reply
from evalgate.judging.backends import BackendError, tail
from evalgate.judging.backends.process import JudgeSandbox, ProcessTimeout, run_process

# Never handed to a judge program: the runner's own variables and the credentials a workflow holds
# (the same ones the copilot backend keeps out; a judge's own credential, COPILOT_GITHUB_TOKEN or an
# API key, is passed on).
SCRUBBED_PREFIXES = ("INPUT_", "ACTIONS_")
SCRUBBED_VARIABLES = frozenset({"GITHUB_TOKEN", "GH_TOKEN"})
# Set by the action when COPILOT_GITHUB_TOKEN is the job's own token (`copilot-token: ${{ github.token
# }}`), which can write check runs: then it is the Copilot CLI's alone, and a command judge gets neither.
JOB_TOKEN_FOR_COPILOT_ONLY = "EVALGATE_JOB_TOKEN_FOR_COPILOT_ONLY"


def command_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a command judge runs with: `environ` less the runner's inputs, its `ACTIONS_*`
    service tokens and URLs, and the workflow's GitHub token (also as COPILOT_GITHUB_TOKEN, when the
    action was given the job's token as the Copilot judge's)."""
    scrubbed = set(SCRUBBED_VARIABLES) | {JOB_TOKEN_FOR_COPILOT_ONLY}
    if environ.get(JOB_TOKEN_FOR_COPILOT_ONLY):
        scrubbed.add("COPILOT_GITHUB_TOKEN")
    return {
        k: v for k, v in environ.items() if k not in scrubbed and not k.upper().startswith(SCRUBBED_PREFIXES)
    }


class CommandBackend:
    """Runs `argv` once per prompt; a non-zero exit is an error carrying the tail of stderr."""

    name = "command"

    def __init__(
        self,
        command: str,
        *,
        timeout: float = 300.0,
        model: str | None = None,
        environ: Mapping[str, str] | None = None,
        sandbox: JudgeSandbox | None = None,
    ) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise ValueError(f"command: cannot split {command!r}: {error}") from None
        if not self.argv:
            raise ValueError("command: the spec names no program (use command:PROGRAM [ARGS])")
        self.command = command
        self.model = model or self.argv[0]
        self.timeout = timeout
        self.environ = environ  # None: the process environment at each call
        self.sandbox = sandbox or JudgeSandbox()

    def complete(self, prompt: str) -> Reply:
        """Run the command with the prompt on stdin; its stdout (UTF-8) is the reply."""
        label = f"command:{self.command}"
        sandbox = self.sandbox
        argv = [sandbox.pinned_argument(token) for token in self.argv]
        cwd = str(sandbox.tree) if sandbox.tree is not None else None
        try:
            env = sandbox.pinned_environment(
                command_environment(os.environ if self.environ is None else self.environ)
            )
            result = run_process(
                argv, prompt.encode(), timeout=self.timeout, env=env, cwd=cwd, run_as=sandbox.run_as
            )
        except ProcessTimeout as error:
            raise BackendError(f"{label}: {error}") from None
        except OSError as error:
            raise BackendError(f"{label}: cannot run {self.argv[0]!r}: {error.strerror or error}") from None
        if result.returncode != 0:
            stderr = tail(result.stderr) or "(no stderr)"
            raise BackendError(f"{label}: exit code {result.returncode}: {stderr}")
        return Reply(
            text=result.stdout.decode("utf-8", "replace"), model=self.model, latency_ms=result.elapsed_ms
        )
