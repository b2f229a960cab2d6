"""An independent scan of what `evalgate fix` writes: damage, counted over every changed line.

    python bench/fix_damage.py [DIR] [--root CHECKOUT]

Copies DIR (default: the 453-item corpus) to a scratch directory under /tmp (the originals are never
written), runs `python -m evalgate fix` over the copy as a user would, and compares every file with its
original line by line. Each changed line is scanned for the kinds of damage issue #25 found, by rules
written here and sharing no code with the fix:
- nested: a parenthesis inside another where the line had none, or an insertion holding a `(`
  inside an open parenthesis
  ("(CI/Continuous Delivery (CD))", "Regulation (European Union (EU))");
- compound: an insertion glued to a word by `-` or `/` ("JSON-Remote Procedure Call (RPC)");
- link or heading: a link's text changed, or a heading line changed;
- quoted: an insertion inside a quotation ("...") or an italic span (a cited title);
- duplicate: the words inserted before a `(` appear elsewhere on the line too ("Create, Read, Update,
  Delete (CRUD) (Create, Read, Update, Delete)");
- article: "a" before a vowel sound or "an" before a consonant sound right before an insertion;
- audit: a changed line that mentions expanding or acronyms ("GDPR: ... not expanded in this document").
Prints the figures (files, lines, insertions, each damage kind with up to five examples, what was left
for the author and why) and exits 1 if any damage was found. `--root` runs another checkout's evalgate
(e.g. a worktree of main) over the same copy, for the figures before a change. Counts, not timings:
one run says it all; docs/checks.md records them.
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

KINDS = ("nested", "compound", "link or heading", "quoted", "duplicate", "article", "audit")
_LINK_TEXT = re.compile(r"\[([^\[\]]*)\](?=[(\[])")
_WORD = re.compile(r"[A-Za-z0-9]+")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", default=str(CORPUS))
    parser.add_argument("--root", default=str(ROOT), help="the evalgate checkout to run (default: this one)")
    args = parser.parse_args()
    source = Path(args.directory)
    scratch = Path(tempfile.mkdtemp(prefix="evalgate-fix-damage-", dir="/tmp"))
    try:
        copy = scratch / "items"
        shutil.copytree(source, copy, copy_function=shutil.copyfile)
        originals = {p.relative_to(copy): p.read_text("utf-8") for p in sorted(copy.rglob("*.md"))}
        run = subprocess.run(
            [sys.executable, "-m", "evalgate", "fix", str(copy)],
            cwd=scratch,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONPATH": str(Path(args.root).resolve())},
        )
        fixed = {p: (copy / p).read_text("utf-8") for p in originals}
    finally:
        shutil.rmtree(scratch)
    damage: dict[str, list[str]] = defaultdict(list)
    files = lines = insertions = 0
    for name, old_text in originals.items():
        new_text = fixed[name]
        if new_text == old_text:
            continue
        files += 1
        old_lines, new_lines = old_text.split("\n"), new_text.split("\n")
        if len(old_lines) != len(new_lines):
            damage["line count"].append(f"{name}: {len(old_lines)} -> {len(new_lines)} lines")
            continue
        for number, (old, new) in enumerate(zip(old_lines, new_lines, strict=True), 1):
            if old == new:
                continue
            lines += 1
            found = scan_line(old, new, heading=_is_heading(old_lines, number))
            insertions += found.pop("insertions", 0)  # type: ignore[arg-type]
            for kind in found:
                damage[kind].append(f"{name}:{number}: {new.strip()[:160]}")
    left = Counter(
        _reason(line.split(": left for the author: ", 1)[1].split(": ", 1)[1])
        for line in run.stdout.splitlines()
        if ": left for the author: " in line
    )
    print(f"evalgate fix over a scratch copy of {source} ({len(originals)} files): exit {run.returncode}")
    print(f"files changed: {files}; lines changed: {lines}; insertions: {insertions}")
    total = 0
    for kind in (*KINDS, "line count"):
        found = damage.get(kind, [])
        total += len(found)
        print(f"damage, {kind}: {len(found)}")
        for example in found[:5]:
            print(f"    {example}")
    print(f"left for the author: {sum(left.values())}")
    for why, n in left.most_common():
        print(f"    {n} {why}")
    return 1 if total else 0


def _reason(why: str) -> str:
    """A refusal's reason with the names in it (`"JSON-RPC"`, `(JWT)`) left out, to count by kind."""
    return re.sub(r' \([A-Z][A-Za-z0-9]*\)|"[^"]*"', "…", why)


def _is_heading(lines: list[str], number: int) -> bool:
    line = lines[number - 1]
    if line.lstrip().startswith("#"):
        return True
    below = lines[number] if number < len(lines) else ""
    return bool(line.strip()) and re.fullmatch(r" {0,3}(=+|-+)[ \t]*", below) is not None


