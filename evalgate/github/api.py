"""A small GitHub REST client: the right headers, bounded retries, and errors as values.

Reporting must never crash a run that has already decided its verdict, so every call returns an
`ApiResponse`; a failure (HTTP error, API down, bad JSON) is an `ApiResponse` with `error` set. The
token is sent only in the `Authorization` header and never appears in an error message.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported by the client itself: the action imports this module on every run and
    import requests  # posts only when it has a token (requests and urllib3 were ~0.1 s of its start)

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
USER_AGENT = "evalgate-reporter"
_NEXT_LINK = re.compile(r'<([^>]+)>;\s*rel="next"')


@dataclass(frozen=True)
class ApiResponse:
    """The outcome of one API call after retries: a status and JSON body, or an error message."""

    status: int  # 0 when no HTTP response arrived (connection refused, timeout)
    data: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    error: str | None = None
    attempts: int = 1

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry. Waits are capped so a hostile `Retry-After` cannot stall CI."""

    attempts: int = 4
    backoff: float = 1.0  # first wait when the server gives no Retry-After; doubles each time
    max_wait: float = 30.0
    timeout: float = 30.0


def _is_secondary_rate_limit(response: requests.Response) -> bool:
    # GitHub answers a secondary rate limit with 403 (sometimes 429) plus Retry-After or a zero
    # remaining quota; a plain permission 403 (fork PR token) has neither and must not be retried.
    if response.status_code != 403:
        return False
    return "Retry-After" in response.headers or response.headers.get("X-RateLimit-Remaining") == "0"


def _retryable(response: requests.Response) -> bool:
    return response.status_code >= 500 or response.status_code == 429 or _is_secondary_rate_limit(response)


def _wait_for(response: requests.Response | None, attempt: int, policy: RetryPolicy) -> float:
    wait = policy.backoff * (2**attempt)
    if response is not None:
        retry_after = response.headers.get("Retry-After", "")
        if retry_after.strip().isdigit():
            wait = float(retry_after)
        elif response.headers.get("X-RateLimit-Reset", "").isdigit():
            wait = float(response.headers["X-RateLimit-Reset"]) - time.time()
    return min(max(wait, 0.0), policy.max_wait)


def _message(response: requests.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(body, dict) and "message" in body:
        return str(body["message"])
    return str(body)[:200]


class GitHubClient:
    """Calls the REST API of github.com or a GitHub Enterprise Server (`GITHUB_API_URL`)."""

    def __init__(
        self,
        token: str,
        api_url: str = DEFAULT_API_URL,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        import requests

        self._session = requests.Session()
        self._session.headers.update(
            {
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": USER_AGENT,
            }
        )

    def __repr__(self) -> str:  # never show the token, even in a debugger or a log line
        return f"GitHubClient(api_url={self.api_url!r})"

    def request(
        self,
        method: str,
        path: str,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> ApiResponse:
        """One call with bounded retries on 5xx, 429, secondary rate limits and connection errors."""
        url = path if path.startswith(("http://", "https://")) else f"{self.api_url}{path}"
        import requests

        last_error = ""
        for attempt in range(self.retry.attempts):
            response: requests.Response | None = None
            try:
                response = self._session.request(
                    method, url, json=json, params=params, timeout=self.retry.timeout
                )
            except requests.RequestException as exc:
                # the exception text names the URL, never the headers, so it is safe to keep
                last_error = f"{method} {path}: GitHub API unreachable ({type(exc).__name__})"
            else:
                if response.status_code < 400:
                    return self._success(response, attempt + 1)
                last_error = f"{method} {path}: HTTP {response.status_code}: {_message(response)}"
                if not _retryable(response):
                    return ApiResponse(
                        response.status_code, None, dict(response.headers), last_error, attempt + 1
                    )
            if attempt + 1 < self.retry.attempts:
                self._sleep(_wait_for(response, attempt, self.retry))
        status = response.status_code if response is not None else 0
        return ApiResponse(status, None, {}, last_error, self.retry.attempts)

    @staticmethod
    def _success(response: requests.Response, attempts: int) -> ApiResponse:
        if not response.content:
            return ApiResponse(response.status_code, None, dict(response.headers), None, attempts)
        try:
            data = response.json()
        except ValueError:
            return ApiResponse(
                response.status_code, None, dict(response.headers), "response is not JSON", attempts
            )
        return ApiResponse(response.status_code, data, dict(response.headers), None, attempts)

    def paginate(
        self, path: str, params: Mapping[str, Any] | None = None, max_pages: int = 50
    ) -> ApiResponse:
        """GET every page of a list endpoint by following `Link: rel="next"`; `data` is the joined list."""
        items: list[Any] = []
        url: str | None = path
        query: Mapping[str, Any] | None = {"per_page": 100, **(params or {})}
        pages = 0
        while url and pages < max_pages:
            page = self.request("GET", url, params=query)
            if not page.ok:
                return page
            if isinstance(page.data, list):
                items.extend(page.data)
            match = _NEXT_LINK.search(page.headers.get("Link", ""))
            url = match.group(1) if match else None
            query = None  # the next link already carries the query
            pages += 1
        return ApiResponse(200, items)
