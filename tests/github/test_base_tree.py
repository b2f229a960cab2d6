"""A base judge runs in a copy of the base commit's whole tree, through entrypoint.py on a real pull
request checkout: whatever the judge runs or reads by a path it was given (a shell wrapper sourcing
`./lib.sh`, a Node script's `require('./lib')`, a program found on a PATH entry in the workspace, a
script named by an absolute path into the workspace) is the base commit's, not the pull request's.

Before, a judge was checked file by file (the paths on its command line, what Python could import
beside it): the pull request changing `lib.sh` under an unchanged `judge.sh` ran the pull request's
code as the judge, and it passed its own failing item."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.github.test_policy_from_base import GATE_RUBRIC, pull_request, run_pr, scores, witnessed

SHELL_JUDGE = (  # reads the prompt, prints a one-row score table with $SCORE
    "cat >/dev/null\n"
    "printf '| dimension | score | evidence | reasoning |\\n|---|---|---|---|\\n"
    '| quality | %s | It depends. | judged |\\n\\nOVERALL: PASS\\n\' "$SCORE"\n'
)
BASE_LIB = "SCORE=1\n"
PR_LIB = ': > "$JUDGE_WITNESS/judge-ran"\nSCORE=5\n'  # the pull request's code: leaves a mark, scores 5
NODE_JUDGE = """\
const lib = require('./lib');
require('fs').readFileSync(0);
console.log('| dimension | score | evidence | reasoning |\\n|---|---|---|---|');
console.log(`| quality | ${lib.score()} | It depends. | judged |\\n\\nOVERALL: PASS`);
"""
NODE_BASE_LIB = "module.exports = { score: () => 1 };\n"
NODE_PR_LIB = """\
require('fs').writeFileSync(require('path').join(process.env.JUDGE_WITNESS, 'judge-ran'), 'ran');
module.exports = { score: () => 5 };
"""


def _policy(judge: str) -> dict[str, str]:
    return {
        "policy/gate.yml": GATE_RUBRIC,
        ".evalgate.yml": f"rubric: policy/gate.yml\njudges: ['{judge}']\n",
    }


CASES = {
    # the wrapper goes to its own directory and sources the library beside it
    "sh-sources-./lib.sh": (
        "command:sh tools/judge.sh",
        {"tools/judge.sh": 'cd "$(dirname "$0")"\n. ./lib.sh\n' + SHELL_JUDGE, "tools/lib.sh": BASE_LIB},
        {"tools/lib.sh": PR_LIB},
    ),
    # the wrapper sources a path relative to its working directory, the repository's root
    "sh-sources-tools/lib.sh": (
        "command:sh tools/judge.sh",
        {"tools/judge.sh": ". tools/lib.sh\n" + SHELL_JUDGE, "tools/lib.sh": BASE_LIB},
        {"tools/lib.sh": PR_LIB},
    ),
    "node-require-./lib": (
        "command:node tools/judge.js",
        {"tools/judge.js": NODE_JUDGE, "tools/lib.js": NODE_BASE_LIB},
        {"tools/lib.js": NODE_PR_LIB},
    ),
    # the same judge, with the wrapper named by an absolute path into the workspace (as a workflow's
    # `judges` input may: ${{ github.workspace }}/tools/judge.sh)
    "absolute-path": (
        "command:sh {workspace}/tools/judge.sh",
        {"tools/judge.sh": 'cd "$(dirname "$0")"\n. ./lib.sh\n' + SHELL_JUDGE, "tools/lib.sh": BASE_LIB},
        {"tools/lib.sh": PR_LIB},
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_what_a_base_judge_runs_by_a_relative_path_is_the_base_commits(
    tmp_path: Path, events_dir: Path, case: str
) -> None:
    judge, base_files, pr_files = CASES[case]
    if judge.startswith("command:node") and shutil.which("node") is None:
        pytest.skip("needs node on PATH")
    workspace = tmp_path / "workspace"
    judge = judge.format(workspace=workspace)
    in_config = "{workspace}" not in CASES[case][0]
    ws = pull_request(
        tmp_path, {**base_files, **(_policy(judge) if in_config else _policy("copilot"))}, pr_files
    )
    inputs = {} if in_config else {"judges": judge}
    run = run_pr(tmp_path, events_dir, ws, **inputs)

    assert not witnessed(tmp_path), run.stdout + run.stderr  # the pull request's code never ran
    assert scores(run) == {"quality": 1}  # the base's judge, whole
    assert run.results is not None and run.results["summary"]["verdict"] == "FAIL" and run.returncode == 1


def test_a_program_found_on_a_path_entry_in_the_workspace_is_the_base_commits(
    tmp_path: Path, events_dir: Path
) -> None:
    # an earlier step put the repository's bin/ on PATH (GITHUB_PATH); the base names a bare program
    base = {**_policy("command:gate-judge"), "bin/gate-judge": "#!/bin/sh\nSCORE=1\n" + SHELL_JUDGE}
    pr = {"bin/gate-judge": "#!/bin/sh\n" + PR_LIB + SHELL_JUDGE}
    ws = pull_request(tmp_path, base, pr, executable=("bin/gate-judge",))
    assert os.access(ws.path / "bin" / "gate-judge", os.X_OK)
    path = os.pathsep.join([str(ws.path / "bin"), os.environ["PATH"]])
    run = run_pr(tmp_path, events_dir, ws, runner_env={"PATH": path})

    assert not witnessed(tmp_path), run.stdout + run.stderr
    assert scores(run) == {"quality": 1} and run.returncode == 1


def test_sandbox_pins_paths_into_the_workspace_and_leaves_others(tmp_path: Path) -> None:
    from evalgate.judging.backends.process import JudgeSandbox

    workspace, tree = tmp_path / "workspace", tmp_path / "tree"
    sandbox = JudgeSandbox(tree=tree, workspace=workspace)
    assert sandbox.pinned(f"{workspace}/tools/judge.sh") == f"{tree}/tools/judge.sh"
    assert sandbox.pinned("../workspace/tools/judge.sh") == f"{tree}/tools/judge.sh"  # out and back in
    assert sandbox.pinned(str(workspace)) == str(tree)
    assert sandbox.pinned("tools/judge.sh") == "tools/judge.sh"  # resolves in the tree, its cwd
    assert sandbox.pinned("/usr/bin/python3") == "/usr/bin/python3"  # the runner's
    assert sandbox.pinned("../elsewhere/x") == "../elsewhere/x"
    assert sandbox.pinned_argument(f"--rubric={workspace}/policy/x.yml") == f"--rubric={tree}/policy/x.yml"
    env = sandbox.pinned_environment(
        {
            "PATH": os.pathsep.join([f"{workspace}/bin", "/usr/bin", ""]),
            "PYTHONPATH": f"{workspace}/src",
            "GITHUB_WORKSPACE": str(workspace),
            "HOME": str(workspace / "home"),  # not a place code is looked up in: left alone
        }
    )
    assert env["PATH"] == os.pathsep.join([f"{tree}/bin", "/usr/bin", ""])
    assert env["PYTHONPATH"] == f"{tree}/src" and env["GITHUB_WORKSPACE"] == str(tree)
    assert env["HOME"] == str(workspace / "home")
    assert JudgeSandbox().pinned(f"{workspace}/x") == f"{workspace}/x"  # no tree: nothing to pin
