"""The repository's acronym glossary: `.evalgate.yml` `acronyms:` (and the glossary file it may name)
merged into the acronym_expansion check's params, and `evalgate glossary PATH...`, which harvests the
`Expansion (ABBR)` pairs a repository's documents already use and prints them as glossary YAML.

A suggestion comes, in order, from: the protocol's required table, the document itself (a later or
reversed expansion), the repository glossary, the protocol's self-review list, the bundled
common_expansions.yml (AcronymTable.suggestion). Every glossary expansion must spell its acronym by
its words' initials (the rule a suggestion is held to), so a typo is an error naming file and key,
not a wrong suggestion. A file's findings never depend on which other files are in the run: the
harvest is only ever printed, for a team to review and commit.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

from evalgate.checks.acronym_expansion import prose_lines
from evalgate.checks.acronym_forms import expansion_before, initials_spell
from evalgate.config import Acronyms, ConfigError, read_yaml
from evalgate.document import Document, DocumentError, read_document
from evalgate.rubrics.params import AcronymExpansionParams

# A capital, then letters and digits holding a capital or digit. Written so that nothing is given back
# (the first capital or digit after the lower-case run; then the rest): `[A-Za-z0-9]*[A-Z0-9]` then
# `[A-Za-z0-9]*` tried every split of a long run (quadratic at each `(`).
_ABBR = r"[A-Z][a-z]*+[A-Z0-9][A-Za-z0-9]*+"
_KEY = re.compile(rf"^(?:{_ABBR}|[A-Z]{{2,}})$")  # what may be a glossary key: capitals, maybe mixed


def merged_params(params: AcronymExpansionParams | None, acronyms: Acronyms) -> AcronymExpansionParams:
    """The rubric's acronym_expansion params with the repository glossary laid over them: its
    `understood` added, its expansions (the glossary file's, then `.evalgate.yml`'s) over the rubric's."""
    base = params or AcronymExpansionParams()
    expansions = dict(base.expansions)
    understood = list(base.understood)
    if acronyms.glossary is not None:
        file_expansions, file_understood = _read_glossary_file(Path(acronyms.glossary))
        expansions.update(file_expansions)
        understood += file_understood
    _check_expansions(acronyms.expansions, ".evalgate.yml: acronyms.expansions")
    expansions.update(acronyms.expansions)
    understood += acronyms.understood
    return dataclasses.replace(base, expansions=expansions, understood=tuple(dict.fromkeys(understood)))


def _check_expansions(expansions: dict[str, str], where: str) -> None:
    for abbr, expansion in expansions.items():
        if not _KEY.match(abbr):
            raise ConfigError(f"{where}.{abbr}: not an acronym (capital letters and digits, e.g. GPU)")
        if not expansion.isprintable():  # a line break would add a line where fix writes it
            raise ConfigError(f"{where}.{abbr}: {expansion!r} must be one line of text")
        if not initials_spell(abbr, expansion):
            raise ConfigError(
                f"{where}.{abbr}: {expansion!r} does not spell {abbr} by its words' initials "
                "(small words such as 'of' and 'and' may be skipped)"
            )


def _read_glossary_file(path: Path) -> tuple[dict[str, str], list[str]]:
    """A glossary file: `expansions:` and `understood:`, optionally under a top-level `acronyms:`
    (so the output of `evalgate glossary` can be saved as is)."""
    raw = read_yaml(path, "the acronym glossary that acronyms: glossary: names")
    if isinstance(raw, dict) and "acronyms" in raw:
        beside = sorted(map(str, set(raw) - {"acronyms"}))
        if beside:
            raise ConfigError(f"{path}: {beside[0]}: unknown key beside acronyms: (expected only acronyms:)")
        raw = raw["acronyms"]
    raw = raw or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the acronym glossary must be a mapping with expansions: and understood:")
    unknown = sorted(set(raw) - {"expansions", "understood"})
    if unknown:
        raise ConfigError(f"{path}: {unknown[0]}: unknown key (expected expansions, understood)")
    expansions = raw.get("expansions") or {}
    understood = raw.get("understood") or []
    if not isinstance(expansions, dict) or not all(
        isinstance(v, str) and v.strip() for v in expansions.values()
    ):
        raise ConfigError(f"{path}: expansions: must map each acronym to its expansion (text)")
    if not isinstance(understood, list) or not all(isinstance(v, str) for v in understood):
        raise ConfigError(f"{path}: understood: must be a list of acronyms")
    expansions = {str(k): v.strip() for k, v in expansions.items()}
    _check_expansions(expansions, f"{path}: expansions")
    return expansions, understood


