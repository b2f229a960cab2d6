"""No judge process can reach a token, through entrypoint.py on real git repositories.

The attack (issue 26): code that runs as a judge (a base judge script that sourced a file the pull
request changed, before judges ran in the base commit's tree) read GITHUB_TOKEN and
INPUT_GITHUB-TOKEN from its parent's /proc/PID/environ: removing a variable from os.environ does not
clear the environment block a process was started with. Here a judge reads every ancestor's
/proc/PID/environ and cmdline, the workspace's .git/config (where actions/checkout keeps the job
token) and a credentials file in RUNNER_TEMP (where actions/checkout v6 keeps it), and reports what
it read; while it waits, the test reads the same processes' environment blocks itself (it may: it is
their user, or root), so the environment part is checked whoever the judge runs as. Where the tests
run as root, as the action's container does, the judge must also be `nobody` and read nothing of
root's; where they do not, that part is skipped (there is no other user to drop to).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.github.test_entrypoint import (
    BROKEN_ITEM,
    COPILOT_TOKEN,
    GITHUB_TOKEN,
    NEW_ITEM,
    Workspace,
    _event,
    _run_action,
)
from tests.github.test_policy_from_base import (
    GATED,
    OFFLINE_API,
    judge_script,
    pull_request,
    run_pr,
    scores,
    witness,
)
from tests.support import openai_server
from tests.support.gitrepo import GitRepo
from tests.support.judge_user import DROPS_PRIVILEGES, judge_python
from tests.support.openai_server import ModelServer, ServerReply

model_server = openai_server.model_server  # the fixture, under its own name
CHECKOUT_SECRET = "ghs_checkoutExtraHeaderToken0123456789"  # actions/checkout's persisted credential
SECRETS = (GITHUB_TOKEN, COPILOT_TOKEN, CHECKOUT_SECRET)
WAIT_FOR_JUDGE_S = 120  # a bound for a judge that never starts (a broken run), not a timing assertion

SNOOP = """\
import json, os, sys
from pathlib import Path

sys.stdin.read()
witness = Path(os.environ["JUDGE_WITNESS"])

def attempt(path):
    try:
        return Path(path).read_bytes().decode("utf-8", "replace")
    except OSError as error:
        return f"<{error.strerror}>"

