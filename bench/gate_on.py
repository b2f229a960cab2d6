"""What `gate-on: new` costs, as ratios against `gate-on: all` on the same files in the same rounds.

    python bench/gate_on.py [DIR] [--rounds 3] [--repeat 5]

A scratch git repository holds DIR's items (default: ../shared/corpus/research-completed, else the
gold set) at a base commit, then a commit that changes them; `evalgate check` runs as a new process
(the CLI a user or the action starts), structural checks only:

- one file: a typo fixed in one item, `--gate-on new --base BASE` over the same command without
  (git reads the base version, which is parsed and checked beside the item, then compared);
- every file: every item shifted by three lines, the same two commands over the whole directory
  (twice the structural pass, plus the comparison).

The machine's speed drifts by tens of percent from one minute to the next, so each round runs both
commands `--repeat` times, alternating, and each figure prints the medians and their ratio per
round and over all rounds. Judged runs cost one more call per judge and changed document (not
timed here: a judge's latency is the judge's).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"
GOLD = ROOT / "gold" / "research-loop"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        ["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def build(source: Path, repo: Path) -> tuple[str, str]:
    """The items at a base commit, then one commit that shifts every item and fixes a word in the
    first; returns (base sha, the first item's path)."""
    items = sorted(source.glob("*.md"))
    target = repo / "Research" / "completed"
    target.mkdir(parents=True)
    for item in items:
        shutil.copyfile(item, target / item.name)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    for i, item in enumerate(items):
        path = target / item.name
        data = path.read_bytes()
        cut = data.find(b"\n## ")
        data = data[: cut + 1] + b"\n\n\n" + data[cut + 1 :] if cut >= 0 else b"\n\n\n" + data
        if i == 0:
            data = data.replace(b" the ", b" teh ", 1)
        path.write_bytes(data)
    git(repo, "commit", "-q", "-am", "shift")
    return base, f"Research/completed/{items[0].name}"


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def figure(name: str, all_argv: list[str], new_argv: list[str], repo: Path, rounds: int, repeat: int) -> None:
    ratios, alls, news = [], [], []
    for _ in range(rounds):
        a, n = [], []
        for _ in range(repeat):
            a.append(timed(all_argv, repo))
            n.append(timed(new_argv, repo))
        ratios.append(statistics.median(n) / statistics.median(a))
        alls += a
        news += n
    each = ", ".join(f"{r:.2f}" for r in ratios)
    print(
        f"{name}: all {statistics.median(alls):.3f} s, new {statistics.median(news):.3f} s (medians); "
        f"new/all {statistics.median(news) / statistics.median(alls):.2f} (per round {each})"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", type=Path, default=DEFAULT_DIR if DEFAULT_DIR.is_dir() else GOLD)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="evalgate-bench-gate-on-"))
    try:
        repo = scratch / "repo"
        base, first = build(args.dir, repo)
        command = [sys.executable, "-m", "evalgate", "check", "--judge", "none", "--format", "json"]
        new = ["--gate-on", "new", "--base", base]
        print(f"items: {len(list(args.dir.glob('*.md')))} from {args.dir}")
        figure("one file", [*command, first], [*command, first, *new], repo, args.rounds, args.repeat)
        every = "Research/completed/"
        figure("every file", [*command, every], [*command, every, *new], repo, args.rounds, args.repeat)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
