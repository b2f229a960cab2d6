"""Acronym suggestion figures over a directory of items (default: the 453-item corpus).

    python bench/acronyms.py [DIR]

Prints, for the research-loop rubric with no repository glossary: the acronym findings, how many
carry a concrete expansion (not "Full Name (ABBR)") without the bundled common_expansions.yml
(before) and with it (after), where each suggestion came from, and the acronyms most often left
without one. The figures are counts, not timings, so one run says it all; docs/checks.md records them.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalgate.checks.acronym_expansion import find_problems  # noqa: E402
from evalgate.checks.acronym_table import AcronymTable, with_params  # noqa: E402
from evalgate.document import DocumentError, read_document  # noqa: E402
from evalgate.rubric import AcronymExpansionParams, load_rubric  # noqa: E402

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
    return 0


def _source(abbr: str, before: str | None, table: AcronymTable) -> str:
    if abbr in table.required:
        return "required table"
    return "document or self-review list" if before is not None else "bundled list"


if __name__ == "__main__":
    sys.exit(main())
