"""acronym_expansion: every acronym is written `Full Name (ABBR)` at its first use in the whole document.

The rule is the research protocol's (research-prompt.md, "Critical: acronym expansion audit" and its
"Reversed-order check"): expand at the first use in the entire document, not per section; `ABBR` alone
thereafter; its table of most-failed abbreviations is checked with the expansions it requires; the
reversed order `(ABBR, Full Name)` is wrong. What counts as an acronym and as an expansion, and what
does not, is decided in docs/checks.md#acronym_expansion; the data (the protocol's table, the
not-an-acronym lists) is in acronyms.yml, the rules' numbers and lists in the rubric's params.

How: one pass. Non-prose (front matter, code blocks, code spans, HTML comments and tags, URLs and link
targets) is blanked to spaces in a copy of the text, so offsets and line numbers stay those of the file
and a paragraph reflowed across lines reads the same. One precompiled regex then finds every acronym
token in document order; only the first use of each (and any use right after `(`, for the reversed
order) looks at its context: whether the token is an acronym in this document at all
(acronym_labels.py), where it stands (acronym_uses.py: part of a name, of a group, on an audit note)
and how the use stands (acronym_classify.py, with what the writer's words may be from
acronym_written.py and acronym_forms.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from evalgate.checks import CheckOutcome
from evalgate.checks.acronym_classify import ProblemKind, classify
from evalgate.checks.acronym_forms import spelled_tail
from evalgate.checks.acronym_labels import cited_initials, no_acronym, versioned_stem
from evalgate.checks.acronym_prose import Prose, comment_spans, inside_spans, kept_after, prose_line
from evalgate.checks.acronym_table import AcronymTable, Shorthand, load_table, with_params
from evalgate.checks.acronym_tokens import paren_capital_before, token_finder
from evalgate.checks.acronym_uses import DocumentUses, name_part, paren_group, profile_of
from evalgate.checks.acronym_written import expansion_within, list_expansion
from evalgate.checks.readable import CAPPED_SCORE, disguise_findings
from evalgate.document import Document
from evalgate.results import Finding
from evalgate.rubrics.params import AcronymExpansionParams

__all__ = [
    "AcronymProblem",
    "AcronymTable",
    "Shorthand",
    "check",
    "find_problems",
    "load_table",
    "prose_line",
    "score_for",
]


@dataclass(frozen=True)
class AcronymProblem:
    """One acronym whose first use breaks the rule (or a reversed expansion), at a file line."""

    acronym: str
    kind: ProblemKind
    line: int
    message: str
    suggestion: str | None = None  # the expansion the message suggests, when one is known
    column: int = -1  # where the use starts in its line (0-based; `evalgate fix` edits there)
    written: str = ""  # the token as written there (LLMs, GPT-4)


# --- recognising acronyms and expansions ------------------------------------------------------------

# `(AI RMF)`: an acronym that follows other acronyms inside a just-opened parenthesis is in it too.
_OPEN_GROUP = re.compile(r"\((?:[A-Z][A-Za-z0-9-]*[ \t]+){1,3}$")
_LINK_TEXT = re.compile(r"\[[^\[\]]*\]\(")  # no `[` inside: a link's text starts at its last `[` (linear)
# Only a use right after `(` or after `(Capitalised Words ` (_OPEN_GROUP, over the 40 characters before
# it) can be a reversed expansion; both need a `(` followed by a capital in the raw text before it
# (masking blanks characters, it never makes them), the use's own first letter included: the token
# finder's `paren_capital_before`.
# `(ABBR, Full Name)`: what follows the acronym in a reversed expansion (compiled here: `re.match` with a
# pattern string looks it up in re's cache at each of the ~8,500 uses right after a `(`)
_REVERSED_TAIL = re.compile(r"[ \t]*(?:,|:|\s[-–—=])[ \t]*([^()]*)\)")


def prose_lines(document: Document) -> Iterator[tuple[int, str]]:
    """(line number, the line with non-prose blanked) for every line that is prose at all."""
    prose = Prose(document)
    for number in range(1, len(document.lines) + 1):
        line = prose.line(number)
        if line.strip():
            yield number, line


def _suggested(abbr: str, table: AcronymTable, in_document: str | None) -> str | None:
    """The expansion to suggest (see AcronymTable.suggestion for the order). The document's own is
    offered only when its words' initials spell the acronym (a list's items by theirs: SOLID)."""
    if in_document is not None and list_expansion(in_document, abbr) is None:
        in_document = spelled_tail(abbr, in_document)
    return table.suggestion(abbr, in_document)


def _expected(abbr: str, suggestion: str | None) -> str:
    return f"{suggestion or 'Full Name'} ({abbr})"


def _unknown_hint(abbr: str) -> str:
    return (
        f" (its expansion is unknown to evalgate: add `{abbr}: Full Name` under `acronyms: expansions:`"
        " in .evalgate.yml, or list it under `acronyms: understood:` if readers know it)"
    )


# --- the pass over the document ----------------------------------------------------------------------


@dataclass
class _FirstUse:
    """Mutable bookkeeping during the pass; never leaves this module."""

    written: str  # the token as written (GPT-4, LLMs)
    line: int
    kind: ProblemKind | None  # None: the first use is expanded correctly
    detail: str = ""
    expanded_at: int | None = None
    long_form: str | None = None
    column: int = -1
    where: str = ""  # the name the use is part of (`LLM-based`), for the message
    name: str = ""  # the name defined after it, when the acronym is part of one (`KG-RAG (...)`)


def find_problems(
    document: Document, table: AcronymTable | None = None, *, sections: tuple[str, ...] = ()
) -> tuple[AcronymProblem, ...]:
    """Every acronym whose first use is not `Full Name (ABBR)`, and every reversed expansion; with
    `sections`, in those sections only."""
    table = table or load_table()
    text = document.text  # "\n".join(lines), and maybe one more "\n": the same offsets
    line, counted_to = 1, 0  # the line of offset `counted_to` (matches come in document order)
    comments = comment_spans(text)
    prose = Prose(document, sections)
    whole = DocumentUses(document, prose, comments, table)
    title = next((s.line for s in document.sections if s.level == 1), None)
    tokens = token_finder(table.mixed_case, tuple(table.shorthand))
    first: dict[str, _FirstUse] = {}
    reversed_: list[AcronymProblem] = []
    judged: set[str] = set()  # tokens already found to be acronyms (see not_acronym below)
    not_acronym: set[str] = set()  # and not: decided once per document, by the token and the text only
    initials = cited_initials(text)  # for no_acronym: `JB` of `Manchak, JB (2025)`
    settled: set[str] = set()  # acronyms whose later uses matter only right after a `(` (_no_news)
    versioned: dict[str, str] = {}  # OWL2 -> OWL (versioned_stem)
    named_until = (0, 0)  # (line, column) where the last name of words defined after it ends
    # Most of the ~87k matches in the corpus are later uses of a settled acronym or of a token that
    # is no acronym (13,000 matches): the finder passes over those, before anything else is looked at
    # (whatever else would decide, they change nothing).
    for m in tokens(text, document.utf8, not_acronym, settled):
        abbr = m.group(1)  # the `abbr` group
        at = m.start()
        if len(abbr) == 2 and m.group("suffix") is not None and m.group("suffix")[1:].isdigit():
            continue  # AC-2, IR-4, SM-2: a catalogue's control or a named algorithm, a label as KF3 is
        if abbr not in judged:
            if no_acronym(abbr, text, table, initials):
                not_acronym.add(abbr)
                continue
            judged.add(abbr)
            if abbr[-1].isdigit():
                versioned[abbr] = versioned_stem(abbr, text, table)
        if abbr in versioned:
            abbr = versioned[abbr]  # OWL2 where the document writes OWL: a use of OWL
        use = first.get(abbr)
        if use is not None and abbr not in settled and _no_news(use, abbr, table):
            settled.add(abbr)  # for good: _no_news never turns false again for an acronym
            if not paren_capital_before(text, at):
                continue  # a later use outside any parenthesis cannot change this acronym's outcome
        if (
            use is not None
            and (use.kind is None or use.expanded_at is not None)
            and kept_after(text, m.end(), m.group())
        ):
            continue  # settled for good: only a reversed expansion counts, and no `,`, `:` or dash follows
        line += text.count("\n", counted_to, at)
        counted_to = at
        line_start = text.rfind("\n", 0, at) + 1
        column = at - line_start
        masked = prose.line(line)
        if not masked or masked[column] == " " or (comments and inside_spans(comments, at)):
            continue
        end = m.end() - line_start
        if abbr in table.profiles and profile_of(masked, column, table.profiles[abbr]):
            continue  # `OWL 2 RL`: a profile of OWL, not the acronym RL
        compound = _name_part(masked, column, end)
        if compound is not None and not whole.stands_alone(abbr):
            continue  # part of a name (EUR-Lex, OWL 2 RL): no use of an acronym the text never uses alone
        if line == named_until[0] and column < named_until[1]:
            continue  # AI in `EU AI Act (...)`: part of the name reported as defined after it
        after = masked[end:]
        opened = column > 0 and (
            masked[column - 1] == "("
            or (
                masked[column - 1] == " "
                and _OPEN_GROUP.search(masked, max(0, column - 40), column) is not None
            )
        )
        # An audit note talks about the acronyms: its mentions are no uses (asked only where a use
        # would count: most uses looked at here are later ones right after a `(`, and not reversed)
        if opened:
            problem = _reversed(after, abbr, line, table)
            if problem is not None and not whole.audit(line):
                reversed_.append(replace(problem, column=column, written=m.group()))
                first.setdefault(abbr, _FirstUse(m.group(), line, "reversed"))
                continue
        if use is not None and (use.kind is None or use.expanded_at is not None):
            continue  # settled: later uses of an acronym may stand alone
        if use is None and whole.audit(line):
            continue  # (a later use on an audit note is asked about below, only if it would count)
        group = paren_group(masked, column, end) if "(" in masked[max(0, column - 60) : column] else None
        paren = group[0] if group is not None else masked.rfind("(", 0, column) if opened else -1
        before = prose.before(line, paren) if paren >= 0 else ""
        where = compound[0] if compound is not None else ""
        if compound is not None and compound[2] > end:  # `KG-RAG (Knowledge Graph ...)`: the whole name
            after = masked[compound[2] :]
        kind, detail, long_form, defined = classify(
            before or masked[:column], after, abbr, m.group(), opened, group, where, table, use is None
        )
        if use is None:
            if kind not in (None, "wrong_expansion") and (
                line == title or _in_source_title(prose, line, column) or _quoted(masked, column, end)
            ):
                continue  # a title is a label or a quotation; the author's own first use must expand it
            written, col, name = m.group(), column, defined
            if kind == "defined_after" and compound is not None and compound[2] > end:
                written, col, where = compound[0], compound[1], ""  # `KG-RAG (...)`: the whole name
            elif kind == "defined_after" and " " in defined:
                named_until = (line, column + len(defined))  # `EU AI Act (...)`
            first[abbr] = _FirstUse(
                written, line, kind, detail, long_form=long_form, column=col, where=where, name=name
            )
        elif kind is None and not whole.audit(line):
            use.expanded_at = line
            use.long_form = use.long_form or long_form  # a reversed or other form keeps its own words
    problems = [
        _first_use_problem(abbr, use, table)
        for abbr, use in first.items()
        if use.kind not in (None, "reversed")
    ]
    return tuple(sorted(problems + reversed_, key=lambda p: (p.line, p.acronym)))


def _name_part(masked: str, start: int, end: int) -> tuple[str, int, int] | None:
    """acronym_uses.name_part, asked only where a `-`, a `/` or a version number touches the token."""
    before = masked[start - 1] if start > 0 else " "
    after = masked[end] if end < len(masked) else " "
    if before in "-/" or after in "-/" or (before == " " and start > 1 and masked[start - 2].isdigit()):
        return name_part(masked, start, end)
    return None


def _no_news(use: _FirstUse, abbr: str, table: AcronymTable) -> bool:
    """Whether a later use of `abbr` that is not right inside a parenthesis can change nothing: it is
    no reversed expansion (that needs a `(` and a capital after it within the 40 characters
    `_OPEN_GROUP` looks back over, and masking only blanks characters, so the raw text holds them too:
    `paren_capital_before`), and it can only settle the
    acronym as a shorthand followed by an accepted word. Most of the ~87k matches in the corpus are
    such uses, and skipping them before the line is masked saves most of the check's Python time."""
    return use.kind is None or use.expanded_at is not None or abbr not in table.shorthand


