"""The judge backends' HTTP: kept-alive connections shared by threads, stale ones replaced, proxies, errors.

Against real sockets on 127.0.0.1: the loopback model server, and a small HTTP proxy (below) that
forwards plain-HTTP requests and answers CONNECT as a proxy that wants credentials would.
"""

from __future__ import annotations

import base64
import http.client
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

from evalgate.judging.backends import BackendError, JudgeSpecError
from evalgate.judging.backends.openai_compat import OpenAIBackend
from evalgate.judging.backends.registry import make_backend
from evalgate.judging.backends.transport import JsonTransport, TransportError, _closed_by_peer
from tests.support import openai_server
from tests.support.openai_server import ModelServer, ServerReply

model_server = openai_server.model_server  # the fixture, under its own name


def test_calls_from_one_thread_share_one_kept_alive_connection(model_server: ModelServer) -> None:
    backend = OpenAIBackend("m", environ={"OPENAI_BASE_URL": model_server.base_url})
    for _ in range(3):
        backend.complete("hi")
    assert len(model_server.requests) == 3 and model_server.connections == 1


class _Gathering:
    """A responder that holds each call until `count` calls have arrived, then answers them all:
    that many are in flight together however slowly the machine starts the threads making them
    (a fixed delay let the first call end before a late thread's began, on a loaded machine)."""

    def __init__(self, count: int) -> None:
        self.count, self.arrived = count, 0
        self.lock = threading.Condition()

    def __call__(self, _body: dict[str, object]) -> ServerReply:
        with self.lock:
            self.arrived += 1
            self.lock.notify_all()
            self.lock.wait_for(lambda: self.arrived >= self.count, timeout=30)
        return ServerReply(text="held")


def test_threads_share_the_kept_alive_connections(model_server: ModelServer) -> None:
    """No more connections are opened than calls run at once, whichever threads make the calls: a
    run's judge pool has twice as many threads as calls in flight, and against a real endpoint each
    new connection is a TCP and TLS handshake before the call."""
    model_server.responder = _Gathering(4)  # the first four calls are in flight together
    backend = OpenAIBackend("m", environ={"OPENAI_BASE_URL": model_server.base_url})
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def call(together: bool) -> None:
        try:
            if together:
                barrier.wait(timeout=5)
            backend.complete("hi")
            backend.complete("again")
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    def run(threads: list[threading.Thread]) -> None:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)

    run([threading.Thread(target=call, args=(True,)) for _ in range(4)])  # four at once
    assert errors == [] and len(model_server.requests) == 8
    assert model_server.connections == 4
    for _ in range(6):  # new threads, one after another: each takes a connection left open
        run([threading.Thread(target=call, args=(False,))])
    assert errors == [] and len(model_server.requests) == 20
    assert model_server.connections == 4


def test_a_connection_the_server_closes_is_replaced(model_server: ModelServer) -> None:
    closing = ServerReply(text="first", headers={"Connection": "close"})
    model_server.script(closing, ServerReply(text="second"))
    backend = OpenAIBackend("m", environ={"OPENAI_BASE_URL": model_server.base_url})
    assert backend.complete("a").text == "first"
    assert backend.complete("b").text == "second"
    assert model_server.connections == 2


def test_an_idle_connection_closed_by_the_peer_is_seen_before_reuse() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert not _closed_by_peer(ours)  # idle and open: fit for the next request
        theirs.close()
        assert _closed_by_peer(ours)  # EOF waiting: the next request would fail


def test_the_request_sent(model_server: ModelServer) -> None:
    OpenAIBackend("m", environ={"OPENAI_BASE_URL": model_server.base_url}).complete("é ✓")
    headers = model_server.request_headers[0]
    assert headers["Content-Type"] == "application/json"
    assert headers["User-Agent"].startswith("evalgate/")
    assert model_server.requests[0]["messages"][0]["content"] == "é ✓"


