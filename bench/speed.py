"""Speed where users feel it, each figure a ratio against a peer run in the same rounds.

    python bench/speed.py [DIR] [--rounds 3] [--repeat 5] [--items 16] [--latency 1.0] [--jobs 8]
                          [--peers /tmp/peers] [--before TREE] [--only one-file,corpus,fan-out]

Four ratios, each from interleaved rounds (ours, the peer, ours, the peer, ...), because this shared
machine's speed drifts by tens of percent from one minute to the next:

- one file: `evalgate check FILE --judge none` as a new process (a pre-commit hook) over
  markdownlint-cli2 on the same file; each round runs both `--repeat` times, alternating, and
  compares medians (goal <= 0.15x);
- corpus command: `evalgate check DIR --judge none --format json --output X` as a new process, and
  markdownlint-cli2 over the same files once per round; the ratio of medians over the rounds
  (markdownlint-cli2's over ours; goal >= 35x);
- fan-out: `evalgate check` over the first `--items` files with one `openai:` judge against a stub
  server answering every call after `--latency` seconds, `--jobs` in flight, cache cold, over
  promptfoo 0.118.0 `eval` with one llm-rubric assertion per item graded by the same stub (`-j`
  the same, its cache cold) (goal <= 0.6x);
- cached: both again with their caches warm (goal <= 0.5x).

Peers are found under `--peers`/node_modules/.bin (installed there, outside the project:
`npm install --ignore-scripts markdownlint-cli2@0.22.1 promptfoo@0.118.0`, then `node-gyp rebuild
--nodedir=/usr` in node_modules/better-sqlite3), else on PATH. A missing peer is reported and its
ratio left out, never estimated. `--before TREE` also times the evalgate package found in TREE
(e.g. `git archive <rev> evalgate | tar -x -C TREE`) in the same rounds, for before/after figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpus import score_table  # noqa: E402
from tests.support.openai_server import ModelServer, ServerReply, last_user_text  # noqa: E402

DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"
FIGURES = ("one-file", "corpus", "fan-out")
GOALS = {
    "one file": ("<=", 0.15),
    "corpus command": (">=", 35.0),
    "fan-out": ("<=", 0.6),
    "cached": ("<=", 0.5),
}
RUBRIC_TEXT = "The document states its key findings, cites its sources and labels its claims' evidence."


def _clean_env(**extra: str) -> dict[str, str]:
    # As installed, modules run from compiled bytecode: PYTHONDONTWRITEBYTECODE would compile evalgate
    # on every start.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    env.update(extra)
    return env


def timed(argv: list[str], *, cwd: Path, env: dict[str, str], ok: tuple[int, ...] = (0, 1)) -> float:
    """Wall seconds of one new process; its output is discarded, a failure is reported. Its own peak
    RSS (wait4's, not RUSAGE_CHILDREN's running maximum) goes to PEAK_MB under its program's name."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    stderr = child.stderr.read()
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        raise RuntimeError(f"{argv[0]} exited {code}: {stderr.decode(errors='replace')[-800:]}")
    key = env.get("PYTHONPATH", argv[0])
    PEAK_MB[key] = max(PEAK_MB.get(key, 0.0), usage.ru_maxrss / 1024)  # KiB on Linux
    return wall


PEAK_MB: dict[str, float] = {}


@dataclass
class Side:
    """One measured program in a figure: its wall times per round."""

    name: str
    rounds: list[list[float]] = field(default_factory=list)
    peak_mb: float = 0.0  # the corpus command's peak RSS (its workers are forked and counted apart)

    def medians(self) -> list[float]:
        return [statistics.median(r) for r in self.rounds]


@dataclass
class Tools:
    markdownlint: str | None
    promptfoo: str | None


def find_tools(peers: Path) -> Tools:
    def find(name: str) -> str | None:
        local = peers / "node_modules" / ".bin" / name
        return str(local) if local.exists() else shutil.which(name)

    return Tools(find("markdownlint-cli2"), find("promptfoo"))


def evalgate_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "evalgate", "check", *args]


def stub_reply(body: dict[str, Any], latency: float) -> ServerReply:
    """evalgate's prompts get a valid score table, promptfoo's grader prompts the JSON it asks for."""
    prompt = last_user_text(body)
    if "## Reply format" in prompt:
        text = score_table(prompt, 1)
    else:
        text = json.dumps({"reason": "The output meets the rubric.", "pass": True, "score": 1.0})
    return ServerReply(
        text=text, delay=latency, model="stub", prompt_tokens=len(prompt) // 4, completion_tokens=60
    )


