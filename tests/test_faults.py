"""Faults: a judge that times out, crashes, talks garbage or leaves a dimension out; a GitHub API that
answers 403/404/422/429/500 or is gone; a results path that cannot be written. Each is handled with
a clear message, the verdict stays the gate's, and the results file exists before anything is posted.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import evalgate.github.action
from evalgate.cli import main
from evalgate.github.api import RetryPolicy
from evalgate.rubric import load_rubric
from tests.checks.research_item import research_item
from tests.support.github_api import FakeGitHub
from tests.support.gitrepo import GitRepo

JUDGED = [d.id for d in load_rubric("research-loop").judged]
MISSING = JUDGED[-1]  # the dimension the partial judge leaves out, every time
FAST_RETRY = RetryPolicy(attempts=2, backoff=0.001, max_wait=0.05, timeout=5.0)
CHECK_RUNS = "/repos/{owner}/{repo}/check-runs"
STATUSES = "/repos/{owner}/{repo}/statuses/{sha}"
ITEM = "Research/completed/2026-12-01-item.md"

# A judge the test controls: `judge.py MODE LOG`; every call is appended to LOG.
JUDGE = """
import sys, time
mode, log = sys.argv[1], sys.argv[2]
prompt = sys.stdin.read()
with open(log, "a") as fh:
    fh.write("repair\\n" if "could not be used" in prompt or "Your previous reply" in prompt else "call\\n")
ids = {ids!r}
if mode == "timeout":
    time.sleep(30)
if mode == "crash":
    print("segfault in the judge", file=sys.stderr)
    sys.exit(3)
if mode == "garbage":
    sys.stdout.buffer.write(bytes(range(1, 256)) * 4)
    sys.exit(0)
rows = [f'| {{i}} | 5 | "Content-addressed digests" | fine |' for i in ids if i != {missing!r}]
print("| dimension | score | evidence | reasoning |\\n| --- | --- | --- | --- |\\n" + "\\n".join(rows))
print("\\nOVERALL: PASS")
"""


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory with one research item that passes every deterministic check, and the judge."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "item.md").write_text(research_item())
    (tmp_path / "judge.py").write_text(JUDGE.format(ids=JUDGED, missing=MISSING))
    return tmp_path


def _check(workdir: Path, mode: str, *extra: str) -> tuple[int, dict[str, Any], list[str]]:
    log = workdir / f"{mode}.log"
    spec = f"command:{shlex.join([sys.executable, str(workdir / 'judge.py'), mode, str(log)])}"
    output = workdir / "report.json"
    args = ["check", "item.md", "--judge", spec, "--no-cache", "--format", "json", "--output", str(output)]
    # a judge that sleeps is stopped after 1 s; every other answers within a minute however loaded
    # the machine (a Python judge's start took more than 1 s under load)
    code = main([*args, "--judge-timeout", "1" if mode == "timeout" else "60", *extra])
    calls = log.read_text().split() if log.exists() else []
    return code, json.loads(output.read_text())["results"][0], calls


def _judged(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["id"]: d for d in result["dimensions"] if d["kind"] == "judge"}


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("timeout", "timed out after 1 s"),
        ("crash", "exit code 3: segfault in the judge"),
        ("garbage", "unusable judge reply"),
    ],
)
def test_a_failing_judge_errors_every_judged_dimension_and_fails_the_file(
    workdir: Path, mode: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result, calls = _check(workdir, mode)
    judged = _judged(result)
    assert all(d["status"] == "error" and reason in d["error"] for d in judged.values()), judged
    assert result["verdict"] == "FAIL" and code == 1
    assert all(f"{d} could not be evaluated" in " ".join(result["reasons"]) for d in JUDGED)
    if mode == "garbage":  # the reply arrived but was unusable: exactly one repair was asked for
        assert calls == ["call", "repair"]
    assert "Traceback" not in capsys.readouterr().err


def test_a_failing_judge_under_skip_leaves_the_verdict_to_the_rest(workdir: Path) -> None:
    code, result, _ = _check(workdir, "crash", "--on-judge-error", "skip")
    assert result["verdict"] == "PASS" and code == 0
    assert all(d["status"] == "skipped" and "exit code 3" in d["error"] for d in _judged(result).values())


@pytest.mark.parametrize(
    ("policy", "verdict", "status"), [("fail", "FAIL", "error"), ("skip", "PASS", "skipped")]
)
def test_a_dimension_missing_after_the_repair_is_that_dimension_s_error(
    workdir: Path, policy: str, verdict: str, status: str
) -> None:
    code, result, calls = _check(workdir, "partial", "--on-judge-error", policy)
    assert calls == ["call", "repair"]  # one repair, then give up on that dimension
    judged = _judged(result)
    assert judged[MISSING]["status"] == status and "no score given" in judged[MISSING]["error"]
    assert all(judged[d]["score"] == 5 for d in JUDGED if d != MISSING)
    assert result["verdict"] == verdict and code == (0 if verdict == "PASS" else 1)


# ------------------------------------------------------------------ results paths


def test_disk_full_output_is_a_clear_error_and_the_report_still_reaches_stdout(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", "item.md", "--format", "json", "--output", "/dev/full"])
    out = capsys.readouterr()
    assert code == 2
    assert out.err.strip() == "evalgate: cannot write /dev/full: No space left on device"
    assert json.loads(out.out)["results"][0]["verdict"] == "PASS"


def test_output_under_a_file_is_a_clear_error(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "item.md", "--output", "item.md/report.txt"])
    assert code == 2
    assert "evalgate: cannot write item.md/report.txt: Not a directory" in capsys.readouterr().err


# ------------------------------------------------------------------ the action against a failing API


def _action_env(tmp_path: Path, api_url: str, document: str) -> dict[str, str]:
    """A workflow_dispatch run over one committed item, as the runner would set it up."""
    repo = GitRepo.init(tmp_path / "workspace")
    head = repo.commit("item", {ITEM: document})
    runner = tmp_path / "runner"
    runner.mkdir()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"inputs": {}, "ref": "refs/heads/main", "workflow": "w.yml"}))
    for name in ("output", "summary.md"):
        (runner / name).write_text("")
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_EVENT_NAME": "workflow_dispatch",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_WORKSPACE": str(repo.path),
        "GITHUB_REPOSITORY": "octo-org/research",
        "GITHUB_SHA": head,
        "GITHUB_API_URL": api_url,
        "GITHUB_OUTPUT": str(runner / "output"),
        "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
        "RUNNER_TEMP": str(runner),
        "INPUT_GITHUB-TOKEN": "ghs_faults_token",
        "INPUT_COMMENT": "never",
    }


@pytest.fixture
def action(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Run the action in process with fast API retries; records, at each publish, whether the
    results file was already on disk."""
    real_context, real_publish = evalgate.github.action.context_from_env, evalgate.github.action.publish
    seen: list[bool] = []

    def context(env: Any, **overrides: Any) -> Any:
        return real_context(env, retry=FAST_RETRY, **overrides)

    def publish(report: Any, ctx: Any, out: Any, *more: Any) -> Any:
        seen.append(Path(ctx.results_file or "/nonexistent").is_file())
        return real_publish(report, ctx, out, *more)

    monkeypatch.setattr(evalgate.github.action, "context_from_env", context)
    monkeypatch.setattr(evalgate.github.action, "publish", publish)
    with monkeypatch.context() as patch:
        patch.chdir(Path.cwd())  # the action chdirs into the workspace; put it back afterwards
        yield seen


