"""The acronym fixes `evalgate fix` applies: only those with a known answer, edited inside one line.

- an unexpanded (or late) first use with a suggested expansion: `LLMs` -> `Large Language Models (LLMs)`;
- a reversed expansion: `(LLM, Large Language Model)` -> `Large Language Model (LLM)`;
- `ABBR (Full Name)` whose parenthesis holds just the expansion -> `Full Name (ABBR)`.

Everything else (a wrong expansion of the protocol's table, A/B shorthand, an acronym whose
expansion is unknown, a first use in a heading, whose anchor would change) is left for the author,
and said so. An edit is made only where every character it replaces is prose (never inside a code
span, a URL, a link target, an HTML tag or comment: `prose_line` leaves those blanked), on a line
that is no heading, front matter or code; it never adds or removes a line. Nor where it would damage
the words around it (evalgate/fix/refusals.py): inside a parenthesis, a `/` or `-` compound, a link's
text, a quotation or italic title, on a line that talks about the acronyms, next to the words it
would insert, or on a line holding an invisible format character (U+200B, U+00AD, ...: the check may
read the line without it, the file has it). The article before an insertion is set for what now
comes first ("an LLM" -> "a Large Language Model (LLM)", evalgate/fix/articles.py).

A fix must not move another dimension: after the edits the other deterministic checks run again, and
if any result changed (a Key Finding that reaches the word floor, an Evidence Map match that moves),
the edits are retried one at a time and each that moves something is left for the author. An
expansion that holds another acronym (`JSON Web Token`) is not inserted: it would make that
acronym's first use unexpanded in turn. The fixed text is checked again until nothing is left to
fix, so a second run changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from evalgate.checks import run_check
from evalgate.checks.acronym_expansion import AcronymProblem, find_problems
from evalgate.checks.acronym_prose import prose_line
from evalgate.checks.acronym_table import AcronymTable, with_params
from evalgate.checks.acronym_written import written_expansion
from evalgate.document import Document, parse_document
from evalgate.fix.articles import article_before, article_for, with_article
from evalgate.fix.refusals import audit_note, duplicated, invisible, why_not
from evalgate.fix.regions import Guard
from evalgate.rubrics.params import FIX_LEAVES_LINES_WITH, AcronymExpansionParams, CheckParams

_REVERSED_SPAN = re.compile(r"\([^()]*\)")  # from the `(` before the acronym to its `)`
_CAPITALS = re.compile(r"\b[A-Z][A-Z0-9]+\b")  # an acronym inside a suggested expansion
_PAREN_AFTER = re.compile(r"[ \t]*\(([^()]*)\)")
_PASSES = 4  # an inserted expansion may hold an acronym of its own; more is never needed in practice


@dataclass(frozen=True)
class Edit:
    """Replace `old` at `column` of `line` (1-based) with `new`."""

    line: int
    column: int
    old: str
    new: str
    acronym: str


class Left(Protocol):
    """What a fix leaves for the author: its line and what it is (an acronym, or "em-dash")."""

    @property
    def line(self) -> int: ...

    @property
    def acronym(self) -> str: ...


@dataclass
class FixResult:
    """The fixed text of one document, what was fixed and what is left for the author."""

    text: str
    fixed: list[Edit] = field(default_factory=list)
    left: list[tuple[Left, str]] = field(default_factory=list)  # (problem, why not fixed)


Checks = Sequence[tuple[str, CheckParams | None]]  # the other deterministic dimensions and their params


def fix_text(text: str, params: AcronymExpansionParams | None, others: Checks) -> FixResult:
    """Fix LF-normalised `text` (no BOM); see the module's docstring."""
    result = FixResult(text)
    table = with_params(params)
    sections = params.sections if params is not None else ()
    audit_words = params.fix_leaves_lines_with if params is not None else FIX_LEAVES_LINES_WITH
    baseline = other_results(parse_document(text), others)
    refused: set[tuple[str, int]] = set()  # (acronym, line) whose fix would move another dimension
    for attempt in range(_PASSES + 1):
        document = parse_document(result.text)
        guard = Guard(document)
        edits: list[Edit] = []
        result.left = []
        lines = result.text.split("\n")  # as written: the edits go there
        for problem in find_problems(document, table, sections=sections):
            edit, why = _edit_for(problem, document, lines[problem.line - 1], table, guard, audit_words)
            if edit is None or (problem.acronym, problem.line) in refused:
                result.left.append((problem, why or "fixing it would change another dimension's result"))
            elif attempt == _PASSES or _overlaps(edit, edits):
                result.left.append((problem, "another fix on the same words comes first: run fix again"))
            else:
                edits.append(edit)
        if not edits:
            break
        fixed = apply_edits(result.text, edits)
        if other_results(parse_document(fixed), others) != baseline:
            fixed, edits = one_at_a_time(result.text, edits, others, baseline, refused)
        result.text = fixed
        result.fixed += edits
    return result


