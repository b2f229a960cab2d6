"""The command backend: argv without a shell, prompt on stdin, reply on stdout, exit codes, timeout."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from evalgate.judging.backends import BackendError
from evalgate.judging.backends.command import CommandBackend

PY = sys.executable


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "judge.py"
    path.write_text(body, encoding="utf-8")
    return f"{PY} {path}"


def test_prompt_on_stdin_reply_on_stdout(tmp_path: Path) -> None:
    command = _script(tmp_path, "import sys; data = sys.stdin.read(); print(len(data), data[-5:], end='')")
    prompt = "é" * 100_000 + "tail!"
    reply = CommandBackend(command).complete(prompt)
    assert reply.text == "100005 tail!"
    assert reply.model == PY and reply.tokens_in is None


def test_nonzero_exit_carries_stderr_tail(tmp_path: Path) -> None:
    command = _script(tmp_path, "import sys; sys.stderr.write('x' * 5000 + 'model overloaded'); sys.exit(3)")
    with pytest.raises(BackendError) as caught:
        CommandBackend(command).complete("p")
    message = str(caught.value)
    assert "exit code 3" in message and message.endswith("model overloaded")
    assert len(message) < 700  # a tail, not the whole stderr
    assert not caught.value.retryable


def test_timeout_kills_the_process_group(tmp_path: Path) -> None:
    # The judge starts a grandchild that sleeps on, and writes its pid down: killing only the direct
    # child would let the grandchild live on. The timeout leaves ample time to start it.
    # (its own output elsewhere: a kill that missed it returns at once instead of waiting for its pipes)
    pid_file = tmp_path / "grandchild.pid"
    body = (
        "import subprocess, sys, time\n"
        "sleeper = [sys.executable, '-c', 'import time; time.sleep(60)']\n"
        "d = subprocess.DEVNULL\n"
        "grandchild = subprocess.Popen(sleeper, stdin=d, stdout=d, stderr=d)\n"
        f"with open({str(pid_file)!r}, 'w') as out:\n"
        "    out.write(str(grandchild.pid))\n"
        "time.sleep(60)\n"
    )
    with pytest.raises(BackendError, match=r"timed out after 5 s"):
        CommandBackend(_script(tmp_path, body), timeout=5).complete("p")
    assert pid_file.exists(), "the judge never started its grandchild"
    assert _ends(int(pid_file.read_text())), "the grandchild outlived the judge's timeout"


def _ends(pid: int, within: float = 30.0) -> bool:
    """Whether process `pid` is gone or a zombie within `within` seconds (a killed process is, at
    once; one that lives on never is: the wait bounds a broken kill, it decides nothing else)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


SHELL_TAILS = ["; touch {m}", "$(touch {m})", "`touch {m}`", "| touch {m}", "&& touch {m}"]


@pytest.mark.parametrize(
    "tail", ["; touch {m}", "$(touch {m})", "`touch {m}`", "| touch {m}", "&& touch {m}"]
)
def test_shell_syntax_stays_literal(tmp_path: Path, tail: str) -> None:
    marker = tmp_path / "pwned"
    command = f"{PY} -c 'import sys; print(sys.argv[1:])' " + tail.format(m=marker)
    reply = CommandBackend(command).complete("p")
    assert str(marker) in reply.text  # arrived as an argument
    assert not marker.exists()  # and nothing ran it


def test_missing_program_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match=r"cannot run .*no-such-judge"):
        CommandBackend(str(tmp_path / "no-such-judge")).complete("p")


def test_empty_or_unbalanced_spec_is_rejected() -> None:
    with pytest.raises(ValueError, match="names no program"):
        CommandBackend("  ")
    with pytest.raises(ValueError, match="cannot split"):
        CommandBackend("judge 'unclosed")


def test_the_judge_gets_the_environment_less_runner_inputs_tokens_and_service_variables() -> None:
    # what the Copilot backend keeps out, kept out of any command judge too: the workflow's inputs
    # (INPUT_GITHUB-TOKEN among them), the runner's ACTIONS_* service tokens and URLs, the job token
    environ = {
        "PATH": os.environ["PATH"],
        "INPUT_GITHUB-TOKEN": "ghs_job",
        "INPUT_JUDGES": "command:x",
        "ACTIONS_RUNTIME_TOKEN": "runtime",
        "ACTIONS_ID_TOKEN_REQUEST_URL": "https://token.invalid",
        "GITHUB_TOKEN": "ghs_job",
        "GH_TOKEN": "ghs_job",
        "COPILOT_GITHUB_TOKEN": "judging-credential",
        "OPENAI_API_KEY": "sk-judge",
        "GITHUB_REPOSITORY": "octo/repo",
    }
    dump = "import json, os, sys; sys.stdin.read(); print(json.dumps(sorted(os.environ)))"
    reply = CommandBackend(shlex.join([sys.executable, "-c", dump]), environ=environ).complete("p")
    seen = set(json.loads(reply.text))
    assert not {k for k in seen if k.startswith(("INPUT_", "ACTIONS_")) or k in ("GITHUB_TOKEN", "GH_TOKEN")}
    assert {"PATH", "COPILOT_GITHUB_TOKEN", "OPENAI_API_KEY", "GITHUB_REPOSITORY"} <= seen


def test_without_an_environment_given_the_process_environment_is_scrubbed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INPUT_COPILOT-TOKEN", "secret")
    monkeypatch.setenv("ACTIONS_RUNTIME_TOKEN", "runtime")
    monkeypatch.setenv("EVALGATE_TEST_KEPT", "1")
    dump = "import json, os, sys; sys.stdin.read(); print(json.dumps(sorted(os.environ)))"
    seen = set(json.loads(CommandBackend(shlex.join([sys.executable, "-c", dump])).complete("p").text))
    assert "EVALGATE_TEST_KEPT" in seen
    assert "INPUT_COPILOT-TOKEN" not in seen and "ACTIONS_RUNTIME_TOKEN" not in seen


def test_in_a_sandbox_tree_the_command_runs_there_with_workspace_paths_pinned(tmp_path: Path) -> None:
    from evalgate.judging.backends.process import JudgeSandbox

    workspace, tree = tmp_path / "workspace", tmp_path / "tree"
    for root, word in ((workspace, "workspace"), (tree, "tree")):
        (root / "tools").mkdir(parents=True)
        (root / "tools" / "lib.txt").write_text(word)
        (root / "tools" / "judge.py").write_text(
            "import os, sys; sys.stdin.read()\n"
            f"print({word!r}, open('tools/lib.txt').read(), open(sys.argv[1]).read(),"
            " os.environ['GITHUB_WORKSPACE'])\n"
        )
    command = f"{PY} {workspace}/tools/judge.py {workspace}/tools/lib.txt"
    sandbox = JudgeSandbox(tree=tree, workspace=workspace)
    reply = CommandBackend(command, sandbox=sandbox, environ={"GITHUB_WORKSPACE": str(workspace)}).complete(
        "p"
    )
    assert reply.text.split() == ["tree", "tree", "tree", str(tree)]
    assert reply.model == PY  # the spec as written names the judge


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: only root can run a judge as another user")
def test_run_as_starts_the_judge_as_that_user_without_groups(tmp_path: Path) -> None:
    from evalgate.judging.backends.process import RunAs, run_process

    result = run_process(["sh", "-c", "id -u; id -G"], b"", timeout=30, run_as=RunAs(65534, 65534))
    assert result.returncode == 0 and result.stdout.decode().split() == ["65534", "65534"]
