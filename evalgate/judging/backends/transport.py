"""HTTP for the judge backends: JSON posted over kept-alive connections that threads share.

Standard library only (`http.client`). `requests` pulls in urllib3, charset_normalizer and idna:
~0.1 s of imports, which a judged run paid before its first call, and ~140 more modules for the
interpreter to tear down at exit (docs/scale.md, "Third pass"). What the backends had from it is
kept here:
- connections kept alive between calls and shared by the threads (as urllib3's pool does): a call
  takes the connection used last that is free, so no more are opened than calls run at once (a
  judged run's pool has twice as many threads as calls in flight, and each new connection to a real
  endpoint is a TCP and TLS handshake before the call); one the server closed while it sat idle is
  noticed before it is used again and replaced;
- a connect timeout apart from the read timeout (the time allowed between bytes of the reply);
- TLS verified against certifi's bundle, or `REQUESTS_CA_BUNDLE` / `CURL_CA_BUNDLE`, as requests does;
- `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` and `NO_PROXY` from the environment (either case),
  with credentials in the proxy URL sent as Proxy-Authorization.
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import ssl  # http.client has imported it already
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import SplitResult, unquote, urlsplit

from evalgate import __version__

Failure = Literal["connect_timeout", "timeout", "refused", "closed", "host", "failed"]


class TransportError(Exception):
    """A call that got no HTTP reply: `kind` says how it failed, the message says what happened."""

    def __init__(self, kind: Failure, detail: str = ""):
        super().__init__(detail or kind)
        self.kind = kind


@dataclass(frozen=True)
class HttpReply:
    """A whole HTTP reply."""

    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        """The body as JSON (UTF-8, -16 or -32, as `json.loads` detects); ValueError if it is not."""
        return json.loads(self.body)

    @property
    def text(self) -> str:
        charset = self.headers.get_content_charset() or "utf-8"
        try:
            return self.body.decode(charset, "replace")
        except LookupError:  # a charset Python does not know
            return self.body.decode("utf-8", "replace")


@dataclass(frozen=True)
class _Proxy:
    host: str
    port: int
    headers: dict[str, str]  # Proxy-Authorization, when the proxy URL carries credentials


class JsonTransport:
    """POSTs JSON to one URL. Thread-safe: a call takes a free kept-alive connection or opens one."""

    def __init__(
        self, url: str, *, connect_timeout: float, timeout: float, environ: Mapping[str, str]
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.url = url
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self._parts = parts
        self._tls = parts.scheme == "https"
        self._port = parts.port or (443 if self._tls else 80)
        self._proxy = _proxy_for(parts, environ)
        self._environ = environ
        self._context: ssl.SSLContext | None = None  # built at the first https connection
        self._idle: list[http.client.HTTPConnection] = []  # kept alive, free for the next call
        self._idle_lock = threading.Lock()
        # Through a plain-HTTP proxy the request line names the whole URL; otherwise only its path.
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._target = url if self._proxy is not None and not self._tls else path

    def post(self, payload: Any, headers: Mapping[str, str]) -> HttpReply:
        """Send `payload` as JSON; return the reply whatever its status. Raises TransportError."""
        body = json.dumps(payload, allow_nan=False).encode("utf-8")
        sent = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"evalgate/{__version__}",
            **headers,
        }
        if self._proxy is not None and not self._tls:
            sent.update(self._proxy.headers)
        connection = self._checkout()
        try:
            connection.request("POST", self._target, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read()
        except TimeoutError:
            connection.close()
            raise TransportError("timeout") from None
        except (ConnectionError, http.client.RemoteDisconnected) as error:
            connection.close()
            raise TransportError("closed", str(error)) from None
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            raise TransportError("failed", f"{type(error).__name__}: {error}") from None
        if response.will_close:
            connection.close()
        else:
            with self._idle_lock:
                self._idle.append(connection)
        return HttpReply(response.status, response.headers, data)

    def _checkout(self) -> http.client.HTTPConnection:
        """The connection used last that is still open, or a new one."""
        while True:
            with self._idle_lock:
                if not self._idle:
                    break
                connection = self._idle.pop()
            if connection.sock is not None and not _closed_by_peer(connection.sock):
                return connection
            connection.close()
        return self._connect()

    def _connect(self) -> http.client.HTTPConnection:
        proxy = self._proxy
        host, port = (proxy.host, proxy.port) if proxy else (self._parts.hostname, self._port)
        assert host is not None
        connection: http.client.HTTPConnection
        if self._tls:
            connection = http.client.HTTPSConnection(
                host, port, timeout=self.connect_timeout, context=self._tls_context()
            )
            if self._proxy is not None:
                connection.set_tunnel(self._parts.hostname or "", self._port, headers=self._proxy.headers)
        else:
            connection = http.client.HTTPConnection(host, port, timeout=self.connect_timeout)
        try:
            connection.connect()
        except TimeoutError:
            raise TransportError("connect_timeout") from None
        except ConnectionRefusedError:
            raise TransportError("refused") from None
        except OSError as error:
            connection.close()
            if isinstance(error, socket.gaierror):
                raise TransportError("host", str(error)) from None
            raise TransportError("failed", _tls_reason(error) or f"{type(error).__name__}: {error}") from None
        assert connection.sock is not None
        connection.sock.settimeout(self.timeout)  # from here on, the wait for each part of the reply
        return connection

    def _tls_context(self) -> ssl.SSLContext:
        if self._context is None:
            self._context = ssl.create_default_context(cafile=_ca_bundle(self._environ))
        return self._context


def _closed_by_peer(sock: socket.socket) -> bool:
    """An idle kept-alive connection that reads as ready has been closed by the server (or holds bytes
    nobody asked for): either way it cannot carry the next request."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _tls_reason(error: OSError) -> str | None:
    """ssl's short reason (CERTIFICATE_VERIFY_FAILED, ...) for a TLS failure, else None."""
    reason = getattr(error, "reason", None)
    return f"TLS failed ({reason})" if isinstance(error, ssl.SSLError) and reason else None