# --- harvesting: evalgate glossary PATH... -------------------------------------------------------------

_PAREN = re.compile(rf"\((?P<abbr>{_ABBR})s?\)")


def expansions_in(document: Document) -> list[tuple[str, str]]:
    """The `Expansion (ABBR)` pairs in the document's prose, in order, kept only where the
    expansion's words' initials spell the acronym."""
    pairs = []
    for number, line in prose_lines(document):
        for m in _PAREN.finditer(line):
            abbr = m.group("abbr")
            long_form = expansion_before(line[: m.start()], abbr)
            if long_form is not None and initials_spell(abbr, long_form):
                pairs.append((abbr, long_form))
        del number
    return pairs


def harvest(paths: list[Path]) -> tuple[dict[str, tuple[str, int]], int, list[str]]:
    """ABBR -> (its most used expansion, how many files use it), the files read, and problems."""
    spellings: dict[str, Counter[str]] = defaultdict(Counter)
    forms: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)  # (abbr, lowered) -> as written
    problems: list[str] = []
    read = 0
    for path in paths:
        try:
            document = read_document(path)
        except DocumentError as exc:
            problems.append(str(exc))
            continue
        read += 1
        seen: set[tuple[str, str]] = set()
        for abbr, long_form in expansions_in(document):
            key = (abbr, " ".join(long_form.lower().replace("-", " ").split()))
            forms[key][long_form] += 1
            if key not in seen:
                seen.add(key)
                spellings[abbr][key[1]] += 1
    found = {}
    for abbr, counts in spellings.items():
        lowered, files = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        written = max(forms[(abbr, lowered)].items(), key=lambda kv: (kv[1], kv[0]))[0]
        found[abbr] = (written, files)
    return found, read, problems


def glossary_yaml(found: dict[str, tuple[str, int]], files: int) -> str:
    """The harvest as glossary YAML (`acronyms: expansions:`), most frequent first."""
    ordered = sorted(found.items(), key=lambda kv: (-kv[1][1], kv[0]))
    lines = [
        f"# evalgate glossary: {len(ordered)} expansions harvested from {files} files, most used first;",
        "# review, then commit as the file `.evalgate.yml` names under acronyms: glossary:",
        "acronyms:",
        "  expansions:",
    ]
    for abbr, (expansion, count) in ordered:
        value = yaml.safe_dump(expansion, default_style=None, width=1 << 16).strip()
        value = value.removesuffix("\n...").removesuffix("...").strip()
        lines.append(f"    {abbr}: {value}  # {count} file{'s' if count != 1 else ''}")
    if not ordered:
        lines[-1] = "  expansions: {}"
    return "\n".join(lines) + "\n"


def cmd_glossary(args: argparse.Namespace) -> int:
    from evalgate.discover import discover, repository_root

    base = Path.cwd()
    targets, target_problems = discover(list(args.paths), repository_root(base), base=base)
    found, read, problems = harvest([t.path for t in targets])
    for problem in [*(f"{p.display}: {p.message}" for p in target_problems), *problems]:
        print(f"evalgate: {problem}", file=sys.stderr)
    sys.stdout.write(glossary_yaml(found, read))
    return 1 if target_problems or problems else 0


def register(subparsers: Any, help_text: str) -> None:
    """Add `glossary` to the CLI's subparsers; `help_text` comes from evalgate/cli.py's MODULE_COMMANDS."""
    p = subparsers.add_parser("glossary", help=help_text)
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, directories (recursed for *.md) or globs")
    p.set_defaults(func=cmd_glossary)
