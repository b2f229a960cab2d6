"""Speed where users feel it, each figure a ratio against a peer run in the same rounds.

    python bench/speed.py [DIR] [--rounds 3] [--repeat 5] [--items 16] [--latency 1.0] [--jobs 8]
                          [--peers /tmp/peers] [--before TREE] [--only one-file,corpus,fan-out]
                          [--system-python | --also-system-python] [--no-peaks]

Four figures, each a ratio from interleaved rounds (ours, the peer, ours, the peer, ...), because this
shared machine's speed drifts by tens of percent from one minute to the next; beside the peers, a
floor column, what no code of ours can go below, with ours over it:

- one file: `evalgate check FILE --judge none` as a new process (a pre-commit hook) over
  markdownlint-cli2 on the same file; each round runs both `--repeat` times, alternating, and
  compares medians (goal <= 0.15x); the floor is the same interpreter, isolated, running
  `python -I -c 'import yaml'` in the same rounds (goal <= 1.5x);
- corpus command: `evalgate check DIR --judge none --format json --output X` as a new process, and
  markdownlint-cli2 over the same files once per round; markdownlint-cli2's median over ours
  (goal >= 35x in every round) and the main process's peak RSS (goal <= 30 MB);
- fan-out: `evalgate check` over the first `--items` files with one `openai:` judge against a stub
  server answering every call after `--latency` seconds, `--jobs` in flight, cache cold, over
  promptfoo 0.118.0 `eval` with one llm-rubric assertion per item graded by the same stub (`-j`
  the same, its cache cold) (goal <= 0.6x); the floor is the calls' own time, ceil(items / jobs)
  latencies (goal <= 1.10x), and where ours spends the rest is read from the stub's arrival times
  (the first call, the first wave's last call, the widest gap before a call, after the last reply);
- cached: both again with their caches warm (goal <= 0.5x).

Peers are found under `--peers`/node_modules/.bin (installed there, outside the project:
`npm install --ignore-scripts markdownlint-cli2@0.22.1 promptfoo@0.118.0`, then `node-gyp rebuild
--nodedir=/usr` in node_modules/better-sqlite3), else on PATH. A missing peer is reported and its
ratio left out, never estimated. `--before TREE` also times the evalgate package found in TREE
(`git archive <rev> evalgate prompts pyproject.toml | tar -x -C TREE`; its console script
runs that tree's own entry point) in the same rounds, for before/after figures.

Ours runs as a user's install does (bench/userpython.py): the `evalgate` console script of a
scratch virtual environment that sees evalgate's dependencies but not this interpreter's
site-packages `.pth` files (here an editable finder and a certifi hook: a bare `python -c pass`
takes 44 CPU ms with them, 11 without), with the tree under test (and `--before`'s) on PYTHONPATH.
`--system-python` runs `python -m evalgate` under this interpreter as it is instead (the old way),
`--also-system-python` both in the same rounds. Every process runs under bench/peak.py, which reads
the peak RSS of the command's main process and of each child process it starts (the corpus
command's forked workers, git) as each exits; each figure prints the medians over the rounds
(`--no-peaks` times without it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import peak, userpython  # noqa: E402
from bench.corpus import score_table  # noqa: E402
from tests.support.openai_server import ModelServer, ServerReply, last_user_text  # noqa: E402

DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"
FIGURES = ("one-file", "corpus", "fan-out")
# Per figure: (what ours is compared with, how, the goal). A floor is what no code of ours can go
# below: the interpreter starting and importing PyYAML (one file), the calls' own time (fan-out).
GOALS: dict[str, tuple[tuple[str, str, float], ...]] = {
    "one file": (("markdownlint-cli2", "<=", 0.15), ("floor", "<=", 1.5)),
    "corpus command": (("markdownlint-cli2", ">=", 35.0),),
    "fan-out": (("promptfoo", "<=", 0.6), ("floor", "<=", 1.10)),
    "cached": (("promptfoo", "<=", 0.5),),
}
MAIN_PEAK_GOAL_MB = 30.0  # the corpus command's main process
RUBRIC_TEXT = "The document states its key findings, cites its sources and labels its claims' evidence."


def _clean_env(**extra: str) -> dict[str, str]:
    # As installed, modules run from compiled bytecode: PYTHONDONTWRITEBYTECODE would compile evalgate
    # on every start.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    env.update(extra)
    return env


Run = tuple[float, "peak.Peaks | None"]  # wall seconds, peak RSS


@dataclass(frozen=True)
class Ours:
    """One copy of evalgate measured: its source tree and the interpreter it runs under."""

    tree: Path
    python: userpython.Interpreter


@dataclass
class Side:
    """One measured program in a figure: its wall times and peak RSS per round (one of each per run)."""

    name: str
    rounds: list[list[float]] = field(default_factory=list)
    peaks: list[list[peak.Peaks | None]] = field(default_factory=list)

    def medians(self) -> list[float]:
        return [statistics.median(r) for r in self.rounds]

    def add(self, runs: list[Run]) -> None:
        """One round's runs."""
        self.rounds.append([wall for wall, _ in runs])
        self.peaks.append([seen for _, seen in runs])

    def peak_lines(self) -> list[str]:
        """Per round the median over its runs of the main process's peak RSS and of its largest child's."""
        if not any(seen for runs in self.peaks for seen in runs):
            return []
        main = [_median_mb([s.main_mb for s in runs if s]) for runs in self.peaks]
        child = [_median_mb([s.largest_child_mb for s in runs if s]) for runs in self.peaks]
        lines = [f"main process {_mb_rounds(main)}"]
        names = {s.child_names() for runs in self.peaks for s in runs if s}
        if any(c is not None for c in child):
            lines.append(
                f"largest child process {_mb_rounds(child)}; children per run: {' | '.join(sorted(names))}"
            )
        else:
            lines.append("no child process")
        return lines


