"""Structural benchmark: read + parse + every registered deterministic check over a directory of items.

    python bench/structural.py [DIR] [--jobs N] [--repeat R] [--rounds K]

DIR defaults to ../shared/corpus/research-completed next to the repository. Three figures:
- jobs=1: the in-process loop (read_document + each check, nothing else);
- jobs=2: the path the CLI takes (`evalgate.run.run(Config(jobs=2), [DIR])`, which shares the
  structural pass with worker processes once there are 48 files or more, their start included);
- command: `evalgate check DIR --format json` as a user runs it, in a new process (interpreter
  start, imports, the run, the gate and writing the JSON report): the console script of a scratch
  virtual environment like a user's install (bench/userpython.py), the tree on PYTHONPATH.
`--jobs N` reports just the jobs=N figure (N=1: the in-process loop, N>1: the CLI path).

The machine's speed drifts by tens of percent from one minute to the next, so one run says little:
the figures run in rounds (--rounds, default 3), each running every figure R times (--repeat,
default 5) and ending with one markdownlint-cli2 run over the same files when it is on PATH (a
yardstick here, never a dependency). Each figure prints the median and fastest of all its runs,
docs/s and MB/s from the median, the ratio of markdownlint-cli2's median to its median, and with
more than one round each round's own ratio (that round's markdownlint-cli2 run over the figure's
median in the same round) and their median. Peak RSS counts this process and, for the CLI path,
its workers; for the command, that process's main process and its largest worker, each read at its
exit (bench/peak.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import peak, userpython  # noqa: E402
from evalgate.checks import registry, run_check  # noqa: E402
from evalgate.config import Config  # noqa: E402
from evalgate.document import DocumentError, read_document  # noqa: E402
from evalgate.rubric import load_rubric  # noqa: E402
from evalgate.run import _POOL_THRESHOLD, run  # noqa: E402

DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"


@dataclass(frozen=True)
class Figure:
    """One measured figure: how it ran, its wall times over the repeats, errors, peak memory (MB)."""

    label: str
    walls: tuple[float, ...]
    errors: int
    peak_self_mb: float
    peak_child_mb: float  # the largest worker's peak (CLI path, command); 0 for the loop
    workers: int

    @property
    def median(self) -> float:
        return statistics.median(self.walls)


def structural_checks() -> list[str]:
    """The research-loop rubric's deterministic dimensions that have a registered check."""
    registered = registry()
    return [d.id for d in load_rubric("research-loop").deterministic if d.id in registered]


def structural_pass(paths: list[Path], checks: list[str]) -> tuple[float, int]:
    """Seconds for the whole pass over `paths`, and how many check results were errors."""
    errors = 0
    start = time.perf_counter()
    for path in paths:
        try:
            document = read_document(path)
        except DocumentError:
            errors += 1
            continue
        for name in checks:
            if run_check(name, document).error:
                errors += 1
    return time.perf_counter() - start, errors


def _peak_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # KiB on Linux


def in_process(paths: list[Path], checks: list[str], repeat: int) -> Figure:
    """jobs=1: the loop above in this process."""
    runs = [structural_pass(paths, checks) for _ in range(repeat)]
    walls = tuple(wall for wall, _ in runs)
    return Figure("jobs=1 (in process)", walls, runs[-1][1], _peak_mb(resource.RUSAGE_SELF), 0.0, 0)


def cli_path(folder: Path, jobs: int, repeat: int) -> Figure:
    """jobs=N: the CLI's run() with its worker pool (no judges, so the structural pass only)."""
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        report = run(Config(jobs=jobs), [str(folder)])
        walls.append(time.perf_counter() - start)
    errors = sum(1 for r in report.results if r.error) + sum(
        1 for r in report.results for d in r.dimensions if d.kind != "judge" and d.error
    )
    # RUSAGE_CHILDREN is the largest finished child's peak, so the pool's workers must have exited
    # (run() shuts its pool down before returning) and no other child must have run yet.
    pooled = len(report.results) >= _POOL_THRESHOLD  # fewer files run in this process alone
    return Figure(
        f"jobs={jobs} (CLI path)",
        tuple(walls),
        errors,
        _peak_mb(resource.RUSAGE_SELF),
        _peak_mb(resource.RUSAGE_CHILDREN) if pooled else 0.0,
        jobs if pooled else 0,
    )


def command_env() -> dict[str, str]:
    # As installed, modules run from compiled bytecode (pip compiles at install, Python caches it): a
    # PYTHONDONTWRITEBYTECODE in this environment would compile evalgate's modules on every start.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    return env | {"PYTHONPATH": str(ROOT)}


def command(folder: Path, repeat: int, python: userpython.Interpreter, scratch: Path) -> Figure:
    """`evalgate check DIR --format json` in a new process, as a user runs it (bench/userpython.py),
    with the peak RSS of its main process and of its largest worker (bench/peak.py)."""
    argv = [*python.command, "check", str(folder), "--format", "json", "--output", os.devnull]
    env = command_env()
    walls, main_mb, child_mb, workers = [], 0.0, 0.0, 0
    for _ in range(repeat):
        try:
            wall, seen = peak.run(argv, cwd=scratch, env=env)  # exit 1: some item FAILs, as in the corpus
        except RuntimeError as error:  # an exit code other than 0 or 1: the bench cannot go on
            raise SystemExit(str(error)) from None
        walls.append(wall)
        if seen:
            main_mb = max(main_mb, seen.main_mb or 0.0)
            forked = seen.workers()
            child_mb, workers = max([child_mb, *forked]), max(workers, len(forked))
    return Figure("command (evalgate check, new process)", tuple(walls), 0, main_mb, child_mb, workers)


