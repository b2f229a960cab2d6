"""Shared by the report and github tests: small hand-made reports, a loopback GitHub, golden snapshots."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from evalgate.github.api import GitHubClient, RetryPolicy
from evalgate.results import DimensionResult, FileResult, Finding, Report, RubricRef, Status, Verdict
from tests.support.github_api import FakeGitHub

SNAPSHOTS = Path(__file__).resolve().parents[1] / "report" / "snapshots"
# tiny waits: the retry logic runs for real, the suite stays fast
FAST_RETRY = RetryPolicy(attempts=3, backoff=0.001, max_wait=0.05, timeout=5.0)


def dim(
    dim_id: str, score: int | None, *findings: Finding, kind: str = "deterministic", **extra: object
) -> DimensionResult:
    status = Status.SCORED if score is not None else Status.SKIPPED
    return DimensionResult(dim_id, kind, extra.pop("status", status), score, tuple(findings), **extra)  # type: ignore[arg-type]


def sample_report() -> Report:
    """Three files: one passing, one failing with hostile text everywhere, one error."""
    passing = FileResult(
        "docs/research/good.md",
        Verdict.PASS,
        mean=4.5,
        dimensions=(dim("section_presence", 5), dim("acronym_expansion", 4), dim("epistemic_labeling", None)),
    )
    failing = FileResult(
        "docs/research/bad|name.md",
        Verdict.FAIL,
        mean=2.5,
        hard_failures=("acronym_expansion",),
        dimensions=(
            dim("section_presence", 4),
            dim(
                "acronym_expansion",
                1,
                Finding(12, "`LLM` used before `Large Language Model (LLM)`; ping @octocat"),
                Finding(40, "<script>alert(1)</script> | [link](http://x) 100%0A done"),
            ),
            dim(
                "key_finding_specificity",
                2,
                Finding(55, "vague finding", end_line=57),
                kind="judge",
                reasoning="Findings lack numbers.\nSee @org/team.",
            ),
            dim("epistemic_labeling", None),
        ),
    )
    broken = FileResult(
        "docs/research/broken.md",
        Verdict.ERROR,
        error="front matter is not valid YAML (line 3)",
        dimensions=(
            dim("claim_source_accuracy", None, status=Status.ERROR, error="judge timed out", kind="judge"),
        ),
    )
    return Report(
        RubricRef("research-loop", "abc123def456"), (passing, failing, broken), notes=("judge: stub",)
    )


def passing_report() -> Report:
    good = FileResult("docs/a.md", Verdict.PASS, mean=4.8, dimensions=(dim("section_presence", 5),))
    return Report(RubricRef("research-loop", "abc123def456"), (good,))


def many_findings_report(count: int) -> Report:
    findings = tuple(Finding(i + 1, f"acronym {i} not expanded") for i in range(count))
    result = FileResult(
        "docs/many.md",
        Verdict.FAIL,
        mean=1.0,
        hard_failures=("acronym_expansion",),
        dimensions=(dim("acronym_expansion", 1, *findings),),
    )
    return Report(RubricRef("research-loop", "abc123def456"), (result,))


def client_for(fake: FakeGitHub, waits: list[float] | None = None) -> GitHubClient:
    """A client of the fake with tiny retry waits; `waits` records each wait it asked for."""
    sleep = waits.append if waits is not None else (lambda _s: None)
    return GitHubClient("ghs_test_token", fake.url, FAST_RETRY, sleep=sleep)


def assert_snapshot(name: str, text: str) -> None:
    """Compare with tests/report/snapshots/NAME; EVALGATE_UPDATE_SNAPSHOTS=1 rewrites it."""
    path = SNAPSHOTS / name
    if os.environ.get("EVALGATE_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {name}; create it with EVALGATE_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} changed; review and re-run with EVALGATE_UPDATE_SNAPSHOTS=1"
    )


def posted(report: Report, contract: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The check run and the PR comment `publish` posts for `report` to a contract-checked loopback
    GitHub (every request valid against the contract)."""
    import io

    from evalgate.github.publish import context_from_env, publish

    with FakeGitHub(contract) as fake:
        env = {"GITHUB_API_URL": fake.url, "GITHUB_REPOSITORY": "octo/docs"}
        ctx = context_from_env(
            env, token="t", head_sha="c" * 40, pr_number=7, comment_mode="always", retry=FAST_RETRY
        )
        assert publish(report, ctx, io.StringIO()).ok
        [check] = fake.check_runs.values()
        [comment] = fake.comments.values()
        assert fake.violations == []
    return check, comment
