"""A stratified random sample of structural findings over a corpus run, to read by hand.

    evalgate check DIR --judge none --format json > run.json
    python bench/precision_sample.py run.json --seed N [--size 40] [--floor 4]

Takes every finding (notices included) of the five structural dimensions from a JSON report, orders
each dimension's findings by (file, line, message), and draws `--size` in all: every dimension gets at
least `--floor` (or all it has), the rest is shared in proportion to the dimensions' counts (largest
remainder), and each dimension's draw is `random.Random(seed).sample` of its findings, the dimensions
taken in the order below with one generator. A plain random draw would leave the two small dimensions
(tens of findings among thousands) unread. For each finding it prints the item, the line, the message
and the line's text, so it can be judged against the protocol; the judging is by hand
(docs/checks.md, "Hand-read sample (issue #25)").
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

DIMENSIONS = (
    "section_presence",
    "evidence_map_coverage",
    "key_finding_word_count",
    "source_consultation",
    "acronym_expansion",
)


def allocate(counts: dict[str, int], size: int, floor: int) -> dict[str, int]:
    """How many findings each dimension gives: a floor each, the rest by share (largest remainder)."""
    base = {dim: min(floor, n) for dim, n in counts.items()}
    rest = size - sum(base.values())
    left = {dim: n - base[dim] for dim, n in counts.items()}
    total = sum(left.values())
    if rest <= 0 or total == 0:
        return base
    quotas = {dim: rest * n / total for dim, n in left.items()}
    share = {dim: int(q) for dim, q in quotas.items()}
    by_remainder = sorted(quotas, key=lambda dim: (-(quotas[dim] - share[dim]), DIMENSIONS.index(dim)))
    for dim in by_remainder[: rest - sum(share.values())]:
        share[dim] += 1
    return {dim: base[dim] + min(share[dim], left[dim]) for dim in counts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="a JSON report of `evalgate check --format json`")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--size", type=int, default=40)
    parser.add_argument("--floor", type=int, default=4)
    args = parser.parse_args()
    report = json.loads(Path(args.report).read_text(encoding="utf-8"))
    pools: dict[str, list[tuple[str, int, str, str]]] = {dim: [] for dim in DIMENSIONS}
    for result in report["results"]:
        for dim in result["dimensions"]:
            for f in dim["findings"] if dim["id"] in pools else ():
                level = f.get("level", "finding")
                pools[dim["id"]].append((result["path"], f["line"], f["message"], level))
    counts = {dim: len(pool) for dim, pool in pools.items()}
    notices = sum(1 for pool in pools.values() for f in pool if f[3] == "notice")
    plan = allocate(counts, args.size, args.floor)
    print(f"{sum(counts.values())} findings ({notices} notices): {counts}")
    print(f"seed {args.seed}, {sum(plan.values())} drawn: {plan}")
    rng = random.Random(args.seed)
    number = 0
    for dim in DIMENSIONS:
        for path, line, message, level in rng.sample(sorted(pools[dim]), plan[dim]):
            number += 1
            try:
                text = Path(path).read_text(encoding="utf-8").splitlines()[line - 1].strip()
            except (OSError, IndexError, UnicodeDecodeError):
                text = "(line not read)"
            print(f"\n{number}. [{dim}{', notice' if level == 'notice' else ''}] {Path(path).name}:{line}")
            print(f"   {message}\n   line: {text[:400]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
