"""Instructions of one structural pass, counted by valgrind: a figure that does not drift.

    python bench/instructions.py [DIR] [--step K] [--only CHECK,...] [--against REV]

Wall time on this machine drifts by tens of percent from one minute to the next (see
bench/structural.py), which hides a 5% change. This counts the instructions the CPU executes for
one pass (read, parse, the research-loop rubric's deterministic checks) over every K-th file of DIR
(default: ../shared/corpus/research-completed, K=3), under valgrind's callgrind tool, in a fresh
interpreter with PYTHONHASHSEED=0. The interpreter's start and imports are taken out: the same
script runs once with no pass and once with one, and the figure is the difference. The same code
gives the same count to within a few million, so two versions compare exactly.

--only runs just these checks (the reading and parsing is always counted; `--only none` is it alone).
--against REV counts a git revision too (checked out in a temporary worktree, removed afterwards) and
prints both and their ratio. Each count takes about half a minute at K=3 under valgrind; the two
versions are counted at the same time, one per CPU.

Instructions are a proxy for time, not time: the regex engine and the interpreter loop run at
different instructions per cycle, and cache misses are not counted. Use bench/structural.py for the
speed a user sees, and this to tell whether a change made the pass do less work.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"

# Run in the measured interpreter: sys.argv = [-c, tree, folder, step, only, passes].
PASS = """
import sys
tree, folder, step, only, passes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
sys.path.insert(0, tree)
from pathlib import Path
from evalgate.checks import registry, run_check
from evalgate.document import DocumentError, read_document
from evalgate.rubric import load_rubric
checks = [d.id for d in load_rubric("research-loop").deterministic if d.id in registry()]
if only:
    checks = [c for c in checks if c in only.split(",")]
paths = sorted(Path(folder).glob("*.md"))[::step]
for _ in range(passes):
    for path in paths:
        try:
            document = read_document(path)
        except DocumentError:
            continue
        for name in checks:
            run_check(name, document)
"""

_COLLECTED = re.compile(rb"Collected : (\d+)")


def collected(tree: Path, folder: Path, step: int, only: str, passes: int) -> int:
    """Instructions callgrind counted for the whole interpreter run with `passes` passes."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", PASS]
    argv += [str(tree), str(folder), str(step), only, str(passes)]
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(
            f"valgrind run failed ({done.returncode}):\n{done.stderr.decode(errors='replace')[-2000:]}"
        )
    return int(found.group(1))


def one_pass(tree: Path, folder: Path, step: int, only: str) -> int:
    """Instructions of one pass: a run with one pass less a run with none."""
    return collected(tree, folder, step, only, 1) - collected(tree, folder, step, only, 0)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--step", type=int, default=3, help="every K-th file (default 3)")
    parser.add_argument("--only", default="", help="comma-separated check ids, or 'none' (default: all)")
    parser.add_argument("--against", metavar="REV", help="a git revision to count as well")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not on PATH (apt-get install valgrind)", file=sys.stderr)
        return 2
    folder: Path = args.folder.resolve()
    files = len(sorted(folder.glob("*.md"))[:: max(args.step, 1)])
    if args.step < 1 or not files:
        print(f"no *.md files in {folder} (or --step below 1)", file=sys.stderr)
        return 2
    print(f"files:      {files} (1 in {args.step} of {folder})")
    print(f"checks:     {args.only or 'all'}")
    trees = {"this tree": ROOT}
    with tempfile.TemporaryDirectory() as scratch:
        if args.against:
            other = Path(scratch) / "against"
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(other), args.against],
                check=True,
                capture_output=True,
            )
            trees = {args.against: other, **trees}
        try:
            with ThreadPoolExecutor(max_workers=2) as pool:
                measured = pool.map(lambda t: one_pass(t, folder, args.step, args.only), trees.values())
                counts = dict(zip(trees, measured, strict=True))
        finally:
            if args.against:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(other)],
                    check=False,
                    capture_output=True,
                )
    for label, count in counts.items():
        print(f"{label + ':':<11} {count / 1e6:,.0f} M instructions ({count / files / 1e6:.2f} M per file)")
    if args.against:
        mine, theirs = counts["this tree"], counts[args.against]
        print(f"ratio:      {mine / theirs:.3f} of {args.against} ({(mine - theirs) / theirs:+.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
