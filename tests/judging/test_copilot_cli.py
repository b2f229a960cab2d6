"""The copilot backend: the real Copilot CLI 1.0.102 against a loopback model server, and its sandbox.

The tests marked `copilot` run the binary (`npm ci` installs it) with COPILOT_OFFLINE=true against
tests/support/openai_server.py; they skip with a reason when it is not installed. The attack tests
play a model that asks for tools to read a workspace's `.git/config` (where actions/checkout keeps
the job token) and files in the temp directory: the secret must never travel back to the model.
"""

from __future__ import annotations

import os
import stat
import subprocess
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalgate.judging.backends import BackendError
from evalgate.judging.backends.copilot import (
    DENIED_TOOL_KINDS,
    NO_SUCH_TOOL,
    CopilotBackend,
    copilot_environment,
    find_copilot_binary,
)
from tests.support import openai_server
from tests.support.openai_server import ModelServer, ServerReply, ToolCall, last_user_text

model_server = openai_server.model_server  # the fixture, under its own name
SECRET = "ghs_FAKE0SECRET0TOKEN0abc123"


def _offline(server: ModelServer, **extra: str) -> dict[str, str]:
    """An environment that points the CLI at the loopback server and nowhere else."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),  # the CLI unpacks itself once into ~/.cache/copilot
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": server.base_url,
        "COPILOT_MODEL": "loopback-model",
        **extra,
    }


@pytest.mark.copilot
def test_reply_model_flag_usage_and_no_tools_offered(model_server: ModelServer, copilot_bin: str) -> None:
    model_server.script(ServerReply(text='{"score": 4}', model="judge-model", prompt_tokens=321))
    backend = CopilotBackend("judge-model", environ=_offline(model_server), binary=copilot_bin)
    reply = backend.complete("Score this document.")
    assert reply.text == '{"score": 4}'
    assert (reply.model, reply.tokens_in, reply.tokens_out) == ("judge-model", 321, 7)
    sent = model_server.requests[0]
    assert sent["model"] == "judge-model" and sent["stream"] is True
    assert sent.get("tools", []) == []  # --available-tools left the model nothing to call
    assert last_user_text(sent).endswith("Score this document.")


@pytest.mark.copilot
def test_200_kb_prompt_arrives_intact(model_server: ModelServer, copilot_bin: str) -> None:
    prompt = "".join(f"line {i:06d} ✓ naïve “quote”\n" for i in range(7000))
    assert len(prompt.encode()) > 200_000  # past the ~128 KB argv limit: only stdin carries it
    CopilotBackend(environ=_offline(model_server), binary=copilot_bin).complete(prompt)
    assert last_user_text(model_server.requests[0]).endswith(prompt.rstrip("\n"))


def _plant_secrets(root: Path) -> tuple[Path, dict[str, Path]]:
    """A CI-like workspace with a token in .git/config, and secret files in two temp dirs."""
    workspace = root / "workspace"
    (workspace / ".git").mkdir(parents=True)
    git_config = workspace / ".git" / "config"
    git_config.write_text(f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {SECRET}\n')
    (root / "tmp").mkdir()
    parent_tmp = root / "tmp" / "secret.txt"
    parent_tmp.write_text(SECRET)
    system_tmp = Path(tempfile.gettempdir()) / f"evalgate-secret-{uuid.uuid4().hex}.txt"
    system_tmp.write_text(SECRET)
    return workspace, {"git_config": git_config, "parent_tmp": parent_tmp, "system_tmp": system_tmp}


def _attacker(targets: dict[str, Path]) -> Callable[[dict[str, Any]], ServerReply]:
    """A model that asks for tool after tool to read the secrets, then answers."""
    calls = [ToolCall("view", {"path": str(path)}, id=f"call_view_{name}") for name, path in targets.items()]
    calls.append(
        ToolCall("bash", {"command": f"cat {targets['git_config']}", "description": "r"}, "call_cat")
    )
    calls.append(ToolCall("bash", {"command": "printenv", "description": "env"}, "call_env"))

    def respond(body: dict[str, Any]) -> ServerReply:
        answered = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
        return (
            ServerReply(tool_call=calls[answered]) if answered < len(calls) else ServerReply(text="verdict")
        )

    return respond


def _tool_results(server: ModelServer) -> list[str]:
    return [str(m.get("content")) for m in server.requests[-1]["messages"] if m.get("role") == "tool"]


@pytest.mark.copilot
def test_backend_runs_no_tool_the_model_asks_for(
    model_server: ModelServer, copilot_bin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, targets = _plant_secrets(tmp_path)
    monkeypatch.chdir(workspace)  # as in CI: the run starts in the checked-out workspace
    model_server.responder = _attacker(targets)
    environ = _offline(model_server, TMPDIR=str(tmp_path / "tmp"), SENTINEL_VAR="sentinel-value-42")
    try:
        reply = CopilotBackend(environ=environ, binary=copilot_bin).complete("Judge this.")
    finally:
        targets["system_tmp"].unlink()
    assert reply.text == "verdict"
    results = _tool_results(model_server)
    assert len(results) == len(targets) + 2
    assert all("does not exist" in r for r in results), results
    sent = b"".join(model_server.raw_requests)
    assert SECRET.encode() not in sent and b"sentinel-value-42" not in sent


BARE = ["-s", "--no-auto-update", "--no-ask-user"]  # what actions/ai-inference runs, in stdin mode
LAYERS = {
    "none (control: the attack works)": ([], "workspace"),
    "--available-tools only": ([f"--available-tools={NO_SUCH_TOOL}"], "workspace"),
    "--deny-tool only": ([f"--deny-tool={kind}" for kind in DENIED_TOOL_KINDS], "workspace"),
    "scratch dir only": (["-C", "{scratch}", "--disallow-temp-dir"], "scratch"),
}


@pytest.mark.copilot
@pytest.mark.parametrize("layer", list(LAYERS))
def test_each_sandbox_layer_alone_stops_the_reads(
    layer: str, model_server: ModelServer, copilot_bin: str, tmp_path: Path
) -> None:
    """Each of the backend's protections is sufficient by itself in 1.0.102; with none, it leaks."""
    workspace, targets = _plant_secrets(tmp_path)
    flags, cwd = LAYERS[layer]
    scratch = tmp_path / "scratch"
    (scratch / "tmp").mkdir(parents=True)
    argv = [copilot_bin, *BARE, *(f.format(scratch=scratch) for f in flags)]
    tmpdir = {"TMPDIR": str(scratch / "tmp")} if cwd == "scratch" else {}
    env = _offline(model_server, COPILOT_HOME=str(tmp_path / "home"), **tmpdir)
    model_server.responder = _attacker(targets)
    try:
        subprocess.run(argv, input=b"Judge this.", env=env, cwd=workspace, capture_output=True, timeout=120)
    finally:
        targets["system_tmp"].unlink()
    leaked = SECRET.encode() in b"".join(model_server.raw_requests)
    assert leaked == layer.startswith("none"), _tool_results(model_server)


