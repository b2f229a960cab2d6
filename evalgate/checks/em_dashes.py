"""em_dashes: the review prompt's remove-ai-slop rule, "Em-dashes (`—`, U+2014): prohibited
throughout the entire document. Flag every occurrence ... no exceptions."

Every U+2014 a reader sees is one: in prose, headings, front matter, tables, code and URLs alike
("no exceptions"), and so is an HTML entity that renders as one (`&mdash;`, `&#8212;`, `&#x2014;`)
outside code. What readers do not see (an HTML comment) is not. One finding per line, naming how
many and showing each in its words; `evalgate fix` rewrites those whose sentence decides the
replacement (evalgate/fix/em_dashes.py). Met (5, or 1 on a binary rubric) with none; any fails.
`sections` (params) narrows the rule to some sections; the pack ships none, the whole document.
"""

from __future__ import annotations

import re

from evalgate.checks import CheckOutcome
from evalgate.checks.acronym_prose import prose_line
from evalgate.document import Document, normalise_title
from evalgate.results import Finding
from evalgate.rubrics.params import EmDashesParams

EM_DASH = "\u2014"
_ENTITY = re.compile(r"&(?:mdash|#8212|#[xX]0*2014);")
_CONTEXT = 30  # characters shown on each side of an em-dash


def em_dash_columns(line: str) -> list[int]:
    """The columns of every em-dash on a line: the character, and an entity outside code spans."""
    columns = [i for i, ch in enumerate(line) if ch == EM_DASH] if EM_DASH in line else []
    if "&" in line:
        columns += [m.start() for m in _ENTITY.finditer(prose_line(line))]
    return sorted(columns)


def _shown(line: str, column: int) -> str:
    start, end = max(0, column - _CONTEXT), min(len(line), column + _CONTEXT + 1)
    text = line[start:end].strip()
    return ("…" if start > 0 else "") + text + ("…" if end < len(line) else "")


def _lines(document: Document, sections: tuple[str, ...]) -> range | list[int]:
    if not sections:
        return range(1, len(document.lines) + 1)
    found = [document.find_section(normalise_title(title)) for title in sections]
    return sorted({n for s in found if s is not None for n in range(s.line, s.end_line + 1)})


def check(document: Document, params: EmDashesParams | None = None) -> CheckOutcome:
    """One finding per line holding an em-dash; 5 with none, else 1."""
    sections = params.sections if params is not None else ()
    code = {n for first, last in document.code_blocks for n in range(first, last + 1)}
    findings = []
    for n in _lines(document, sections):
        line = document.lines[n - 1]
        if EM_DASH not in line and "&" not in line:
            continue
        columns = [c for c in em_dash_columns(line) if line[c] == EM_DASH or n not in code]
        if not columns:
            continue
        quoted = "; ".join(f'"{_shown(line, c)}"' for c in columns[:3])
        more = f" and {len(columns) - 3} more" if len(columns) > 3 else ""
        what = "an em-dash (U+2014)" if len(columns) == 1 else f"{len(columns)} em-dashes (U+2014)"
        findings.append(
            Finding(
                n,
                f"{what}: {quoted}{more}; the review prohibits em-dashes everywhere: use a comma, "
                "a colon or parentheses, or restructure the sentence",
            )
        )
    return CheckOutcome(1 if findings else 5, tuple(findings))
