"""Hostile policy files, run through entrypoint.py on real git repositories against the contract-checked
fake GitHub. On a pull request the PR's own `.evalgate.yml` and the rubric it names are only described,
never applied: whatever they hold (YAML nested past the C parser's stack, a path to a device, to
/proc or into .git, a symlink out of the tree, a file past the size cap) becomes a line in the
policy-changes section, and the check run is still posted with the base policy's verdict. The policy
a run does apply (the base commit's, or the checkout's on a push) gets a clear error naming the file
and exit 2, never a crash."""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.github.test_entrypoint import BROKEN_ITEM, NEW_ITEM, ActionRun, Workspace, _event, _run_action
from tests.github.test_policy_from_base import pull_request, run_pr
from tests.support.github_api import FakeGitHub
from tests.support.gitrepo import GitRepo

DEPTH = 100_000  # libyaml's composer recurses per level: ~25,000 levels overflow an 8 MB C stack
FLOW_NESTED = "judges: " + "[" * DEPTH + "]" * DEPTH + "\n"
BLOCK_NESTED = "judges:\n  " + "- " * DEPTH + "copilot\n"  # no bracket at all: a bracket count misses it
# Address space for a run that would read /dev/zero whole: MemoryError within seconds, instead of the
# machine's memory. The action itself needs a few hundred MB.
ADDRESS_SPACE = 2 * 1024**3


