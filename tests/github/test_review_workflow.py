"""docs/workflows/evalgate-review.yml, the research review done safely: its action step passes the
action's input checks and runs through entrypoint.py on a push and on a dispatch in a real repository
(the configuration docs/action.md shows, the items whose front matter says status: reviewing); its
verdict step decides the job from the results (the auto-pass, off by default); its review_count job
commits that key alone to a real remote."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalgate.config import parse_config
from evalgate.github.action import build_config, read_inputs
from tests.checks.review_item import review_item
from tests.github.test_entrypoint import Workspace, _event, _run_action
from tests.support.github_api import FakeGitHub
from tests.support.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "docs" / "workflows" / "evalgate-review.yml"
CONFIG_PATH = ".github/evalgate-review.yml"
READY = "Research/in-progress/2026-12-01-cache-eviction.md"
DRAFT = "Research/in-progress/2026-12-02-cache-sharding.md"
# the reviewing item holds an em-dash: the review fails it on remove-ai-slop
READY_TEXT = review_item(Analysis="Pinning costs storage — a small share.")
DRAFT_TEXT = review_item(front='title: "Sharding"\nstatus: in-progress')


def _workflow() -> dict[str, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    data["on"] = data.pop(True)
    return data


def _step(job: str, key: str, value: str) -> dict[str, Any]:
    return next(s for s in _workflow()["jobs"][job]["steps"] if s.get(key) == value)


def _config_text() -> str:
    text = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "select:" in b]
    return block


def _inputs(item_path: str) -> dict[str, str]:
    """The review step's `with:`, its expressions replaced as the runner would for a dispatch."""
    values = {"inputs.item_path": item_path, "secrets.COPILOT_GITHUB_TOKEN": "github_pat_copilot_x"}
    out = {}
    for name, value in _step("review", "id", "review")["with"].items():
        out[name] = re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: values[m.group(1)], str(value))
    return out


def test_the_review_step_passes_the_actions_input_checks() -> None:
    workflow = _workflow()
    assert set(workflow["on"]) == {"workflow_dispatch", "push"}
    assert workflow["on"]["push"]["paths"] == ["Research/in-progress/**"]
    with_ = _inputs(READY)
    inputs = read_inputs({f"INPUT_{k.upper()}": v for k, v in with_.items()} | {"INPUT_GITHUB-TOKEN": "t"})
    config = build_config(inputs, parse_config(_config_text(), CONFIG_PATH))
    assert (inputs.files, inputs.judges, inputs.comment) == (READY, ("copilot:gpt-5.4",), "never")
    assert config.rubric == "research-review" and config.judges == ("copilot:gpt-5.4",)
    assert config.select.front_matter == {"status": "reviewing"}
    assert config.paths == "Research/in-progress/**/*.md" and config.on_judge_error == "fail"
    # the judge's job holds no token that can write; the count job writes and runs no evalgate
    jobs = workflow["jobs"]
    assert jobs["review"]["permissions"] == {"contents": "read", "checks": "write"}
    assert jobs["review-count"]["permissions"] == {"contents": "write"}
    assert not any("evalgate" in s.get("uses", "") for s in jobs["review-count"]["steps"])
    assert "vars.EVALGATE_REVIEW_COUNT == 'true'" in jobs["review-count"]["if"]  # off by default
    assert workflow["env"]["AUTO_PASS_AFTER_ROUNDS"] == "${{ vars.EVALGATE_REVIEW_AUTO_PASS_AFTER || '0' }}"


def _review_workspace(tmp_path: Path) -> Workspace:
    repo = GitRepo.init(tmp_path / "workspace")
    base = repo.commit("base", {CONFIG_PATH: _config_text(), "README.md": "# r\n"})
    head = repo.commit("draft two items", {READY: READY_TEXT, DRAFT: DRAFT_TEXT})
    return Workspace(repo, base, head)