FAULTS = [403, 404, 422, 429, 500]


@pytest.mark.parametrize("status", FAULTS)
@pytest.mark.parametrize("document", ["pass", "fail"])
def test_api_faults_lose_nothing_and_the_exit_code_is_the_verdict(
    status: int, document: str, github_contract: Path, tmp_path: Path, action: list[bool]
) -> None:
    text = research_item() if document == "pass" else "# Not a research item\n"
    retried = status >= 500 or status == 429
    # a plain 403 (a fork PR's read-only token) carries no Retry-After: it must not be retried
    headers = {"Retry-After": "0"} if retried else {}
    with FakeGitHub(github_contract) as fake:
        for route in (CHECK_RUNS, STATUSES):
            fake.fault("POST", route, status, times=10, headers=headers)
        env = _action_env(tmp_path, fake.url, text)
        out = io.StringIO()
        code = evalgate.github.action.main(env, out)
    assert action == [True]  # the results were on disk before the first call to the API
    results = json.loads((Path(env["GITHUB_WORKSPACE"]) / "evalgate-results.json").read_text())
    assert [r["path"] for r in results["results"]] == [ITEM]
    assert code == (0 if results["summary"]["verdict"] == "PASS" else 1)
    assert results["summary"]["verdict"] == ("PASS" if document == "pass" else "FAIL")
    log = out.getvalue()
    assert (
        f"::warning::evalgate could not publish: POST /repos/octo-org/research/check-runs: HTTP {status}"
        in log
    )
    assert f"HTTP {status}" in log.split("statuses", 1)[1]  # the status fallback failed as well
    assert len(fake.calls_to("POST", CHECK_RUNS)) == (FAST_RETRY.attempts if retried else 1)
    assert "ghs_faults_token" not in log.replace("::add-mask::ghs_faults_token", "")
    assert f"verdict={results['summary']['verdict']}" in Path(env["GITHUB_OUTPUT"]).read_text()


def test_a_dead_api_loses_nothing(github_contract: Path, tmp_path: Path, action: list[bool]) -> None:
    fake = FakeGitHub(github_contract)
    fake.stop()  # bound and closed: every connection is refused
    env = _action_env(tmp_path, fake.url, "# Not a research item\n")
    out = io.StringIO()
    code = evalgate.github.action.main(env, out)
    assert action == [True] and code == 1
    results = json.loads((Path(env["GITHUB_WORKSPACE"]) / "evalgate-results.json").read_text())
    assert results["summary"]["verdict"] == "FAIL"
    assert "GitHub API unreachable (ConnectionError)" in out.getvalue()
    assert "::error file=" in out.getvalue()  # annotations fell back to workflow commands


def test_an_unwritable_results_path_falls_back_then_fails_clearly(tmp_path: Path, action: list[bool]) -> None:
    env = _action_env(tmp_path, "http://127.0.0.1:9", research_item())
    env["INPUT_GITHUB-TOKEN"] = ""
    (Path(env["GITHUB_WORKSPACE"]) / "evalgate-results.json").mkdir()  # the workspace path is taken
    out = io.StringIO()
    assert evalgate.github.action.main(env, out) == 0
    assert (Path(env["RUNNER_TEMP"]) / "evalgate-results.json").is_file()  # written to RUNNER_TEMP
    (Path(env["RUNNER_TEMP"]) / "evalgate-results.json").unlink()
    (Path(env["RUNNER_TEMP"]) / "evalgate-results.json").mkdir()  # now both places are taken
    out = io.StringIO()
    assert evalgate.github.action.main(env, out) == 2
    assert (
        "::error title=evalgate configuration::evalgate: cannot write evalgate-results.json" in out.getvalue()
    )
