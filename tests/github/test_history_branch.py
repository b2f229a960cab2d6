"""The score history kept on a branch: entrypoint.py run as the container runs it (a subprocess with a
runner's environment, a real git workspace, the real scripted judge as a command backend) against the
loopback GitHub API, whose contents and git refs endpoints hold state and answer a stale sha with 409.
Every request body (and every contents/refs response) is validated against GitHub's OpenAPI description.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalgate.github.api import GitHubClient, RetryPolicy
from evalgate.github.history_store import (
    WRITE_ATTEMPTS,
    BranchHistory,
    HistoryBranchSettings,
    keep_history_on_branch,
)
from evalgate.results import Report, RubricRef
from evalgate.rubric import load_rubric
from evalgate.validity.history import parse_history
from tests.support.github_api import CONTENTS, GIT_REFS, FakeGitHub
from tests.support.gitrepo import GitRepo
from tests.support.judge_user import judge_python, open_to_judges
from tests.support.timings import without_timings

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "entrypoint.py"
SCRIPTED_JUDGE = ROOT / "tests" / "fixtures" / "canary" / "scripted_judge.py"
TOKEN = "ghs_historyJobToken0123456789abcdef"
REPOSITORY = "octo-org/research"
BRANCH = "evalgate-history"
HISTORY = "evalgate/history.jsonl"
ITEM = "Research/completed/2026-12-01-item.md"


def _item(quality: int) -> str:
    """A research item far from the template (its deterministic scores stay the same from run to run);
    the marker sets what the scripted judge gives every judged dimension."""
    return (
        "---\ntitle: Does caching judge replies change verdicts?\n---\n"
        "# Does caching judge replies change verdicts?\n\n## Research Question\n\n"
        f"Does caching LLM replies change CI verdicts? quality-{quality}\n\n"
        "## Findings\n\n### Executive Summary\n\nIt depends.\n"
    )


def _action_defaults() -> dict[str, str]:
    inputs = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    return {
        f"INPUT_{name.upper()}": TOKEN
        if str(spec.get("default", "")) == "${{ github.token }}"
        else str(spec.get("default", ""))
        for name, spec in inputs.items()
    }


@dataclass
class ActionRun:
    returncode: int
    stdout: str
    summary: str
    results: dict[str, Any] | None

    @property
    def notices(self) -> list[str]:
        return [line for line in self.stdout.splitlines() if line.startswith("::notice::evalgate history")]


class Workspace:
    """One checked-out repository; each run commits the item at a quality and evaluates it."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.repo = GitRepo.init(tmp_path / "workspace")
        judged = [d.id for d in load_rubric("research-loop").judged]
        spec = {f"quality-{q}": dict.fromkeys(judged, q) for q in range(1, 6)}
        (tmp_path / "judge.json").write_text(json.dumps(spec))
        self.judge = "command:" + shlex.join(
            [judge_python(), str(SCRIPTED_JUDGE), str(tmp_path / "judge.json")]
        )
        open_to_judges(tmp_path)  # the action runs its judges as nobody when it is root
        self.runs = 0

    def commit(self, quality: int) -> str:
        return self.repo.commit(f"quality {quality}", {ITEM: _item(quality)})

    def start(
        self, api_url: str, run_id: str, inputs: Mapping[str, str] | None = None
    ) -> tuple[subprocess.Popen[str], Path]:
        self.runs += 1
        runner = self.tmp / f"runner-{self.runs}"
        (runner / "home").mkdir(parents=True)
        event = runner / "event.json"
        event.write_text(json.dumps({"inputs": {}, "ref": "refs/heads/main", "workflow": "w.yml"}))
        (runner / "summary.md").write_text("")
        env = {
            "PATH": os.environ["PATH"],
            "PYTHONPATH": str(ROOT),
            "HOME": str(runner / "home"),
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "workflow_dispatch",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_WORKSPACE": str(self.repo.path),
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_SHA": self.repo.head(),
            "GITHUB_API_URL": api_url,
            "GITHUB_RUN_ID": run_id,
            "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
            "GITHUB_OUTPUT": str(runner / "output"),
            "RUNNER_TEMP": str(runner),
            **_action_defaults(),
            "INPUT_FILES": ITEM,
            "INPUT_JUDGES": self.judge,
            "INPUT_CACHE-DIR": str(runner / "cache"),
            "INPUT_HISTORY-BRANCH": BRANCH,
            **{f"INPUT_{k.upper()}": v for k, v in (inputs or {}).items()},
        }
        proc = subprocess.Popen(
            [sys.executable, str(ENTRYPOINT)],
            cwd=self.repo.path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        return proc, runner

    def finish(self, proc: subprocess.Popen[str], runner: Path) -> ActionRun:
        stdout, _ = proc.communicate(timeout=120)
        results_path = self.repo.path / "evalgate-results.json"
        results = json.loads(results_path.read_text()) if results_path.exists() else None
        return ActionRun(proc.returncode, stdout, (runner / "summary.md").read_text(), results)

    def run(self, api_url: str, run_id: str, inputs: Mapping[str, str] | None = None) -> ActionRun:
        return self.finish(*self.start(api_url, run_id, inputs))


@pytest.fixture
def github(github_contract: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(github_contract) as server:
        yield server
        assert server.violations == []


def _stored(github: FakeGitHub) -> list[dict[str, Any]]:
    text = github.file_text(BRANCH, HISTORY)
    return [json.loads(line) for line in (text or "").splitlines()]


def test_five_runs_on_a_worsening_item_leave_five_records_and_the_third_alerts(
    tmp_path: Path, github: FakeGitHub
) -> None:
    ws = Workspace(tmp_path)
    runs = []
    for number, quality in enumerate((5, 4, 3, 2, 1), 1):
        commit = ws.commit(quality)
        run = ws.run(github.url, f"10{number}")
        assert run.results is not None, run.stdout
        assert run.returncode == (0 if run.results["summary"]["verdict"] == "PASS" else 1)
        runs.append((commit, run))

    records = _stored(github)
    assert [r["run"] for r in records] == ["101", "102", "103", "104", "105"]
    assert [r["commit"] for r in records] == [commit for commit, _ in runs]
    assert all(r["path"] == ITEM and r["rubric"] == "research-loop" and r["rubric_version"] for r in records)
    means = [r["mean"] for r in records]
    assert means == sorted(means, reverse=True) and means[0] - means[2] >= 0.5

    # the first run created the branch from the commit it evaluated, then the file
    (create,) = github.calls_to("POST", GIT_REFS)
    assert create.body == {"ref": f"refs/heads/{BRANCH}", "sha": runs[0][0]}
    assert any(f"created branch '{BRANCH}'" in n for n in runs[0][1].notices)
    assert len(github.commits) == 5 and all(c["branch"] == BRANCH for c in github.commits)

    first, second, third = (run for _, run in runs[:3])
    assert "Score history" not in first.summary  # nothing to trend after one run
    assert "```mermaid" in second.summary and "alert" not in second.summary
    assert "Pass rate per criterion" in second.summary
    assert "**alert:**" in third.summary and ITEM in third.summary
    assert any(
        line.startswith("::warning::evalgate trend alert: " + ITEM) for line in third.stdout.splitlines()
    )
    assert "mean fell by" in runs[4][1].summary


def test_two_runs_started_together_both_land(tmp_path: Path, github: FakeGitHub) -> None:
    ws = Workspace(tmp_path)
    ws.commit(4)
    ws.run(github.url, "200")  # the branch and the file exist; the pair below race on the file's sha
    ws.commit(3)
    github.gather_reads(2)  # both runs read the file before either writes: the same sha
    started = [ws.start(github.url, run_id) for run_id in ("201", "202")]
    pair = [ws.finish(proc, runner) for proc, runner in started]

    assert all(run.notices == [] for run in pair), [run.stdout for run in pair]
    assert sorted(r["run"] for r in _stored(github)) == ["200", "201", "202"]
    assert len(github.commits) == 3  # one write landed per run ...
    puts = github.calls_to("PUT", CONTENTS)
    assert len(puts) == 4 and puts[1].body["sha"] == puts[2].body["sha"]  # ... after one stale write


def test_a_stale_sha_is_read_again_and_retried(github: FakeGitHub) -> None:
    """Deterministically: another writer lands between this run's read and its write."""
    github.seed_file(BRANCH, HISTORY, b'{"seed": 1}\n')
    client = GitHubClient(TOKEN, github.url, RetryPolicy(attempts=1))
    mine, theirs = (
        BranchHistory(client, REPOSITORY, BRANCH, sleep=lambda _: None),
        BranchHistory(client, REPOSITORY, BRANCH),
    )
    read = mine.read
    raced = []

    def read_then_race() -> tuple[str, str | None]:
        text, sha = read()
        if not raced:
            raced.append(theirs.append(['{"theirs": 1}\n'], 100, "theirs"))
        return text, sha

    mine.read = read_then_race  # type: ignore[method-assign]
    stored = mine.append(['{"mine": 1}\n'], 100, "mine")

    assert stored.attempts == 2
    assert github.file_text(BRANCH, HISTORY) == '{"seed": 1}\n{"theirs": 1}\n{"mine": 1}\n'
    statuses = [c.body.get("sha") for c in github.calls_to("PUT", CONTENTS)]
    assert len(statuses) == 3 and statuses[0] == statuses[1] != statuses[2]


def test_the_file_is_cut_to_the_last_records_kept(github: FakeGitHub) -> None:
    github.seed_file(BRANCH, HISTORY, "".join(f'{{"n": {n}}}\n' for n in range(10)).encode())
    store = BranchHistory(GitHubClient(TOKEN, github.url), REPOSITORY, BRANCH)
    store.append(['{"n": 10}\n', '{"n": 11}\n'], 4, "cut")
    assert [json.loads(line)["n"] for line in (github.file_text(BRANCH, HISTORY) or "").splitlines()] == [
        8,
        9,
        10,
        11,
    ]


# ------------------------------------------------------------------ faults: notices, the verdict unchanged


def _baseline(tmp_path: Path, github: FakeGitHub) -> tuple[Workspace, ActionRun]:
    ws = Workspace(tmp_path)
    ws.commit(3)
    run = ws.run(github.url, "300", {"history-branch": ""})
    assert run.results is not None and run.notices == []
    return ws, run


def _same_outcome(run: ActionRun, baseline: ActionRun) -> None:
    """The results file and the exit code are those of the same run without history."""
    assert run.results is not None and baseline.results is not None
    assert run.returncode == baseline.returncode == 1  # the item fails its deterministic checks
    assert without_timings(run.results) == without_timings(baseline.results)


@pytest.mark.parametrize("method", ["PUT", "GET"])  # a read-only token; a token without contents at all
def test_a_403_on_contents_skips_history_with_a_notice(
    tmp_path: Path, github: FakeGitHub, method: str
) -> None:
    ws, baseline = _baseline(tmp_path, github)
    github.seed_file(BRANCH, HISTORY, b"")
    github.fault(method, CONTENTS, 403)
    run = ws.run(github.url, "301")
    _same_outcome(run, baseline)
    (notice,) = run.notices
    assert "HTTP 403" in notice and "verdict and results are unaffected" in notice
    assert github.file_text(BRANCH, HISTORY) == ""
    assert TOKEN not in run.stdout.replace(f"::add-mask::{TOKEN}", "")


def test_a_conflict_storm_beyond_the_bound_is_a_notice(tmp_path: Path, github: FakeGitHub) -> None:
    ws, baseline = _baseline(tmp_path, github)
    github.seed_file(BRANCH, HISTORY, b"")
    github.fault("PUT", CONTENTS, 409, times=WRITE_ATTEMPTS + 5)
    run = ws.run(github.url, "302")
    _same_outcome(run, baseline)
    (notice,) = run.notices
    assert f"{WRITE_ATTEMPTS} writes met a newer file" in notice
    assert len(github.calls_to("PUT", CONTENTS)) == WRITE_ATTEMPTS  # bounded: no sixth write
    assert github.file_text(BRANCH, HISTORY) == ""


def test_the_api_down_is_a_notice_and_the_results_stand(tmp_path: Path, github: FakeGitHub) -> None:
    ws, baseline = _baseline(tmp_path, github)
    run = ws.run("http://127.0.0.1:9", "303")  # nothing listens there
    _same_outcome(run, baseline)
    (notice,) = run.notices
    assert "unreachable" in notice
    assert (ws.repo.path / "evalgate-results.json").exists()


def test_a_fork_pull_request_is_skipped_without_a_call(tmp_path: Path, github: FakeGitHub) -> None:
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps({"pull_request": {"head": {"repo": {"full_name": "someone/research"}}}, "repository": {}})
    )
    env = {"GITHUB_REPOSITORY": REPOSITORY, "GITHUB_EVENT_PATH": str(event), "GITHUB_API_URL": github.url}
    out = io.StringIO()
    report = Report(RubricRef("research-loop", "v1"), ())
    assert keep_history_on_branch(report, env, out, HistoryBranchSettings(BRANCH), TOKEN) is None
    assert "fork" in out.getvalue() and out.getvalue().startswith("::notice::")
    assert github.calls == []


def test_history_records_read_back_as_records(github: FakeGitHub) -> None:
    """What the store writes is the local history format: `history show` and jq read it as is."""
    github.seed_file(BRANCH, HISTORY, b"")
    line = (
        json.dumps(
            {
                "timestamp": "2026-12-01T00:00:00Z",
                "path": "a.md",
                "rubric": "r",
                "rubric_version": "1",
                "verdict": "PASS",
                "mean": 4.0,
                "scores": {"x": 4},
                "run": "7",
                "commit": "c" * 40,
            }
        )
        + "\n"
    )
    stored = BranchHistory(GitHubClient(TOKEN, github.url), REPOSITORY, BRANCH).append([line], 10, "m")
    assert stored.records == tuple(parse_history(line, "x"))
    assert stored.records[0].run == "7" and stored.records[0].commit == "c" * 40


def test_a_run_that_evaluated_nothing_writes_nothing(github: FakeGitHub) -> None:
    env = {"GITHUB_REPOSITORY": REPOSITORY, "GITHUB_API_URL": github.url, "GITHUB_SHA": "a" * 40}
    out = io.StringIO()
    report = Report(RubricRef("research-loop", "v1"), ())
    assert keep_history_on_branch(report, env, out, HistoryBranchSettings(BRANCH), TOKEN) is None
    assert out.getvalue() == "" and github.calls == []


def test_history_keep_in_the_config_cuts_the_file(tmp_path: Path, github: FakeGitHub) -> None:
    github.seed_file(BRANCH, HISTORY, "".join(f'{{"old": {n}}}\n' for n in range(5)).encode())
    ws = Workspace(tmp_path)
    ws.repo.commit("config", {".evalgate.yml": "history_keep: 3\n", ITEM: _item(4)})
    run = ws.run(github.url, "400")
    assert run.notices == [], run.stdout
    lines = (github.file_text(BRANCH, HISTORY) or "").splitlines()
    assert [json.loads(line).get("old") for line in lines[:2]] == [3, 4]  # the oldest three went
    assert len(lines) == 3 and json.loads(lines[-1])["run"] == "400"


def test_the_fake_holds_contents_and_refs_to_the_contract(github_contract: Path) -> None:
    """The fake itself: a PUT body or a contents response that breaks the schema is a violation."""
    with FakeGitHub(github_contract) as fake:
        fake.seed_file(BRANCH, HISTORY, b"x\n")
        client = GitHubClient(TOKEN, fake.url, RetryPolicy(attempts=1))
        bad = client.request("PUT", f"/repos/{REPOSITORY}/contents/{HISTORY}", json={"content": "eA=="})
        assert bad.status == 422 and any("'message' is a required property" in v for v in fake.violations)
        assert fake.file_text(BRANCH, HISTORY) == "x\n"
        assert fake.contract.response_violations(
            "GET", CONTENTS, 200, {"type": "file"}
        )  # sha, content ... missing
        got = client.request("GET", f"/repos/{REPOSITORY}/contents/{HISTORY}", params={"ref": BRANCH})
        assert got.ok and fake.contract.response_violations("GET", CONTENTS, 200, got.data) == []
