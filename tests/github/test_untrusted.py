"""What a pull request may not supply: the programs its judges run, and the cache they read."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgate.config import Config
from evalgate.github.policy import PolicyError
from evalgate.github.untrusted import action_cache_dir, judge_paths, place_cache, refuse_changed_programs
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


@pytest.mark.parametrize(
    ("spec", "changed", "named"),
    [
        ("command:python3 tools/judge.py", {"tools/judge.py"}, "tools/judge.py"),
        # a data file the base's judge is handed (what it would read, the PR's words)
        ("command:python3 tools/judge.py --rubric-notes notes.txt", {"notes.txt"}, "notes.txt"),
        ("command:python3 tools/judge.py", {"tools/json.py"}, "tools/json.py"),  # shadows `import json`
        ("command:python3 tools/judge.py", {"tools/re/__init__.py"}, "tools/re/__init__.py"),
        # a submodule of a package beside the script (`from judgelib import scoring`), bytecode Python
        # loads without a source (sourceless, or an unchecked-hash pyc) and an extension module
        ("command:python3 tools/judge.py", {"tools/judgelib/scoring.py"}, "tools/judgelib/scoring.py"),
        ("command:python3 tools/judge.py", {"tools/json.pyc"}, "tools/json.pyc"),
        ("command:python3 tools/judge.py", {"tools/__pycache__/lib.cpython-311.pyc"}, "tools/__pycache__"),
        ("command:python3 tools/judge.py", {"tools/json.abi3.so"}, "tools/json.abi3.so"),
        ("command:python3 -m judges.strict", {"judgelib/a/b.py"}, "judgelib/a/b.py"),
        # a Python script without `.py`, run by the interpreter or by its shebang
        ("command:python3 -u tools/judge --fast", {"tools/json.py"}, "tools/json.py"),
        ("command:tools/judge", {"tools/judgelib/scoring.py"}, "tools/judgelib/scoring.py"),
        # a directory on the program's way replaced (a symlink the PR adds leads to its own script)
        ("command:python3 vendor/judge.py", {"vendor", "mine/judge.py"}, "vendor"),
        ("command:python3 -m judges.strict", {"judges/strict.py"}, "judges/strict.py"),
        ("command:python3 -m judges.strict", {"judges.py"}, "judges.py"),
        ("command:python3 -m judges.strict", {"json.py"}, "json.py"),  # the workspace is sys.path[0]
        ("command:python3 -c 'import judge'", {"judge.py"}, "judge.py"),
        ("replay:recordings", {"recordings/ab/x.json"}, "recordings/ab/x.json"),
        ("command:python3", {"python3"}, "python3"),
    ],
)
def test_a_judge_touching_what_the_pr_changed_is_refused_naming_the_file(
    spec: str, changed: set[str], named: str, tmp_path: Path
) -> None:
    with pytest.raises(PolicyError, match="this pull request adds or changes") as raised:
        refuse_changed_programs([spec], tmp_path, frozenset(changed))
    assert named in str(raised.value) and spec in str(raised.value)


def test_judges_the_pr_does_not_touch_run(tmp_path: Path) -> None:
    changed = frozenset(
        {"README.md", "Research/completed/a.md", "tools/notes.md", "tools/my-data/x.py", "other/json.py"}
    )
    judges = ["command:python3 tools/judge.py", "replay:recordings", "copilot"]
    refuse_changed_programs(judges, tmp_path, changed)  # nothing raised
    # from the workspace root (sys.path[0] for -m and -c), a changed module anywhere could be imported
    refuse_changed_programs(["command:python3 -m judges"], tmp_path, changed - {"other/json.py"})


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
