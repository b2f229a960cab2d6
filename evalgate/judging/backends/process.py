"""Run a judge process: argv (never a shell), prompt on stdin, a timeout that kills the whole group."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ProcessResult:
    """What a finished process left: exit code, output bytes and wall time."""

    returncode: int
    stdout: bytes
    stderr: bytes
    elapsed_ms: float


class ProcessTimeout(TimeoutError):
    """The process ran past its timeout and was killed with its children."""


def run_process(
    argv: Sequence[str],
    stdin: bytes,
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> ProcessResult:
    """Run `argv` with `stdin`, wait at most `timeout` seconds, return its output.

    The child gets its own session so that on timeout we can kill the process group: the Copilot
    npm loader, for one, is a node process that spawns the native binary, and killing only the
    parent would leave the binary (and its open model connection) running.
    Raises FileNotFoundError/PermissionError when argv[0] cannot be run, ProcessTimeout on timeout.
    """
    started = time.perf_counter()
    with subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        start_new_session=True,
    ) as proc:
        try:
            stdout, stderr = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            raise ProcessTimeout(f"timed out after {timeout:g} s") from None
        except BaseException:
            _kill_group(proc)
            raise
    return ProcessResult(proc.returncode, stdout, stderr, (time.perf_counter() - started) * 1000)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(proc.pid, signal.SIGKILL)
