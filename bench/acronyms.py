"""Acronym figures over a directory of items (default: the 453-item corpus): suggestions and `fix`.

    python bench/acronyms.py [DIR]

Prints, for the research-loop rubric with no repository glossary:
- the acronym findings, and how many carry a concrete expansion (not "Full Name (ABBR)") without the
  bundled common_expansions.yml (before) and with it (after), where each suggestion came from, and
  the acronyms most often left without one;
- `evalgate fix` over a scratch copy of DIR made under /tmp (the originals are never written): items
  passing acronym_expansion (no hard fail, score >= 3) and items without any acronym finding before
  and after, files touched, lines changed, what was left for the author and why, whether any other
  dimension's result moved, acronym findings with a suggestion still reported, and what a second
  `fix` run changes (nothing, if it is idempotent).
The figures are counts, not timings, so one run says it all; docs/checks.md records them.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalgate.checks.acronym_expansion import find_problems  # noqa: E402
from evalgate.checks.acronym_table import AcronymTable, with_params  # noqa: E402
from evalgate.document import DocumentError, read_document  # noqa: E402
from evalgate.rubric import load_rubric  # noqa: E402
from evalgate.rubrics.params import AcronymExpansionParams  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "research-completed"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", default=str(CORPUS))
    args = parser.parse_args()
    files = sorted(Path(args.directory).rglob("*.md"))
    if not files:
        print(f"no markdown files under {args.directory}", file=sys.stderr)
        return 2
    params = load_rubric("research-loop").dimension("acronym_expansion").params
    after = with_params(params if isinstance(params, AcronymExpansionParams) else None)
    before = replace(after, common={})
    totals: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    for path in files:
        try:
            document = read_document(path)
        except DocumentError:
            continue
        for old, new in zip(find_problems(document, before), find_problems(document, after), strict=True):
            totals["findings"] += 1
            totals["before"] += old.suggestion is not None
            totals["after"] += new.suggestion is not None
            if new.suggestion is None:
                unknown[new.acronym] += 1
            else:
                sources[_source(new.acronym, old.suggestion, after)] += 1
    n = totals["findings"]
    print(f"items: {len(files)}; acronym findings: {n}")
    for key, label in (("before", "before (no bundled list)"), ("after", "after (bundled list)")):
        print(f"with a concrete expansion, {label}: {totals[key]} ({totals[key] / n:.1%})")
    print("suggestions by source: " + ", ".join(f"{k} {v}" for k, v in sources.most_common()))
    print("most often still unknown: " + ", ".join(f"{a} {c}" for a, c in unknown.most_common(15)))
    fix_figures(Path(args.directory))
    return 0


def _results(directory: Path) -> dict[str, dict[str, tuple[object, ...]]]:
    """file -> dimension -> (score, findings) for the research-loop rubric's deterministic checks."""
    from evalgate.checks import run_check

    rubric = load_rubric("research-loop")
    out = {}
    for path in sorted(directory.rglob("*.md")):
        try:
            document = read_document(path)
        except DocumentError:
            continue
        out[str(path.relative_to(directory))] = {
            d.id: (r.score, r.findings)
            for d in rubric.deterministic
            for r in [run_check(d.id, document, params=d.params)]
        }
    return out


def fix_figures(directory: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="evalgate-fix-bench-", dir="/tmp"))
    try:
        copy = scratch / "corpus"
        shutil.copytree(directory, copy, copy_function=shutil.copyfile)  # writable: fix skips read-only files
        before = _results(copy)
        originals = {p: p.read_bytes() for p in copy.rglob("*.md")}
        first = _fix(copy)
        after = _results(copy)
        fixed = {p: p.read_bytes() for p in copy.rglob("*.md")}
        second = _fix(copy)
        changed_again = sum(p.read_bytes() != fixed[p] for p in fixed)
    finally:
        shutil.rmtree(scratch)
    touched = [p for p in originals if fixed[p] != originals[p]]
    lines = sum(
        sum(a != b for a, b in zip(originals[p].split(b"\n"), fixed[p].split(b"\n"), strict=True))
        for p in touched
    )
    acronym = "acronym_expansion"

    def passing(results: dict[str, dict[str, tuple[object, ...]]], floor: int) -> int:
        return sum(1 for dims in results.values() if int(str(dims[acronym][0])) >= floor)

    moved = [(f, d) for f in before for d in before[f] if d != acronym and before[f][d] != after[f][d]]
    suggested_left = sum(
        1 for dims in after.values() for f in dims[acronym][1] if "Full Name (" not in str(f)
    )
    print(f"fix over a scratch copy ({len(before)} items): `evalgate fix` exit {first.returncode}")
    for floor, label in ((3, "passing acronym_expansion (score >= 3)"), (5, "with no acronym finding")):
        print(f"items {label}, before -> after fix: {passing(before, floor)} -> {passing(after, floor)}")
    print(f"files touched: {len(touched)}; lines changed: {lines}; line counts kept in every file")
    left = [line.split(": ", 3)[-1] for line in first.stdout.splitlines() if "left for the author" in line]
    reasons = Counter(re.sub(r" \([A-Z][A-Za-z0-9]*\)", "", why) for why in left)
    print("left for the author: " + "; ".join(f"{n} {why}" for why, n in reasons.most_common()))
    print(f"other dimensions' results that moved: {len(moved)}")
    print(f"acronym findings with a suggestion still reported after fix: {suggested_left}")
    print(f"files a second fix run changed: {changed_again} (exit {second.returncode})")


def _fix(directory: Path) -> subprocess.CompletedProcess[str]:
    """`python -m evalgate fix DIR` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "evalgate", "fix", str(directory)],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _source(abbr: str, before: str | None, table: AcronymTable) -> str:
    if abbr in table.required:
        return "required table"
    return "document or self-review list" if before is not None else "bundled list"


if __name__ == "__main__":
    sys.exit(main())
