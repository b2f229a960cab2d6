"""A loopback stand-in for GitHub's API and Copilot's API as the real Copilot CLI calls them with a
token (not in offline mode): `COPILOT_DEBUG_GITHUB_API_URL` and `COPILOT_API_URL`, both of which the
CLI 1.0.102 reads, point it here. Every request gets the scripted refusal (a status and a body: text,
as Copilot's API sends its errors, e.g. "unauthorized: Personal Access Token does not have Copilot
Requests permission\n" in github/copilot-cli#46, or JSON), so the real binary meets the answers
GitHub gives a token it will not serve and prints its own errors for them. Requests are recorded
(method, path, Authorization header)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class CopilotApi:
    """Answers every request with `status` and `body`; `requests` lists what arrived."""

    def __init__(self, status: int, body: str | dict[str, Any]) -> None:
        self.status, self.body = status, body
        self.requests: list[tuple[str, str, str | None]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                api.requests.append((self.command, self.path, self.headers.get("Authorization")))
                text = isinstance(api.body, str)
                data = api.body.encode() if isinstance(api.body, str) else json.dumps(api.body).encode()
                self.send_response(api.status)
                self.send_header("Content-Type", "text/plain; charset=utf-8" if text else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def environment(self) -> dict[str, str]:
        """The variables that send the CLI here (its GitHub API and its Copilot API)."""
        return {"COPILOT_DEBUG_GITHUB_API_URL": self.url, "COPILOT_API_URL": self.url}

    def __enter__(self) -> CopilotApi:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