def promptfoo_config(directory: Path, files: list[Path], base_url: str) -> Path:
    config = {
        "description": "evalgate bench: llm-rubric fan-out",
        "prompts": ["{{doc}}"],
        "providers": ["echo"],
        "defaultTest": {
            "options": {
                "provider": {"id": "openai:chat:stub", "config": {"apiBaseUrl": base_url, "apiKey": "x"}}
            },
            "assert": [{"type": "llm-rubric", "value": RUBRIC_TEXT}],
        },
        "tests": [{"vars": {"doc": f"file://{f}"}} for f in files],
    }
    path = directory / "promptfooconfig.json"
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


class Bench:
    def __init__(self, args: argparse.Namespace, tools: Tools, scratch: Path) -> None:
        self.args = args
        self.tools = tools
        self.scratch = scratch  # the working directory of every process: no .evalgate.yml, no git
        self.trees = {"evalgate": ROOT} | ({"before": args.before.resolve()} if args.before else {})
        self.paths = sorted(args.folder.glob("*.md"))

    def ours(self, tree: str, argv: list[str], **env: str) -> float:
        return timed(argv, cwd=self.scratch, env=_clean_env(PYTHONPATH=str(self.trees[tree]), **env))

    def one_file(self, sides: dict[str, Side]) -> None:
        file = str(self.paths[0])
        walls: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(self.args.repeat):
            for tree in self.trees:
                walls[tree].append(self.ours(tree, evalgate_argv(file, "--judge", "none")))
            if self.tools.markdownlint:
                walls["markdownlint-cli2"].append(
                    timed([self.tools.markdownlint, file], cwd=self.scratch, env=_clean_env())
                )
        for name, side in sides.items():
            if walls[name]:  # nothing for a peer that is not installed
                side.rounds.append(walls[name])

    def corpus(self, sides: dict[str, Side]) -> None:
        out = str(self.scratch / "corpus.json")
        for tree in self.trees:
            argv = evalgate_argv(
                str(self.args.folder), "--judge", "none", "--format", "json", "--output", out
            )
            key = str(self.trees[tree])
            PEAK_MB.pop(key, None)
            sides[tree].rounds.append([self.ours(tree, argv) for _ in range(self.args.corpus_repeat)])
            sides[tree].peak_mb = max(sides[tree].peak_mb, PEAK_MB[key])
        if self.tools.markdownlint:
            lint = [self.tools.markdownlint, *map(str, self.paths)]
            sides["markdownlint-cli2"].rounds.append([timed(lint, cwd=self.scratch, env=_clean_env())])

    def fan_out(
        self, cold: dict[str, Side], warm: dict[str, Side], server: ModelServer, round_no: int
    ) -> None:
        files = [str(p) for p in self.paths[: self.args.items]]
        jobs = str(self.args.jobs)
        for tree in self.trees:
            cache = self.scratch / f"evalgate-cache-{tree}-{round_no}"
            argv = evalgate_argv(*files, "--judge", "openai:stub", "--jobs", jobs, "--cache-dir", str(cache))
            argv += ["--format", "json", "--output", str(self.scratch / "judged.json")]
            for sides in (cold, warm):  # the first run fills the cache, the second reads it
                sides[tree].rounds.append(
                    [self.ours(tree, argv, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="x")]
                )
        if self.tools.promptfoo:
            home = self.scratch / f"promptfoo-home-{round_no}"
            home.mkdir()
            config = promptfoo_config(self.scratch, [Path(f) for f in files], server.base_url)
            env = _clean_env(
                HOME=str(home),
                PROMPTFOO_CACHE_PATH=str(home / "cache"),
                PROMPTFOO_DISABLE_TELEMETRY="1",
                PROMPTFOO_DISABLE_UPDATE="1",
                OPENAI_API_KEY="x",
            )
            argv = [
                self.tools.promptfoo,
                "eval",
                "-c",
                str(config),
                "-j",
                jobs,
                "--no-progress-bar",
                "--no-table",
            ]
            for sides in (cold, warm):
                sides["promptfoo"].rounds.append([timed(argv, cwd=self.scratch, env=env, ok=(0, 100))])


