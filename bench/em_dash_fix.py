"""An independent scan of the em-dash edits `evalgate fix --rubric research-review` writes.

    python bench/em_dash_fix.py [DIR] [--root CHECKOUT]

Copies DIR (default: the 453-item corpus) to scratch directories under /tmp (the originals are never
written) and runs `python -m evalgate fix` over them as a user would: with `--rubric research-review`
twice (the figures of what is fixed and left, and a second run must change nothing), and with a copy
of the pack whose acronym check reads no section, so that every change is an em-dash edit. Each
edit of that run is scanned, by rules written here and sharing no code with the fix, for damage:
- words: letters or digits changed (an em-dash edit changes punctuation and spaces only);
- protected: the edit falls in a code span, a URL, a link's text, a quotation, a heading or the
  front matter of the old file;
- nested: the new line nests a parenthesis in another where the old did not;
- punctuation: the new line has doubled or misplaced punctuation the old did not (`,,`, `: :`,
  ` ,`, `( `);
- line count: a file's line count changed.
It also checks that the second run changes nothing. Prints the figures (files and lines touched,
em-dashes before and after, each edit kind (colon, comma, parentheses) with examples, what was
left for the author and why, each damage kind with examples) and exits 1 on any damage or a second
run that changed a file. Counts, not timings: docs/checks.md records them.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "research-completed"
DASH = "\u2014"
_SPANS = {
    "code span": re.compile(r"`[^`]*`"),
    "URL": re.compile(r"https?://\S+|www\.\S+"),
    "link text": re.compile(r"\[[^\[\]]*\](?=\()"),
    "quotation": re.compile(r'"[^"]*"|“[^”]*”'),
}
_BAD_PUNCTUATION = re.compile(r",\s*,|:\s*:|\s[,:;]|\(\s|\s\)|,\s*:|:\s*,")
_LEFT = re.compile(r"^(?P<file>.+?):(?P<line>\d+): left for the author: em-dash: (?P<why>.*)$")


def _run(copy: Path, root: Path, rubric: str = "research-review") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalgate", "fix", "--rubric", rubric, str(copy)],
        cwd=copy.parent,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(root)},
    )


def _depth(line: str) -> int:
    depth = most = 0
    for ch in line:
        depth += ch == "("
        depth -= ch == ")" and depth > 0
        most = max(most, depth)
    return most


def _front_matter_lines(text: str) -> set[int]:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return set()
    end = next((i for i, line in enumerate(lines[1:], 2) if line.strip() in ("---", "...")), 0)
    return set(range(1, end + 1))


def _kind(old: str, new: str) -> str:
    shown = new.strip()
    if shown.startswith(":"):
        return "colon"
    if shown.startswith(","):
        return "comma"
    if "(" in shown or ")" in shown:
        return "parentheses"
    return "other"


def scan(name: str, old_text: str, new_text: str, damage: dict[str, list[str]], kinds: Counter[str]) -> int:
    """The em-dash edits of one file, damage recorded; returns how many lines they touched."""
    old_lines, new_lines = old_text.split("\n"), new_text.split("\n")
    if len(old_lines) != len(new_lines):
        damage["line count"].append(f"{name}: {len(old_lines)} -> {len(new_lines)}")
        return 0
    front = _front_matter_lines(old_text)
    touched = 0
    for number, (old, new) in enumerate(zip(old_lines, new_lines, strict=True), 1):
        if old == new:
            continue
        edits = [
            (i1, i2, new[j1:j2])
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
            if tag != "equal"
        ]
        touched += 1
        where = f"{name}:{number}"
        for i1, i2, inserted in edits:
            kinds[_kind(old[i1:i2], inserted)] += 1
            if re.sub(r"[\W_]", "", old[i1:i2]) != re.sub(r"[\W_]", "", inserted):
                damage["words"].append(f"{where}: {old[i1:i2]!r} -> {inserted!r}")
            if number in front or old.lstrip().startswith("#"):
                damage["protected: heading or front matter"].append(where)
            for what, pattern in _SPANS.items():
                if any(m.start() < i1 and i2 <= m.end() - (what != "URL") for m in pattern.finditer(old)):
                    damage[f"protected: {what}"].append(f"{where}: {old[max(0, i1 - 30) : i2 + 30]!r}")
        if _depth(new) > _depth(old) and _depth(new) > 1:
            damage["nested"].append(f"{where}: {new[:160]!r}")
        if len(_BAD_PUNCTUATION.findall(new)) > len(_BAD_PUNCTUATION.findall(old)):
            damage["punctuation"].append(f"{where}: {new[:160]!r}")
    return touched


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", default=str(CORPUS))
    parser.add_argument("--root", default=str(ROOT), help="the evalgate checkout to run (default: this one)")
    args = parser.parse_args()
    root = Path(args.root).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="evalgate-em-dash-fix-", dir="/tmp"))
    try:
        copy = scratch / "items"
        shutil.copytree(args.directory, copy, copy_function=shutil.copyfile)
        originals = {p.relative_to(copy): p.read_text("utf-8") for p in sorted(copy.rglob("*.md"))}
        first = _run(copy, root)
        fixed = {p: (copy / p).read_text("utf-8") for p in originals}
        second = _run(copy, root)
        again = [str(p) for p in originals if (copy / p).read_text("utf-8") != fixed[p]]
        shutil.rmtree(copy)
        shutil.copytree(args.directory, copy, copy_function=shutil.copyfile)
        pack = (root / "evalgate" / "rubrics" / "research-review.yml").read_text("utf-8")
        marker = "  - id: acronym_expansion\n    kind: deterministic\n"
        assert marker in pack, "the pack's acronym_expansion dimension moved"
        alone = scratch / "dashes-alone.yml"
        no_acronyms = marker + "    params: {sections: [No such section]}\n"
        alone.write_text(pack.replace(marker, no_acronyms), "utf-8")
        isolated = _run(copy, root, str(alone))
        dashed = {p: (copy / p).read_text("utf-8") for p in originals}
    finally:
        shutil.rmtree(scratch)
    damage: dict[str, list[str]] = defaultdict(list)
    kinds: Counter[str] = Counter()
    files = lines = 0
    for name, old in originals.items():
        touched = scan(str(name), old, dashed[name], damage, kinds)
        files += touched > 0
        lines += touched
    before = sum(text.count(DASH) for text in originals.values())
    after = sum(text.count(DASH) for text in fixed.values())
    left = Counter(
        re.sub(r"\(U\+[0-9A-F]+ [A-Z ]+\)", "(an invisible character)", m["why"])
        for line in first.stdout.splitlines()
        if (m := _LEFT.match(line))
    )
    print(f"fix exit codes: {first.returncode}, {second.returncode}, {isolated.returncode} (em-dashes alone)")
    print(f"em-dashes {before} -> {after} ({before - after} fixed), research-review")
    edits = ", ".join(f"{k} {n}" for k, n in kinds.most_common())
    print(f"em-dash edits alone: {files} files, {lines} lines; {edits}")
    print(f"left for the author: {sum(left.values())}")
    for why, n in left.most_common():
        print(f"  {n:5d}  {why}")
    print(f"second run changed {len(again)} file(s)" + (f": {', '.join(again[:5])}" if again else ""))
    for kind, examples in sorted(damage.items()):
        print(f"damage: {kind}: {len(examples)}")
        for example in examples[:5]:
            print(f"    {example}")
    if not damage:
        print("damage: none")
    return 1 if damage or again else 0


if __name__ == "__main__":
    sys.exit(main())
