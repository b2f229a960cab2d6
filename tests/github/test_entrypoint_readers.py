"""Issue #26's readers'-view and hang attacks through the action's entrypoint, on a real git repository
against the contract-checked fake GitHub: a pull request adds a document that (on the code before the
readers' view and the linear patterns) turned a failing item into a green check, or hung the job."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checks.research_item import research_item
from tests.github.test_entrypoint import Workspace, _event, _run_action
from tests.support.github_api import FakeGitHub
from tests.support.gitrepo import GitRepo

ITEM = "Research/completed/2026-12-03-attack.md"


def _pull_request(tmp_path: Path, document: str) -> Workspace:
    repo = GitRepo.init(tmp_path / "workspace")
    base = repo.commit("base", {"README.md": "# r\n"})
    repo.checkout("feature", new=True)
    head = repo.commit("add an item", {ITEM: document})
    repo.checkout("main")
    repo.checkout("pull-merge", new=True)
    return Workspace(repo, base, head, repo.merge("feature", "Merge feature into main"))


def _gate(tmp_path: Path, events_dir: Path, github: FakeGitHub, document: str) -> tuple[dict, dict]:
    ws = _pull_request(tmp_path, document)
    event = _event(events_dir, "pull_request.synchronize.22.json", ws, tmp_path)
    run = _run_action(tmp_path, ws, "pull_request", event, github.url, sha=ws.merge)
    assert run.results is not None and "Traceback" not in run.stderr, run.stdout + run.stderr
    (check_run,) = github.check_runs.values()
    assert check_run["head_sha"] == ws.head
    (result,) = run.results["results"]
    return result, check_run


def _dimension(result: dict, name: str) -> dict:
    return next(d for d in result["dimensions"] if d["id"] == name)


def _blank_page_fails(tmp_path: Path, events_dir: Path, github: FakeGitHub, hide) -> None:
    """The item after "This page intentionally left blank.", its body as `hide` writes it: what a
    reader of GitHub's page sees is the blank page, so the check must fail for missing sections."""
    head, body = research_item().split("\n# ", 1)
    title, body = body.split("\n", 1)
    blank = f"{head}\n# {title}\n\nThis page intentionally left blank.\n\n{hide(body)}"
    result, check_run = _gate(tmp_path, events_dir, github, blank)
    assert check_run["conclusion"] == "failure"
    assert result["verdict"] == "FAIL"
    presence = _dimension(result, "section_presence")
    assert presence["score"] == 1
    assert any("missing required section ## Findings" in f["message"] for f in presence["findings"])


def test_sections_hidden_in_an_html_comment_fail_the_check(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    _blank_page_fails(tmp_path, events_dir, github, lambda body: f"<!--\n{body}\n-->\n")


@pytest.mark.parametrize("opener", ["<!-- review notes --><!--\n-->", "<!-- a --> <!--\ntext -->"])
def test_a_comment_opened_by_raw_html_hides_what_follows_from_the_check_too(
    tmp_path: Path, events_dir: Path, github: FakeGitHub, opener: str
) -> None:
    # `<!-- a --><!--` ends a comment block whose line is raw HTML: its second `<!--` opens a comment
    # in the HTML that a `-->` in the markdown after it cannot close (it is text, escaped), so GitHub
    # shows "This page intentionally left blank." alone; the check read the item after it and passed
    _blank_page_fails(tmp_path, events_dir, github, lambda body: f"{opener}\n{body}")


@pytest.mark.parametrize(("opener", "closer"), [("<![CDATA[", "]]>"), ("<div>", "</div>")])
def test_sections_inside_an_html_block_fail_the_check(
    tmp_path: Path, events_dir: Path, github: FakeGitHub, opener: str, closer: str
) -> None:
    # an HTML block's lines are raw HTML, never markdown: `<div>` with no blank line after it shows
    # "## Findings" and the rest as one run of text, and `<![CDATA[` (a comment to a browser) shows
    # nothing; before, the check read the sections, lists and table inside and passed
    def wrap(body: str) -> str:
        packed = "\n".join(line for line in body.splitlines() if line.strip())
        return f"{opener}\n{packed}\n{closer}\n"

    _blank_page_fails(tmp_path, events_dir, github, wrap)


def test_an_acronym_written_with_a_zero_width_space_fails_the_check(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    disguised = research_item().replace(
        "## Context\n", "## Context\n\nThe L\u200bLM pipeline writes the bundle.\n", 1
    )
    result, check_run = _gate(tmp_path, events_dir, github, disguised)
    assert check_run["conclusion"] == "failure"
    acronyms = _dimension(result, "acronym_expansion")
    messages = [f["message"] for f in acronyms["findings"]]
    assert acronyms["score"] <= 2 and acronyms["hard_fail"], messages
    assert any("LLM used without expansion" in m for m in messages), messages
    assert any("L<U+200B>LM" in m for m in messages), messages


@pytest.mark.parametrize("written", ["LL&#x200b;M", "L&ZeroWidthSpace;LM", "&Alpha;PI"])
def test_an_acronym_written_with_a_character_reference_fails_the_check(
    tmp_path: Path, events_dir: Path, github: FakeGitHub, written: str
) -> None:
    # GitHub renders `&#x200b;` as the invisible character: before, `LL&#x200b;M` hid every use of LLM
    reads = "API" if "PI" in written else "LLM"
    sentence = f"The {written} pipeline writes the bundle.\n"
    result, check_run = _gate(
        tmp_path, events_dir, github, research_item().replace("## Context\n", f"## Context\n\n{sentence}", 1)
    )
    assert check_run["conclusion"] == "failure"
    acronyms = _dimension(result, "acronym_expansion")
    messages = [f["message"] for f in acronyms["findings"]]
    assert acronyms["score"] <= 2 and acronyms["hard_fail"], messages
    assert any(f"{reads} used without expansion" in m for m in messages), messages


@pytest.mark.parametrize("row", ["|" + " |" * 40 + "x"])
def test_a_table_row_that_hung_the_job_is_evaluated(
    tmp_path: Path, events_dir: Path, github: FakeGitHub, row: str
) -> None:
    # on the exponential pattern this run never finished: no check run, and the job died at its timeout
    sparse = research_item().replace("## Scope\n", f"## Scope\n\n{row}\n", 1)
    result, check_run = _gate(tmp_path, events_dir, github, sparse)
    assert result["verdict"] == "PASS" and check_run["conclusion"] == "success"


N = 200_000  # characters: the quadratic patterns took about 2e10 steps on lines this long (minutes)


@pytest.mark.parametrize(
    ("name", "edit"),
    [
        ("a heading with a long run of inner spaces", lambda t: t + "\n# a" + " " * N + "b\n"),
        (
            "a Key Finding with `](` and many `[`",
            lambda t: t.replace("1. Content-addressed", "1. ](" + "[" * N + " Content-addressed", 1),
        ),
        (
            "an Evidence Map delimiter row with trailing spaces",
            lambda t: t.replace("|---|---|---|---|", "|---|---|---|---" + " " * N + "x", 1),
        ),
    ],
)
def test_a_line_that_took_minutes_is_evaluated(
    tmp_path: Path, events_dir: Path, github: FakeGitHub, name: str, edit
) -> None:
    # on the quadratic patterns each of these went past 20 s (minutes at this size): the job's
    # check run came late or, with a job timeout, never; the linear ones read it at once
    result, check_run = _gate(tmp_path, events_dir, github, edit(research_item()))
    assert result["verdict"] in ("PASS", "FAIL") and result["error"] is None, name
    assert check_run["conclusion"] in ("success", "failure")
