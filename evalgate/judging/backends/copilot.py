"""The `copilot[:MODEL]` backend: the GitHub Copilot CLI (`@github/copilot`, pinned in package.json).

The CLI is an agent, not a completion API: with no flags it offers the model 17 tools and, even
non-interactively, auto-approves read-only ones (`view`, `cat FILE`) under its working directory and
the temp directory — where a CI workspace keeps `.git/config` with the job's token. A judge needs no
tools, and the document it judges is untrusted, so every call is boxed in four ways, each sufficient
on its own in 1.0.102 (tests/judging/test_copilot_cli.py proves each against the real binary):

- `--available-tools=<a name no tool has>`: the model is offered no tools at all, and a tool call
  it makes anyway is answered "Tool 'view' does not exist";
- `--deny-tool` shell, read, write and url: a call to an existing tool is refused;
- `-C <empty scratch dir>`, `--disallow-temp-dir` and a private TMPDIR (holding only the CLI's
  own compile cache): nothing to read;
- a scrubbed environment: PATH, HOME, locale, proxy and TLS variables, `COPILOT_*` (less the ones
  that widen permissions) and one auth token — never `INPUT_*`, `ACTIONS_*` or the reporting token.

Where the caller asks (`run_as`: the action, which runs as root), the CLI runs as an unprivileged user:
its private state (its HOME then too, where it unpacks itself on its first start) and each call's
scratch directory are given to that user, which is all it writes.

The prompt goes on stdin (a prompt in argv fails with E2BIG past ~128 KB); `-s` prints only the answer.

When Copilot refuses the token, the error names the permission or policy that is missing
(copilot_auth.py), and every later call of the backend fails at once with it: a refused token is
refused for every document, and each call would cost a CLI start.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalgate.judgement import Reply
from evalgate.judging.backends import BackendError, tail
from evalgate.judging.backends.copilot_auth import explain_refusal
from evalgate.judging.backends.pricing import PriceTable, cost_usd
from evalgate.judging.backends.process import ProcessTimeout, RunAs, run_process

PROJECT_ROOT = Path(__file__).resolve().parents[3]
TOKEN_VARIABLES = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")  # the CLI's own precedence
PASSED_VARIABLES = frozenset(
    {"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "XDG_CACHE_HOME", "GH_HOST"}
    | {"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS"}
    | {p for name in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY") for p in (name, name.lower())}
)
# COPILOT_* variables passed on, except these: they widen what the agent may do or read.
WIDENING_VARIABLES = frozenset(
    {"COPILOT_ALLOW_ALL", "COPILOT_ASSISTED_APPROVAL", "COPILOT_CUSTOM_INSTRUCTIONS_DIRS", "COPILOT_EDITOR"}
)
NO_SUCH_TOOL = "evalgate-judge-needs-no-tools"
DENIED_TOOL_KINDS = ("shell", "read", "write", "url")
EMPTY_REPLY = "No response was returned"


def find_copilot_binary(environ: Mapping[str, str], root: Path = PROJECT_ROOT) -> str | None:
    """The Copilot CLI to run: $EVALGATE_COPILOT_BIN, else `copilot` on PATH, else this project's npm one.

    For the npm install we prefer the native binary (`@github/copilot-linux-x64`) over the
    `.bin/copilot` node loader that merely spawns it: same program, one process and ~50 ms less.
    """
    explicit = environ.get("EVALGATE_COPILOT_BIN")
    if explicit:
        return explicit
    on_path = shutil.which("copilot", path=environ.get("PATH"))
    if on_path:
        return on_path
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}.get(platform.system(), "")
    machines = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
    arch = machines.get(platform.machine().lower())
    candidates = [root / "node_modules" / "@github" / f"copilot-{system}-{arch}" / "copilot"]
    candidates.append(root / "node_modules" / ".bin" / "copilot")
    return next((str(c) for c in candidates if c.is_file()), None)


def copilot_environment(
    environ: Mapping[str, str], *, copilot_home: str, tmpdir: str, token: str | None = None
) -> dict[str, str]:
    """The scrubbed environment for one CLI call.

    Exactly one auth token is passed: `token` if given (as COPILOT_GITHUB_TOKEN), else the first of
    COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN that is set — so a separate Copilot token keeps the
    workflow's GITHUB_TOKEN out. `COPILOT_HOME` is the caller's if set (where `copilot login` keeps
    its credentials), else the private `copilot_home`.
    """
    env = {k: v for k, v in environ.items() if k in PASSED_VARIABLES}
    env.update(
        {
            k: v
            for k, v in environ.items()
            if k.startswith("COPILOT_") and k not in WIDENING_VARIABLES and k not in TOKEN_VARIABLES
        }
    )
    if token:
        env["COPILOT_GITHUB_TOKEN"] = token
    else:
        chosen = next((name for name in TOKEN_VARIABLES if environ.get(name)), None)
        if chosen:
            env[chosen] = environ[chosen]
    env.setdefault("COPILOT_HOME", copilot_home)
    env["TMPDIR"] = tmpdir
    env["NO_COLOR"] = "1"
    return env


def copilot_argv(binary: str, *, workdir: str, usage_file: str, model: str | None) -> list[str]:
    """The CLI's command line for one judge call (the prompt itself goes on stdin)."""
    argv = [binary, "-s", "--no-auto-update", "--no-custom-instructions", "--disable-builtin-mcps"]
    argv += ["--no-ask-user", "--no-color", f"--available-tools={NO_SUCH_TOOL}"]
    argv += [f"--deny-tool={kind}" for kind in DENIED_TOOL_KINDS]
    argv += ["-C", workdir, "--disallow-temp-dir", f"--secret-env-vars={','.join(TOKEN_VARIABLES)}"]
    argv += ["--usage-output-file", usage_file]
    if model:
        argv += ["--model", model]
    return argv


