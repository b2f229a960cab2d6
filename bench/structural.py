"""Structural benchmark: read + parse + every registered deterministic check over a directory of items.

    python bench/structural.py [DIR]

DIR defaults to ../shared/corpus/research-completed next to the repository. Prints files, MB, wall
seconds, documents and MB per second, and peak RSS; when `markdownlint-cli2` is on PATH it also times
that over the same files and prints the ratio (it is a yardstick here, never a dependency).
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalgate.checks import registry, run_check  # noqa: E402
from evalgate.document import DocumentError, read_document  # noqa: E402
from evalgate.rubric import load_rubric  # noqa: E402

DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"


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


def markdownlint_seconds(paths: list[Path]) -> float | None:
    """Wall time of markdownlint-cli2 over the same files, or None when it is not installed."""
    exe = shutil.which("markdownlint-cli2")
    if exe is None:
        return None
    start = time.perf_counter()
    # File names go as argv, never through a shell; its exit code says lint failures, not errors.
    subprocess.run([exe, *map(str, paths)], capture_output=True, check=False)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else DEFAULT_DIR
    paths = sorted(folder.glob("*.md"))
    if not paths:
        print(f"no *.md files in {folder}", file=sys.stderr)
        return 2
    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    checks = structural_checks()
    names = ", ".join(checks)
    wall, errors = structural_pass(paths, checks)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(f"checks:     {names}")
    print(f"files:      {len(paths)}")
    print(f"MB:         {megabytes:.1f}")
    print(f"wall s:     {wall:.2f}")
    print(f"docs/s:     {len(paths) / wall:.0f}")
    print(f"MB/s:       {megabytes / wall:.1f}")
    print(f"peak RSS:   {peak_mb:.0f} MB")
    print(f"errors:     {errors}")
    lint = markdownlint_seconds(paths)
    if lint is None:
        print("markdownlint-cli2: not on PATH (npm install -g markdownlint-cli2 to compare)")
    else:
        print(f"markdownlint-cli2 wall s: {lint:.2f}")
        print(f"ratio:      {lint / wall:.1f}x faster")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