def _median_mb(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def _mb_rounds(values: list[float | None]) -> str:
    each = ", ".join("-" if v is None else f"{v:.1f}" for v in values)
    overall = _median_mb(values)
    return f"{'-' if overall is None else f'{overall:.1f}'} MB (median of rounds {each})"


@dataclass
class Tools:
    markdownlint: str | None
    promptfoo: str | None


def find_tools(peers: Path) -> Tools:
    def find(name: str) -> str | None:
        local = peers / "node_modules" / ".bin" / name
        return str(local) if local.exists() else shutil.which(name)

    return Tools(find("markdownlint-cli2"), find("promptfoo"))


def stub_reply(body: dict[str, Any], latency: float, arrivals: list[float]) -> ServerReply:
    """evalgate's prompts get a valid score table, promptfoo's grader prompts the JSON it asks for.
    Each call's arrival (time.monotonic) goes to `arrivals`."""
    arrivals.append(time.monotonic())
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
    def __init__(self, args: argparse.Namespace, tools: Tools, scratch: Path, ours: dict[str, Ours]) -> None:
        self.args = args
        self.tools = tools
        self.scratch = scratch  # the working directory of every process: no .evalgate.yml, no git
        self.ours = ours
        self.paths = sorted(args.folder.glob("*.md"))
        self.arrivals: list[float] = []  # when the stub received each call of the current run

    def run(self, argv: list[str], env: dict[str, str] | None = None, ok: tuple[int, ...] = (0, 1)) -> Run:
        environ = _clean_env(**(env or {}))
        return peak.run(argv, cwd=self.scratch, env=environ, ok=ok, peaks=self.args.peaks)

    def evalgate(self, name: str, *args: str, **env: str) -> Run:
        ours = self.ours[name]
        argv = [*ours.python.command, "check", *args]
        return self.run(argv, {"PYTHONPATH": str(ours.tree), **env})

    def one_file(self, sides: dict[str, Side]) -> None:
        file = str(self.paths[0])
        runs: dict[str, list[Run]] = {name: [] for name in sides}
        floor = [self.ours["evalgate"].python.python, "-I", "-c", "import yaml"]
        for _ in range(self.args.repeat):
            for name in self.ours:
                runs[name].append(self.evalgate(name, file, "--judge", "none"))
            runs[FLOOR].append(self.run(floor))
            if self.tools.markdownlint:
                runs["markdownlint-cli2"].append(self.run([self.tools.markdownlint, file]))
        for name, side in sides.items():
            if runs[name]:  # nothing for a peer that is not installed
                side.add(runs[name])

    def corpus(self, sides: dict[str, Side]) -> None:
        args = [str(self.args.folder), "--judge", "none", "--format", "json"]
        args += ["--output", str(self.scratch / "corpus.json")]
        for name in self.ours:
            sides[name].add([self.evalgate(name, *args) for _ in range(self.args.corpus_repeat)])
        if self.tools.markdownlint:
            sides["markdownlint-cli2"].add([self.run([self.tools.markdownlint, *map(str, self.paths)])])

    def fan_out(
        self,
        cold: dict[str, Side],
        warm: dict[str, Side],
        server: ModelServer,
        round_no: int,
        timelines: dict[str, list[Timeline]],
    ) -> None:
        files = [str(p) for p in self.paths[: self.args.items]]
        jobs = str(self.args.jobs)
        waves = -(-len(files) // self.args.jobs)
        cold[CALLS].add([(waves * self.args.latency, None)])  # the calls' own time, for the ratio
        for number, name in enumerate(self.ours):
            args = [*files, "--judge", "openai:stub", "--jobs", jobs]
            args += ["--cache-dir", str(self.scratch / f"evalgate-cache-{number}-{round_no}")]
            args += ["--format", "json", "--output", str(self.scratch / "judged.json")]
            for sides in (cold, warm):  # the first run fills the cache, the second reads it
                self.arrivals.clear()
                started = time.monotonic()
                run = self.evalgate(name, *args, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="x")
                if sides is cold:
                    timelines[name].append(
                        Timeline.of(
                            self.arrivals, started, started + run[0], self.args.jobs, self.args.latency
                        )
                    )
                sides[name].add([run])
        if self.tools.promptfoo:
            home = self.scratch / f"promptfoo-home-{round_no}"
            home.mkdir()
            config = promptfoo_config(self.scratch, [Path(f) for f in files], server.base_url)
            env = {
                "HOME": str(home),
                "PROMPTFOO_CACHE_PATH": str(home / "cache"),
                "PROMPTFOO_DISABLE_TELEMETRY": "1",
                "PROMPTFOO_DISABLE_UPDATE": "1",
                "OPENAI_API_KEY": "x",
            }
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
                sides["promptfoo"].add([self.run(argv, env, ok=(0, 100))])


@dataclass(frozen=True)
class Timeline:
    """Where a fan-out run's time outside its calls went, in seconds, from the stub's arrival times:
    before the first call, before the last call of the first wave (which decides when the run can
    end), the widest gap between a reply and the call that took its place, and after the last reply."""

    first: float
    wave: float
    gap: float
    tail: float

    @classmethod
    def of(cls, arrivals: list[float], started: float, ended: float, jobs: int, latency: float) -> Timeline:
        calls = sorted(a - started for a in arrivals)
        replies = sorted(c + latency for c in calls)  # each call is answered `latency` after it came
        gaps = [calls[k + jobs] - replies[k] for k in range(len(calls) - jobs)]
        return cls(
            calls[0], calls[min(jobs, len(calls)) - 1], max(gaps, default=0.0), ended - started - replies[-1]
        )

    @staticmethod
    def medians(lines: list[Timeline]) -> str:
        if not lines:
            return "no run"
        parts = {
            "first call": statistics.median(t.first for t in lines),
            "first wave's last call": statistics.median(t.wave for t in lines),
            "widest gap before a call": statistics.median(t.gap for t in lines),
            "after the last reply": statistics.median(t.tail for t in lines),
        }
        return ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in parts.items())


def ratio_line(label: str, ours: Side, peer: Side, *, peer_over_ours: bool) -> tuple[float, list[float]]:
    """Print per-round ratios and the ratio of the medians; return both."""

    def ratio(a: float, b: float) -> float:
        return b / a if peer_over_ours else a / b

    per_round = [ratio(a, b) for a, b in zip(ours.medians(), peer.medians(), strict=True)]
    overall = ratio(statistics.median(ours.medians()), statistics.median(peer.medians()))
    rounds = ", ".join(f"{r:.3g}x" for r in per_round)
    print(f"  {label}: {overall:.3g}x ({ours.name} vs {peer.name}; per round {rounds})")
    return overall, per_round


# Printed beside the one-file figure: the same interpreter, isolated (-I), starting and importing PyYAML,
# which every run needs (front matter and the rubric's data are YAML), and nothing of evalgate: what no
# code of ours can go below.
FLOOR = "floor (python -I -c 'import yaml')"
# Beside the fan-out figures: the calls' own time, ceil(items / jobs) waves of one latency each.
CALLS = "floor (the calls' own time)"


def report(
    title: str, sides: dict[str, Side], peer: str, *, peer_over_ours: bool, floor: str | None = None
) -> None:
    """The figure's medians per round, each side's peak RSS, and ours (and before) over the peer and
    over the floor, in the same rounds, against the goals (the corpus command's in every round)."""
    print(f"-- {title}")
    for side in sides.values():
        if side.rounds:
            meds = ", ".join(f"{m:.3f}" for m in side.medians())
            print(f"  {side.name}: median wall s per round {meds}")
            for line in side.peak_lines():
                print(f"    peak RSS, {line}")
    compared = {"floor": floor, peer: peer}
    for name, side in sides.items():
        if name in (peer, floor) or not side.rounds:
            continue
        for against, op, goal in GOALS[title]:
            other = compared[against]
            if other is None or not sides[other].rounds:
                print(f"  {against}: not measured, no ratio")
                continue
            over = peer_over_ours and against == peer
            value, per_round = ratio_line(f"ratio {name}", side, sides[other], peer_over_ours=over)
            if name != "evalgate":
                continue
            if title == "corpus command":  # in every round, not only the ratio of the medians
                met = sum(r >= goal if op == ">=" else r <= goal for r in per_round)
                print(f"  goal {op} {goal}x against {other} in every round: {met} of {len(per_round)}")
            else:
                met_now = value <= goal if op == "<=" else value >= goal
                print(f"  goal {op} {goal}x against {other}: {'met' if met_now else 'MISSED'}")
    if title == "corpus command" and sides["evalgate"].peak_lines():
        mains = [s.main_mb for runs in sides["evalgate"].peaks for s in runs if s and s.main_mb]
        if mains:
            top = max(mains)
            state = "met" if top <= MAIN_PEAK_GOAL_MB else "MISSED"
            goal = f"goal main process peak RSS <= {MAIN_PEAK_GOAL_MB:g} MB in every run"
            print(f"  {goal}: {state} ({top:.1f} MB)")


def interpreters(args: argparse.Namespace, scratch: Path) -> dict[str, Ours]:
    """The copies of evalgate to measure, each with the interpreter it runs under (printed)."""
    env = _clean_env()
    main = (userpython.system_python if args.system_python else userpython.user_venv)(scratch, env, ROOT)
    ours = {"evalgate": Ours(ROOT, main)}
    print("ours:              " + "\n                   ".join(main.setup))
    if args.also_system_python:
        system = userpython.system_python(scratch, env, ROOT)
        ours["evalgate, system python"] = Ours(ROOT, system)
        print("and as before:     " + "\n                   ".join(system.setup))
    if args.before:
        missing = [d for d in ("evalgate", "prompts", "pyproject.toml") if not (args.before / d).exists()]
        if missing:  # without prompts/ every judge call fails fast and the fan-out figure means nothing
            raise SystemExit(
                f"--before {args.before}: no {' or '.join(missing)} there"
                " (git archive REV evalgate prompts pyproject.toml)"
            )
        ours["before"] = Ours(args.before.resolve(), userpython.before_script(main, args.before))
        print(f"before:            {args.before.resolve()} under the same interpreter")
    return dict(reversed(ours.items()))  # before first, then the alternatives, then evalgate


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
    python = parser.add_mutually_exclusive_group()
    python.add_argument(
        "--system-python",
        action="store_true",
        help="run ours under this interpreter's own site (the old way)",
    )
    python.add_argument("--also-system-python", action="store_true", help="both ways in the same rounds")
    parser.add_argument(
        "--no-peaks", dest="peaks", action="store_false", help="do not trace processes for peak RSS"
    )
    args = parser.parse_args(argv)
    args.folder = args.folder.resolve()
    only = set(args.only.split(","))
    if not only <= set(FIGURES):
        parser.error(f"--only takes some of {','.join(FIGURES)}")
    tools = find_tools(args.peers)
    print(f"python:            {sys.version.split()[0]} ({sys.executable})")
    print(f"markdownlint-cli2: {tools.markdownlint or 'not found'}")
    print(f"promptfoo:         {tools.promptfoo or 'not found'}")
    why_not = peak.available() if args.peaks else "--no-peaks"
    measured = (
        "VmHWM of the main process and of each child process, read as each exits (bench/peak.py);\n"
        "                   a forked worker's counts the pages it shares copy-on-write with the main one"
    )
    print(f"peak RSS:          {measured if why_not is None else 'not measured: ' + why_not}")
    with tempfile.TemporaryDirectory(prefix="evalgate-speed-") as tmp:
        args.peaks = why_not is None
        bench = Bench(args, tools, Path(tmp), interpreters(args, Path(tmp)))
        if not bench.paths:
            print(f"no *.md files in {args.folder}", file=sys.stderr)
            return 2
        print(f"files:             {len(bench.paths)} in {args.folder}; one file: {bench.paths[0].name}")

        def sides(peer: str) -> dict[str, Side]:
            return {name: Side(name) for name in [*bench.ours, peer]}

        one, corpus = {FLOOR: Side(FLOOR), **sides("markdownlint-cli2")}, sides("markdownlint-cli2")
        cold, warm = {CALLS: Side(CALLS), **sides("promptfoo")}, sides("promptfoo")
        timelines: dict[str, list[Timeline]] = {name: [] for name in bench.ours}
        steps: list[Callable[[int], None]] = []
        server = ModelServer(lambda body: stub_reply(body, args.latency, bench.arrivals), max_workers=64)
        if "one-file" in only:
            steps.append(lambda _r: bench.one_file(one))
        if "corpus" in only:
            steps.append(lambda _r: bench.corpus(corpus))
        if "fan-out" in only:
            server.start()
            steps.append(lambda r: bench.fan_out(cold, warm, server, r, timelines))
        try:
            for round_no in range(args.rounds):
                for step in steps:
                    step(round_no)
                print(f"round {round_no + 1} of {args.rounds} done", file=sys.stderr)
        finally:
            if "fan-out" in only:
                server.stop()
    if "one-file" in only:
        report("one file", one, "markdownlint-cli2", peer_over_ours=False, floor=FLOOR)
    if "corpus" in only:
        report("corpus command", corpus, "markdownlint-cli2", peer_over_ours=True)
    if "fan-out" in only:
        print(f"(fan-out: {args.items} items, one judge, {args.latency:g} s a call, {args.jobs} in flight)")
        report("fan-out", cold, "promptfoo", peer_over_ours=False, floor=CALLS)
        for name, lines in timelines.items():
            print(f"  {name}, outside the calls (medians over the rounds): {Timeline.medians(lines)}")
        report("cached", warm, "promptfoo", peer_over_ours=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
