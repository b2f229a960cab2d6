"""The REST client against the loopback GitHub: headers, retries, rate limits, pagination, API down."""

from __future__ import annotations

from pathlib import Path

from evalgate.github.api import GitHubClient
from tests.support.github_api import FakeGitHub
from tests.support.reports import FAST_RETRY, client_for

CHECK_RUNS = "/repos/{owner}/{repo}/check-runs"
RUN_BODY = {"name": "evalgate", "head_sha": "a" * 40}


def test_headers_sent_and_contract_clean(fake_github: FakeGitHub) -> None:
    response = client_for(fake_github).request("POST", "/repos/o/r/check-runs", json=RUN_BODY)
    assert response.ok and response.status == 201
    call = fake_github.calls[0]
    assert call.headers["authorization"] == "Bearer ghs_test_token"
    assert call.headers["accept"] == "application/vnd.github+json"
    assert call.headers["x-github-api-version"] == "2022-11-28"
    assert call.headers["user-agent"].startswith("evalgate")
    assert fake_github.violations == []


def test_fake_rejects_a_body_that_breaks_github_schema(fake_github: FakeGitHub) -> None:
    bad = {"name": "evalgate", "head_sha": "a" * 40, "output": {"title": "t", "summary": "x" * 70000}}
    response = client_for(fake_github).request("POST", "/repos/o/r/check-runs", json=bad)
    assert response.status == 422 and not response.ok
    assert any("summary" in v for v in fake_github.violations)


def test_500_then_success_is_retried(fake_github: FakeGitHub) -> None:
    fake_github.fault("POST", CHECK_RUNS, 500, times=1)
    waits: list[float] = []
    response = client_for(fake_github, waits).request("POST", "/repos/o/r/check-runs", json=RUN_BODY)
    assert response.ok and response.attempts == 2
    assert len(fake_github.calls_to("POST", CHECK_RUNS)) == 2 and len(waits) == 1


def test_429_honours_retry_after_capped(fake_github: FakeGitHub) -> None:
    fake_github.fault("POST", CHECK_RUNS, 429, times=1, headers={"Retry-After": "7"})
    waits: list[float] = []
    response = client_for(fake_github, waits).request("POST", "/repos/o/r/check-runs", json=RUN_BODY)
    assert response.ok
    assert waits == [FAST_RETRY.max_wait]  # 7 s asked, capped


def test_429_retry_after_below_cap_is_used_as_is(fake_github: FakeGitHub) -> None:
    fake_github.fault("POST", CHECK_RUNS, 429, times=1, headers={"Retry-After": "0"})
    waits: list[float] = []
    assert client_for(fake_github, waits).request("POST", "/repos/o/r/check-runs", json=RUN_BODY).ok
    assert waits == [0.0]


def test_secondary_rate_limit_403_is_retried_but_permission_403_is_not(fake_github: FakeGitHub) -> None:
    fake_github.fault("POST", CHECK_RUNS, 403, times=1, headers={"Retry-After": "0"})
    assert client_for(fake_github).request("POST", "/repos/o/r/check-runs", json=RUN_BODY).ok
    fake_github.fault("POST", CHECK_RUNS, 403, times=5)
    denied = client_for(fake_github).request("POST", "/repos/o/r/check-runs", json=RUN_BODY)
    assert denied.status == 403 and denied.attempts == 1 and "403" in (denied.error or "")


def test_persistent_500_gives_up_after_bounded_attempts(fake_github: FakeGitHub) -> None:
    fake_github.fault("POST", CHECK_RUNS, 502, times=10)
    response = client_for(fake_github).request("POST", "/repos/o/r/check-runs", json=RUN_BODY)
    assert not response.ok and response.status == 502
    assert len(fake_github.calls_to("POST", CHECK_RUNS)) == FAST_RETRY.attempts


def test_api_down_is_an_error_value_without_the_token(github_contract: Path) -> None:
    fake = FakeGitHub(github_contract)
    url = fake.url
    fake.stop()  # never started serving: connection refused
    client = GitHubClient("ghs_secret_value", url, FAST_RETRY, sleep=lambda _s: None)
    response = client.request("POST", "/repos/o/r/check-runs", json=RUN_BODY)
    assert response.status == 0 and "unreachable" in (response.error or "")
    assert "ghs_secret_value" not in (response.error or "") and "ghs_secret_value" not in repr(client)


def test_enterprise_server_prefix_and_pagination(github_contract: Path) -> None:
    with FakeGitHub(github_contract, url_prefix="/api/v3", per_page=30) as fake:
        for i in range(65):
            fake.add_comment(7, f"comment {i}")
        fake.add_comment(8, "other PR")
        listing = client_for(fake).paginate("/repos/o/r/issues/7/comments")
        assert listing.ok and [c["body"] for c in listing.data] == [f"comment {i}" for i in range(65)]
        assert len(fake.calls) == 3 and all(c.route for c in fake.calls)
        assert fake.violations == []