@dataclass(frozen=True)
class CliUsage:
    """What the CLI's --usage-output-file says one call used (None: not reported)."""

    model: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    premium_requests: float | None = None
    credits: float | None = None


NANO_AIU_PER_CREDIT = 1_000_000_000  # the CLI counts AI credits in nano-AIU ("exact ... in nano-AIU")


def read_usage(path: Path) -> CliUsage:
    """The CLI's --usage-output-file: the model, its tokens, the premium requests (`totalPremiumRequestCost`,
    multipliers applied) and the AI credits (`totalNanoAiu`). The credits count only when
    `aiCreditsStatus` is "complete": the CLI's own schema says that under "unavailable" a numeric zero
    is "not a zero-cost claim", and under "partial" the number is a subtotal."""
    try:
        usage: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return CliUsage()
    if not isinstance(usage, dict):
        return CliUsage()
    try:
        metrics = usage["modelMetrics"]
        models = list(metrics)
        tokens_in: int | None = sum(int(m["usage"]["inputTokens"]) for m in metrics.values())
        tokens_out: int | None = sum(int(m["usage"]["outputTokens"]) for m in metrics.values())
    except (ValueError, KeyError, TypeError, AttributeError):
        models, tokens_in, tokens_out = [], None, None
    premium = _number(usage.get("totalPremiumRequestCost"))
    nano = _number(usage.get("totalNanoAiu"))
    complete = usage.get("aiCreditsStatus") == "complete"
    return CliUsage(
        model=models[0] if len(models) == 1 else None,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        premium_requests=premium,
        credits=nano / NANO_AIU_PER_CREDIT if nano is not None and complete else None,
    )


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


