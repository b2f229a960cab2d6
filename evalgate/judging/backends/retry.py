"""Bounded retries with exponential backoff and jitter, honouring a server's Retry-After."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from evalgate.judgement import Reply
from evalgate.judging.backends import Backend, BackendError


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date; None if unusable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def backoff_delay(
    attempt: int,
    error: BackendError,
    *,
    base: float = 1.0,
    cap: float = 60.0,
    rng: Callable[[], float] = random.random,
) -> float:
    """How long to wait after failed attempt number `attempt` (1-based).

    A server's Retry-After wins (capped, so a hostile or confused server cannot stall CI); otherwise
    exponential backoff with "equal jitter" — half fixed, half random — so parallel judges that were
    throttled together do not all come back in the same instant.
    """
    if error.retry_after is not None:
        return min(error.retry_after, cap)
    step = min(cap, base * 2 ** (attempt - 1))
    return step / 2 + rng() * step / 2


class RetryingBackend:
    """Wraps a backend: retries its retryable errors, up to `attempts` calls in all."""

    def __init__(
        self,
        inner: Backend,
        *,
        attempts: int = 3,
        base_delay: float = 1.0,
        max_delay: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.attempts = max(1, attempts)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.sleep = sleep

    def complete(self, prompt: str) -> Reply:
        """Call the inner backend; on a retryable error wait and try again, else re-raise. A reply
        after retries counts every attempt (`attempts`) and the time from the first (`latency_ms`):
        a failed attempt may have been billed, and it took time."""
        started = time.perf_counter()
        for attempt in range(1, self.attempts + 1):
            try:
                reply = self.inner.complete(prompt)
            except BackendError as error:
                if not error.retryable or attempt == self.attempts:
                    if attempt > 1:
                        raise BackendError(
                            f"{error} (after {attempt} attempts)",
                            retryable=error.retryable,
                            retry_after=error.retry_after,
                            attempts=attempt,
                        ) from error
                    raise
                self.sleep(backoff_delay(attempt, error, base=self.base_delay, cap=self.max_delay))
                continue
            if attempt == 1:
                return reply
            return replace(reply, attempts=attempt, latency_ms=(time.perf_counter() - started) * 1000)
        raise AssertionError("unreachable: the loop returns or raises")