def _edit_for(
    problem: AcronymProblem,
    document: Document,
    written_line: str,
    table: AcronymTable,
    guard: Guard,
    audit_words: tuple[str, ...],
) -> tuple[Edit | None, str]:
    if problem.suggestion is None or problem.column < 0:
        if problem.kind == "shorthand":
            return None, "shorthand: rewrite it in words"
        return None, "its expansion is unknown (add it to the glossary)"
    if problem.kind == "wrong_expansion":
        return None, "the expansion differs from the one the protocol requires: rewrite it"
    if problem.kind == "other_form":
        return None, "written in another form (see the finding): rewrite it as Full Name (ABBR)"
    inner = next((w for w in _CAPITALS.findall(problem.suggestion) if w not in table.not_acronyms), None)
    if inner is not None:  # `JSON Web Token (JWT)` would make JSON's first use unexpanded in turn
        return None, f"its expansion holds another acronym ({inner}): write both by hand"
    hidden = invisible(written_line)
    if hidden is not None:
        return None, f"the line holds an invisible character ({hidden}): remove it, then run fix again"
    raw = document.lines[problem.line - 1]
    if audit_note(raw, audit_words):
        return None, "the line talks about acronyms or their expansion (an audit note): edit it by hand"
    if problem.line in set(document.heading_lines):
        return None, "first used in a heading (its anchor would change): expand it there by hand"
    prose = prose_line(raw)
    start, word = problem.column, problem.written
    if raw[start : start + len(word)] != word:
        return None, "not found where reported"
    expansion = problem.suggestion
    if problem.kind == "reversed":
        opening = raw.rfind("(", 0, start)
        span = _REVERSED_SPAN.match(raw, opening) if opening >= 0 else None
        if span is None:
            return None, "the reversed parenthesis could not be read"
        start, old, new = opening, span.group(), f"{expansion} ({problem.acronym})"
    elif problem.kind == "defined_after":
        paren = _PAREN_AFTER.match(raw, start + len(word))
        if paren is None or paren.group(1).strip() != expansion:
            return None, "the parenthesis after it holds more than the expansion: rewrite it"
        old, new = raw[start : paren.end()], f"{expansion} ({word})"
    else:  # unexpanded, late
        plural = word.endswith("s") and not problem.acronym.endswith("s") and not expansion.endswith("s")
        old, new = word, f"{expansion}{'s' if plural else ''} ({word})"
    if prose[start : start + len(old)] != old:
        return None, "next to code, a URL or markup"
    why = guard.why_not(problem.line, start, start + len(old)) or why_not(raw, prose, start, start + len(old))
    if why is not None:
        return None, why
    start, old, new, why = _article(raw, start, old, new, expansion, problem, document)
    if why is not None:
        return None, why
    line = raw[:start] + new + raw[start + len(old) :]
    if duplicated(prose_line(line), expansion):
        return None, "the line already spells out its expansion: move it to the first use by hand"
    # The check must read the edited line as expanded, or fix would insert it again on every run
    # (a glossary's `Quick `Zany` Xylophone` is code there, `Quick | Zany Yak` splits a table cell).
    written = prose_line(line)
    opening = start + new.rfind("(")
    if (
        written[start : start + len(new)] != new
        or written_expansion(written[:opening], problem.acronym, table.missing_letters) is None
    ):
        return None, "its expansion would not read as one there (code or markup in it): write it by hand"
    return Edit(problem.line, start, old, new, problem.acronym), ""


def _article(
    raw: str, start: int, old: str, new: str, expansion: str, problem: AcronymProblem, document: Document
) -> tuple[int, str, str, str | None]:
    """The edit with the article before it set for what now comes first ("an LLM" -> "a Large Language
    Model (LLM)"); a refusal when that article is on the line above."""
    wanted = article_for(expansion)
    found = article_before(raw, start)
    if found is not None:
        at, word = found
        if word.lower() == wanted:
            return start, old, new, None
        return at, raw[at:start] + old, with_article(word, wanted) + raw[at + len(word) : start] + new, None
    if raw[:start].strip(" \t>*_-+") == "" and problem.line > 1:  # the first word of its line
        above = document.lines[problem.line - 2].rstrip()
        last = above.rsplit(None, 1)[-1] if above.strip() else ""
        if last.lower() in ("a", "an") and last.lower() != wanted:
            return start, old, new, f'the article before it ("{last}") is on the line above: fix both by hand'
    return start, old, new, None


def _overlaps(edit: Edit, edits: list[Edit]) -> bool:
    end = edit.column + len(edit.old)
    return any(e.line == edit.line and e.column < end and edit.column < e.column + len(e.old) for e in edits)


def apply_edits(text: str, edits: list[Edit]) -> str:
    """The edits made, right to left within each line so earlier columns stay valid."""
    lines = text.split("\n")
    for edit in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        line = lines[edit.line - 1]
        assert line[edit.column : edit.column + len(edit.old)] == edit.old
        lines[edit.line - 1] = line[: edit.column] + edit.new + line[edit.column + len(edit.old) :]
    return "\n".join(lines)


# Checks whose messages quote the document's words around what they found (the research-review
# pack's wording checks): an edit elsewhere on the line changes the quote, not the result, so their
# findings are compared by where they are, not by what they say.
QUOTING_CHECKS = frozenset(
    {"em_dashes", "formulaic_transitions", "overconfident_language", "opinion_labels"}
    | {"high_confidence_sources"}
)


def other_results(document: Document, others: Checks) -> list[tuple[object, ...]]:
    """The other deterministic dimensions' results, to compare before and after an edit."""
    results = [run_check(dim, document, params=params) for dim, params in others]
    return [
        (r.id, r.score, tuple((f.line, f.end_line, f.notice) for f in r.findings), r.error)
        if r.id in QUOTING_CHECKS
        else (r.id, r.score, r.findings, r.error)
        for r in results
    ]


def one_at_a_time(
    text: str,
    edits: list[Edit],
    others: Checks,
    baseline: list[tuple[object, ...]],
    refused: set[tuple[str, int]],
) -> tuple[str, list[Edit]]:
    """Apply the edits one by one from the end of the text, keeping each that moves no other dimension
    (from the end, so a kept edit never shifts the column of one still to try); each refused one's
    (acronym, line) is added to `refused`."""
    kept: list[Edit] = []
    for edit in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        candidate = apply_edits(text, [edit])
        if other_results(parse_document(candidate), others) == baseline:
            text = candidate
            kept.append(edit)
        else:
            refused.add((edit.acronym, edit.line))
    return text, sorted(kept, key=lambda e: (e.line, e.column))
