"""The `command:CMD` backend: any executable as a judge — prompt on stdin, reply on stdout.

The command line is split with shlex and run without a shell, so `;`, `|` or `$(...)` in a spec are
literal arguments, never shell syntax.
"""

from __future__ import annotations

import shlex

from evalgate.judging.backends import BackendError
from evalgate.judging.backends.process import ProcessTimeout, run_process, tail
from evalgate.results import Reply


class CommandBackend:
    """Runs `argv` once per prompt; a non-zero exit is an error carrying the tail of stderr."""

    name = "command"

    def __init__(self, command: str, *, timeout: float = 300.0, model: str | None = None) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as error:
            raise ValueError(f"command: cannot split {command!r}: {error}") from None
        if not self.argv:
            raise ValueError("command: the spec names no program (use command:PROGRAM [ARGS])")
        self.command = command
        self.model = model or self.argv[0]
        self.timeout = timeout

    def complete(self, prompt: str) -> Reply:
        """Run the command with the prompt on stdin; its stdout (UTF-8) is the reply."""
        label = f"command:{self.command}"
        try:
            result = run_process(self.argv, prompt.encode(), timeout=self.timeout)
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
