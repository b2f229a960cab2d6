"""The `openai:MODEL` backend: any OpenAI-compatible chat-completions endpoint over HTTP.

Works for OpenAI, GitHub Models, Ollama and vLLM: base URL from `OPENAI_BASE_URL`, key from
`OPENAI_API_KEY` (sent as a Bearer token; local servers need none). One user message, temperature 0,
no streaming — a judge wants the whole reply and its usage, not tokens as they come.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

from evalgate.judgement import Reply
from evalgate.judging.backends import BackendError, tail
from evalgate.judging.backends.pricing import PriceTable, cost_usd
from evalgate.judging.backends.retry import parse_retry_after
from evalgate.judging.backends.transport import HttpReply, JsonTransport, TransportError

DEFAULT_BASE_URL = "https://api.openai.com/v1"
CONNECT_TIMEOUT = 10.0


class OpenAIBackend:
    """Chat completions at `{base_url}/chat/completions`; one call per `complete` (thread-safe)."""

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 300.0,
        prices: PriceTable | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        self.model = model
        self.base_url = (base_url or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else env.get("OPENAI_API_KEY")
        self.timeout = timeout
        self.prices = prices
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base URL {self.base_url!r} (OPENAI_BASE_URL) is not an http(s):// URL")
        self.transport = JsonTransport(
            self.url, connect_timeout=CONNECT_TIMEOUT, timeout=timeout, environ=env
        )

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def complete(self, prompt: str) -> Reply:
        """Send the prompt as one user message; return the reply text with usage and cost."""
        label = f"{self.name}:{self.model}"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        payload = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "stream": False,
        }
        started = time.perf_counter()
        try:
            response = self.transport.post(payload, headers)
        except TransportError as error:
            raise _transport_error(label, self.url, self.timeout, error) from None
        latency_ms = (time.perf_counter() - started) * 1000
        if response.status != 200:
            raise _status_error(label, self.url, response)
        text, model, tokens_in, tokens_out = _parse_completion(label, response)
        return Reply(
            text=text,
            model=model or self.model,
            latency_ms=latency_ms,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=cost_usd(self.prices, self.model, tokens_in, tokens_out),
        )


_REASONS = {
    "refused": "connection refused",
    "closed": "connection closed without a reply",
    "host": "host not found",
    "failed": "connection failed",
}


def _transport_error(label: str, url: str, timeout: float, error: TransportError) -> BackendError:
    if error.kind == "connect_timeout":
        return BackendError(f"{label}: connect timed out at {url}", retryable=True)
    if error.kind == "timeout":
        # Not retried: the model may be working on it, and a second try would double the wait and cost.
        return BackendError(f"{label}: no reply within {timeout:g} s from {url}")
    reason = _REASONS[error.kind]
    if error.kind == "failed" and str(error) != error.kind:
        reason += f" ({error})"  # what failed: TLS, a proxy's refusal, a reply cut short
    return BackendError(f"{label}: {reason} at {url}", retryable=True)


def _status_error(label: str, url: str, response: HttpReply) -> BackendError:
    status = response.status
    detail = _error_message(response)
    reason = f"{label}: HTTP {status} from {url}" + (f": {detail}" if detail else "")
    # 408/409/429 and 5xx are the server's trouble and may pass; other 4xx (bad key, unknown model,
    # prompt too long) will fail the same way every time.
    retryable = status in (408, 409, 429) or status >= 500
    retry_after = parse_retry_after(response.headers.get("Retry-After")) if retryable else None
    return BackendError(reason, retryable=retryable, retry_after=retry_after)


def _error_message(response: HttpReply) -> str:
    try:
        body = response.json()
    except ValueError:
        return tail(response.text, 200)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return tail(str(body["error"].get("message", "")), 200)
    return tail(str(body), 200)


def _parse_completion(label: str, response: HttpReply) -> tuple[str, str | None, int | None, int | None]:
    try:
        body: Any = response.json()
    except ValueError:
        raise BackendError(f"{label}: reply is not JSON: {tail(response.text, 120)!r}") from None
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise BackendError(f"{label}: reply has no choices[0].message: {tail(str(body), 120)!r}") from None
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(text, str) or not text.strip():
        # Models occasionally return nothing (or only a tool call); another try usually answers.
        raise BackendError(f"{label}: empty reply", retryable=True)
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    return text, body.get("model"), _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