ancestors, pid = [], os.getppid()
while pid > 1:
    ancestors.append(pid)
    pid = int(attempt(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()[1])
seen = {
    "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(),
    "ancestors": {p: {k: attempt(f"/proc/{p}/{k}") for k in ("environ", "cmdline")} for p in ancestors},
    "files": {p: attempt(p) for p in os.environ["SNOOP_PATHS"].split(os.pathsep)},
    "environ": dict(os.environ),
}
with open(witness / "go") as gate:  # the test holds it open: this open returns at once
    (witness / "seen.tmp").write_text(json.dumps(seen))
    (witness / "seen.tmp").rename(witness / "seen.json")
    gate.read()  # the test looks at the processes above while this one waits for its word
"""


def _snooping_judge(tmp_path: Path) -> str:
    """The workflow's judge (outside the workspace), answering 1 after it has looked around."""
    script = tmp_path / "tools" / "snoop.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text(SNOOP + judge_script(1).split("\n", 2)[2])  # the reply part of a plain judge
    return f"command:{judge_python()} {script}"


def _workspace(tmp_path: Path, event: str) -> Workspace:
    if event == "pull_request":
        ws = pull_request(tmp_path, GATED, {})
    else:
        repo = GitRepo.init(tmp_path / "workspace")
        base = repo.commit("base", {"README.md": "# r\n", **GATED})
        ws = Workspace(repo, base, repo.commit("push", {NEW_ITEM: BROKEN_ITEM}))
    # what actions/checkout leaves with persist-credentials (v4: in .git/config)
    ws.repo.run("config", "http.https://github.com/.extraheader", f"AUTHORIZATION: basic {CHECKOUT_SECRET}")
    return ws


def _environ_blocks(pids: list[int]) -> dict[int, str]:
    """What the kernel shows of each process's environment block and command line to this user (the
    action's processes are this user's, or the tests are root; a process above the test run that
    belongs to another user is left out: no token was ever given to it)."""
    blocks = {}
    for pid in pids:
        try:
            parts = [
                Path(f"/proc/{pid}/{name}").read_bytes().decode("utf-8", "replace")
                for name in ("environ", "cmdline")
            ]
        except PermissionError:
            continue
        blocks[pid] = "\n".join(parts)
    return blocks


def _run_snooped(
    tmp_path: Path, events_dir: Path, event: str
) -> tuple[dict[str, Any], dict[int, str], int, Workspace]:
    ws = _workspace(tmp_path, event)
    name = "pull_request.synchronize.22.json" if event == "pull_request" else "push.4.json"
    event_path = _event(events_dir, name, ws, tmp_path)
    seen_dir = witness(tmp_path)
    os.mkfifo(seen_dir / "go")
    runner = tmp_path / "runner"
    runner.mkdir()
    credentials = runner / "git-credentials-6a1c.config"  # actions/checkout v6 keeps the token here
    credentials.write_text(f"[http]\n\textraheader = basic {CHECKOUT_SECRET}\n")
    readme = ws.path / "README.md"  # a file of the checkout: the pull request's, on a pull request
    snoop_paths = os.pathsep.join(str(p) for p in (ws.path / ".git" / "config", credentials, readme))
    inputs = {"judges": _snooping_judge(tmp_path), "copilot-token": COPILOT_TOKEN, "comment": "never"}
    runner_env = {"JUDGE_WITNESS": str(seen_dir), "SNOOP_PATHS": snoop_paths}
    found: dict[str, Any] = {}

    def look_while_the_judge_waits(proc: subprocess.Popen[str]) -> None:
        gate = os.open(seen_dir / "go", os.O_RDWR)  # held open, so the judge's read waits for the word
        try:
            deadline = time.monotonic() + WAIT_FOR_JUDGE_S
            while (
                not (seen_dir / "seen.json").exists() and proc.poll() is None and time.monotonic() < deadline
            ):
                time.sleep(0.05)
            assert (seen_dir / "seen.json").exists(), "the judge never ran"
            found["seen"] = json.loads((seen_dir / "seen.json").read_text())
            found["blocks"] = _environ_blocks([int(pid) for pid in found["seen"]["ancestors"]])
            found["pid"] = proc.pid
        finally:
            os.write(gate, b"go")  # releases the judge, whatever happened
            os.close(gate)

    run = _run_action(
        tmp_path, ws, event, event_path, OFFLINE_API, inputs, ws.merge or ws.head, None, runner_env,
        during=look_while_the_judge_waits,
    )  # fmt: skip
    assert run.results is not None and run.returncode == 1, run.stdout + run.stderr
    assert {d["id"]: d["score"] for r in run.results["results"] for d in r["dimensions"]} == {"quality": 1}
    return found["seen"], found["blocks"], found["pid"], ws


@pytest.mark.parametrize("event", ["pull_request", "push"])
def test_no_ancestor_of_a_judge_holds_a_token_in_its_environment_block(
    tmp_path: Path, events_dir: Path, event: str
) -> None:
    seen, blocks, entrypoint, _ = _run_snooped(tmp_path, events_dir, event)

    assert entrypoint in blocks and "GITHUB_REPOSITORY=octo-org/research" in blocks[entrypoint]  # read
    for pid, block in blocks.items():
        assert not [s for s in SECRETS if s in block], (
            f"a token in process {pid}'s environment or command line"
        )
    reported = json.dumps({k: v for k, v in seen.items() if k != "environ"})
    assert GITHUB_TOKEN not in reported and COPILOT_TOKEN not in reported
    # the judge's own environment: its own credential (the copilot-token) on purpose, never the job's
    assert GITHUB_TOKEN not in json.dumps(seen["environ"])
    assert seen["environ"].get("COPILOT_GITHUB_TOKEN") == COPILOT_TOKEN


@pytest.mark.skipif(not DROPS_PRIVILEGES, reason="needs root: the action drops privileges only as root")
@pytest.mark.parametrize("event", ["pull_request", "push"])
def test_judges_run_as_nobody_and_read_neither_roots_processes_nor_the_checkout_credentials(
    tmp_path: Path, events_dir: Path, event: str
) -> None:
    seen, _, entrypoint, ws = _run_snooped(tmp_path, events_dir, event)

    assert (seen["uid"], seen["gid"], seen["groups"]) == (65534, 65534, [])
    assert seen["ancestors"][str(entrypoint)]["environ"] == "<Permission denied>"
    git_config, credentials, readme = seen["files"].values()
    assert git_config == credentials == "<Permission denied>"
    assert CHECKOUT_SECRET not in json.dumps(seen)
    # a pull request's judges run in the base commit's tree, and its checkout is closed to them; on a
    # push the checkout is the trusted commit, which a judge may read
    assert readme == ("<Permission denied>" if event == "pull_request" else "# r\n")
    # the modes were given back afterwards
    assert (ws.path / ".git").stat().st_mode & 0o005 and (tmp_path / "runner").stat().st_mode & 0o001


def test_the_pipe_is_read_to_its_end_and_closed() -> None:
    from evalgate.github.credentials import CREDENTIALS_FD, receive_credentials

    read_end, write_end = os.pipe()
    os.write(write_end, json.dumps({"INPUT_GITHUB-TOKEN": GITHUB_TOKEN, "OTHER": "x"}).encode())
    os.close(write_end)
    env = {CREDENTIALS_FD: str(read_end), "PATH": "/bin"}
    assert receive_credentials(env) == {"INPUT_GITHUB-TOKEN": GITHUB_TOKEN}  # only what the action uses
    assert env == {"PATH": "/bin"}
    with pytest.raises(OSError):
        os.fstat(read_end)  # closed


@pytest.mark.copilot
@pytest.mark.skipif(not DROPS_PRIVILEGES, reason="needs root: the action drops privileges only as root")
def test_the_copilot_cli_runs_as_nobody_and_answers(
    tmp_path: Path, events_dir: Path, model_server: ModelServer, copilot_bin: str
) -> None:
    # the real CLI, started through a wrapper that notes who runs it (the CLI passes on no variable
    # a wrapper could be told a place by, so the place is written into it)
    seen = witness(tmp_path)
    wrapper = tmp_path / "tools" / "copilot"
    wrapper.parent.mkdir()
    wrapper.write_text(f"#!/bin/sh\nid -u > '{seen}/uid'\nexec '{copilot_bin}' \"$@\"\n")
    wrapper.chmod(0o755)
    table = "| dimension | score | evidence | reasoning |\n|---|---|---|---|\n| quality | 2 | Maybe. | thin |"
    model_server.responder = lambda body: ServerReply(text=table)
    ws = pull_request(tmp_path, GATED, {})
    runner_env = {
        "EVALGATE_COPILOT_BIN": str(wrapper),
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": model_server.base_url,
        "COPILOT_MODEL": "loopback-model",
    }
    run = run_pr(
        tmp_path, events_dir, ws, runner_env=runner_env, judges="copilot", **{"copilot-token": COPILOT_TOKEN}
    )

    assert (seen / "uid").read_text().strip() == "65534"
    assert scores(run) == {"quality": 2}, run.stdout + run.stderr
    assert model_server.requests


def test_nothing_to_hide_starts_nothing_again_and_too_much_is_refused_before_the_exec() -> None:
    from evalgate.github.credentials import CREDENTIALS_FD, CredentialsError, restart_without_credentials

    restart_without_credentials({"PATH": "/bin", "GITHUB_REPOSITORY": "o/r"})  # returns: nothing to hide
    restart_without_credentials({CREDENTIALS_FD: "5", "GITHUB_TOKEN": "x"})  # returns: the second start
    with pytest.raises(CredentialsError, match="longer than"):
        restart_without_credentials({"INPUT_GITHUB-TOKEN": "x" * 10_000})
