"""A random sample of acronym_expansion findings to read by hand, with what a reader needs beside each.

    python bench/acronym_sample.py [--seed N] [--size N] [DIR]

Takes every acronym_expansion finding the research-loop rubric gives over DIR (default: the 453-item
corpus), as `evalgate check DIR --judge none --format json` reports them, in (file, line, message)
order, and draws `--size` of them with `random.Random(seed).sample`. For each it prints the finding,
its line and the first lines of the item that mention the acronym, so each can be judged against the
protocol (research-prompt.md: `Full Name (ABBR)` at the first use in the whole document). The seed
and the draw are the method docs/checks.md records; the judging is by hand.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalgate.checks import run_check  # noqa: E402
from evalgate.document import DocumentError, read_document  # noqa: E402
from evalgate.rubric import load_rubric  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "research-completed"
_ACRONYM = re.compile(r"^([A-Z][A-Za-z0-9/-]*?)(?:s|-[0-9][0-9A-Za-z.]*)? (?:used|defined|written|expanded)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", default=str(CORPUS))
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--size", type=int, default=40)
    args = parser.parse_args()
    params = load_rubric("research-loop").dimension("acronym_expansion").params
    findings: list[tuple[str, int, str, list[str]]] = []
    for path in sorted(Path(args.directory).rglob("*.md")):
        try:
            document = read_document(path)
        except DocumentError:
            continue
        result = run_check("acronym_expansion", document, params=params)
        for f in result.findings:
            findings.append((str(path.relative_to(args.directory)), f.line, f.message, list(document.lines)))
    findings.sort(key=lambda f: (f[0], f[1], f[2]))
    sample = random.Random(args.seed).sample(findings, min(args.size, len(findings)))
    print(f"{len(findings)} findings; sample of {len(sample)} with seed {args.seed}")
    for i, (name, line, message, lines) in enumerate(sample, 1):
        print(f"\n{i}. {name}:{line}\n   {message}\n   line: {lines[line - 1].strip()[:400]}")
        found = _ACRONYM.match(message.split('"', 1)[0].strip())
        word = found.group(1) if found else message.split()[0]
        mentions = [n for n, text in enumerate(lines, 1) if re.search(rf"(?<![\w-]){re.escape(word)}", text)]
        for n in mentions[:6]:
            text = lines[n - 1]
            at = text.find(word)
            print(f"   {n}: ...{text[max(0, at - 60) : at + 60].strip()}...")
    return 0


if __name__ == "__main__":
    sys.exit(main())
