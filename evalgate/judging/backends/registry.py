"""The backend registry: a `--judge` spec (`NAME[:ARG]`) -> a configured, retrying backend."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalgate.judging.backends import Backend, JudgeSpecError, UnknownBackendError
from evalgate.judging.backends.pricing import PriceTable
from evalgate.judging.backends.retry import RetryingBackend

if TYPE_CHECKING:  # imported by the backends that start processes, when a run uses one
    from evalgate.judging.backends.process import JudgeSandbox

# Each factory imports its backend's module: a run loads only the backends its judges use (the
# process-running ones bring subprocess, tempfile and platform, ~5 ms a judged run did not need).


@dataclass(frozen=True)
class BackendSettings:
    """How every backend is run: per-call timeout (s), total attempts, prices, environment, recording,
    and the sandbox of judge processes (the user they run as, the tree `command:` and `replay:` read)."""

    timeout: float = 300.0
    attempts: int = 3
    prices: PriceTable | None = None
    environ: Mapping[str, str] | None = None  # None: the process environment
    record_dir: str | Path | None = None  # wrap the backend in RecordingBackend (the CLI's --record DIR)
    sandbox: JudgeSandbox | None = None  # None: judges run as this process, in its directory


def _copilot(arg: str, s: BackendSettings) -> Backend:
    from evalgate.judging.backends.copilot import CopilotBackend

    run_as = s.sandbox.run_as if s.sandbox is not None else None
    return CopilotBackend(arg or None, timeout=s.timeout, prices=s.prices, environ=s.environ, run_as=run_as)


def _openai(arg: str, s: BackendSettings) -> Backend:
    if not arg:
        raise ValueError("openai: name the model, e.g. openai:gpt-4o-mini")
    from evalgate.judging.backends.openai_compat import OpenAIBackend

    return OpenAIBackend(arg, timeout=s.timeout, prices=s.prices, environ=s.environ)


def _command(arg: str, s: BackendSettings) -> Backend:
    from evalgate.judging.backends.command import CommandBackend

    return CommandBackend(arg, timeout=s.timeout, environ=s.environ, sandbox=s.sandbox)


def _replay(arg: str, s: BackendSettings) -> Backend:
    if not arg:
        raise ValueError("replay: name the directory of recordings, e.g. replay:tests/recordings")
    from evalgate.judging.backends.replay import ReplayBackend

    directory = arg
    if s.sandbox is not None and s.sandbox.tree is not None:  # read from the tree, as a command runs in it
        directory = os.path.join(s.sandbox.tree, s.sandbox.pinned(arg))
    return ReplayBackend(directory)


BACKENDS: dict[str, Callable[[str, BackendSettings], Backend]] = {
    "copilot": _copilot,
    "openai": _openai,
    "command": _command,
    "replay": _replay,
}


def make_backend(spec: str, **settings: Any) -> Backend:
    """Build the backend a spec names, wrapped in bounded retries (and recording if asked).

    Raises UnknownBackendError for an unknown name, JudgeSpecError for a bad argument (or a bad proxy
    setting in the environment) and ValueError for an unknown setting (a programming error).
    """
    known = {f.name for f in fields(BackendSettings)}
    unknown = sorted(set(settings) - known)
    if unknown:
        listed = f"{', '.join(unknown)}; known: {', '.join(sorted(known))}"
        raise ValueError(f"unknown backend setting(s) {listed}")
    config = BackendSettings(**settings)
    name, _, arg = spec.strip().partition(":")
    factory = BACKENDS.get(name)
    if factory is None:
        raise UnknownBackendError(f"unknown judge backend {name!r} in {spec!r}; known: {', '.join(BACKENDS)}")
    try:
        built = factory(arg, config)
    except ValueError as error:
        raise JudgeSpecError(f"{error} (--judge {spec})") from None
    backend: Backend = RetryingBackend(built, attempts=config.attempts)
    if config.record_dir is not None:
        from evalgate.judging.backends.replay import RecordingBackend

        backend = RecordingBackend(backend, config.record_dir)
    return backend