@pytest.mark.copilot
def test_timeout_kills_the_cli(model_server: ModelServer, copilot_bin: str) -> None:
    model_server.script(ServerReply(delay=60))
    marker = f"evalgate-timeout-{uuid.uuid4().hex}"  # a model name we can find in /proc
    backend = CopilotBackend(marker, environ=_offline(model_server), binary=copilot_bin, timeout=3)
    with pytest.raises(BackendError, match=r"timed out after 3 s"):
        backend.complete("p")
    alive = [p for p in Path("/proc").glob("[0-9]*") if marker.encode() in _cmdline(p)]
    assert alive == []


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


@pytest.mark.copilot
def test_empty_model_answer_is_a_retryable_error(model_server: ModelServer, copilot_bin: str) -> None:
    model_server.script(ServerReply(text=""))
    with pytest.raises(BackendError, match="No response was returned") as caught:
        CopilotBackend(environ=_offline(model_server), binary=copilot_bin).complete("p")
    assert caught.value.retryable


@pytest.mark.copilot
def test_cli_retries_429_and_500_itself(model_server: ModelServer, copilot_bin: str) -> None:
    model_server.script(
        ServerReply(status=429, headers={"Retry-After": "1"}), ServerReply(status=500), ServerReply(text="ok")
    )
    reply = CopilotBackend(environ=_offline(model_server), binary=copilot_bin).complete("p")
    assert reply.text == "ok" and len(model_server.requests) == 3


@pytest.mark.copilot
def test_client_error_is_a_nonzero_exit_with_the_reason(model_server: ModelServer, copilot_bin: str) -> None:
    model_server.script(ServerReply(status=400, error_body={"error": {"message": "unknown model xyz"}}))
    with pytest.raises(BackendError, match=r"exit code 1: .*unknown model xyz") as caught:
        CopilotBackend(environ=_offline(model_server), binary=copilot_bin).complete("p")
    assert not caught.value.retryable and len(model_server.requests) == 1


