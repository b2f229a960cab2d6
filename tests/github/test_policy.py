"""Reading the policy from a base commit's objects: which commit, which paths, which bytes."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import pytest

from evalgate.config import Config, ConfigError, config_from_args
from evalgate.github.policy import (
    CommitFiles,
    PolicyError,
    TrustedPolicy,
    load_policy,
    policy_commit,
    repository_path,
)
from evalgate.rubric import RubricError, load_rubric
from tests.support.gitrepo import GitRepo

BASE_SHA = "a" * 40


@pytest.mark.parametrize(
    ("event", "payload", "expected"),
    [
        ("pull_request", {"action": "opened", "pull_request": {"base": {"sha": BASE_SHA}}}, BASE_SHA),
        (
            "pull_request_target",
            {"action": "synchronize", "pull_request": {"base": {"sha": BASE_SHA}}},
            BASE_SHA,
        ),
        ("pull_request", {"action": "closed", "pull_request": {"base": {"sha": BASE_SHA}}}, None),
        ("merge_group", {"merge_group": {"base_sha": BASE_SHA, "head_sha": "b" * 40}}, BASE_SHA),
        ("push", {"before": BASE_SHA, "after": "b" * 40}, None),
        ("workflow_dispatch", {}, None),
    ],
)
def test_the_policy_commit_is_the_base_of_a_pull_request_or_merge_group(
    event: str, payload: dict[str, object], expected: str | None
) -> None:
    assert policy_commit(event, payload) == expected


def test_a_payload_without_a_base_sha_is_an_error_naming_the_event() -> None:
    with pytest.raises(PolicyError, match="merge_group payload: the base commit is missing"):
        policy_commit("merge_group", {"merge_group": {"base_sha": "main"}})


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("policy/gate.yml", "policy/gate.yml"),
        ("./policy/../gate.yml", "gate.yml"),
        ("../gate.yml", None),
        ("../{workspace}/policy/gate.yml", "policy/gate.yml"),  # out and back in
        ("{tmp}/../{workspace}/gate.yml", "gate.yml"),
        ("/etc/evalgate/gate.yml", None),
        (".", "."),
    ],
)
def test_repository_paths_are_workspace_relative_or_none(
    name: str, expected: str | None, tmp_path: Path
) -> None:
    assert repository_path(tmp_path, name.format(workspace=tmp_path.name, tmp=tmp_path)) == expected
    assert repository_path(tmp_path, str(tmp_path / "policy" / "gate.yml")) == "policy/gate.yml"


def test_files_are_read_from_the_commit_not_the_work_tree(tmp_path: Path) -> None:
    repo = GitRepo.init(tmp_path / "ws")
    base = repo.commit("base", {"policy/gate.yml": "id: base\n", "bytes.yml": b"\xff\xfe"})
    (repo.path / "link.yml").symlink_to("policy/gate.yml")
    repo.run("add", "link.yml")
    linked = repo.commit("a symlink")
    (repo.path / "policy" / "gate.yml").write_text("id: edited-in-the-tree\n")

    files = CommitFiles(repo.path, base)
    assert files.read("policy/gate.yml") == "id: base\n"
    assert files.read("absent.yml") is None
    assert files.changed_paths() == {"policy/gate.yml", "link.yml"}
    with pytest.raises(PolicyError, match=r"bytes\.yml \(base commit [0-9a-f]{12}\): not UTF-8"):
        files.read("bytes.yml")
    with pytest.raises(PolicyError, match=r"link\.yml .* must be a regular file"):
        CommitFiles(repo.path, linked).read("link.yml")


def _builder(config_file: str | None = None) -> Callable[[Config | None], Config]:
    options = argparse.Namespace(
        config=config_file, rubric=None, judge=None, seed=None, jobs=None, cache_dir=None
    )
    return lambda loaded: config_from_args(options, loaded)


def _queued(repo: GitRepo, base: str, scratch: Path, config_file: str | None = None) -> TrustedPolicy:
    """The policy of a merge group whose base is `base`, with `repo`'s work tree checked out."""
    return load_policy(
        repo.path,
        "merge_group",
        {"merge_group": {"base_sha": base, "head_sha": repo.head()}},
        policy_from="base",
        config_file=config_file,
        build=_builder(config_file),
        scratch=scratch,
    )


def test_a_merge_group_takes_its_base_policy_and_pins_the_rubric_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = GitRepo.init(tmp_path / "ws")
    rubric = (Path(__file__).resolve().parents[2] / "evalgate" / "rubrics" / "research-loop.yml").read_text()
    base = repo.commit(
        "base", {"policy/gate.yml": rubric, ".evalgate.yml": "rubric: policy/gate.yml\njobs: 2\n"}
    )
    repo.commit("queue", {".evalgate.yml": "rubric: policy/gate.yml\njobs: 9\n", "policy/gate.yml": "x: 1\n"})
    monkeypatch.chdir(repo.path)
    policy = _queued(repo, base, tmp_path / "scratch")
    assert policy.base == base and policy.config.jobs == 2
    assert policy.declared is not None and policy.declared.rubric == "policy/gate.yml"
    copy = Path(policy.config.rubric)
    assert copy.parent == tmp_path / "scratch" and copy.read_text() == rubric
    assert load_rubric(str(copy)).id == "research-loop"
    assert policy.changed == {".evalgate.yml", "policy/gate.yml"}


def test_a_rubric_missing_from_the_base_is_an_error_unless_the_pr_adds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = GitRepo.init(tmp_path / "ws")
    base = repo.commit("base", {".evalgate.yml": "rubric: policy/gone.yml\n"})
    monkeypatch.chdir(repo.path)
    with pytest.raises(RubricError, match=r"policy/gone\.yml: rubric file not found in the base commit"):
        _queued(repo, base, tmp_path / "s")

    repo.commit("the PR adds it", {"policy/gone.yml": "id: x\n"})
    policy = _queued(repo, base, tmp_path / "s")
    assert policy.config.rubric == Config().rubric  # the default until it is merged


@pytest.mark.parametrize(
    ("files", "config_file", "message"),
    [
        ({"README.md": "# r\n"}, "ci/evalgate.yml", r"ci/evalgate\.yml: configuration file not found"),
        (
            {".evalgate.yml": "rubrik: research-loop\n"},
            None,
            r"\.evalgate\.yml \(base commit [0-9a-f]{12}\): invalid configuration",
        ),
    ],
    ids=["config-input-in-neither-commit", "broken-base-configuration"],
)
def test_configuration_errors_name_the_file_and_the_commit(
    files: dict[str, str],
    config_file: str | None,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = GitRepo.init(tmp_path / "ws")
    base = repo.commit("base", files)
    monkeypatch.chdir(repo.path)
    with pytest.raises(ConfigError, match=message):
        _queued(repo, base, tmp_path / "s", config_file)
