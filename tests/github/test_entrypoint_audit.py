"""The independent review of main after wave 2 (issues 26 and 27's standard, on the new surfaces), run as
the container runs the action (entrypoint.py, a real git workspace with the test merge commit checked
out, real webhook payloads, the contract-checked fake GitHub): what a pull request's own files could
do to the required check through `select: front-matter:` and the judging `budget:`."""

from __future__ import annotations

from pathlib import Path

from tests.checks.research_item import research_item
from tests.github.test_entrypoint_gate_on import _pull_request, _result, _run_pr
from tests.support.github_api import FakeGitHub
from tests.support.judge_user import open_to_judges
from tests.test_gate_on import JUDGE

ITEM = "Research/completed/2026-12-02-selected-item.md"
SELECT = "select:\n  front-matter: {status: completed}\n"
# a failing item: a required section gone
FAILING = research_item(drop_section="Evidence Map")


def test_a_pull_requests_item_whose_front_matter_cannot_be_read_is_still_gated(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """Found in this review: front matter that says `status: completed` but does not parse as YAML (here
    an unclosed flow list on another key) took the item out of `select:`, so a pull request adding a
    failing item got 0 files evaluated and a `success` check. Front matter that cannot be read cannot
    say the item is not ready for the gate: it is evaluated, and its warning says why the front matter
    was ignored."""
    broken = FAILING.replace('title: "Policy digest equality"', "title: [Policy digest equality")
    assert broken != FAILING
    ws = _pull_request(tmp_path, {".evalgate.yml": SELECT}, {ITEM: broken})
    run = _run_pr(tmp_path, events_dir, ws, github)

    result = _result(run, ITEM)
    assert result["verdict"] == "FAIL" and run.returncode == 1, run.stdout
    assert any("front matter ignored" in w for w in result.get("warnings", [])), result
    (posted,) = github.check_runs.values()
    assert posted["conclusion"] == "failure"


def test_an_item_whose_front_matter_says_another_status_is_named_not_evaluated(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """Holds: front matter the pull request sets to another value leaves the item out, as the base's
    `select:` says, and the summary and the check run name it with what its front matter says."""
    draft = FAILING.replace("status: completed", "status: draft")
    ws = _pull_request(tmp_path, {".evalgate.yml": SELECT}, {ITEM: draft})
    run = _run_pr(tmp_path, events_dir, ws, github)

    assert run.results is not None and not run.results["results"], run.stdout
    (posted,) = github.check_runs.values()
    said = "its front matter says status: draft; this run evaluates status: completed"
    assert said in run.summary and said in posted["output"]["summary"]
    # the title itself says a changed file went unread: never a bare "0 of 0 file(s) pass"
    assert posted["output"]["title"].startswith(
        "evalgate: 0 of 0 file(s) pass, 1 changed file(s) not evaluated"
    )


def test_a_pull_request_cannot_turn_unjudged_documents_into_a_passing_check(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """Holds: `budget:` and `on-budget:` are the base commit's policy. A pull request that raises the
    budget and sets `on-budget: skip` has that reported, not applied: with the base's one call, one of
    its two new items is NOT_JUDGED, nothing fails, and the required check is a failure (exit 1), not
    `neutral` or `success`."""
    judge = tmp_path / "tools" / "judge.py"  # the workflow's judge, outside the workspace
    judge.parent.mkdir()
    judge.write_text(JUDGE.replace("| epistemic_labeling | 2 |", "| epistemic_labeling | 4 |"))
    open_to_judges(tmp_path)
    text = research_item()
    other = "Research/completed/2026-12-02-other.md"
    ws = _pull_request(
        tmp_path,
        {".evalgate.yml": "budget: {calls: 1}\n"},
        {
            ITEM: text,
            other: text.replace("Policy digest", "Other digest"),
            ".evalgate.yml": "budget: {calls: 100}\non-budget: skip\n",
        },
    )
    run = _run_pr(tmp_path, events_dir, ws, github, judges=f"command:python3 {judge}")

    verdicts = sorted(_result(run, path)["verdict"] for path in (ITEM, other))
    assert verdicts == ["NOT_JUDGED", "PASS"], run.stdout
    assert run.returncode == 1 and "verdict=NOT_JUDGED" in run.outputs
    (posted,) = github.check_runs.values()
    assert posted["conclusion"] == "failure" and posted["head_sha"] == ws.head
    assert "on-budget: fail → skip" in run.summary and "the run fails" in run.summary
