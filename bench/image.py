"""The action image, built and run the way a GitHub runner runs a Docker container action.

    python bench/image.py [--engine docker|podman] [--no-build] [--tag TAG] [--contract FILE]
                          [--rounds N]

Builds the Dockerfile with whichever engine works (docker, else podman; build args BASE and
NODE_BASE from the environment when set, e.g. local stand-in base images), then runs the image for
the action's three uses against a loopback GitHub API on the host (tests/support/github_api.py, every
request body checked against GitHub's OpenAPI description) with the workspace owned by another user
than the container's root (uid 1001 when this runs as root, else this user), as on a runner:

- push: `before..after` evaluated, the check run on `after`;
- pull_request: `base.sha...head.sha` evaluated in the test merge commit, results on `head.sha`;
- workflow_dispatch: the `files` input.

Each use must exit with the verdict (1: an item fails), post its check run to the right commit with no
contract violation, write the step outputs, and leave nothing in the workspace the workspace's owner
does not own. Then it prints the image size, each layer's size and the cold start inside the
container (the engine's own container start excluded): `python -c pass`, `import
evalgate.github.action` and the whole entrypoint on the dispatch workspace, median of --rounds
interleaved rounds, each with its ratio to `python -c pass`. Exit status 0 only when every use passed.

Engines differ by machine: EVALGATE_ENGINE_OPTS (global options, e.g. podman's storage),
EVALGATE_BUILD_OPTS and EVALGATE_RUN_OPTS (extra `build` / `run` options) are split like a shell and
passed through. The GitHub contract is --contract, $EVALGATE_GITHUB_CONTRACT, or ../shared's copy.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.github_api import FakeGitHub  # noqa: E402
from tests.support.gitrepo import GitRepo  # noqa: E402

SHARED_CONTRACT = ROOT.parent / "shared" / "contracts" / "github-rest" / "api.github.com.subset.json"
TAG = "localhost/evalgate-action:test"
RUNNER_UID = 1001  # the runner user's uid on GitHub's hosted runners
REPOSITORY = "octo-org/research"
TOKEN = "ghs_imageTestJobToken0123456789"
CHECK_RUNS = "/repos/{owner}/{repo}/check-runs"
GOOD = "gold/research-loop/2026-11-12-report-annotations-or-comments.md"  # passes the structural checks
OLD_ITEM = "Research/completed/2026-11-12-report-annotations-or-comments.md"
NEW_ITEM = "Research/completed/2026-12-01-new-item.md"
BROKEN = "# A new item\n\n## Research Question\n\nDoes it pass?\n\n## Findings\n\nNo.\n"


@dataclass(frozen=True)
class Engine:
    name: str
    options: tuple[str, ...] = ()
    build_options: tuple[str, ...] = ()
    run_options: tuple[str, ...] = ()

    def cmd(self, *args: str) -> list[str]:
        return [self.name, *self.options, *args]

    def run(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.cmd(*args), capture_output=True, text=True, timeout=timeout, check=False)


def find_engine(requested: str | None = None, env: dict[str, str] | None = None) -> Engine | str:
    """The first container engine that answers `info`, or the reason none does."""
    env = dict(os.environ if env is None else env)

    def opts(name: str) -> tuple[str, ...]:
        return tuple(shlex.split(env.get(name, "")))

    reasons = []
    for name in [requested] if requested else ["docker", "podman"]:
        if shutil.which(name) is None:
            reasons.append(f"{name}: not installed")
            continue
        engine = Engine(
            name, opts("EVALGATE_ENGINE_OPTS"), opts("EVALGATE_BUILD_OPTS"), opts("EVALGATE_RUN_OPTS")
        )
        probe = engine.run("info", timeout=120)
        if probe.returncode == 0:
            return engine
        last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        reasons.append(f"{name}: `{name} info` failed ({last})")
    return "no container engine works: " + "; ".join(reasons)


def image_exists(engine: Engine, tag: str) -> bool:
    return engine.run("image", "inspect", tag, timeout=120).returncode == 0


def build(engine: Engine, tag: str) -> float:
    """Build the Dockerfile (BASE / NODE_BASE build args from the environment when set); seconds."""
    args = [
        f"--build-arg={name}={os.environ[name]}" for name in ("BASE", "NODE_BASE") if os.environ.get(name)
    ]
    started = time.perf_counter()
    proc = subprocess.run(
        engine.cmd(
            "build", *engine.build_options, *args, "-t", tag, "-f", str(ROOT / "Dockerfile"), str(ROOT)
        ),
        timeout=3600,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"image build failed ({engine.name} exit {proc.returncode})")
    return time.perf_counter() - started


def _bytes(human: str) -> int:
    """A size as `history` prints it ("197 MB", docker: "197MB"; SI units) in bytes."""
    match = re.match(r"^([\d.]+)\s*([kKMG]?B)$", human.strip().replace(" ", ""))
    if not match:
        return int(human) if human.strip().isdigit() else 0
    return round(float(match[1]) * {"B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9}[match[2]])


def layers(engine: Engine, tag: str) -> list[tuple[int, str]]:
    """(bytes, instruction) per layer, newest first, as `history` reports them (SI units)."""
    proc = engine.run("history", "--no-trunc", "--format", "{{.Size}}\t{{.CreatedBy}}", tag)
    rows = [line.split("\t", 1) for line in proc.stdout.splitlines() if "\t" in line]
    return [(_bytes(size), re.sub(r"\s+", " ", created)) for size, created in rows]


def image_size(engine: Engine, tag: str) -> int:
    return int(engine.run("image", "inspect", "--format", "{{.Size}}", tag).stdout.strip() or 0)


# ------------------------------------------------------------------------------- the three uses


@dataclass
class Use:
    name: str
    event_name: str
    payload: dict[str, Any]
    sha: str  # GITHUB_SHA
    report_sha: str  # where the check run must go
    evaluated: list[str]
    inputs: dict[str, str]


def _workspace(path: Path, pr: bool) -> tuple[GitRepo, str, str, str | None]:
    repo = GitRepo.init(path)
    base = repo.commit("base", {OLD_ITEM: (ROOT / GOOD).read_text(), "README.md": "# r\n"})
    if pr:
        repo.checkout("feature", new=True)
    head = repo.commit("add an item", {NEW_ITEM: BROKEN, "notes/other.md": "# notes\n"})
    merge = None
    if pr:  # what actions/checkout leaves on pull_request: the test merge commit
        repo.checkout("main")
        repo.checkout("pull-merge", new=True)
        merge = repo.merge("feature", "Merge feature into main")
    return repo, base, head, merge


def _uses(runner: Path) -> list[tuple[Use, Path]]:
    repository: dict[str, Any] = {"full_name": REPOSITORY, "name": "research", "default_branch": "main"}
    repository["owner"] = {"login": "octo-org"}
    out = []
    repo, base, head, _ = _workspace(runner / "push" / "workspace", pr=False)
    push = {"ref": "refs/heads/main", "before": base, "after": head, "created": False, "forced": False}
    out.append(
        (Use("push", "push", {**push, "repository": repository}, head, head, [NEW_ITEM], {}), repo.path)
    )
    repo, base, head, merge = _workspace(runner / "pull_request" / "workspace", pr=True)
    pull = {"number": 7, "base": {"sha": base, "ref": "main"}, "head": {"sha": head, "ref": "feature"}}
    payload = {"action": "synchronize", "number": 7, "pull_request": pull, "repository": repository}
    out.append((Use("pull_request", "pull_request", payload, merge or head, head, [NEW_ITEM], {}), repo.path))
    repo, _, head, _ = _workspace(runner / "workflow_dispatch" / "workspace", pr=False)
    payload = {"inputs": {"files": ""}, "ref": "refs/heads/main", "repository": repository}
    files = {"files": f"{OLD_ITEM}\n{NEW_ITEM}"}
    use = Use("workflow_dispatch", "workflow_dispatch", payload, head, head, [OLD_ITEM, NEW_ITEM], files)
    out.append((use, repo.path))
    return out


def _container_env(use: Use, api_url: str) -> dict[str, str]:
    import yaml

    env = {
        "HOME": "/github/home",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_EVENT_NAME": use.event_name,
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_OUTPUT": "/github/file_commands/set_output",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary",
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_SHA": use.sha,
        "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "4242",
        "RUNNER_TEMP": "/home/runner/work/_temp",
    }
    for name, spec in yaml.safe_load((ROOT / "action.yml").read_text())["inputs"].items():
        default = str(spec.get("default", ""))
        env[f"INPUT_{name.upper()}"] = TOKEN if default == "${{ github.token }}" else default
    env.update({f"INPUT_{name.upper()}": value for name, value in use.inputs.items()})
    return env


def _prepare_runner(home: Path, use: Use) -> list[str]:
    """The runner's directories for one use, owned by the runner's user; the mount arguments."""
    for part in ("home", "workflow", "file_commands"):
        (home / part).mkdir(exist_ok=True)
    (home / "workflow" / "event.json").write_text(json.dumps(use.payload))
    for name in ("set_output", "step_summary"):
        (home / "file_commands" / name).write_text("")
    if os.geteuid() == 0:
        for path in [home, *home.rglob("*")]:
            os.chown(path, RUNNER_UID, RUNNER_UID, follow_symlinks=False)
    mounts = []
    for part in ("workspace", "home", "workflow", "file_commands"):
        mounts += ["-v", f"{home / part}:/github/{part}"]
    return mounts


def _env_args(env: dict[str, str]) -> list[str]:
    return [arg for name, value in env.items() for arg in ("-e", f"{name}={value}")]


def run_use(engine: Engine, tag: str, use: Use, home: Path, api: FakeGitHub) -> list[str]:
    """Run the image for one use; the problems found (empty: it behaved as a runner needs)."""
    mounts = _prepare_runner(home, use)
    workspace = home / "workspace"
    owner = workspace.stat().st_uid
    calls_before = len(api.calls_to("POST", CHECK_RUNS))
    args = ["run", "--rm", "--network", "host", *engine.run_options, "--workdir", "/github/workspace"]
    proc = engine.run(*args, *mounts, *_env_args(_container_env(use, api.url)), tag)
    problems = []
    log = proc.stdout + proc.stderr
    if proc.returncode != 1:
        problems.append(f"exit code {proc.returncode}, expected 1 (an item fails): {log[-1500:]}")
    if "Traceback" in log:
        problems.append("a traceback in the log")
    results_path = workspace / "evalgate-results.json"
    results = json.loads(results_path.read_text()) if results_path.exists() else {"results": []}
    evaluated = sorted(r["path"] for r in results["results"])
    if evaluated != sorted(use.evaluated):
        problems.append(f"evaluated {evaluated}, expected {sorted(use.evaluated)}")
    posted = [c.body.get("head_sha") for c in api.calls_to("POST", CHECK_RUNS)[calls_before:]]
    if posted != [use.report_sha]:
        problems.append(f"check runs posted to {posted}, expected [{use.report_sha}]")
    outputs = (home / "file_commands" / "set_output").read_text()
    if "verdict=FAIL" not in outputs:
        problems.append(f"step outputs without verdict=FAIL: {outputs!r}")
    foreign = [str(p.relative_to(workspace)) for p in workspace.rglob("*") if p.lstat().st_uid != owner]
    if foreign:
        problems.append(f"{len(foreign)} file(s) in the workspace not owned by uid {owner}: {foreign[:5]}")
    return problems


# ------------------------------------------------------------------------------- cold start

TIMER = """
import os, statistics, subprocess, sys, time
env = {k: v for k, v in os.environ.items() if k != "INPUT_GITHUB-TOKEN"}
runs = {"python -c pass": [sys.executable, "-c", "pass"],
        "import evalgate.github.action": [sys.executable, "-c", "import evalgate.github.action"],
        "entrypoint (2 files, no judge, no API)": [sys.executable, "/app/entrypoint.py"]}
