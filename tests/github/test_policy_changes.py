"""What a pull request would change in the policy, compared on real repositories (base commit vs the
checked-out tree), as the report lists it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from evalgate.config import Config, config_from_args
from evalgate.github.policy import load_policy
from evalgate.github.policy_changes import PolicyChanges, changed_file_warnings, describe_changes
from tests.support.gitrepo import GitRepo

BASE_CONFIG = "judges: ['command:python3 tools/judge.py', 'copilot']\non-judge-error: fail\n"


def _changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pr_files: dict[str, str]) -> PolicyChanges:
    repo = GitRepo.init(tmp_path / "ws")
    base = repo.commit("base", {".evalgate.yml": BASE_CONFIG, "tools/judge.py": "print()\n"})
    repo.commit("the pull request", pr_files)
    monkeypatch.chdir(repo.path)
    options = argparse.Namespace(**dict.fromkeys(("config", "rubric", "judge", "seed", "jobs", "cache_dir")))

    def build(loaded: Config | None) -> Config:
        return config_from_args(options, loaded)

    event = {"merge_group": {"base_sha": base, "head_sha": repo.head()}}
    scratch = tmp_path / "scratch"
    policy = load_policy(
        repo.path, "merge_group", event, policy_from="base", config_file=None, build=build, scratch=scratch
    )
    return describe_changes(policy, repo.path, build)


def test_judges_emptied_and_errors_skipped_are_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = _changes(tmp_path, monkeypatch, {".evalgate.yml": "judges: []\non-judge-error: skip\n"})
    assert changes.lines == (
        "changed policy files: .evalgate.yml",
        "judges removed: command:python3 tools/judge.py, copilot",
        "on-judge-error: fail → skip",
    )
    warnings = list(changed_file_warnings(changes))
    assert [(command, props["file"]) for command, props, _ in warnings] == [("warning", ".evalgate.yml")]


def test_a_policy_the_pr_breaks_is_reported_and_the_base_still_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = _changes(tmp_path, monkeypatch, {".evalgate.yml": "judgez: []\n"})
    assert changes.lines[0] == "changed policy files: .evalgate.yml"
    assert changes.lines[1].startswith("the pull request's policy does not load: .evalgate.yml: invalid")


def test_a_changed_judge_program_is_a_changed_policy_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = _changes(tmp_path, monkeypatch, {"tools/judge.py": "print(5)\n", "README.md": "# r\n"})
    assert changes.lines == ("changed policy files: tools/judge.py",) and changes.files == ("tools/judge.py",)


def test_nothing_to_report_when_the_pr_leaves_the_policy_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = _changes(tmp_path, monkeypatch, {"README.md": "# r\n"})
    assert changes == PolicyChanges() and list(changed_file_warnings(changes)) == []


def test_git_attributes_anywhere_are_reported_as_a_policy_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.gitattributes` decides how git and GitHub show a change (`-diff`, `binary`,
    `linguist-generated`): a pull request that changes one, at the root or in any directory, says so."""
    changes = _changes(
        tmp_path,
        monkeypatch,
        {".gitattributes": "*.md -diff\n", "Research/completed/.gitattributes": "*.md linguist-generated\n"},
    )
    assert changes.attributes == (".gitattributes", "Research/completed/.gitattributes")
    (line,) = changes.lines
    assert line.startswith("changed git attributes: .gitattributes, Research/completed/.gitattributes (")
    assert "evalgate diffs every file as text and evaluates it regardless" in line
    warnings = list(changed_file_warnings(changes))
    assert [(command, props["file"]) for command, props, _ in warnings] == [
        ("warning", ".gitattributes"),
        ("warning", "Research/completed/.gitattributes"),
    ]
    assert all("hiding it from review" in message for _, _, message in warnings)