def _ca_bundle(environ: Mapping[str, str]) -> str | None:
    """The CA file requests would verify with: its environment overrides, else certifi's bundle."""
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        if environ.get(name):
            return environ[name]
    try:
        import certifi
    except ImportError:  # the system's store, as ssl's default context has it
        return None
    return str(certifi.where())


def _proxy_for(parts: SplitResult, environ: Mapping[str, str]) -> _Proxy | None:
    """The proxy the environment names for this URL, unless NO_PROXY exempts its host."""
    proxies: dict[str, str] = {}
    for name, value in environ.items():  # lower case wins over upper, as urllib and requests have it
        lowered = name.lower()
        if lowered.endswith("_proxy") and value and (name == lowered or lowered not in proxies):
            proxies[lowered] = value
    url = proxies.get(f"{parts.scheme}_proxy") or proxies.get("all_proxy")
    if not url:
        return None
    # urllib's NO_PROXY matching (hosts, domain suffixes, ports, `*`), given our environment rather
    # than the process's; in the standard library since Python 2, though typeshed does not list it.
    from urllib.request import proxy_bypass_environment  # type: ignore[attr-defined]

    bypass = {"no": proxies["no_proxy"]} if "no_proxy" in proxies else {}
    if bypass and proxy_bypass_environment(parts.netloc, bypass):
        return None
    proxy = urlsplit(url if "://" in url else f"http://{url}")
    if proxy.scheme != "http" or not proxy.hostname:
        raise ValueError(f"proxy {url!r}: only http:// proxies are supported (a CONNECT tunnel carries TLS)")
    headers = {}
    if proxy.username is not None:
        import base64

        credentials = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}".encode()
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(credentials).decode("ascii")
    return _Proxy(proxy.hostname, proxy.port or 80, headers)