def _quoted(masked: str, start: int, end: int) -> bool:
    """Whether [start, end) of a (masked) line is inside a quotation, "..." or “...”: a cited title or
    someone else's sentence, which the author's own first use must expand, not the quotation."""
    if masked.count('"', 0, start) % 2 == 1 and '"' in masked[end:]:
        return True
    opening = masked.rfind("\u201c", 0, start)
    return opening >= 0 and "\u201d" not in masked[opening:start] and "\u201d" in masked[end:]


def _in_source_title(prose: Prose, line: int, column: int) -> bool:
    """Whether the column is inside the link text of an entry in the Sources section (a cited title)."""
    if not prose.sources[0] <= line <= prose.sources[1]:
        return False
    return any(m.start() < column < m.end() for m in _LINK_TEXT.finditer(prose.lines[line - 1]))


def _reversed(after: str, abbr: str, line: int, table: AcronymTable) -> AcronymProblem | None:
    """`(ABBR, Full Name)`: the protocol's grep, kept only where the words really spell the acronym
    (so a benign list such as `(API, CLI)` or `(GPU, Python 3.11)` is not a reversed expansion)."""
    sep = _REVERSED_TAIL.match(after)
    if sep is None:
        return None
    inner = expansion_within(sep.group(1), abbr)
    if inner is None:
        return None
    suggestion = _suggested(abbr, table, inner)
    wanted = _expected(abbr, suggestion)
    return AcronymProblem(
        abbr,
        "reversed",
        line,
        f'reversed expansion "({abbr}, {inner})"; write "{wanted}" instead',
        suggestion,
    )


