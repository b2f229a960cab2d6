"""Backend specs, the retry policy and prices."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from evalgate.judgement import Reply
from evalgate.judging.backends import BackendError, UnknownBackendError
from evalgate.judging.backends.command import CommandBackend
from evalgate.judging.backends.copilot import CopilotBackend
from evalgate.judging.backends.openai_compat import OpenAIBackend
from evalgate.judging.backends.pricing import cost_usd
from evalgate.judging.backends.registry import make_backend
from evalgate.judging.backends.replay import RecordingBackend, ReplayBackend
from evalgate.judging.backends.retry import RetryingBackend, backoff_delay, parse_retry_after


@pytest.mark.parametrize(
    ("spec", "kind", "model"),
    [
        ("copilot", CopilotBackend, "default"),
        ("copilot:gpt-5-mini", CopilotBackend, "gpt-5-mini"),
        ("openai:gpt-4o", OpenAIBackend, "gpt-4o"),
        ("command:judge --strict", CommandBackend, "judge"),
        ("replay:recordings", ReplayBackend, "replay"),
    ],
)
def test_specs_build_retrying_backends(spec: str, kind: type, model: str) -> None:
    backend = make_backend(spec, environ={})
    assert isinstance(backend, RetryingBackend) and isinstance(backend.inner, kind)
    assert backend.model == model


def test_unknown_backend_names_the_known_ones() -> None:
    with pytest.raises(UnknownBackendError) as caught:
        make_backend("claude:opus")
    assert "'claude'" in str(caught.value)
    for name in ("copilot", "openai", "command", "replay"):
        assert name in str(caught.value)


@pytest.mark.parametrize("spec", ["openai", "openai:", "replay:", "command:"])
def test_missing_argument_is_a_clear_error(spec: str) -> None:
    with pytest.raises(ValueError, match=spec.rstrip(":")):
        make_backend(spec)


def test_unknown_setting_is_named() -> None:
    with pytest.raises(ValueError, match="timeot"):
        make_backend("openai:m", timeot=3)


def test_record_dir_wraps_in_recording(tmp_path: Path) -> None:
    backend = make_backend("openai:m", record_dir=tmp_path, attempts=1)
    assert isinstance(backend, RecordingBackend) and backend.name == "openai"


class FlakyBackend:
    """Fails with the given errors in turn, then answers."""

    name = "flaky"
    model = "f"

    def __init__(self, *errors: BackendError) -> None:
        self.errors = list(errors)
        self.calls = 0

    def complete(self, prompt: str) -> Reply:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return Reply("ok", self.model, 1.0)


def test_retries_retryable_errors_then_answers() -> None:
    inner = FlakyBackend(BackendError("busy", retryable=True), BackendError("busy", retryable=True))
    sleeps: list[float] = []
    assert RetryingBackend(inner, attempts=3, sleep=sleeps.append).complete("p").text == "ok"
    assert inner.calls == 3 and len(sleeps) == 2


def test_does_not_retry_permanent_errors() -> None:
    inner = FlakyBackend(BackendError("bad key"))
    with pytest.raises(BackendError, match=r"^bad key$"):
        RetryingBackend(inner, attempts=3, sleep=lambda _s: None).complete("p")
    assert inner.calls == 1


def test_backoff_grows_with_jitter_and_is_capped() -> None:
    error = BackendError("busy", retryable=True)
    assert [backoff_delay(n, error, base=1.0, rng=lambda: 0.0) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]
    assert [backoff_delay(n, error, base=1.0, rng=lambda: 1.0) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]
    assert backoff_delay(20, error, base=1.0, cap=30.0, rng=lambda: 1.0) == 30.0
    assert backoff_delay(1, BackendError("x", retry_after=120.0), cap=60.0) == 60.0


def test_retry_after_seconds_and_http_date() -> None:
    now = datetime(2026, 12, 2, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 02 Dec 2026 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 02 Dec 2026 11:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_cost_from_price_table() -> None:
    prices = {"gpt-4o": (2.5, 10.0)}
    assert cost_usd(prices, "gpt-4o", 1_000_000, 100_000) == pytest.approx(3.5)
    assert cost_usd(prices, "other", 10, 10) is None
    assert cost_usd(prices, "gpt-4o", None, 10) is None
    assert cost_usd(None, "gpt-4o", 10, 10) is None