times = {name: [] for name in runs}
for _ in range(int(sys.argv[1])):
    for name, argv in runs.items():
        started = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[name].append(time.perf_counter() - started)
peer = statistics.median(times["python -c pass"])
for name, values in times.items():
    median = statistics.median(values)
    print(f"{name}: median {median:.3f} s, {median / peer:.1f}x python -c pass")
"""


def cold_start(engine: Engine, tag: str, use: Use, home: Path, api_url: str, rounds: int) -> str:
    mounts = _prepare_runner(home, use)
    args = ["run", "--rm", "--network", "host", *engine.run_options, "--workdir", "/github/workspace"]
    env = _env_args(_container_env(use, api_url))
    proc = engine.run(*args, *mounts, *env, "--entrypoint", "python", tag, "-c", TIMER, str(rounds))
    return proc.stdout.strip() or proc.stderr.strip()[-1500:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["docker", "podman"])
    parser.add_argument("--tag", default=TAG)
    parser.add_argument("--no-build", action="store_true", help="use the image already tagged --tag")
    parser.add_argument("--contract", type=Path, default=os.environ.get("EVALGATE_GITHUB_CONTRACT"))
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args(argv)
    contract = options.contract or SHARED_CONTRACT
    if not Path(contract).exists():
        print(f"no GitHub OpenAPI description at {contract}: pass --contract", file=sys.stderr)
        return 2
    engine = find_engine(options.engine)
    if isinstance(engine, str):
        print(engine, file=sys.stderr)
        return 2
    print(f"engine: {engine.name}")
    if not options.no_build:
        print(f"build: {build(engine, options.tag):.0f} s")
    print(f"image {options.tag}: {image_size(engine, options.tag) / 1e6:.1f} MB")
    for size, created in layers(engine, options.tag):
        print(f"  {size / 1e6:8.1f} MB  {created[:110]}")
    failed = 0
    with (
        tempfile.TemporaryDirectory(prefix="evalgate-image-", ignore_cleanup_errors=True) as tmp,
        FakeGitHub(Path(contract)) as api,
    ):
        for use, workspace in _uses(Path(tmp)):
            problems = run_use(engine, options.tag, use, workspace.parent, api)
            failed += bool(problems)
            print(f"{use.name}: {'ok' if not problems else 'FAILED'}")
            for problem in problems:
                print(f"  - {problem}")
        if api.violations:
            failed += 1
            print("GitHub API contract violations:", *api.violations, sep="\n  - ")
        dispatch, workspace = _uses(Path(tmp) / "timing")[2]
        print(f"cold start in the container, median of {options.rounds} rounds:")
        print(cold_start(engine, options.tag, dispatch, workspace.parent, api.url, options.rounds))
    print("all three uses passed" if not failed else f"{failed} problem(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