@pytest.fixture
def github(github_contract: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(github_contract) as server:
        yield server
        assert server.violations == []


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _posted(run: ActionRun, github: FakeGitHub) -> dict[str, object]:
    """The run ended by its verdict and posted its check run on the PR head."""
    assert run.returncode == 1, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr
    (check_run,) = github.check_runs.values()
    assert check_run["conclusion"] == "failure"
    return check_run


def _commit_symlink(ws: Workspace, name: str, target: str) -> None:
    """The PR's branch gets a symlink `name` -> `target`; its merge commit is checked out again."""
    ws.repo.checkout("feature")
    if (ws.path / name).exists():
        ws.repo.run("rm", "-q", "--", name)
    (ws.path / name).parent.mkdir(parents=True, exist_ok=True)
    (ws.path / name).symlink_to(target)
    ws.repo.run("add", "--", name)
    ws.head = ws.repo.commit(f"link {name}")
    ws.repo.checkout("pull-merge")
    ws.repo.reset_hard("main")
    ws.merge = ws.repo.merge("feature", "Merge feature into main")


# ------------------------------------------------------------------ the pull request's policy: described


@pytest.mark.parametrize(
    ("pr_files", "said"),
    [
        ({".evalgate.yml": FLOW_NESTED}, ".evalgate.yml: nests deeper than 64 levels"),
        ({".evalgate.yml": BLOCK_NESTED}, ".evalgate.yml: nests deeper than 64 levels"),
        (
            {
                ".evalgate.yml": "rubric: policy/gate.yml\n",
                "policy/gate.yml": "dimensions: " + FLOW_NESTED[8:],
            },
            "policy/gate.yml: nests deeper than 64 levels",
        ),
        ({".evalgate.yml": "rubric: /dev/zero\n"}, "/dev/zero: outside the repository"),
        ({".evalgate.yml": "rubric: /proc/self/environ\n"}, "/proc/self/environ: outside the repository"),
        ({".evalgate.yml": "rubric: .git/config\n"}, ".git/config: inside .git"),
    ],
    ids=["flow-nesting", "block-nesting", "rubric-nesting", "dev-zero", "proc", "git-config"],
)
def test_the_prs_hostile_policy_is_a_line_in_the_report_and_the_check_run_is_posted(
    tmp_path: Path, events_dir: Path, github: FakeGitHub, pr_files: dict[str, str], said: str
) -> None:
    ws = pull_request(tmp_path, {".evalgate.yml": "rubric: research-loop\n"}, pr_files)
    run = run_pr(tmp_path, events_dir, ws, github.url, preexec=_limit_memory)

    check_run = _posted(run, github)
    assert run.results is not None and run.results["rubric"]["id"] == "research-loop"  # the base's
    lines = run.results["policy_changes"]
    assert any("does not load" in line and said in line for line in lines), lines
    assert "Policy changes in this pull request (not applied)" in str(check_run["output"])
    assert "INPUT_" not in json.dumps(run.results)  # nothing of the process's environment is quoted


@pytest.mark.parametrize(
    ("link", "target", "said"),
    [
        (".evalgate.yml", "/dev/zero", ".evalgate.yml: leads outside the repository"),
        ("policy/gate.yml", "/dev/zero", "policy/gate.yml: leads outside the repository"),
        ("policy/gate.yml", "../../../../../../../../proc/self/environ", "leads outside the repository"),
        ("policy/gate.yml", "../.git/config", "policy/gate.yml: leads inside .git"),
    ],
)
def test_a_policy_symlink_the_pr_commits_is_not_followed_out_of_the_tree(
    tmp_path: Path, events_dir: Path, github: FakeGitHub, link: str, target: str, said: str
) -> None:
    pr_files = {} if link == ".evalgate.yml" else {".evalgate.yml": "rubric: policy/gate.yml\n"}
    ws = pull_request(tmp_path, {".evalgate.yml": "rubric: research-loop\n"}, pr_files)
    _commit_symlink(ws, link, target)
    run = run_pr(tmp_path, events_dir, ws, github.url, preexec=_limit_memory)

    _posted(run, github)
    lines = run.results["policy_changes"] if run.results else []
    assert any("does not load" in line and said in line for line in lines), lines


def test_a_pr_policy_file_past_the_size_cap_is_not_read(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    huge = "rubric: research-loop\n" + "# padding\n" * 200_000  # 2 MB of comments
    ws = pull_request(tmp_path, {".evalgate.yml": "rubric: research-loop\n"}, {".evalgate.yml": huge})
    run = run_pr(tmp_path, events_dir, ws, github.url)

    _posted(run, github)
    lines = run.results["policy_changes"] if run.results else []
    assert any(".evalgate.yml: larger than 1048576 bytes" in line for line in lines), lines


# ------------------------------------------------------------------ the policy a run applies: a clear error


def _configuration_error(run: ActionRun) -> str:
    assert run.returncode == 2, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr
    (error,) = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert "verdict=ERROR" in run.outputs
    return error


@pytest.mark.parametrize(
    ("base_files", "said"),
    [
        ({".evalgate.yml": FLOW_NESTED}, ".evalgate.yml (base commit"),
        ({".evalgate.yml": BLOCK_NESTED}, ".evalgate.yml (base commit"),
        (
            {
                ".evalgate.yml": "rubric: policy/gate.yml\n",
                "policy/gate.yml": "dimensions: " + FLOW_NESTED[8:],
            },
            "policy/gate.yml (base commit",
        ),
    ],
    ids=["flow", "block", "rubric"],
)
def test_the_base_policy_nested_too_deep_is_a_clear_error_not_a_crash(
    tmp_path: Path, events_dir: Path, base_files: dict[str, str], said: str
) -> None:
    ws = pull_request(tmp_path, base_files, {})
    error = _configuration_error(run_pr(tmp_path, events_dir, ws))
    assert said in error and "nests deeper than 64 levels" in error


@pytest.mark.parametrize(
    ("files", "said"),
    [
        ({".evalgate.yml": FLOW_NESTED}, ".evalgate.yml: nests deeper than 64 levels"),
        ({".evalgate.yml": "rubric: /dev/zero\n"}, "/dev/zero: cannot read rubric: not a regular file"),
        ({".evalgate.yml": "acronyms: {glossary: /dev/zero}\n"}, "/dev/zero: cannot read"),
    ],
    ids=["nesting", "rubric-device", "glossary-device"],
)
def test_a_pushed_policy_that_cannot_load_is_a_clear_error(
    tmp_path: Path, events_dir: Path, files: dict[str, str], said: str
) -> None:
    repo = GitRepo.init(tmp_path / "workspace")
    base = repo.commit("base", {"README.md": "# r\n"})
    head = repo.commit("push", {NEW_ITEM: BROKEN_ITEM, **files})
    ws = Workspace(repo, base, head)
    event = _event(events_dir, "push.4.json", ws, tmp_path)
    run = _run_action(
        tmp_path, ws, "push", event, "http://127.0.0.1:9", {"github-token": ""}, preexec=_limit_memory
    )
    assert said in _configuration_error(run).replace("%0A", "\n")


def test_reading_a_policy_file_never_blocks_on_a_fifo(tmp_path: Path) -> None:
    """A FIFO cannot be committed, but a runner file named by a trusted policy can be one: refused
    at once instead of waiting for a writer."""
    from evalgate.config import ConfigError, load_config

    fifo = tmp_path / "policy.yml"
    os.mkfifo(fifo)
    for required in (False, True):
        with pytest.raises(
            ConfigError, match=r"policy.yml: cannot read configuration: not a regular file \(a FIFO\)"
        ):
            load_config(fifo, required=required)