def _action(tmp_path: Path, events_dir: Path, github: FakeGitHub, event_name: str, item: str = "") -> Any:
    ws = _review_workspace(tmp_path)
    fixture = "push.4.json" if event_name == "push" else "workflow_dispatch.0.json"
    event = _event(events_dir, fixture, ws, tmp_path)
    inputs = {**_inputs(item), "judges": "", "copilot-token": ""}  # the deterministic part: no judge
    return ws, _run_action(tmp_path, ws, event_name, event, github.url, inputs=inputs)


def test_a_push_reviews_the_items_that_say_reviewing_and_names_the_others(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    _, run = _action(tmp_path, events_dir, github, "push")
    assert run.results is not None, run.stdout + run.stderr
    assert [r["path"] for r in run.results["results"]] == [READY]
    (skipped,) = run.results["not_evaluated"]
    assert skipped == {
        "path": DRAFT,
        "reason": "its front matter says status: in-progress; this run evaluates status: reviewing",
    }
    log = run.stdout.splitlines()
    at = log.index(f"REVIEW_TARGET: {READY}")
    block = log[at : log.index("OVERALL: FAIL", at) + 1]
    assert "remove-ai-slop: FAIL" in block
    line = READY_TEXT.split("\n").index("Pinning costs storage — a small share.") + 1
    assert any(entry.startswith(f"  VIOLATION: line {line}: an em-dash (U+2014)") for entry in block)
    assert "  alternative-explanations: NOT_EVALUATED" in block  # no judge in this test
    assert run.returncode == 1


def test_a_dispatched_item_is_reviewed_whatever_its_status(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    _, run = _action(tmp_path, events_dir, github, "workflow_dispatch", DRAFT)
    assert run.results is not None, run.stdout + run.stderr
    assert [(r["path"], r["verdict"]) for r in run.results["results"]] == [(DRAFT, "PASS")]
    assert "not_evaluated" not in run.results
    assert "OVERALL: PASS" in run.stdout.splitlines() and run.returncode == 0


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A step's `run:` as the runner runs it (bash -e), with the step's environment."""
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=cwd,
        env={"PATH": os.environ["PATH"], "HOME": str(cwd), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def _results(tmp_path: Path, verdicts: dict[str, str]) -> Path:
    path = tmp_path / "evalgate-results.json"
    results = [{"path": p, "verdict": v} for p, v in verdicts.items()]
    path.write_text(json.dumps({"results": results}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("count", "setting", "code", "said"),
    [
        (None, "0", 1, "FAIL (round 1)"),  # off: a failing item fails the job
        (1, "0", 1, "FAIL (round 2)"),
        (1, "2", 0, "FAIL, auto-passed (round 2, auto-pass from 2)"),  # the prompt's second round
        (None, "2", 1, "FAIL (round 1)"),  # the first round still fails
        (4, "2", 0, "FAIL, auto-passed (round 5, auto-pass from 2)"),
    ],
)
def test_the_verdict_step_fails_the_job_unless_the_auto_pass_applies(
    tmp_path: Path, count: int | None, setting: str, code: int, said: str
) -> None:
    item = tmp_path / "item.md"
    front = f"review_count: {count}\nstatus: reviewing" if count is not None else "status: reviewing"
    item.write_text(review_item(front=front), encoding="utf-8")
    output = tmp_path / "output"
    output.write_text("")
    script = _step("review", "id", "verdict")["run"]
    env = {
        "RESULTS": str(_results(tmp_path, {"item.md": "FAIL"})),
        "GITHUB_OUTPUT": str(output),
        "AUTO_PASS_AFTER_ROUNDS": setting,
    }
    proc = _bash(script, tmp_path, env)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert f"review: item.md: {said}" in proc.stdout.splitlines()
    assert output.read_text() == 'items=["item.md"]\n'


def test_the_verdict_step_fails_without_results_and_on_an_item_in_error(tmp_path: Path) -> None:
    output = tmp_path / "output"
    output.write_text("")
    script = _step("review", "id", "verdict")["run"]
    proc = _bash(
        script, tmp_path, {"RESULTS": "", "GITHUB_OUTPUT": str(output), "AUTO_PASS_AFTER_ROUNDS": "2"}
    )
    assert proc.returncode == 1 and "evalgate wrote no results" in proc.stdout
    results = _results(tmp_path, {"a.md": "ERROR", "b.md\n::error::x": "PASS"})
    env = {"RESULTS": str(results), "GITHUB_OUTPUT": str(output), "AUTO_PASS_AFTER_ROUNDS": "2"}
    proc = _bash(script, tmp_path, env)
    assert proc.returncode == 1 and "review: a.md: not reviewed (ERROR)" in proc.stdout
    assert "::error::x" not in proc.stdout.split("::stop-commands::")[0]  # printed with commands off
    assert "review: b.md ::error::x: PASS (round 1)" in proc.stdout
    bad = _bash(script, tmp_path, {**env, "AUTO_PASS_AFTER_ROUNDS": "two"})
    assert bad.returncode == 1 and "must be a whole number" in bad.stdout


def _count(work: GitRepo, items: list[str]) -> subprocess.CompletedProcess[str]:
    script = _step("review-count", "name", "Commit review_count (that front-matter key only)")["run"]
    git_env = {
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "ITEMS": json.dumps(items),
        "BRANCH": "main",
        "TOKEN": "ghs_jobtoken",
    }
    return _bash(script, work.path, git_env)


def test_the_count_job_commits_review_count_alone_to_the_branch(tmp_path: Path) -> None:
    author = GitRepo.init(tmp_path / "author")
    crlf = "Research/in-progress/crlf.md"
    bare_item = "Research/in-progress/no-count.md"
    author.commit(
        "items",
        {
            READY: review_item(front="review_count: 1\nstatus: reviewing"),
            crlf: review_item(front="status: reviewing\nreview_count: 3  # rounds").replace("\n", "\r\n"),
            bare_item: review_item(),
            "Research/in-progress/not-a-number.md": review_item(front="review_count: many"),
        },
    )
    origin = author.publish(tmp_path / "origin.git")
    work = origin.clone(tmp_path / "work")
    items = [READY, crlf, bare_item, "Research/in-progress/not-a-number.md", "../outside.md", "README.md"]
    proc = _count(work, items)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "review_count: 3 item(s) counted" in proc.stdout
    assert "not counted: not a markdown file of this repository: '../outside.md'" in proc.stdout
    assert "a review_count that is no number: 'Research/in-progress/not-a-number.md'" in proc.stdout
    pushed = origin.clone(tmp_path / "check")
    diff = pushed.run("diff", "--unified=0", "HEAD~1", "HEAD")
    changed = [line for line in diff.split("\n") if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed == [  # by path: READY, crlf.md, no-count.md
        "-review_count: 1",
        "+review_count: 2",
        "-review_count: 3  # rounds\r",
        "+review_count: 4  # rounds\r",  # the CRLF line keeps its ending
        "+review_count: 1",  # inserted as the first key where there was none
    ]
    assert pushed.run("log", "-1", "--format=%s") == "review: review_count of 3 item(s)"
    text = (pushed.path / bare_item).read_text(encoding="utf-8")
    assert text.startswith("---\nreview_count: 1\ntitle:")
    assert b"\r\nreview_count: 4  # rounds\r\n---\r\n" in (pushed.path / crlf).read_bytes()


def test_the_count_job_refuses_a_commit_that_changes_more_than_the_key(tmp_path: Path) -> None:
    author = GitRepo.init(tmp_path / "author")
    author.commit("item", {READY: review_item(front="review_count: 1")})
    origin = author.publish(tmp_path / "origin.git")
    work = origin.clone(tmp_path / "work")
    (work.path / READY).write_text(review_item(front="review_count: 1", Context="Edited by another step."))
    proc = _count(work, [READY])
    assert proc.returncode == 1 and "would change more than review_count" in proc.stdout
    assert origin.run("log", "-1", "--format=%s") == "item"  # nothing was pushed
