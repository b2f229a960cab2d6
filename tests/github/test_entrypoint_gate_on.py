"""`gate-on` in the action, run as the container runs it (entrypoint.py, a real git workspace with the
test merge commit checked out, real webhook payloads, the contract-checked fake GitHub): on a pull
request it gates on what the change makes worse, by default; findings the base version has are
notices; the check run, the summary, the comment and the results file say which mode decided."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.checks.research_item import line_of, research_item
from tests.github.test_entrypoint import ActionRun, Workspace, _event, _run_action
from tests.support.github_api import FakeGitHub
from tests.support.gitrepo import GitRepo
from tests.support.judge_user import open_to_judges
from tests.test_gate_on import FAILING_CONTEXT, ITEM, JUDGE, OLD_ITEM, TYPO_FIXED

NEW_ITEM = "Research/completed/2026-12-01-new-item.md"
ONE_MORE = OLD_ITEM.replace(FAILING_CONTEXT, FAILING_CONTEXT + " Promotion gates must also cover SBOM files.")


def _pull_request(tmp_path: Path, base_files: Mapping[str, str], pr_files: Mapping[str, str]) -> Workspace:
    """main with `base_files`, a branch changing `pr_files`, and the test merge commit checked out."""
    repo = GitRepo.init(tmp_path / "workspace")
    base = repo.commit("base", {"README.md": "# r\n", **base_files})
    repo.checkout("feature", new=True)
    head = repo.commit("the pull request", dict(pr_files))
    repo.checkout("main")
    repo.checkout("pull-merge", new=True)
    return Workspace(repo, base, head, repo.merge("feature", "Merge feature into main"))


def _run_pr(tmp_path: Path, events_dir: Path, ws: Workspace, github: FakeGitHub, **inputs: str) -> ActionRun:
    event = _event(events_dir, "pull_request.synchronize.22.json", ws, tmp_path)
    return _run_action(tmp_path, ws, "pull_request", event, github.url, inputs, ws.merge)


def _result(run: ActionRun, path: str = ITEM) -> dict[str, Any]:
    assert run.results is not None and "Traceback" not in run.stderr, run.stdout + run.stderr
    (result,) = [r for r in run.results["results"] if r["path"] == path]
    return result


def _annotations(github: FakeGitHub) -> list[dict[str, Any]]:
    (posted,) = github.check_runs.values()
    return list(posted["output"]["annotations"])


def test_a_typo_fix_on_an_old_failing_item_passes_and_its_findings_are_notices(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = _pull_request(tmp_path, {ITEM: OLD_ITEM}, {ITEM: TYPO_FIXED})
    run = _run_pr(tmp_path, events_dir, ws, github)

    assert run.returncode == 0 and _result(run)["verdict"] == "PASS"
    assert "verdict=PASS" in run.outputs
    (posted,) = github.check_runs.values()
    assert posted["conclusion"] == "success" and posted["head_sha"] == ws.head
    assert "gate-on new: 0 new, 3 existed before" in posted["output"]["title"]
    notes = _annotations(github)
    assert len(notes) == 3 and {a["annotation_level"] for a in notes} == {"notice"}
    assert all(a["message"].endswith("(existed before this change)") for a in notes)
    summary = "Gate on **new** findings (the default on pull\\_request)"
    assert summary in run.summary and summary in posted["output"]["summary"]
    assert "**0** new, 3 existed before this change" in run.summary
    assert run.results is not None
    assert run.results["summary"]["gate_on"] == {
        "mode": "new",
        "why": "the default on pull_request",
        "base": ws.base,
        "new_findings": 0,
        "existing_findings": 3,
    }
    assert github.comments == {}  # comment: on-failure, and nothing failed


def test_gate_on_all_fails_the_same_typo_fix_on_every_finding(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = _pull_request(tmp_path, {ITEM: OLD_ITEM}, {ITEM: TYPO_FIXED})
    run = _run_pr(tmp_path, events_dir, ws, github, **{"gate-on": "all"})

    assert run.returncode == 1 and _result(run)["verdict"] == "FAIL" and "gate_on" not in _result(run)
    assert {a["annotation_level"] for a in _annotations(github)} == {"failure"}
    assert "Gate on **all** findings (the gate-on input)" in run.summary
    assert run.results is not None and run.results["summary"]["gate_on"] == {
        "mode": "all",
        "why": "the gate-on input",
    }
    (comment,) = github.comments.values()
    assert "Gate on **all** findings" in comment["body"]


def test_one_new_acronym_finding_fails_the_pull_request_on_that_finding_alone(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = _pull_request(tmp_path, {ITEM: OLD_ITEM}, {ITEM: ONE_MORE})
    run = _run_pr(tmp_path, events_dir, ws, github)

    assert run.returncode == 1 and _result(run)["verdict"] == "FAIL"
    failures = [a for a in _annotations(github) if a["annotation_level"] == "failure"]
    assert [(a["start_line"], a["message"].split(" ")[0]) for a in failures] == [
        (line_of(ONE_MORE, "SBOM"), "SBOM")
    ]
    assert len([a for a in _annotations(github) if a["annotation_level"] == "notice"]) == 3
    (comment,) = github.comments.values()
    assert "**1** new, 3 existed before this change" in comment["body"]
    assert "SBOM used without expansion" in comment["body"] and "RBAC used" not in comment["body"]
    (posted,) = github.check_runs.values()
    assert (
        posted["conclusion"] == "failure"
        and "gate-on new: 1 new, 3 existed before" in posted["output"]["title"]
    )


def test_a_line_shift_makes_no_finding_new(tmp_path: Path, events_dir: Path, github: FakeGitHub) -> None:
    shifted = OLD_ITEM.replace("## Scope", "A paragraph the pull request adds.\n\nAnd one more.\n\n## Scope")
    ws = _pull_request(tmp_path, {ITEM: OLD_ITEM}, {ITEM: shifted})
    run = _run_pr(tmp_path, events_dir, ws, github)

    result = _result(run)
    assert run.returncode == 0 and result["verdict"] == "PASS"
    assert result["gate_on"]["new_findings"] == 0 and result["gate_on"]["existing_findings"] == 3
    lines = sorted(a["start_line"] for a in _annotations(github))
    assert lines == [line_of(shifted, "Policy drift between CI stages")] * 3  # the findings moved with it


def test_a_new_document_has_every_finding_new(tmp_path: Path, events_dir: Path, github: FakeGitHub) -> None:
    ws = _pull_request(
        tmp_path, {ITEM: OLD_ITEM}, {NEW_ITEM: OLD_ITEM.replace("Policy digest", "New digest")}
    )
    run = _run_pr(tmp_path, events_dir, ws, github)

    result = _result(run, NEW_ITEM)
    assert run.returncode == 1 and result["verdict"] == "FAIL"
    assert result["gate_on"]["base_path"] is None and result["gate_on"]["new_findings"] == 3
    assert {a["annotation_level"] for a in _annotations(github)} == {"failure"}
    assert "new in this change: every finding is new" in run.summary


def test_a_push_gates_on_all_findings_by_default(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    repo = GitRepo.init(tmp_path / "workspace")
    base = repo.commit("base", {ITEM: OLD_ITEM})
    ws = Workspace(repo, base, repo.commit("typo", {ITEM: TYPO_FIXED}))
    event = _event(events_dir, "push.0.json", ws, tmp_path)
    run = _run_action(tmp_path, ws, "push", event, github.url)

    assert run.returncode == 1 and _result(run)["verdict"] == "FAIL"
    assert run.results is not None and run.results["summary"]["gate_on"] == {
        "mode": "all",
        "why": "the default on push",
    }
    assert "Gate on **all** findings (the default on push)" in run.summary


def test_a_judged_score_that_drops_against_the_base_fails_and_one_that_stays_low_does_not(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    judge = tmp_path / "tools" / "judge.py"  # the workflow's judge, outside the workspace
    judge.parent.mkdir()
    judge.write_text(JUDGE)
    open_to_judges(tmp_path)
    text = research_item()
    other = "Research/completed/2026-11-02-other.md"
    ws = _pull_request(
        tmp_path,
        {ITEM: text, other: text.replace("Policy digest", "Other digest")},
        {
            ITEM: text.replace("It is cheap.", "It is cheap. SCORE-DROP"),
            other: text.replace("Policy digest", "Other digest").replace("It is cheap.", "It is cheap, too."),
        },
    )
    run = _run_pr(
        tmp_path, events_dir, ws, github, judges=f"command:python3 {judge}"
    )  # as the judges' user can

    dropped, same = _result(run, ITEM), _result(run, other)
    assert run.returncode == 1 and dropped["verdict"] == "FAIL" and same["verdict"] == "PASS"
    assert dropped["decision"]["failing"] == ["executive_summary_first_sentence"]
    assert any(reason.endswith("4 at the base commit") for reason in dropped["reasons"])
    assert same["gate_on"]["base_scores"]["epistemic_labeling"] == 2
    # the rule that stayed as it was is named, not counted; the one that dropped says from what
    assert "existed before this change: floor: epistemic\\_labeling 2 &lt; 3" in run.summary
    assert "**executive\\_summary\\_first\\_sentence** score 2 (4 at the base)" in run.summary
    assert run.results is not None and run.results["summary"]["judge_calls"] == 4  # both versions of both


def test_a_pull_request_cannot_loosen_its_own_gate_on(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """gate-on is policy: the base commit's `gate-on: all` decides, the pull request's `new` is
    reported as a policy change that applies after merge."""
    ws = _pull_request(
        tmp_path,
        {ITEM: OLD_ITEM, ".evalgate.yml": "gate-on: all\n"},
        {ITEM: TYPO_FIXED, ".evalgate.yml": "gate-on: new\n"},
    )
    run = _run_pr(tmp_path, events_dir, ws, github)

    assert run.returncode == 1 and _result(run)["verdict"] == "FAIL"
    assert run.results is not None
    assert run.results["summary"]["gate_on"] == {"mode": "all", "why": "gate-on in the configuration"}
    assert "gate-on: all → new" in run.results["policy_changes"]


def test_a_merge_group_gates_on_new_findings_against_its_base(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = _pull_request(tmp_path, {ITEM: OLD_ITEM}, {ITEM: ONE_MORE})
    assert ws.merge is not None
    event = tmp_path / "merge_group.json"
    group = {"base_sha": ws.base, "head_sha": ws.merge, "head_ref": "refs/heads/gh-readonly-queue/main/pr-7"}
    event.write_text(json.dumps({"action": "checks_requested", "merge_group": group}))
    run = _run_action(tmp_path, ws, "merge_group", event, github.url, {}, ws.merge)

    assert run.returncode == 1 and _result(run)["gate_on"]["new_findings"] == 1
    assert (
        run.results is not None and run.results["summary"]["gate_on"]["why"] == "the default on merge_group"
    )
    assert [a["start_line"] for a in _annotations(github) if a["annotation_level"] == "failure"] == [
        line_of(ONE_MORE, "SBOM")
    ]