def _fake_cli(tmp_path: Path, script: str) -> str:
    path = tmp_path / "fake-copilot"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


CI_ENVIRON = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/runner",
    "INPUT_GITHUB-TOKEN": "input-token-sentinel",
    "ACTIONS_RUNTIME_TOKEN": "actions-sentinel",
    "GITHUB_TOKEN": "workflow-token-sentinel",
    "COPILOT_GITHUB_TOKEN": "copilot-token",
    "COPILOT_ALLOW_ALL": "true",
    "COPILOT_MODEL": "m",
    "AWS_SECRET_ACCESS_KEY": "aws-sentinel",
    "https_proxy": "http://proxy:3128",
}


def test_child_sees_only_the_scrubbed_environment_and_an_empty_cwd(tmp_path: Path) -> None:
    script = 'echo "FILES=$(ls -A | wc -l) STDIN=$(wc -c)"; env; for a in "$@"; do echo "ARG=$a"; done\n'
    backend = CopilotBackend(environ=CI_ENVIRON, binary=_fake_cli(tmp_path, script))
    reply = backend.complete("x" * 1000)
    assert "FILES=0 STDIN=1000" in reply.text
    for sentinel in ("input-token-sentinel", "actions-sentinel", "workflow-token-sentinel", "aws-sentinel"):
        assert sentinel not in reply.text
    assert "COPILOT_GITHUB_TOKEN=copilot-token" in reply.text and "COPILOT_ALLOW_ALL" not in reply.text
    assert "https_proxy=http://proxy:3128" in reply.text
    args = [line[4:] for line in reply.text.splitlines() if line.startswith("ARG=")]
    assert args[:2] == ["-s", "--no-auto-update"] and "--disallow-temp-dir" in args
    assert f"--available-tools={NO_SUCH_TOOL}" in args and "--deny-tool=shell" in args
    assert "--allow-all-tools" not in args and "-p" not in args


def test_environment_token_precedence() -> None:
    base = {"PATH": "/bin", "GH_TOKEN": "gh", "GITHUB_TOKEN": "gt"}
    env = copilot_environment(base, copilot_home="/h", tmpdir="/t")
    assert env["GH_TOKEN"] == "gh" and "GITHUB_TOKEN" not in env
    env = copilot_environment({"PATH": "/bin", "GITHUB_TOKEN": "gt"}, copilot_home="/h", tmpdir="/t")
    assert env["GITHUB_TOKEN"] == "gt"
    env = copilot_environment(base, copilot_home="/h", tmpdir="/t", token="explicit")
    assert env["COPILOT_GITHUB_TOKEN"] == "explicit" and "GH_TOKEN" not in env and "GITHUB_TOKEN" not in env
    assert env["COPILOT_HOME"] == "/h" and env["TMPDIR"] == "/t"
    mine = copilot_environment({"COPILOT_HOME": "/mine"}, copilot_home="/h", tmpdir="/t")
    assert mine["COPILOT_HOME"] == "/mine"


def test_nonzero_exit_carries_stderr(tmp_path: Path) -> None:
    backend = CopilotBackend(
        "m", environ={"PATH": "/bin"}, binary=_fake_cli(tmp_path, "echo boom >&2; exit 2\n")
    )
    with pytest.raises(BackendError, match=r"^copilot:m: exit code 2: boom$"):
        backend.complete("p")


def test_missing_binary_says_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="npm ci"):
        CopilotBackend(environ={"PATH": ""}, binary="").complete("p")
    with pytest.raises(BackendError, match="cannot run"):
        CopilotBackend(environ={"PATH": ""}, binary=str(tmp_path / "absent")).complete("p")


def test_binary_lookup_order(tmp_path: Path) -> None:
    on_path = Path(_fake_cli(tmp_path, "exit 0\n")).rename(tmp_path / "copilot")
    assert find_copilot_binary({"EVALGATE_COPILOT_BIN": "/x/copilot", "PATH": str(tmp_path)}) == "/x/copilot"
    assert find_copilot_binary({"PATH": str(tmp_path)}) == str(on_path)
    assert find_copilot_binary({"PATH": ""}, root=tmp_path) is None
