"""Judge backends: one interface, an explicit registry.

A backend is a class with a `name`, a `model` and one method, `complete(prompt) -> Reply`. It raises
`BackendError` with a human reason when a call fails; `retryable` says whether trying again may help.
`registry.make_backend("openai:gpt-4o")` builds one from a `--judge` spec.
"""

from __future__ import annotations

from typing import Protocol

from evalgate.judgement import Reply


class BackendError(Exception):
    """A judge call failed. The message is the reason recorded on the dimension."""

    def __init__(
        self, reason: str, *, retryable: bool = False, retry_after: float | None = None, attempts: int = 1
    ):
        super().__init__(reason)
        self.retryable = retryable
        self.retry_after = retry_after
        self.attempts = attempts  # calls made before giving up (RetryingBackend counts its retries)


class JudgeSpecError(ValueError):
    """A --judge spec from which no backend can be built (a user error: said in one line, exit 2)."""


def tail(data: bytes | str, limit: int = 500) -> str:
    """The last `limit` characters of a process's output or a reply, decoded and trimmed, for an
    error reason."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = text.strip()
    return text if len(text) <= limit else "…" + text[-limit:]


class UnknownBackendError(JudgeSpecError):
    """A --judge spec names no backend; the message lists the ones that exist."""


class Backend(Protocol):
    name: str
    model: str

    def complete(self, prompt: str) -> Reply: ...