class CopilotBackend:
    """One `copilot -s` process per prompt, with no tools, nothing to read and a scrubbed environment."""

    name = "copilot"

    def __init__(
        self,
        model: str | None = None,
        *,
        timeout: float = 300.0,
        prices: PriceTable | None = None,
        environ: Mapping[str, str] | None = None,
        token: str | None = None,
        binary: str | None = None,
        run_as: RunAs | None = None,
    ) -> None:
        self.environ = dict(os.environ if environ is None else environ)
        self.model = model or self.environ.get("COPILOT_MODEL") or "default"
        self.requested_model = model
        self.timeout = timeout
        self.prices = prices
        self.token = token
        self.binary = binary if binary is not None else find_copilot_binary(self.environ)
        self.run_as = run_as
        self._state: Path | None = None
        self._state_lock = threading.Lock()
        self._refused: str | None = None  # why Copilot refused the token, once it has

    def _private_state(self) -> Path:
        """This backend's own state directory, made on first use and removed with the backend.

        It holds `home` (COPILOT_HOME, unless the user set one) and `tmp` (the CLI's TMPDIR, where it
        keeps node's compile cache). Both are shared by the backend's calls, also parallel ones (the
        CLI locks its state files), because fresh ones per call cost about a second of CPU; each `-s`
        call is still a new session, and the model can read neither (no tools, --disallow-temp-dir).
        """
        with self._state_lock:
            if self._state is None:
                self._state = Path(tempfile.mkdtemp(prefix="evalgate-copilot-"))
                for part in ("home", "tmp"):
                    (self._state / part).mkdir()
                    self._give(self._state / part)
                self._give(self._state)
                weakref.finalize(self, shutil.rmtree, self._state, ignore_errors=True)
            return self._state

    def _give(self, path: Path) -> None:
        """Hand a directory the CLI writes in to the user it runs as (the state is 0700, its own)."""
        if self.run_as is not None:
            os.chown(path, self.run_as.uid, self.run_as.gid)

    def complete(self, prompt: str) -> Reply:
        """Run the CLI once with the prompt on stdin; its answer is the reply."""
        label = f"copilot:{self.model}"
        if not self.binary:
            raise BackendError(
                f"{label}: Copilot CLI not found (set EVALGATE_COPILOT_BIN, put `copilot` on PATH, "
                "or run `npm ci` in the project)"
            )
        if self._refused is not None:
            raise BackendError(self._refused)
        state = self._private_state()
        with tempfile.TemporaryDirectory(prefix="call-", dir=state) as scratch:
            root = Path(scratch)
            (root / "work").mkdir()
            self._give(root / "work")
            self._give(root)  # the CLI writes its usage file here
            usage_file = root / "usage.json"
            env = copilot_environment(
                self.environ, copilot_home=str(state / "home"), tmpdir=str(state / "tmp"), token=self.token
            )
            if self.run_as is not None:
                # the CLI unpacks itself under ~/.cache on its first start: a home its user may write
                env["HOME"] = str(state / "home")
                env.pop("XDG_CACHE_HOME", None)
            workdir = str(root / "work")
            argv = copilot_argv(
                self.binary, workdir=workdir, usage_file=str(usage_file), model=self.requested_model
            )
            try:
                result = run_process(
                    argv, prompt.encode(), timeout=self.timeout, env=env, cwd=workdir, run_as=self.run_as
                )
            except ProcessTimeout as error:
                raise BackendError(f"{label}: {error}") from None
            except OSError as error:
                raise BackendError(f"{label}: cannot run {self.binary}: {error.strerror or error}") from None
            used = read_usage(usage_file)
        if result.returncode != 0:
            said = result.stderr.decode("utf-8", "replace")
            refused = explain_refusal(said, _given_token(env))
            if refused is not None:
                first = tail(next((line.strip() for line in said.splitlines() if line.strip()), ""), 200)
                self._refused = f"{label}: {refused} (the Copilot CLI said: {first})"
                raise BackendError(self._refused)
            stderr = tail(result.stderr) or "(no stderr)"
            # The CLI already retries model errors itself (5 times); only an empty answer is worth
            # another call from us.
            reason = f"{label}: exit code {result.returncode}: {stderr}"
            raise BackendError(reason, retryable=EMPTY_REPLY in stderr)
        text = result.stdout.decode("utf-8", "replace").strip()
        if not text:
            raise BackendError(f"{label}: empty reply", retryable=True)
        model = used.model or self.model
        return Reply(
            text=text,
            model=model,
            latency_ms=result.elapsed_ms,
            tokens_in=used.tokens_in,
            tokens_out=used.tokens_out,
            cost_usd=cost_usd(self.prices, model, used.tokens_in, used.tokens_out),
            premium_requests=used.premium_requests,
            credits=used.credits,
        )


def _given_token(env: Mapping[str, str]) -> str | None:
    """The token the CLI was given (the first of its variables that is set, as the CLI reads them)."""
    return next((env[name] for name in TOKEN_VARIABLES if env.get(name)), None)
