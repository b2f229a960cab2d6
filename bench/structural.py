"""Structural benchmark: read + parse + every registered deterministic check over a directory of items.

    python bench/structural.py [DIR] [--jobs N]

DIR defaults to ../shared/corpus/research-completed next to the repository. Without --jobs it reports
two figures: jobs=1, the in-process loop (read_document + each check, nothing else), and jobs=2, the
path the CLI takes (`evalgate.run.run(Config(jobs=2), [DIR])`, which splits the structural pass over
spawned worker processes once there are 48 files or more, and includes their start-up). `--jobs N`
reports just that one (N=1: the in-process loop, N>1: the CLI path). Each figure is wall seconds,
documents and MB per second; peak RSS counts this process and, for the CLI path, its workers. When
`markdownlint-cli2` is on PATH it also times that over the same files and prints the ratio for each
figure (it is a yardstick here, never a dependency).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalgate.checks import registry, run_check  # noqa: E402
from evalgate.config import Config  # noqa: E402
from evalgate.document import DocumentError, read_document  # noqa: E402
from evalgate.rubric import load_rubric  # noqa: E402
from evalgate.run import run  # noqa: E402

DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"


@dataclass(frozen=True)
class Figure:
    """One measured pass: how it ran, its wall time, errors, and peak memory (MB)."""

    label: str
    wall: float
    errors: int
    peak_self_mb: float
    peak_child_mb: float  # the largest worker's peak; 0 for the in-process loop
    workers: int


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


def in_process(paths: list[Path], checks: list[str]) -> Figure:
    """jobs=1: the loop above in this process."""
    wall, errors = structural_pass(paths, checks)
    return Figure("jobs=1 (in process)", wall, errors, _peak_mb(resource.RUSAGE_SELF), 0.0, 0)


def cli_path(folder: Path, jobs: int) -> Figure:
    """jobs=N: the CLI's run() with its worker pool (no judges, so the structural pass only)."""
    start = time.perf_counter()
    report = run(Config(jobs=jobs), [str(folder)])
    wall = time.perf_counter() - start
    errors = sum(1 for r in report.results if r.error) + sum(
        1 for r in report.results for d in r.dimensions if d.kind != "judge" and d.error
    )
    # RUSAGE_CHILDREN is the largest finished child's peak, so the pool's workers must have exited
    # (run() shuts its pool down before returning) and markdownlint-cli2 must not have run yet.
    return Figure(
        f"jobs={jobs} (CLI path)",
        wall,
        errors,
        _peak_mb(resource.RUSAGE_SELF),
        _peak_mb(resource.RUSAGE_CHILDREN),
        jobs,
    )


def markdownlint_seconds(paths: list[Path]) -> float | None:
    """Wall time of markdownlint-cli2 over the same files, or None when it is not installed."""
    exe = shutil.which("markdownlint-cli2")
    if exe is None:
        return None
    start = time.perf_counter()
    # File names go as argv, never through a shell; its exit code says lint failures, not errors.
    subprocess.run([exe, *map(str, paths)], capture_output=True, check=False)
    return time.perf_counter() - start


def report(figure: Figure, files: int, megabytes: float, lint: float | None) -> None:
    """Print one figure's lines."""
    print(f"-- {figure.label}")
    print(f"wall s:     {figure.wall:.2f}")
    print(f"docs/s:     {files / figure.wall:.0f}")
    print(f"MB/s:       {megabytes / figure.wall:.1f}")
    if figure.workers:
        # each worker's peak is at most the largest one's; they run at the same time
        total = figure.peak_self_mb + figure.workers * figure.peak_child_mb
        print(
            f"peak RSS:   {figure.peak_self_mb:.0f} MB main + {figure.workers} x "
            f"{figure.peak_child_mb:.0f} MB workers (<= {total:.0f} MB)"
        )
    else:
        print(f"peak RSS:   {figure.peak_self_mb:.0f} MB")
    print(f"errors:     {figure.errors}")
    if lint is not None:
        print(f"ratio:      {lint / figure.wall:.1f}x faster than markdownlint-cli2")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--jobs", type=int, default=None, help="only this many jobs (default: 1 and 2)")
    args = parser.parse_args(argv)
    folder: Path = args.folder
    paths = sorted(folder.glob("*.md"))
    if not paths:
        print(f"no *.md files in {folder}", file=sys.stderr)
        return 2
    if args.jobs is not None and args.jobs < 1:
        print("--jobs must be at least 1", file=sys.stderr)
        return 2
    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    checks = structural_checks()
    print(f"checks:     {', '.join(checks)}")
    print(f"files:      {len(paths)}")
    print(f"MB:         {megabytes:.1f}")
    # The in-process loop runs first: its peak RSS is then this process's own, before run() adds to it.
    figures: list[Figure] = []
    for jobs in (1, 2) if args.jobs is None else (args.jobs,):
        figures.append(in_process(paths, checks) if jobs == 1 else cli_path(folder, jobs))
    # After the pool's workers: markdownlint-cli2 is a child too and would hide their peak.
    lint = markdownlint_seconds(paths)
    for figure in figures:
        report(figure, len(paths), megabytes, lint)
    if lint is None:
        print("markdownlint-cli2: not on PATH (npm install -g markdownlint-cli2 to compare)")
    else:
        print(f"markdownlint-cli2 wall s: {lint:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
