"""A pull request cannot weaken its own gate: the action, run as the container runs it on real git
repositories (base, head, the merge commit checked out; shallow clones), applies the base commit's
policy, reports the pull request's policy changes without applying them, never runs a program the pull
request supplies, and never reads judge replies the pull request planted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from tests.github.test_entrypoint import (
    BROKEN_ITEM,
    NEW_ITEM,
    OLD_ITEM,
    ROOT,
    ActionRun,
    Workspace,
    _event,
    _run_action,
)
from tests.support.github_api import FakeGitHub
from tests.support.gitrepo import GitRepo
from tests.support.judge_user import writable_by_judges

OFFLINE_API = "http://127.0.0.1:9"  # nothing listens: publishing fails, the verdict stands

# A rubric with one judged dimension and research-loop's gate: a 1 fails, a 5 passes.
GATE_RUBRIC = """\
id: gate
title: Gate
dimensions:
  - id: quality
    kind: judge
    title: Quality
    description: Is the document any good?
    anchors: {1: bad, 5: good}
"""
GATED = {"policy/gate.yml": GATE_RUBRIC, ".evalgate.yml": "rubric: policy/gate.yml\n"}
# What the pull request of issue 18 added: everything passes.
LENIENT_RUBRIC = GATE_RUBRIC.replace("id: gate", "id: lenient") + (
    "policy: {fail_on_score: null, min_each: 1, min_mean: 1, hard_fail_below: 1}\n"
)


def judge_script(score: int, marker: str | None = None) -> str:
    """A command judge answering `score` for `quality` (JUDGE_SCORE overrides it); with `marker`, it
    first leaves a file by that name in $JUDGE_WITNESS (`witnessed` finds it), so a test can tell
    whether it ever ran."""
    leave = f"Path(os.environ['JUDGE_WITNESS'], {marker!r}).write_text('ran')\n" if marker else ""
    return (
        "import os, sys\nfrom pathlib import Path\n"
        + leave
        + f"sys.stdin.read()\nscore = os.environ.get('JUDGE_SCORE', '{score}')\n"
        + "print('| dimension | score | evidence | reasoning |')\nprint('|---|---|---|---|')\n"
        + "print(f'| quality | {score} | It depends. | judged |')\nprint()\nprint('OVERALL: PASS')\n"
    )


def workflow_judge(tmp_path: Path, score: int) -> str:
    """The spec of a trusted command judge (the workflow's input, outside the workspace) answering `score`."""
    trusted = tmp_path / "tools" / "judge.py"
    trusted.parent.mkdir()
    trusted.write_text(judge_script(score))
    return f"command:python3 {trusted}"


# The pull request of issue 18: a lenient rubric, pointed at, and a judge of its own that prints fives.
LENIENT_PR = {
    "lenient.yml": LENIENT_RUBRIC,
    ".evalgate.yml": "rubric: lenient.yml\njudges: ['command:python3 judge.py']\n",
    "judge.py": judge_script(5, marker="judge-ran"),
}


def witness(tmp_path: Path) -> Path:
    """Where the test's judges leave their markers: a directory the judges' user may write in."""
    return writable_by_judges(tmp_path / "witness")


def witnessed(tmp_path: Path, marker: str = "judge-ran") -> bool:
    """Whether a judge left `marker` (it ran)."""
    return (witness(tmp_path) / marker).exists()


def pull_request(
    tmp_path: Path,
    base_files: Mapping[str, str],
    pr_files: Mapping[str, str],
    executable: tuple[str, ...] = (),
) -> Workspace:
    """main with `base_files`, a feature branch adding NEW_ITEM and `pr_files`, and the test merge
    commit actions/checkout leaves on pull_request, checked out. `executable` files are committed
    with their executable bit, on each side that has them."""

    def commit(message: str, files: Mapping[str, str]) -> str:
        repo.write(files)
        for path in executable:
            if path in files:
                (repo.path / path).chmod(0o755)
                repo.run("add", "--", path)
        return repo.commit(message)

    repo = GitRepo.init(tmp_path / "workspace")
    base = commit("base", {OLD_ITEM: BROKEN_ITEM, "README.md": "# r\n", **base_files})
    repo.checkout("feature", new=True)
    head = commit("the pull request", {NEW_ITEM: BROKEN_ITEM, **pr_files})
    repo.checkout("main")
    repo.checkout("pull-merge", new=True)
    merge = repo.merge("feature", "Merge feature into main")
    return Workspace(repo, base, head, merge)


def run_pr(
    tmp_path: Path,
    events_dir: Path,
    ws: Workspace,
    api: str = OFFLINE_API,
    preexec: Callable[[], None] | None = None,
    runner_env: Mapping[str, str] | None = None,
    **inputs: str,
) -> ActionRun:
    event = _event(events_dir, "pull_request.synchronize.22.json", ws, tmp_path)
    inputs = {"github-token": "", **inputs} if api == OFFLINE_API else inputs
    runner_env = {"JUDGE_WITNESS": str(witness(tmp_path)), **(runner_env or {})}
    return _run_action(
        tmp_path, ws, "pull_request", event, api, inputs, ws.merge, preexec=preexec, runner_env=runner_env
    )


def scores(run: ActionRun) -> dict[str, int | None]:
    assert run.results is not None, run.stdout + run.stderr
    (result,) = [r for r in run.results["results"] if r["path"] == NEW_ITEM]
    return {d["id"]: d["score"] for d in result["dimensions"] if d["kind"] == "judge"}


@pytest.fixture
def github(github_contract: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(github_contract) as server:
        yield server
        assert server.violations == []


# ------------------------------------------------------------------ the policy comes from the base


def test_a_lenient_rubric_and_judge_in_the_pr_are_reported_not_applied(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    ws = pull_request(tmp_path, {".evalgate.yml": "rubric: research-loop\n"}, LENIENT_PR)
    run = run_pr(tmp_path, events_dir, ws, github.url, comment="always")

    assert run.results is not None, run.stdout + run.stderr
    assert run.results["rubric"]["id"] == "research-loop"  # the base's rubric judged the PR
    assert run.results["summary"]["verdict"] == "FAIL" and run.returncode == 1
    assert run.results["judges"] == []
    assert not witnessed(tmp_path)  # the PR's own judge never ran

    expected = [
        "changed policy files: .evalgate.yml, judge.py, lenient.yml",
        "rubric: research-loop → lenient.yml",
        "judges added: command:python3 judge.py",
        "rubric research-loop",  # the rubric comparison names both versions ...
        "rubric policy.min_mean: 4.0 → 1.0",  # ... and what its gate would loosen
    ]
    assert all(any(line.startswith(e) for line in run.results["policy_changes"]) for e in expected)
    (check_run,) = github.check_runs.values()
    (comment,) = github.comments.values()
    for text in (run.summary, check_run["output"]["summary"], comment["body"]):
        assert "Policy changes in this pull request (not applied)" in text
        assert "changed policy files: .evalgate.yml, judge.py, lenient.yml" in text
        assert "rubric policy.min\\_mean: 4.0 → 1.0" in text  # markdown-escaped, as all PR-supplied text
    warnings = [line for line in run.stdout.splitlines() if line.startswith("::warning file=")]
    assert {w.split(",")[0] for w in warnings} == {
        "::warning file=.evalgate.yml",
        "::warning file=judge.py",
        "::warning file=lenient.yml",
    }


def test_policy_from_head_keeps_todays_behaviour(tmp_path: Path, events_dir: Path) -> None:
    ws = pull_request(tmp_path, {".evalgate.yml": "rubric: research-loop\n"}, LENIENT_PR)
    run = run_pr(tmp_path, events_dir, ws, **{"policy-from": "head"})

    assert run.results is not None, run.stdout + run.stderr
    assert run.results["rubric"]["id"] == "lenient"
    assert scores(run) == {"quality": 5}
    assert run.results["summary"]["verdict"] == "PASS" and run.returncode == 0
    assert witnessed(tmp_path)  # what the base policy prevents, opted into knowingly
    assert "policy_changes" not in run.results and "Policy changes" not in run.summary


def test_a_rubric_file_is_read_from_the_base_commit_not_the_checkout(
    tmp_path: Path, events_dir: Path
) -> None:
    judge = workflow_judge(tmp_path, 2)
    base = GATED
    # the PR loosens the rubric file in place; .evalgate.yml is untouched
    ws = pull_request(tmp_path, base, {"policy/gate.yml": LENIENT_RUBRIC.replace("id: lenient", "id: gate")})
    run = run_pr(tmp_path, events_dir, ws, judges=judge)

    assert scores(run) == {"quality": 2}
    assert run.results is not None and run.results["summary"]["verdict"] == "FAIL" and run.returncode == 1
    changes = run.results["policy_changes"]
    assert changes[0] == "changed policy files: policy/gate.yml"
    assert "rubric policy.min_each: 3 → 1" in changes and "rubric policy.fail_on_score: 1 → (none)" in changes


def _acronym_findings(run: ActionRun) -> list[str]:
    assert run.results is not None, run.stdout + run.stderr
    (result,) = [r for r in run.results["results"] if r["path"] == NEW_ITEM]
    (dim,) = [d for d in result["dimensions"] if d["id"] == "acronym_expansion"]
    return [f["message"] for f in dim["findings"]]


def test_the_acronym_glossary_is_read_from_the_base_commit_not_the_checkout(
    tmp_path: Path, events_dir: Path
) -> None:
    # the base's glossary accepts nothing; the PR's would accept the item's unexpanded LLM and CI
    base = {
        ".evalgate.yml": "acronyms: {glossary: policy/glossary.yml}\n",
        "policy/glossary.yml": "understood: []\n",
    }
    ws = pull_request(tmp_path, base, {"policy/glossary.yml": "understood: [LLM, CI]\n"})

    run = run_pr(tmp_path, events_dir, ws)
    assert any("LLM" in m for m in _acronym_findings(run)), _acronym_findings(run)
    assert run.results is not None
    assert run.results["policy_changes"][0] == "changed policy files: policy/glossary.yml"

    head = run_pr(tmp_path, events_dir, ws, **{"policy-from": "head"})
    assert not any("LLM" in m or " CI" in m for m in _acronym_findings(head)), _acronym_findings(head)


def test_a_glossary_the_pr_adds_applies_after_merge(tmp_path: Path, events_dir: Path) -> None:
    base = {
        ".evalgate.yml": "acronyms: {glossary: policy/glossary.yml}\n",
        "policy/glossary.yml": "understood: []\n",
    }
    ws = pull_request(
        tmp_path, {".evalgate.yml": base[".evalgate.yml"]}, {"policy/glossary.yml": "understood: [LLM]\n"}
    )
    run = run_pr(tmp_path, events_dir, ws)

    assert run.returncode == 1, run.stdout + run.stderr  # the item fails, but the run is not a config error
    assert any("LLM" in m for m in _acronym_findings(run))


def test_a_base_without_configuration_applies_the_defaults_with_a_notice(
    tmp_path: Path, events_dir: Path
) -> None:
    ws = pull_request(tmp_path, {}, LENIENT_PR)
    run = run_pr(tmp_path, events_dir, ws)

    assert run.results is not None, run.stdout + run.stderr
    assert run.results["rubric"]["id"] == "research-loop" and run.returncode == 1
    assert not witnessed(tmp_path)
    assert run.results["policy_changes"][1].startswith(
        "the base commit has no .evalgate.yml: this run applied"
    )
    assert "the configuration this pull request adds applies after merge" in run.summary
    assert (
        "::notice title=evalgate policy (not applied)::This pull request introduces .evalgate.yml"
        in run.stdout
    )


# ------------------------------------------------------------------ no program of the PR's runs


def test_a_base_judge_whose_program_the_pr_changes_runs_as_the_base_has_it(
    tmp_path: Path, events_dir: Path
) -> None:
    base = {
        "policy/gate.yml": GATE_RUBRIC,
        "tools/judge.py": judge_script(1),
        ".evalgate.yml": "rubric: policy/gate.yml\njudges: ['command:python3 tools/judge.py']\n",
    }
    ws = pull_request(tmp_path, base, {"tools/judge.py": judge_script(5, marker="judge-ran")})
    run = run_pr(tmp_path, events_dir, ws)

    assert scores(run) == {"quality": 1} and run.returncode == 1, run.stdout + run.stderr
    assert not witnessed(tmp_path)  # the PR's version never ran
    assert run.results is not None and "changed policy files: tools/judge.py" in run.results["policy_changes"]

    # the same checkout with the PR's policy (another job: its own RUNNER_TEMP, so its own cache): the
    # changed program runs (the base's tree is what stops it)
    (tmp_path / "head").mkdir()
    head = run_pr(tmp_path / "head", events_dir, ws, **{"policy-from": "head"})
    assert head.returncode == 0 and witnessed(tmp_path / "head")


def test_an_unchanged_base_judge_in_the_workspace_runs(tmp_path: Path, events_dir: Path) -> None:
    base = {
        "policy/gate.yml": GATE_RUBRIC,
        "tools/judge.py": judge_script(4, marker="judge-ran"),
        ".evalgate.yml": "rubric: policy/gate.yml\njudges: ['command:python3 tools/judge.py']\n",
    }
    ws = pull_request(tmp_path, base, {})
    run = run_pr(tmp_path, events_dir, ws)
    assert scores(run) == {"quality": 4} and run.returncode == 0
    assert witnessed(tmp_path) and "policy_changes" not in (run.results or {})


# ------------------------------------------------------------------ shallow checkouts


def _shallow_pr(tmp_path: Path) -> tuple[Workspace, GitRepo]:
    """The PR's merge commit cloned at depth 1 from a bare origin, with the base several commits back."""
    work = GitRepo.init(tmp_path / "author")
    work.commit("start", {OLD_ITEM: BROKEN_ITEM, ".evalgate.yml": "rubric: research-loop\n"})
    for i in range(3):
        work.commit(f"base {i}", {"README.md": f"# r{i}\n"})
    base = work.head()
    work.checkout("feature", new=True)
    head = work.commit("the pull request", {NEW_ITEM: BROKEN_ITEM, **LENIENT_PR})
    work.checkout("main")
    work.checkout("pull-merge", new=True)
    merge = work.merge("feature", "Merge feature into main")
    origin = work.publish(tmp_path / "origin.git")
    ci = origin.clone(tmp_path / "workspace", depth=1, branch="pull-merge")
    return Workspace(ci, base, head, merge), origin


def test_a_shallow_checkout_is_deepened_to_read_the_base_policy(tmp_path: Path, events_dir: Path) -> None:
    ws, _ = _shallow_pr(tmp_path)
    assert ws.repo.run("rev-parse", "--is-shallow-repository") == "true"
    run = run_pr(tmp_path, events_dir, ws)

    assert run.results is not None, run.stdout + run.stderr
    assert run.results["rubric"]["id"] == "research-loop" and run.returncode == 1
    assert not witnessed(tmp_path)


def test_a_shallow_checkout_that_cannot_reach_the_base_exits_2_naming_fetch_depth(
    tmp_path: Path, events_dir: Path
) -> None:
    ws, _ = _shallow_pr(tmp_path)
    ws.repo.run("remote", "set-url", "origin", str(tmp_path / "gone.git"))
    run = run_pr(tmp_path, events_dir, ws)

    assert run.returncode == 2, run.stdout + run.stderr
    (error,) = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert ws.base in error and "fetch-depth: 0" in error
    assert "Traceback" not in run.stderr


# ------------------------------------------------------------------ planted judge cache


def _forge_entries(ws: Workspace, judge: str, cache_dir: str, tmp_path: Path) -> None:
    """Judge the PR's failing item on its branch with the same judge spec answering 5s, caching in
    `cache_dir`: the forged entries."""
    ws.repo.checkout("feature")
    proc = subprocess.run(
        [sys.executable, "-m", "evalgate", "check", NEW_ITEM, "--judge", judge, "--cache-dir", cache_dir],
        cwd=ws.path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(ROOT), "JUDGE_SCORE": "5"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr  # fives pass


def _forge_cache(ws: Workspace, judge: str, cache_dir: str, tmp_path: Path) -> None:
    """What the PR author of issue 18 did: forge the entries, then commit them."""
    _forge_entries(ws, judge, cache_dir, tmp_path)
    ws.repo.run("add", "-f", "--", cache_dir)
    ws.head = ws.repo.commit("add cached judgements")
    _remerge(ws)


def _remerge(ws: Workspace) -> None:
    """The test merge commit again, after a push to the PR's branch, checked out."""
    ws.repo.checkout("pull-merge")
    ws.repo.reset_hard("main")
    ws.merge = ws.repo.merge("feature", "Merge feature into main")


def _push_symlink(ws: Workspace, name: str, target: str | Path) -> None:
    """The PR pushes a symlink `name` -> `target`; its merge commit is checked out again."""
    ws.repo.checkout("feature")
    (ws.path / name).symlink_to(target)
    ws.repo.run("add", "--", name)
    ws.head = ws.repo.commit(f"link {name}")
    _remerge(ws)


@pytest.mark.parametrize(
    ("cache_config", "cache_dir"),
    [("", ".evalgate-cache"), ("cache-dir: judge-cache\n", "judge-cache")],
    ids=["default-cache", "configured-cache-in-workspace"],
)
def test_forged_cache_entries_committed_by_the_pr_get_the_real_judges_verdict(
    tmp_path: Path, events_dir: Path, cache_config: str, cache_dir: str
) -> None:
    judge = workflow_judge(tmp_path, 1)  # the workflow's judge, outside the workspace: answers 1s
    config = "rubric: policy/gate.yml\n" + cache_config
    ws = pull_request(tmp_path, {**GATED, ".evalgate.yml": config}, {})
    _forge_cache(ws, judge, cache_dir, tmp_path)

    # the forgery is good: evalgate check in the checkout, reading that directory, believes it
    forged = subprocess.run(
        [sys.executable, "-m", "evalgate", "check", NEW_ITEM, "--judge", judge, "--format", "json"],
        cwd=ws.path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
    )
    (cached,) = json.loads(forged.stdout)["results"]
    assert forged.returncode == 0 and {d["score"] for d in cached["dimensions"]} == {5}

    run = run_pr(tmp_path, events_dir, ws, judges=judge)
    assert scores(run) == {"quality": 1}  # the real judge's answer
    assert run.results is not None and run.results["summary"]["judge_calls"] == 1
    assert run.results["summary"]["verdict"] == "FAIL" and run.returncode == 1
    ignored = f"cache-dir {cache_dir} is not read on a pull request"
    if cache_config:
        assert any(n.startswith(ignored) for n in run.results["summary"]["notes"])
        assert f"::notice::evalgate: {ignored}" in run.stdout
    else:
        assert ignored not in run.stdout  # the default cache was never in the workspace
    assert list((tmp_path / "runner" / "evalgate-cache").rglob("*.json"))  # the run cached outside


# ------------------------------------------------------------------ the judge's environment


def _environment_judge(tmp_path: Path) -> tuple[Path, Path]:
    """A command judge that writes the environment it was given to a file, then scores 1."""
    dump = tmp_path / "tools" / "env-judge.py"
    dump.parent.mkdir()
    seen = witness(tmp_path) / "seen-env.json"
    keep_env = f"import json, os\nPath({str(seen)!r}).write_text(json.dumps(dict(os.environ)))\n"
    dump.write_text("from pathlib import Path\n" + keep_env + judge_script(1))
    return dump, seen


def test_a_command_judge_sees_no_inputs_runner_tokens_or_github_token(
    tmp_path: Path, events_dir: Path
) -> None:
    dump, seen = _environment_judge(tmp_path)
    ws = pull_request(tmp_path, GATED, {})
    run = run_pr(tmp_path, events_dir, ws, api=OFFLINE_API, judges=f"command:python3 {dump}")
    assert run.returncode == 1, run.stdout + run.stderr

    env = json.loads(seen.read_text())
    assert env["PATH"] and env["GITHUB_REPOSITORY"]  # an ordinary environment otherwise
    leaked = [k for k in env if k.startswith(("INPUT_", "ACTIONS_")) or k in ("GITHUB_TOKEN", "GH_TOKEN")]
    assert leaked == []


def test_the_job_token_given_to_copilot_never_reaches_a_command_judge(
    tmp_path: Path, events_dir: Path, github: FakeGitHub
) -> None:
    """Setup 3 (`copilot-token: ${{ github.token }}`) with a `command:` judge beside it: the job's token
    can post check runs, so it is the Copilot CLI's alone; a command judge gets no COPILOT_GITHUB_TOKEN."""
    from tests.github.test_entrypoint import GITHUB_TOKEN

    dump, seen = _environment_judge(tmp_path)
    ws = pull_request(tmp_path, GATED, {})
    run = run_pr(
        tmp_path,
        events_dir,
        ws,
        api=github.url,
        judges=f"command:python3 {dump}",
        comment="never",
        **{"github-token": GITHUB_TOKEN, "copilot-token": GITHUB_TOKEN},
    )
    assert run.returncode == 1, run.stdout + run.stderr
    env = json.loads(seen.read_text())
    assert GITHUB_TOKEN not in env.values() and "COPILOT_GITHUB_TOKEN" not in env
    assert not any(k.startswith("EVALGATE_JOB_TOKEN") for k in env)


def test_a_merge_group_is_judged_by_its_base_policy(tmp_path: Path) -> None:
    ws = pull_request(tmp_path, {".evalgate.yml": "rubric: research-loop\n"}, LENIENT_PR)
    assert ws.merge is not None
    event = tmp_path / "merge_group.json"
    group = {"base_sha": ws.base, "head_sha": ws.merge, "head_ref": "refs/heads/gh-readonly-queue/main/pr-7"}
    event.write_text(json.dumps({"action": "checks_requested", "merge_group": group}))
    runner_env = {"JUDGE_WITNESS": str(witness(tmp_path))}
    run = _run_action(
        tmp_path, ws, "merge_group", event, OFFLINE_API, {"github-token": ""}, ws.merge, runner_env=runner_env
    )

    assert run.results is not None, run.stdout + run.stderr
    assert run.results["rubric"]["id"] == "research-loop" and run.returncode == 1
    assert not witnessed(tmp_path)
    assert "rubric: research-loop → lenient.yml" in run.results["policy_changes"]


# ------------------------------------------------------------------ review r1: attacks on the guarantee


def test_a_file_named_like_the_rubric_pack_in_the_pr_does_not_replace_the_pack(
    tmp_path: Path, events_dir: Path
) -> None:
    # `rubric: research-loop` (also the default) names a shipped pack, but load_rubric prefers a path
    # that exists: the PR adds a lenient one-dimension rubric file called exactly that, at the root
    fives = workflow_judge(tmp_path, 5)
    lenient = LENIENT_RUBRIC.replace("id: lenient", "id: research-loop")
    for n, base_files in enumerate(({}, {".evalgate.yml": "rubric: research-loop\n"})):
        ws = pull_request(tmp_path / f"pr{n}", base_files, {"research-loop": lenient})
        run = run_pr(tmp_path, events_dir, ws, judges=fives)
        assert run.results is not None, run.stdout + run.stderr
        (result,) = [r for r in run.results["results"] if r["path"] == NEW_ITEM]
        assert "quality" not in {d["id"] for d in result["dimensions"]}  # the pack's dimensions
        assert run.results["summary"]["verdict"] != "PASS" and run.returncode == 1
        assert "changed policy files: research-loop" in run.results["policy_changes"]


def test_a_submodule_the_base_judge_imports_from_beside_it_is_not_the_prs(
    tmp_path: Path, events_dir: Path
) -> None:
    # the base's judge keeps its scoring in a package beside it; the PR changes only the submodule
    scoring = "def score():\n    return {}\n"
    judge = judge_script(1).replace("import os, sys", "import os, sys\nfrom judgelib import scoring")
    judge = judge.replace("score = os.environ.get('JUDGE_SCORE', '1')", "score = scoring.score()")
    base = {
        **GATED,
        ".evalgate.yml": "rubric: policy/gate.yml\njudges: ['command:python3 tools/judge.py']\n",
        "tools/judge.py": judge,
        "tools/judgelib/__init__.py": "",
        "tools/judgelib/scoring.py": scoring.format(1),
    }
    leave = "import os, pathlib\npathlib.Path(os.environ['JUDGE_WITNESS'], 'judge-ran').write_text('ran')\n"
    ws = pull_request(tmp_path, base, {"tools/judgelib/scoring.py": leave + scoring.format(5)})
    run = run_pr(tmp_path, events_dir, ws)

    assert not witnessed(tmp_path)  # the PR's code never ran
    assert scores(run) == {"quality": 1} and run.returncode == 1, run.stdout + run.stderr


def test_forged_cache_entries_reached_through_a_symlink_the_pr_adds_are_not_read(
    tmp_path: Path, events_dir: Path
) -> None:
    # the base caches in build/judge-cache (untracked); the PR commits forged entries elsewhere and
    # a symlink `build` -> that place, so the path the base names now leads to them
    judge = workflow_judge(tmp_path, 1)  # the workflow's judge, outside the workspace: answers 1s
    ws = pull_request(
        tmp_path, {**GATED, ".evalgate.yml": GATED[".evalgate.yml"] + "cache-dir: build/cache\n"}, {}
    )
    _forge_cache(ws, judge, "forged/cache", tmp_path)
    _push_symlink(ws, "build", "forged")
    assert list((ws.path / "build" / "cache").rglob("*.json"))  # the forgery is where the base looks

    run = run_pr(tmp_path, events_dir, ws, judges=judge)
    assert scores(run) == {"quality": 1}  # the real judge's answer
    assert run.results is not None and run.results["summary"]["verdict"] == "FAIL" and run.returncode == 1
    assert "cache-dir build/cache is not read on a pull request" in run.stdout


def test_a_base_rubric_path_that_leaves_and_reenters_the_workspace_is_read_from_the_base(
    tmp_path: Path, events_dir: Path
) -> None:
    # `..` out of the workspace and back in (the checkout is .../workspace), and the same as an
    # absolute path through a sibling: both name policy/gate.yml, which the PR loosens in place
    judge = workflow_judge(tmp_path, 2)
    loose = LENIENT_RUBRIC.replace("id: lenient", "id: gate")
    for n, name in enumerate(("../workspace/policy/gate.yml", "{root}/tools/../workspace/policy/gate.yml")):
        root = tmp_path / f"pr{n}"
        config = f"rubric: {name.format(root=root)}\n"
        ws = pull_request(root, {**GATED, ".evalgate.yml": config}, {"policy/gate.yml": loose})
        run = run_pr(tmp_path, events_dir, ws, judges=judge)
        assert scores(run) == {"quality": 2}
        assert run.results is not None and run.results["summary"]["verdict"] == "FAIL", name
        assert run.returncode == 1


def test_paths_and_the_config_input_come_from_the_base(tmp_path: Path, events_dir: Path) -> None:
    # the PR narrows `paths` so its failing item is not evaluated, in the file the `config` input
    # names (not .evalgate.yml), and adds an .evalgate.yml of its own beside the item
    base = {"ci/evalgate.yml": "rubric: research-loop\npaths: 'Research/**/*.md'\n"}
    narrowed = {
        "ci/evalgate.yml": "rubric: research-loop\npaths: 'nothing/**/*.md'\n",
        ".evalgate.yml": "paths: 'nothing/**/*.md'\n",
        "Research/completed/.evalgate.yml": "paths: 'nothing/**/*.md'\n",
    }
    ws = pull_request(tmp_path, base, narrowed)
    run = run_pr(tmp_path, events_dir, ws, config="ci/evalgate.yml")

    assert run.results is not None, run.stdout + run.stderr
    assert [r["path"] for r in run.results["results"]] == [NEW_ITEM]  # still evaluated
    assert run.results["summary"]["verdict"] == "FAIL" and run.returncode == 1
    assert "paths: Research/**/*.md → nothing/**/*.md" in run.results["policy_changes"]

    head = run_pr(tmp_path, events_dir, ws, config="ci/evalgate.yml", **{"policy-from": "head"})
    assert head.results is not None and head.results["results"] == [] and head.returncode == 0


def test_forged_entries_in_a_kept_cache_outside_the_workspace_are_not_read_on_a_pull_request(
    tmp_path: Path, events_dir: Path
) -> None:
    # docs/action.md keeps the cache in /github/home with actions/cache, which on a pull request restores
    # the pull request's own scope first. A first push changed the workflow to save forged entries
    # there, a second changed it back: this run, with the trusted workflow, finds them in its cache-dir
    judge = workflow_judge(tmp_path, 1)
    ws = pull_request(tmp_path, GATED, {})
    kept = tmp_path / "github-home" / "evalgate-cache"
    _forge_entries(ws, judge, str(kept), tmp_path)  # nothing committed: they came with the cache
    ws.repo.checkout("pull-merge")
    assert list(kept.rglob("*.json"))

    run = run_pr(tmp_path, events_dir, ws, judges=judge, **{"cache-dir": str(kept)})
    assert scores(run) == {"quality": 1}  # the real judge's answer
    assert run.results is not None and run.results["summary"]["verdict"] == "FAIL" and run.returncode == 1
    assert f"cache-dir {kept} is not read on a pull request" in run.stdout


def test_a_results_file_symlink_committed_by_the_pr_does_not_redirect_the_write(
    tmp_path: Path, events_dir: Path
) -> None:
    # the action (root in its container) writes evalgate-results.json into the workspace: the PR
    # commits a symlink by that name to a file of the runner's, outside the workspace
    victim = tmp_path / "runner-file"
    victim.write_text("the runner's\n")
    ws = pull_request(tmp_path, {}, {})
    _push_symlink(ws, "evalgate-results.json", victim)

    run = run_pr(tmp_path, events_dir, ws)
    assert victim.read_text() == "the runner's\n"
    assert not (ws.path / "evalgate-results.json").is_symlink()
    assert run.results is not None and run.results["summary"]["verdict"] == "FAIL" and run.returncode == 1


@pytest.mark.parametrize(
    ("history", "link"), [("history.jsonl", "history.jsonl"), ("logs/history.jsonl", "logs")]
)
def test_a_history_file_symlink_committed_by_the_pr_does_not_redirect_the_append(
    tmp_path: Path, events_dir: Path, history: str, link: str
) -> None:
    # the base keeps a score history in the workspace; the PR makes that path (or a directory above
    # it) a symlink to the runner's files outside the workspace
    runner = tmp_path / "runner-files"
    runner.mkdir()
    (runner / "history.jsonl").write_text("the runner's\n")
    ws = pull_request(tmp_path, {".evalgate.yml": f"history: {history}\n"}, {})
    _push_symlink(ws, link, runner / "history.jsonl" if link == history else runner)

    run = run_pr(tmp_path, events_dir, ws)
    assert run.results is not None and run.returncode == 1, run.stdout + run.stderr
    assert (runner / "history.jsonl").read_text() == "the runner's\n"
    assert f"::warning::evalgate could not publish: history {history}: leads outside" in run.stdout


def _calibration_record(tmp_path: Path, judge: str) -> str:
    """A passing calibration record of GATE_RUBRIC's version and prompt for `judge`."""
    from evalgate.judging.calibration import DimensionFigures, record_data
    from evalgate.judging.prompt import prompt_version
    from evalgate.rubric import load_rubric

    (tmp_path / "gate.yml").write_text(GATE_RUBRIC, encoding="utf-8")
    rubric = load_rubric(str(tmp_path / "gate.yml"))
    perfect = DimensionFigures(
        "quality", 4, 1.0, 1.0, dict.fromkeys(("cohen", "weighted_linear", "weighted_quadratic"), 1.0)
    )
    data = record_data(
        date="2026-12-04T09:00:00Z",
        rubric={"id": rubric.id, "version": rubric.version, "prompt": prompt_version(rubric)},
        judges=[(judge, [])],
        gold={"directory": "gold", "items": 4, "annotators": ["author"]},
        floors={},
        passed=True,
        failures=[],
        overall=perfect,
        dimensions=[perfect],
        human_agreement={},
    )
    return json.dumps(data)


def test_the_calibration_record_is_read_from_the_base_commit_not_the_checkout(
    tmp_path: Path, events_dir: Path
) -> None:
    """With require-calibration, a judged failure counts only while the record is current. A pull
    request that breaks the record (to have its judged failures not counted) changes nothing: the
    record is the policy's, read from the base commit like the rubric."""
    judge = workflow_judge(tmp_path, 1)  # the judge fails every document (any 1)
    base = {
        **GATED,
        ".evalgate.yml": (
            "rubric: policy/gate.yml\ncalibration: policy/calibration.json\nrequire-calibration: true\n"
        ),
        "policy/calibration.json": _calibration_record(tmp_path, judge),
    }
    ws = pull_request(tmp_path, base, {"policy/calibration.json": "{}\n"})

    run = run_pr(tmp_path, events_dir, ws, judges=judge)
    assert run.results is not None, run.stdout + run.stderr
    assert run.results["summary"]["calibration"]["current"] is True
    assert run.returncode == 1 and run.results["summary"]["verdict"] == "FAIL"
    assert "changed policy files: policy/calibration.json" in run.results["policy_changes"]

    head = run_pr(tmp_path, events_dir, ws, judges=judge, **{"policy-from": "head"})
    assert head.results is not None and head.results["summary"]["calibration"]["current"] is False
    assert head.returncode == 0 and head.results["summary"]["uncounted_judged_failures"] == 1