def _inserted(old: str, new: str) -> list[tuple[int, int, str]]:
    """(start, end) in `new` of each inserted or replaced run, and the text it replaced."""
    runs = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op != "equal":
            runs.append((j1, j2, old[i1:i2]))
    # merge runs a few characters apart: one edit may show as several
    merged: list[tuple[int, int, str]] = []
    for start, end, was in runs:
        if merged and start - merged[-1][1] <= 3:
            merged[-1] = (merged[-1][0], end, merged[-1][2] + was)
        else:
            merged.append((start, end, was))
    return merged


def _depths(text: str) -> list[int]:
    """The parenthesis depth before each character (a stray `)` does not go below 0)."""
    out, depth = [], 0
    for ch in text:
        out.append(depth)
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
    out.append(depth)
    return out


def scan_line(old: str, new: str, *, heading: bool) -> dict[str, object]:
    """The damage kinds found on one changed line (and how many insertions it holds)."""
    found: dict[str, object] = {}
    runs = _inserted(old, new)
    found["insertions"] = len(runs)
    if heading:
        found["link or heading"] = True
    if re.search(r"expan|acronym|abbreviat|initialism", old, re.IGNORECASE):
        found["audit"] = True
    if max(_depths(new)) > max(1, max(_depths(old))):  # a parenthesis inside another, made here
        found["nested"] = True
    new_depth = _depths(new)
    old_links = _LINK_TEXT.findall(old)
    if old_links != _LINK_TEXT.findall(new):
        found["link or heading"] = True
    for start, end, _was in runs:
        segment = new[start:end]
        if "(" in segment and new_depth[start] > 0:
            found["nested"] = True
        before = new[start - 1] if start > 0 else ""
        after = new[end] if end < len(new) else ""
        if (before in "-/" and before and start > 1 and new[start - 2].isalnum()) or (
            after in "-/" and after and end + 1 < len(new) and new[end + 1].isalnum()
        ):
            found["compound"] = True
        if _inside_quotes(new, start, end):
            found["quoted"] = True
        if _duplicate(new, start, end):
            found["duplicate"] = True
        if _article_wrong(new, start, end):
            found["article"] = True
    return found


def _inside_quotes(line: str, start: int, end: int) -> bool:
    """An insertion inside "..." or “...”, or inside single `*`/`_` emphasis (a title in italics)."""
    if line[:start].count('"') % 2 == 1 and '"' in line[end:]:
        return True
    if line.rfind("\u201c", 0, start) > line.rfind("\u201d", 0, start) and "\u201d" in line[end:]:
        return True
    plain = line.replace("**", "  ")
    stars = [i for i, ch in enumerate(plain) if ch == "*"]
    return any(a < start and end <= b for a, b in zip(stars[::2], stars[1::2], strict=False))


def _duplicate(line: str, start: int, end: int) -> bool:
    """The inserted words before its `(` appear again elsewhere on the line."""
    segment = line[start:end]
    if "(" not in segment:
        return False
    words = [w.lower() for w in _WORD.findall(segment[: segment.index("(")])]
    if len(words) < 2:
        return False
    phrase = " ".join(words)
    rest = " ".join(w.lower() for w in _WORD.findall(line[:start] + " " + line[end:]))
    return f" {phrase} " in f" {rest} "


# Sounds: the first letter(s) of a word and whether "an" goes before it; longest prefix first.
_CONSONANT_SOUND_PREFIXES = (
    "eu",
    "ewe",
    "one",
    "once",
    "uni",
    "usa",
    "use",
    "usu",
    "uti",
    "uri",
    "ure",
    "ubi",
)
_VOWEL_SOUND_PREFIXES = ("hour", "honest", "honor", "honour", "heir")
_LETTER_NAMES_WITH_VOWEL = set("aefhilmnorsx")


def _wants_an(word: str) -> bool:
    if (len(word) > 1 and word.isupper()) or len(word) == 1:  # read as letters: an HTTP, a URL
        return word[0].lower() in _LETTER_NAMES_WITH_VOWEL
    low = word.lower()
    for prefix in _VOWEL_SOUND_PREFIXES:
        if low.startswith(prefix):
            return True
    for prefix in _CONSONANT_SOUND_PREFIXES:
        if low.startswith(prefix):
            return False
    return low[:1] in ("a", "e", "i", "o", "u")


_ARTICLE_PAIR = re.compile(r"(?<![\w'])([Aa]n?) +([A-Za-z0-9][\w'-]*)")


def _article_wrong(line: str, start: int, end: int) -> bool:
    """`a` before a vowel sound or `an` before a consonant sound, touching an insertion (the article
    before it, or one the fix rewrote)."""
    return any(
        m.start() <= end
        and m.end() >= start
        and (m.group(1).lower() == "an") != _wants_an(m.group(2).split("-")[0])
        for m in _ARTICLE_PAIR.finditer(line)
    )


if __name__ == "__main__":
    sys.exit(main())
