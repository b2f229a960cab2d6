"""What a pull request may not supply: the judge cache. (The programs its judges run come from a copy
of the base commit's tree: tests/github/test_base_tree.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgate.config import Config
from evalgate.github.untrusted import action_cache_dir, judge_paths, place_cache
from tests.support.gitrepo import GitRepo


@pytest.mark.parametrize(
    ("spec", "paths"),
    [
        (
            "command:python3 tools/judge.py --rubric=policy/x.yml",
            ["python3", "tools/judge.py", "policy/x.yml"],
        ),
        ("command:./judge.sh", ["judge.sh"]),
        ("command:python3 -m judges.strict", ["python3", "judges", "judges.py", "judges.strict"]),
        ("replay:recordings/", ["recordings"]),
        ("command:python3 ../outside.py /usr/local/bin/judge", ["python3"]),
        ("copilot:gpt-5", []),
        ("openai:gpt-4o", []),
        ("command:judge 'unclosed", []),  # the backend reports it before anything runs
    ],
)
def test_judge_paths_are_the_workspace_files_a_spec_runs_or_reads(
    spec: str, paths: list[str], tmp_path: Path
) -> None:
    assert judge_paths(spec, tmp_path) == paths


def test_an_absolute_path_inside_the_workspace_counts(tmp_path: Path) -> None:
    assert judge_paths(f"command:python3 {tmp_path}/tools/j.py", tmp_path) == ["python3", "tools/j.py"]


# ------------------------------------------------------------------ where the cache is read


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo.init(tmp_path / "ws")
    repo.commit("start", {"tracked-cache/ab/entry.json": "{}", "README.md": "# r\n"})
    return repo


def _place(config: Config, repo: GitRepo, changed: frozenset[str] | None) -> tuple[str, tuple[str, ...]]:
    env = {"RUNNER_TEMP": str(repo.path.parent / "runner")}
    placed, notices = place_cache(config, env=env, workspace=repo.path, changed=changed)
    return placed.cache_dir, notices


def test_the_default_cache_is_outside_the_workspace_on_every_event(repo: GitRepo) -> None:
    runner_cache = str(repo.path.parent / "runner" / "evalgate-cache")
    assert _place(Config(), repo, None) == (runner_cache, ())
    assert _place(Config(), repo, frozenset()) == (runner_cache, ())
    assert str(action_cache_dir({})).endswith("evalgate-cache")  # no RUNNER_TEMP: the system temp dir


def test_a_configured_cache_is_kept_except_on_a_pull_request(repo: GitRepo, tmp_path: Path) -> None:
    outside = str(repo.path.parent / "runner" / "evalgate-cache")
    for kept in ("my-cache", "tracked-cache", ".", str(tmp_path / "elsewhere")):
        assert _place(Config(cache_dir=kept), repo, None) == (kept, ())  # push: the checkout is trusted
        # a pull request: untracked and untouched, tracked, or outside the workspace (restored by
        # actions/cache from the pull request's own scope), its entries could be the pull request's
        placed, notices = _place(Config(cache_dir=kept), repo, frozenset({"README.md"}))
        assert placed == outside and notices[0].startswith(f"cache-dir {kept} is not read on a pull request")


def test_a_cache_switched_off_is_left_alone(repo: GitRepo) -> None:
    assert _place(Config(cache=False), repo, frozenset()) == (".evalgate-cache", ())