def ratio_line(label: str, ours: Side, peer: Side, *, peer_over_ours: bool) -> float:
    """Print per-round ratios and the ratio of the medians; return the latter."""

    def ratio(a: float, b: float) -> float:
        return b / a if peer_over_ours else a / b

    per_round = [ratio(a, b) for a, b in zip(ours.medians(), peer.medians(), strict=True)]
    overall = ratio(statistics.median(ours.medians()), statistics.median(peer.medians()))
    rounds = ", ".join(f"{r:.3g}x" for r in per_round)
    print(f"  {label}: {overall:.3g}x ({ours.name} vs {peer.name}; per round {rounds})")
    return overall


def report(title: str, sides: dict[str, Side], peer: str, *, peer_over_ours: bool) -> None:
    print(f"-- {title}")
    for side in sides.values():
        if side.rounds:
            meds = ", ".join(f"{m:.3f}" for m in side.medians())
            peak = f"; peak RSS {side.peak_mb:.0f} MB" if side.peak_mb else ""
            print(f"  {side.name}: median wall s per round {meds}{peak}")
    if not sides[peer].rounds:
        print(f"  {peer}: not installed, no ratio")
        return
    for tree in ("before", "evalgate"):
        if tree in sides and sides[tree].rounds:
            value = ratio_line(f"ratio {tree}", sides[tree], sides[peer], peer_over_ours=peer_over_ours)
            if tree == "evalgate":
                op, goal = GOALS[title]
                met = value <= goal if op == "<=" else value >= goal
                print(f"  goal {op} {goal}x: {'met' if met else 'MISSED'}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5, help="one-file runs per side per round")
    parser.add_argument("--corpus-repeat", type=int, default=1, help="corpus commands of ours per round")
    parser.add_argument("--items", type=int, default=16)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--peers", type=Path, default=Path("/tmp/peers"))
    parser.add_argument(
        "--before", type=Path, default=None, help="a source tree holding evalgate/ to compare"
    )
    parser.add_argument("--only", default=",".join(FIGURES), help=f"some of {','.join(FIGURES)}")
    args = parser.parse_args(argv)
    args.folder = args.folder.resolve()
    only = set(args.only.split(","))
    tools = find_tools(args.peers)
    print(f"python:            {sys.version.split()[0]} ({sys.executable})")
    print(f"markdownlint-cli2: {tools.markdownlint or 'not found'}")
    print(f"promptfoo:         {tools.promptfoo or 'not found'}")
    with tempfile.TemporaryDirectory(prefix="evalgate-speed-") as tmp:
        bench = Bench(args, tools, Path(tmp))
        if not bench.paths:
            print(f"no *.md files in {args.folder}", file=sys.stderr)
            return 2
        print(f"files:             {len(bench.paths)} in {args.folder}; one file: {bench.paths[0].name}")

        def sides(peer: str) -> dict[str, Side]:
            return {name: Side(name) for name in [*reversed(bench.trees), peer]}

        one, corpus = sides("markdownlint-cli2"), sides("markdownlint-cli2")
        cold, warm = sides("promptfoo"), sides("promptfoo")
        steps: list[Callable[[int], None]] = []
        server = ModelServer(lambda body: stub_reply(body, args.latency), max_workers=64)
        if "one-file" in only:
            steps.append(lambda _r: bench.one_file(one))
        if "corpus" in only:
            steps.append(lambda _r: bench.corpus(corpus))
        if "fan-out" in only:
            server.start()
            steps.append(lambda r: bench.fan_out(cold, warm, server, r))
        try:
            for round_no in range(args.rounds):
                for step in steps:
                    step(round_no)
                print(f"round {round_no + 1} of {args.rounds} done", file=sys.stderr)
        finally:
            if "fan-out" in only:
                server.stop()
    if "one-file" in only:
        report("one file", one, "markdownlint-cli2", peer_over_ours=False)
    if "corpus" in only:
        report("corpus command", corpus, "markdownlint-cli2", peer_over_ours=True)
    if "fan-out" in only:
        print(f"(fan-out: {args.items} items, one judge, {args.latency:g} s a call, {args.jobs} in flight)")
        report("fan-out", cold, "promptfoo", peer_over_ours=False)
        report("cached", warm, "promptfoo", peer_over_ours=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