def markdownlint_seconds(paths: list[Path]) -> float | None:
    """Wall time of markdownlint-cli2 over the same files, or None when it is not installed."""
    exe = shutil.which("markdownlint-cli2") or shutil.which(
        "markdownlint-cli2", path=str(Path("/tmp/peers/node_modules/.bin"))
    )  # on PATH, or where bench/speed.py's peers are installed
    if exe is None:
        return None
    start = time.perf_counter()
    # File names go as argv, never through a shell; its exit code says lint failures, not errors.
    subprocess.run([exe, *map(str, paths)], capture_output=True, check=False)
    return time.perf_counter() - start


def report(figure: Figure, files: int, megabytes: float, lint: float | None, paired: list[float]) -> None:
    """Print one figure's lines; `paired` holds each round's markdownlint-cli2 time over this figure's
    median in the same round."""
    print(f"-- {figure.label}")
    print(f"wall s:     median {figure.median:.2f}, fastest {min(figure.walls):.2f} of {len(figure.walls)}")
    print(f"docs/s:     {files / figure.median:.0f}")
    print(f"MB/s:       {megabytes / figure.median:.1f}")
    if figure.workers:
        # each worker's peak is at most the largest one's; they run at the same time
        total = figure.peak_self_mb + figure.workers * figure.peak_child_mb
        print(
            f"peak RSS:   {figure.peak_self_mb:.0f} MB main + {figure.workers} x "
            f"{figure.peak_child_mb:.0f} MB workers (<= {total:.0f} MB)"
        )
    else:
        print(f"peak RSS:   {max(figure.peak_self_mb, figure.peak_child_mb):.0f} MB")
    print(f"errors:     {figure.errors}")
    if lint is not None:
        print(f"ratio:      {lint / figure.median:.1f}x faster than markdownlint-cli2 (median)")
    if len(paired) > 1:
        each = ", ".join(f"{r:.1f}x" for r in paired)
        print(f"per round:  {each} (median {statistics.median(paired):.1f}x)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--jobs", type=int, default=None, help="only this many jobs (default: all figures)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure per round (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each ending with markdownlint-cli2")
    args = parser.parse_args(argv)
    folder: Path = args.folder.resolve()
    paths = sorted(folder.glob("*.md"))
    if not paths:
        print(f"no *.md files in {folder}", file=sys.stderr)
        return 2
    if (args.jobs is not None and args.jobs < 1) or args.repeat < 1 or args.rounds < 1:
        print("--jobs, --repeat and --rounds must be at least 1", file=sys.stderr)
        return 2
    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    checks = structural_checks()
    print(f"checks:     {', '.join(checks)}")
    print(f"files:      {len(paths)}")
    print(f"MB:         {megabytes:.1f}")
    rounds: list[list[Figure]] = []
    lints: list[float] = []
    scratch = Path(tempfile.mkdtemp(prefix="evalgate-structural-"))  # removed at the end of main
    python = userpython.user_venv(scratch, command_env(), ROOT) if args.jobs is None else None
    if python:
        print(f"command:    {python.setup[0]}")
    for _ in range(args.rounds):
        # The in-process loop runs first: its peak RSS is then this process's own, before run() adds
        # to it. Then the CLI path, whose workers' peak is read before any other child has run (so
        # only the first round's counts: markdownlint-cli2 is a child too).
        figures: list[Figure] = []
        for jobs in (1, 2) if args.jobs is None else (args.jobs,):
            if jobs == 1:
                figures.append(in_process(paths, checks, args.repeat))
            else:
                figures.append(cli_path(folder, jobs, args.repeat))
        if python:
            figures.append(command(folder, args.repeat, python, scratch))
        rounds.append(figures)
        # Each round ends with the yardstick, so both are timed in every phase of a machine whose
        # speed drifts by tens of percent from one minute to the next.
        lint = markdownlint_seconds(paths)
        if lint is None:
            break
        lints.append(lint)
    median_lint = statistics.median(lints) if lints else None
    for column in zip(*rounds, strict=True):
        first = column[0]
        merged = replace(first, walls=tuple(w for figure in column for w in figure.walls))
        # Paired: each round's yardstick over the figure's median in that round, the two timed
        # minutes apart rather than across the whole run.
        paired = [lint / figure.median for figure, lint in zip(column, lints, strict=False)]
        report(merged, len(paths), megabytes, median_lint, paired)
    if median_lint is None:
        print("markdownlint-cli2: not on PATH (npm install -g markdownlint-cli2 to compare)")
    else:
        times = ", ".join(f"{t:.2f}" for t in lints)
        print(f"markdownlint-cli2 wall s: median {median_lint:.2f} of {len(lints)} ({times})")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
