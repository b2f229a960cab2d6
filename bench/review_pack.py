"""The research-review pack's deterministic part over the corpus: what it scores, and what it costs
against `evalgate check` with research-loop.

    python bench/review_pack.py [DIR] [--rounds 5] [--jobs 2]

Each round runs two commands as new processes, in alternating order (research-review first in odd
rounds, research-loop first in even ones): `evalgate check DIR --rubric R --judge none --format json
--output X --jobs N`, each one process over the whole corpus (with its forked workers), under the
console script of a user-like install (bench/userpython.py). Each run's wall time and CPU time (user
+ system of the process and the workers it waited for, from RUSAGE_CHILDREN) are kept; printed are
the medians and the ratio of medians (research-review over research-loop), wall and CPU, and each
round's CPU ratio: this shared machine's speed drifts, so only the ratio within a round means much.

Then, from the last research-review run's JSON: per deterministic dimension, how many items meet
it and how many do not, its findings and the items holding them; and the verdict counts (PASS /
FAIL / ERROR). docs/checks.md records both.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import userpython  # noqa: E402

DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"
RUBRICS = ("research-review", "research-loop")


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_once(
    command: tuple[str, ...], folder: Path, rubric: str, out: Path, jobs: int, env: dict[str, str]
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one corpus command."""
    argv = [*command, "check", str(folder), "--rubric", rubric, "--judge", "none", "--format", "json"]
    argv += ["--output", str(out), "--jobs", str(jobs)]
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, cwd=out.parent, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-800:]}")
    return wall, cpu


def distribution(report: dict) -> list[str]:
    """Per deterministic dimension: items meeting it, not, findings and items with findings; verdicts."""
    met: Counter[str] = Counter()
    unmet: Counter[str] = Counter()
    findings: Counter[str] = Counter()
    holding: Counter[str] = Counter()
    order: list[str] = []
    verdicts = Counter(r["verdict"] for r in report["results"])
    for result in report["results"]:
        for dim in result.get("dimensions", []):
            if dim["kind"] != "deterministic":
                continue
            if dim["id"] not in order:
                order.append(dim["id"])
            (met if dim.get("score") == 1 else unmet)[dim["id"]] += 1
            count = len([f for f in dim.get("findings", []) if f.get("level") != "notice"])
            findings[dim["id"]] += count
            holding[dim["id"]] += count > 0
    lines = ["| dimension | met | not met | findings |", "|---|---|---|---|"]
    lines += [f"| `{d}` | {met[d]} | {unmet[d]} | {findings[d]:,} |" for d in order]
    lines.append(
        f"verdicts: {verdicts['PASS']} PASS, {verdicts['FAIL']} FAIL, {verdicts['ERROR']} ERROR "
        f"({len(report['results'])} items)"
    )
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    with tempfile.TemporaryDirectory(prefix="evalgate-review-bench-") as scratch:
        python = userpython.user_venv(Path(scratch), env, ROOT)
        print("runs: " + "\n      ".join(python.setup))
        walls: dict[str, list[float]] = {r: [] for r in RUBRICS}
        cpus: dict[str, list[float]] = {r: [] for r in RUBRICS}
        outputs = {r: Path(scratch) / f"{r}.json" for r in RUBRICS}
        for round_ in range(args.rounds):
            for rubric in RUBRICS if round_ % 2 == 0 else tuple(reversed(RUBRICS)):
                wall, cpu = run_once(python.command, args.folder, rubric, outputs[rubric], args.jobs, env)
                walls[rubric].append(wall)
                cpus[rubric].append(cpu)
        report = json.loads(outputs["research-review"].read_text(encoding="utf-8"))
    review, loop = RUBRICS
    for name, figures in (("wall", walls), ("CPU", cpus)):
        a, b = statistics.median(figures[review]), statistics.median(figures[loop])
        print(f"{name}: {review} {a:.2f} s, {loop} {b:.2f} s (medians of {args.rounds}); ratio {a / b:.2f}")
    per_round = [a / b for a, b in zip(cpus[review], cpus[loop], strict=True)]
    print("CPU ratio per round: " + ", ".join(f"{r:.2f}" for r in per_round))
    print("\n".join(distribution(report)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
