"""A scriptable OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benchmarks.

It is a real HTTP server (threaded, bounded, on an ephemeral port) so that every client we drive —
the `openai` backend over `requests`, and the real Copilot CLI binary with
`COPILOT_PROVIDER_BASE_URL` — talks to it exactly as it would talk to a vendor.

Endpoints: `POST /v1/chat/completions` (streaming SSE when the body says `"stream": true`, with a
usage chunk before `data: [DONE]`; plain JSON otherwise) and `GET /v1/models`.

What it answers is scripted, per request, by `ServerReply` values:

    with ModelServer() as server:                       # or the `model_server` pytest fixture
        server.script(ServerReply(status=429, headers={"Retry-After": "1"}), ServerReply(text="ok"))
        ...                                             # point a client at server.base_url
        assert server.requests[0]["messages"][-1]["content"] == "..."

Queued replies are used first, in order; when the queue is empty, `server.responder(body)` decides
(default: the text "ok"). A reply can be text, a tool call, an HTTP error status with headers, a
delay, raw garbage bytes, or a dropped connection. Every request body is recorded in `requests`
(parsed JSON; `raw_requests` keeps the bytes) so a test can assert on what the client sent.

To use the `model_server` fixture in a test module, bind it there under its own name (a plain
import would be flagged as unused and then redefined by ruff):

    from tests.support import openai_server
    model_server = openai_server.model_server

or list "tests.support.openai_server" in the root conftest's `pytest_plugins`.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asks the client to make (OpenAI `tool_calls` entry)."""

    name: str
    arguments: dict[str, Any]
    id: str = "call_1"


@dataclass(frozen=True)
class ServerReply:
    """How the server answers one request.

    `status` other than 200 sends `error_body` (JSON) with `headers`; `garbage` sends those raw bytes
    as a 200 body; `drop` closes the connection without a response; `delay` (seconds) is waited
    first. Otherwise the model's answer is `text`, or `tool_call` if given.
    """

    text: str = "ok"
    tool_call: ToolCall | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    garbage: bytes | None = None
    drop: bool = False
    model: str = "loopback-model"
    prompt_tokens: int = 11
    completion_tokens: int = 7
    error_body: dict[str, Any] = field(
        default_factory=lambda: {"error": {"message": "scripted error", "type": "server_error"}}
    )


Responder = Callable[[dict[str, Any]], ServerReply]


def _default_responder(_body: dict[str, Any]) -> ServerReply:
    return ServerReply()


def _completion(reply: ServerReply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    finish = "stop"
    if reply.tool_call is not None:
        message = {"role": "assistant", "content": None, "tool_calls": [_tool_call_json(reply.tool_call)]}
        finish = "tool_calls"
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": _usage(reply),
    }


def _tool_call_json(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
    }


def _usage(reply: ServerReply) -> dict[str, int]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }


def _stream_chunks(reply: ServerReply) -> Iterator[dict[str, Any]]:
    """The SSE chunk sequence of a streamed completion: role, content pieces, finish, usage."""
    base = {"id": "chatcmpl-loopback", "object": "chat.completion.chunk", "created": int(time.time())}
    base["model"] = reply.model

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    if reply.tool_call is not None:
        yield chunk({"tool_calls": [{"index": 0, **_tool_call_json(reply.tool_call)}]})
        yield chunk({}, "tool_calls")
    else:
        # Several pieces, so a client that only keeps the last delta would be caught out.
        step = max(1, len(reply.text) // 3)
        for start in range(0, len(reply.text), step):
            yield chunk({"content": reply.text[start : start + step]})
        yield chunk({}, "stop")
    yield {**base, "choices": [], "usage": _usage(reply)}


class _BoundedThreadingServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer that serves at most `max_workers` requests at once (others wait)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], max_workers: int):
        super().__init__(address, handler)
        self.slots = threading.BoundedSemaphore(max_workers)
        self.model_server: ModelServer | None = None
        self.connections = 0  # accepted so far (a kept-alive connection serves several requests)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a timeout test, a killed CLI) is expected; anything else is printed."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.slots.acquire()
        self.connections += 1  # only the serving thread accepts, so no lock is needed
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _BoundedThreadingServer
    # TCP_NODELAY, as servers in the field set it: the status line and headers go out in one write and
    # the body in another, and on a kept-alive connection Nagle's algorithm held the body until the
    # client's delayed ACK, 40 ms later. Every call after a connection's first took 44 ms instead of 1.5.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request stderr log; tests assert on `requests` instead."""

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            owner = self.server.model_server
            models = owner.models if owner else ["loopback-model"]
            data = [{"id": m, "object": "model", "owned_by": "loopback"} for m in models]
            body = {"object": "list", "data": data}
            self._send_json(200, body)
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        owner = self.server.model_server
        assert owner is not None
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body: dict[str, Any] = json.loads(raw)
        except ValueError:
            body = {}
        reply = owner._record_and_choose(raw, body, dict(self.headers))
        if reply.delay and owner._stopping.wait(reply.delay):
            return
        if reply.drop:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if reply.status != 200:
            self._send_json(reply.status, reply.error_body, reply.headers)
        elif reply.garbage is not None:
            self._send_bytes(200, reply.garbage, "application/json", reply.headers)
        elif body.get("stream"):
            self._send_stream(reply)
        else:
            self._send_json(200, _completion(reply), reply.headers)

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(body).encode(), "application/json", headers or {})

    def _send_bytes(self, status: int, data: bytes, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, reply: ServerReply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        for chunk in _stream_chunks(reply):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class ModelServer:
    """A loopback OpenAI-compatible server; use as a context manager or call start()/stop()."""

    def __init__(self, responder: Responder = _default_responder, *, max_workers: int = 32) -> None:
        self.responder = responder
        self.models: list[str] = ["loopback-model"]
        self.requests: list[dict[str, Any]] = []
        self.raw_requests: list[bytes] = []
        self.request_headers: list[dict[str, str]] = []
        self._queue: deque[ServerReply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _BoundedThreadingServer(("127.0.0.1", 0), _Handler, max_workers)
        self._httpd.model_server = self
        # A short poll interval: shutdown() waits for the next poll, and tests stop a server each.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.02,), name="model-server", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def connections(self) -> int:
        """TCP connections accepted so far."""
        return self._httpd.connections

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ending in /v1 (what OPENAI_BASE_URL / COPILOT_PROVIDER_BASE_URL take)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: ServerReply) -> None:
        """Queue replies for the next requests, in order (before the responder is asked)."""
        with self._lock:
            self._queue.extend(replies)

    def _record_and_choose(self, raw: bytes, body: dict[str, Any], headers: dict[str, str]) -> ServerReply:
        with self._lock:
            self.raw_requests.append(raw)
            self.requests.append(body)
            self.request_headers.append(headers)
            if self._queue:
                return self._queue.popleft()
        return self.responder(body)

    def start(self) -> ModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut pending delays short, and release the port."""
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message in a chat request (content may be a string or parts)."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    """A started loopback model server, stopped after the test."""
    with ModelServer() as server:
        yield server
