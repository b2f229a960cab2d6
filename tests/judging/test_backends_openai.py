"""The openai backend against the loopback server: replies, usage, errors, retries."""

from __future__ import annotations

import json
import socket

import pytest
import requests

from evalgate.judging.backends import BackendError
from evalgate.judging.backends.openai_compat import OpenAIBackend
from evalgate.judging.backends.retry import RetryingBackend
from tests.support import openai_server
from tests.support.openai_server import ModelServer, ServerReply, ToolCall, last_user_text

model_server = openai_server.model_server  # the fixture, under its own name


def _backend(server: ModelServer, **kwargs: object) -> OpenAIBackend:
    environ = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test"}
    return OpenAIBackend("gpt-test", environ=environ, **kwargs)  # type: ignore[arg-type]


def test_reply_text_usage_and_request(model_server: ModelServer) -> None:
    model_server.script(ServerReply(text='{"score": 4}', prompt_tokens=120, completion_tokens=30))
    reply = _backend(model_server, prices={"gpt-test": (2.0, 8.0)}).complete("Judge this document.")
    assert reply.text == '{"score": 4}'
    assert (reply.tokens_in, reply.tokens_out) == (120, 30)
    assert reply.cost_usd == pytest.approx((120 * 2.0 + 30 * 8.0) / 1e6)
    assert reply.model == "loopback-model" and reply.latency_ms > 0
    sent = model_server.requests[0]
    assert sent["model"] == "gpt-test" and sent["temperature"] == 0 and sent["stream"] is False
    assert last_user_text(sent) == "Judge this document."
    assert model_server.request_headers[0]["Authorization"] == "Bearer sk-test"


def test_no_key_sends_no_authorization(model_server: ModelServer) -> None:
    OpenAIBackend("m", environ={"OPENAI_BASE_URL": model_server.base_url}).complete("hi")
    assert "Authorization" not in model_server.request_headers[0]


def test_429_with_retry_after_then_200(model_server: ModelServer) -> None:
    model_server.script(ServerReply(status=429, headers={"Retry-After": "7"}), ServerReply(text="fine"))
    sleeps: list[float] = []
    reply = RetryingBackend(_backend(model_server), attempts=3, sleep=sleeps.append).complete("p")
    assert reply.text == "fine"
    assert sleeps == [7.0]
    assert len(model_server.requests) == 2


def test_retry_after_is_capped(model_server: ModelServer) -> None:
    model_server.script(ServerReply(status=503, headers={"Retry-After": "86400"}), ServerReply(text="x"))
    sleeps: list[float] = []
    RetryingBackend(_backend(model_server), max_delay=30, sleep=sleeps.append).complete("p")
    assert sleeps == [30]


def test_500_every_time_gives_up_after_attempts(model_server: ModelServer) -> None:
    model_server.responder = lambda _body: ServerReply(status=500)
    sleeps: list[float] = []
    with pytest.raises(BackendError) as caught:
        RetryingBackend(_backend(model_server), attempts=3, base_delay=1.0, sleep=sleeps.append).complete("p")
    assert "HTTP 500" in str(caught.value) and "scripted error" in str(caught.value)
    assert "after 3 attempts" in str(caught.value)
    assert len(model_server.requests) == 3
    assert len(sleeps) == 2 and 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0  # backoff with jitter


def test_400_is_not_retried(model_server: ModelServer) -> None:
    model_server.script(ServerReply(status=400, error_body={"error": {"message": "model not found"}}))
    with pytest.raises(BackendError, match=r"HTTP 400.*model not found") as caught:
        RetryingBackend(_backend(model_server), sleep=lambda _s: None).complete("p")
    assert caught.value.retryable is False
    assert len(model_server.requests) == 1


def test_connection_refused_names_the_url() -> None:
    with socket.socket() as sock:  # a port nobody listens on: bind, note it, close
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(BackendError) as caught:
        OpenAIBackend("gpt-4o", environ={"OPENAI_BASE_URL": url}).complete("p")
    assert str(caught.value) == f"openai:gpt-4o: connection refused at {url}/chat/completions"
    assert caught.value.retryable


def test_garbage_json_is_a_clear_error(model_server: ModelServer) -> None:
    model_server.script(ServerReply(garbage=b"<html>oops</html>"))
    with pytest.raises(BackendError, match=r"reply is not JSON.*oops"):
        _backend(model_server).complete("p")


def test_reply_without_choices_is_an_error(model_server: ModelServer) -> None:
    model_server.script(ServerReply(garbage=json.dumps({"object": "chat.completion"}).encode()))
    with pytest.raises(BackendError, match="no choices"):
        _backend(model_server).complete("p")


def test_tool_call_instead_of_text_is_an_empty_reply(model_server: ModelServer) -> None:
    model_server.script(ServerReply(tool_call=ToolCall("view", {"path": "/etc/passwd"})))
    with pytest.raises(BackendError, match="empty reply") as caught:
        _backend(model_server).complete("p")
    assert caught.value.retryable


def test_timeout_is_a_clear_error(model_server: ModelServer) -> None:
    model_server.script(ServerReply(delay=5))
    with pytest.raises(BackendError, match=r"no reply within 0.3 s") as caught:
        _backend(model_server, timeout=0.3).complete("p")
    assert not caught.value.retryable


def test_dropped_connection(model_server: ModelServer) -> None:
    model_server.script(ServerReply(drop=True))
    with pytest.raises(BackendError, match="connection closed without a reply") as caught:
        _backend(model_server).complete("p")
    assert caught.value.retryable


def test_server_streams_sse_with_usage_and_lists_models(model_server: ModelServer) -> None:
    model_server.script(ServerReply(text="streamed answer", completion_tokens=3))
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "q"}]}
    response = requests.post(f"{model_server.base_url}/chat/completions", json=body, timeout=5)
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert response.headers["Content-Type"] == "text/event-stream" and events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "streamed answer"
    assert chunks[-1]["usage"]["completion_tokens"] == 3
    models = requests.get(f"{model_server.base_url}/models", timeout=5).json()
    assert [m["id"] for m in models["data"]] == ["loopback-model"]
