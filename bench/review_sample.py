"""A stratified random sample of the research-review pack's deterministic findings, to read by hand.

    python bench/review_sample.py [--seed N] [--quota id=N,...] [DIR]

Runs the pack's deterministic checks (with the pack's params) over every item of DIR (default: the
453-item corpus), takes each dimension's findings in (file, line, message) order and draws its quota
of them with `random.Random(seed).sample` (a dimension with fewer findings than its quota gives them
all). Em-dashes, by far the most numerous, would fill a plain random draw; the quotas give the rules
that need reading (High confidence, overconfident words, opinions) most of the sample. Each finding
is printed with its line (a Key Finding's whole text for high_confidence_sources) so it can be judged
against the review prompt; the seed, the quotas and the draw are the method docs/checks.md records.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalgate.checks import run_check  # noqa: E402
from evalgate.document import DocumentError, read_document  # noqa: E402
from evalgate.rubric import load_rubric  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "research-completed"
QUOTAS = (
    "em_dashes=6,acronym_expansion=4,high_confidence_sources=14,overconfident_language=4,opinion_labels=2"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", default=str(CORPUS))
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--quota", default=QUOTAS, help="dimension=count, comma-separated")
    args = parser.parse_args()
    rubric = load_rubric("research-review")
    quotas = {k: int(v) for k, v in (part.split("=") for part in args.quota.split(","))}
    found: dict[str, list[tuple[str, int, str, int | None, tuple[str, ...]]]] = {d: [] for d in quotas}
    for path in sorted(Path(args.directory).rglob("*.md")):
        try:
            document = read_document(path)
        except DocumentError:
            continue
        for dim in quotas:
            result = run_check(dim, document, params=rubric.dimension(dim).params, binary=True)
            for f in result.findings:
                name = str(path.relative_to(args.directory))
                found[dim].append((name, f.line, f.message, f.end_line, document.lines))
    rng = random.Random(args.seed)
    number = 0
    for dim, quota in quotas.items():
        pool = sorted(found[dim], key=lambda f: (f[0], f[1], f[2]))
        sample = rng.sample(pool, min(quota, len(pool)))
        print(f"\n== {dim}: {len(pool)} findings, {len(sample)} drawn")
        for name, line, message, end, lines in sample:
            number += 1
            shown = " / ".join(text.strip() for text in lines[line - 1 : end or line])
            print(f"\n{number}. {name}:{line}\n   {message}\n   line: {shown[:900]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