class _Proxy(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.seen: list[tuple[str, str, dict[str, str]]] = []  # (method, request target, headers)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Proxy

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        self.server.seen.append(("POST", self.path, dict(self.headers)))
        body = self.rfile.read(int(self.headers["Content-Length"]))
        target = urlsplit(self.path)  # a proxy is sent the whole URL
        upstream = http.client.HTTPConnection(target.hostname or "", target.port or 80, timeout=5)
        upstream.request("POST", target.path, body=body, headers={"Content-Type": "application/json"})
        reply = upstream.getresponse()
        data = reply.read()
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_CONNECT(self) -> None:
        self.server.seen.append(("CONNECT", self.path, dict(self.headers)))
        self.send_response(407, "Proxy Authentication Required")
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def proxy() -> Iterator[_Proxy]:
    server = _Proxy()
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_http_proxy_from_the_environment_carries_the_call(model_server: ModelServer, proxy: _Proxy) -> None:
    environ = {"OPENAI_BASE_URL": model_server.base_url, "http_proxy": proxy.url.replace("//", "//u%40x:p@")}
    model_server.script(ServerReply(text="via proxy"))
    assert OpenAIBackend("m", environ=environ).complete("hi").text == "via proxy"
    [(method, target, headers)] = proxy.seen
    assert (method, target) == ("POST", f"{model_server.base_url}/chat/completions")
    assert headers["Proxy-Authorization"] == "Basic " + base64.b64encode(b"u@x:p").decode()


def test_no_proxy_sends_the_call_direct(model_server: ModelServer, proxy: _Proxy) -> None:
    environ = {"OPENAI_BASE_URL": model_server.base_url, "HTTP_PROXY": proxy.url}
    environ["NO_PROXY"] = "localhost,127.0.0.1"
    OpenAIBackend("m", environ=environ).complete("hi")
    assert proxy.seen == [] and len(model_server.requests) == 1


def test_https_goes_through_a_connect_tunnel(proxy: _Proxy) -> None:
    environ = {"OPENAI_BASE_URL": "https://api.example.test/v1"}
    environ["HTTPS_PROXY"] = proxy.url.replace("//", "//me:pw@")
    with pytest.raises(BackendError) as caught:
        OpenAIBackend("gpt-4o", environ=environ).complete("p")
    [(method, target, headers)] = proxy.seen
    assert (method, target) == ("CONNECT", "api.example.test:443")
    assert headers["Proxy-Authorization"] == "Basic " + base64.b64encode(b"me:pw").decode()
    assert "connection failed" in str(caught.value) and "407" in str(caught.value)
    assert caught.value.retryable


def test_bad_base_url_or_proxy_is_a_spec_error_not_a_crash() -> None:
    wanted = r"^base URL 'localhost:8080' \(OPENAI_BASE_URL\) .* \(--judge openai:m\)$"
    with pytest.raises(JudgeSpecError, match=wanted):
        make_backend("openai:m", environ={"OPENAI_BASE_URL": "localhost:8080"})
    with pytest.raises(JudgeSpecError, match=r"only http:// proxies"):
        make_backend("openai:m", environ={"HTTPS_PROXY": "socks5://127.0.0.1:1080"})
    with pytest.raises(JudgeSpecError, match="name the model"):
        make_backend("openai:")


def test_unknown_host_is_named() -> None:
    transport = JsonTransport("http://host.invalid/v1", connect_timeout=5, timeout=5, environ={})
    with pytest.raises(TransportError) as caught:
        transport.post({}, {})
    assert caught.value.kind == "host"


def test_a_bad_judge_spec_on_the_command_line_exits_2_without_a_traceback(tmp_path) -> None:
    import subprocess

    item = tmp_path / "item.md"
    item.write_text("# T\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "evalgate", "check", str(item), "--judge", "openai:"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert proc.stderr == "evalgate: openai: name the model, e.g. openai:gpt-4o-mini (--judge openai:)\n"
