"""CPU time of each stage of the structural pass over a folder, in process: where the pass goes.

    python bench/stages.py [DIR] [--passes 3] [--rounds 2] [--against TREE]

Reads every `*.md` of DIR (default ../shared/corpus/research-completed) and runs the research-loop
rubric's deterministic checks on each, timing with the process's CPU clock the reading (front matter,
the line scan, sections, the Findings part) and each check separately. One warm-up pass, then
`--passes` passes; each stage's figure is its least total over them (the least disturbed by this
shared machine). `--against TREE` times the evalgate package in TREE too (e.g.
`git archive REV evalgate | tar -x -C TREE`), each tree in its own fresh interpreter, alternating
over `--rounds` rounds so that both sides of a comparison run in the same minutes.

CPU time still drifts with the machine (tens of percent between minutes); compare trees only within
one invocation, and use bench/instructions.py to tell whether a change made the pass do less work.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "research-completed"

# Run in a fresh interpreter: sys.argv = [-c, tree, folder, passes]; prints one JSON object.
PASS = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from evalgate.checks import registry, run_check
from evalgate.document import DocumentError, read_document
from evalgate.rubric import load_rubric
checks = [d.id for d in load_rubric("research-loop").deterministic if d.id in registry()]
paths = sorted(Path(sys.argv[2]).glob("*.md"))
clock = time.process_time
def one():
    spent = dict.fromkeys(["reading", *checks], 0.0)
    for path in paths:
        start = clock()
        try:
            document = read_document(path)
        except DocumentError:
            continue
        spent["reading"] += clock() - start
        for name in checks:
            start = clock()
            run_check(name, document)
            spent[name] += clock() - start
    return spent
one()
best = one()
for _ in range(int(sys.argv[3]) - 1):
    best = {k: min(v, s) for (k, v), s in zip(best.items(), one().values())}
print(json.dumps({k: v * 1000 for k, v in best.items()}))
"""


def stages(tree: Path, folder: Path, passes: int) -> dict[str, float]:
    """CPU ms per stage for the evalgate package in `tree` (least over `passes` passes)."""
    argv = [sys.executable, "-c", PASS, str(tree), str(folder), str(passes)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the pass failed in {tree}:\n{done.stderr[-2000:]}")
    return {k: float(v) for k, v in json.loads(done.stdout).items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--passes", type=int, default=3, help="timed passes in each interpreter")
    parser.add_argument("--rounds", type=int, default=2, help="fresh interpreters per tree, alternating")
    parser.add_argument("--against", type=Path, metavar="TREE", help="a source tree holding evalgate/")
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        raise SystemExit(f"no folder {args.folder} (pass the corpus folder)")
    trees = {"this tree": ROOT}
    if args.against:
        if not (args.against / "evalgate").is_dir():
            raise SystemExit(f"--against {args.against}: no evalgate/ there")
        trees = {str(args.against): args.against.resolve(), **trees}
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            found = stages(tree, args.folder, args.passes)
            kept = best.get(name)
            best[name] = found if kept is None else {k: min(v, found.get(k, v)) for k, v in kept.items()}
    names = list(next(iter(best.values())))
    print(f"CPU ms over {args.folder} (least of {args.rounds} rounds x {args.passes} passes)")
    print(f"{'stage':<24}" + "".join(f"{n[-20:]:>22}" for n in best))
    for stage in [*names, "total"]:
        row = [sum(b.values()) if stage == "total" else b.get(stage, 0.0) for b in best.values()]
        print(f"{stage:<24}" + "".join(f"{v:>22,.0f}" for v in row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