def _first_use_problem(abbr: str, use: _FirstUse, table: AcronymTable) -> AcronymProblem:
    kind: ProblemKind = use.kind or "unexpanded"
    named = use.name or abbr  # what the message names: the acronym, or the name it is defined in
    suggestion = None if kind == "shorthand" else _suggested(named, table, use.long_form)
    wanted = _expected(named, suggestion)
    own = kind in ("defined_after", "other_form") and suggestion is None and bool(use.long_form)
    if own:  # the writer's own words, in the protocol's order (not a suggestion `fix` would write)
        wanted = _expected(named, use.long_form)
    place = f' in "{use.where}"' if use.where else ""
    if kind == "shorthand":
        message = f"{use.written} used as shorthand; {table.shorthand[abbr].advice} at first use"
    elif kind == "defined_after":
        message = (
            f'{named} defined in reversed order as "{named} ({use.detail})"; '
            f'the protocol asks for "{wanted}" at first use'
        )
    elif kind == "other_form":
        message = f'{use.written} written as "{use.detail}"; the protocol asks for "{wanted}" at first use'
    elif kind == "wrong_expansion":
        message = f'{abbr} expanded as "{use.detail} ({abbr})"; the protocol requires "{wanted}" at first use'
    elif use.expanded_at is not None:
        kind = "late"
        message = (
            f"{use.written} used{place} before its expansion (expanded only at line {use.expanded_at}); "
            f'write "{wanted}" at first use'
        )
    elif use.detail:  # a part of a group that the words before the group do not spell
        message = (
            f'{use.written} used without expansion: the words before "({use.detail})" do not spell it; '
            f'write "{wanted}" at first use'
        )
    else:
        message = f'{use.written} used{place} without expansion; write "{wanted}" at first use'
    if suggestion is None and kind != "shorthand" and not own:
        message += _unknown_hint(named)
    return AcronymProblem(abbr, kind, use.line, message, suggestion, use.column, use.written)


def score_for(problems: tuple[AcronymProblem, ...]) -> int:
    """The rubric's anchors: 0 unexpanded -> 5, 1 -> 4, 2 -> 3, 3-4 -> 2, 5+ -> 1; a reversed expansion
    caps the score at 2."""
    unexpanded = len({p.acronym for p in problems if p.kind != "reversed"})
    score = (
        5
        if unexpanded == 0
        else 4
        if unexpanded == 1
        else 3
        if unexpanded == 2
        else 2
        if unexpanded <= 4
        else 1
    )
    if any(p.kind == "reversed" for p in problems):
        score = min(score, 2)
    return score


def check(document: Document, params: AcronymExpansionParams | None = None) -> CheckOutcome:
    """The acronym_expansion dimension: a score on the rubric's 1-5 anchors and one finding per problem."""
    sections = params.sections if params is not None else ()
    problems = find_problems(document, with_params(params), sections=sections)
    findings = tuple(Finding(p.line, p.message, rule=p.kind) for p in problems)
    score = score_for(problems)
    if document.disguised:  # invisible characters or look-alike letters in a word (checks.readable)
        findings += disguise_findings(document)
        score = min(score, CAPPED_SCORE)
    return CheckOutcome(score=score, findings=findings)
